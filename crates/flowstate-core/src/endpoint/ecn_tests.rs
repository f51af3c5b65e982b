//! Each controller's answer to ECN-CE marks, fed by hand (docs/ALGORITHMS.md, "ECN
//! responses"): TCP's ECE / CWR, SCTP's ECNE / CWR, SCReAM's BETA_ECN, NADA's marking
//! penalty, TFRC's loss event rate, RAP's back-off; GCC's feedback unchanged.
//! Test-only.

use super::data_source::SourceKind;
use super::media::{MediaReceiver, MediaReceiverConfig, RtpPacket};
use super::nada::{NadaSender, NadaSenderConfig};
use super::rap::{RapAck, RapReceiver, RapReceiverConfig, RapSender};
use super::rfc8888::{CcfbReceiver, CcfbReceiverConfig, CcfbReport};
use super::scream::{ScreamSender, ScreamSenderConfig};
use super::sctp::{
    DataChunk, Sack, SctpReceiver, SctpReceiverConfig, SctpSender, SctpSenderConfig,
};
use super::tcp::{
    Segment, TcpAck, TcpCcKind, TcpReceiver, TcpReceiverConfig, TcpSender, TcpSenderConfig,
    MAX_SACK_BLOCKS,
};
use super::tfrc::{TfrcData, TfrcReceiver, TfrcReceiverEndpointConfig};
use super::{Controller, Endpoint};
use crate::ecn::Ecn;
use crate::gcc::GccConfig;
use crate::nada::NadaConfig;
use crate::rate::rap::RapConfig;
use crate::scream::ScreamConfig;
use crate::source::{EncoderBounds, VideoSourceConfig};
use crate::testing::ms;
use crate::units::{DataSize, TimeDelta, Timestamp};
use crate::window::{NewRenoConfig, WindowController};

// ---------------------------------------------------------------- TCP (RFC 3168 6.1)

fn tcp_sender(ecn: Ecn) -> TcpSender {
    TcpSender::new(TcpSenderConfig {
        cc: TcpCcKind::NewReno(NewRenoConfig {
            smss: DataSize::bytes(1000),
            ..Default::default()
        }),
        source: SourceKind::Greedy {
            message_size: DataSize::bytes(1_000_000),
            buffer_limit: DataSize::bytes(1_000_000),
            total: Some(DataSize::bytes(1_000_000)),
        },
        ecn,
        ..Default::default()
    })
}

fn tcp_ack(a: u64, ece: bool) -> TcpAck {
    TcpAck {
        ack: a,
        rwnd: 1 << 20,
        sack: [None; MAX_SACK_BLOCKS],
        ece,
    }
}

/// Every segment the sender may send at `now`, with the codepoint of each.
fn tcp_drain(s: &mut TcpSender, now: Timestamp) -> Vec<(Segment, Ecn)> {
    std::iter::from_fn(|| s.poll_transmit(now).map(|t| (t.message, s.ecn_codepoint()))).collect()
}

#[test]
fn tcp_halves_once_per_window_on_ece_and_sets_cwr_rfc3168_6_1_2() {
    let mut s = tcp_sender(Ecn::Ect0);
    let first = tcp_drain(&mut s, ms(0));
    assert_eq!(first.len(), 10);
    assert!(first.iter().all(|(seg, e)| *e == Ecn::Ect0 && !seg.cwr));
    // The first ack echoes a mark: ssthresh = FlightSize / 2 (9 segments left in
    // flight after the ack), cwnd = ssthresh, nothing retransmitted.
    s.handle_input(ms(50), tcp_ack(1000, true));
    assert_eq!(s.congestion_control().ssthresh(), DataSize::bytes(4500));
    assert_eq!(s.cwnd(), DataSize::bytes(4500));
    assert_eq!(s.ecn_responses(), Some(1));
    assert!(!s.congestion_control().in_recovery());
    // Every ack of the window outstanding at the reduction echoes the mark too: one
    // reduction per window, not one per mark.
    let mut sent = Vec::new();
    for k in 2..=10u64 {
        s.handle_input(ms(50 + k), tcp_ack(k * 1000, true));
        sent.extend(tcp_drain(&mut s, ms(50 + k)));
    }
    assert_eq!(s.ecn_responses(), Some(1));
    assert_eq!(s.stats().bytes_retransmitted, 0);
    // CWR on the first new segment after the reduction only.
    assert_eq!(sent[0].0.seq, 10_000);
    assert!(sent[0].0.cwr);
    assert!(sent[1..].iter().all(|(seg, _)| !seg.cwr));
    // An ECE on an ack past the reduced window is a new signal.
    let cwnd = s.cwnd();
    s.handle_input(ms(100), tcp_ack(11_000, true));
    assert_eq!(s.ecn_responses(), Some(2));
    assert!(s.cwnd() < cwnd);
}

#[test]
fn tcp_without_ecn_ignores_ece_and_retransmissions_are_not_ect_rfc3168_6_1_5() {
    let mut s = tcp_sender(Ecn::NotEct);
    tcp_drain(&mut s, ms(0));
    let cwnd = s.cwnd();
    s.handle_input(ms(50), tcp_ack(1000, true));
    assert!(s.cwnd() > cwnd, "slow start goes on");
    assert_eq!(s.ecn_responses(), None);
    // ECN-capable: a retransmission goes out Not-ECT, new data ECT(1).
    let mut s = tcp_sender(Ecn::Ect1);
    tcp_drain(&mut s, ms(0));
    s.handle_timeout(ms(1000));
    let rtx = tcp_drain(&mut s, ms(1000));
    assert_eq!(
        rtx,
        vec![(
            Segment {
                seq: 0,
                len: 1000,
                cwr: false
            },
            Ecn::NotEct
        )]
    );
    s.handle_input(ms(1050), tcp_ack(10_000, false));
    let new = tcp_drain(&mut s, ms(1050));
    assert!(!new.is_empty() && new.iter().all(|(_, e)| *e == Ecn::Ect1));
}

#[test]
fn tcp_receiver_echoes_ece_until_cwr_rfc3168_6_1_3() {
    let mut r = TcpReceiver::new(TcpReceiverConfig {
        ack_every: 1,
        ..Default::default()
    });
    let seg = |k: u64, cwr: bool| Segment {
        seq: k * 1000,
        len: 1000,
        cwr,
    };
    let mut ece = Vec::new();
    for (k, cwr, ecn) in [
        (0, false, Ecn::Ect0),
        (1, false, Ecn::Ce),
        (2, false, Ecn::Ect0),
        (3, true, Ecn::Ect0),
        (4, false, Ecn::Ect0),
        (5, true, Ecn::Ce),
    ] {
        r.handle_input_ecn(ms(k), seg(k, cwr), ecn);
        ece.push(r.poll_transmit(ms(k)).expect("an ack").message.ece);
    }
    assert_eq!(ece, [false, true, true, false, false, true]);
    assert_eq!(r.stats().ce_marks, 2);
}

// ------------------------------------------------------ SCTP (RFC 9260 appendix A)

fn sctp_sender(ecn: Ecn) -> SctpSender {
    SctpSender::new(SctpSenderConfig {
        source: SourceKind::Greedy {
            message_size: DataSize::bytes(1 << 20),
            buffer_limit: DataSize::bytes(1 << 30),
            total: None,
        },
        ecn,
        ..Default::default()
    })
}

fn sack(cum: u64, ecne: Option<u64>) -> Sack {
    Sack {
        cum_tsn: cum,
        a_rwnd: 1 << 20,
        gap_blocks: Default::default(),
        dup_tsns: Default::default(),
        ecne,
    }
}

fn sctp_drain(s: &mut SctpSender, now: Timestamp) -> Vec<(DataChunk, DataSize)> {
    std::iter::from_fn(|| s.poll_transmit(now).map(|t| (t.message, t.size))).collect()
}

#[test]
fn sctp_reduces_once_per_round_trip_on_ecne_and_bundles_cwr_rfc9260_appendix_a() {
    let mut s = sctp_sender(Ecn::Ect0);
    let first = sctp_drain(&mut s, ms(0));
    assert_eq!(first.len(), 4);
    assert!(s.ecn_codepoint() == Ecn::Ect0);
    let cwnd = s.cwnd();
    // TSN 1 arrived CE: ssthresh = max(cwnd / 2, 4 MTU), cwnd = ssthresh.
    s.handle_input(ms(50), sack(1, Some(1)));
    let mtu = s.congestion_control().mtu();
    let want = (cwnd / 2).max(mtu * 4);
    assert_eq!(s.congestion_control().ssthresh(), want);
    assert_eq!(s.cwnd(), want);
    assert_eq!(s.ecn_responses(), Some(1));
    // The next DATA carries a CWR chunk naming TSN 1 (8 more bytes on the wire).
    s.handle_input(ms(51), sack(4, Some(1)));
    let next = sctp_drain(&mut s, ms(51));
    assert_eq!(next[0].0.cwr, Some(1));
    assert_eq!(next[0].1, DataSize::bytes(1208));
    assert!(next[1..].iter().all(|(c, _)| c.cwr.is_none()));
    // The receiver still echoes TSN 1, or a later mark on data sent before the
    // reduction (TSN 3): no second reduction, but a CWR naming it.
    let cwnd = s.cwnd();
    s.handle_input(ms(52), sack(4, Some(3)));
    assert_eq!((s.ecn_responses(), s.cwnd()), (Some(1), cwnd));
    let tsn = next.last().expect("sent").0.tsn;
    s.handle_input(ms(100), sack(tsn, None));
    let after = sctp_drain(&mut s, ms(100));
    assert_eq!(after[0].0.cwr, Some(3));
    // A mark on data sent after the reduction is a new signal.
    s.handle_input(ms(150), sack(tsn, Some(tsn)));
    assert_eq!(s.ecn_responses(), Some(2));
    assert_eq!(s.stats().packets_retransmitted, 0);
}

#[test]
fn sctp_without_ecn_ignores_ecne() {
    let mut s = sctp_sender(Ecn::NotEct);
    sctp_drain(&mut s, ms(0));
    let cwnd = s.cwnd();
    s.handle_input(ms(50), sack(1, Some(1)));
    assert!(s.cwnd() >= cwnd);
    assert_eq!(s.ecn_responses(), None);
    assert!(sctp_drain(&mut s, ms(50))
        .iter()
        .all(|(c, _)| c.cwr.is_none()));
}

#[test]
fn sctp_receiver_echoes_ecne_until_cwr_covers_it_rfc9260_appendix_a() {
    let mut r = SctpReceiver::new(SctpReceiverConfig {
        sack_every: 1,
        ..Default::default()
    });
    let chunk = |tsn: u64, cwr: Option<u64>| DataChunk {
        tsn,
        message_id: tsn,
        stream_offset: (tsn - 1) * 100,
        payload_len: 100,
        begin: true,
        end: true,
        immediate_ack: false,
        cwr,
    };
    let mut ecne = Vec::new();
    for (tsn, cwr, ecn) in [
        (1, None, Ecn::Ect0),
        (2, None, Ecn::Ce),
        (3, None, Ecn::Ce),
        (4, Some(1), Ecn::Ect0),
        (5, Some(2), Ecn::Ect0),
        (6, None, Ecn::Ect0),
        (7, Some(2), Ecn::Ce),
    ] {
        r.handle_input_ecn(ms(tsn), chunk(tsn, cwr), ecn);
        let s = r.poll_transmit(ms(tsn)).expect("a sack");
        ecne.push(s.message.ecne);
        // The ECNE chunk's 8 bytes are on the wire.
        let plain = Sack {
            ecne: None,
            ..s.message.clone()
        };
        let extra = s.size.as_bytes() - plain.wire_size(DataSize::ZERO).as_bytes();
        assert_eq!(extra, if s.message.ecne.is_some() { 8 } else { 0 });
    }
    // TSN 2's mark is echoed (the lowest pending) until a CWR names 2 or more; TSN 7
    // arrived CE with the CWR: a new echo.
    assert_eq!(ecne, [None, Some(2), Some(2), Some(2), None, None, Some(7)]);
    assert_eq!(r.stats().ce_marks, 3);
}

// ------------------------------------------------- RFC 8888 feedback (SCReAM, NADA)

fn rtp(seq: u64, sent: Timestamp) -> RtpPacket {
    RtpPacket {
        ssrc: 1,
        sequence_number: seq,
        transport_seq: seq,
        send_time: sent,
        payload_size: DataSize::bytes(952),
        frame_id: 0,
        frame_capture_time: Timestamp::ZERO,
        frame_packet_index: 0,
        frame_packet_count: 1,
        keyframe: false,
    }
}

fn ccfb_receiver() -> CcfbReceiver {
    CcfbReceiver::new(CcfbReceiverConfig {
        ssrc: 1,
        interval: TimeDelta::millis(20),
        rtp_overhead: DataSize::bytes(48),
        playout: crate::playout::PlayoutConfig::default(),
    })
}

/// The RFC 8888 report of the packets `sent` (sequence number, send time), each
/// arriving 20 ms after it was sent with the codepoint `ecn`.
fn ccfb_report(sent: &[(u64, Timestamp)], ecn: Ecn) -> CcfbReport {
    let mut r = ccfb_receiver();
    for &(seq, t) in sent {
        r.handle_input_ecn(t + TimeDelta::millis(20), rtp(seq, t), ecn);
    }
    let due = r.poll_timeout().expect("a report is due");
    r.handle_timeout(due);
    r.poll_transmit(due).expect("a report").message
}

#[test]
fn rfc8888_report_carries_the_ecn_bits_rfc8888_3_1() {
    let t0 = ms(0);
    let rep = ccfb_report(&[(0, t0), (1, t0)], Ecn::Ce);
    assert!(rep
        .packets
        .iter()
        .all(|p| p.is_some_and(|a| a.ecn == 0b11 && a.ce())));
    let rep = ccfb_report(&[(0, t0)], Ecn::Ect1);
    assert_eq!(rep.packets[0].map(|a| a.ecn), Some(0b01));
}

fn media_source() -> VideoSourceConfig {
    VideoSourceConfig::Perfect(EncoderBounds::paper000())
}

/// A SCReAM sender that sent for 300 ms, and what it sent.
fn scream_after_sending(ecn: Ecn) -> (ScreamSender, Vec<(u64, Timestamp)>) {
    let mut cfg = ScreamSenderConfig::new(ScreamConfig::default(), media_source());
    cfg.ecn = ecn;
    let mut s = ScreamSender::new(cfg, Timestamp::ZERO);
    let mut sent = Vec::new();
    for m in 0..300 {
        s.handle_timeout(ms(m));
        while let Some(t) = s.poll_transmit(ms(m)) {
            assert_eq!(s.ecn_codepoint(), ecn);
            sent.push((t.message.sequence_number, ms(m)));
        }
    }
    (s, sent)
}

#[test]
fn scream_scales_cwnd_by_beta_ecn_once_per_rtt_rfc8298_4_1_2() {
    let (mut plain, sent) = scream_after_sending(Ecn::Ect0);
    let (mut marked, _) = scream_after_sending(Ecn::Ect0);
    let before = marked.scream().cwnd();
    let now = ms(330);
    plain.handle_input(now, ccfb_report(&sent[..2], Ecn::Ect0));
    marked.handle_input(now, ccfb_report(&sent[..2], Ecn::Ce));
    let beta = ScreamConfig::default().beta_ecn;
    let want = (before.as_bytes() as f64 * beta) as u64;
    let got = marked.scream().cwnd().as_bytes();
    assert!(got.abs_diff(want) <= 1, "cwnd {got}, want {want}");
    assert!(plain.scream().cwnd() >= before);
    assert_eq!(marked.ecn_responses(), Some(1));
    // Another marked report within the RTT: no second reduction.
    marked.handle_input(ms(331), ccfb_report(&sent[2..4], Ecn::Ce));
    assert_eq!(marked.ecn_responses(), Some(1));
}

#[test]
fn nada_marking_penalty_raises_x_curr_by_dmark_rfc8698_4_2() {
    let nada_sender = || {
        let mut cfg = NadaSenderConfig::new(NadaConfig::default(), media_source());
        cfg.ecn = Ecn::Ect0;
        let mut s = NadaSender::new(cfg, Timestamp::ZERO);
        let mut sent = Vec::new();
        for m in 0..300 {
            s.handle_timeout(ms(m));
            while let Some(t) = s.poll_transmit(ms(m)) {
                sent.push((t.message.sequence_number, ms(m)));
            }
        }
        (s, sent)
    };
    let (mut plain, sent) = nada_sender();
    let (mut marked, _) = nada_sender();
    assert!(sent.len() >= 4, "{}", sent.len());
    let now = ms(350);
    plain.handle_input(now, ccfb_report(&sent, Ecn::Ect0));
    marked.handle_input(now, ccfb_report(&sent, Ecn::Ce));
    // Every packet marked: p_mark = ALPHA * 1 after the first report (section 5.1.2),
    // and x_curr gains DMARK * (p_mark / PMRREF)^2 (equation (1)).
    let cfg = NadaConfig::default();
    let p_mark = cfg.alpha;
    let penalty = cfg.d_mark.as_secs_f64() * (p_mark / cfg.pmr_ref).powi(2);
    let diff = marked.nada().congestion_signal().as_secs_f64()
        - plain.nada().congestion_signal().as_secs_f64();
    assert!(
        (diff - penalty).abs() < 1e-6,
        "x_curr gained {diff} s, want {penalty} s"
    );
    assert_eq!(marked.ecn_responses(), None, "a continuous response");
}

// ------------------------------------------------------------- RAP, TFRC, GCC

#[test]
fn rap_takes_a_marked_packet_as_a_loss_once_per_cluster() {
    let mut s = RapSender::new(RapConfig::default()).with_ecn(Ecn::Ect0);
    let mut r = RapReceiver::new(RapReceiverConfig::default());
    let mut now = ms(0);
    let mut sent = 0;
    while sent < 6 {
        if let Some(t) = s.poll_transmit(now) {
            assert_eq!(s.ecn_codepoint(), Ecn::Ect0);
            let ecn = if t.message.seq == 4 {
                Ecn::Ce
            } else {
                Ecn::Ect0
            };
            r.handle_input_ecn(now, t.message, ecn);
            sent += 1;
        }
        now = s
            .poll_timeout()
            .unwrap_or(now)
            .max(now + TimeDelta::from_micros(1));
    }
    let acks: Vec<RapAck> =
        std::iter::from_fn(|| r.poll_transmit(now).map(|t| t.message)).collect();
    assert_eq!(
        acks.iter()
            .filter(|a| a.ce)
            .map(|a| a.seq)
            .collect::<Vec<_>>(),
        [4]
    );
    let rate = s.rate();
    for a in acks {
        s.handle_input(now, a);
    }
    assert!(
        (s.rate().as_bps() - rate.as_bps() * 0.5).abs() < 1.0,
        "{:?} -> {:?}",
        rate,
        s.rate()
    );
    assert_eq!(s.ecn_responses(), Some(1));
    assert_eq!(s.packets_lost(), 0, "a marked packet arrived");
}

#[test]
fn tfrc_counts_marked_packets_in_the_loss_event_rate_rfc5348_5_1() {
    let rate_with = |marks: &[u64]| {
        let mut r = TfrcReceiver::new(TfrcReceiverEndpointConfig::default());
        for seq in 0..200u64 {
            let now = ms(seq * 10);
            let d = TfrcData {
                seq,
                timestamp: now,
                rtt: Some(TimeDelta::millis(100)),
                size: DataSize::bytes(1000),
            };
            let ecn = if marks.contains(&seq) {
                Ecn::Ce
            } else {
                Ecn::Ect0
            };
            r.handle_input_ecn(now, d, ecn);
        }
        (
            r.loss_event_rate(),
            r.state().marked_events(),
            r.state().history().lost_packets(),
        )
    };
    assert_eq!(rate_with(&[]), (0.0, 0, 0));
    // Marks 1 s apart (10 RTTs): three loss events, no loss.
    let (p, events, lost) = rate_with(&[50, 100, 150]);
    assert_eq!((events, lost), (3, 0));
    assert!(p > 0.0 && p < 0.05, "p = {p}");
    // Two marks within one RTT are one loss event (RFC 5348, 5.2).
    assert_eq!(rate_with(&[50, 55]).1, 1);
}

#[test]
fn gcc_feedback_ignores_the_marks_and_the_receiver_counts_them() {
    let feedback = |ecn: Ecn| {
        let cfg = MediaReceiverConfig::new(GccConfig::default());
        let mut r = MediaReceiver::new(cfg);
        let mut out = Vec::new();
        for k in 0..100u64 {
            let now = ms(k * 5);
            r.handle_input_ecn(now + TimeDelta::millis(20), rtp(k, now), ecn);
            let t = now + TimeDelta::millis(20);
            if r.poll_timeout().is_some_and(|d| d <= t) {
                r.handle_timeout(t);
            }
            while let Some(f) = r.poll_transmit(t) {
                out.push(format!("{:?}", f.message));
            }
        }
        (out, r.ce_marks())
    };
    let (plain, none) = feedback(Ecn::Ect1);
    let (marked, marks) = feedback(Ecn::Ce);
    assert!(!plain.is_empty());
    assert_eq!(plain, marked, "GCC's feedback carries no ECN");
    assert_eq!((none, marks), (0, 100));
}
