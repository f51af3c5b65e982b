//! libvpx VP8's frame dropping as WebRTC configures it, with a frame-size floor: why real
//! Chromium's encoder runs at 1-5 frames/s at 100-200 kbit/s (measured in
//! docs/REPRODUCTION.md, "The real encoder's frame rate, measured").
//!
//! The rule (libvpx `vp8/encoder/onyx_if.c` and `ratectrl.c`, read at webmproject/libvpx
//! commit 0cfc6da392f4 = v1.16.0-184, 2026-08-06; Chromium 156 bundles v1.17.0-63, whose
//! VP8 rate control differs from it only by overflow fixes as far as the history shows):
//! one-pass CBR keeps a leaky "buffer" of bits, `bits_off_target`. Every input frame adds
//! `av_per_frame_bandwidth` = target / input frame rate; every encoded frame takes its
//! own size (`bits_off_target += av_per_frame_bandwidth - projected_frame_size`, clipped
//! to the buffer size). A delta frame is dropped when the buffer is below zero
//! (`calc_pframe_target_size`, "buffer underrun-crisis"; the dropped frame is credited
//! `av_per_frame_bandwidth`), or by the decimation pattern of `vp8_check_drop_buffer`
//! (drop 1 of 2 / 2 of 3 / 3 of 4 frames while the buffer is under 2/3, 1/4, 1/8 of the
//! drop mark = `rc_dropframe_thresh` % of the optimal level). WebRTC
//! (`modules/video_coding/codecs/vp8/libvpx_vp8_encoder.cc`, M125 as in
//! docs/ALGORITHMS.md) sets `rc_dropframe_thresh` 30, `rc_buf_initial_sz` 500 ms,
//! `rc_buf_optimal_sz` 600 ms, `rc_buf_sz` 1000 ms, `rc_max_quantizer` 56 (q index 106),
//! gives libvpx the input frame rate (`SetRates`: `codec_.maxFramerate =
//! framerate_fps`), trusts libvpx's rate control (`trust_vp8` true: VideoStreamEncoder's
//! own frame dropper is off) and forces a frame out after 2 s without one
//! (`kDefaultMaxFrameDropInterval`, field trial `WebRTC-VP8-MaxFrameInterval`: the
//! drop threshold is set to 0 for that frame).
//!
//! What makes the drops bite is that a frame cannot be smaller than what it costs at the
//! maximum quantizer, and that cost grows with the distance to its reference frame (the
//! older the reference, the less the motion search finds): [`FrameSizeFloor`]. When the
//! per-frame budget is below the floor's growth per skipped frame, every skip makes the
//! next frame dearer and the encoder falls to the floor's intra-like ceiling, a frame
//! every ceiling / budget input frames (about 1 frame/s at 100 kbit/s with the measured
//! clip); above it the skips settle at k = (base - growth) / (budget - growth) frames.
//!
//! Not modelled: libvpx's frame-size target inside the buffer (`calc_pframe_target_size`
//! shrinks it when the buffer is under its optimal level; the statistics codec's nominal
//! frame, rate / frame rate, scaled by the decimation factor's 3/2 or 5/4, stands for it),
//! `vp8_drop_encodedframe_overshoot` (only below 3/4 of the maximum quantizer, not at the
//! floor), and key frames' own sizes (the codec's `keyframe_factor`).

use crate::units::{Bitrate, DataSize, TimeDelta, Timestamp};

/// A frame's size at the encoder's maximum quantizer against the distance to its
/// reference: `base` one input frame after it, `per_skipped_frame` more for each input
/// frame skipped in between, at most `max` (the intra-like cost). A physical property of
/// the content at the resolution in use, measured (docs/REPRODUCTION.md).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FrameSizeFloor {
    pub base: DataSize,
    pub per_skipped_frame: DataSize,
    pub max: DataSize,
}

impl FrameSizeFloor {
    /// The floor of a frame `gap` input frames after the previous encoded frame
    /// (`gap` >= 1): min(max, base + per_skipped_frame x (gap - 1)).
    pub fn at(&self, gap: u32) -> DataSize {
        let skipped = u64::from(gap.max(1) - 1);
        (self.base + self.per_skipped_frame * skipped).min(self.max.max(self.base))
    }
}

/// The frame-size floor of the project's synthetic clip (python/flowstate/browser/y4m.py:
/// 1280x720 input, 8-pixel grain panning 4 pixels a frame, fresh noise) as Chromium 156
/// encodes it at 320x180 and q index 106 (the maximum, `rc_max_quantizer` 56): RTP
/// payload bytes per frame against the gap to the previous frame, least squares over the
/// 2434 frames (gap <= 64) of the fixed-target real runs at 50-600 kbit/s, every second
/// of which was at q index 106 (docs/REPRODUCTION.md, "The real encoder's frame rate,
/// measured"; `scripts/encoder_fps.py frames --fit`; rms 2.0 kB: golden-frame refreshes
/// and content make single frames 0.5-2 x this). The judged scenarios (the CUBIC cases)
/// played no part in it.
pub const CHROMIUM156_CLIP_FLOOR: FrameSizeFloor = FrameSizeFloor {
    base: DataSize::bytes(2_350),
    per_skipped_frame: DataSize::bytes(375),
    max: DataSize::bytes(8_500),
};

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Vp8DropConfig {
    /// `rc_buf_initial_sz`: the buffer's level at the start, as time at the target (500 ms).
    pub buffer_initial: TimeDelta,
    /// `rc_buf_optimal_sz` (600 ms).
    pub buffer_optimal: TimeDelta,
    /// `rc_buf_sz`: the buffer's size; the level never exceeds it (1000 ms).
    pub buffer_size: TimeDelta,
    /// `rc_dropframe_thresh`: the drop mark, in percent of the optimal level (30).
    pub drop_mark_percent: f64,
    /// WebRTC's `kDefaultMaxFrameDropInterval`: after this long without an encoded frame
    /// the next one is encoded whatever the buffer says (2 s); `None`: never forced.
    pub max_drop_interval: Option<TimeDelta>,
    pub floor: FrameSizeFloor,
}

impl Vp8DropConfig {
    /// WebRTC M125's libvpx VP8 settings with the project clip's floor.
    pub fn chromium156() -> Self {
        Self {
            buffer_initial: TimeDelta::millis(500),
            buffer_optimal: TimeDelta::millis(600),
            buffer_size: TimeDelta::millis(1000),
            drop_mark_percent: 30.0,
            max_drop_interval: Some(TimeDelta::secs(2)),
            floor: CHROMIUM156_CLIP_FLOOR,
        }
    }
}

/// What to do with an input frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Decision {
    Drop,
    /// Encode it: at least `floor` in size; the codec's nominal frame is scaled by
    /// `target_scale` (the decimation's per-frame bandwidth boost, 1 without).
    Encode {
        floor: DataSize,
        target_scale: f64,
    },
}

/// The buffer model and its drop decisions (see the module doc).
#[derive(Debug, Clone)]
pub struct Vp8FrameDropper {
    cfg: Vp8DropConfig,
    /// libvpx's `bits_off_target` (= `buffer_level`), in bits; negative when overspent.
    level_bits: f64,
    decimation_factor: u8,
    decimation_count: u8,
    /// Input frames since the last encoded one (1: the previous input frame was encoded).
    gap: u32,
    last_output: Option<Timestamp>,
}

impl Vp8FrameDropper {
    /// A dropper whose buffer starts at `buffer_initial` at `rate`.
    pub fn new(cfg: Vp8DropConfig, rate: Bitrate) -> Self {
        Self {
            level_bits: bits(rate, cfg.buffer_initial),
            cfg,
            decimation_factor: 0,
            decimation_count: 0,
            gap: 1,
            last_output: None,
        }
    }

    /// The buffer level in bits.
    pub fn level_bits(&self) -> f64 {
        self.level_bits
    }

    /// Decide on the input frame captured at `now`, with the encoder's target `rate` and
    /// the input frame rate `fps`; a key frame is never dropped. After `Encode`, call
    /// [`Self::on_encoded`] with the frame's size.
    pub fn decide(&mut self, now: Timestamp, rate: Bitrate, fps: f64, keyframe: bool) -> Decision {
        let per_frame = per_frame_bits(rate, fps);
        let max = bits(rate, self.cfg.buffer_size);
        // A lower target shrinks the buffer: libvpx clips the level on a config change.
        self.level_bits = self.level_bits.min(max);
        let forced = match (self.cfg.max_drop_interval, self.last_output) {
            (Some(limit), Some(t)) => now.saturating_since(t) >= limit,
            _ => false,
        };
        // rc_dropframe_thresh 0 for a forced frame: drop_frames_allowed false, so
        // vp8_check_drop_buffer leaves the factor and zeroes the count.
        let allowed = !forced && self.cfg.drop_mark_percent > 0.0;
        let mut target_scale = 1.0;
        if allowed {
            self.update_decimation_factor(rate);
        }
        if allowed && self.decimation_factor > 0 {
            // vp8_check_drop_buffer: per_frame_bandwidth x 3/2 (factor 1) or 5/4.
            target_scale = if self.decimation_factor == 1 {
                1.5
            } else {
                1.25
            };
            if keyframe {
                self.decimation_count = self.decimation_factor;
            } else if self.decimation_count > 0 {
                self.decimation_count -= 1;
                return self.drop(per_frame, max);
            } else {
                self.decimation_count = self.decimation_factor;
            }
        } else {
            self.decimation_count = 0;
        }
        // calc_pframe_target_size: a delta frame in a buffer underrun is dropped.
        if allowed && !keyframe && self.level_bits < 0.0 {
            return self.drop(per_frame, max);
        }
        Decision::Encode {
            floor: self.cfg.floor.at(self.gap),
            target_scale,
        }
    }

    /// The frame decided at `now` was encoded with `size` bytes.
    pub fn on_encoded(&mut self, now: Timestamp, rate: Bitrate, fps: f64, size: DataSize) {
        let max = bits(rate, self.cfg.buffer_size);
        self.level_bits =
            (self.level_bits + per_frame_bits(rate, fps) - size.as_bits_f64()).min(max);
        self.gap = 1;
        self.last_output = Some(now);
    }

    fn drop(&mut self, per_frame: f64, max: f64) -> Decision {
        self.level_bits = (self.level_bits + per_frame).min(max);
        self.gap = self.gap.saturating_add(1);
        Decision::Drop
    }

    /// vp8_check_drop_buffer's decimation-factor steps (one-pass: it also comes back down).
    fn update_decimation_factor(&mut self, rate: Bitrate) {
        let mark = self.cfg.drop_mark_percent / 100.0 * bits(rate, self.cfg.buffer_optimal);
        let (mark75, mark50, mark25) = (mark * 2.0 / 3.0, mark / 4.0, mark / 8.0);
        let level = self.level_bits;
        let f = &mut self.decimation_factor;
        if level > mark && *f > 0 {
            *f -= 1;
        }
        if level > mark75 && *f > 0 {
            *f = 1;
        } else if level < mark25 && (*f == 2 || *f == 3) {
            *f = 3;
        } else if level < mark50 && (*f == 1 || *f == 2) {
            *f = 2;
        } else if level < mark75 && (*f == 0 || *f == 1) {
            *f = 1;
        }
    }
}

/// `rate` x `span` in bits (libvpx's ms buffer sizes rescaled to bits at the target).
fn bits(rate: Bitrate, span: TimeDelta) -> f64 {
    rate.as_bps() * span.as_secs_f64()
}

/// `av_per_frame_bandwidth` = target / frame rate, in bits.
fn per_frame_bits(rate: Bitrate, fps: f64) -> f64 {
    let fps = if fps.is_finite() && fps > 0.0 {
        fps
    } else {
        30.0
    };
    rate.as_bps() / fps
}

#[cfg(test)]
mod tests {
    use super::*;

    const FPS: f64 = 30.0;

    fn floor() -> FrameSizeFloor {
        FrameSizeFloor {
            base: DataSize::bytes(2_000),
            per_skipped_frame: DataSize::bytes(500),
            max: DataSize::bytes(10_000),
        }
    }

    #[test]
    fn floor_grows_per_skipped_frame_up_to_its_max() {
        let f = floor();
        assert_eq!(f.at(1), DataSize::bytes(2_000));
        assert_eq!(f.at(0), DataSize::bytes(2_000));
        assert_eq!(f.at(3), DataSize::bytes(3_000));
        assert_eq!(f.at(17), DataSize::bytes(10_000));
        assert_eq!(f.at(100), DataSize::bytes(10_000));
    }

    /// Run the dropper alone at a fixed rate, every encoded frame exactly its floor (the
    /// regime the module doc describes); the encoded frames per second.
    fn fps_at(rate: Bitrate, cfg: Vp8DropConfig, secs: u64) -> f64 {
        let mut d = Vp8FrameDropper::new(cfg, rate);
        let n = secs * FPS as u64;
        let mut encoded = 0;
        for i in 0..n {
            let now = Timestamp::from_micros(i * 1_000_000 / FPS as u64);
            if let Decision::Encode { floor, .. } = d.decide(now, rate, FPS, false) {
                d.on_encoded(now, rate, FPS, floor);
                encoded += 1;
            }
        }
        encoded as f64 / secs as f64
    }

    fn cfg() -> Vp8DropConfig {
        Vp8DropConfig {
            floor: floor(),
            ..Vp8DropConfig::chromium156()
        }
    }

    #[test]
    fn budget_above_every_floor_encodes_every_frame() {
        // 10 kB per frame > the floor's max: nothing is dropped.
        assert_eq!(fps_at(Bitrate::kbps(2_400.0), cfg(), 20), 30.0);
    }

    #[test]
    fn budget_under_the_growth_falls_to_the_ceiling() {
        // 400 B per input frame < 500 B growth: a frame every 10000 / 400 = 25 input
        // frames, 1.2 frames/s (the buffer's start level aside).
        let f = fps_at(Bitrate::kbps(96.0), cfg(), 200);
        assert!((f - 1.2).abs() < 0.05, "{f}");
    }

    #[test]
    fn budget_over_the_growth_settles_at_the_fixed_point() {
        // 1000 B per input frame: k x 1000 = 2000 + 500 (k - 1) -> k = 3, 10 frames/s.
        let f = fps_at(Bitrate::kbps(240.0), cfg(), 200);
        assert!((f - 10.0).abs() < 0.5, "{f}");
    }

    /// The clip's floor predicts the fixed-target runs' frame rates (docs/REPRODUCTION.md:
    /// median 1 / 4 / 9 / 17 / 21.5 / 30 frames/s at 96 / 150 / 200 / 300 / 400 / 597
    /// kbit/s of encoder target); the fit saw frame sizes only.
    #[test]
    fn clip_floor_predicts_the_measured_frame_rates() {
        let c = Vp8DropConfig::chromium156();
        for (kbps, lo, hi) in [
            (96.0, 0.8, 2.0),
            (150.0, 2.5, 5.0),
            (200.0, 6.0, 11.0),
            (300.0, 12.0, 19.0),
            (400.0, 18.0, 25.0),
            (597.0, 28.0, 30.0),
        ] {
            let f = fps_at(Bitrate::kbps(kbps), c, 120);
            assert!((lo..=hi).contains(&f), "{kbps} kbit/s: {f} frames/s");
        }
    }

    #[test]
    fn a_frame_is_forced_after_two_seconds() {
        // A floor far above the budget: only the 2 s rule lets frames out.
        let c = Vp8DropConfig {
            floor: FrameSizeFloor {
                base: DataSize::bytes(100_000),
                per_skipped_frame: DataSize::bytes(0),
                max: DataSize::bytes(100_000),
            },
            ..Vp8DropConfig::chromium156()
        };
        let f = fps_at(Bitrate::kbps(50.0), c, 60);
        assert!((f - 0.5).abs() < 0.05, "{f}");
        // Without the rule the 100 kB frame's debt takes 16 s of budget to repay.
        let never = Vp8DropConfig {
            max_drop_interval: None,
            ..c
        };
        let f = fps_at(Bitrate::kbps(50.0), never, 60);
        assert!(f < 0.1, "{f}");
    }

    #[test]
    fn underrun_drops_and_credits_one_frame_budget() {
        let rate = Bitrate::kbps(240.0); // 8000 bits per frame
        let mut d = Vp8FrameDropper::new(cfg(), rate);
        let t = Timestamp::ZERO;
        // 500 ms at 240 kbit/s = 120000 bits; a 20000-byte frame leaves -32000.
        assert!(matches!(
            d.decide(t, rate, FPS, false),
            Decision::Encode { .. }
        ));
        d.on_encoded(t, rate, FPS, DataSize::bytes(20_000));
        assert_eq!(d.level_bits(), 120_000.0 + 8_000.0 - 160_000.0);
        assert_eq!(d.decide(t, rate, FPS, false), Decision::Drop);
        assert_eq!(d.level_bits(), -32_000.0 + 8_000.0);
        // A key frame goes through the underrun.
        assert!(matches!(
            d.decide(t, rate, FPS, true),
            Decision::Encode { .. }
        ));
    }

    #[test]
    fn decimation_factor_steps_with_the_buffer() {
        let rate = Bitrate::kbps(300.0);
        // drop mark = 30 % x 600 ms x 300 kbit/s = 54000 bits; 2/3 = 36000; 1/4 = 13500.
        let mut d = Vp8FrameDropper::new(cfg(), rate);
        // (buffer level, the factor after the update), applied in this order: the
        // factor climbs to 1, 2, 3 as the level falls below 2/3, 1/4 and 1/8 of the
        // drop mark, and is back to 1 above 2/3 of it.
        for (level_bits, factor) in [
            (30_000.0, 1),
            (10_000.0, 2),
            (5_000.0, 3),
            (60_000.0, 1),
            (40_000.0, 1),
        ] {
            d.level_bits = level_bits;
            d.update_decimation_factor(rate);
            assert_eq!(d.decimation_factor, factor, "level {level_bits}");
        }
    }

    #[test]
    fn decimation_one_drops_every_other_frame_and_boosts_the_target() {
        let rate = Bitrate::kbps(300.0);
        let mut d = Vp8FrameDropper::new(cfg(), rate);
        d.level_bits = 30_000.0; // factor 1, not in underrun
        let t = Timestamp::ZERO;
        match d.decide(t, rate, FPS, false) {
            Decision::Encode { target_scale, .. } => assert_eq!(target_scale, 1.5),
            x => panic!("{x:?}"),
        }
        d.on_encoded(t, rate, FPS, DataSize::bytes(0));
        assert_eq!(d.decide(t, rate, FPS, false), Decision::Drop);
    }

    #[test]
    fn level_never_exceeds_the_buffer_size() {
        let rate = Bitrate::kbps(100.0);
        let mut d = Vp8FrameDropper::new(cfg(), rate);
        for _ in 0..100 {
            d.on_encoded(Timestamp::ZERO, rate, FPS, DataSize::bytes(0));
        }
        assert_eq!(d.level_bits(), 100_000.0);
    }
}

#[cfg(test)]
mod props {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Whatever the rates and frame sizes: the buffer never exceeds its size, no more
        /// than 2 s + one frame pass without an encoded frame, and what is encoded never
        /// exceeds what the buffer let through (start level + budget over the time).
        #[test]
        fn buffer_bounds_forced_frames_and_spending(
            rates in proptest::collection::vec(30.0f64..3000.0, 1..20),
            sizes in proptest::collection::vec(0u64..30_000, 1..50),
            keys in proptest::collection::vec(any::<bool>(), 1..10),
        ) {
            let fps = 30.0;
            let cfg = Vp8DropConfig::chromium156();
            let mut d = Vp8FrameDropper::new(cfg, Bitrate::kbps(rates[0]));
            let mut last_out = 0.0f64;
            let mut spent_bits = 0.0;
            let mut budget_bits = d.level_bits();
            for i in 0..3000u64 {
                let t = i as f64 / fps;
                let now = Timestamp::from_micros(i * 1_000_000 / 30);
                let rate = Bitrate::kbps(rates[(i / 150) as usize % rates.len()]);
                budget_bits += rate.as_bps() / fps;
                let key = keys[i as usize % keys.len()] && i % 97 == 0;
                match d.decide(now, rate, fps, key) {
                    Decision::Drop => {
                        prop_assert!(!key, "a key frame was dropped");
                    }
                    Decision::Encode { floor, target_scale } => {
                        prop_assert!(target_scale >= 1.0);
                        let size = DataSize::bytes(sizes[i as usize % sizes.len()]).max(floor);
                        d.on_encoded(now, rate, fps, size);
                        spent_bits += size.as_bits_f64();
                        last_out = t;
                    }
                }
                prop_assert!(d.level_bits() <= rate.as_bps() * 1.0 + 1e-6);
                prop_assert!(t - last_out <= 2.0 + 1.0 / fps + 1e-9, "no frame for {} s", t - last_out);
                // The level is budget - spent, less what the cap threw away.
                prop_assert!(d.level_bits() <= budget_bits - spent_bits + 1.0);
            }
        }
    }
}
