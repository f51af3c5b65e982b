//! Test support shared by the crate's own tests and its integration tests: one
//! bottleneck model for every closed-loop test ([`link::TestLink`]), and [`ms`].
//!
//! Compiled for the crate's unit tests (`cfg(test)`) and behind the `testing` cargo
//! feature, which the crate enables for its own integration tests through a
//! dev-dependency on itself (`Cargo.toml`); nothing else should enable it. It is not
//! the simulator's link (`flowstate-sim::link`, which the emulator and the testbed
//! share): flowstate-core cannot depend on the simulator, and these tests need only a
//! FIFO, a rate, a delay and seeded impairments.

pub mod link;
pub mod toy_controller;

use crate::units::Timestamp;

/// The instant `v` milliseconds after zero.
pub fn ms(v: u64) -> Timestamp {
    Timestamp::from_millis(v)
}
