//! Chromium's encoder bitrate adjuster (option `chromium_adjuster`): the rate
//! `VideoStreamEncoder` hands the encoder is the allocation divided by how much the
//! encoder overshot it in the last 3 s, and that adjusted rate is also what getStats
//! reports as `targetBitrate` (`SetEncoderRates` passes `rate_control.bitrate`, the
//! adjusted allocation, to `SendStatisticsProxy::OnBitrateAllocationUpdated`). From
//! libwebrtc WebRTC M150 (signalapp/webrtc bd635df): `video/encoder_bitrate_adjuster.cc`
//! (single spatial and temporal layer, VP8 L1T1), `video/encoder_overshoot_detector.cc`,
//! `video/video_stream_encoder.cc` (`UpdateBitrateAllocation`, `kParameterUpdateIntervalMs`).
//!
//! The detector measures overshoot against the *input* frame rate (`framerate_fps` =
//! `GetInputFramerateFps`, the capture rate), so an encoder that drops frames at a low
//! rate sends frames many "ideal frames" large, and any part of the virtual buffer not
//! drained by the next frame counts that many times: the cut is deepest at 1-20 frames/s
//! and vanishes at the full frame rate. Not modelled: the network-headroom boost (the
//! headroom `bandwidth_allocation - allocation` is zero for one stream whose link
//! allocation is its encoder target, `VideoSendStreamImpl::OnBitrateUpdated`) and the
//! media-rate utilization it reads; temporal and spatial layers.

use std::collections::VecDeque;

use crate::units::{Bitrate, DataSize, TimeDelta, Timestamp};

/// The adjuster's constants (WebRTC M150).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EncoderAdjusterConfig {
    /// Utilization factors averaged over this window (`EncoderBitrateAdjuster::kWindowSize`, 3 s).
    pub window: TimeDelta,
    /// The largest factor: the encoder gets at least half its allocation ("Don't reduce
    /// encoder target below 50%", `AdjustRateAllocation`).
    pub max_factor: f64,
    /// The factor until `min_frames` frames are encoded, or without a measurement
    /// (`kDefaultUtilizationFactor`, 1.2).
    pub default_factor: f64,
    /// Frames encoded before the detector's factor is used (`kMinFramesSinceLayoutChange`, 30).
    pub min_frames: u32,
    /// The codec's minimum bitrate the adjusted rate never goes under
    /// (`min_bitrates_bps_`: `kDefaultMinVideoBitrateBps` 30 kbit/s,
    /// rtc_base/experiments/min_video_bitrate_experiment.cc).
    pub min_bitrate: Bitrate,
    /// How often the allocation is re-adjusted without a new target
    /// (`kParameterUpdateIntervalMs`, 1000 ms, at the next captured frame).
    pub update_interval: TimeDelta,
}

impl Default for EncoderAdjusterConfig {
    fn default() -> Self {
        Self {
            window: TimeDelta::secs(3),
            max_factor: 2.0,
            default_factor: 1.2,
            min_frames: 30,
            min_bitrate: Bitrate::kbps(30.0),
            update_interval: TimeDelta::secs(1),
        }
    }
}

/// `EncoderOvershootDetector`'s network-rate half: a virtual buffer that leaks at the
/// encoder's (adjusted) target rate and never goes below zero.
#[derive(Debug, Clone)]
pub struct OvershootDetector {
    window: TimeDelta,
    target: Bitrate,
    fps: f64,
    buffer_bits: f64,
    last_update: Option<Timestamp>,
    /// Per encoded frame: when, and its utilization factor.
    factors: VecDeque<(Timestamp, f64)>,
    sum: f64,
}

impl OvershootDetector {
    /// An empty detector averaging over `window`.
    pub fn new(window: TimeDelta) -> Self {
        Self {
            window,
            target: Bitrate::ZERO,
            fps: 0.0,
            buffer_bits: 0.0,
            last_update: None,
            factors: VecDeque::new(),
            sum: 0.0,
        }
    }

    /// `LeakBits`: drain the buffer at the current target since the last update.
    fn leak(&mut self, now: Timestamp) {
        if let Some(last) = self.last_update {
            if self.target > Bitrate::ZERO {
                let leaked = (self.target * now.saturating_since(last)).as_bits_f64();
                self.buffer_bits = (self.buffer_bits - leaked).max(0.0);
            }
        }
        self.last_update = Some(now);
    }

    /// `SetTargetRate`: leak at the old rate, then take the new one; a stream that was
    /// off (zero target) starts from an empty state.
    pub fn set_target_rate(&mut self, now: Timestamp, target: Bitrate, fps: f64) {
        if self.target > Bitrate::ZERO {
            self.leak(now);
        } else if target > Bitrate::ZERO {
            self.last_update = Some(now);
            self.factors.clear();
            self.sum = 0.0;
            self.buffer_bits = 0.0;
        }
        self.target = target;
        self.fps = fps;
    }

    /// `IdealFrameSizeBits`: the target over the input frame rate (0 without either).
    pub fn ideal_frame_bits(&self) -> f64 {
        if self.fps <= 0.0 || self.target <= Bitrate::ZERO {
            return 0.0;
        }
        ((self.target.as_bps() + self.fps / 2.0) / self.fps).trunc()
    }

    /// `OnEncodedFrame` + `HandleEncodedFrame`: the frame's utilization factor, 1 +
    /// (the buffer left from earlier frames that this frame pushes beyond one ideal
    /// frame) / ideal frame; the first frame max(1, size / ideal). Returns it (`None`
    /// for a frame with no target yet, which is ignored).
    pub fn on_encoded_frame(&mut self, now: Timestamp, size: DataSize) -> Option<f64> {
        self.leak(now);
        let bits = size.as_bits_f64();
        let ideal = self.ideal_frame_bits();
        if ideal <= 0.0 {
            return None;
        }
        let bitsum = bits + self.buffer_bits;
        let overshoot = if bitsum > ideal {
            self.buffer_bits.min(bitsum - ideal)
        } else {
            0.0
        };
        let factor = if self.factors.is_empty() {
            (bits / ideal).max(1.0)
        } else {
            1.0 + overshoot / ideal
        };
        self.buffer_bits = self.buffer_bits - overshoot + bits;
        self.factors.push_back((now, factor));
        self.sum += factor;
        Some(factor)
    }

    /// `GetNetworkRateUtilizationFactor`: the mean factor of the frames in the last
    /// `window` (`CullOldUpdates`), `None` without one.
    pub fn utilization_factor(&mut self, now: Timestamp) -> Option<f64> {
        while let Some(&(t, f)) = self.factors.front() {
            if now.saturating_since(t) <= self.window {
                break;
            }
            self.sum = (self.sum - f).max(0.0);
            self.factors.pop_front();
        }
        if self.factors.is_empty() {
            None
        } else {
            Some(self.sum / self.factors.len() as f64)
        }
    }
}

/// The adjusted encoder rate for an allocation `target` given the detector's factor
/// (`AdjustRateAllocation`, one layer): a factor under 1 is 1 (no boost), over
/// `max_factor` is `max_factor`, and no lower than the one that keeps the codec's
/// minimum; the result `min(target / factor, target)`, at least the minimum.
pub fn adjusted_rate(cfg: &EncoderAdjusterConfig, target: Bitrate, factor: f64) -> Bitrate {
    if target <= Bitrate::ZERO {
        return target;
    }
    let mut f = if factor < 1.0 {
        1.0
    } else {
        factor.min(cfg.max_factor)
    };
    if cfg.min_bitrate > Bitrate::ZERO && cfg.min_bitrate < target {
        f = f.min(target.as_bps() / cfg.min_bitrate.as_bps());
    }
    (target / f).min(target).max(cfg.min_bitrate)
}

/// `EncoderBitrateAdjuster` for one stream: the detector, the frames since the layout
/// was set up, and the rate it last gave.
#[derive(Debug, Clone)]
pub struct EncoderBitrateAdjuster {
    cfg: EncoderAdjusterConfig,
    detector: OvershootDetector,
    frames: u32,
    last_adjust: Option<Timestamp>,
}

impl EncoderBitrateAdjuster {
    /// A fresh adjuster (the encoder just configured).
    pub fn new(cfg: EncoderAdjusterConfig) -> Self {
        Self {
            detector: OvershootDetector::new(cfg.window),
            cfg,
            frames: 0,
            last_adjust: None,
        }
    }

    /// `AdjustRateAllocation`: the rate the encoder gets (and getStats reports) for the
    /// allocation `target` at input frame rate `fps`; the detector then drains at it.
    pub fn adjust(&mut self, now: Timestamp, target: Bitrate, fps: f64) -> Bitrate {
        let factor = if self.frames < self.cfg.min_frames {
            self.cfg.default_factor
        } else {
            self.detector
                .utilization_factor(now)
                .unwrap_or(self.cfg.default_factor)
        };
        let rate = adjusted_rate(&self.cfg, target, factor);
        self.detector.set_target_rate(now, rate, fps);
        self.last_adjust = Some(now);
        rate
    }

    /// Whether the periodic re-adjustment is due at a frame captured at `now`
    /// (`VideoStreamEncoder::MaybeEncodeVideoFrame`, every `update_interval`).
    pub fn update_due(&self, now: Timestamp) -> bool {
        self.last_adjust.map_or(true, |t| {
            now.saturating_since(t) >= self.cfg.update_interval
        })
    }

    /// `OnEncodedFrame`: an encoded frame of `size` bytes.
    pub fn on_encoded_frame(&mut self, now: Timestamp, size: DataSize) {
        self.frames = self.frames.saturating_add(1);
        self.detector.on_encoded_frame(now, size);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(ms: i64) -> Timestamp {
        Timestamp::ZERO + TimeDelta::millis(ms)
    }

    #[test]
    fn ideal_frame_is_target_over_input_fps() {
        let mut d = OvershootDetector::new(TimeDelta::secs(3));
        d.set_target_rate(t(0), Bitrate::kbps(300.0), 30.0);
        assert_eq!(d.ideal_frame_bits(), 10_000.0);
    }

    #[test]
    fn frames_at_the_ideal_size_and_rate_give_factor_one() {
        let mut d = OvershootDetector::new(TimeDelta::secs(3));
        d.set_target_rate(t(0), Bitrate::kbps(300.0), 25.0);
        for i in 0..60i64 {
            let f = d.on_encoded_frame(t(i * 40), DataSize::bytes(1500));
            assert_eq!(f, Some(1.0), "frame {i}");
        }
        assert_eq!(d.utilization_factor(t(2000)), Some(1.0));
    }

    #[test]
    fn first_frame_counts_its_size_against_the_ideal() {
        let mut d = OvershootDetector::new(TimeDelta::secs(3));
        d.set_target_rate(t(0), Bitrate::kbps(300.0), 30.0);
        // 25 kbit against an ideal of 10 kbit.
        assert_eq!(d.on_encoded_frame(t(0), DataSize::bytes(3125)), Some(2.5));
    }

    #[test]
    fn leftover_at_a_low_frame_rate_counts_in_input_frames() {
        // 100 kbit/s at 30 fps input: ideal 3333 bits. One frame per second of 110 kbit
        // leaves 10 kbit in the buffer at the next frame: factor 1 + 10000 / 3333.
        let mut d = OvershootDetector::new(TimeDelta::secs(3));
        d.set_target_rate(t(0), Bitrate::kbps(100.0), 30.0);
        d.on_encoded_frame(t(0), DataSize::bytes(13_750));
        let f = d
            .on_encoded_frame(t(1000), DataSize::bytes(13_750))
            .unwrap();
        assert!((f - (1.0 + 10_000.0 / 3333.0)).abs() < 1e-9, "{f}");
    }

    #[test]
    fn buffer_drained_between_frames_means_no_overshoot() {
        // The same frames every 1.2 s drain fully: factor 1.
        let mut d = OvershootDetector::new(TimeDelta::secs(3));
        d.set_target_rate(t(0), Bitrate::kbps(100.0), 30.0);
        d.on_encoded_frame(t(0), DataSize::bytes(13_750));
        assert_eq!(
            d.on_encoded_frame(t(1200), DataSize::bytes(13_750)),
            Some(1.0)
        );
    }

    #[test]
    fn factors_older_than_the_window_are_dropped() {
        let mut d = OvershootDetector::new(TimeDelta::secs(3));
        d.set_target_rate(t(0), Bitrate::kbps(300.0), 30.0);
        d.on_encoded_frame(t(0), DataSize::bytes(3125));
        assert_eq!(d.utilization_factor(t(3000)), Some(2.5));
        assert_eq!(d.utilization_factor(t(3001)), None);
    }

    #[test]
    fn adjusted_rate_divides_by_the_clamped_factor() {
        let c = EncoderAdjusterConfig::default();
        let r = Bitrate::kbps(300.0);
        assert_eq!(adjusted_rate(&c, r, 1.5), Bitrate::kbps(200.0));
        // Under 1: no boost; over 2: half.
        assert_eq!(adjusted_rate(&c, r, 0.5), r);
        assert_eq!(adjusted_rate(&c, r, 5.0), Bitrate::kbps(150.0));
        // Never under the codec's 30 kbit/s.
        assert_eq!(
            adjusted_rate(&c, Bitrate::kbps(45.0), 2.0),
            Bitrate::kbps(30.0)
        );
        assert_eq!(
            adjusted_rate(&c, Bitrate::kbps(20.0), 2.0),
            Bitrate::kbps(30.0)
        );
        assert_eq!(adjusted_rate(&c, Bitrate::ZERO, 2.0), Bitrate::ZERO);
    }

    #[test]
    fn adjuster_uses_the_default_factor_for_the_first_frames() {
        let mut a = EncoderBitrateAdjuster::new(EncoderAdjusterConfig::default());
        assert_eq!(
            a.adjust(t(0), Bitrate::kbps(240.0), 25.0),
            Bitrate::kbps(200.0)
        );
        for i in 0..29i64 {
            a.on_encoded_frame(t(i * 40), DataSize::bytes(1000));
        }
        // 29 frames: still the default.
        assert_eq!(
            a.adjust(t(1160), Bitrate::kbps(240.0), 25.0),
            Bitrate::kbps(200.0)
        );
        a.on_encoded_frame(t(1160), DataSize::bytes(1000));
        // 30 frames at the adjusted rate's ideal size: factor 1.
        assert_eq!(
            a.adjust(t(1200), Bitrate::kbps(240.0), 25.0),
            Bitrate::kbps(240.0)
        );
    }

    #[test]
    fn periodic_update_is_due_after_the_interval() {
        let mut a = EncoderBitrateAdjuster::new(EncoderAdjusterConfig::default());
        assert!(a.update_due(t(0)));
        a.adjust(t(0), Bitrate::kbps(240.0), 30.0);
        assert!(!a.update_due(t(999)));
        assert!(a.update_due(t(1000)));
    }
}

#[cfg(test)]
mod proptests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The adjusted rate is never above the allocation (unless the allocation is
        /// under the codec's minimum), never under half of it, never under the minimum.
        #[test]
        fn adjusted_rate_bounds(kbps in 1.0f64..5000.0, factor in 0.0f64..10.0) {
            let c = EncoderAdjusterConfig::default();
            let target = Bitrate::kbps(kbps);
            let r = adjusted_rate(&c, target, factor);
            prop_assert!(r >= c.min_bitrate);
            if target >= c.min_bitrate {
                prop_assert!(r <= target);
                prop_assert!(r.as_bps() >= target.as_bps() / c.max_factor - 1e-6);
            }
        }

        /// Every frame's factor is at least 1, and the window's mean too.
        #[test]
        fn factors_at_least_one(sizes in proptest::collection::vec((1i64..200, 100u64..20_000), 1..80),
                                kbps in 30.0f64..3000.0) {
            let mut d = OvershootDetector::new(TimeDelta::secs(3));
            d.set_target_rate(Timestamp::ZERO, Bitrate::kbps(kbps), 30.0);
            let mut now = Timestamp::ZERO;
            for (gap_ms, bytes) in sizes {
                now += TimeDelta::millis(gap_ms);
                let f = d.on_encoded_frame(now, DataSize::bytes(bytes)).unwrap();
                prop_assert!(f >= 1.0);
                prop_assert!(d.utilization_factor(now).unwrap() >= 1.0 - 1e-9);
            }
        }
    }
}
