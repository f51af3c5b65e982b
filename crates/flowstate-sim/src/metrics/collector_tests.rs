use super::*;

#[test]
fn one_way_delay_and_jitter_in_the_summary() {
    let fwd = LinkConfig::constant(
        flowstate_core::Bitrate::mbps(1.0),
        TimeDelta::ZERO,
        crate::queue::QueueLimit::Packets(1),
    );
    let meta = vec![FlowMeta {
        name: "a".into(),
        kind: "cbr".into(),
        priority: 1.0,
        forward: true,
    }];
    let mut m = Metrics::new(MetricsConfig::default(), meta, fwd);
    // Transit alternates 40 ms / 60 ms: mean one-way delay 50 ms; |D| = 20 ms.
    for k in 0..400u64 {
        let sent = Timestamp::from_millis(k * 10);
        let now = sent + TimeDelta::millis(if k % 2 == 0 { 40 } else { 60 });
        m.advance(now, |_| None, |_| None);
        m.on_deliver(now, 0, Dir::Data, 1000, sent);
    }
    let (sum, _) = m.finish(Timestamp::from_secs(5), "t", 1, 0, |_| None, |_| None);
    let f = &sum.flows[0];
    assert!(
        (f.one_way_delay_ms.mean.unwrap_or(0.0) - 50.0).abs() < 1e-9,
        "{f:?}"
    );
    // J converges to 20 ms from 0 with gain 1/16: the mean over 399 estimates is a
    // little below 20 ms (sum of the start-up deficit 20 x 16 = 320 ms / 399).
    let j = f.jitter_ms.unwrap_or(0.0);
    assert!(j > 19.0 && j < 20.0, "{j}");
    // Nothing delivered: no jitter, no delay.
    let empty = Summary::template(&["x"]);
    assert_eq!(empty.flows[0].jitter_ms, None);
    assert_eq!(empty.flows[0].one_way_delay_ms.mean, None);
    // The per-kind fields are in the contract a metric path is checked against.
    assert!(empty.flows[0].video.is_some() && empty.flows[0].ce_marks.is_some());
}

#[test]
fn bins_and_window_rates() {
    let fwd = LinkConfig::constant(
        flowstate_core::Bitrate::mbps(1.0),
        TimeDelta::ZERO,
        crate::queue::QueueLimit::Packets(1),
    );
    let cfg = MetricsConfig {
        bin: TimeDelta::secs(1),
        window_start: Timestamp::from_secs(1),
        window_end: Timestamp::from_secs(3),
        trace: false,
        series: true,
        trace_hash: true,
        ..MetricsConfig::default()
    };
    let meta = vec![FlowMeta {
        name: "a".into(),
        kind: "cbr".into(),
        priority: 1.0,
        forward: true,
    }];
    let mut m = Metrics::new(cfg, meta, fwd);
    // 125 000 B per second delivered = 1 Mbit/s, for 4 s.
    for s in 0..4u64 {
        for k in 0..125u64 {
            let t = Timestamp::from_millis(s * 1000 + k * 8);
            m.advance(t, |_| None, |_| None);
            m.on_send(t, 0, Dir::Data, 1000);
            m.on_deliver(t, 0, Dir::Data, 1000, t);
        }
    }
    let (sum, rows) = m.finish(Timestamp::from_secs(4), "t", 1, 0, |_| None, |_| None);
    assert_eq!(rows.len(), 4);
    for r in &rows {
        assert!((r.throughput_mbps - 1.0).abs() < 1e-9, "{r:?}");
    }
    let f = &sum.flows[0];
    assert!((f.throughput_mbps - 1.0).abs() < 1e-9);
    assert!((sum.aggregate.utilization - 1.0).abs() < 1e-9);
    assert_eq!(sum.window_s, [1.0, 3.0]);
    assert_eq!(f.sent_packets, 250);
}
