//! Window-based congestion controllers: SCTP (RFC 9260 section 7), TCP NewReno
//! (RFC 5681 + RFC 6582), CUBIC (RFC 9438) and LEDBAT (RFC 6817), plus the RFC 6298
//! retransmission timer.
//!
//! A controller only does the arithmetic of the congestion window. Loss detection (miss
//! indications, duplicate acks, the T3-rtx / RTO timer) lives in the endpoints
//! ([`crate::endpoint::sctp`], [`crate::endpoint::tcp`]), which tell the controller what
//! happened through [`WindowController`]. Bytes in flight are accounted inside the
//! controller: every byte passed to [`WindowController::on_sent`] leaves the flight exactly
//! once, either acked ([`AckEvent::removed_from_flight`]) or declared lost / marked for
//! retransmission ([`WindowController::on_lost`]).

mod controller;
pub mod cubic;
mod events;
pub mod hystart;
pub mod ledbat;
mod ledbat_options;
pub mod new_reno;
mod prr;
pub mod rto;
pub mod sctp;

#[cfg(test)]
mod proptests;
pub(crate) mod state;

pub use controller::WindowController;
pub use cubic::{Cubic, CubicConfig};
pub use events::{AckEvent, CwndChange};
pub use hystart::{HystartConfig, HystartExit};
pub use ledbat::{Ledbat, LedbatConfig};
pub use new_reno::{NewReno, NewRenoConfig};
pub use rto::{RtoConfig, RttEstimator};
pub use sctp::{SctpCcConfig, SctpCongestionControl};

pub(crate) use state::WindowCore;

/// What the controllers' unit tests share: a segment size, byte counts, plain acks.
#[cfg(test)]
pub(crate) mod test_util {
    use super::AckEvent;
    use crate::units::DataSize;

    /// The SMSS / MTU the unit tests use, in bytes.
    pub const S: u64 = 1000;

    pub fn b(v: u64) -> DataSize {
        DataSize::bytes(v)
    }

    /// `newly` bytes acked and out of the flight, cumulative ack point `cum` (advanced
    /// if anything was acked), no RTT sample.
    pub fn ack(newly: u64, cum: u64) -> AckEvent {
        AckEvent {
            newly_acked: b(newly),
            removed_from_flight: b(newly),
            cum_ack: cum,
            cum_ack_advanced: newly > 0,
            rtt: None,
        }
    }
}
