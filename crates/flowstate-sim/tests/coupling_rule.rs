//! `[coupling] mechanism = "python"`: a coupling rule from the driver
//! (flowstate_sim::rule_runs) couples the flows as the built-in mechanism it
//! reimplements does, its answers are checked, and the Rust-only run refuses it.

mod common;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use flowstate_core::coupling::FlowKind;
use flowstate_core::Timestamp;
use flowstate_sim::coupling_rule::{RuleEvent, RuleFailed, RuleFlow, RuleGroup, RuleMaker};
use flowstate_sim::deciders::DeciderFactory;
use flowstate_sim::rule_runs::{build_with_python, RuleFactory};
use flowstate_sim::FieldError;

/// Paper 004 Alg. 1 (the built-in `fse-simple`), written against the rule interface;
/// `bad_id` answers for a flow that is not in the group instead.
#[derive(Debug, Clone, Default)]
struct SimpleFse {
    s_cr: f64,
    fse_r: BTreeMap<u64, f64>,
    bad_id: bool,
    failures: Arc<Mutex<Vec<String>>>,
}

impl RuleGroup for SimpleFse {
    fn call(
        &mut self,
        _now: Timestamp,
        event: &RuleEvent,
        flows: &[RuleFlow],
    ) -> Result<Vec<(i64, f64)>, RuleFailed> {
        match event {
            RuleEvent::Register(i) => {
                let f = &flows[*i];
                let rate = f.rate_bps.unwrap_or(0.0);
                self.fse_r.insert(f.id, rate);
                self.s_cr += rate;
                Ok(Vec::new())
            }
            RuleEvent::Report(i) => {
                let f = &flows[*i];
                let cc_r = f.rate_bps.unwrap_or(0.0);
                self.s_cr = (self.s_cr + cc_r - self.fse_r[&f.id]).max(0.0);
                let s_p: f64 = flows.iter().map(|f| f.priority).sum();
                for f in flows {
                    let share = f.priority * self.s_cr / s_p;
                    self.fse_r
                        .insert(f.id, f.desired_bps.map_or(share, |d| share.min(d)));
                }
                if self.bad_id {
                    return Ok(vec![(99, 1e6)]);
                }
                Ok(self.fse_r.iter().map(|(k, v)| (*k as i64, *v)).collect())
            }
            RuleEvent::Leave(f) => {
                self.fse_r.remove(&f.id);
                Ok(Vec::new())
            }
        }
    }
    fn bad_return(&mut self, now: Timestamp, message: String) {
        self.failures
            .lock()
            .unwrap()
            .push(format!("{now}: {message}"));
    }
    fn share(&self) -> Box<dyn RuleGroup> {
        Box::new(self.clone())
    }
}

#[derive(Debug, Default)]
struct Maker {
    bad_id: bool,
    failures: Arc<Mutex<Vec<String>>>,
}

impl RuleMaker for Maker {
    fn new_group(&self, _seed: u64) -> Box<dyn RuleGroup> {
        Box::new(SimpleFse {
            bad_id: self.bad_id,
            failures: self.failures.clone(),
            ..SimpleFse::default()
        })
    }
    fn flow_kinds(&self) -> &'static [FlowKind] {
        &[FlowKind::Rate]
    }
}

struct Rules {
    bad_id: bool,
    failures: Arc<Mutex<Vec<String>>>,
}

impl RuleFactory for Rules {
    fn rule(&self, rule: &str, _params: &toml::Table) -> Result<Box<dyn RuleMaker>, FieldError> {
        assert_eq!(rule, "fse:Simple");
        Ok(Box::new(Maker {
            bad_id: self.bad_id,
            failures: self.failures.clone(),
        }))
    }
}

struct NoDeciders;

impl DeciderFactory for NoDeciders {
    fn decider(
        &self,
        _: usize,
        _: &flowstate_sim::flow_spec::FlowSpec,
        _: u64,
    ) -> Result<Box<dyn flowstate_core::endpoint::external::RateDecider>, FieldError> {
        unreachable!("no python flows")
    }
}

fn text(coupling: &str) -> String {
    format!(
        r#"
name = "rule"
duration = "30s"
[link]
capacity = "3Mbps"
delay = "50ms"
queue = "300ms"
[coupling]
{coupling}
[[flows]]
name = "low"
kind = "gcc"
priority = 1
[[flows]]
name = "high"
kind = "gcc"
priority = 2
"#
    )
}

const RULE: &str = "mechanism = \"python\"\nrule = \"fse:Simple\"\ngcc_report = \"delay-based\"";

fn rules(bad_id: bool) -> Rules {
    Rules {
        bad_id,
        failures: Arc::default(),
    }
}

#[test]
fn a_rule_reimplementing_the_simple_fse_gives_its_run() {
    let s = common::scenario(&text(RULE));
    let ours = build_with_python(&s, 1, &NoDeciders, &rules(false))
        .expect("builds")
        .run();
    let builtin = flowstate_sim::run(&common::scenario(&text("mechanism = \"fse-simple\"")), 1)
        .expect("runs");
    for (a, b) in ours.summary.flows.iter().zip(&builtin.summary.flows) {
        assert!(
            (a.throughput_mbps - b.throughput_mbps).abs() < 0.02 * b.throughput_mbps,
            "{} vs {}",
            a.throughput_mbps,
            b.throughput_mbps
        );
    }
    let (low, high) = (
        ours.summary.flows[0].throughput_mbps,
        ours.summary.flows[1].throughput_mbps,
    );
    assert!(high / low > 1.7, "{low} {high}");
}

#[test]
fn an_answer_for_a_flow_outside_the_group_is_reported() {
    let s = common::scenario(&text(RULE));
    let r = rules(true);
    build_with_python(&s, 1, &NoDeciders, &r)
        .expect("builds")
        .run();
    let failures = r.failures.lock().unwrap();
    assert!(!failures.is_empty());
    assert!(
        failures[0].contains("flow id 99 is not in the group (its flows are 1, 2)"),
        "{}",
        failures[0]
    );
}

#[test]
fn the_rust_only_run_refuses_it_with_one_line() {
    let s = common::scenario(&text(RULE));
    let e = flowstate_sim::run(&s, 1)
        .expect_err("no rule factory")
        .to_string();
    assert!(
        e.starts_with("coupling.mechanism: \"python\" runs a coupling rule written in Python: run the scenario with `flowstate run`"),
        "{e}"
    );
}

#[test]
fn rule_fields_go_with_the_python_mechanism_only() {
    let parse = |coupling: &str| flowstate_sim::Scenario::from_toml(&text(coupling), "s.toml");
    let e = parse("mechanism = \"fse\"\nrule = \"m:C\"")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("coupling.rule: only mechanism = \"python\""),
        "{e}"
    );
    let e = parse("mechanism = \"python\"").unwrap_err().to_string();
    assert!(
        e.contains("coupling.rule: mechanism = \"python\" needs the rule's class"),
        "{e}"
    );
    let e = parse("mechanism = \"fse\"\ngcc_report = \"target\"")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("coupling.gcc_report: only mechanism = \"python\""),
        "{e}"
    );
    assert!(parse("mechanism = \"Python\"\nrule = \"m:C\"\nparams = { a = 1 }").is_ok());
}
