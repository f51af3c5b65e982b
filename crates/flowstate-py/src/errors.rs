//! The base of the extension's exceptions, which every binding module derives its own
//! from (`CouplingError` in the crate root, `ScenarioError` in `sim`), and the coupling
//! rule's (`CouplingRuleError`, raised by `external` and `rules`).

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

create_exception!(
    _native,
    CouplingRuleError,
    FlowstateError,
    "A coupling rule written in Python cannot be used: its module or class cannot be \
     found, or it returned something that is not a set of allowances. One line naming \
     the rule and the fix."
);
