//! Python bindings of flowstate-core and flowstate-sim (see `sim`).
//!
//! Thin by design: every method converts Python values to core types (validation lives
//! in the core: `rate_from_bps`, `rtt_from_secs`, `mechanism_with_options`), calls the
//! core, and converts the answer back. No algorithm code lives here.
//!
//! Units at the Python boundary: rates in bit/s (float), sizes in bytes (int), times
//! in seconds (float).

mod definitions;
mod errors;
mod external;
mod external_runs;
mod file_text;
mod ipemu;
mod rules;
mod run_results;
mod sim;
mod stepping;
mod testbed;
mod video;

use std::collections::BTreeMap;

use errors::FlowstateError;
use flowstate_coupling::coupling::{
    mechanism_with_options, rate_from_bps, rtt_from_secs, timestamp_from_secs, Allocation,
    Allowance, CouplingError as CoreError, CouplingManager as CoreManager, DeregisterPolicy,
    FlowId, FlowKind, FlowReport, FlowSpec, GroupKey, Mechanism, OptionValue,
};
use flowstate_coupling::{Bitrate, DataSize};
use pyo3::create_exception;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyString};

create_exception!(
    _native,
    CouplingError,
    FlowstateError,
    "Bad input to a coupling manager (invalid priority or rate, unknown flow, ...)."
);

fn err(e: impl std::fmt::Display) -> PyErr {
    CouplingError::new_err(e.to_string())
}

fn core_err(e: CoreError) -> PyErr {
    err(e)
}

/// A Python int as u64: ids, groups and byte counts. Out of range (negative, 2**64
/// and up) is a one-line CouplingError naming the argument, not PyO3's OverflowError.
fn uint(name: &str, v: &Bound<'_, PyAny>) -> PyResult<u64> {
    if v.is_instance_of::<PyBool>() || !v.is_instance_of::<PyInt>() {
        let type_name = v.get_type().name()?;
        return Err(PyTypeError::new_err(format!(
            "{name} must be an int, got {type_name}"
        )));
    }
    v.extract::<u64>().map_err(|_| {
        err(format!(
            "{name} must be an integer in [0, 2**64 - 1], got {}",
            v.str().map_or_else(|_| "?".to_string(), |s| s.to_string())
        ))
    })
}

/// A Python number as f64, for the core to validate. An int too large for a float
/// (2**1024, 10**400) becomes +-inf, which the core rejects with its usual one-line
/// CouplingError, instead of PyO3's OverflowError.
fn num(name: &str, v: &Bound<'_, PyAny>) -> PyResult<f64> {
    match v.extract::<f64>() {
        Ok(x) => Ok(x),
        Err(_) if v.is_instance_of::<PyInt>() && !v.is_instance_of::<PyBool>() => Ok(if v.lt(0)? {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        }),
        Err(_) => Err(PyTypeError::new_err(format!(
            "{name} must be a number, got {}",
            v.get_type().name()?
        ))),
    }
}

/// [`num`] of an optional argument (None stays None).
fn optional_num(name: &str, v: Option<&Bound<'_, PyAny>>) -> PyResult<Option<f64>> {
    v.filter(|v| !v.is_none()).map(|v| num(name, v)).transpose()
}

/// [`uint`] of an optional argument (None stays None).
fn optional_uint(name: &str, v: Option<&Bound<'_, PyAny>>) -> PyResult<Option<u64>> {
    v.filter(|v| !v.is_none())
        .map(|v| uint(name, v))
        .transpose()
}

/// One flow's share after an update.
#[pyclass(name = "Allocation", module = "flowstate", frozen, get_all)]
#[derive(Debug, Clone)]
struct PyAllocation {
    /// The flow's id.
    flow: u64,
    /// The rate the manager assigned (FSE_R), bit/s.
    rate_bps: f64,
    /// "rate", "window" or "max_window": what the flow's controller must apply.
    kind: &'static str,
    /// For "window": the cwnd to set, bytes.
    cwnd: Option<u64>,
    /// For "window": the ssthresh to set with it, bytes (None = leave ssthresh alone).
    ssthresh: Option<u64>,
    /// For "max_window": the cap, bytes (None = no cap).
    max_cwnd: Option<u64>,
}

#[pymethods]
impl PyAllocation {
    fn __repr__(&self) -> String {
        match self.kind {
            "rate" => format!(
                "Allocation(flow={}, rate_bps={:.1})",
                self.flow, self.rate_bps
            ),
            "window" => format!(
                "Allocation(flow={}, rate_bps={:.1}, cwnd={}, ssthresh={})",
                self.flow,
                self.rate_bps,
                py_optional(self.cwnd),
                py_optional(self.ssthresh)
            ),
            _ => format!(
                "Allocation(flow={}, rate_bps={:.1}, max_cwnd={})",
                self.flow,
                self.rate_bps,
                py_optional(self.max_cwnd)
            ),
        }
    }
}

/// An optional byte count as Python prints it: the number, or `None`.
fn py_optional(v: Option<u64>) -> String {
    v.map_or_else(|| "None".to_owned(), |n| n.to_string())
}

impl From<&Allocation> for PyAllocation {
    fn from(a: &Allocation) -> Self {
        let (kind, cwnd, ssthresh, max_cwnd) = match a.allowance {
            Allowance::Rate(_) => ("rate", None, None, None),
            Allowance::Window { cwnd, ssthresh } => (
                "window",
                Some(cwnd.as_bytes()),
                ssthresh.map(DataSize::as_bytes),
                None,
            ),
            Allowance::MaxWindow(max) => ("max_window", None, None, max.map(DataSize::as_bytes)),
        };
        PyAllocation {
            flow: a.flow.0,
            rate_bps: a.rate.as_bps(),
            kind,
            cwnd,
            ssthresh,
            max_cwnd,
        }
    }
}

fn to_py(allocations: &[Allocation]) -> Vec<PyAllocation> {
    allocations.iter().map(PyAllocation::from).collect()
}

/// The MTU of a window flow registered without one, bytes.
const DEFAULT_MTU: u64 = 1200;

fn option_value(name: &str, value: &Bound<'_, PyAny>) -> PyResult<OptionValue> {
    // bool first: Python's bool is a subclass of int.
    if value.is_instance_of::<PyBool>() {
        Ok(OptionValue::Bool(value.extract()?))
    } else if value.is_instance_of::<PyInt>() || value.is_instance_of::<PyFloat>() {
        Ok(OptionValue::Number(value.extract()?))
    } else if value.is_instance_of::<PyString>() {
        Ok(OptionValue::Text(value.extract()?))
    } else {
        Err(err(format!(
            "option '{name}' must be a bool, a number or a string"
        )))
    }
}

fn optional_rate(what: &'static str, bps: Option<f64>) -> PyResult<Option<Bitrate>> {
    bps.map(|v| rate_from_bps(what, v))
        .transpose()
        .map_err(core_err)
}

fn optional_rtt(
    what: &'static str,
    secs: Option<f64>,
) -> PyResult<Option<flowstate_coupling::TimeDelta>> {
    secs.map(|v| rtt_from_secs(what, v))
        .transpose()
        .map_err(core_err)
}

/// A coupling manager of the Flow State Exchange family.
///
/// `CouplingManager("fsev2", rate_priority_boost=1.1)`: the mechanism by name (`fse`,
/// `fse-simple`, `conservative-fse`, `fse-ng`, `ext-fse-ng`, `fsev2`) and its options as
/// keyword arguments; `deregister_policy` is "keep" (default) or "subtract".
#[pyclass(name = "CouplingManager", module = "flowstate")]
#[derive(Debug)]
struct PyCouplingManager {
    inner: CoreManager,
}

#[pymethods]
impl PyCouplingManager {
    #[new]
    #[pyo3(signature = (mechanism, *, deregister_policy = "keep", **options))]
    fn new(
        mechanism: &str,
        deregister_policy: &str,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let mut parsed: BTreeMap<String, OptionValue> = BTreeMap::new();
        if let Some(options) = options {
            for (key, value) in options.iter() {
                let key: String = key.extract()?;
                let value = option_value(&key, &value)?;
                parsed.insert(key, value);
            }
        }
        let mechanism =
            mechanism_with_options(mechanism, parsed.iter().map(|(k, v)| (k.as_str(), v)))
                .map_err(err)?;
        let policy = match deregister_policy {
            "keep" => DeregisterPolicy::KeepAggregate,
            "subtract" => DeregisterPolicy::SubtractAllocation,
            other => {
                return Err(err(format!(
                    "deregister_policy must be 'keep' or 'subtract', got '{other}'"
                )))
            }
        };
        Ok(PyCouplingManager {
            inner: CoreManager::new(mechanism).with_deregister_policy(policy),
        })
    }

    /// The mechanism's display name.
    #[getter]
    fn mechanism(&self) -> &'static str {
        self.inner.mechanism_display_name()
    }

    /// Registers a rate flow (GCC, RAP, TFRC) in `group`; returns its id.
    #[pyo3(signature = (group, *, priority = None, initial_rate_bps, desired_rate_bps = None, flow_id = None))]
    fn register_rate(
        &mut self,
        group: &Bound<'_, PyAny>,
        priority: Option<&Bound<'_, PyAny>>,
        initial_rate_bps: &Bound<'_, PyAny>,
        desired_rate_bps: Option<&Bound<'_, PyAny>>,
        flow_id: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<u64> {
        let initial_rate_bps = num("initial_rate_bps", initial_rate_bps)?;
        let desired_rate_bps = optional_num("desired_rate_bps", desired_rate_bps)?;
        let group = uint("group", group)?;
        let priority = optional_num("priority", priority)?.unwrap_or(1.0);
        let flow_id = optional_uint("flow_id", flow_id)?;
        let spec = FlowSpec::Rate {
            priority,
            initial_rate: rate_from_bps("initial_rate_bps", initial_rate_bps).map_err(core_err)?,
            desired_rate: optional_rate("desired_rate_bps", desired_rate_bps)?,
        };
        self.register(group, spec, flow_id)
    }

    /// Registers a window flow (SCTP, TCP) in `group`; returns its id.
    #[pyo3(signature = (group, *, priority = None, initial_cwnd, initial_rtt_s = None, initial_max_cwnd = None, mtu = None, flow_id = None))]
    #[allow(clippy::too_many_arguments)]
    fn register_window(
        &mut self,
        group: &Bound<'_, PyAny>,
        priority: Option<&Bound<'_, PyAny>>,
        initial_cwnd: &Bound<'_, PyAny>,
        initial_rtt_s: Option<&Bound<'_, PyAny>>,
        initial_max_cwnd: Option<&Bound<'_, PyAny>>,
        mtu: Option<&Bound<'_, PyAny>>,
        flow_id: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<u64> {
        let initial_rtt_s = optional_num("initial_rtt_s", initial_rtt_s)?;
        let group = uint("group", group)?;
        let priority = optional_num("priority", priority)?.unwrap_or(1.0);
        let initial_cwnd = uint("initial_cwnd", initial_cwnd)?;
        let initial_max_cwnd = optional_uint("initial_max_cwnd", initial_max_cwnd)?;
        let mtu = optional_uint("mtu", mtu)?.unwrap_or(DEFAULT_MTU);
        let flow_id = optional_uint("flow_id", flow_id)?;
        let spec = FlowSpec::Window {
            priority,
            initial_cwnd: DataSize::bytes(initial_cwnd),
            initial_rtt: optional_rtt("initial_rtt_s", initial_rtt_s)?,
            initial_max_cwnd: initial_max_cwnd.map(DataSize::bytes),
            mtu: DataSize::bytes(mtu),
        };
        self.register(group, spec, flow_id)
    }

    /// A rate flow's controller computed `rate_bps`; returns every changed allocation.
    #[pyo3(signature = (now_s, flow, rate_bps, *, rtt_s = None))]
    fn update_rate(
        &mut self,
        now_s: &Bound<'_, PyAny>,
        flow: &Bound<'_, PyAny>,
        rate_bps: &Bound<'_, PyAny>,
        rtt_s: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Vec<PyAllocation>> {
        let now_s = num("now_s", now_s)?;
        let rate_bps = num("rate_bps", rate_bps)?;
        let rtt_s = optional_num("rtt_s", rtt_s)?;
        let flow = uint("flow", flow)?;
        let now = timestamp_from_secs("now_s", now_s).map_err(core_err)?;
        let report = FlowReport::Rate {
            rate: rate_from_bps("rate_bps", rate_bps).map_err(core_err)?,
            rtt: optional_rtt("rtt_s", rtt_s)?,
        };
        self.inner
            .update(now, FlowId(flow), report)
            .map(to_py)
            .map_err(core_err)
    }

    /// A window flow's cwnd changed; returns every changed allocation.
    #[pyo3(signature = (now_s, flow, cwnd, *, ssthresh, rtt_s = None, desired_cwnd = None))]
    fn update_window(
        &mut self,
        now_s: &Bound<'_, PyAny>,
        flow: &Bound<'_, PyAny>,
        cwnd: &Bound<'_, PyAny>,
        ssthresh: &Bound<'_, PyAny>,
        rtt_s: Option<&Bound<'_, PyAny>>,
        desired_cwnd: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Vec<PyAllocation>> {
        let now_s = num("now_s", now_s)?;
        let rtt_s = optional_num("rtt_s", rtt_s)?;
        let flow = uint("flow", flow)?;
        let cwnd = uint("cwnd", cwnd)?;
        let ssthresh = uint("ssthresh", ssthresh)?;
        let desired_cwnd = optional_uint("desired_cwnd", desired_cwnd)?;
        let now = timestamp_from_secs("now_s", now_s).map_err(core_err)?;
        let report = FlowReport::Window {
            cwnd: DataSize::bytes(cwnd),
            rtt: optional_rtt("rtt_s", rtt_s)?,
            ssthresh: DataSize::bytes(ssthresh),
            desired_cwnd: desired_cwnd.map(DataSize::bytes),
        };
        self.inner
            .update(now, FlowId(flow), report)
            .map(to_py)
            .map_err(core_err)
    }

    /// A flow left; returns allocations the departure changed (FSE-NG cap resets).
    fn deregister(&mut self, flow: &Bound<'_, PyAny>) -> PyResult<Vec<PyAllocation>> {
        let flow = uint("flow", flow)?;
        self.inner
            .deregister(FlowId(flow))
            .map(to_py)
            .map_err(core_err)
    }

    /// Changes a flow's priority (effective at the next update).
    fn set_priority(
        &mut self,
        flow: &Bound<'_, PyAny>,
        priority: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let flow = uint("flow", flow)?;
        let priority = num("priority", priority)?;
        self.inner
            .set_priority(FlowId(flow), priority)
            .map_err(core_err)
    }

    /// Changes a rate flow's desired rate; None = unlimited (effective at the next update).
    #[pyo3(signature = (flow, desired_rate_bps))]
    fn set_desired_rate(
        &mut self,
        flow: &Bound<'_, PyAny>,
        desired_rate_bps: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let desired_rate_bps = optional_num("desired_rate_bps", desired_rate_bps)?;
        let flow = uint("flow", flow)?;
        let desired = optional_rate("desired_rate_bps", desired_rate_bps)?;
        self.inner
            .set_desired_rate(FlowId(flow), desired)
            .map_err(core_err)
    }

    /// S_CR of a group in bit/s, or None if the group has no flows.
    fn aggregate_bps(&self, group: &Bound<'_, PyAny>) -> PyResult<Option<f64>> {
        let group = uint("group", group)?;
        Ok(self.inner.aggregate(GroupKey(group)).map(Bitrate::as_bps))
    }

    /// The flows of a group: list of dicts with id, kind, priority, desired_rate_bps,
    /// allocated_rate_bps.
    fn flows<'py>(
        &self,
        py: Python<'py>,
        group: &Bound<'_, PyAny>,
    ) -> PyResult<Vec<Bound<'py, PyDict>>> {
        let group = uint("group", group)?;
        self.inner
            .flows(GroupKey(group))
            .into_iter()
            .map(|f| {
                let d = PyDict::new(py);
                d.set_item("id", f.id.0)?;
                d.set_item(
                    "kind",
                    if f.kind == FlowKind::Rate {
                        "rate"
                    } else {
                        "window"
                    },
                )?;
                d.set_item("priority", f.priority)?;
                d.set_item("desired_rate_bps", f.desired_rate.map(Bitrate::as_bps))?;
                d.set_item("allocated_rate_bps", f.allocated_rate.as_bps())?;
                Ok(d)
            })
            .collect()
    }

    fn __repr__(&self) -> String {
        format!(
            "CouplingManager({:?}, groups={})",
            self.inner.mechanism_display_name(),
            self.inner.groups().len()
        )
    }
}

impl PyCouplingManager {
    fn register(&mut self, group: u64, spec: FlowSpec, flow_id: Option<u64>) -> PyResult<u64> {
        let key = GroupKey(group);
        match flow_id {
            Some(id) => self.inner.register_as(FlowId(id), key, spec).map(|()| id),
            None => self.inner.register(key, spec).map(|id| id.0),
        }
        .map_err(core_err)
    }
}

/// The canonical name of a coupling mechanism written in any accepted spelling
/// (`"FSEv2"`, `"fse_ng"`, `"None"`), or None: the core's one reader of names.
#[pyfunction]
fn mechanism_name(name: &str) -> Option<&'static str> {
    Mechanism::canonical_name(name)
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyCouplingManager>()?;
    m.add_class::<PyAllocation>()?;
    m.add("FlowstateError", m.py().get_type::<FlowstateError>())?;
    m.add("CouplingError", m.py().get_type::<CouplingError>())?;
    m.add("MECHANISMS", Mechanism::NAMES.to_vec())?;
    m.add_function(wrap_pyfunction!(mechanism_name, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    sim::register(m)?;
    m.add(
        "ControllerError",
        m.py().get_type::<crate::external::ControllerError>(),
    )?;
    m.add_class::<crate::external::Feedback>()?;
    m.add(
        "CouplingRuleError",
        m.py().get_type::<crate::rules::CouplingRuleError>(),
    )?;
    m.add_class::<crate::rules::CoupledFlow>()?;
    m.add_class::<crate::stepping::Stepper>()?;
    definitions::register(m)?;
    testbed::register(m)?;
    ipemu::register(m)?;
    video::register(m)?;
    Ok(())
}
