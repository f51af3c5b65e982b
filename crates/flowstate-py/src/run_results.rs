//! A run's results as the bindings hand them to Python (the dict of `simulate`, with the
//! series as columns and, on request, as the text of the csv files), and the
//! simulator's errors as `ScenarioError`: shared by the batch runs (`sim`), the runs
//! with Python controllers (`external_runs`), the stepped run (`stepping`) and the
//! testbed.

use flowstate_sim::link_metrics::LinkSeriesRow;
use flowstate_sim::metrics::SeriesRow;
use flowstate_sim::{RunResult, SimError};
use pyo3::create_exception;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};

use crate::errors::FlowstateError;

create_exception!(
    _native,
    ScenarioError,
    FlowstateError,
    "A scenario that cannot be run: invalid TOML, an unknown key, a missing field, an \
     impossible value, or a flow kind / coupling mechanism the simulator cannot build. \
     The message is one line naming the file (or '<dict>') and the field."
);

pub(crate) fn sim_err(file: &str, e: &SimError) -> PyErr {
    match e {
        // These name the file already.
        SimError::Scenario(_) | SimError::Io { .. } => ScenarioError::new_err(e.to_string()),
        _ => ScenarioError::new_err(format!("{file}: {e}")),
    }
}

/// A finished run, with its series as the text of timeseries.csv and links.csv when the
/// caller asked for it (rendered on the worker thread, without the GIL).
pub(crate) struct Finished {
    pub(crate) run: RunResult,
    pub(crate) text: Option<SeriesText>,
}

/// [`flowstate_sim::series_text`]'s rows of one run.
pub(crate) struct SeriesText {
    pub(crate) series: String,
    pub(crate) links: String,
}

/// A finished run, with its series text when `series_text`.
pub(crate) fn finished(run: RunResult, series_text: bool) -> Finished {
    let text = series_text.then(|| SeriesText {
        series: flowstate_sim::series_text::series_rows_text(
            &run.series,
            &flowstate_sim::series_text::flow_groups(&run.summary.flows),
        ),
        links: flowstate_sim::series_text::link_series_rows_text(&run.link_series),
    });
    Finished { run, text }
}

fn column<'py, R, T: IntoPyObject<'py> + Clone>(
    d: &Bound<'py, PyDict>,
    name: &str,
    rows: &[R],
    f: impl Fn(&R) -> T,
) -> PyResult<()> {
    d.set_item(name, rows.iter().map(f).collect::<Vec<T>>())
}

/// The time series as columns (the order of `series_text::SERIES_COLUMNS`: those of
/// `metrics::write_series_csv`, then each row's flow's coupling group, `None` when the
/// flow is not coupled).
fn series_columns<'py>(
    py: Python<'py>,
    rows: &[SeriesRow],
    summary_flows: &[flowstate_sim::metrics::FlowSummary],
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    column(&d, "time_s", rows, |r| r.time_s)?;
    // One Python str per flow, shared by its rows (not one new str per row).
    let mut names: std::collections::HashMap<&str, Bound<'py, PyString>> =
        std::collections::HashMap::new();
    let flows: Vec<Bound<'py, PyString>> = rows
        .iter()
        .map(|r| {
            names
                .entry(r.flow.as_str())
                .or_insert_with(|| PyString::new(py, &r.flow))
                .clone()
        })
        .collect();
    d.set_item("flow", flows)?;
    column(&d, "send_rate_mbps", rows, |r| r.send_rate_mbps)?;
    column(&d, "throughput_mbps", rows, |r| r.throughput_mbps)?;
    column(&d, "goodput_mbps", rows, |r| r.goodput_mbps)?;
    column(&d, "queuing_delay_ms", rows, |r| r.queuing_delay_ms)?;
    column(&d, "rtt_ms", rows, |r| r.rtt_ms)?;
    column(&d, "sent_packets", rows, |r| r.sent_packets)?;
    column(&d, "lost_packets", rows, |r| r.lost_packets)?;
    column(&d, "capacity_mbps", rows, |r| r.capacity_mbps)?;
    column(&d, "target_mbps", rows, |r| r.target_mbps)?;
    let groups = flowstate_sim::series_text::flow_groups(summary_flows);
    column(&d, "group", rows, |r| {
        groups.get(r.flow.as_str()).map(|g| g.to_string())
    })?;
    column(&d, "fps", rows, |r| r.fps)?;
    column(&d, "frame_delay_ms", rows, |r| r.frame_delay_ms)?;
    column(&d, "freezes", rows, |r| r.freezes)?;
    Ok(d)
}

/// The per-link time series as columns (the order of
/// `link_metrics::write_link_series_csv`).
fn link_series_columns<'py>(
    py: Python<'py>,
    rows: &[LinkSeriesRow],
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    column(&d, "time_s", rows, |r| r.time_s)?;
    column(&d, "link", rows, |r| r.link.clone())?;
    column(&d, "throughput_mbps", rows, |r| r.throughput_mbps)?;
    column(&d, "capacity_mbps", rows, |r| r.capacity_mbps)?;
    column(&d, "utilization", rows, |r| r.utilization)?;
    column(&d, "queuing_delay_ms", rows, |r| r.queuing_delay_ms)?;
    column(&d, "max_queue_bytes", rows, |r| r.max_queue_bytes)?;
    column(&d, "arrived_packets", rows, |r| r.arrived_packets)?;
    column(&d, "dropped_packets", rows, |r| r.dropped_packets)?;
    column(&d, "lost_packets", rows, |r| r.lost_packets)?;
    Ok(d)
}

pub(crate) fn run_dict<'py>(
    py: Python<'py>,
    seed: u64,
    r: &RunResult,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("seed", seed)?;
    d.set_item("summary_json", r.summary.to_json())?;
    d.set_item("series", series_columns(py, &r.series, &r.summary.flows)?)?;
    d.set_item("link_series", link_series_columns(py, &r.link_series)?)?;
    d.set_item("trace_hash", r.trace_hash)?;
    d.set_item("events", r.events)?;
    Ok(d)
}

/// A finished run as `simulate` returns it.
pub(crate) fn finished_dict<'py>(
    py: Python<'py>,
    seed: u64,
    done: &Finished,
) -> PyResult<Bound<'py, PyDict>> {
    let d = run_dict(py, seed, &done.run)?;
    if let Some(text) = &done.text {
        d.set_item("series_text", &text.series)?;
        d.set_item("link_series_text", &text.links)?;
    }
    Ok(d)
}
