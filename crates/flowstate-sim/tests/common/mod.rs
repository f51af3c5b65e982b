//! What the simulator's integration tests share: a scenario text parsed, its one-line
//! error, a run's summary, and the check that a run used the link and shared it fairly.
#![allow(dead_code)] // each test binary uses a part of it

use flowstate_sim::metrics::Summary;
use flowstate_sim::{run_toml, Scenario};

/// `text` parsed as the file `test.toml`; panics if it does not parse.
pub fn scenario(text: &str) -> Scenario {
    Scenario::from_toml(text, "test.toml").expect("valid scenario")
}

/// The error of parsing `text` as the file `file`: one line, naming the file. Panics if
/// it parsed.
pub fn parse_error(text: &str, file: &str) -> String {
    match Scenario::from_toml(text, file) {
        Ok(_) => panic!("expected an error for:\n{text}"),
        Err(e) => {
            let s = e.to_string();
            assert!(!s.contains('\n'), "message must be one line: {s}");
            assert!(s.starts_with(&format!("{file}: ")), "names the file: {s}");
            s
        }
    }
}

/// The summary of one run of `text` with seed 1.
pub fn summary(text: &str) -> Summary {
    run_toml(text, "test.toml", Some(1))
        .unwrap_or_else(|e| panic!("{e}"))
        .summary
}

/// The run used more than `min_utilization` of the link and its Jain index is at least
/// `min_jain`; `label` names the run in the message.
pub fn assert_used_and_fair(label: &str, s: &Summary, min_utilization: f64, min_jain: f64) {
    let flows = throughputs(s);
    assert!(
        s.aggregate.utilization > min_utilization,
        "{label}: utilization {} ({flows:?})",
        s.aggregate.utilization
    );
    assert_fair(label, s, min_jain);
}

/// The run's Jain index is at least `min_jain`; `label` names the run in the message.
pub fn assert_fair(label: &str, s: &Summary, min_jain: f64) {
    let flows = throughputs(s);
    assert!(
        s.aggregate.jain_index >= min_jain,
        "{label}: Jain {} ({flows:?})",
        s.aggregate.jain_index
    );
}

/// Each flow's name and throughput (Mbit/s), for a failure message.
fn throughputs(s: &Summary) -> Vec<String> {
    s.flows
        .iter()
        .map(|f| format!("{} {}", f.name, f.throughput_mbps))
        .collect()
}
