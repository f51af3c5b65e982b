//! The sender side's event loop: flows started and stopped on the scenario's schedule
//! (an SCTP flow's association opened and closed), feedback handed to the senders,
//! their datagrams sent, and the coupling manager driven as the simulator's engine
//! drives it.

use super::flows::{with_sender, Assoc, TxFlow, TxKind};
use super::io::Io;
use super::shared::{rate_bits, Shared};
use super::timing::{wait_until, Clock, MAX_WAIT};
use crate::codec::{self, Class, SctpMessage};
use flowstate_core::coupling::{Allowance, FlowReport};
use flowstate_core::endpoint::Endpoint;
use flowstate_core::{Ecn, TimeDelta, Timestamp};
use flowstate_sim::coupling::CouplingHook;
use flowstate_sim::flow::{Dir, FlowState, SenderHooks};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// INIT / COOKIE-ECHO retransmission interval (RFC 9260 RTO.Initial is 1 s; WebRTC
/// stacks use less).
pub const HANDSHAKE_RTO: TimeDelta = TimeDelta::millis(500);
/// How long the sender waits for SHUTDOWN-ACKs at the end (a full 300 ms queue plus
/// a 100 ms RTT must fit).
pub const SHUTDOWN_GRACE: Duration = Duration::from_millis(1000);
/// Coupling report rounds per drain (as the simulator's engine).
pub const MAX_REPORTS_PER_DRAIN: usize = 16;

/// The sender side's loop (on the calling thread: the coupling hook is not `Send`).
pub(super) struct SenderLoop {
    pub(super) shared: Arc<Shared>,
    pub(super) io: Io,
    pub(super) flows: Vec<TxFlow>,
    pub(super) coupling: Box<dyn CouplingHook>,
    pub(super) allowances: Vec<(usize, Allowance)>,
    pub(super) end: Timestamp,
    pub(super) stop: Arc<AtomicBool>,
}

impl SenderLoop {
    pub(super) fn run(mut self) -> (Io, Vec<TxFlow>, Timestamp, bool) {
        let clock = self.shared.clock;
        let mut interrupted = false;
        loop {
            let now = clock.now();
            if now >= self.end {
                break;
            }
            if self.stop.load(Ordering::Relaxed) {
                interrupted = true;
                break;
            }
            self.schedule(now);
            for i in 0..self.flows.len() {
                self.timers(now, i);
                self.drain(now, i);
            }
            let next = Some(next_wakeup(&self.flows, self.end));
            let wait = wait_until(now, next);
            if let Some((t, bytes, ecn)) = self.io.recv(&clock, wait) {
                self.input(t, &bytes, ecn);
            }
        }
        let end = clock.now().min(self.end);
        self.shared.end_us.store(end.as_micros(), Ordering::Relaxed);
        for f in &mut self.flows {
            f.state = FlowState::Stopped;
        }
        self.shutdown(&clock);
        (self.io, self.flows, end, interrupted)
    }

    fn schedule(&mut self, now: Timestamp) {
        for i in 0..self.flows.len() {
            let f = &mut self.flows[i];
            match f.state {
                FlowState::Idle if now >= f.setup.start => {
                    f.state = FlowState::Active;
                    match f.kind {
                        TxKind::Gcc(..)
                        | TxKind::Nada(..)
                        | TxKind::Scream(..)
                        | TxKind::Ledbat(..) => self.register(now, i, FlowState::Active),
                        TxKind::Sctp(_) => {
                            f.assoc = Assoc::InitSent;
                            f.handshake_at = Some(now + HANDSHAKE_RTO);
                            let b = codec::encode_control(i, &SctpMessage::Init);
                            self.io.send(now, Class::Sctp, &b);
                        }
                    }
                }
                FlowState::Active if f.setup.stop.is_some_and(|s| now >= s) => {
                    f.state = FlowState::Stopped;
                    self.register(now, i, FlowState::Stopped);
                }
                _ => {}
            }
        }
    }

    /// Tell the coupling hook a flow's state changed (as the engine does).
    fn register(&mut self, now: Timestamp, i: usize, state: FlowState) {
        let Some(f) = self.flows.get(i) else { return };
        let snapshot = f.kind.cc_snapshot();
        self.allowances.clear();
        let info = f.setup.info.clone();
        self.coupling
            .on_state_with(now, &info, state, snapshot.as_ref(), &mut self.allowances);
        self.apply(now);
    }

    fn apply(&mut self, now: Timestamp) {
        let allowances = std::mem::take(&mut self.allowances);
        for &(g, a) in &allowances {
            if let Some(f) = self.flows.get_mut(g) {
                with_sender!(f, s => s.apply_allowance(now, a));
            }
        }
        self.allowances = allowances;
    }

    fn timers(&mut self, now: Timestamp, i: usize) {
        let Some(f) = self.flows.get_mut(i) else {
            return;
        };
        if f.handshake_at.is_some_and(|t| t <= now) {
            let m = f.assoc.handshake_message();
            f.handshake_at = m.as_ref().map(|_| now + HANDSHAKE_RTO);
            if let Some(m) = m {
                let b = codec::encode_control(i, &m);
                self.io.send(now, Class::Sctp, &b);
            }
        }
        if f.runs() {
            let due = f.kind.sender_timeout();
            if due.is_some_and(|t| t <= now) {
                with_sender!(f, s => s.handle_timeout(now));
            }
        }
    }

    fn drain(&mut self, now: Timestamp, i: usize) {
        let Some(f) = self.flows.get_mut(i) else {
            return;
        };
        if !f.runs() {
            return;
        }
        loop {
            let out = f.kind.poll_datagram(i, now);
            let Some((size, class, bytes)) = out else {
                break;
            };
            // Data carries the sender's codepoint (Not-ECT unless configured ECN-capable).
            let ecn = with_sender!(f, s => s.ecn_codepoint());
            f.ect_sent |= ecn.is_ecn_capable();
            self.io.send_ecn(now, class, &bytes, ecn);
            let size = size.as_bytes().min(u64::from(u32::MAX)) as u32;
            self.shared.record(|m, t| m.on_send(t, i, Dir::Data, size));
        }
        let mut rtts = Vec::new();
        while let Some(r) = with_sender!(f, s => s.poll_rtt_sample()) {
            rtts.push(r);
        }
        if !rtts.is_empty() {
            self.shared.record(|m, t| {
                for r in rtts {
                    m.on_rtt(t, i, r);
                }
            });
        }
        let mut reports: Vec<FlowReport> = Vec::new();
        for _ in 0..MAX_REPORTS_PER_DRAIN {
            match with_sender!(f, s => s.poll_cc_report()) {
                Some(r) => reports.push(r),
                None => break,
            }
        }
        for r in reports {
            self.allowances.clear();
            self.coupling.on_report(now, i, &r, &mut self.allowances);
            self.apply(now);
        }
        self.publish_target(i);
    }

    /// Publish flow `i`'s controller rate for the series (as the simulator reports it:
    /// a rate flow's value while it runs, nothing for a window flow).
    fn publish_target(&self, i: usize) {
        let rate =
            self.flows
                .get(i)
                .filter(|f| f.runs())
                .and_then(|f| match f.kind.cc_snapshot()? {
                    FlowReport::Rate { rate, .. } => Some(rate),
                    FlowReport::Window { .. } => None,
                });
        if let Some(slot) = self.shared.target.get(i) {
            slot.store(rate_bits(rate), Ordering::Relaxed);
        }
    }

    /// A datagram from the receiver side, with the ECN codepoint it arrived with.
    fn input(&mut self, now: Timestamp, bytes: &[u8], ecn: Ecn) {
        match codec::classify(bytes) {
            Some(Class::Rtcp) => self.rtcp(now, bytes, ecn),
            Some(Class::Sctp) => self.sctp(now, bytes, ecn),
            Some(Class::Utp) => self.utp(now, bytes, ecn),
            _ => self.io.stats.foreign += 1,
        }
    }

    /// A LEDBAT ack (uTP ST_STATE).
    fn utp(&mut self, now: Timestamp, bytes: &[u8], ecn: Ecn) {
        let Some(f) = codec::utp_flow(bytes).and_then(|i| self.flows.get_mut(i)) else {
            self.io.stats.foreign += 1;
            return;
        };
        let TxKind::Ledbat(s, _, dec) = &mut f.kind else {
            self.io.stats.foreign += 1;
            return;
        };
        let Ok((i, ack)) = dec.decode(bytes) else {
            self.io.stats.malformed += 1;
            return;
        };
        self.io.stats.decoded += 1;
        if f.state == FlowState::Active {
            s.handle_input_ecn(now, ack, ecn);
        }
        self.drain(now, i);
    }

    fn rtcp(&mut self, now: Timestamp, bytes: &[u8], ecn: Ecn) {
        // Peek the media SSRC to find the flow (and its unwrapping state).
        let Some(ssrc) = rtcp_media_ssrc(bytes) else {
            self.io.stats.malformed += 1;
            return;
        };
        let flow = codec::flow_of_ssrc(ssrc).and_then(|i| self.flows.get_mut(i));
        let Some(f) = flow else {
            self.io.stats.foreign += 1;
            return;
        };
        let alive = matches!(f.state, FlowState::Active);
        /// Decode with the flow's decoder and hand every message to its sender.
        macro_rules! feed {
            ($s:expr, $dec:expr) => {
                match $dec.decode(bytes) {
                    Ok(msgs) => {
                        self.io.stats.decoded += 1;
                        if alive {
                            for m in msgs {
                                $s.handle_input_ecn(now, m, ecn);
                            }
                        }
                    }
                    Err(_) => self.io.stats.malformed += 1,
                }
            };
        }
        match &mut f.kind {
            TxKind::Gcc(s, dec) => feed!(s, dec),
            TxKind::Nada(s, dec) => feed!(s, dec),
            TxKind::Scream(s, dec) => feed!(s, dec),
            TxKind::Sctp(_) | TxKind::Ledbat(..) => {
                self.io.stats.foreign += 1;
                return;
            }
        }
        if let Some(i) = codec::flow_of_ssrc(ssrc) {
            self.drain(now, i);
        }
    }

    fn sctp(&mut self, now: Timestamp, bytes: &[u8], ecn: Ecn) {
        let Some((i, m)) = self.io.decoded(codec::decode_sctp(bytes)) else {
            return;
        };
        let Some(f) = self.flows.get_mut(i) else {
            self.io.stats.foreign += 1;
            return;
        };
        let TxKind::Sctp(s) = &mut f.kind else {
            self.io.stats.foreign += 1;
            return;
        };
        self.io.stats.decoded += 1;
        let mut register = false;
        match m {
            SctpMessage::Sack(sack)
                if f.assoc == Assoc::Established && f.state == FlowState::Active =>
            {
                s.handle_input_ecn(now, sack, ecn);
            }
            SctpMessage::InitAck { .. } if f.assoc == Assoc::InitSent => {
                f.assoc = Assoc::CookieEchoed;
                f.handshake_at = Some(now + HANDSHAKE_RTO);
                let b = codec::encode_control(i, &SctpMessage::CookieEcho);
                self.io.send(now, Class::Sctp, &b);
            }
            SctpMessage::CookieAck if f.assoc == Assoc::CookieEchoed => {
                f.assoc = Assoc::Established;
                f.handshake_at = None;
                register = f.state == FlowState::Active;
            }
            SctpMessage::ShutdownAck => {
                f.assoc = Assoc::Done;
                let b = codec::encode_control(i, &SctpMessage::ShutdownComplete);
                self.io.send(now, Class::Sctp, &b);
            }
            _ => {}
        }
        if register {
            self.register(now, i, FlowState::Active);
        }
        self.drain(now, i);
    }

    /// Close every open association (best effort within [`SHUTDOWN_GRACE`]).
    fn shutdown(&mut self, clock: &Clock) {
        let now = clock.now();
        let mut open = 0;
        for i in 0..self.flows.len() {
            if self.flows[i].assoc == Assoc::Established {
                self.flows[i].assoc = Assoc::ShutdownSent;
                let b = codec::encode_control(i, &SctpMessage::Shutdown);
                self.io.send(now, Class::Sctp, &b);
                open += 1;
            }
        }
        let deadline = Instant::now() + SHUTDOWN_GRACE;
        while open > 0 && Instant::now() < deadline {
            if let Some((t, b, ecn)) = self.io.recv(clock, MAX_WAIT) {
                // SHUTDOWN-ACK answers with SHUTDOWN-COMPLETE (in `sctp`); the rest is
                // counted as usual (the stopped flows ignore it).
                self.input(t, &b, ecn);
                open = self
                    .flows
                    .iter()
                    .filter(|f| f.assoc == Assoc::ShutdownSent)
                    .count();
            }
        }
    }
}

/// When the sender loop next needs to run: the earliest of its flows' timers and the
/// start of the flows not yet started, at the latest the run's `end`.
pub(super) fn next_wakeup(flows: &[TxFlow], end: Timestamp) -> Timestamp {
    let timers = flows.iter().filter_map(TxFlow::poll_timeout);
    let starts = flows
        .iter()
        .filter(|f| f.state == FlowState::Idle)
        .map(|f| f.setup.start);
    timers.chain(starts).min().map_or(end, |t| t.min(end))
}

/// The media SSRC an RTCP compound from the receiver is about (its first receiver
/// report block, transport feedback, REMB or RFC 8888 stream): the flow it belongs to.
pub(super) fn rtcp_media_ssrc(bytes: &[u8]) -> Option<u32> {
    flowstate_wire::rtcp::Compound::parse(bytes)
        .ok()
        .and_then(|c| {
            c.packets.iter().find_map(|p| match p {
                flowstate_wire::rtcp::RtcpPacket::ReceiverReport(r) => {
                    r.reports.first().map(|b| b.ssrc)
                }
                flowstate_wire::rtcp::RtcpPacket::TransportFeedback(t) => Some(t.media_ssrc),
                flowstate_wire::rtcp::RtcpPacket::Remb(r) => r.ssrcs.first().copied(),
                flowstate_wire::rtcp::RtcpPacket::CongestionControlFeedback(c) => {
                    c.streams.first().map(|s| s.ssrc)
                }
                _ => None,
            })
        })
}

#[cfg(test)]
#[path = "sender_loop_tests.rs"]
mod tests;
