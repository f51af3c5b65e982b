//! RTCP packets (RFC 3550 section 6), the two congestion-control feedback
//! messages GCC uses: REMB (draft-alvestrand-rmcat-remb-03 section 2.2) and
//! transport-wide feedback (draft-holmer-rmcat-transport-wide-cc-extensions-01
//! section 3.1), and RFC 8888 congestion control feedback (NADA, SCReAM).
//!
//! Common header (RFC 3550 section 6.4.1):
//!
//! ```text
//! |V=2|P|   RC    |      PT       |             length            |
//! ```
//!
//! `length` is the packet length in 32-bit words minus one, padding included.

mod ccfb;
mod remb;
mod rr;
mod twcc;

pub use ccfb::{ecn, CongestionControlFeedback, MetricBlock, StreamReports, FMT_CCFB};
pub use remb::{Remb, RembBitrate};
pub use rr::{ReceiverReport, ReportBlock};
pub use twcc::{PacketStatus, TransportFeedback};

use crate::cursor::{Reader, Writer};
use crate::WireError;

/// RFC 3550 section 12.1: RR packet type.
pub const PT_RR: u8 = 201;
/// RFC 4585 section 6.1: transport-layer feedback.
pub const PT_RTPFB: u8 = 205;
/// RFC 4585 section 6.1: payload-specific feedback.
pub const PT_PSFB: u8 = 206;
/// draft-holmer-rmcat-transport-wide-cc-extensions-01 section 3.1: RTPFB FMT.
pub const FMT_TWCC: u8 = 15;
/// RFC 4585 section 6.4 / draft-alvestrand-rmcat-remb-03: PSFB FMT 15 (AFB).
pub const FMT_AFB: u8 = 15;

/// The 4-byte common header of one RTCP packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Header {
    padding: bool,
    count: u8,
    packet_type: u8,
    /// Total packet length in bytes, header and padding included.
    len: usize,
}

impl Header {
    fn parse(r: &mut Reader<'_>) -> Result<Self, WireError> {
        let b0 = r.u8()?;
        if b0 >> 6 != 2 {
            return Err(WireError::BadVersion);
        }
        let packet_type = r.u8()?;
        let words = usize::from(r.u16()?);
        Ok(Self {
            padding: b0 & 0x20 != 0,
            count: b0 & 0x1F,
            packet_type,
            len: (words + 1) * 4,
        })
    }

    /// Write a header for a packet of `len` bytes (a multiple of 4, at least 4).
    fn emit(w: &mut Writer<'_>, count: u8, packet_type: u8, len: usize) -> Result<(), WireError> {
        if count > 31 {
            return Err(WireError::Unrepresentable("RTCP count/FMT field > 31"));
        }
        if len % 4 != 0 || len < 4 {
            return Err(WireError::Unrepresentable(
                "RTCP packet length not a multiple of 4",
            ));
        }
        let words = u16::try_from(len / 4 - 1)
            .map_err(|_| WireError::Unrepresentable("RTCP packet longer than 65536 words"))?;
        w.u8(0x80 | count)?;
        w.u8(packet_type)?;
        w.u16(words)
    }
}

/// One RTCP packet of a compound packet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RtcpPacket {
    /// Receiver report (RFC 3550 section 6.4.2).
    ReceiverReport(ReceiverReport),
    /// REMB (draft-alvestrand-rmcat-remb-03).
    Remb(Remb),
    /// Transport-wide feedback (draft-holmer-rmcat-transport-wide-cc-extensions-01).
    TransportFeedback(TransportFeedback),
    /// Congestion control feedback (RFC 8888 section 3.1).
    CongestionControlFeedback(CongestionControlFeedback),
    /// Any other packet, kept as bytes (for example SR, SDES, BYE, NACK).
    /// `packet_type` must not be 201, nor 205/206 with `count` 15, nor 205 with
    /// `count` 11, which
    /// would parse as one of the variants above.
    Other {
        /// PT.
        packet_type: u8,
        /// RC/SC/FMT field, 0..=31.
        count: u8,
        /// Bytes after the 4-byte header, padding removed; a multiple of 4.
        body: Vec<u8>,
    },
}

impl RtcpPacket {
    /// Parse exactly one RTCP packet; `buf` must hold exactly that packet.
    pub fn parse(buf: &[u8]) -> Result<Self, WireError> {
        let (p, n) = Self::parse_one(buf)?;
        if n != buf.len() {
            return Err(WireError::BadLength("bytes after the RTCP packet"));
        }
        Ok(p)
    }

    /// Parse the packet at the start of `buf`; returns it and its length in bytes.
    fn parse_one(buf: &[u8]) -> Result<(Self, usize), WireError> {
        let mut r = Reader::new(buf);
        let h = Header::parse(&mut r)?;
        let packet = buf.get(..h.len).ok_or(WireError::Truncated)?;
        let mut body = packet.get(4..).ok_or(WireError::Truncated)?;
        if h.padding {
            // RFC 3550 section 6.4.1: the last octet counts the padding octets.
            let (&n, _) = body.split_last().ok_or(WireError::BadPadding)?;
            let n = usize::from(n);
            if n == 0 || n > body.len() {
                return Err(WireError::BadPadding);
            }
            body = body.get(..body.len() - n).ok_or(WireError::BadPadding)?;
        }
        let p = match (h.packet_type, h.count) {
            (PT_RR, rc) => Self::ReceiverReport(ReceiverReport::parse_body(rc, body)?),
            (PT_RTPFB, FMT_TWCC) => Self::TransportFeedback(TransportFeedback::parse_body(body)?),
            (PT_RTPFB, FMT_CCFB) => {
                Self::CongestionControlFeedback(CongestionControlFeedback::parse_body(body)?)
            }
            (PT_PSFB, FMT_AFB) if Remb::is_remb(body) => Self::Remb(Remb::parse_body(body)?),
            (packet_type, count) => {
                if body.len() % 4 != 0 {
                    return Err(WireError::BadLength(
                        "RTCP body not a multiple of 4 after padding removal",
                    ));
                }
                Self::Other {
                    packet_type,
                    count,
                    body: body.to_vec(),
                }
            }
        };
        Ok((p, h.len))
    }

    /// Exact number of bytes `emit` writes (header included).
    pub fn buffer_len(&self) -> usize {
        4 + match self {
            Self::ReceiverReport(p) => p.body_len(),
            Self::Remb(p) => p.body_len(),
            Self::TransportFeedback(p) => p.body_len(),
            Self::CongestionControlFeedback(p) => p.body_len(),
            Self::Other { body, .. } => body.len(),
        }
    }

    /// Write the packet into `buf`; returns the number of bytes written.
    pub fn emit(&self, buf: &mut [u8]) -> Result<usize, WireError> {
        let len = self.buffer_len();
        let mut w = Writer::new(buf);
        match self {
            Self::ReceiverReport(p) => {
                let rc = u8::try_from(p.reports.len())
                    .ok()
                    .filter(|&n| n <= 31)
                    .ok_or(WireError::Unrepresentable("more than 31 report blocks"))?;
                Header::emit(&mut w, rc, PT_RR, len)?;
                p.emit_body(&mut w)?;
            }
            Self::Remb(p) => {
                Header::emit(&mut w, FMT_AFB, PT_PSFB, len)?;
                p.emit_body(&mut w)?;
            }
            Self::TransportFeedback(p) => {
                Header::emit(&mut w, FMT_TWCC, PT_RTPFB, len)?;
                p.emit_body(&mut w)?;
            }
            Self::CongestionControlFeedback(p) => {
                Header::emit(&mut w, FMT_CCFB, PT_RTPFB, len)?;
                p.emit_body(&mut w)?;
            }
            Self::Other {
                packet_type,
                count,
                body,
            } => {
                Header::emit(&mut w, *count, *packet_type, len)?;
                w.put(body)?;
            }
        }
        Ok(w.position())
    }

    /// Emit into a new vector.
    pub fn to_vec(&self) -> Result<Vec<u8>, WireError> {
        let mut v = vec![0; self.buffer_len()];
        let n = self.emit(&mut v)?;
        v.truncate(n);
        Ok(v)
    }
}

/// A compound RTCP packet (RFC 3550 section 6.1): RTCP packets back to back
/// in one UDP payload. The RFC 3550 rule that a compound packet starts with
/// SR/RR is not enforced, so reduced-size RTCP (RFC 5506) parses too.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Compound {
    /// The packets in wire order.
    pub packets: Vec<RtcpPacket>,
}

impl Compound {
    /// Parse a compound packet; fails if any packet is malformed or the
    /// input is empty.
    pub fn parse(buf: &[u8]) -> Result<Self, WireError> {
        if buf.is_empty() {
            return Err(WireError::Truncated);
        }
        let mut packets = Vec::new();
        let mut rest = buf;
        while !rest.is_empty() {
            let (p, n) = RtcpPacket::parse_one(rest)?;
            packets.push(p);
            rest = rest.get(n..).ok_or(WireError::Truncated)?;
        }
        Ok(Self { packets })
    }

    /// Exact number of bytes `emit` writes.
    pub fn buffer_len(&self) -> usize {
        self.packets.iter().map(RtcpPacket::buffer_len).sum()
    }

    /// Write all packets; returns the number of bytes written.
    pub fn emit(&self, buf: &mut [u8]) -> Result<usize, WireError> {
        let mut at = 0;
        for p in &self.packets {
            let dst = buf.get_mut(at..).ok_or(WireError::BufferTooSmall)?;
            at += p.emit(dst)?;
        }
        Ok(at)
    }

    /// Emit into a new vector.
    pub fn to_vec(&self) -> Result<Vec<u8>, WireError> {
        let mut v = vec![0; self.buffer_len()];
        let n = self.emit(&mut v)?;
        v.truncate(n);
        Ok(v)
    }
}
