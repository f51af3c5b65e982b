//! Packet loss and ECN marking ratios (RFC 8698 section 5.1.2): the instantaneous
//! ratio p_inst of missing (marked) packets among those sent in the observation window
//! LOGWIN, exponentially smoothed at each report, p = ALPHA * p_inst + (1 - ALPHA) * p;
//! plus the loss intervals (packets between loss events) that decide how long delay
//! warping stays on after the last loss (section 4.2: loss_exp = MULTILOSS * loss_int).

use crate::units::{TimeDelta, Timestamp};
use std::collections::VecDeque;

/// One observation: (time, received, lost, marked).
type Observation = (Timestamp, u64, u64, u64);

/// Loss and marking statistics of one media stream.
#[derive(Debug, Clone)]
pub struct LossRatio {
    alpha: f64,
    logwin: TimeDelta,
    p_loss: f64,
    p_mark: f64,
    /// Observations of the last LOGWIN.
    window: VecDeque<Observation>,
    /// Packets received since the last loss event (the current loss interval).
    since_loss: u64,
    /// Smoothed loss interval in packets, once a loss has been seen.
    avg_interval: Option<f64>,
    losses_seen: bool,
}

impl LossRatio {
    pub fn new(alpha: f64, logwin: TimeDelta) -> Self {
        LossRatio {
            alpha: if alpha.is_finite() {
                alpha.clamp(0.0, 1.0)
            } else {
                1.0
            },
            logwin,
            p_loss: 0.0,
            p_mark: 0.0,
            window: VecDeque::new(),
            since_loss: 0,
            avg_interval: None,
            losses_seen: false,
        }
    }

    fn evict(&mut self, now: Timestamp) {
        while self
            .window
            .front()
            .is_some_and(|o| now.saturating_since(o.0) >= self.logwin)
        {
            self.window.pop_front();
        }
    }

    /// One packet arrived at `now`, ECN-CE marked or not.
    pub fn on_received(&mut self, now: Timestamp, ce_marked: bool) {
        self.since_loss = self.since_loss.saturating_add(1);
        self.window.push_back((now, 1, 0, u64::from(ce_marked)));
        self.evict(now);
    }

    /// `n` packets were found lost at `now` (one loss event: a burst counts once for
    /// the interval).
    pub fn on_lost(&mut self, now: Timestamp, n: u64) {
        if n == 0 {
            return;
        }
        self.window.push_back((now, 0, n, 0));
        self.evict(now);
        let interval = self.since_loss as f64;
        if self.losses_seen {
            // The average loss interval: smoothed like the ratios (ALPHA). RFC 8698 does
            // not fix the estimator; see docs/ALGORITHMS.md.
            self.avg_interval = Some(match self.avg_interval {
                Some(a) => self.alpha * interval + (1.0 - self.alpha) * a,
                None => interval,
            });
        }
        self.losses_seen = true;
        self.since_loss = 0;
    }

    /// At a report: p_inst over the last LOGWIN, folded into the smoothed ratios.
    pub fn update(&mut self, now: Timestamp) {
        self.evict(now);
        let (mut received, mut lost, mut marked) = (0u64, 0u64, 0u64);
        for o in &self.window {
            received = received.saturating_add(o.1);
            lost = lost.saturating_add(o.2);
            marked = marked.saturating_add(o.3);
        }
        let total = received.saturating_add(lost);
        let inst_loss = if total > 0 {
            lost as f64 / total as f64
        } else {
            0.0
        };
        let inst_mark = if received > 0 {
            marked as f64 / received as f64
        } else {
            0.0
        };
        self.p_loss = self.alpha * inst_loss + (1.0 - self.alpha) * self.p_loss;
        self.p_mark = self.alpha * inst_mark + (1.0 - self.alpha) * self.p_mark;
    }

    /// Smoothed packet loss ratio p_loss in [0, 1].
    pub fn p_loss(&self) -> f64 {
        self.p_loss
    }

    /// Smoothed ECN marking ratio p_mark in [0, 1].
    pub fn p_mark(&self) -> f64 {
        self.p_mark
    }

    /// (packets since the last loss, average loss interval in packets) once a loss has
    /// been seen. Before a second loss the average is `None` (warping then lasts until
    /// a second loss measures an interval).
    pub fn loss_interval(&self) -> Option<(u64, Option<f64>)> {
        self.losses_seen
            .then_some((self.since_loss, self.avg_interval))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(ms: u64) -> Timestamp {
        Timestamp::from_millis(ms)
    }

    #[test]
    fn ratios_over_logwin_smoothed_with_alpha() {
        let mut l = LossRatio::new(0.1, TimeDelta::millis(500));
        for i in 0..9 {
            l.on_received(t(10 * i), false);
        }
        l.on_lost(t(90), 1); // 1 of 10 in the window: p_inst = 0.1 -> p = 0.01
        l.update(t(100));
        assert!((l.p_loss() - 0.01).abs() < 1e-12);
        for i in 0..10 {
            l.on_received(t(200 + 10 * i), i < 5);
        }
        // Window (300 ms span) still holds the loss: 1 of 20 lost -> p_inst 0.05,
        // p = 0.1 * 0.05 + 0.9 * 0.01 = 0.014; marks 5 of 19 received.
        l.update(t(300));
        assert!((l.p_loss() - 0.014).abs() < 1e-12, "{}", l.p_loss());
        assert!((l.p_mark() - 0.1 * 5.0 / 19.0).abs() < 1e-12);
        // 600 ms later the window is empty: p_inst 0, p decays.
        l.update(t(900));
        assert!((l.p_loss() - 0.9 * 0.014).abs() < 1e-12);
    }

    #[test]
    fn loss_intervals_count_packets_between_losses() {
        let mut l = LossRatio::new(0.5, TimeDelta::millis(500));
        assert_eq!(l.loss_interval(), None);
        l.on_lost(t(0), 1);
        assert_eq!(l.loss_interval(), Some((0, None)));
        for _ in 0..100 {
            l.on_received(t(1), false);
        }
        l.on_lost(t(2), 3); // interval 100
        assert_eq!(l.loss_interval(), Some((0, Some(100.0))));
        for _ in 0..50 {
            l.on_received(t(3), false);
        }
        l.on_lost(t(4), 1); // 0.5 * 50 + 0.5 * 100 = 75
        assert_eq!(l.loss_interval(), Some((0, Some(75.0))));
    }
}
