//! # flowstate-core
//!
//! Sans-I/O coupled congestion control for real-time media and data flows: the Flow
//! State Exchange family of coupling managers ([`coupling`]) and the congestion
//! controllers they couple.
//!
//! ## Contract
//! - No networking, no clock, no threads, no global state: every call that depends on
//!   time takes `now: Timestamp` from the caller, and outputs are returned as data.
//! - Deterministic: the same sequence of calls gives the same results, bit for bit.
//! - Untrusted input (NaN rates, unknown flow ids, zero RTTs) yields typed errors or
//!   documented clamping, never a panic.
//!
//! Units live in [`units`]: [`Timestamp`] and [`TimeDelta`] in integer microseconds,
//! [`DataSize`] in bytes, [`Bitrate`] in bits per second.
//!
//! The coupling managers, the Web-API rule, shared bottleneck detection, the units and
//! the name rule are the crate flowstate-coupling (which an embedder can use alone),
//! re-exported here under their paths: `flowstate_core::coupling`,
//! `flowstate_core::sbd`, `flowstate_core::units`, `flowstate_core::names`.

pub use ecn::Ecn;
pub use flowstate_coupling::{coupling, names, sbd, units};
pub use flowstate_coupling::{Bitrate, DataSize, TimeDelta, Timestamp};

pub mod config_options;
pub mod ecn;
pub mod endpoint;
pub mod fec;
pub mod gcc;
pub mod nada;
pub mod playout;
pub mod rate;
pub mod rate_window;
pub mod scream;
pub mod scream_v2;
pub(crate) mod seq_map;
pub mod source;
pub mod window;

#[cfg(any(test, feature = "testing"))]
pub mod testing;
