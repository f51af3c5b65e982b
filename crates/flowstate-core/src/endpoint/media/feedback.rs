//! What a media receiver sends back: transport-wide feedback, REMB, receiver reports and
//! NACKs, each with the echo the sender's RTT is computed from.

use crate::units::{Bitrate, TimeDelta, Timestamp};

/// The echo of the newest received packet, for the sender's RTT computation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RttEcho {
    /// The echoed packet's send time (sender clock).
    pub send_time: Timestamp,
    /// How long the receiver held it before this message.
    pub hold: TimeDelta,
}

/// One entry of transport-wide feedback.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PacketArrival {
    pub transport_seq: u64,
    pub arrival_time: Timestamp,
}

/// Receiver -> sender messages.
#[derive(Debug, Clone, PartialEq)]
pub enum MediaFeedback {
    /// Per-packet arrival times (Chromium preset).
    TransportFeedback {
        ssrc: u32,
        packets: Vec<PacketArrival>,
        echo: Option<RttEcho>,
    },
    /// Receiver Estimated Maximum Bitrate: A_r (paper presets).
    Remb {
        ssrc: u32,
        bitrate: Bitrate,
        echo: Option<RttEcho>,
    },
    /// RTCP receiver report: fraction lost since the previous report.
    ReceiverReport {
        ssrc: u32,
        fraction_lost: f64,
        cumulative_lost: u64,
        highest_seq: u64,
        echo: Option<RttEcho>,
    },
    /// Generic NACK (RFC 4585 section 6.2.1; option `nack_rtx`): the media packets to
    /// resend, by sequence number.
    Nack {
        ssrc: u32,
        sequence_numbers: Vec<u64>,
    },
}
