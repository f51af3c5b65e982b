//! Closed loop on a 1 Mbit/s bottleneck (the shared [`crate::testing::link`], 1 ms steps, an
//! encoder that produces exactly the target bitrate at 30 frames/s, per-packet
//! feedback every 20 ms over an uncongested 25 ms return path). Checks utilization,
//! queuing delay, and the reaction to a capacity halving at 40 s.

use super::*;
use crate::testing::link::{LinkPacket, TestLink};
use std::collections::VecDeque;

struct Trace {
    targets: Vec<(Timestamp, Bitrate)>,
    delays: Vec<(Timestamp, TimeDelta)>,
    arrivals: Vec<(Timestamp, DataSize)>,
}

/// `greedy`: the encoder ignores the target and produces this rate.
fn run(until_s: u64, halve_at_s: u64, greedy: Option<Bitrate>, cfg: ScreamConfig) -> Trace {
    let prop = TimeDelta::millis(25);
    let mut link = TestLink::new(Bitrate::mbps(1.0), prop, DataSize::bytes(40_000))
        .change_at(Timestamp::from_secs(halve_at_s), Bitrate::kbps(500.0));
    let mut s = Scream::new(cfg);
    let frame_gap = TimeDelta::from_secs_f64(1.0 / 30.0);
    let mut next_frame = Timestamp::ZERO;
    let mut next_feedback = Timestamp::ZERO;
    let mut received: Vec<PacketAck> = vec![];
    let mut in_transit: VecDeque<(Timestamp, Vec<PacketAck>)> = VecDeque::new();
    let mut tr = Trace {
        targets: vec![],
        delays: vec![],
        arrivals: vec![],
    };
    let mut now = Timestamp::ZERO;
    while now < Timestamp::from_secs(until_s) {
        if now >= next_frame {
            let mut frame = greedy.unwrap_or(s.target_bitrate()) * frame_gap;
            let mut packets = vec![];
            while frame > DataSize::ZERO {
                let p = frame.min(DataSize::bytes(1200));
                packets.push(p);
                frame -= p;
            }
            s.enqueue_frame(now, &packets);
            next_frame += frame_gap;
            tr.targets.push((now, s.target_bitrate()));
        }
        while let Some(p) = s.poll_send(now) {
            link.send(
                now,
                p.size,
                LinkPacket {
                    seq: p.seq,
                    size: p.size,
                    sent: now,
                },
            );
        }
        while let Some((at, p)) = link.poll(now) {
            received.push(PacketAck {
                seq: p.seq,
                arrival: at,
                ce: false,
            });
            tr.delays
                .push((at, at - p.sent - prop - p.size / link.capacity(p.sent)));
            tr.arrivals.push((at, p.size));
        }
        if now >= next_feedback {
            if !received.is_empty() {
                in_transit.push_back((now + prop, std::mem::take(&mut received)));
            }
            next_feedback = now + TimeDelta::millis(20);
        }
        while in_transit.front().is_some_and(|f| f.0 <= now) {
            if let Some((at, acks)) = in_transit.pop_front() {
                s.on_feedback(at, &acks);
            }
        }
        now += TimeDelta::millis(1);
    }
    tr
}

fn goodput(tr: &Trace, a: f64, b: f64) -> f64 {
    let bytes: u64 = tr
        .arrivals
        .iter()
        .filter(|(t, _)| t.as_secs_f64() >= a && t.as_secs_f64() < b)
        .map(|(_, s)| s.as_bytes())
        .sum();
    bytes as f64 * 8.0 / (b - a)
}

fn mean_delay_ms(tr: &Trace, a: f64, b: f64) -> f64 {
    let d: Vec<f64> = tr
        .delays
        .iter()
        .filter(|(t, _)| t.as_secs_f64() >= a && t.as_secs_f64() < b)
        .map(|(_, d)| d.as_millis_f64())
        .collect();
    d.iter().sum::<f64>() / d.len().max(1) as f64
}

#[test]
fn scream_fills_a_1mbps_link_with_a_short_queue_and_follows_a_halving() {
    let tr = run(70, 40, None, ScreamConfig::default());
    let u1 = goodput(&tr, 20.0, 40.0) / 1e6;
    let d1 = mean_delay_ms(&tr, 20.0, 40.0);
    let react = tr
        .targets
        .iter()
        .find(|(t, r)| *t >= Timestamp::from_secs(40) && r.as_kbps() < 550.0)
        .map(|(t, _)| t.as_secs_f64() - 40.0);
    let u2 = goodput(&tr, 50.0, 70.0) / 0.5e6;
    let d2 = mean_delay_ms(&tr, 50.0, 70.0);
    eprintln!(
        "SCReAM 1 Mbit/s: utilization {u1:.3}, mean queuing delay {d1:.1} ms; halving: target \
         < 550 kbit/s after {react:?} s; after: utilization {u2:.3}, {d2:.1} ms"
    );
    // Measured: 0.989, 12.7 ms; 0.80 s; 0.972, 10.4 ms (network queue only, the RTP
    // queue at the sender not counted).
    assert!(u1 > 0.9, "utilization {u1}");
    assert!(d1 < 40.0, "queuing delay {d1} ms");
    assert!(react.is_some_and(|r| r < 2.0), "{react:?}");
    assert!(u2 > 0.9, "utilization after halving {u2}");
    assert!(d2 < 40.0, "queuing delay after halving {d2} ms");
}

/// With an encoder that ignores the target (1.5 Mbit/s into a 1 Mbit/s link) only the
/// self-clocked window protects the network: the queuing delay must stay near
/// QDELAY_TARGET (0.1 s) instead of filling the 320 ms buffer, and the link stay full.
#[test]
fn scream_window_alone_holds_the_delay_target_with_a_greedy_encoder() {
    let cfg = ScreamConfig {
        competing_flows_compensation: false,
        ..ScreamConfig::default()
    };
    let tr = run(40, 40, Some(Bitrate::kbps(1500.0)), cfg);
    let u = goodput(&tr, 10.0, 40.0) / 1e6;
    let d = mean_delay_ms(&tr, 10.0, 40.0);
    eprintln!("SCReAM greedy encoder: utilization {u:.3}, mean queuing delay {d:.1} ms");
    // Measured: 1.000, 95.0 ms.
    assert!(u > 0.95, "utilization {u}");
    assert!(d < 130.0, "queuing delay {d} ms");
}

/// The same greedy encoder with competing-flows compensation on (the default): the
/// steady self-inflicted queue has a low variance, which `adjust_qdelay_target` reads
/// as a competing loss-based flow, so the target climbs toward QDELAY_TARGET_HI - the
/// false positive RFC 8298 section 4.1.2.3 warns about. Recorded, not a bound on
/// quality: the delay stays below QDELAY_TARGET_HI plus the buffer's slack.
#[test]
fn scream_greedy_encoder_with_competing_flows_compensation() {
    let tr = run(40, 40, Some(Bitrate::kbps(1500.0)), ScreamConfig::default());
    let u = goodput(&tr, 10.0, 40.0) / 1e6;
    let d = mean_delay_ms(&tr, 10.0, 40.0);
    eprintln!("SCReAM greedy encoder, compensation on: utilization {u:.3}, {d:.1} ms");
    assert!(u > 0.95, "utilization {u}");
    assert!(d < 420.0, "queuing delay {d} ms");
}
