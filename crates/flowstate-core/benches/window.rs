//! Per-ack processing cost of the window controllers and of the SCTP sender's SACK path.

use flowstate_core::endpoint::Controller;
use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use flowstate_core::endpoint::data_source::SourceKind;
use flowstate_core::endpoint::sctp::{Sack, SctpSender, SctpSenderConfig};
use flowstate_core::endpoint::Endpoint;
use flowstate_core::units::{DataSize, TimeDelta, Timestamp};
use flowstate_core::window::{
    AckEvent, Cubic, CubicConfig, NewReno, NewRenoConfig, SctpCcConfig, SctpCongestionControl,
    WindowController,
};

/// One send + one ack of one packet, with a loss every 1000 packets.
fn drive<C: WindowController>(cc: &mut C, i: u64, now: &mut Timestamp) {
    let mtu = cc.mtu();
    *now += TimeDelta::from_micros(100);
    cc.on_sent(*now, mtu);
    if i % 1000 == 999 {
        cc.on_fast_retransmit(*now, i + 50);
        cc.on_lost(mtu);
        cc.on_sent(*now, mtu);
    }
    cc.on_ack(
        *now,
        &AckEvent {
            newly_acked: mtu,
            removed_from_flight: mtu,
            cum_ack: i,
            cum_ack_advanced: true,
            rtt: Some(TimeDelta::millis(50)),
        },
    );
    while cc.poll_cwnd_change().is_some() {}
}

fn bench_controller<C: WindowController>(c: &mut Criterion, name: &str, mut cc: C) {
    let mut now = Timestamp::ZERO;
    let mut i = 0u64;
    for _ in 0..100 {
        cc.on_sent(now, cc.mtu());
    }
    c.bench_function(name, |b| {
        b.iter(|| {
            i += 1;
            drive(black_box(&mut cc), i, &mut now);
        })
    });
}

fn controllers(c: &mut Criterion) {
    bench_controller(
        c,
        "on_ack/sctp",
        SctpCongestionControl::new(SctpCcConfig::default()),
    );
    bench_controller(c, "on_ack/new_reno", NewReno::new(NewRenoConfig::default()));
    bench_controller(c, "on_ack/cubic", Cubic::new(CubicConfig::default()));
}

/// A full SACK round on the SCTP sender: SACK in (acking 2 chunks), then whatever the
/// window allows out, with about 100 chunks outstanding.
fn sctp_sender_sack(c: &mut Criterion) {
    let mut s = SctpSender::new(SctpSenderConfig {
        cc: SctpCcConfig {
            initial_cwnd: Some(DataSize::bytes(120_000)),
            ..Default::default()
        },
        max_burst: 200,
        source: SourceKind::paper_greedy(),
        ..Default::default()
    });
    let mut now = Timestamp::ZERO;
    let mut sent = 0u64;
    while s.poll_transmit(now).is_some() {
        sent += 1;
    }
    let mut cum = 0u64;
    c.bench_function("sctp_sender/sack_round", |b| {
        b.iter(|| {
            now += TimeDelta::from_micros(500);
            cum = (cum + 2).min(sent);
            s.handle_input(
                now,
                Sack {
                    cum_tsn: cum,
                    a_rwnd: 1 << 20,
                    gap_blocks: Default::default(),
                    dup_tsns: Default::default(),
                    ecne: None,
                },
            );
            while let Some(t) = s.poll_transmit(now) {
                sent += 1;
                black_box(t);
            }
            while s.poll_cc_report().is_some() {}
        })
    });
}

criterion_group!(benches, controllers, sctp_sender_sack);
criterion_main!(benches);
