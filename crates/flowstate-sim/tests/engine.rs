//! Closed-loop engine tests against closed-form expectations.

mod common;

use common::scenario;
use flowstate_core::{Bitrate, DataSize, TimeDelta, Timestamp};
use flowstate_sim::coupling::{FlowInfo, NoCoupling};
use flowstate_sim::engine::{FlowSetup, SimConfig, Simulation, TraceKind};
use flowstate_sim::flow_kind::FlowKind;
use flowstate_sim::greedy::{greedy_flow, GreedyConfig};
use flowstate_sim::link::LinkConfig;
use flowstate_sim::metrics::{write_series_csv, MetricsConfig};
use flowstate_sim::queue::QueueLimit;
use flowstate_sim::topology::{FlowDirection, FlowPath};
use flowstate_sim::{run, run_toml};

#[test]
fn cbr_at_half_load_has_no_queue_and_full_throughput() {
    let s = scenario(
        r#"
name = "half"
duration = "20s"
[link]
capacity = "2Mbps"
delay = "25ms"
queue = "300ms"
[[flows]]
name = "cbr"
kind = "cbr"
overrides = { rate = "1Mbps", packet_size = "1000B" }
[measure]
start = "1s"
end = "19s"
"#,
    );
    let r = run(&s, 1).expect("runs");
    let f = &r.summary.flows[0];
    // 1000 B every 8 ms; serialization 4 ms: never queued.
    assert!(
        (f.throughput_mbps - 1.0).abs() < 0.01,
        "{}",
        f.throughput_mbps
    );
    assert!((f.send_rate_mbps - 1.0).abs() < 0.01);
    assert_eq!(f.queuing_delay_ms.p95, Some(0.0));
    assert_eq!(f.queuing_delay_ms.mean, Some(0.0));
    assert_eq!(f.loss_ratio, 0.0);
    assert!((r.summary.aggregate.utilization - 0.5).abs() < 0.01);
    assert_eq!(r.summary.aggregate.jain_index, 1.0);
    assert_eq!(f.rtt_ms.mean, None, "CBR has no RTT samples");
    assert_eq!(f.goodput_mbps.map(|g| (g - 1.0).abs() < 0.01), Some(true));
    // Bins: 40 bins of 500 ms, each ~1 Mbit/s after the first 25 ms.
    assert_eq!(r.series.len(), 40);
    for row in r.series.iter().skip(1) {
        assert!((row.throughput_mbps - 1.0).abs() < 0.02, "{row:?}");
    }
}

#[test]
fn cbr_overload_first_drop_index() {
    // CBR 1200 B every 3 ms (3.2 Mbit/s) into 1.2 Mbit/s (8 ms per packet), queue of
    // 11 packets. Packet k arrives at 3k ms; floor(3k/8) packets have left, one is in
    // service, so k - floor(3k/8) - 1 wait. The first k with 11 waiting is k = 18.
    let s = scenario(
        r#"
name = "overflow"
duration = "20s"
[link]
capacity = "1.2Mbps"
delay = "10ms"
queue = "11pkt"
[[flows]]
name = "cbr"
kind = "cbr"
overrides = { rate = "3.2Mbps", packet_size = "1200B" }
[measure]
trace = true
"#,
    );
    let r = run(&s, 1).expect("runs");
    let trace = r.trace.expect("trace requested");
    let first_drop = trace
        .iter()
        .find(|t| t.kind == TraceKind::Drop)
        .expect("overload drops");
    assert_eq!(first_drop.packet, 18);
    assert_eq!(first_drop.time_us, 54_000);
    // Long-run (the 12-packet start-up transient is < 0.2 % of 6 667 packets):
    // throughput = capacity, loss = 1 - 1.2/3.2.
    let f = &r.summary.flows[0];
    assert!(
        (f.throughput_mbps - 1.2).abs() < 0.05,
        "{}",
        f.throughput_mbps
    );
    assert!(
        (f.loss_ratio - (1.0 - 1.2 / 3.2)).abs() < 0.005,
        "{}",
        f.loss_ratio
    );
    // A full queue of 11 packets: a packet waits about 11 x 8 = 88 ms.
    let p95 = f.queuing_delay_ms.p95.unwrap_or(0.0);
    assert!((p95 - 88.0).abs() < 8.5, "p95 queuing {p95}");
}

#[test]
fn one_way_delay_is_serialization_plus_propagation_plus_path() {
    let s = scenario(
        r#"
name = "paths"
duration = "1s"
[link]
capacity = "1Mbps"
delay = "25ms"
queue = "100pkt"
[[flows]]
name = "near"
kind = "cbr"
overrides = { rate = "100kbps", packet_size = "1000B" }
[[flows]]
name = "far"
kind = "cbr"
start = "0.5s"
path_delay = "30ms"
overrides = { rate = "100kbps", packet_size = "1000B" }
[measure]
trace = true
"#,
    );
    let r = run(&s, 1).expect("runs");
    let trace = r.trace.expect("trace");
    for (flow, expect_ms) in [(0u32, 8 + 25), (1, 8 + 25 + 30)] {
        let first = trace
            .iter()
            .filter(|t| t.flow == flow)
            .map(|t| t.packet)
            .next()
            .expect("flow sent");
        let sent = trace
            .iter()
            .find(|t| t.packet == first && t.kind == TraceKind::Send)
            .expect("send");
        let got = trace
            .iter()
            .find(|t| t.packet == first && t.kind == TraceKind::Deliver)
            .expect("deliver");
        assert_eq!(got.time_us - sent.time_us, expect_ms * 1000, "flow {flow}");
    }
    // Flow 1 starts at 0.5 s: its first packet is sent then.
    let first_far = trace.iter().find(|t| t.flow == 1).expect("far sent");
    assert_eq!(first_far.time_us, 500_000);
}

#[test]
fn pause_stop_and_capacity_schedule() {
    let s = scenario(
        r#"
name = "sched"
duration = "20s"
[link]
capacity_schedule = [{ at = 0, rate = "2Mbps" }, { at = "10s", rate = "500kbps" }]
delay = "10ms"
queue = "100ms"
[[flows]]
name = "paused"
kind = "cbr"
pauses = [{ at = "2s", resume = "4s" }]
stop = "8s"
overrides = { rate = "1Mbps", packet_size = "1000B" }
[[flows]]
name = "squeezed"
kind = "cbr"
overrides = { rate = "1Mbps", packet_size = "1000B" }
[measure]
bin = "1s"
"#,
    );
    let r = run(&s, 1).expect("runs");
    let rows = |name: &str| -> Vec<f64> {
        r.series
            .iter()
            .filter(|row| row.flow == name)
            .map(|row| row.send_rate_mbps)
            .collect()
    };
    let p = rows("paused");
    assert_eq!(p.len(), 20);
    assert!((p[1] - 1.0).abs() < 0.01, "{p:?}");
    assert_eq!(p[2], 0.0, "paused 2-4 s");
    assert_eq!(p[3], 0.0);
    assert!((p[5] - 1.0).abs() < 0.01, "resumed");
    assert_eq!(p[8], 0.0, "stopped at 8 s");
    assert_eq!(p[19], 0.0);
    // After the capacity drops to 0.5 Mbit/s at 10 s the queue fills and the
    // throughput of the remaining flow is the capacity.
    let t: Vec<f64> = r
        .series
        .iter()
        .filter(|row| row.flow == "squeezed")
        .map(|row| row.throughput_mbps)
        .collect();
    assert!((t[5] - 1.0).abs() < 0.01);
    assert!((t[15] - 0.5).abs() < 0.01, "{t:?}");
    assert_eq!(r.series[15 * 2].capacity_mbps, 0.5);
    // Utilization over the run: capacity bits = 2 x 10 + 0.5 x 10 = 25 Mbit.
    let sent: f64 = r
        .summary
        .flows
        .iter()
        .map(|f| f.throughput_mbps * 20.0)
        .sum();
    assert!((r.summary.aggregate.utilization - sent / 25.0).abs() < 1e-9);
}

#[test]
fn reverse_flow_uses_reverse_link() {
    let s = scenario(
        r#"
name = "rev"
duration = "10s"
[link]
capacity = "10Mbps"
delay = "10ms"
queue = "50ms"
[reverse_link]
capacity = "500kbps"
delay = "10ms"
queue = "50ms"
[[flows]]
name = "up"
kind = "cbr"
direction = "reverse"
overrides = { rate = "1Mbps", packet_size = "1000B" }
"#,
    );
    let r = run(&s, 1).expect("runs");
    let f = &r.summary.flows[0];
    assert!(
        (f.throughput_mbps - 0.5).abs() < 0.02,
        "{}",
        f.throughput_mbps
    );
    assert!(f.loss_ratio > 0.45);
    // Reverse flows do not count towards the forward link's utilization.
    assert_eq!(r.summary.aggregate.utilization, 0.0);
}

fn jittery(seed_line: &str) -> String {
    format!(
        r#"
name = "det"
duration = "10s"
{seed_line}
[link]
capacity = "3Mbps"
delay = "25ms"
queue = "100ms"
jitter = "5ms"
loss = 0.01
[[flows]]
name = "a"
kind = "cbr"
overrides = {{ rate = "1.5Mbps" }}
[[flows]]
name = "b"
kind = "cbr"
start = "0.3s"
overrides = {{ rate = "1.7Mbps", packet_size = "900B" }}
"#
    )
}

#[test]
fn same_seed_same_trace_hash() {
    let text = jittery("");
    let a = run_toml(&text, "det.toml", Some(7)).expect("runs");
    let b = run_toml(&text, "det.toml", Some(7)).expect("runs");
    assert_eq!(a.trace_hash, b.trace_hash);
    assert_eq!(a.summary, b.summary);
    assert_eq!(a.events, b.events);
    assert!(a.events > 10_000);
}

#[test]
fn different_seed_different_trace_hash() {
    let text = jittery("");
    let a = run_toml(&text, "det.toml", Some(7)).expect("runs");
    let b = run_toml(&text, "det.toml", Some(8)).expect("runs");
    assert_ne!(a.trace_hash, b.trace_hash);
    // The file's seed is used when none is given.
    let c = run_toml(&jittery("seed = 7"), "det.toml", None).expect("runs");
    assert_eq!(a.trace_hash, c.trace_hash);
}

#[test]
fn trace_hash_covers_the_trace() {
    // Hash with and without keeping the trace is the same (it is always computed).
    let mut text = jittery("");
    let a = run_toml(&text, "det.toml", Some(1)).expect("runs");
    text.push_str("[measure]\ntrace = true\n");
    let b = run_toml(&text, "det.toml", Some(1)).expect("runs");
    assert_eq!(a.trace_hash, b.trace_hash);
    assert!(b.trace.is_some_and(|t| t.len() > 1000));
}

#[test]
fn without_the_series_the_run_is_the_same_and_keeps_no_rows() {
    // `[measure] series = false`: the same run (trace hash, summary), no time series
    // (flow or link rows), so the run's memory does not grow with its length.
    let text = jittery("");
    let a = run_toml(&text, "det.toml", Some(3)).expect("runs");
    let b = run_toml(
        &format!("{text}[measure]\nseries = false\n"),
        "det.toml",
        Some(3),
    )
    .expect("runs");
    assert_eq!(a.trace_hash, b.trace_hash);
    assert_eq!(a.summary.to_json(), b.summary.to_json());
    assert!(!a.series.is_empty() && !a.link_series.is_empty());
    assert!(b.series.is_empty() && b.link_series.is_empty());
}

#[test]
fn without_the_trace_hash_the_run_is_the_same_and_has_no_hash() {
    // `[measure] trace_hash = false`: the same summary, series and trace, no fingerprint.
    let text = format!("{}[measure]\ntrace = true\n", jittery(""));
    let a = run_toml(&text, "det.toml", Some(4)).expect("runs");
    let b = run_toml(&format!("{text}trace_hash = false\n"), "det.toml", Some(4)).expect("runs");
    assert!(a.trace_hash.is_some());
    assert_eq!(b.trace_hash, None);
    assert_eq!(a.summary.to_json(), b.summary.to_json());
    assert_eq!(a.series, b.series);
    assert_eq!(a.trace, b.trace);
    assert_eq!(a.events, b.events);
}

/// Reactive flows (TCP and GCC with feedback, RTT samples, queuing and random loss)
/// whose summary window starts after the first bins: what the recorder thread's
/// batches carry (trace records, window samples of all three histograms) and when.
fn many_samples() -> String {
    r#"
name = "recorder"
duration = "8s"
[link]
capacity = "12Mbps"
delay = "20ms"
queue = "80ms"
loss = 0.005
[[flows]]
name = "tcp"
kind = "tcp-newreno"
count = 3
[[flows]]
name = "gcc"
kind = "gcc"
[measure]
start = "1.3s"
end = "7.5s"
"#
    .to_string()
}

#[test]
fn the_recorder_thread_computes_what_the_loop_would() {
    // `[measure] recorder_thread`: the trace hash and the window histograms computed on
    // a helper thread are those the loop computes itself: the same summary (every
    // percentile), series and hash, over many hand-overs (crate::recorder).
    let text = many_samples();
    let off = run_toml(
        &format!("{text}recorder_thread = \"off\"\n"),
        "r.toml",
        Some(5),
    )
    .expect("runs");
    let on = run_toml(
        &format!("{text}recorder_thread = \"on\"\n"),
        "r.toml",
        Some(5),
    )
    .expect("runs");
    assert!(off.events > 20_000, "{}", off.events);
    assert!(off
        .summary
        .flows
        .iter()
        .all(|f| f.rtt_ms.p95.is_some() && f.queuing_delay_ms.p95.is_some()));
    assert_eq!(on.trace_hash, off.trace_hash);
    assert_eq!(on.summary.to_json(), off.summary.to_json());
    assert_eq!(on.series, off.series);
    // Auto below the threshold records in the loop: the same again.
    let auto = run_toml(&text, "r.toml", Some(5)).expect("runs");
    assert_eq!(auto.trace_hash, off.trace_hash);
    assert_eq!(auto.summary.to_json(), off.summary.to_json());
}

#[test]
fn runs_sharing_the_cores_leave_the_recorder_thread_off_unless_asked() {
    use flowstate_sim::metrics::RecorderThread;
    let mode = |line: &str| {
        let text = format!("{}{line}", many_samples());
        flowstate_sim::Scenario::from_toml(&text, "r.toml")
            .expect("valid")
            .sharing_cores()
            .measure
            .recorder_thread
    };
    assert_eq!(mode(""), Some(RecorderThread::Off));
    assert_eq!(
        mode("recorder_thread = \"auto\"\n"),
        Some(RecorderThread::Off)
    );
    assert_eq!(mode("recorder_thread = \"on\"\n"), Some(RecorderThread::On));
}

#[test]
fn a_recorder_thread_that_is_not_a_mode_is_refused() {
    let text = format!("{}recorder_thread = \"yes\"\n", many_samples());
    let err = run_toml(&text, "r.toml", Some(1))
        .expect_err("refused")
        .to_string();
    assert!(err.contains("recorder_thread"), "{err}");
    assert!(!err.contains('\n'), "{err}");
}

#[test]
fn the_scenario_name_labels_the_summary_and_nothing_else() {
    // The catalogue runner simulates points that differ only in their scenario's name
    // once (python/flowstate/catalogue/reproduce.py, SharedRuns): it relies on this.
    let text = jittery("");
    let a = run_toml(&text, "det.toml", Some(5)).expect("runs");
    let b = run_toml(
        &text.replacen("name = \"det\"", "name = \"twin\"", 1),
        "det.toml",
        Some(5),
    )
    .expect("runs");
    assert_eq!(a.trace_hash, b.trace_hash);
    assert_eq!(a.summary.scenario, "det");
    assert_eq!(b.summary.scenario, "twin");
    let relabelled =
        a.summary
            .to_json()
            .replacen("\"scenario\": \"det\"", "\"scenario\": \"twin\"", 1);
    assert_eq!(relabelled, b.summary.to_json());
    assert_eq!(a.series, b.series);
}

fn greedy_setup(name: &str, path_delay_ms: i64) -> FlowSetup {
    FlowSetup {
        info: FlowInfo {
            index: 0,
            name: name.into(),
            kind: FlowKind::from_name("tcp-newreno").expect("a kind"),
            priority: 1.0,
            desired_rate: None,
            group: Some("call".into()),
        },
        path: FlowPath {
            direction: FlowDirection::Forward,
            path_delay: TimeDelta::millis(path_delay_ms),
        },
        start: Timestamp::ZERO,
        stop: None,
        pauses: vec![],
        priority_schedule: vec![],
        desired_rate_schedule: vec![],
    }
}

#[test]
fn fixed_window_rtt_is_window_times_service_time() {
    // Window 20 x 1500 B on 1.2 Mbit/s (10 ms per packet), RTT_base ~ 50 ms (< 20
    // packets): the link is saturated and every packet's RTT is 20 x 10 ms = 200 ms.
    let link = LinkConfig::constant(
        Bitrate::mbps(1.2),
        TimeDelta::millis(20),
        QueueLimit::Packets(100),
    );
    let config = SimConfig {
        name: "window".into(),
        seed: 1,
        duration: Timestamp::from_secs(20),
        forward: link.clone(),
        reverse: link,
        network: None,
        flows: vec![greedy_setup("w", 0)],
        metrics: MetricsConfig {
            window_start: Timestamp::from_secs(5),
            window_end: Timestamp::from_secs(20),
            ..MetricsConfig::default()
        },
    };
    let flow = greedy_flow(GreedyConfig {
        packet_size: DataSize::bytes(1500),
        ack_size: DataSize::bytes(40),
        initial_cwnd: 20.0,
        aimd: false,
        loss_timeout: TimeDelta::secs(5),
    });
    let r = Simulation::new(config, vec![Box::new(flow)], Box::new(NoCoupling)).run();
    let f = &r.summary.flows[0];
    let p50 = f.rtt_ms.p50.unwrap_or(0.0);
    assert!((p50 - 200.0).abs() < 1.0, "rtt p50 {p50}");
    assert!(
        (f.throughput_mbps - 1.2).abs() < 0.01,
        "{}",
        f.throughput_mbps
    );
    // Queuing delay = RTT - serialization (10) - propagation (40) - ack serialization
    // (40 B at 1.2 Mbit/s = 0.27 ms) = 149.7 ms.
    let q = f.queuing_delay_ms.p50.unwrap_or(0.0);
    assert!((q - 149.7).abs() < 1.0, "queuing p50 {q}");
    assert_eq!(f.loss_ratio, 0.0);
}

#[test]
fn path_delays_give_different_rtts() {
    // Two greedy flows with a small window (link not saturated): RTT = base RTT.
    let link = LinkConfig::constant(
        Bitrate::mbps(100.0),
        TimeDelta::millis(10),
        QueueLimit::Packets(100),
    );
    let mut far = greedy_setup("far", 40);
    far.info.index = 1;
    let config = SimConfig {
        name: "rtts".into(),
        seed: 1,
        duration: Timestamp::from_secs(5),
        forward: link.clone(),
        reverse: link,
        network: None,
        flows: vec![greedy_setup("near", 0), far],
        metrics: MetricsConfig::default(),
    };
    let cfg = GreedyConfig {
        initial_cwnd: 1.0,
        ..GreedyConfig::default()
    };
    let flows: Vec<Box<dyn flowstate_sim::flow::SimFlow>> =
        vec![Box::new(greedy_flow(cfg)), Box::new(greedy_flow(cfg))];
    let r = Simulation::new(config, flows, Box::new(NoCoupling)).run();
    // near: 2 x 10 ms + 120 us + 3.2 us; far: + 2 x 40 ms.
    let near = r.summary.flows[0].rtt_ms.mean.unwrap_or(0.0);
    let far = r.summary.flows[1].rtt_ms.mean.unwrap_or(0.0);
    assert!((near - 20.123).abs() < 0.01, "{near}");
    assert!((far - 100.123).abs() < 0.01, "{far}");
}

#[test]
fn summary_json_and_csv_contracts() {
    let r = run_toml(&jittery(""), "det.toml", Some(3)).expect("runs");
    let v: serde_json::Value = serde_json::from_str(&r.summary.to_json()).expect("json");
    for key in [
        "scenario",
        "seed",
        "duration_s",
        "window_s",
        "flows",
        "aggregate",
    ] {
        assert!(v.get(key).is_some(), "missing {key}");
    }
    let f = &v["flows"][0];
    for key in [
        "name",
        "kind",
        "priority",
        "throughput_mbps",
        "send_rate_mbps",
        "rtt_ms",
        "queuing_delay_ms",
        "loss_ratio",
        "share",
    ] {
        assert!(f.get(key).is_some(), "missing flows[].{key}");
    }
    for key in ["mean", "p50", "p95"] {
        assert!(f["queuing_delay_ms"].get(key).is_some());
    }
    for key in ["utilization", "jain_index", "throughput_mbps"] {
        assert!(v["aggregate"].get(key).is_some(), "missing aggregate.{key}");
    }
    let shares: f64 = r.summary.flows.iter().map(|f| f.share).sum();
    assert!((shares - 1.0).abs() < 1e-9);
    let mut buf = Vec::new();
    write_series_csv(&r.series, &mut buf).expect("csv");
    let text = String::from_utf8(buf).expect("utf8");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 1 + 2 * 20, "header + 2 flows x 20 bins");
    assert!(lines[0].starts_with("time_s,flow,send_rate_mbps,throughput_mbps"));
    assert_eq!(lines[1].split(',').count(), lines[0].split(',').count());
}

/// A toy coupling hook: whenever flow 0 reports, cap flow 1's window at 2 packets;
/// counts lifecycle calls.
#[derive(Default)]
struct CapOther {
    states: std::rc::Rc<std::cell::RefCell<Vec<(usize, flowstate_sim::flow::FlowState)>>>,
}

impl flowstate_sim::coupling::CouplingHook for CapOther {
    fn on_state(
        &mut self,
        _now: Timestamp,
        flow: &FlowInfo,
        state: flowstate_sim::flow::FlowState,
    ) {
        self.states.borrow_mut().push((flow.index, state));
    }
    fn on_report(
        &mut self,
        _now: Timestamp,
        flow: usize,
        report: &flowstate_core::coupling::FlowReport,
        out: &mut Vec<(usize, flowstate_core::coupling::Allowance)>,
    ) {
        if flow == 0 && matches!(report, flowstate_core::coupling::FlowReport::Window { .. }) {
            out.push((
                1,
                flowstate_core::coupling::Allowance::MaxWindow(Some(DataSize::bytes(3000))),
            ));
        }
    }
}

#[test]
fn coupling_hook_receives_reports_and_its_allowances_are_applied() {
    // Two AIMD greedy flows on 10 Mbit/s; uncoupled they split roughly evenly. With the
    // hook, flow 1 is capped at 2 packets per RTT (~2 x 1500 B / 40 ms = 0.6 Mbit/s).
    let link = LinkConfig::constant(
        Bitrate::mbps(10.0),
        TimeDelta::millis(20),
        QueueLimit::Time(TimeDelta::millis(100)),
    );
    let mut second = greedy_setup("capped", 0);
    second.info.index = 1;
    second.stop = Some(Timestamp::from_secs(15));
    let config = SimConfig {
        name: "coupled".into(),
        seed: 1,
        duration: Timestamp::from_secs(20),
        forward: link.clone(),
        reverse: link,
        network: None,
        flows: vec![greedy_setup("free", 0), second],
        metrics: MetricsConfig {
            window_start: Timestamp::from_secs(5),
            window_end: Timestamp::from_secs(15),
            ..MetricsConfig::default()
        },
    };
    let cfg = GreedyConfig {
        aimd: true,
        initial_cwnd: 2.0,
        ..GreedyConfig::default()
    };
    let hook = CapOther::default();
    let states = hook.states.clone();
    let flows: Vec<Box<dyn flowstate_sim::flow::SimFlow>> =
        vec![Box::new(greedy_flow(cfg)), Box::new(greedy_flow(cfg))];
    let r = Simulation::new(config, flows, Box::new(hook)).run();
    let capped = r.summary.flows[1].throughput_mbps;
    let free = r.summary.flows[0].throughput_mbps;
    // Cap: 2 packets per RTT; RTT >= 40 ms base, so <= 0.6 Mbit/s.
    assert!(capped <= 0.61, "capped flow {capped}");
    assert!(free > 8.0, "the other flow takes the rest: {free}");
    use flowstate_sim::flow::FlowState;
    assert_eq!(
        *states.borrow(),
        vec![
            (0, FlowState::Active),
            (1, FlowState::Active),
            (1, FlowState::Stopped)
        ]
    );
}

/// The series' `target_mbps`: a rate flow's controller value while it runs (GCC's
/// target here), nothing for a window flow, nothing before a flow starts; the CSV's
/// last column.
#[test]
fn series_target_is_the_rate_controllers_value() {
    let text = r#"
name = "target"
duration = "6s"
[link]
capacity = "2Mbps"
delay = "20ms"
queue = "100ms"
[[flows]]
name = "video"
kind = "gcc"
start = "1s"
[[flows]]
name = "data"
kind = "tcp-newreno"
"#;
    let r = run_toml(text, "target.toml", Some(1)).expect("runs");
    let rows = |flow: &str| -> Vec<(f64, Option<f64>)> {
        r.series
            .iter()
            .filter(|row| row.flow == flow)
            .map(|row| (row.time_s, row.target_mbps))
            .collect()
    };
    let video = rows("video");
    // Bins of 500 ms: the bins closing before the start at 1 s have none; then GCC's
    // target, within the chromium preset's bounds.
    assert!(
        video.iter().filter(|r| r.0 < 0.5).all(|r| r.1.is_none()),
        "{video:?}"
    );
    let running: Vec<f64> = video
        .iter()
        .filter(|r| r.0 >= 1.0)
        .filter_map(|r| r.1)
        .collect();
    assert_eq!(
        running.len(),
        video.iter().filter(|r| r.0 >= 1.0).count(),
        "{video:?}"
    );
    assert!(running.iter().all(|&t| t > 0.0 && t <= 2.5), "{running:?}");
    assert!(rows("data").iter().all(|r| r.1.is_none()));
    let mut buf = Vec::new();
    write_series_csv(&r.series, &mut buf).expect("csv");
    let text = String::from_utf8(buf).expect("utf8");
    assert!(text
        .lines()
        .next()
        .is_some_and(|h| h.ends_with(",capacity_mbps,target_mbps")));
}
