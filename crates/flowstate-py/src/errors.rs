//! The base of the extension's exceptions, which every binding module derives its own
//! from (`CouplingError` in the crate root, `ScenarioError` in `sim`).

use pyo3::create_exception;
use pyo3::exceptions::PyValueError;

create_exception!(
    _native,
    FlowstateError,
    PyValueError,
    "Bad input, reported as one line naming what is wrong: the base of every user-facing \
     error of flowstate (CouplingError, ScenarioError and the Python package's own), so \
     that a front end can tell bad input from a bug (any other exception)."
);
