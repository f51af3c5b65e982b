//! REMB, draft-alvestrand-rmcat-remb-03 section 2.2: a PSFB (PT=206)
//! application-layer feedback message (FMT=15).
//!
//! ```text
//! |V=2|P| FMT=15  |   PT=206      |             length            |
//! |                  SSRC of packet sender                        |
//! |                  SSRC of media source (0)                     |
//! |  Unique identifier 'R' 'E' 'M' 'B'                            |
//! |  Num SSRC     | BR Exp    |  BR Mantissa                      |
//! |   SSRC feedback                                               |
//! ```
//!
//! The bitrate is `mantissa * 2^exp` bit/s (6-bit exponent, 18-bit mantissa).

use crate::cursor::{Reader, Writer};
use crate::WireError;

/// The unique identifier "REMB".
pub const REMB_ID: [u8; 4] = *b"REMB";
/// Largest mantissa (18 bits).
pub const MANTISSA_MAX: u32 = (1 << 18) - 1;
/// Largest exponent (6 bits).
pub const EXPONENT_MAX: u8 = 63;

/// A REMB bitrate as it is on the wire: `mantissa * 2^exponent` bit/s.
/// Kept in wire form so that parse/emit is exact; use [`RembBitrate::from_bps`]
/// and [`RembBitrate::bps`] to convert.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RembBitrate {
    /// BR Exp, 0..=63.
    pub exponent: u8,
    /// BR Mantissa, 0..=2^18-1.
    pub mantissa: u32,
}

impl RembBitrate {
    /// The smallest exponent whose mantissa holds `bps`, rounding down
    /// (as libwebrtc's `Remb::Create` does): never reports more than `bps`.
    pub fn from_bps(bps: u64) -> Self {
        let mut exponent = 0u8;
        let mut m = bps;
        while m > u64::from(MANTISSA_MAX) {
            m >>= 1;
            exponent += 1;
        }
        Self {
            exponent,
            mantissa: m as u32,
        }
    }

    /// The bitrate in bit/s, saturating at `u64::MAX`.
    pub fn bps(&self) -> u64 {
        let m = u64::from(self.mantissa);
        let e = u32::from(self.exponent);
        if e >= 64 || m.leading_zeros() < e {
            u64::MAX
        } else {
            m << e
        }
    }
}

/// A REMB message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Remb {
    /// SSRC of packet sender.
    pub sender_ssrc: u32,
    /// SSRC of media source; the draft says it is always 0.
    pub media_ssrc: u32,
    /// Estimated maximum bitrate.
    pub bitrate: RembBitrate,
    /// SSRCs the estimate applies to, at most 255.
    pub ssrcs: Vec<u32>,
}

impl Remb {
    pub(super) fn is_remb(body: &[u8]) -> bool {
        body.get(8..12) == Some(&REMB_ID[..])
    }

    pub(super) fn parse_body(body: &[u8]) -> Result<Self, WireError> {
        let mut r = Reader::new(body);
        let sender_ssrc = r.u32()?;
        let media_ssrc = r.u32()?;
        if r.take(4)? != REMB_ID {
            return Err(WireError::Malformed("missing REMB identifier"));
        }
        let n = r.u8()?;
        let b = r.u24()?;
        let bitrate = RembBitrate {
            exponent: (b >> 18) as u8,
            mantissa: b & MANTISSA_MAX,
        };
        let mut ssrcs = Vec::with_capacity(usize::from(n));
        for _ in 0..n {
            ssrcs.push(r.u32()?);
        }
        if r.remaining() != 0 {
            return Err(WireError::BadLength("REMB length does not match Num SSRC"));
        }
        Ok(Self {
            sender_ssrc,
            media_ssrc,
            bitrate,
            ssrcs,
        })
    }

    pub(super) fn body_len(&self) -> usize {
        16 + 4 * self.ssrcs.len()
    }

    pub(super) fn emit_body(&self, w: &mut Writer<'_>) -> Result<(), WireError> {
        let n = u8::try_from(self.ssrcs.len())
            .map_err(|_| WireError::Unrepresentable("more than 255 REMB SSRCs"))?;
        if self.bitrate.exponent > EXPONENT_MAX || self.bitrate.mantissa > MANTISSA_MAX {
            return Err(WireError::Unrepresentable(
                "REMB exponent/mantissa out of range",
            ));
        }
        w.u32(self.sender_ssrc)?;
        w.u32(self.media_ssrc)?;
        w.put(&REMB_ID)?;
        w.u8(n)?;
        w.u24((u32::from(self.bitrate.exponent) << 18) | self.bitrate.mantissa)?;
        for s in &self.ssrcs {
            w.u32(*s)?;
        }
        Ok(())
    }
}
