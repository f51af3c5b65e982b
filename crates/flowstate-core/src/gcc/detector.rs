//! The over-use detector (paper 001 Algorithm 1; paper 002 section 3.3; Chromium
//! `TrendlineEstimator::Detect`).
//!
//! libwebrtc: `modules/congestion_controller/goog_cc/trendline_estimator.cc` at M100
//! (branch-heads/4896) for the chromium preset; the paper presets follow papers 001/002
//! (`webrtc/modules/remote_bitrate_estimator/overuse_detector.cc` of M50).
//!
//! Overuse is signalled when the modified estimate exceeds gamma for longer than t_ou
//! (100 ms paper, 10 ms Chromium), after at least `min_overuse_samples` samples above
//! gamma (1 paper, 2 Chromium: "overuse_counter_ > 1"), and the estimate is not
//! decreasing. Underuse when below -gamma; normal otherwise.

use crate::units::TimeDelta;

/// The detector's output signal s.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BandwidthUsage {
    Normal,
    Overusing,
    Underusing,
}

/// Detector constants.
#[derive(Debug, Clone, PartialEq)]
pub struct DetectorConfig {
    /// t_ou: time above gamma before overuse (paper: 100 ms; Chromium: 10 ms).
    pub overuse_time: TimeDelta,
    /// Samples above gamma needed (paper: 1; Chromium: 2).
    pub min_overuse_samples: u32,
    /// Chromium starts the over-use timer at half the first sample's send delta; the
    /// paper (Algorithm 1) starts it at the full delta.
    pub half_initial_time: bool,
    /// The delta count n in min(n, cap) * gain * m is capped here (60).
    pub delta_count_cap: u32,
}

impl DetectorConfig {
    pub fn paper() -> Self {
        Self {
            overuse_time: TimeDelta::millis(100),
            min_overuse_samples: 1,
            half_initial_time: false,
            delta_count_cap: 60,
        }
    }
    pub fn chromium() -> Self {
        Self {
            overuse_time: TimeDelta::millis(10),
            min_overuse_samples: 2,
            half_initial_time: true,
            delta_count_cap: 60,
        }
    }
}

impl Default for DetectorConfig {
    fn default() -> Self {
        Self::chromium()
    }
}

/// The detector state.
#[derive(Debug, Clone)]
pub struct OveruseDetector {
    cfg: DetectorConfig,
    time_over_using: Option<TimeDelta>,
    overuse_counter: u32,
    prev_estimate: f64,
    state: BandwidthUsage,
}

impl OveruseDetector {
    pub fn new(cfg: DetectorConfig) -> Self {
        Self {
            cfg,
            time_over_using: None,
            overuse_counter: 0,
            prev_estimate: 0.0,
            state: BandwidthUsage::Normal,
        }
    }

    /// The modified estimate: min(n, cap) * gain * m.
    pub fn modified(&self, estimate: f64, num_deltas: u32, gain: f64) -> f64 {
        let v = f64::from(num_deltas.min(self.cfg.delta_count_cap)) * gain * estimate;
        if v.is_finite() {
            v
        } else {
            0.0
        }
    }

    /// One detection step (Algorithm 1). `estimate` is the raw filter output (m or the
    /// trend slope), `modified` the thresholded value, `gamma` the threshold, and
    /// `send_delta` the group's send-time delta (Delta T).
    pub fn detect(
        &mut self,
        estimate: f64,
        modified: f64,
        gamma: f64,
        send_delta: TimeDelta,
        num_deltas: u32,
    ) -> BandwidthUsage {
        if num_deltas < 2 {
            self.state = BandwidthUsage::Normal;
            self.prev_estimate = estimate;
            return self.state;
        }
        let send_delta = send_delta.max(TimeDelta::ZERO);
        if modified > gamma {
            let t = match self.time_over_using {
                None if self.cfg.half_initial_time => send_delta / 2,
                None => send_delta,
                Some(t) => t + send_delta,
            };
            self.time_over_using = Some(t);
            self.overuse_counter = self.overuse_counter.saturating_add(1);
            if t > self.cfg.overuse_time
                && self.overuse_counter >= self.cfg.min_overuse_samples
                && estimate >= self.prev_estimate
            {
                self.time_over_using = Some(TimeDelta::ZERO);
                self.overuse_counter = 0;
                self.state = BandwidthUsage::Overusing;
            }
        } else if modified < -gamma {
            self.time_over_using = None;
            self.overuse_counter = 0;
            self.state = BandwidthUsage::Underusing;
        } else {
            self.time_over_using = None;
            self.overuse_counter = 0;
            self.state = BandwidthUsage::Normal;
        }
        self.prev_estimate = estimate;
        self.state
    }

    pub fn state(&self) -> BandwidthUsage {
        self.state
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paper_needs_100ms_above_threshold() {
        let mut d = OveruseDetector::new(DetectorConfig::paper());
        let dt = TimeDelta::millis(30);
        // 30, 60, 90, 120 ms above: overuse on the fourth (t_ou > 100 ms).
        assert_eq!(d.detect(1.0, 20.0, 10.0, dt, 10), BandwidthUsage::Normal);
        assert_eq!(d.detect(1.0, 20.0, 10.0, dt, 10), BandwidthUsage::Normal);
        assert_eq!(d.detect(1.0, 20.0, 10.0, dt, 10), BandwidthUsage::Normal);
        assert_eq!(d.detect(1.0, 20.0, 10.0, dt, 10), BandwidthUsage::Overusing);
        // Stays overusing while above; underuse below -gamma; normal in between.
        assert_eq!(d.detect(1.0, 20.0, 10.0, dt, 10), BandwidthUsage::Overusing);
        assert_eq!(
            d.detect(-1.0, -20.0, 10.0, dt, 10),
            BandwidthUsage::Underusing
        );
        assert_eq!(d.detect(0.0, 0.0, 10.0, dt, 10), BandwidthUsage::Normal);
    }

    #[test]
    fn decreasing_estimate_blocks_overuse() {
        let mut d = OveruseDetector::new(DetectorConfig::paper());
        let dt = TimeDelta::millis(60);
        d.detect(5.0, 20.0, 10.0, dt, 10);
        // t = 120 ms > 100 but estimate fell from 5 to 4: no overuse yet.
        assert_eq!(d.detect(4.0, 20.0, 10.0, dt, 10), BandwidthUsage::Normal);
        assert_eq!(d.detect(4.5, 20.0, 10.0, dt, 10), BandwidthUsage::Overusing);
    }

    #[test]
    fn chromium_needs_two_samples_and_half_initial() {
        let mut d = OveruseDetector::new(DetectorConfig::chromium());
        // First sample: timer = 30/2 = 15 ms > 10 but counter = 1 < 2.
        assert_eq!(
            d.detect(1.0, 20.0, 10.0, TimeDelta::millis(30), 10),
            BandwidthUsage::Normal
        );
        assert_eq!(
            d.detect(1.0, 20.0, 10.0, TimeDelta::millis(1), 10),
            BandwidthUsage::Overusing
        );
    }

    #[test]
    fn too_few_deltas_is_normal_and_modified_caps_count() {
        let mut d = OveruseDetector::new(DetectorConfig::chromium());
        assert_eq!(
            d.detect(1.0, 100.0, 10.0, TimeDelta::millis(30), 1),
            BandwidthUsage::Normal
        );
        assert!((d.modified(0.5, 100, 4.0) - 120.0).abs() < 1e-12);
        assert!((d.modified(0.5, 10, 4.0) - 20.0).abs() < 1e-12);
    }
}
