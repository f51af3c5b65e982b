//! `[coupling] mechanism = "python"`: flowstate-sim's `RuleFactory` implemented with
//! a Python class. Conversion only: the class is found by the Python package
//! (`flowstate.coupling_rules._maker`: import, parameters, seed), each group's object
//! is made on the group's first registration, each event becomes one call of the
//! object's `on_register` / `on_report` / `on_leave` with the group's flows as
//! [`CoupledFlow`]s, and the answer a list of (flow id, value) pairs that
//! flowstate-sim checks and applies (crate::coupling_rule). An exception in the
//! user's code is kept with the simulated time and raised by the run as it was raised,
//! with a note naming the rule and the time.

use flowstate_core::coupling::FlowKind;
use flowstate_core::Timestamp;
use flowstate_sim::coupling_rule::{RuleEvent, RuleFailed, RuleFlow, RuleGroup, RuleMaker};
use flowstate_sim::rule_runs::RuleFactory;
use flowstate_sim::FieldError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyFloat, PyInt, PyTuple};

pub(crate) use crate::errors::CouplingRuleError;
use crate::external::{has_failed, keep_failure, load_error, table_to_py, FailureSlot, Stopped};

/// One flow of a group, as a coupling rule's hooks receive it. Rates in bit/s, sizes
/// in bytes, times in seconds; fields that do not apply to the flow's kind are None.
#[pyclass(frozen, module = "flowstate._native", name = "CoupledFlow")]
#[derive(Debug)]
pub struct CoupledFlow {
    flow: RuleFlow,
}

#[pymethods]
impl CoupledFlow {
    /// The flow's id: the key of its allowance in the rule's answer.
    #[getter]
    fn id(&self) -> u64 {
        self.flow.id
    }
    /// "rate" or "window".
    #[getter]
    fn kind(&self) -> &'static str {
        match self.flow.kind {
            FlowKind::Rate => "rate",
            FlowKind::Window => "window",
        }
    }
    /// P(f).
    #[getter]
    fn priority(&self) -> f64 {
        self.flow.priority
    }
    /// DR(f), the application's limit (bit/s), or None (unlimited).
    #[getter]
    fn desired_rate_bps(&self) -> Option<f64> {
        self.flow.desired_bps
    }
    /// What the rule last allowed the flow (bit/s): a rate flow's initial rate until
    /// then; a window flow's allowed cwnd over its RTT (0 until known).
    #[getter]
    fn allocated_bps(&self) -> f64 {
        self.flow.allocated_bps
    }
    /// A rate flow's newest reported rate (bit/s; its initial rate at first).
    #[getter]
    fn rate_bps(&self) -> Option<f64> {
        self.flow.rate_bps
    }
    /// A window flow's newest cwnd (bytes).
    #[getter]
    fn cwnd_bytes(&self) -> Option<u64> {
        self.flow.cwnd_bytes
    }
    /// A window flow's newest slow-start threshold (bytes).
    #[getter]
    fn ssthresh_bytes(&self) -> Option<u64> {
        self.flow.ssthresh_bytes
    }
    /// A window flow's MTU (bytes): its allowance is rounded down to whole MTUs.
    #[getter]
    fn mtu_bytes(&self) -> Option<u64> {
        self.flow.mtu_bytes
    }
    /// The newest RTT the flow reported (seconds), or None.
    #[getter]
    fn rtt_s(&self) -> Option<f64> {
        self.flow.rtt_s
    }
    fn __repr__(&self) -> String {
        let f = &self.flow;
        match f.kind {
            FlowKind::Rate => format!(
                "CoupledFlow(id={}, kind='rate', priority={}, rate_bps={:?}, allocated_bps={})",
                f.id,
                f.priority,
                f.rate_bps.unwrap_or(0.0),
                f.allocated_bps
            ),
            FlowKind::Window => format!(
                "CoupledFlow(id={}, kind='window', priority={}, cwnd_bytes={}, rtt_s={:?})",
                f.id,
                f.priority,
                f.cwnd_bytes.unwrap_or(0),
                f.rtt_s
            ),
        }
    }
}

/// Makes each group's object: `make(seed)` of the Python package's maker.
#[derive(Debug)]
struct PyRuleMaker {
    make: Py<PyAny>,
    kinds: &'static [FlowKind],
    /// `coupling rule <rule>` for messages.
    label: String,
    failure: FailureSlot,
}

/// One group's object and its hooks (`on_register` / `on_leave` may be absent).
#[derive(Debug)]
struct PyRuleGroup {
    hooks: Option<Hooks>,
    label: String,
    failure: FailureSlot,
}

#[derive(Debug)]
struct Hooks {
    on_register: Option<Py<PyAny>>,
    on_report: Py<PyAny>,
    on_leave: Option<Py<PyAny>>,
}

const RETURN_RULE: &str = "on_report and on_leave return a dict {flow id: allowance} (bit/s for a rate flow, cwnd bytes for a window flow) or None";

impl RuleMaker for PyRuleMaker {
    fn new_group(&self, seed: u64) -> Box<dyn RuleGroup> {
        let hooks = Python::attach(|py| {
            let made = self.make.call1(py, (seed,)).and_then(|object| {
                let object = object.bind(py);
                let hook = |name: &str| -> PyResult<Option<Py<PyAny>>> {
                    let h = object.getattr_opt(name)?;
                    Ok(h.filter(|h| h.is_callable()).map(Bound::unbind))
                };
                Ok(Hooks {
                    on_register: hook("on_register")?,
                    // The maker checked that the class has it.
                    on_report: object.getattr("on_report")?.unbind(),
                    on_leave: hook("on_leave")?,
                })
            });
            match made {
                Ok(hooks) => Some(hooks),
                Err(e) => {
                    let note = format!("raised while making the {}", self.label);
                    let _ = e.value(py).call_method1("add_note", (note,));
                    keep_failure(&self.failure, Stopped::Raised(e));
                    None
                }
            }
        });
        Box::new(PyRuleGroup {
            hooks,
            label: self.label.clone(),
            failure: self.failure.clone(),
        })
    }

    fn flow_kinds(&self) -> &'static [FlowKind] {
        self.kinds
    }
}

/// A number of an answer (not a bool; numpy scalars through `__float__`).
fn number(x: &Bound<'_, PyAny>) -> Result<f64, String> {
    if !x.is_instance_of::<PyBool>() {
        if x.is_instance_of::<PyFloat>() || x.is_instance_of::<PyInt>() {
            return x.extract::<f64>().map_err(|_| "an int too large".into());
        }
        if let Ok(f) = x.call_method0("__float__").and_then(|f| f.extract::<f64>()) {
            return Ok(f);
        }
    }
    Err(format!("a {}", type_name(x)))
}

fn type_name(x: &Bound<'_, PyAny>) -> String {
    x.get_type()
        .name()
        .map_or_else(|_| "?".to_string(), |n| n.to_string())
}

/// The answer as (flow id, value) pairs; error: what is wrong with it.
fn answer(v: &Bound<'_, PyAny>) -> Result<Vec<(i64, f64)>, String> {
    if v.is_none() {
        return Ok(Vec::new());
    }
    let items = v
        .call_method0("items")
        .map_err(|_| format!("a {}", type_name(v)))?;
    let mut out = Vec::new();
    for item in items.try_iter().map_err(|e| e.to_string())? {
        let item = item.map_err(|e| e.to_string())?;
        let pair = item
            .cast::<PyTuple>()
            .map_err(|_| "a mapping whose items are not pairs".to_string())?;
        let (key, value) = (
            pair.get_item(0).map_err(|e| e.to_string())?,
            pair.get_item(1).map_err(|e| e.to_string())?,
        );
        if key.is_instance_of::<PyBool>() || !key.is_instance_of::<PyInt>() {
            return Err(format!(
                "a dict with the key {} (a {}): keys are the flows' ids (CoupledFlow.id)",
                show(&key),
                type_name(&key)
            ));
        }
        let id = key.extract::<i64>().unwrap_or(i64::MAX);
        let value = number(&value).map_err(|what| format!("{what} as flow {id}'s allowance"))?;
        out.push((id, value));
    }
    Ok(out)
}

fn show(v: &Bound<'_, PyAny>) -> String {
    v.repr()
        .map_or_else(|_| "?".into(), |r| r.to_string())
        .chars()
        .take(60)
        .collect()
}

impl RuleGroup for PyRuleGroup {
    fn call(
        &mut self,
        now: Timestamp,
        event: &RuleEvent,
        flows: &[RuleFlow],
    ) -> Result<Vec<(i64, f64)>, RuleFailed> {
        // After a failure the run stops at its next check; nothing more is asked.
        if has_failed(&self.failure) {
            return Err(RuleFailed);
        }
        let Some(hooks) = &self.hooks else {
            return Err(RuleFailed);
        };
        let (hook, name) = match event {
            RuleEvent::Register(_) => (hooks.on_register.as_ref(), "on_register"),
            RuleEvent::Report(_) => (Some(&hooks.on_report), "on_report"),
            RuleEvent::Leave(_) => (hooks.on_leave.as_ref(), "on_leave"),
        };
        let Some(hook) = hook else {
            return Ok(Vec::new());
        };
        let now_s = now.as_secs_f64();
        Python::attach(|py| {
            let result = (|| -> PyResult<Py<PyAny>> {
                let views = flows
                    .iter()
                    .map(|f| Py::new(py, CoupledFlow { flow: f.clone() }))
                    .collect::<PyResult<Vec<_>>>()?;
                let flow = match event {
                    RuleEvent::Register(i) | RuleEvent::Report(i) => views[*i].clone_ref(py),
                    RuleEvent::Leave(f) => Py::new(py, CoupledFlow { flow: f.clone() })?,
                };
                let group = PyTuple::new(py, views)?;
                hook.call1(py, (now_s, flow, group))
            })();
            match result {
                Err(e) => {
                    let note = format!(
                        "raised by {}.{name} at simulated time {now_s:.3} s",
                        self.label
                    );
                    let _ = e.value(py).call_method1("add_note", (note,));
                    keep_failure(&self.failure, Stopped::Raised(e));
                    Err(RuleFailed)
                }
                Ok(v) => answer(v.bind(py)).map_err(|what| {
                    let m = format!(
                        "{}.{name} returned {what} at simulated time {now_s:.3} s: {RETURN_RULE}",
                        self.label
                    );
                    keep_failure(&self.failure, Stopped::RuleMessage(m));
                    RuleFailed
                }),
            }
        })
    }

    fn bad_return(&mut self, now: Timestamp, message: String) {
        let m = format!(
            "{} at simulated time {:.3} s: {message}",
            self.label,
            now.as_secs_f64()
        );
        keep_failure(&self.failure, Stopped::RuleMessage(m));
    }

    fn share(&self) -> Box<dyn RuleGroup> {
        Python::attach(|py| {
            Box::new(PyRuleGroup {
                hooks: self.hooks.as_ref().map(|h| Hooks {
                    on_register: h.on_register.as_ref().map(|x| x.clone_ref(py)),
                    on_report: h.on_report.clone_ref(py),
                    on_leave: h.on_leave.as_ref().map(|x| x.clone_ref(py)),
                }),
                label: self.label.clone(),
                failure: self.failure.clone(),
            }) as Box<dyn RuleGroup>
        })
    }
}

/// Makes the run's rule with `flowstate.coupling_rules._maker`.
pub(crate) struct PyRuleFactory {
    /// The scenario file's folder (relative `.py` files), None: the current one.
    pub base_dir: Option<String>,
    /// Only check that the rule's class can be found; no group is made.
    pub check_only: bool,
    pub failure: FailureSlot,
}

const RATE: &[FlowKind] = &[FlowKind::Rate];
const WINDOW: &[FlowKind] = &[FlowKind::Window];
const BOTH: &[FlowKind] = &[FlowKind::Rate, FlowKind::Window];

impl RuleFactory for PyRuleFactory {
    fn rule(&self, rule: &str, params: &toml::Table) -> Result<Box<dyn RuleMaker>, FieldError> {
        let label = format!("coupling rule {}", rule.trim());
        Python::attach(|py| {
            let made = (|| -> PyResult<(Py<PyAny>, (bool, bool))> {
                let module = py.import("flowstate.coupling_rules")?;
                let params = table_to_py(py, params)?;
                let maker = module.call_method1(
                    "_maker",
                    (rule, params, self.base_dir.as_deref(), self.check_only),
                )?;
                let (make, rate, window): (Py<PyAny>, bool, bool) = maker.extract()?;
                Ok((make, (rate, window)))
            })();
            match made {
                Ok((make, kinds)) => Ok(Box::new(PyRuleMaker {
                    make,
                    kinds: match kinds {
                        (true, true) => BOTH,
                        (false, true) => WINDOW,
                        _ => RATE,
                    },
                    label,
                    failure: self.failure.clone(),
                }) as Box<dyn RuleMaker>),
                Err(e) => {
                    let note = format!("raised while loading the {label}");
                    Err(load_error(py, e, "rule", note, &self.failure))
                }
            }
        })
    }
}
