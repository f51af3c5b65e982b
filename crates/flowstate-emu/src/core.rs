//! The sans-I/O shaper of one direction: the simulator's bottleneck link
//! ([`flowstate_sim::link::Link`]) plus its rate schedule, a FIFO of the payloads it
//! carries and the delay line after it, on a virtual clock (microseconds since start).
//!
//! The caller feeds arrivals ([`PathCore::offer`]) stamped with the time they reached
//! the emulator and asks for departures that are due ([`PathCore::pop_due`]); link
//! events (end of serialization, rate changes) are processed at their own virtual
//! times however late the caller comes, so the model's timing never depends on how
//! promptly the I/O layer wakes up. No clock, socket or thread here.
//!
//! ECN: an arrival carries the codepoint of its IP header ([`Arrival::ecn`]) into the
//! link as [`SimPacket::ecn`]; a queue discipline that marks sets it to CE, and the
//! departure says which codepoint the packet leaves with ([`Departure::ecn`]), for the
//! I/O layer to write into the real header. A packet that arrived Not-ECT leaves
//! Not-ECT whatever the link did (RFC 3168 section 5: only ECN-capable packets are
//! marked).

use crate::config::PathConfig;
use crate::stats::{PacketRecord, PathStats};
use flowstate_core::{Bitrate, DataSize, Ecn, Timestamp};
use flowstate_sim::flow::SimPacket;
use flowstate_sim::link::{Link, LinkId, Offer};
use flowstate_sim::queue::DropReason;
use std::collections::{BTreeMap, VecDeque};

/// Whether a datagram entered the link.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admission {
    /// Queued or in service; `id` indexes [`PathStats::records`].
    Accepted { id: u64 },
    /// Refused by the full queue or dropped by its discipline.
    Dropped { id: u64 },
}

/// What the I/O layer knows of a datagram as it reaches the path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Arrival {
    /// Index of the route it came in on.
    pub route: usize,
    /// What the link serializes.
    pub size: DataSize,
    /// The ECN codepoint of its IP header.
    pub ecn: Ecn,
    /// The flow a flow-queuing discipline files it under ([`SimPacket::flow`]): a hash
    /// of the 5-tuple at the IP level, the route in the UDP relay.
    pub flow: u32,
}

impl Arrival {
    /// A Not-ECT datagram of `size` on `route`, its flow the route.
    pub fn new(route: usize, size: DataSize) -> Self {
        Self {
            route,
            size,
            ecn: Ecn::NotEct,
            flow: u32::try_from(route).unwrap_or(u32::MAX),
        }
    }

    /// The same with the ECN codepoint `ecn`.
    pub fn with_ecn(self, ecn: Ecn) -> Self {
        Self { ecn, ..self }
    }

    /// The same filed under flow `flow`.
    pub fn with_flow(self, flow: u32) -> Self {
        Self { flow, ..self }
    }
}

/// A datagram due to leave the path.
#[derive(Debug, Clone, PartialEq)]
pub struct Departure<P> {
    pub id: u64,
    pub route: usize,
    pub payload: P,
    /// The model's exit time.
    pub at: Timestamp,
    /// The ECN codepoint it leaves with: the arrival's, or CE when the link marked an
    /// ECN-capable packet.
    pub ecn: Ecn,
}

#[derive(Debug, Clone)]
struct Carried<P> {
    id: u64,
    route: usize,
    payload: P,
    /// The codepoint it leaves with (set when serialization ends).
    ecn: Ecn,
}

/// One direction's shaper on a virtual clock.
#[derive(Debug)]
pub struct PathCore<P> {
    link: Link,
    /// Index of the next point of the link's (unrolled) capacity schedule.
    next_rate: usize,
    now: Timestamp,
    /// Payloads in the link (queued or in service) by packet id: a queue discipline
    /// may serve them out of arrival order (FQ-CoDel, DualPI2) or drop queued ones.
    in_link: BTreeMap<u64, Carried<P>>,
    done_at: Option<Timestamp>,
    /// Serialized, waiting out the propagation delay; exit times never decrease.
    delay_line: VecDeque<(Timestamp, Carried<P>)>,
    stats: PathStats,
}

impl<P> PathCore<P> {
    /// `link` picks the seeded streams: the emulator's forward path uses
    /// [`LinkId::FORWARD`], so it draws the same jitter and loss as the simulator's
    /// forward link with the same seed.
    pub fn new(config: &PathConfig, link: LinkId) -> Self {
        let sim = config.to_sim();
        Self {
            link: Link::new(link, sim, config.seed),
            next_rate: 1,
            now: Timestamp::ZERO,
            in_link: BTreeMap::new(),
            done_at: None,
            delay_line: VecDeque::new(),
            stats: PathStats::default(),
        }
    }

    /// The virtual time the model has reached.
    pub fn now(&self) -> Timestamp {
        self.now
    }

    /// The capacity in force.
    pub fn rate(&self) -> Bitrate {
        self.link.rate()
    }

    /// Process every link event up to `t` (rate changes first on ties).
    pub fn advance(&mut self, t: Timestamp) {
        loop {
            let point = self.link.config().schedule_point(self.next_rate);
            match (point.map(|p| p.0), self.done_at) {
                (Some(r), d) if r <= t && d.map_or(true, |d| r <= d) => {
                    if let Some((_, rate)) = point {
                        self.link.set_rate(rate);
                    }
                    self.next_rate += 1;
                }
                (_, Some(d)) if d <= t => self.finish(d),
                _ => break,
            }
        }
        self.now = self.now.max(t);
    }

    fn finish(&mut self, at: Timestamp) {
        let Some(f) = self.link.finish(at) else {
            self.done_at = None;
            return;
        };
        self.done_at = f.next.map(|n| n.done_at);
        if let Some(n) = f.next {
            if let Some(r) = self.stats.records.get_mut(n.pkt.id as usize) {
                r.queue_delay = n.waited;
            }
        }
        self.take_queue_drops();
        let Some(mut item) = self.in_link.remove(&f.pkt.id) else {
            return;
        };
        item.ecn = self.leaving_ecn(item.id, f.pkt.ecn);
        match f.exit_at {
            Some(exit) => {
                if let Some(r) = self.stats.records.get_mut(item.id as usize) {
                    r.model_departure_us = Some(exit.as_micros());
                }
                self.delay_line.push_back((exit, item));
            }
            None => self.stats.dropped_loss += 1,
        }
    }

    /// The codepoint packet `id` leaves with, given the one the link handed out: CE
    /// only if the link marked it and it arrived ECN-capable (a discipline cannot mark
    /// a Not-ECT packet here, whatever it does); the mark is counted.
    fn leaving_ecn(&mut self, id: u64, from_link: Ecn) -> Ecn {
        let Some(r) = self.stats.records.get_mut(id as usize) else {
            return from_link;
        };
        if from_link.is_ce() && r.ecn.is_ecn_capable() {
            if !r.ecn.is_ce() {
                r.ce_marked = true;
                self.stats.ce_marked += 1;
            }
            Ecn::Ce
        } else {
            r.ecn
        }
    }

    /// A Not-ECT datagram of `size` on `route` reached the path at `at` (see
    /// [`PathCore::offer_arrival`]).
    pub fn offer(&mut self, at: Timestamp, route: usize, size: DataSize, payload: P) -> Admission {
        self.offer_arrival(at, Arrival::new(route, size), payload)
    }

    /// A datagram reached the path at `at` (taken as the model's current time if
    /// earlier: arrivals are never back-dated behind processed events).
    pub fn offer_arrival(&mut self, at: Timestamp, arrival: Arrival, payload: P) -> Admission {
        self.advance(at);
        let now = self.now;
        let id = self.stats.records.len() as u64;
        let Arrival {
            route,
            size,
            ecn,
            flow,
        } = arrival;
        self.stats.packets_in += 1;
        if ecn.is_ecn_capable() {
            self.stats.ecn_capable += 1;
        }
        self.stats.records.push(PacketRecord {
            route,
            size,
            arrival_us: now.as_micros(),
            departure_us: None,
            queue_delay: flowstate_core::TimeDelta::ZERO,
            model_departure_us: None,
            ecn,
            ce_marked: false,
        });
        let size = u32::try_from(size.as_bytes()).unwrap_or(u32::MAX);
        let pkt = SimPacket::datagram(id, now, flow, size, ecn);
        let carried = Carried {
            id,
            route,
            payload,
            ecn,
        };
        let admission = match self.link.offer(now, pkt) {
            Offer::Started(s) => {
                self.done_at = Some(s.done_at);
                self.in_link.insert(id, carried);
                Admission::Accepted { id }
            }
            Offer::Queued => {
                self.in_link.insert(id, carried);
                Admission::Accepted { id }
            }
            Offer::Dropped(reason) => {
                self.count_drop(reason);
                Admission::Dropped { id }
            }
        };
        self.take_queue_drops();
        admission
    }

    fn count_drop(&mut self, reason: DropReason) {
        match reason {
            DropReason::Overlimit => self.stats.dropped_queue += 1,
            DropReason::Aqm => self.stats.dropped_aqm += 1,
        }
    }

    /// Queued packets the link's discipline discarded (none under drop-tail).
    fn take_queue_drops(&mut self) {
        while let Some(d) = self.link.poll_dropped() {
            self.in_link.remove(&d.pkt.id);
            self.count_drop(d.reason);
        }
    }

    /// The next departure due at or before `now`, if any.
    pub fn pop_due(&mut self, now: Timestamp) -> Option<Departure<P>> {
        self.advance(now);
        if self.delay_line.front()?.0 > now {
            return None;
        }
        let (at, c) = self.delay_line.pop_front()?;
        Some(Departure {
            id: c.id,
            route: c.route,
            payload: c.payload,
            at,
            ecn: c.ecn,
        })
    }

    /// When something next happens (a departure or an end of serialization); `None`
    /// when the path is empty.
    pub fn next_deadline(&self) -> Option<Timestamp> {
        let exit = self.delay_line.front().map(|d| d.0);
        match (exit, self.done_at) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// The I/O layer sent datagram `id` at `at`.
    pub fn mark_sent(&mut self, id: u64, at: Timestamp) {
        if let Some(r) = self.stats.records.get_mut(id as usize) {
            r.departure_us = Some(at.as_micros());
            self.stats.packets_out += 1;
        }
    }

    /// Counters the I/O layer keeps through the core, so one place holds a path's
    /// statistics.
    pub fn count_foreign(&mut self) {
        self.stats.foreign += 1;
    }
    pub fn count_malformed(&mut self) {
        self.stats.malformed += 1;
    }
    pub fn count_io_error(&mut self) {
        self.stats.io_errors += 1;
    }

    pub fn stats(&self) -> &PathStats {
        &self.stats
    }

    pub fn into_stats(self) -> PathStats {
        self.stats
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::QueueLimit;
    use flowstate_core::TimeDelta;
    use proptest::prelude::*;

    fn cfg(mbps: f64, delay_ms: i64, queue: QueueLimit) -> PathConfig {
        PathConfig::constant(Bitrate::mbps(mbps), TimeDelta::millis(delay_ms), queue)
    }

    /// Run arrivals `(time_us, size)` through a core, popping departures at every
    /// event time; returns the departures.
    fn drive(core: &mut PathCore<u64>, arrivals: &[(u64, u64)]) -> Vec<Departure<u64>> {
        let mut out = Vec::new();
        for (k, &(t, size)) in arrivals.iter().enumerate() {
            let t = Timestamp::from_micros(t);
            while let Some(d) = core.next_deadline().filter(|&d| d <= t) {
                while let Some(x) = core.pop_due(d) {
                    out.push(x);
                }
                if core.next_deadline() == Some(d) {
                    core.advance(d);
                }
            }
            core.offer(t, 0, DataSize::bytes(size), k as u64);
        }
        while let Some(d) = core.next_deadline() {
            while let Some(x) = core.pop_due(d) {
                out.push(x);
            }
            core.advance(d);
        }
        out
    }

    #[test]
    fn an_active_queue_drops_queued_packets_and_the_payloads_follow() {
        // 3 Mbit/s offered to 2 Mbit/s for 3 s under CoDel: it drops queued packets at
        // dequeue; every payload leaves once or is counted dropped, none is left.
        use flowstate_sim::queue::{CodelParams, Discipline};
        let mut c = cfg(2.0, 10, QueueLimit::Packets(1000));
        c.discipline = Discipline::Codel(CodelParams::default());
        let mut core = PathCore::new(&c, LinkId::FORWARD);
        let arrivals: Vec<(u64, u64)> = (0..750).map(|k| (k * 4000, 1500)).collect();
        let out = drive(&mut core, &arrivals);
        let st = core.stats();
        assert!(st.dropped_aqm > 0, "CoDel acted");
        assert_eq!(st.dropped_queue, 0);
        assert_eq!(out.len() as u64 + st.dropped_aqm, 750);
        let mut ids: Vec<u64> = out.iter().map(|d| d.payload).collect();
        ids.dedup();
        assert_eq!(ids.len(), out.len(), "each payload once, in order");
        assert!(core.in_link.is_empty());
    }

    #[test]
    fn one_packet_leaves_after_serialization_and_delay() {
        // 1250 B at 10 Mbit/s = 1 ms; 20 ms propagation: leaves at 5 + 1 + 20 ms.
        let mut core = PathCore::new(&cfg(10.0, 20, QueueLimit::Packets(10)), LinkId::FORWARD);
        let t0 = Timestamp::from_millis(5);
        assert_eq!(
            core.offer(t0, 3, DataSize::bytes(1250), "x"),
            Admission::Accepted { id: 0 }
        );
        assert_eq!(core.next_deadline(), Some(Timestamp::from_millis(6)));
        assert_eq!(core.pop_due(Timestamp::from_millis(25)), None);
        let d = core
            .pop_due(Timestamp::from_millis(26))
            .expect("due at 26 ms");
        assert_eq!(
            (d.id, d.route, d.payload, d.at),
            (0, 3, "x", Timestamp::from_millis(26))
        );
        assert_eq!(core.next_deadline(), None);
        core.mark_sent(0, Timestamp::from_micros(26_040));
        let r = core.stats().records[0];
        assert_eq!(r.arrival_us, 5_000);
        assert_eq!(r.model_departure_us, Some(26_000));
        assert_eq!(r.departure_us, Some(26_040));
        assert_eq!(r.queue_delay, TimeDelta::ZERO);
    }

    #[test]
    fn a_late_poll_does_not_change_the_model() {
        // A burst of 5 x 1250 B at t = 0 on 10 Mbit/s: packet k exits at (k+1) ms + 10 ms
        // and waited k ms, even if the caller first looks at t = 100 ms.
        let mut core = PathCore::new(&cfg(10.0, 10, QueueLimit::Packets(10)), LinkId::FORWARD);
        for k in 0..5u64 {
            core.offer(Timestamp::ZERO, 0, DataSize::bytes(1250), k);
        }
        let late = Timestamp::from_millis(100);
        for k in 0..5u64 {
            let d = core.pop_due(late).expect("all due");
            assert_eq!(d.payload, k);
            assert_eq!(d.at, Timestamp::from_millis(k + 11));
            assert_eq!(
                core.stats().records[k as usize].queue_delay,
                TimeDelta::millis(k as i64)
            );
        }
        assert!(core.pop_due(late).is_none());
    }

    #[test]
    fn tail_drop_counts_and_records() {
        // Packet limit 2: of a burst of 5, one in service + 2 waiting, 2 dropped.
        let mut core = PathCore::new(&cfg(1.0, 0, QueueLimit::Packets(2)), LinkId::FORWARD);
        let adm: Vec<_> = (0..5u64)
            .map(|k| core.offer(Timestamp::ZERO, 0, DataSize::bytes(100), k))
            .collect();
        assert_eq!(adm[3], Admission::Dropped { id: 3 });
        assert_eq!(adm[4], Admission::Dropped { id: 4 });
        assert_eq!(core.stats().dropped_queue, 2);
        let out = drive(&mut core, &[]);
        assert_eq!(
            out.iter().map(|d| d.payload).collect::<Vec<_>>(),
            vec![0, 1, 2]
        );
        assert_eq!(core.stats().records[3].model_departure_us, None);
    }

    #[test]
    fn time_limit_is_bytes_at_the_current_rate() {
        // 10 ms at 1 Mbit/s = 1250 B waiting: with 500 B datagrams, one in service and
        // two waiting (1000 B); the fourth of a burst is dropped.
        let mut core = PathCore::new(
            &cfg(1.0, 0, QueueLimit::Time(TimeDelta::millis(10))),
            LinkId::FORWARD,
        );
        let adm: Vec<_> = (0..4u64)
            .map(|k| core.offer(Timestamp::ZERO, 0, DataSize::bytes(500), k))
            .collect();
        assert!(matches!(adm[2], Admission::Accepted { .. }));
        assert_eq!(adm[3], Admission::Dropped { id: 3 });
    }

    #[test]
    fn rate_schedule_applies_at_its_time() {
        // 1 Mbit/s, then 2 Mbit/s from 10 ms: a 1250 B packet (10 ms at 1 Mbit/s) sent at
        // 0 is at the old rate; one arriving at 10 ms takes 5 ms.
        let mut c = cfg(1.0, 0, QueueLimit::Packets(10));
        c.capacity.push((TimeDelta::millis(10), Bitrate::mbps(2.0)));
        let mut core = PathCore::new(&c, LinkId::FORWARD);
        let out = drive(&mut core, &[(0, 1250), (10_000, 1250)]);
        let at: Vec<_> = out.iter().map(|d| d.at.as_micros()).collect();
        assert_eq!(at, vec![10_000, 15_000]);
        assert_eq!(core.rate(), Bitrate::mbps(2.0));
    }

    #[test]
    fn same_seed_same_jitter_and_loss() {
        let mut c = cfg(10.0, 30, QueueLimit::Packets(1000));
        c.jitter = Some(TimeDelta::millis(3));
        c.loss = 0.05;
        c.seed = 99;
        let arrivals: Vec<(u64, u64)> = (0..2000).map(|k| (k * 1500, 1200)).collect();
        let a = drive(&mut PathCore::new(&c, LinkId::FORWARD), &arrivals);
        let b = drive(&mut PathCore::new(&c, LinkId::FORWARD), &arrivals);
        assert_eq!(a, b);
        let lost = arrivals.len() - a.len();
        assert!((60..=140).contains(&lost), "{lost} lost of 2000 at 5 %");
        c.seed = 100;
        let other = drive(&mut PathCore::new(&c, LinkId::FORWARD), &arrivals);
        assert_ne!(a, other);
    }

    #[test]
    fn the_codepoint_crosses_the_link_and_is_recorded() {
        // Drop-tail never marks: every packet leaves with the codepoint it came with.
        let mut core = PathCore::new(&cfg(10.0, 1, QueueLimit::Packets(10)), LinkId::FORWARD);
        for (k, e) in Ecn::ALL.into_iter().enumerate() {
            let a = Arrival::new(0, DataSize::bytes(100)).with_ecn(e);
            core.offer_arrival(Timestamp::ZERO, a, k);
        }
        let out: Vec<Ecn> = std::iter::from_fn(|| core.pop_due(Timestamp::from_millis(50)))
            .map(|d| d.ecn)
            .collect();
        assert_eq!(out, Ecn::ALL.to_vec());
        let st = core.stats();
        assert_eq!(st.ecn_capable, 3);
        assert_eq!(st.ce_marked, 0);
        let recorded: Vec<Ecn> = st.records.iter().map(|r| r.ecn).collect();
        assert_eq!(recorded, Ecn::ALL.to_vec());
    }

    #[test]
    fn a_ce_from_the_link_marks_only_ecn_capable_packets() {
        // What a marking discipline hands out (pkt.ecn = CE) against what arrived.
        let mut core = PathCore::<u8>::new(&cfg(10.0, 1, QueueLimit::Packets(10)), LinkId::FORWARD);
        for e in Ecn::ALL {
            core.offer_arrival(
                Timestamp::ZERO,
                Arrival::new(0, DataSize::bytes(10)).with_ecn(e),
                0,
            );
        }
        let leaving: Vec<Ecn> = (0..4).map(|id| core.leaving_ecn(id, Ecn::Ce)).collect();
        assert_eq!(leaving, vec![Ecn::NotEct, Ecn::Ce, Ecn::Ce, Ecn::Ce]);
        let marked: Vec<bool> = core.stats().records.iter().map(|r| r.ce_marked).collect();
        assert_eq!(
            marked,
            vec![false, true, true, false],
            "CE on arrival is no new mark"
        );
        assert_eq!(core.stats().ce_marked, 2);
        // A link that hands the packet back unmarked: the arrival's codepoint.
        assert_eq!(core.leaving_ecn(1, Ecn::Ect1), Ecn::Ect1);
    }

    /// Under CoDel with ECN (RFC 8289 section 5.6) a standing queue gets ECT packets
    /// marked CE and Not-ECT packets dropped: each departure says CE only for an
    /// ECN-capable arrival, and every packet is accounted for once.
    #[test]
    fn codel_marks_ecn_capable_packets_and_drops_the_others() {
        use flowstate_sim::queue::{CodelParams, Discipline};
        let mut c = cfg(1.0, 5, QueueLimit::Packets(1000));
        c.discipline = Discipline::Codel(CodelParams::default());
        let mut core = PathCore::new(&c, LinkId::FORWARD);
        // 2 Mbit/s of 1250 B packets (10 ms each at 1 Mbit/s) for 3 s, alternating
        // ECT(0) and Not-ECT: the queue grows far above CoDel's 5 ms target.
        let mut out = Vec::new();
        for k in 0..600u64 {
            let t = Timestamp::from_micros(k * 5_000);
            while let Some(d) = core.pop_due(t) {
                core.mark_sent(d.id, d.at);
                out.push(d);
            }
            let ecn = if k % 2 == 0 { Ecn::Ect0 } else { Ecn::NotEct };
            let a = Arrival::new(0, DataSize::bytes(1250)).with_ecn(ecn);
            core.offer_arrival(t, a, k);
        }
        while let Some(t) = core.next_deadline() {
            while let Some(d) = core.pop_due(t) {
                core.mark_sent(d.id, d.at);
                out.push(d);
            }
            core.advance(t);
        }
        let st = core.stats();
        assert!(st.ce_marked > 10, "{} marks", st.ce_marked);
        assert!(st.dropped_aqm > 10, "{} AQM drops", st.dropped_aqm);
        for d in &out {
            let r = st.records[d.id as usize];
            assert_eq!(d.ecn.is_ce(), r.ce_marked, "packet {}", d.id);
            assert!(!d.ecn.is_ce() || r.ecn == Ecn::Ect0, "only ECT is marked");
        }
        let marked = out.iter().filter(|d| d.ecn.is_ce()).count() as u64;
        assert_eq!(marked, st.ce_marked);
        assert_eq!(st.unaccounted(), 0);
        assert_eq!(
            out.len() as u64 + st.dropped_queue + st.dropped_aqm + st.dropped_loss,
            st.packets_in
        );
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Conservation, FIFO, no reordering, exit = arrival + queue wait + serialization
        /// + delay (no jitter), queue bound, and never more than the capacity.
        #[test]
        fn invariants(
            gaps in proptest::collection::vec((0u64..3000, 1u64..1500), 1..300),
            mbps in 0.5f64..20.0,
            delay_ms in 0i64..100,
            limit in 1u32..20,
        ) {
            let mut t = 0;
            let arrivals: Vec<(u64, u64)> = gaps.iter().map(|&(g, s)| { t += g; (t, s) }).collect();
            let c = cfg(mbps, delay_ms, QueueLimit::Packets(limit));
            let mut core = PathCore::new(&c, LinkId::FORWARD);
            let out = drive(&mut core, &arrivals);
            let st = core.stats();
            prop_assert_eq!(st.packets_in, arrivals.len() as u64);
            prop_assert_eq!(out.len() as u64 + st.dropped_queue + st.dropped_loss, st.packets_in);
            let rate = Bitrate::mbps(mbps);
            let mut last_exit = 0;
            let mut last_id = None;
            for d in &out {
                let r = st.records[d.id as usize];
                prop_assert!(last_id.map_or(true, |l| d.id > l), "FIFO");
                prop_assert!(d.at.as_micros() >= last_exit, "no reordering");
                let ser = (r.size / rate).as_micros();
                let expect = r.arrival_us as i64 + r.queue_delay.as_micros() + ser + delay_ms * 1000;
                prop_assert_eq!(d.at.as_micros() as i64, expect);
                // Waiting time is bounded by the queue ahead: at most `limit` packets of
                // at most 1500 B plus the one in service.
                let bound = (DataSize::bytes(1500 * (u64::from(limit) + 1)) / rate).as_micros();
                prop_assert!(r.queue_delay.as_micros() <= bound + 1);
                last_exit = d.at.as_micros();
                last_id = Some(d.id);
            }
            // Delivered bits over the busy span never exceed the capacity (+ rounding).
            if let (Some(first), Some(last)) = (out.first(), out.last()) {
                let span_us = last.at.as_micros() - (first.at.as_micros()
                    - (st.records[first.id as usize].size / rate).as_micros() as u64);
                let bits: u64 = out.iter().map(|d| st.records[d.id as usize].size.as_bytes() * 8).sum();
                prop_assert!(bits as f64 <= mbps * span_us as f64 + 8.0 * out.len() as f64);
            }
        }
    }
}
