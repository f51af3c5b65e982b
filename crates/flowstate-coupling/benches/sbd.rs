//! Cost of shared bottleneck detection (RFC 8382): the receiver's work per packet and
//! per base interval, and one run of the grouping against the number of flows.
//!
//! Run: `cargo bench -p flowstate-coupling --bench sbd`

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use flowstate_coupling::coupling::{CouplingManager, FlowSpec, GroupKey, Mechanism};
use flowstate_coupling::sbd::{FlowGrouping, SbdConfig, SbdReceiver, SummaryStats};
use flowstate_coupling::{Bitrate, TimeDelta, Timestamp};

/// A receiver with a full window (N intervals of 35 packets each).
fn warmed_receiver() -> (SbdReceiver, Timestamp, u64) {
    let mut r = SbdReceiver::new(1, SbdConfig::default()).unwrap();
    let mut seq = 0;
    let mut now = Timestamp::ZERO;
    for _ in 0..(50 * 35 + 10) {
        now += TimeDelta::millis(10);
        let queue = TimeDelta::from_micros((seq * 7919 % 30_000) as i64);
        r.on_packet(now + queue, now, seq);
        seq += 1;
    }
    (r, now, seq)
}

fn per_packet(c: &mut Criterion) {
    // Packets 1 us apart: an interval closes once every 350 000 packets, so this is
    // the per-sample work (3.2.2, 3.2.3, loss) alone.
    let (mut r, mut now, mut seq) = warmed_receiver();
    c.bench_function("sbd/receiver/per_packet", |b| {
        b.iter(|| {
            now += TimeDelta::from_micros(1);
            seq += 1;
            r.on_packet(now, now - TimeDelta::millis(30), black_box(seq));
        })
    });
}

fn per_interval(c: &mut Criterion) {
    // One base interval of 35 packets (100 packets/s) closed with a full window:
    // mean_delay, skew_est, var_est, freq_est, pkt_loss over N = 50 records, the 3.4.1
    // test and the feedback. Subtract 35 x per_packet for the close alone.
    let (mut r, mut now, mut seq) = warmed_receiver();
    c.bench_function("sbd/receiver/per_interval_of_35_packets", |b| {
        b.iter(|| {
            for _ in 0..35 {
                now += TimeDelta::millis(10);
                let queue = TimeDelta::from_micros((seq * 7919 % 30_000) as i64);
                r.on_packet(now + queue, now, black_box(seq));
                seq += 1;
            }
            black_box(r.poll_feedback())
        })
    });
}

fn regroup(c: &mut Criterion) {
    let mut group = c.benchmark_group("sbd/grouping");
    for n in [2usize, 10, 100, 1_000] {
        // A spread of statistics: all through a bottleneck, in about sqrt(n) groups.
        let flows: Vec<(u32, SummaryStats)> = (0..n)
            .map(|i| {
                let k = (i * 7919 % 97) as f64 / 97.0;
                (
                    i as u32,
                    SummaryStats {
                        skew_est: -0.2 - 0.5 * k,
                        var_est_us: 1_000.0 + 4_000.0 * k,
                        freq_est: 0.05 + 0.4 * k,
                        pkt_loss: 0.02 * k,
                    },
                )
            })
            .collect();
        let mut grouping = FlowGrouping::new(SbdConfig::default()).unwrap();
        group.bench_with_input(BenchmarkId::from_parameter(n), &flows, |b, flows| {
            b.iter(|| black_box(grouping.group(black_box(flows))))
        });
    }
    group.finish();
}

fn move_flow(c: &mut Criterion) {
    // One flow moved between two groups of n rate flows each under the FSE (guard
    // off): leave, join, and the new group's redistribution.
    let mut group = c.benchmark_group("sbd/move_flow/fse");
    for n in [2usize, 10, 100, 1_000] {
        let mut m = CouplingManager::new(Mechanism::from_name("fse").unwrap())
            .with_min_regroup_interval(TimeDelta::ZERO)
            .unwrap();
        let spec = |i: usize| FlowSpec::Rate {
            priority: 0.5 + (i % 7) as f64,
            initial_rate: Bitrate::kbps(500.0),
            desired_rate: None,
        };
        for i in 0..n {
            m.register(GroupKey(1), spec(i)).unwrap();
            m.register(GroupKey(2), spec(i)).unwrap();
        }
        let mover = m.register(GroupKey(1), spec(n)).unwrap();
        let mut to = GroupKey(2);
        group.bench_function(BenchmarkId::from_parameter(n), |b| {
            b.iter(|| {
                let _ = black_box(m.move_flow(Timestamp::ZERO, mover, to));
                to = if to == GroupKey(2) {
                    GroupKey(1)
                } else {
                    GroupKey(2)
                };
            })
        });
    }
    group.finish();
}

criterion_group!(benches, per_packet, per_interval, regroup, move_flow);
criterion_main!(benches);
