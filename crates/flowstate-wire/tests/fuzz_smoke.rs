//! Stable-Rust stand-in for the cargo-fuzz targets in `fuzz/` (cargo-fuzz
//! needs nightly): runs the same target bodies (`flowstate_wire::fuzzing`)
//! over pseudo-random and mutated inputs from a fixed seed.
//! `FLOWSTATE_FUZZ_ITERS` sets the number of inputs per target (default
//! 300 000).

mod common;

use common::{mutate, XorShift};
use flowstate_wire::fuzzing;
use flowstate_wire::rtcp::{
    ecn, Compound, CongestionControlFeedback, MetricBlock, PacketStatus, ReceiverReport, Remb,
    RembBitrate, ReportBlock, RtcpPacket, StreamReports, TransportFeedback,
};
use flowstate_wire::rtp::{ExtensionElement, HeaderExtension, RtpPacket};
use flowstate_wire::sctp::{
    Chunk, DataChunk, InitAckChunk, InitChunk, SackChunk, SctpPacket, Tlv, UnknownChunk,
};

fn iters() -> usize {
    std::env::var("FLOWSTATE_FUZZ_ITERS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(300_000)
}

fn rtp_seeds() -> Vec<Vec<u8>> {
    let mut a = RtpPacket::new(111, 1, 2, 3);
    a.set_transport_cc_seq(3, 77).unwrap();
    a.payload = vec![1; 40];
    let mut b = RtpPacket::new(96, 9, 9, 9);
    b.marker = true;
    b.csrcs = vec![1, 2];
    b.extension = Some(HeaderExtension::TwoByte {
        app_bits: 3,
        elements: vec![
            ExtensionElement {
                id: 200,
                data: vec![],
            },
            ExtensionElement {
                id: 5,
                data: vec![1, 2, 3],
            },
        ],
    });
    b.padding = 4;
    vec![a.to_vec().unwrap(), b.to_vec().unwrap()]
}

fn rtcp_seeds() -> Vec<Vec<u8>> {
    let rr = RtcpPacket::ReceiverReport(ReceiverReport {
        sender_ssrc: 1,
        reports: vec![ReportBlock {
            ssrc: 2,
            fraction_lost: 3,
            cumulative_lost: -4,
            extended_highest_seq: 5,
            jitter: 6,
            last_sr: 7,
            delay_since_last_sr: 8,
        }],
        profile_extension: vec![],
    });
    let remb = RtcpPacket::Remb(Remb {
        sender_ssrc: 1,
        media_ssrc: 0,
        bitrate: RembBitrate::from_bps(2_500_000),
        ssrcs: vec![1, 2],
    });
    let mut packets = vec![PacketStatus::SmallDelta(3); 20];
    packets.extend([PacketStatus::NotReceived, PacketStatus::LargeDelta(-300)]);
    packets.extend([PacketStatus::SmallDelta(1), PacketStatus::NotReceived]);
    let twcc = RtcpPacket::TransportFeedback(TransportFeedback {
        sender_ssrc: 1,
        media_ssrc: 2,
        base_seq: 65_530,
        reference_time: 1234,
        fb_pkt_count: 9,
        packets,
    });
    let other = RtcpPacket::Other {
        packet_type: 202,
        count: 1,
        body: vec![0; 8],
    };
    vec![
        Compound {
            packets: vec![rr.clone(), remb.clone(), twcc.clone()],
        }
        .to_vec()
        .unwrap(),
        twcc.to_vec().unwrap(),
        Compound {
            packets: vec![rr, other, remb],
        }
        .to_vec()
        .unwrap(),
    ]
}

/// Bodies (after the 4-byte header) of RFC 8888 packets.
fn ccfb_seeds() -> Vec<Vec<u8>> {
    let stream = |ssrc, n: usize| StreamReports {
        ssrc,
        begin_seq: 65_530,
        reports: (0..n)
            .map(|i| {
                if i % 3 == 1 {
                    MetricBlock::lost()
                } else {
                    MetricBlock::received(ecn::ECT0 | (i as u8 & 1), (i * 1000) as i64)
                }
            })
            .collect(),
    };
    [
        vec![stream(7, 5)],
        vec![stream(1, 0), stream(2, 12)],
        vec![],
    ]
    .into_iter()
    .map(|streams| {
        let p = RtcpPacket::CongestionControlFeedback(CongestionControlFeedback {
            sender_ssrc: 9,
            streams,
            report_timestamp: 0x0001_8000,
        });
        p.to_vec().unwrap()[4..].to_vec()
    })
    .collect()
}

fn sctp_seeds() -> Vec<Vec<u8>> {
    let init = InitChunk {
        initiate_tag: 1,
        a_rwnd: 2,
        outbound_streams: 3,
        inbound_streams: 4,
        initial_tsn: 5,
        params: vec![
            Tlv {
                typ: 0xC000,
                value: vec![],
            },
            Tlv {
                typ: 0x8008,
                value: vec![1, 2, 3],
            },
        ],
    };
    let pkt = |chunks| SctpPacket {
        src_port: 5000,
        dst_port: 5000,
        verification_tag: 9,
        chunks,
    };
    vec![
        pkt(vec![Chunk::Init(init.clone())]).to_vec().unwrap(),
        pkt(vec![Chunk::InitAck(InitAckChunk {
            init,
            cookie: vec![7; 13],
        })])
        .to_vec()
        .unwrap(),
        pkt(vec![
            Chunk::CookieEcho {
                cookie: vec![7; 13],
            },
            Chunk::Data(DataChunk {
                immediate: false,
                unordered: true,
                beginning: true,
                ending: false,
                tsn: 5,
                stream_id: 1,
                ssn: 0,
                ppid: 53,
                payload: vec![9; 7],
            }),
            Chunk::Unknown(UnknownChunk {
                chunk_type: 0xC0,
                flags: 0,
                value: vec![0, 0, 0, 1],
            }),
        ])
        .to_vec()
        .unwrap(),
        pkt(vec![
            Chunk::Sack(SackChunk {
                cum_tsn_ack: 4,
                a_rwnd: 1000,
                gap_blocks: vec![(2, 3)],
                dup_tsns: vec![1],
            }),
            Chunk::Shutdown { cum_tsn_ack: 4 },
            Chunk::Abort {
                t_flag: true,
                causes: vec![Tlv {
                    typ: 12,
                    value: b"bye".to_vec(),
                }],
            },
        ])
        .to_vec()
        .unwrap(),
    ]
}

fn run(name: &str, seeds: &[Vec<u8>], body: fn(&[u8]) -> Result<(), String>, seed: u64) {
    let mut rng = XorShift(seed);
    let n = iters();
    let start = std::time::Instant::now();
    for i in 0..n {
        let input = if i % 4 == 0 {
            // Random bytes, first byte often version 2.
            let len = rng.below(96);
            let mut v: Vec<u8> = (0..len).map(|_| rng.byte()).collect();
            if let Some(b) = v.first_mut() {
                if rng.below(2) == 0 {
                    *b = 0x80 | (*b & 0x3F);
                }
            }
            v
        } else {
            let k = rng.below(seeds.len());
            mutate(&mut rng, &seeds[k])
        };
        if let Err(e) = body(&input) {
            panic!("{name}: input {input:02x?}: {e}");
        }
    }
    println!("{name}: {n} inputs in {:?}", start.elapsed());
}

/// Every seed is `valid`, then the mutation loop of [`run`] over them.
fn smoke(
    name: &str,
    seeds: Vec<Vec<u8>>,
    valid: impl Fn(&[u8]) -> bool,
    body: fn(&[u8]) -> Result<(), String>,
    seed: u64,
) {
    for (i, s) in seeds.iter().enumerate() {
        assert!(valid(s), "{name}: seed input {i} is not valid");
    }
    run(name, &seeds, body, seed);
}

#[test]
fn fuzz_smoke_rtp() {
    let valid = |s: &[u8]| fuzzing::rtp(s) == Ok(());
    smoke(
        "rtp",
        rtp_seeds(),
        valid,
        fuzzing::rtp,
        0x1234_5678_9ABC_DEF1,
    );
}

#[test]
fn fuzz_smoke_rtcp() {
    let valid = |s: &[u8]| Compound::parse(s).is_ok();
    smoke(
        "rtcp",
        rtcp_seeds(),
        valid,
        fuzzing::rtcp,
        0x0F0F_1234_5678_9ABD,
    );
}

#[test]
fn fuzz_smoke_ccfb() {
    let valid = |s: &[u8]| fuzzing::ccfb(s) == Ok(());
    smoke(
        "ccfb",
        ccfb_seeds(),
        valid,
        fuzzing::ccfb,
        0x8888_1234_5678_9AC1,
    );
}

#[test]
fn fuzz_smoke_sctp() {
    let valid = |s: &[u8]| SctpPacket::parse(s).is_ok();
    smoke(
        "sctp",
        sctp_seeds(),
        valid,
        fuzzing::sctp,
        0x7777_1234_5678_9ABF,
    );
}

#[test]
fn fuzz_smoke_utp() {
    let seed = |t, payload: &[u8]| {
        flowstate_wire::utp::UtpPacket {
            packet_type: t,
            connection_id: 0x4000,
            timestamp_us: 123_456,
            timestamp_difference_us: 50_000,
            wnd_size: 1 << 22,
            seq_nr: 1,
            ack_nr: 0,
            extensions: vec![(0x80, vec![7; 9])],
            payload: payload.to_vec(),
        }
        .to_vec()
        .unwrap()
    };
    let seeds = vec![
        seed(flowstate_wire::utp::UtpType::Data, &[0; 40]),
        seed(flowstate_wire::utp::UtpType::State, &[]),
    ];
    let valid = |s: &[u8]| fuzzing::utp(s) == Ok(());
    smoke("utp", seeds, valid, fuzzing::utp, 0x6817_1234_5678_9AC2);
}
