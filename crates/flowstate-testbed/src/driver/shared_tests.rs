use super::*;
use flowstate_core::TimeDelta;
use flowstate_sim::flow::Dir;
use flowstate_sim::link::LinkConfig;
use flowstate_sim::metrics::{FlowMeta, MetricsConfig};
use flowstate_sim::queue::QueueLimit;
use std::time::{Duration, Instant};

fn shared(flows: usize) -> Shared {
    let metas = (0..flows)
        .map(|i| FlowMeta {
            name: format!("f{i}"),
            kind: "gcc".into(),
            priority: 1.0,
            forward: true,
        })
        .collect();
    let link = LinkConfig::constant(Bitrate::mbps(1.0), TimeDelta::ZERO, QueueLimit::Packets(10));
    Shared {
        clock: Clock(Instant::now() - Duration::from_secs(1)),
        metrics: Mutex::new(Metrics::new(MetricsConfig::default(), metas, link)),
        goodput: (0..flows).map(|_| AtomicU64::new(NO_GOODPUT)).collect(),
        target: (0..flows).map(|_| AtomicU64::new(NO_TARGET)).collect(),
        end_us: AtomicU64::new(u64::MAX),
    }
}

#[test]
fn a_published_rate_reads_back_and_none_is_the_empty_cell() {
    let slot = AtomicU64::new(rate_bits(Some(Bitrate::kbps(812.5))));
    assert_eq!(published_rate(&slot), Some(Bitrate::kbps(812.5)));
    slot.store(rate_bits(None), Ordering::Relaxed);
    assert_eq!(published_rate(&slot), None);
    let s = shared(2);
    s.target[1].store(rate_bits(Some(Bitrate::mbps(1.5))), Ordering::Relaxed);
    assert_eq!(s.target(0), None);
    assert_eq!(s.target(1), Some(Bitrate::mbps(1.5)));
    assert_eq!(s.target(2), None, "no such flow");
}

#[test]
fn a_flow_without_a_goodput_counter_has_no_goodput() {
    let s = shared(2);
    s.goodput[1].store(4_000, Ordering::Relaxed);
    assert_eq!(s.goodput(0), None);
    assert_eq!(s.goodput(1), Some(4_000));
    assert_eq!(s.goodput(5), None);
}

#[test]
fn nothing_is_recorded_after_the_measured_end() {
    let s = shared(1);
    let mut calls = 0;
    s.record(|m, t| {
        m.on_send(t, 0, Dir::Data, 1_000);
        calls += 1;
    });
    assert_eq!(calls, 1);
    // The run ended (the clock is past 1 s): the SCTP shutdown and the packets still in
    // flight are not measured.
    s.end_us.store(1_000_000, Ordering::Relaxed);
    s.record(|_, _| calls += 1);
    assert_eq!(calls, 1);
}
