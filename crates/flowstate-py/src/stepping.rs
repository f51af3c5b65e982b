//! A run advanced step by step from Python (`_native.Simulation`), for a learning
//! environment (`flowstate.gym`): `run_until(t)` processes the events before `t`
//! (flowstate-sim's `Simulation::run_until`, the same events as one run), the agent's
//! flow keeps the feedback reports that arrived (`take_feedback`) and takes its next
//! rate from `set_rate`, applied the next time the flow's sender is polled. One
//! thread, no threads started: the run waits while Python decides.

use std::cell::RefCell;
use std::rc::Rc;

use flowstate_core::endpoint::external::{DecideError, FeedbackBatch, RateDecider, RateDecision};
use flowstate_core::Timestamp;
use flowstate_sim::kinds::external::is_external;
use flowstate_sim::Scenario;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::FlowstateError;
use crate::external::{failure_err, take_failure, ControllerError, Feedback, PyDeciderFactory};
use crate::run_results::{run_dict, sim_err, ScenarioError};

/// What the agent's flow and the Python side share.
#[derive(Default)]
struct AgentState {
    reports: Vec<FeedbackBatch>,
    decision: Option<RateDecision>,
}

/// The agent flow's decider: keeps every report, keeps the rate in force, and hands
/// the sender the rate Python set.
struct AgentDecider {
    state: Rc<RefCell<AgentState>>,
}

impl RateDecider for AgentDecider {
    fn decide(&mut self, batch: &FeedbackBatch) -> Result<RateDecision, DecideError> {
        self.state.borrow_mut().reports.push(batch.clone());
        Ok(RateDecision::target(batch.target))
    }
    fn poll_decision(&mut self, _now: Timestamp) -> Option<RateDecision> {
        self.state.borrow_mut().decision.take()
    }
}

/// A run of a scenario advanced in steps; flow `agent` (a `python` or `onnx` flow) is
/// driven from Python, every other `python` / `onnx` flow by its own controller.
#[pyclass(unsendable, module = "flowstate._native", name = "Simulation")]
pub struct Stepper {
    sim: Option<flowstate_sim::Simulation>,
    agent: Rc<RefCell<AgentState>>,
    factory: PyDeciderFactory,
    seed: u64,
    file: String,
}

impl std::fmt::Debug for Stepper {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Simulation")
            .field("file", &self.file)
            .field("seed", &self.seed)
            .finish_non_exhaustive()
    }
}

fn secs(s: f64) -> PyResult<Timestamp> {
    if !(s.is_finite() && s >= 0.0) {
        return Err(FlowstateError::new_err(format!(
            "the time must be a finite number of seconds >= 0, got {s}"
        )));
    }
    Ok(Timestamp::from_micros((s * 1e6).round() as u64))
}

impl Stepper {
    fn sim(&mut self) -> PyResult<&mut flowstate_sim::Simulation> {
        self.sim
            .as_mut()
            .ok_or_else(|| PyRuntimeError::new_err("the run is finished"))
    }
    fn raise_failure(&self, py: Python<'_>) -> PyResult<()> {
        match take_failure(&self.factory.failure) {
            Some(stopped) => Err(failure_err(py, stopped)),
            None => Ok(()),
        }
    }
}

#[pymethods]
impl Stepper {
    /// The run of the scenario `text` (`file` names it in messages) with `seed`
    /// (None: the scenario's, else 1); `agent` is the index of the flow driven from
    /// Python (a python or onnx flow); `base_dir` the folder relative controller files
    /// are read from.
    #[new]
    #[pyo3(signature = (text, file, agent, *, seed = None, base_dir = None))]
    fn new(
        py: Python<'_>,
        text: &str,
        file: &str,
        agent: usize,
        seed: Option<u64>,
        base_dir: Option<String>,
    ) -> PyResult<Self> {
        let scenario =
            Scenario::from_toml(text, file).map_err(|e| ScenarioError::new_err(e.to_string()))?;
        let scenario = scenario.expand_counts();
        let Some(flow) = scenario.flows.get(agent) else {
            return Err(FlowstateError::new_err(format!(
                "{file}: agent flow {agent} does not exist (the scenario has {} flows)",
                scenario.flows.len()
            )));
        };
        if !is_external(flow.kind) {
            return Err(FlowstateError::new_err(format!(
                "{file}: flows[{agent}] ({}): the agent's flow must be a python or onnx flow, not {}",
                flow.name, flow.kind
            )));
        }
        let seed = seed.or(scenario.seed).unwrap_or(1);
        let state = Rc::new(RefCell::new(AgentState::default()));
        let mut factory = PyDeciderFactory::new(base_dir, false);
        factory.agent = Some((
            agent,
            RefCell::new(Some(Box::new(AgentDecider {
                state: state.clone(),
            }))),
        ));
        let rules = crate::rules::PyRuleFactory {
            base_dir: factory.base_dir.clone(),
            check_only: false,
            failure: factory.failure.clone(),
        };
        let built = flowstate_sim::rule_runs::build_with_python(&scenario, seed, &factory, &rules);
        if let Some(stopped) = take_failure(&factory.failure) {
            return Err(failure_err(py, stopped));
        }
        let sim = built.map_err(|e| sim_err(file, &e))?;
        Ok(Self {
            sim: Some(sim),
            agent: state,
            factory,
            seed,
            file: file.to_string(),
        })
    }

    /// Process every event before `t_s` seconds (at most the duration). Returns True
    /// while the run has not reached its duration. An error of another flow's
    /// controller is raised here.
    fn run_until(&mut self, py: Python<'_>, t_s: f64) -> PyResult<bool> {
        let t = secs(t_s)?;
        let sim = self.sim()?;
        sim.run_until(t);
        let more = t < sim.duration();
        self.raise_failure(py)?;
        Ok(more)
    }

    /// The feedback reports the agent's flow received since the last call, oldest
    /// first.
    fn take_feedback(&mut self) -> Vec<Feedback> {
        std::mem::take(&mut self.agent.borrow_mut().reports)
            .into_iter()
            .map(Feedback::new)
            .collect()
    }

    /// The agent flow's next target rate (bit/s) and optionally its pacing rate,
    /// applied when its sender is next polled (held in the flow's [min_rate,
    /// max_rate]). ControllerError for a rate that is not a finite number >= 0.
    #[pyo3(signature = (target_bps, pacing_bps = None))]
    fn set_rate(&mut self, target_bps: f64, pacing_bps: Option<f64>) -> PyResult<()> {
        let d = RateDecision {
            target_bps,
            pacing_bps,
        };
        d.checked()
            .map_err(|e| ControllerError::new_err(format!("set_rate: {e}")))?;
        self.agent.borrow_mut().decision = Some(d);
        Ok(())
    }

    /// The time the run has reached (seconds).
    #[getter]
    fn now_s(&self) -> f64 {
        self.sim.as_ref().map_or(0.0, |s| s.now().as_secs_f64())
    }

    /// The scenario's duration (seconds).
    #[getter]
    fn duration_s(&self) -> f64 {
        self.sim
            .as_ref()
            .map_or(0.0, |s| s.duration().as_secs_f64())
    }

    /// End the run where it is: the run's results as `simulate` returns one run.
    fn finish<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let sim = self.sim.take().ok_or_else(|| {
            PyRuntimeError::new_err(format!("{}: the run is finished", self.file))
        })?;
        let r = sim.finish();
        run_dict(py, self.seed, &r)
    }
}
