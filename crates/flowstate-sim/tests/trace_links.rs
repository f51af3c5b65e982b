//! Trace-driven links (`capacity_trace`): Mahimahi delivery exactly as the trace says,
//! csv and gym-json schedules, relative paths and one-line errors, determinism.

use flowstate_sim::engine::{TraceKind, TraceRecord};
use flowstate_sim::{run, Scenario};
use std::path::{Path, PathBuf};

fn traces() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/traces")
}

/// A scenario whose trace paths are relative to scenarios/traces.
fn scenario(text: &str) -> Scenario {
    Scenario::from_toml_in(text, "test.toml", &traces()).expect("valid scenario")
}

/// The unrolled opportunities of a Mahimahi file (ms), read independently of the
/// simulator: each line once, repeated with period = the last line, up to `end_ms`.
fn opportunities_ms(file: &str, end_ms: u64) -> Vec<u64> {
    let text = std::fs::read_to_string(traces().join(file)).expect("trace file");
    let one: Vec<u64> = text
        .lines()
        .map(|l| l.trim().parse().expect("ms"))
        .collect();
    let period = *one.last().expect("non-empty");
    let mut out = Vec::new();
    for cycle in 0.. {
        for &t in &one {
            let t = t + cycle * period;
            if t > end_ms {
                return out;
            }
            out.push(t);
        }
    }
    out
}

fn cbr_on_trace(file: &str, rate: &str, size: &str, duration_s: u32) -> String {
    format!(
        r#"
name = "mm"
duration = "{duration_s}s"
[link]
capacity_trace = {{ file = "{file}", format = "mahimahi" }}
delay = "10ms"
queue = "100000pkt"
[[flows]]
name = "cbr"
kind = "cbr"
overrides = {{ rate = "{rate}", packet_size = "{size}" }}
[measure]
trace = true
"#
    )
}

fn data_exits(trace: &[TraceRecord]) -> Vec<u64> {
    trace
        .iter()
        .filter(|r| r.kind == TraceKind::Exit && r.link == 0 && r.dir == 0)
        .map(|r| r.time_us)
        .collect()
}

#[test]
fn mahimahi_backlogged_delivers_one_packet_per_opportunity_exactly() {
    // 1500-byte packets at 6 Mbit/s keep the 2.4 / 0.48 Mbit/s step trace backlogged:
    // packet k leaves at the k-th opportunity after 0 plus the 10 ms delay, through
    // three loops of the 2-s trace.
    let r = run(
        &scenario(&cbr_on_trace("step.mahimahi", "6Mbps", "1500B", 6)),
        1,
    )
    .expect("runs");
    let exits = data_exits(r.trace.as_deref().expect("trace kept"));
    let expected: Vec<u64> = opportunities_ms("step.mahimahi", 6000)
        .into_iter()
        .filter(|&t| t > 0)
        .map(|t| (t + 10) * 1000)
        .take_while(|&us| us < 6_000_000)
        .collect();
    assert_eq!(exits.len(), expected.len());
    assert_eq!(exits, expected);
    // The capacity the summary divides by is the trace's: 240 opportunities per 2 s.
    let cap_bits = 240.0 * 1500.0 * 8.0 * 3.0;
    let thr = r.summary.aggregate.throughput_mbps * 6.0 * 1e6;
    assert!(
        (thr - cap_bits).abs() / cap_bits < 0.01,
        "{thr} vs {cap_bits}"
    );
}

#[test]
fn mahimahi_packs_small_and_splits_large_packets() {
    // Backlogged 1000-byte packets: opportunity j carries 1500 bytes, so packet k's
    // last byte leaves at opportunity ceil((k + 1) x 1000 / 1500) - 1 (packet 1 spans
    // opportunities 0 and 1, as in mm-link).
    let r = run(
        &scenario(&cbr_on_trace("step.mahimahi", "8Mbps", "1000B", 2)),
        1,
    )
    .expect("runs");
    let exits = data_exits(r.trace.as_deref().expect("trace kept"));
    let opps: Vec<u64> = opportunities_ms("step.mahimahi", 2000)
        .into_iter()
        .filter(|&t| t > 0)
        .collect();
    let expected: Vec<u64> = (0u64..)
        .map(|k| ((k + 1) * 1000).div_ceil(1500) - 1)
        .map_while(|j| opps.get(j as usize).map(|t| (t + 10) * 1000))
        .take_while(|&us| us < 2_000_000)
        .collect();
    assert_eq!(exits, expected);
    // 3000-byte packets take two whole opportunities each.
    let r = run(
        &scenario(&cbr_on_trace("step.mahimahi", "8Mbps", "3000B", 2)),
        1,
    )
    .expect("runs");
    let exits = data_exits(r.trace.as_deref().expect("trace kept"));
    let expected: Vec<u64> = opps
        .iter()
        .skip(1)
        .step_by(2)
        .map(|t| (t + 10) * 1000)
        .take_while(|&us| us < 2_000_000)
        .collect();
    assert_eq!(exits, expected);
}

#[test]
fn mahimahi_idle_link_uses_the_next_opportunity_strictly_after_arrival() {
    // One 1500-byte packet every 10 ms on opportunities every 5 ms (first second): a
    // packet sent at an opportunity's time cannot use it (mm-link burns the
    // opportunities up to now before it queues the packet), so each leaves 5 ms after
    // it was sent, plus the delay; what an opportunity has left is lost.
    let r = run(
        &scenario(&cbr_on_trace("step.mahimahi", "1.2Mbps", "1500B", 1)),
        1,
    )
    .expect("runs");
    let trace = r.trace.expect("trace kept");
    let sends: Vec<u64> = trace
        .iter()
        .filter(|r| r.kind == TraceKind::Send && r.dir == 0)
        .map(|r| r.time_us)
        .collect();
    let exits = data_exits(&trace);
    assert!(exits.len() > 90, "{}", exits.len());
    for (s, e) in sends.iter().zip(&exits) {
        assert_eq!(e - s, 15_000, "sent at {s} us");
    }
}

#[test]
fn mahimahi_without_loop_stops_delivering_at_the_end() {
    let text = cbr_on_trace("step.mahimahi", "6Mbps", "1500B", 4).replace(
        "format = \"mahimahi\"",
        "format = \"mahimahi\", loop = false",
    );
    let r = run(&scenario(&text), 1).expect("runs");
    let exits = data_exits(r.trace.as_deref().expect("trace kept"));
    // Each of the 240 opportunities (5 ms .. 2000 ms) carries a packet, then nothing.
    assert_eq!(exits.len(), 240);
    assert_eq!(exits.last(), Some(&((2000 + 10) * 1000)));
}

#[test]
fn csv_trace_is_a_looping_capacity_schedule_with_outages() {
    // example.csv: 2, 1.6, 2.4, 0.8, 0.3, 0 (10-11 s), 1.2, ... Mbit/s; 21 s period.
    let r = run(
        &scenario(
            r#"
name = "csv"
duration = "42s"
[link]
capacity_trace = { file = "example.csv", format = "csv" }
delay = "20ms"
queue = "200pkt"
[[flows]]
name = "cbr"
kind = "cbr"
overrides = { rate = "4Mbps", packet_size = "1000B" }
[measure]
bin = "1s"
"#,
        ),
        1,
    )
    .expect("runs");
    let cap: Vec<f64> = r.series.iter().map(|s| s.capacity_mbps).collect();
    assert_eq!(cap[0], 2.0);
    assert_eq!(cap[4], 2.4);
    assert_eq!(cap[10], 0.0);
    // The trace loops at 21 s (the last row lasts one 2-s interval).
    assert_eq!(cap[21], 2.0);
    assert_eq!(cap[31], 0.0);
    for (k, s) in r.series.iter().enumerate() {
        // A saturated link carries its capacity (within a packet per bin), nothing
        // during the outage, and the link resumes after it.
        if k >= 1 {
            assert!(
                (s.throughput_mbps - s.capacity_mbps).abs() < 0.1,
                "bin {k}: {} vs {}",
                s.throughput_mbps,
                s.capacity_mbps
            );
        }
    }
    assert!(r.summary.aggregate.utilization > 0.97);
}

#[test]
fn gym_json_applies_per_segment_delay_jitter_and_loss() {
    let r = run(
        &scenario(
            r#"
name = "gym"
duration = "30s"
[link]
capacity_trace = { file = "example-gym.json", format = "gym-json" }
delay = "0ms"
queue = "100pkt"
[[flows]]
name = "cbr"
kind = "cbr"
overrides = { rate = "400kbps", packet_size = "1000B" }
[measure]
trace = true
bin = "1s"
"#,
        ),
        1,
    )
    .expect("runs");
    let trace = r.trace.expect("trace kept");
    // Per packet: exit - start of serialization = serialization + delay (+ jitter).
    let mut start = std::collections::HashMap::new();
    let mut by_seg: [Vec<f64>; 3] = Default::default();
    let mut lost = [0u32; 3];
    for rec in trace.iter().filter(|r| r.link == 0) {
        let seg = ((rec.time_us / 10_000_000) as usize).min(2);
        match rec.kind {
            TraceKind::Serialize => {
                start.insert(rec.packet, rec.time_us);
            }
            TraceKind::Exit => {
                // By the segment serialization started in, leaving out the first
                // 0.5 s of each: a packet never overtakes the one before it, so the
                // delay of the segment before holds a moment after a delay drops.
                let s = start[&rec.packet];
                let seg = ((s / 10_000_000) as usize).min(2);
                if s % 10_000_000 >= 500_000 {
                    by_seg[seg].push((rec.time_us - s) as f64 / 1000.0);
                }
            }
            TraceKind::Lost => lost[seg] += 1,
            _ => {}
        }
    }
    let mean = |v: &Vec<f64>| v.iter().sum::<f64>() / v.len() as f64;
    // 1000 B at 2 Mbit/s: 4 ms + rtt 100 / 2; at 1.5 Mbit/s: 5.33 ms + 50 ms; the middle
    // segment: 10 ms at 800 kbit/s + rtt 160 / 2 with 5 ms jitter (mean ~0).
    assert!(
        (mean(&by_seg[0]) - 54.0).abs() < 0.01,
        "{}",
        mean(&by_seg[0])
    );
    assert!(
        (mean(&by_seg[2]) - 55.333).abs() < 0.01,
        "{}",
        mean(&by_seg[2])
    );
    assert!(
        (mean(&by_seg[1]) - 90.0).abs() < 1.5,
        "{}",
        mean(&by_seg[1])
    );
    // Loss 1 % only in the middle segment (~500 packets: a few lost).
    assert_eq!((lost[0], lost[2]), (0, 0));
    assert!(lost[1] >= 1 && lost[1] <= 15, "{lost:?}");
    // The default reverse link carries the trace's rtt / 2 too.
    let rev = flowstate_sim::run::sim_config(
        &scenario(
            "name = \"g\"\nduration = \"5s\"\n[link]\ncapacity_trace = { file = \"example-gym.json\", format = \"gym-json\" }\ndelay = \"0ms\"\nqueue = \"10pkt\"\n[[flows]]\nname = \"c\"\nkind = \"cbr\"\noverrides = { rate = \"1Mbps\" }\n",
        ),
        1,
    )
    .reverse;
    let t = flowstate_core::Timestamp::from_secs(15);
    assert_eq!(
        rev.conditions_at(t).0,
        flowstate_core::TimeDelta::millis(80)
    );
    assert_eq!(rev.conditions_at(t).1, None);
    assert_eq!(rev.conditions_at(t).2, 0.0);
}

fn coupled_pair_on_cellular(mechanism: &str) -> String {
    format!(
        r#"
name = "cellular"
duration = "40s"
[link]
capacity_trace = {{ file = "cellular-synth.mahimahi", format = "mahimahi" }}
delay = "40ms"
queue = "60pkt"
jitter = "2ms"
loss = 0.005
[coupling]
mechanism = "{mechanism}"
[[flows]]
name = "gcc"
kind = "gcc"
[[flows]]
name = "sctp"
kind = "sctp"
start = "5s"
"#
    )
}

#[test]
fn a_trace_run_is_a_pure_function_of_scenario_and_seed() {
    for mechanism in ["none", "fsev2"] {
        let s = scenario(&coupled_pair_on_cellular(mechanism));
        let a = run(&s, 3).expect("runs");
        let b = run(&s, 3).expect("runs");
        assert_eq!(a.trace_hash, b.trace_hash, "{mechanism}");
        assert_eq!(a.summary.to_json(), b.summary.to_json(), "{mechanism}");
        let c = run(&s, 4).expect("runs");
        assert_ne!(
            a.trace_hash, c.trace_hash,
            "{mechanism}: the seed must matter"
        );
        // Reading the scenario again reads the trace again: same run.
        let again = run(&scenario(&coupled_pair_on_cellular(mechanism)), 3).expect("runs");
        assert_eq!(a.trace_hash, again.trace_hash);
    }
}

#[test]
fn relative_paths_follow_the_scenario_file_and_errors_are_one_line() {
    let dir = std::env::temp_dir().join(format!("flowstate-trace-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("t")).expect("temp dir");
    std::fs::write(dir.join("t/ok.csv"), "0,1e6\n1,2e6\n").expect("write");
    std::fs::write(dir.join("t/bad.csv"), "0,1e6\n1,2e6\n2,fast\n").expect("write");
    let text = |file: &str, fmt: &str| {
        format!(
            "name = \"p\"\nduration = \"2s\"\n[link]\ncapacity_trace = {{ file = \"{file}\", format = \"{fmt}\" }}\ndelay = \"1ms\"\nqueue = \"10pkt\"\n[[flows]]\nname = \"c\"\nkind = \"cbr\"\noverrides = {{ rate = \"1Mbps\" }}\n"
        )
    };
    let scen = dir.join("s.toml");
    std::fs::write(&scen, text("t/ok.csv", "csv")).expect("write");
    let s = flowstate_sim::run::load(&scen).expect("relative to the scenario's folder");
    assert!(s.link.as_ref().is_some_and(|l| l.trace.is_some()));
    let msg = |body: String| {
        std::fs::write(&scen, body).expect("write");
        flowstate_sim::run::load(&scen)
            .expect_err("bad")
            .to_string()
    };
    let m = msg(text("t/missing.csv", "csv"));
    assert!(
        m.contains("s.toml: link.capacity_trace.file: ") && m.contains("missing.csv: no such file"),
        "{m}"
    );
    let m = msg(text("t/bad.csv", "csv"));
    assert!(m.contains("bad.csv: line 3: expected numbers"), "{m}");
    assert!(!m.contains('\n'));
    let m = msg(text("t/ok.csv", "pcap"));
    assert!(
        m.contains("link.capacity_trace.format")
            && m.contains("expected one of mahimahi|csv|gym-json, got \"pcap\""),
        "{m}"
    );
    let m = msg(text("t/ok.csv", "csv").replace("[link]\n", "[link]\ncapacity = \"1Mbps\"\n"));
    assert!(m.contains("not several"), "{m}");
    let m = msg(text("t/ok.csv", "mahimahi"));
    assert!(m.contains("ok.csv: line 1: expected a whole number"), "{m}");
    std::fs::remove_dir_all(&dir).ok();
}
