//! Python binding of flowstate-emu's IP-level bottleneck (`flowstate_emu::ip`): start it
//! with a scenario's `[link]` / `[reverse_link]`, stop it, get every packet's record.
//! No logic of its own: conversion of arguments and results only.

use flowstate_coupling::Timestamp;
use flowstate_emu::emulator::Timing;
use flowstate_emu::ip::{DirectionReport, IpBottleneck, IpBottleneckConfig};
use flowstate_emu::{PathConfig, PathStats};
use flowstate_sim::Scenario;
use pyo3::exceptions::{PyOSError, PyRuntimeError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use std::sync::Mutex;

use crate::run_results::ScenarioError;

/// A running IP-level bottleneck (`flowstate_emu::ip::IpBottleneck`).
#[pyclass(name = "IpBottleneck", module = "flowstate._native")]
#[derive(Debug)]
pub struct PyIpBottleneck {
    inner: Mutex<Option<IpBottleneck>>,
    start_unix_us: u64,
}

#[pymethods]
impl PyIpBottleneck {
    /// Creates the TUN devices `forward_device` and `reverse_device` in the network
    /// namespace `netns` (None: this process's) and starts shaping with the scenario's
    /// links (`text` is the scenario TOML, `file` names it in errors). Raises
    /// ScenarioError for a bad scenario and OSError when a device cannot be made.
    #[new]
    #[pyo3(signature = (text, file, *, seed, netns, forward_device, reverse_device, snap = 96, realtime = true))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        text: &str,
        file: &str,
        seed: u64,
        netns: Option<String>,
        forward_device: String,
        reverse_device: String,
        snap: usize,
        realtime: bool,
    ) -> PyResult<Self> {
        let sc =
            Scenario::from_toml(text, file).map_err(|e| ScenarioError::new_err(e.to_string()))?;
        let (forward, reverse) = PathConfig::from_scenario(&sc, file, seed)
            .map_err(|e| ScenarioError::new_err(e.to_string()))?;
        let cfg = IpBottleneckConfig {
            forward,
            reverse,
            netns,
            forward_device,
            reverse_device,
            snap,
        };
        let timing = if realtime {
            Timing::realtime()
        } else {
            Timing::default()
        };
        let emu = py
            .detach(|| IpBottleneck::start(cfg, timing))
            .map_err(|e| PyOSError::new_err(format!("{file}: {e}")))?;
        Ok(Self {
            start_unix_us: emu.start_unix_us(),
            inner: Mutex::new(Some(emu)),
        })
    }

    /// Unix time (seconds) of the records' zero.
    #[getter]
    fn start_unix_s(&self) -> f64 {
        self.start_unix_us as f64 / 1e6
    }

    /// Stops shaping, removes the devices and returns `{"forward": ..., "reverse": ...,
    /// "start_unix_us", "realtime"}`; each direction has `counters` (dict), `records`
    /// (dict of equal-length column lists, one row per packet offered to the link) and
    /// `capture` (pcap bytes). A second call raises RuntimeError.
    fn stop<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let emu = self
            .inner
            .lock()
            .map_err(|_| PyRuntimeError::new_err("bottleneck lock poisoned (a bug)"))?
            .take()
            .ok_or_else(|| PyRuntimeError::new_err("the bottleneck was already stopped"))?;
        let report = py.detach(|| emu.stop());
        let d = PyDict::new(py);
        d.set_item("forward", direction(py, &report.forward)?)?;
        d.set_item("reverse", direction(py, &report.reverse)?)?;
        d.set_item("start_unix_us", report.start_unix_us)?;
        d.set_item("realtime", report.realtime)?;
        Ok(d)
    }
}

impl Drop for PyIpBottleneck {
    fn drop(&mut self) {
        if let Ok(mut g) = self.inner.lock() {
            if let Some(emu) = g.take() {
                emu.stop();
            }
        }
    }
}

/// A bottleneck direction's counters (`PathStats`) under the names testbed.json and
/// browser runs use.
pub(crate) fn counters<'py>(py: Python<'py>, s: &PathStats) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("arrived", s.packets_in)?;
    d.set_item("forwarded", s.packets_out)?;
    d.set_item("queue_drops", s.dropped_queue)?;
    d.set_item("aqm_drops", s.dropped_aqm)?;
    d.set_item("random_losses", s.dropped_loss)?;
    d.set_item("foreign", s.foreign)?;
    d.set_item("malformed", s.malformed)?;
    d.set_item("io_errors", s.io_errors)?;
    d.set_item("ecn_capable", s.ecn_capable)?;
    d.set_item("ce_marked", s.ce_marked)?;
    Ok(d)
}

/// The link's per-packet records of a direction as equal-length column lists (the
/// first `n`): arrival, actual and model departure, queuing delay, ECN codepoint on
/// arrival and CE mark, size.
pub(crate) fn record_columns<'py>(
    py: Python<'py>,
    s: &PathStats,
    n: usize,
) -> PyResult<Bound<'py, PyDict>> {
    let cols = PyDict::new(py);
    let rec = &s.records[..n.min(s.records.len())];
    cols.set_item(
        "arrival_us",
        rec.iter().map(|x| x.arrival_us).collect::<Vec<_>>(),
    )?;
    cols.set_item(
        "departure_us",
        rec.iter().map(|x| x.departure_us).collect::<Vec<_>>(),
    )?;
    cols.set_item(
        "model_departure_us",
        rec.iter().map(|x| x.model_departure_us).collect::<Vec<_>>(),
    )?;
    cols.set_item(
        "queue_delay_us",
        rec.iter()
            .map(|x| x.queue_delay.as_micros())
            .collect::<Vec<_>>(),
    )?;
    cols.set_item("ecn", rec.iter().map(|x| x.ecn.name()).collect::<Vec<_>>())?;
    cols.set_item(
        "ce_marked",
        rec.iter().map(|x| x.ce_marked).collect::<Vec<_>>(),
    )?;
    cols.set_item(
        "size",
        rec.iter().map(|x| x.size.as_bytes()).collect::<Vec<_>>(),
    )?;
    Ok(cols)
}

fn direction<'py>(py: Python<'py>, r: &DirectionReport) -> PyResult<Bound<'py, PyDict>> {
    let s = &r.stats;
    let n = s.records.len().min(r.packets.len());
    let cols = record_columns(py, s, n)?;
    let pk = &r.packets[..n];
    cols.set_item(
        "class",
        pk.iter().map(|p| p.class.name()).collect::<Vec<_>>(),
    )?;
    cols.set_item(
        "protocol",
        pk.iter().map(|p| u16::from(p.protocol)).collect::<Vec<_>>(),
    )?;
    cols.set_item(
        "src",
        pk.iter()
            .map(|p| p.src.map(|a| a.to_string()))
            .collect::<Vec<_>>(),
    )?;
    cols.set_item(
        "dst",
        pk.iter()
            .map(|p| p.dst.map(|a| a.to_string()))
            .collect::<Vec<_>>(),
    )?;
    cols.set_item(
        "src_port",
        pk.iter().map(|p| p.src_port).collect::<Vec<_>>(),
    )?;
    cols.set_item(
        "dst_port",
        pk.iter().map(|p| p.dst_port).collect::<Vec<_>>(),
    )?;
    cols.set_item("ssrc", pk.iter().map(|p| p.ssrc).collect::<Vec<_>>())?;
    let d = PyDict::new(py);
    d.set_item("counters", counters(py, s)?)?;
    d.set_item("records", cols)?;
    d.set_item("capture", PyBytes::new(py, &r.capture))?;
    Ok(d)
}

/// Bits the scenario's forward link can carry between each pair of consecutive
/// `edges` (seconds, increasing): the simulator's own integral of its capacity
/// (schedule, looping trace, or a Mahimahi trace's delivery opportunities), so a real
/// run's utilization uses the same capacity as a simulated one.
#[pyfunction]
fn link_capacity_bits(text: &str, file: &str, edges: Vec<f64>) -> PyResult<Vec<f64>> {
    let sc = Scenario::from_toml(text, file).map_err(|e| ScenarioError::new_err(e.to_string()))?;
    let b = sc
        .bottleneck(file)
        .map_err(|e| ScenarioError::new_err(e.to_string()))?;
    let link = flowstate_sim::run::link_config(&b.forward);
    let at = |s: f64| Timestamp::from_micros((s.max(0.0) * 1e6) as u64);
    if edges.iter().any(|e| !e.is_finite()) || edges.windows(2).any(|w| w[1] < w[0]) {
        return Err(ScenarioError::new_err(
            "link_capacity_bits: edges must be finite and increasing",
        ));
    }
    Ok(edges
        .windows(2)
        .map(|w| link.capacity_bits(at(w[0]), at(w[1])))
        .collect())
}

/// The one-way delays `(forward, reverse)` in seconds of the scenario's one bottleneck
/// per direction (`Scenario::bottleneck`: the dumbbell's `[link]` / `[reverse_link]`,
/// or the one named link every flow crosses and its feedback's link or fixed delay).
/// A scenario with several bottlenecks in a direction raises `ScenarioError` with one
/// line naming the field.
#[pyfunction]
fn bottleneck_delays(text: &str, file: &str) -> PyResult<(f64, f64)> {
    let sc = Scenario::from_toml(text, file).map_err(|e| ScenarioError::new_err(e.to_string()))?;
    let b = sc
        .bottleneck(file)
        .map_err(|e| ScenarioError::new_err(e.to_string()))?;
    let forward = b.forward.delay.0;
    Ok((forward, b.reverse.map_or(forward, |r| r.delay.0)))
}

/// Adds `IpBottleneck`, `link_capacity_bits` and `bottleneck_delays` to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyIpBottleneck>()?;
    m.add_function(wrap_pyfunction!(link_capacity_bits, m)?)?;
    m.add_function(wrap_pyfunction!(bottleneck_delays, m)?)
}
