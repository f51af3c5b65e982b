//! `python` / `onnx` flows: their rate from a decider the driver makes
//! (flowstate_sim::deciders), checked like every flow, refused by the Rust-only run,
//! coupled as rate flows, and a run advanced in steps equal to one run.

mod common;

use flowstate_core::endpoint::external::{DecideError, FeedbackBatch, RateDecider, RateDecision};
use flowstate_core::Timestamp;
use flowstate_sim::deciders::{build_with_deciders, DeciderFactory};
use flowstate_sim::flow_spec::FlowSpec;
use flowstate_sim::{FieldError, Scenario};

/// AIMD on the feedback: +`step` bit/s per report without loss, x0.7 on a loss.
struct Aimd {
    rate: f64,
    step: f64,
}

impl RateDecider for Aimd {
    fn decide(&mut self, b: &FeedbackBatch) -> Result<RateDecision, DecideError> {
        if let Some(a) = b.allowance {
            self.rate = a.as_bps();
        }
        if b.packets.iter().any(|p| p.arrival.is_none()) {
            self.rate *= 0.7;
        } else {
            self.rate += self.step;
        }
        Ok(RateDecision {
            target_bps: self.rate,
            pacing_bps: None,
        })
    }
}

/// The `step` param of each flow (default 20 kbit/s per report).
struct AimdFactory;

impl DeciderFactory for AimdFactory {
    fn decider(
        &self,
        _index: usize,
        spec: &FlowSpec,
        _seed: u64,
    ) -> Result<Box<dyn RateDecider>, FieldError> {
        let step = match spec.params.get("step") {
            None => 20_000.0,
            Some(toml::Value::Float(v)) => *v,
            Some(toml::Value::Integer(v)) => *v as f64,
            Some(v) => {
                return Err(FieldError::new(
                    "params.step",
                    format!("expected a number, got {v}"),
                ))
            }
        };
        Ok(Box::new(Aimd {
            rate: 300_000.0,
            step,
        }))
    }
}

fn text(flows: &str, mechanism: &str) -> String {
    format!(
        r#"
name = "external"
duration = "20s"
[link]
capacity = "2Mbps"
delay = "20ms"
queue = "100ms"
[coupling]
mechanism = "{mechanism}"
{flows}
"#
    )
}

const ONE: &str = "[[flows]]\nname = \"x\"\nkind = \"python\"\ncontroller = \"m:Aimd\"\n";

#[test]
fn a_python_flow_runs_with_a_decider_and_fills_the_link() {
    let s = common::scenario(&text(ONE, "none"));
    let r = build_with_deciders(&s, 1, &AimdFactory)
        .expect("builds")
        .run();
    let f = &r.summary.flows[0];
    assert_eq!(f.kind, "python");
    assert!(
        f.throughput_mbps > 1.3 && f.throughput_mbps < 2.01,
        "{}",
        f.throughput_mbps
    );
}

#[test]
fn the_rust_only_run_refuses_it_with_one_line() {
    let s = common::scenario(&text(ONE, "none"));
    let e = flowstate_sim::run(&s, 1)
        .expect_err("no deciders")
        .to_string();
    assert!(
        e.starts_with("flows[0].kind: a python flow's controller runs in Python: run the scenario with `flowstate run`"),
        "{e}"
    );
}

#[test]
fn a_run_in_steps_is_the_run() {
    let s = common::scenario(&text(ONE, "none"));
    let whole = build_with_deciders(&s, 3, &AimdFactory)
        .expect("builds")
        .run();
    let mut stepped = build_with_deciders(&s, 3, &AimdFactory).expect("builds");
    let mut t = 0;
    while stepped.now() < stepped.duration() && t < 30_000 {
        t += 60;
        stepped.run_until(Timestamp::from_millis(t));
    }
    let stepped = stepped.finish();
    assert_eq!(whole.trace_hash, stepped.trace_hash);
    assert!(whole.trace_hash.is_some());
    assert_eq!(whole.events, stepped.events);
}

#[test]
fn python_flows_are_coupled_as_rate_flows() {
    let flows = format!(
        "{ONE}group = \"g\"\npriority = 1\n[[flows]]\nname = \"y\"\nkind = \"python\"\ncontroller = \"m:Aimd\"\ngroup = \"g\"\npriority = 3\n"
    );
    let s = common::scenario(&text(&flows, "fse"));
    let r = build_with_deciders(&s, 1, &AimdFactory)
        .expect("builds")
        .run();
    let (a, b) = (
        r.summary.flows[0].throughput_mbps,
        r.summary.flows[1].throughput_mbps,
    );
    let share = b / (a + b);
    assert!((share - 0.75).abs() < 0.1, "priority 3 of 4: {share}");
}

#[test]
fn the_factory_error_names_the_flow_field() {
    let flows = format!("{ONE}params = {{ step = \"fast\" }}\n");
    let s = common::scenario(&text(&flows, "none"));
    let e = build_with_deciders(&s, 1, &AimdFactory)
        .expect_err("bad param")
        .to_string();
    assert_eq!(e, "flows[0].params.step: expected a number, got \"fast\"");
}

#[test]
fn controller_and_params_are_checked() {
    let bad = |flows: &str| common::parse_error(&text(flows, "none"), "t.toml");
    let e = bad("[[flows]]\nname = \"x\"\nkind = \"python\"\n");
    assert!(e.contains("flows[0].controller: a python flow names its controller class: controller = \"module:Class\""), "{e}");
    let e = bad("[[flows]]\nname = \"x\"\nkind = \"python\"\ncontroller = \"nocolon\"\n");
    assert!(
        e.contains("flows[0].controller: expected \"module:Class\""),
        "{e}"
    );
    let e = bad("[[flows]]\nname = \"x\"\nkind = \"onnx\"\n");
    assert!(
        e.contains("flows[0].controller: an onnx flow names its model file"),
        "{e}"
    );
    let e = bad("[[flows]]\nname = \"x\"\nkind = \"gcc\"\ncontroller = \"m:C\"\n");
    assert!(e.contains("flows[0].controller: only python and onnx flows take a controller, and this flow is gcc"), "{e}");
    let e = bad("[[flows]]\nname = \"x\"\nkind = \"cbr\"\nparams = { a = 1 }\noverrides = { rate = \"1Mbps\" }\n");
    assert!(
        e.contains("flows[0].params: only python and onnx flows take a params"),
        "{e}"
    );
    let e = bad(&format!("{ONE}overrides = {{ min_rate = 0 }}\n"));
    assert!(e.contains("flows[0].overrides.min_rate"), "{e}");
    let e = bad(&format!(
        "{ONE}overrides = {{ feedback_interval_ms = 0.5 }}\n"
    ));
    assert!(e.contains("flows[0].overrides.feedback_interval_ms"), "{e}");
    // A valid one parses.
    let _: Scenario = common::scenario(&text(ONE, "none"));
}
