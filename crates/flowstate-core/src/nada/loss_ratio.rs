//! Packet loss and ECN marking ratios (RFC 8698 section 5.1.2): the instantaneous
//! ratio p_inst of missing (marked) packets among those sent in the observation window
//! LOGWIN, exponentially smoothed at each report, p = ALPHA * p_inst + (1 - ALPHA) * p;
//! plus the loss intervals (packets between loss events) that decide how long delay
//! warping stays on after the last loss (section 4.2: loss_exp = MULTILOSS * loss_int).
//!
//! The average loss interval loss_int is TFRC's (RFC 5348 section 5.4, as the reference
//! implementation cisco/ns3-rmcat computes it): the newest eight intervals weighted
//! 1, 1, 1, 1, 0.8, 0.6, 0.4, 0.2, the open interval (packets since the last loss)
//! counted, the larger of the averages with and without it. Each gap in the sequence
//! numbers ends an interval (a burst of consecutive losses is one event); the packets
//! before the first loss are the first interval. Option `loss_interval_ewma` keeps the
//! earlier estimator: the first interval discarded, later ones smoothed with ALPHA.

use crate::units::{TimeDelta, Timestamp};
use std::collections::VecDeque;

/// One observation: (time, received, lost, marked).
type Observation = (Timestamp, u64, u64, u64);

/// RFC 5348 section 5.4: the weights of the newest n = 8 loss intervals,
/// w_i = 1 for i < n/2, else 1 - (i - (n/2 - 1)) / (n/2 + 1).
const TFRC_WEIGHTS: [f64; 8] = [1.0, 1.0, 1.0, 1.0, 0.8, 0.6, 0.4, 0.2];

/// How the average loss interval loss_int is estimated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IntervalAverage {
    /// RFC 5348 section 5.4 over the newest eight closed intervals and the open one.
    Tfrc,
    /// The first interval discarded, later ones smoothed with ALPHA (an EWMA).
    Ewma,
}

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
    /// Smoothed loss interval in packets, once a loss has been seen (EWMA estimator).
    avg_interval: Option<f64>,
    losses_seen: bool,
    estimator: IntervalAverage,
    /// Closed loss intervals in packets, newest first, at most eight (TFRC estimator).
    closed: VecDeque<u64>,
}

impl LossRatio {
    /// Loss statistics with the TFRC average loss interval (RFC 5348 section 5.4).
    pub fn new(alpha: f64, logwin: TimeDelta) -> Self {
        Self::with_interval_average(alpha, logwin, IntervalAverage::Tfrc)
    }

    /// Loss statistics with the given estimator of the average loss interval.
    pub fn with_interval_average(
        alpha: f64,
        logwin: TimeDelta,
        estimator: IntervalAverage,
    ) -> Self {
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
            estimator,
            closed: VecDeque::with_capacity(TFRC_WEIGHTS.len() + 1),
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
        if self.estimator == IntervalAverage::Tfrc {
            // The interval the loss closes; the packets before the first loss count.
            self.closed.push_front(self.since_loss);
            self.closed.truncate(TFRC_WEIGHTS.len());
        }
        let interval = self.since_loss as f64;
        if self.losses_seen && self.estimator == IntervalAverage::Ewma {
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
    /// been seen. With the EWMA estimator the average is `None` before a second loss
    /// (warping then lasts until a second loss measures an interval).
    pub fn loss_interval(&self) -> Option<(u64, Option<f64>)> {
        if !self.losses_seen {
            return None;
        }
        let avg = match self.estimator {
            IntervalAverage::Tfrc => Some(self.tfrc_average()),
            IntervalAverage::Ewma => self.avg_interval,
        };
        Some((self.since_loss, avg))
    }

    /// RFC 5348 section 5.4 with k closed intervals I_1..I_k (k <= n = 8) and the open
    /// one I_0: I_tot0 = sum_{i=0}^{k-1} I_i w_i, I_tot1 = sum_{i=1}^{k} I_i w_{i-1},
    /// I_mean = max(I_tot0, I_tot1) / sum_{i=0}^{k-1} w_i.
    fn tfrc_average(&self) -> f64 {
        let k = self.closed.len();
        let open = self.since_loss as f64;
        let with_open = std::iter::once(open).chain(
            self.closed
                .iter()
                .take(k.saturating_sub(1))
                .map(|&i| i as f64),
        );
        let tot0: f64 = with_open.zip(TFRC_WEIGHTS).map(|(i, w)| i * w).sum();
        let tot1: f64 = self
            .closed
            .iter()
            .zip(TFRC_WEIGHTS)
            .map(|(&i, w)| i as f64 * w)
            .sum();
        let w_tot: f64 = TFRC_WEIGHTS.iter().take(k).sum();
        if w_tot > 0.0 {
            tot0.max(tot1) / w_tot
        } else {
            open
        }
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
        let mut l =
            LossRatio::with_interval_average(0.5, TimeDelta::millis(500), IntervalAverage::Ewma);
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

    /// RFC 5348 section 5.4 by hand: intervals 100 (before the first loss), 4, 2 and
    /// an open interval of 30: I_tot1 = 2 + 4 + 100 = 106 over w = 3, I_tot0 = 30 + 2
    /// + 4 = 36: the mean is 106 / 3 (the open interval is smaller).
    #[test]
    fn tfrc_average_weights_the_newest_eight_and_counts_the_open_interval() {
        let mut l = LossRatio::new(0.1, TimeDelta::millis(500));
        let receive = |l: &mut LossRatio, n: u64| {
            for _ in 0..n {
                l.on_received(t(1), false);
            }
        };
        receive(&mut l, 100);
        l.on_lost(t(2), 1);
        assert_eq!(l.loss_interval(), Some((0, Some(100.0))));
        receive(&mut l, 4);
        l.on_lost(t(3), 2);
        receive(&mut l, 2);
        l.on_lost(t(4), 1);
        receive(&mut l, 30);
        let (since, avg) = l.loss_interval().unwrap();
        assert_eq!(since, 30);
        assert!((avg.unwrap() - 106.0 / 3.0).abs() < 1e-9, "{avg:?}");
        // A long open interval counts: 400 + 2 + 4 = 406 > 106.
        receive(&mut l, 370);
        assert!((l.loss_interval().unwrap().1.unwrap() - 406.0 / 3.0).abs() < 1e-9);
        // Nine more losses 10 packets apart: only the newest eight closed intervals
        // count, the first (400) has left; all ten-packet intervals give 10.
        for k in 0..9 {
            l.on_lost(t(5 + k), 1);
            receive(&mut l, 10);
        }
        assert!((l.loss_interval().unwrap().1.unwrap() - 10.0).abs() < 1e-9);
    }

    /// A loss burst (losses a few packets apart) after a long loss-free stretch: the
    /// TFRC average keeps the long interval in its eight, so the expiry
    /// (MULTILOSS x loss_int) stays long; the EWMA collapses to the burst's gaps.
    #[test]
    fn a_burst_does_not_shrink_the_tfrc_average_as_the_ewma_does() {
        let burst = |estimator| {
            let mut l = LossRatio::with_interval_average(0.1, TimeDelta::millis(500), estimator);
            for _ in 0..1000 {
                l.on_received(t(1), false);
            }
            for k in 0..6 {
                l.on_lost(t(2 + k), 1);
                for _ in 0..3 {
                    l.on_received(t(2 + k), false);
                }
            }
            l.loss_interval().unwrap().1.unwrap()
        };
        let tfrc = burst(IntervalAverage::Tfrc);
        let ewma = burst(IntervalAverage::Ewma);
        // (3 x 4.8 + 1000 x 0.6) / 5.4 = 113.8 packets: warping lasts about
        // 7 x 114 = 796 packets; the EWMA's 3-packet mean lets it lapse after 21.
        assert!((tfrc - 614.4 / 5.4).abs() < 1e-9, "{tfrc}");
        assert!((ewma - 3.0).abs() < 1e-9, "{ewma}");
    }
}
