//! When a loss is a congestion event (libwebrtc `loss_estimator.cc`, the "asymmetric
//! step filter"): per RTT (at least VIRTUAL_RTT) with a first-time loss the congestion
//! level rises by 1 / RttsWithLossBeforeBackoff, per RTT without it falls by
//! 1 / LosslessRttsBeforeClear; a loss backs the window off only at level 1 (or, in
//! the caller, when the queue delay is up). Reordered packets reported later
//! ("recovered") cancel their loss. The draft backs off on every loss event (draft
//! 4.2.2.1): option `loss_step_filter = false`.

use super::feedback::FeedbackSummary;
use super::ScreamV2Config;
use crate::units::{TimeDelta, Timestamp};

/// libwebrtc's `LossEstimator::congested`: the level at which a loss backs off.
pub const CONGESTED_LEVEL: f64 = 0.99;

#[derive(Debug, Clone)]
pub struct LossFilter {
    virtual_rtt: TimeDelta,
    step_up: f64,
    step_down: f64,
    loss_this_rtt: bool,
    level: f64,
    unrecovered: u64,
    last_loss_or_recovery: Option<Timestamp>,
    last_rtt_update: Option<Timestamp>,
}

impl LossFilter {
    pub fn new(cfg: &ScreamV2Config) -> Self {
        LossFilter {
            virtual_rtt: cfg.virtual_rtt,
            step_up: 1.0 / cfg.rtts_with_loss_before_backoff,
            step_down: 1.0 / cfg.lossless_rtts_before_clear,
            loss_this_rtt: false,
            level: 0.0,
            unrecovered: 0,
            last_loss_or_recovery: None,
            last_rtt_update: None,
        }
    }

    /// The congestion level in [0, 1].
    pub fn level(&self) -> f64 {
        self.level
    }

    /// Whether the level reached [`CONGESTED_LEVEL`].
    pub fn congested(&self) -> bool {
        self.level >= CONGESTED_LEVEL
    }

    /// Updates the level; true if the report has a first-time loss.
    pub fn on_feedback(&mut self, fb: &FeedbackSummary, srtt: TimeDelta) -> bool {
        let rtt = self.virtual_rtt.max(srtt);
        let since = |t: Option<Timestamp>| t.map_or(TimeDelta::MAX, |t| fb.now.saturating_since(t));
        if since(self.last_loss_or_recovery) > rtt {
            // Losses never recovered stop counting after an RTT without news.
            self.unrecovered = 0;
        }
        if fb.lost > 0 || fb.recovered > 0 {
            self.last_loss_or_recovery = Some(fb.now);
        }
        if fb.recovered > 0 {
            self.unrecovered = self.unrecovered.saturating_sub(u64::from(fb.recovered));
            if self.unrecovered == 0 {
                self.level = 0.0;
                self.loss_this_rtt = false;
            }
        }
        if fb.lost > 0 {
            self.unrecovered += u64::from(fb.lost);
            self.loss_this_rtt = true;
        }
        if since(self.last_rtt_update) >= rtt {
            self.last_rtt_update = Some(fb.now);
            // level += 1 / RttsWithLossBeforeBackoff on a lossy RTT, else
            // level -= 1 / LosslessRttsBeforeClear, within [0, 1].
            self.level = if self.loss_this_rtt {
                (self.level + self.step_up).min(1.0)
            } else {
                (self.level - self.step_down).max(0.0)
            };
            self.loss_this_rtt = false;
        }
        fb.lost > 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::DataSize;

    fn fb(ms: u64, lost: u32, recovered: u32) -> FeedbackSummary {
        FeedbackSummary {
            now: Timestamp::from_millis(ms),
            data_in_flight: DataSize::ZERO,
            received: 10,
            ce_marked: 0,
            lost,
            recovered,
            acked_not_marked: DataSize::bytes(10_000),
            min_one_way_delay: TimeDelta::millis(25),
            max_one_way_delay: TimeDelta::millis(25),
            hold_time: TimeDelta::ZERO,
            rtt_sample: TimeDelta::millis(50),
        }
    }

    #[test]
    fn three_lossy_rtts_reach_congestion_and_two_clean_ones_clear_it() {
        let mut f = LossFilter::new(&ScreamV2Config::default());
        let rtt = TimeDelta::millis(50);
        // level += 1/3 per lossy RTT: 1/3, 2/3, 1.
        for (i, ms) in [0, 50, 100].into_iter().enumerate() {
            assert!(f.on_feedback(&fb(ms, 1, 0), rtt));
            assert!(
                (f.level() - (i + 1) as f64 / 3.0).abs() < 1e-9,
                "{}",
                f.level()
            );
        }
        assert!(f.congested());
        // level -= 1/2 per clean RTT.
        f.on_feedback(&fb(150, 0, 0), rtt);
        assert!((f.level() - 0.5).abs() < 1e-9);
        f.on_feedback(&fb(200, 0, 0), rtt);
        assert_eq!(f.level(), 0.0);
    }

    #[test]
    fn a_recovered_packet_cancels_its_loss() {
        let mut f = LossFilter::new(&ScreamV2Config::default());
        let rtt = TimeDelta::millis(50);
        f.on_feedback(&fb(0, 1, 0), rtt);
        assert!(f.level() > 0.0);
        f.on_feedback(&fb(10, 0, 1), rtt);
        assert_eq!(f.level(), 0.0);
    }
}
