//! The type-erased flow interface the engine drives, and the generic adapter that turns
//! any pair of [`Endpoint`]s into a flow.
//!
//! The links carry only [`SimPacket`]s (flow index, direction, size, slab slot): the
//! typed message an endpoint sent waits in its flow's [`Slab`] until the packet is
//! delivered (or dropped), so queues and links are not generic and the hot path moves
//! 40-byte values.

use crate::app_stats::{AppControl, AppStats};
use flowstate_core::coupling::{Allowance, FlowReport};
use flowstate_core::endpoint::Endpoint;
use flowstate_core::{DataSize, TimeDelta, Timestamp};

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
    /// What a web application's getStats would show of this flow now (Web-API
    /// coupling, issue 23); `None`: the flow has no such statistics.
    fn app_stats(&self) -> Option<AppStats> {
        None
    }
    /// Apply what the web application's rule decided (max bitrate, pacing rate).
    fn apply_app_control(&mut self, _now: Timestamp, _control: AppControl) {}
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
}

/// What the simulator needs from a receiver beyond [`Endpoint`].
pub trait ReceiverHooks: Endpoint {
    /// Application payload bytes delivered so far, for goodput.
    fn goodput_bytes(&self) -> Option<u64> {
        None
    }
    /// GCC's n_dd, if the receiver runs the delay-based estimator (paper presets).
    fn delay_based_decreases(&self) -> Option<u64> {
        None
    }
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
        }
    }
    pub fn sender(&self) -> &S {
        &self.sender
    }
    pub fn sender_mut(&mut self) -> &mut S {
        &mut self.sender
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
                        self.receiver.handle_input(now, m);
                    }
                }
            }
            Dir::Feedback => {
                if let Some(m) = self.feedback.remove(pkt.slot) {
                    if self.alive() {
                        self.sender.handle_input(now, m);
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
        if self.alive() {
            if let Some(t) = self.receiver.poll_transmit(now) {
                let slot = self.feedback.insert(t.message);
                return Some(Outgoing {
                    dir: Dir::Feedback,
                    size: t.size,
                    slot,
                });
            }
        }
        if self.sender_runs() {
            if let Some(t) = self.sender.poll_transmit(now) {
                let slot = self.data.insert(t.message);
                return Some(Outgoing {
                    dir: Dir::Data,
                    size: t.size,
                    slot,
                });
            }
        }
        None
    }

    fn poll_timeout(&self) -> Option<Timestamp> {
        let s = if self.sender_runs() {
            self.sender.poll_timeout()
        } else {
            None
        };
        let r = if self.alive() {
            self.receiver.poll_timeout()
        } else {
            None
        };
        match (s, r) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    fn handle_timeout(&mut self, now: Timestamp) {
        if self.alive() && self.receiver.poll_timeout().is_some_and(|t| t <= now) {
            self.receiver.handle_timeout(now);
        }
        if self.sender_runs() && self.sender.poll_timeout().is_some_and(|t| t <= now) {
            self.sender.handle_timeout(now);
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
    }

    fn poll_cc_report(&mut self) -> Option<FlowReport> {
        self.sender.poll_cc_report()
    }

    fn apply_allowance(&mut self, now: Timestamp, allowance: Allowance) {
        self.sender.apply_allowance(now, allowance);
    }

    fn poll_rtt_sample(&mut self) -> Option<TimeDelta> {
        self.sender.poll_rtt_sample()
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

    fn app_stats(&self) -> Option<AppStats> {
        self.sender.app_stats()
    }

    fn apply_app_control(&mut self, now: Timestamp, control: AppControl) {
        self.sender.apply_app_control(now, control);
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
}
