//! The wall-clock driver: one sender-side and one receiver-side event loop (a thread
//! each), each with one UDP socket that multiplexes every flow of the scenario (one
//! 5-tuple per direction; RTP/RTCP told apart from SCTP by the first byte, flows by
//! SSRC and SCTP port, see [`crate::codec`]).
//!
//! Each loop: hand every datagram that arrives to its flow's endpoint, run due timers,
//! drain `poll_transmit`, then sleep in `recv_from` until the earliest `poll_timeout`
//! (at most [`MAX_WAIT`]). Time is `Instant` since the run's start as a
//! [`Timestamp`](flowstate_core::Timestamp). The sender loop starts/stops flows on the
//! scenario's schedule and drives the coupling manager exactly as the simulator's engine
//! does (the same [`CouplingHook`](flowstate_sim::coupling::CouplingHook), reports after
//! every drain, allowances applied at once). LEDBAT flows travel as uTP (see
//! [`crate::codec`]). SCTP flows open a real association (INIT / INIT-ACK / COOKIE-ECHO /
//! COOKIE-ACK) when they start and close it (SHUTDOWN / SHUTDOWN-ACK / SHUTDOWN-COMPLETE)
//! at the end; the endpoint runs, and the flow registers with the coupling manager, once
//! the association is up.
//!
//! Metrics: the simulator's [`Metrics`] collector, shared by both loops. Sending rate
//! at the sender; throughput, goodput, queuing delay (one-way delay minus the flow's
//! smallest one-way delay: both sides share one clock) and loss (gaps in the RTP
//! sequence numbers / first-seen SCTP TSNs) at the receiver; RTT samples from the
//! sender endpoints. Datagrams that do not decode are counted and dropped.
//!
//! One file per part: `flows.rs` (per flow kind, the endpoints and their datagrams),
//! `sender_loop.rs`, `receiver_loop.rs`, `io.rs` (a side's socket, counters, capture),
//! `shared.rs` (what the loops share), `arrivals.rs` (queuing delay and losses at the
//! receiver), `timing.rs` (clock and waits), `error.rs`; this file builds and runs them.

mod arrivals;
mod error;
mod flows;
mod io;
mod receiver_loop;
mod sender_loop;
mod shared;
#[cfg(test)]
mod test_support;
mod timing;

pub use error::TestbedError;
pub use io::{
    SideStats, MAX_DATAGRAM, PCAP_RTCP_PORT, PCAP_RTP_PORT, PCAP_SCTP_PORT, PCAP_UTP_PORT,
};
pub use sender_loop::{HANDSHAKE_RTO, MAX_REPORTS_PER_DRAIN, SHUTDOWN_GRACE};
pub use timing::{MAX_WAIT, MIN_WAIT};

use arrivals::Arrivals;
use flows::{flow_endpoints, Assoc, RxFlow, RxKind, TxFlow, TxKind};
use io::Io;
use receiver_loop::ReceiverLoop;
use sender_loop::SenderLoop;
use shared::{published_rate, Shared, NO_GOODPUT, NO_TARGET};
use timing::Clock;

use crate::netns::{bind_udp_in, NetnsSides};
use flowstate_core::{Bitrate, TimeDelta};
use flowstate_emu::{Emulator, EmulatorConfig, EmulatorReport, PathConfig, Route};
use flowstate_sim::coupling::{CouplingFactory, DefaultCouplingFactory, FlowInfo};
use flowstate_sim::endpoints::FlowContext;
use flowstate_sim::engine::SimConfig;
use flowstate_sim::flow::{FlowState, ReceiverHooks, SenderHooks};
use flowstate_sim::metrics::{fill_series, video_summary, FlowMeta, Metrics};
use flowstate_sim::scheduler::{component_rng, ComponentId};
use flowstate_sim::{RunResult, Scenario};
use flowstate_wire::pcap::PcapWriter;
use rand::RngExt;
use std::net::{SocketAddr, UdpSocket};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::Instant;

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

// ------------------------------------------------------------------- the run

/// Flow `i`'s seed for its endpoints' random draws, as the simulator draws it.
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
        gcc_report: None,
    };
    let mut tx = Vec::new();
    let mut rx = Vec::new();
    for (i, (spec, setup)) in scenario.flows.iter().zip(&config.flows).enumerate() {
        let fseed = flow_seed(seed, i);
        let (t, r) = flow_endpoints(&ctx, i, spec, fseed)?;
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
            ect_sent: false,
        });
        rx.push(RxFlow {
            kind: r,
            arrivals: Arrivals::default(),
            established: false,
            shut_down: false,
            ce_marks: 0,
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

    let reports_goodput: Vec<bool> = rx.iter().map(|f| f.kind.reports_goodput()).collect();

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
    // Each side reads the ECN codepoint of every datagram that arrives.
    for sock in [&s_sock, &r_sock] {
        flowstate_emu::ecn_socket::receive_traffic_class(sock)?;
    }
    let s_addr = s_sock.local_addr()?;
    let r_addr = r_sock.local_addr()?;
    // The packets cross flowstate-emu's bottleneck: one route, from the
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
        goodput: reports_goodput
            .iter()
            .map(|&g| AtomicU64::new(if g { 0 } else { NO_GOODPUT }))
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
    let (r_io, mut r_flows) = r_out
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
    let (mut summary, mut series) = metrics.finish(
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
        .zip(r_flows.iter_mut())
        .enumerate()
    {
        // A video flow's frame figures, as the simulator's summary and series have them.
        if let Some((log, playout)) = video_sides(&mut r.kind, &t.kind, end) {
            let m = &config.metrics;
            let (start, stop) = (m.window_start.min(end), m.window_end.min(end));
            fs.video = Some(video_summary(log, playout, start, stop));
        }
        // ECN counts of an ECN-capable flow, as the simulator's summary has them.
        if t.ect_sent {
            fs.ce_marks = Some(r.ce_marks);
            fs.ecn_responses = t.kind.ecn_responses();
        }
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
    let videos: Vec<(&str, &flowstate_core::playout::FramePlayout)> = summary
        .flows
        .iter()
        .zip(&r_flows)
        .filter(|(fs, _)| fs.video.is_some())
        .filter_map(|(fs, r)| Some((fs.name.as_str(), rx_playout(&r.kind)?)))
        .collect();
    fill_series(&mut series, &videos, config.metrics.bin, end);
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

/// A video flow's encoder log and receiver playout, the playout advanced to `end`
/// (`None`: not a video flow).
fn video_sides<'a>(
    rx: &'a mut RxKind,
    tx: &'a TxKind,
    end: flowstate_core::Timestamp,
) -> Option<(
    &'a flowstate_core::playout::EncoderLog,
    &'a flowstate_core::playout::FramePlayout,
)> {
    match (rx, tx) {
        (RxKind::Gcc(r, _), TxKind::Gcc(s, _)) => {
            r.advance_playout(end);
            Some((s.inner().encoder_log(), r.playout()))
        }
        (RxKind::Ccfb(r), TxKind::Nada(s, _)) => {
            r.advance_playout(end);
            Some((s.inner().encoder_log(), r.playout()))
        }
        (RxKind::Ccfb(r), TxKind::Scream(s, _)) => {
            r.advance_playout(end);
            Some((s.inner().encoder_log(), r.playout()))
        }
        _ => None,
    }
}

/// A video flow's receiver playout (`None`: not a video flow).
fn rx_playout(rx: &RxKind) -> Option<&flowstate_core::playout::FramePlayout> {
    match rx {
        RxKind::Gcc(r, _) => Some(r.playout()),
        RxKind::Ccfb(r) => Some(r.playout()),
        _ => None,
    }
}
