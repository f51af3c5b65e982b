//! Inputs that size the work (crate::bounds): each bound is a one-line error naming
//! the field, the bound and the value, found when the scenario is read or built; and
//! the one name rule (flowstate_core::names) for every name a scenario writes.

mod common;

use flowstate_sim::validate_toml;

const BASE: &str = r#"
name = "t"
duration = "3s"

[link]
capacity = "2Mbps"
delay = "25ms"
queue = "300ms"

[[flows]]
name = "a"
kind = "cbr"
overrides = { rate = "1Mbps" }
"#;

fn with(extra: &str) -> String {
    format!("{BASE}\n{extra}\n")
}

/// [`with`], plus a gcc flow: a flow a coupling mechanism can couple (cbr has none).
fn coupled_with(extra: &str) -> String {
    with(&format!("[[flows]]\nname = \"v\"\nkind = \"gcc\"\n{extra}"))
}

fn err(text: &str) -> String {
    common::parse_error(text, "s.toml")
}

/// The error of building `text` (the `[coupling] options` are read there).
fn build_err(text: &str) -> String {
    let e = validate_toml(text, "s.toml").expect_err("must be refused");
    let s = e.to_string();
    assert!(!s.contains('\n'), "one line: {s}");
    s
}

#[test]
fn sbd_base_interval_has_a_floor_and_a_ceiling() {
    let m = err(&with("[sbd]\nbase_interval = \"1us\""));
    assert_eq!(
        m,
        "s.toml: sbd.base_interval: must be between 10 ms and 60 s, got 1 us"
    );
    let m = err(&with("[sbd]\nbase_interval = \"2min\""));
    assert!(
        m.starts_with("s.toml: sbd.base_interval: must be between"),
        "{m}"
    );
    common::scenario(&with("[sbd]\nbase_interval = \"10ms\""));
}

#[test]
fn sbd_n_is_bounded_before_anything_is_allocated() {
    let m = err(&with("[sbd]\nn = 1000000000000"));
    assert_eq!(
        m,
        "s.toml: sbd.n: N must be at most 10000, got 1000000000000"
    );
    common::scenario(&with("[sbd]\nn = 10000"));
}

#[test]
fn sbd_verdicts_over_the_run_are_bounded() {
    // 1,000 flows x 3 s / 10 ms = 300,000 verdicts: fine; x 100,000 s: too many.
    let many = with("[sbd]\nbase_interval = \"10ms\"")
        .replace("kind = \"cbr\"", "kind = \"cbr\"\ncount = 1000");
    common::scenario(&many);
    let long =
        many.replace("duration = \"3s\"", "duration = \"100000s\"") + "[measure]\nseries = false\n";
    let m = err(&long);
    assert!(
        m.starts_with("s.toml: sbd.base_interval: SBD would keep"),
        "{m}"
    );
    assert!(m.contains("more than 10000000"), "{m}");
}

#[test]
fn series_rows_are_bounded_unless_the_series_is_off() {
    let long = BASE.replace("duration = \"3s\"", "duration = \"1e9s\"");
    let m = err(&long);
    assert!(
        m.starts_with("s.toml: measure.bin: the time series would hold"),
        "{m}"
    );
    assert!(m.contains("series = false"), "{m}");
    common::scenario(&(long + "[measure]\nseries = false\n"));
}

#[test]
fn flows_after_count_are_bounded() {
    let mut text = BASE.to_string();
    for k in 0..11 {
        text.push_str(&format!(
            "[[flows]]\nname = \"many{k}-\"\nkind = \"cbr\"\ncount = 10000\noverrides = {{ rate = \"1kbps\" }}\n"
        ));
    }
    let m = err(&(text + "[measure]\nseries = false\n"));
    assert_eq!(
        m,
        "s.toml: flows: the number of flows (after count) must be at most 100000, got 110001"
    );
}

#[test]
fn a_looped_trace_may_not_schedule_unbounded_capacity_changes() {
    let dir = std::env::temp_dir().join(format!("flowstate-bounds-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let trace = dir.join("fast.csv");
    // Two rows 1 ms apart: a 2 ms period, looped.
    std::fs::write(&trace, "0,1000000\n0.001,2000000\n").expect("write");
    let text = |duration: &str| {
        format!(
            "name = \"t\"\nduration = \"{duration}\"\n[link]\ncapacity_trace = {{ file = {:?}, format = \"csv\" }}\ndelay = \"10ms\"\nqueue = \"62pkt\"\n[[flows]]\nname = \"a\"\nkind = \"cbr\"\noverrides = {{ rate = \"1Mbps\" }}\n[measure]\nseries = false\n",
            trace.display().to_string()
        )
    };
    common::scenario(&text("10s"));
    let m = err(&text("100000s"));
    assert!(
        m.starts_with("s.toml: link.capacity_trace: the trace would change the capacity"),
        "{m}"
    );
    assert!(m.contains("more than 10000000"), "{m}");
    std::fs::remove_dir_all(&dir).ok();
}

fn web_api(options: &str) -> String {
    coupled_with(&format!(
        "[coupling]\nmechanism = \"web-api\"\noptions = {{ {options} }}"
    ))
}

#[test]
fn web_api_times_are_bounded() {
    let m = build_err(&web_api("interval = \"1us\""));
    assert_eq!(
        m,
        "coupling.options.interval: must be between 10 ms and 60 s, got 1 us"
    );
    let m = build_err(&web_api("delay = \"1h\""));
    assert!(m.contains("coupling.options.delay: "), "{m}");
    let m = build_err(&web_api("delay = \"10min\""));
    assert_eq!(
        m,
        "coupling.options.delay: must be between 0 s and 60 s, got 600 s"
    );
    let m = build_err(&web_api("rate_window = \"2min\""));
    assert!(
        m.starts_with("coupling.options.rate_window: must be between"),
        "{m}"
    );
    validate_toml(&web_api("interval = \"10ms\", delay = \"0s\""), "s.toml").expect("valid");
}

#[test]
fn web_api_min_media_rate_is_a_non_negative_rate_with_a_unit() {
    let m = build_err(&web_api("min_media_rate = \"-1kbps\""));
    assert_eq!(
        m,
        "coupling.options.min_media_rate: must be between 0 bps and 1 Tbps, got -1 kbps"
    );
    let m = build_err(&web_api("min_media_rate = 50000"));
    assert!(
        m.starts_with("coupling.options.min_media_rate: expected a bit rate with its unit"),
        "{m}"
    );
    validate_toml(&web_api("min_media_rate = \"50kbps\""), "s.toml").expect("valid");
}

#[test]
fn names_follow_one_rule() {
    let s = common::scenario(&coupled_with("[coupling]\nmechanism = \"WEB-API\""));
    assert_eq!(s.coupling.expect("coupling").mechanism, "web-api");
    let s = common::scenario(&coupled_with("[coupling]\nmechanism = \"web_api\""));
    assert_eq!(s.coupling.expect("coupling").mechanism, "web-api");
    let s = common::scenario(&coupled_with(
        "[coupling]\nmechanism = \"FSE_NG\"\ngroups = \"SBD\"",
    ));
    assert_eq!(
        s.groups_mode(),
        flowstate_sim::sbd::GroupsMode::Sbd,
        "groups in any case"
    );
    let s = common::scenario(
        &BASE
            .replace(
                "kind = \"cbr\"",
                "kind = \"TCP_CUBIC\"\nsource = \"ON_OFF\"",
            )
            .replace("overrides = { rate = \"1Mbps\" }", ""),
    );
    assert_eq!(s.flows[0].kind.name(), "tcp-cubic");
    let s = common::scenario(
        &BASE
            .replace(
                "kind = \"cbr\"",
                "kind = \"GCC\"\npreset = \"Paper_Static\"",
            )
            .replace("overrides = { rate = \"1Mbps\" }", ""),
    );
    assert_eq!(s.flows[0].kind.name(), "gcc");
    let s = common::scenario(
        &BASE
            .replace("kind = \"cbr\"", "kind = \"sctp\"\npreset = \"DCSCTP\"")
            .replace("overrides = { rate = \"1Mbps\" }", ""),
    );
    assert_eq!(s.flows[0].preset.as_deref(), Some("DCSCTP"));
    flowstate_sim::validate(&s).expect("the preset is read by the same rule when built");
    let m = err(&with("[coupling]\nmechanism = \"fse ng x\""));
    assert!(m.contains("any case"), "{m}");
}

#[test]
fn trace_formats_follow_the_name_rule() {
    let trace = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../scenarios/traces/example-gym.json");
    let text = format!(
        "name = \"t\"\nduration = \"3s\"\n[link]\ncapacity_trace = {{ file = {:?}, format = \"GYM_JSON\" }}\ndelay = \"10ms\"\nqueue = \"62pkt\"\n[[flows]]\nname = \"a\"\nkind = \"cbr\"\noverrides = {{ rate = \"1Mbps\" }}\n",
        trace.display().to_string()
    );
    common::scenario(&text);
}

#[test]
fn the_browser_table_is_read_and_checked_for_unknown_keys() {
    let s = common::scenario(&with(
        "[browser]\nfield_trials = [\"WebRTC-Bwe-ScreamV2/mode:always\"]",
    ));
    let trials = s.browser.expect("browser").field_trials;
    assert_eq!(trials, ["WebRTC-Bwe-ScreamV2/mode:always"]);
    assert!(common::scenario(BASE).browser.is_none());
    let m = err(&with("[browser]\nfield_trial = [\"A/B\"]"));
    assert!(
        m.starts_with("s.toml: browser.field_trial: unknown field `field_trial`"),
        "{m}"
    );
}

#[test]
fn coupling_without_mechanism_is_none() {
    let s = common::scenario(&with("[coupling]\ngroups = \"static\""));
    assert_eq!(s.coupling.expect("coupling").mechanism, "none");
}

#[test]
fn an_array_of_tables_where_a_table_belongs_says_so() {
    for (key, body) in [
        ("sbd", "[[sbd]]\nn = 50"),
        (
            "parking_lot",
            "[[parking_lot]]\nhops = 2\nlink = { capacity = \"1Mbps\", delay = \"1ms\", queue = \"10pkt\" }",
        ),
        ("coupling", "[[coupling]]\nmechanism = \"none\""),
        ("measure", "[[measure]]\nbin = \"1s\""),
        ("browser", "[[browser]]\nfield_trials = []"),
    ] {
        let m = err(&with(body));
        assert_eq!(
            m,
            format!("s.toml: {key}: `{key}` is a table: write [{key}], not [[{key}]]")
        );
    }
}

#[test]
fn rfc_8888_feedback_intervals_have_a_floor() {
    for kind in ["nada", "scream"] {
        let text = BASE
            .replace("kind = \"cbr\"", &format!("kind = \"{kind}\""))
            .replace(
                "overrides = { rate = \"1Mbps\" }",
                "overrides = { feedback_interval_ms = 0.001 }",
            );
        let m = build_err(&text);
        assert!(
            m.ends_with(
                "flows[0].overrides.feedback_interval_ms: must be at least 1 ms, got 0.001 ms"
            ),
            "{kind}: {m}"
        );
    }
}

#[test]
fn the_documented_bounds_table_has_a_row_per_bound() {
    let doc = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/SCENARIOS.md"),
    )
    .expect("docs/SCENARIOS.md");
    let section = doc
        .split("\n## Bounds\n")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .expect("a Bounds section");
    let rows = section.lines().filter(|l| l.starts_with("| ")).count();
    // The header and the separator row (`|---|`) aside.
    assert_eq!(rows - 1, flowstate_sim::bounds::ALL.len(), "{section}");
}

#[test]
fn name_valued_fields_follow_the_name_rule() {
    let text =
        BASE.replace(
            "kind = \"cbr\"",
            "kind = \"gcc\"\ndirection = \"Reverse\"\npreset = \"paper\"",
        )
        .replace(
            "overrides = { rate = \"1Mbps\" }",
            "overrides = { threshold = \"Adaptive\", loss_controller = \"CHROMIUM\" }",
        ) + "[measure]\nrecorder_thread = \"OFF\"\n";
    let s = common::scenario(&text);
    assert_eq!(
        s.flows[0].direction,
        flowstate_sim::scenario::DirectionSpec::Reverse
    );
    assert_eq!(
        s.measure.recorder_thread,
        Some(flowstate_sim::metrics::RecorderThread::Off)
    );
    validate_toml(&text, "s.toml").expect("the overrides are read by the same rule");
    let m = err(&BASE.replace("kind = \"cbr\"", "kind = \"cbr\"\ndirection = \"sideways\""));
    assert!(
        m.contains("unknown variant `sideways`, expected `forward` or `reverse`"),
        "{m}"
    );
}
