//! SCTP chunks, RFC 9260 section 3.2 and 3.3, and the ECN chunks of its appendix A
//! (ECNE, CWR).

use crate::cursor::{pad4, Reader, Writer};
use crate::WireError;

/// RFC 9260 section 3.2 chunk type values.
pub mod types {
    /// Payload data.
    pub const DATA: u8 = 0;
    /// Initiation.
    pub const INIT: u8 = 1;
    /// Initiation acknowledgement.
    pub const INIT_ACK: u8 = 2;
    /// Selective acknowledgement.
    pub const SACK: u8 = 3;
    /// Abort.
    pub const ABORT: u8 = 6;
    /// Shutdown.
    pub const SHUTDOWN: u8 = 7;
    /// Shutdown acknowledgement.
    pub const SHUTDOWN_ACK: u8 = 8;
    /// State cookie.
    pub const COOKIE_ECHO: u8 = 10;
    /// Cookie acknowledgement.
    pub const COOKIE_ACK: u8 = 11;
    /// ECN Echo (RFC 9260 appendix A).
    pub const ECNE: u8 = 12;
    /// Congestion Window Reduced (RFC 9260 appendix A).
    pub const CWR: u8 = 13;
    /// Shutdown complete.
    pub const SHUTDOWN_COMPLETE: u8 = 14;
    /// All types this crate parses into a dedicated variant.
    pub const KNOWN: [u8; 12] = [
        DATA,
        INIT,
        INIT_ACK,
        SACK,
        ABORT,
        SHUTDOWN,
        SHUTDOWN_ACK,
        COOKIE_ECHO,
        COOKIE_ACK,
        ECNE,
        CWR,
        SHUTDOWN_COMPLETE,
    ];
}

/// RFC 9260 section 3.3.3: State Cookie parameter type in INIT ACK.
pub const PARAM_STATE_COOKIE: u16 = 7;

/// A type-length-value item: an INIT/INIT ACK parameter (section 3.2.1) or
/// an error cause (section 3.3.10). On the wire: `type(16) | length(16) |
/// value`, `length = 4 + value.len()`, padded to 4 bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tlv {
    /// Parameter type or cause code.
    pub typ: u16,
    /// Value, at most 65531 bytes.
    pub value: Vec<u8>,
}

/// Parse TLVs filling `buf`; the last may lack its padding (section 3.2).
fn parse_tlvs(buf: &[u8]) -> Result<Vec<Tlv>, WireError> {
    let mut r = Reader::new(buf);
    let mut out = Vec::new();
    while r.remaining() > 0 {
        let typ = r.u16()?;
        let len = usize::from(r.u16()?);
        if len < 4 {
            return Err(WireError::BadLength("SCTP parameter length < 4"));
        }
        let value = r.take(len - 4)?.to_vec();
        let pad = (pad4(len) - len).min(r.remaining());
        r.skip(pad)?;
        out.push(Tlv { typ, value });
    }
    Ok(out)
}

/// Length of TLVs as written by [`emit_tlvs`]: all padded except the last.
fn tlvs_len<'a>(items: impl Iterator<Item = &'a [u8]>) -> usize {
    let mut total = 0;
    let mut last_pad = 0;
    for v in items {
        let len = 4 + v.len();
        total += pad4(len);
        last_pad = pad4(len) - len;
    }
    total - last_pad
}

fn emit_tlvs<'a>(
    w: &mut Writer<'_>,
    items: impl Iterator<Item = (u16, &'a [u8])>,
) -> Result<(), WireError> {
    let mut pending_pad = 0;
    for (typ, v) in items {
        w.zeros(pending_pad)?;
        let len = u16::try_from(4 + v.len())
            .map_err(|_| WireError::Unrepresentable("SCTP parameter longer than 65535 bytes"))?;
        w.u16(typ)?;
        w.u16(len)?;
        w.put(v)?;
        pending_pad = pad4(usize::from(len)) - usize::from(len);
    }
    Ok(())
}

/// DATA chunk (section 3.3.1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataChunk {
    /// I bit (RFC 7053): ask for an immediate SACK.
    pub immediate: bool,
    /// U bit: unordered.
    pub unordered: bool,
    /// B bit: first fragment of a user message.
    pub beginning: bool,
    /// E bit: last fragment of a user message.
    pub ending: bool,
    /// Transmission sequence number.
    pub tsn: u32,
    /// Stream identifier S.
    pub stream_id: u16,
    /// Stream sequence number n.
    pub ssn: u16,
    /// Payload protocol identifier (for WebRTC data channels: RFC 8831 section 8).
    pub ppid: u32,
    /// User data.
    pub payload: Vec<u8>,
}

/// INIT chunk (section 3.3.2); also the fixed part of INIT ACK.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InitChunk {
    /// Initiate tag.
    pub initiate_tag: u32,
    /// Advertised receiver window credit.
    pub a_rwnd: u32,
    /// Number of outbound streams.
    pub outbound_streams: u16,
    /// Number of inbound streams.
    pub inbound_streams: u16,
    /// Initial TSN.
    pub initial_tsn: u32,
    /// Optional/variable-length parameters, in wire order.
    pub params: Vec<Tlv>,
}

impl InitChunk {
    fn parse(r: &mut Reader<'_>) -> Result<Self, WireError> {
        Ok(Self {
            initiate_tag: r.u32()?,
            a_rwnd: r.u32()?,
            outbound_streams: r.u16()?,
            inbound_streams: r.u16()?,
            initial_tsn: r.u32()?,
            params: parse_tlvs(r.rest())?,
        })
    }

    fn emit_fixed(&self, w: &mut Writer<'_>) -> Result<(), WireError> {
        w.u32(self.initiate_tag)?;
        w.u32(self.a_rwnd)?;
        w.u16(self.outbound_streams)?;
        w.u16(self.inbound_streams)?;
        w.u32(self.initial_tsn)
    }
}

/// INIT ACK chunk (section 3.3.3): the INIT fields plus the mandatory
/// State Cookie parameter. `init.params` holds the other parameters; on
/// emission the cookie is written first. On parsing, the first State Cookie
/// parameter becomes `cookie` and any others stay in `init.params`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InitAckChunk {
    /// Fixed fields and the other parameters.
    pub init: InitChunk,
    /// The State Cookie parameter value.
    pub cookie: Vec<u8>,
}

/// SACK chunk (section 3.3.4).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SackChunk {
    /// Cumulative TSN ack.
    pub cum_tsn_ack: u32,
    /// Advertised receiver window credit.
    pub a_rwnd: u32,
    /// Gap ack blocks as (start, end) offsets from `cum_tsn_ack`.
    pub gap_blocks: Vec<(u16, u16)>,
    /// Duplicate TSNs.
    pub dup_tsns: Vec<u32>,
}

/// What section 3.2 says to do with a chunk of an unknown type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnknownAction {
    /// `00`: stop processing this packet, discard it, do not report.
    Stop,
    /// `01`: stop, discard, report in an ERROR chunk.
    StopAndReport,
    /// `10`: skip this chunk and continue.
    Skip,
    /// `11`: skip, continue, report in an ERROR chunk.
    SkipAndReport,
}

/// A chunk whose type this crate does not parse, kept as bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownChunk {
    /// Chunk type; not one of [`types::KNOWN`].
    pub chunk_type: u8,
    /// Chunk flags.
    pub flags: u8,
    /// Chunk value (without header and padding).
    pub value: Vec<u8>,
}

impl UnknownChunk {
    /// The action selected by the two high bits of the type (section 3.2).
    pub fn action(&self) -> UnknownAction {
        match self.chunk_type >> 6 {
            0 => UnknownAction::Stop,
            1 => UnknownAction::StopAndReport,
            2 => UnknownAction::Skip,
            _ => UnknownAction::SkipAndReport,
        }
    }
}

/// One chunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Chunk {
    /// DATA (0).
    Data(DataChunk),
    /// INIT (1).
    Init(InitChunk),
    /// INIT ACK (2).
    InitAck(InitAckChunk),
    /// SACK (3).
    Sack(SackChunk),
    /// ABORT (6, section 3.3.7).
    Abort {
        /// T bit: the verification tag is reflected.
        t_flag: bool,
        /// Error causes.
        causes: Vec<Tlv>,
    },
    /// SHUTDOWN (7, section 3.3.8).
    Shutdown {
        /// Cumulative TSN ack.
        cum_tsn_ack: u32,
    },
    /// SHUTDOWN ACK (8, section 3.3.9).
    ShutdownAck,
    /// COOKIE ECHO (10, section 3.3.11).
    CookieEcho {
        /// The cookie from the INIT ACK.
        cookie: Vec<u8>,
    },
    /// COOKIE ACK (11, section 3.3.12).
    CookieAck,
    /// ECNE (12, appendix A): the lowest TSN of a packet that arrived CE-marked.
    EcnEcho {
        /// Lowest TSN Number.
        lowest_tsn: u32,
    },
    /// CWR (13, appendix A): the sender reduced its window for the ECNE naming this TSN.
    Cwr {
        /// Lowest TSN Number (the one the ECNE carried).
        lowest_tsn: u32,
    },
    /// SHUTDOWN COMPLETE (14, section 3.3.13).
    ShutdownComplete {
        /// T bit.
        t_flag: bool,
    },
    /// Any other type.
    Unknown(UnknownChunk),
}

fn expect_empty(r: &Reader<'_>, what: &'static str) -> Result<(), WireError> {
    if r.remaining() == 0 {
        Ok(())
    } else {
        Err(WireError::BadLength(what))
    }
}

impl Chunk {
    /// Parse one chunk and its padding; the bool is true when processing
    /// of the packet must stop after it (unknown type with high bit 0).
    pub(crate) fn parse(r: &mut Reader<'_>) -> Result<(Self, bool), WireError> {
        let chunk_type = r.u8()?;
        let flags = r.u8()?;
        let len = usize::from(r.u16()?);
        if len < 4 {
            return Err(WireError::BadLength("SCTP chunk length < 4"));
        }
        let value = r.take(len - 4)?;
        // Section 3.2: padding is not counted in the length; tolerate a
        // missing pad after the last chunk.
        let pad = (pad4(len) - len).min(r.remaining());
        r.skip(pad)?;
        let mut v = Reader::new(value);
        let c = match chunk_type {
            types::DATA => {
                let c = DataChunk {
                    immediate: flags & 0x08 != 0,
                    unordered: flags & 0x04 != 0,
                    beginning: flags & 0x02 != 0,
                    ending: flags & 0x01 != 0,
                    tsn: v.u32()?,
                    stream_id: v.u16()?,
                    ssn: v.u16()?,
                    ppid: v.u32()?,
                    payload: v.rest().to_vec(),
                };
                Self::Data(c)
            }
            types::INIT => Self::Init(InitChunk::parse(&mut v)?),
            types::INIT_ACK => {
                let mut init = InitChunk::parse(&mut v)?;
                let at = init
                    .params
                    .iter()
                    .position(|p| p.typ == PARAM_STATE_COOKIE)
                    .ok_or(WireError::Malformed("INIT ACK without State Cookie"))?;
                let cookie = init.params.remove(at).value;
                Self::InitAck(InitAckChunk { init, cookie })
            }
            types::SACK => {
                let cum_tsn_ack = v.u32()?;
                let a_rwnd = v.u32()?;
                let ngaps = v.u16()?;
                let ndups = v.u16()?;
                let mut gap_blocks = Vec::with_capacity(usize::from(ngaps).min(value.len() / 4));
                for _ in 0..ngaps {
                    gap_blocks.push((v.u16()?, v.u16()?));
                }
                let mut dup_tsns = Vec::with_capacity(usize::from(ndups).min(value.len() / 4));
                for _ in 0..ndups {
                    dup_tsns.push(v.u32()?);
                }
                expect_empty(&v, "bytes after SACK blocks")?;
                Self::Sack(SackChunk {
                    cum_tsn_ack,
                    a_rwnd,
                    gap_blocks,
                    dup_tsns,
                })
            }
            types::ABORT => Self::Abort {
                t_flag: flags & 0x01 != 0,
                causes: parse_tlvs(value)?,
            },
            types::SHUTDOWN => {
                let cum_tsn_ack = v.u32()?;
                expect_empty(&v, "bytes after SHUTDOWN")?;
                Self::Shutdown { cum_tsn_ack }
            }
            types::SHUTDOWN_ACK => {
                expect_empty(&v, "bytes in SHUTDOWN ACK")?;
                Self::ShutdownAck
            }
            types::COOKIE_ECHO => Self::CookieEcho {
                cookie: value.to_vec(),
            },
            types::COOKIE_ACK => {
                expect_empty(&v, "bytes in COOKIE ACK")?;
                Self::CookieAck
            }
            types::ECNE => {
                let lowest_tsn = v.u32()?;
                expect_empty(&v, "bytes after ECNE's TSN")?;
                Self::EcnEcho { lowest_tsn }
            }
            types::CWR => {
                let lowest_tsn = v.u32()?;
                expect_empty(&v, "bytes after CWR's TSN")?;
                Self::Cwr { lowest_tsn }
            }
            types::SHUTDOWN_COMPLETE => {
                expect_empty(&v, "bytes in SHUTDOWN COMPLETE")?;
                Self::ShutdownComplete {
                    t_flag: flags & 0x01 != 0,
                }
            }
            _ => {
                let u = UnknownChunk {
                    chunk_type,
                    flags,
                    value: value.to_vec(),
                };
                let stop = matches!(
                    u.action(),
                    UnknownAction::Stop | UnknownAction::StopAndReport
                );
                return Ok((Self::Unknown(u), stop));
            }
        };
        Ok((c, false))
    }

    /// Chunk length without padding, header included (the Length field).
    pub fn len(&self) -> usize {
        4 + match self {
            Self::Data(d) => 12 + d.payload.len(),
            Self::Init(i) => 16 + tlvs_len(i.params.iter().map(|p| p.value.as_slice())),
            Self::InitAck(a) => {
                16 + tlvs_len(
                    std::iter::once(a.cookie.as_slice())
                        .chain(a.init.params.iter().map(|p| p.value.as_slice())),
                )
            }
            Self::Sack(s) => 12 + 4 * s.gap_blocks.len() + 4 * s.dup_tsns.len(),
            Self::Abort { causes, .. } => tlvs_len(causes.iter().map(|p| p.value.as_slice())),
            Self::Shutdown { .. } | Self::EcnEcho { .. } | Self::Cwr { .. } => 4,
            Self::ShutdownAck | Self::CookieAck | Self::ShutdownComplete { .. } => 0,
            Self::CookieEcho { cookie } => cookie.len(),
            Self::Unknown(u) => u.value.len(),
        }
    }

    /// Always false: a chunk has at least its 4-byte header.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Chunk length including padding to 4 bytes.
    pub fn padded_len(&self) -> usize {
        pad4(self.len())
    }

    fn type_and_flags(&self) -> (u8, u8) {
        match self {
            Self::Data(d) => (
                types::DATA,
                u8::from(d.immediate) << 3
                    | u8::from(d.unordered) << 2
                    | u8::from(d.beginning) << 1
                    | u8::from(d.ending),
            ),
            Self::Init(_) => (types::INIT, 0),
            Self::InitAck(_) => (types::INIT_ACK, 0),
            Self::Sack(_) => (types::SACK, 0),
            Self::Abort { t_flag, .. } => (types::ABORT, u8::from(*t_flag)),
            Self::Shutdown { .. } => (types::SHUTDOWN, 0),
            Self::ShutdownAck => (types::SHUTDOWN_ACK, 0),
            Self::CookieEcho { .. } => (types::COOKIE_ECHO, 0),
            Self::CookieAck => (types::COOKIE_ACK, 0),
            Self::EcnEcho { .. } => (types::ECNE, 0),
            Self::Cwr { .. } => (types::CWR, 0),
            Self::ShutdownComplete { t_flag } => (types::SHUTDOWN_COMPLETE, u8::from(*t_flag)),
            Self::Unknown(u) => (u.chunk_type, u.flags),
        }
    }

    /// Write the chunk and its padding.
    pub(crate) fn emit(&self, w: &mut Writer<'_>) -> Result<(), WireError> {
        let len = self.len();
        let len16 = u16::try_from(len)
            .map_err(|_| WireError::Unrepresentable("SCTP chunk longer than 65535 bytes"))?;
        let (t, flags) = self.type_and_flags();
        if let Self::Unknown(_) = self {
            if types::KNOWN.contains(&t) {
                return Err(WireError::Unrepresentable(
                    "Unknown chunk with a known type",
                ));
            }
        }
        w.u8(t)?;
        w.u8(flags)?;
        w.u16(len16)?;
        match self {
            Self::Data(d) => {
                w.u32(d.tsn)?;
                w.u16(d.stream_id)?;
                w.u16(d.ssn)?;
                w.u32(d.ppid)?;
                w.put(&d.payload)?;
            }
            Self::Init(i) => {
                i.emit_fixed(w)?;
                emit_tlvs(w, i.params.iter().map(|p| (p.typ, p.value.as_slice())))?;
            }
            Self::InitAck(a) => {
                a.init.emit_fixed(w)?;
                emit_tlvs(
                    w,
                    std::iter::once((PARAM_STATE_COOKIE, a.cookie.as_slice()))
                        .chain(a.init.params.iter().map(|p| (p.typ, p.value.as_slice()))),
                )?;
            }
            Self::Sack(s) => {
                let ngaps = u16::try_from(s.gap_blocks.len())
                    .map_err(|_| WireError::Unrepresentable("more than 65535 gap blocks"))?;
                let ndups = u16::try_from(s.dup_tsns.len())
                    .map_err(|_| WireError::Unrepresentable("more than 65535 dup TSNs"))?;
                w.u32(s.cum_tsn_ack)?;
                w.u32(s.a_rwnd)?;
                w.u16(ngaps)?;
                w.u16(ndups)?;
                for (a, b) in &s.gap_blocks {
                    w.u16(*a)?;
                    w.u16(*b)?;
                }
                for d in &s.dup_tsns {
                    w.u32(*d)?;
                }
            }
            Self::Abort { causes, .. } => {
                emit_tlvs(w, causes.iter().map(|p| (p.typ, p.value.as_slice())))?;
            }
            Self::Shutdown { cum_tsn_ack } => w.u32(*cum_tsn_ack)?,
            Self::EcnEcho { lowest_tsn } | Self::Cwr { lowest_tsn } => w.u32(*lowest_tsn)?,
            Self::ShutdownAck | Self::CookieAck | Self::ShutdownComplete { .. } => {}
            Self::CookieEcho { cookie } => w.put(cookie)?,
            Self::Unknown(u) => w.put(&u.value)?,
        }
        w.zeros(pad4(len) - len)
    }
}
