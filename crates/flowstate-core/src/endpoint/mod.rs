//! The shape every sans-I/O endpoint shares, so that the simulator and the real-network
//! driver can drive media, SCTP, TCP, RAP and TFRC endpoints through one interface.
//!
//! An endpoint never reads a clock and never touches a socket. The driver:
//! 1. hands it every message that arrives ([`Endpoint::handle_input`]);
//! 2. drains what it wants to send ([`Endpoint::poll_transmit`]) until `None`;
//! 3. asks when it next needs attention ([`Endpoint::poll_timeout`]) and calls
//!    [`Endpoint::handle_timeout`] at (or after) that time.
//!
//! Messages are semantic values (an RTP packet's header fields, an SCTP SACK's gap
//! blocks), not bytes: flowstate-wire turns them into real packets for the network, and
//! the simulator moves them as they are, charging `size` bytes on the link.

pub mod controller;
pub mod media;
pub mod nack;
pub mod overhead;
mod paced;
pub mod report_schedule;
pub mod send_path;
pub(crate) mod seq_map;

pub use controller::Controller;

use crate::units::{DataSize, Timestamp};

/// A message an endpoint wants sent, and its size on the wire (headers included:
/// the link charges this many bytes).
#[derive(Debug, Clone, PartialEq)]
pub struct Transmit<M> {
    pub size: DataSize,
    pub message: M,
}

/// The earliest of several optional deadlines (`None` when there is none): what a
/// `poll_timeout` with several timers returns. A plain loop: the same result as
/// `times.into_iter().flatten().min()`, which the compiler did not turn into straight
/// code (2 % of a RAP run's instructions, in the iterator adapters).
#[inline]
pub(crate) fn earliest<const N: usize>(times: [Option<Timestamp>; N]) -> Option<Timestamp> {
    let mut best: Option<Timestamp> = None;
    for t in times {
        best = match (best, t) {
            (Some(b), Some(t)) => Some(b.min(t)),
            (b, t) => b.or(t),
        };
    }
    best
}

#[cfg(test)]
mod earliest_tests {
    use super::earliest;
    use crate::units::Timestamp;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn earliest_is_the_min_of_the_present(ts in proptest::collection::vec(proptest::option::of(0u64..1_000_000), 4)) {
            let times: Vec<Option<Timestamp>> = ts.iter().map(|t| t.map(Timestamp::from_micros)).collect();
            let arr = [times[0], times[1], times[2], times[3]];
            prop_assert_eq!(earliest(arr), times.iter().flatten().min().copied());
        }
    }

    #[test]
    fn earliest_of_nothing_is_none() {
        assert_eq!(earliest::<3>([None, None, None]), None);
        assert_eq!(
            earliest([Some(Timestamp::from_micros(5)), None]),
            Some(Timestamp::from_micros(5))
        );
    }
}

/// A sans-I/O endpoint: one side of a flow.
pub trait Endpoint {
    /// Messages this endpoint sends.
    type Outgoing;
    /// Messages this endpoint receives.
    type Incoming;

    /// A message arrived at `now`.
    fn handle_input(&mut self, now: Timestamp, message: Self::Incoming);

    /// The next message to send at `now`, if any. Call repeatedly until `None`.
    #[must_use]
    fn poll_transmit(&mut self, now: Timestamp) -> Option<Transmit<Self::Outgoing>>;

    /// When the endpoint next wants [`Endpoint::handle_timeout`] called; `None` if it
    /// waits only for input.
    #[must_use]
    fn poll_timeout(&self) -> Option<Timestamp>;

    /// Time has advanced to `now` (at or after the instant `poll_timeout` named).
    fn handle_timeout(&mut self, now: Timestamp);
}

pub mod app_pacing;
pub mod data_source;
pub mod encoder_adjuster;
pub mod ledbat;
pub mod nada;
pub mod rap;
pub mod rfc8888;
#[cfg(test)]
mod rmcat_proptests;
pub mod rtx;
pub mod rtx_limiter;
#[cfg(test)]
mod rtx_scenario_tests;
pub mod scream;
pub mod sctp;
pub mod tcp;
pub mod tfrc;
pub mod video;
