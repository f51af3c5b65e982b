//! A codec that produces exactly target / fps bytes per frame, following the target at
//! once. For tests.

use super::{EncoderBounds, Frame, FrameClock};
use crate::units::{Bitrate, Timestamp};

#[derive(Debug, Clone)]
pub struct PerfectCodec {
    bounds: EncoderBounds,
    rate: Bitrate,
    clock: FrameClock,
}

impl PerfectCodec {
    pub fn new(bounds: EncoderBounds, start: Timestamp) -> Self {
        let rate = bounds.min_rate;
        Self {
            bounds,
            rate,
            clock: FrameClock::new(start),
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
        Some(self.clock.emit(interval, self.rate * interval, keyframe))
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
}
