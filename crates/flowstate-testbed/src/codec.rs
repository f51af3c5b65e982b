//! Endpoint messages <-> real packet bytes (flowstate-wire).
//!
//! | message | on the wire |
//! |---|---|
//! | media [`RtpPacket`] | RTP (RFC 3550) with the transport-wide sequence number extension (draft-holmer-rmcat-transport-wide-cc-extensions-01 section 2, one-byte form, id [`TWCC_EXT_ID`]) |
//! | [`MediaFeedback::TransportFeedback`] | compound RTCP: transport-wide feedback (same draft, section 3.1) + RR (RFC 3550 6.4.2) |
//! | [`MediaFeedback::Remb`] | compound RTCP: REMB (draft-alvestrand-rmcat-remb-03) + RR |
//! | [`MediaFeedback::ReceiverReport`] | RTCP RR |
//! | [`MediaFeedback::Nack`] | RTCP Generic NACK (RFC 4585 section 6.2.1: RTPFB FMT 1), sent alone (reduced-size RTCP, RFC 5506); its 16-bit sequence numbers are unwrapped against the previous NACK's |
//! | [`CcfbReport`] (NADA, SCReAM) | RTCP congestion control feedback, RFC 8888 section 3.1 (RTPFB FMT 11), sent alone (reduced-size RTCP, RFC 5506, which RFC 8888 section 5 allows): the RTT comes from the arrival time offsets, so no RR travels with it |
//! | SCTP [`DataChunk`] / [`Sack`] | SCTP over UDP (RFC 6951): one DATA or SACK chunk per packet, CRC32c (RFC 9260) |
//! | LEDBAT [`LedbatSegment`] / [`LedbatAck`] | uTP (BEP 29, LEDBAT over UDP): ST_DATA with the segment's send timestamp and packet number; ST_STATE (header only) with the newest one-way delay as timestamp_difference, the receive window as wnd_size and the byte ack's low 32 bits in seq_nr:ack_nr; connection id [`UTP_CONNECTION_BASE`] + flow index |
//!
//! The RTT echo every feedback message carries ([`RttEcho`]) travels as the RR report
//! block's LSR/DLSR pair (RFC 3550 6.4.1: 1/65536 s units), as RTCP computes RTT.
//!
//! The media payload and the SCTP user data are synthetic: their first bytes carry the
//! fields the sans-I/O messages hold beyond the real headers (64-bit sequence numbers,
//! frame fields, send time), so decoding is exact; the rest is zero. A message whose
//! payload is shorter than that header is padded up to it (the only case where the
//! wire size exceeds what the endpoint declared).
//!
//! Sizes: a media packet's UDP payload is `Transmit.size - 28` (the endpoints charge
//! IPv4 + UDP); SCTP packets are exactly `Transmit.size` (flowstate-core charges the
//! SCTP packet, `lower_layer_overhead` 0). RTCP feedback is larger than the model
//! charges by the RR block carrying the RTT echo (32 B) and by chunk/delta packing.
//!
//! Decoding never panics: every failure is an error that the driver counts and drops.

use flowstate_core::endpoint::ledbat::{LedbatAck, LedbatSegment};
use flowstate_core::endpoint::media::{MediaFeedback, PacketArrival, RtpPacket, RttEcho};
use flowstate_core::endpoint::rfc8888::{CcfbArrival, CcfbReport};
use flowstate_core::endpoint::sctp::{DataChunk, Sack};
use flowstate_core::endpoint::tcp::{Segment, TcpAck, MAX_SACK_BLOCKS};
use flowstate_core::{Bitrate, DataSize, TimeDelta, Timestamp};
use flowstate_wire::rtcp::{Compound, RtcpPacket};
use flowstate_wire::rtp::RtpPacket as WireRtp;
use flowstate_wire::sctp::{Chunk, SctpPacket};
use flowstate_wire::utp::{ecn_flags, ecn_flags_extension, UtpPacket, UtpType};
use flowstate_wire::WireError;

use flowstate_wire::rtcp::{
    CongestionControlFeedback, MetricBlock, PacketStatus, ReceiverReport, Remb, RembBitrate,
    ReportBlock, StreamReports, TransportFeedback,
};
use flowstate_wire::sctp::{DataChunk as WireData, InitAckChunk, InitChunk, SackChunk};

/// Transport-wide feedback receive delta unit (draft section 3.1.5: 250 us).
pub const DELTA_UNIT_US: i64 = 250;
/// Transport-wide feedback reference time unit (draft section 3.1: 64 ms).
pub const REFERENCE_TIME_UNIT_US: i64 = 64_000;

/// RTP payload type of the synthetic video (dynamic range, RFC 3551).
pub const VIDEO_PAYLOAD_TYPE: u8 = 96;
/// Extension id of the transport-wide sequence number.
pub const TWCC_EXT_ID: u8 = 3;
/// RTP clock of video (RFC 3551: 90 kHz).
pub const VIDEO_CLOCK_HZ: u64 = 90_000;
/// IPv4 + UDP header bytes the media endpoints include in `Transmit.size`.
pub const IP_UDP_OVERHEAD: u64 = 28;
/// Offset added to a media SSRC for the receiver's own SSRC in RTCP.
pub const RECEIVER_SSRC_OFFSET: u32 = 0x8000_0000;
/// SCTP payload protocol identifier: WebRTC binary (RFC 8831 8).
pub const PPID_WEBRTC_BINARY: u32 = 53;
/// First SCTP port; flow `i` uses `SCTP_PORT_BASE + i` on both sides.
pub const SCTP_PORT_BASE: u16 = 5000;
/// Bytes of the media payload header (see module docs).
pub const MEDIA_HEADER_LEN: usize = 8 * 6 + 4 * 2 + 1;
/// Bytes of the SCTP user-data header (see module docs).
pub const DATA_HEADER_LEN: usize = 8 * 3;

/// First uTP connection id; flow `i` uses `UTP_CONNECTION_BASE + i`.
pub const UTP_CONNECTION_BASE: u16 = 0x4000;
/// Bytes of a LEDBAT data payload's header: byte sequence number, length, full send
/// timestamp, packet number (the receiver's loss count).
pub const LEDBAT_DATA_HEADER_LEN: usize = 8 + 4 + 8 + 8;

/// Why a datagram was dropped.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    #[error("wire: {0}")]
    Wire(#[from] WireError),
    #[error("not an expected packet: {0}")]
    Unexpected(&'static str),
}

fn put_u64(v: &mut Vec<u8>, x: u64) {
    v.extend_from_slice(&x.to_be_bytes());
}

fn get_u64(b: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_be_bytes(b.get(at..at + 8)?.try_into().ok()?))
}

fn get_u32(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_be_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

/// A media packet as RTP bytes.
pub fn encode_rtp(p: &RtpPacket) -> Vec<u8> {
    let ts = (p.frame_capture_time.as_micros() * VIDEO_CLOCK_HZ / 1_000_000) as u32;
    let mut w = WireRtp::new(VIDEO_PAYLOAD_TYPE, p.sequence_number as u16, ts, p.ssrc);
    w.marker = p.frame_packet_index + 1 == p.frame_packet_count;
    // A one-byte id always fits: the element cannot fail.
    let _ = w.set_transport_cc_seq(TWCC_EXT_ID, p.transport_seq as u16);
    let mut payload = Vec::with_capacity(p.payload_size.as_bytes() as usize);
    put_u64(&mut payload, p.sequence_number);
    put_u64(&mut payload, p.transport_seq);
    put_u64(&mut payload, p.send_time.as_micros());
    put_u64(&mut payload, p.frame_id);
    put_u64(&mut payload, p.frame_capture_time.as_micros());
    put_u64(&mut payload, p.payload_size.as_bytes());
    payload.extend_from_slice(&p.frame_packet_index.to_be_bytes());
    payload.extend_from_slice(&p.frame_packet_count.to_be_bytes());
    payload.push(u8::from(p.keyframe));
    let want = (p.payload_size.as_bytes() as usize).max(MEDIA_HEADER_LEN);
    payload.resize(want, 0);
    w.payload = payload;
    w.to_vec().unwrap_or_default()
}

/// RTP bytes as a media packet.
pub fn decode_rtp(buf: &[u8]) -> Result<RtpPacket, DecodeError> {
    let w = WireRtp::parse(buf)?;
    if w.payload_type != VIDEO_PAYLOAD_TYPE {
        return Err(DecodeError::Unexpected("RTP payload type"));
    }
    let twcc = w
        .transport_cc_seq(TWCC_EXT_ID)
        .ok_or(DecodeError::Unexpected(
            "RTP without transport-wide sequence number",
        ))?;
    let b = &w.payload;
    let short = DecodeError::Unexpected("media payload shorter than its header");
    let seq = get_u64(b, 0).ok_or(short.clone())?;
    let tseq = get_u64(b, 8).ok_or(short.clone())?;
    if seq as u16 != w.sequence_number || tseq as u16 != twcc {
        return Err(DecodeError::Unexpected("RTP header and payload disagree"));
    }
    Ok(RtpPacket {
        ssrc: w.ssrc,
        sequence_number: seq,
        transport_seq: tseq,
        send_time: Timestamp::from_micros(get_u64(b, 16).ok_or(short.clone())?),
        frame_id: get_u64(b, 24).ok_or(short.clone())?,
        frame_capture_time: Timestamp::from_micros(get_u64(b, 32).ok_or(short.clone())?),
        payload_size: DataSize::bytes(get_u64(b, 40).ok_or(short.clone())?),
        frame_packet_index: get_u32(b, 48).ok_or(short.clone())?,
        frame_packet_count: get_u32(b, 52).ok_or(short.clone())?,
        keyframe: *b.get(56).ok_or(short)? != 0,
    })
}

/// Timestamp <-> the middle 32 bits of an NTP timestamp (1/65536 s), as LSR.
fn to_ntp_mid(t: Timestamp) -> u32 {
    ((u128::from(t.as_micros()) << 16) / 1_000_000) as u32
}
fn from_ntp_mid(x: u32) -> Timestamp {
    Timestamp::from_micros(((u128::from(x) * 1_000_000 + (1 << 15)) >> 16) as u64)
}
fn delay_units(d: TimeDelta) -> u32 {
    let us = d.as_micros().max(0) as u128;
    ((us << 16) / 1_000_000).min(u128::from(u32::MAX)) as u32
}
fn from_delay_units(x: u32) -> TimeDelta {
    TimeDelta::from_micros(((u128::from(x) * 1_000_000 + (1 << 15)) >> 16) as i64)
}

fn rr(ssrc: u32, block: ReportBlock) -> RtcpPacket {
    RtcpPacket::ReceiverReport(ReceiverReport {
        sender_ssrc: ssrc.wrapping_add(RECEIVER_SSRC_OFFSET),
        reports: vec![block],
        profile_extension: vec![],
    })
}

fn echo_block(ssrc: u32, echo: Option<RttEcho>) -> ReportBlock {
    let (last_sr, delay_since_last_sr) = echo.map_or((0, 0), |e| {
        (to_ntp_mid(e.send_time).max(1), delay_units(e.hold))
    });
    ReportBlock {
        ssrc,
        fraction_lost: 0,
        cumulative_lost: 0,
        extended_highest_seq: 0,
        jitter: 0,
        last_sr,
        delay_since_last_sr,
    }
}

fn block_echo(b: &ReportBlock) -> Option<RttEcho> {
    (b.last_sr != 0).then(|| RttEcho {
        send_time: from_ntp_mid(b.last_sr),
        hold: from_delay_units(b.delay_since_last_sr),
    })
}

/// State of the media feedback encoder (the feedback packet count).
#[derive(Debug, Clone, Default)]
pub struct FeedbackEncoder {
    fb_count: u8,
}

/// Transport-wide feedback statuses for `packets` (any order): base sequence number,
/// reference time and one status per sequence number from the lowest to the highest.
fn twcc(ssrc: u32, fb_count: u8, packets: &[PacketArrival]) -> Option<TransportFeedback> {
    let mut ps: Vec<PacketArrival> = packets.to_vec();
    ps.sort_by_key(|p| p.transport_seq);
    ps.dedup_by_key(|p| p.transport_seq);
    let first = ps.first()?;
    let last = ps.last()?;
    let span = usize::try_from(last.transport_seq - first.transport_seq + 1).ok()?;
    if span > 0xFFFF {
        return None;
    }
    let t0 = first.arrival_time.as_micros() as i64;
    let reference_time = (t0 / REFERENCE_TIME_UNIT_US) as i32;
    // Running time on the 250 us grid, as libwebrtc does, so errors do not add up.
    let mut grid = i64::from(reference_time) * REFERENCE_TIME_UNIT_US;
    let mut statuses = vec![PacketStatus::NotReceived; span];
    for p in &ps {
        let i = (p.transport_seq - first.transport_seq) as usize;
        let units = ((p.arrival_time.as_micros() as i64 - grid) as f64 / DELTA_UNIT_US as f64)
            .round() as i64;
        let units = units.clamp(i64::from(i16::MIN), i64::from(i16::MAX));
        let s = PacketStatus::from_delta_us(units * DELTA_UNIT_US)?;
        grid += units * DELTA_UNIT_US;
        if let Some(slot) = statuses.get_mut(i) {
            *slot = s;
        }
    }
    Some(TransportFeedback {
        sender_ssrc: ssrc.wrapping_add(RECEIVER_SSRC_OFFSET),
        media_ssrc: ssrc,
        base_seq: first.transport_seq as u16,
        reference_time,
        fb_pkt_count: fb_count,
        packets: statuses,
    })
}

impl FeedbackEncoder {
    /// A feedback message as a compound RTCP packet.
    pub fn encode(&mut self, m: &MediaFeedback) -> Vec<u8> {
        let packets = match m {
            MediaFeedback::TransportFeedback {
                ssrc,
                packets,
                echo,
            } => {
                let mut v = Vec::new();
                if let Some(t) = twcc(*ssrc, self.fb_count, packets) {
                    self.fb_count = self.fb_count.wrapping_add(1);
                    v.push(RtcpPacket::TransportFeedback(t));
                }
                v.push(rr(*ssrc, echo_block(*ssrc, *echo)));
                v
            }
            MediaFeedback::Remb {
                ssrc,
                bitrate,
                echo,
            } => vec![
                RtcpPacket::Remb(Remb {
                    sender_ssrc: ssrc.wrapping_add(RECEIVER_SSRC_OFFSET),
                    media_ssrc: 0,
                    bitrate: RembBitrate::from_bps(bitrate.as_bps_u64()),
                    ssrcs: vec![*ssrc],
                }),
                rr(*ssrc, echo_block(*ssrc, *echo)),
            ],
            MediaFeedback::ReceiverReport {
                ssrc,
                fraction_lost,
                cumulative_lost,
                highest_seq,
                echo,
            } => {
                let mut b = echo_block(*ssrc, *echo);
                b.fraction_lost = (fraction_lost.clamp(0.0, 1.0) * 256.0).min(255.0) as u8;
                b.cumulative_lost = (*cumulative_lost).min(0x7F_FFFF) as i32;
                b.extended_highest_seq = *highest_seq as u32;
                vec![rr(*ssrc, b)]
            }
            MediaFeedback::Nack {
                ssrc,
                sequence_numbers,
            } => vec![generic_nack(*ssrc, sequence_numbers)],
        };
        Compound { packets }.to_vec().unwrap_or_default()
    }
}

/// RTCP transport-layer feedback (RFC 4585 section 6.1: PT 205).
const PT_RTPFB: u8 = 205;
/// Generic NACK (RFC 4585 section 6.2.1: FMT 1).
const FMT_GENERIC_NACK: u8 = 1;

/// A Generic NACK of `seqs`: sender SSRC, media SSRC, then one (PID, BLP) item per run
/// of up to 17 sequence numbers.
fn generic_nack(ssrc: u32, seqs: &[u64]) -> RtcpPacket {
    let mut sorted = seqs.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let mut body = Vec::new();
    body.extend_from_slice(&ssrc.wrapping_add(RECEIVER_SSRC_OFFSET).to_be_bytes());
    body.extend_from_slice(&ssrc.to_be_bytes());
    let mut i = 0;
    while let Some(&pid) = sorted.get(i) {
        let mut blp: u16 = 0;
        i += 1;
        while let Some(&s) = sorted.get(i) {
            if s > pid + 16 {
                break;
            }
            blp |= 1 << (s - pid - 1);
            i += 1;
        }
        body.extend_from_slice(&(pid as u16).to_be_bytes());
        body.extend_from_slice(&blp.to_be_bytes());
    }
    RtcpPacket::Other {
        packet_type: PT_RTPFB,
        count: FMT_GENERIC_NACK,
        body,
    }
}

/// Unwraps 16-bit transport-wide sequence numbers to the 64-bit ones the sender uses.
#[derive(Debug, Clone, Default)]
pub struct FeedbackDecoder {
    /// The newest unwrapped base sequence number.
    last: u64,
    /// The newest unwrapped NACKed sequence number.
    last_nack: u64,
}

fn unwrap16(reference: u64, x: u16) -> u64 {
    let cand = (reference & !0xFFFF) | u64::from(x);
    let best = [cand.wrapping_sub(0x1_0000), cand, cand + 0x1_0000]
        .into_iter()
        .filter(|c| *c < (1 << 62))
        .min_by_key(|c| c.abs_diff(reference));
    best.unwrap_or(cand)
}

impl FeedbackDecoder {
    /// A compound RTCP packet as feedback messages (usually one).
    pub fn decode(&mut self, buf: &[u8]) -> Result<Vec<MediaFeedback>, DecodeError> {
        let c = Compound::parse(buf)?;
        let echo = c.packets.iter().find_map(|p| match p {
            RtcpPacket::ReceiverReport(r) => r.reports.first().map(|b| (r, b)),
            _ => None,
        });
        let mut out = Vec::new();
        let mut companion = false;
        for p in &c.packets {
            match p {
                RtcpPacket::TransportFeedback(t) => {
                    companion = true;
                    let base = unwrap16(self.last, t.base_seq);
                    self.last = base;
                    let mut now = t.reference_time_us();
                    let mut packets = Vec::new();
                    for (i, s) in t.packets.iter().enumerate() {
                        if let Some(d) = s.delta_us() {
                            now += d;
                            packets.push(PacketArrival {
                                transport_seq: base + i as u64,
                                arrival_time: Timestamp::from_micros(now.max(0) as u64),
                            });
                        }
                    }
                    out.push(MediaFeedback::TransportFeedback {
                        ssrc: t.media_ssrc,
                        packets,
                        echo: echo.and_then(|(_, b)| block_echo(b)),
                    });
                }
                RtcpPacket::Other {
                    packet_type: PT_RTPFB,
                    count: FMT_GENERIC_NACK,
                    body,
                } => {
                    companion = true;
                    let media = get_u32(body, 4).ok_or(DecodeError::Unexpected("short NACK"))?;
                    let mut sequence_numbers = Vec::new();
                    for item in body.get(8..).unwrap_or_default().chunks_exact(4) {
                        let pid = u16::from_be_bytes([item[0], item[1]]);
                        let blp = u16::from_be_bytes([item[2], item[3]]);
                        let base = unwrap16(self.last_nack, pid);
                        sequence_numbers.push(base);
                        for bit in 0..16u64 {
                            if blp & (1 << bit) != 0 {
                                sequence_numbers.push(base + bit + 1);
                            }
                        }
                    }
                    if let Some(&m) = sequence_numbers.iter().max() {
                        self.last_nack = m;
                    }
                    out.push(MediaFeedback::Nack {
                        ssrc: media,
                        sequence_numbers,
                    });
                }
                RtcpPacket::Remb(r) => {
                    companion = true;
                    let ssrc = r
                        .ssrcs
                        .first()
                        .copied()
                        .ok_or(DecodeError::Unexpected("REMB without SSRC"))?;
                    out.push(MediaFeedback::Remb {
                        ssrc,
                        bitrate: Bitrate::bps(r.bitrate.bps() as f64),
                        echo: echo.and_then(|(_, b)| block_echo(b)),
                    });
                }
                _ => {}
            }
        }
        if !companion {
            let (_, b) = echo.ok_or(DecodeError::Unexpected("RTCP without feedback"))?;
            out.push(MediaFeedback::ReceiverReport {
                ssrc: b.ssrc,
                fraction_lost: f64::from(b.fraction_lost) / 256.0,
                cumulative_lost: b.cumulative_lost.max(0) as u64,
                highest_seq: u64::from(b.extended_highest_seq),
                echo: block_echo(b),
            });
        }
        Ok(out)
    }
}

/// An RFC 8888 report as an RTCP congestion control feedback packet: begin_seq is the
/// low 16 bits of the first sequence number, each arrival an arrival time offset (1/1024 s)
/// before the Report Timestamp (the 16.16 NTP middle word of the receiver's clock).
pub fn encode_ccfb(r: &CcfbReport) -> Vec<u8> {
    let report_us = r.report_time.as_micros();
    let reports = r
        .packets
        .iter()
        .map(|p| match p {
            Some(a) => {
                MetricBlock::received(a.ecn, report_us as i64 - a.arrival.as_micros() as i64)
            }
            None => MetricBlock::lost(),
        })
        .collect();
    let p = RtcpPacket::CongestionControlFeedback(CongestionControlFeedback {
        sender_ssrc: r.ssrc.wrapping_add(RECEIVER_SSRC_OFFSET),
        streams: vec![StreamReports {
            ssrc: r.ssrc,
            begin_seq: r.begin_seq as u16,
            reports,
        }],
        report_timestamp: CongestionControlFeedback::ntp_middle_from_us(report_us),
    });
    Compound { packets: vec![p] }.to_vec().unwrap_or_default()
}

/// Unwraps RFC 8888 reports: 16-bit begin_seq to the sender's 64-bit sequence numbers,
/// arrival time offsets back to receiver times.
#[derive(Debug, Clone, Default)]
pub struct CcfbDecoder {
    /// The newest unwrapped begin_seq.
    last: u64,
}

impl CcfbDecoder {
    /// The reports in a compound RTCP packet (one per stream block).
    pub fn decode(&mut self, buf: &[u8]) -> Result<Vec<CcfbReport>, DecodeError> {
        let c = Compound::parse(buf)?;
        let mut out = Vec::new();
        for p in &c.packets {
            let RtcpPacket::CongestionControlFeedback(f) = p else {
                continue;
            };
            let report_us = f.report_timestamp_us();
            for s in &f.streams {
                let begin = unwrap16(self.last, s.begin_seq);
                self.last = begin;
                let packets = s
                    .reports
                    .iter()
                    .map(|b| {
                        b.offset_us().map(|off| CcfbArrival {
                            arrival: Timestamp::from_micros((report_us - off).max(0) as u64),
                            ecn: b.ecn,
                        })
                    })
                    .collect();
                out.push(CcfbReport {
                    ssrc: s.ssrc,
                    begin_seq: begin,
                    packets,
                    report_time: Timestamp::from_micros(report_us.max(0) as u64),
                });
            }
        }
        if out.is_empty() {
            return Err(DecodeError::Unexpected("RTCP without RFC 8888 feedback"));
        }
        Ok(out)
    }
}

/// The uTP connection id of flow `index`.
pub fn utp_connection(index: usize) -> u16 {
    UTP_CONNECTION_BASE.wrapping_add(index as u16)
}

fn flow_of_connection(id: u16) -> Result<usize, DecodeError> {
    id.checked_sub(UTP_CONNECTION_BASE)
        .map(usize::from)
        .ok_or(DecodeError::Unexpected(
            "uTP connection id below the testbed's base",
        ))
}

/// A LEDBAT segment as a uTP ST_DATA packet: timestamp_microseconds is the send time
/// (low 32 bits), seq_nr the packet number's low 16 bits; the payload starts with the
/// exact fields ([`LEDBAT_DATA_HEADER_LEN`]) and is `segment.len` bytes (at least the
/// header).
pub fn encode_ledbat_segment(index: usize, m: &LedbatSegment, packet: u64) -> Vec<u8> {
    let mut payload = Vec::with_capacity((m.segment.len as usize).max(LEDBAT_DATA_HEADER_LEN));
    put_u64(&mut payload, m.segment.seq);
    payload.extend_from_slice(&m.segment.len.to_be_bytes());
    put_u64(&mut payload, m.timestamp.as_micros());
    put_u64(&mut payload, packet);
    payload.resize((m.segment.len as usize).max(LEDBAT_DATA_HEADER_LEN), 0);
    UtpPacket {
        packet_type: UtpType::Data,
        connection_id: utp_connection(index),
        timestamp_us: m.timestamp.as_micros() as u32,
        timestamp_difference_us: 0,
        wnd_size: 0,
        seq_nr: packet as u16,
        ack_nr: 0,
        extensions: ecn_flags_extension(m.segment.cwr, false)
            .into_iter()
            .collect(),
        payload,
    }
    .to_vec()
    .unwrap_or_default()
}

/// A uTP ST_DATA packet as (flow index, segment, packet number).
pub fn decode_ledbat_segment(buf: &[u8]) -> Result<(usize, LedbatSegment, u64), DecodeError> {
    let p = UtpPacket::parse(buf)?;
    if p.packet_type != UtpType::Data {
        return Err(DecodeError::Unexpected("uTP packet other than ST_DATA"));
    }
    let short = DecodeError::Unexpected("LEDBAT payload shorter than its header");
    let b = &p.payload;
    let seq = get_u64(b, 0).ok_or(short.clone())?;
    let len = get_u32(b, 8).ok_or(short.clone())?;
    let ts = get_u64(b, 12).ok_or(short.clone())?;
    let packet = get_u64(b, 20).ok_or(short)?;
    let (cwr, _) = ecn_flags(&p.extensions)?;
    Ok((
        flow_of_connection(p.connection_id)?,
        LedbatSegment {
            segment: Segment { seq, len, cwr },
            timestamp: Timestamp::from_micros(ts),
        },
        packet,
    ))
}

/// A LEDBAT ack as a uTP ST_STATE packet, header only (BEP 29: a state packet has no
/// payload): timestamp_microseconds is the receiver's clock,
/// timestamp_difference_microseconds the newest one-way delay in the ack (0 = none, as
/// BEP 29 starts it; negative delays, impossible on the testbed's one clock, clamp to
/// 1 us), wnd_size the receive window, and seq_nr:ack_nr the low 32 bits of the byte
/// ack (unwrapped by [`LedbatAckDecoder`]). What uTP cannot carry is dropped, as a real
/// uTP stack would not have it: the older delays of a delayed ack (one sample per ack,
/// the newest; the simulator hands the controller every sample) and SACK blocks (the
/// LEDBAT endpoints send none).
pub fn encode_ledbat_ack(index: usize, a: &LedbatAck, now: Timestamp) -> Vec<u8> {
    let newest = a
        .delays
        .last()
        .map_or(0, |d| d.as_micros().clamp(1, i64::from(u32::MAX)) as u32);
    let ack32 = a.ack.ack as u32;
    UtpPacket {
        packet_type: UtpType::State,
        connection_id: utp_connection(index),
        timestamp_us: now.as_micros() as u32,
        timestamp_difference_us: newest,
        wnd_size: a.ack.rwnd.min(u64::from(u32::MAX)) as u32,
        seq_nr: (ack32 >> 16) as u16,
        ack_nr: ack32 as u16,
        extensions: ecn_flags_extension(false, a.ack.ece).into_iter().collect(),
        payload: vec![],
    }
    .to_vec()
    .unwrap_or_default()
}

/// Unwraps the 32-bit byte acks of one LEDBAT flow to the sender's 64-bit ones.
#[derive(Debug, Clone, Default)]
pub struct LedbatAckDecoder {
    last: u64,
}

impl LedbatAckDecoder {
    /// A uTP ST_STATE packet as (flow index, ack).
    pub fn decode(&mut self, buf: &[u8]) -> Result<(usize, LedbatAck), DecodeError> {
        let p = UtpPacket::parse(buf)?;
        if p.packet_type != UtpType::State {
            return Err(DecodeError::Unexpected("uTP packet other than ST_STATE"));
        }
        let ack32 = (u32::from(p.seq_nr) << 16) | u32::from(p.ack_nr);
        let cand = (self.last & !0xFFFF_FFFF) | u64::from(ack32);
        let ack = [cand.wrapping_sub(1 << 32), cand, cand + (1 << 32)]
            .into_iter()
            .filter(|c| *c < (1 << 62))
            .min_by_key(|c| c.abs_diff(self.last))
            .unwrap_or(cand);
        self.last = ack;
        let (_, ece) = ecn_flags(&p.extensions)?;
        let delays = if p.timestamp_difference_us == 0 {
            vec![]
        } else {
            vec![TimeDelta::from_micros(i64::from(p.timestamp_difference_us))]
        };
        Ok((
            flow_of_connection(p.connection_id)?,
            LedbatAck {
                ack: TcpAck {
                    ack,
                    rwnd: u64::from(p.wnd_size),
                    sack: [None; MAX_SACK_BLOCKS],
                    ece,
                },
                delays,
            },
        ))
    }
}

/// The flow index of a uTP packet (its connection id), to find the flow's decoder.
pub fn utp_flow(buf: &[u8]) -> Option<usize> {
    let id = u16::from_be_bytes(buf.get(2..4)?.try_into().ok()?);
    flow_of_connection(id).ok()
}

/// The SCTP port pair of flow `index`.
pub fn sctp_port(index: usize) -> u16 {
    SCTP_PORT_BASE.wrapping_add(index as u16)
}

/// A verification tag for flow `index` (both sides use the same tag: it is chosen
/// once per association, RFC 9260 5.3.1, and must only be non-zero).
pub fn verification_tag(index: usize) -> u32 {
    0x5EED_0000 | (index as u32 & 0xFFFF)
}

fn sctp(index: usize, tag: u32, chunk: Chunk) -> Vec<u8> {
    sctp_chunks(index, tag, vec![chunk])
}

fn sctp_chunks(index: usize, tag: u32, chunks: Vec<Chunk>) -> Vec<u8> {
    SctpPacket {
        src_port: sctp_port(index),
        dst_port: sctp_port(index),
        verification_tag: tag,
        chunks,
    }
    .to_vec()
    .unwrap_or_default()
}

/// A DATA chunk (and its send time, for one-way delay) as an SCTP packet, behind a CWR
/// chunk when it carries one (control chunks first, RFC 9260 6.10; appendix A).
pub fn encode_data(index: usize, c: &DataChunk, sent: Timestamp) -> Vec<u8> {
    let mut payload = Vec::with_capacity(c.payload_len as usize);
    put_u64(&mut payload, c.message_id);
    put_u64(&mut payload, c.stream_offset);
    put_u64(&mut payload, sent.as_micros());
    payload.resize((c.payload_len as usize).max(DATA_HEADER_LEN), 0);
    let chunk = Chunk::Data(WireData {
        immediate: c.immediate_ack,
        unordered: false,
        beginning: c.begin,
        ending: c.end,
        tsn: c.tsn as u32,
        stream_id: 0,
        ssn: c.message_id as u16,
        ppid: PPID_WEBRTC_BINARY,
        payload,
    });
    let chunks = match c.cwr {
        Some(t) => vec![
            Chunk::Cwr {
                lowest_tsn: t as u32,
            },
            chunk,
        ],
        None => vec![chunk],
    };
    let mut bytes = sctp_chunks(index, verification_tag(index), chunks);
    // Keep the declared user-data length: a shorter chunk is padded in its length
    // field only when payload_len < DATA_HEADER_LEN (documented above).
    bytes.shrink_to_fit();
    bytes
}

/// A SACK as an SCTP packet, with an ECNE chunk after it when it carries one (RFC
/// 9260 appendix A).
pub fn encode_sack(index: usize, s: &Sack) -> Vec<u8> {
    let clamp = |x: u32| x.min(u32::from(u16::MAX)) as u16;
    let mut chunks = vec![Chunk::Sack(SackChunk {
        cum_tsn_ack: s.cum_tsn as u32,
        a_rwnd: s.a_rwnd.min(u64::from(u32::MAX)) as u32,
        gap_blocks: s
            .gap_blocks
            .iter()
            .map(|&(a, b)| (clamp(a), clamp(b)))
            .collect(),
        dup_tsns: s.dup_tsns.iter().map(|&t| t as u32).collect(),
    })];
    if let Some(t) = s.ecne {
        chunks.push(Chunk::EcnEcho {
            lowest_tsn: t as u32,
        });
    }
    sctp_chunks(index, verification_tag(index), chunks)
}

/// What an SCTP packet carries, for the driver.
#[derive(Debug, Clone, PartialEq)]
pub enum SctpMessage {
    Data { chunk: DataChunk, sent: Timestamp },
    Sack(Sack),
    Init,
    InitAck { cookie: Vec<u8> },
    CookieEcho,
    CookieAck,
    Shutdown,
    ShutdownAck,
    ShutdownComplete,
    Abort,
}

/// Association set-up and tear-down packets (RFC 9260 5.1, 9.2) for flow `index`.
pub fn encode_control(index: usize, m: &SctpMessage) -> Vec<u8> {
    let tag = verification_tag(index);
    let init = InitChunk {
        initiate_tag: tag,
        a_rwnd: 1 << 20,
        outbound_streams: 1,
        inbound_streams: 1,
        initial_tsn: 1,
        params: vec![],
    };
    match m {
        SctpMessage::Init => sctp(index, 0, Chunk::Init(init)),
        SctpMessage::InitAck { cookie } => sctp(
            index,
            tag,
            Chunk::InitAck(InitAckChunk {
                init,
                cookie: cookie.clone(),
            }),
        ),
        SctpMessage::CookieEcho => sctp(
            index,
            tag,
            Chunk::CookieEcho {
                cookie: cookie_for(index),
            },
        ),
        SctpMessage::CookieAck => sctp(index, tag, Chunk::CookieAck),
        SctpMessage::Shutdown => sctp(index, tag, Chunk::Shutdown { cum_tsn_ack: 0 }),
        SctpMessage::ShutdownAck => sctp(index, tag, Chunk::ShutdownAck),
        SctpMessage::ShutdownComplete => {
            sctp(index, tag, Chunk::ShutdownComplete { t_flag: false })
        }
        SctpMessage::Abort => sctp(
            index,
            tag,
            Chunk::Abort {
                t_flag: false,
                causes: vec![],
            },
        ),
        SctpMessage::Data { chunk, sent } => encode_data(index, chunk, *sent),
        SctpMessage::Sack(s) => encode_sack(index, s),
    }
}

/// The (stateless) state cookie the receiver hands out for flow `index`.
pub fn cookie_for(index: usize) -> Vec<u8> {
    let mut c = b"flowstate-cookie".to_vec();
    c.extend_from_slice(&(index as u32).to_be_bytes());
    c
}

/// An SCTP packet as (flow index, message). The CRC32c is checked; the port must name
/// a flow and the tag must match (INIT carries tag 0).
pub fn decode_sctp(buf: &[u8]) -> Result<(usize, SctpMessage), DecodeError> {
    let p = SctpPacket::parse(buf)?;
    if p.src_port < SCTP_PORT_BASE || p.src_port != p.dst_port {
        return Err(DecodeError::Unexpected("SCTP port"));
    }
    let index = usize::from(p.src_port - SCTP_PORT_BASE);
    // The ECN chunks ride along with a DATA chunk (CWR) or a SACK (ECNE).
    let is_ecn = |c: &&Chunk| matches!(c, Chunk::Cwr { .. } | Chunk::EcnEcho { .. });
    let cwr = p.chunks.iter().find_map(|c| match c {
        Chunk::Cwr { lowest_tsn } => Some(u64::from(*lowest_tsn)),
        _ => None,
    });
    let ecne = p.chunks.iter().find_map(|c| match c {
        Chunk::EcnEcho { lowest_tsn } => Some(u64::from(*lowest_tsn)),
        _ => None,
    });
    let chunk = p
        .chunks
        .iter()
        .find(|c| !is_ecn(c))
        .ok_or(DecodeError::Unexpected(
            "SCTP packet without DATA, SACK or control chunk",
        ))?;
    let want_tag = if matches!(chunk, Chunk::Init(_)) {
        0
    } else {
        verification_tag(index)
    };
    if p.verification_tag != want_tag {
        return Err(DecodeError::Unexpected("SCTP verification tag"));
    }
    let m = match chunk {
        Chunk::Data(d) => {
            let sent = get_u64(&d.payload, 16)
                .ok_or(DecodeError::Unexpected("DATA shorter than its header"))?;
            SctpMessage::Data {
                chunk: DataChunk {
                    tsn: u64::from(d.tsn),
                    message_id: get_u64(&d.payload, 0).unwrap_or(0),
                    stream_offset: get_u64(&d.payload, 8).unwrap_or(0),
                    payload_len: d.payload.len() as u32,
                    begin: d.beginning,
                    end: d.ending,
                    immediate_ack: d.immediate,
                    cwr,
                },
                sent: Timestamp::from_micros(sent),
            }
        }
        Chunk::Sack(s) => SctpMessage::Sack(Sack {
            cum_tsn: u64::from(s.cum_tsn_ack),
            a_rwnd: u64::from(s.a_rwnd),
            gap_blocks: s
                .gap_blocks
                .iter()
                .map(|&(a, b)| (u32::from(a), u32::from(b)))
                .collect(),
            dup_tsns: s.dup_tsns.iter().map(|&t| u64::from(t)).collect(),
            ecne,
        }),
        Chunk::Init(_) => SctpMessage::Init,
        Chunk::InitAck(a) => SctpMessage::InitAck {
            cookie: a.cookie.clone(),
        },
        Chunk::CookieEcho { .. } => SctpMessage::CookieEcho,
        Chunk::CookieAck => SctpMessage::CookieAck,
        Chunk::Shutdown { .. } => SctpMessage::Shutdown,
        Chunk::ShutdownAck => SctpMessage::ShutdownAck,
        Chunk::ShutdownComplete { .. } => SctpMessage::ShutdownComplete,
        Chunk::Abort { .. } => SctpMessage::Abort,
        Chunk::Unknown(_) | Chunk::Cwr { .. } | Chunk::EcnEcho { .. } => {
            return Err(DecodeError::Unexpected("unknown SCTP chunk"))
        }
    };
    Ok((index, m))
}

/// What kind of packet a datagram holds (RFC 7983-style demultiplexing on the first
/// byte: RTP/RTCP have version 2; SCTP starts with our port numbers, whose first
/// byte is below 64; RTCP packet types are 192..=223, RFC 5761 4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    Rtp,
    Rtcp,
    Sctp,
    /// uTP (LEDBAT): first byte ST_DATA or ST_STATE with version 1 (0x01, 0x21), which
    /// no SCTP packet of the testbed starts with (source port 5000 + i: 0x13..).
    Utp,
}

/// Classify a datagram (`None`: foreign).
pub fn classify(buf: &[u8]) -> Option<Class> {
    let b0 = *buf.first()?;
    if b0 >> 6 == 2 {
        let pt = *buf.get(1)?;
        Some(if (192..=223).contains(&pt) {
            Class::Rtcp
        } else {
            Class::Rtp
        })
    } else if b0 == UtpPacket::first_byte(UtpType::Data)
        || b0 == UtpPacket::first_byte(UtpType::State)
    {
        Some(Class::Utp)
    } else if b0 < 64 {
        Some(Class::Sctp)
    } else {
        None
    }
}

/// Flow index of a media SSRC (the simulator numbers SSRCs `index + 1`).
pub fn flow_of_ssrc(ssrc: u32) -> Option<usize> {
    // A flow's RTX stream (option `nack_rtx`) belongs to the flow.
    ((ssrc & !flowstate_core::endpoint::rtx::RTX_SSRC_BIT) as usize).checked_sub(1)
}

trait AsBps {
    fn as_bps_u64(&self) -> u64;
}
impl AsBps for Bitrate {
    fn as_bps_u64(&self) -> u64 {
        let b = self.as_kbps() * 1000.0;
        if b.is_finite() && b > 0.0 {
            b.min(u64::MAX as f64) as u64
        } else {
            0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rtp(seq: u64, payload: u64) -> RtpPacket {
        RtpPacket {
            ssrc: 1,
            sequence_number: seq,
            transport_seq: seq + 70_000,
            send_time: Timestamp::from_micros(1_234_567),
            payload_size: DataSize::bytes(payload),
            frame_id: 42,
            frame_capture_time: Timestamp::from_micros(1_200_000),
            frame_packet_index: 2,
            frame_packet_count: 3,
            keyframe: true,
        }
    }

    #[test]
    fn rtp_round_trip_and_wire_size() {
        let p = rtp(65_540, 1000);
        let b = encode_rtp(&p);
        assert_eq!(decode_rtp(&b).unwrap(), p);
        // 48 B declared overhead = IPv4 + UDP (28) + RTP (12) + extension (8).
        assert_eq!(b.len() as u64 + IP_UDP_OVERHEAD, 1000 + 48);
        assert_eq!(classify(&b), Some(Class::Rtp));
        let w = WireRtp::parse(&b).unwrap();
        assert!(w.marker, "last packet of the frame carries the marker");
        assert_eq!(
            w.transport_cc_seq(TWCC_EXT_ID),
            Some((65_540 + 70_000) as u16)
        );
    }

    #[test]
    fn tiny_media_payload_is_padded_to_its_header() {
        let p = rtp(1, 10);
        let b = encode_rtp(&p);
        assert_eq!(b.len(), 20 + MEDIA_HEADER_LEN);
        assert_eq!(decode_rtp(&b).unwrap(), p);
    }

    #[test]
    fn transport_feedback_round_trip_within_quantization() {
        let echo = Some(RttEcho {
            send_time: Timestamp::from_micros(5_000_000),
            hold: TimeDelta::from_micros(3_000),
        });
        let packets: Vec<PacketArrival> = [70_000u64, 70_001, 70_003, 70_002]
            .iter()
            .enumerate()
            .map(|(i, &s)| PacketArrival {
                transport_seq: s,
                arrival_time: Timestamp::from_micros(5_100_000 + i as u64 * 1_333),
            })
            .collect();
        let m = MediaFeedback::TransportFeedback {
            ssrc: 1,
            packets: packets.clone(),
            echo,
        };
        let b = FeedbackEncoder::default().encode(&m);
        assert_eq!(classify(&b), Some(Class::Rtcp));
        let mut d = FeedbackDecoder {
            last: 69_000,
            ..FeedbackDecoder::default()
        };
        let out = d.decode(&b).unwrap();
        assert_eq!(out.len(), 1);
        let MediaFeedback::TransportFeedback {
            ssrc,
            packets: got,
            echo: e,
        } = &out[0]
        else {
            panic!("expected transport feedback, got {out:?}");
        };
        assert_eq!(*ssrc, 1);
        assert_eq!(got.len(), 4);
        for p in &packets {
            let g = got
                .iter()
                .find(|g| g.transport_seq == p.transport_seq)
                .unwrap();
            let err = g.arrival_time.as_micros() as i64 - p.arrival_time.as_micros() as i64;
            assert!(err.abs() <= DELTA_UNIT_US / 2, "arrival error {err} us");
        }
        let e = e.unwrap();
        assert!(e.send_time.as_micros().abs_diff(5_000_000) <= 16);
        assert!((e.hold.as_micros() - 3_000).abs() <= 16);
    }

    #[test]
    fn generic_nack_round_trips() {
        let seqs = vec![70_000, 70_001, 70_016, 70_017, 70_100];
        let m = MediaFeedback::Nack {
            ssrc: 1,
            sequence_numbers: seqs.clone(),
        };
        let b = FeedbackEncoder::default().encode(&m);
        // 4 B header + 8 B SSRCs + 3 items (70,000..=70,016; 70,017; 70,100).
        assert_eq!(b.len(), 12 + 3 * 4);
        let mut d = FeedbackDecoder {
            last_nack: 69_990,
            ..FeedbackDecoder::default()
        };
        assert_eq!(
            d.decode(&b).unwrap(),
            vec![MediaFeedback::Nack {
                ssrc: 1,
                sequence_numbers: seqs
            }]
        );
        // The RTX stream's SSRC belongs to its flow.
        assert_eq!(
            flow_of_ssrc(flowstate_core::endpoint::rtx::rtx_ssrc(3)),
            Some(2)
        );
    }

    #[test]
    fn remb_and_rr_round_trip() {
        let m = MediaFeedback::Remb {
            ssrc: 2,
            bitrate: Bitrate::bps(1_500_000.0),
            echo: None,
        };
        let out = FeedbackDecoder::default()
            .decode(&FeedbackEncoder::default().encode(&m))
            .unwrap();
        match &out[..] {
            [MediaFeedback::Remb {
                ssrc: 2,
                bitrate,
                echo: None,
            }] => assert!((bitrate.as_kbps() - 1500.0).abs() < 10.0),
            other => panic!("{other:?}"),
        }
        let m = MediaFeedback::ReceiverReport {
            ssrc: 1,
            fraction_lost: 0.25,
            cumulative_lost: 7,
            highest_seq: 900,
            echo: None,
        };
        let out = FeedbackDecoder::default()
            .decode(&FeedbackEncoder::default().encode(&m))
            .unwrap();
        assert_eq!(out, vec![m]);
    }

    #[test]
    fn ccfb_round_trip_within_quantization() {
        let r = CcfbReport {
            ssrc: 2,
            begin_seq: 70_000,
            packets: vec![
                Some(CcfbArrival {
                    arrival: Timestamp::from_micros(1_000_000),
                    ecn: 0,
                }),
                None,
                Some(CcfbArrival {
                    arrival: Timestamp::from_micros(1_040_000),
                    ecn: 3,
                }),
            ],
            report_time: Timestamp::from_micros(1_050_000),
        };
        let bytes = encode_ccfb(&r);
        // RTCP header 4 + sender SSRC 4 + SSRC 4 + begin/num 4 + 3 blocks padded to 8
        // + report timestamp 4; the model charges 28 B of IP/UDP on top.
        assert_eq!(bytes.len(), 28);
        assert_eq!(r.wire_size().as_bytes(), bytes.len() as u64 + 28);
        assert_eq!(classify(&bytes), Some(Class::Rtcp));
        let mut d = CcfbDecoder { last: 65_000 };
        let got = d.decode(&bytes).expect("decodes");
        assert_eq!(got.len(), 1);
        let g = &got[0];
        assert_eq!((g.ssrc, g.begin_seq, g.packets.len()), (2, 70_000, 3));
        assert!(g.packets[1].is_none());
        for (a, b) in g.packets.iter().zip(&r.packets) {
            if let (Some(a), Some(b)) = (a, b) {
                let err = a.arrival.as_micros() as i64 - b.arrival.as_micros() as i64;
                // ATO 1/1024 s and the 16.16 report timestamp: within 0.5 ms + 16 us.
                assert!(err.abs() <= 520, "{err}");
                assert_eq!(a.ecn, b.ecn);
            }
        }
        // Other RTCP is not RFC 8888 feedback.
        let rr_only = FeedbackEncoder::default().encode(&MediaFeedback::ReceiverReport {
            ssrc: 2,
            fraction_lost: 0.0,
            cumulative_lost: 0,
            highest_seq: 1,
            echo: None,
        });
        assert!(d.decode(&rr_only).is_err());
    }

    #[test]
    fn ledbat_segments_and_acks_round_trip_as_utp() {
        let seg = LedbatSegment {
            segment: Segment {
                seq: 5_000_000_000,
                len: 1460,
                cwr: false,
            },
            timestamp: Timestamp::from_micros(4_321_000),
        };
        let bytes = encode_ledbat_segment(3, &seg, 70_000);
        // 20-byte uTP header + the segment's 1460 payload bytes: the declared 52-byte
        // header less 28 of IP/UDP less 4.
        assert_eq!(bytes.len(), 20 + 1460);
        assert_eq!(classify(&bytes), Some(Class::Utp));
        assert_eq!(decode_ledbat_segment(&bytes), Ok((3, seg, 70_000)));
        let ack = LedbatAck {
            ack: TcpAck {
                ack: 5_000_001_460,
                rwnd: 1 << 22,
                sack: [None; MAX_SACK_BLOCKS],
                ece: false,
            },
            delays: vec![TimeDelta::millis(2), TimeDelta::millis(31)],
        };
        let bytes = encode_ledbat_ack(3, &ack, Timestamp::from_micros(9_000_000));
        assert_eq!(bytes.len(), 20, "ST_STATE is the header alone");
        assert_eq!(classify(&bytes), Some(Class::Utp));
        assert_eq!(utp_flow(&bytes), Some(3));
        let mut d = LedbatAckDecoder {
            last: 5_000_000_000,
        };
        // The newest delay only (uTP carries one sample per packet).
        let want = LedbatAck {
            delays: vec![TimeDelta::millis(31)],
            ..ack.clone()
        };
        assert_eq!(d.decode(&bytes), Ok((3, want)));
        // An ack without a sample: timestamp_difference 0, no delay.
        let none = LedbatAck {
            delays: vec![],
            ..ack
        };
        let bytes = encode_ledbat_ack(3, &none, Timestamp::ZERO);
        assert_eq!(d.decode(&bytes), Ok((3, none.clone())));
        // ECN (RFC 3168 6.1): CWR on a segment and ECE on an ack travel in the ECN
        // flags extension (3 more bytes).
        let cwr = LedbatSegment {
            segment: Segment {
                cwr: true,
                ..seg.segment
            },
            ..seg
        };
        let b = encode_ledbat_segment(3, &cwr, 70_001);
        assert_eq!(b.len(), 20 + 3 + 1460);
        assert_eq!(decode_ledbat_segment(&b), Ok((3, cwr, 70_001)));
        let ece = LedbatAck {
            ack: TcpAck {
                ece: true,
                ..none.ack
            },
            ..none
        };
        let b = encode_ledbat_ack(3, &ece, Timestamp::ZERO);
        assert_eq!(d.decode(&b), Ok((3, ece)));
        // Each decoder refuses the other's packet, and SCTP is not uTP.
        assert!(d.decode(&encode_ledbat_segment(0, &seg, 1)).is_err());
        assert!(decode_ledbat_segment(&bytes).is_err());
        assert_eq!(
            classify(&encode_control(0, &SctpMessage::Init)),
            Some(Class::Sctp)
        );
    }

    #[test]
    fn unwrap16_follows_the_reference() {
        assert_eq!(unwrap16(0, 5), 5);
        assert_eq!(unwrap16(65_530, 3), 65_539);
        assert_eq!(unwrap16(65_539, 65_530), 65_530);
    }

    #[test]
    fn sctp_data_and_sack_round_trip_with_declared_sizes() {
        use flowstate_core::endpoint::sctp::data_packet_size;
        let c = DataChunk {
            tsn: 77,
            message_id: 3,
            stream_offset: 12_345,
            payload_len: 1172,
            begin: true,
            end: false,
            immediate_ack: true,
            cwr: None,
        };
        let t = Timestamp::from_micros(999);
        let b = encode_data(1, &c, t);
        assert_eq!(
            b.len() as u64,
            data_packet_size(1172, DataSize::ZERO).as_bytes()
        );
        assert_eq!(classify(&b), Some(Class::Sctp));
        assert_eq!(
            decode_sctp(&b).unwrap(),
            (1, SctpMessage::Data { chunk: c, sent: t })
        );
        let s = Sack {
            cum_tsn: 70,
            a_rwnd: 100_000,
            gap_blocks: [(2, 3), (5, 9)].into_iter().collect(),
            dup_tsns: [66].into_iter().collect(),
            ecne: None,
        };
        let b = encode_sack(1, &s);
        assert_eq!(b.len() as u64, s.wire_size(DataSize::ZERO).as_bytes());
        assert_eq!(decode_sctp(&b).unwrap(), (1, SctpMessage::Sack(s.clone())));
        // RFC 9260 appendix A: a CWR chunk ahead of the DATA chunk, an ECNE chunk after
        // the SACK, 8 bytes each, as the model charges them.
        let c = DataChunk { cwr: Some(60), ..c };
        let b = encode_data(1, &c, t);
        assert_eq!(
            b.len() as u64,
            data_packet_size(1172, DataSize::ZERO).as_bytes() + 8
        );
        assert_eq!(b[12], 13, "the CWR chunk comes first");
        assert_eq!(
            decode_sctp(&b).unwrap(),
            (1, SctpMessage::Data { chunk: c, sent: t })
        );
        let s = Sack {
            ecne: Some(68),
            ..s
        };
        let b = encode_sack(1, &s);
        assert_eq!(b.len() as u64, s.wire_size(DataSize::ZERO).as_bytes());
        assert_eq!(decode_sctp(&b).unwrap(), (1, SctpMessage::Sack(s)));
    }

    #[test]
    fn sctp_control_round_trip_and_bad_tag_or_crc_rejected() {
        for m in [
            SctpMessage::Init,
            SctpMessage::InitAck {
                cookie: cookie_for(0),
            },
            SctpMessage::CookieEcho,
            SctpMessage::CookieAck,
            SctpMessage::Shutdown,
            SctpMessage::ShutdownAck,
            SctpMessage::ShutdownComplete,
            SctpMessage::Abort,
        ] {
            let b = encode_control(0, &m);
            assert_eq!(decode_sctp(&b).unwrap(), (0, m));
        }
        let mut b = encode_control(0, &SctpMessage::CookieAck);
        b[12] ^= 0xFF;
        assert!(decode_sctp(&b).is_err(), "CRC32c mismatch rejected");
    }

    proptest::proptest! {
        #[test]
        fn decoders_never_panic(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..300)) {
            let _ = decode_rtp(&bytes);
            let _ = FeedbackDecoder::default().decode(&bytes);
            let _ = CcfbDecoder::default().decode(&bytes);
            let _ = decode_ledbat_segment(&bytes);
            let _ = LedbatAckDecoder::default().decode(&bytes);
            let _ = decode_sctp(&bytes);
            let _ = classify(&bytes);
        }
    }
}
