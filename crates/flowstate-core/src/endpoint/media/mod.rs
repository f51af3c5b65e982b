//! Sans-I/O media endpoints: a [`MediaSender`] (video source + pacer + GCC) and a
//! [`MediaReceiver`] (arrival recording, transport-wide feedback or receiver-side
//! estimation with REMB, receiver reports), driven through
//! [`Endpoint`](crate::endpoint::Endpoint).
//!
//! Messages are semantic RTP/RTCP values. Sequence numbers are 64-bit extended sequence
//! numbers (no 16-bit wrap handling needed). RTT: every feedback message carries an
//! [`RttEcho`] of the newest packet received (its send time and how long the receiver held
//! it, like RTCP's LSR/DLSR), so the sender computes `now - send_time - hold`.
//!
//! One file per part: `packet.rs` (the RTP packet and the wire sizes), `feedback.rs`
//! (the receiver's messages), `config.rs`, `sender.rs` with `rates.rs` (the encoder's and
//! the pacer's rates) and `send_chain.rs` (probes, padding, FEC, retransmissions),
//! `chromium_features.rs` (the optional Chromium send-chain state), `receiver.rs`.

mod chromium_features;
#[cfg(test)]
mod closed_loop_tests;
mod config;
mod feedback;
mod packet;
mod rates;
mod receiver;
mod send_chain;
mod sender;

pub use config::{MediaReceiverConfig, MediaSenderConfig};
pub use feedback::{MediaFeedback, PacketArrival, RttEcho};
pub use packet::{RtpPacket, WireSizes};
pub use receiver::MediaReceiver;
pub use sender::MediaSender;

/// Which estimate the sender reports (each mechanism's `MechanismInfo::rate_report`).
pub use crate::coupling::RateReportMode;
