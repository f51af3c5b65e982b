//! Closed loop on a 1 Mbit/s bottleneck (the shared [`crate::testing::link`], 1 ms steps, an
//! encoder that produces exactly r_vin at FPS, feedback over an uncongested 25 ms
//! return path). Checks utilization, queuing delay, and the reaction to a capacity
//! halving at 40 s.

use super::*;
use crate::testing::link::{LinkPacket, TestLink};
use std::collections::VecDeque;

struct Trace {
    /// (time, r_ref) per feedback.
    rates: Vec<(Timestamp, Bitrate)>,
    /// (arrival, queuing delay) per packet.
    delays: Vec<(Timestamp, TimeDelta)>,
    /// (arrival, bytes) per packet.
    arrivals: Vec<(Timestamp, DataSize)>,
}

fn run(until_s: u64, halve_at_s: Option<u64>) -> Trace {
    let prop = TimeDelta::millis(25);
    let mut link = TestLink::new(Bitrate::mbps(1.0), prop, DataSize::bytes(40_000));
    if let Some(h) = halve_at_s {
        link = link.change_at(Timestamp::from_secs(h), Bitrate::kbps(500.0));
    }
    let cfg = NadaConfig::default();
    let mut sender = Nada::new(cfg.clone());
    sender.on_rtt(prop * 2);
    let mut receiver = NadaReceiver::new(cfg.clone());
    let mut feedback: VecDeque<(Timestamp, NadaFeedback)> = VecDeque::new();
    let frame_gap = TimeDelta::from_secs_f64(1.0 / cfg.fps);
    let mut next_frame = Timestamp::ZERO;
    let mut seq = 0u64;
    let mut tr = Trace {
        rates: vec![],
        delays: vec![],
        arrivals: vec![],
    };
    let end = Timestamp::from_secs(until_s);
    let mut now = Timestamp::ZERO;
    while now < end {
        if now >= next_frame {
            // One frame of r_vin / FPS bytes, in packets of at most 1200 bytes.
            let mut frame = sender.encoder_rate() * frame_gap;
            while frame > DataSize::ZERO {
                let p = frame.min(DataSize::bytes(1200));
                sender.enqueue(now, p);
                frame -= p;
            }
            next_frame += frame_gap;
        }
        while let Some(size) = sender.poll_send(now) {
            link.send(
                now,
                size,
                LinkPacket {
                    seq,
                    size,
                    sent: now,
                },
            );
            seq += 1;
        }
        while let Some((at, p)) = link.poll(now) {
            receiver.on_packet(&ReceivedPacket {
                seq: p.seq,
                sent: p.sent,
                arrival: at,
                size: p.size,
                ce_marked: false,
            });
            tr.delays
                .push((at, at - p.sent - prop - p.size / link.capacity(p.sent)));
            tr.arrivals.push((at, p.size));
        }
        if let Some(fb) = receiver.poll_feedback(now) {
            feedback.push_back((now + prop, fb));
        }
        while feedback.front().is_some_and(|f| f.0 <= now) {
            if let Some((at, fb)) = feedback.pop_front() {
                sender.on_feedback(at, &fb);
                tr.rates.push((at, sender.reference_rate()));
            }
        }
        now += TimeDelta::millis(1);
    }
    tr
}

fn goodput(tr: &Trace, from_s: f64, to_s: f64) -> Bitrate {
    let bytes: u64 = tr
        .arrivals
        .iter()
        .filter(|(t, _)| t.as_secs_f64() >= from_s && t.as_secs_f64() < to_s)
        .map(|(_, s)| s.as_bytes())
        .sum();
    DataSize::bytes(bytes) / TimeDelta::from_secs_f64(to_s - from_s)
}

fn mean_delay(tr: &Trace, from_s: f64, to_s: f64) -> TimeDelta {
    let d: Vec<f64> = tr
        .delays
        .iter()
        .filter(|(t, _)| t.as_secs_f64() >= from_s && t.as_secs_f64() < to_s)
        .map(|(_, d)| d.as_secs_f64())
        .collect();
    TimeDelta::from_secs_f64(d.iter().sum::<f64>() / d.len().max(1) as f64)
}

#[test]
fn nada_fills_a_1mbps_link_with_a_short_queue_and_follows_a_halving() {
    let tr = run(70, Some(40));
    let util = goodput(&tr, 20.0, 40.0).as_bps() / 1e6;
    let delay = mean_delay(&tr, 20.0, 40.0);
    eprintln!("NADA 1 Mbit/s: utilization {util:.3}, mean queuing delay {delay}");
    // Measured: utilization 1.000, mean queuing delay 10.2 ms. Equilibrium of section
    // 4.3: x_curr = PRIO * XREF * RMAX / r_ref = 15 ms at 1 Mbit/s.
    assert!(util > 0.85 && util < 1.01, "utilization {util}");
    assert!(delay < TimeDelta::millis(30), "mean queuing delay {delay}");
    // After the halving at 40 s: r_ref below 600 kbit/s within 2 s (measured 0.76 s)...
    let settled = tr
        .rates
        .iter()
        .find(|(t, r)| *t >= Timestamp::from_secs(40) && r.as_kbps() < 600.0)
        .map(|(t, _)| t.as_secs_f64() - 40.0);
    eprintln!("NADA halving: r_ref < 600 kbit/s after {settled:?} s");
    assert!(settled.is_some_and(|s| s < 2.0), "{settled:?}");
    // ... and the new link still used (measured 1.000, 16.1 ms), with the queue short
    // again, 15 s later.
    let util2 = goodput(&tr, 55.0, 70.0).as_bps() / 0.5e6;
    let delay2 = mean_delay(&tr, 55.0, 70.0);
    eprintln!("after halving: utilization {util2:.3}, mean queuing delay {delay2}");
    assert!(util2 > 0.85, "utilization after halving {util2}");
    assert!(
        delay2 < TimeDelta::millis(40),
        "queuing delay after halving {delay2}"
    );
}

/// Several NADA flows (each its own sender, receiver and feedback path) through one
/// bottleneck, optionally with random loss; returns each flow's goodput over
/// [from, until) and the mean queuing delay.
fn run_flows(
    prios: &[f64],
    capacity: Bitrate,
    loss: f64,
    from_s: f64,
    until_s: u64,
) -> (Vec<Bitrate>, TimeDelta) {
    use crate::testing::link::Impairments;
    let prop = TimeDelta::millis(25);
    let mut link: TestLink<(usize, LinkPacket)> =
        TestLink::new(capacity, prop, DataSize::bytes(60_000));
    if loss > 0.0 {
        link = link.impaired(
            Impairments {
                loss,
                reorder: 0.0,
                reorder_delay: TimeDelta::ZERO,
                duplicate: 0.0,
            },
            7,
        );
    }
    let cfgs: Vec<NadaConfig> = prios
        .iter()
        .map(|&prio| NadaConfig {
            prio,
            ..NadaConfig::default()
        })
        .collect();
    let mut senders: Vec<Nada> = cfgs.iter().map(|c| Nada::new(c.clone())).collect();
    let mut receivers: Vec<NadaReceiver> =
        cfgs.iter().map(|c| NadaReceiver::new(c.clone())).collect();
    for s in &mut senders {
        s.on_rtt(prop * 2);
    }
    let mut feedback: VecDeque<(Timestamp, usize, NadaFeedback)> = VecDeque::new();
    let frame_gap = TimeDelta::from_secs_f64(1.0 / 30.0);
    let mut next_frame = Timestamp::ZERO;
    let mut seqs = vec![0u64; prios.len()];
    let mut bytes = vec![0u64; prios.len()];
    let (mut delay_sum, mut delay_n) = (0.0, 0u64);
    let mut now = Timestamp::ZERO;
    while now < Timestamp::from_secs(until_s) {
        if now >= next_frame {
            for s in &mut senders {
                let mut frame = s.encoder_rate() * frame_gap;
                while frame > DataSize::ZERO {
                    let p = frame.min(DataSize::bytes(1200));
                    s.enqueue(now, p);
                    frame -= p;
                }
            }
            next_frame += frame_gap;
        }
        for (i, s) in senders.iter_mut().enumerate() {
            while let Some(size) = s.poll_send(now) {
                let p = LinkPacket {
                    seq: seqs[i],
                    size,
                    sent: now,
                };
                link.send(now, size, (i, p));
                seqs[i] += 1;
            }
        }
        while let Some((at, (i, p))) = link.poll(now) {
            receivers[i].on_packet(&ReceivedPacket {
                seq: p.seq,
                sent: p.sent,
                arrival: at,
                size: p.size,
                ce_marked: false,
            });
            if at.as_secs_f64() >= from_s {
                bytes[i] += p.size.as_bytes();
                delay_sum += (at - p.sent - prop - p.size / capacity).as_secs_f64();
                delay_n += 1;
            }
        }
        for (i, r) in receivers.iter_mut().enumerate() {
            if let Some(fb) = r.poll_feedback(now) {
                feedback.push_back((now + prop, i, fb));
            }
        }
        while feedback.front().is_some_and(|f| f.0 <= now) {
            if let Some((at, i, fb)) = feedback.pop_front() {
                senders[i].on_feedback(at, &fb);
            }
        }
        now += TimeDelta::millis(1);
    }
    let span = TimeDelta::from_secs_f64(until_s as f64 - from_s);
    let rates = bytes.iter().map(|&b| DataSize::bytes(b) / span).collect();
    (
        rates,
        TimeDelta::from_secs_f64(delay_sum / delay_n.max(1) as f64),
    )
}

/// RFC 8698 section 4.3: at equilibrium x_curr = PRIO * XREF * RMAX / r_ref for every
/// flow on the bottleneck, so the rates divide in proportion to PRIO. Measured over
/// 90-120 s: 424 and 776 kbit/s, ratio 1.83 (the lower-rate flow's 15-packet minimum
/// filter spans more time, so it reads a slightly lower queuing delay).
#[test]
fn two_flows_share_in_proportion_to_prio() {
    let (rates, delay) = run_flows(&[1.0, 2.0], Bitrate::kbps(1200.0), 0.0, 90.0, 120);
    let ratio = rates[1] / rates[0];
    let total = (rates[0] + rates[1]).as_kbps();
    eprintln!(
        "NADA PRIO 1 and 2 on 1.2 Mbit/s: {} and {} (ratio {ratio:.2}, total {total:.0} \
         kbit/s), mean queuing delay {delay}",
        rates[0], rates[1]
    );
    assert!((1.6..2.4).contains(&ratio), "ratio {ratio}");
    assert!(total > 1100.0, "total {total} kbit/s");
}

/// With 1 % random loss the loss penalty and the warping keep NADA stable: the rate
/// stays well above RMIN and the queue short (the loss term DLOSS (p/PLRREF)^2 = 10 ms
/// at p = 1 % adds to x_curr instead of collapsing the rate). Measured: 976 kbit/s,
/// 19.0 ms.
#[test]
fn random_loss_of_one_percent() {
    let (rates, delay) = run_flows(&[1.0], Bitrate::mbps(1.0), 0.01, 20.0, 50);
    eprintln!(
        "NADA 1 % random loss on 1 Mbit/s: {}, mean queuing delay {delay}",
        rates[0]
    );
    assert!(rates[0].as_kbps() > 600.0, "{}", rates[0]);
    assert!(delay < TimeDelta::millis(40), "{delay}");
}
