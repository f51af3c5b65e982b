//! Cost per feedback report of NADA and SCReAM (RFC 8698, RFC 8298 v1), at 1 Mbit/s
//! with 1000-byte packets: one report covers 100 ms = 12.5 packets (12 or 13).
//!
//! - `nada_receiver_12pkts_report`: the receiver-side aggregator takes 12 packets
//!   (queuing-delay filter, loss / ECN counting, receiving rate) and makes one report
//!   (x_curr with warping, rmode, r_recv).
//! - `nada_sender_feedback`: the sender applies one report (gradual update of r_ref)
//!   and reads r_vin and r_send.
//! - `scream_feedback_12pkts`: a SCReAM sender acks 12 packets in one RFC 8888-style
//!   report (OWD, base delay, loss detection, window update, qdelay trend, rate
//!   control), with the next 12 in flight; the set-up (frame, sends) is not timed
//!   (`iter_custom`).

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use flowstate_core::nada::{Nada, NadaConfig, NadaReceiver, RampUpMode, ReceivedPacket};
use flowstate_core::scream::{PacketAck, Scream, ScreamConfig};
use flowstate_core::units::{Bitrate, DataSize, TimeDelta, Timestamp};
use std::hint::black_box;

const PER_REPORT: u64 = 12;

/// Packets every 8 ms with a deterministic queuing delay of 0-20 ms.
fn nada_packets(report: u64) -> Vec<ReceivedPacket> {
    (0..PER_REPORT)
        .map(|i| {
            let n = report * PER_REPORT + i;
            let sent = Timestamp::from_millis(n * 8);
            let q = TimeDelta::from_micros(((n * 7919) % 20_000) as i64);
            ReceivedPacket {
                seq: n,
                sent,
                arrival: sent + TimeDelta::millis(25) + q,
                size: DataSize::bytes(1000),
                ce_marked: n % 97 == 0,
            }
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    c.bench_function("nada_receiver_12pkts_report", |b| {
        let mut rx = NadaReceiver::new(NadaConfig::default());
        let mut r = 0u64;
        b.iter_batched(
            || {
                r += 1;
                (r, nada_packets(r))
            },
            |(r, pkts)| {
                for p in &pkts {
                    rx.on_packet(black_box(p));
                }
                black_box(rx.report(Timestamp::from_millis(r * PER_REPORT * 8 + 30)))
            },
            BatchSize::SmallInput,
        );
    });

    c.bench_function("nada_sender_feedback", |b| {
        let mut rx = NadaReceiver::new(NadaConfig::default());
        let reports: Vec<_> = (0..64)
            .map(|r| {
                for p in &nada_packets(r) {
                    rx.on_packet(p);
                }
                let mut fb = rx.report(Timestamp::from_millis(r * 100 + 30));
                fb.rmode = RampUpMode::Gradual;
                fb
            })
            .collect();
        let mut tx = Nada::new(NadaConfig::default());
        tx.on_rtt(TimeDelta::millis(50));
        tx.set_reference_rate(Bitrate::kbps(800.0));
        let mut r = 0u64;
        b.iter(|| {
            r += 1;
            let fb = &reports[(r % 64) as usize];
            tx.on_feedback(Timestamp::from_millis(r * 100), black_box(fb));
            black_box((tx.encoder_rate(), tx.sending_rate()))
        });
    });

    c.bench_function("scream_feedback_12pkts", |b| {
        // MIN_CWND raised to 30 kB so the window never holds back a report's packets:
        // what is measured is the feedback processing, with 12 acked and 12 more in
        // flight.
        let cfg = ScreamConfig {
            initial_rate: Bitrate::kbps(800.0),
            min_cwnd: DataSize::bytes(30_000),
            ..ScreamConfig::default()
        };
        let mut s = Scream::new(cfg);
        let mut now = Timestamp::from_millis(1);
        let mut round = 0u64;
        let mut previous: Vec<PacketAck> = Vec::new();
        // The set-up (frame, sends) is outside the timed section: iter_custom times
        // only on_feedback.
        b.iter_custom(|iters| {
            let mut total = std::time::Duration::ZERO;
            for _ in 0..iters {
                round += 1;
                s.enqueue_frame(now, &[DataSize::bytes(1000); PER_REPORT as usize]);
                let mut acks = Vec::with_capacity(PER_REPORT as usize);
                for i in 0..PER_REPORT {
                    now += TimeDelta::millis(8);
                    if let Some(p) = s.poll_send(now) {
                        let q = TimeDelta::from_micros((((round * 13 + i) * 7919) % 20_000) as i64);
                        acks.push(PacketAck {
                            seq: p.seq,
                            arrival: now + TimeDelta::millis(25) + q,
                            ce: false,
                        });
                    }
                }
                assert_eq!(
                    acks.len(),
                    PER_REPORT as usize,
                    "the window held packets back"
                );
                // Ack the previous round's packets; this round's stay in flight.
                let acks = std::mem::replace(&mut previous, acks);
                let start = std::time::Instant::now();
                s.on_feedback(now, black_box(&acks));
                black_box(s.target_bitrate());
                total += start.elapsed();
            }
            total
        });
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
