//! The time series as the text of the Python front end's `timeseries.csv` and
//! `links.csv`, byte for byte what Python's `csv` module writes for the same rows: a
//! float as Python's `repr` gives it (the shortest digits that read back to the same
//! number; positional notation for decimal exponents -5 < e < 16, else `1.5e+16`,
//! `1e-05`), an integer in decimal, a missing sample as the empty cell, `\n` after each
//! row. Rendering it here lets the front end write a run's series without one Python
//! object per cell (docs/investigations/2026-11-scaling-passes.md).
//!
//! The rows carry no `run` and `seed` columns: the front end prefixes them per run.
//! Flow and link names need no quoting (the scenario validator keeps commas, quotes and
//! newlines out of them), so no cell is ever quoted.

use crate::link_metrics::LinkSeriesRow;
use crate::metrics::{FlowSummary, SeriesRow};
use std::collections::HashMap;
use std::fmt::Write as _;

/// The columns of [`series_rows_text`], in order (after the front end's `run,seed`).
pub const SERIES_COLUMNS: [&str; 15] = [
    "time_s",
    "flow",
    "send_rate_mbps",
    "throughput_mbps",
    "goodput_mbps",
    "queuing_delay_ms",
    "rtt_ms",
    "sent_packets",
    "lost_packets",
    "capacity_mbps",
    "target_mbps",
    "group",
    "fps",
    "frame_delay_ms",
    "freezes",
];

/// Each flow's coupling group by flow name (summary.json's per-flow `group`), for the
/// series' `group` column; a flow that is not coupled is absent (the empty cell).
pub fn flow_groups(flows: &[FlowSummary]) -> HashMap<&str, &str> {
    flows
        .iter()
        .filter_map(|f| Some((f.name.as_str(), f.group.as_deref()?)))
        .collect()
}

/// The columns of [`link_series_rows_text`], in order (after `run,seed`).
pub const LINK_SERIES_COLUMNS: [&str; 10] = [
    "time_s",
    "link",
    "throughput_mbps",
    "capacity_mbps",
    "utilization",
    "queuing_delay_ms",
    "max_queue_bytes",
    "arrived_packets",
    "dropped_packets",
    "lost_packets",
];

/// A stack buffer for one float's shortest scientific form (`-1.2345678901234567e-308`
/// is 24 bytes).
struct Scratch {
    bytes: [u8; 40],
    len: usize,
}

impl std::fmt::Write for Scratch {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        let end = self.len + s.len();
        let dst = self.bytes.get_mut(self.len..end).ok_or(std::fmt::Error)?;
        dst.copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

/// Appends `x` as Python's `repr(x)` (CPython's `float_repr`: `PyOS_double_to_string`
/// with mode `'r'`, David Gay's dtoa mode 0): the shortest digits that read back to
/// `x`, the nearest of them to `x` with ties to even, written
/// positionally when the decimal point falls within -4 < decpt <= 16 (`decpt` = the
/// scientific exponent + 1), with `.0` added to an integral value; otherwise as
/// `d[.ddd]e±XX` with at least two exponent digits. `nan`, `inf`, `-inf` as Python
/// writes them.
pub fn push_float_repr(out: &mut String, x: f64) {
    if x.is_nan() {
        out.push_str("nan");
        return;
    }
    if x.is_infinite() {
        out.push_str(if x > 0.0 { "inf" } else { "-inf" });
        return;
    }
    // The number of shortest round-trip digits: Rust's `{:e}`.
    let mut s = Scratch {
        bytes: [0; 40],
        len: 0,
    };
    let shortest = write!(s, "{x:e}").is_ok();
    let text = std::str::from_utf8(s.bytes.get(..s.len).unwrap_or_default()).unwrap_or("");
    let digits = text
        .split('e')
        .next()
        .unwrap_or("")
        .bytes()
        .filter(u8::is_ascii_digit)
        .count();
    // The digits themselves: `x` correctly rounded to that many, ties to even (Rust's
    // exact `{:.Ne}`), which is what dtoa mode 0 picks when two shortest strings are
    // equally near (`-223993938915139.625` is `...139.62`, where the shortest search
    // alone gives `...139.63`).
    s.len = 0;
    if !shortest || digits == 0 || write!(s, "{x:.prec$e}", prec = digits - 1).is_err() {
        // Cannot happen (40 bytes hold every f64); Rust's own form rather than nothing.
        let _ = write!(out, "{x:?}");
        return;
    }
    let text = std::str::from_utf8(s.bytes.get(..s.len).unwrap_or_default()).unwrap_or("");
    let (negative, text) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (mantissa, exponent) = text.split_once('e').unwrap_or((text, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let (lead, rest) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if negative {
        out.push('-');
    }
    let decpt = exponent + 1;
    let ndigits = (lead.len() + rest.len()) as i32;
    if !(-4 < decpt && decpt <= 16) {
        out.push_str(lead);
        if !rest.is_empty() {
            out.push('.');
            out.push_str(rest);
        }
        let _ = write!(
            out,
            "e{}{:02}",
            if exponent < 0 { '-' } else { '+' },
            exponent.unsigned_abs()
        );
    } else if decpt <= 0 {
        out.push_str("0.");
        out.extend(std::iter::repeat('0').take(decpt.unsigned_abs() as usize));
        out.push_str(lead);
        out.push_str(rest);
    } else if decpt < ndigits {
        // One lead digit: the point falls inside `rest`.
        let split = (decpt - 1) as usize;
        out.push_str(lead);
        out.push_str(rest.get(..split).unwrap_or(rest));
        out.push('.');
        out.push_str(rest.get(split..).unwrap_or(""));
    } else {
        out.push_str(lead);
        out.push_str(rest);
        out.extend(std::iter::repeat('0').take((decpt - ndigits) as usize));
        out.push_str(".0");
    }
}

/// One CSV row being written: each cell after the first gets its comma.
struct Row<'a> {
    out: &'a mut String,
    cells: usize,
}

impl<'a> Row<'a> {
    fn new(out: &'a mut String) -> Self {
        Row { out, cells: 0 }
    }
    fn next_cell(&mut self) -> &mut String {
        if self.cells > 0 {
            self.out.push(',');
        }
        self.cells += 1;
        self.out
    }
    fn float(mut self, x: f64) -> Self {
        push_float_repr(self.next_cell(), x);
        self
    }
    /// The empty cell for `None` (no sample).
    fn opt(mut self, x: Option<f64>) -> Self {
        let out = self.next_cell();
        if let Some(x) = x {
            push_float_repr(out, x);
        }
        self
    }
    fn int(mut self, n: u64) -> Self {
        let _ = write!(self.next_cell(), "{n}");
        self
    }
    fn opt_int(mut self, n: Option<u64>) -> Self {
        let out = self.next_cell();
        if let Some(n) = n {
            let _ = write!(out, "{n}");
        }
        self
    }
    fn text(mut self, s: &str) -> Self {
        self.next_cell().push_str(s);
        self
    }
    fn end(self) {
        self.out.push('\n');
    }
}

/// The rows of `timeseries.csv` for one run ([`SERIES_COLUMNS`], no header), each
/// ending in `\n`.
pub fn series_rows_text(rows: &[SeriesRow], groups: &HashMap<&str, &str>) -> String {
    let mut out = String::with_capacity(rows.len() * 126);
    for r in rows {
        Row::new(&mut out)
            .float(r.time_s)
            .text(r.flow.as_str())
            .float(r.send_rate_mbps)
            .float(r.throughput_mbps)
            .float(r.goodput_mbps)
            .opt(r.queuing_delay_ms)
            .opt(r.rtt_ms)
            .int(r.sent_packets)
            .int(r.lost_packets)
            .float(r.capacity_mbps)
            .opt(r.target_mbps)
            .text(groups.get(r.flow.as_str()).copied().unwrap_or(""))
            .opt(r.fps)
            .opt(r.frame_delay_ms)
            .opt_int(r.freezes)
            .end();
    }
    out
}

/// The rows of `links.csv` for one run ([`LINK_SERIES_COLUMNS`], no header), each
/// ending in `\n`.
pub fn link_series_rows_text(rows: &[LinkSeriesRow]) -> String {
    let mut out = String::with_capacity(rows.len() * 100);
    for r in rows {
        Row::new(&mut out)
            .float(r.time_s)
            .text(&r.link)
            .float(r.throughput_mbps)
            .float(r.capacity_mbps)
            .float(r.utilization)
            .opt(r.queuing_delay_ms)
            .int(r.max_queue_bytes)
            .int(r.arrived_packets)
            .int(r.dropped_packets)
            .int(r.lost_packets)
            .end();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repr(x: f64) -> String {
        let mut s = String::new();
        push_float_repr(&mut s, x);
        s
    }

    /// Values and Python 3.11's `repr` of them (typed in from the interpreter).
    #[test]
    fn floats_as_python_repr() {
        let cases: &[(f64, &str)] = &[
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (1.0, "1.0"),
            (-2.5, "-2.5"),
            (0.1, "0.1"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (0.000123, "0.000123"),
            (0.0000123, "1.23e-05"),
            (123.456, "123.456"),
            (1e15, "1000000000000000.0"),
            (1234567890123456.0, "1234567890123456.0"),
            (1e16, "1e+16"),
            (1.5e16, "1.5e+16"),
            (12345678901234567.0, "1.2345678901234568e+16"),
            (1e22, "1e+22"),
            (1e100, "1e+100"),
            (5e-324, "5e-324"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
            (0.30000000000000004, "0.30000000000000004"),
            (100.0, "100.0"),
            (2.0 / 3.0, "0.6666666666666666"),
            // Two shortest strings equally near: the even one, as dtoa.
            (-(223_993_938_915_139.0 + 0.625), "-223993938915139.62"),
            (f64::NAN, "nan"),
            (f64::INFINITY, "inf"),
            (f64::NEG_INFINITY, "-inf"),
        ];
        for &(x, want) in cases {
            assert_eq!(repr(x), want, "{x:e}");
        }
    }

    proptest::proptest! {
        /// Whatever the value, the text reads back to the same float.
        #[test]
        fn repr_round_trips(bits in proptest::prelude::any::<u64>()) {
            let x = f64::from_bits(bits);
            proptest::prop_assume!(x.is_finite());
            let text = repr(x);
            proptest::prop_assert_eq!(text.parse::<f64>().ok().map(f64::to_bits), Some(x.to_bits()), "{}", text);
        }
    }

    #[test]
    fn a_series_row_as_the_csv_module_writes_it() {
        let row = SeriesRow {
            time_s: 0.5,
            flow: crate::metrics::FlowName::from("video"),
            send_rate_mbps: 1.25,
            throughput_mbps: 1.0,
            goodput_mbps: 0.0,
            queuing_delay_ms: None,
            rtt_ms: Some(40.5),
            sent_packets: 12,
            lost_packets: 0,
            capacity_mbps: 2.0,
            target_mbps: None,
            fps: None,
            frame_delay_ms: None,
            freezes: None,
        };
        let groups = HashMap::from([("video", "call")]);
        assert_eq!(
            series_rows_text(&[row.clone(), row.clone()], &groups),
            "0.5,video,1.25,1.0,0.0,,40.5,12,0,2.0,,call,,,\n".repeat(2)
        );
        // Not coupled: the empty cell.
        assert_eq!(
            series_rows_text(std::slice::from_ref(&row), &HashMap::new()),
            "0.5,video,1.25,1.0,0.0,,40.5,12,0,2.0,,,,,\n"
        );
        // A video flow's frame columns: a bin without a rendered frame has no delay.
        let video = SeriesRow {
            fps: Some(30.0),
            frame_delay_ms: None,
            freezes: Some(1),
            ..row
        };
        assert_eq!(
            series_rows_text(&[video], &HashMap::new()),
            "0.5,video,1.25,1.0,0.0,,40.5,12,0,2.0,,,30.0,,1\n"
        );
    }
}
