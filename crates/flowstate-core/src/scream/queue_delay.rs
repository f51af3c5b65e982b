//! The one-way queuing delay and its trend (RFC 8298 section 4.1.2.2): qdelay = OWD -
//! base OWD (base: the LEDBAT-style history of per-interval minima), the smoothed
//! fraction `qdelay_fraction_avg`, and `qdelay_trend`, the lag-1 autocorrelation of
//! the recent fractions scaled by their average, which tells a growing queue from a
//! standing one.

use super::config::ScreamConfig;
use crate::units::{TimeDelta, Timestamp};
use crate::window::ledbat::BaseDelayHistory;
use std::collections::VecDeque;

/// RFC 8298 section 4.1.2.2:
/// `qdelay_trend = min(1, max(0, R1 / R0 * qdelay_fraction_avg))`, where R0 and R1 are
/// the lag-0 and lag-1 autocovariances of `qdelay_fraction_hist` (mean removed).
pub fn trend(hist: &[f64], fraction_avg: f64) -> f64 {
    if hist.len() < 2 {
        return 0.0;
    }
    let mean = hist.iter().sum::<f64>() / hist.len() as f64;
    let (mut r0, mut r1, mut prev) = (0.0, 0.0, 0.0);
    for &x in hist {
        let x = x - mean;
        r0 += x * x;
        r1 += x * prev;
        prev = x;
    }
    if r0 > 0.0 && r0.is_finite() {
        (r1 / r0 * fraction_avg).clamp(0.0, 1.0)
    } else {
        0.0
    }
}

/// Queuing-delay state of the sender.
#[derive(Debug, Clone)]
pub struct QueueDelay {
    base: BaseDelayHistory,
    qdelay: TimeDelta,
    fraction_avg: f64,
    hist: VecDeque<f64>,
    hist_len: usize,
    last_hist: Option<Timestamp>,
    trend: f64,
    trend_mem: f64,
}

impl QueueDelay {
    pub fn new(cfg: &ScreamConfig) -> Self {
        QueueDelay {
            base: BaseDelayHistory::new(cfg.base_owd_history, cfg.base_owd_interval),
            qdelay: TimeDelta::ZERO,
            fraction_avg: 0.0,
            hist: VecDeque::with_capacity(cfg.qdelay_hist_len),
            hist_len: cfg.qdelay_hist_len.max(2),
            last_hist: None,
            trend: 0.0,
            trend_mem: 0.0,
        }
    }

    /// An acked packet's one-way delay (receiver clock minus sender clock).
    pub fn on_owd(&mut self, now: Timestamp, owd: TimeDelta) {
        self.base.update(now, owd);
        let base = self.base.base().unwrap_or(owd);
        self.qdelay = (owd - base).max(TimeDelta::ZERO);
    }

    /// Once per feedback, with the current qdelay_target: `qdelay_fraction_avg = (1 - QDELAY_WEIGHT) *
    /// qdelay_fraction_avg + QDELAY_WEIGHT * qdelay / qdelay_target`; every
    /// `qdelay_hist_interval` the fraction enters the history (repeated for intervals
    /// without feedback), then `qdelay_trend` and `qdelay_trend_mem = max(0.99 *
    /// qdelay_trend_mem, qdelay_trend)` are updated.
    pub fn update(&mut self, now: Timestamp, cfg: &ScreamConfig, target: TimeDelta) {
        let fraction = self.qdelay.as_secs_f64() / target.as_secs_f64().max(1e-6);
        self.fraction_avg =
            (1.0 - cfg.qdelay_weight) * self.fraction_avg + cfg.qdelay_weight * fraction;
        let last = *self.last_hist.get_or_insert(now);
        let step = cfg.qdelay_hist_interval.as_micros().max(1);
        let n = (now.saturating_since(last).as_micros() / step).min(self.hist_len as i64);
        if n > 0 {
            for _ in 0..n {
                if self.hist.len() == self.hist_len {
                    self.hist.pop_front();
                }
                self.hist.push_back(fraction);
            }
            self.last_hist = Some(now);
            if self.hist.len() == self.hist_len {
                self.trend = trend(self.hist.make_contiguous(), self.fraction_avg);
            }
            self.trend_mem = (cfg.qdelay_trend_mem_decay * self.trend_mem).max(self.trend);
        }
    }

    pub fn qdelay(&self) -> TimeDelta {
        self.qdelay
    }
    pub fn fraction_avg(&self) -> f64 {
        self.fraction_avg
    }
    pub fn trend(&self) -> f64 {
        self.trend
    }
    pub fn trend_mem(&self) -> f64 {
        self.trend_mem
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trend_of_hand_computed_series() {
        // A steady queue: no variance, no trend.
        assert_eq!(trend(&[0.5; 20], 0.5), 0.0);
        // x = 0, 1, 2, 3: mean 1.5, deviations -1.5 -0.5 0.5 1.5; R0 = 5,
        // R1 = 0.75 - 0.25 + 0.75 = 1.25; trend = 0.25 * avg (0.8) = 0.2.
        assert!((trend(&[0.0, 1.0, 2.0, 3.0], 0.8) - 0.2).abs() < 1e-12);
        // Alternating: negative autocorrelation clamps to 0.
        assert_eq!(trend(&[0.0, 1.0, 0.0, 1.0], 1.0), 0.0);
        // Clamped at 1.
        assert_eq!(trend(&[0.0, 1.0, 2.0, 3.0], 100.0), 1.0);
    }

    #[test]
    fn qdelay_and_fraction_average() {
        let cfg = ScreamConfig::default();
        let mut q = QueueDelay::new(&cfg);
        let t = Timestamp::from_secs(1);
        q.on_owd(t, TimeDelta::millis(1040)); // base 1040 (offset clocks)
        q.on_owd(t, TimeDelta::millis(1090));
        assert_eq!(q.qdelay(), TimeDelta::millis(50));
        q.update(t, &cfg, cfg.qdelay_target);
        // 0.9 * 0 + 0.1 * 0.5 = 0.05.
        assert!((q.fraction_avg() - 0.05).abs() < 1e-12);
        q.update(t, &cfg, cfg.qdelay_target);
        assert!((q.fraction_avg() - 0.095).abs() < 1e-12);
    }

    #[test]
    fn a_growing_queue_raises_the_trend() {
        let cfg = ScreamConfig::default();
        let mut q = QueueDelay::new(&cfg);
        for i in 0..60u64 {
            let t = Timestamp::from_millis(1000 + 50 * i);
            q.on_owd(t, TimeDelta::millis(20 + 3 * i as i64));
            q.update(t, &cfg, cfg.qdelay_target);
        }
        assert!(q.trend() > 0.3, "{}", q.trend());
        assert!(q.trend_mem() >= q.trend());
    }
}
