//! A sans-I/O reliable transfer modelled on SCTP (RFC 9260), as used by the WebRTC data
//! channel: one association, one ordered stream, one destination address.
//!
//! [`SctpSender`] sends DATA chunks (one per packet, no bundling) with TSNs, keeps a
//! retransmission queue, runs the T3-rtx timer (RFC 9260 6.3), counts miss indications
//! for fast retransmit (7.2.4), respects the peer's receiver window (6.2.1) and Max.Burst
//! (6.1), and drives [`SctpCongestionControl`](crate::window::SctpCongestionControl).
//! [`SctpReceiver`] reassembles ordered messages and sends SACKs with gap-ack blocks and
//! duplicate TSNs, delayed (200 ms or every second packet, 6.2) but immediate on gaps and
//! duplicates (6.7) and on a chunk with RFC 7053's I bit (which the sender sets as dcSCTP
//! does, when configured).
//!
//! ECN (RFC 9260 appendix A), when the sender is configured ECN-capable
//! ([`SctpSenderConfig::ecn`]; the ECN-capable parameters of INIT / INIT ACK are taken
//! as exchanged): DATA goes out ECT; the receiver answers a CE-marked packet with an
//! ECNE chunk naming its TSN on every SACK until a CWR chunk covers that TSN; the sender
//! reduces cwnd as for a loss at most once per round trip (an ECNE for a TSN sent before
//! the last reduction is answered with a CWR only) and bundles a CWR with its next DATA.
//!
//! Coupling: [`SctpSender::poll_cc_report`] yields a
//! [`FlowReport::Window`](crate::coupling::FlowReport::Window) on every cwnd change;
//! [`SctpSender::apply_allowance`] applies a manager's answer.
//!
//! One file per part: `chunk.rs` (DATA and SACK chunks, wire sizes), `config.rs`,
//! `stats.rs`, `sender.rs` with `transmit.rs` (new chunks and retransmissions),
//! `ack_handling.rs` (SACKs, T3-rtx) and `outstanding.rs` (its records), `receiver.rs`.

mod ack_handling;
mod chunk;
mod config;
mod outstanding;
mod receiver;
mod sender;
mod stats;
mod transmit;

pub use chunk::{
    data_packet_size, DataChunk, DupTsns, GapBlocks, Sack, COMMON_HEADER, DATA_CHUNK_HEADER,
    ECN_CHUNK, SACK_CHUNK_HEADER,
};
pub use config::{SctpReceiverConfig, SctpSenderConfig, DCSCTP_IMMEDIATE_SACK_UNDER_CWND_MTUS};
pub use receiver::{DeliveredMessage, SctpReceiver};
pub use sender::SctpSender;
pub use stats::{SctpReceiverStats, SctpSenderStats};
