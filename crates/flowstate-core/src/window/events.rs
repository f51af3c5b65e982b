//! What passes between an endpoint and its window controller: the acknowledgement the
//! endpoint hands in ([`AckEvent`]) and the window change the controller reports
//! ([`CwndChange`]).

use crate::units::{DataSize, TimeDelta};

/// What one acknowledgement (SCTP SACK, TCP ACK) did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct AckEvent {
    /// Bytes of data newly acknowledged by this ack (cumulative and selective), counted
    /// for window growth.
    pub newly_acked: DataSize,
    /// Bytes that leave the flight with this ack (newly acked bytes that were still
    /// counted in flight, i.e. not already marked lost).
    pub removed_from_flight: DataSize,
    /// The cumulative ack point after this ack, in the endpoint's sequence space
    /// (SCTP: cumulative TSN; TCP: the last byte cumulatively acked).
    pub cum_ack: u64,
    /// Whether this ack advanced the cumulative ack point.
    pub cum_ack_advanced: bool,
    /// A new RTT sample taken from this ack, if any.
    pub rtt: Option<TimeDelta>,
}

/// Emitted by a controller whenever its cwnd (or ssthresh) changes by its own rules:
/// the (cwnd, max cwnd, latest RTT sample) callback the papers added to usrsctp.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CwndChange {
    pub cwnd: DataSize,
    pub ssthresh: DataSize,
    pub max_cwnd: Option<DataSize>,
    /// The newest RTT sample (not SRTT), if any has been taken.
    pub rtt: Option<TimeDelta>,
}
