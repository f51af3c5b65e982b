//! SCTP packets (RFC 9260 section 3), carried as the UDP payload for SCTP
//! over UDP (RFC 6951 section 5: the UDP payload is the SCTP packet).
//!
//! Common header (RFC 9260 section 3.1):
//!
//! ```text
//! |     Source Port Number        |     Destination Port Number   |
//! |                      Verification Tag                         |
//! |                           Checksum                            |
//! ```
//!
//! The checksum is CRC32c over the whole packet with the checksum field set
//! to zero (RFC 9260 appendix B), stored in the byte order of the reflected
//! CRC (least significant byte first), as in RFC 9260 appendix B's sample
//! code and RFC 3720 appendix B.4.
//!
//! Chunks (section 3.2) are `type(8) | flags(8) | length(16) | value`,
//! `length` excludes padding, each chunk padded with zeros to 4 bytes.
//! Chunk types this module does not know are handled per section 3.2 by the
//! two high bits of the type: `00`/`01` stop processing the packet (the
//! unknown chunk is kept as the last chunk of the parsed packet and the rest
//! of the packet is not parsed), `10`/`11` skip it and continue (it is kept).
//! Whether to report it (`01`/`11`) is the endpoint's decision:
//! see [`UnknownChunk::action`].
//!
//! Not enforced here (endpoint-level rules): INIT/INIT-ACK/SHUTDOWN-COMPLETE
//! bundling restrictions (section 6.10) and verification tag rules (8.5).

mod chunk;

pub use chunk::types as chunk_types;
pub use chunk::PARAM_STATE_COOKIE;
pub use chunk::{
    Chunk, DataChunk, InitAckChunk, InitChunk, SackChunk, Tlv, UnknownAction, UnknownChunk,
};

use crate::cursor::{Reader, Writer};
use crate::WireError;

/// Byte offset of the checksum in the common header.
pub const CHECKSUM_OFFSET: usize = 8;
/// Common header length.
pub const COMMON_HEADER_LEN: usize = 12;

/// The CRC32c of `packet` computed with the checksum field taken as zero
/// (RFC 9260 appendix B). Returns 0 for packets shorter than the header.
pub fn checksum(packet: &[u8]) -> u32 {
    let (Some(head), Some(tail)) = (
        packet.get(..CHECKSUM_OFFSET),
        packet.get(COMMON_HEADER_LEN..),
    ) else {
        return 0;
    };
    let c = crc32c::crc32c(head);
    let c = crc32c::crc32c_append(c, &[0; 4]);
    crc32c::crc32c_append(c, tail)
}

/// An SCTP packet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SctpPacket {
    /// Source port.
    pub src_port: u16,
    /// Destination port.
    pub dst_port: u16,
    /// Verification tag.
    pub verification_tag: u32,
    /// Chunks in wire order.
    pub chunks: Vec<Chunk>,
}

impl SctpPacket {
    /// Parse a packet and verify its CRC32c.
    pub fn parse(buf: &[u8]) -> Result<Self, WireError> {
        let stored = buf
            .get(CHECKSUM_OFFSET..COMMON_HEADER_LEN)
            .and_then(|s| <[u8; 4]>::try_from(s).ok())
            .ok_or(WireError::Truncated)?;
        if u32::from_le_bytes(stored) != checksum(buf) {
            return Err(WireError::BadChecksum);
        }
        Self::parse_unverified(buf)
    }

    /// Parse a packet without checking the CRC32c (for example when a DTLS
    /// layer already authenticates it, or for fuzzing the chunk parser).
    pub fn parse_unverified(buf: &[u8]) -> Result<Self, WireError> {
        let mut r = Reader::new(buf);
        let src_port = r.u16()?;
        let dst_port = r.u16()?;
        let verification_tag = r.u32()?;
        let _checksum = r.u32()?;
        let mut chunks = Vec::new();
        while r.remaining() > 0 {
            let (c, stop) = Chunk::parse(&mut r)?;
            chunks.push(c);
            if stop {
                break;
            }
        }
        Ok(Self {
            src_port,
            dst_port,
            verification_tag,
            chunks,
        })
    }

    /// Exact number of bytes `emit` writes.
    pub fn buffer_len(&self) -> usize {
        COMMON_HEADER_LEN + self.chunks.iter().map(Chunk::padded_len).sum::<usize>()
    }

    /// Write the packet with its CRC32c; returns the number of bytes written.
    pub fn emit(&self, buf: &mut [u8]) -> Result<usize, WireError> {
        let n = {
            let mut w = Writer::new(buf);
            w.u16(self.src_port)?;
            w.u16(self.dst_port)?;
            w.u32(self.verification_tag)?;
            w.u32(0)?;
            for c in &self.chunks {
                c.emit(&mut w)?;
            }
            w.position()
        };
        let packet = buf.get_mut(..n).ok_or(WireError::BufferTooSmall)?;
        let crc = checksum(packet);
        let dst = packet
            .get_mut(CHECKSUM_OFFSET..COMMON_HEADER_LEN)
            .ok_or(WireError::BufferTooSmall)?;
        dst.copy_from_slice(&crc.to_le_bytes());
        Ok(n)
    }

    /// Emit into a new vector.
    pub fn to_vec(&self) -> Result<Vec<u8>, WireError> {
        let mut v = vec![0; self.buffer_len()];
        let n = self.emit(&mut v)?;
        v.truncate(n);
        Ok(v)
    }
}
