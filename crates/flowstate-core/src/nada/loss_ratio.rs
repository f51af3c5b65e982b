//! Packet loss and ECN marking ratios (RFC 8698 section 5.1.2): the ratio observed in
//! each feedback interval, exponentially smoothed, p = ALPHA * p_inst + (1 - ALPHA) * p;
//! plus the loss intervals (packets between loss events) that decide how long delay
//! warping stays on after the last loss (section 4.2: loss_exp = MULTILOSS * loss_int).

/// Loss and marking statistics of one media stream.
#[derive(Debug, Clone)]
pub struct LossRatio {
    alpha: f64,
    p_loss: f64,
    p_mark: f64,
    /// Packets received / lost / marked since the last `update`.
    received: u64,
    lost: u64,
    marked: u64,
    /// Packets received since the last loss event (the current loss interval).
    since_loss: u64,
    /// Smoothed loss interval in packets, once a loss has been seen.
    avg_interval: Option<f64>,
    losses_seen: bool,
}

impl LossRatio {
    pub fn new(alpha: f64) -> Self {
        LossRatio {
            alpha: if alpha.is_finite() {
                alpha.clamp(0.0, 1.0)
            } else {
                1.0
            },
            p_loss: 0.0,
            p_mark: 0.0,
            received: 0,
            lost: 0,
            marked: 0,
            since_loss: 0,
            avg_interval: None,
            losses_seen: false,
        }
    }

    /// One packet arrived, ECN-CE marked or not.
    pub fn on_received(&mut self, ce_marked: bool) {
        self.received = self.received.saturating_add(1);
        self.since_loss = self.since_loss.saturating_add(1);
        if ce_marked {
            self.marked = self.marked.saturating_add(1);
        }
    }

    /// `n` packets were lost (one loss event: a burst counts once for the interval).
    pub fn on_lost(&mut self, n: u64) {
        if n == 0 {
            return;
        }
        self.lost = self.lost.saturating_add(n);
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

    /// End of a feedback interval: fold the interval's ratios into the smoothed ones.
    pub fn update(&mut self) {
        let total = self.received.saturating_add(self.lost);
        if total > 0 {
            let inst_loss = self.lost as f64 / total as f64;
            self.p_loss = self.alpha * inst_loss + (1.0 - self.alpha) * self.p_loss;
        }
        if self.received > 0 {
            let inst_mark = self.marked as f64 / self.received as f64;
            self.p_mark = self.alpha * inst_mark + (1.0 - self.alpha) * self.p_mark;
        }
        self.received = 0;
        self.lost = 0;
        self.marked = 0;
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
    /// been seen. Before a second loss the average is the first interval observed, or
    /// `None` (warping then lasts until a second loss measures an interval).
    pub fn loss_interval(&self) -> Option<(u64, Option<f64>)> {
        self.losses_seen
            .then_some((self.since_loss, self.avg_interval))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ratios_are_smoothed_with_alpha() {
        let mut l = LossRatio::new(0.1);
        for _ in 0..9 {
            l.on_received(false);
        }
        l.on_lost(1); // 1 of 10 lost: p_inst = 0.1 -> p = 0.1 * 0.1 = 0.01
        l.update();
        assert!((l.p_loss() - 0.01).abs() < 1e-12);
        for i in 0..10 {
            l.on_received(i < 5); // half marked: p_mark = 0.1 * 0.5 = 0.05
        }
        l.update(); // p_loss = 0.9 * 0.01 = 0.009
        assert!((l.p_loss() - 0.009).abs() < 1e-12);
        assert!((l.p_mark() - 0.05).abs() < 1e-12);
    }

    #[test]
    fn loss_intervals_count_packets_between_losses() {
        let mut l = LossRatio::new(0.5);
        assert_eq!(l.loss_interval(), None);
        l.on_lost(1);
        assert_eq!(l.loss_interval(), Some((0, None)));
        for _ in 0..100 {
            l.on_received(false);
        }
        l.on_lost(3); // interval 100
        assert_eq!(l.loss_interval(), Some((0, Some(100.0))));
        for _ in 0..50 {
            l.on_received(false);
        }
        l.on_lost(1); // 0.5 * 50 + 0.5 * 100 = 75
        assert_eq!(l.loss_interval(), Some((0, Some(75.0))));
    }
}
