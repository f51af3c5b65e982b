//! The chunks the model's SCTP endpoints exchange (RFC 9260 section 3): a DATA chunk, one
//! per packet, and a SACK with gap-ack blocks and duplicate TSNs, with their sizes on the
//! wire; the ECN chunks of RFC 9260 appendix A ride along: a CWR chunk ahead of a DATA
//! chunk ([`DataChunk::cwr`]), an ECNE chunk with a SACK ([`Sack::ecne`]).

use crate::units::DataSize;
use smallvec::SmallVec;

/// SCTP common header (RFC 9260 3.1).
pub const COMMON_HEADER: u64 = 12;
/// DATA chunk header (RFC 9260 3.3.1).
pub const DATA_CHUNK_HEADER: u64 = 16;
/// SACK chunk header without gap blocks / duplicate TSNs (RFC 9260 3.3.4).
pub const SACK_CHUNK_HEADER: u64 = 16;
/// An ECNE or CWR chunk: header and the Lowest TSN Number (RFC 9260 appendix A).
pub const ECN_CHUNK: u64 = 8;

/// One DATA chunk (carried alone in a packet).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DataChunk {
    /// Transmission sequence number (starts at 1; 64-bit, never wraps).
    pub tsn: u64,
    /// The message this chunk belongs to (the stream sequence number).
    pub message_id: u64,
    /// Offset of this chunk's first payload byte in the whole byte stream (for checking
    /// exactly-once in-order delivery; not an SCTP field).
    pub stream_offset: u64,
    /// User data bytes in this chunk.
    pub payload_len: u32,
    /// B bit: first chunk of a message.
    pub begin: bool,
    /// E bit: last chunk of a message.
    pub end: bool,
    /// I bit (RFC 7053): the receiver should SACK this packet at once.
    pub immediate_ack: bool,
    /// A CWR chunk bundled ahead of the DATA chunk (RFC 9260 appendix A): the sender
    /// reduced its window for the ECNE that named this TSN.
    pub cwr: Option<u64>,
}

/// Gap-ack blocks of a [`Sack`]: held in the SACK itself up to four, on the heap beyond
/// (a SACK after a loss reports a few gaps; building one allocates nothing then).
pub type GapBlocks = SmallVec<[(u32, u32); 4]>;
/// Duplicate TSNs of a [`Sack`], held inline like [`GapBlocks`].
pub type DupTsns = SmallVec<[u64; 4]>;

/// A SACK chunk (RFC 9260 3.3.4).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sack {
    pub cum_tsn: u64,
    /// Advertised receiver window credit, bytes.
    pub a_rwnd: u64,
    /// Gap-ack blocks as (start, end) offsets from `cum_tsn`, inclusive.
    pub gap_blocks: GapBlocks,
    pub dup_tsns: DupTsns,
    /// An ECNE chunk bundled with the SACK (RFC 9260 appendix A): the lowest TSN of a
    /// packet that arrived CE-marked, repeated until a CWR covers it.
    pub ecne: Option<u64>,
}

impl Sack {
    /// Wire size of the packet carrying this SACK.
    pub fn wire_size(&self, lower_layer_overhead: DataSize) -> DataSize {
        DataSize::bytes(
            COMMON_HEADER
                + SACK_CHUNK_HEADER
                + 4 * self.gap_blocks.len() as u64
                + 4 * self.dup_tsns.len() as u64
                + if self.ecne.is_some() { ECN_CHUNK } else { 0 },
        ) + lower_layer_overhead
    }
}

/// Wire size of a packet with one DATA chunk of `payload` bytes (padded to 4 bytes).
pub fn data_packet_size(payload: u32, lower_layer_overhead: DataSize) -> DataSize {
    let padded = (payload as u64).div_ceil(4) * 4;
    DataSize::bytes(COMMON_HEADER + DATA_CHUNK_HEADER + padded) + lower_layer_overhead
}
