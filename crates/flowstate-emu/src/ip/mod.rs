//! The IP-level bottleneck: the emulator's link model between network namespaces, for
//! programs that do not use the testbed's endpoints (a real browser, kernel TCP).
//!
//! - [`packet`]: what a packet is (5-tuple; RTP / RTCP / DTLS / STUN by RFC 7983);
//! - [`ecn`]: the ECN field of its header, read on arrival and set to CE on a mark;
//! - [`router`]: TUN devices in a router namespace and the threads around two
//!   [`crate::core::PathCore`]s (Linux only).

pub mod ecn;
pub mod packet;
#[cfg(target_os = "linux")]
pub mod router;

pub use packet::{classify, PacketClass, PacketInfo};
#[cfg(target_os = "linux")]
pub use router::{DirectionReport, IpBottleneck, IpBottleneckConfig, IpBottleneckReport};
