//! # flowstate-emu
//!
//! A user-space bottleneck emulator: UDP datagrams sent to the
//! emulator's sender-facing sockets cross a *forward* bottleneck and leave towards the
//! receiver; datagrams the receiver sends back cross a *reverse* bottleneck. Each
//! bottleneck is the flowstate-sim link model ([`flowstate_sim::link::Link`]: drop-tail
//! queue limited in bytes, packets or time at the current rate, serialization at the
//! scheduled capacity, propagation delay, RFC 8868 truncated-Gaussian jitter without
//! reordering, Bernoulli loss, seeded ChaCha streams), driven on the wall clock.
//!
//! Layers, one job each:
//! - [`config`]: what a path is ([`PathConfig`], from a scenario's `[link]`);
//! - [`core`]: the sans-I/O shaper ([`PathCore`]) on a virtual clock: arrivals in,
//!   departures out, every decision recorded ([`PacketRecord`]);
//! - [`clock`]: precise waiting on the wall clock (sleep, then spin);
//! - [`emulator`]: sockets and threads ([`Emulator`]);
//! - [`ecn_socket`]: the ECN bits of UDP datagrams (TOS / traffic-class control
//!   messages);
//! - [`ip`]: the same link model as an IP-level bottleneck between network namespaces
//!   (TUN devices in a router namespace), for a real browser or kernel TCP;
//! - [`netns`], [`realtime`]: entering a network namespace, real-time scheduling.

pub mod clock;
pub mod config;
pub mod core;
pub mod ecn_socket;
pub mod emulator;
pub mod ip;
pub mod netns;
pub mod realtime;
pub mod stats;

pub use crate::config::{ConfigError, PathConfig, QueueLimit};
pub use crate::core::{Admission, Arrival, Departure, PathCore};
pub use crate::emulator::{Emulator, EmulatorConfig, EmulatorReport, Route, Timing};
pub use crate::stats::{PacketRecord, PathStats};
