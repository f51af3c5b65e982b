//! A statistics codec in the spirit of RFC 8593 section 4 and the syncodecs models:
//! the encoder rate follows the target with a lag (updates at most every 100 ms, at most
//! +-10 % per update), frame sizes carry multiplicative Laplacian noise (scale 0.15), and
//! a big target change (by more than 50 %) makes the encoder jump to the target and emit an
//! I-frame (`keyframe_factor` times a nominal frame).

use super::rng::XorShift64;
use super::vp8_frame_drop::{Decision, Vp8DropConfig, Vp8FrameDropper};
use super::{EncoderBounds, Frame, FrameClock};
use crate::units::{Bitrate, DataSize, TimeDelta, Timestamp};

#[derive(Debug, Clone, PartialEq)]
pub struct StatisticsCodecConfig {
    pub bounds: EncoderBounds,
    /// Laplacian scale of the relative frame-size noise (0.15).
    pub noise_scale: f64,
    /// Relative noise is clamped to [-noise_clamp, +noise_clamp] (0.9).
    pub noise_clamp: f64,
    /// Minimum time between encoder rate changes (100 ms).
    pub update_interval: TimeDelta,
    /// Maximum relative rate change per update (0.10).
    pub max_step: f64,
    /// A target differing from the encoder rate by more than this fraction triggers an
    /// I-frame and a jump to the target (0.5).
    pub keyframe_change: f64,
    /// I-frame size in nominal frames (3).
    pub keyframe_factor: f64,
    /// `Some(table)`: the frame rate falls with the encoder rate as real Chromium 156's
    /// VP8 encoder's did (its frame dropper): below `table[i].0` kbit/s the codec runs
    /// at `table[i].1` frames/s (the first entry that applies; never above
    /// `bounds.fps`). `None` (default): always `bounds.fps`.
    pub low_rate_fps: Option<&'static [(f64, f64)]>,
    /// `Some`: frames are captured at `bounds.fps` and libvpx VP8's buffer model decides
    /// which are encoded, each at least the frame-size floor for its distance to the
    /// previous encoded frame (`source::vp8_frame_drop`). `None` (default):
    /// every frame is encoded at the nominal size.
    pub vp8_drop: Option<Vp8DropConfig>,
}

/// Real Chromium 156's frames per second against its encoder target, median of every
/// getStats sample of the real runs of docs/REPRODUCTION.md (VP8 320x180 and
/// up, the noise clip, 10,581 samples): under 100 kbit/s 1 frame/s, 100-200 kbit/s 4,
/// 200-400 kbit/s 22.5, from 400 kbit/s 29-30 (the configured rate). Measured, not
/// from libvpx's rate control (not read).
pub const CHROMIUM156_LOW_RATE_FPS: [(f64, f64); 3] = [(100.0, 1.0), (200.0, 4.0), (400.0, 22.5)];

/// The frames per second at `rate` under `table` (see
/// [`StatisticsCodecConfig::low_rate_fps`]), at most `fps`.
pub fn low_rate_fps(table: &[(f64, f64)], rate: Bitrate, fps: f64) -> f64 {
    let kbps = rate.as_kbps();
    table
        .iter()
        .find(|(below, _)| kbps < *below)
        .map_or(fps, |(_, f)| f.min(fps))
}

impl Default for StatisticsCodecConfig {
    fn default() -> Self {
        Self {
            bounds: EncoderBounds::default(),
            noise_scale: 0.15,
            noise_clamp: 0.9,
            update_interval: TimeDelta::millis(100),
            max_step: 0.10,
            keyframe_change: 0.5,
            keyframe_factor: 3.0,
            low_rate_fps: None,
            vp8_drop: None,
        }
    }
}

#[derive(Debug, Clone)]
pub struct StatisticsCodec {
    cfg: StatisticsCodecConfig,
    rng: XorShift64,
    target: Bitrate,
    rate: Bitrate,
    last_change: Option<Timestamp>,
    keyframe_pending: bool,
    clock: FrameClock,
    dropper: Option<Box<Dropper>>,
}

/// `vp8_drop`'s model and the capture times of the frames it dropped, until taken.
#[derive(Debug, Clone)]
struct Dropper {
    model: Vp8FrameDropper,
    dropped: Vec<Timestamp>,
}

impl StatisticsCodec {
    pub fn new(cfg: StatisticsCodecConfig, start: Timestamp, seed: u64) -> Self {
        let rate = cfg.bounds.min_rate;
        Self {
            dropper: cfg.vp8_drop.map(|d| {
                Box::new(Dropper {
                    model: Vp8FrameDropper::new(d, rate),
                    dropped: Vec::new(),
                })
            }),
            cfg,
            rng: XorShift64::new(seed),
            target: rate,
            rate,
            last_change: None,
            keyframe_pending: true,
            clock: FrameClock::new(start),
        }
    }

    pub fn set_target_rate(&mut self, now: Timestamp, rate: Bitrate) {
        self.target = self.cfg.bounds.clamp(rate);
        self.adapt(now);
    }

    fn adapt(&mut self, now: Timestamp) {
        if self
            .last_change
            .is_some_and(|t| now.saturating_since(t) < self.cfg.update_interval)
        {
            return;
        }
        let cur = self.rate.as_bps().max(1.0);
        let rel = self.target.as_bps() / cur - 1.0;
        if rel.abs() < 1e-9 {
            return;
        }
        if rel.abs() > self.cfg.keyframe_change {
            self.rate = self.target;
            self.keyframe_pending = true;
        } else {
            let step = rel.clamp(-self.cfg.max_step, self.cfg.max_step);
            self.rate = self.cfg.bounds.clamp(Bitrate::bps(cur * (1.0 + step)));
        }
        self.last_change = Some(now);
    }

    pub fn next_frame_time(&self) -> Timestamp {
        self.clock.next()
    }
    /// Capture resumes at `now` after a pause (no backlog of frames).
    pub fn resume_at(&mut self, now: Timestamp) {
        self.clock.resume_at(now, self.cfg.bounds.frame_interval());
    }
    pub fn encoder_rate(&self) -> Bitrate {
        self.rate
    }
    /// Whether the frame dropper dropped a frame since the last [`Self::take_dropped`].
    #[inline]
    pub fn has_dropped(&self) -> bool {
        self.dropper.as_ref().is_some_and(|d| !d.dropped.is_empty())
    }
    /// The capture times of the frames the frame dropper dropped since the last call.
    pub fn take_dropped(&mut self) -> Vec<Timestamp> {
        self.dropper
            .as_mut()
            .map(|d| std::mem::take(&mut d.dropped))
            .unwrap_or_default()
    }

    pub fn poll_frame(&mut self, now: Timestamp) -> Option<Frame> {
        if self.dropper.is_some() {
            return self.poll_vp8(now);
        }
        if !self.clock.due(now) {
            return None;
        }
        self.adapt(now);
        let interval = match self.cfg.low_rate_fps {
            None => self.cfg.bounds.frame_interval(),
            Some(table) => {
                let mut b = self.cfg.bounds.clone();
                b.fps = low_rate_fps(table, self.rate, b.fps);
                b.frame_interval()
            }
        };
        let nominal = (self.rate * interval).as_bytes() as f64;
        let keyframe = std::mem::take(&mut self.keyframe_pending);
        let size = self.noisy_size(nominal, keyframe, 0.0);
        Some(self.clock.emit(interval, DataSize::bytes(size), keyframe))
    }

    /// `nominal` (x `keyframe_factor` for a key frame), at least `floor` bytes, with the
    /// frame-size noise.
    fn noisy_size(&mut self, nominal: f64, keyframe: bool, floor: f64) -> u64 {
        let c = self.cfg.noise_clamp.abs().min(0.99);
        let noise = self.rng.laplace(self.cfg.noise_scale.abs()).clamp(-c, c);
        let factor = if keyframe {
            self.cfg.keyframe_factor.max(1.0)
        } else {
            1.0
        };
        let size = ((nominal * factor).max(floor) * (1.0 + noise))
            .round()
            .max(1.0);
        if size.is_finite() {
            size as u64
        } else {
            1
        }
    }

    /// With `vp8_drop`: every capture instant is offered to the buffer model; a dropped
    /// one is skipped (the next is looked at if also due), an encoded one is at least its
    /// floor (a key frame at least the floor's intra-like `max`).
    fn poll_vp8(&mut self, now: Timestamp) -> Option<Frame> {
        while self.clock.due(now) {
            self.adapt(now);
            let interval = self.cfg.bounds.frame_interval();
            let fps = 1.0 / interval.as_secs_f64();
            let at = self.clock.next();
            let keyframe = self.keyframe_pending;
            let dropper = self.dropper.as_mut()?;
            let (floor, scale) = match dropper.model.decide(at, self.rate, fps, keyframe) {
                Decision::Drop => {
                    dropper.dropped.push(at);
                    self.clock.skip(interval);
                    continue;
                }
                Decision::Encode {
                    floor,
                    target_scale,
                } => (floor, target_scale),
            };
            let floor = if keyframe {
                self.cfg.vp8_drop.map_or(floor, |d| d.floor.max.max(floor))
            } else {
                floor
            };
            self.keyframe_pending = false;
            let nominal = (self.rate * interval).as_bytes() as f64 * scale;
            let size = DataSize::bytes(self.noisy_size(nominal, keyframe, floor.as_bytes() as f64));
            if let Some(d) = self.dropper.as_mut() {
                d.model.on_encoded(at, self.rate, fps, size);
            }
            return Some(self.clock.emit(interval, size, keyframe));
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn low_rate_fps_follows_the_measured_table() {
        let t = &CHROMIUM156_LOW_RATE_FPS;
        assert_eq!(low_rate_fps(t, Bitrate::kbps(60.0), 30.0), 1.0);
        assert_eq!(low_rate_fps(t, Bitrate::kbps(150.0), 30.0), 4.0);
        assert_eq!(low_rate_fps(t, Bitrate::kbps(399.0), 30.0), 22.5);
        assert_eq!(low_rate_fps(t, Bitrate::kbps(400.0), 30.0), 30.0);
        assert_eq!(
            low_rate_fps(t, Bitrate::kbps(300.0), 15.0),
            15.0,
            "never above fps"
        );
    }

    #[test]
    fn low_rate_frames_are_fewer_and_larger() {
        let cfg = StatisticsCodecConfig {
            noise_scale: 0.0,
            low_rate_fps: Some(&CHROMIUM156_LOW_RATE_FPS),
            ..StatisticsCodecConfig::default()
        };
        let mut c = StatisticsCodec::new(cfg, Timestamp::ZERO, 1);
        c.set_target_rate(Timestamp::ZERO, Bitrate::kbps(60.0));
        let mut frames = Vec::new();
        let mut now = Timestamp::ZERO;
        while now < Timestamp::from_millis(10_000) {
            if let Some(f) = c.poll_frame(now) {
                frames.push(f);
            }
            now = c.next_frame_time();
        }
        // 1 frame/s at 60 kbit/s: about 10 frames of ~7.5 kB (not 300 of 250 B).
        assert!((9..=11).contains(&frames.len()), "{} frames", frames.len());
        let f = frames.last().unwrap();
        assert!(
            (f.size.as_bytes() as f64 - 7500.0).abs() < 100.0,
            "{:?}",
            f.size
        );
    }

    /// With the VP8 buffer model the codec drops to a few large frames at 100 kbit/s
    /// and keeps (nearly) every frame at 600 kbit/s; without it, 30 frames/s always.
    #[test]
    fn vp8_drop_sets_frame_rate_and_size_from_the_floor() {
        use crate::source::vp8_frame_drop::Vp8DropConfig;
        let run = |kbps: f64, drop: bool| {
            let cfg = StatisticsCodecConfig {
                vp8_drop: drop.then(Vp8DropConfig::chromium156),
                ..StatisticsCodecConfig::default()
            };
            let mut c = StatisticsCodec::new(cfg, Timestamp::ZERO, 7);
            let mut frames = Vec::new();
            let mut now = Timestamp::ZERO;
            while now < Timestamp::from_millis(60_000) {
                c.set_target_rate(now, Bitrate::kbps(kbps));
                while let Some(f) = c.poll_frame(now) {
                    frames.push(f);
                }
                now = c.next_frame_time();
            }
            let late: Vec<_> = frames
                .iter()
                .filter(|f| f.capture_time >= Timestamp::from_millis(20_000))
                .collect();
            let bytes: u64 = late.iter().map(|f| f.size.as_bytes()).sum();
            (late.len() as f64 / 40.0, bytes as f64 / late.len() as f64)
        };
        let (fps, size) = run(100.0, true);
        assert!((0.8..=2.5).contains(&fps), "{fps} frames/s");
        assert!(size > 5_000.0, "{size} B");
        let (fps, _) = run(600.0, true);
        assert!(fps > 27.0, "{fps} frames/s");
        let (fps, size) = run(100.0, false);
        assert_eq!(fps, 30.0);
        assert!(size < 500.0, "{size} B");
    }

    #[test]
    fn rate_follows_target_with_lag_and_steps() {
        let mut c = StatisticsCodec::new(StatisticsCodecConfig::default(), Timestamp::ZERO, 1);
        c.set_target_rate(Timestamp::ZERO, Bitrate::kbps(60.0));
        // From 50 to 60 kbit/s: +20 % > 10 % step, < 50 %: one step to 55.
        assert!((c.encoder_rate().as_kbps() - 55.0).abs() < 1e-9);
        // Within 100 ms: no change.
        c.set_target_rate(Timestamp::from_millis(50), Bitrate::kbps(60.0));
        assert!((c.encoder_rate().as_kbps() - 55.0).abs() < 1e-9);
        c.set_target_rate(Timestamp::from_millis(100), Bitrate::kbps(60.0));
        assert!((c.encoder_rate().as_kbps() - 60.0).abs() < 1e-9);
        // A big change jumps and makes an I-frame.
        c.set_target_rate(Timestamp::from_millis(300), Bitrate::kbps(1000.0));
        assert!((c.encoder_rate().as_kbps() - 1000.0).abs() < 1e-9);
        let f = c.poll_frame(Timestamp::from_millis(300)).expect("frame");
        assert!(f.keyframe);
    }

    #[test]
    fn average_rate_matches_encoder_rate() {
        let mut c = StatisticsCodec::new(StatisticsCodecConfig::default(), Timestamp::ZERO, 42);
        c.set_target_rate(Timestamp::ZERO, Bitrate::kbps(800.0));
        let mut bytes = 0u64;
        let mut now = Timestamp::ZERO;
        let mut frames = 0;
        // Skip the first (key) frame.
        let _ = c.poll_frame(now);
        now = c.next_frame_time();
        while frames < 3000 {
            if let Some(f) = c.poll_frame(now) {
                bytes += f.size.as_bytes();
                frames += 1;
            }
            now = c.next_frame_time();
        }
        let avg = bytes as f64 * 8.0 / (frames as f64 / 30.0);
        assert!((avg / 800_000.0 - 1.0).abs() < 0.02, "{avg}");
    }
}
