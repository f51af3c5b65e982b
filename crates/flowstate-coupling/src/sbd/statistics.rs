//! The summary statistics of one flow over the last N base intervals (RFC 8382
//! section 3.2), with the oscillation-noise removal of section 3.4.1.
//!
//! ```text
//! mean_delay = E_M(E_T(OWD))                                   (3.2.1)
//! skew_est   = sum_MT(skew_base_T) / num_MT(OWD)   in [-1, 1]   (3.2.2)
//! var_est    = sum_MT(var_base_T)  / num_MT(OWD)               (3.2.3, MAD)
//! freq_est   = number_of_crossings / F             in [0, 1]    (3.2.4)
//! pkt_loss   = sum_NT(lost) / sum_NT(lost + received)           (3.2.5)
//! ```
//!
//! A *significant mean crossing* (3.2.4): at the end of each interval, E_T(OWD) is
//! placed above `mean_delay + p_v * var_est`, below `mean_delay - p_v * var_est`, or
//! in between; a crossing is a move from above to below or back, counted against the
//! last significant side (not the last interval). A cyclic buffer of the last F
//! intervals holds 1 for a crossing, 0 otherwise.
//!
//! Section 3.4.1 (oscillation noise), when [`SbdConfig::remove_oscillation_noise`] is
//! on: an interval at whose end the flow is deemed not to transit a bottleneck (the
//! first test of the grouping, 3.3.1 step 1, on the receiver's own skew_est and
//! pkt_loss) leaves no var_base_T and records no crossing.

use std::collections::VecDeque;

use super::base_interval::IntervalRecord;
use super::config::SbdConfig;

/// The four summary statistics of one flow (RFC 8382 section 3.2), as the grouping
/// reads them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SummaryStats {
    /// skew_est in [-1, 1]: positive when most OWD samples lie below the mean.
    pub skew_est: f64,
    /// var_est: the mean absolute deviation of OWD from mean_delay, in microseconds.
    pub var_est_us: f64,
    /// freq_est in [0, 1]: significant mean crossings per interval over F intervals.
    pub freq_est: f64,
    /// pkt_loss in [0, 1]: the share of packets lost over N intervals.
    pub pkt_loss: f64,
}

impl SummaryStats {
    /// The first test of the grouping (RFC 8382 3.3.1 step 1): does the flow transit a
    /// bottleneck, given whether it did last time (`pb`)?
    ///
    /// ```text
    /// skew_est < c_s  ||  (skew_est < c_h && PB)  ||  pkt_loss > p_l
    /// ```
    pub fn transits_bottleneck(&self, config: &SbdConfig, pb: bool) -> bool {
        self.skew_est < config.c_s
            || (self.skew_est < config.c_h && pb)
            || self.pkt_loss > config.p_l
    }

    /// All four are finite numbers.
    pub fn is_finite(&self) -> bool {
        self.skew_est.is_finite()
            && self.var_est_us.is_finite()
            && self.freq_est.is_finite()
            && self.pkt_loss.is_finite()
    }
}

/// Which side of mean_delay the last significant E_T(OWD) was on (3.2.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    Above,
    Below,
}

/// The last N closed base intervals of one flow and what is derived from them.
#[derive(Debug, Clone)]
pub(crate) struct StatisticsWindow {
    config: SbdConfig,
    /// Newest last; at most N.
    records: VecDeque<IntervalRecord>,
    last_side: Option<Side>,
    /// PB as the receiver's own noise test sees it (3.4.1).
    bottleneck: bool,
    /// mean_delay of the current records (recomputed on every push; read per packet).
    mean_delay_us: Option<f64>,
}

impl StatisticsWindow {
    pub fn new(config: SbdConfig) -> Self {
        StatisticsWindow {
            config,
            records: VecDeque::with_capacity(config.n),
            last_side: None,
            bottleneck: false,
            mean_delay_us: None,
        }
    }

    /// mean_delay = E_M(E_T(OWD)) over the last M intervals that had samples
    /// (3.2.1), in microseconds; `None` before the first such interval closed.
    pub fn mean_delay_us(&self) -> Option<f64> {
        self.mean_delay_us
    }

    fn compute_mean_delay_us(&self) -> Option<f64> {
        let means = self
            .records
            .iter()
            .rev()
            .take(self.config.m)
            .filter_map(IntervalRecord::mean_us);
        let (sum, count) = means.fold((0.0, 0u32), |(s, c), m| (s + m, c + 1));
        (count > 0).then(|| sum / f64::from(count))
    }

    fn last_m(&self) -> impl Iterator<Item = &IntervalRecord> {
        self.records.iter().rev().take(self.config.m)
    }

    /// skew_est (3.2.2); `None` while no sample was compared with a mean.
    fn skew_est(&self) -> Option<f64> {
        let (sum, num) = self
            .last_m()
            .filter_map(|r| r.skew)
            .fold((0i64, 0u64), |(s, n), (b, c)| (s + b, n + u64::from(c)));
        (num > 0).then(|| sum as f64 / num as f64)
    }

    /// var_est (3.2.3) over the intervals whose var_base_T is valid (3.4.1); 0 when
    /// none is.
    fn var_est_us(&self) -> f64 {
        let (sum, num) = self
            .last_m()
            .filter_map(|r| r.var)
            .fold((0.0, 0u64), |(s, n), (b, c)| (s + b, n + u64::from(c)));
        if num > 0 {
            sum / num as f64
        } else {
            0.0
        }
    }

    /// freq_est (3.2.4): crossings among the last F intervals, divided by F.
    fn freq_est(&self) -> f64 {
        self.crossings() as f64 / self.config.f as f64
    }

    /// The number of significant mean crossings among the last F intervals.
    pub fn crossings(&self) -> usize {
        let last_f = self.records.iter().rev().take(self.config.f);
        last_f.filter(|r| r.crossing).count()
    }

    /// pkt_loss (3.2.5) over the last N intervals: lost / (lost + received).
    fn pkt_loss(&self) -> f64 {
        let (lost, received) = self.records.iter().fold((0u64, 0u64), |(l, n), r| {
            (l + u64::from(r.lost), n + u64::from(r.num))
        });
        let total = lost + received;
        if total > 0 {
            lost as f64 / total as f64
        } else {
            0.0
        }
    }

    /// The summary statistics, once skew_est exists (a mean and a compared sample).
    pub fn summary(&self) -> Option<SummaryStats> {
        Some(SummaryStats {
            skew_est: self.skew_est()?,
            var_est_us: self.var_est_us(),
            freq_est: self.freq_est(),
            pkt_loss: self.pkt_loss(),
        })
    }

    /// Adds a closed interval: decides its significant mean crossing against the
    /// mean_delay and var_est of the intervals before it, applies the noise removal of
    /// 3.4.1, and drops the interval that falls out of the N window.
    pub fn push(&mut self, mut record: IntervalRecord) {
        let side = match (record.mean_us(), self.mean_delay_us) {
            (Some(e_t), Some(mean)) => {
                let band = self.config.p_v * self.var_est_us();
                if e_t > mean + band {
                    Some(Side::Above)
                } else if e_t < mean - band {
                    Some(Side::Below)
                } else {
                    None
                }
            }
            _ => None,
        };
        let crossed = matches!((self.last_side, side), (Some(a), Some(b)) if a != b);
        if side.is_some() {
            self.last_side = side;
        }
        record.crossing = crossed;
        if self.records.len() == self.config.n {
            self.records.pop_front();
        }
        self.records.push_back(record);
        self.mean_delay_us = self.compute_mean_delay_us();
        if self.config.remove_oscillation_noise {
            let pb = self.bottleneck;
            self.bottleneck = self
                .summary()
                .is_some_and(|s| s.transits_bottleneck(&self.config, pb));
            if !self.bottleneck {
                if let Some(newest) = self.records.back_mut() {
                    newest.var = None;
                    newest.crossing = false;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sbd::base_interval::BaseInterval;

    fn plain(n: usize, m: usize, f: usize) -> SbdConfig {
        SbdConfig {
            n,
            m,
            f,
            remove_oscillation_noise: false,
            ..SbdConfig::default()
        }
    }

    /// Closes one interval of `samples` (us) against the window's current mean.
    fn interval(w: &mut StatisticsWindow, samples: &[i64], lost: u32) {
        let mut t = BaseInterval::default();
        let mean = w.mean_delay_us();
        for &s in samples {
            t.add_sample(s, mean);
        }
        t.add_lost(lost);
        w.push(t.close());
    }

    #[test]
    fn mean_delay_is_the_mean_of_the_last_m_interval_means() {
        let mut w = StatisticsWindow::new(plain(5, 2, 2));
        interval(&mut w, &[100, 100], 0); // E_T = 100
        interval(&mut w, &[200], 0); // E_T = 200
        interval(&mut w, &[], 0); // empty: no mean
        interval(&mut w, &[600, 700, 800], 0); // E_T = 700
                                               // Last M = 2 intervals: the empty one and 700 -> only 700 counts.
        assert_eq!(w.mean_delay_us(), Some(700.0));
        let mut w = StatisticsWindow::new(plain(5, 3, 2));
        interval(&mut w, &[100, 100], 0);
        interval(&mut w, &[200], 0);
        interval(&mut w, &[600, 700, 800], 0);
        // (100 + 200 + 700) / 3: a mean of means, not of samples.
        assert!((w.mean_delay_us().unwrap() - 1000.0 / 3.0).abs() < 1e-9);
    }

    #[test]
    fn skew_and_var_estimates_by_hand() {
        let mut w = StatisticsWindow::new(plain(10, 10, 5));
        interval(&mut w, &[10_000, 10_000], 0); // mean_delay = 10 ms from now on
        assert_eq!(w.summary(), None, "no sample compared with a mean yet");
        // 3 below, 1 above: skew_base = +2; |dev| = 1 + 1 + 2 + 6 = 10 ms.
        interval(&mut w, &[9_000, 9_000, 8_000, 16_000], 0);
        let s = w.summary().unwrap();
        assert!((s.skew_est - 2.0 / 4.0).abs() < 1e-12);
        assert!((s.var_est_us - 10_000.0 / 4.0).abs() < 1e-9);
        // mean_delay now (10 + 10.5) / 2 = 10.25 ms; 2 samples at 11 ms: above.
        interval(&mut w, &[11_000, 11_000], 0);
        let s = w.summary().unwrap();
        // skew: (2 - 2) / 6; var: (10 + 2 * 0.75) / 6 ms.
        assert!(s.skew_est.abs() < 1e-12);
        assert!((s.var_est_us - 11_500.0 / 6.0).abs() < 1e-9);
    }

    #[test]
    fn skew_is_a_sum_over_m_intervals_not_a_mean_of_ratios() {
        // Section 3.4.2: sum_MT(skew_base) / num_MT, so an interval with many samples
        // weighs more than one with few.
        let mut w = StatisticsWindow::new(plain(10, 10, 5));
        interval(&mut w, &[0], 0); // mean 0
        interval(&mut w, &[-1], 0); // +1 of 1; mean now -0.5
        interval(&mut w, &[5, 5, 5], 0); // -3 of 3
        let s = w.summary().unwrap();
        assert!((s.skew_est - (1.0 - 3.0) / 4.0).abs() < 1e-12);
    }

    #[test]
    fn significant_crossings_count_side_changes_beyond_p_v_var() {
        let mut w = StatisticsWindow::new(plain(10, 10, 4));
        interval(&mut w, &[1_000], 0); // mean 1 ms, no var yet
        interval(&mut w, &[3_000], 0); // E_T 3 > 1 + 0: above (first side, no crossing)
        assert_eq!(w.crossings(), 0);
        // mean 2 ms, var_est = 2 ms / 1, band = 0.7 * 2 = 1.4 ms: 1 ms is inside.
        interval(&mut w, &[1_000], 0);
        assert_eq!(w.crossings(), 0);
        // mean 5/3 ms, var (2 + 1) / 2 = 1.5 ms, band 1.05: 0 ms is below -> crossing.
        interval(&mut w, &[0], 0);
        assert_eq!(w.crossings(), 1);
        let s = w.summary().unwrap();
        assert!((s.freq_est - 1.0 / 4.0).abs() < 1e-12);
    }

    #[test]
    fn freq_est_forgets_crossings_older_than_f_intervals() {
        let mut w = StatisticsWindow::new(plain(20, 2, 3));
        // Alternate far above and far below a mean that follows the last 2 intervals.
        for i in 0..10 {
            let v = if i % 2 == 0 { 0 } else { 100_000 };
            interval(&mut w, &[v], 0);
        }
        assert_eq!(
            w.crossings(),
            3,
            "every interval crosses; F = 3 are remembered"
        );
        // A flat delay: the mean first lags behind it (one more crossing: the mean of
        // the last M = 2 is 75 ms when E_T = 50 ms), then settles on it.
        for _ in 0..5 {
            interval(&mut w, &[50_000], 0);
        }
        assert_eq!(w.crossings(), 0);
    }

    #[test]
    fn packet_loss_over_n_intervals() {
        let mut w = StatisticsWindow::new(plain(2, 1, 1));
        interval(&mut w, &[0; 8], 2);
        interval(&mut w, &[0; 9], 1);
        interval(&mut w, &[0; 10], 0); // the first interval leaves the N = 2 window
        interval(&mut w, &[0], 0);
        let s = w.summary().unwrap();
        assert!((s.pkt_loss - 0.0).abs() < 1e-12);
        let mut w = StatisticsWindow::new(plain(3, 1, 1));
        interval(&mut w, &[0; 8], 2);
        interval(&mut w, &[0; 9], 1);
        let s = w.summary().unwrap();
        assert!((s.pkt_loss - 3.0 / 20.0).abs() < 1e-12);
    }

    #[test]
    fn noise_removal_drops_var_and_crossings_of_non_bottleneck_intervals() {
        // Symmetric samples: skew_est = 0 > c_s = -0.01: no bottleneck.
        let config = SbdConfig {
            n: 10,
            m: 10,
            f: 4,
            ..SbdConfig::default()
        };
        let mut w = StatisticsWindow::new(config);
        interval(&mut w, &[1_000], 0);
        interval(&mut w, &[0, 2_000], 0);
        let s = w.summary().unwrap();
        assert_eq!(s.skew_est, 0.0);
        assert_eq!(
            s.var_est_us, 0.0,
            "var_base_T invalid while not a bottleneck"
        );
        // Now mostly above the mean (negative skew): a bottleneck; var counts again.
        interval(&mut w, &[2_000, 2_000, 2_000, 0], 0);
        let s = w.summary().unwrap();
        assert!(s.skew_est < config.c_s);
        assert!(s.var_est_us > 0.0);
    }
}
