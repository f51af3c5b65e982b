//! Cost of one coupling update against group size, per mechanism; and the closed-form
//! water-filling against the papers' leftover loop.
//!
//! Run: `cargo bench -p flowstate-coupling --bench coupling`

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use flowstate_coupling::coupling::waterfill::{Claim, WaterFill};
use flowstate_coupling::coupling::{
    CouplingManager, FlowId, FlowReport, FlowSpec, GroupKey, Mechanism,
};
use flowstate_coupling::{Bitrate, DataSize, TimeDelta, Timestamp};

#[path = "../tests/support/leftover_loop.rs"]
mod leftover_loop;

const SIZES: [usize; 5] = [2, 10, 100, 1_000, 10_000];
const G: GroupKey = GroupKey(1);

/// A deterministic spread of priorities (0.1..10) and desired rates (a third capped).
fn priority(i: usize) -> f64 {
    0.1 + (i * 7919 % 1000) as f64 / 1000.0 * 9.9
}
fn desired(i: usize) -> Option<Bitrate> {
    (i % 3 == 0).then(|| Bitrate::bps(50_000.0 + (i * 104_729 % 2_000_000) as f64))
}

/// A group of `n` flows: all rate flows for the FSE and the conservative FSE; half rate,
/// half window flows for the mechanisms that couple both.
fn build(name: &str, n: usize) -> (CouplingManager, FlowId) {
    let mut m = CouplingManager::new(Mechanism::from_name(name).unwrap());
    let with_windows = !matches!(name, "fse" | "fse-simple" | "conservative-fse");
    let mut first = None;
    for i in 0..n {
        let spec = if with_windows && i % 2 == 1 {
            FlowSpec::Window {
                priority: priority(i),
                initial_cwnd: DataSize::bytes(12_000),
                initial_rtt: Some(TimeDelta::millis(100)),
                initial_max_cwnd: None,
                mtu: DataSize::bytes(1200),
            }
        } else {
            FlowSpec::Rate {
                priority: priority(i),
                initial_rate: Bitrate::kbps(500.0),
                desired_rate: desired(i),
            }
        };
        let id = m.register(G, spec).unwrap();
        first.get_or_insert(id);
    }
    (m, first.unwrap())
}

fn update_cost(c: &mut Criterion) {
    for name in Mechanism::NAMES {
        let mut group = c.benchmark_group(format!("update/{name}"));
        for n in SIZES {
            let (mut m, flow) = build(name, n);
            let mut step = 0u64;
            group.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
                b.iter(|| {
                    step += 1;
                    // A rate that wanders +-5 % so S_CR keeps moving.
                    let rate =
                        Bitrate::kbps(500.0 * (1.0 + 0.05 * ((step % 7) as f64 - 3.0) / 3.0));
                    let now = Timestamp::from_millis(step * 300);
                    let report = FlowReport::Rate {
                        rate,
                        rtt: Some(TimeDelta::millis(100)),
                    };
                    black_box(m.update(now, flow, report).unwrap().len())
                })
            });
        }
        group.finish();
    }
}

fn closed_form_vs_loop(c: &mut Criterion) {
    let mut group = c.benchmark_group("allocation");
    for n in [10usize, 100, 1_000] {
        let claims: Vec<Claim> = (0..n)
            .map(|i| Claim {
                priority: priority(i),
                cap: desired(i).map_or(f64::INFINITY, |r| r.as_bps()),
            })
            .collect();
        let total = 0.3e6 * n as f64;
        let mut water = WaterFill::new();
        let mut out = vec![0.0; n];
        group.bench_with_input(BenchmarkId::new("closed-form", n), &n, |b, _| {
            b.iter(|| black_box(water.allocate(black_box(total), &claims, &mut out)))
        });
        // What the manager does on an update that changed only S_CR.
        group.bench_with_input(BenchmarkId::new("closed-form-steady", n), &n, |b, _| {
            b.iter(|| black_box(water.fill(black_box(total), &mut out)))
        });
        group.bench_with_input(BenchmarkId::new("closed-form-unsorted", n), &n, |b, _| {
            b.iter(|| {
                let mut fresh = WaterFill::new();
                black_box(fresh.allocate(black_box(total), &claims, &mut out))
            })
        });
        group.bench_with_input(BenchmarkId::new("leftover-loop", n), &n, |b, _| {
            b.iter(|| black_box(leftover_loop::leftover_loop(black_box(total), &claims)))
        });
    }
    group.finish();
}

criterion_group!(benches, update_cost, closed_form_vs_loop);
criterion_main!(benches);
