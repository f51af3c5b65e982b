//! Pausing and resuming a media flow (RFC 8867 section 5.8) for every media kind: no
//! packets while paused, and no backlog at the resume. The frames a paused source
//! would have captured are never produced; a NADA flow also discards its shaping buffer
//! and restarts r_vin and r_send at the start rate until its next report (as the
//! reference implementation, cisco/ns3-rmcat). Without that, a 20 s pause left about
//! 20 s of frames to send at the resume: the flow sent above its peers for the rest of
//! the run.

use flowstate_sim::{run_toml, RunResult};

/// One media flow of `kind`, alone on 3.5 Mbit/s, paused from 20 s to 40 s.
fn run(kind: &str, overrides: &str) -> RunResult {
    let toml = format!(
        r#"
name = "pause-{kind}"
duration = "60s"
[link]
capacity = "3.5Mbps"
delay = "50ms"
queue = "300ms"
[[flows]]
name = "media"
kind = "{kind}"
pauses = [{{ at = "20s", resume = "40s" }}]
overrides = {{ {overrides} }}
[measure]
bin = "0.5s"
"#
    );
    run_toml(&toml, "pause.toml", Some(1)).unwrap_or_else(|e| panic!("{kind}: {e}"))
}

/// Mean send rate in Mbit/s over [from, to) seconds.
fn send_rate(r: &RunResult, from: f64, to: f64) -> f64 {
    let rows: Vec<_> = r
        .series
        .iter()
        .filter(|s| s.time_s >= from && s.time_s < to)
        .collect();
    rows.iter().map(|s| s.send_rate_mbps).sum::<f64>() / rows.len().max(1) as f64
}

const KINDS: [(&str, &str); 3] = [
    (
        "gcc",
        r#"video_max_rate = "1.5Mbps", max_rate = "1.5Mbps", start_rate = "150kbps""#,
    ),
    ("nada", r#"max_rate = "1.5Mbps""#),
    ("scream", r#"max_rate = "1.5Mbps""#),
];

/// The largest send rate of one 0.5 s bin in [from, to), in Mbit/s.
fn peak_send_rate(r: &RunResult, from: f64, to: f64) -> f64 {
    r.series
        .iter()
        .filter(|s| s.time_s >= from && s.time_s < to)
        .map(|s| s.send_rate_mbps)
        .fold(0.0, f64::max)
}

#[test]
fn a_paused_flow_sends_nothing_and_resumes_without_a_backlog() {
    for (kind, overrides) in KINDS {
        let r = run(kind, overrides);
        let before = send_rate(&r, 15.0, 20.0);
        let paused = send_rate(&r, 21.0, 40.0);
        let peak = peak_send_rate(&r, 40.0, 45.0);
        assert!(before > 0.5, "{kind}: {before:.3} Mbit/s before the pause");
        assert!(paused < 0.01, "{kind}: {paused:.3} Mbit/s while paused");
        // A backlog of 20 s of frames sent at the resume: SCReAM sent 4.6 Mbit/s (the
        // whole link and more into the queue) in the half second after it.
        assert!(
            peak < 1.8,
            "{kind}: {peak:.3} Mbit/s in a half second after the resume (maximum 1.5)"
        );
    }
}

/// NADA restarts r_vin and r_send at RINIT (150 kbit/s) at the resume, until its next
/// report: the first half second sends well below the pre-pause 1.5 Mbit/s (0.78 Mbit/s
/// measured; 1.50 with the backlog).
#[test]
fn nada_restarts_at_the_start_rate() {
    let r = run("nada", r#"max_rate = "1.5Mbps""#);
    let first = send_rate(&r, 40.0, 40.5);
    assert!(
        first < 1.0,
        "NADA sent {first:.3} Mbit/s right after the resume"
    );
}
