//! Events per second of the engine on a CBR-heavy scenario: 100 CBR flows sharing a
//! 100 Mbit/s bottleneck (1 Mbit/s each, 1200 B packets: ~10 400 packets/s, i.e. 100 %
//! load) for 10 simulated seconds.
//!
//! `cargo bench -p flowstate-sim --bench sim -- --warm-up-time 1 --measurement-time 3`

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use flowstate_sim::{run, Scenario};
use std::hint::black_box;

fn scenario(flows: usize) -> Scenario {
    let mut text = String::from(
        r#"
name = "cbr-heavy"
duration = "10s"
[link]
capacity = "100Mbps"
delay = "20ms"
queue = "50ms"
jitter = "1ms"
"#,
    );
    for i in 0..flows {
        text.push_str(&format!(
            "[[flows]]\nname = \"cbr{i}\"\nkind = \"cbr\"\nstart = \"{}ms\"\noverrides = {{ rate = \"0.99Mbps\", packet_size = \"1200B\" }}\n",
            i * 7
        ));
    }
    Scenario::from_toml(&text, "bench.toml").expect("valid bench scenario")
}

fn bench(c: &mut Criterion) {
    let s = scenario(100);
    let events = run(&s, 1).expect("runs").events;
    let mut g = c.benchmark_group("sim");
    g.sample_size(10);
    g.throughput(Throughput::Elements(events));
    g.bench_function("cbr_100x1mbps_100mbps_10s", |b| {
        b.iter(|| run(black_box(&s), 1).expect("runs").events)
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
