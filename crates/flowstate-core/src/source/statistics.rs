//! A statistics codec in the spirit of RFC 8593 section 4 and the syncodecs models:
//! the encoder rate follows the target with a lag (updates at most every 100 ms, at most
//! +-10 % per update), frame sizes carry multiplicative Laplacian noise (scale 0.15), and
//! a big target change (by more than 50 %) makes the encoder jump to the target and emit an
//! I-frame (`keyframe_factor` times a nominal frame).

use super::rng::XorShift64;
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
}

impl StatisticsCodec {
    pub fn new(cfg: StatisticsCodecConfig, start: Timestamp, seed: u64) -> Self {
        let rate = cfg.bounds.min_rate;
        Self {
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
    pub fn encoder_rate(&self) -> Bitrate {
        self.rate
    }

    pub fn poll_frame(&mut self, now: Timestamp) -> Option<Frame> {
        if !self.clock.due(now) {
            return None;
        }
        self.adapt(now);
        let interval = self.cfg.bounds.frame_interval();
        let nominal = (self.rate * interval).as_bytes() as f64;
        let c = self.cfg.noise_clamp.abs().min(0.99);
        let noise = self.rng.laplace(self.cfg.noise_scale.abs()).clamp(-c, c);
        let keyframe = std::mem::take(&mut self.keyframe_pending);
        let factor = if keyframe {
            self.cfg.keyframe_factor.max(1.0)
        } else {
            1.0
        };
        let size = (nominal * factor * (1.0 + noise)).round().max(1.0);
        let size = if size.is_finite() { size as u64 } else { 1 };
        Some(self.clock.emit(interval, DataSize::bytes(size), keyframe))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
