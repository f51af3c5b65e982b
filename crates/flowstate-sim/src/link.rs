//! A bottleneck link: a queue under its discipline (drop-tail by default; crate::queue)
//! in front of a serializer of time-varying rate, then a propagation delay with optional
//! jitter (no reordering) and random loss.
//!
//! Timing of one packet of `s` bytes arriving at `t0` to an idle link of rate `C`:
//! it finishes serialization at `t0 + 8 s / C` and leaves the link at
//! `t0 + 8 s / C + delay + jitter`. A packet that finds the link busy waits in the
//! queue; its *queuing delay* is the wait until its own serialization starts.
//!
//! A trace-driven link ([`LinkConfig::trace`], crate::trace) plays its trace here, so
//! the simulator, the emulator and the testbed share one model of it:
//! - a rate trace (`csv`, `gym-json`) is the capacity schedule, repeated with the
//!   trace's period when it loops; a packet that reaches an idle link while the rate is
//!   0 starts serializing when the rate next becomes positive;
//! - per-segment delay, jitter and loss (`gym-json`) apply to a packet by the segment
//!   in force when it finishes serialization;
//! - a Mahimahi trace replaces serialization: the link delivers at the trace's
//!   opportunities, each carrying up to 1500 bytes of queued packets (a packet may
//!   span opportunities; a packet can use an opportunity only if it arrived strictly
//!   before it; what a packet leaves of an opportunity goes to the next packet if that
//!   one was already queued, else it is lost), as `mm-link` does.

use crate::flow::SimPacket;
use crate::queue::{
    Class, Discipline, DropReason, DropSink, Dropped, MarkReason, Queue, QueueLimit,
};
use crate::scheduler::{component_rng, ComponentId};
use flowstate_core::{Bitrate, DataSize, TimeDelta, Timestamp};
use rand::RngExt;
use rand_chacha::ChaCha8Rng;
use std::sync::Arc;

pub use crate::trace::{LinkTrace, MAHIMAHI_BYTES};

/// Which link: its position in the topology (crate::topology). The dumbbell's
/// forward link is [`LinkId::FORWARD`] (0) and its reverse link [`LinkId::REVERSE`] (1);
/// named links (`[[links]]`, `[parking_lot]`) are numbered in the order the scenario
/// gives them. The number also picks the link's random streams and is the `link` of
/// its trace records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LinkId(pub u8);

impl LinkId {
    /// The dumbbell's forward bottleneck.
    pub const FORWARD: LinkId = LinkId(0);
    /// The dumbbell's reverse bottleneck.
    pub const REVERSE: LinkId = LinkId(1);

    pub fn index(self) -> usize {
        usize::from(self.0)
    }
}

/// A static description of a link.
#[derive(Debug, Clone, PartialEq)]
pub struct LinkConfig {
    /// Capacity schedule: `(from time, rate)`, sorted by time, first entry at 0.
    pub schedule: Vec<(Timestamp, Bitrate)>,
    /// One-way propagation delay.
    pub delay: TimeDelta,
    /// The queue's limit (every discipline's).
    pub queue: QueueLimit,
    /// The queue discipline (drop-tail by default).
    pub discipline: Discipline,
    /// Standard deviation of the RFC 8868 truncated-Gaussian jitter (`None`: none).
    pub jitter: Option<TimeDelta>,
    /// Probability that a packet is lost after serialization (0 = none).
    pub loss: f64,
    /// The trace a trace-driven link plays (`None`: the schedule and values above as
    /// they are). With a trace, `schedule` holds one period of it (Mahimahi: the mean
    /// rate) and repeats when the trace loops.
    pub trace: Option<Arc<LinkTrace>>,
}

impl LinkConfig {
    /// A constant-rate link.
    pub fn constant(rate: Bitrate, delay: TimeDelta, queue: QueueLimit) -> Self {
        Self {
            schedule: vec![(Timestamp::ZERO, rate)],
            delay,
            queue,
            discipline: Discipline::DropTail,
            jitter: None,
            loss: 0.0,
            trace: None,
        }
    }

    /// The loop period of the schedule (a looped trace), `None` otherwise.
    pub fn period(&self) -> Option<TimeDelta> {
        self.trace
            .as_ref()
            .filter(|t| t.looped && t.period > TimeDelta::ZERO)
            .map(|t| t.period)
    }

    /// The `k`-th point of the schedule unrolled over its loops (`k = 0` is the first
    /// point at 0); `None` after the last point of a schedule that does not loop.
    pub fn schedule_point(&self, k: usize) -> Option<(Timestamp, Bitrate)> {
        let n = self.schedule.len();
        match self.period() {
            Some(p) if n > 0 => {
                let (at, rate) = self.schedule[k % n];
                let shift = (p.as_micros() as u64).saturating_mul((k / n) as u64);
                Some((
                    Timestamp::from_micros(at.as_micros().saturating_add(shift)),
                    rate,
                ))
            }
            _ => self.schedule.get(k).copied(),
        }
    }

    /// The rate changes after time 0 that fall before `end` (all of them for a
    /// schedule that does not loop).
    pub fn rate_changes(&self, end: Timestamp) -> Vec<(Timestamp, Bitrate)> {
        if self.period().is_none() {
            return self.schedule.iter().skip(1).copied().collect();
        }
        (1..)
            .map_while(|k| self.schedule_point(k).filter(|p| p.0 < end))
            .collect()
    }

    /// The first time at or after `t` when the rate is positive, and that rate.
    fn next_positive_rate(&self, t: Timestamp) -> Option<(Timestamp, Bitrate)> {
        let n = self.schedule.len();
        // The point in force at t (its rate counts from t on), then the ones after it.
        let first = match self.period() {
            Some(p) => {
                let cycle = t.as_micros() / (p.as_micros() as u64);
                let folded = Timestamp::from_micros(t.as_micros() % (p.as_micros() as u64));
                cycle as usize * n + self.schedule.partition_point(|s| s.0 <= folded)
            }
            None => self.schedule.partition_point(|s| s.0 <= t),
        }
        .saturating_sub(1);
        // Bounded: one period holds some positive rate (a trace without capacity is
        // rejected when it is read).
        (first..=first + n)
            .map_while(|k| self.schedule_point(k))
            .find(|p| p.1.as_bps() > 0.0)
            .map(|(at, rate)| (at.max(t), rate))
    }

    /// The delay, jitter and loss in force at `t` (per-segment values of a trace,
    /// else the link's own).
    pub fn conditions_at(&self, t: Timestamp) -> (TimeDelta, Option<TimeDelta>, f64) {
        let seg = self.trace.as_ref().and_then(|tr| tr.segment_at(t));
        match seg {
            None => (self.delay, self.jitter, self.loss),
            Some(s) => (
                s.delay.unwrap_or(self.delay),
                s.jitter.or(self.jitter),
                s.loss.unwrap_or(self.loss),
            ),
        }
    }

    /// The Mahimahi trace the link delivers by, if any.
    pub fn delivery(&self) -> Option<&LinkTrace> {
        self.trace.as_deref().filter(|t| t.is_delivery())
    }

    /// The rate in force at `t`.
    pub fn rate_at(&self, t: Timestamp) -> Bitrate {
        let t = match &self.trace {
            Some(tr) if self.period().is_some() => tr.fold(t),
            _ => t,
        };
        let mut rate = self.schedule.first().map_or(Bitrate::ZERO, |s| s.1);
        for &(from, r) in &self.schedule {
            if from <= t {
                rate = r;
            } else {
                break;
            }
        }
        rate
    }

    /// Bits the link can carry in `[from, to)` (the integral of its rate schedule).
    pub fn capacity_bits(&self, from: Timestamp, to: Timestamp) -> f64 {
        if let Some(d) = self.delivery() {
            return (d.opportunities_in(from, to) * MAHIMAHI_BYTES * 8) as f64;
        }
        if let Some(p) = self.period() {
            let mut bits = 0.0;
            // Start at the point in force at `from` (not at 0: a long run on a short
            // trace would walk every earlier loop for every bin).
            let n = self.schedule.len();
            let p = p.as_micros() as u64;
            let folded = Timestamp::from_micros(from.as_micros() % p);
            let mut k = ((from.as_micros() / p) as usize * n
                + self.schedule.partition_point(|s| s.0 <= folded))
            .saturating_sub(1);
            while let Some((start, rate)) = self.schedule_point(k) {
                if start >= to {
                    break;
                }
                let end = self.schedule_point(k + 1).map_or(Timestamp::MAX, |s| s.0);
                let a = start.max(from);
                let b = end.min(to);
                if b > a {
                    bits += rate.as_bps() * (b - a).as_secs_f64();
                }
                k += 1;
            }
            return bits;
        }
        let mut bits = 0.0;
        for (i, &(start, rate)) in self.schedule.iter().enumerate() {
            let end = self.schedule.get(i + 1).map_or(Timestamp::MAX, |s| s.0);
            let a = start.max(from);
            let b = end.min(to);
            if b > a {
                bits += rate.as_bps() * (b - a).as_secs_f64();
            }
        }
        bits
    }
}

/// Serialization time of `size` at `rate`, rounded to the nearest microsecond
/// (`size x 8 / rate`). A zero rate gives [`TimeDelta::MAX`].
pub fn serialization_time(size: DataSize, rate: Bitrate) -> TimeDelta {
    size / rate
}

/// One draw of the RFC 8868 jitter model: Gaussian with standard deviation `std`,
/// truncated at +-3 std (values outside are redrawn), via the Box-Muller transform.
pub fn truncated_gaussian(rng: &mut ChaCha8Rng, std: TimeDelta) -> TimeDelta {
    let sigma = std.as_micros().max(0) as f64;
    if sigma == 0.0 {
        return TimeDelta::ZERO;
    }
    // Redraw at most a bounded number of times (P(|z| > 3) = 0.27 %); fall back to 0.
    for _ in 0..64 {
        let u1: f64 = 1.0 - rng.random::<f64>(); // (0, 1]
        let u2: f64 = rng.random::<f64>();
        let z = (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos();
        if z.abs() <= 3.0 {
            return TimeDelta::from_micros((z * sigma).round() as i64);
        }
    }
    TimeDelta::ZERO
}

/// A packet that started serialization.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Started {
    pub pkt: SimPacket,
    /// How long it waited in the queue.
    pub waited: TimeDelta,
    /// When its serialization ends (schedule the link's completion event then).
    pub done_at: Timestamp,
    /// The CE mark the queue discipline set on it, if any (`pkt.ecn` is then CE).
    pub mark: Option<MarkReason>,
    /// The sub-queue it waited in (DualPI2's L4S or classic queue; classic otherwise).
    pub class: Class,
}

/// What became of a packet offered to the link.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Offer {
    /// The link was idle: serialization started at once.
    Started(Started),
    /// Queued behind others.
    Queued,
    /// Not queued: the queue was full (a tail drop, [`DropReason::Overlimit`]) or its
    /// discipline dropped it ([`DropReason::Aqm`]).
    Dropped(DropReason),
}

/// A packet that finished serialization.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Finished {
    pub pkt: SimPacket,
    /// When it leaves the far end of the link; `None` if random loss took it.
    pub exit_at: Option<Timestamp>,
    /// The next packet whose serialization started, if any.
    pub next: Option<Started>,
}

/// A running link.
#[derive(Debug, Clone)]
pub struct Link {
    config: LinkConfig,
    rate: Bitrate,
    queue: Queue,
    /// Packets the discipline discarded other than a refused arrival, not yet taken
    /// by [`Link::poll_dropped`].
    dropped: DropSink,
    in_service: Option<SimPacket>,
    last_exit: Timestamp,
    jitter_rng: ChaCha8Rng,
    loss_rng: ChaCha8Rng,
    /// Mahimahi delivery: index of the next unused opportunity (unrolled), the time of
    /// the last one used and the bytes it has left.
    opp_next: u64,
    opp_time: Timestamp,
    opp_left: u64,
}

impl Link {
    pub fn new(id: LinkId, config: LinkConfig, seed: u64) -> Self {
        let rate = config.rate_at(Timestamp::ZERO);
        Self {
            rate,
            // The discipline's random stream is the link's third (0 jitter, 1 loss);
            // drop-tail draws none, so its runs keep their streams.
            queue: Queue::new(config.queue, &config.discipline, || {
                component_rng(seed, ComponentId::link(u64::from(id.0), 2))
            }),
            dropped: DropSink::new(),
            in_service: None,
            last_exit: Timestamp::ZERO,
            jitter_rng: component_rng(seed, ComponentId::link(u64::from(id.0), 0)),
            loss_rng: component_rng(seed, ComponentId::link(u64::from(id.0), 1)),
            opp_next: 0,
            opp_time: Timestamp::ZERO,
            opp_left: 0,
            config,
        }
    }

    pub fn config(&self) -> &LinkConfig {
        &self.config
    }
    pub fn rate(&self) -> Bitrate {
        self.rate
    }
    /// Change the rate; the packet being serialized finishes at the old rate.
    pub fn set_rate(&mut self, rate: Bitrate) {
        self.rate = rate;
    }
    pub fn queue(&self) -> &Queue {
        &self.queue
    }

    /// The next packet the queue discipline discarded during the last
    /// [`Link::offer`] or [`Link::finish`] other than a refused arrival (which
    /// [`Offer::Dropped`] reports): FQ-CoDel's drops from the fattest queue, drops at
    /// dequeue (CoDel, DualPI2). Take them all after each call. Drop-tail never has any.
    #[inline]
    pub fn poll_dropped(&mut self) -> Option<Dropped> {
        self.dropped.pop_front()
    }
    pub fn is_busy(&self) -> bool {
        self.in_service.is_some()
    }

    fn start(&mut self, now: Timestamp, pkt: SimPacket, enqueued: Timestamp) -> Started {
        self.in_service = Some(pkt);
        if self.config.delivery().is_some() {
            return self.start_delivery(now, pkt, enqueued);
        }
        if self.rate.as_bps() <= 0.0 {
            // A trace's outage: serialization starts when the rate next becomes positive
            // (never, when a trace that does not loop ends at 0).
            return match self.config.next_positive_rate(now) {
                Some((begin, rate)) => Started {
                    pkt,
                    mark: None,
                    class: Class::Classic,
                    waited: begin.saturating_since(enqueued),
                    done_at: begin + serialization_time(DataSize::bytes(u64::from(pkt.size)), rate),
                },
                None => Started {
                    pkt,
                    mark: None,
                    class: Class::Classic,
                    waited: now.saturating_since(enqueued),
                    done_at: Timestamp::MAX,
                },
            };
        }
        let ser = serialization_time(DataSize::bytes(u64::from(pkt.size)), self.rate);
        Started {
            pkt,
            mark: None,
            class: Class::Classic,
            waited: now.saturating_since(enqueued),
            done_at: now + ser,
        }
    }

    /// Mahimahi delivery of `pkt`, at the head of the queue at `now`: it takes what is
    /// left of the opportunity at `now` if it was queued before it, then whole
    /// opportunities after its arrival until its last byte is delivered (`done_at`).
    fn start_delivery(&mut self, now: Timestamp, pkt: SimPacket, enqueued: Timestamp) -> Started {
        let Some(d) = self.config.delivery() else {
            unreachable!("start_delivery without a delivery trace")
        };
        let mut need = u64::from(pkt.size).max(1);
        let mut first = None;
        if self.opp_left > 0 && self.opp_time == now && enqueued < now {
            let used = need.min(self.opp_left);
            need -= used;
            self.opp_left -= used;
            first = Some(now);
        }
        if need > 0 {
            // Opportunities strictly after the arrival, not before now, not used yet.
            let at_now = if now == Timestamp::ZERO {
                0
            } else {
                d.first_opportunity_after(Timestamp::from_micros(now.as_micros() - 1))
            };
            let mut k = self
                .opp_next
                .max(d.first_opportunity_after(enqueued))
                .max(at_now);
            loop {
                let Some(t) = d.opportunity(k) else {
                    // A trace that does not loop has ended: never delivered.
                    self.opp_next = k;
                    self.opp_left = 0;
                    return Started {
                        pkt,
                        mark: None,
                        class: Class::Classic,
                        waited: now.saturating_since(enqueued),
                        done_at: Timestamp::MAX,
                    };
                };
                k += 1;
                first.get_or_insert(t);
                if need <= MAHIMAHI_BYTES {
                    self.opp_left = MAHIMAHI_BYTES - need;
                    self.opp_time = t;
                    break;
                }
                need -= MAHIMAHI_BYTES;
            }
            self.opp_next = k;
        }
        let first = first.unwrap_or(now);
        Started {
            pkt,
            mark: None,
            class: Class::Classic,
            waited: first.saturating_since(enqueued),
            done_at: self.opp_time.max(now),
        }
    }

    /// A packet arrives at the link's entrance at `now`. Packets the discipline
    /// discards besides a refused arrival are then in [`Link::poll_dropped`].
    #[inline]
    pub fn offer(&mut self, now: Timestamp, pkt: SimPacket) -> Offer {
        if let Queue::DropTail(q) = &mut self.queue {
            if self.in_service.is_none() && q.is_empty() {
                return Offer::Started(self.start(now, pkt, now));
            }
            return if q.push(now, pkt, self.rate) {
                Offer::Queued
            } else {
                Offer::Dropped(DropReason::Overlimit)
            };
        }
        self.offer_to_discipline(now, pkt)
    }

    /// An arrival under an active discipline: every packet goes through its enqueue,
    /// and through its dequeue at once when the link is idle (as a qdisc in front of an
    /// idle device), so that marks and drops apply to it.
    fn offer_to_discipline(&mut self, now: Timestamp, pkt: SimPacket) -> Offer {
        let id = pkt.id;
        if let Err(reason) = self.queue.enqueue(now, pkt, self.rate, &mut self.dropped) {
            return Offer::Dropped(reason);
        }
        if let Some(reason) = self.take_dropped(id) {
            return Offer::Dropped(reason);
        }
        if self.in_service.is_some() {
            return Offer::Queued;
        }
        match self.dequeue(now) {
            Some(s) => Offer::Started(s),
            None => match self.take_dropped(id) {
                Some(reason) => Offer::Dropped(reason),
                // Unreachable: an idle link's queue held only this packet.
                None => Offer::Queued,
            },
        }
    }

    /// Remove packet `id` from the discarded ones, with the reason.
    fn take_dropped(&mut self, id: u64) -> Option<DropReason> {
        let k = self.dropped.iter().position(|d| d.pkt.id == id)?;
        self.dropped.remove(k).map(|d| d.reason)
    }

    /// Start serializing the discipline's next packet, if any.
    #[inline]
    fn dequeue(&mut self, now: Timestamp) -> Option<Started> {
        let d = self.queue.dequeue(now, &mut self.dropped)?;
        let mut s = self.start(now, d.pkt, d.enqueued);
        s.mark = d.mark;
        s.class = d.class;
        Some(s)
    }

    /// The packet in service finished serialization at `now` (call at the `done_at`
    /// returned by [`Link::offer`] or [`Finished::next`]). `None` if the link was idle.
    pub fn finish(&mut self, now: Timestamp) -> Option<Finished> {
        let pkt = self.in_service.take()?;
        let (delay, jitter, loss) = self.config.conditions_at(now);
        let lost = loss > 0.0 && self.loss_rng.random::<f64>() < loss;
        let jitter = match jitter {
            Some(std) => truncated_gaussian(&mut self.jitter_rng, std),
            None => TimeDelta::ZERO,
        };
        // RFC 8868: jitter never reorders: a packet leaves no earlier than the previous
        // one, and never before it finished serialization.
        let exit = (now + delay + jitter).max(now).max(self.last_exit);
        let exit_at = if lost {
            None
        } else {
            self.last_exit = exit;
            Some(exit)
        };
        let next = self.dequeue(now);
        Some(Finished { pkt, exit_at, next })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pkt(id: u64, size: u32) -> SimPacket {
        SimPacket::datagram(id, Timestamp::ZERO, 0, size, flowstate_core::Ecn::NotEct)
    }

    fn link(rate_mbps: f64, delay_ms: i64, queue: QueueLimit) -> Link {
        Link::new(
            LinkId::FORWARD,
            LinkConfig::constant(Bitrate::mbps(rate_mbps), TimeDelta::millis(delay_ms), queue),
            1,
        )
    }

    #[test]
    fn serialization_of_one_packet() {
        // 1500 B at 1 Mbit/s: 12 000 bits / 1e6 bit/s = 12 ms; at 100 Mbit/s: 120 us.
        assert_eq!(
            serialization_time(DataSize::bytes(1500), Bitrate::mbps(1.0)),
            TimeDelta::millis(12)
        );
        assert_eq!(
            serialization_time(DataSize::bytes(1500), Bitrate::mbps(100.0)),
            TimeDelta::from_micros(120)
        );
        let mut l = link(1.0, 50, QueueLimit::Packets(10));
        let t0 = Timestamp::from_millis(5);
        let Offer::Started(s) = l.offer(t0, pkt(0, 1500)) else {
            panic!("idle link must start at once")
        };
        assert_eq!(s.done_at, Timestamp::from_millis(17));
        assert_eq!(s.waited, TimeDelta::ZERO);
        let f = l.finish(s.done_at).expect("in service");
        // Leaves after serialization (12 ms) plus propagation (50 ms).
        assert_eq!(f.exit_at, Some(Timestamp::from_millis(67)));
        assert!(f.next.is_none());
    }

    #[test]
    fn back_to_back_burst_delay_is_propagation_plus_queue() {
        // n packets of 1000 B at t = 0 on 8 Mbit/s (1 ms each), 20 ms delay: packet k
        // waits k ms, finishes at (k+1) ms and exits at (k+1) + 20 ms.
        let mut l = link(8.0, 20, QueueLimit::Packets(100));
        let n = 10u64;
        let mut done = None;
        for k in 0..n {
            match l.offer(Timestamp::ZERO, pkt(k, 1000)) {
                Offer::Started(s) => done = Some(s.done_at),
                Offer::Queued => {}
                Offer::Dropped(_) => panic!("queue large enough"),
            }
        }
        let mut k = 0u64;
        while let Some(t) = done {
            let f = l.finish(t).expect("busy");
            assert_eq!(f.pkt.id, k);
            assert_eq!(f.exit_at, Some(Timestamp::from_millis(k + 1 + 20)));
            if let Some(next) = f.next {
                assert_eq!(next.waited, TimeDelta::millis(k as i64 + 1));
            }
            done = f.next.map(|s| s.done_at);
            k += 1;
        }
        assert_eq!(k, n);
    }

    #[test]
    fn tail_drop_index_for_byte_queue() {
        // Queue of 5000 B behind the packet in service: with 1000 B packets arriving
        // in a burst, packet 0 is served, 1..=5 wait, packet 6 is the first dropped.
        let mut l = link(1.0, 0, QueueLimit::Bytes(5000));
        let mut first_drop = None;
        for k in 0..10 {
            if l.offer(Timestamp::ZERO, pkt(k, 1000)) == Offer::Dropped(DropReason::Overlimit)
                && first_drop.is_none()
            {
                first_drop = Some(k);
            }
        }
        assert_eq!(first_drop, Some(6));
        assert_eq!(l.queue().len(), 5);
    }

    #[test]
    fn rate_change_applies_to_next_packet() {
        let mut l = link(1.0, 0, QueueLimit::Packets(10));
        let Offer::Started(s) = l.offer(Timestamp::ZERO, pkt(0, 1000)) else {
            panic!()
        };
        assert_eq!(l.offer(Timestamp::ZERO, pkt(1, 1000)), Offer::Queued);
        l.set_rate(Bitrate::mbps(2.0));
        assert_eq!(s.done_at, Timestamp::from_millis(8));
        let f = l.finish(s.done_at).expect("busy");
        // Second packet at 2 Mbit/s: 4 ms.
        assert_eq!(f.next.map(|n| n.done_at), Some(Timestamp::from_millis(12)));
    }

    #[test]
    fn schedule_rate_and_capacity_integral() {
        let cfg = LinkConfig {
            trace: None,
            schedule: vec![
                (Timestamp::ZERO, Bitrate::mbps(1.0)),
                (Timestamp::from_secs(10), Bitrate::mbps(3.0)),
            ],
            ..LinkConfig::constant(Bitrate::ZERO, TimeDelta::ZERO, QueueLimit::Packets(1))
        };
        assert_eq!(cfg.rate_at(Timestamp::from_secs(9)), Bitrate::mbps(1.0));
        assert_eq!(cfg.rate_at(Timestamp::from_secs(10)), Bitrate::mbps(3.0));
        // 5 s at 1 Mbit/s + 5 s at 3 Mbit/s = 20 Mbit.
        let bits = cfg.capacity_bits(Timestamp::from_secs(5), Timestamp::from_secs(15));
        assert!((bits - 20e6).abs() < 1e-3, "{bits}");
    }

    #[test]
    fn an_outage_of_a_looping_trace_delays_the_start_of_serialization() {
        // 1 Mbit/s for 1 s, then 0 for 1 s, looping with a 2-s period.
        let trace = crate::trace::LinkTrace::parse(
            "0,1000000\n1,0\n",
            crate::trace::TraceFormat::Csv,
            true,
        )
        .expect("valid");
        let mut cfg = LinkConfig::constant(Bitrate::ZERO, TimeDelta::ZERO, QueueLimit::Packets(10));
        cfg.schedule = trace.rates.clone();
        cfg.trace = Some(Arc::new(trace));
        assert_eq!(cfg.rate_at(Timestamp::from_millis(3500)), Bitrate::ZERO);
        assert_eq!(
            cfg.rate_at(Timestamp::from_millis(4200)),
            Bitrate::mbps(1.0)
        );
        assert_eq!(
            cfg.rate_changes(Timestamp::from_secs(4)),
            vec![
                (Timestamp::from_secs(1), Bitrate::ZERO),
                (Timestamp::from_secs(2), Bitrate::mbps(1.0)),
                (Timestamp::from_secs(3), Bitrate::ZERO),
            ]
        );
        // 1 s at 1 Mbit/s per 2 s: 3 Mbit in [0, 5.5 s).
        let bits = cfg.capacity_bits(Timestamp::ZERO, Timestamp::from_millis(5500));
        assert!((bits - 3e6).abs() < 1e-3, "{bits}");
        let mut l = Link::new(LinkId::FORWARD, cfg, 1);
        l.set_rate(Bitrate::ZERO);
        // Offered at 3.5 s (outage): serialization runs 4 s .. 4.008 s.
        let Offer::Started(s) = l.offer(Timestamp::from_millis(3500), pkt(0, 1000)) else {
            panic!("idle link")
        };
        assert_eq!(s.done_at, Timestamp::from_millis(4008));
        assert_eq!(s.waited, TimeDelta::millis(500));
    }

    #[test]
    fn jitter_never_reorders_and_is_truncated() {
        let mut cfg = LinkConfig::constant(
            Bitrate::mbps(100.0),
            TimeDelta::millis(50),
            QueueLimit::Packets(10_000),
        );
        cfg.jitter = Some(TimeDelta::millis(5));
        let mut l = Link::new(LinkId::FORWARD, cfg, 42);
        let mut last = Timestamp::ZERO;
        let mut t = Timestamp::ZERO;
        let mut sum = 0.0;
        let n = 5000;
        for k in 0..n {
            let Offer::Started(s) = l.offer(t, pkt(k, 100)) else {
                panic!("spaced packets never queue")
            };
            let f = l.finish(s.done_at).expect("busy");
            let exit = f.exit_at.expect("no loss configured");
            assert!(exit >= last, "reordered at packet {k}");
            let extra = (exit - s.done_at).as_millis_f64() - 50.0;
            // The no-reorder rule can only push later; truncation bounds earliness.
            assert!(extra >= -15.0 - 1e-9, "jitter below -3 sigma: {extra}");
            sum += extra;
            last = exit;
            t += TimeDelta::millis(20);
        }
        // Spaced 20 ms apart (4 sigma), reordering rarely binds: mean close to 0.
        let mean = sum / n as f64;
        assert!(mean.abs() < 0.5, "mean jitter {mean} ms");
    }

    #[test]
    fn random_loss_rate_is_close_to_configured() {
        let mut cfg = LinkConfig::constant(
            Bitrate::mbps(100.0),
            TimeDelta::ZERO,
            QueueLimit::Packets(1),
        );
        cfg.loss = 0.1;
        let mut l = Link::new(LinkId::FORWARD, cfg, 3);
        let n = 20_000;
        let mut lost = 0;
        for k in 0..n {
            let Offer::Started(s) = l.offer(Timestamp::from_millis(k), pkt(k, 100)) else {
                panic!()
            };
            if l.finish(s.done_at).expect("busy").exit_at.is_none() {
                lost += 1;
            }
        }
        let ratio = lost as f64 / n as f64;
        assert!((ratio - 0.1).abs() < 0.01, "loss ratio {ratio}");
    }
}
