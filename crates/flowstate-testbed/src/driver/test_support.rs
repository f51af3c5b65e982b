//! What the driver's unit tests share: a scenario's flows built as a run builds them,
//! without sockets.

use super::flows::{flow_endpoints, Assoc, RxKind, TxFlow};
use super::{flow_seed, TestbedError};
use flowstate_sim::endpoints::FlowContext;
use flowstate_sim::flow::FlowState;
use flowstate_sim::Scenario;

/// One flow of each kind the testbed runs, in this order: gcc, sctp, nada, scream,
/// ledbat.
pub(super) const KINDS: &str = r#"
name = "kinds"
duration = "10s"
[link]
capacity = "2Mbps"
delay = "20ms"
queue = "300ms"
[[flows]]
name = "gcc"
kind = "gcc"
[[flows]]
name = "sctp"
kind = "sctp"
start = "1s"
[[flows]]
name = "nada"
kind = "nada"
start = "2s"
[[flows]]
name = "scream"
kind = "scream"
start = "3s"
[[flows]]
name = "ledbat"
kind = "ledbat"
start = "4s"
"#;

/// The flows of scenario `text` (seed 1), idle, their associations closed.
pub(super) fn flows(text: &str) -> Result<Vec<(TxFlow, RxKind)>, TestbedError> {
    let scenario = Scenario::from_toml(text, "<test>").expect("a valid scenario");
    let config = flowstate_sim::run::sim_config(&scenario, 1);
    let ctx = FlowContext {
        mechanism: "none".into(),
        gcc_report: None,
    };
    let mut out = Vec::new();
    for (i, (spec, setup)) in scenario.flows.iter().zip(&config.flows).enumerate() {
        let (kind, rx) = flow_endpoints(&ctx, i, spec, flow_seed(1, i))?;
        let tx = TxFlow {
            setup: setup.clone(),
            kind,
            state: FlowState::Idle,
            assoc: Assoc::Closed,
            handshake_at: None,
            ect_sent: false,
        };
        out.push((tx, rx));
    }
    Ok(out)
}
