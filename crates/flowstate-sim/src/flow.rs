//! The type-erased flow interface the engine drives, and the generic adapter that turns
//! any pair of [`Endpoint`]s into a flow.
//!
//! The links carry only [`SimPacket`]s (flow index, direction, size, slab slot): the
//! typed message an endpoint sent waits in its flow's [`Slab`] until the packet is
//! delivered (or dropped), so queues and links are not generic and the hot path moves
//! 40-byte values.

use std::cell::Cell;

use crate::app_stats::{AppControl, AppStats};
use flowstate_core::coupling::{Allowance, FlowReport};
use flowstate_core::endpoint::Endpoint;
use flowstate_core::playout::{EncoderLog, FramePlayout};
use flowstate_core::{DataSize, Ecn, TimeDelta, Timestamp};

/// Which way a packet travels within its flow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dir {
    /// Sender to receiver (data, media).
    Data = 0,
    /// Receiver to sender (acks, feedback).
    Feedback = 1,
}

/// What a link carries: a reference to a flow's message, never the message itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SimPacket {
    /// Unique id within the run (monotonic in send order).
    pub id: u64,
    /// When the endpoint sent it.
    pub sent_at: Timestamp,
    /// Index of the flow (its position in the scenario's `[[flows]]`).
    pub flow: u32,
    /// Wire size in bytes, headers included.
    pub size: u32,
    /// Slot of the message in the flow's slab for this direction.
    pub slot: u32,
    /// Sequence number within the flow and direction, from 0 in send order (the
    /// engine's; what an RTP or transport sequence number tells a receiver). Read by
    /// shared bottleneck detection for losses (RFC 8382 3.2.5); not part of the trace.
    pub seq: u32,
    pub dir: Dir,
    /// The ECN codepoint of its IP header: what the sender set, or CE once a queue
    /// marked it (flowstate_core::ecn).
    pub ecn: Ecn,
}

impl SimPacket {
    /// A data packet that refers to no flow message (slot and sequence number 0): what
    /// the bottleneck emulator offers the link for a real datagram, and what the link's
    /// benchmarks and tests offer it.
    pub fn datagram(id: u64, sent_at: Timestamp, flow: u32, size: u32, ecn: Ecn) -> Self {
        SimPacket {
            id,
            sent_at,
            flow,
            size,
            slot: 0,
            seq: 0,
            dir: Dir::Data,
            ecn,
        }
    }
}

/// A flow's lifecycle state as the scenario schedules it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FlowState {
    /// Not started yet: the engine does not poll the flow.
    Idle,
    /// Running.
    Active,
    /// Paused (e.g. RFC 8867 5.8): the sender neither sends nor runs timers; the
    /// receiver keeps answering what is still in flight.
    Paused,
    /// Stopped for good: packets still in flight are delivered to the metrics but
    /// discarded by the flow.
    Stopped,
}

/// A packet a flow wants sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Outgoing {
    pub dir: Dir,
    pub size: DataSize,
    pub slot: u32,
    /// The ECN codepoint the sending side sets (Not-ECT for feedback).
    pub ecn: Ecn,
}

/// A flow's ECN counts (summary.json `ce_marks`, `ecn_responses`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct EcnCounts {
    /// Data packets that reached the receiver CE-marked.
    pub ce_marks: u64,
    /// Rate or window reductions the sender's controller made for marks (`None`: no
    /// discrete response to count; docs/ALGORITHMS.md, "ECN responses").
    pub responses: Option<u64>,
}

/// The engine's view of a flow: a sender and a receiver joined by the network.
pub trait SimFlow {
    /// A packet of this flow arrived at its destination side (`pkt.dir` says which).
    fn deliver(&mut self, now: Timestamp, pkt: &SimPacket);
    /// The network dropped `pkt`: release its message.
    fn discard(&mut self, pkt: &SimPacket);
    /// The next packet either side wants sent at `now`; call until `None`.
    fn poll_transmit(&mut self, now: Timestamp) -> Option<Outgoing>;
    /// When the flow next needs [`SimFlow::handle_timeout`].
    fn poll_timeout(&self) -> Option<Timestamp>;
    /// Time reached `now`: run due timers of both sides.
    fn handle_timeout(&mut self, now: Timestamp);
    /// The scenario changed the flow's state.
    fn set_state(&mut self, now: Timestamp, state: FlowState);
    /// A cache hint: the next event hands this flow a packet travelling in `dir` whose
    /// message is in slot `slot` (`None`: the next event is this flow's timer), so start
    /// loading what that event reads first. Changes nothing.
    fn prefetch(&self, _dir: Dir, _slot: Option<u32>) {}
    /// An earlier cache hint, a few events ahead: a packet travelling in `dir` will be
    /// handed to this flow, so start loading the flow's own fields that
    /// [`SimFlow::prefetch`] then reads (addresses only: no load of the flow's state).
    fn prefetch_early(&self, _dir: Dir) {}
    /// A report for the coupling manager, if the sender's controller has a new value.
    fn poll_cc_report(&mut self) -> Option<FlowReport> {
        None
    }
    /// Apply what the coupling manager allowed.
    fn apply_allowance(&mut self, _now: Timestamp, _allowance: Allowance) {}
    /// A new RTT sample measured by the sender, for the metrics.
    fn poll_rtt_sample(&mut self) -> Option<TimeDelta> {
        None
    }
    /// Application payload bytes delivered so far (for goodput), if the flow knows.
    fn goodput_bytes(&self) -> Option<u64> {
        None
    }
    /// The sender's current controller state as a report, used to register the flow
    /// with a coupling manager when it starts (`None`: the flow is not coupled).
    fn cc_snapshot(&self) -> Option<FlowReport> {
        None
    }
    /// GCC's n_dd (delay-based decreases so far), for flows that run GCC.
    fn delay_based_decreases(&self) -> Option<u64> {
        None
    }
    /// The flow's ECN counts over the whole run, `None` unless it sent ECN-capable
    /// packets.
    fn ecn_counts(&self) -> Option<EcnCounts> {
        None
    }
    /// What a web application's getStats would show of this flow now (Web-API
    /// coupling); `None`: the flow has no such statistics.
    fn app_stats(&self) -> Option<AppStats> {
        None
    }
    /// Apply what the web application's rule decided (max bitrate, pacing rate).
    fn apply_app_control(&mut self, _now: Timestamp, _control: AppControl) {}
    /// Poll both endpoints at every event of the flow, even those that declare
    /// [`SenderHooks::INPUT_DRIVEN`]: the reference behaviour, against which a test
    /// checks that declaring it changes no trace.
    fn poll_at_every_event(&mut self) {}
    /// The run ends at `now`: the receiver's frame playout renders what is due.
    fn finish_playout(&mut self, _now: Timestamp) {}
    /// A video flow's encoder log and receiver playout (`None`: not a video flow).
    fn video(&self) -> Option<(&EncoderLog, &FramePlayout)> {
        None
    }
}

/// A growable store of in-flight messages with a free list, so that steady-state
/// operation allocates nothing.
#[derive(Debug, Clone)]
pub struct Slab<M> {
    slots: Vec<Option<M>>,
    free: Vec<u32>,
}

impl<M> Default for Slab<M> {
    fn default() -> Self {
        Self {
            slots: Vec::new(),
            free: Vec::new(),
        }
    }
}

impl<M> Slab<M> {
    pub fn insert(&mut self, m: M) -> u32 {
        if let Some(i) = self.free.pop() {
            if let Some(slot) = self.slots.get_mut(i as usize) {
                *slot = Some(m);
                return i;
            }
        }
        self.slots.push(Some(m));
        (self.slots.len() - 1) as u32
    }
    /// A cache hint: `slot` is about to be taken.
    #[inline]
    pub fn prefetch(&self, slot: u32) {
        prefetch_index::prefetch_index(&self.slots, slot as usize);
    }
    /// Take the message out of `slot` (`None` if it is empty or out of range).
    pub fn remove(&mut self, slot: u32) -> Option<M> {
        let m = self.slots.get_mut(slot as usize)?.take();
        if m.is_some() {
            self.free.push(slot);
        }
        m
    }
    /// Number of occupied slots.
    pub fn len(&self) -> usize {
        self.slots.len() - self.free.len()
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// What the simulator needs from a sender beyond [`Endpoint`]. Every method has a
/// default, so `impl SenderHooks for MySender {}` is enough to run; forward the
/// coupling methods to plug the sender into a coupling manager.
pub trait SenderHooks: Endpoint {
    /// The endpoint transmits only in answer to its inputs and at its own deadline:
    /// after it has answered `None` from `poll_transmit`, it answers `None` again at any
    /// time before its `poll_timeout` unless it is handed a message, a timeout, a state
    /// change or an allowance in between. The flow then polls it only after one of
    /// those or once its deadline has come, and keeps its deadline between them,
    /// instead of polling it at every event of the flow (which, with thousands of
    /// flows, reads state that has left the caches: see `KeptDeadline`).
    ///
    /// Default `false`: polled at every event of its flow. For some endpoints that is
    /// part of their behaviour (the media sender's pacer sends what its budget allows
    /// whenever it is polled; the SCTP sender's max-burst allowance refills at every
    /// new instant it is polled at). Declared by the TCP and LEDBAT senders and
    /// receivers, whose other side's packets are most of a flow's events. The paced
    /// rate senders (RAP, TFRC, NADA, SCReAM, CBR) and the other receivers also satisfy
    /// the statement (declared, they leave every catalogue trace and
    /// `tests/input_driven.rs` unchanged), but their own timer wakes them for most of
    /// their packets, so the bookkeeping costs more instructions than the polls it
    /// saves (RAP +2.0 %, CBR +2.7 %; docs/investigations/2026-11-scaling-passes.md). Declare it only for
    /// an endpoint for which the statement holds; `tests/input_driven.rs` checks each
    /// declared one against [`SimFlow::poll_at_every_event`].
    const INPUT_DRIVEN: bool = false;
    /// The flow starts (its scheduled `start`).
    fn on_start(&mut self, _now: Timestamp) {}
    /// The application pauses (RFC 8867 5.8). Default: nothing; the adapter stops
    /// polling the sender's transmits and timers while paused.
    fn on_pause(&mut self, _now: Timestamp) {}
    /// The application resumes.
    fn on_resume(&mut self, _now: Timestamp) {}
    /// Forward to the sender's `poll_cc_report`.
    fn poll_cc_report(&mut self) -> Option<FlowReport> {
        None
    }
    /// Forward to the sender's `apply_allowance`.
    fn apply_allowance(&mut self, _now: Timestamp, _allowance: Allowance) {}
    /// A new RTT sample for the metrics.
    fn poll_rtt_sample(&mut self) -> Option<TimeDelta> {
        None
    }
    /// The controller's current value as a report (for registering with a coupling
    /// manager when the flow starts).
    fn cc_snapshot(&self) -> Option<FlowReport> {
        None
    }
    /// GCC's n_dd, if the sender runs the delay-based estimator.
    fn delay_based_decreases(&self) -> Option<u64> {
        None
    }
    /// See [`SimFlow::app_stats`].
    fn app_stats(&self) -> Option<AppStats> {
        None
    }
    /// See [`SimFlow::apply_app_control`].
    fn apply_app_control(&mut self, _now: Timestamp, _control: AppControl) {}
    /// The ECN codepoint of the sender's data packets (Not-ECT by default).
    fn ecn_codepoint(&self) -> Ecn {
        Ecn::NotEct
    }
    /// The controller's reductions for ECN-CE marks so far (`Controller::ecn_responses`).
    fn ecn_responses(&self) -> Option<u64> {
        None
    }
    /// A video sender's encoded and dropped frames.
    fn encoder_log(&self) -> Option<&EncoderLog> {
        None
    }
}

/// What the simulator needs from a receiver beyond [`Endpoint`].
pub trait ReceiverHooks: Endpoint {
    /// See [`SenderHooks::INPUT_DRIVEN`].
    const INPUT_DRIVEN: bool = false;
    /// Application payload bytes delivered so far, for goodput.
    fn goodput_bytes(&self) -> Option<u64> {
        None
    }
    /// GCC's n_dd, if the receiver runs the delay-based estimator (paper presets).
    fn delay_based_decreases(&self) -> Option<u64> {
        None
    }
    /// A video receiver's frame playout.
    fn playout(&self) -> Option<&FramePlayout> {
        None
    }
    /// Time reached `now`: the frame playout renders what is due.
    fn advance_playout(&mut self, _now: Timestamp) {}
}

/// Any sender/receiver pair of endpoints whose messages match, as a [`SimFlow`].
#[derive(Debug)]
pub struct EndpointPairFlow<S, R>
where
    S: SenderHooks,
    R: ReceiverHooks<Incoming = S::Outgoing, Outgoing = S::Incoming>,
{
    sender: S,
    receiver: R,
    data: Slab<S::Outgoing>,
    feedback: Slab<R::Outgoing>,
    state: FlowState,
    /// Each side's `poll_timeout` as last asked, for a side that declares
    /// [`SenderHooks::INPUT_DRIVEN`] (see [`KeptDeadline`]).
    sender_deadline: KeptDeadline,
    receiver_deadline: KeptDeadline,
    /// An input-driven side may have a transmit, the sender a new RTT sample or a
    /// coupling report: set by every call that can change the side, cleared when it
    /// answers `None`.
    sender_pending: bool,
    receiver_pending: bool,
    rtt_sample_pending: bool,
    cc_report_pending: bool,
    /// [`SimFlow::poll_at_every_event`] was called: no side is skipped and no
    /// deadline is kept (the reference behaviour).
    every_event: bool,
    /// A data packet went out ECN-capable.
    ect_sent: bool,
    /// Data packets delivered CE-marked.
    ce_marks: u64,
}

/// An input-driven side's `poll_timeout`, kept from one call that can change the side
/// to the next, and what decides whether the side is polled at all.
///
/// A flow's engine event used to poll both endpoints, the sender's RTT sample and its
/// coupling report, and ask both for their deadline. At 1,000 flows that state is out
/// of the caches: a data packet delivered to a TCP receiver loaded the sender's source,
/// window and RTT lines to learn that it had nothing to send
/// (docs/investigations/2026-11-scaling-passes.md). An input-driven side answers `None` from `poll_transmit` until its next input
/// or its deadline, and `poll_timeout` takes `&self` and no time, so its answer changes
/// only through the `&mut` calls the flow makes ([`EndpointPairFlow`]'s `touch_sender`
/// and `touch_receiver`), which mark it [`KeptDeadline::STALE`] and the side pending.
/// A side is polled while it is pending (from a call that changed it until it answers
/// `None`) and once its kept deadline has come (`STALE`, the epoch, always has).
#[derive(Debug)]
struct KeptDeadline(Cell<Timestamp>);

impl KeptDeadline {
    /// Changed since it was last asked: ask again, and poll the side.
    const STALE: Timestamp = Timestamp::ZERO;
    /// Asked, and the side has no deadline.
    const NONE: Timestamp = Timestamp::MAX;

    fn stale() -> Self {
        KeptDeadline(Cell::new(Self::STALE))
    }
    #[inline]
    fn mark_stale(&self) {
        self.0.set(Self::STALE);
    }
    /// The side must be polled at `now`.
    #[inline]
    fn due(&self, now: Timestamp) -> bool {
        self.0.get() <= now
    }
    /// The kept deadline, or `ask`'s answer, kept. A deadline at the epoch or at
    /// `Timestamp::MAX` is not kept (they are the markers): the side is then asked,
    /// and polled, every time, as without keeping.
    #[inline]
    fn get(&self, ask: impl FnOnce() -> Option<Timestamp>) -> Option<Timestamp> {
        let kept = self.0.get();
        if kept == Self::NONE {
            return None;
        }
        if kept != Self::STALE {
            return Some(kept);
        }
        let t = ask();
        match t {
            None => self.0.set(Self::NONE),
            Some(Self::NONE) => {}
            Some(t) => self.0.set(t),
        }
        t
    }
}

impl<S, R> EndpointPairFlow<S, R>
where
    S: SenderHooks,
    R: ReceiverHooks<Incoming = S::Outgoing, Outgoing = S::Incoming>,
{
    pub fn new(sender: S, receiver: R) -> Self {
        Self {
            sender,
            receiver,
            data: Slab::default(),
            feedback: Slab::default(),
            state: FlowState::Idle,
            sender_deadline: KeptDeadline::stale(),
            receiver_deadline: KeptDeadline::stale(),
            sender_pending: true,
            receiver_pending: true,
            rtt_sample_pending: true,
            cc_report_pending: true,
            every_event: false,
            ect_sent: false,
            ce_marks: 0,
        }
    }
    pub fn sender(&self) -> &S {
        &self.sender
    }
    pub fn sender_mut(&mut self) -> &mut S {
        self.touch_sender()
    }
    /// The sender is polled for a transmit at `now`.
    #[inline]
    fn poll_sender(&self, now: Timestamp) -> bool {
        !S::INPUT_DRIVEN || self.every_event || self.sender_pending || self.sender_deadline.due(now)
    }
    /// The receiver is polled for a transmit at `now`.
    #[inline]
    fn poll_receiver(&self, now: Timestamp) -> bool {
        !R::INPUT_DRIVEN
            || self.every_event
            || self.receiver_pending
            || self.receiver_deadline.due(now)
    }
    /// The sender, for a call that may change it.
    #[inline]
    fn touch_sender(&mut self) -> &mut S {
        if S::INPUT_DRIVEN {
            self.sender_deadline.mark_stale();
            self.sender_pending = true;
            self.rtt_sample_pending = true;
            self.cc_report_pending = true;
        }
        &mut self.sender
    }
    /// The sender, to take an RTT sample or a report (which may change it too).
    #[inline]
    fn sender_for_report(&mut self) -> &mut S {
        if S::INPUT_DRIVEN {
            self.sender_deadline.mark_stale();
        }
        &mut self.sender
    }
    /// The receiver, for a call that may change it.
    #[inline]
    fn touch_receiver(&mut self) -> &mut R {
        if R::INPUT_DRIVEN {
            self.receiver_deadline.mark_stale();
            self.receiver_pending = true;
        }
        &mut self.receiver
    }
    /// The two endpoints (the real-network testbed drives them on separate hosts).
    pub fn into_parts(self) -> (S, R) {
        (self.sender, self.receiver)
    }
    pub fn receiver(&self) -> &R {
        &self.receiver
    }
    pub fn state(&self) -> FlowState {
        self.state
    }
    /// Messages currently in the network (both directions).
    pub fn in_flight(&self) -> usize {
        self.data.len() + self.feedback.len()
    }
    fn sender_runs(&self) -> bool {
        self.state == FlowState::Active
    }
    /// Both sides handle input, and the receiver runs, while active or paused.
    fn alive(&self) -> bool {
        matches!(self.state, FlowState::Active | FlowState::Paused)
    }
}

impl<S, R> SimFlow for EndpointPairFlow<S, R>
where
    S: SenderHooks,
    R: ReceiverHooks<Incoming = S::Outgoing, Outgoing = S::Incoming>,
{
    fn deliver(&mut self, now: Timestamp, pkt: &SimPacket) {
        match pkt.dir {
            Dir::Data => {
                if let Some(m) = self.data.remove(pkt.slot) {
                    if self.alive() {
                        self.ce_marks += u64::from(pkt.ecn.is_ce());
                        self.touch_receiver().handle_input_ecn(now, m, pkt.ecn);
                    }
                }
            }
            Dir::Feedback => {
                if let Some(m) = self.feedback.remove(pkt.slot) {
                    if self.alive() {
                        self.touch_sender().handle_input_ecn(now, m, pkt.ecn);
                    }
                }
            }
        }
    }

    #[inline]
    fn prefetch(&self, dir: Dir, slot: Option<u32>) {
        use prefetch_index::prefetch_index;
        use std::slice::from_ref;
        match (dir, slot) {
            (Dir::Data, Some(slot)) => {
                self.data.prefetch(slot);
                prefetch_index(from_ref(&self.receiver), 0);
            }
            (Dir::Feedback, Some(slot)) => {
                self.feedback.prefetch(slot);
                prefetch_index(from_ref(&self.sender), 0);
            }
            (_, None) => prefetch_index(from_ref(&self.sender), 0),
        }
    }

    fn prefetch_early(&self, dir: Dir) {
        use prefetch_index::prefetch_index;
        use std::slice::from_ref;
        match dir {
            Dir::Data => {
                prefetch_index(from_ref(&self.data), 0);
                prefetch_index(from_ref(&self.receiver), 0);
            }
            Dir::Feedback => {
                prefetch_index(from_ref(&self.feedback), 0);
                prefetch_index(from_ref(&self.sender), 0);
            }
        }
    }

    fn discard(&mut self, pkt: &SimPacket) {
        match pkt.dir {
            Dir::Data => drop(self.data.remove(pkt.slot)),
            Dir::Feedback => drop(self.feedback.remove(pkt.slot)),
        }
    }

    fn poll_transmit(&mut self, now: Timestamp) -> Option<Outgoing> {
        if self.alive() && self.poll_receiver(now) {
            if let Some(t) = self.touch_receiver().poll_transmit(now) {
                let slot = self.feedback.insert(t.message);
                return Some(Outgoing {
                    dir: Dir::Feedback,
                    size: t.size,
                    slot,
                    ecn: Ecn::NotEct,
                });
            }
            if R::INPUT_DRIVEN {
                self.receiver_pending = false;
            }
        }
        if self.sender_runs() && self.poll_sender(now) {
            if let Some(t) = self.touch_sender().poll_transmit(now) {
                let slot = self.data.insert(t.message);
                let ecn = self.sender.ecn_codepoint();
                self.ect_sent |= ecn.is_ecn_capable();
                return Some(Outgoing {
                    dir: Dir::Data,
                    size: t.size,
                    slot,
                    ecn,
                });
            }
            if S::INPUT_DRIVEN {
                self.sender_pending = false;
            }
        }
        None
    }

    fn poll_timeout(&self) -> Option<Timestamp> {
        let s = if !self.sender_runs() {
            None
        } else if S::INPUT_DRIVEN && !self.every_event {
            self.sender_deadline.get(|| self.sender.poll_timeout())
        } else {
            self.sender.poll_timeout()
        };
        let r = if !self.alive() {
            None
        } else if R::INPUT_DRIVEN && !self.every_event {
            self.receiver_deadline.get(|| self.receiver.poll_timeout())
        } else {
            self.receiver.poll_timeout()
        };
        match (s, r) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    fn handle_timeout(&mut self, now: Timestamp) {
        if self.alive() && self.receiver.poll_timeout().is_some_and(|t| t <= now) {
            self.touch_receiver().handle_timeout(now);
        }
        if self.sender_runs() && self.sender.poll_timeout().is_some_and(|t| t <= now) {
            self.touch_sender().handle_timeout(now);
        }
    }

    fn set_state(&mut self, now: Timestamp, state: FlowState) {
        match (self.state, state) {
            (FlowState::Idle, FlowState::Active) => self.sender.on_start(now),
            (FlowState::Active, FlowState::Paused) => self.sender.on_pause(now),
            (FlowState::Paused, FlowState::Active) => self.sender.on_resume(now),
            _ => {}
        }
        self.state = state;
        // Either side may now answer differently (and the sender may have changed).
        self.touch_sender();
        self.touch_receiver();
    }

    fn poll_at_every_event(&mut self) {
        self.every_event = true;
    }

    fn poll_cc_report(&mut self) -> Option<FlowReport> {
        if S::INPUT_DRIVEN && !self.every_event && !self.cc_report_pending {
            return None;
        }
        let report = self.sender_for_report().poll_cc_report();
        if S::INPUT_DRIVEN {
            self.cc_report_pending = report.is_some();
        }
        report
    }

    fn apply_allowance(&mut self, now: Timestamp, allowance: Allowance) {
        self.touch_sender().apply_allowance(now, allowance);
    }

    fn poll_rtt_sample(&mut self) -> Option<TimeDelta> {
        if S::INPUT_DRIVEN && !self.every_event && !self.rtt_sample_pending {
            return None;
        }
        let sample = self.sender_for_report().poll_rtt_sample();
        if S::INPUT_DRIVEN {
            self.rtt_sample_pending = sample.is_some();
        }
        sample
    }

    fn goodput_bytes(&self) -> Option<u64> {
        self.receiver.goodput_bytes()
    }

    fn cc_snapshot(&self) -> Option<FlowReport> {
        self.sender.cc_snapshot()
    }

    fn delay_based_decreases(&self) -> Option<u64> {
        self.receiver
            .delay_based_decreases()
            .or_else(|| self.sender.delay_based_decreases())
    }

    fn ecn_counts(&self) -> Option<EcnCounts> {
        self.ect_sent.then(|| EcnCounts {
            ce_marks: self.ce_marks,
            responses: self.sender.ecn_responses(),
        })
    }

    fn app_stats(&self) -> Option<AppStats> {
        self.sender.app_stats()
    }

    fn apply_app_control(&mut self, now: Timestamp, control: AppControl) {
        self.touch_sender().apply_app_control(now, control);
    }

    fn finish_playout(&mut self, now: Timestamp) {
        self.receiver.advance_playout(now);
    }

    fn video(&self) -> Option<(&EncoderLog, &FramePlayout)> {
        Some((self.sender.encoder_log()?, self.receiver.playout()?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slab_reuses_freed_slots() {
        let mut s = Slab::default();
        let a = s.insert(10);
        let b = s.insert(20);
        assert_ne!(a, b);
        assert_eq!(s.remove(a), Some(10));
        assert_eq!(s.remove(a), None, "double remove yields nothing");
        let c = s.insert(30);
        assert_eq!(c, a, "freed slot is reused");
        assert_eq!(s.len(), 2);
        assert_eq!(s.remove(99), None);
    }

    /// A side that counts how often it is polled, sends `pending` messages and then
    /// nothing until its next input.
    #[derive(Default)]
    struct Counting {
        polls: u32,
        pending: u32,
        deadline: Option<Timestamp>,
    }

    impl Endpoint for Counting {
        type Outgoing = u32;
        type Incoming = u32;
        fn handle_input(&mut self, _now: Timestamp, _m: u32) {
            self.pending += 1;
        }
        fn poll_transmit(&mut self, _now: Timestamp) -> Option<Transmit<u32>> {
            self.polls += 1;
            (self.pending > 0).then(|| {
                self.pending -= 1;
                Transmit {
                    size: DataSize::bytes(100),
                    message: 0,
                }
            })
        }
        fn poll_timeout(&self) -> Option<Timestamp> {
            self.deadline
        }
        fn handle_timeout(&mut self, _now: Timestamp) {
            self.deadline = None;
            self.pending += 1;
        }
    }
    impl SenderHooks for Counting {
        const INPUT_DRIVEN: bool = true;
    }
    impl ReceiverHooks for Counting {
        const INPUT_DRIVEN: bool = true;
    }

    use flowstate_core::endpoint::{Endpoint, Transmit};

    /// What the engine does after an event: poll until `None`, then ask the deadline.
    fn drain(f: &mut EndpointPairFlow<Counting, Counting>, now: Timestamp) -> Vec<Dir> {
        let sent = std::iter::from_fn(|| f.poll_transmit(now).map(|o| o.dir)).collect();
        let _ = f.poll_timeout();
        sent
    }

    fn packet(dir: Dir, slot: u32) -> SimPacket {
        SimPacket {
            id: 0,
            sent_at: Timestamp::ZERO,
            flow: 0,
            size: 100,
            slot,
            seq: 0,
            dir,
            ecn: Ecn::NotEct,
        }
    }

    #[test]
    fn an_input_driven_side_is_polled_only_after_an_input_or_at_its_deadline() {
        let t = Timestamp::from_micros;
        let mut f = EndpointPairFlow::new(Counting::default(), Counting::default());
        f.set_state(t(0), FlowState::Active);
        f.sender.pending = 1;
        assert_eq!(drain(&mut f, t(0)), vec![Dir::Data]);
        let sender_polls = f.sender.polls;
        // The data reaches the receiver: it answers; the sender is not asked.
        f.deliver(t(10), &packet(Dir::Data, 0));
        assert_eq!(drain(&mut f, t(10)), vec![Dir::Feedback]);
        assert_eq!(f.sender.polls, sender_polls, "the sender had no input");
        let receiver_polls = f.receiver.polls;
        // The ack reaches the sender: it is asked; the receiver is not.
        f.deliver(t(20), &packet(Dir::Feedback, 0));
        assert_eq!(drain(&mut f, t(20)), vec![Dir::Data]);
        assert_eq!(
            f.receiver.polls, receiver_polls,
            "the receiver had no input"
        );
        // A deadline that has come makes a side be asked without an input.
        f.sender.deadline = Some(t(30));
        f.sender_deadline.mark_stale();
        assert_eq!(f.poll_timeout(), Some(t(30)));
        let sender_polls = f.sender.polls;
        assert!(drain(&mut f, t(29)).is_empty());
        assert_eq!(f.sender.polls, sender_polls, "deadline not reached");
        assert!(drain(&mut f, t(30)).is_empty());
        assert_eq!(f.sender.polls, sender_polls + 1, "deadline reached");
        // The reference behaviour asks both sides every time.
        f.poll_at_every_event();
        let (s, r) = (f.sender.polls, f.receiver.polls);
        assert!(drain(&mut f, t(31)).is_empty());
        assert_eq!((f.sender.polls, f.receiver.polls), (s + 1, r + 1));
    }

    #[test]
    fn a_kept_deadline_is_dropped_by_any_call_that_can_change_its_side() {
        let t = Timestamp::from_micros;
        let mut f = EndpointPairFlow::new(Counting::default(), Counting::default());
        f.set_state(t(0), FlowState::Active);
        assert_eq!(f.poll_timeout(), None);
        f.sender.deadline = Some(t(50));
        assert_eq!(f.poll_timeout(), None, "kept: nothing told the flow");
        let slot = f.feedback.insert(0);
        f.deliver(t(1), &packet(Dir::Feedback, slot));
        assert_eq!(f.poll_timeout(), Some(t(50)), "an input drops it");
        f.sender_mut().deadline = Some(t(40));
        assert_eq!(f.poll_timeout(), Some(t(40)), "so does `sender_mut`");
    }
}
