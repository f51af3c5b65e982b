//! Python bindings of flowstate-sim.
//!
//! Thin by design: parse a scenario (TOML text, or a Python dict converted to TOML text
//! so that both report errors the same way), run it for K consecutive seeds and hand
//! the results back as plain Python values. Each run is a pure function of
//! `(scenario, seed)`, so the runs go to worker threads (the binding layer may use
//! threads; the simulator itself has none) with the GIL released, and the results come
//! back in seed order whatever the number of threads.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use flowstate_sim::{RunResult, Scenario, SimError};
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

use crate::errors::FlowstateError;
use crate::run_results::{finished, finished_dict, sim_err, Finished, ScenarioError};

/// The name a scenario given as a dict has in error messages.
const DICT_FILE: &str = "<dict>";

/// How often the waiting thread looks for Ctrl-C while runs are in progress.
const SIGNAL_POLL: Duration = Duration::from_millis(100);

/// `parent.key` (or `key` at the top level).
fn key_path(parent: &str, key: &str) -> String {
    if parent.is_empty() {
        key.to_string()
    } else {
        format!("{parent}.{key}")
    }
}

fn dict_err(path: &str, message: impl std::fmt::Display) -> PyErr {
    let field = if path.is_empty() { "(top level)" } else { path };
    ScenarioError::new_err(format!("{DICT_FILE}: {field}: {message}"))
}

/// How deep tables and arrays of a scenario dict may nest. Scenarios need 4 levels; a
/// dict that contains itself, or 20,000 levels, overflowed the stack (a segfault).
const MAX_DEPTH: usize = 32;

/// The error of a dict nested too deep, naming the start of the path (`link.link...`).
fn too_deep(path: &str) -> PyErr {
    let start = match path.char_indices().nth(40) {
        Some((i, _)) => format!("{}...", &path[..i]),
        None => path.to_string(),
    };
    dict_err(
        &start,
        format!("nested more than {MAX_DEPTH} levels deep (a dict or list that contains itself?)"),
    )
}

fn to_table(path: &str, d: &Bound<'_, PyDict>, depth: usize) -> PyResult<toml::Table> {
    if depth > MAX_DEPTH {
        return Err(too_deep(path));
    }
    let mut table = toml::Table::new();
    for (k, v) in d.iter() {
        let key: String = k
            .extract()
            .map_err(|_| dict_err(path, "keys must be strings"))?;
        // None means "absent": TOML has no null.
        if let Some(value) = to_value(&key_path(path, &key), &v, depth + 1)? {
            table.insert(key, value);
        }
    }
    Ok(table)
}

/// A Python value as a TOML value; `None` for Python's None.
fn to_value(path: &str, v: &Bound<'_, PyAny>, depth: usize) -> PyResult<Option<toml::Value>> {
    if v.is_none() {
        return Ok(None);
    }
    // bool first: Python's bool is a subclass of int.
    let value = if v.is_instance_of::<PyBool>() {
        toml::Value::Boolean(v.extract()?)
    } else if v.is_instance_of::<PyInt>() {
        toml::Value::Integer(
            v.extract()
                .map_err(|_| dict_err(path, "integer out of range"))?,
        )
    } else if v.is_instance_of::<PyFloat>() {
        toml::Value::Float(v.extract()?)
    } else if v.is_instance_of::<PyString>() {
        toml::Value::String(v.extract()?)
    } else if let Ok(d) = v.cast::<PyDict>() {
        toml::Value::Table(to_table(path, d, depth)?)
    } else if v.is_instance_of::<PyList>() || v.is_instance_of::<PyTuple>() {
        if depth > MAX_DEPTH {
            return Err(too_deep(path));
        }
        let mut items = Vec::new();
        for (i, item) in v.try_iter()?.enumerate() {
            let item_path = format!("{path}[{i}]");
            match to_value(&item_path, &item?, depth + 1)? {
                Some(x) => items.push(x),
                None => return Err(dict_err(&item_path, "None is not allowed in a list")),
            }
        }
        toml::Value::Array(items)
    } else {
        let type_name = v.get_type().name()?;
        return Err(dict_err(
            path,
            format!(
                "unsupported value of type '{type_name}' (use str, int, float, bool, list or dict)"
            ),
        ));
    };
    Ok(Some(value))
}

/// The TOML text of a scenario given as a dict (keys whose value is None are left out).
#[pyfunction]
fn scenario_toml(scenario: &Bound<'_, PyDict>) -> PyResult<String> {
    let table = to_table("", scenario, 0)?;
    toml::to_string(&table).map_err(|e| dict_err("", e))
}

/// Why a run produced no result.
#[derive(Debug)]
enum Failure {
    Sim(SimError),
    Panic(String),
}

type Outcome = Result<Finished, Failure>;

fn run_one(scenario: &Scenario, seed: u64, series_text: bool) -> Outcome {
    let finish = |run: RunResult| finished(run, series_text);
    match catch_unwind(AssertUnwindSafe(|| {
        flowstate_sim::run(scenario, seed).map(finish)
    })) {
        Ok(r) => r.map_err(Failure::Sim),
        Err(payload) => {
            let message = payload
                .downcast_ref::<&str>()
                .map(|s| (*s).to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_string());
            Err(Failure::Panic(message))
        }
    }
}

/// Runs `seeds` on `threads` workers (GIL released by the caller). Returns the outcomes
/// in seed order (None: not run because an earlier failure or the progress callback
/// stopped the batch) and the progress callback's error, if any.
fn run_parallel(
    scenario: &Scenario,
    seeds: &[u64],
    threads: usize,
    series_text: bool,
    progress: Option<&Py<PyAny>>,
) -> (Vec<Option<Outcome>>, Option<PyErr>) {
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let mut outcomes: Vec<Option<Outcome>> = seeds.iter().map(|_| None).collect();
    let mut callback_err: Option<PyErr> = None;
    std::thread::scope(|s| {
        let (tx, rx) = mpsc::channel::<(usize, Outcome)>();
        for _ in 0..threads {
            let tx = tx.clone();
            let (next, stop) = (&next, &stop);
            s.spawn(move || loop {
                if stop.load(Ordering::Relaxed) {
                    break;
                }
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(&seed) = seeds.get(i) else { break };
                let outcome = run_one(scenario, seed, series_text);
                if outcome.is_err() {
                    stop.store(true, Ordering::Relaxed);
                }
                if tx.send((i, outcome)).is_err() {
                    break;
                }
            });
        }
        drop(tx);
        let mut done = 0usize;
        loop {
            match rx.recv_timeout(SIGNAL_POLL) {
                Ok((i, outcome)) => {
                    if let Some(slot) = outcomes.get_mut(i) {
                        *slot = Some(outcome);
                    }
                    done += 1;
                    if let (Some(cb), None) = (progress, &callback_err) {
                        let called =
                            Python::attach(|py| cb.call1(py, (done, seeds.len())).map(drop));
                        if let Err(e) = called {
                            callback_err = Some(e);
                            stop.store(true, Ordering::Relaxed);
                        }
                    }
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    // Ctrl-C: start no new runs (the ones under way finish).
                    if callback_err.is_none() {
                        if let Err(e) = Python::attach(|py| py.check_signals()) {
                            callback_err = Some(e);
                            stop.store(true, Ordering::Relaxed);
                        }
                    }
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
        }
    });
    (outcomes, callback_err)
}

/// Runs the scenario in `text` (`file` names it in error messages) for seeds
/// `seed, seed + 1, ..., seed + runs - 1` (`seed` None: the scenario's `seed`, else 1)
/// on `threads` worker threads (None: one per core, at most `runs`), with the GIL
/// released. `progress(done, total)` is called after each finished run.
///
/// Returns one dict per run, in seed order: `seed`, `summary_json` (summary.json
/// text), `series` (time series as a dict of equal-length column lists),
/// `link_series` (the per-link time series, the same way), `trace_hash` (fingerprint
/// of every packet event; None with `[measure] trace_hash = false`) and `events`. With
/// `series_text`, also `series_text` and `link_series_text`: the rows of timeseries.csv
/// and links.csv without their `run,seed` cells, as Python's csv module would write
/// `series` and `link_series` (`flowstate_sim::series_text`), rendered on the workers.
#[pyfunction]
///
/// A scenario with `python` / `onnx` flows runs its seeds one after the other on this
/// thread, with the GIL (their controllers are Python objects; `base_dir`: the folder
/// their relative files are read from, None: the current one); an exception raised in
/// a controller stops the batch and is raised as it was.
#[pyo3(signature = (text, file, *, seed = None, runs = 1, threads = None, progress = None, series_text = false, base_dir = None))]
#[allow(clippy::too_many_arguments)]
fn simulate<'py>(
    py: Python<'py>,
    text: &str,
    file: &str,
    seed: Option<u64>,
    runs: u64,
    threads: Option<usize>,
    progress: Option<Py<PyAny>>,
    series_text: bool,
    base_dir: Option<String>,
) -> PyResult<Vec<Bound<'py, PyDict>>> {
    if runs == 0 {
        return Err(FlowstateError::new_err("runs must be >= 1, got 0"));
    }
    if threads == Some(0) {
        return Err(FlowstateError::new_err("threads must be >= 1, got 0"));
    }
    let scenario =
        Scenario::from_toml(text, file).map_err(|e| ScenarioError::new_err(e.to_string()))?;
    let first = seed.or(scenario.seed).unwrap_or(1);
    let last = first.checked_add(runs - 1).ok_or_else(|| {
        FlowstateError::new_err(format!("seeds {first} + {runs} runs overflow 64 bits"))
    })?;
    let seeds: Vec<u64> = (first..=last).collect();
    if crate::external_runs::has_external(&scenario) {
        return crate::external_runs::simulate(
            py,
            &scenario,
            file,
            &seeds,
            series_text,
            progress.as_ref(),
            base_dir,
        );
    }
    let threads = threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .clamp(1, seeds.len());
    // Runs side by side: no recorder thread each unless the scenario asks for one.
    let scenario = if threads > 1 {
        scenario.sharing_cores()
    } else {
        scenario
    };
    let (outcomes, callback_err) =
        py.detach(|| run_parallel(&scenario, &seeds, threads, series_text, progress.as_ref()));
    // A failed run is reported first (it is what stopped the batch), in seed order.
    for (&seed, outcome) in seeds.iter().zip(&outcomes) {
        match outcome {
            Some(Err(Failure::Sim(e))) => return Err(sim_err(file, e)),
            Some(Err(Failure::Panic(m))) => {
                return Err(PyRuntimeError::new_err(format!(
                    "{file}: the simulator panicked with seed {seed}: {m} (a bug: please report it)"
                )))
            }
            _ => {}
        }
    }
    if let Some(e) = callback_err {
        return Err(e);
    }
    seeds
        .iter()
        .zip(&outcomes)
        .map(|(&seed, outcome)| match outcome {
            Some(Ok(done)) => finished_dict(py, seed, done),
            _ => Err(PyRuntimeError::new_err(format!(
                "{file}: run with seed {seed} did not finish"
            ))),
        })
        .collect()
}

/// Checks the scenario `text` (`file` names it in the message) without running it:
/// the simulator's parser and validator, then the run's own construction
/// (`flowstate_sim::validate`: flows with presets and overrides, the coupling manager
/// with its mechanism and options). Raises ScenarioError with the one-line message the
/// run would give. The catalogue checks every point this way before anything runs.
///
/// `python` / `onnx` flows: their controller is looked up (module and class, or the
/// ONNX file; `base_dir` as in `simulate`), not made.
#[pyfunction]
#[pyo3(signature = (text, file, *, base_dir = None))]
fn validate_scenario(text: &str, file: &str, base_dir: Option<String>) -> PyResult<()> {
    let scenario =
        Scenario::from_toml(text, file).map_err(|e| ScenarioError::new_err(e.to_string()))?;
    if crate::external_runs::has_external(&scenario) {
        return crate::external_runs::validate(&scenario, file, base_dir);
    }
    match catch_unwind(AssertUnwindSafe(|| flowstate_sim::validate(&scenario))) {
        Ok(r) => r.map_err(|e| sim_err(file, &e)),
        Err(_) => Err(PyRuntimeError::new_err(format!(
            "{file}: the simulator panicked while building the run (a bug: please report it)"
        ))),
    }
}

/// Which flows a scenario couples, as the simulator reads it: `{"mechanism": ...,
/// "groups_mode": "static" | "sbd", "groups": {flow name: group or None}}` (flows with
/// `count` expanded; `None`: not coupled; `flowstate_sim::scenario::FlowSpec::group`).
/// The manifest records it. Raises ScenarioError for a scenario that does not parse.
#[pyfunction]
fn scenario_coupling<'py>(py: Python<'py>, text: &str, file: &str) -> PyResult<Bound<'py, PyDict>> {
    let scenario =
        Scenario::from_toml(text, file).map_err(|e| ScenarioError::new_err(e.to_string()))?;
    let scenario = scenario.expand_counts();
    let d = PyDict::new(py);
    d.set_item(
        "mechanism",
        scenario
            .coupling
            .as_ref()
            .map_or("none", |c| c.mechanism.as_str()),
    )?;
    d.set_item("groups_mode", scenario.groups_mode().name())?;
    let groups = PyDict::new(py);
    for f in &scenario.flows {
        groups.set_item(&f.name, f.group())?;
    }
    d.set_item("groups", groups)?;
    Ok(d)
}

/// [`validate_scenario`] of a scenario given as a dict (`file` names it in messages,
/// default `<dict>`).
#[pyfunction]
#[pyo3(signature = (scenario, file = DICT_FILE))]
fn check_scenario(scenario: &Bound<'_, PyDict>, file: &str) -> PyResult<()> {
    let text = scenario_toml(scenario)?;
    validate_scenario(&text, file, None)
}

/// The summary.json of a run with flows named `flows` and nothing measured (every
/// field of the contract, numbers 0 and optional ones null): the schema metric paths
/// are checked against before any run.
#[pyfunction]
fn summary_template(flows: Vec<String>) -> String {
    flowstate_sim::metrics::Summary::template(&flows).to_json()
}

/// Adds the simulator's functions and exception to the module.
/// A bit rate with its unit (`"2Mbps"`, `"2MBps"` = 16 Mbit/s) in bit/s: the
/// simulator's own parser (`flowstate_sim::units_parse`), so that Python reads units
/// exactly as scenario files do. ValueError with the parser's one-line message.
#[pyfunction]
fn parse_rate_bps(text: &str) -> PyResult<f64> {
    flowstate_sim::units_parse::parse_bps(text).map_err(FlowstateError::new_err)
}

/// A time (`"50ms"`, `"2min"`, a bare number of seconds) in seconds, as scenario files
/// read it. ValueError with the parser's one-line message.
#[pyfunction]
fn parse_time_s(text: &str) -> PyResult<f64> {
    flowstate_sim::units_parse::parse_secs(text).map_err(FlowstateError::new_err)
}

/// `[coupling] options` of the `web-api` mechanism read by the simulator's own reader
/// (`flowstate_sim::web_api::read_options`), so that the browser's page and the
/// simulator accept and refuse the same file: `{"interval_s", "delay_s",
/// "rate_window_s", "decrease_threshold", "encoder_limited_ratio", "encoder_headroom",
/// "min_media_rate_bps", "rtt_guard", "rtt_guard_factor", "max_growth"}` (`rtt_guard`
/// and `max_growth` None when off). FlowstateError with the one-line message naming the
/// option.
#[pyfunction]
fn web_api_options<'py>(
    py: Python<'py>,
    options: &Bound<'py, PyDict>,
) -> PyResult<Bound<'py, PyDict>> {
    let table = to_table("coupling.options", options, 0)?;
    let read = flowstate_sim::web_api::read_options(&table)
        .map_err(|e| FlowstateError::new_err(e.to_string()))?;
    let (c, s) = (read.config, read.schedule);
    let d = PyDict::new(py);
    d.set_item("interval_s", s.interval.as_secs_f64())?;
    d.set_item("delay_s", s.delay.as_secs_f64())?;
    d.set_item("rate_window_s", s.rate_window.as_secs_f64())?;
    d.set_item("decrease_threshold", c.decrease_threshold)?;
    d.set_item("encoder_limited_ratio", c.encoder_limited_ratio)?;
    d.set_item("encoder_headroom", c.encoder_headroom)?;
    d.set_item("min_media_rate_bps", c.min_media_rate.as_bps())?;
    d.set_item("rtt_guard", c.rtt_guard)?;
    d.set_item("rtt_guard_factor", c.rtt_guard_factor)?;
    d.set_item("max_growth", c.max_growth)?;
    Ok(d)
}

/// A name as every name a scenario writes is compared (`flowstate_coupling::names`): trimmed,
/// lower case, `_` and spaces read as `-`.
#[pyfunction]
fn normalize_name(name: &str) -> String {
    flowstate_coupling::names::normalize_name(name)
}

/// The scenario name of a coupling mechanism written in any accepted spelling, the
/// simulator's `web-api` included (`"WEB_API"` -> `"web-api"`), or None.
#[pyfunction]
fn scenario_mechanism_name(name: &str) -> Option<&'static str> {
    flowstate_sim::scenario::mechanism_name(name)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(web_api_options, m)?)?;
    m.add_function(wrap_pyfunction!(normalize_name, m)?)?;
    m.add_function(wrap_pyfunction!(scenario_mechanism_name, m)?)?;
    m.add_function(wrap_pyfunction!(parse_rate_bps, m)?)?;
    m.add_function(wrap_pyfunction!(parse_time_s, m)?)?;
    m.add_function(wrap_pyfunction!(simulate, m)?)?;
    m.add_function(wrap_pyfunction!(scenario_toml, m)?)?;
    m.add_function(wrap_pyfunction!(validate_scenario, m)?)?;
    m.add_function(wrap_pyfunction!(scenario_coupling, m)?)?;
    m.add_function(wrap_pyfunction!(check_scenario, m)?)?;
    m.add_function(wrap_pyfunction!(summary_template, m)?)?;
    m.add_function(wrap_pyfunction!(crate::file_text::json_dumps_indent2, m)?)?;
    m.add_function(wrap_pyfunction!(crate::file_text::csv_rows_text, m)?)?;
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add("FLOW_KINDS", flowstate_sim::FlowKind::names_list())?;
    Ok(())
}
