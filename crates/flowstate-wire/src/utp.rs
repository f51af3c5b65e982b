//! The uTP header (BitTorrent's Micro Transport Protocol, BEP 29): LEDBAT (RFC 6817)
//! over UDP, the wire format of the testbed's LEDBAT flows. Every packet carries the
//! sender's timestamp and the timestamp difference of the last packet it received
//! (the one-way delay sample LEDBAT needs, RFC 6817 section 3.1).
//!
//! ```text
//! 0       4       8               16              24              32
//! +-------+-------+---------------+---------------+---------------+
//! | type  | ver   | extension     | connection_id                 |
//! +-------+-------+---------------+---------------+---------------+
//! | timestamp_microseconds                                        |
//! +---------------+---------------+---------------+---------------+
//! | timestamp_difference_microseconds                             |
//! +---------------+---------------+---------------+---------------+
//! | wnd_size                                                      |
//! +---------------+---------------+---------------+---------------+
//! | seq_nr                        | ack_nr                        |
//! +---------------+---------------+---------------+---------------+
//! ```
//!
//! Extensions (BEP 29: the header's `extension` byte names the first; each is
//! `next extension type | length | data`) are kept as `(type, data)` in order, so
//! parse/emit is exact; type 0 ends the chain. The payload follows the last extension.
//!
//! ECN: uTP has no ECN signalling of its own; flowstate's LEDBAT endpoints carry TCP's
//! two ECN flags (RFC 3168 section 6.1: CWR on data, ECE on acks) in an extension of
//! their own, [`EXT_ECN_FLAGS`], one byte with TCP's bit positions ([`ecn_flags`],
//! [`ecn_flags_extension`]). A uTP stack that does not know the type skips it (BEP 29:
//! every extension carries its length).

use crate::cursor::{Reader, Writer};
use crate::WireError;

/// BEP 29: version 1.
pub const UTP_VERSION: u8 = 1;
/// Header length.
pub const UTP_HEADER_LEN: usize = 20;

/// flowstate's uTP extension type carrying TCP's ECN flags (not assigned by BEP 29,
/// which uses 1 for selective acks; libutp uses 2 for its extension bits).
pub const EXT_ECN_FLAGS: u8 = 0x45;
/// The CWR bit of the [`EXT_ECN_FLAGS`] byte (TCP's flag bit, RFC 3168 section 6.1).
pub const ECN_FLAG_CWR: u8 = 0x80;
/// The ECE bit of the [`EXT_ECN_FLAGS`] byte (TCP's flag bit, RFC 3168 section 6.1).
pub const ECN_FLAG_ECE: u8 = 0x40;

/// The extension carrying CWR and ECE, `None` when neither is set (no extension).
pub fn ecn_flags_extension(cwr: bool, ece: bool) -> Option<(u8, Vec<u8>)> {
    let byte = if cwr { ECN_FLAG_CWR } else { 0 } | if ece { ECN_FLAG_ECE } else { 0 };
    (byte != 0).then(|| (EXT_ECN_FLAGS, vec![byte]))
}

/// `(cwr, ece)` from a packet's extensions (both false without [`EXT_ECN_FLAGS`]).
/// Error: the extension is not one byte long.
pub fn ecn_flags(extensions: &[(u8, Vec<u8>)]) -> Result<(bool, bool), WireError> {
    match extensions.iter().find(|(t, _)| *t == EXT_ECN_FLAGS) {
        None => Ok((false, false)),
        Some((_, d)) if d.len() == 1 => Ok((d[0] & ECN_FLAG_CWR != 0, d[0] & ECN_FLAG_ECE != 0)),
        Some(_) => Err(WireError::BadLength("uTP ECN flags extension not one byte")),
    }
}

/// Packet types (BEP 29).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UtpType {
    /// ST_DATA (0): a data packet.
    Data,
    /// ST_FIN (1).
    Fin,
    /// ST_STATE (2): an ack without data.
    State,
    /// ST_RESET (3).
    Reset,
    /// ST_SYN (4).
    Syn,
}

impl UtpType {
    fn from_nibble(n: u8) -> Result<Self, WireError> {
        Ok(match n {
            0 => Self::Data,
            1 => Self::Fin,
            2 => Self::State,
            3 => Self::Reset,
            4 => Self::Syn,
            _ => return Err(WireError::Malformed("uTP type above ST_SYN (4)")),
        })
    }
    fn nibble(self) -> u8 {
        match self {
            Self::Data => 0,
            Self::Fin => 1,
            Self::State => 2,
            Self::Reset => 3,
            Self::Syn => 4,
        }
    }
}

/// A uTP packet: header fields and payload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UtpPacket {
    pub packet_type: UtpType,
    pub connection_id: u16,
    /// The sender's clock when it sent the packet, microseconds (wrapping).
    pub timestamp_us: u32,
    /// The sender's receive time minus the timestamp of the last packet it received,
    /// microseconds (wrapping): the one-way delay sample.
    pub timestamp_difference_us: u32,
    pub wnd_size: u32,
    pub seq_nr: u16,
    pub ack_nr: u16,
    /// Extensions in order: (type, data), type 1..=255, data at most 255 bytes.
    pub extensions: Vec<(u8, Vec<u8>)>,
    pub payload: Vec<u8>,
}

impl UtpPacket {
    /// The first byte of every uTP packet of `t` (type and version 1), for classifying
    /// datagrams.
    pub const fn first_byte(t: UtpType) -> u8 {
        let n = match t {
            UtpType::Data => 0,
            UtpType::Fin => 1,
            UtpType::State => 2,
            UtpType::Reset => 3,
            UtpType::Syn => 4,
        };
        (n << 4) | UTP_VERSION
    }

    pub fn parse(buf: &[u8]) -> Result<Self, WireError> {
        let mut r = Reader::new(buf);
        let b0 = r.u8()?;
        if b0 & 0x0F != UTP_VERSION {
            return Err(WireError::BadVersion);
        }
        let packet_type = UtpType::from_nibble(b0 >> 4)?;
        let mut next = r.u8()?;
        let connection_id = r.u16()?;
        let timestamp_us = r.u32()?;
        let timestamp_difference_us = r.u32()?;
        let wnd_size = r.u32()?;
        let seq_nr = r.u16()?;
        let ack_nr = r.u16()?;
        let mut extensions = Vec::new();
        while next != 0 {
            let t = next;
            next = r.u8()?;
            let len = usize::from(r.u8()?);
            extensions.push((t, r.take(len)?.to_vec()));
        }
        Ok(UtpPacket {
            packet_type,
            connection_id,
            timestamp_us,
            timestamp_difference_us,
            wnd_size,
            seq_nr,
            ack_nr,
            extensions,
            payload: r.rest().to_vec(),
        })
    }

    pub fn buffer_len(&self) -> usize {
        UTP_HEADER_LEN
            + self
                .extensions
                .iter()
                .map(|(_, d)| 2 + d.len())
                .sum::<usize>()
            + self.payload.len()
    }

    pub fn to_vec(&self) -> Result<Vec<u8>, WireError> {
        let mut v = vec![0; self.buffer_len()];
        let mut w = Writer::new(&mut v);
        for (t, d) in &self.extensions {
            if *t == 0 || d.len() > 255 {
                return Err(WireError::Unrepresentable(
                    "uTP extension of type 0 or longer than 255 bytes",
                ));
            }
        }
        w.u8((self.packet_type.nibble() << 4) | UTP_VERSION)?;
        w.u8(self.extensions.first().map_or(0, |e| e.0))?;
        w.u16(self.connection_id)?;
        w.u32(self.timestamp_us)?;
        w.u32(self.timestamp_difference_us)?;
        w.u32(self.wnd_size)?;
        w.u16(self.seq_nr)?;
        w.u16(self.ack_nr)?;
        for (k, (_, d)) in self.extensions.iter().enumerate() {
            w.u8(self.extensions.get(k + 1).map_or(0, |e| e.0))?;
            w.u8(d.len() as u8)?;
            w.put(d)?;
        }
        w.put(&self.payload)?;
        Ok(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_bytes_and_round_trip() {
        let p = UtpPacket {
            packet_type: UtpType::State,
            connection_id: 0x1234,
            timestamp_us: 0x0102_0304,
            timestamp_difference_us: 30_000,
            wnd_size: 1 << 20,
            seq_nr: 7,
            ack_nr: 0xFFFF,
            extensions: vec![],
            payload: vec![0xAA],
        };
        let v = p.to_vec().unwrap();
        #[rustfmt::skip]
        let expected = [
            0x21, 0x00, 0x12, 0x34,  // ST_STATE, version 1; no extension; connection id
            0x01, 0x02, 0x03, 0x04,  // timestamp
            0x00, 0x00, 0x75, 0x30,  // timestamp difference 30 000 us
            0x00, 0x10, 0x00, 0x00,  // wnd_size
            0x00, 0x07, 0xFF, 0xFF,  // seq_nr, ack_nr
            0xAA,
        ];
        assert_eq!(v, expected);
        assert_eq!(UtpPacket::parse(&v), Ok(p.clone()));
        assert_eq!(UtpPacket::first_byte(UtpType::Data), 0x01);
        // Two extensions: the header names the first, each the next.
        let q = UtpPacket {
            extensions: vec![(1, vec![0xFF; 4]), (0x80, vec![1, 2])],
            ..p
        };
        let v = q.to_vec().unwrap();
        assert_eq!(v[1], 1);
        assert_eq!(&v[20..28], &[0x80, 4, 0xFF, 0xFF, 0xFF, 0xFF, 0, 2]);
        assert_eq!(v.len(), q.buffer_len());
        assert_eq!(UtpPacket::parse(&v), Ok(q));
    }

    #[test]
    fn ecn_flags_round_trip_in_their_extension() {
        for (cwr, ece) in [(false, false), (true, false), (false, true), (true, true)] {
            let ext: Vec<_> = ecn_flags_extension(cwr, ece).into_iter().collect();
            assert_eq!(ext.is_empty(), !cwr && !ece);
            let p = UtpPacket {
                packet_type: UtpType::State,
                connection_id: 1,
                timestamp_us: 2,
                timestamp_difference_us: 3,
                wnd_size: 4,
                seq_nr: 5,
                ack_nr: 6,
                extensions: ext,
                payload: vec![],
            };
            let v = p.to_vec().unwrap();
            if cwr && ece {
                assert_eq!((v[1], &v[20..23]), (EXT_ECN_FLAGS, &[0, 1, 0xC0][..]));
            }
            let q = UtpPacket::parse(&v).unwrap();
            assert_eq!(ecn_flags(&q.extensions), Ok((cwr, ece)));
        }
        let bad = [(EXT_ECN_FLAGS, vec![0x80, 0])];
        assert!(ecn_flags(&bad).is_err());
    }

    #[test]
    fn bad_input_is_an_error() {
        let p = UtpPacket {
            packet_type: UtpType::Data,
            connection_id: 1,
            timestamp_us: 2,
            timestamp_difference_us: 3,
            wnd_size: 4,
            seq_nr: 5,
            ack_nr: 6,
            extensions: vec![],
            payload: vec![],
        };
        let v = p.to_vec().unwrap();
        assert_eq!(UtpPacket::parse(&v[..19]), Err(WireError::Truncated));
        let mut w = v.clone();
        w[0] = 0x02; // version 2
        assert_eq!(UtpPacket::parse(&w), Err(WireError::BadVersion));
        let mut w = v.clone();
        w[0] = 0x51; // type 5
        assert!(matches!(UtpPacket::parse(&w), Err(WireError::Malformed(_))));
        let mut w = v;
        w[1] = 1; // an extension announced, none there
        assert_eq!(UtpPacket::parse(&w), Err(WireError::Truncated));
        let bad = UtpPacket {
            extensions: vec![(0, vec![])],
            ..p.clone()
        };
        assert!(bad.to_vec().is_err());
        let long = UtpPacket {
            extensions: vec![(2, vec![0; 256])],
            ..p
        };
        assert!(long.to_vec().is_err());
    }
}
