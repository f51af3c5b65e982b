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
