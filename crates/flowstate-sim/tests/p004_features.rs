//! Scenario features papers 003/004 need: `count`, `start_jitter`,
//! `priority_schedule`, `desired_rate_schedule` and the aggregate loss / queue metrics.

mod common;

use flowstate_sim::run::sim_config;
use flowstate_sim::{run, Scenario};

fn base(flows: &str, coupling: &str, duration: &str) -> String {
    format!(
        r#"
name = "p004"
duration = "{duration}"
[link]
capacity = "10Mbps"
delay = "50ms"
queue = "62pkt"
{coupling}
{flows}
"#
    )
}

fn parse(text: &str) -> Scenario {
    Scenario::from_toml(text, "s.toml").expect("parses")
}

fn err(text: &str) -> String {
    common::parse_error(text, "s.toml")
}

#[test]
fn count_expands_into_named_copies() {
    let s = parse(&base(
        "[[flows]]\nname = \"rap\"\nkind = \"rap\"\ngroup = \"g\"\ncount = 3\n[[flows]]\nname = \"x\"\nkind = \"tfrc\"\ngroup = \"g\"",
        "",
        "10s",
    ));
    let names: Vec<&str> = s.flows.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["rap1", "rap2", "rap3", "x"]);
    assert!(s.flows.iter().all(|f| f.count.is_none()));
    // A name clash after expansion is an error naming the field.
    let e = err(&base(
        "[[flows]]\nname = \"a\"\nkind = \"rap\"\ngroup = \"g\"\ncount = 2\n[[flows]]\nname = \"a1\"\nkind = \"rap\"\ngroup = \"g\"",
        "",
        "10s",
    ));
    assert!(
        e.contains("flows[2].name") && e.contains("already used"),
        "{e}"
    );
    let e = err(&base(
        "[[flows]]\nname = \"a\"\nkind = \"rap\"\ngroup = \"g\"\ncount = 0",
        "",
        "10s",
    ));
    assert!(e.contains("flows[0].count: must be between 1"), "{e}");
}

#[test]
fn start_jitter_is_deterministic_per_seed_and_bounded() {
    let s = parse(&base(
        "[[flows]]\nname = \"f\"\nkind = \"rap\"\ngroup = \"g\"\ncount = 8\nstart = \"2s\"\nstart_jitter = \"1s\"",
        "",
        "10s",
    ));
    let starts = |seed| -> Vec<f64> {
        sim_config(&s, seed)
            .flows
            .iter()
            .map(|f| f.start.as_secs_f64())
            .collect()
    };
    let a = starts(1);
    assert_eq!(a, starts(1), "a pure function of the seed");
    assert_ne!(a, starts(2), "another seed, other starts");
    assert!(a.iter().all(|&t| (2.0..3.0).contains(&t)), "{a:?}");
    let distinct: std::collections::BTreeSet<u64> = a.iter().map(|t| (t * 1e6) as u64).collect();
    assert!(distinct.len() > 4, "flows draw independently: {a:?}");
    let e = err(&base(
        "[[flows]]\nname = \"f\"\nkind = \"rap\"\ngroup = \"g\"\nstart_jitter = \"-1s\"",
        "",
        "10s",
    ));
    assert!(e.contains("flows[0].start_jitter: must be >= 0"), "{e}");
    let e = err(&base(
        "[[flows]]\nname = \"f\"\nkind = \"rap\"\ngroup = \"g\"\nstop = \"5s\"\nstart = \"4.5s\"\nstart_jitter = \"1s\"",
        "",
        "10s",
    ));
    assert!(
        e.contains("flows[0].start_jitter: start + start_jitter"),
        "{e}"
    );
}

#[test]
fn schedules_are_validated() {
    let rap = |extra: &str| {
        format!("[[flows]]\nname = \"f\"\nkind = \"rap\"\ngroup = \"g\"\nstart = \"1s\"\n{extra}")
    };
    let gcc = "[[flows]]\nname = \"g\"\nkind = \"gcc\"\ndesired_rate_schedule = [{ at = \"2s\", rate = \"1Mbps\" }]";
    // Each (flows, a part of the error).
    let cases = [
        (
            rap("priority_schedule = [{ at = \"0.5s\", priority = 0.5 }]"),
            "flows[0].priority_schedule[0].at: must be after",
        ),
        (
            rap("priority_schedule = [{ at = \"3s\", priority = 0.5 }, { at = \"2s\", priority = 0.4 }]"),
            "priority_schedule[1].at",
        ),
        (
            rap("priority_schedule = [{ at = \"3s\", priority = 0 }]"),
            "priority_schedule[0].priority: must be a number in [1e-6, 1e6]",
        ),
        (
            rap("priority_schedule = [{ at = \"3s\", prio = 1 }]"),
            "unknown field",
        ),
        (
            rap("desired_rate_schedule = [{ at = \"2s\", rate = \"1Mbps\" }, { at = \"2s\", rate = \"2Mbps\" }]"),
            "desired_rate_schedule[1].at",
        ),
        (
            rap("desired_rate_schedule = [{ at = \"2s\", rate = \"0Mbps\" }]"),
            "desired_rate_schedule[0].rate: must be > 0",
        ),
        (
            gcc.to_string(),
            "flows[0].desired_rate_schedule: only rap and tfrc",
        ),
    ];
    for (flows, part) in cases {
        let e = err(&base(&flows, "", "10s"));
        assert!(e.contains(part), "{e}");
    }
}

/// Mean throughput of `flow` over bins in [from, to).
fn mean_tput(r: &flowstate_sim::RunResult, flow: &str, from: f64, to: f64) -> f64 {
    let xs: Vec<f64> = r
        .series
        .iter()
        .filter(|row| row.flow == flow && row.time_s >= from && row.time_s < to)
        .map(|row| row.throughput_mbps)
        .collect();
    xs.iter().sum::<f64>() / xs.len().max(1) as f64
}

#[test]
fn priority_schedule_changes_the_coupled_split() {
    let s = parse(&base(
        "[[flows]]\nname = \"a\"\nkind = \"rap\"\ngroup = \"g\"\npriority_schedule = [{ at = \"15s\", priority = 0.25 }]\n\
         [[flows]]\nname = \"b\"\nkind = \"rap\"\ngroup = \"g\"",
        "[coupling]\nmechanism = \"conservative-fse\"",
        "30s",
    ));
    let r = run(&s, 1).expect("runs");
    let before = mean_tput(&r, "a", 8.0, 15.0) / mean_tput(&r, "b", 8.0, 15.0);
    let after = mean_tput(&r, "a", 18.0, 30.0) / mean_tput(&r, "b", 18.0, 30.0);
    assert!(
        (before - 1.0).abs() < 0.1,
        "equal priorities: ratio {before}"
    );
    assert!((after - 0.25).abs() < 0.05, "priority 0.25: ratio {after}");
    // Uncoupled, the schedule has no effect on the rates (no manager to tell).
    let mut u = s.clone();
    u.coupling = None;
    let r = run(&u, 1).expect("runs");
    let after = mean_tput(&r, "a", 18.0, 30.0) / mean_tput(&r, "b", 18.0, 30.0);
    assert!(after > 0.5, "uncoupled ratio {after}");
}

#[test]
fn desired_rate_schedule_limits_a_rate_flow_over_time() {
    for kind in ["rap", "tfrc"] {
        let s = parse(&base(
            &format!(
                "[[flows]]\nname = \"v\"\nkind = \"{kind}\"\n\
                 desired_rate_schedule = [{{ at = 0, rate = \"1Mbps\" }}, {{ at = \"10s\", rate = \"3Mbps\" }}]"
            ),
            "",
            "20s",
        ));
        let r = run(&s, 1).expect("runs");
        let a = mean_tput(&r, "v", 5.0, 10.0);
        let b = mean_tput(&r, "v", 13.0, 20.0);
        assert!((a - 1.0).abs() < 0.1, "{kind}: 1 Mbit/s phase at {a}");
        assert!((b - 3.0).abs() < 0.3, "{kind}: 3 Mbit/s phase at {b}");
    }
}

#[test]
fn aggregate_loss_and_queue_cover_forward_flows() {
    let s = parse(&base(
        "[[flows]]\nname = \"r\"\nkind = \"rap\"\ngroup = \"g\"\ncount = 4",
        "",
        "20s",
    ));
    let r = run(&s, 1).expect("runs");
    let a = &r.summary.aggregate;
    let sent: u64 = r.summary.flows.iter().map(|f| f.sent_packets).sum();
    let lost: u64 = r.summary.flows.iter().map(|f| f.lost_packets).sum();
    assert!(lost > 0, "4 greedy RAP flows overflow a 62-packet queue");
    assert!((a.loss_ratio - lost as f64 / sent as f64).abs() < 1e-12);
    let q = a.queuing_delay_ms.expect("packets queued");
    let lo = r
        .summary
        .flows
        .iter()
        .filter_map(|f| f.queuing_delay_ms.mean)
        .fold(f64::INFINITY, f64::min);
    let hi = r
        .summary
        .flows
        .iter()
        .filter_map(|f| f.queuing_delay_ms.mean)
        .fold(0.0, f64::max);
    assert!(q >= lo - 1e-9 && q <= hi + 1e-9, "{lo} <= {q} <= {hi}");
    assert!(
        q > 0.0 && q < 62.0 * 0.8 + 1.0,
        "bounded by the 62-packet queue: {q}"
    );
}

#[test]
fn desired_rate_schedule_reaches_the_coupling_manager() {
    // The manager learns DR(v) = 2 Mbit/s, so its leftover goes to the greedy flow
    // (RFC 8699 water-filling, the conservative FSE's default distribution).
    let s = parse(&base(
        "[[flows]]\nname = \"v\"\nkind = \"rap\"\ngroup = \"g\"\n\
         desired_rate_schedule = [{ at = 0, rate = \"2Mbps\" }]\n\
         [[flows]]\nname = \"g\"\nkind = \"rap\"\ngroup = \"g\"",
        "[coupling]\nmechanism = \"conservative-fse\"",
        "40s",
    ));
    let r = run(&s, 1).expect("runs");
    let v = mean_tput(&r, "v", 20.0, 40.0);
    let g = mean_tput(&r, "g", 20.0, 40.0);
    assert!((v - 2.0).abs() < 0.2, "app-limited flow at its DR: {v}");
    assert!(g > 6.0, "the greedy flow takes the leftover: {g}");
}

/// Paper 004 Figs. 22-27 (the catalogue's p004-rtt, cut short): two RAP flows with RTTs
/// 30 and 480 ms (ratio 16) share 10 Mbit/s fairly under the conservative FSE and
/// unfairly without it.
#[test]
fn fse_gives_fairness_across_rtt_ratios() {
    let text = |mech: &str| {
        format!(
            r#"
name = "rtt"
duration = "40s"
[link]
capacity = "10Mbps"
delay = "5ms"
queue = "62pkt"
[coupling]
mechanism = "{mech}"
[[flows]]
name = "near"
kind = "rap"
group = "g"
path_delay = "10ms"
start_jitter = "1s"
[[flows]]
name = "far"
kind = "rap"
group = "g"
path_delay = "235ms"
start_jitter = "1s"
[measure]
start = "15s"
"#
        )
    };
    let jain = |mech: &str| {
        let r = run(&parse(&text(mech)), 1).expect("runs");
        r.summary.aggregate.jain_index
    };
    let fse = jain("conservative-fse");
    let none = jain("none");
    assert!(fse > 0.99, "FSE: Jain {fse}");
    assert!(none < 0.8, "uncoupled: Jain {none}");
}
