//! `definitions()`: everything a scenario, the CLI or the Python API can name, as plain
//! Python values: coupling mechanisms with their options, GCC presets, flow kinds, the
//! ECN settings of a flow and every flow override with its default and unit. Read from the one definition of each
//! (flowstate-coupling's mechanism list, flowstate-core's preset list, flowstate-sim's
//! `FlowKind` and `overrides`); nothing is listed here.

use flowstate_core::gcc::GccPreset;
use flowstate_coupling::coupling::{Mechanism, OptionDefault};
use flowstate_sim::flow_kind::coupling_name;
use flowstate_sim::flow_spec::EcnSetting;
use flowstate_sim::presets::SctpPreset;
use flowstate_sim::FlowKind;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyList, PyString};

/// An option's default as a Python value (None: unset).
fn option_default(py: Python<'_>, d: OptionDefault) -> PyResult<Bound<'_, PyAny>> {
    Ok(match d {
        OptionDefault::Bool(b) => PyBool::new(py, b).to_owned().into_any(),
        OptionDefault::Number(x) => PyFloat::new(py, x).into_any(),
        OptionDefault::Text(t) => PyString::new(py, t).into_any(),
        OptionDefault::Unset => py.None().into_bound(py),
    })
}

fn mechanisms<'py>(py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for info in Mechanism::catalogue() {
        let d = PyDict::new(py);
        d.set_item("name", info.name)?;
        d.set_item("display_name", info.display_name)?;
        d.set_item("description", info.description)?;
        d.set_item("source", info.source)?;
        // The scenario kinds whose controller is of a kind the mechanism couples.
        let kinds: Vec<&str> = FlowKind::all()
            .filter(|k| k.coupling().is_some_and(|c| info.couples(c)))
            .map(FlowKind::name)
            .collect();
        d.set_item("flow_kinds", kinds)?;
        let options = PyList::empty(py);
        for option in info.options {
            let o = PyDict::new(py);
            o.set_item("name", option.name)?;
            o.set_item("default", option_default(py, option.default)?)?;
            o.set_item("unit", option.unit)?;
            o.set_item("description", option.description)?;
            options.append(o)?;
        }
        d.set_item("options", options)?;
        d.set_item("manager", true)?;
        list.append(d)?;
    }
    list.append(web_api_mode(py)?)?;
    Ok(list)
}

/// The simulator's `web-api` mode, listed with the mechanisms a scenario may name
/// (`manager`: false, it is not a flowstate-core coupling manager).
fn web_api_mode(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("name", flowstate_sim::web_api::MECHANISM)?;
    d.set_item("display_name", "Web-API rule")?;
    d.set_item(
        "description",
        "coupling as an unmodified browser's web application does it: getStats polled every interval, each video sender's maxBitrate set and the data channels paced by the Web-API rule",
    )?;
    d.set_item(
        "source",
        "flowstate (js/flowstate-coupling; docs/ALGORITHMS.md, Web-API coupling mode)",
    )?;
    d.set_item("flow_kinds", flowstate_sim::web_api::FLOW_KINDS)?;
    let options = PyList::empty(py);
    for option in flowstate_sim::web_api::option_info() {
        let o = PyDict::new(py);
        o.set_item("name", option.name)?;
        o.set_item("default", option.default)?;
        o.set_item("unit", option.unit)?;
        o.set_item("description", option.description)?;
        options.append(o)?;
    }
    d.set_item("options", options)?;
    d.set_item("manager", false)?;
    Ok(d)
}

fn gcc_presets<'py>(py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for p in GccPreset::ALL {
        let d = PyDict::new(py);
        d.set_item("name", p.name())?;
        d.set_item("description", p.description())?;
        list.append(d)?;
    }
    Ok(list)
}

fn sctp_presets<'py>(py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for p in SctpPreset::ALL {
        let d = PyDict::new(py);
        d.set_item("name", p.name())?;
        d.set_item("description", p.description())?;
        list.append(d)?;
    }
    Ok(list)
}

fn flow_kinds<'py>(py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for k in FlowKind::all() {
        let d = PyDict::new(py);
        d.set_item("name", k.name())?;
        d.set_item("description", k.description())?;
        d.set_item("coupling", k.coupling().map(coupling_name))?;
        d.set_item("default_group", k.default_group())?;
        list.append(d)?;
    }
    Ok(list)
}

/// The values of a flow's `ecn` (`flowstate_sim::flow_spec::EcnSetting`): `name`,
/// `codepoint` (flowstate_core::Ecn's name), `description`.
fn ecn_settings<'py>(py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for e in EcnSetting::ALL {
        let d = PyDict::new(py);
        d.set_item("name", e.name())?;
        d.set_item("codepoint", e.codepoint().name())?;
        d.set_item("description", e.description())?;
        list.append(d)?;
    }
    Ok(list)
}

fn overrides_list<'py>(py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for def in flowstate_sim::kinds::definitions() {
        let d = PyDict::new(py);
        d.set_item("key", def.key())?;
        d.set_item("applies_to", def.applies_to.to_vec())?;
        d.set_item("default", def.default.describe())?;
        d.set_item("unit", def.unit)?;
        d.set_item("description", def.description())?;
        list.append(d)?;
    }
    Ok(list)
}

/// The bounds of the inputs that size a run (`flowstate_sim::bounds::ALL`): `field`,
/// `limit`, `why`.
fn bounds_list<'py>(py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for b in flowstate_sim::bounds::ALL {
        let d = PyDict::new(py);
        d.set_item("field", b.field)?;
        d.set_item("limit", b.limit)?;
        d.set_item("why", b.why)?;
        list.append(d)?;
    }
    Ok(list)
}

/// Everything a scenario can name: `{"mechanisms": [...], "gcc_presets": [...],
/// "sctp_presets": [...], "flow_kinds": [...], "ecn": [...], "overrides": [...],
/// "bounds": [...]}`
/// (shapes in `_native.pyi`).
#[pyfunction]
fn definitions(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("mechanisms", mechanisms(py)?)?;
    d.set_item("gcc_presets", gcc_presets(py)?)?;
    d.set_item("sctp_presets", sctp_presets(py)?)?;
    d.set_item("flow_kinds", flow_kinds(py)?)?;
    d.set_item("ecn", ecn_settings(py)?)?;
    d.set_item("overrides", overrides_list(py)?)?;
    d.set_item("bounds", bounds_list(py)?)?;
    Ok(d)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(definitions, m)?)
}
