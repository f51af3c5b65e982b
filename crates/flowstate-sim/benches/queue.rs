//! Per-packet cost of each queue discipline through the link: 100 000 packets of
//! 1200 B from 8 flows offered to a 100 Mbit/s link at 105 % of its capacity (a queue
//! builds and the AQMs act), each one offered, queued, dequeued and finished.
//!
//! `cargo bench -p flowstate-sim --bench queue -- --warm-up-time 1 --measurement-time 3`

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use flowstate_core::{Bitrate, Ecn, TimeDelta, Timestamp};
use flowstate_sim::flow::SimPacket;
use flowstate_sim::link::{Link, LinkConfig, LinkId, Offer};
use flowstate_sim::queue::{
    CodelParams, Discipline, DualPi2Params, FqCodelParams, PieParams, QueueLimit,
};
use std::hint::black_box;

const PACKETS: u64 = 100_000;

/// Offer the packets (spaced 1200 B at 105 Mbit/s: 91 us apart) and finish every
/// serialization as it falls due; the packets delivered.
fn drive(discipline: Discipline) -> u64 {
    let mut cfg = LinkConfig::constant(
        Bitrate::mbps(100.0),
        TimeDelta::millis(10),
        QueueLimit::Packets(1000),
    );
    cfg.discipline = discipline;
    let mut link = Link::new(LinkId::FORWARD, cfg, 1);
    let mut done: Option<Timestamp> = None;
    let mut delivered = 0;
    let gap = TimeDelta::from_micros(91);
    let mut now = Timestamp::ZERO;
    for id in 0..PACKETS {
        now += gap;
        while let Some(t) = done.filter(|t| *t <= now) {
            let f = link.finish(t).expect("busy");
            delivered += u64::from(f.exit_at.is_some());
            done = f.next.map(|n| n.done_at);
            while link.poll_dropped().is_some() {}
        }
        let ecn = if id % 2 == 0 { Ecn::Ect1 } else { Ecn::NotEct };
        let pkt = SimPacket::datagram(id, now, (id % 8) as u32, 1200, ecn);
        if let Offer::Started(s) = link.offer(now, pkt) {
            done = Some(s.done_at);
        }
        while link.poll_dropped().is_some() {}
    }
    delivered
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("queue");
    g.sample_size(20);
    g.throughput(Throughput::Elements(PACKETS));
    for d in [
        Discipline::DropTail,
        Discipline::Codel(CodelParams::default()),
        Discipline::FqCodel(FqCodelParams::default()),
        Discipline::Pie(PieParams::default()),
        Discipline::DualPi2(DualPi2Params::default()),
    ] {
        g.bench_function(d.name(), |b| b.iter(|| drive(black_box(d))));
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
