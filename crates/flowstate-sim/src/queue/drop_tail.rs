//! A FIFO drop-tail queue limited in bytes, packets, or milliseconds at the link's
//! current rate.
//!
//! The limit counts the packets waiting, not the one being serialized (as a Linux qdisc
//! backlog excludes the packet already handed to the device).

use super::limit::QueueLimit;
use crate::flow::SimPacket;
use flowstate_core::{Bitrate, DataSize, Timestamp};
use std::collections::VecDeque;

/// How many entries behind the head a pop asks the CPU to load.
const POP_PREFETCH_AHEAD: usize = 4;

/// A drop-tail FIFO of packets with their enqueue times.
#[derive(Debug, Clone)]
pub struct DropTailQueue {
    items: VecDeque<(SimPacket, Timestamp)>,
    bytes: u64,
    limit: QueueLimit,
}

impl DropTailQueue {
    pub fn new(limit: QueueLimit) -> Self {
        Self {
            items: VecDeque::with_capacity(64),
            bytes: 0,
            limit,
        }
    }

    pub fn limit(&self) -> QueueLimit {
        self.limit
    }

    /// Whether a packet of `size` bytes fits behind what is waiting, at link rate `rate`.
    pub fn admits(&self, size: DataSize, rate: Bitrate) -> bool {
        match self.limit {
            QueueLimit::Packets(n) => (self.items.len() as u64) < n,
            other => match other.byte_limit(rate) {
                Some(b) => self.bytes.saturating_add(size.as_bytes()) <= b,
                None => false,
            },
        }
    }

    /// Append `pkt` if it fits; returns whether it was queued (false = tail drop).
    pub fn push(&mut self, now: Timestamp, pkt: SimPacket, rate: Bitrate) -> bool {
        if !self.admits(DataSize::bytes(u64::from(pkt.size)), rate) {
            return false;
        }
        self.bytes += u64::from(pkt.size);
        self.items.push_back((pkt, now));
        true
    }

    /// The head packet and the time it was queued.
    pub fn pop(&mut self) -> Option<(SimPacket, Timestamp)> {
        let (p, t) = self.items.pop_front()?;
        // A cache hint: the queue is read in order and, full at a fast link, megabytes
        // long; start loading the entry a few pops ahead.
        if let Some(later) = self.items.get(POP_PREFETCH_AHEAD) {
            prefetch_index::prefetch_index(std::slice::from_ref(later), 0);
        }
        self.bytes = self.bytes.saturating_sub(u64::from(p.size));
        Some((p, t))
    }

    /// The head packet, without taking it.
    pub fn front(&self) -> Option<&SimPacket> {
        self.items.front().map(|(p, _)| p)
    }

    /// Bytes waiting.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }
    /// Packets waiting.
    pub fn len(&self) -> usize {
        self.items.len()
    }
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flowstate_core::TimeDelta;

    fn pkt(id: u64, size: u32) -> SimPacket {
        SimPacket::datagram(id, Timestamp::ZERO, 0, size, flowstate_core::Ecn::NotEct)
    }

    #[test]
    fn byte_limit_is_inclusive() {
        let mut q = DropTailQueue::new(QueueLimit::Bytes(3000));
        let r = Bitrate::mbps(1.0);
        assert!(q.push(Timestamp::ZERO, pkt(0, 1500), r));
        assert!(
            q.push(Timestamp::ZERO, pkt(1, 1500), r),
            "exactly full is allowed"
        );
        assert!(!q.push(Timestamp::ZERO, pkt(2, 1), r));
        assert_eq!(q.bytes(), 3000);
        assert_eq!(q.pop().map(|(p, _)| p.id), Some(0));
        assert_eq!(q.bytes(), 1500);
    }

    #[test]
    fn packet_limit_counts_packets() {
        let mut q = DropTailQueue::new(QueueLimit::Packets(2));
        let r = Bitrate::mbps(1.0);
        assert!(q.push(Timestamp::ZERO, pkt(0, 10), r));
        assert!(q.push(Timestamp::ZERO, pkt(1, 9000), r));
        assert!(!q.push(Timestamp::ZERO, pkt(2, 10), r));
        assert_eq!(q.len(), 2);
    }

    #[test]
    fn time_limit_follows_rate() {
        // 100 ms at 1 Mbit/s = 12 500 bytes; at 2 Mbit/s = 25 000 bytes.
        let q = DropTailQueue::new(QueueLimit::Time(TimeDelta::millis(100)));
        assert_eq!(q.limit().byte_limit(Bitrate::mbps(1.0)), Some(12_500));
        assert!(q.admits(DataSize::bytes(12_500), Bitrate::mbps(1.0)));
        assert!(!q.admits(DataSize::bytes(12_501), Bitrate::mbps(1.0)));
        assert!(q.admits(DataSize::bytes(25_000), Bitrate::mbps(2.0)));
    }
}
