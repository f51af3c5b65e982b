//! A minimal bottleneck for the closed-loop tests of the RMCAT controllers (NADA,
//! SCReAM, LEDBAT): a FIFO at a capacity that may change over time, a drop-tail limit
//! in bytes and a fixed propagation delay. Test-only; a packet's departure time is
//! fixed when it enters the queue, so a capacity change applies to packets arriving
//! after it (the queue ahead of it keeps its old pace), which is exact enough for
//! reaction times of hundreds of milliseconds.

use crate::units::{Bitrate, DataSize, TimeDelta, Timestamp};
use std::collections::VecDeque;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LinkPacket {
    pub seq: u64,
    pub size: DataSize,
    pub sent: Timestamp,
}

#[derive(Debug, Clone)]
pub struct TestLink {
    /// (from, capacity), sorted by time.
    schedule: Vec<(Timestamp, Bitrate)>,
    prop: TimeDelta,
    limit: DataSize,
    busy_until: Timestamp,
    /// (arrival at the receiver, departure from the queue, packet).
    in_flight: VecDeque<(Timestamp, Timestamp, LinkPacket)>,
    pub delivered: DataSize,
    pub dropped: u64,
}

impl TestLink {
    pub fn new(capacity: Bitrate, prop: TimeDelta, limit: DataSize) -> Self {
        TestLink {
            schedule: vec![(Timestamp::ZERO, capacity)],
            prop,
            limit,
            busy_until: Timestamp::ZERO,
            in_flight: VecDeque::new(),
            delivered: DataSize::ZERO,
            dropped: 0,
        }
    }

    /// The capacity becomes `capacity` at `at`.
    pub fn change_at(mut self, at: Timestamp, capacity: Bitrate) -> Self {
        self.schedule.push((at, capacity));
        self.schedule.sort_by_key(|s| s.0);
        self
    }

    pub fn capacity(&self, now: Timestamp) -> Bitrate {
        self.schedule
            .iter()
            .rev()
            .find(|s| s.0 <= now)
            .map_or(Bitrate::ZERO, |s| s.1)
    }

    /// Bytes queued at `now`.
    pub fn backlog(&self, now: Timestamp) -> DataSize {
        self.capacity(now) * self.busy_until.saturating_since(now)
    }

    /// A packet enters the bottleneck; false if dropped.
    pub fn send(&mut self, now: Timestamp, p: LinkPacket) -> bool {
        if self.backlog(now) + p.size > self.limit {
            self.dropped += 1;
            return false;
        }
        let start = self.busy_until.max(now);
        let depart = start + p.size / self.capacity(now);
        self.busy_until = depart;
        self.in_flight.push_back((depart + self.prop, depart, p));
        true
    }

    /// The next packet that has reached the receiver by `now`, with its arrival time.
    pub fn poll(&mut self, now: Timestamp) -> Option<(Timestamp, LinkPacket)> {
        match self.in_flight.front() {
            Some(&(at, _, p)) if at <= now => {
                self.in_flight.pop_front();
                self.delivered += p.size;
                Some((at, p))
            }
            _ => None,
        }
    }
}
