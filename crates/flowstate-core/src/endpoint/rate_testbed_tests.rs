//! Closed-loop tests: RAP and TFRC endpoints over a small dumbbell (the shared test
//! bottleneck [`crate::testing::link::TestLink`] with a drop-tail limit in packets,
//! fixed propagation delays, an uncongested return path). Test-only.

use super::rap::{RapReceiver, RapReceiverConfig, RapSender};
use super::tfrc::{TfrcReceiver, TfrcReceiverEndpointConfig, TfrcSender};
use super::Endpoint;
use crate::rate::rap::RapConfig;
use crate::rate::tfrc::TfrcConfig;
use crate::testing::link::TestLink;
use crate::units::{Bitrate, DataSize, TimeDelta, Timestamp};
use std::collections::VecDeque;

struct Flow<S: Endpoint, R: Endpoint> {
    sender: S,
    receiver: R,
    /// Acks/feedback in flight on the return path: (arrival, message).
    back: VecDeque<(Timestamp, R::Outgoing)>,
    /// Bytes delivered to the receiver inside the measurement window.
    window_bytes: u64,
}

struct Net<S: Endpoint, R: Endpoint> {
    flows: Vec<Flow<S, R>>,
    /// The bottleneck (with the forward one-way delay), carrying (flow, size, message).
    link: TestLink<(usize, DataSize, S::Outgoing)>,
    one_way: TimeDelta,
}

struct Outcome {
    /// Per-flow throughput in the measurement window, bit/s.
    throughput: Vec<f64>,
    drops: u64,
}

fn run<S, R>(
    mut flows: Vec<(S, R)>,
    rate: Bitrate,
    rtt: TimeDelta,
    queue: usize,
    starts: &[TimeDelta],
    duration: TimeDelta,
    window_from: TimeDelta,
) -> Outcome
where
    S: Endpoint,
    S::Outgoing: Clone,
    R: Endpoint<Incoming = S::Outgoing, Outgoing = S::Incoming>,
{
    let mut net = Net {
        flows: flows
            .drain(..)
            .map(|(sender, receiver)| Flow {
                sender,
                receiver,
                back: VecDeque::new(),
                window_bytes: 0,
            })
            .collect(),
        link: TestLink::new(rate, rtt / 2, DataSize::MAX).packet_limit(queue),
        one_way: rtt / 2,
    };
    let end = Timestamp::ZERO + duration;
    let w0 = Timestamp::ZERO + window_from;
    let start_at: Vec<Timestamp> = (0..net.flows.len())
        .map(|i| Timestamp::ZERO + starts.get(i).copied().unwrap_or(TimeDelta::ZERO))
        .collect();
    let mut now = Timestamp::ZERO;
    let mut guard = 0u64;
    while now < end {
        guard += 1;
        assert!(guard < 50_000_000, "simulation does not advance");
        // Deliver data.
        while let Some((_, (i, size, msg))) = net.link.poll(now) {
            if let Some(f) = net.flows.get_mut(i) {
                if now >= w0 {
                    f.window_bytes += size.as_bytes();
                }
                f.receiver.handle_input(now, msg);
            }
        }
        for (i, f) in net.flows.iter_mut().enumerate() {
            if now < start_at[i] {
                continue;
            }
            while f.back.front().is_some_and(|p| p.0 <= now) {
                let Some((_, msg)) = f.back.pop_front() else {
                    break;
                };
                f.sender.handle_input(now, msg);
            }
            if f.sender.poll_timeout().is_some_and(|t| t <= now) {
                f.sender.handle_timeout(now);
            }
            if f.receiver.poll_timeout().is_some_and(|t| t <= now) {
                f.receiver.handle_timeout(now);
            }
            while let Some(tx) = f.sender.poll_transmit(now) {
                net.link.send(now, tx.size, (i, tx.size, tx.message));
            }
            while let Some(tx) = f.receiver.poll_transmit(now) {
                f.back.push_back((now + net.one_way, tx.message));
            }
        }
        // Next event.
        let mut next = Timestamp::MAX;
        if let Some(t) = net.link.next_arrival() {
            next = next.min(t);
        }
        for (i, f) in net.flows.iter().enumerate() {
            if now < start_at[i] {
                next = next.min(start_at[i]);
                continue;
            }
            for t in [
                f.back.front().map(|p| p.0),
                f.sender.poll_timeout(),
                f.receiver.poll_timeout(),
            ]
            .into_iter()
            .flatten()
            {
                next = next.min(t);
            }
        }
        now = next.max(now + TimeDelta::from_micros(1));
    }
    let secs = (duration - window_from).as_secs_f64();
    Outcome {
        throughput: net
            .flows
            .iter()
            .map(|f| f.window_bytes as f64 * 8.0 / secs)
            .collect(),
        drops: net.link.dropped,
    }
}

fn jain(x: &[f64]) -> f64 {
    let s: f64 = x.iter().sum();
    let sq: f64 = x.iter().map(|v| v * v).sum();
    s * s / (x.len() as f64 * sq)
}

const LINK: f64 = 10e6;

/// `flows` on the paper-004 dumbbell (10 Mbit/s, 100 ms RTT, 62-packet queue) for
/// `secs` seconds, measured from `from_secs`.
fn on_dumbbell<S, R>(flows: Vec<(S, R)>, starts: &[TimeDelta], secs: i64, from_secs: i64) -> Outcome
where
    S: Endpoint,
    S::Outgoing: Clone,
    R: Endpoint<Incoming = S::Outgoing, Outgoing = S::Incoming>,
{
    let rtt = TimeDelta::millis(100);
    let (duration, from) = (TimeDelta::secs(secs), TimeDelta::secs(from_secs));
    run(flows, Bitrate::bps(LINK), rtt, 62, starts, duration, from)
}

fn rap_flow() -> (RapSender, RapReceiver) {
    (
        RapSender::new(RapConfig::default()),
        RapReceiver::new(RapReceiverConfig::default()),
    )
}

fn tfrc_flow() -> (TfrcSender, TfrcReceiver) {
    (
        TfrcSender::new(TfrcConfig::default()),
        TfrcReceiver::new(TfrcReceiverEndpointConfig::default()),
    )
}

#[test]
fn jain_index_examples() {
    // equal shares -> 1; one flow takes all of two -> 1/2
    assert!((jain(&[3.0, 3.0]) - 1.0).abs() < 1e-12);
    assert!((jain(&[1.0, 0.0]) - 0.5).abs() < 1e-12);
}

/// 10 Mbit/s, 100 ms RTT, half-BDP queue (62 packets, paper 004): one RAP flow uses
/// more than 80 % of the link over the last 60 of 90 s (its linear start needs ~15 s).
#[test]
fn one_rap_flow_utilizes_link() {
    let o = on_dumbbell(vec![rap_flow()], &[], 90, 30);
    let u = o.throughput[0] / LINK;
    assert!(u > 0.8, "RAP utilization {u:.3} (drops {})", o.drops);
    assert!(o.drops > 0, "RAP never probed the link");
}

/// Same dumbbell: one TFRC flow uses more than 80 % of the link over 10..60 s.
#[test]
fn one_tfrc_flow_utilizes_link() {
    let o = on_dumbbell(vec![tfrc_flow()], &[], 60, 10);
    let u = o.throughput[0] / LINK;
    assert!(u > 0.8, "TFRC utilization {u:.3} (drops {})", o.drops);
}

/// Two RAP flows, the second starting 5 s later, share fairly (Jain > 0.9) over the
/// last 100 of 160 s.
#[test]
fn two_rap_flows_share_fairly() {
    let o = on_dumbbell(
        vec![rap_flow(), rap_flow()],
        &[TimeDelta::ZERO, TimeDelta::secs(5)],
        160,
        60,
    );
    let j = jain(&o.throughput);
    let total: f64 = o.throughput.iter().sum();
    assert!(j > 0.9, "Jain {j:.3}, throughputs {:?}", o.throughput);
    assert!(
        total / LINK > 0.7,
        "aggregate utilization {:.3}",
        total / LINK
    );
}
