//! ECN end to end: one ECN-capable flow of each controller over the test bottleneck
//! with a CE-marking threshold well below its drop-tail limit. A controller that
//! answers the marks keeps the queue near the threshold, so nothing is dropped; one
//! whose marks were not fed back or not answered would fill the queue and lose
//! packets. Test-only.

use super::data_source::SourceKind;
use super::ledbat::{receiver_config, sender_config, LedbatReceiver, LedbatSender};
use super::rap::{RapReceiver, RapReceiverConfig, RapSender};
use super::sctp::{SctpReceiver, SctpReceiverConfig, SctpSender, SctpSenderConfig};
use super::tcp::{TcpCcKind, TcpReceiver, TcpReceiverConfig, TcpSender, TcpSenderConfig};
use super::tfrc::{TfrcReceiver, TfrcReceiverEndpointConfig, TfrcSender};
use super::{Controller, Endpoint};
use crate::ecn::Ecn;
use crate::rate::rap::RapConfig;
use crate::rate::tfrc::TfrcConfig;
use crate::testing::link::TestLink;
use crate::units::{Bitrate, DataSize, TimeDelta, Timestamp};
use crate::window::{CubicConfig, LedbatConfig, NewRenoConfig};
use std::collections::VecDeque;

/// What one run of a flow over the marking bottleneck measured.
#[derive(Debug)]
struct Outcome {
    marked: u64,
    dropped: u64,
    /// Delivered / capacity over the run's second half.
    utilization: f64,
    /// The sender's `ecn_responses()` at the end.
    responses: Option<u64>,
}

/// 10 Mbit/s, 40 ms RTT, 250 ms of drop-tail buffer, CE above 10 ms of queuing delay.
const RATE_MBPS: f64 = 10.0;
const BUFFER_MS: i64 = 250;
const MARK_MS: i64 = 10;

/// Runs `sender` and `receiver` for `secs` over the marking bottleneck (an
/// uncongested 20 ms return path).
fn run<S, R>(mut sender: S, mut receiver: R, secs: u64) -> Outcome
where
    S: Controller,
    S::Outgoing: Clone,
    R: Endpoint<Incoming = S::Outgoing, Outgoing = S::Incoming>,
{
    let rate = Bitrate::mbps(RATE_MBPS);
    let one_way = TimeDelta::millis(20);
    let mut link: TestLink<S::Outgoing> =
        TestLink::new(rate, one_way, rate * TimeDelta::millis(BUFFER_MS))
            .mark_above(TimeDelta::millis(MARK_MS));
    let mut back: VecDeque<(Timestamp, S::Incoming)> = VecDeque::new();
    let end = Timestamp::from_millis(secs * 1000);
    let half = Timestamp::from_millis(secs * 500);
    let mut delivered_at_half = None;
    let mut now = Timestamp::ZERO;
    while now < end {
        while let Some((_, m, ecn)) = link.poll_ecn(now) {
            receiver.handle_input_ecn(now, m, ecn);
        }
        while back.front().is_some_and(|p| p.0 <= now) {
            if let Some((_, m)) = back.pop_front() {
                sender.handle_input(now, m);
            }
        }
        if sender.poll_timeout().is_some_and(|t| t <= now) {
            sender.handle_timeout(now);
        }
        if receiver.poll_timeout().is_some_and(|t| t <= now) {
            receiver.handle_timeout(now);
        }
        while let Some(t) = sender.poll_transmit(now) {
            let ecn = sender.ecn_codepoint();
            link.send_ecn(now, t.size, t.message, ecn);
        }
        while let Some(t) = receiver.poll_transmit(now) {
            back.push_back((now + one_way, t.message));
        }
        if now >= half && delivered_at_half.is_none() {
            delivered_at_half = Some(link.delivered);
        }
        let next = [
            link.next_arrival(),
            back.front().map(|p| p.0),
            sender.poll_timeout(),
            receiver.poll_timeout(),
            Some(end),
        ]
        .into_iter()
        .flatten()
        .min()
        .unwrap_or(end);
        now = next.max(now + TimeDelta::from_micros(1));
    }
    let second_half = link.delivered - delivered_at_half.unwrap_or(DataSize::ZERO);
    Outcome {
        marked: link.marked,
        dropped: link.dropped,
        utilization: second_half.as_bits_f64() / (rate * (end - half)).as_bits_f64(),
        responses: sender.ecn_responses(),
    }
}

/// The flow answered the marks: marked, never dropped, the link still used.
fn assert_answers_marks(label: &str, o: &Outcome, min_utilization: f64) {
    assert!(o.marked > 0, "{label}: {o:?}");
    assert_eq!(
        o.dropped, 0,
        "{label}: the queue reached the drop limit: {o:?}"
    );
    assert!(o.utilization > min_utilization, "{label}: {o:?}");
}

fn greedy() -> SourceKind {
    SourceKind::Greedy {
        message_size: DataSize::bytes(1 << 20),
        buffer_limit: DataSize::bytes(1 << 22),
        total: None,
    }
}

fn tcp(cc: TcpCcKind, ecn: Ecn) -> Outcome {
    let s = TcpSender::new(TcpSenderConfig {
        cc,
        source: greedy(),
        ecn,
        ..Default::default()
    });
    run(s, TcpReceiver::new(TcpReceiverConfig::default()), 20)
}

#[test]
fn tcp_new_reno_and_cubic_answer_ece_rfc3168() {
    for (name, cc) in [
        ("newreno", TcpCcKind::NewReno(NewRenoConfig::default())),
        ("cubic", TcpCcKind::Cubic(CubicConfig::default())),
    ] {
        let o = tcp(cc, Ecn::Ect0);
        assert_answers_marks(name, &o, 0.8);
        assert!(o.responses.is_some_and(|r| r > 3), "{name}: {o:?}");
        // Not-ECT on the same link: dropped at the threshold instead.
        let o = tcp(cc, Ecn::NotEct);
        assert!(o.dropped > 0 && o.marked == 0, "{name}: {o:?}");
    }
}

#[test]
fn sctp_answers_ecne_rfc9260_appendix_a() {
    let s = SctpSender::new(SctpSenderConfig {
        source: greedy(),
        ecn: Ecn::Ect1,
        ..Default::default()
    });
    let o = run(s, SctpReceiver::new(SctpReceiverConfig::default()), 20);
    // A halving at a 10 ms threshold (a quarter of the RTT) leaves SCTP's window
    // below the path's BDP for a while: classic ECN's known underuse with a shallow
    // threshold.
    assert_answers_marks("sctp", &o, 0.5);
    assert!(o.responses.is_some_and(|r| r > 3), "{o:?}");
}

#[test]
fn ledbat_answers_marks_as_loss() {
    let mut cfg = sender_config(LedbatConfig::default());
    cfg.source = greedy();
    cfg.ecn = Ecn::Ect0;
    let o = run(
        LedbatSender::new(cfg),
        LedbatReceiver::new(receiver_config()),
        20,
    );
    // LEDBAT aims at 100 ms of queuing delay: above the marking threshold it is
    // marked and halves, so the queue stays far below the buffer.
    assert_answers_marks("ledbat", &o, 0.5);
    assert!(o.responses.is_some_and(|r| r > 3), "{o:?}");
}

#[test]
fn rap_and_tfrc_answer_marks_as_losses() {
    let o = run(
        RapSender::new(RapConfig::default()).with_ecn(Ecn::Ect0),
        RapReceiver::new(RapReceiverConfig::default()),
        40,
    );
    assert_answers_marks("rap", &o, 0.5);
    assert!(o.responses.is_some_and(|r| r > 3), "{o:?}");
    let o = run(
        TfrcSender::new(TfrcConfig::default()).with_ecn(Ecn::Ect0),
        TfrcReceiver::new(TfrcReceiverEndpointConfig::default()),
        40,
    );
    assert_answers_marks("tfrc", &o, 0.5);
}
