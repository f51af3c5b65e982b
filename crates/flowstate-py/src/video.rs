//! The W3C freeze and pause figures of any series of render times
//! (flowstate-core's `playout::freeze`), for the receiver side of real Chromium runs as
//! for the simulator's: `flowstate.freezes(render_times_s)`.

use crate::errors::FlowstateError;
use flowstate_core::playout::freeze_stats;
use flowstate_core::Timestamp;
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// `freezes`, `freeze_duration_s`, `pauses`, `pause_duration_s` and `frames` of the
/// render times `render_times_s` (seconds, in order). Raises FlowstateError (one line)
/// for a time that is negative, not finite or earlier than the one before it.
#[pyfunction]
fn freezes<'py>(py: Python<'py>, render_times_s: Vec<f64>) -> PyResult<Bound<'py, PyDict>> {
    let mut times = Vec::with_capacity(render_times_s.len());
    for (i, &t) in render_times_s.iter().enumerate() {
        if !(t.is_finite() && t >= 0.0) {
            return Err(FlowstateError::new_err(format!(
                "freezes: render_times_s[{i}] must be a finite time >= 0 s, got {t}"
            )));
        }
        if i > 0 && t < render_times_s[i - 1] {
            return Err(FlowstateError::new_err(format!(
                "freezes: render_times_s must be in order; [{i}] = {t} s is before [{}] = {} s",
                i - 1,
                render_times_s[i - 1]
            )));
        }
        times.push(Timestamp::from_micros((t * 1e6).round() as u64));
    }
    let s = freeze_stats(times);
    let d = PyDict::new(py);
    d.set_item("frames", s.frames)?;
    d.set_item("freezes", s.freezes)?;
    d.set_item("freeze_duration_s", s.total_freezes_duration.as_secs_f64())?;
    d.set_item("pauses", s.pauses)?;
    d.set_item("pause_duration_s", s.total_pauses_duration.as_secs_f64())?;
    Ok(d)
}

/// Adds `freezes` to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(freezes, m)?)
}
