//! The application-limited region (ALR) detector of today's Chromium (libwebrtc
//! `modules/congestion_controller/goog_cc/alr_detector.{h,cc}` and the byte budget of
//! `modules/pacing/interval_budget.cc`, WebRTC M125; `chromium-m156` preset).
//!
//! A byte budget accrues at `bandwidth_usage_ratio` x the current target and is spent by
//! every packet sent. The sender is application limited (it sends less than GCC allows)
//! while the budget stays full: ALR starts when the budget is above
//! `start_budget_level_ratio` of its maximum and ends when it falls below
//! `stop_budget_level_ratio`. The ALR start time gates ALR probing
//! ([`super::probe_controller`]).

use crate::units::{Bitrate, DataSize, TimeDelta, Timestamp};

/// `IntervalBudget::kWindowMs` (interval_budget.cc): the budget holds at most this much
/// sending time at the target rate.
pub const BUDGET_WINDOW: TimeDelta = TimeDelta::millis(500);
/// `AlrDetectorConfig::bandwidth_usage_ratio` (alr_detector.h): the budget accrues at
/// 65 % of the target.
pub const BANDWIDTH_USAGE_RATIO: f64 = 0.65;
/// `AlrDetectorConfig::start_budget_level_ratio` (alr_detector.h).
pub const START_BUDGET_LEVEL_RATIO: f64 = 0.80;
/// `AlrDetectorConfig::stop_budget_level_ratio` (alr_detector.h).
pub const STOP_BUDGET_LEVEL_RATIO: f64 = 0.50;

/// The detector's constants (defaults: libwebrtc's, no field trial).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AlrDetectorConfig {
    pub bandwidth_usage_ratio: f64,
    pub start_budget_level_ratio: f64,
    pub stop_budget_level_ratio: f64,
    pub window: TimeDelta,
}

impl Default for AlrDetectorConfig {
    fn default() -> Self {
        Self {
            bandwidth_usage_ratio: BANDWIDTH_USAGE_RATIO,
            start_budget_level_ratio: START_BUDGET_LEVEL_RATIO,
            stop_budget_level_ratio: STOP_BUDGET_LEVEL_RATIO,
            window: BUDGET_WINDOW,
        }
    }
}

/// `IntervalBudget` with `can_build_up_underuse = true` (the ALR detector's): bytes
/// remaining in [-max, max], max = rate x window.
#[derive(Debug, Clone, PartialEq)]
pub struct IntervalBudget {
    window: TimeDelta,
    rate: Bitrate,
    max_bytes: f64,
    remaining: f64,
}

impl IntervalBudget {
    pub fn new(window: TimeDelta) -> Self {
        Self {
            window,
            rate: Bitrate::ZERO,
            max_bytes: 0.0,
            remaining: 0.0,
        }
    }
    /// `set_target_rate_kbps`: a new maximum; the remaining bytes are clamped to it.
    pub fn set_rate(&mut self, rate: Bitrate) {
        self.rate = rate;
        self.max_bytes = (rate * self.window).as_bits_f64() / 8.0;
        self.remaining = self.remaining.clamp(-self.max_bytes, self.max_bytes);
    }
    /// `IncreaseBudget` (underuse builds up, up to the maximum).
    pub fn increase(&mut self, elapsed: TimeDelta) {
        let bytes = (self.rate * elapsed.max(TimeDelta::ZERO)).as_bits_f64() / 8.0;
        self.remaining = (self.remaining + bytes).min(self.max_bytes);
    }
    /// `UseBudget`: never below minus the maximum.
    pub fn use_budget(&mut self, size: DataSize) {
        self.remaining = (self.remaining - size.as_bytes() as f64).max(-self.max_bytes);
    }
    /// `budget_ratio`: remaining / maximum in [-1, 1] (0 with a zero maximum).
    pub fn ratio(&self) -> f64 {
        if self.max_bytes <= 0.0 {
            0.0
        } else {
            self.remaining / self.max_bytes
        }
    }
}

/// The ALR detector.
#[derive(Debug, Clone, PartialEq)]
pub struct AlrDetector {
    cfg: AlrDetectorConfig,
    budget: IntervalBudget,
    last_send: Option<Timestamp>,
    alr_start: Option<Timestamp>,
}

impl AlrDetector {
    pub fn new(cfg: AlrDetectorConfig) -> Self {
        Self {
            budget: IntervalBudget::new(cfg.window),
            cfg,
            last_send: None,
            alr_start: None,
        }
    }

    /// `OnBytesSent`: the first packet only starts the clock (its sending time is
    /// unknown); later ones spend the budget, then the elapsed time refills it.
    pub fn on_bytes_sent(&mut self, now: Timestamp, size: DataSize) {
        let Some(last) = self.last_send.replace(now) else {
            return;
        };
        self.budget.use_budget(size);
        self.budget.increase(now.saturating_since(last));
        let ratio = self.budget.ratio();
        if ratio > self.cfg.start_budget_level_ratio && self.alr_start.is_none() {
            self.alr_start = Some(now);
        } else if ratio < self.cfg.stop_budget_level_ratio && self.alr_start.is_some() {
            self.alr_start = None;
        }
    }

    /// `SetEstimatedBitrate`: the budget accrues at `bandwidth_usage_ratio` x `target`.
    pub fn set_estimated_bitrate(&mut self, target: Bitrate) {
        self.budget
            .set_rate(target * self.cfg.bandwidth_usage_ratio);
    }

    /// `GetApplicationLimitedRegionStartTime`: `Some(start)` while in ALR.
    pub fn alr_start_time(&self) -> Option<Timestamp> {
        self.alr_start
    }
    pub fn budget_ratio(&self) -> f64 {
        self.budget.ratio()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: u64) -> Timestamp {
        Timestamp::from_millis(x)
    }

    #[test]
    fn budget_window_and_ratio() {
        let mut b = IntervalBudget::new(BUDGET_WINDOW);
        b.set_rate(Bitrate::kbps(800.0)); // max = 800 kbit/s * 0.5 s = 50 000 B
        b.increase(TimeDelta::millis(250)); // + 25 000 B
        assert!((b.ratio() - 0.5).abs() < 1e-12);
        b.increase(TimeDelta::secs(10));
        assert!((b.ratio() - 1.0).abs() < 1e-12, "capped at the maximum");
        b.use_budget(DataSize::bytes(1_000_000));
        assert!(
            (b.ratio() + 1.0).abs() < 1e-12,
            "floored at minus the maximum"
        );
    }

    #[test]
    fn sending_below_65_percent_enters_alr_and_sending_at_target_leaves_it() {
        let mut d = AlrDetector::new(AlrDetectorConfig::default());
        d.set_estimated_bitrate(Bitrate::kbps(1000.0));
        // 1000 B every 10 ms = 800 kbit/s > 650: never in ALR.
        for i in 0..200 {
            d.on_bytes_sent(ms(i * 10), DataSize::bytes(1000));
        }
        assert_eq!(d.alr_start_time(), None);
        // 300 kbit/s (375 B per 10 ms): the budget fills, ALR starts.
        let mut entered = None;
        for i in 200..400 {
            d.on_bytes_sent(ms(i * 10), DataSize::bytes(375));
            if entered.is_none() {
                entered = d.alr_start_time();
            }
        }
        // The 2 s at 800 kbit/s left the budget at -37 500 B (150 kbit/s over); to
        // 0.8 x 40 625 B at +350 kbit/s (43.75 B/ms) takes 1.6 s.
        let t = entered.expect("ALR starts below the usage ratio");
        assert!(t > ms(3550) && t < ms(3650), "{t}");
        // Back to 1.2 Mbit/s: the budget drains, ALR ends.
        for i in 400..600 {
            d.on_bytes_sent(ms(i * 10), DataSize::bytes(1500));
        }
        assert_eq!(d.alr_start_time(), None);
    }

    #[test]
    fn hysteresis_between_start_and_stop_levels() {
        let mut d = AlrDetector::new(AlrDetectorConfig::default());
        d.set_estimated_bitrate(Bitrate::kbps(800.0)); // budget 520 kbit/s, max 32 500 B
        d.on_bytes_sent(ms(0), DataSize::ZERO);
        d.on_bytes_sent(ms(450), DataSize::ZERO); // ratio 0.9 > 0.8: ALR
        assert_eq!(d.alr_start_time(), Some(ms(450)));
        // Spend to a ratio of ~0.6: between stop (0.5) and start (0.8): still in ALR.
        d.on_bytes_sent(ms(450), DataSize::bytes(9_750));
        assert!((d.budget_ratio() - 0.6).abs() < 1e-9);
        assert_eq!(d.alr_start_time(), Some(ms(450)));
        d.on_bytes_sent(ms(450), DataSize::bytes(6_500)); // ratio 0.4 < 0.5
        assert_eq!(d.alr_start_time(), None);
    }
}
