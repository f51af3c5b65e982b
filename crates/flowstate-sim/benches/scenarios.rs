//! Wall time of whole scenario runs with real flows: paper 000 Table 5 (GCC + SCTP,
//! 120 simulated s, uncoupled and FSEv2) and 100 TCP flows on 100 Mbit/s for 60 s.
//! Throughput is reported in events.
//!
//! `cargo bench -p flowstate-sim --bench scenarios -- --warm-up-time 1 --measurement-time 3`

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use flowstate_sim::run::load;
use flowstate_sim::{run, Scenario};
use std::hint::black_box;
use std::path::PathBuf;

fn scenario(name: &str) -> Scenario {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../scenarios")
        .join(name);
    load(&path).expect("scenario loads")
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("scenarios");
    g.sample_size(10);
    for (id, file) in [
        ("table5_none_120s", "p000-table5-none.toml"),
        ("table5_fsev2_120s", "p000-table5-fsev2.toml"),
        ("tcp100_100mbps_60s", "tcp100.toml"),
    ] {
        let s = scenario(file);
        let events = run(&s, 1).expect("runs").events;
        g.throughput(Throughput::Elements(events));
        g.bench_function(id, |b| {
            b.iter(|| run(black_box(&s), 1).expect("runs").events)
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
