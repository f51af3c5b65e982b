//! Per-ack / per-feedback processing cost of the RAP and TFRC endpoints.
//!
//! Run: `cargo bench -p flowstate-core --bench rate -- --warm-up-time 1 --measurement-time 3`

use criterion::{criterion_group, criterion_main, Criterion};
use flowstate_core::endpoint::rap::{RapAck, RapSender};
use flowstate_core::endpoint::tfrc::{
    TfrcData, TfrcFeedback, TfrcReceiver, TfrcReceiverEndpointConfig, TfrcSender,
};
use flowstate_core::endpoint::Endpoint;
use flowstate_core::rate::rap::RapConfig;
use flowstate_core::rate::tfrc::TfrcConfig;
use flowstate_core::rate::tfrc_equation::{throughput_bytes_per_sec, EquationParams};
use flowstate_core::units::{Bitrate, DataSize, TimeDelta, Timestamp};
use std::hint::black_box;

fn rap_ack(c: &mut Criterion) {
    // Steady state: ~100 packets in flight at 8 Mbit/s (1 ms gap), each ack arrives
    // 100 ms after its packet. One iteration = one ack + timer check + one send.
    let mut s = RapSender::new(RapConfig {
        initial_rate: Bitrate::mbps(8.0),
        ..RapConfig::default()
    });
    let mut now = Timestamp::ZERO;
    let mut acked = 0u64;
    for _ in 0..100 {
        black_box(s.poll_transmit(now));
        now += TimeDelta::millis(1);
    }
    c.bench_function("rap_sender_ack", |b| {
        b.iter(|| {
            let seq = acked;
            acked += 1;
            let history = if seq % 200 == 1 {
                u64::MAX << 1
            } else {
                u64::MAX
            };
            s.handle_input(
                now,
                black_box(RapAck {
                    seq,
                    echo_send_time: now - TimeDelta::millis(100),
                    history,
                    ce: false,
                }),
            );
            s.handle_timeout(now);
            now += TimeDelta::millis(1);
            black_box(s.poll_transmit(now));
        })
    });
}

fn tfrc_feedback(c: &mut Criterion) {
    let mut s = TfrcSender::new(TfrcConfig::default());
    let mut now = Timestamp::ZERO;
    let _ = s.poll_transmit(now);
    c.bench_function("tfrc_sender_feedback", |b| {
        b.iter(|| {
            now += TimeDelta::millis(100);
            s.handle_input(
                now,
                black_box(TfrcFeedback {
                    timestamp_echo: now - TimeDelta::millis(100),
                    t_delay: TimeDelta::millis(1),
                    x_recv: Bitrate::mbps(5.0),
                    p: 0.01,
                }),
            );
        })
    });
}

fn tfrc_receiver_data(c: &mut Criterion) {
    let mut r = TfrcReceiver::new(TfrcReceiverEndpointConfig::default());
    let mut now = Timestamp::ZERO;
    let mut seq = 0u64;
    c.bench_function("tfrc_receiver_data", |b| {
        b.iter(|| {
            seq += if seq % 500 == 0 { 2 } else { 1 };
            now += TimeDelta::millis(1);
            r.handle_input(
                now,
                black_box(TfrcData {
                    seq,
                    timestamp: now,
                    rtt: Some(TimeDelta::millis(100)),
                    size: DataSize::bytes(1000),
                }),
            );
            r.handle_timeout(now);
            black_box(r.poll_transmit(now));
        })
    });
}

fn equation(c: &mut Criterion) {
    c.bench_function("tfrc_equation", |b| {
        b.iter(|| {
            throughput_bytes_per_sec(
                black_box(1000.0),
                black_box(0.1),
                black_box(0.01),
                EquationParams::default(),
            )
        })
    });
}

criterion_group!(
    benches,
    rap_ack,
    tfrc_feedback,
    tfrc_receiver_data,
    equation
);
criterion_main!(benches);
