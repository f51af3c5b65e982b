//! What the sender's encoder did with each capture instant: encoded it as a frame (its
//! id and capture time) or dropped it (the statistics codec's VP8 frame dropper,
//! `vp8_drop`; the GCC sender's `cwnd_frame_drop`). The receiver cannot tell a frame
//! the encoder dropped from one the network lost entirely, so the counts come from here.

use crate::units::{TimeDelta, Timestamp};

/// The encoder's frames and drops, by capture time.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EncoderLog {
    encoded: Vec<(u64, Timestamp)>,
    dropped: Vec<Timestamp>,
}

impl EncoderLog {
    pub fn new() -> Self {
        Self::default()
    }

    /// Frame `id`, captured at `capture`, was encoded and sent.
    pub fn on_encoded(&mut self, id: u64, capture: Timestamp) {
        self.encoded.push((id, capture));
    }

    /// The frame captured at `capture` was not encoded (kept in capture order).
    pub fn on_dropped(&mut self, capture: Timestamp) {
        let at = self.dropped.partition_point(|&c| c <= capture);
        self.dropped.insert(at, capture);
    }

    /// Encoded frames (id, capture time) in capture order.
    pub fn encoded(&self) -> &[(u64, Timestamp)] {
        &self.encoded
    }

    /// Capture times of the dropped frames.
    pub fn dropped(&self) -> &[Timestamp] {
        &self.dropped
    }

    /// Encoded frames captured in `[start, end)`.
    pub fn encoded_in(&self, start: Timestamp, end: Timestamp) -> &[(u64, Timestamp)] {
        let a = self.encoded.partition_point(|&(_, c)| c < start);
        let b = self.encoded.partition_point(|&(_, c)| c < end);
        &self.encoded[a..b.max(a)]
    }

    /// Dropped frames captured in `[start, end)`.
    pub fn dropped_in(&self, start: Timestamp, end: Timestamp) -> u64 {
        let a = self.dropped.partition_point(|&c| c < start);
        let b = self.dropped.partition_point(|&c| c < end);
        b.saturating_sub(a) as u64
    }

    /// The span a window's counts are per.
    pub fn span(start: Timestamp, end: Timestamp) -> TimeDelta {
        end.saturating_since(start)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_by_capture_time_in_the_half_open_window() {
        let mut l = EncoderLog::new();
        for i in 0..10 {
            l.on_encoded(i, Timestamp::from_millis(i * 100));
        }
        l.on_dropped(Timestamp::from_millis(150));
        l.on_dropped(Timestamp::from_millis(500));
        let w = l.encoded_in(Timestamp::from_millis(200), Timestamp::from_millis(500));
        assert_eq!(w.iter().map(|e| e.0).collect::<Vec<_>>(), [2, 3, 4]);
        assert_eq!(
            l.dropped_in(Timestamp::from_millis(100), Timestamp::from_millis(500)),
            1
        );
        assert_eq!(
            l.dropped_in(Timestamp::from_millis(500), Timestamp::from_millis(501)),
            1
        );
    }
}
