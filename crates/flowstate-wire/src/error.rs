//! Errors of parsing and emitting.

/// Why a buffer could not be parsed, or a `Repr` could not be emitted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum WireError {
    /// The input ended before a field or a length it announced.
    #[error("truncated: the input ends before the end of a field")]
    Truncated,
    /// The RTP/RTCP version field is not 2.
    #[error("unsupported version (expected 2)")]
    BadVersion,
    /// A length field is inconsistent with the data (too small, not a multiple of 4, ...).
    #[error("inconsistent length field: {0}")]
    BadLength(&'static str),
    /// Padding is announced but its count byte is zero or larger than the packet.
    #[error("bad padding")]
    BadPadding,
    /// The SCTP CRC32c does not match.
    #[error("checksum mismatch")]
    BadChecksum,
    /// A field holds a value the format reserves or forbids.
    #[error("malformed: {0}")]
    Malformed(&'static str),
    /// The `Repr` holds a value that has no encoding (for example 16 CSRCs).
    #[error("not representable on the wire: {0}")]
    Unrepresentable(&'static str),
    /// The output buffer given to `emit` is shorter than `buffer_len()`.
    #[error("output buffer too small")]
    BufferTooSmall,
}
