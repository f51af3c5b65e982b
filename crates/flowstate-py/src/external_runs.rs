//! `simulate` and `validate_scenario` of scenarios with `python` / `onnx` flows: the
//! runs with a decider factory of Python controllers (crate::external), one seed after
//! the other on the calling thread with the GIL, advanced in slices of simulated time
//! so that a controller's exception stops the batch where it happened (and Ctrl-C is
//! seen between slices).

use std::panic::{catch_unwind, AssertUnwindSafe};

use flowstate_core::{TimeDelta, Timestamp};
use flowstate_sim::kinds::external::is_external;
use flowstate_sim::rule_runs::build_with_python;
use flowstate_sim::Scenario;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::external::{failure_err, take_failure, PyDeciderFactory};
use crate::rules::PyRuleFactory;
use crate::run_results::{finished, finished_dict, sim_err};

/// How much simulated time runs between two checks for a controller's failure.
const SLICE: TimeDelta = TimeDelta::millis(500);

/// The scenario has a `python` or `onnx` flow, or a coupling rule written in Python.
pub(crate) fn has_external(scenario: &Scenario) -> bool {
    scenario.flows.iter().any(|f| is_external(f.kind))
        || scenario
            .coupling
            .as_ref()
            .is_some_and(|c| c.mechanism == flowstate_sim::coupling_rule::MECHANISM)
}

/// The coupling rule factory of a run whose deciders are `deciders` (one failure slot).
fn rules_of(deciders: &PyDeciderFactory) -> PyRuleFactory {
    PyRuleFactory {
        base_dir: deciders.base_dir.clone(),
        check_only: deciders.check_only,
        failure: deciders.failure.clone(),
    }
}

fn panicked(file: &str, seed: u64) -> PyErr {
    PyRuntimeError::new_err(format!(
        "{file}: the simulator panicked with seed {seed} (a bug: please report it)"
    ))
}

/// One run of `scenario` with `seed`; the error of a controller, or of the build, as
/// the Python exception to raise.
fn run_one(
    py: Python<'_>,
    scenario: &Scenario,
    file: &str,
    seed: u64,
    base_dir: Option<String>,
) -> PyResult<flowstate_sim::RunResult> {
    let factory = PyDeciderFactory::new(base_dir, false);
    let rules = rules_of(&factory);
    let built = catch_unwind(AssertUnwindSafe(|| {
        build_with_python(scenario, seed, &factory, &rules)
    }))
    .map_err(|_| panicked(file, seed))?;
    if let Some(stopped) = take_failure(&factory.failure) {
        return Err(failure_err(py, stopped));
    }
    let mut sim = built.map_err(|e| sim_err(file, &e))?;
    let end = sim.duration();
    let mut t = Timestamp::ZERO;
    while t < end {
        t = (t + SLICE).min(end);
        catch_unwind(AssertUnwindSafe(|| sim.run_until(t))).map_err(|_| panicked(file, seed))?;
        if let Some(stopped) = take_failure(&factory.failure) {
            return Err(failure_err(py, stopped));
        }
        py.check_signals()?;
    }
    catch_unwind(AssertUnwindSafe(|| sim.finish())).map_err(|_| panicked(file, seed))
}

/// `simulate` of a scenario with Python controllers: the seeds in order, here.
pub(crate) fn simulate<'py>(
    py: Python<'py>,
    scenario: &Scenario,
    file: &str,
    seeds: &[u64],
    series_text: bool,
    progress: Option<&Py<PyAny>>,
    base_dir: Option<String>,
) -> PyResult<Vec<Bound<'py, PyDict>>> {
    let mut out = Vec::with_capacity(seeds.len());
    for (done, &seed) in seeds.iter().enumerate() {
        let run = run_one(py, scenario, file, seed, base_dir.clone())?;
        out.push(finished_dict(py, seed, &finished(run, series_text))?);
        if let Some(cb) = progress {
            cb.call1(py, (done + 1, seeds.len()))?;
        }
    }
    Ok(out)
}

/// `validate_scenario` of a scenario with Python controllers: the run's build with each
/// controller looked up, not made.
pub(crate) fn validate(scenario: &Scenario, file: &str, base_dir: Option<String>) -> PyResult<()> {
    let factory = PyDeciderFactory::new(base_dir, true);
    let rules = rules_of(&factory);
    let built = catch_unwind(AssertUnwindSafe(|| {
        build_with_python(
            scenario,
            flowstate_sim::run::VALIDATE_SEED,
            &factory,
            &rules,
        )
    }))
    .map_err(|_| {
        PyRuntimeError::new_err(format!(
            "{file}: the simulator panicked while building the run (a bug: please report it)"
        ))
    })?;
    if let Some(stopped) = take_failure(&factory.failure) {
        return Err(Python::attach(|py| failure_err(py, stopped)));
    }
    built.map(drop).map_err(|e| sim_err(file, &e))
}
