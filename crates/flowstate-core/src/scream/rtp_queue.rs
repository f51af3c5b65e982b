//! The RTP queue (RFC 8298 section 4.1.3): encoded media waits here until the network
//! congestion control lets it out; its delay feeds the media rate control, and a queue
//! that grows too old is discarded (the encoder is then asked for a refresh).

use crate::units::{DataSize, TimeDelta, Timestamp};
use std::collections::VecDeque;

/// One queued RTP packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QueuedPacket {
    pub size: DataSize,
    pub enqueued: Timestamp,
}

/// FIFO of RTP packets.
#[derive(Debug, Clone, Default)]
pub struct RtpQueue {
    packets: VecDeque<QueuedPacket>,
    bytes: DataSize,
    last_frame: DataSize,
}

impl RtpQueue {
    pub fn new() -> Self {
        Self::default()
    }

    /// A frame's packets enter the queue.
    pub fn push_frame(&mut self, now: Timestamp, sizes: &[DataSize]) {
        let mut frame = DataSize::ZERO;
        for &size in sizes {
            self.packets.push_back(QueuedPacket {
                size,
                enqueued: now,
            });
            self.bytes += size;
            frame += size;
        }
        self.last_frame = frame;
    }

    pub fn front(&self) -> Option<&QueuedPacket> {
        self.packets.front()
    }

    pub fn pop(&mut self) -> Option<QueuedPacket> {
        let p = self.packets.pop_front()?;
        self.bytes -= p.size;
        Some(p)
    }

    /// Bytes queued.
    pub fn bytes(&self) -> DataSize {
        self.bytes
    }

    pub fn len(&self) -> usize {
        self.packets.len()
    }

    pub fn is_empty(&self) -> bool {
        self.packets.is_empty()
    }

    /// Size of the newest frame.
    pub fn last_frame(&self) -> DataSize {
        self.last_frame
    }

    /// How long the head packet has waited.
    pub fn delay(&self, now: Timestamp) -> TimeDelta {
        self.packets
            .front()
            .map_or(TimeDelta::ZERO, |p| now.saturating_since(p.enqueued))
    }

    /// Discard everything; returns the number of packets dropped.
    pub fn clear(&mut self) -> usize {
        let n = self.packets.len();
        self.packets.clear();
        self.bytes = DataSize::ZERO;
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fifo_bytes_delay_clear() {
        let mut q = RtpQueue::new();
        q.push_frame(
            Timestamp::from_millis(10),
            &[DataSize::bytes(1000), DataSize::bytes(500)],
        );
        q.push_frame(Timestamp::from_millis(40), &[DataSize::bytes(700)]);
        assert_eq!(q.bytes(), DataSize::bytes(2200));
        assert_eq!(q.last_frame(), DataSize::bytes(700));
        assert_eq!(q.delay(Timestamp::from_millis(50)), TimeDelta::millis(40));
        assert_eq!(q.pop().map(|p| p.size), Some(DataSize::bytes(1000)));
        assert_eq!(q.bytes(), DataSize::bytes(1200));
        assert_eq!(q.clear(), 2);
        assert!(q.is_empty());
        assert_eq!(q.delay(Timestamp::from_millis(60)), TimeDelta::ZERO);
    }
}
