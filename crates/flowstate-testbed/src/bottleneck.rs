//! A tiny user-space bottleneck between the two sides: a stand-in until
//! `flowstate-emu` (the project's emulator, written in parallel) is merged; then the
//! driver switches to `flowstate_emu::Emulator` and this module goes away.
//!
//! One thread, two UDP sockets: datagrams arriving at `sender_facing` cross the
//! forward path and leave from `receiver_facing` towards the receiver; datagrams
//! arriving at `receiver_facing` cross the reverse path and leave from `sender_facing`
//! towards the address the sender last used. A path is the simulator's link model
//! ([`LinkConfig`]): a drop-tail queue (bytes, packets, or time at the current rate),
//! serialization at the scheduled capacity, random loss after serialization, then the
//! one-way delay. Every datagram is charged its UDP payload plus
//! [`IP_UDP_OVERHEAD`] bytes. Jitter is not modelled (a documented limitation).

use crate::codec::IP_UDP_OVERHEAD;
use flowstate_core::Timestamp;
use flowstate_sim::link::LinkConfig;
use flowstate_sim::queue::QueueLimit;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;
use std::io;
use std::net::{SocketAddr, UdpSocket};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Longest sleep of the bottleneck thread between polls.
pub const POLL_INTERVAL: Duration = Duration::from_micros(500);
/// Largest datagram handled.
pub const MAX_DATAGRAM: usize = 65_535;

/// What a path did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PathStats {
    pub arrived: u64,
    pub forwarded: u64,
    pub queue_drops: u64,
    pub random_losses: u64,
}

/// What the bottleneck did in both directions.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BottleneckReport {
    pub forward: PathStats,
    pub reverse: PathStats,
}

struct Queued {
    bytes: Vec<u8>,
    arrival_us: u64,
}

struct Path {
    cfg: LinkConfig,
    queue: VecDeque<Queued>,
    queued_bytes: u64,
    busy_until_us: u64,
    in_flight: VecDeque<(u64, Vec<u8>)>,
    rng: ChaCha8Rng,
    stats: PathStats,
}

fn charged(b: &[u8]) -> u64 {
    b.len() as u64 + IP_UDP_OVERHEAD
}

impl Path {
    fn new(cfg: LinkConfig, seed: u64) -> Self {
        Self {
            cfg,
            queue: VecDeque::new(),
            queued_bytes: 0,
            busy_until_us: 0,
            in_flight: VecDeque::new(),
            rng: ChaCha8Rng::seed_from_u64(seed),
            stats: PathStats::default(),
        }
    }

    fn arrive(&mut self, now_us: u64, bytes: Vec<u8>) {
        self.stats.arrived += 1;
        let size = charged(&bytes);
        let rate = self.cfg.rate_at(Timestamp::from_micros(now_us));
        let full = match self.cfg.queue {
            QueueLimit::Bytes(b) => self.queued_bytes + size > b,
            QueueLimit::Packets(p) => self.queue.len() as u64 >= p,
            QueueLimit::Time(t) => {
                let limit = rate.as_bps() * t.as_secs_f64() / 8.0;
                (self.queued_bytes + size) as f64 > limit
            }
        };
        if full {
            self.stats.queue_drops += 1;
            return;
        }
        self.queued_bytes += size;
        self.queue.push_back(Queued {
            bytes,
            arrival_us: now_us,
        });
    }

    /// Serialize what the link finished by `now_us` (timings exact, not poll-bound).
    fn service(&mut self, now_us: u64) {
        while let Some(front) = self.queue.front() {
            let start = self.busy_until_us.max(front.arrival_us);
            if start > now_us {
                break;
            }
            let Some(q) = self.queue.pop_front() else {
                break;
            };
            let size = charged(&q.bytes);
            self.queued_bytes = self.queued_bytes.saturating_sub(size);
            let bps = self.cfg.rate_at(Timestamp::from_micros(start)).as_bps();
            let tx_us = if bps > 0.0 {
                (size as f64 * 8.0 / bps * 1e6).round() as u64
            } else {
                u64::MAX / 4
            };
            self.busy_until_us = start.saturating_add(tx_us);
            if self.cfg.loss > 0.0 && self.rng.random::<f64>() < self.cfg.loss {
                self.stats.random_losses += 1;
                continue;
            }
            let exit = self.busy_until_us + self.cfg.delay.as_micros().max(0) as u64;
            self.in_flight.push_back((exit, q.bytes));
        }
    }

    fn next_event_us(&self) -> Option<u64> {
        let s = self
            .queue
            .front()
            .map(|f| self.busy_until_us.max(f.arrival_us));
        let d = self.in_flight.front().map(|f| f.0);
        match (s, d) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
}

/// A running bottleneck.
#[derive(Debug)]
pub struct Bottleneck {
    sender_facing: SocketAddr,
    receiver_facing: SocketAddr,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<BottleneckReport>>,
}

impl Bottleneck {
    /// Start forwarding between a sender (whichever address sends to
    /// [`Bottleneck::sender_facing`]) and `receiver`. `origin` is the run's time zero
    /// (capacity schedules are relative to it).
    pub fn start(
        forward: LinkConfig,
        reverse: LinkConfig,
        receiver: SocketAddr,
        seed: u64,
        origin: Instant,
    ) -> io::Result<Self> {
        let a = UdpSocket::bind("127.0.0.1:0")?;
        let b = UdpSocket::bind("127.0.0.1:0")?;
        a.set_nonblocking(true)?;
        b.set_nonblocking(true)?;
        let sender_facing = a.local_addr()?;
        let receiver_facing = b.local_addr()?;
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let thread = std::thread::Builder::new()
            .name("testbed-bottleneck".into())
            .spawn(move || {
                let mut fwd = Path::new(forward, seed ^ 0xF0F0);
                let mut rev = Path::new(reverse, seed ^ 0x0F0F);
                let mut sender: Option<SocketAddr> = None;
                let mut buf = vec![0u8; MAX_DATAGRAM];
                while !flag.load(Ordering::Relaxed) {
                    let now = origin.elapsed().as_micros() as u64;
                    while let Ok((n, from)) = a.recv_from(&mut buf) {
                        sender = Some(from);
                        fwd.arrive(now, buf.get(..n).unwrap_or(&[]).to_vec());
                    }
                    while let Ok((n, _)) = b.recv_from(&mut buf) {
                        rev.arrive(now, buf.get(..n).unwrap_or(&[]).to_vec());
                    }
                    fwd.service(now);
                    rev.service(now);
                    while fwd.in_flight.front().is_some_and(|f| f.0 <= now) {
                        if let Some((_, p)) = fwd.in_flight.pop_front() {
                            if b.send_to(&p, receiver).is_ok() {
                                fwd.stats.forwarded += 1;
                            }
                        }
                    }
                    while rev.in_flight.front().is_some_and(|f| f.0 <= now) {
                        if let Some((_, p)) = rev.in_flight.pop_front() {
                            if let Some(s) = sender {
                                if a.send_to(&p, s).is_ok() {
                                    rev.stats.forwarded += 1;
                                }
                            }
                        }
                    }
                    let next = [fwd.next_event_us(), rev.next_event_us()]
                        .into_iter()
                        .flatten()
                        .min()
                        .map_or(POLL_INTERVAL, |t| {
                            Duration::from_micros(t.saturating_sub(now)).min(POLL_INTERVAL)
                        });
                    if !next.is_zero() {
                        std::thread::sleep(next);
                    }
                }
                BottleneckReport {
                    forward: fwd.stats,
                    reverse: rev.stats,
                }
            })?;
        Ok(Self {
            sender_facing,
            receiver_facing,
            stop,
            thread: Some(thread),
        })
    }

    /// Where the sender sends.
    pub fn sender_facing(&self) -> SocketAddr {
        self.sender_facing
    }
    /// Where the receiver sends.
    pub fn receiver_facing(&self) -> SocketAddr {
        self.receiver_facing
    }

    /// Stop and report.
    pub fn stop(mut self) -> BottleneckReport {
        self.stop.store(true, Ordering::Relaxed);
        self.thread
            .take()
            .and_then(|t| t.join().ok())
            .unwrap_or_default()
    }
}

impl Drop for Bottleneck {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
