//! Python bindings of flowstate-core (filled in with the coupling API).
use pyo3::prelude::*;

#[pymodule]
fn _native(_m: &Bound<'_, PyModule>) -> PyResult<()> {
    Ok(())
}
