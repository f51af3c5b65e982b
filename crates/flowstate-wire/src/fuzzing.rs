//! Bodies of the fuzz targets, shared by the cargo-fuzz targets in `fuzz/`
//! and the stable-Rust smoke test `tests/fuzz_smoke.rs`.
//!
//! Each function parses arbitrary bytes (which must not panic) and, if that
//! succeeds, emits the result and parses it again; it returns an error
//! describing the first broken invariant: emit fails, emit writes a length
//! other than `buffer_len()`, or the re-parsed value differs.

use crate::rtcp::{Compound, RtcpPacket};
use crate::rtp::RtpPacket;
use crate::sctp::SctpPacket;

fn check<T: PartialEq + core::fmt::Debug>(
    repr: &T,
    buffer_len: usize,
    emitted: Result<Vec<u8>, crate::WireError>,
    reparse: impl Fn(&[u8]) -> Result<T, crate::WireError>,
) -> Result<(), String> {
    let bytes = emitted.map_err(|e| format!("emit failed on a parsed value: {e}; {repr:?}"))?;
    if bytes.len() != buffer_len {
        return Err(format!(
            "emit wrote {} bytes, buffer_len {buffer_len}",
            bytes.len()
        ));
    }
    let again = reparse(&bytes).map_err(|e| format!("re-parse failed: {e}; {repr:?}"))?;
    if &again != repr {
        return Err(format!("re-parse differs: {repr:?} vs {again:?}"));
    }
    Ok(())
}

/// RTP target body.
pub fn rtp(data: &[u8]) -> Result<(), String> {
    match RtpPacket::parse(data) {
        Ok(p) => check(&p, p.buffer_len(), p.to_vec(), RtpPacket::parse),
        Err(_) => Ok(()),
    }
}

/// RTCP (compound) target body.
pub fn rtcp(data: &[u8]) -> Result<(), String> {
    match Compound::parse(data) {
        Ok(p) => check(&p, p.buffer_len(), p.to_vec(), Compound::parse),
        Err(_) => Ok(()),
    }
}

/// RFC 8888 target body: `data` (cut to whole 32-bit words) becomes the body of an
/// RTPFB FMT=11 packet with a valid header, so every input reaches the feedback
/// parser; what parses is emitted and parsed again.
pub fn ccfb(data: &[u8]) -> Result<(), String> {
    let body = &data[..data.len() - data.len() % 4];
    let words = match u16::try_from(body.len() / 4) {
        Ok(w) => w,
        Err(_) => return Ok(()),
    };
    let mut packet = vec![0x80 | crate::rtcp::FMT_CCFB, crate::rtcp::PT_RTPFB];
    packet.extend_from_slice(&words.to_be_bytes());
    packet.extend_from_slice(body);
    match RtcpPacket::parse(&packet) {
        Ok(p) => check(&p, p.buffer_len(), p.to_vec(), RtcpPacket::parse),
        Err(_) => Ok(()),
    }
}

/// SCTP target body: parses without checksum verification (random input
/// would almost never pass it), re-parses the emitted packet with it.
pub fn sctp(data: &[u8]) -> Result<(), String> {
    let _ = SctpPacket::parse(data);
    match SctpPacket::parse_unverified(data) {
        Ok(p) => check(&p, p.buffer_len(), p.to_vec(), SctpPacket::parse),
        Err(_) => Ok(()),
    }
}

/// uTP target body (BEP 29 header + payload; the ECN flags extension read too).
pub fn utp(data: &[u8]) -> Result<(), String> {
    match crate::utp::UtpPacket::parse(data) {
        Ok(p) => {
            let _ = crate::utp::ecn_flags(&p.extensions);
            check(&p, p.buffer_len(), p.to_vec(), crate::utp::UtpPacket::parse)
        }
        Err(_) => Ok(()),
    }
}
