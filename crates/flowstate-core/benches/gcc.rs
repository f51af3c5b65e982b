//! Cost per feedback report of GCC: the Chromium preset's sender processing one
//! transport-wide feedback message (25 packets = 100 ms at ~2.4 Mbit/s), and the paper
//! preset's receiver processing the same 25 packets (per-packet estimation) plus the
//! sender handling one REMB; and the chromium-m156 preset's sender on the same feedback
//! with its first 5 packets a probe cluster (probe estimator, probe controller, ALR), and
//! alone its robust throughput estimator (one report in, `bitrate()` over a ~1 s window
//! of ~250 packets out).

use criterion::{criterion_group, criterion_main, BatchSize, Bencher, Criterion};
use flowstate_core::gcc::probe_estimator::ProbeTag;
use flowstate_core::gcc::robust_throughput::{
    AckedPacket, RobustThroughputConfig, RobustThroughputEstimator,
};
use flowstate_core::gcc::{DelayBasedBwe, Gcc, GccPreset, PacketTiming};
use flowstate_core::units::{Bitrate, DataSize, TimeDelta, Timestamp};
use std::hint::black_box;

const PER_REPORT: u64 = 25;

/// Packets every 4 ms with a little deterministic jitter, frames of 8 packets.
fn packets(report: u64) -> Vec<PacketTiming> {
    (0..PER_REPORT)
        .map(|i| {
            let n = report * PER_REPORT + i;
            let send = Timestamp::from_millis(n * 4);
            let jitter = TimeDelta::from_micros(((n * 7919) % 500) as i64);
            PacketTiming {
                send_time: send,
                arrival_time: send + TimeDelta::millis(30) + jitter,
                size: DataSize::bytes(1200),
                frame: Some(n / 8),
            }
        })
        .collect()
}

/// Times `report` on reports 201, 202, ... (after the 200 of `warm`), each report's
/// packets (and whatever `extra` builds for it) made outside the timed part.
fn per_report<T, R>(
    b: &mut Bencher,
    mut extra: impl FnMut(u64) -> T,
    mut report: impl FnMut(u64, Vec<PacketTiming>, T) -> R,
) {
    let mut r = 200u64;
    b.iter_batched(
        || {
            r += 1;
            (r, packets(r), extra(r))
        },
        |(r, pkts, x)| report(r, pkts, x),
        BatchSize::SmallInput,
    );
}

fn warm<F: FnMut(u64)>(mut f: F) {
    for r in 0..200 {
        f(r);
    }
}

fn bench(c: &mut Criterion) {
    c.bench_function("gcc_chromium_transport_feedback_25pkts", |b| {
        let mut g = Gcc::from_preset(GccPreset::Chromium);
        warm(|r| g.on_transport_feedback(Timestamp::from_millis((r + 1) * 100 + 30), &packets(r)));
        per_report(
            b,
            |_| (),
            |r, pkts, ()| {
                g.on_transport_feedback(
                    Timestamp::from_millis((r + 1) * 100 + 30),
                    black_box(&pkts),
                );
                black_box(g.target_rate())
            },
        );
    });

    c.bench_function("gcc_chromium_m156_transport_feedback_25pkts", |b| {
        let mut g = Gcc::from_preset(GccPreset::ChromiumM156);
        g.start(Timestamp::ZERO);
        let tags = |r: u64| -> Vec<Option<ProbeTag>> {
            (0..PER_REPORT)
                .map(|i| {
                    (i < 5).then_some(ProbeTag {
                        cluster: r as u32,
                        min_probes: 5,
                        min_bytes: DataSize::bytes(4000),
                    })
                })
                .collect()
        };
        let feed = |g: &mut Gcc, r: u64, pkts: &[PacketTiming], t: &[Option<ProbeTag>]| {
            let now = Timestamp::from_millis((r + 1) * 100 + 30);
            for p in pkts {
                g.on_packet_sent(p.send_time, p.size);
            }
            g.on_transport_feedback_probed(now, pkts, t, &[]);
            g.handle_timeout(now);
        };
        warm(|r| feed(&mut g, r, &packets(r), &tags(r)));
        per_report(b, tags, |r, pkts, t| {
            feed(&mut g, r, black_box(&pkts), &t);
            black_box(g.target_rate())
        });
    });

    c.bench_function("gcc_robust_throughput_25pkts", |b| {
        let acked = |pkts: &[PacketTiming]| -> Vec<AckedPacket> {
            pkts.iter()
                .map(|p| AckedPacket {
                    send_time: p.send_time,
                    receive_time: p.arrival_time,
                    size: p.size,
                })
                .collect()
        };
        let mut e = RobustThroughputEstimator::new(RobustThroughputConfig::default());
        warm(|r| e.on_packets(acked(&packets(r)).iter()));
        per_report(
            b,
            |r| acked(&packets(r)),
            |_, _, a| {
                e.on_packets(black_box(&a).iter());
                black_box(e.bitrate())
            },
        );
    });

    c.bench_function("gcc_paper_receiver_25pkts_plus_remb", |b| {
        let cfg = GccPreset::Paper.config();
        let mut rx = DelayBasedBwe::new(cfg.delay.clone());
        let mut tx = Gcc::new(cfg);
        warm(|r| {
            for p in &packets(r) {
                let _ = rx.on_packets(p.arrival_time, std::iter::once(p));
            }
        });
        per_report(
            b,
            |_| (),
            |r, pkts, ()| {
                for p in &pkts {
                    let _ = rx.on_packets(p.arrival_time, std::iter::once(black_box(p)));
                }
                tx.on_remb(Timestamp::from_millis((r + 1) * 100 + 30), rx.estimate());
                black_box(tx.target_rate().max(Bitrate::ZERO))
            },
        );
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
