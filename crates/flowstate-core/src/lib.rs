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

pub mod units;

pub use units::{Bitrate, DataSize, TimeDelta, Timestamp};
pub mod config_options;
pub mod coupling;
pub mod endpoint;
pub mod fec;
pub mod gcc;
pub mod nada;
pub mod names;
pub mod rate;
pub mod sbd;
pub mod scream;
pub mod source;
pub mod window;

#[cfg(any(test, feature = "testing"))]
pub mod testing;
