//! Known-answer tests against byte vectors written by hand from the RFC /
//! draft figures (not produced by this crate).

use flowstate_wire::rtcp::{
    Compound, PacketStatus, ReceiverReport, Remb, RembBitrate, ReportBlock, RtcpPacket,
    TransportFeedback,
};
use flowstate_wire::rtp::{ExtensionElement, HeaderExtension, RtpPacket};
use flowstate_wire::sctp::{self, Chunk, DataChunk, SctpPacket, UnknownAction};
use flowstate_wire::WireError;

// ---------------------------------------------------------------- RTP

/// V=2 X=1, PT=111, seq 0x1234, ts 1000, SSRC 0xDEADBEEF, one-byte extension
/// (0xBEDE, 1 word) with ID 3, L=1 holding transport-wide seq 0x0102 and one
/// padding byte, payload AA BB.
const RTP_TWCC: [u8; 22] = [
    0x90, 0x6F, 0x12, 0x34, 0x00, 0x00, 0x03, 0xE8, 0xDE, 0xAD, 0xBE, 0xEF, //
    0xBE, 0xDE, 0x00, 0x01, 0x31, 0x01, 0x02, 0x00, //
    0xAA, 0xBB,
];

#[test]
fn rtp_one_byte_extension_with_transport_cc_seq() {
    let p = RtpPacket::parse(&RTP_TWCC).unwrap();
    assert!(!p.marker);
    assert_eq!(p.payload_type, 111);
    assert_eq!(p.sequence_number, 0x1234);
    assert_eq!(p.timestamp, 1000);
    assert_eq!(p.ssrc, 0xDEAD_BEEF);
    assert_eq!(p.transport_cc_seq(3), Some(0x0102));
    assert_eq!(p.transport_cc_seq(4), None);
    assert_eq!(p.payload, vec![0xAA, 0xBB]);

    let mut q = RtpPacket::new(111, 0x1234, 1000, 0xDEAD_BEEF);
    q.payload = vec![0xAA, 0xBB];
    q.set_transport_cc_seq(3, 0x0102).unwrap();
    assert_eq!(q.to_vec().unwrap(), RTP_TWCC.to_vec());
}

#[test]
fn rtp_two_byte_extension_csrc_marker_padding() {
    // V=2 P=1 X=1 CC=1, M=1 PT=96, seq 1, ts 2, ssrc 3, csrc 4,
    // extension 0x1000 (2 words): id 5 len 3 [9 8 7], id 6 len 0, pad 00,
    // payload 55, padding 3 bytes (00 00 03).
    let bytes = [
        0xB1, 0xE0, 0x00, 0x01, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, //
        0x10, 0x00, 0x00, 0x02, 5, 3, 9, 8, 7, 6, 0, 0, //
        0x55, 0, 0, 3,
    ];
    let p = RtpPacket::parse(&bytes).unwrap();
    assert!(p.marker);
    assert_eq!(p.payload_type, 96);
    assert_eq!(p.csrcs, vec![4]);
    assert_eq!(
        p.extension,
        Some(HeaderExtension::TwoByte {
            app_bits: 0,
            elements: vec![
                ExtensionElement {
                    id: 5,
                    data: vec![9, 8, 7]
                },
                ExtensionElement {
                    id: 6,
                    data: vec![]
                },
            ],
        })
    );
    assert_eq!(p.payload, vec![0x55]);
    assert_eq!(p.padding, 3);
    assert_eq!(p.to_vec().unwrap(), bytes.to_vec());
}

#[test]
fn rtp_errors() {
    let mut v1 = RTP_TWCC;
    v1[0] = 0x50; // version 1
    assert_eq!(RtpPacket::parse(&v1), Err(WireError::BadVersion));
    assert_eq!(RtpPacket::parse(&RTP_TWCC[..11]), Err(WireError::Truncated));
    // Extension claims 2 words but only 1 follows.
    let mut long = RTP_TWCC;
    long[15] = 0x05;
    assert_eq!(RtpPacket::parse(&long), Err(WireError::Truncated));
    // P bit with a zero count byte.
    let mut pad = RTP_TWCC.to_vec();
    pad[0] |= 0x20;
    pad.push(0);
    assert_eq!(RtpPacket::parse(&pad), Err(WireError::BadPadding));
    // One-byte ID 15 stops extension parsing (RFC 8285 section 4.2).
    let mut stop = RTP_TWCC;
    stop[16] = 0xF1;
    assert_eq!(RtpPacket::parse(&stop).unwrap().transport_cc_seq(3), None);
    // 16 CSRCs cannot be emitted.
    let mut p = RtpPacket::new(0, 0, 0, 0);
    p.csrcs = vec![0; 16];
    assert!(matches!(p.to_vec(), Err(WireError::Unrepresentable(_))));
}

// ---------------------------------------------------------------- RTCP

/// RR (RFC 3550 section 6.4.2), one block: fraction 64/256, cumulative
/// lost -2, ext. highest seq 65552, jitter 32, LSR 0xABCDEF01, DLSR 1.5 s.
const RR: [u8; 32] = [
    0x81, 0xC9, 0x00, 0x07, 0x11, 0x22, 0x33, 0x44, //
    0x55, 0x66, 0x77, 0x88, 0x40, 0xFF, 0xFF, 0xFE, //
    0x00, 0x01, 0x00, 0x10, 0x00, 0x00, 0x00, 0x20, //
    0xAB, 0xCD, 0xEF, 0x01, 0x00, 0x01, 0x80, 0x00,
];

fn rr_repr() -> ReceiverReport {
    ReceiverReport {
        sender_ssrc: 0x1122_3344,
        reports: vec![ReportBlock {
            ssrc: 0x5566_7788,
            fraction_lost: 64,
            cumulative_lost: -2,
            extended_highest_seq: 65_552,
            jitter: 32,
            last_sr: 0xABCD_EF01,
            delay_since_last_sr: 98_304,
        }],
        profile_extension: vec![],
    }
}

#[test]
fn receiver_report_known_bytes() {
    assert_eq!(
        RtcpPacket::parse(&RR),
        Ok(RtcpPacket::ReceiverReport(rr_repr()))
    );
    assert_eq!(
        RtcpPacket::ReceiverReport(rr_repr()).to_vec().unwrap(),
        RR.to_vec()
    );
    // DLSR is in 1/65536 s.
    assert_eq!(
        f64::from(rr_repr().reports[0].delay_since_last_sr) / 65_536.0,
        1.5
    );
}

/// REMB of 1.2 Mbit/s = 150000 * 2^3: exp 3, mantissa 0x249F0, packed
/// 24 bits (3 << 18 | 0x249F0) = 0x0E49F0; one SSRC 0x12345678.
const REMB_1200K: [u8; 24] = [
    0x8F, 0xCE, 0x00, 0x05, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, //
    b'R', b'E', b'M', b'B', 0x01, 0x0E, 0x49, 0xF0, 0x12, 0x34, 0x56, 0x78,
];

#[test]
fn remb_1_2_mbps_known_bytes() {
    let r = Remb {
        sender_ssrc: 1,
        media_ssrc: 0,
        bitrate: RembBitrate::from_bps(1_200_000),
        ssrcs: vec![0x1234_5678],
    };
    assert_eq!(
        r.bitrate,
        RembBitrate {
            exponent: 3,
            mantissa: 150_000
        }
    );
    assert_eq!(r.bitrate.bps(), 1_200_000);
    assert_eq!(
        RtcpPacket::Remb(r.clone()).to_vec().unwrap(),
        REMB_1200K.to_vec()
    );
    assert_eq!(RtcpPacket::parse(&REMB_1200K), Ok(RtcpPacket::Remb(r)));
}

#[test]
fn remb_bitrate_conversion() {
    // Fits the 18-bit mantissa: exponent 0.
    assert_eq!(
        RembBitrate::from_bps(262_143),
        RembBitrate {
            exponent: 0,
            mantissa: 262_143
        }
    );
    // 262144 = 2^18 needs exponent 1, mantissa 131072.
    assert_eq!(
        RembBitrate::from_bps(262_144),
        RembBitrate {
            exponent: 1,
            mantissa: 131_072
        }
    );
    // Rounds down: 1_000_001 -> exponent 2, mantissa 250000 -> 1_000_000.
    assert_eq!(RembBitrate::from_bps(1_000_001).bps(), 1_000_000);
    // Saturates instead of overflowing.
    assert_eq!(
        RembBitrate {
            exponent: 63,
            mantissa: (1 << 18) - 1
        }
        .bps(),
        u64::MAX
    );
}

/// TWCC feedback, base seq 100, 6 packets, reference time 16 (1.024 s),
/// fb count 5. Chunks: run length (symbol 01, run 3) = 0x2003; two-bit
/// status vector [00, 10, 01, then 4 unused] = 0b11_00_10_01_00_00_00_00 =
/// 0xC900. Deltas: 04 08 01 (small), FF FC (large, -4), FF (small); 2 bytes
/// zero padding. 32 bytes, length field 7.
const TWCC_RLE_AND_VECTOR: [u8; 32] = [
    0x8F, 0xCD, 0x00, 0x07, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x02, //
    0x00, 0x64, 0x00, 0x06, 0x00, 0x00, 0x10, 0x05, //
    0x20, 0x03, 0xC9, 0x00, //
    0x04, 0x08, 0x01, 0xFF, 0xFC, 0xFF, 0x00, 0x00,
];

#[test]
fn twcc_run_length_and_two_bit_vector_known_bytes() {
    use PacketStatus::*;
    let fb = TransportFeedback {
        sender_ssrc: 1,
        media_ssrc: 2,
        base_seq: 100,
        reference_time: 16,
        fb_pkt_count: 5,
        packets: vec![
            SmallDelta(4),
            SmallDelta(8),
            SmallDelta(1),
            NotReceived,
            LargeDelta(-4),
            SmallDelta(255),
        ],
    };
    assert_eq!(
        RtcpPacket::parse(&TWCC_RLE_AND_VECTOR),
        Ok(RtcpPacket::TransportFeedback(fb.clone()))
    );
    assert_eq!(fb.reference_time_us(), 1_024_000);
    assert_eq!(fb.packets[4].delta_us(), Some(-1000));
    assert_eq!(fb.packets[5].delta_us(), Some(63_750));
}

/// 10 packets received with delta 1 (run length chunk symbol 01 run 10 =
/// 0x200A), then [not received, received delta 2] as a one-bit vector
/// 0b1_0_01_000000000000 = 0x9000; 11 delta bytes, 1 byte padding.
const TWCC_RLE_AND_ONE_BIT: [u8; 36] = [
    0x8F, 0xCD, 0x00, 0x08, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x02, //
    0xFF, 0xFF, 0x00, 0x0C, 0xFF, 0xFF, 0xFF, 0x00, //
    0x20, 0x0A, 0x90, 0x00, //
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 0x00,
];

#[test]
fn twcc_emits_run_length_and_one_bit_vector() {
    let mut packets = vec![PacketStatus::SmallDelta(1); 10];
    packets.push(PacketStatus::NotReceived);
    packets.push(PacketStatus::SmallDelta(2));
    let fb = TransportFeedback {
        sender_ssrc: 1,
        media_ssrc: 2,
        base_seq: 0xFFFF,
        reference_time: -1,
        fb_pkt_count: 0,
        packets,
    };
    assert_eq!(fb.encode_chunks(), vec![0x200A, 0x9000]);
    assert_eq!(
        RtcpPacket::TransportFeedback(fb.clone()).to_vec().unwrap(),
        TWCC_RLE_AND_ONE_BIT.to_vec()
    );
    assert_eq!(
        RtcpPacket::parse(&TWCC_RLE_AND_ONE_BIT),
        Ok(RtcpPacket::TransportFeedback(fb))
    );
}

#[test]
fn twcc_errors_and_delta_quantisation() {
    // Reserved symbol 11 in a run length chunk.
    let mut bad = TWCC_RLE_AND_VECTOR;
    bad[20] = 0x60;
    assert!(matches!(
        RtcpPacket::parse(&bad),
        Err(WireError::Malformed(_))
    ));
    // Length cut before the receive deltas.
    let mut short = TWCC_RLE_AND_VECTOR[..24].to_vec();
    short[3] = 5;
    assert_eq!(RtcpPacket::parse(&short), Err(WireError::Truncated));
    assert_eq!(
        PacketStatus::from_delta_us(1_000),
        Some(PacketStatus::SmallDelta(4))
    );
    assert_eq!(
        PacketStatus::from_delta_us(63_750),
        Some(PacketStatus::SmallDelta(255))
    );
    assert_eq!(
        PacketStatus::from_delta_us(64_000),
        Some(PacketStatus::LargeDelta(256))
    );
    assert_eq!(
        PacketStatus::from_delta_us(-250),
        Some(PacketStatus::LargeDelta(-1))
    );
    assert_eq!(PacketStatus::from_delta_us(10_000_000), None);
}

#[test]
fn compound_rr_remb_twcc_and_padding() {
    let mut bytes = RR.to_vec();
    bytes.extend_from_slice(&REMB_1200K);
    bytes.extend_from_slice(&TWCC_RLE_AND_VECTOR);
    let c = Compound::parse(&bytes).unwrap();
    assert_eq!(c.packets.len(), 3);
    assert!(matches!(c.packets[0], RtcpPacket::ReceiverReport(_)));
    assert!(matches!(c.packets[1], RtcpPacket::Remb(_)));
    assert!(matches!(c.packets[2], RtcpPacket::TransportFeedback(_)));
    // RR and REMB come back byte for byte; the TWCC packet is re-encoded
    // with this crate's chunk choice (a 2-bit vector for all 6 statuses:
    // 0b11_01_01_01_00_10_01 = 0xD524) and still parses to the same value.
    let out = c.to_vec().unwrap();
    assert_eq!(out[..56], bytes[..56]);
    assert_eq!(out[76..78], [0xD5, 0x24]);
    assert_eq!(Compound::parse(&out), Ok(c));

    // An SDES-like packet (PT 202) with RFC 3550 padding: P=1, length 2,
    // body 4 bytes then 4 padding bytes ending in 04.
    let sdes = [0xA1, 0xCA, 0x00, 0x02, 1, 2, 3, 4, 0, 0, 0, 4];
    assert_eq!(
        RtcpPacket::parse(&sdes),
        Ok(RtcpPacket::Other {
            packet_type: 202,
            count: 1,
            body: vec![1, 2, 3, 4]
        })
    );
    // Length field past the end.
    assert_eq!(Compound::parse(&RR[..28]), Err(WireError::Truncated));
    assert_eq!(Compound::parse(&[]), Err(WireError::Truncated));
}

// ---------------------------------------------------------------- SCTP

/// Bit-by-bit CRC32c (Castagnoli, reflected polynomial 0x82F63B78, init
/// and final XOR 0xFFFFFFFF), written from RFC 9260 appendix B, independent
/// of the `crc32c` crate.
fn reference_crc32c(data: &[u8]) -> u32 {
    let mut crc = 0xFFFF_FFFFu32;
    for &b in data {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0x82F6_3B78
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// RFC 3720 appendix B.4 test vectors (CRC bytes as listed there, i.e.
/// least significant byte first).
#[test]
fn crc32c_rfc3720_vectors() {
    let zeros = [0u8; 32];
    let ones = [0xFFu8; 32];
    let inc: Vec<u8> = (0..32).collect();
    let dec: Vec<u8> = (0..32).rev().collect();
    let cases: [(&[u8], [u8; 4]); 4] = [
        (&zeros, [0xAA, 0x36, 0x91, 0x8A]),
        (&ones, [0x43, 0xAB, 0xA8, 0x62]),
        (&inc, [0x4E, 0x79, 0xDD, 0x46]),
        (&dec, [0x5C, 0xDB, 0x3F, 0x11]),
    ];
    for (data, want) in cases {
        assert_eq!(reference_crc32c(data).to_le_bytes(), want);
        assert_eq!(crc32c::crc32c(data).to_le_bytes(), want);
    }
}

/// SCTP packet 5000 -> 5000, vtag 0x01020304, one DATA chunk (B and E set,
/// TSN 1, stream 2, SSN 3, PPID 51 = WebRTC string, payload "hello"):
/// chunk length 16 + 5 = 21 (0x15), 3 bytes padding.
fn data_packet_bytes() -> Vec<u8> {
    let mut b = vec![
        0x13, 0x88, 0x13, 0x88, 0x01, 0x02, 0x03, 0x04, 0, 0, 0, 0, //
        0x00, 0x03, 0x00, 0x15, 0, 0, 0, 1, 0, 2, 0, 3, 0, 0, 0, 51, //
        b'h', b'e', b'l', b'l', b'o', 0, 0, 0,
    ];
    let crc = reference_crc32c(&b);
    b[8..12].copy_from_slice(&crc.to_le_bytes());
    b
}

#[test]
fn sctp_data_chunk_known_bytes() {
    let bytes = data_packet_bytes();
    let p = SctpPacket {
        src_port: 5000,
        dst_port: 5000,
        verification_tag: 0x0102_0304,
        chunks: vec![Chunk::Data(DataChunk {
            immediate: false,
            unordered: false,
            beginning: true,
            ending: true,
            tsn: 1,
            stream_id: 2,
            ssn: 3,
            ppid: 51,
            payload: b"hello".to_vec(),
        })],
    };
    assert_eq!(p.to_vec().unwrap(), bytes);
    assert_eq!(SctpPacket::parse(&bytes), Ok(p));
    assert_eq!(
        sctp::checksum(&bytes),
        reference_crc32c(&{
            let mut z = bytes.clone();
            z[8..12].fill(0);
            z
        })
    );
    let mut corrupt = bytes.clone();
    corrupt[30] ^= 1;
    assert_eq!(SctpPacket::parse(&corrupt), Err(WireError::BadChecksum));
    assert!(SctpPacket::parse_unverified(&corrupt).is_ok());
}

fn with_crc(mut b: Vec<u8>) -> Vec<u8> {
    b[8..12].fill(0);
    let crc = reference_crc32c(&b);
    b[8..12].copy_from_slice(&crc.to_le_bytes());
    b
}

#[test]
fn sctp_init_ack_sack_known_bytes() {
    // INIT ACK: tag 0xA, a_rwnd 0x20000, OS 16, MIS 16, TSN 7, then
    // State Cookie (type 7, length 7, "abc", 1 byte padding), then
    // Forward-TSN-supported (0xC000, length 4) as the last parameter.
    let b = with_crc(vec![
        0x13, 0x88, 0x13, 0x89, 0, 0, 0, 9, 0, 0, 0, 0, //
        0x02, 0x00, 0x00, 0x20, 0, 0, 0, 0x0A, 0, 2, 0, 0, 0, 16, 0, 16, 0, 0, 0, 7, //
        0x00, 0x07, 0x00, 0x07, b'a', b'b', b'c', 0, 0xC0, 0x00, 0x00, 0x04,
    ]);
    let p = SctpPacket::parse(&b).unwrap();
    let Chunk::InitAck(a) = &p.chunks[0] else {
        panic!("not INIT ACK: {p:?}")
    };
    assert_eq!(a.cookie, b"abc".to_vec());
    assert_eq!(a.init.initiate_tag, 0xA);
    assert_eq!(a.init.a_rwnd, 0x20000);
    assert_eq!(a.init.initial_tsn, 7);
    assert_eq!(a.init.params.len(), 1);
    assert_eq!(a.init.params[0].typ, 0xC000);
    assert_eq!(p.to_vec().unwrap(), b);

    // SACK: cum 100, a_rwnd 5000, 1 gap block (2..3), 1 dup TSN 99.
    let s = with_crc(vec![
        0x13, 0x88, 0x13, 0x89, 0, 0, 0, 9, 0, 0, 0, 0, //
        0x03, 0x00, 0x00, 0x18, 0, 0, 0, 100, 0, 0, 0x13, 0x88, 0, 1, 0, 1, //
        0, 2, 0, 3, 0, 0, 0, 99,
    ]);
    let p = SctpPacket::parse(&s).unwrap();
    let Chunk::Sack(sack) = &p.chunks[0] else {
        panic!("not SACK")
    };
    assert_eq!((sack.cum_tsn_ack, sack.a_rwnd), (100, 5000));
    assert_eq!(sack.gap_blocks, vec![(2, 3)]);
    assert_eq!(sack.dup_tsns, vec![99]);
    assert_eq!(p.to_vec().unwrap(), s);

    // INIT ACK without a cookie is malformed.
    let no_cookie = with_crc(vec![
        0x13, 0x88, 0x13, 0x89, 0, 0, 0, 9, 0, 0, 0, 0, //
        0x02, 0x00, 0x00, 0x14, 0, 0, 0, 0x0A, 0, 2, 0, 0, 0, 16, 0, 16, 0, 0, 0, 7,
    ]);
    assert!(matches!(
        SctpPacket::parse(&no_cookie),
        Err(WireError::Malformed(_))
    ));
}

/// RFC 9260 appendix A: ECNE (type 12) and CWR (type 13), flags 0, length 8, the
/// Lowest TSN Number; a SACK with an ECNE bundled after it.
#[test]
fn sctp_ecne_and_cwr_chunks_rfc9260_appendix_a() {
    let bytes = with_crc(vec![
        0x13, 0x88, 0x13, 0x89, 0, 0, 0, 9, 0, 0, 0, 0, //
        0x0C, 0x00, 0x00, 0x08, 0, 0, 0x01, 0x00, // ECNE, TSN 256
        0x0D, 0x00, 0x00, 0x08, 0, 0, 0, 0x2A, // CWR, TSN 42
    ]);
    let p = SctpPacket::parse(&bytes).unwrap();
    assert_eq!(
        p.chunks,
        [
            Chunk::EcnEcho { lowest_tsn: 256 },
            Chunk::Cwr { lowest_tsn: 42 }
        ]
    );
    assert_eq!(p.to_vec().unwrap(), bytes);
    // A length other than 8 is malformed.
    let long = with_crc(vec![
        0x13, 0x88, 0x13, 0x89, 0, 0, 0, 9, 0, 0, 0, 0, //
        0x0C, 0x00, 0x00, 0x0C, 0, 0, 0x01, 0x00, 0, 0, 0, 0,
    ]);
    assert!(SctpPacket::parse(&long).is_err());
}

#[test]
fn sctp_unknown_chunks_follow_high_bits() {
    // 0x82 (high bits 10: skip, continue) with 1 byte value, then COOKIE ACK.
    let skip = with_crc(vec![
        0x13, 0x88, 0x13, 0x89, 0, 0, 0, 9, 0, 0, 0, 0, //
        0x82, 0x00, 0x00, 0x05, 0xEE, 0, 0, 0, 0x0B, 0x00, 0x00, 0x04,
    ]);
    let p = SctpPacket::parse(&skip).unwrap();
    assert_eq!(p.chunks.len(), 2);
    let Chunk::Unknown(u) = &p.chunks[0] else {
        panic!()
    };
    assert_eq!(
        (u.chunk_type, u.action(), u.value.clone()),
        (0x82, UnknownAction::Skip, vec![0xEE])
    );
    assert_eq!(p.chunks[1], Chunk::CookieAck);
    assert_eq!(p.to_vec().unwrap(), skip);

    // 0x40 (high bits 01: stop, report): the COOKIE ACK after it is not parsed.
    let mut stop = skip.clone();
    stop[12] = 0x40;
    let p = SctpPacket::parse(&with_crc(stop)).unwrap();
    assert_eq!(p.chunks.len(), 1);
    let Chunk::Unknown(u) = &p.chunks[0] else {
        panic!()
    };
    assert_eq!(u.action(), UnknownAction::StopAndReport);

    // Chunk length < 4 would loop forever; it is an error.
    let mut zero = skip.clone();
    zero[15] = 0;
    assert!(matches!(
        SctpPacket::parse(&with_crc(zero)),
        Err(WireError::BadLength(_))
    ));
}
