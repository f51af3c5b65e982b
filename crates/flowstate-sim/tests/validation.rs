//! Every scenario validation rule: the message is one line naming the file and field.

mod common;

use flowstate_sim::Scenario;

const BASE: &str = r#"
name = "t"
duration = "20s"
seed = 3

[link]
capacity = "2Mbps"
delay = "25ms"
queue = "300ms"

[[flows]]
name = "a"
kind = "cbr"
overrides = { rate = "1Mbps" }

[[flows]]
name = "b"
kind = "cbr"
start = "1s"
overrides = { rate = "500kbps", packet_size = "1000B" }
"#;

/// Parse `text` and return the error message (panics if it parsed).
fn err(text: &str) -> String {
    common::parse_error(text, "scenario.toml")
}

fn replaced(from: &str, to: &str) -> String {
    assert!(BASE.contains(from), "test bug: {from}");
    BASE.replacen(from, to, 1)
}

fn assert_field(msg: &str, field: &str) {
    assert!(
        msg.starts_with(&format!("scenario.toml: {field}: ")),
        "expected field {field} in: {msg}"
    );
}

#[test]
fn base_is_valid() {
    let s = Scenario::from_toml(BASE, "scenario.toml").expect("valid");
    assert_eq!(s.flows.len(), 2);
    assert_eq!(s.duration.0, 20.0);
}

#[test]
fn unknown_top_level_key() {
    let m = err(&replaced("seed = 3", "seed = 3\ncolour = \"red\""));
    assert_field(&m, "colour");
    assert!(m.contains("unknown field"), "{m}");
}

#[test]
fn unknown_link_key() {
    let m = err(&replaced(
        "delay = \"25ms\"",
        "delay = \"25ms\"\ncapcity = \"1Mbps\"",
    ));
    assert_field(&m, "link.capcity");
}

#[test]
fn unknown_flow_key() {
    let m = err(&replaced("start = \"1s\"", "start = \"1s\"\nstrat = 2"));
    assert_field(&m, "flows[1].strat");
}

#[test]
fn missing_duration() {
    let m = err(&replaced("duration = \"20s\"", ""));
    assert_eq!(m, "scenario.toml: duration: required field is missing");
}

#[test]
fn missing_link_delay() {
    let m = err(&replaced("delay = \"25ms\"", ""));
    assert_eq!(m, "scenario.toml: link.delay: required field is missing");
}

#[test]
fn missing_capacity() {
    let m = err(&replaced("capacity = \"2Mbps\"", ""));
    assert_field(&m, "link.capacity");
}

#[test]
fn wrong_unit_for_rate() {
    let m = err(&replaced("capacity = \"2Mbps\"", "capacity = \"50ms\""));
    assert_field(&m, "link.capacity");
    assert!(m.contains("bit rate"), "{m}");
}

#[test]
fn rate_without_unit() {
    let m = err(&replaced("capacity = \"2Mbps\"", "capacity = 2"));
    assert_field(&m, "link.capacity");
}

#[test]
fn wrong_unit_for_time() {
    let m = err(&replaced("delay = \"25ms\"", "delay = \"25kB\""));
    assert_field(&m, "link.delay");
}

#[test]
fn wrong_unit_for_queue() {
    let m = err(&replaced("queue = \"300ms\"", "queue = \"3Mbps\""));
    assert_field(&m, "link.queue");
}

#[test]
fn negative_capacity() {
    let m = err(&replaced("capacity = \"2Mbps\"", "capacity = \"-2Mbps\""));
    assert_field(&m, "link.capacity");
    assert!(m.contains("> 0"), "{m}");
}

#[test]
fn negative_delay() {
    let m = err(&replaced("delay = \"25ms\"", "delay = \"-25ms\""));
    assert_field(&m, "link.delay");
}

#[test]
fn empty_queue() {
    let m = err(&replaced("queue = \"300ms\"", "queue = \"0pkt\""));
    assert_field(&m, "link.queue");
    let m = err(&replaced("queue = \"300ms\"", "queue = \"0B\""));
    assert_field(&m, "link.queue");
    let m = err(&replaced("queue = \"300ms\"", "queue = \"0ms\""));
    assert_field(&m, "link.queue");
}

#[test]
fn zero_or_negative_duration() {
    let m = err(&replaced("duration = \"20s\"", "duration = 0"));
    assert_field(&m, "duration");
    let m = err(&replaced("duration = \"20s\"", "duration = \"-5s\""));
    assert_field(&m, "duration");
}

#[test]
fn negative_start() {
    let m = err(&replaced("start = \"1s\"", "start = \"-3s\""));
    assert_eq!(m, "scenario.toml: flows[1].start: must be >= 0 s, got -3 s");
}

#[test]
fn start_after_end() {
    let m = err(&replaced("start = \"1s\"", "start = 25"));
    assert_field(&m, "flows[1].start");
}

#[test]
fn stop_before_start() {
    let m = err(&replaced("start = \"1s\"", "start = \"5s\"\nstop = \"4s\""));
    assert_field(&m, "flows[1].stop");
    assert!(m.contains("after start"), "{m}");
}

#[test]
fn stop_after_duration() {
    let m = err(&replaced(
        "start = \"1s\"",
        "start = \"5s\"\nstop = \"40s\"",
    ));
    assert_field(&m, "flows[1].stop");
}

#[test]
fn pause_outside_flow_lifetime() {
    let m = err(&replaced(
        "start = \"1s\"",
        "start = \"5s\"\npauses = [{ at = \"2s\", resume = \"3s\" }]",
    ));
    assert_field(&m, "flows[1].pauses[0].at");
    let m = err(&replaced(
        "start = \"1s\"",
        "start = \"5s\"\npauses = [{ at = \"8s\", resume = \"7s\" }]",
    ));
    assert_field(&m, "flows[1].pauses[0].resume");
}

#[test]
fn non_positive_priority() {
    let m = err(&replaced("start = \"1s\"", "start = \"1s\"\npriority = 0"));
    assert_field(&m, "flows[1].priority");
}

#[test]
fn priorities_near_the_float_limits() {
    // 1e308 and 2.3e-308 ran to 0, inf or a 9 % utilization instead of the shares.
    for p in ["1e308", "2.3e-308", "1e7", "5e-7"] {
        let m = err(&replaced(
            "start = \"1s\"",
            &format!("start = \"1s\"\npriority = {p}"),
        ));
        assert_field(&m, "flows[1].priority");
        assert!(m.contains("[1e-6, 1e6]"), "{m}");
    }
    let m = err(&replaced(
        "start = \"1s\"",
        "start = \"1s\"\npriority_schedule = [{ at = \"2s\", priority = 1e308 }]",
    ));
    assert_field(&m, "flows[1].priority_schedule[0].priority");
}

#[test]
fn mechanism_names_in_any_spelling() {
    for (spelling, name) in [("FSEv2", "fsev2"), ("None", "none"), ("FSE-NG", "fse-ng")] {
        let text = format!("{BASE}{VIDEO}\n[coupling]\nmechanism = \"{spelling}\"\n");
        let s = Scenario::from_toml(&text, "scenario.toml").expect(spelling);
        assert_eq!(s.coupling.unwrap().mechanism, name);
    }
    let m = err(&format!("{BASE}\n[coupling]\nmechanism = \"fsev3\"\n"));
    assert_field(&m, "coupling.mechanism");
}

#[test]
fn a_preset_on_a_flow_that_takes_none() {
    for kind in ["sctp", "tcp-newreno", "tcp-cubic", "rap", "tfrc"] {
        let m = err(&replaced(
            "kind = \"cbr\"\nstart = \"1s\"\noverrides = { rate = \"500kbps\", packet_size = \"1000B\" }",
            &format!("kind = \"{kind}\"\npreset = \"anything\""),
        ));
        assert_field(&m, "flows[1].preset");
        if kind == "sctp" {
            assert!(m.contains("expected one of usrsctp|dcsctp"), "{m}");
        } else {
            assert!(m.contains("only gcc and sctp flows take a preset"), "{m}");
        }
    }
}

#[test]
fn non_positive_desired_rate() {
    let m = err(&replaced(
        "start = \"1s\"",
        "start = \"1s\"\ndesired_rate = \"0Mbps\"",
    ));
    assert_field(&m, "flows[1].desired_rate");
}

#[test]
fn negative_path_delay() {
    let m = err(&replaced(
        "start = \"1s\"",
        "start = \"1s\"\npath_delay = \"-1ms\"",
    ));
    assert_field(&m, "flows[1].path_delay");
}

#[test]
fn bad_direction() {
    let m = err(&replaced(
        "start = \"1s\"",
        "start = \"1s\"\ndirection = \"up\"",
    ));
    assert_field(&m, "flows[1].direction");
}

#[test]
fn unknown_kind() {
    let m = err(&replaced("kind = \"cbr\"", "kind = \"quic\""));
    assert_field(&m, "flows[0].kind");
    assert!(m.contains("quic"), "{m}");
}

#[test]
fn duplicate_flow_name() {
    let m = err(&replaced("name = \"b\"", "name = \"a\""));
    assert_field(&m, "flows[1].name");
    // A third flow named like both: the message names the first one.
    let three = format!(
        "{}\n[[flows]]\nname = \"a\"\nkind = \"cbr\"\noverrides = {{ rate = \"1Mbps\" }}\n",
        replaced("name = \"b\"", "name = \"c\"")
    );
    assert_eq!(
        err(&three),
        "scenario.toml: flows[2].name: \"a\" is already used by flows[0]"
    );
}

#[test]
fn unknown_mechanism() {
    let m = err(&format!("{BASE}\n[coupling]\nmechanism = \"magic\"\n"));
    assert_field(&m, "coupling.mechanism");
}

#[test]
fn loss_out_of_range() {
    let m = err(&replaced(
        "queue = \"300ms\"",
        "queue = \"300ms\"\nloss = 1.5",
    ));
    assert_field(&m, "link.loss");
}

#[test]
fn negative_jitter() {
    let m = err(&replaced(
        "queue = \"300ms\"",
        "queue = \"300ms\"\njitter = \"-5ms\"",
    ));
    assert_field(&m, "link.jitter");
}

#[test]
fn capacity_and_schedule_both_given() {
    let m = err(&replaced(
        "capacity = \"2Mbps\"",
        "capacity = \"2Mbps\"\ncapacity_schedule = [{ at = 0, rate = \"1Mbps\" }]",
    ));
    assert_field(&m, "link.capacity");
}

#[test]
fn schedule_must_start_at_zero_and_increase() {
    let m = err(&replaced(
        "capacity = \"2Mbps\"",
        "capacity_schedule = [{ at = \"1s\", rate = \"1Mbps\" }]",
    ));
    assert_field(&m, "link.capacity_schedule[0].at");
    let m = err(&replaced(
        "capacity = \"2Mbps\"",
        "capacity_schedule = [{ at = 0, rate = \"1Mbps\" }, { at = 0, rate = \"2Mbps\" }]",
    ));
    assert_field(&m, "link.capacity_schedule[1].at");
    let m = err(&replaced(
        "capacity = \"2Mbps\"",
        "capacity_schedule = [{ at = 0, rate = \"-1Mbps\" }]",
    ));
    assert_field(&m, "link.capacity_schedule[0].rate");
}

#[test]
fn measure_window_inside_run() {
    let m = err(&format!("{BASE}\n[measure]\nend = \"30s\"\n"));
    assert_field(&m, "measure.end");
    let m = err(&format!(
        "{BASE}\n[measure]\nstart = \"10s\"\nend = \"5s\"\n"
    ));
    assert_field(&m, "measure.end");
    let m = err(&format!("{BASE}\n[measure]\nbin = 0\n"));
    assert_field(&m, "measure.bin");
}

#[test]
fn cbr_needs_a_valid_rate() {
    let m = err(&replaced(
        "overrides = { rate = \"1Mbps\" }",
        "overrides = {}",
    ));
    assert_eq!(
        m,
        "scenario.toml: flows[0].overrides.rate: required field is missing"
    );
    let m = err(&replaced(
        "overrides = { rate = \"1Mbps\" }",
        "overrides = { rate = \"1Mbps\", burst = 3 }",
    ));
    assert!(
        m.contains("flows[0].overrides") && m.contains("burst"),
        "{m}"
    );
    let m = err(&replaced(
        "overrides = { rate = \"1Mbps\" }",
        "overrides = { rate = \"0bps\" }",
    ));
    assert_field(&m, "flows[0].overrides.rate");
}

#[test]
fn no_flows() {
    let text = BASE
        .split("[[flows]]")
        .next()
        .unwrap_or_default()
        .to_string();
    let m = err(&text);
    assert_field(&m, "flows");
}

#[test]
fn toml_syntax_error_names_the_line() {
    let m = err(&replaced("delay = \"25ms\"", "delay = = 3"));
    assert!(m.contains("line 8"), "{m}");
}

#[test]
fn other_kinds_validate_overrides_and_run() {
    let text = replaced(
        "kind = \"cbr\"\noverrides = { rate = \"1Mbps\" }",
        "kind = \"gcc\"\npreset = \"chromium\"\noverrides = { kalman_q = 1e-3 }",
    );
    let m = err(&text);
    assert_field(&m, "flows[0].overrides.kalman_q");
    let text = replaced(
        "kind = \"cbr\"\noverrides = { rate = \"1Mbps\" }",
        "kind = \"gcc\"\npreset = \"chromium\"\noverrides = { start_rate = \"300kbps\" }",
    );
    let s = Scenario::from_toml(&text, "scenario.toml").expect("gcc validates");
    let r = flowstate_sim::run(&s, 1).expect("gcc runs");
    assert!(r.summary.flows[0].throughput_mbps > 0.0);
    let text = format!("{BASE}{VIDEO}\n[coupling]\nmechanism = \"fse-ng\"\n");
    let s = Scenario::from_toml(&text, "scenario.toml").expect("valid");
    let r = flowstate_sim::run(&s, 1).expect("fse-ng with cbr flows runs (cbr stays uncoupled)");
    let groups: Vec<_> = r.summary.flows.iter().map(|f| f.group.as_deref()).collect();
    assert_eq!(groups, [None, None, Some("call")]);
}

/// A gcc flow, which joins the call's coupling group by default.
const VIDEO: &str = "\n[[flows]]\nname = \"v\"\nkind = \"gcc\"\n";

#[test]
fn a_mechanism_that_couples_no_flow_is_an_error() {
    // Only cbr flows: nothing the mechanism could couple.
    let m = err(&format!("{BASE}\n[coupling]\nmechanism = \"fse-ng\"\n"));
    assert_field(&m, "coupling.mechanism");
    assert!(m.contains("couples no flow"), "{m}");
    // TCP is another application's traffic unless the scenario groups it.
    let tcp = "\n[[flows]]\nname = \"bulk\"\nkind = \"tcp-cubic\"\n";
    let m = err(&format!("{BASE}{tcp}\n[coupling]\nmechanism = \"fsev2\"\n"));
    assert!(m.contains("give other flows a `group`"), "{m}");
    let grouped = tcp.replace("tcp-cubic\"", "tcp-cubic\"\ngroup = \"g\"");
    Scenario::from_toml(
        &format!("{BASE}{grouped}\n[coupling]\nmechanism = \"fsev2\"\n"),
        "scenario.toml",
    )
    .expect("a grouped TCP flow is coupled");
}

#[test]
fn cross_traffic_and_groups_are_checked() {
    let both = format!("{BASE}{VIDEO}group = \"g\"\ncross_traffic = true\n");
    assert_field(&err(&both), "flows[2].cross_traffic");
    let cbr = replaced(
        "kind = \"cbr\"\noverrides = { rate = \"1Mbps\" }",
        "kind = \"cbr\"\ngroup = \"g\"\noverrides = { rate = \"1Mbps\" }",
    );
    let m = err(&cbr);
    assert_field(&m, "flows[0].group");
    assert!(m.contains("no congestion controller"), "{m}");
    // A call's flow marked as cross traffic is not coupled.
    let cross = format!("{BASE}{VIDEO}cross_traffic = true\n");
    let s = Scenario::from_toml(&cross, "scenario.toml").expect("valid");
    assert_eq!(s.flows[2].group(), None);
    let s = Scenario::from_toml(&format!("{BASE}{VIDEO}"), "scenario.toml").expect("valid");
    assert_eq!(s.flows[2].group(), Some("call"));
}

#[test]
fn implausible_values_are_warned_about() {
    let s = Scenario::from_toml(BASE, "scenario.toml").expect("valid");
    assert!(s.warnings().is_empty(), "{:?}", s.warnings());
    let far = replaced("delay = \"25ms\"", "delay = \"10s\"");
    let s = Scenario::from_toml(&far, "scenario.toml").expect("legal");
    let w = s.warnings();
    assert!(
        w.len() == 1 && w[0].starts_with("link.delay = 10 s"),
        "{w:?}"
    );
    let r = flowstate_sim::run(
        &Scenario::from_toml(
            &replaced("duration = \"20s\"", "duration = \"2s\""),
            "s.toml",
        )
        .unwrap(),
        1,
    )
    .unwrap();
    assert!(r.summary.warnings.is_empty());
    let slow = replaced("capacity = \"2Mbps\"", "capacity = \"2kbps\"");
    let short = replaced("duration = \"20s\"", "duration = \"500ms\"");
    assert!(Scenario::from_toml(&slow, "s.toml").unwrap().warnings()[0].contains("link.capacity"));
    let s = Scenario::from_toml(
        &short.replace("start = \"1s\"", "start = \"100ms\""),
        "s.toml",
    )
    .unwrap();
    assert!(
        s.warnings()[0].starts_with("duration"),
        "{:?}",
        s.warnings()
    );
    // The summary repeats them.
    let r = flowstate_sim::run(&Scenario::from_toml(&far, "s.toml").unwrap(), 1).unwrap();
    assert_eq!(r.summary.warnings, w);
}

#[test]
fn gcc_threshold_and_kalman_overrides() {
    let gcc = |preset: &str, o: &str| {
        replaced(
            "kind = \"cbr\"\noverrides = { rate = \"1Mbps\" }",
            &format!("kind = \"gcc\"\npreset = \"{preset}\"\noverrides = {{ {o} }}"),
        )
    };
    for (preset, o) in [
        ("paper", "kalman_q = 1e-2, k_up = 0.001, k_down = 0.0001"),
        ("paper", "threshold = \"static\", gamma_bar_ms = 0.6667"),
        (
            "paper-static",
            "gamma_bar_ms = 0.1667, threshold_halving = false",
        ),
        ("paper-static", "threshold = \"adaptive\", k_up = 0.02"),
        ("paper", "threshold_ignores_spikes = false"),
        ("chromium", "threshold = \"static\""),
        (
            "paper",
            "additive_increase = false, loss_controller = \"chromium\"",
        ),
        ("chromium", "loss_controller = \"paper\""),
    ] {
        Scenario::from_toml(&gcc(preset, o), "scenario.toml")
            .unwrap_or_else(|e| panic!("{preset} {o}: {e}"));
    }
    for (preset, o, field, needle) in [
        ("paper", "gamma_bar_ms = 0.5", "gamma_bar_ms", "static"),
        (
            "paper",
            "threshold_halving = true",
            "threshold_halving",
            "static",
        ),
        ("paper-static", "k_up = 0.01", "k_up", "adaptive"),
        (
            "paper-static",
            "threshold_ignores_spikes = false",
            "threshold_ignores_spikes",
            "adaptive",
        ),
        (
            "paper",
            "threshold = \"static\", k_down = 0.01",
            "k_down",
            "adaptive",
        ),
        ("paper", "kalman_q = 0", "kalman_q", "> 0"),
        ("paper", "k_up = -1", "k_up", "> 0"),
        ("paper-static", "gamma_bar_ms = -0.2", "gamma_bar_ms", "> 0"),
        ("paper", "threshold = \"fixed\"", "threshold", "static"),
        (
            "paper",
            "loss_controller = \"fast\"",
            "loss_controller",
            "chromium",
        ),
        (
            "paper",
            "additive_increase = 1",
            "additive_increase",
            "bool",
        ),
    ] {
        let m = err(&gcc(preset, o));
        assert_field(&m, &format!("flows[0].overrides.{field}"));
        assert!(m.contains(needle), "{o}: {m}");
    }
}

#[test]
fn fsev2_model_option_overrides() {
    let flow = |kind: &str, preset: &str, o: &str| {
        replaced(
            "kind = \"cbr\"\noverrides = { rate = \"1Mbps\" }",
            &format!("kind = \"{kind}\"\n{preset}overrides = {{ {o} }}"),
        )
    };
    for (kind, preset, o) in [
        (
            "gcc",
            "preset = \"chromium\"\n",
            "target_includes_overhead = true, allocation_restarts_decrease_timer = false",
        ),
        (
            "gcc",
            "preset = \"paper\"\n",
            "target_includes_overhead = true",
        ),
        ("sctp", "", "reset_pba_on_set_cwnd = true"),
        (
            "sctp",
            "preset = \"dcsctp\"\n",
            "renack_retransmissions = false",
        ),
        ("sctp", "", "renack_retransmissions = true"),
        ("sctp", "", "immediate_sack_bit = true"),
        ("sctp", "", "cwnd_sized_packets = true"),
    ] {
        let text = flow(kind, preset, o);
        let s = Scenario::from_toml(&text, "scenario.toml")
            .unwrap_or_else(|e| panic!("{kind} {o}: {e}"));
        let r = flowstate_sim::run(&s, 1).unwrap_or_else(|e| panic!("{kind} {o}: {e}"));
        assert!(r.summary.flows[0].throughput_mbps > 0.0, "{kind} {o}");
    }
    for (kind, preset, o, field, needle) in [
        (
            "gcc",
            "preset = \"paper\"\n",
            "allocation_restarts_decrease_timer = false",
            "allocation_restarts_decrease_timer",
            "receiver",
        ),
        (
            "tcp-newreno",
            "",
            "reset_pba_on_set_cwnd = true",
            "reset_pba_on_set_cwnd",
            "sctp only",
        ),
        (
            "tcp-newreno",
            "",
            "hystart = true",
            "hystart",
            "tcp-cubic flows only",
        ),
        (
            "sctp",
            "",
            "hystart = true",
            "hystart",
            "tcp-cubic flows only",
        ),
        (
            "sctp",
            "",
            "rto_keeps_recovery_ssthresh = false",
            "rto_keeps_recovery_ssthresh",
            "tcp flows only",
        ),
        (
            "sctp",
            "preset = \"dcsctp\"\n",
            "immediate_sack_bit = 10",
            "immediate_sack_bit",
            "bool",
        ),
        (
            "gcc",
            "preset = \"chromium\"\n",
            "target_includes_overhead = 1",
            "target_includes_overhead",
            "bool",
        ),
    ] {
        let m = err(&flow(kind, preset, o));
        assert_field(&m, &format!("flows[0].overrides.{field}"));
        assert!(m.contains(needle), "{o}: {m}");
    }
}

#[test]
fn a_time_or_rate_that_overflows_to_infinity_is_rejected() {
    // Before: duration "1e308min" parsed as an infinite duration and the run never ended;
    // capacity "1e300Gbps" ran on an infinite link (utilization 0 %).
    let m = err(&replaced("duration = \"20s\"", "duration = \"1e308min\""));
    assert_field(&m, "duration");
    assert!(m.contains("\"1e308min\" is too large"), "{m}");
    let m = err(&replaced(
        "capacity = \"2Mbps\"",
        "capacity = \"1e300Gbps\"",
    ));
    assert_field(&m, "link.capacity");
    assert!(m.contains("\"1e300Gbps\" is too large"), "{m}");
    let m = err(&replaced("queue = \"300ms\"", "queue = \"1e308MiB\""));
    assert_field(&m, "link.queue");
}

#[test]
fn a_duration_past_the_clock_range_is_rejected() {
    // Before: 1e14 s saturated the microsecond clock; the run never finished.
    let m = err(&replaced("duration = \"20s\"", "duration = \"1e14s\""));
    assert_field(&m, "duration");
    assert!(m.contains("must be at most 1e12 s"), "{m}");
}

/// A scenario with one gcc flow with `overrides = { <o> }`.
fn gcc_flow(o: &str) -> String {
    format!(
        "name = \"t\"\nduration = \"2s\"\n[link]\ncapacity = \"2Mbps\"\ndelay = \"25ms\"\n\
         queue = \"300ms\"\n[[flows]]\nname = \"v\"\nkind = \"gcc\"\noverrides = {{ {o} }}\n"
    )
}

#[test]
fn gcc_rate_bounds_must_be_ordered() {
    // Before: each was accepted and the upper bound silently ignored.
    for (o, field, needle) in [
        (
            "min_rate = \"2Mbps\", max_rate = \"1Mbps\"",
            "min_rate",
            "min_rate (2000000 bit/s) must be <= max_rate (1000000 bit/s)",
        ),
        (
            "max_rate = \"1kbps\"",
            "max_rate",
            "must be <= max_rate (1000 bit/s)",
        ),
        (
            "video_min_rate = \"2Mbps\", video_max_rate = \"1Mbps\"",
            "video_min_rate",
            "video_min_rate (2000000 bit/s) must be <= video_max_rate (1000000 bit/s)",
        ),
        (
            "video_max_rate = \"10kbps\"",
            "video_max_rate",
            "must be <= video_max_rate (10000 bit/s)",
        ),
    ] {
        let m = err(&gcc_flow(o));
        assert_field(&m, &format!("flows[0].overrides.{field}"));
        assert!(m.contains(needle), "{o}: {m}");
    }
    Scenario::from_toml(
        &gcc_flow("min_rate = \"1Mbps\", max_rate = \"1Mbps\", video_min_rate = \"1Mbps\", video_max_rate = \"1Mbps\""),
        "scenario.toml",
    )
    .expect("equal bounds are fine");
}

#[test]
fn gcc_fps_must_be_a_frame_rate() {
    // Before: fps = 1e-8 hung the run (one frame of years of video); fps = 5000 was
    // silently clamped to 1000.
    for fps in ["1e-8", "0.5", "5000", "1e-300"] {
        let m = err(&gcc_flow(&format!("fps = {fps}")));
        assert_field(&m, "flows[0].overrides.fps");
        assert!(
            m.contains("must be between 1 and 1000 frames per second"),
            "{m}"
        );
        assert!(m.len() < 200, "no hundred-digit number: {m}");
    }
    for fps in ["1", "30", "1000"] {
        Scenario::from_toml(&gcc_flow(&format!("fps = {fps}")), "scenario.toml").expect(fps);
    }
}

#[test]
fn times_below_the_clock_resolution_are_rejected() {
    // Before: duration = "0.1us" ran for 0 us; a stop or measure.end less than 1 us
    // after the start made an empty flow or window.
    let m = err(&replaced("duration = \"20s\"", "duration = \"0.1us\""));
    assert_field(&m, "duration");
    assert!(
        m.contains("must be at least 1 us (the simulator's clock resolution), got 0.0000001 s"),
        "{m}"
    );
    Scenario::from_toml(
        &gcc_flow("").replace("duration = \"2s\"", "duration = \"1us\""),
        "scenario.toml",
    )
    .expect("1 us is one tick");
    let m = err(&replaced(
        "start = \"1s\"",
        "start = \"1s\"\nstop = \"1.0000001s\"",
    ));
    assert_field(&m, "flows[1].stop");
    assert!(
        m.contains("must be at least 1 us (the clock resolution) after start (1 s)"),
        "{m}"
    );
    let m = err(&format!(
        "{BASE}\n[measure]\nstart = \"2s\"\nend = \"2.0000004s\"\n"
    ));
    assert_field(&m, "measure.end");
    assert!(m.contains("after measure.start (2 s)"), "{m}");
}

#[test]
fn gcc_start_rate_must_be_within_the_rate_bounds() {
    // Before: a start rate outside [min_rate, max_rate] was silently clamped.
    for (o, field, needle) in [
        (
            "start_rate = \"50kbps\", min_rate = \"100kbps\", max_rate = \"1Mbps\"",
            "start_rate",
            "start_rate (50000 bit/s) must be in [min_rate, max_rate] = [100000, 1000000] bit/s",
        ),
        (
            "start_rate = \"3Mbps\", max_rate = \"2Mbps\"",
            "start_rate",
            "start_rate (3000000 bit/s) must be in [min_rate, max_rate] = [",
        ),
    ] {
        let m = err(&gcc_flow(o));
        assert_field(&m, &format!("flows[0].overrides.{field}"));
        assert!(m.contains(needle), "{o}: {m}");
    }
    for o in [
        "start_rate = \"100kbps\", min_rate = \"100kbps\", max_rate = \"1Mbps\"",
        "start_rate = \"1Mbps\", min_rate = \"100kbps\", max_rate = \"1Mbps\"",
        "start_rate = \"150kbps\", min_rate = \"150kbps\", max_rate = \"1.5Mbps\"",
        // Without start_rate, the preset's start rate follows the bounds.
        "min_rate = \"5Mbps\"",
        "max_rate = \"10kbps\"",
    ] {
        Scenario::from_toml(&gcc_flow(o), "scenario.toml").expect(o);
    }
}

#[test]
fn the_summary_template_has_every_field_of_a_run_summary() {
    // Metric paths of experiment.toml are checked against the template before any run.
    let s = Scenario::from_toml(BASE, "scenario.toml").expect("valid");
    let run = flowstate_sim::run(&s, 1).expect("runs");
    let template = flowstate_sim::metrics::Summary::template(&["a", "b"]);
    fn shape(v: &serde_json::Value) -> serde_json::Value {
        match v {
            serde_json::Value::Object(m) => {
                serde_json::Value::Object(m.iter().map(|(k, v)| (k.clone(), shape(v))).collect())
            }
            serde_json::Value::Array(a) => serde_json::Value::Array(a.iter().map(shape).collect()),
            _ => serde_json::Value::Null,
        }
    }
    let real = shape(&serde_json::to_value(&run.summary).unwrap());
    let mut tmpl = shape(&serde_json::to_value(&template).unwrap());
    // The template also has the fields only some kinds of flow have (ECN-capable and
    // video flows), which this scenario's flows have not: a metric path may name them.
    for flow in tmpl["flows"].as_array_mut().unwrap() {
        let flow = flow.as_object_mut().unwrap();
        for key in ["ce_marks", "ecn_responses", "video"] {
            assert!(flow.remove(key).is_some(), "{key}");
        }
    }
    assert_eq!(real, tmpl);
    assert_eq!(template.flows[1].name, "b");
}

#[test]
fn a_count_written_wrong_is_named_in_plain_words() {
    for (value, got) in [("-1", "-1"), ("1.5", "1.5"), ("\"ten\"", "string \"ten\"")] {
        let m = err(&format!("{BASE}\n[sbd]\nn = {value}\n"));
        assert_eq!(
            m,
            format!("scenario.toml: sbd.n: expected a whole number >= 0, got {got}")
        );
    }
}

#[test]
fn bad_ecn() {
    let m = err(&replaced("start = \"1s\"", "start = \"1s\"\necn = \"ce\""));
    assert_field(&m, "flows[1].ecn");
    assert!(m.contains("`off`, `ect0`, `ect1`"), "{m}");
    let m = err(&replaced("start = \"1s\"", "start = \"1s\"\necn = true"));
    assert_field(&m, "flows[1].ecn");
}

#[test]
fn ecn_names_follow_the_name_rule_and_default_to_off() {
    use flowstate_sim::flow_spec::EcnSetting;
    let s = Scenario::from_toml(
        &replaced("start = \"1s\"", "start = \"1s\"\necn = \"ECT1\""),
        "scenario.toml",
    )
    .expect("valid");
    assert_eq!(s.flows[1].ecn, Some(EcnSetting::Ect1));
    assert_eq!(s.flows[1].ecn(), flowstate_core::Ecn::Ect1);
    assert_eq!(s.flows[0].ecn, None);
    assert_eq!(s.flows[0].ecn(), flowstate_core::Ecn::NotEct);
}
