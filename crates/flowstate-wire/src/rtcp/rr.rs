//! Receiver report, RFC 3550 section 6.4.2 (report block: section 6.4.1).
//!
//! ```text
//! |V=2|P|    RC   |   PT=RR=201   |             length            |
//! |                     SSRC of packet sender                     |
//! |                 SSRC_1 (SSRC of first source)                 |
//! | fraction lost |       cumulative number of packets lost       |
//! |           extended highest sequence number received           |
//! |                      interarrival jitter                      |
//! |                         last SR (LSR)                         |
//! |                   delay since last SR (DLSR)                  |
//! ```

use crate::cursor::{Reader, Writer};
use crate::WireError;

/// Smallest and largest value of the signed 24-bit cumulative-lost field.
pub const CUMULATIVE_LOST_MIN: i32 = -(1 << 23);
/// See [`CUMULATIVE_LOST_MIN`].
pub const CUMULATIVE_LOST_MAX: i32 = (1 << 23) - 1;

/// One report block (RFC 3550 section 6.4.1), 24 bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReportBlock {
    /// SSRC of the source this block reports on.
    pub ssrc: u32,
    /// Fraction lost since the last report, in 1/256 units.
    pub fraction_lost: u8,
    /// Cumulative number of packets lost: signed 24 bits (negative with duplicates).
    pub cumulative_lost: i32,
    /// Extended highest sequence number received (cycles << 16 | seq).
    pub extended_highest_seq: u32,
    /// Interarrival jitter in RTP timestamp units.
    pub jitter: u32,
    /// Middle 32 bits of the NTP timestamp of the last SR received.
    pub last_sr: u32,
    /// Delay since that SR, in 1/65536 s.
    pub delay_since_last_sr: u32,
}

impl ReportBlock {
    /// Wire length.
    pub const LEN: usize = 24;

    fn parse(r: &mut Reader<'_>) -> Result<Self, WireError> {
        let ssrc = r.u32()?;
        let fraction_lost = r.u8()?;
        let raw = r.u24()?;
        // Sign-extend the 24-bit two's-complement value.
        let cumulative_lost = ((raw << 8) as i32) >> 8;
        Ok(Self {
            ssrc,
            fraction_lost,
            cumulative_lost,
            extended_highest_seq: r.u32()?,
            jitter: r.u32()?,
            last_sr: r.u32()?,
            delay_since_last_sr: r.u32()?,
        })
    }

    fn emit(&self, w: &mut Writer<'_>) -> Result<(), WireError> {
        if !(CUMULATIVE_LOST_MIN..=CUMULATIVE_LOST_MAX).contains(&self.cumulative_lost) {
            return Err(WireError::Unrepresentable(
                "cumulative lost outside 24-bit signed range",
            ));
        }
        w.u32(self.ssrc)?;
        w.u8(self.fraction_lost)?;
        w.u24(self.cumulative_lost as u32 & 0x00FF_FFFF)?;
        w.u32(self.extended_highest_seq)?;
        w.u32(self.jitter)?;
        w.u32(self.last_sr)?;
        w.u32(self.delay_since_last_sr)
    }
}

/// Receiver report packet.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ReceiverReport {
    /// SSRC of the packet sender.
    pub sender_ssrc: u32,
    /// Report blocks, at most 31.
    pub reports: Vec<ReportBlock>,
    /// Profile-specific extension (RFC 3550 section 6.4.2), a multiple of 4 bytes.
    pub profile_extension: Vec<u8>,
}

impl ReceiverReport {
    pub(super) fn parse_body(rc: u8, body: &[u8]) -> Result<Self, WireError> {
        let mut r = Reader::new(body);
        let sender_ssrc = r.u32()?;
        let mut reports = Vec::with_capacity(usize::from(rc));
        for _ in 0..rc {
            reports.push(ReportBlock::parse(&mut r)?);
        }
        let profile_extension = r.rest().to_vec();
        if profile_extension.len() % 4 != 0 {
            return Err(WireError::BadLength("RR extension not a multiple of 4"));
        }
        Ok(Self {
            sender_ssrc,
            reports,
            profile_extension,
        })
    }

    pub(super) fn body_len(&self) -> usize {
        4 + ReportBlock::LEN * self.reports.len() + self.profile_extension.len()
    }

    pub(super) fn emit_body(&self, w: &mut Writer<'_>) -> Result<(), WireError> {
        if self.profile_extension.len() % 4 != 0 {
            return Err(WireError::Unrepresentable(
                "RR extension not a multiple of 4",
            ));
        }
        w.u32(self.sender_ssrc)?;
        for b in &self.reports {
            b.emit(w)?;
        }
        w.put(&self.profile_extension)
    }
}
