//! The simulator's cost of shared bottleneck detection (RFC 8382, crate::sbd): one run
//! of the same dumbbell with SBD off, measuring (`[sbd]`), and following its verdicts
//! (`coupling.groups = "sbd"`): 3 SCTP flows and a GCC flow on 6 Mbit/s for 60
//! simulated seconds, coupled by FSE-NG.
//!
//! `cargo bench -p flowstate-sim --bench sbd -- --warm-up-time 1 --measurement-time 5`

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use flowstate_sim::{run, Scenario};
use std::hint::black_box;

fn scenario(sbd: &str, groups: &str) -> Scenario {
    let text = format!(
        r#"
name = "sbd-bench"
duration = "60s"
[link]
capacity = "6Mbps"
delay = "25ms"
queue = "100ms"
[coupling]
mechanism = "fse-ng"
groups = "{groups}"
{sbd}
[[flows]]
name = "sctp"
kind = "sctp"
count = 3
start_jitter = "1s"
[[flows]]
name = "gcc"
kind = "gcc"
"#
    );
    Scenario::from_toml(&text, "bench.toml").expect("valid bench scenario")
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("sim_sbd");
    g.sample_size(10);
    for (name, s) in [
        ("off", scenario("", "static")),
        ("measuring", scenario("[sbd]", "static")),
        ("following", scenario("[sbd]", "sbd")),
    ] {
        // Following the verdicts changes the traffic (other groups, other rates), so
        // compare the runs per event too.
        let events = run(&s, 1).expect("runs").events;
        g.throughput(Throughput::Elements(events));
        g.bench_function(name, |b| {
            b.iter(|| run(black_box(&s), 1).expect("runs").events)
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
