//! The first-in first-out packet store the active queue disciplines build on: entries
//! with their enqueue time and any mark set at enqueue, and the bytes they hold.

use super::verdict::MarkReason;
use crate::flow::SimPacket;
use flowstate_core::Timestamp;
use std::collections::VecDeque;

/// One queued packet.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Entry {
    pub pkt: SimPacket,
    /// When it entered the queue.
    pub at: Timestamp,
    /// A mark set when it entered (PIE marks at enqueue).
    pub mark: Option<MarkReason>,
}

/// A FIFO of [`Entry`] with its byte count.
#[derive(Debug, Clone, Default)]
pub struct Fifo {
    items: VecDeque<Entry>,
    bytes: u64,
}

impl Fifo {
    pub fn push(&mut self, e: Entry) {
        self.bytes += u64::from(e.pkt.size);
        self.items.push_back(e);
    }

    pub fn pop(&mut self) -> Option<Entry> {
        let e = self.items.pop_front()?;
        self.bytes -= u64::from(e.pkt.size);
        Some(e)
    }

    pub fn front(&self) -> Option<&Entry> {
        self.items.front()
    }

    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}
