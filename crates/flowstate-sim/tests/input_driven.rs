//! A flow skips polling an endpoint that declares `INPUT_DRIVEN` (TCP, LEDBAT) while
//! nothing has reached it, keeps its deadline between calls and asks its sender for RTT
//! samples and coupling reports only after the sender changed (`flow.rs`,
//! `KeptDeadline`). None of that
//! may change a run: every scenario here gives the same trace, to the packet, as the
//! same scenario with every flow polled at every event of its flow
//! (`SimFlow::poll_at_every_event`, the behaviour before). The scenarios put every flow
//! kind through starts, stops, a pause, losses, timeouts and the coupling managers'
//! allowances. (An endpoint wrongly declared input-driven fails here: the SCTP sender,
//! whose max-burst allowance refills at every new instant it is polled at, changes
//! these traces when declared so; so does an allowance that does not mark its sender
//! pending.)

mod common;

use common::scenario;
use flowstate_sim::coupling::DefaultCouplingFactory;
use flowstate_sim::endpoints::{FlowContext, FlowFactory};
use flowstate_sim::flow::SimFlow;
use flowstate_sim::run::DefaultFlowFactory;
use flowstate_sim::scenario::FlowSpec;
use flowstate_sim::{run_with, SimError};
use rand_chacha::ChaCha8Rng;

/// The default flows, each polled at every event of its flow.
struct EveryEvent;

impl FlowFactory for EveryEvent {
    fn build(
        &self,
        ctx: &FlowContext,
        index: usize,
        spec: &FlowSpec,
        rng: ChaCha8Rng,
    ) -> Result<Box<dyn SimFlow>, SimError> {
        let mut flow = DefaultFlowFactory.build(ctx, index, spec, rng)?;
        flow.poll_at_every_event();
        Ok(flow)
    }
}

/// Runs `text` with both factories and seeds 1 and 2; the traces must be equal and
/// hold packets of every flow.
fn same_trace(label: &str, text: &str) {
    let sc = scenario(text);
    for seed in [1, 2] {
        let skipping = run_with(&sc, seed, &DefaultFlowFactory, &DefaultCouplingFactory)
            .unwrap_or_else(|e| panic!("{label}: {e}"));
        let every = run_with(&sc, seed, &EveryEvent, &DefaultCouplingFactory)
            .unwrap_or_else(|e| panic!("{label}: {e}"));
        assert!(
            skipping.trace_hash.is_some(),
            "{label}: the fingerprint is on"
        );
        assert_eq!(
            skipping.trace_hash, every.trace_hash,
            "{label}, seed {seed}: the trace changed when input-driven endpoints are skipped"
        );
        assert_eq!(
            skipping.events, every.events,
            "{label}, seed {seed}: events"
        );
        for f in &skipping.summary.flows {
            assert!(
                f.throughput_mbps > 0.0,
                "{label}: flow {} sent nothing",
                f.name
            );
        }
    }
}

const EVERY_KIND: &str = r#"
name = "every-kind"
duration = "25s"
[link]
capacity = "8Mbps"
delay = "30ms"
queue = "60ms"
[[flows]]
name = "gcc"
kind = "gcc"
preset = "chromium"
[[flows]]
name = "sctp"
kind = "sctp"
start = "1s"
stop = "20s"
[[flows]]
name = "newreno"
kind = "tcp-newreno"
group = "g"
start = "2s"
pauses = [{ at = "8s", resume = "12s" }]
[[flows]]
name = "cubic"
kind = "tcp-cubic"
group = "g"
start = "3s"
overrides = { sack = true }
[[flows]]
name = "rap"
kind = "rap"
group = "g"
[[flows]]
name = "tfrc"
kind = "tfrc"
group = "g"
start = "4s"
[[flows]]
name = "cbr"
kind = "cbr"
overrides = { rate = "300kbps" }
[[flows]]
name = "nada"
kind = "nada"
start = "5s"
[[flows]]
name = "scream"
kind = "scream"
start = "5s"
[[flows]]
name = "ledbat"
kind = "ledbat"
group = "g"
start = "6s"
"#;

#[test]
fn every_kind_together_gives_the_same_trace() {
    same_trace("every kind", EVERY_KIND);
}

#[test]
fn window_flows_on_a_short_queue_give_the_same_trace() {
    // Losses, fast retransmits and timeouts on a 15 ms queue.
    same_trace(
        "short queue",
        r#"
name = "short-queue"
duration = "20s"
[link]
capacity = "3Mbps"
delay = "20ms"
queue = "15ms"
[[flows]]
name = "tcp"
kind = "tcp-newreno"
group = "g"
count = 3
[[flows]]
name = "sack"
kind = "tcp-cubic"
group = "g"
overrides = { sack = true }
[[flows]]
name = "ledbat"
kind = "ledbat"
group = "g"
"#,
    );
}

#[test]
fn coupled_flows_give_the_same_trace() {
    // Allowances reach a flow from another flow's report.
    same_trace(
        "conservative FSE, RAP",
        r#"
name = "rap-fse"
duration = "20s"
[link]
capacity = "4Mbps"
delay = "25ms"
queue = "100ms"
[coupling]
mechanism = "conservative-fse"
[[flows]]
name = "rap"
kind = "rap"
group = "g"
count = 3
"#,
    );
    same_trace(
        "FSE-NG, GCC + SCTP + TCP",
        r#"
name = "fse-ng"
duration = "20s"
[link]
capacity = "4Mbps"
delay = "25ms"
queue = "100ms"
[coupling]
mechanism = "fse-ng"
[[flows]]
name = "gcc"
kind = "gcc"
preset = "chromium"
[[flows]]
name = "sctp"
kind = "sctp"
start = "2s"
[[flows]]
name = "tcp"
kind = "tcp-newreno"
group = "g"
start = "4s"
"#,
    );
    for mechanism in ["fse", "fse-ng", "ext-fse-ng", "fsev2"] {
        same_trace(
            &format!("{mechanism}, TCP + RAP"),
            &format!(
                r#"
name = "tcp-{mechanism}"
duration = "20s"
[link]
capacity = "4Mbps"
delay = "25ms"
queue = "100ms"
[coupling]
mechanism = "{mechanism}"
[[flows]]
name = "tcp"
kind = "tcp-newreno"
group = "g"
count = 2
[[flows]]
name = "late"
kind = "tcp-cubic"
group = "g"
start = "5s"
[[flows]]
name = "rap"
kind = "rap"
group = "g"
start = "2s"
"#
            ),
        );
    }
}
