//! The draft's media rate adaptation (draft 4.4, option `draft_media_rate`): two
//! corrections per video frame that lower the target when the sender's queue grows
//! (rate_adjust_factor, an integrating controller on the oldest packet's queue delay)
//! and when frames come out larger than the target implies (frame_size_dev).
//! libwebrtc has neither: its encoder follows the target and its pacer drains at 1.1 x
//! the target.

use super::ScreamV2Config;
use crate::units::{Bitrate, DataSize, TimeDelta};

/// Upper bounds of the two corrections (draft 4.4: [0, 0.5] and [0, 0.2]).
pub const RATE_ADJUST_FACTOR_MAX: f64 = 0.5;
pub const FRAME_SIZE_DEV_MAX: f64 = 0.2;
/// The fixed divisor of the draft's target (draft 4.4: "1.2 + rate_adjust_factor +
/// frame_size_dev").
pub const DRAFT_TARGET_DIVISOR: f64 = 1.2;

#[derive(Debug, Clone)]
pub struct MediaRateAdjust {
    gain: f64,
    dev_alpha: f64,
    rate_adjust_factor: f64,
    frame_size_dev: f64,
}

impl MediaRateAdjust {
    pub fn new(cfg: &ScreamV2Config) -> Self {
        MediaRateAdjust {
            gain: cfg.rate_adjust_gain,
            dev_alpha: cfg.frame_size_dev_alpha,
            rate_adjust_factor: 0.0,
            frame_size_dev: 0.0,
        }
    }

    pub fn rate_adjust_factor(&self) -> f64 {
        self.rate_adjust_factor
    }
    pub fn frame_size_dev(&self) -> f64 {
        self.frame_size_dev
    }

    /// One frame of `frame_size` entered the queue, whose oldest packet waited
    /// `media_qdelay`; `frame_period` is the frame interval.
    pub fn on_frame(
        &mut self,
        media_qdelay: TimeDelta,
        frame_size: DataSize,
        target: Bitrate,
        frame_period: TimeDelta,
    ) {
        let period = frame_period.as_secs_f64();
        if period <= 0.0 {
            return;
        }
        // error = (media_qdelay - frame_period / 4) / frame_period
        // rate_adjust_factor = clamp(rate_adjust_factor + error x GAIN, 0, 0.5)
        let error = (media_qdelay.as_secs_f64() - period / 4.0) / period;
        self.rate_adjust_factor =
            (self.rate_adjust_factor + error * self.gain).clamp(0.0, RATE_ADJUST_FACTOR_MAX);
        // nominal = target x frame_period / 8; deviation = max(0, (size - nominal) /
        // nominal); frame_size_dev = min(0.2, (1 - A) dev + A deviation)
        let nominal = (target * frame_period).as_bytes() as f64;
        if nominal > 0.0 {
            let deviation = ((frame_size.as_bytes() as f64 - nominal) / nominal).max(0.0);
            self.frame_size_dev = ((1.0 - self.dev_alpha) * self.frame_size_dev
                + self.dev_alpha * deviation)
                .min(FRAME_SIZE_DEV_MAX);
        }
    }

    /// 1 / (1.2 + rate_adjust_factor + frame_size_dev).
    pub fn divisor_scale(&self) -> f64 {
        1.0 / (DRAFT_TARGET_DIVISOR + self.rate_adjust_factor + self.frame_size_dev)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_growing_queue_raises_the_adjust_factor_and_frame_overshoot_the_deviation() {
        let mut m = MediaRateAdjust::new(&ScreamV2Config::default());
        let period = TimeDelta::millis(40);
        // error = (40 - 10) / 40 = 0.75; factor = 0.75 / 16.
        m.on_frame(period, DataSize::bytes(5000), Bitrate::mbps(1.0), period);
        assert!((m.rate_adjust_factor() - 0.75 / 16.0).abs() < 1e-12);
        // nominal 5000 B: no deviation.
        assert_eq!(m.frame_size_dev(), 0.0);
        // A 10000 B frame: deviation 1, dev = 1/64.
        m.on_frame(
            TimeDelta::ZERO,
            DataSize::bytes(10_000),
            Bitrate::mbps(1.0),
            period,
        );
        assert!((m.frame_size_dev() - 1.0 / 64.0).abs() < 1e-12);
        assert!(m.divisor_scale() < 1.0 / 1.2);
    }

    #[test]
    fn both_corrections_are_capped() {
        let mut m = MediaRateAdjust::new(&ScreamV2Config::default());
        let period = TimeDelta::millis(40);
        for _ in 0..10_000 {
            m.on_frame(
                TimeDelta::secs(1),
                DataSize::bytes(100_000),
                Bitrate::mbps(1.0),
                period,
            );
        }
        assert_eq!(m.rate_adjust_factor(), RATE_ADJUST_FACTOR_MAX);
        assert_eq!(m.frame_size_dev(), FRAME_SIZE_DEV_MAX);
    }
}
