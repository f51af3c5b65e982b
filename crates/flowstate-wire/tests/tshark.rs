//! Wireshark cross-check: emitted packets written to a pcap are dissected
//! by tshark without "Malformed" or checksum errors. Skipped (with a
//! printed reason) when tshark is not installed; see
//! scripts/install-test-tools.sh.

mod common;

use common::XorShift;
use flowstate_wire::pcap::PcapWriter;
use flowstate_wire::rtcp::{
    ecn, Compound, CongestionControlFeedback, MetricBlock, PacketStatus, ReceiverReport, Remb,
    RembBitrate, ReportBlock, RtcpPacket, StreamReports, TransportFeedback,
};
use flowstate_wire::rtp::RtpPacket;
use flowstate_wire::sctp::{Chunk, DataChunk, InitAckChunk, InitChunk, SackChunk, SctpPacket, Tlv};
use std::process::Command;

const RTP_PORT: u16 = 5000;
const RTCP_PORT: u16 = 5001;
const SCTP_PORT: u16 = 5002;

fn tshark_available() -> bool {
    Command::new("tshark")
        .arg("--version")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

fn capture() -> Vec<u8> {
    let mut pcap = PcapWriter::new();
    let mut t = 0u64;
    let mut rng = XorShift(42);
    for seq in 0..20u16 {
        let mut p = RtpPacket::new(96, 1000 + seq, 90_000 + u32::from(seq) * 3000, 0x1111_2222);
        p.set_transport_cc_seq(3, 500 + seq).unwrap();
        p.marker = seq % 5 == 4;
        p.payload = (0..100 + rng.below(200)).map(|_| rng.byte()).collect();
        t += 5_000;
        pcap.udp(t, RTP_PORT, RTP_PORT, &p.to_vec().unwrap());
    }
    let mut statuses = vec![PacketStatus::SmallDelta(20); 10];
    statuses.extend([PacketStatus::NotReceived, PacketStatus::LargeDelta(-8)]);
    statuses.extend(vec![PacketStatus::NotReceived; 9]);
    statuses.extend([PacketStatus::SmallDelta(4), PacketStatus::LargeDelta(1000)]);
    let compound = Compound {
        packets: vec![
            RtcpPacket::ReceiverReport(ReceiverReport {
                sender_ssrc: 0x3333_4444,
                reports: vec![ReportBlock {
                    ssrc: 0x1111_2222,
                    fraction_lost: 12,
                    cumulative_lost: 3,
                    extended_highest_seq: 1019,
                    jitter: 40,
                    last_sr: 0,
                    delay_since_last_sr: 0,
                }],
                profile_extension: vec![],
            }),
            RtcpPacket::Remb(Remb {
                sender_ssrc: 0x3333_4444,
                media_ssrc: 0,
                bitrate: RembBitrate::from_bps(1_200_000),
                ssrcs: vec![0x1111_2222],
            }),
            RtcpPacket::TransportFeedback(TransportFeedback {
                sender_ssrc: 0x3333_4444,
                media_ssrc: 0x1111_2222,
                base_seq: 500,
                reference_time: 100,
                fb_pkt_count: 1,
                packets: statuses,
            }),
        ],
    };
    t += 1_000;
    pcap.udp(t, RTCP_PORT, RTCP_PORT, &compound.to_vec().unwrap());
    // RFC 8888 feedback for the 20 RTP packets: seq 1005 lost, 1010 CE-marked.
    let ccfb = RtcpPacket::CongestionControlFeedback(CongestionControlFeedback {
        sender_ssrc: 0x3333_4444,
        streams: vec![StreamReports {
            ssrc: 0x1111_2222,
            begin_seq: 1000,
            reports: (0..19)
                .map(|i| match i {
                    5 => MetricBlock::lost(),
                    10 => MetricBlock::received(ecn::CE, (19 - i) * 5_000),
                    _ => MetricBlock::received(ecn::ECT0, (19 - i) * 5_000),
                })
                .collect(),
        }],
        report_timestamp: CongestionControlFeedback::ntp_middle_from_us(t),
    });
    t += 1_000;
    pcap.udp(t, RTCP_PORT, RTCP_PORT, &ccfb.to_vec().unwrap());

    let init = InitChunk {
        initiate_tag: 0xAABB_CCDD,
        a_rwnd: 131_072,
        outbound_streams: 1024,
        inbound_streams: 1024,
        initial_tsn: 1000,
        params: vec![Tlv {
            typ: 0xC000,
            value: vec![],
        }],
    };
    let sctp = |vtag, chunks| SctpPacket {
        src_port: 5000,
        dst_port: 5000,
        verification_tag: vtag,
        chunks,
    };
    let packets = vec![
        sctp(0, vec![Chunk::Init(init.clone())]),
        sctp(
            0xAABB_CCDD,
            vec![Chunk::InitAck(InitAckChunk {
                init,
                cookie: vec![0x5A; 37],
            })],
        ),
        sctp(
            0x0102_0304,
            vec![Chunk::CookieEcho {
                cookie: vec![0x5A; 37],
            }],
        ),
        sctp(0xAABB_CCDD, vec![Chunk::CookieAck]),
        sctp(
            0x0102_0304,
            vec![Chunk::Data(DataChunk {
                immediate: false,
                unordered: false,
                beginning: true,
                ending: true,
                tsn: 1000,
                stream_id: 1,
                ssn: 0,
                ppid: 51,
                payload: b"hello, data channel".to_vec(),
            })],
        ),
        sctp(
            0xAABB_CCDD,
            vec![Chunk::Sack(SackChunk {
                cum_tsn_ack: 1000,
                a_rwnd: 131_072,
                gap_blocks: vec![(2, 4)],
                dup_tsns: vec![999],
            })],
        ),
        sctp(0x0102_0304, vec![Chunk::Shutdown { cum_tsn_ack: 1000 }]),
        sctp(0xAABB_CCDD, vec![Chunk::ShutdownAck]),
        sctp(0x0102_0304, vec![Chunk::ShutdownComplete { t_flag: false }]),
        sctp(
            0x0102_0304,
            vec![Chunk::Abort {
                t_flag: false,
                causes: vec![Tlv {
                    typ: 12,
                    value: b"bye".to_vec(),
                }],
            }],
        ),
    ];
    for p in packets {
        t += 1_000;
        pcap.udp(t, SCTP_PORT, SCTP_PORT, &p.to_vec().unwrap());
    }
    pcap.into_bytes()
}

#[test]
fn tshark_dissects_emitted_packets_without_errors() {
    if !tshark_available() {
        println!("SKIPPED: tshark not found on PATH; run scripts/install-test-tools.sh to enable this check");
        return;
    }
    let dir = std::env::temp_dir().join(format!("flowstate-wire-tshark-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("wire.pcap");
    std::fs::write(&file, capture()).unwrap();
    let out = Command::new("tshark")
        .arg("-r")
        .arg(&file)
        .args([
            "-V",
            "-d",
            "udp.port==5000,rtp",
            "-d",
            "udp.port==5001,rtcp",
            "-d",
            "udp.port==5002,sctp",
        ])
        .args([
            "-o",
            "sctp.checksum:CRC-32C",
            "-o",
            "ip.check_checksum:TRUE",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    std::fs::write(dir.join("wire.txt"), text.as_bytes()).unwrap();
    println!("{}", String::from_utf8_lossy(&out.stderr));
    assert!(
        out.status.success(),
        "tshark failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let where_ = dir.display();
    assert!(
        !text.contains("Malformed"),
        "tshark reports a malformed packet; see {where_}"
    );
    assert!(
        !text.contains("[incorrect"),
        "tshark reports a bad checksum; see {where_}"
    );
    assert!(
        !text.contains("Expert Info (Error"),
        "tshark reports an error; see {where_}"
    );
    // What Wireshark decoded, field by field (values from `capture()`).
    assert_eq!(
        text.matches("Real-Time Transport Protocol").count(),
        20,
        "{where_}"
    );
    // 10 + 1 + 1 + 1 received packets, one delta each.
    assert_eq!(
        text.matches("            Recv Delta: 0x").count(),
        13,
        "{where_}"
    );
    for field in [
        "Identifier: 3",
        "Extension Data: 01f4",
        "Packet type: Receiver Report (201)",
        "Extended highest sequence number received: 1019",
        "REMB: max bitrate=1200000",
        "Packet Status Count: 23",
        "Run Length Chunk] Small Delta. Length : 10",
        "Negative Delta: [seq: 511] -2.000000 ms",
        "Large Delta: [seq: 522] 250.000000 ms",
        "RTCP frame length check: OK",
    ] {
        assert!(text.contains(field), "{field} missing; see {where_}");
    }
    assert_eq!(text.matches("Checksum (CRC32C): ").count(), 10, "{where_}");
    let correct = |field: &str| {
        text.lines()
            .filter(|l| l.contains(field) && l.contains("[correct]"))
            .count()
    };
    assert_eq!(correct("Checksum (CRC32C): "), 10, "{where_}");
    // The pcap writer's IPv4 header checksums, validated too.
    assert_eq!(correct("Header Checksum: "), 32, "{where_}");
    // RFC 8888 feedback: Wireshark 4.0 has no RFC 8888 dissector (FMT 11 shows as
    // "Unknown"), but it checks the RTCP header and length of the packet.
    assert!(
        text.contains("(FMT): Unknown (11)")
            || text.contains("(FMT): RFC 8888 Congestion Control Feedback"),
        "{where_}"
    );
    assert_eq!(
        text.matches("RTCP frame length check: OK").count(),
        2,
        "{where_}"
    );
    for chunk in [
        "INIT (1)",
        "INIT_ACK (2)",
        "COOKIE_ECHO (10)",
        "COOKIE_ACK (11)",
        "DATA (0)",
        "SACK (3)",
        "SHUTDOWN (7)",
        "SHUTDOWN_ACK (8)",
        "SHUTDOWN_COMPLETE (14)",
        "ABORT (6)",
    ] {
        assert!(
            text.contains(&format!("Chunk type: {chunk}")),
            "{chunk} missing; see {where_}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
