//! Parse and emit cost per message kind.
//! `cargo bench -p flowstate-wire --bench wire -- --warm-up-time 1 --measurement-time 3`

use criterion::{criterion_group, criterion_main, Criterion};
use flowstate_wire::rtcp::{
    Compound, PacketStatus, ReceiverReport, Remb, RembBitrate, ReportBlock, RtcpPacket,
    TransportFeedback,
};
use flowstate_wire::rtp::RtpPacket;
use flowstate_wire::sctp::{Chunk, DataChunk, InitAckChunk, InitChunk, SackChunk, SctpPacket, Tlv};
use std::hint::black_box;

fn rtp() -> RtpPacket {
    let mut p = RtpPacket::new(96, 1, 2, 3);
    p.set_transport_cc_seq(3, 4).unwrap();
    p.payload = vec![0xAB; 1200];
    p
}

fn rr() -> RtcpPacket {
    RtcpPacket::ReceiverReport(ReceiverReport {
        sender_ssrc: 1,
        reports: vec![ReportBlock {
            ssrc: 2,
            fraction_lost: 3,
            cumulative_lost: 4,
            extended_highest_seq: 5,
            jitter: 6,
            last_sr: 7,
            delay_since_last_sr: 8,
        }],
        profile_extension: vec![],
    })
}

fn remb() -> RtcpPacket {
    RtcpPacket::Remb(Remb {
        sender_ssrc: 1,
        media_ssrc: 0,
        bitrate: RembBitrate::from_bps(1_200_000),
        ssrcs: vec![2],
    })
}

/// 100 packets: mostly received with small deltas, a few losses and one
/// large delta (a typical 100 ms feedback interval at 1000 packets/s).
fn twcc() -> RtcpPacket {
    let packets = (0..100)
        .map(|i| match i % 25 {
            7 => PacketStatus::NotReceived,
            13 => PacketStatus::LargeDelta(-20),
            _ => PacketStatus::SmallDelta(4),
        })
        .collect();
    RtcpPacket::TransportFeedback(TransportFeedback {
        sender_ssrc: 1,
        media_ssrc: 2,
        base_seq: 3,
        reference_time: 4,
        fb_pkt_count: 5,
        packets,
    })
}

/// An SCTP packet of one chunk, ports 5000, verification tag 1.
fn sctp(chunk: Chunk) -> SctpPacket {
    SctpPacket {
        src_port: 5000,
        dst_port: 5000,
        verification_tag: 1,
        chunks: vec![chunk],
    }
}

fn sctp_data() -> SctpPacket {
    sctp(Chunk::Data(DataChunk {
        immediate: false,
        unordered: false,
        beginning: true,
        ending: true,
        tsn: 1,
        stream_id: 2,
        ssn: 3,
        ppid: 53,
        payload: vec![0xCD; 1200],
    }))
}

fn sctp_sack() -> SctpPacket {
    sctp(Chunk::Sack(SackChunk {
        cum_tsn_ack: 100,
        a_rwnd: 1 << 20,
        gap_blocks: vec![(2, 5), (8, 9)],
        dup_tsns: vec![],
    }))
}

fn sctp_init_ack() -> SctpPacket {
    sctp(Chunk::InitAck(InitAckChunk {
        init: InitChunk {
            initiate_tag: 1,
            a_rwnd: 1 << 20,
            outbound_streams: 1024,
            inbound_streams: 1024,
            initial_tsn: 1,
            params: vec![Tlv {
                typ: 0xC000,
                value: vec![],
            }],
        },
        cookie: vec![0x5A; 64],
    }))
}

macro_rules! bench_kind {
    ($c:expr, $name:expr, $repr:expr, $ty:ty) => {{
        let repr = $repr;
        let bytes = repr.to_vec().unwrap();
        let mut buf = vec![0u8; repr.buffer_len()];
        $c.bench_function(concat!($name, "/parse"), |b| {
            b.iter(|| <$ty>::parse(black_box(&bytes)).unwrap())
        });
        $c.bench_function(concat!($name, "/emit"), |b| {
            b.iter(|| black_box(&repr).emit(black_box(&mut buf)).unwrap())
        });
    }};
}

fn benches(c: &mut Criterion) {
    bench_kind!(c, "rtp_1200B_twcc_ext", rtp(), RtpPacket);
    bench_kind!(c, "rtcp_rr_1_block", rr(), RtcpPacket);
    bench_kind!(c, "rtcp_remb", remb(), RtcpPacket);
    bench_kind!(c, "rtcp_twcc_100_pkts", twcc(), RtcpPacket);
    bench_kind!(
        c,
        "rtcp_compound_rr_remb_twcc",
        Compound {
            packets: vec![rr(), remb(), twcc()]
        },
        Compound
    );
    bench_kind!(c, "sctp_data_1200B", sctp_data(), SctpPacket);
    bench_kind!(c, "sctp_sack_2_gaps", sctp_sack(), SctpPacket);
    bench_kind!(c, "sctp_init_ack_64B_cookie", sctp_init_ack(), SctpPacket);
}

criterion_group!(wire, benches);
criterion_main!(wire);
