//! Byte formats for the flowstate real-network testbed.
//!
//! Every message has a `Repr` (an owned, semantic representation of the
//! header fields) with a parse/emit pair in the style of smoltcp:
//!
//! - `Repr::parse(&[u8]) -> Result<Repr, WireError>`
//! - `Repr::buffer_len(&self) -> usize` (exact number of bytes `emit` writes)
//! - `Repr::emit(&self, &mut [u8]) -> Result<usize, WireError>`
//! - `Repr::to_vec(&self) -> Result<Vec<u8>, WireError>`
//!
//! Messages covered:
//!
//! - [`rtp::RtpPacket`]: RTP fixed header (RFC 3550 section 5.1) with header
//!   extensions in the RFC 8285 one-byte and two-byte forms, and the
//!   transport-wide sequence number extension
//!   (draft-holmer-rmcat-transport-wide-cc-extensions-01 section 2).
//! - [`rtcp::RtcpPacket`] / [`rtcp::Compound`]: receiver report (RFC 3550
//!   section 6.4.2), REMB (draft-alvestrand-rmcat-remb-03), transport-wide
//!   feedback (draft-holmer-rmcat-transport-wide-cc-extensions-01 section 3.1),
//!   RFC 8888 congestion control feedback (section 3.1),
//!   other RTCP packets kept as raw bytes, compound packets.
//! - [`sctp::SctpPacket`]: SCTP common header with CRC32c (RFC 9260 section
//!   3.1 and appendix B) and the chunks INIT, INIT-ACK, COOKIE-ECHO,
//!   COOKIE-ACK, DATA, SACK, SHUTDOWN, SHUTDOWN-ACK, SHUTDOWN-COMPLETE, ABORT;
//!   unknown chunks are kept according to the two high bits of their type.
//!   SCTP over UDP (RFC 6951) is just this packet as the UDP payload.
//!
//! # Guarantee: parsing never panics
//!
//! No `parse` function panics, whatever the input bytes: all reads go
//! through a bounds-checked [`cursor::Reader`], lengths from the wire are
//! checked before use, no arithmetic on wire values can overflow, and
//! allocation is bounded by the input length (at most 65 535 entries for a
//! transport-wide feedback status list, which the 16-bit count field bounds).
//! `emit` does not panic either: an unrepresentable `Repr` (for example more
//! than 15 CSRCs) or a too-short buffer gives an error. Both properties are
//! checked by property tests and a stable-Rust fuzz smoke test
//! (`tests/fuzz_smoke.rs`) and by cargo-fuzz targets in `fuzz/`.
//!
//! The crate has no clock, socket, thread or global state.

#![forbid(unsafe_code)]

pub mod cursor;
pub mod error;
pub mod fuzzing;
pub mod pcap;
pub mod rtcp;
pub mod rtp;
pub mod sctp;
pub mod utp;

pub use error::WireError;
