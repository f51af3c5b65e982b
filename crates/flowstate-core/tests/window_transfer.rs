//! In-memory two-endpoint transfers across a small seeded lossy link (the shared test
//! bottleneck, `flowstate_core::testing`): every byte must arrive exactly once and in
//! order, for SCTP and for TCP (NewReno and CUBIC).

use flowstate_core::endpoint::data_source::SourceKind;
use flowstate_core::endpoint::sctp::{
    SctpReceiver, SctpReceiverConfig, SctpSender, SctpSenderConfig,
};
use flowstate_core::endpoint::Controller;
use flowstate_core::endpoint::Endpoint;
use flowstate_core::testing::link::{Impairments, TestLink};
use flowstate_core::units::{Bitrate, DataSize, TimeDelta, Timestamp};

/// Link impairments.
#[derive(Debug, Clone, Copy)]
struct LinkConfig {
    rate: Bitrate,
    delay: TimeDelta,
    queue: DataSize,
    loss: f64,
    /// Probability that a packet is held back by up to `reorder_delay`.
    reorder: f64,
    reorder_delay: TimeDelta,
    duplicate: f64,
}

impl LinkConfig {
    /// 2 % loss, 5 % reordering, 2 % duplication.
    fn lossy() -> Self {
        LinkConfig {
            loss: 0.02,
            reorder: 0.05,
            duplicate: 0.02,
            ..LinkConfig::clean()
        }
    }

    fn losing(loss: f64) -> Self {
        LinkConfig {
            loss,
            ..LinkConfig::clean()
        }
    }

    fn clean() -> Self {
        LinkConfig {
            rate: Bitrate::mbps(4.0),
            delay: TimeDelta::millis(20),
            queue: DataSize::bytes(60_000),
            loss: 0.0,
            reorder: 0.0,
            reorder_delay: TimeDelta::millis(10),
            duplicate: 0.0,
        }
    }
}

/// One direction of the link: the shared test bottleneck with `cfg`'s impairments.
fn pipe<M: Clone>(cfg: LinkConfig, seed: u64) -> TestLink<M> {
    let impairments = Impairments {
        loss: cfg.loss,
        reorder: cfg.reorder,
        reorder_delay: cfg.reorder_delay,
        duplicate: cfg.duplicate,
    };
    TestLink::new(cfg.rate, cfg.delay, cfg.queue).impaired(impairments, seed)
}

/// A sender that can say its transfer is over, and a receiver that counts what it
/// delivered, for [`transfer`].
trait Transfer {
    fn idle(&self) -> bool;
}
trait Delivered {
    fn delivered(&self) -> u64;
}
impl Transfer for SctpSender {
    fn idle(&self) -> bool {
        self.is_idle()
    }
}
impl Transfer for TcpSender {
    fn idle(&self) -> bool {
        self.is_idle()
    }
}
impl Delivered for SctpReceiver {
    fn delivered(&self) -> u64 {
        self.bytes_delivered().as_bytes()
    }
}
impl Delivered for TcpReceiver {
    fn delivered(&self) -> u64 {
        self.bytes_delivered().as_bytes()
    }
}

/// Drive sender `a` and receiver `b` until `a` is idle with all `total` bytes
/// delivered, or `end_s` seconds. Returns the end time.
fn transfer<A, B>(
    a: &mut A,
    b: &mut B,
    link: LinkConfig,
    seed: u64,
    end_s: u64,
    total: u64,
) -> Timestamp
where
    A: Endpoint + Transfer,
    B: Endpoint<Incoming = A::Outgoing, Outgoing = A::Incoming> + Delivered,
    A::Outgoing: Clone,
    A::Incoming: Clone,
{
    let end = Timestamp::from_secs(end_s);
    run(a, b, link, seed, end, |a, b| {
        a.idle() && b.delivered() == total
    })
}

/// Drive sender `a` and receiver `b` until `done(a, b)` or `end`. Returns the end time.
fn run<A, B>(
    a: &mut A,
    b: &mut B,
    link: LinkConfig,
    seed: u64,
    end: Timestamp,
    mut done: impl FnMut(&A, &B) -> bool,
) -> Timestamp
where
    A: Endpoint,
    B: Endpoint<Incoming = A::Outgoing, Outgoing = A::Incoming>,
    A::Outgoing: Clone,
    A::Incoming: Clone,
{
    let mut fwd: TestLink<A::Outgoing> = pipe(link, seed);
    // The ack path is clean apart from the delay (and not rate-limited beyond 100 Mbit/s).
    let ack_link = LinkConfig {
        rate: Bitrate::mbps(100.0),
        queue: DataSize::bytes(1 << 30),
        ..LinkConfig::clean()
    };
    let mut rev: TestLink<A::Incoming> = pipe(ack_link, seed ^ 0xABCD);
    let mut now = Timestamp::ZERO;
    for _ in 0..5_000_000u64 {
        while let Some(t) = a.poll_transmit(now) {
            fwd.send(now, t.size, t.message);
        }
        while let Some(t) = b.poll_transmit(now) {
            rev.send(now, t.size, t.message);
        }
        if done(a, b) {
            return now;
        }
        let next = [
            fwd.next_arrival(),
            rev.next_arrival(),
            a.poll_timeout(),
            b.poll_timeout(),
        ]
        .into_iter()
        .flatten()
        .min();
        let Some(next) = next else { return now };
        if next > end {
            return now;
        }
        now = now.max(next);
        while let Some((_, m)) = fwd.poll(now) {
            b.handle_input(now, m);
        }
        while let Some((_, m)) = rev.poll(now) {
            a.handle_input(now, m);
        }
        if a.poll_timeout().is_some_and(|t| t <= now) {
            a.handle_timeout(now);
        }
        if b.poll_timeout().is_some_and(|t| t <= now) {
            b.handle_timeout(now);
        }
    }
    panic!("event loop did not terminate");
}

fn sctp_pair(total: u64, message: u64) -> (SctpSender, SctpReceiver) {
    let sender = SctpSender::new(SctpSenderConfig {
        source: SourceKind::Greedy {
            message_size: DataSize::bytes(message),
            buffer_limit: DataSize::bytes(1_677_722),
            total: Some(DataSize::bytes(total)),
        },
        ..Default::default()
    });
    let receiver = SctpReceiver::new(SctpReceiverConfig {
        keep_delivery_log: true,
        ..Default::default()
    });
    (sender, receiver)
}

fn check_sctp_delivery(rx: &mut SctpReceiver, total: u64, message: u64) {
    let stats = rx.stats();
    assert_eq!(stats.order_errors, 0);
    assert_eq!(
        stats.bytes_delivered, total,
        "every byte delivered exactly once"
    );
    let mut expected_id = 0;
    let mut expected_offset = 0;
    while let Some(m) = rx.poll_delivered() {
        assert_eq!(m.message_id, expected_id, "messages in order");
        assert_eq!(m.first_offset, expected_offset, "bytes contiguous");
        assert_eq!(m.size, message.min(total - expected_offset));
        expected_id += 1;
        expected_offset += m.size;
    }
    assert_eq!(expected_offset, total);
    assert_eq!(expected_id, total.div_ceil(message));
}

#[test]
fn sctp_clean_link_uses_capacity() {
    let total = 2_000_000;
    let (mut tx, mut rx) = sctp_pair(total, 65_536);
    let end = transfer(&mut tx, &mut rx, LinkConfig::clean(), 1, 60, total);
    check_sctp_delivery(&mut rx, total, 65_536);
    // 2 MB (plus 2.4 % headers) at 4 Mbit/s takes 4.1 s; slow start and the drop-tail
    // losses of the first overshoot must cost less than 1.5 s.
    assert!(end < Timestamp::from_millis(5_600), "took {end}");
    assert_eq!(tx.stats().bytes_delivered, total);
}

#[test]
fn sctp_lossy_reordering_duplicating_link_delivers_exactly_once_in_order() {
    for seed in [3u64, 17, 99] {
        let total = 1_000_000;
        let (mut tx, mut rx) = sctp_pair(total, 100_000);
        let link = LinkConfig::lossy();
        transfer(&mut tx, &mut rx, link, seed, 600, total);
        assert!(
            rx.stats().duplicate_chunks > 0,
            "seed {seed}: duplication exercised"
        );
        assert!(
            tx.stats().bytes_retransmitted > 0,
            "seed {seed}: loss exercised"
        );
        check_sctp_delivery(&mut rx, total, 100_000);
        assert!(tx.is_idle());
    }
}

#[test]
fn sctp_five_percent_loss_delivers_everything() {
    let total = 500_000;
    let (mut tx, mut rx) = sctp_pair(total, 256 * 1024);
    let link = LinkConfig::losing(0.05);
    transfer(&mut tx, &mut rx, link, 5, 900, total);
    check_sctp_delivery(&mut rx, total, 256 * 1024);
    let s = tx.stats();
    assert!(s.fast_retransmits > 0);
    assert!(s.bytes_retransmitted > 0);
}

use flowstate_core::endpoint::tcp::{
    TcpCcKind, TcpReceiver, TcpReceiverConfig, TcpSender, TcpSenderConfig,
};
use flowstate_core::window::{CubicConfig, NewRenoConfig};

fn tcp_pair(total: u64, cc: TcpCcKind) -> (TcpSender, TcpReceiver) {
    let sender = TcpSender::new(TcpSenderConfig {
        cc,
        source: SourceKind::Greedy {
            message_size: DataSize::kibibytes(64),
            buffer_limit: DataSize::kibibytes(256),
            total: Some(DataSize::bytes(total)),
        },
        ..Default::default()
    });
    (sender, TcpReceiver::new(TcpReceiverConfig::default()))
}

fn tcp_kinds() -> [TcpCcKind; 2] {
    [
        TcpCcKind::NewReno(NewRenoConfig::default()),
        TcpCcKind::Cubic(CubicConfig::default()),
    ]
}

#[test]
fn tcp_clean_link_uses_capacity() {
    for cc in tcp_kinds() {
        let total = 2_000_000;
        let (mut tx, mut rx) = tcp_pair(total, cc);
        let end = transfer(&mut tx, &mut rx, LinkConfig::clean(), 1, 60, total);
        assert_eq!(rx.bytes_delivered().as_bytes(), total);
        // 2 MB + 2.7 % headers at 4 Mbit/s = 4.1 s. Without SACK, the holes a slow-start
        // overshoot tears into a drop-tail queue cost up to one RTO (1 s, Impatient
        // NewReno recovery) plus go-back-N.
        assert!(end < Timestamp::from_millis(7_000), "{cc:?} took {end}");
    }
}

#[test]
fn tcp_lossy_reordering_duplicating_link_delivers_exactly_once_in_order() {
    for cc in tcp_kinds() {
        for seed in [3u64, 17, 99] {
            let total = 1_000_000;
            let (mut tx, mut rx) = tcp_pair(total, cc);
            let link = LinkConfig::lossy();
            transfer(&mut tx, &mut rx, link, seed, 900, total);
            // The receiver counts each in-order byte once; the sender saw all of it acked.
            assert_eq!(rx.bytes_delivered().as_bytes(), total, "{cc:?} seed {seed}");
            assert_eq!(tx.stats().bytes_delivered, total);
            assert!(rx.stats().duplicate_segments > 0);
            assert!(tx.stats().bytes_retransmitted > 0);
            assert!(tx.is_idle());
        }
    }
}

#[test]
fn tcp_five_percent_loss_delivers_everything() {
    for cc in tcp_kinds() {
        let total = 500_000;
        let (mut tx, mut rx) = tcp_pair(total, cc);
        let link = LinkConfig::losing(0.05);
        transfer(&mut tx, &mut rx, link, 5, 900, total);
        assert_eq!(rx.bytes_delivered().as_bytes(), total, "{cc:?}");
        assert!(tx.stats().fast_retransmits > 0);
    }
}

/// A TCP flow whose application is `source`, on the clean link until `end`.
fn tcp_source_on_clean_link(
    source: SourceKind,
    seed: u64,
    end: Timestamp,
) -> (TcpSender, TcpReceiver) {
    let mut tx = TcpSender::new(TcpSenderConfig {
        source,
        ..Default::default()
    });
    let mut rx = TcpReceiver::new(TcpReceiverConfig::default());
    run(&mut tx, &mut rx, LinkConfig::clean(), seed, end, |_, _| {
        false
    });
    (tx, rx)
}

#[test]
fn tcp_short_flows_complete_files_and_idle() {
    let (tx, rx) = tcp_source_on_clean_link(
        SourceKind::rfc8867_short_flows(42),
        9,
        Timestamp::from_secs(120),
    );
    let files = tx.files_started();
    // 120 s with ~10 s mean idle and sub-second transfers: about 11 files.
    assert!((5..=25).contains(&files), "files {files}");
    let delivered = rx.bytes_delivered().as_bytes();
    assert!(
        delivered >= (files - 1) * 30_000 && delivered <= files * 50_000,
        "delivered {delivered}"
    );
}

#[test]
fn tcp_on_off_sends_only_in_on_periods() {
    let (tx, rx) = tcp_source_on_clean_link(
        SourceKind::paper_on_off(Timestamp::ZERO),
        4,
        Timestamp::from_millis(23_900),
    );
    // Two on periods of 3 s at 4 Mbit/s: at most 2 * (1.5 MB + 256 KiB buffer drain), at least a
    // third of that.
    let d = rx.bytes_delivered().as_bytes();
    assert!((1_000_000..=3_600_000).contains(&d), "delivered {d}");
    assert!(tx.is_idle());
}

#[test]
fn sctp_max_cwnd_limits_rate_to_cap_over_rtt() {
    use flowstate_core::coupling::Allowance;
    // Cap 10 packets (12 000 B) on a 40 ms RTT path: at most 12 kB per ~41 ms = ~2.3
    // Mbit/s on a 4 Mbit/s link; the transfer of 1 MB must take at least 3.4 s, and the
    // queue never fills (no retransmissions).
    let total = 1_000_000;
    let (mut tx, mut rx) = sctp_pair(total, 65_536);
    tx.apply_allowance(
        Timestamp::ZERO,
        Allowance::MaxWindow(Some(DataSize::bytes(12_000))),
    );
    let end = transfer(&mut tx, &mut rx, LinkConfig::clean(), 1, 60, total);
    check_sctp_delivery(&mut rx, total, 65_536);
    assert!(end > Timestamp::from_millis(3_400), "cap ignored: {end}");
    assert!(end < Timestamp::from_millis(6_000), "too slow: {end}");
    assert_eq!(tx.stats().bytes_retransmitted, 0);
    assert!(tx.cwnd() <= DataSize::bytes(12_000));
}

mod fuzz {
    use super::*;
    use flowstate_core::endpoint::sctp::{DataChunk, Sack};
    use flowstate_core::endpoint::tcp::{Segment, TcpAck};
    use proptest::prelude::*;

    #[derive(Debug, Clone)]
    enum In {
        Sack {
            cum: u64,
            blocks: Vec<(u32, u32)>,
            rwnd: u64,
        },
        Tick(u64),
    }

    fn input() -> impl Strategy<Value = In> {
        prop_oneof![
            (
                0u64..60,
                proptest::collection::vec((0u32..80, 0u32..80), 0..4),
                0u64..2_000_000
            )
                .prop_map(|(cum, blocks, rwnd)| In::Sack { cum, blocks, rwnd }),
            (0u64..3000).prop_map(In::Tick),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(128))]

        /// Arbitrary (even nonsensical) SACKs and timer firings never panic the SCTP
        /// sender, and its flight never exceeds what it sent.
        #[test]
        fn sctp_sender_survives_arbitrary_sacks(ins in proptest::collection::vec(input(), 0..80)) {
            let (mut tx, _) = sctp_pair(200_000, 30_000);
            let mut now = Timestamp::ZERO;
            for i in ins {
                match i {
                    In::Sack { cum, blocks, rwnd } => tx.handle_input(now, Sack { cum_tsn: cum, a_rwnd: rwnd, gap_blocks: blocks.into(), dup_tsns: [cum].into_iter().collect(), ecne: None }),
                    In::Tick(ms) => {
                        now += TimeDelta::millis(ms as i64);
                        if tx.poll_timeout().is_some_and(|t| t <= now) { tx.handle_timeout(now); }
                    }
                }
                while tx.poll_transmit(now).is_some() {}
                while tx.poll_cc_report().is_some() {}
                prop_assert!(tx.bytes_in_flight().as_bytes() <= tx.stats().bytes_sent);
                prop_assert!(tx.cwnd() >= DataSize::bytes(1200));
            }
        }

        /// Arbitrary DATA chunks never panic the SCTP receiver.
        #[test]
        fn sctp_receiver_survives_arbitrary_chunks(chunks in proptest::collection::vec((0u64..100, 0u64..5, 0u32..1300, any::<bool>(), any::<bool>()), 0..100)) {
            let mut rx = SctpReceiver::new(SctpReceiverConfig { rwnd: DataSize::bytes(20_000), ..Default::default() });
            for (k, (tsn, id, len, b, e)) in chunks.into_iter().enumerate() {
                let now = Timestamp::from_millis(k as u64);
                rx.handle_input(now, DataChunk { tsn, message_id: id, stream_offset: tsn * 1000, payload_len: len, begin: b, end: e, immediate_ack: false, cwr: None });
                rx.handle_timeout(now);
                while let Some(s) = rx.poll_transmit(now) {
                    prop_assert!(s.message.a_rwnd <= 20_000);
                }
            }
        }

        /// Arbitrary acks and segments never panic the TCP endpoints.
        #[test]
        fn tcp_endpoints_survive_arbitrary_input(acks in proptest::collection::vec((0u64..200_000, 0u64..3_000_000, 0u64..2000), 0..80),
                                                 segs in proptest::collection::vec((0u64..100_000, 0u32..3000), 0..80)) {
            for cc in tcp_kinds() {
                let (mut tx, mut rx) = tcp_pair(150_000, cc);
                let mut now = Timestamp::ZERO;
                for &(a, w, ms) in &acks {
                    now += TimeDelta::millis(ms as i64);
                    tx.handle_input(
                        now,
                        TcpAck {
                            ack: a,
                            rwnd: w,
                            ..Default::default()
                        },
                    );
                    if tx.poll_timeout().is_some_and(|t| t <= now) { tx.handle_timeout(now); }
                    while tx.poll_transmit(now).is_some() {}
                    prop_assert!(tx.cwnd() >= DataSize::bytes(1460));
                }
                for &(seq, len) in &segs {
                    rx.handle_input(now, Segment { seq, len, cwr: false });
                    while rx.poll_transmit(now).is_some() {}
                }
            }
        }
    }
}
