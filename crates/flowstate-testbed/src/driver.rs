//! The wall-clock driver: one sender-side and one receiver-side event loop (a thread
//! each), each with one UDP socket that multiplexes every flow of the scenario (one
//! 5-tuple per direction; RTP/RTCP told apart from SCTP by the first byte, flows by
//! SSRC and SCTP port, see [`crate::codec`]).
//!
//! Each loop: hand every datagram that arrives to its flow's endpoint, run due timers,
//! drain `poll_transmit`, then sleep in `recv_from` until the earliest `poll_timeout`
//! (at most [`MAX_WAIT`]). Time is `Instant` since the run's start as a
//! [`Timestamp`]. The sender loop starts/stops flows on the scenario's schedule and
//! drives the coupling manager exactly as the simulator's engine does (the same
//! [`CouplingHook`], reports after every drain, allowances applied at once).
//! LEDBAT flows travel as uTP (see [`crate::codec`]). SCTP flows open a real association (INIT / INIT-ACK / COOKIE-ECHO / COOKIE-ACK)
//! when they start and close it (SHUTDOWN / SHUTDOWN-ACK / SHUTDOWN-COMPLETE) at the
//! end; the endpoint runs, and the flow registers with the coupling manager, once the
//! association is up.
//!
//! Metrics: the simulator's [`Metrics`] collector, shared by both loops. Sending rate
//! at the sender; throughput, goodput, queuing delay (one-way delay minus the flow's
//! smallest one-way delay: both sides share one clock) and loss (gaps in the RTP
//! sequence numbers / first-seen SCTP TSNs) at the receiver; RTT samples from the
//! sender endpoints. Datagrams that do not decode are counted and dropped.

use crate::codec::{self, CcfbDecoder, Class, FeedbackDecoder, FeedbackEncoder, SctpMessage};
use crate::netns::{bind_udp_in, NetnsSides};
use flowstate_core::coupling::{Allowance, FlowReport};
use flowstate_core::endpoint::ledbat::{LedbatReceiver, LedbatSender};
use flowstate_core::endpoint::media::{MediaReceiver, MediaSender};
use flowstate_core::endpoint::nada::NadaSender;
use flowstate_core::endpoint::rfc8888::CcfbReceiver;
use flowstate_core::endpoint::scream::ScreamSender;
use flowstate_core::endpoint::sctp::{SctpReceiver, SctpSender};
use flowstate_core::endpoint::Endpoint;
use flowstate_core::{Bitrate, TimeDelta, Timestamp};
use flowstate_emu::{Emulator, EmulatorConfig, EmulatorReport, PathConfig, Route};
use flowstate_sim::coupling::{CouplingFactory, CouplingHook, DefaultCouplingFactory, FlowInfo};
use flowstate_sim::endpoints::{
    gcc_flow, ledbat_flow, nada_flow, scream_flow, sctp_flow, FlowContext, Tracked,
};
use flowstate_sim::engine::{FlowSetup, SimConfig};
use flowstate_sim::flow::{Dir, FlowState, ReceiverHooks, SenderHooks};
use flowstate_sim::metrics::{FlowMeta, Metrics};
use flowstate_sim::scheduler::{component_rng, ComponentId};
use flowstate_sim::{RunResult, Scenario, SimError};
use flowstate_wire::pcap::PcapWriter;
use rand::RngExt;
use std::io::ErrorKind;
use std::net::{SocketAddr, UdpSocket};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

/// Longest a loop sleeps without looking at the clock (schedule, stop flag).
pub const MAX_WAIT: Duration = Duration::from_millis(5);
/// Shortest socket wait (a zero read timeout would mean "block forever").
pub const MIN_WAIT: Duration = Duration::from_micros(50);
/// INIT / COOKIE-ECHO retransmission interval (RFC 9260 RTO.Initial is 1 s; WebRTC
/// stacks use less).
pub const HANDSHAKE_RTO: TimeDelta = TimeDelta::millis(500);
/// How long the sender waits for SHUTDOWN-ACKs at the end (a full 300 ms queue plus
/// a 100 ms RTT must fit).
pub const SHUTDOWN_GRACE: Duration = Duration::from_millis(1000);
/// Coupling report rounds per drain (as the simulator's engine).
pub const MAX_REPORTS_PER_DRAIN: usize = 16;
/// pcap UDP ports per protocol (the real sockets multiplex one 5-tuple; the capture
/// names each protocol's conventional port so that tshark dissects it): RTP, RTCP and
/// SCTP over UDP (RFC 6951's registered port 9899).
pub const PCAP_RTP_PORT: u16 = 5004;
pub const PCAP_RTCP_PORT: u16 = 5005;
pub const PCAP_SCTP_PORT: u16 = 9899;
/// uTP (LEDBAT) in the pcap: BitTorrent's port 6881 (tshark: `-d udp.port==6881,bt-utp`).
pub const PCAP_UTP_PORT: u16 = 6881;
/// Receive buffer size (the largest UDP payload fits, nothing is truncated).
pub const MAX_DATAGRAM: usize = 65_535;

/// Why a testbed run could not be made.
#[derive(Debug, thiserror::Error)]
pub enum TestbedError {
    #[error("{0}")]
    Sim(#[from] SimError),
    #[error("{0}")]
    Io(#[from] std::io::Error),
    #[error("{0}")]
    Unsupported(String),
}

/// Run options.
#[derive(Debug, Clone, Default)]
pub struct TestbedOptions {
    /// Seed (default: the scenario's, else 1).
    pub seed: Option<u64>,
    /// Cap on the run length in seconds (default: the scenario's duration).
    pub duration: Option<f64>,
    /// Set it to end the run early (Ctrl-C); what was measured is still returned.
    pub stop: Arc<AtomicBool>,
    /// Connect the sides directly over loopback, without a bottleneck.
    pub direct: bool,
    /// Put each side in its own network namespace and let the host's path between
    /// them carry the packets (no emulator; the scenario's `[link]` is then not
    /// applied: the host's path is the bottleneck). Excludes `direct`.
    pub netns: Option<NetnsSides>,
    /// Receives `(sender socket, receiver socket)` once both loops run (tests inject
    /// datagrams there).
    pub ready: Option<mpsc::Sender<(SocketAddr, SocketAddr)>>,
}

/// Datagram counters of one side.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SideStats {
    pub received: u64,
    pub decoded: u64,
    /// Did not parse (bad header, checksum, truncation...).
    pub malformed: u64,
    /// Not one of ours (unknown first byte, unknown flow, wrong tag).
    pub foreign: u64,
    pub sent: u64,
    pub send_errors: u64,
}

/// An SCTP flow's transfer at the receiver.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SctpTransfer {
    pub flow: usize,
    pub bytes_delivered: u64,
    pub messages_delivered: u64,
    pub order_errors: u64,
    /// Bytes the sender's application wrote.
    pub bytes_written: u64,
    pub established: bool,
    pub shut_down: bool,
}

/// The outcome of a testbed run.
#[derive(Debug, Clone)]
pub struct TestbedResult {
    /// Summary and time series, as the simulator's.
    pub run: RunResult,
    pub sender: SideStats,
    pub receiver: SideStats,
    /// What the flowstate-emu bottleneck saw (empty with `direct`).
    pub bottleneck: EmulatorReport,
    pub sender_pcap: Vec<u8>,
    pub receiver_pcap: Vec<u8>,
    pub sctp: Vec<SctpTransfer>,
    /// Whether the run was stopped before its duration.
    pub interrupted: bool,
}

#[derive(Debug, Clone, Copy)]
struct Clock(Instant);
impl Clock {
    fn now(&self) -> Timestamp {
        Timestamp::from_micros(self.0.elapsed().as_micros() as u64)
    }
}

const NO_GOODPUT: u64 = u64::MAX;
/// No controller rate (window flows, flows not running): the series' empty cell.
const NO_TARGET: u64 = u64::MAX;

/// A rate the sender loop published ([`NO_TARGET`]: none).
fn published_rate(slot: &AtomicU64) -> Option<Bitrate> {
    let t = slot.load(Ordering::Relaxed);
    (t != NO_TARGET).then(|| Bitrate::bps(f64::from_bits(t)))
}

/// What both loops share.
struct Shared {
    clock: Clock,
    metrics: Mutex<Metrics>,
    goodput: Vec<AtomicU64>,
    /// Per flow: its rate controller's value in bit/s as `f64` bits (the series'
    /// `target_mbps`), published by the sender loop; [`NO_TARGET`] when none.
    target: Vec<AtomicU64>,
    /// The measured run's end in microseconds (`u64::MAX` while it runs): events after
    /// it (the SCTP shutdown, packets still in flight) are not measured.
    end_us: AtomicU64,
}

impl Shared {
    fn goodput(&self, i: usize) -> Option<u64> {
        let g = self.goodput.get(i)?.load(Ordering::Relaxed);
        (g != NO_GOODPUT).then_some(g)
    }
    fn target(&self, i: usize) -> Option<Bitrate> {
        published_rate(self.target.get(i)?)
    }
    /// Record into the metrics at the current time.
    fn record(&self, f: impl FnOnce(&mut Metrics, Timestamp)) {
        if let Ok(mut m) = self.metrics.lock() {
            let now = self.clock.now();
            if now.as_micros() >= self.end_us.load(Ordering::Relaxed) {
                return;
            }
            m.advance(now, |i| self.goodput(i), |i| self.target(i));
            f(&mut m, now);
        }
    }
}

fn pcap_ports(class: Class) -> u16 {
    match class {
        Class::Rtp => PCAP_RTP_PORT,
        Class::Rtcp => PCAP_RTCP_PORT,
        Class::Sctp => PCAP_SCTP_PORT,
        Class::Utp => PCAP_UTP_PORT,
    }
}

/// A socket plus its counters and capture.
struct Io {
    sock: UdpSocket,
    peer: SocketAddr,
    stats: SideStats,
    pcap: PcapWriter,
    buf: Vec<u8>,
}

impl Io {
    /// A decoded datagram, or `None` counted as malformed.
    fn decoded<T, E>(&mut self, decoded: Result<T, E>) -> Option<T> {
        if decoded.is_err() {
            self.stats.malformed += 1;
        }
        decoded.ok()
    }

    fn send(&mut self, now: Timestamp, class: Class, bytes: &[u8]) {
        let port = pcap_ports(class);
        self.pcap.udp(now.as_micros(), port, port, bytes);
        match self.sock.send_to(bytes, self.peer) {
            Ok(_) => self.stats.sent += 1,
            Err(_) => self.stats.send_errors += 1,
        }
    }

    /// Wait up to `wait` for one datagram.
    fn recv(&mut self, clock: &Clock, wait: Duration) -> Option<(Timestamp, Vec<u8>)> {
        let _ = self.sock.set_read_timeout(Some(wait.max(MIN_WAIT)));
        match self.sock.recv_from(&mut self.buf) {
            Ok((n, _)) => {
                let now = clock.now();
                let bytes = self.buf.get(..n).unwrap_or(&[]).to_vec();
                self.stats.received += 1;
                let port = codec::classify(&bytes).map_or(0, pcap_ports);
                self.pcap.udp(now.as_micros(), port, port, &bytes);
                Some((now, bytes))
            }
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => None,
            Err(_) => None,
        }
    }
}

fn wait_until(now: Timestamp, t: Option<Timestamp>) -> Duration {
    match t {
        Some(t) if t > now => Duration::from_micros((t - now).as_micros() as u64).min(MAX_WAIT),
        Some(_) => Duration::ZERO,
        None => MAX_WAIT,
    }
}

fn earliest(a: Option<Timestamp>, b: Option<Timestamp>) -> Option<Timestamp> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, y) => x.or(y),
    }
}

// ---------------------------------------------------------------- sender side

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Assoc {
    Closed,
    InitSent,
    CookieEchoed,
    Established,
    ShutdownSent,
    Done,
}

enum TxKind {
    Gcc(Box<Tracked<MediaSender>>, FeedbackDecoder),
    Sctp(Box<Tracked<SctpSender>>),
    /// NADA and SCReAM media with RFC 8888 feedback.
    Nada(Box<Tracked<NadaSender>>, CcfbDecoder),
    Scream(Box<Tracked<ScreamSender>>, CcfbDecoder),
    /// LEDBAT over uTP; the count of data packets sent (the receiver's loss count) and
    /// the ack decoder.
    Ledbat(Box<Tracked<LedbatSender>>, u64, codec::LedbatAckDecoder),
}

impl TxKind {
    /// The sender endpoint's next timer.
    fn sender_timeout(&self) -> Option<Timestamp> {
        match self {
            TxKind::Gcc(s, _) => s.poll_timeout(),
            TxKind::Sctp(s) => s.poll_timeout(),
            TxKind::Nada(s, _) => s.poll_timeout(),
            TxKind::Scream(s, _) => s.poll_timeout(),
            TxKind::Ledbat(s, ..) => s.poll_timeout(),
        }
    }
    fn cc_snapshot(&self) -> Option<FlowReport> {
        match self {
            TxKind::Gcc(s, _) => s.cc_snapshot(),
            TxKind::Sctp(s) => s.cc_snapshot(),
            TxKind::Nada(s, _) => s.cc_snapshot(),
            TxKind::Scream(s, _) => s.cc_snapshot(),
            TxKind::Ledbat(s, ..) => s.cc_snapshot(),
        }
    }
}

struct TxFlow {
    setup: FlowSetup,
    kind: TxKind,
    state: FlowState,
    assoc: Assoc,
    handshake_at: Option<Timestamp>,
}

/// Dispatch over the sender kinds (same hooks, different message types).
macro_rules! with_sender {
    ($flow:expr, $s:ident => $e:expr) => {
        match &mut $flow.kind {
            TxKind::Gcc($s, _) => $e,
            TxKind::Sctp($s) => $e,
            TxKind::Nada($s, _) => $e,
            TxKind::Scream($s, _) => $e,
            TxKind::Ledbat($s, ..) => $e,
        }
    };
}

impl TxFlow {
    /// The endpoint runs: the flow is active (and an SCTP association is up).
    fn runs(&self) -> bool {
        self.state == FlowState::Active
            && match self.kind {
                TxKind::Gcc(..) | TxKind::Nada(..) | TxKind::Scream(..) | TxKind::Ledbat(..) => {
                    true
                }
                TxKind::Sctp(_) => self.assoc == Assoc::Established,
            }
    }

    fn poll_timeout(&self) -> Option<Timestamp> {
        let t = if self.runs() {
            self.kind.sender_timeout()
        } else {
            None
        };
        earliest(t, self.handshake_at)
    }
}

struct SenderLoop {
    shared: Arc<Shared>,
    io: Io,
    flows: Vec<TxFlow>,
    coupling: Box<dyn CouplingHook>,
    allowances: Vec<(usize, Allowance)>,
    end: Timestamp,
    stop: Arc<AtomicBool>,
}

impl SenderLoop {
    fn run(mut self) -> (Io, Vec<TxFlow>, Timestamp, bool) {
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
            let timers = self.flows.iter().filter_map(TxFlow::poll_timeout);
            let starts = self
                .flows
                .iter()
                .filter(|f| f.state == FlowState::Idle)
                .map(|f| f.setup.start);
            let next = timers
                .chain(starts)
                .min()
                .map_or(self.end, |t| t.min(self.end));
            let next = Some(next);
            let wait = wait_until(now, next);
            if let Some((t, bytes)) = self.io.recv(&clock, wait) {
                self.input(t, &bytes);
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
            let m = match f.assoc {
                Assoc::InitSent => Some(SctpMessage::Init),
                Assoc::CookieEchoed => Some(SctpMessage::CookieEcho),
                _ => None,
            };
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
            let out = match &mut f.kind {
                TxKind::Gcc(s, _) => s
                    .poll_transmit(now)
                    .map(|t| (t.size, Class::Rtp, codec::encode_rtp(&t.message))),
                TxKind::Sctp(s) => s
                    .poll_transmit(now)
                    .map(|t| (t.size, Class::Sctp, codec::encode_data(i, &t.message, now))),
                TxKind::Nada(s, _) => s
                    .poll_transmit(now)
                    .map(|t| (t.size, Class::Rtp, codec::encode_rtp(&t.message))),
                TxKind::Scream(s, _) => s
                    .poll_transmit(now)
                    .map(|t| (t.size, Class::Rtp, codec::encode_rtp(&t.message))),
                TxKind::Ledbat(s, packets, _) => s.poll_transmit(now).map(|t| {
                    *packets += 1;
                    let b = codec::encode_ledbat_segment(i, &t.message, *packets - 1);
                    (t.size, Class::Utp, b)
                }),
            };
            let Some((size, class, bytes)) = out else {
                break;
            };
            self.io.send(now, class, &bytes);
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
            slot.store(
                rate.map_or(NO_TARGET, |r| r.as_bps().to_bits()),
                Ordering::Relaxed,
            );
        }
    }

    fn input(&mut self, now: Timestamp, bytes: &[u8]) {
        match codec::classify(bytes) {
            Some(Class::Rtcp) => self.rtcp(now, bytes),
            Some(Class::Sctp) => self.sctp(now, bytes),
            Some(Class::Utp) => self.utp(now, bytes),
            _ => self.io.stats.foreign += 1,
        }
    }

    /// A LEDBAT ack (uTP ST_STATE).
    fn utp(&mut self, now: Timestamp, bytes: &[u8]) {
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
            s.handle_input(now, ack);
        }
        self.drain(now, i);
    }

    fn rtcp(&mut self, now: Timestamp, bytes: &[u8]) {
        // Peek the media SSRC to find the flow (and its unwrapping state).
        let ssrc = flowstate_wire::rtcp::Compound::parse(bytes)
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
            });
        let Some(ssrc) = ssrc else {
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
                                $s.handle_input(now, m);
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

    fn sctp(&mut self, now: Timestamp, bytes: &[u8]) {
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
                s.handle_input(now, sack);
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
            if let Some((t, b)) = self.io.recv(clock, MAX_WAIT) {
                // SHUTDOWN-ACK answers with SHUTDOWN-COMPLETE (in `sctp`); the rest is
                // counted as usual (the stopped flows ignore it).
                self.input(t, &b);
                open = self
                    .flows
                    .iter()
                    .filter(|f| f.assoc == Assoc::ShutdownSent)
                    .count();
            }
        }
    }
}

// -------------------------------------------------------------- receiver side

enum RxKind {
    Gcc(Box<MediaReceiver>, FeedbackEncoder),
    Sctp(Box<SctpReceiver>),
    /// The RFC 8888 receiver of NADA and SCReAM media.
    Ccfb(Box<CcfbReceiver>),
    Ledbat(Box<LedbatReceiver>),
}

impl RxKind {
    fn poll_timeout(&self) -> Option<Timestamp> {
        match self {
            RxKind::Gcc(r, _) => r.poll_timeout(),
            RxKind::Sctp(r) => r.poll_timeout(),
            RxKind::Ccfb(r) => r.poll_timeout(),
            RxKind::Ledbat(r) => r.poll_timeout(),
        }
    }
    fn handle_timeout(&mut self, now: Timestamp) {
        match self {
            RxKind::Gcc(r, _) => r.handle_timeout(now),
            RxKind::Sctp(r) => r.handle_timeout(now),
            RxKind::Ccfb(r) => r.handle_timeout(now),
            RxKind::Ledbat(r) => r.handle_timeout(now),
        }
    }
    /// A media receiver (RTP in).
    fn is_media(&self) -> bool {
        matches!(self, RxKind::Gcc(..) | RxKind::Ccfb(_))
    }
}

struct RxFlow {
    kind: RxKind,
    highest: Option<u64>,
    min_owd: Option<i64>,
    established: bool,
    shut_down: bool,
}

struct ReceiverLoop {
    shared: Arc<Shared>,
    io: Io,
    flows: Vec<RxFlow>,
    done: Arc<AtomicBool>,
}

impl ReceiverLoop {
    fn run(mut self) -> (Io, Vec<RxFlow>) {
        let clock = self.shared.clock;
        while !self.done.load(Ordering::Relaxed) {
            let now = clock.now();
            for i in 0..self.flows.len() {
                let f = &mut self.flows[i];
                if f.kind.poll_timeout().is_some_and(|t| t <= now) {
                    f.kind.handle_timeout(now);
                }
                self.drain(now, i);
            }
            let next = self
                .flows
                .iter()
                .fold(None, |a, f| earliest(a, f.kind.poll_timeout()));
            if let Some((t, bytes)) = self.io.recv(&clock, wait_until(now, next)) {
                self.input(t, &bytes);
            }
        }
        (self.io, self.flows)
    }

    fn drain(&mut self, now: Timestamp, i: usize) {
        let Some(f) = self.flows.get_mut(i) else {
            return;
        };
        loop {
            let out = match &mut f.kind {
                RxKind::Gcc(r, enc) => r
                    .poll_transmit(now)
                    .map(|t| (Class::Rtcp, enc.encode(&t.message))),
                RxKind::Sctp(r) => r
                    .poll_transmit(now)
                    .map(|t| (Class::Sctp, codec::encode_sack(i, &t.message))),
                RxKind::Ccfb(r) => r
                    .poll_transmit(now)
                    .map(|t| (Class::Rtcp, codec::encode_ccfb(&t.message))),
                RxKind::Ledbat(r) => r
                    .poll_transmit(now)
                    .map(|t| (Class::Utp, codec::encode_ledbat_ack(i, &t.message, now))),
            };
            let Some((class, bytes)) = out else { break };
            self.io.send(now, class, &bytes);
        }
        let delivered = match &f.kind {
            RxKind::Sctp(r) => Some(r.bytes_delivered()),
            RxKind::Ledbat(r) => Some(r.bytes_delivered()),
            _ => None,
        };
        if let (Some(d), Some(g)) = (delivered, self.shared.goodput.get(i)) {
            g.store(d.as_bytes(), Ordering::Relaxed);
        }
    }

    /// Metrics for one arriving data packet: throughput, one-way delay above the
    /// flow's minimum (queuing delay), and losses by sequence gaps.
    fn measure(&mut self, i: usize, seq: u64, sent: Timestamp, now: Timestamp, size: u32) {
        let Some(f) = self.flows.get_mut(i) else {
            return;
        };
        let owd = now.as_micros() as i64 - sent.as_micros() as i64;
        let min = f.min_owd.map_or(owd, |m| m.min(owd));
        f.min_owd = Some(min);
        let lost = match f.highest {
            Some(h) if seq > h + 1 => seq - h - 1,
            _ => 0,
        };
        f.highest = Some(f.highest.map_or(seq, |h| h.max(seq)));
        self.shared.record(|m, t| {
            // Sent `owd` before arrival (one-way delay and jitter of the summary).
            m.on_deliver(t, i, Dir::Data, size, t - TimeDelta::from_micros(owd));
            m.on_queue_wait(t, i, Dir::Data, TimeDelta::from_micros(owd - min));
            for _ in 0..lost {
                m.on_loss(t, i, Dir::Data);
            }
        });
    }

    fn input(&mut self, now: Timestamp, bytes: &[u8]) {
        match codec::classify(bytes) {
            Some(Class::Rtp) => match codec::decode_rtp(bytes) {
                Ok(p) => {
                    let i = codec::flow_of_ssrc(p.ssrc);
                    let Some(i) =
                        i.filter(|&i| self.flows.get(i).is_some_and(|f| f.kind.is_media()))
                    else {
                        self.io.stats.foreign += 1;
                        return;
                    };
                    self.io.stats.decoded += 1;
                    let size = (bytes.len() as u64 + codec::IP_UDP_OVERHEAD) as u32;
                    self.measure(i, p.sequence_number, p.send_time, now, size);
                    match self.flows.get_mut(i).map(|f| &mut f.kind) {
                        Some(RxKind::Gcc(r, _)) => r.handle_input(now, p),
                        Some(RxKind::Ccfb(r)) => r.handle_input(now, p),
                        _ => {}
                    }
                    self.drain(now, i);
                }
                Err(_) => self.io.stats.malformed += 1,
            },
            Some(Class::Sctp) => self.sctp(now, bytes),
            Some(Class::Utp) => self.utp(now, bytes),
            Some(Class::Rtcp) | None => self.io.stats.foreign += 1,
        }
    }

    /// A LEDBAT segment (uTP ST_DATA): measured like the other data packets (loss by
    /// gaps in the packet numbers), then handed to the receiver.
    fn utp(&mut self, now: Timestamp, bytes: &[u8]) {
        let Some((i, seg, packet)) = self.io.decoded(codec::decode_ledbat_segment(bytes)) else {
            return;
        };
        if !matches!(self.flows.get(i).map(|f| &f.kind), Some(RxKind::Ledbat(_))) {
            self.io.stats.foreign += 1;
            return;
        }
        self.io.stats.decoded += 1;
        let size = (bytes.len() as u64 + codec::IP_UDP_OVERHEAD) as u32;
        self.measure(i, packet, seg.timestamp, now, size);
        if let RxKind::Ledbat(r) = &mut self.flows[i].kind {
            r.handle_input(now, seg);
        }
        self.drain(now, i);
    }

    fn sctp(&mut self, now: Timestamp, bytes: &[u8]) {
        let Some((i, m)) = self.io.decoded(codec::decode_sctp(bytes)) else {
            return;
        };
        if !matches!(self.flows.get(i).map(|f| &f.kind), Some(RxKind::Sctp(_))) {
            self.io.stats.foreign += 1;
            return;
        }
        self.io.stats.decoded += 1;
        let reply = match m {
            SctpMessage::Init => Some(SctpMessage::InitAck {
                cookie: codec::cookie_for(i),
            }),
            SctpMessage::CookieEcho => {
                self.flows[i].established = true;
                Some(SctpMessage::CookieAck)
            }
            SctpMessage::Shutdown => {
                self.flows[i].shut_down = true;
                Some(SctpMessage::ShutdownAck)
            }
            SctpMessage::Data { chunk, sent } => {
                if self.flows[i].established && !self.flows[i].shut_down {
                    let size = bytes.len() as u32;
                    self.measure(i, chunk.tsn, sent, now, size);
                    if let RxKind::Sctp(r) = &mut self.flows[i].kind {
                        r.handle_input(now, chunk);
                    }
                }
                None
            }
            _ => None,
        };
        if let Some(r) = reply {
            let b = codec::encode_control(i, &r);
            self.io.send(now, Class::Sctp, &b);
        }
        self.drain(now, i);
    }
}

// ------------------------------------------------------------------- the run

fn flow_seed(seed: u64, i: usize) -> u64 {
    component_rng(seed, ComponentId::flow(i as u64)).random()
}

/// Run `scenario` over real UDP sockets on the wall clock.
pub fn run(scenario: &Scenario, opts: TestbedOptions) -> Result<TestbedResult, TestbedError> {
    let seed = opts.seed.or(scenario.seed).unwrap_or(1);
    let mut scenario = scenario.clone();
    if let Some(d) = opts.duration {
        if d.is_finite() && d > 0.0 && d < scenario.duration.0 {
            scenario.duration.0 = d;
        }
    }
    // One bottleneck per direction (the dumbbell, or one named link every flow
    // crosses): a multi-link topology is refused here, with the field that makes it one.
    scenario
        .bottleneck(&scenario.name)
        .map_err(|e| TestbedError::Unsupported(format!("{}: {}", e.field, e.message)))?;
    let config: SimConfig = flowstate_sim::run::sim_config(&scenario, seed);
    let ctx = FlowContext {
        mechanism: scenario
            .coupling
            .as_ref()
            .map_or_else(|| "none".to_string(), |c| c.mechanism.clone()),
    };
    let mut tx = Vec::new();
    let mut rx = Vec::new();
    for (i, (spec, setup)) in scenario.flows.iter().zip(&config.flows).enumerate() {
        let fseed = flow_seed(seed, i);
        // The testbed's wire mapping of each kind it carries (its packets as real
        // RTP / RTCP / SCTP / uTP bytes, `codec`), by the kind's name.
        let built = |e: flowstate_sim::FieldError| {
            TestbedError::Sim(SimError::Build(e.under(&format!("flows[{i}]."))))
        };
        let input = flowstate_sim::flow_spec::BuildInput {
            ctx: &ctx,
            index: i,
            spec,
            seed: fseed,
        };
        let (t, r) = match spec.kind.name() {
            "gcc" => {
                let (s, r) = gcc_flow(&ctx, i, spec, fseed).map_err(built)?.into_parts();
                (
                    TxKind::Gcc(Box::new(s), FeedbackDecoder::default()),
                    RxKind::Gcc(Box::new(r), FeedbackEncoder::default()),
                )
            }
            "sctp" => {
                let (s, r) = sctp_flow(spec, fseed).map_err(built)?.into_parts();
                (TxKind::Sctp(Box::new(s)), RxKind::Sctp(Box::new(r)))
            }
            "nada" => {
                let (s, r) = nada_flow(&input).map_err(built)?.into_parts();
                (
                    TxKind::Nada(Box::new(s), CcfbDecoder::default()),
                    RxKind::Ccfb(Box::new(r)),
                )
            }
            "scream" => {
                let (s, r) = scream_flow(&input).map_err(built)?.into_parts();
                (
                    TxKind::Scream(Box::new(s), CcfbDecoder::default()),
                    RxKind::Ccfb(Box::new(r)),
                )
            }
            "ledbat" => {
                let (s, r) = ledbat_flow(spec, fseed).map_err(built)?.into_parts();
                (
                    TxKind::Ledbat(Box::new(s), 0, codec::LedbatAckDecoder::default()),
                    RxKind::Ledbat(Box::new(r)),
                )
            }
            other => {
                return Err(TestbedError::Unsupported(format!(
                    "flows[{i}].kind: '{other}' is not wired into the testbed (gcc, sctp, nada, scream and ledbat are)"
                )))
            }
        };
        if setup.path.direction != flowstate_sim::topology::FlowDirection::Forward {
            return Err(TestbedError::Unsupported(format!(
                "flows[{i}].direction: the testbed runs forward flows only"
            )));
        }
        if !setup.pauses.is_empty() {
            return Err(TestbedError::Unsupported(format!(
                "flows[{i}].pauses: not supported by the testbed yet"
            )));
        }
        if setup.path.path_delay != TimeDelta::ZERO {
            return Err(TestbedError::Unsupported(format!(
                "flows[{i}].path_delay: not supported by the testbed yet (one shared path)"
            )));
        }
        tx.push(TxFlow {
            setup: setup.clone(),
            kind: t,
            state: FlowState::Idle,
            assoc: Assoc::Closed,
            handshake_at: None,
        });
        rx.push(RxFlow {
            kind: r,
            highest: None,
            min_owd: None,
            established: false,
            shut_down: false,
        });
    }
    for (name, link) in [("link", &config.forward), ("reverse_link", &config.reverse)] {
        let trace_jitter = link.trace.as_ref().is_some_and(|t| {
            t.segments.iter().any(|s| {
                s.jitter
                    .is_some_and(|j| j > flowstate_core::TimeDelta::ZERO)
            })
        });
        if link.jitter.is_some() || trace_jitter {
            return Err(TestbedError::Unsupported(format!(
                "{name}.jitter: not supported by the testbed yet (nor a trace's per-segment jitter)"
            )));
        }
    }
    let infos: Vec<FlowInfo> = config.flows.iter().map(|f| f.info.clone()).collect();
    let coupling = match &scenario.coupling {
        Some(c) => DefaultCouplingFactory.build(&c.mechanism, &c.options, &infos)?,
        None => DefaultCouplingFactory.build("none", &toml::Table::new(), &infos)?,
    };
    let metas = config
        .flows
        .iter()
        .map(|f| FlowMeta {
            name: f.info.name.clone(),
            kind: f.info.kind.name().to_string(),
            priority: f.info.priority,
            forward: true,
        })
        .collect();
    let metrics = Metrics::new(config.metrics.clone(), metas, config.forward.clone());

    let (s_sock, r_sock) = match &opts.netns {
        None => (
            UdpSocket::bind("127.0.0.1:0")?,
            UdpSocket::bind("127.0.0.1:0")?,
        ),
        Some(_) if opts.direct => {
            return Err(TestbedError::Unsupported(
                "direct and network namespaces exclude each other".into(),
            ))
        }
        Some(sides) => {
            let bind = |what: &str, side| {
                bind_udp_in(side).map_err(|e| {
                    TestbedError::Unsupported(format!("{what} namespace '{}': {e}", side.netns))
                })
            };
            (
                bind("sender", &sides.sender)?,
                bind("receiver", &sides.receiver)?,
            )
        }
    };
    let s_addr = s_sock.local_addr()?;
    let r_addr = r_sock.local_addr()?;
    // The packets cross flowstate-emu's bottleneck (issue 7): one route, from the
    // sender socket (learned from its first datagram) to the receiver socket. In
    // namespaces the host's path between them is the bottleneck.
    let emulator = if opts.direct || opts.netns.is_some() {
        None
    } else {
        let any: SocketAddr = ([127, 0, 0, 1], 0).into();
        Some(Emulator::start(EmulatorConfig {
            forward: PathConfig::from_sim(&config.forward, seed),
            reverse: PathConfig::from_sim(&config.reverse, seed),
            routes: vec![Route {
                sender_facing: any,
                receiver_facing: any,
                receiver: r_addr,
            }],
        })?)
    };
    let (s_peer, r_peer) = match emulator
        .as_ref()
        .and_then(|e| e.route_addrs().first().copied())
    {
        Some(addrs) => addrs,
        None => (r_addr, s_addr),
    };
    // Time zero is the emulator's (its capacity schedule counts from it).
    let origin = emulator
        .as_ref()
        .map_or_else(Instant::now, Emulator::start_instant);
    let shared = Arc::new(Shared {
        clock: Clock(origin),
        metrics: Mutex::new(metrics),
        goodput: scenario
            .flows
            .iter()
            .map(|f| {
                AtomicU64::new(if matches!(f.kind.name(), "sctp" | "ledbat") {
                    0
                } else {
                    NO_GOODPUT
                })
            })
            .collect(),
        target: scenario
            .flows
            .iter()
            .map(|_| AtomicU64::new(NO_TARGET))
            .collect(),
        end_us: AtomicU64::new(u64::MAX),
    });
    let mk_io = |sock, peer| Io {
        sock,
        peer,
        stats: SideStats::default(),
        pcap: PcapWriter::new(),
        buf: vec![0; MAX_DATAGRAM],
    };
    let done = Arc::new(AtomicBool::new(false));
    let receiver = ReceiverLoop {
        shared: shared.clone(),
        io: mk_io(r_sock, r_peer),
        flows: rx,
        done: done.clone(),
    };
    let sender = SenderLoop {
        shared: shared.clone(),
        io: mk_io(s_sock, s_peer),
        flows: tx,
        coupling,
        allowances: Vec::new(),
        end: config.duration,
        stop: opts.stop.clone(),
    };
    let r_thread = std::thread::Builder::new()
        .name("testbed-receiver".into())
        .spawn(move || receiver.run())?;
    if let Some(ready) = &opts.ready {
        let _ = ready.send((s_addr, r_addr));
    }
    // The sender loop runs on the calling thread (the coupling hook is not `Send`).
    let s_out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || sender.run()));
    done.store(true, Ordering::Relaxed);
    let r_out = r_thread.join();
    let report = emulator.map(Emulator::stop).unwrap_or_default();
    let (s_io, s_flows, end, interrupted) =
        s_out.map_err(|_| TestbedError::Unsupported("the sender loop panicked (a bug)".into()))?;
    let (r_io, r_flows) = r_out
        .map_err(|_| TestbedError::Unsupported("the receiver loop panicked (a bug)".into()))?;

    let shared = Arc::try_unwrap(shared).map_err(|_| {
        TestbedError::Unsupported("metrics still shared after the run (a bug)".into())
    })?;
    let metrics = shared
        .metrics
        .into_inner()
        .map_err(|_| TestbedError::Unsupported("metrics lock poisoned (a bug)".into()))?;
    let goodput: Vec<Option<u64>> = (0..shared.goodput.len())
        .map(|i| {
            let g = shared.goodput[i].load(Ordering::Relaxed);
            (g != NO_GOODPUT).then_some(g)
        })
        .collect();
    let events = s_io.stats.sent + s_io.stats.received + r_io.stats.sent + r_io.stats.received;
    let target: Vec<Option<Bitrate>> = shared.target.iter().map(published_rate).collect();
    let (mut summary, series) = metrics.finish(
        end,
        &config.name,
        seed,
        events,
        |i| goodput.get(i).copied().flatten(),
        |i| target.get(i).copied().flatten(),
    );
    // What produced it, as the simulator's summary says (crate docs: same outputs).
    for (fs, f) in summary.flows.iter_mut().zip(&config.flows) {
        fs.group.clone_from(&f.info.group);
    }
    summary.coupling = Some(flowstate_sim::metrics::CouplingSummary {
        mechanism: scenario
            .coupling
            .as_ref()
            .map_or_else(|| "none".to_string(), |c| c.mechanism.clone()),
        groups_mode: scenario.groups_mode().name().to_string(),
    });
    summary.warnings = scenario.warnings();
    let mut sctp = Vec::new();
    for (i, ((fs, t), r)) in summary
        .flows
        .iter_mut()
        .zip(&s_flows)
        .zip(&r_flows)
        .enumerate()
    {
        fs.n_dd = match (&r.kind, &t.kind) {
            (RxKind::Gcc(r, _), TxKind::Gcc(s, _)) => r
                .delay_based_decreases()
                .or_else(|| s.delay_based_decreases()),
            _ => None,
        };
        if let (RxKind::Sctp(recv), TxKind::Sctp(s)) = (&r.kind, &t.kind) {
            let st = recv.stats();
            sctp.push(SctpTransfer {
                flow: i,
                bytes_delivered: st.bytes_delivered,
                messages_delivered: st.messages_delivered,
                order_errors: st.order_errors,
                bytes_written: s.inner().bytes_written().as_bytes(),
                established: r.established,
                shut_down: r.shut_down,
            });
        }
    }
    Ok(TestbedResult {
        run: RunResult {
            summary,
            series,
            // The emulator's own per-packet records (`bottleneck`) describe its link.
            link_series: Vec::new(),
            trace: None,
            trace_hash: None, // a real run has no simulated trace
            events,
        },
        sender: s_io.stats,
        receiver: r_io.stats,
        bottleneck: report,
        sender_pcap: s_io.pcap.into_bytes(),
        receiver_pcap: r_io.pcap.into_bytes(),
        sctp,
        interrupted,
    })
}
