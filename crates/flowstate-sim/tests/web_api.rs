//! The `web-api` coupling mode (src/web_api.rs): paper 000's Table 5 and Table 6 set-ups
//! with the Web-API rule applied as a browser application would (getStats every 150 ms,
//! decisions 50 ms later, maxBitrate caps and a paced data channel).

use flowstate_sim::metrics::Summary;
use flowstate_sim::run_toml;
use std::path::PathBuf;

fn base(name: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../scenarios")
        .join(name)
        .join("base.toml");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn with_mechanism(toml: &str, mechanism_line: &str) -> String {
    let mut out = String::new();
    for line in toml.lines() {
        if line.starts_with("mechanism = ") {
            out.push_str(mechanism_line);
        } else {
            out.push_str(line);
        }
        out.push('\n');
    }
    out
}

fn run(name: &str, mechanism_line: &str) -> Summary {
    let src = with_mechanism(&base(name), mechanism_line);
    run_toml(&src, "web-api-test.toml", Some(1))
        .unwrap_or_else(|e| panic!("{name}: {e}"))
        .summary
}

fn share(s: &Summary, flow: &str) -> f64 {
    s.flows.iter().find(|f| f.name == flow).unwrap().share
}
fn rtt(s: &Summary, flow: &str) -> f64 {
    s.flows
        .iter()
        .find(|f| f.name == flow)
        .unwrap()
        .rtt_ms
        .mean
        .unwrap()
}

// Equal priorities: an even split (Jain >= 0.98), GCC's RTT near the 100 ms base, the
// link used; uncoupled on the same set-up, GCC starves.
#[test]
fn table5_even_split_with_low_delay() {
    let s = run("p000-table5", "mechanism = \"web-api\"");
    assert!(
        s.aggregate.jain_index >= 0.98,
        "Jain {}",
        s.aggregate.jain_index
    );
    assert!(
        (share(&s, "gcc") - 0.5).abs() <= 0.05,
        "GCC share {}",
        share(&s, "gcc")
    );
    assert!(rtt(&s, "gcc") < 130.0, "GCC RTT {}", rtt(&s, "gcc"));
    assert!(
        s.aggregate.utilization >= 0.8,
        "utilization {}",
        s.aggregate.utilization
    );
    let none = run("p000-table5", "mechanism = \"none\"");
    assert!(share(&none, "gcc") < 0.25);
}

// Priorities 2:1: shares 2/3 and 1/3 within 5 points.
#[test]
fn table6_priority_shares() {
    let s = run("p000-table6", "mechanism = \"web-api\"");
    assert!(
        (share(&s, "gcc") - 2.0 / 3.0).abs() <= 0.05,
        "GCC share {}",
        share(&s, "gcc")
    );
    assert!(rtt(&s, "gcc") < 130.0, "GCC RTT {}", rtt(&s, "gcc"));
}

// Options reach the hook; a bad one is one line naming it.
#[test]
fn options_and_errors() {
    let hash = |m: &str| {
        let src = with_mechanism(&base("p000-table5"), m);
        run_toml(&src, "x.toml", Some(1)).unwrap().trace_hash
    };
    let slow =
        hash("mechanism = \"web-api\"\noptions = { interval = \"200ms\", delay = \"100ms\" }");
    assert_ne!(slow, hash("mechanism = \"web-api\""));
    assert_eq!(
        slow,
        hash("mechanism = \"web-api\"\noptions = { interval = \"0.2s\", delay = \"0.1s\" }")
    );
    // A time needs its unit: a bare number is not read as seconds.
    let bare = with_mechanism(
        &base("p000-table5"),
        "mechanism = \"web-api\"\noptions = { interval = 0.2 }",
    );
    let e = run_toml(&bare, "x.toml", Some(1)).unwrap_err().to_string();
    assert!(
        e.contains("coupling.options.interval") && e.contains("needs a unit"),
        "{e}"
    );
    let src = with_mechanism(
        &base("p000-table5"),
        "mechanism = \"web-api\"\noptions = { intervall = \"1s\" }",
    );
    let e = run_toml(&src, "x.toml", Some(1)).unwrap_err().to_string();
    assert!(
        e.starts_with("coupling.options.intervall: unknown option of web-api"),
        "{e}"
    );
    let src = with_mechanism(&base("p000-table5"), "mechanism = \"web-apy\"");
    let e = run_toml(&src, "x.toml", Some(1)).unwrap_err().to_string();
    assert!(e.contains("|web-api"), "{e}");
}

/// A SCReAM v2 video is coupled as a GCC one (its target and maxBitrate): with the data
/// channel on 4 Mbit/s DualPI2 the pair splits about evenly, where uncoupled the data
/// channel takes nearly all of it.
#[test]
fn a_scream_v2_video_is_coupled_as_a_gcc_one() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../scenarios/l4s/scream-v2-vs-sctp.toml");
    let src = std::fs::read_to_string(&path).expect("the scenario");
    let coupled = run_toml(
        &with_mechanism(&src, "mechanism = \"web-api\""),
        "t.toml",
        Some(1),
    )
    .expect("runs")
    .summary;
    let alone = run_toml(&src, "t.toml", Some(1)).expect("runs").summary;
    let (c, a) = (share(&coupled, "scream_v2"), share(&alone, "scream_v2"));
    assert!(c > 0.35 && c < 0.65, "coupled video share {c}");
    assert!(a < 0.15, "uncoupled video share {a}");
}

/// A kind the page cannot read or control, in a web-api group, is an error rather than
/// an uncoupled flow.
#[test]
fn a_kind_the_rule_cannot_couple_is_refused() {
    let src = format!(
        "{}\n[[flows]]\nname = \"n\"\nkind = \"nada\"\n",
        with_mechanism(&base("p000-table5"), "mechanism = \"web-api\"")
    );
    let e = run_toml(&src, "t.toml", Some(1))
        .map(|_| ())
        .expect_err("an error")
        .to_string();
    assert!(e.contains("flows[2].group: coupling mechanism \"web-api\" couples only gcc, scream-v2, sctp flows"), "{e}");
}
