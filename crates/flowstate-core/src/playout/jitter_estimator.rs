//! The receiver's jitter estimate, after libwebrtc's `JitterEstimator`
//! (`modules/video_coding/timing/jitter_estimator.cc`, signalapp/webrtc bd635df).
//!
//! Each frame that completes without repair gives its inter-frame delay variation:
//! (its completion time - the previous one's) - (its capture time - the previous
//! one's). libwebrtc fits that against the frame-size change with a Kalman filter and
//! estimates the variance of the residual; its estimate is the size term for the
//! largest frame plus `kNoiseStdDevs` (2.33) standard deviations of the residual less
//! `kNoiseStdDevOffset` (30 ms), at least 1 ms, plus `OPERATING_SYSTEM_JITTER` (10 ms).
//!
//! Modelled: the residual's mean and variance (`EstimateRandomJitter`: the weight
//! alpha = (n - 1) / n with n capped at `kAlphaCountMax` = 400, the variance at least
//! 1 ms^2, initial variance 4 ms^2), the clamp of a sample to 3.5 standard deviations
//! (`kNumStdDevDelayClamp`), the outlier rule (15 standard deviations,
//! `kNumStdDevDelayOutlier`: an outlier enters at that bound) and the 2.33 sd - 30 ms +
//! 10 ms estimate. Not modelled: the Kalman filter's frame-size term (the delay is taken
//! as independent of the frame size: its slope 0), the frame-rate scaling of alpha and
//! of the estimate below 10 frames/s, and the NACK term (RTT x 0.9 after three NACKed
//! frames).

use crate::units::TimeDelta;

/// `kNoiseStdDevs`.
pub const NOISE_STD_DEVS: f64 = 2.33;
/// `kNoiseStdDevOffset`, ms.
pub const NOISE_STD_DEV_OFFSET_MS: f64 = 30.0;
/// `OPERATING_SYSTEM_JITTER`.
pub const OPERATING_SYSTEM_JITTER: TimeDelta = TimeDelta::millis(10);
/// `kAlphaCountMax`.
pub const ALPHA_COUNT_MAX: u32 = 400;
/// `kNumStdDevDelayClamp`.
pub const NUM_STD_DEV_DELAY_CLAMP: f64 = 3.5;
/// `kNumStdDevDelayOutlier`.
pub const NUM_STD_DEV_DELAY_OUTLIER: f64 = 15.0;
/// `kMinJitterEstimate`, `kMaxJitterEstimate`.
pub const MIN_JITTER_ESTIMATE: TimeDelta = TimeDelta::millis(1);
pub const MAX_JITTER_ESTIMATE: TimeDelta = TimeDelta::secs(10);

/// The jitter estimate.
#[derive(Debug, Clone)]
pub struct JitterEstimator {
    avg_noise_ms: f64,
    var_noise_ms2: f64,
    alpha_count: u32,
}

impl Default for JitterEstimator {
    fn default() -> Self {
        Self::new()
    }
}

impl JitterEstimator {
    pub fn new() -> Self {
        // `Reset`: var_noise_ms2_ = 4.0, alpha_count_ = 1.
        Self {
            avg_noise_ms: 0.0,
            var_noise_ms2: 4.0,
            alpha_count: 1,
        }
    }

    /// One frame's inter-frame delay variation.
    pub fn update(&mut self, frame_delay: TimeDelta) {
        let sd = self.var_noise_ms2.sqrt();
        let clamp = NUM_STD_DEV_DELAY_CLAMP * sd + 0.5;
        let d = frame_delay.as_millis_f64().clamp(-clamp, clamp);
        // The Kalman filter's estimate of the variation is 0 here (no size term).
        let bound = NUM_STD_DEV_DELAY_OUTLIER * sd;
        let sample = if d.abs() < bound {
            d
        } else {
            bound.copysign(d)
        };
        self.estimate_random_jitter(sample);
    }

    /// `EstimateRandomJitter` without the frame-rate scaling.
    fn estimate_random_jitter(&mut self, d: f64) {
        let alpha = f64::from(self.alpha_count - 1) / f64::from(self.alpha_count);
        self.alpha_count = (self.alpha_count + 1).min(ALPHA_COUNT_MAX);
        let avg = alpha * self.avg_noise_ms + (1.0 - alpha) * d;
        let dev = d - self.avg_noise_ms;
        let var = alpha * self.var_noise_ms2 + (1.0 - alpha) * dev * dev;
        self.avg_noise_ms = avg;
        self.var_noise_ms2 = var.max(1.0);
    }

    /// `GetEstimate`: max(2.33 sd - 30 ms, 1 ms) + 10 ms.
    pub fn estimate(&self) -> TimeDelta {
        let noise = (NOISE_STD_DEVS * self.var_noise_ms2.sqrt() - NOISE_STD_DEV_OFFSET_MS).max(1.0);
        let est = TimeDelta::from_millis_f64(noise)
            .max(MIN_JITTER_ESTIMATE)
            .min(MAX_JITTER_ESTIMATE);
        est + OPERATING_SYSTEM_JITTER
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steady_arrivals_give_the_floor_and_jitter_raises_it() {
        let mut e = JitterEstimator::new();
        for _ in 0..500 {
            e.update(TimeDelta::ZERO);
        }
        // 1 ms floor + 10 ms operating-system jitter.
        assert_eq!(e.estimate(), TimeDelta::millis(11));
        // +-40 ms alternating: sd grows towards 40 ms (clamped samples at first), and
        // 2.33 x 40 - 30 = 63 ms, + 10.
        for i in 0..2000 {
            e.update(TimeDelta::millis(if i % 2 == 0 { 40 } else { -40 }));
        }
        let est = e.estimate().as_millis_f64();
        assert!((60.0..=75.0).contains(&est), "{est}");
    }

    #[test]
    fn one_outlier_moves_the_estimate_by_a_bounded_step() {
        let mut e = JitterEstimator::new();
        for _ in 0..400 {
            e.update(TimeDelta::ZERO);
        }
        e.update(TimeDelta::secs(5));
        // Clamped to 3.5 sd + 0.5 ms of a 1 ms sd: the variance moves by at most
        // (4 ms)^2 / 400.
        assert!(e.estimate() <= TimeDelta::millis(11), "{}", e.estimate());
    }
}
