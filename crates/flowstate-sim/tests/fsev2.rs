//! FSEv2 (paper 000 section VII) in the simulator: scenario-level regressions.

use flowstate_sim::run_toml;

/// Paper 000 Fig. 20 (0-20 s, before GCC joins): a lone SCTP flow under FSEv2 fills the
/// 5 Mbit/s link. The truncating cwnd <-> rate round trip used to take one MTU off the
/// flow's own cwnd about one report in eight, pinning it at ~0.57 Mbit/s.
#[test]
fn fsev2_lone_sctp_fills_the_link() {
    let text = r#"
name = "fsev2-lone-sctp"
duration = "10s"
seed = 1

[link]
capacity = "5Mbps"
delay = "50ms"
queue = "300ms"

[coupling]
mechanism = "fsev2"

[[flows]]
name = "sctp"
kind = "sctp"
start = "0s"
stop = "10s"

[measure]
start = "4s"
end = "10s"
"#;
    let r = run_toml(text, "fsev2-lone-sctp.toml", None).expect("runs");
    let sctp = &r.summary.flows[0];
    assert!(
        sctp.throughput_mbps > 4.5,
        "lone SCTP under FSEv2: {} Mbit/s",
        sctp.throughput_mbps
    );
}
