//! The I/O layer of the IP-level bottleneck: two TUN devices in a router network
//! namespace, one per direction, each with the simulator's link model
//! ([`PathCore`]) between reading a packet from the device and writing it back.
//!
//! The host routes every packet from the sender's side into the forward device and
//! every packet from the receiver's side into the reverse device (policy routing by
//! input interface, set up by the caller, e.g. `flowstate.browser.topology`); a packet
//! written back into a device enters the router's stack again and is forwarded on by
//! the normal routing table. So any program (a browser, kernel TCP) crosses the
//! bottleneck without knowing about it, and nothing pushes back on the sender: the
//! TUN driver frees a packet's socket memory as soon as it is queued for reading, so
//! the only queue that fills is the model's drop-tail queue.
//!
//! Threads: one reader per device (poll(2) with a timeout, stamp, classify
//! ([`classify`]), capture, hand over) and one scheduler per direction (shared with
//! the UDP emulator, [`crate::emulator`]).
//!
//! ECN: the reader takes each packet's codepoint from its header ([`ip::ecn`]) into the
//! link model, with the 5-tuple's hash as its flow (what a flow-queuing discipline
//! hashes); a packet the model marked is written back with CE in its header and the
//! IPv4 checksum updated. Every other packet is written back exactly as it was read.
//!
//! [`ip::ecn`]: crate::ip::ecn

use crate::clock::WallClock;
use crate::config::PathConfig;
use crate::core::{Arrival, PathCore};
use crate::emulator::{
    duration, invalid, spawn_scheduler, spawn_thread, validate_paths, Egress, Msg, Packet, Timing,
};
use crate::ip::ecn;
use crate::ip::packet::{classify, PacketInfo};
use crate::stats::PathStats;
use flowstate_core::{DataSize, Ecn};
use flowstate_sim::link::LinkId;
use flowstate_wire::pcap::PcapWriter;
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Largest IP packet read from a device (the IPv4 total length field's limit).
const MAX_PACKET: usize = 65_535;

/// Bytes of each packet kept in the captures by default: IPv4 + UDP + the RTP or
/// DTLS header, or IPv4 + TCP with options.
pub const DEFAULT_SNAP: usize = 96;

/// Both directions' bottlenecks and where their devices live.
#[derive(Debug, Clone, PartialEq)]
pub struct IpBottleneckConfig {
    pub forward: PathConfig,
    pub reverse: PathConfig,
    /// The network namespace the devices are made in (`ip netns` name or a path);
    /// `None`: the caller's own.
    pub netns: Option<String>,
    /// Names of the TUN devices to create (at most 15 bytes each, distinct).
    pub forward_device: String,
    pub reverse_device: String,
    /// Bytes of each packet kept in the captures (0: no capture).
    pub snap: usize,
}

/// What one direction saw.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DirectionReport {
    /// Counters and one record per packet offered to the link (index = packet id).
    pub stats: PathStats,
    /// What each offered packet was, same index as `stats.records`.
    pub packets: Vec<PacketInfo>,
    /// pcap (LINKTYPE_RAW) of every packet offered, at its arrival, truncated to the
    /// configured snap length; timestamps are Unix time.
    pub capture: Vec<u8>,
}

/// What the bottleneck saw, per direction.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct IpBottleneckReport {
    pub forward: DirectionReport,
    pub reverse: DirectionReport,
    /// Unix time (microseconds) of the records' zero.
    pub start_unix_us: u64,
    /// Whether every thread got real-time scheduling.
    pub realtime: bool,
}

/// A running IP-level bottleneck.
#[derive(Debug)]
pub struct IpBottleneck {
    stop: Arc<AtomicBool>,
    start_unix_us: u64,
    realtime: Arc<AtomicBool>,
    readers: Vec<JoinHandle<ReaderLog>>,
    schedulers: Vec<JoinHandle<PathStats>>,
}

/// What a reader keeps of each packet it hands over.
#[derive(Debug, Default)]
struct ReaderLog {
    packets: Vec<PacketInfo>,
    capture: Option<PcapWriter>,
}

/// A TUN device shared by its reader (receive) and its direction's scheduler (send).
#[derive(Clone)]
struct Device(Arc<tun::Device>);

impl std::fmt::Debug for Device {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Device")
    }
}

impl Egress for Device {
    fn send(&self, _route: usize, packet: &mut Packet, leaving: Ecn) -> io::Result<()> {
        if leaving.is_ce() {
            // Only an ECT(0) / ECT(1) header changes (`mark_ce` leaves anything else).
            ecn::mark_ce(&mut packet.bytes);
        }
        self.0.send(&packet.bytes).map(|_| ())
    }
}

/// Create TUN device `name` (layer 3, no packet-information header, up) in the
/// calling thread's namespace.
fn create_device(name: &str) -> io::Result<Device> {
    let mut config = tun::Configuration::default();
    config.tun_name(name).layer(tun::Layer::L3).up();
    let device = tun::create(&config)
        .map_err(|e| io::Error::other(format!("cannot create TUN device {name}: {e}")))?;
    Ok(Device(Arc::new(device)))
}

fn unix_now_us() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_micros()).unwrap_or(u64::MAX))
}

impl IpBottleneck {
    /// Create both devices and start the threads. The devices exist (and the caller
    /// may route through them) when this returns; they disappear when the bottleneck
    /// stops or the process ends, with the routes that use them.
    pub fn start(cfg: IpBottleneckConfig, timing: Timing) -> io::Result<IpBottleneck> {
        validate_paths(&cfg.forward, &cfg.reverse)?;
        timing.validate()?;
        for name in [&cfg.forward_device, &cfg.reverse_device] {
            if name.is_empty() || name.len() > 15 || name.contains(['/', ' ']) {
                return Err(invalid(format!(
                    "device: '{name}' is not a valid interface name (1-15 bytes, no '/' or space)"
                )));
            }
        }
        if cfg.forward_device == cfg.reverse_device {
            return Err(invalid(
                "device: the forward and reverse devices need different names".into(),
            ));
        }
        let make = || -> io::Result<(Device, Device)> {
            Ok((
                create_device(&cfg.forward_device)?,
                create_device(&cfg.reverse_device)?,
            ))
        };
        let (fwd_dev, rev_dev) = match &cfg.netns {
            Some(ns) => crate::netns::in_netns(ns, make)?,
            None => make()?,
        };
        let stop = Arc::new(AtomicBool::new(false));
        let realtime = Arc::new(AtomicBool::new(timing.realtime));
        let clock = WallClock::new(Instant::now());
        let start_unix_us = unix_now_us();
        let (fwd_tx, fwd_rx) = mpsc::channel();
        let (rev_tx, rev_rx) = mpsc::channel();
        let reader = |dev: &Device, tx, name: &str| {
            spawn_reader(
                name,
                dev.clone(),
                tx,
                ReaderSetup {
                    clock,
                    start_unix_us,
                    snap: cfg.snap,
                    stop: stop.clone(),
                    realtime: realtime.clone(),
                    timing,
                },
            )
        };
        let readers = vec![
            reader(&fwd_dev, fwd_tx, "ipemu-read-fwd")?,
            reader(&rev_dev, rev_tx, "ipemu-read-rev")?,
        ];
        let schedulers = vec![
            spawn_scheduler(
                "ipemu-forward",
                PathCore::new(&cfg.forward, LinkId::FORWARD),
                fwd_rx,
                fwd_dev,
                clock,
                stop.clone(),
                timing,
            )?,
            spawn_scheduler(
                "ipemu-reverse",
                PathCore::new(&cfg.reverse, LinkId::REVERSE),
                rev_rx,
                rev_dev,
                clock,
                stop.clone(),
                timing,
            )?,
        ];
        Ok(IpBottleneck {
            stop,
            start_unix_us,
            realtime,
            readers,
            schedulers,
        })
    }

    /// Unix time (microseconds) of the records' zero.
    pub fn start_unix_us(&self) -> u64 {
        self.start_unix_us
    }

    /// Stop every thread, close the devices and return what each direction saw.
    /// Packets still in a link are not sent.
    pub fn stop(mut self) -> IpBottleneckReport {
        self.stop.store(true, Ordering::SeqCst);
        let mut logs = self.readers.drain(..).map(|h| h.join().unwrap_or_default());
        let mut stats = self
            .schedulers
            .drain(..)
            .map(|h| h.join().unwrap_or_default());
        let mut direction = || {
            let log = logs.next().unwrap_or_default();
            let stats = stats.next().unwrap_or_default();
            debug_assert_eq!(log.packets.len(), stats.records.len());
            DirectionReport {
                stats,
                packets: log.packets,
                capture: log.capture.map(PcapWriter::into_bytes).unwrap_or_default(),
            }
        };
        let forward = direction();
        let reverse = direction();
        IpBottleneckReport {
            forward,
            reverse,
            start_unix_us: self.start_unix_us,
            realtime: self.realtime.load(Ordering::SeqCst),
        }
    }
}

impl Drop for IpBottleneck {
    fn drop(&mut self) {
        // Dropped without stop(): the threads wind down and close the devices.
        self.stop.store(true, Ordering::SeqCst);
    }
}

/// What every reader shares.
#[derive(Debug, Clone)]
struct ReaderSetup {
    clock: WallClock,
    start_unix_us: u64,
    snap: usize,
    stop: Arc<AtomicBool>,
    /// Cleared by any thread that asked for real-time scheduling and was refused.
    realtime: Arc<AtomicBool>,
    timing: Timing,
}

fn spawn_reader(
    name: &str,
    dev: Device,
    tx: Sender<Msg>,
    setup: ReaderSetup,
) -> io::Result<JoinHandle<ReaderLog>> {
    spawn_thread(name.to_string(), setup.timing, move |granted| {
        if setup.timing.realtime && !granted {
            setup.realtime.store(false, Ordering::SeqCst);
        }
        read_loop(&dev, &tx, &setup)
    })
}

/// Read packets until stopped: each one is stamped on arrival, classified, captured
/// and handed to the direction's scheduler, in that order, so that the k-th packet
/// logged is the link's k-th record.
fn read_loop(dev: &Device, tx: &Sender<Msg>, setup: &ReaderSetup) -> ReaderLog {
    let mut log = ReaderLog {
        packets: Vec::new(),
        capture: (setup.snap > 0).then(PcapWriter::new),
    };
    let mut buf = vec![0u8; MAX_PACKET + 1];
    let poll = duration(setup.timing.poll);
    while !setup.stop.load(Ordering::Relaxed) {
        let msg = match dev.0.recv_timeout(&mut buf, poll) {
            Ok(0) => Msg::Malformed,
            Ok(n) => {
                let at = setup.clock.now();
                let packet = &buf[..n];
                let info = classify(packet);
                log.packets.push(info);
                if let Some(c) = log.capture.as_mut() {
                    c.raw(setup.start_unix_us + at.as_micros(), packet, setup.snap);
                }
                let codepoint = ecn::codepoint(packet).unwrap_or(Ecn::NotEct);
                Msg::Datagram {
                    at,
                    arrival: Arrival::new(0, DataSize::bytes(n as u64))
                        .with_ecn(codepoint)
                        .with_flow(info.flow_hash()),
                    packet: Packet {
                        bytes: packet.to_vec(),
                        traffic_class: codepoint.bits(),
                    },
                }
            }
            Err(e) if e.kind() == io::ErrorKind::TimedOut => continue,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => {
                std::thread::sleep(Duration::from_millis(1));
                Msg::IoError
            }
        };
        if tx.send(msg).is_err() {
            break;
        }
    }
    log
}
