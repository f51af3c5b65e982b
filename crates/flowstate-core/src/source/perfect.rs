//! A codec that produces exactly target / fps bytes per frame, following the target at
//! once. For tests, and, with frame-interval noise, cisco/syncodecs'
//! `SimpleFpsBasedCodec` (the fixed-fps source of cisco/ns3-rmcat's suites).

use super::rng::XorShift64;
use super::{EncoderBounds, Frame, FrameClock};
use crate::units::{Bitrate, TimeDelta, Timestamp};

#[derive(Debug, Clone)]
pub struct PerfectCodec {
    bounds: EncoderBounds,
    rate: Bitrate,
    clock: FrameClock,
    /// Relative Laplace scale of the interval to the next frame (0: none).
    interval_noise: f64,
    rng: XorShift64,
}

impl PerfectCodec {
    pub fn new(bounds: EncoderBounds, start: Timestamp) -> Self {
        Self::with_interval_noise(bounds, start, 0.0, 0)
    }

    /// As `new`, with each interval to the next frame drawn as (1 / fps) x (1 + L),
    /// L ~ Laplace(0, `interval_noise`), at least zero: syncodecs' `addLaplaceInter`
    /// (`SimpleFpsBasedCodec::nextPacketOrFrame`, SCALE_T = 0.15 there). A frame's size
    /// stays target / fps, so the mean rate is the target. `seed` feeds the noise.
    pub fn with_interval_noise(
        bounds: EncoderBounds,
        start: Timestamp,
        interval_noise: f64,
        seed: u64,
    ) -> Self {
        let rate = bounds.min_rate;
        Self {
            bounds,
            rate,
            clock: FrameClock::new(start),
            interval_noise: if interval_noise.is_finite() {
                interval_noise.max(0.0)
            } else {
                0.0
            },
            rng: XorShift64::new(seed),
        }
    }
    /// Capture resumes at `now` after a pause (no backlog of frames).
    pub fn resume_at(&mut self, now: Timestamp) {
        self.clock.resume_at(now, self.bounds.frame_interval());
    }
    pub fn set_target_rate(&mut self, rate: Bitrate) {
        self.rate = self.bounds.clamp(rate);
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
        let interval = self.bounds.frame_interval();
        let keyframe = self.clock.next_id() == 0;
        let size = self.rate * interval;
        let next_in = if self.interval_noise > 0.0 {
            let factor = (1.0 + self.rng.laplace(self.interval_noise)).max(0.0);
            TimeDelta::from_secs_f64(interval.as_secs_f64() * factor)
        } else {
            interval
        };
        Some(self.clock.emit(next_in, size, keyframe))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::{DataSize, TimeDelta};

    #[test]
    fn frame_size_is_rate_over_fps_within_bounds() {
        let mut c = PerfectCodec::new(EncoderBounds::paper002(), Timestamp::ZERO);
        c.set_target_rate(Bitrate::kbps(600.0));
        let f = c.poll_frame(Timestamp::ZERO).expect("frame");
        // 600 kbit/s * 33_333 us = 2499.975 B, rounded down (the frame interval is whole
        // microseconds).
        assert_eq!(f.size, DataSize::bytes(2499));
        assert!(c.poll_frame(Timestamp::from_millis(10)).is_none());
        assert_eq!(
            c.next_frame_time(),
            Timestamp::ZERO + TimeDelta::from_micros(33_333)
        );
        c.set_target_rate(Bitrate::mbps(10.0));
        assert_eq!(c.encoder_rate(), Bitrate::mbps(2.0));
        c.set_target_rate(Bitrate::kbps(1.0));
        assert_eq!(c.encoder_rate(), Bitrate::kbps(50.0));
    }

    #[test]
    fn interval_noise_spreads_the_frame_times_around_the_frame_interval() {
        // syncodecs' SCALE_T 0.15: intervals with mean 1 / fps and a mean absolute
        // deviation of 0.15 / fps; the sizes stay target / fps; the seed decides.
        let frames = |seed: u64| {
            let mut c = PerfectCodec::with_interval_noise(
                EncoderBounds::paper002(),
                Timestamp::ZERO,
                0.15,
                seed,
            );
            c.set_target_rate(Bitrate::kbps(600.0));
            let mut out = Vec::new();
            for _ in 0..3000 {
                let now = c.next_frame_time();
                out.push(c.poll_frame(now).expect("due"));
            }
            out
        };
        let f = frames(7);
        assert!(f.iter().all(|x| x.size == DataSize::bytes(2499)));
        let gaps: Vec<f64> = f
            .windows(2)
            .map(|w| (w[1].capture_time - w[0].capture_time).as_secs_f64() * 30.0)
            .collect();
        let mean = gaps.iter().sum::<f64>() / gaps.len() as f64;
        let mad = gaps.iter().map(|g| (g - 1.0).abs()).sum::<f64>() / gaps.len() as f64;
        assert!((mean - 1.0).abs() < 0.02, "{mean}");
        assert!((mad - 0.15).abs() < 0.02, "{mad}");
        assert_eq!(
            f.iter().map(|x| x.capture_time).collect::<Vec<_>>(),
            frames(7).iter().map(|x| x.capture_time).collect::<Vec<_>>()
        );
        assert_ne!(f[10].capture_time, frames(8)[10].capture_time);
    }
}
