//! Cost per event on a parking lot against the dumbbell: the same 99 CBR flows
//! (0.99 Mbit/s, 1200 B) for 10 simulated seconds, once all on one 100 Mbit/s link
//! (`[link]`) and once on a parking lot of three 100 Mbit/s hops (33 flows cross all
//! three hops, 22 cross each single hop: every hop carries 55 flows), so a packet of a
//! long flow crosses three queues. Criterion reports events per second (`Throughput`).
//!
//! `cargo bench -p flowstate-sim --bench topology -- --warm-up-time 1 --measurement-time 3`

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use flowstate_sim::{run, Scenario};
use std::hint::black_box;

const FLOW: &str = "kind = \"cbr\"\noverrides = { rate = \"0.99Mbps\", packet_size = \"1200B\" }\n";

fn dumbbell() -> Scenario {
    let mut text = String::from(
        "name = \"dumbbell\"\nduration = \"10s\"\n[link]\ncapacity = \"100Mbps\"\ndelay = \"10ms\"\nqueue = \"50ms\"\n",
    );
    for i in 0..99 {
        text.push_str(&format!(
            "[[flows]]\nname = \"f{i}\"\nstart = \"{}ms\"\n{FLOW}",
            i * 7
        ));
    }
    Scenario::from_toml(&text, "bench.toml").expect("valid bench scenario")
}

fn parking_lot() -> Scenario {
    let mut text = String::from(
        "name = \"parking-lot\"\nduration = \"10s\"\n[parking_lot]\nhops = 3\nlink = { capacity = \"100Mbps\", delay = \"10ms\", queue = \"50ms\" }\n",
    );
    for i in 0..99 {
        let hops = if i < 33 {
            "[1, 3]".to_string()
        } else {
            format!("[{}]", (i - 33) / 22 + 1)
        };
        text.push_str(&format!(
            "[[flows]]\nname = \"f{i}\"\nstart = \"{}ms\"\nhops = {hops}\n{FLOW}",
            i * 7
        ));
    }
    Scenario::from_toml(&text, "bench.toml").expect("valid bench scenario")
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("topology");
    g.sample_size(10);
    for (name, s) in [
        ("dumbbell_99cbr_100mbps_10s", dumbbell()),
        ("parking_lot_3x100mbps_99cbr_10s", parking_lot()),
    ] {
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
