use super::*;
use crate::endpoint::data_source::SourceKind;
use crate::endpoint::sctp::DupTsns;
use crate::units::TimeDelta;
use crate::window::SctpCcConfig;

fn t(ms: u64) -> Timestamp {
    Timestamp::from_millis(ms)
}

/// A greedy application writing `message`-byte messages, `total` bytes in all
/// (`None`: no end), with a 1 GiB buffer.
fn greedy(message: u64, total: Option<u64>) -> SourceKind {
    SourceKind::Greedy {
        message_size: DataSize::bytes(message),
        buffer_limit: DataSize::bytes(1 << 30),
        total: total.map(DataSize::bytes),
    }
}

/// SCTP congestion control starting at `cwnd` bytes.
fn initial_cwnd(cwnd: u64) -> SctpCcConfig {
    SctpCcConfig {
        initial_cwnd: Some(DataSize::bytes(cwnd)),
        ..Default::default()
    }
}

fn sender(total: u64) -> SctpSender {
    SctpSender::new(SctpSenderConfig {
        source: greedy(total, Some(total)),
        ..Default::default()
    })
}

fn drain(s: &mut SctpSender, now: Timestamp) -> Vec<DataChunk> {
    std::iter::from_fn(|| s.poll_transmit(now).map(|t| t.message)).collect()
}

fn sack(cum: u64, gaps: Vec<(u32, u32)>) -> Sack {
    Sack {
        cum_tsn: cum,
        a_rwnd: 1 << 20,
        gap_blocks: gaps.into(),
        dup_tsns: DupTsns::new(),
        ecne: None,
    }
}

#[test]
fn data_packet_is_mtu_sized() {
    // 1200 - 12 - 16 = 1172 payload bytes per chunk.
    let mut s = sender(100_000);
    let first = s.poll_transmit(t(0)).expect("data");
    assert_eq!(first.size, DataSize::bytes(1200));
    assert_eq!(first.message.payload_len, 1172);
    assert!(first.message.begin && !first.message.end);
}

#[test]
fn initial_window_limits_first_flight_rfc9260_7_2_1() {
    // cwnd 4380: packets go out while flight < cwnd: 0, 1200, 2400, 3600 -> 4 packets.
    let mut s = sender(100_000);
    assert_eq!(drain(&mut s, t(0)).len(), 4);
    assert_eq!(s.bytes_in_flight(), DataSize::bytes(4800));
}

#[test]
fn max_burst_limits_packets_per_opportunity_rfc9260_6_1() {
    let mut s = SctpSender::new(SctpSenderConfig {
        cc: initial_cwnd(100_000),
        source: greedy(100_000, None),
        ..Default::default()
    });
    assert_eq!(drain(&mut s, t(0)).len(), 4);
    assert_eq!(drain(&mut s, t(1)).len(), 4);
}

#[test]
fn fast_retransmit_after_three_miss_indications_rfc9260_7_2_4() {
    let mut s = SctpSender::new(SctpSenderConfig {
        cc: initial_cwnd(12_000),
        max_burst: 100,
        source: greedy(50_000, Some(50_000)),
        ..Default::default()
    });
    let sent = drain(&mut s, t(0));
    assert_eq!(sent.len(), 10);
    // TSN 1 lost; SACKs report 2, 2-3, 2-4 received.
    for (i, end) in [1u32, 2, 3].iter().enumerate() {
        s.handle_input(t(50 + i as u64), sack(0, vec![(2, 1 + end)]));
        if i < 2 {
            assert_eq!(s.stats().fast_retransmits, 0);
        }
    }
    assert_eq!(s.stats().fast_retransmits, 1);
    // ssthresh = max(12000/2, 4800) = 6000 = cwnd.
    assert_eq!(s.cwnd(), DataSize::bytes(6000));
    // The retransmission goes out first, regardless of cwnd.
    let next = s.poll_transmit(t(60)).expect("retransmission");
    assert_eq!(next.message.tsn, 1);
    assert_eq!(s.stats().packets_retransmitted, 1);
}

/// TSN 1 lost, fast-retransmitted, and its retransmission lost too: three more SACKs
/// that newly ack higher TSNs. dcSCTP declares the retransmission lost again and
/// sends it a third time (`renack_retransmissions`); without the rule it stays in
/// the flight for the T3-rtx timer.
fn lost_retransmission(renack: bool) -> (SctpSender, Option<DataChunk>) {
    let mut s = SctpSender::new(SctpSenderConfig {
        cc: initial_cwnd(12_000),
        max_burst: 100,
        source: greedy(50_000, Some(50_000)),
        renack_retransmissions: renack,
        ..Default::default()
    });
    assert_eq!(drain(&mut s, t(0)).len(), 10);
    for end in [1u32, 2, 3] {
        s.handle_input(t(50), sack(0, vec![(2, 1 + end)]));
    }
    let rtx = s.poll_transmit(t(60)).expect("fast retransmission");
    assert_eq!(rtx.message.tsn, 1);
    let flight = s.bytes_in_flight();
    for end in [4u32, 5, 6] {
        s.handle_input(t(70), sack(0, vec![(2, 1 + end)]));
    }
    // Three chunks newly acked: the flight fell by them, and by the retransmission
    // only when it was declared lost again.
    let lost_again = flight - s.bytes_in_flight() > DataSize::bytes(3 * 1200);
    assert_eq!(lost_again, renack);
    let next =
        std::iter::from_fn(|| s.poll_transmit(t(80)).map(|t| t.message)).find(|c| c.tsn == 1);
    (s, next)
}

#[test]
fn lost_retransmission_is_declared_lost_again_with_dcsctp_rule() {
    assert!(
        SctpSenderConfig::dcsctp().renack_retransmissions,
        "dcsctp preset"
    );
    assert!(
        !SctpSenderConfig::default().renack_retransmissions,
        "usrsctp model"
    );
    let (s, again) = lost_retransmission(true);
    assert_eq!(again.map(|c| c.tsn), Some(1), "third transmission of TSN 1");
    assert_eq!(s.stats().packets_retransmitted, 2);
    // One fast-recovery episode: cwnd halved once.
    assert_eq!(s.stats().fast_retransmits, 1);
    assert_eq!(s.cwnd(), DataSize::bytes(6000));
}

#[test]
fn lost_retransmission_waits_for_t3_without_dcsctp_rule() {
    let (s, again) = lost_retransmission(false);
    assert_eq!(again, None);
    assert_eq!(s.stats().packets_retransmitted, 1);
}

#[test]
fn t3_expiry_retransmits_earliest_and_backs_off_rfc9260_6_3_3() {
    let mut s = sender(100_000);
    drain(&mut s, t(0));
    // WebRTC preset: RTO.Initial 500 ms.
    assert_eq!(s.poll_timeout(), Some(t(500)));
    s.handle_timeout(t(500));
    assert_eq!(s.cwnd(), DataSize::bytes(1200));
    assert_eq!(s.rtt_estimator().rto(), TimeDelta::millis(1000));
    let out = drain(&mut s, t(500));
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].tsn, 1);
    assert_eq!(s.poll_timeout(), Some(t(1500)));
}

#[test]
fn sack_stops_timer_and_samples_rtt_rfc9260_6_3() {
    let mut s = sender(2000);
    let out = drain(&mut s, t(0));
    assert_eq!(out.len(), 2);
    s.handle_input(t(80), sack(2, vec![]));
    assert!(s.is_idle());
    assert_eq!(s.poll_timeout(), None);
    assert_eq!(s.rtt_estimator().latest(), Some(TimeDelta::millis(80)));
    assert_eq!(s.stats().bytes_delivered, 2000);
}

#[test]
fn stale_and_invalid_sacks_are_ignored() {
    let mut s = sender(100_000);
    drain(&mut s, t(0));
    s.handle_input(t(10), sack(2, vec![]));
    let cwnd = s.cwnd();
    s.handle_input(t(11), sack(1, vec![(1, 100)]));
    s.handle_input(t(12), sack(1000, vec![]));
    s.handle_input(t(13), sack(2, vec![(0, 0), (5, 2), (u32::MAX, u32::MAX)]));
    assert_eq!(s.cwnd(), cwnd);
    assert_eq!(s.stats().sacks_received, 2);
}

#[test]
fn reports_every_cwnd_change_with_rtt() {
    let mut s = sender(100_000);
    drain(&mut s, t(0));
    assert_eq!(s.poll_cc_report(), None);
    s.handle_input(t(100), sack(2, vec![]));
    match s.poll_cc_report() {
        Some(FlowReport::Window {
            cwnd,
            rtt,
            desired_cwnd,
            ..
        }) => {
            assert_eq!(cwnd, DataSize::bytes(4380 + 1200));
            assert_eq!(rtt, Some(TimeDelta::millis(100)));
            assert_eq!(desired_cwnd, None);
        }
        other => panic!("expected a window report, got {other:?}"),
    }
}

#[test]
fn allowances_cap_and_set_cwnd() {
    let mut s = sender(100_000);
    s.apply_allowance(t(0), Allowance::MaxWindow(Some(DataSize::bytes(2400))));
    assert_eq!(s.cwnd(), DataSize::bytes(2400));
    assert_eq!(drain(&mut s, t(0)).len(), 2);
    s.apply_allowance(t(1), Allowance::MaxWindow(None));
    s.apply_allowance(
        t(1),
        Allowance::Window {
            cwnd: DataSize::ZERO,
            ssthresh: None,
        },
    );
    assert_eq!(s.cwnd(), DataSize::bytes(1200));
}

fn reported_cwnds(s: &mut SctpSender) -> Vec<u64> {
    std::iter::from_fn(|| s.poll_cc_report())
        .map(|r| match r {
            FlowReport::Window { cwnd, .. } => cwnd.as_bytes(),
            other => panic!("expected a window report, got {other:?}"),
        })
        .collect()
}

/// Two SACKs of two packets each in slow start under a 4 800 B cap.
fn capped_growth(report_cwnd_before_cap: bool) -> (Vec<u64>, Vec<u64>, DataSize) {
    let mut s = SctpSender::new(SctpSenderConfig {
        report_cwnd_before_cap,
        ..sender(100_000).config().clone()
    });
    s.apply_allowance(t(0), Allowance::MaxWindow(Some(DataSize::bytes(4800))));
    reported_cwnds(&mut s);
    assert_eq!(drain(&mut s, t(0)).len(), 4);
    s.handle_input(t(100), sack(2, vec![]));
    let first = reported_cwnds(&mut s);
    assert_eq!(drain(&mut s, t(100)).len(), 2);
    s.handle_input(t(200), sack(4, vec![]));
    let second = reported_cwnds(&mut s);
    (first, second, s.cwnd())
}

#[test]
fn reports_the_grown_cwnd_before_the_cap_clips_it() {
    // usrsctp with paper 000's patch: cwnd += min(acked, MTU), the callback sees it,
    // then max_cwnd clips it. 4 380 + 1 200 = 5 580; then 4 800 + 1 200 = 6 000.
    let (first, second, cwnd) = capped_growth(true);
    assert_eq!(first, vec![5580]);
    assert_eq!(second, vec![6000]);
    assert_eq!(cwnd, DataSize::bytes(4800), "the cap still binds");
    // Off: only the clipped value, and nothing once cwnd sits at the cap.
    let (first, second, cwnd) = capped_growth(false);
    assert_eq!(first, vec![4800]);
    assert_eq!(second, Vec::<u64>::new());
    assert_eq!(cwnd, DataSize::bytes(4800));
}

#[test]
fn app_limited_sender_reports_desired_cwnd() {
    // Exactly 4 full chunks: the first flight (4800 >= cwnd 4380) sends everything.
    let mut s = sender(4 * 1172);
    assert_eq!(drain(&mut s, t(0)).len(), 4);
    s.handle_input(t(50), sack(2, vec![]));
    match s.poll_cc_report() {
        Some(FlowReport::Window {
            cwnd, desired_cwnd, ..
        }) => {
            assert_eq!(cwnd, DataSize::bytes(5580));
            // Nothing left to send: desired = the flight in use, 2 packets.
            assert_eq!(desired_cwnd, Some(DataSize::bytes(2400)));
        }
        other => panic!("expected a window report, got {other:?}"),
    }
}

/// dcSCTP never lets a packet take the flight past cwnd: the last new chunk is cut to
/// the room left, and a retransmission that does not fit whole waits; RFC 9260 6.1 B
/// (the default) sends a full packet while flight < cwnd.
#[test]
fn cwnd_sized_packets_never_pass_cwnd() {
    let send = |sized: bool| {
        let mut s = SctpSender::new(SctpSenderConfig {
            cc: initial_cwnd(5000),
            max_burst: 100,
            source: greedy(100_000, None),
            cwnd_sized_packets: sized,
            ..Default::default()
        });
        let sizes: Vec<u32> = drain(&mut s, t(0)).iter().map(|c| c.payload_len).collect();
        (sizes, s.bytes_in_flight())
    };
    // 1200-byte packets (1172 payload): 4 full ones are 4800, 200 bytes are left:
    // a 172-byte chunk (200 - 28 bytes of headers) fills cwnd exactly.
    assert_eq!(
        send(true),
        (vec![1172, 1172, 1172, 1172, 172], DataSize::bytes(5000))
    );
    // RFC 9260 6.1 B: a fifth full packet while flight (4800) < cwnd (5000).
    assert_eq!(send(false), (vec![1172; 5], DataSize::bytes(6000)));

    // A retransmission waits for room: cwnd 12600, eleven packets out, TSNs 1 and 2
    // lost; TSN 1 goes at once (fast retransmission), cwnd halves to 6300; once less
    // than a packet is left under cwnd, TSN 2 (1200 bytes) waits with the rule.
    let second_rtx = |sized: bool| {
        let mut s = SctpSender::new(SctpSenderConfig {
            cc: initial_cwnd(12_600),
            max_burst: 100,
            source: greedy(100_000, None),
            cwnd_sized_packets: sized,
            ..Default::default()
        });
        assert_eq!(drain(&mut s, t(0)).len(), 11);
        for end in [3u32, 4, 5] {
            s.handle_input(t(50), sack(0, vec![(3, end)]));
        }
        assert_eq!(s.poll_transmit(t(60)).map(|x| x.message.tsn), Some(1));
        for end in [6u32, 7] {
            s.handle_input(t(70), sack(0, vec![(3, end)]));
        }
        // Room under cwnd, but less than a whole packet (6300 - 6000, or 6300 - 5400
        // with the rule: its eleventh packet was a 600-byte one).
        let room = s.cwnd().as_bytes() as i64 - s.bytes_in_flight().as_bytes() as i64;
        assert!(room > 0 && room < 1200, "{room}");
        s.poll_transmit(t(80)).map(|x| x.message.tsn)
    };
    assert_eq!(second_rtx(true), None);
    assert_eq!(second_rtx(false), Some(2));
}

/// dcSCTP sets the I bit while cwnd < 10 MTUs: not at its initial 10 MTUs, yes
/// after a T3-rtx expiry (1 MTU); never with the rule off; the one fast
/// retransmission that ignores cwnd goes without it.
#[test]
fn dcsctp_sets_the_i_bit_under_ten_mtus() {
    let run = |under: u64| {
        let mut s = SctpSender::new(SctpSenderConfig {
            source: greedy(100_000, None),
            immediate_sack_under_cwnd_mtus: under,
            ..SctpSenderConfig::dcsctp()
        });
        let first = drain(&mut s, t(0));
        let before = first.iter().any(|c| c.immediate_ack);
        let rto = s.poll_timeout().expect("T3 armed");
        s.handle_timeout(rto);
        let after: Vec<bool> = drain(&mut s, rto).iter().map(|c| c.immediate_ack).collect();
        (before, after)
    };
    // After the expiry cwnd is 1 MTU (a chunk may still go while flight < cwnd).
    let (before, after) = run(10);
    assert!(
        !before && !after.is_empty() && after.iter().all(|&i| i),
        "{after:?}"
    );
    let (before, after) = run(0);
    assert!(
        !before && !after.is_empty() && after.iter().all(|&i| !i),
        "{after:?}"
    );
    let mut s = SctpSender::new(SctpSenderConfig {
        cc: initial_cwnd(12_000),
        max_burst: 100,
        source: greedy(50_000, Some(50_000)),
        immediate_sack_under_cwnd_mtus: 100,
        ..Default::default()
    });
    assert!(drain(&mut s, t(0)).iter().all(|c| c.immediate_ack));
    for end in [1u32, 2, 3] {
        s.handle_input(t(50), sack(0, vec![(2, 1 + end)]));
    }
    let rtx = s.poll_transmit(t(60)).expect("fast retransmission").message;
    assert_eq!((rtx.tsn, rtx.immediate_ack), (1, false));
}
