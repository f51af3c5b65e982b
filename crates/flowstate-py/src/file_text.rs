//! The front end's files as Python writes them, byte for byte, without Python code per
//! value (docs/investigations/2026-11-scaling-passes.md): [`json_dumps_indent2`] for summary.json
//! and results.json, [`csv_rows_text`] for the rows of timeseries.csv and links.csv
//! when a run's rows were not already rendered on the simulate workers.
//!
//! `json_dumps_indent2` is `json.dumps(document, indent=2)` without Python's
//! pure-Python encoder (CPython uses its C encoder only without `indent`): `","` then a
//! newline between items, `": "` after a key, `ensure_ascii` escapes (`\"`, `\\`, `\b`,
//! `\f`, `\n`, `\r`, `\t`, every other character outside space..`~` as `\u00xx` in lower
//! case, above U+FFFF as a surrogate pair), floats as `float.__repr__`
//! ([`flowstate_sim::series_text::push_float_repr`]) with `NaN`, `Infinity`,
//! `-Infinity`, ints as `int.__repr__`, `{}` and `[]` for empty containers. What
//! `json.dumps` would write differently or refuse (keys that are not str, types other
//! than dict, list, tuple, str, int, float, bool and None, nesting deeper than
//! [`MAX_DEPTH`]) is a TypeError, and the front end then calls `json.dumps` itself.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use std::fmt::Write as _;

/// Deeper documents are left to `json.dumps` (which also catches cycles).
const MAX_DEPTH: usize = 200;

fn push_indent(out: &mut String, level: usize) {
    out.push('\n');
    out.extend(std::iter::repeat(' ').take(2 * level));
}

/// `json.encoder.py_encode_basestring_ascii`.
fn push_str(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            ' '..='~' => out.push(c),
            _ => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    let _ = write!(out, "\\u{unit:04x}");
                }
            }
        }
    }
    out.push('"');
}

/// A Python int in decimal (`int.__repr__`; one beyond 64 bits through Python).
fn push_int(out: &mut String, v: &Bound<'_, PyAny>) -> PyResult<()> {
    match v.extract::<i64>() {
        Ok(n) => {
            let _ = write!(out, "{n}");
        }
        Err(_) => out.push_str(&v.repr()?.to_cow()?),
    }
    Ok(())
}

fn push_value(
    out: &mut String,
    v: &Bound<'_, PyAny>,
    level: usize,
    allow_nan: bool,
) -> PyResult<()> {
    if level > MAX_DEPTH {
        return Err(PyTypeError::new_err("document nested too deeply"));
    }
    if v.is_none() {
        out.push_str("null");
    } else if let Ok(b) = v.cast::<PyBool>() {
        out.push_str(if b.is_true() { "true" } else { "false" });
    } else if let Ok(s) = v.cast::<PyString>() {
        push_str(out, &s.to_cow()?);
    } else if v.is_instance_of::<PyInt>() {
        push_int(out, v)?;
    } else if let Ok(f) = v.cast::<PyFloat>() {
        let x = f.value();
        if !x.is_finite() && !allow_nan {
            return Err(PyTypeError::new_err("a float that is not finite"));
        }
        if x.is_nan() {
            out.push_str("NaN");
        } else if x.is_infinite() {
            out.push_str(if x > 0.0 { "Infinity" } else { "-Infinity" });
        } else {
            flowstate_sim::series_text::push_float_repr(out, x);
        }
    } else if let Ok(d) = v.cast::<PyDict>() {
        if d.is_empty() {
            out.push_str("{}");
            return Ok(());
        }
        out.push('{');
        for (i, (key, value)) in d.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            push_indent(out, level + 1);
            let key = key
                .cast::<PyString>()
                .map_err(|_| PyTypeError::new_err("a key that is not a str"))?;
            push_str(out, &key.to_cow()?);
            out.push_str(": ");
            push_value(out, &value, level + 1, allow_nan)?;
        }
        push_indent(out, level);
        out.push('}');
    } else if let Ok(l) = v.cast::<PyList>() {
        push_items(out, l.iter(), l.len(), level, allow_nan)?;
    } else if let Ok(t) = v.cast::<PyTuple>() {
        push_items(out, t.iter(), t.len(), level, allow_nan)?;
    } else {
        return Err(PyTypeError::new_err(format!(
            "a value of type {}",
            v.get_type().name()?
        )));
    }
    Ok(())
}

fn push_items<'py>(
    out: &mut String,
    items: impl Iterator<Item = Bound<'py, PyAny>>,
    len: usize,
    level: usize,
    allow_nan: bool,
) -> PyResult<()> {
    if len == 0 {
        out.push_str("[]");
        return Ok(());
    }
    out.push('[');
    for (i, item) in items.enumerate() {
        if i > 0 {
            out.push(',');
        }
        push_indent(out, level + 1);
        push_value(out, &item, level + 1, allow_nan)?;
    }
    push_indent(out, level);
    out.push(']');
    Ok(())
}

/// `json.dumps(document, indent=2, allow_nan=allow_nan)` (see the module
/// documentation); TypeError for what it does not write the same way (with `allow_nan`
/// false, also for a NaN or an infinity, which `json.dumps` refuses).
#[pyfunction]
#[pyo3(signature = (document, *, allow_nan = true))]
pub(crate) fn json_dumps_indent2(document: &Bound<'_, PyAny>, allow_nan: bool) -> PyResult<String> {
    let mut out = String::with_capacity(4096);
    push_value(&mut out, document, 0, allow_nan)?;
    Ok(out)
}

/// The cells that follow `run,seed,` in each row of timeseries.csv and links.csv, as
/// Python's `csv.writer` (default dialect, `lineterminator "\n"`) writes them for the
/// rows `zip(*columns)`, each row ending in `\n`: floats as `repr` (`nan`, `inf`),
/// ints in decimal, bools as `True` / `False`, None as the empty cell, str as it is.
/// (The front end writes `run,seed,` before each row, so no row is one lone field,
/// which the writer would quote when empty.) TypeError for a str the writer would quote
/// (a comma, a quote, a line break), for a value that is not exactly one of those types
/// (the writer calls `str()`, which a subclass may change), and for columns of
/// different lengths: the front end then uses `csv.writer` itself.
#[pyfunction]
pub(crate) fn csv_rows_text(columns: Vec<Bound<'_, PyList>>) -> PyResult<String> {
    let rows = columns.first().map_or(0, |c| c.len());
    if columns.iter().any(|c| c.len() != rows) {
        return Err(PyTypeError::new_err("columns of different lengths"));
    }
    let mut out = String::with_capacity(rows * columns.len() * 8);
    for i in 0..rows {
        for (k, column) in columns.iter().enumerate() {
            if k > 0 {
                out.push(',');
            }
            push_cell(&mut out, &column.get_item(i)?)?;
        }
        out.push('\n');
    }
    Ok(out)
}

fn push_cell(out: &mut String, v: &Bound<'_, PyAny>) -> PyResult<()> {
    if v.is_none() {
    } else if let Ok(b) = v.cast_exact::<PyBool>() {
        out.push_str(if b.is_true() { "True" } else { "False" });
    } else if let Ok(f) = v.cast_exact::<PyFloat>() {
        flowstate_sim::series_text::push_float_repr(out, f.value());
    } else if v.is_exact_instance_of::<PyInt>() {
        push_int(out, v)?;
    } else if let Ok(s) = v.cast_exact::<PyString>() {
        let s = s.to_cow()?;
        if s.contains([',', '"', '\r', '\n']) {
            return Err(PyTypeError::new_err("a cell csv.writer would quote"));
        }
        out.push_str(&s);
    } else {
        return Err(PyTypeError::new_err(format!(
            "a cell of type {}",
            v.get_type().name()?
        )));
    }
    Ok(())
}
