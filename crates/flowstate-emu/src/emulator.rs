//! The I/O layer: UDP sockets and threads around two [`PathCore`]s on the wall clock.
//!
//! Threads: one receiver per socket (blocking `recv_from` with a short timeout, stamps
//! each datagram on arrival and classifies it) and one scheduler per direction (owns the
//! path's core; blocks on its channel until close to the next deadline, then spins, and
//! sends every departure that is due). Nothing a peer sends can stop or crash it: empty
//! datagrams, datagrams from unexpected addresses and socket errors are counted and
//! dropped; any non-empty payload is carried unchanged (the emulator does not parse).
//!
//! ECN: every socket reads each datagram's TOS / traffic-class byte
//! ([`crate::ecn_socket`]); its ECN bits enter the link model, and the datagram leaves
//! with the same byte, its ECN bits CE when the model marked it.

use crate::clock::{block_for, WallClock};
use crate::config::PathConfig;
use crate::core::{Arrival, PathCore};
use crate::ecn_socket;
use crate::stats::PathStats;
use flowstate_core::{DataSize, Ecn, TimeDelta, Timestamp};
use flowstate_sim::link::LinkId;
use std::io;
use std::net::{SocketAddr, UdpSocket};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender, TryRecvError};
use std::sync::{Arc, OnceLock};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Largest UDP payload (IPv4: 65 535 - 20 - 8); the receive buffer is one larger so
/// nothing is silently truncated.
pub const MAX_DATAGRAM: usize = 65_507;

/// One sender/receiver pair through the emulator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Route {
    /// Bind address; the sender sends here (port 0: any, see [`Emulator::route_addrs`]).
    pub sender_facing: SocketAddr,
    /// Bind address; forward datagrams leave from here and the receiver answers here.
    pub receiver_facing: SocketAddr,
    /// Where forward datagrams go.
    pub receiver: SocketAddr,
}

/// Both bottlenecks and the routes sharing them.
#[derive(Debug, Clone, PartialEq)]
pub struct EmulatorConfig {
    pub forward: PathConfig,
    pub reverse: PathConfig,
    pub routes: Vec<Route>,
}

/// Wall-clock tuning of the I/O layer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Timing {
    /// Busy-wait this long before a deadline instead of sleeping (sleep overshoot).
    pub spin: TimeDelta,
    /// Longest block (socket read timeout, idle wait): bounds the stop latency.
    pub poll: TimeDelta,
    /// Ask for real-time scheduling (SCHED_FIFO) for every emulator thread; granted
    /// only with root ([`crate::realtime`]), otherwise the threads run as normal.
    pub realtime: bool,
}

/// Default busy-wait window before a departure: covers the typical futex-timeout
/// overshoot (timer slack 50 us plus wake-up latency) on a loaded Linux host.
pub const DEFAULT_SPIN: TimeDelta = TimeDelta::from_micros(400);
/// Busy-wait window of a thread with real-time scheduling: a SCHED_FIFO thread has no
/// timer slack and preempts normal threads when its sleep ends, so it wakes within
/// tens of microseconds. A longer spin would cost more than it buys: at 50 Mbit/s a
/// departure is due every ~200 us, so a 400 us window spins without pause, and the
/// kernel's RT throttling then stops the thread for 50 ms of every second (measured:
/// p99 timing error 17 ms at 50 Mbit/s with 400 us, docs/BENCHMARKS.md).
pub const REALTIME_SPIN: TimeDelta = TimeDelta::from_micros(50);
/// Default longest block.
pub const DEFAULT_POLL: TimeDelta = TimeDelta::millis(20);

impl Timing {
    /// Real-time scheduling with its shorter spin window ([`REALTIME_SPIN`]).
    pub fn realtime() -> Self {
        Self {
            spin: REALTIME_SPIN,
            realtime: true,
            ..Self::default()
        }
    }

    pub(crate) fn validate(&self) -> io::Result<()> {
        if self.spin >= TimeDelta::ZERO && self.poll.is_positive() {
            Ok(())
        } else {
            Err(invalid(format!(
                "timing: spin must be >= 0 and poll > 0, got {} / {}",
                self.spin, self.poll
            )))
        }
    }
}

impl Default for Timing {
    fn default() -> Self {
        Self {
            spin: DEFAULT_SPIN,
            poll: DEFAULT_POLL,
            realtime: false,
        }
    }
}

/// What the emulator saw, per direction.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EmulatorReport {
    pub forward: PathStats,
    pub reverse: PathStats,
}

/// A datagram (UDP relay) or an IP packet (IP level) in a path: its bytes and the TOS /
/// traffic-class byte it arrived with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Packet {
    pub(crate) bytes: Vec<u8>,
    pub(crate) traffic_class: u8,
}

/// What a receiver thread hands its path's scheduler.
#[derive(Debug)]
pub(crate) enum Msg {
    Datagram {
        at: Timestamp,
        arrival: Arrival,
        packet: Packet,
    },
    Foreign,
    Malformed,
    IoError,
}

/// Where a path's departures for a route go.
#[derive(Debug, Clone)]
enum Dest {
    Fixed(SocketAddr),
    /// The route's sender, once learned.
    Learned(Arc<OnceLock<SocketAddr>>),
}

impl Dest {
    fn addr(&self) -> Option<SocketAddr> {
        match self {
            Dest::Fixed(a) => Some(*a),
            Dest::Learned(l) => l.get().copied(),
        }
    }
}

/// Where a path's scheduler sends what leaves the bottleneck: UDP sockets per route
/// here, a TUN device in [`crate::ip`]. `ecn` is the codepoint the packet leaves with
/// (CE when the link marked it); the egress writes it into the real header.
pub(crate) trait Egress: Send + 'static {
    fn send(&self, route: usize, packet: &mut Packet, ecn: Ecn) -> io::Result<()>;
}

/// One socket (and destination) per route.
struct UdpEgress(Vec<(UdpSocket, Dest)>);

impl Egress for UdpEgress {
    fn send(&self, route: usize, packet: &mut Packet, ecn: Ecn) -> io::Result<()> {
        let (sock, dest) = self
            .0
            .get(route)
            .ok_or_else(|| io::Error::other("no such route"))?;
        let addr = dest
            .addr()
            .ok_or_else(|| io::Error::new(io::ErrorKind::NotConnected, "sender not known yet"))?;
        // The arriving byte with the leaving codepoint in its two ECN bits.
        let traffic_class = (packet.traffic_class & !0b11) | ecn.bits();
        ecn_socket::send_to(sock, &packet.bytes, addr, traffic_class).map(|_| ())
    }
}

/// A running emulator.
#[derive(Debug)]
pub struct Emulator {
    stop: Arc<AtomicBool>,
    clock: WallClock,
    addrs: Vec<(SocketAddr, SocketAddr)>,
    receivers: Vec<JoinHandle<()>>,
    schedulers: Vec<JoinHandle<PathStats>>,
}

pub(crate) fn invalid(msg: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, msg)
}

/// Both directions' paths checked, as one I/O error naming the field.
pub(crate) fn validate_paths(forward: &PathConfig, reverse: &PathConfig) -> io::Result<()> {
    forward
        .validate("forward")
        .and_then(|()| reverse.validate("reverse"))
        .map_err(|e| invalid(e.to_string()))
}

pub(crate) fn duration(t: TimeDelta) -> Duration {
    Duration::from_micros(t.as_micros().max(1).unsigned_abs())
}

impl Emulator {
    /// Bind every route's sockets and start the threads, with default [`Timing`].
    pub fn start(cfg: EmulatorConfig) -> io::Result<Emulator> {
        Self::start_with(cfg, Timing::default())
    }

    /// As [`Emulator::start`] with explicit timing.
    pub fn start_with(cfg: EmulatorConfig, timing: Timing) -> io::Result<Emulator> {
        validate_paths(&cfg.forward, &cfg.reverse)?;
        if cfg.routes.is_empty() {
            return Err(invalid("routes: at least one route is required".into()));
        }
        timing.validate()?;
        let mut sender_side = Vec::new();
        let mut receiver_side = Vec::new();
        let mut addrs = Vec::new();
        for r in &cfg.routes {
            let s = UdpSocket::bind(r.sender_facing)?;
            let q = UdpSocket::bind(r.receiver_facing)?;
            for sock in [&s, &q] {
                sock.set_read_timeout(Some(duration(timing.poll)))?;
                ecn_socket::receive_traffic_class(sock)?;
            }
            addrs.push((s.local_addr()?, q.local_addr()?));
            sender_side.push(s);
            receiver_side.push(q);
        }
        let stop = Arc::new(AtomicBool::new(false));
        let clock = WallClock::new(Instant::now());
        let senders: Vec<Arc<OnceLock<SocketAddr>>> = cfg
            .routes
            .iter()
            .map(|_| Arc::new(OnceLock::new()))
            .collect();
        let (fwd_tx, fwd_rx) = mpsc::channel();
        let (rev_tx, rev_rx) = mpsc::channel();
        let mut receivers = Vec::new();
        for (i, r) in cfg.routes.iter().enumerate() {
            // Forward: from the route's sender (learned from its first datagram).
            let learned = senders[i].clone();
            receivers.push(spawn_receiver(
                sender_side[i].try_clone()?,
                i,
                fwd_tx.clone(),
                clock,
                stop.clone(),
                timing,
                move |from| *learned.get_or_init(|| from) == from,
            )?);
            // Reverse: from the configured receiver, once the sender is known.
            let learned = senders[i].clone();
            let receiver = r.receiver;
            receivers.push(spawn_receiver(
                receiver_side[i].try_clone()?,
                i,
                rev_tx.clone(),
                clock,
                stop.clone(),
                timing,
                move |from| from == receiver && learned.get().is_some(),
            )?);
        }
        drop((fwd_tx, rev_tx));
        let fwd_out = UdpEgress(
            receiver_side
                .into_iter()
                .zip(&cfg.routes)
                .map(|(s, r)| (s, Dest::Fixed(r.receiver)))
                .collect(),
        );
        let rev_out = UdpEgress(
            sender_side
                .into_iter()
                .zip(&senders)
                .map(|(s, l)| (s, Dest::Learned(l.clone())))
                .collect(),
        );
        let schedulers = vec![
            spawn_scheduler(
                "emu-forward",
                PathCore::new(&cfg.forward, LinkId::FORWARD),
                fwd_rx,
                fwd_out,
                clock,
                stop.clone(),
                timing,
            )?,
            spawn_scheduler(
                "emu-reverse",
                PathCore::new(&cfg.reverse, LinkId::REVERSE),
                rev_rx,
                rev_out,
                clock,
                stop.clone(),
                timing,
            )?,
        ];
        Ok(Emulator {
            stop,
            clock,
            addrs,
            receivers,
            schedulers,
        })
    }

    /// The bound `(sender_facing, receiver_facing)` address of each route.
    pub fn route_addrs(&self) -> Vec<(SocketAddr, SocketAddr)> {
        self.addrs.clone()
    }

    /// The instant the records' microseconds count from.
    pub fn start_instant(&self) -> Instant {
        self.clock.start()
    }

    /// Stop every thread and return what each direction saw. Datagrams still in a
    /// link are not sent.
    pub fn stop(mut self) -> EmulatorReport {
        self.stop.store(true, Ordering::SeqCst);
        for h in self.receivers.drain(..) {
            let _ = h.join();
        }
        let mut stats = self
            .schedulers
            .drain(..)
            .map(|h| h.join().unwrap_or_default());
        let forward = stats.next().unwrap_or_default();
        let reverse = stats.next().unwrap_or_default();
        EmulatorReport { forward, reverse }
    }
}

impl Drop for Emulator {
    fn drop(&mut self) {
        // Dropped without stop(): let the threads wind down on their own.
        self.stop.store(true, Ordering::SeqCst);
    }
}

#[allow(clippy::too_many_arguments)]
fn spawn_receiver(
    sock: UdpSocket,
    route: usize,
    tx: Sender<Msg>,
    clock: WallClock,
    stop: Arc<AtomicBool>,
    timing: Timing,
    accept: impl Fn(SocketAddr) -> bool + Send + 'static,
) -> io::Result<JoinHandle<()>> {
    spawn_thread(format!("emu-recv-{route}"), timing, move |_| {
        let mut buf = vec![0u8; MAX_DATAGRAM + 1];
        while !stop.load(Ordering::Relaxed) {
            let msg = match ecn_socket::recv_from(&sock, &mut buf) {
                Ok((n, from, traffic_class)) => {
                    let at = clock.now();
                    if n == 0 {
                        Msg::Malformed
                    } else if !accept(from) {
                        Msg::Foreign
                    } else {
                        Msg::Datagram {
                            at,
                            arrival: Arrival::new(route, DataSize::bytes(n as u64))
                                .with_ecn(Ecn::from_bits(traffic_class)),
                            packet: Packet {
                                bytes: buf[..n].to_vec(),
                                traffic_class,
                            },
                        }
                    }
                }
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                    ) =>
                {
                    continue
                }
                Err(_) => {
                    // E.g. ECONNREFUSED from an earlier ICMP error: count, back off.
                    std::thread::sleep(Duration::from_millis(1));
                    Msg::IoError
                }
            };
            if tx.send(msg).is_err() {
                break;
            }
        }
    })
}

/// Start the thread that owns one direction's [`PathCore`]: it takes arrivals from
/// `rx` and sends each departure through `out` when it is due.
pub(crate) fn spawn_scheduler(
    name: &str,
    core: PathCore<Packet>,
    rx: Receiver<Msg>,
    out: impl Egress,
    clock: WallClock,
    stop: Arc<AtomicBool>,
    timing: Timing,
) -> io::Result<JoinHandle<PathStats>> {
    spawn_thread(name.to_string(), timing, move |_| {
        run_scheduler(core, rx, out, clock, stop, timing)
    })
}

/// Start a named emulator thread running `f`; with `timing.realtime` the thread first
/// asks for real-time scheduling, and `f` learns whether it got it.
pub(crate) fn spawn_thread<T: Send + 'static>(
    name: String,
    timing: Timing,
    f: impl FnOnce(bool) -> T + Send + 'static,
) -> io::Result<JoinHandle<T>> {
    std::thread::Builder::new().name(name).spawn(move || {
        let granted = timing.realtime && crate::realtime::make_current_thread_realtime();
        f(granted)
    })
}

fn handle(core: &mut PathCore<Packet>, msg: Msg) {
    match msg {
        Msg::Datagram {
            at,
            arrival,
            packet,
        } => {
            core.offer_arrival(at, arrival, packet);
        }
        Msg::Foreign => core.count_foreign(),
        Msg::Malformed => core.count_malformed(),
        Msg::IoError => core.count_io_error(),
    }
}

fn run_scheduler(
    mut core: PathCore<Packet>,
    rx: Receiver<Msg>,
    out: impl Egress,
    clock: WallClock,
    stop: Arc<AtomicBool>,
    timing: Timing,
) -> PathStats {
    let mut inputs_open = true;
    while !stop.load(Ordering::Relaxed) {
        let now = clock.now();
        while let Some(mut d) = core.pop_due(now) {
            match out.send(d.route, &mut d.payload, d.ecn) {
                Ok(()) => core.mark_sent(d.id, clock.now()),
                Err(_) => core.count_io_error(),
            }
        }
        let wait = match core.next_deadline() {
            Some(deadline) => block_for(clock.now(), deadline, timing.spin),
            None => Some(duration(timing.poll)),
        };
        match wait {
            Some(w) if inputs_open => match rx.recv_timeout(w.min(duration(timing.poll))) {
                Ok(msg) => handle(&mut core, msg),
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => inputs_open = false,
            },
            Some(w) => std::thread::sleep(w.min(duration(timing.poll))),
            None if inputs_open => match rx.try_recv() {
                Ok(msg) => handle(&mut core, msg),
                Err(TryRecvError::Empty) => std::hint::spin_loop(),
                Err(TryRecvError::Disconnected) => inputs_open = false,
            },
            None => std::hint::spin_loop(),
        }
    }
    core.into_stats()
}
