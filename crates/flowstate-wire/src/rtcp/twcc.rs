//! Transport-wide congestion control feedback,
//! draft-holmer-rmcat-transport-wide-cc-extensions-01 section 3.1
//! (RTPFB, PT=205, FMT=15).
//!
//! ```text
//! |V=2|P|  FMT=15 |    PT=205     |           length              |
//! |                     SSRC of packet sender                     |
//! |                      SSRC of media source                     |
//! |      base sequence number     |      packet status count      |
//! |                 reference time                | fb pkt. count |
//! |          packet chunk         |         packet chunk          |
//! .                              ...                              .
//! |         packet chunk          |  recv delta   |  recv delta   |
//! .                              ...                              .
//! |           recv delta          |  recv delta   | zero padding  |
//! ```
//!
//! Packet chunks (section 3.1.3 / 3.1.4):
//! - run length chunk: `0 | S(2) | run length(13)`;
//! - status vector chunk: `1 | s | symbol list(14)`, `s = 0`: 14 one-bit
//!   symbols (0 not received, 1 received small delta), `s = 1`: 7 two-bit
//!   symbols.
//!
//! Symbols (section 3.1.1): 00 not received, 01 received with a small
//! delta (1 byte, unsigned), 10 received with a large or negative delta
//! (2 bytes, signed), 11 reserved. Deltas are in 250 us units (3.1.5);
//! the reference time is a signed 24-bit value in 64 ms units.
//!
//! Emission writes zero padding to a 32-bit boundary without setting the
//! P bit, as the draft's figure shows; parsing accepts both that and RFC 3550
//! P-bit padding.

use crate::cursor::{pad4, Reader, Writer};
use crate::WireError;

/// Receive delta unit (section 3.1.5).
pub const DELTA_UNIT_US: i64 = 250;
/// Reference time unit (section 3.1).
pub const REFERENCE_TIME_UNIT_US: i64 = 64_000;
/// Largest run length a run length chunk holds (13 bits).
pub const MAX_RUN_LENGTH: usize = (1 << 13) - 1;
/// Runs at least this long are written as run length chunks.
pub const MIN_RUN_FOR_RLE_CHUNK: usize = 7;

/// The status of one packet and its receive delta.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PacketStatus {
    /// Symbol 00.
    NotReceived,
    /// Symbol 01: delta 0..=255 units of 250 us.
    SmallDelta(u8),
    /// Symbol 10: signed delta in units of 250 us.
    LargeDelta(i16),
}

impl PacketStatus {
    /// The 2-bit symbol.
    pub fn symbol(&self) -> u8 {
        match self {
            Self::NotReceived => 0,
            Self::SmallDelta(_) => 1,
            Self::LargeDelta(_) => 2,
        }
    }

    /// Receive delta in microseconds, `None` if not received.
    pub fn delta_us(&self) -> Option<i64> {
        match self {
            Self::NotReceived => None,
            Self::SmallDelta(d) => Some(i64::from(*d) * DELTA_UNIT_US),
            Self::LargeDelta(d) => Some(i64::from(*d) * DELTA_UNIT_US),
        }
    }

    /// A received status for a delta in microseconds, rounded to the nearest
    /// 250 us: small if 0..=255 units, large if it fits in i16, else `None`
    /// (the sender must start a new feedback message, as libwebrtc does).
    pub fn from_delta_us(us: i64) -> Option<Self> {
        let units = us.checked_add(DELTA_UNIT_US / 2)?.div_euclid(DELTA_UNIT_US);
        if let Ok(u) = u8::try_from(units) {
            Some(Self::SmallDelta(u))
        } else {
            i16::try_from(units).ok().map(Self::LargeDelta)
        }
    }
}

/// A transport-wide feedback message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TransportFeedback {
    /// SSRC of packet sender.
    pub sender_ssrc: u32,
    /// SSRC of media source.
    pub media_ssrc: u32,
    /// Transport-wide sequence number of the first packet in `packets`.
    pub base_seq: u16,
    /// Reference time, signed 24 bits, in 64 ms units.
    pub reference_time: i32,
    /// Feedback packet count (wraps).
    pub fb_pkt_count: u8,
    /// One status per packet from `base_seq` on; at most 65535 entries.
    pub packets: Vec<PacketStatus>,
}

/// Smallest and largest reference time (signed 24 bits).
pub const REFERENCE_TIME_MIN: i32 = -(1 << 23);
/// See [`REFERENCE_TIME_MIN`].
pub const REFERENCE_TIME_MAX: i32 = (1 << 23) - 1;

impl TransportFeedback {
    /// Reference time in microseconds.
    pub fn reference_time_us(&self) -> i64 {
        i64::from(self.reference_time) * REFERENCE_TIME_UNIT_US
    }

    pub(super) fn parse_body(body: &[u8]) -> Result<Self, WireError> {
        let mut r = Reader::new(body);
        let sender_ssrc = r.u32()?;
        let media_ssrc = r.u32()?;
        let base_seq = r.u16()?;
        let count = usize::from(r.u16()?);
        let raw = r.u24()?;
        let reference_time = ((raw << 8) as i32) >> 8;
        let fb_pkt_count = r.u8()?;

        // Section 3.1.3/3.1.4: chunks until `count` symbols are known.
        let mut symbols: Vec<u8> = Vec::with_capacity(count.min(body.len() * 14));
        while symbols.len() < count {
            let chunk = r.u16()?;
            let need = count - symbols.len();
            if chunk & 0x8000 == 0 {
                let sym = ((chunk >> 13) & 0x3) as u8;
                let run = usize::from(chunk & 0x1FFF);
                if sym == 3 && run > 0 {
                    return Err(WireError::Malformed("reserved TWCC status symbol"));
                }
                symbols.extend(std::iter::repeat(sym).take(run.min(need)));
            } else if chunk & 0x4000 == 0 {
                for i in (0..14).rev().take(need) {
                    symbols.push(((chunk >> i) & 1) as u8);
                }
            } else {
                for i in (0..7).rev().take(need) {
                    let sym = ((chunk >> (2 * i)) & 3) as u8;
                    if sym == 3 {
                        return Err(WireError::Malformed("reserved TWCC status symbol"));
                    }
                    symbols.push(sym);
                }
            }
        }

        // Section 3.1.5: one delta per received packet.
        let mut packets = Vec::with_capacity(symbols.len());
        for s in symbols {
            packets.push(match s {
                1 => PacketStatus::SmallDelta(r.u8()?),
                2 => PacketStatus::LargeDelta(r.u16()? as i16),
                _ => PacketStatus::NotReceived,
            });
        }
        if r.remaining() > 3 {
            return Err(WireError::BadLength("bytes after the TWCC receive deltas"));
        }
        Ok(Self {
            sender_ssrc,
            media_ssrc,
            base_seq,
            reference_time,
            fb_pkt_count,
            packets,
        })
    }

    /// The packet chunks this message is written with: run length chunks
    /// for runs of at least [`MIN_RUN_FOR_RLE_CHUNK`] equal symbols, else a
    /// one-bit status vector if the next 14 packets need no large delta,
    /// else a two-bit status vector.
    pub fn encode_chunks(&self) -> Vec<u16> {
        let syms: Vec<u8> = self.packets.iter().map(PacketStatus::symbol).collect();
        let mut out = Vec::new();
        let mut i = 0;
        while let Some(&first) = syms.get(i) {
            let rest = syms.get(i..).unwrap_or(&[]);
            let run = rest
                .iter()
                .take(MAX_RUN_LENGTH)
                .take_while(|&&s| s == first)
                .count();
            if run >= MIN_RUN_FOR_RLE_CHUNK {
                out.push((u16::from(first) << 13) | run as u16);
                i += run;
            } else if rest.iter().take(14).all(|&s| s <= 1) {
                let mut c = 0x8000u16;
                for (k, &s) in rest.iter().take(14).enumerate() {
                    c |= u16::from(s) << (13 - k);
                }
                out.push(c);
                i += rest.len().min(14);
            } else {
                let mut c = 0xC000u16;
                for (k, &s) in rest.iter().take(7).enumerate() {
                    c |= u16::from(s) << (2 * (6 - k));
                }
                out.push(c);
                i += rest.len().min(7);
            }
        }
        out
    }

    fn deltas_len(&self) -> usize {
        self.packets
            .iter()
            .map(|p| match p {
                PacketStatus::NotReceived => 0,
                PacketStatus::SmallDelta(_) => 1,
                PacketStatus::LargeDelta(_) => 2,
            })
            .sum()
    }

    pub(super) fn body_len(&self) -> usize {
        pad4(16 + 2 * self.encode_chunks().len() + self.deltas_len())
    }

    pub(super) fn emit_body(&self, w: &mut Writer<'_>) -> Result<(), WireError> {
        let count = u16::try_from(self.packets.len())
            .map_err(|_| WireError::Unrepresentable("more than 65535 TWCC packet statuses"))?;
        if !(REFERENCE_TIME_MIN..=REFERENCE_TIME_MAX).contains(&self.reference_time) {
            return Err(WireError::Unrepresentable(
                "TWCC reference time outside 24-bit signed range",
            ));
        }
        let start = w.position();
        w.u32(self.sender_ssrc)?;
        w.u32(self.media_ssrc)?;
        w.u16(self.base_seq)?;
        w.u16(count)?;
        w.u24(self.reference_time as u32 & 0x00FF_FFFF)?;
        w.u8(self.fb_pkt_count)?;
        for c in self.encode_chunks() {
            w.u16(c)?;
        }
        for p in &self.packets {
            match p {
                PacketStatus::NotReceived => {}
                PacketStatus::SmallDelta(d) => w.u8(*d)?,
                PacketStatus::LargeDelta(d) => w.u16(*d as u16)?,
            }
        }
        let n = w.position() - start;
        w.zeros(pad4(n) - n)
    }
}
