//! `json.dumps(document, indent=2)`, byte for byte, without Python's pure-Python encoder
//! (CPython uses its C encoder only without `indent`): the front end writes every
//! point's summary.json and results.json with it (docs/BENCHMARKS.md, "Eighth pass").
//!
//! The same text as `json.dumps`' defaults with `indent=2`: `", "`-free item separators
//! (`","` then a newline), `": "` after a key, `ensure_ascii` escapes (`\"`, `\\`, `\b`,
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
        match v.extract::<i64>() {
            Ok(n) => {
                let _ = write!(out, "{n}");
            }
            Err(_) => out.push_str(&v.repr()?.to_cow()?),
        }
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
