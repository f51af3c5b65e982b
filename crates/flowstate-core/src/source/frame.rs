//! Encoded frames and the capture schedule both codecs share.

use crate::units::{DataSize, TimeDelta, Timestamp};

/// One encoded frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Frame {
    pub id: u64,
    pub capture_time: Timestamp,
    pub size: DataSize,
    pub keyframe: bool,
}

/// The capture schedule both codecs share: frame ids from 0, one frame every frame
/// interval from the start time.
#[derive(Debug, Clone)]
pub(crate) struct FrameClock {
    next: Timestamp,
    id: u64,
}

impl FrameClock {
    pub fn new(start: Timestamp) -> Self {
        FrameClock { next: start, id: 0 }
    }

    /// The capture time of the next frame.
    pub fn next(&self) -> Timestamp {
        self.next
    }

    /// Whether the next frame is due at `now`.
    pub fn due(&self, now: Timestamp) -> bool {
        now >= self.next
    }

    /// The id the next frame gets.
    pub fn next_id(&self) -> u64 {
        self.id
    }

    /// The next frame is not encoded (dropped by the encoder's rate control); the one
    /// after it is captured `interval` later and gets the id this one would have had.
    pub fn skip(&mut self, interval: TimeDelta) {
        self.next += interval;
    }

    /// The application resumes capture at `now` after a pause: the frames the schedule
    /// had between the pause and `now` are never captured (no backlog); the next one is
    /// the first of the schedule at or after `now`, one `interval` apart.
    pub fn resume_at(&mut self, now: Timestamp, interval: TimeDelta) {
        if now <= self.next {
            return;
        }
        let step = interval.as_micros().max(1) as u64;
        let behind = now.as_micros() - self.next.as_micros();
        let steps = behind.div_ceil(step);
        self.next = Timestamp::from_micros(
            self.next
                .as_micros()
                .saturating_add(steps.saturating_mul(step)),
        );
    }

    /// The next frame, of `size`; the one after it is captured `interval` later.
    pub fn emit(&mut self, interval: TimeDelta, size: DataSize, keyframe: bool) -> Frame {
        let f = Frame {
            id: self.id,
            capture_time: self.next,
            size,
            keyframe,
        };
        self.id += 1;
        self.next += interval;
        f
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resuming_skips_the_frames_of_the_pause_and_keeps_the_grid() {
        let interval = TimeDelta::millis(40);
        let mut c = FrameClock::new(Timestamp::ZERO);
        c.emit(interval, DataSize::bytes(100), true);
        assert_eq!(c.next(), Timestamp::from_millis(40));
        // Paused from 40 ms, resumed at 1,001 ms: the next frame is at 1,040 ms (the
        // schedule's first at or after the resume), not at 40 ms.
        c.resume_at(Timestamp::from_millis(1001), interval);
        assert_eq!(c.next(), Timestamp::from_millis(1040));
        assert!(!c.due(Timestamp::from_millis(1001)));
        assert_eq!(c.next_id(), 1);
        // On the grid: at once; earlier than the next frame: nothing changes.
        c.resume_at(Timestamp::from_millis(1040), interval);
        assert_eq!(c.next(), Timestamp::from_millis(1040));
        c.resume_at(Timestamp::from_millis(500), interval);
        assert_eq!(c.next(), Timestamp::from_millis(1040));
    }
}
