//! # flowstate-coupling
//!
//! Sans-I/O coupled congestion control, the part an embedder uses alone: the Flow State
//! Exchange family of coupling managers ([`coupling`]: RFC 8699 and the papers that
//! extend it), the Web-API rule ([`coupling::web_api`]) and shared bottleneck detection
//! ([`sbd`], RFC 8382), over the unit types of [`units`]. It holds no congestion
//! controller: the caller's controllers report to a manager and apply what it answers.
//!
//! ## Contract
//! - No networking, no clock, no threads, no global state: every call that depends on
//!   time takes `now: Timestamp` from the caller, and outputs are returned as data.
//! - Deterministic: the same sequence of calls gives the same results, bit for bit.
//! - Untrusted input (NaN rates, unknown flow ids, zero RTTs) yields typed errors or
//!   documented clamping, never a panic.
//!
//! Units live in [`units`]: [`Timestamp`] and [`TimeDelta`] in integer microseconds,
//! [`DataSize`] in bytes, [`Bitrate`] in bits per second. Names a user writes
//! (mechanisms, modes) are read by the one rule of [`names`].
//!
//! ## Features
//! - `custom-mechanism`: the coupling rules as a public trait
//!   (`coupling::CouplingRules`) and `coupling::CouplingManager::with_custom_mechanism`,
//!   so that a manager runs a mechanism written outside this crate
//!   (`examples/custom_mechanism.rs`).

pub mod units;

pub use units::{Bitrate, DataSize, TimeDelta, Timestamp};
pub mod coupling;
pub mod names;
pub mod sbd;

/// README.md's example, run as a doc test.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeExample;
