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

pub mod media;
pub mod overhead;
mod paced;
mod seq_map;

use crate::units::{DataSize, Timestamp};

/// A message an endpoint wants sent, and its size on the wire (headers included:
/// the link charges this many bytes).
#[derive(Debug, Clone, PartialEq)]
pub struct Transmit<M> {
    pub size: DataSize,
    pub message: M,
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
pub mod ledbat;
pub mod nada;
pub mod rap;
pub mod rfc8888;
#[cfg(test)]
mod rmcat_proptests;
pub mod scream;
pub mod sctp;
pub mod tcp;
pub mod tfrc;
pub mod video;
