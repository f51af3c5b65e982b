//! Proptest strategies for every message kind.
#![allow(dead_code)]

use flowstate_wire::rtcp::{
    Compound, CongestionControlFeedback, MetricBlock, PacketStatus, ReceiverReport, Remb,
    RembBitrate, ReportBlock, RtcpPacket, StreamReports, TransportFeedback,
};
use flowstate_wire::rtp::{ExtensionElement, HeaderExtension, RtpPacket};
use flowstate_wire::sctp::{
    Chunk, DataChunk, InitAckChunk, InitChunk, SackChunk, SctpPacket, Tlv, UnknownAction,
    UnknownChunk,
};
use proptest::collection::vec;
use proptest::prelude::*;

fn words(max: usize) -> impl Strategy<Value = Vec<u8>> {
    vec(any::<[u8; 4]>(), 0..=max).prop_map(|w| w.concat())
}

pub fn extension() -> impl Strategy<Value = HeaderExtension> {
    prop_oneof![
        vec(
            (1u8..=14, vec(any::<u8>(), 1..=16))
                .prop_map(|(id, data)| ExtensionElement { id, data }),
            0..6
        )
        .prop_map(HeaderExtension::OneByte),
        (
            0u8..16,
            vec(
                (1u8..=255, vec(any::<u8>(), 0..=20))
                    .prop_map(|(id, data)| ExtensionElement { id, data }),
                0..6
            )
        )
            .prop_map(|(app_bits, elements)| HeaderExtension::TwoByte { app_bits, elements }),
        (any::<u16>(), words(4))
            .prop_filter("RFC 8285 profile", |(p, _)| *p != 0xBEDE
                && p & 0xFFF0 != 0x1000)
            .prop_map(|(profile, data)| HeaderExtension::Other { profile, data }),
    ]
}

pub fn rtp_packet() -> impl Strategy<Value = RtpPacket> {
    (
        (
            any::<bool>(),
            0u8..128,
            any::<u16>(),
            any::<u32>(),
            any::<u32>(),
        ),
        vec(any::<u32>(), 0..=15),
        proptest::option::of(extension()),
        vec(any::<u8>(), 0..64),
        prop_oneof![Just(0u8), any::<u8>()],
    )
        .prop_map(
            |(
                (marker, payload_type, sequence_number, timestamp, ssrc),
                csrcs,
                extension,
                payload,
                padding,
            )| {
                RtpPacket {
                    marker,
                    payload_type,
                    sequence_number,
                    timestamp,
                    ssrc,
                    csrcs,
                    extension,
                    payload,
                    padding,
                }
            },
        )
}

pub fn report_block() -> impl Strategy<Value = ReportBlock> {
    (
        any::<(u32, u8)>(),
        -(1i32 << 23)..(1 << 23),
        any::<(u32, u32, u32, u32)>(),
    )
        .prop_map(
            |((ssrc, fraction_lost), cumulative_lost, (h, j, l, d))| ReportBlock {
                ssrc,
                fraction_lost,
                cumulative_lost,
                extended_highest_seq: h,
                jitter: j,
                last_sr: l,
                delay_since_last_sr: d,
            },
        )
}

pub fn receiver_report() -> impl Strategy<Value = ReceiverReport> {
    (any::<u32>(), vec(report_block(), 0..=31), words(3)).prop_map(
        |(sender_ssrc, reports, profile_extension)| ReceiverReport {
            sender_ssrc,
            reports,
            profile_extension,
        },
    )
}

pub fn remb() -> impl Strategy<Value = Remb> {
    (
        any::<(u32, u32)>(),
        0u8..=63,
        0u32..(1 << 18),
        vec(any::<u32>(), 0..12),
    )
        .prop_map(
            |((sender_ssrc, media_ssrc), exponent, mantissa, ssrcs)| Remb {
                sender_ssrc,
                media_ssrc,
                bitrate: RembBitrate { exponent, mantissa },
                ssrcs,
            },
        )
}

pub fn packet_status() -> impl Strategy<Value = PacketStatus> {
    prop_oneof![
        Just(PacketStatus::NotReceived),
        any::<u8>().prop_map(PacketStatus::SmallDelta),
        any::<i16>().prop_map(PacketStatus::LargeDelta),
    ]
}

/// Status lists made of runs, so run length chunks, 1-bit and 2-bit
/// vectors all occur.
pub fn statuses() -> impl Strategy<Value = Vec<PacketStatus>> {
    vec(
        (
            packet_status(),
            prop_oneof![1usize..4, 1usize..40, Just(9000usize)],
        ),
        0..12,
    )
    .prop_map(|runs| {
        let mut v = Vec::new();
        for (s, n) in runs {
            v.extend(std::iter::repeat(s).take(n));
        }
        v.truncate(65_535);
        v
    })
}

pub fn transport_feedback() -> impl Strategy<Value = TransportFeedback> {
    (
        any::<(u32, u32, u16, u8)>(),
        -(1i32 << 23)..(1 << 23),
        statuses(),
    )
        .prop_map(
            |((sender_ssrc, media_ssrc, base_seq, fb_pkt_count), reference_time, packets)| {
                TransportFeedback {
                    sender_ssrc,
                    media_ssrc,
                    base_seq,
                    reference_time,
                    fb_pkt_count,
                    packets,
                }
            },
        )
}

pub fn other_rtcp() -> impl Strategy<Value = RtcpPacket> {
    (any::<u8>(), 0u8..32, words(6))
        .prop_filter("would parse as a known packet", |(pt, count, _)| {
            !(*pt == 201
                || ((*pt == 205 || *pt == 206) && *count == 15)
                || (*pt == 205 && *count == 11))
        })
        .prop_map(|(packet_type, count, body)| RtcpPacket::Other {
            packet_type,
            count,
            body,
        })
}

/// RFC 8888 feedback: any field values the wire holds (R = 0 with non-zero ECN / ATO
/// included), streams with 0..40 reports (odd counts padded).
pub fn congestion_control_feedback() -> impl Strategy<Value = CongestionControlFeedback> {
    let block =
        (any::<bool>(), 0u8..4, 0u16..0x2000).prop_map(|(received, ecn, ato)| MetricBlock {
            received,
            ecn,
            arrival_time_offset: ato,
        });
    let stream =
        (any::<u32>(), any::<u16>(), vec(block, 0..40)).prop_map(|(ssrc, begin_seq, reports)| {
            StreamReports {
                ssrc,
                begin_seq,
                reports,
            }
        });
    (any::<u32>(), vec(stream, 0..4), any::<u32>()).prop_map(
        |(sender_ssrc, streams, report_timestamp)| CongestionControlFeedback {
            sender_ssrc,
            streams,
            report_timestamp,
        },
    )
}

pub fn rtcp_packet() -> impl Strategy<Value = RtcpPacket> {
    prop_oneof![
        congestion_control_feedback().prop_map(RtcpPacket::CongestionControlFeedback),
        receiver_report().prop_map(RtcpPacket::ReceiverReport),
        remb().prop_map(RtcpPacket::Remb),
        transport_feedback().prop_map(RtcpPacket::TransportFeedback),
        other_rtcp(),
    ]
}

pub fn compound() -> impl Strategy<Value = Compound> {
    vec(rtcp_packet(), 1..5).prop_map(|packets| Compound { packets })
}

pub fn tlvs() -> impl Strategy<Value = Vec<Tlv>> {
    vec(
        (any::<u16>(), vec(any::<u8>(), 0..24)).prop_map(|(typ, value)| Tlv { typ, value }),
        0..4,
    )
}

pub fn init() -> impl Strategy<Value = InitChunk> {
    (any::<(u32, u32, u16, u16, u32)>(), tlvs()).prop_map(|((t, a, o, i, tsn), params)| InitChunk {
        initiate_tag: t,
        a_rwnd: a,
        outbound_streams: o,
        inbound_streams: i,
        initial_tsn: tsn,
        params,
    })
}

pub fn data_chunk() -> impl Strategy<Value = DataChunk> {
    (
        any::<(bool, bool, bool, bool)>(),
        any::<(u32, u16, u16, u32)>(),
        vec(any::<u8>(), 0..80),
    )
        .prop_map(
            |((immediate, unordered, beginning, ending), (tsn, stream_id, ssn, ppid), payload)| {
                DataChunk {
                    immediate,
                    unordered,
                    beginning,
                    ending,
                    tsn,
                    stream_id,
                    ssn,
                    ppid,
                    payload,
                }
            },
        )
}

pub fn sack() -> impl Strategy<Value = SackChunk> {
    (
        any::<(u32, u32)>(),
        vec(any::<(u16, u16)>(), 0..8),
        vec(any::<u32>(), 0..8),
    )
        .prop_map(|((cum_tsn_ack, a_rwnd), gap_blocks, dup_tsns)| SackChunk {
            cum_tsn_ack,
            a_rwnd,
            gap_blocks,
            dup_tsns,
        })
}

pub fn unknown_chunk() -> impl Strategy<Value = UnknownChunk> {
    (any::<u8>(), any::<u8>(), vec(any::<u8>(), 0..40))
        .prop_filter("known type", |(t, _, _)| {
            !flowstate_wire::sctp::chunk_types::KNOWN.contains(t)
        })
        .prop_map(|(chunk_type, flags, value)| UnknownChunk {
            chunk_type,
            flags,
            value,
        })
}

pub fn chunk() -> impl Strategy<Value = Chunk> {
    prop_oneof![
        data_chunk().prop_map(Chunk::Data),
        init().prop_map(Chunk::Init),
        (init(), vec(any::<u8>(), 0..40))
            .prop_map(|(init, cookie)| Chunk::InitAck(InitAckChunk { init, cookie })),
        sack().prop_map(Chunk::Sack),
        (any::<bool>(), tlvs()).prop_map(|(t_flag, causes)| Chunk::Abort { t_flag, causes }),
        any::<u32>().prop_map(|cum_tsn_ack| Chunk::Shutdown { cum_tsn_ack }),
        Just(Chunk::ShutdownAck),
        vec(any::<u8>(), 0..40).prop_map(|cookie| Chunk::CookieEcho { cookie }),
        Just(Chunk::CookieAck),
        any::<u32>().prop_map(|lowest_tsn| Chunk::EcnEcho { lowest_tsn }),
        any::<u32>().prop_map(|lowest_tsn| Chunk::Cwr { lowest_tsn }),
        any::<bool>().prop_map(|t_flag| Chunk::ShutdownComplete { t_flag }),
        unknown_chunk().prop_map(Chunk::Unknown),
    ]
}

/// Chunks after an unknown chunk whose type says "stop" are never parsed
/// (RFC 9260 section 3.2), so the strategy drops them.
pub fn truncate_at_stop(mut chunks: Vec<Chunk>) -> Vec<Chunk> {
    if let Some(i) = chunks.iter().position(|c| {
        matches!(c, Chunk::Unknown(u) if matches!(u.action(), UnknownAction::Stop | UnknownAction::StopAndReport))
    }) {
        chunks.truncate(i + 1);
    }
    chunks
}

pub fn sctp_packet_with(chunks: impl Strategy<Value = Chunk>) -> impl Strategy<Value = SctpPacket> {
    (any::<(u16, u16, u32)>(), vec(chunks, 0..6)).prop_map(
        |((src_port, dst_port, verification_tag), chunks)| SctpPacket {
            src_port,
            dst_port,
            verification_tag,
            chunks: truncate_at_stop(chunks),
        },
    )
}

pub fn sctp_packet() -> impl Strategy<Value = SctpPacket> {
    sctp_packet_with(chunk())
}

/// Small seeded xorshift64* for the fuzz smoke and mutation tests.
#[derive(Debug, Clone)]
pub struct XorShift(pub u64);

impl XorShift {
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next_u64() % n as u64) as usize
        }
    }
    pub fn byte(&mut self) -> u8 {
        self.next_u64() as u8
    }
}

/// Apply 1..=4 random mutations: bit flip, byte set, truncate, insert, delete, duplicate span.
pub fn mutate(rng: &mut XorShift, input: &[u8]) -> Vec<u8> {
    let mut v = input.to_vec();
    for _ in 0..1 + rng.below(4) {
        match rng.below(6) {
            0 if !v.is_empty() => {
                let i = rng.below(v.len());
                v[i] ^= 1 << rng.below(8);
            }
            1 if !v.is_empty() => {
                let i = rng.below(v.len());
                v[i] = [0, 0xFF, 0x7F, 0x80, 1, rng.byte()][rng.below(6)];
            }
            2 => {
                let n = rng.below(v.len() + 1);
                v.truncate(n);
            }
            3 => {
                let i = rng.below(v.len() + 1);
                v.insert(i, rng.byte());
            }
            4 if !v.is_empty() => {
                let i = rng.below(v.len());
                v.remove(i);
            }
            _ if !v.is_empty() => {
                let a = rng.below(v.len());
                let b = a + rng.below(v.len() - a).min(16);
                let span = v[a..b].to_vec();
                let at = rng.below(v.len() + 1);
                v.splice(at..at, span);
            }
            _ => v.push(rng.byte()),
        }
    }
    v
}
