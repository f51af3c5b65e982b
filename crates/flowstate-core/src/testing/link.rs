//! A small bottleneck for closed-loop tests: a FIFO served at a capacity that may
//! change over time, a drop-tail limit in bytes or packets, a fixed propagation delay
//! and optional seeded impairments (loss, reordering, duplication); optionally a
//! CE-marking threshold ([`TestLink::mark_above`]): a packet that finds more queuing
//! delay than the threshold is marked CE if it is ECN-capable and dropped if not (a
//! step marking rule, as DCTCP's K; the simulator's AQMs are richer).
//!
//! A packet's departure time is fixed when it enters the queue, at the capacity of that
//! moment: a capacity change applies to packets arriving after it (the queue ahead
//! keeps its old pace), which is exact enough for reaction times of hundreds of
//! milliseconds. Packets leave in order of arrival at the far end (ties in sending
//! order), so only reordering impairments reorder them.

use std::cmp::{Ordering, Reverse};
use std::collections::{BinaryHeap, VecDeque};

use crate::ecn::Ecn;
use crate::endpoint::data_source::XorShift64;
use crate::units::{Bitrate, DataSize, TimeDelta, Timestamp};

/// A bare packet for tests whose endpoints are not [`crate::endpoint::Endpoint`]s.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LinkPacket {
    pub seq: u64,
    pub size: DataSize,
    pub sent: Timestamp,
}

/// Where the drop-tail limit counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueueLimit {
    /// A packet is dropped when the bytes queued ahead of it plus its own exceed this.
    Bytes(DataSize),
    /// A packet is dropped when this many packets wait besides the one in service.
    Packets(usize),
}

/// Seeded impairments after serialization (a lost packet used the link's time).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Impairments {
    pub loss: f64,
    /// Probability that a packet is held back by up to `reorder_delay`.
    pub reorder: f64,
    pub reorder_delay: TimeDelta,
    pub duplicate: f64,
}

/// One packet on its way to the far end.
#[derive(Debug)]
struct InFlight<M> {
    arrival: Timestamp,
    order: u64,
    size: DataSize,
    ecn: Ecn,
    message: M,
}

impl<M> PartialEq for InFlight<M> {
    fn eq(&self, other: &Self) -> bool {
        (self.arrival, self.order) == (other.arrival, other.order)
    }
}
impl<M> Eq for InFlight<M> {}
impl<M> PartialOrd for InFlight<M> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<M> Ord for InFlight<M> {
    fn cmp(&self, other: &Self) -> Ordering {
        (self.arrival, self.order).cmp(&(other.arrival, other.order))
    }
}

/// One direction of the test bottleneck, carrying messages of type `M`.
#[derive(Debug)]
pub struct TestLink<M> {
    /// (from, capacity), sorted by time.
    schedule: Vec<(Timestamp, Bitrate)>,
    delay: TimeDelta,
    limit: QueueLimit,
    impairments: Option<(Impairments, XorShift64)>,
    /// Queuing delay above which a packet is marked (ECN-capable) or dropped.
    mark_above: Option<TimeDelta>,
    busy_until: Timestamp,
    /// Departure times of the packets in the queue (waiting or in service).
    departures: VecDeque<Timestamp>,
    in_flight: BinaryHeap<Reverse<InFlight<M>>>,
    sent: u64,
    /// Bytes handed to the far end so far.
    pub delivered: DataSize,
    /// Packets dropped (queue full, lost, or Not-ECT above the marking threshold).
    pub dropped: u64,
    /// Packets marked CE.
    pub marked: u64,
}

impl<M: Clone> TestLink<M> {
    /// `capacity` from time zero, `delay` of propagation, at most `limit` bytes queued.
    pub fn new(capacity: Bitrate, delay: TimeDelta, limit: DataSize) -> Self {
        TestLink {
            schedule: vec![(Timestamp::ZERO, capacity)],
            delay,
            limit: QueueLimit::Bytes(limit),
            impairments: None,
            mark_above: None,
            busy_until: Timestamp::ZERO,
            departures: VecDeque::new(),
            in_flight: BinaryHeap::new(),
            sent: 0,
            delivered: DataSize::ZERO,
            dropped: 0,
            marked: 0,
        }
    }

    /// A packet that finds more than `threshold` of queuing delay ahead of it is marked
    /// CE if it is ECN-capable, dropped if not.
    pub fn mark_above(mut self, threshold: TimeDelta) -> Self {
        self.mark_above = Some(threshold);
        self
    }

    /// The drop-tail limit counts packets instead.
    pub fn packet_limit(mut self, packets: usize) -> Self {
        self.limit = QueueLimit::Packets(packets);
        self
    }

    /// The capacity becomes `capacity` at `at`.
    pub fn change_at(mut self, at: Timestamp, capacity: Bitrate) -> Self {
        self.schedule.push((at, capacity));
        self.schedule.sort_by_key(|s| s.0);
        self
    }

    /// Loss, reordering and duplication drawn from a generator seeded with `seed`
    /// (three draws per packet that enters the queue).
    pub fn impaired(mut self, impairments: Impairments, seed: u64) -> Self {
        self.impairments = Some((impairments, XorShift64::new(seed)));
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

    /// A packet of `size` enters the bottleneck at `now`: its departure time from the
    /// queue, or `None` if it was dropped (queue full or lost).
    pub fn send(&mut self, now: Timestamp, size: DataSize, message: M) -> Option<Timestamp> {
        self.send_ecn(now, size, message, Ecn::NotEct)
    }

    /// [`TestLink::send`] for a packet with the ECN codepoint `ecn`.
    pub fn send_ecn(
        &mut self,
        now: Timestamp,
        size: DataSize,
        message: M,
        mut ecn: Ecn,
    ) -> Option<Timestamp> {
        while self.departures.front().is_some_and(|d| *d <= now) {
            self.departures.pop_front();
        }
        let full = match self.limit {
            QueueLimit::Bytes(limit) => self.backlog(now) + size > limit,
            QueueLimit::Packets(waiting) => self.departures.len() > waiting,
        };
        if full {
            self.dropped += 1;
            return None;
        }
        if self
            .mark_above
            .is_some_and(|k| self.busy_until.saturating_since(now) > k)
        {
            if !ecn.is_ecn_capable() {
                self.dropped += 1;
                return None;
            }
            ecn = Ecn::Ce;
            self.marked += 1;
        }
        let start = self.busy_until.max(now);
        let departure = start + size / self.capacity(now);
        self.busy_until = departure;
        self.departures.push_back(departure);
        let mut arrival = departure + self.delay;
        let mut copies = 1;
        if let Some((imp, rng)) = self.impairments.as_mut() {
            if rng.next_f64() < imp.loss {
                self.dropped += 1;
                return None;
            }
            if rng.next_f64() < imp.reorder {
                arrival += imp.reorder_delay * rng.next_f64();
            }
            if rng.next_f64() < imp.duplicate {
                copies = 2;
            }
        }
        for _ in 0..copies {
            self.sent += 1;
            self.in_flight.push(Reverse(InFlight {
                arrival,
                order: self.sent,
                size,
                ecn,
                message: message.clone(),
            }));
        }
        Some(departure)
    }

    /// When the next packet reaches the far end, if any is on its way.
    pub fn next_arrival(&self) -> Option<Timestamp> {
        self.in_flight.peek().map(|Reverse(p)| p.arrival)
    }

    /// The next packet that has reached the far end by `now`, with its arrival time.
    pub fn poll(&mut self, now: Timestamp) -> Option<(Timestamp, M)> {
        self.poll_ecn(now).map(|(t, m, _)| (t, m))
    }

    /// [`TestLink::poll`] with the codepoint the packet arrived with.
    pub fn poll_ecn(&mut self, now: Timestamp) -> Option<(Timestamp, M, Ecn)> {
        if self.next_arrival()? > now {
            return None;
        }
        let Reverse(p) = self.in_flight.pop()?;
        self.delivered += p.size;
        Some((p.arrival, p.message, p.ecn))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_ecn_capable_packets_above_the_threshold_and_drops_the_others() {
        // 8 Mbit/s: 1000 B take 1 ms; mark above 1.5 ms of queuing delay.
        let mut l = TestLink::new(Bitrate::mbps(8.0), TimeDelta::ZERO, DataSize::MAX)
            .mark_above(TimeDelta::from_micros(1500));
        let s = DataSize::bytes(1000);
        let ms = Timestamp::from_millis;
        assert!(l.send_ecn(ms(0), s, 1, Ecn::Ect0).is_some()); // 0 ms ahead
        assert!(l.send_ecn(ms(0), s, 2, Ecn::Ect1).is_some()); // 1 ms ahead
        assert!(l.send_ecn(ms(0), s, 3, Ecn::Ect0).is_some()); // 2 ms: marked
        assert_eq!(l.send(ms(0), s, 4), None, "Not-ECT above the threshold");
        assert_eq!((l.marked, l.dropped), (1, 1));
        let got: Vec<_> = std::iter::from_fn(|| l.poll_ecn(ms(10)))
            .map(|p| (p.1, p.2))
            .collect();
        assert_eq!(got, [(1, Ecn::Ect0), (2, Ecn::Ect1), (3, Ecn::Ce)]);
    }

    #[test]
    fn serializes_in_order_and_drops_tail_by_packets() {
        // 8 Mbit/s: 1000 B take 1 ms; 2 waiting + 1 in service.
        let mut l =
            TestLink::new(Bitrate::mbps(8.0), TimeDelta::ZERO, DataSize::MAX).packet_limit(2);
        let s = DataSize::bytes(1000);
        let ms = Timestamp::from_millis;
        assert_eq!(l.send(ms(0), s, 1), Some(ms(1)));
        assert_eq!(l.send(ms(0), s, 2), Some(ms(2)));
        assert_eq!(l.send(ms(0), s, 3), Some(ms(3)));
        assert_eq!(l.send(ms(0), s, 4), None);
        assert_eq!(l.send(ms(1), s, 5), Some(ms(4)));
        assert_eq!(l.dropped, 1);
        let got: Vec<_> = std::iter::from_fn(|| l.poll(ms(10))).collect();
        assert_eq!(got, [(ms(1), 1), (ms(2), 2), (ms(3), 3), (ms(4), 5)]);
        assert_eq!(l.delivered, s * 4);
    }

    #[test]
    fn drops_tail_by_bytes_and_follows_the_capacity_schedule() {
        // 1 Mbit/s then 0.5 Mbit/s from 10 ms; 20 ms of delay; 2 500 B of queue.
        let mut l = TestLink::new(
            Bitrate::mbps(1.0),
            TimeDelta::millis(20),
            DataSize::bytes(2_500),
        )
        .change_at(Timestamp::from_millis(10), Bitrate::kbps(500.0));
        let s = DataSize::bytes(1_250); // 10 ms at 1 Mbit/s
        let t0 = Timestamp::ZERO;
        assert_eq!(l.send(t0, s, 'a'), Some(Timestamp::from_millis(10)));
        assert_eq!(l.send(t0, s, 'b'), Some(Timestamp::from_millis(20)));
        assert_eq!(l.send(t0, s, 'c'), None, "2 500 B queued ahead");
        assert_eq!(l.backlog(t0), DataSize::bytes(2_500));
        // At 20 ms the queue is empty; 0.5 Mbit/s now: 20 ms to serialize.
        let t = Timestamp::from_millis(20);
        assert_eq!(l.send(t, s, 'd'), Some(Timestamp::from_millis(40)));
        assert_eq!(l.next_arrival(), Some(Timestamp::from_millis(30)));
        assert_eq!(l.poll(Timestamp::from_millis(29)), None);
        assert_eq!(
            l.poll(Timestamp::from_millis(30)),
            Some((Timestamp::from_millis(30), 'a'))
        );
    }

    #[test]
    fn impairments_are_seeded() {
        let imp = Impairments {
            loss: 0.2,
            reorder: 0.2,
            reorder_delay: TimeDelta::millis(10),
            duplicate: 0.2,
        };
        let trace = |seed| {
            let mut l = TestLink::new(Bitrate::mbps(100.0), TimeDelta::millis(5), DataSize::MAX)
                .impaired(imp, seed);
            for i in 0..200u64 {
                l.send(Timestamp::from_micros(i * 100), DataSize::bytes(100), i);
            }
            let out: Vec<_> = std::iter::from_fn(|| l.poll(Timestamp::from_secs(1))).collect();
            (out, l.dropped)
        };
        let (a, dropped) = trace(7);
        assert_eq!((a.clone(), dropped), trace(7));
        assert_ne!(a, trace(8).0);
        assert!(dropped > 0);
        assert!(a.len() as u64 > 200 - dropped, "duplicates");
        assert!(a.windows(2).any(|w| w[0].1 > w[1].1), "reordered");
    }
}
