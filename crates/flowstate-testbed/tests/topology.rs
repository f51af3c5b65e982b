//! The testbed emulates one bottleneck per direction: a multi-link topology is refused.

use flowstate_sim::Scenario;
use flowstate_testbed::{run, TestbedOptions};

/// One bottleneck per direction: a parking lot (a flow over two links) is refused with
/// one line naming the field, before any socket is opened.
#[test]
fn a_multi_bottleneck_topology_is_a_one_line_error() {
    let text = r#"
name = "testbed-parking-lot"
duration = "6s"
[parking_lot]
hops = 2
link = { capacity = "2Mbps", delay = "10ms", queue = "100ms" }
[[flows]]
name = "gcc"
kind = "gcc"
hops = [1, 2]
"#;
    let e = run(
        &Scenario::from_toml(text, "<test>").expect("valid"),
        TestbedOptions::default(),
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "flows[0].hops: crosses 2 links (hop1, hop2); the emulator and the testbed emulate one bottleneck per direction; run multi-link topologies in the simulator (flowstate run)"
    );
}
