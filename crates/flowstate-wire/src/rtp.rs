//! RTP packets: RFC 3550 section 5.1 fixed header, RFC 3550 section 5.3.1
//! header extension, RFC 8285 one-byte and two-byte extension elements, and
//! the transport-wide sequence number element of
//! draft-holmer-rmcat-transport-wide-cc-extensions-01 section 2.
//!
//! ```text
//!  0                   1                   2                   3
//!  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! |V=2|P|X|  CC   |M|     PT      |       sequence number         |
//! |                           timestamp                           |
//! |           synchronization source (SSRC) identifier            |
//! |            contributing source (CSRC) identifiers  ...        |
//! ```

use crate::cursor::{pad4, Reader, Writer};
use crate::WireError;

/// RFC 8285 section 4.2: "defined by profile" value of the one-byte form.
pub const ONE_BYTE_PROFILE: u16 = 0xBEDE;
/// RFC 8285 section 4.3: the two-byte form is 0x100 followed by 4 app bits.
pub const TWO_BYTE_PROFILE_MASK: u16 = 0xFFF0;
/// RFC 8285 section 4.3: upper 12 bits of the two-byte "defined by profile".
pub const TWO_BYTE_PROFILE: u16 = 0x1000;

/// One extension element (RFC 8285 section 4): local identifier and data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExtensionElement {
    /// Local identifier: 1..=14 in the one-byte form, 1..=255 in the two-byte form.
    pub id: u8,
    /// Element data: 1..=16 bytes (one-byte form), 0..=255 bytes (two-byte form).
    pub data: Vec<u8>,
}

/// The RTP header extension (RFC 3550 section 5.3.1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HeaderExtension {
    /// RFC 8285 section 4.2, profile 0xBEDE.
    OneByte(Vec<ExtensionElement>),
    /// RFC 8285 section 4.3, profile 0x100X with 4 `app_bits`.
    TwoByte {
        /// The low 4 bits of "defined by profile".
        app_bits: u8,
        /// Elements in wire order.
        elements: Vec<ExtensionElement>,
    },
    /// Any other profile: opaque data (length a multiple of 4 bytes).
    Other {
        /// "defined by profile".
        profile: u16,
        /// Extension body, a multiple of 4 bytes.
        data: Vec<u8>,
    },
}

impl HeaderExtension {
    /// The elements of an RFC 8285 extension (empty for `Other`).
    pub fn elements(&self) -> &[ExtensionElement] {
        match self {
            Self::OneByte(e) | Self::TwoByte { elements: e, .. } => e,
            Self::Other { .. } => &[],
        }
    }

    /// Body length in bytes (without the 4-byte extension header), padded to 4.
    fn body_len(&self) -> usize {
        match self {
            Self::OneByte(e) => pad4(e.iter().map(|x| 1 + x.data.len()).sum()),
            Self::TwoByte { elements, .. } => pad4(elements.iter().map(|x| 2 + x.data.len()).sum()),
            Self::Other { data, .. } => data.len(),
        }
    }

    fn parse(r: &mut Reader<'_>) -> Result<Self, WireError> {
        let profile = r.u16()?;
        let words = usize::from(r.u16()?);
        let body = r.take(words * 4)?;
        if profile == ONE_BYTE_PROFILE {
            Ok(Self::OneByte(parse_one_byte(body)?))
        } else if profile & TWO_BYTE_PROFILE_MASK == TWO_BYTE_PROFILE {
            Ok(Self::TwoByte {
                app_bits: (profile & 0x000F) as u8,
                elements: parse_two_byte(body)?,
            })
        } else {
            Ok(Self::Other {
                profile,
                data: body.to_vec(),
            })
        }
    }

    fn emit(&self, w: &mut Writer<'_>) -> Result<(), WireError> {
        let body = self.body_len();
        let words = u16::try_from(body / 4)
            .map_err(|_| WireError::Unrepresentable("header extension longer than 65535 words"))?;
        match self {
            Self::OneByte(elements) => {
                w.u16(ONE_BYTE_PROFILE)?;
                w.u16(words)?;
                let mut n = 0;
                for e in elements {
                    // RFC 8285 section 4.2: ID 1..=14, L = length - 1, length 1..=16.
                    if e.id == 0 || e.id == 15 {
                        return Err(WireError::Unrepresentable(
                            "one-byte extension id must be 1..=14",
                        ));
                    }
                    if e.data.is_empty() || e.data.len() > 16 {
                        return Err(WireError::Unrepresentable(
                            "one-byte extension data must be 1..=16 bytes",
                        ));
                    }
                    w.u8((e.id << 4) | (e.data.len() - 1) as u8)?;
                    w.put(&e.data)?;
                    n += 1 + e.data.len();
                }
                w.zeros(body - n)?;
            }
            Self::TwoByte { app_bits, elements } => {
                if *app_bits > 0x0F {
                    return Err(WireError::Unrepresentable(
                        "two-byte app bits must be 0..=15",
                    ));
                }
                w.u16(TWO_BYTE_PROFILE | u16::from(*app_bits))?;
                w.u16(words)?;
                let mut n = 0;
                for e in elements {
                    // RFC 8285 section 4.3: ID 1..=255 (0 is padding), length 0..=255.
                    if e.id == 0 {
                        return Err(WireError::Unrepresentable(
                            "two-byte extension id must be 1..=255",
                        ));
                    }
                    let len = u8::try_from(e.data.len()).map_err(|_| {
                        WireError::Unrepresentable("two-byte extension data must be 0..=255 bytes")
                    })?;
                    w.u8(e.id)?;
                    w.u8(len)?;
                    w.put(&e.data)?;
                    n += 2 + e.data.len();
                }
                w.zeros(body - n)?;
            }
            Self::Other { profile, data } => {
                if data.len() % 4 != 0 {
                    return Err(WireError::Unrepresentable(
                        "extension data must be a multiple of 4 bytes",
                    ));
                }
                if *profile == ONE_BYTE_PROFILE
                    || profile & TWO_BYTE_PROFILE_MASK == TWO_BYTE_PROFILE
                {
                    return Err(WireError::Unrepresentable(
                        "Other extension uses an RFC 8285 profile",
                    ));
                }
                w.u16(*profile)?;
                w.u16(words)?;
                w.put(data)?;
            }
        }
        Ok(())
    }
}

/// RFC 8285 section 4.2: ID 0 is a padding byte; ID 15 ends processing.
fn parse_one_byte(body: &[u8]) -> Result<Vec<ExtensionElement>, WireError> {
    let mut r = Reader::new(body);
    let mut out = Vec::new();
    while r.remaining() > 0 {
        let b = r.u8()?;
        let id = b >> 4;
        if id == 0 {
            // Padding byte (its length nibble should be 0; ignore it either way).
            continue;
        }
        if id == 15 {
            break;
        }
        let len = usize::from(b & 0x0F) + 1;
        out.push(ExtensionElement {
            id,
            data: r.take(len)?.to_vec(),
        });
    }
    Ok(out)
}

/// RFC 8285 section 4.3: a zero byte is padding.
fn parse_two_byte(body: &[u8]) -> Result<Vec<ExtensionElement>, WireError> {
    let mut r = Reader::new(body);
    let mut out = Vec::new();
    while r.remaining() > 0 {
        let id = r.u8()?;
        if id == 0 {
            continue;
        }
        let len = usize::from(r.u8()?);
        out.push(ExtensionElement {
            id,
            data: r.take(len)?.to_vec(),
        });
    }
    Ok(out)
}

/// An RTP packet (RFC 3550 section 5.1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RtpPacket {
    /// M bit.
    pub marker: bool,
    /// PT, 0..=127.
    pub payload_type: u8,
    /// Sequence number.
    pub sequence_number: u16,
    /// RTP timestamp.
    pub timestamp: u32,
    /// SSRC.
    pub ssrc: u32,
    /// CSRC list, at most 15 entries.
    pub csrcs: Vec<u32>,
    /// Header extension (X bit set when `Some`).
    pub extension: Option<HeaderExtension>,
    /// Payload (without padding).
    pub payload: Vec<u8>,
    /// Number of padding bytes at the end, 0 = no P bit. When non-zero the
    /// last padding byte holds this count (RFC 3550 section 5.1).
    pub padding: u8,
}

impl RtpPacket {
    /// Fixed header length.
    pub const FIXED_HEADER_LEN: usize = 12;

    /// A packet with no CSRC, extension or padding.
    pub fn new(payload_type: u8, sequence_number: u16, timestamp: u32, ssrc: u32) -> Self {
        Self {
            marker: false,
            payload_type,
            sequence_number,
            timestamp,
            ssrc,
            csrcs: Vec::new(),
            extension: None,
            payload: Vec::new(),
            padding: 0,
        }
    }

    /// Parse one RTP packet (the whole UDP payload).
    pub fn parse(buf: &[u8]) -> Result<Self, WireError> {
        let mut r = Reader::new(buf);
        let b0 = r.u8()?;
        if b0 >> 6 != 2 {
            return Err(WireError::BadVersion);
        }
        let has_padding = b0 & 0x20 != 0;
        let has_ext = b0 & 0x10 != 0;
        let cc = usize::from(b0 & 0x0F);
        let b1 = r.u8()?;
        let sequence_number = r.u16()?;
        let timestamp = r.u32()?;
        let ssrc = r.u32()?;
        let mut csrcs = Vec::with_capacity(cc);
        for _ in 0..cc {
            csrcs.push(r.u32()?);
        }
        let extension = if has_ext {
            Some(HeaderExtension::parse(&mut r)?)
        } else {
            None
        };
        let mut rest = r.rest();
        let mut padding = 0;
        if has_padding {
            // RFC 3550 section 5.1: the last octet counts the padding octets, itself included.
            let (&count, _) = rest.split_last().ok_or(WireError::BadPadding)?;
            if count == 0 || usize::from(count) > rest.len() {
                return Err(WireError::BadPadding);
            }
            padding = count;
            rest = rest
                .get(..rest.len() - usize::from(count))
                .ok_or(WireError::BadPadding)?;
        }
        Ok(Self {
            marker: b1 & 0x80 != 0,
            payload_type: b1 & 0x7F,
            sequence_number,
            timestamp,
            ssrc,
            csrcs,
            extension,
            payload: rest.to_vec(),
            padding,
        })
    }

    /// Header length (fixed header, CSRCs and extension).
    pub fn header_len(&self) -> usize {
        Self::FIXED_HEADER_LEN
            + 4 * self.csrcs.len()
            + self.extension.as_ref().map_or(0, |e| 4 + e.body_len())
    }

    /// Exact number of bytes `emit` writes.
    pub fn buffer_len(&self) -> usize {
        self.header_len() + self.payload.len() + usize::from(self.padding)
    }

    /// Write the packet into `buf`; returns the number of bytes written.
    pub fn emit(&self, buf: &mut [u8]) -> Result<usize, WireError> {
        if self.csrcs.len() > 15 {
            return Err(WireError::Unrepresentable("more than 15 CSRCs"));
        }
        if self.payload_type > 127 {
            return Err(WireError::Unrepresentable("payload type > 127"));
        }
        let mut w = Writer::new(buf);
        let b0 = 0x80
            | if self.padding > 0 { 0x20 } else { 0 }
            | if self.extension.is_some() { 0x10 } else { 0 }
            | self.csrcs.len() as u8;
        w.u8(b0)?;
        w.u8(if self.marker { 0x80 } else { 0 } | self.payload_type)?;
        w.u16(self.sequence_number)?;
        w.u32(self.timestamp)?;
        w.u32(self.ssrc)?;
        for c in &self.csrcs {
            w.u32(*c)?;
        }
        if let Some(e) = &self.extension {
            e.emit(&mut w)?;
        }
        w.put(&self.payload)?;
        if self.padding > 0 {
            w.zeros(usize::from(self.padding) - 1)?;
            w.u8(self.padding)?;
        }
        Ok(w.position())
    }

    /// Emit into a new vector of `buffer_len()` bytes.
    pub fn to_vec(&self) -> Result<Vec<u8>, WireError> {
        let mut v = vec![0; self.buffer_len()];
        let n = self.emit(&mut v)?;
        v.truncate(n);
        Ok(v)
    }

    /// The transport-wide sequence number carried in extension element `id`
    /// (draft-holmer-rmcat-transport-wide-cc-extensions-01 section 2: 2 bytes,
    /// big-endian, one-byte form with L=1). Also accepted in the two-byte form.
    pub fn transport_cc_seq(&self, id: u8) -> Option<u16> {
        let e = self
            .extension
            .as_ref()?
            .elements()
            .iter()
            .find(|e| e.id == id)?;
        let a: [u8; 2] = e.data.get(..2)?.try_into().ok()?;
        Some(u16::from_be_bytes(a))
    }

    /// Set (or replace) the transport-wide sequence number element `id`. Adds
    /// a one-byte-form extension if the packet has none. Fails if the packet
    /// has a non-RFC 8285 extension or `id` is not valid for the form in use.
    pub fn set_transport_cc_seq(&mut self, id: u8, seq: u16) -> Result<(), WireError> {
        let elements = match self
            .extension
            .get_or_insert_with(|| HeaderExtension::OneByte(Vec::new()))
        {
            HeaderExtension::OneByte(e) => {
                if id == 0 || id > 14 {
                    return Err(WireError::Unrepresentable(
                        "one-byte extension id must be 1..=14",
                    ));
                }
                e
            }
            HeaderExtension::TwoByte { elements, .. } => {
                if id == 0 {
                    return Err(WireError::Unrepresentable(
                        "two-byte extension id must be 1..=255",
                    ));
                }
                elements
            }
            HeaderExtension::Other { .. } => {
                return Err(WireError::Unrepresentable(
                    "packet has a non-RFC 8285 header extension",
                ))
            }
        };
        let data = seq.to_be_bytes().to_vec();
        match elements.iter_mut().find(|e| e.id == id) {
            Some(e) => e.data = data,
            None => elements.push(ExtensionElement { id, data }),
        }
        Ok(())
    }
}
