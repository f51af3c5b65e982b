//! `python` / `onnx` flows: flowstate-sim's `DeciderFactory` implemented with Python
//! objects. Conversion only: the controller object is made by the Python package
//! (`flowstate.controllers._make`: imports, parameters, the ONNX policy), each report
//! becomes one [`Feedback`] and one call of the object's `on_feedback`, and the answer
//! a `RateDecision` (flowstate-core checks it). An exception in the user's code is kept
//! with the simulated time and raised by the run as it was raised (its traceback
//! intact), with a note naming the flow and the time.

use std::cell::RefCell;
use std::sync::{Arc, Mutex};

use flowstate_core::endpoint::external::{DecideError, FeedbackBatch, RateDecider, RateDecision};
use flowstate_core::Timestamp;
use flowstate_sim::deciders::DeciderFactory;
use flowstate_sim::flow_spec::FlowSpec;
use flowstate_sim::FieldError;
use pyo3::create_exception;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyTuple};

use crate::errors::FlowstateError;

create_exception!(
    _native,
    ControllerError,
    FlowstateError,
    "A python or onnx flow's controller cannot be used: its module or class cannot be \
     found, or it returned something that is not a rate. One line naming the flow, the \
     controller and the fix."
);

/// One feedback report of a `python` / `onnx` flow, as its controller's `on_feedback`
/// receives it. Per-packet fields are lists of equal length (one entry per packet the
/// report covers, in sequence order); times in seconds, sizes in bytes, rates in bit/s.
#[pyclass(frozen, module = "flowstate._native", name = "Feedback")]
#[derive(Debug)]
pub struct Feedback {
    batch: FeedbackBatch,
}

fn secs(t: Timestamp) -> f64 {
    t.as_secs_f64()
}

#[pymethods]
impl Feedback {
    /// When the report reached the sender (simulated seconds).
    #[getter]
    fn now_s(&self) -> f64 {
        secs(self.batch.now)
    }
    /// The report's timestamp (receiver clock, seconds).
    #[getter]
    fn report_time_s(&self) -> f64 {
        secs(self.batch.report_time)
    }
    /// Sequence numbers (from 0 in send order).
    #[getter]
    fn seq(&self) -> Vec<u64> {
        self.batch.packets.iter().map(|p| p.seq).collect()
    }
    /// Send times (seconds).
    #[getter]
    fn send_time_s(&self) -> Vec<f64> {
        self.batch.packets.iter().map(|p| secs(p.sent)).collect()
    }
    /// Arrival times (seconds; NaN for a lost packet).
    #[getter]
    fn arrival_time_s(&self) -> Vec<f64> {
        self.batch
            .packets
            .iter()
            .map(|p| p.arrival.map_or(f64::NAN, secs))
            .collect()
    }
    /// Wire sizes (bytes).
    #[getter]
    fn size_bytes(&self) -> Vec<u64> {
        self.batch
            .packets
            .iter()
            .map(|p| p.size.as_bytes())
            .collect()
    }
    /// True for each packet the report says was lost.
    #[getter]
    fn lost(&self) -> Vec<bool> {
        self.batch
            .packets
            .iter()
            .map(|p| p.arrival.is_none())
            .collect()
    }
    /// The ECN bits each packet arrived with (0 not-ECT, 1 ECT(1), 2 ECT(0), 3 CE; 0
    /// when lost).
    #[getter]
    fn ecn(&self) -> Vec<u8> {
        self.batch.packets.iter().map(|p| p.ecn).collect()
    }
    /// The report's round-trip time (seconds), None before the first.
    #[getter]
    fn rtt_s(&self) -> Option<f64> {
        self.batch.rtt.map(|r| r.as_secs_f64())
    }
    /// The target rate in force (bit/s).
    #[getter]
    fn target_bps(&self) -> f64 {
        self.batch.target.as_bps()
    }
    /// The rate the coupling manager allowed since the previous report (bit/s), or None.
    #[getter]
    fn allowance_bps(&self) -> Option<f64> {
        self.batch.allowance.map(|a| a.as_bps())
    }
    fn __len__(&self) -> usize {
        self.batch.packets.len()
    }
    fn __repr__(&self) -> String {
        format!(
            "Feedback(now_s={}, packets={}, lost={})",
            self.now_s(),
            self.batch.packets.len(),
            self.batch
                .packets
                .iter()
                .filter(|p| p.arrival.is_none())
                .count()
        )
    }
}

impl Feedback {
    pub(crate) fn new(batch: FeedbackBatch) -> Self {
        Self { batch }
    }
}

/// Why a run with Python controllers stopped.
#[derive(Debug)]
pub(crate) enum Stopped {
    /// The user's code raised: the exception, as raised.
    Raised(PyErr),
    /// A one-line error (a return value that is not a rate).
    Message(String),
    /// A one-line error of the coupling rule (crate::rules).
    RuleMessage(String),
}

/// The first failure of any controller or of the coupling rule of a run, with the flow
/// and the simulated time.
pub(crate) type FailureSlot = Arc<Mutex<Option<Stopped>>>;

/// Keeps `stopped` unless the run already failed.
/// What a failed load of a user's class (a controller, a coupling rule) becomes: a
/// flowstate error is the scenario field's one-line error; anything the user's code raised
/// is kept in `slot` with a note saying where, and the field error names that note.
pub(crate) fn load_error(
    py: Python<'_>,
    e: PyErr,
    field: &str,
    note: String,
    slot: &FailureSlot,
) -> FieldError {
    if e.is_instance_of::<FlowstateError>(py) {
        return FieldError::new(field, e.value(py).to_string());
    }
    let _ = e.value(py).call_method1("add_note", (note.clone(),));
    keep_failure(slot, Stopped::Raised(e));
    FieldError::new(field, note)
}

pub(crate) fn keep_failure(slot: &FailureSlot, stopped: Stopped) {
    let mut guard = slot.lock().unwrap_or_else(|p| p.into_inner());
    guard.get_or_insert(stopped);
}

/// The run's failure, taken.
pub(crate) fn take_failure(slot: &FailureSlot) -> Option<Stopped> {
    slot.lock().unwrap_or_else(|p| p.into_inner()).take()
}

/// Whether the run failed.
pub(crate) fn has_failed(slot: &FailureSlot) -> bool {
    slot.lock().unwrap_or_else(|p| p.into_inner()).is_some()
}

/// The failure of a run as the Python exception to raise.
pub(crate) fn failure_err(py: Python<'_>, stopped: Stopped) -> PyErr {
    match stopped {
        Stopped::Message(m) => ControllerError::new_err(m),
        Stopped::RuleMessage(m) => crate::errors::CouplingRuleError::new_err(m),
        Stopped::Raised(e) => {
            let _ = py;
            e
        }
    }
}

/// A flow's controller object, asked once per report.
struct PyDecider {
    on_feedback: Py<PyAny>,
    /// `flows[i] (name): controller` for messages.
    label: String,
    failure: FailureSlot,
}

/// A Python return value as a decision: a number (the target), a pair (target,
/// pacing), or None (keep the target in force).
fn decision(v: &Bound<'_, PyAny>, target: f64) -> Result<RateDecision, String> {
    let number = |x: &Bound<'_, PyAny>| -> Result<f64, String> {
        if x.is_instance_of::<PyBool>()
            || !(x.is_instance_of::<PyFloat>() || x.is_instance_of::<PyInt>())
        {
            // numpy scalars: anything with __float__ that is not a bool.
            if !x.is_instance_of::<PyBool>() && x.hasattr("__float__").unwrap_or(false) {
                if let Ok(f) = x.call_method0("__float__").and_then(|f| f.extract::<f64>()) {
                    return Ok(f);
                }
            }
            let type_name = x
                .get_type()
                .name()
                .map_or_else(|_| "?".to_string(), |n| n.to_string());
            return Err(format!("a {type_name}"));
        }
        x.extract::<f64>()
            .map_err(|_| "an int too large".to_string())
    };
    if v.is_none() {
        return Ok(RateDecision {
            target_bps: target,
            pacing_bps: None,
        });
    }
    if let Ok(t) = v.cast::<PyTuple>() {
        if t.len() == 2 {
            let target = number(&t.get_item(0).map_err(|e| e.to_string())?)?;
            let pacing = number(&t.get_item(1).map_err(|e| e.to_string())?)?;
            return Ok(RateDecision {
                target_bps: target,
                pacing_bps: Some(pacing),
            });
        }
        return Err(format!("a tuple of {} values", t.len()));
    }
    Ok(RateDecision {
        target_bps: number(v)?,
        pacing_bps: None,
    })
}

const RETURN_RULE: &str = "on_feedback must return the target rate in bit/s (a number >= 0), a pair (target, pacing) of them, or None to keep the rate";

impl RateDecider for PyDecider {
    fn decide(&mut self, batch: &FeedbackBatch) -> Result<RateDecision, DecideError> {
        let now = batch.now.as_secs_f64();
        let target = batch.target.as_bps();
        Python::attach(|py| {
            let fb = Feedback::new(batch.clone());
            let answer = self.on_feedback.call1(py, (fb,));
            let fail = |stopped: Stopped, message: String| {
                keep_failure(&self.failure, stopped);
                Err(DecideError::new(message))
            };
            match answer {
                Err(e) => {
                    let note = format!("raised by {} at simulated time {now:.3} s", self.label);
                    let _ = e.value(py).call_method1("add_note", (note.clone(),));
                    fail(Stopped::Raised(e), note)
                }
                Ok(v) => {
                    let checked = decision(v.bind(py), target).and_then(|d| {
                        d.checked()
                            .map(|_| d)
                            .map_err(|e| format!("{} ({e})", show(v.bind(py))))
                    });
                    match checked {
                        Ok(d) => Ok(d),
                        Err(what) => {
                            let m = format!(
                                "{} returned {what} at simulated time {now:.3} s: {RETURN_RULE}",
                                self.label
                            );
                            fail(Stopped::Message(m.clone()), m)
                        }
                    }
                }
            }
        })
    }
}

fn show(v: &Bound<'_, PyAny>) -> String {
    v.repr()
        .map_or_else(|_| "?".into(), |r| r.to_string())
        .chars()
        .take(60)
        .collect()
}

/// A TOML value as a Python value (params for a constructor).
pub(crate) fn toml_to_py<'py>(py: Python<'py>, v: &toml::Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        toml::Value::String(s) => s.into_pyobject(py)?.into_any(),
        toml::Value::Integer(i) => i.into_pyobject(py)?.into_any(),
        toml::Value::Float(f) => f.into_pyobject(py)?.into_any(),
        toml::Value::Boolean(b) => PyBool::new(py, *b).to_owned().into_any(),
        toml::Value::Datetime(d) => d.to_string().into_pyobject(py)?.into_any(),
        toml::Value::Array(a) => {
            let items: Vec<Bound<'py, PyAny>> = a
                .iter()
                .map(|x| toml_to_py(py, x))
                .collect::<PyResult<_>>()?;
            PyList::new(py, items)?.into_any()
        }
        toml::Value::Table(t) => table_to_py(py, t)?.into_any(),
    })
}

pub(crate) fn table_to_py<'py>(py: Python<'py>, t: &toml::Table) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for (k, v) in t {
        d.set_item(k, toml_to_py(py, v)?)?;
    }
    Ok(d)
}

/// Makes each `python` / `onnx` flow's decider with `flowstate.controllers._make`.
pub(crate) struct PyDeciderFactory {
    /// The scenario file's folder (relative `.py` / `.onnx` files), None: the current one.
    pub base_dir: Option<String>,
    /// Only check that the controller can be found (`flowstate.controllers._resolve`);
    /// the deciders made are never asked.
    pub check_only: bool,
    pub failure: FailureSlot,
    /// The flow an agent outside the run drives (crate::stepping), with its decider.
    pub agent: Option<AgentFlow>,
}

/// A flow's index and the decider the run takes for it (once).
pub(crate) type AgentFlow = (usize, RefCell<Option<Box<dyn RateDecider>>>);

impl PyDeciderFactory {
    pub(crate) fn new(base_dir: Option<String>, check_only: bool) -> Self {
        Self {
            base_dir,
            check_only,
            failure: FailureSlot::default(),
            agent: None,
        }
    }
}

impl DeciderFactory for PyDeciderFactory {
    fn decider(
        &self,
        index: usize,
        spec: &FlowSpec,
        seed: u64,
    ) -> Result<Box<dyn RateDecider>, FieldError> {
        if let Some((i, d)) = &self.agent {
            if *i == index {
                if let Some(d) = d.borrow_mut().take() {
                    return Ok(d);
                }
            }
        }
        let controller = spec.controller.clone().unwrap_or_default();
        let label = format!("flows[{index}] ({}): {controller}", spec.name);
        Python::attach(|py| {
            let made = (|| -> PyResult<Option<Py<PyAny>>> {
                let module = py.import("flowstate.controllers")?;
                if self.check_only {
                    module.call_method1(
                        "_resolve",
                        (spec.kind.name(), &controller, self.base_dir.as_deref()),
                    )?;
                    return Ok(None);
                }
                let params = table_to_py(py, &spec.params)?;
                let object = module.call_method1(
                    "_make",
                    (
                        spec.kind.name(),
                        &controller,
                        params,
                        seed,
                        self.base_dir.as_deref(),
                        &spec.name,
                    ),
                )?;
                Ok(Some(object.unbind()))
            })();
            match made {
                Ok(None) => {
                    Ok(Box::new(flowstate_sim::kinds::external::Unbound) as Box<dyn RateDecider>)
                }
                Ok(Some(on_feedback)) => Ok(Box::new(PyDecider {
                    on_feedback,
                    label,
                    failure: self.failure.clone(),
                }) as Box<dyn RateDecider>),
                Err(e) => {
                    let note = format!("raised while making the controller of {label}");
                    Err(load_error(py, e, "controller", note, &self.failure))
                }
            }
        })
    }
}
