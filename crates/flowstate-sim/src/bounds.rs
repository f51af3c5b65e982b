//! The bounds of every scenario input that sizes the simulator's work or memory: a
//! count, an interval that multiplies events, the length of a file. Each is checked
//! when the scenario is read (or, for `[coupling] options`, when the run is built),
//! with one line naming the field, the bound and the value; none is reached by a real
//! experiment. [`ALL`] lists them for docs/SCENARIOS.md ("Bounds") and
//! `flowstate list-options`.

use crate::error::FieldError;

/// Longest `duration` (seconds): the clock counts microseconds in 64 bits.
pub use crate::units_parse::MAX_DURATION_SECS;

/// Most flows of a scenario after `count` expansion: ten times the 10,000 flows the
/// scaling benchmark runs (docs/BENCHMARKS.md), each flow a few kB of state.
pub const MAX_FLOWS: usize = 100_000;

/// Most time-series rows of a run, `(flows + links) x bins` with `[measure] series`:
/// a row is about 100 bytes, so at most about 2 GB; 10,000 flows x 1,000 s at the
/// default 500 ms bin is half of it (`series = false` keeps no rows and has no bound).
pub const MAX_SERIES_ROWS: u64 = 20_000_000;

/// Shortest SBD base interval T (seconds): RFC 8382 uses 350 ms; below 10 ms an
/// interval holds too few packets for its statistics and the grouping runs 100 times a
/// second per host.
pub const MIN_SBD_INTERVAL_SECS: f64 = 0.010;

/// Longest SBD base interval T (seconds): a minute, 170 times RFC 8382's T.
pub const MAX_SBD_INTERVAL_SECS: f64 = 60.0;

/// Largest SBD N (base intervals of history per flow): 200 times RFC 8382's 50; each
/// flow keeps N records.
pub const MAX_SBD_N: usize = 10_000;

/// Most SBD timeline entries, grouping runs (`duration / T`) x flows: the summary's
/// `sbd.timeline` holds one verdict and one truth per flow per run (at most some
/// 200 MB of summary.json); 1,000 flows for an hour at T = 350 ms is 10 % of it.
pub const MAX_SBD_VERDICTS: u64 = 10_000_000;

/// Shortest RFC 8888 feedback interval of `nada` and `scream` flows (seconds): a report
/// is an event per flow; RFC 8298 asks for one every 20 ms, RFC 8698 every 100 ms.
pub const MIN_FEEDBACK_INTERVAL_SECS: f64 = 0.001;

/// Shortest web-api polling `interval` (seconds): a web application polling getStats
/// more often than every 10 ms gets the same statistics again.
pub const MIN_WEB_API_INTERVAL_SECS: f64 = 0.010;

/// Longest web-api `interval`, `delay` and `rate_window` (seconds): a minute; the
/// rule keeps `rate_window / interval` polls per flow and `delay / interval` decisions
/// in flight, at most 6,000 each.
pub const MAX_WEB_API_TIME_SECS: f64 = 60.0;

/// Largest web-api `min_media_rate` (bit/s): 1 Tbit/s, above any media rate.
pub const MAX_WEB_API_RATE_BPS: f64 = 1e12;

/// Largest trace file (bytes, counted as read) and most points of one trace: in
/// crate::trace, which reads them.
pub use crate::trace::{MAX_TRACE_BYTES, MAX_TRACE_POINTS};

/// Largest scenario file read by path (bytes, counted as read): in crate::input_file,
/// which reads it.
pub use crate::input_file::MAX_SCENARIO_BYTES;

/// Most capacity changes a trace makes over a run (its points x the periods the run
/// plays): each is an event scheduled before the run starts; a one-row-per-second
/// trace looped for 115 days.
pub const MAX_TRACE_CHANGES: u64 = 10_000_000;

/// One bound, as docs/SCENARIOS.md and `flowstate list-options` show it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bound {
    /// The field (or product of fields) bounded.
    pub field: &'static str,
    /// The bound, in the units scenario files use.
    pub limit: &'static str,
    /// What the bound protects and why it is generous.
    pub why: &'static str,
}

/// Every bound, in the order docs/SCENARIOS.md lists them.
pub const ALL: &[Bound] = &[
    Bound {
        field: "duration",
        limit: "1 us ..= 1e12 s",
        why: "the clock counts whole microseconds in 64 bits",
    },
    Bound {
        field: "flows (after count)",
        limit: "<= 100000",
        why: "ten times the 10,000 flows of the scaling benchmark",
    },
    Bound {
        field: "flows[].count",
        limit: "1 ..= 10000",
        why: "papers 003/004 use 15; the scaling benchmark 10,000",
    },
    Bound {
        field: "links (named, parking-lot hops included)",
        limit: "<= 255",
        why: "a link id is one byte",
    },
    Bound {
        field: "measure.bin",
        limit: ">= 1 ms",
        why: "a bin is a row per flow",
    },
    Bound {
        field: "(flows + links) x duration / measure.bin",
        limit: "<= 20000000 rows (with measure.series)",
        why: "about 2 GB of time series; 10,000 flows x 1,000 s at 500 ms is half",
    },
    Bound {
        field: "flows[].overrides.feedback_interval_ms (nada, scream)",
        limit: "1 ms ..= 1 day",
        why: "a report is an event per flow; RFC 8298 asks for 20 ms",
    },
    Bound {
        field: "flows[].overrides counts (nada, scream, ledbat)",
        limit: "1 ..= 1000000",
        why: "each is a filter or history length a flow keeps",
    },
    Bound {
        field: "sbd.base_interval",
        limit: "10 ms ..= 60 s",
        why: "RFC 8382's T is 350 ms; shorter intervals hold too few packets",
    },
    Bound {
        field: "sbd.n",
        limit: "1 ..= 10000",
        why: "RFC 8382's N is 50; each flow keeps N records",
    },
    Bound {
        field: "sbd.m, sbd.f",
        limit: "1 ..= n, f <= 255",
        why: "RFC 8382: M and F count intervals of the last N",
    },
    Bound {
        field: "flows x duration / sbd.base_interval",
        limit: "<= 10000000 verdicts",
        why: "the summary's sbd.timeline; 1,000 flows for an hour at 350 ms is 10 %",
    },
    Bound {
        field: "coupling.options.interval (web-api)",
        limit: "10 ms ..= 60 s",
        why: "getStats polled faster than 10 ms repeats itself",
    },
    Bound {
        field: "coupling.options.delay, rate_window (web-api)",
        limit: "0 s ..= 60 s",
        why: "at most 6,000 polls or decisions kept per flow",
    },
    Bound {
        field: "coupling.options.min_media_rate (web-api)",
        limit: "0 bps ..= 1 Tbps, with a unit",
        why: "a rate, written as every rate is",
    },
    Bound {
        field: "files named by path (scenarios, sweeps, catalogue entries)",
        limit: "<= 64 MiB read, regular files only",
        why: "a thousand times the catalogue's largest scenario; a FIFO or device is refused",
    },
    Bound {
        field: "capacity_trace.file: size",
        limit: "<= 64 MiB read, regular files only",
        why: "some 20 minutes of Mahimahi opportunities at 100 Mbit/s; a FIFO or device is refused",
    },
    Bound {
        field: "capacity_trace.file: points",
        limit: "<= 10000000",
        why: "ten minutes of Mahimahi opportunities at 200 Mbit/s",
    },
    Bound {
        field: "capacity_trace.file: times",
        limit: "0 ..= 1e12 s",
        why: "the clock's range",
    },
    Bound {
        field: "capacity_trace: points x duration / trace length",
        limit: "<= 10000000 changes",
        why: "capacity changes scheduled before the run; a 1-s trace looped 115 days",
    },
];

/// `value` must lie in `[min, max]` (seconds); the error names the bound and the value.
pub fn check_secs(field: &str, value: f64, min: f64, max: f64) -> Result<(), FieldError> {
    check_range(field, value, min, max, describe_secs)
}

/// `value` must lie in `[min, max]`, each written by `describe` in the error.
fn check_range(
    field: &str,
    value: f64,
    min: f64,
    max: f64,
    describe: fn(f64) -> String,
) -> Result<(), FieldError> {
    if value.is_finite() && (min..=max).contains(&value) {
        return Ok(());
    }
    Err(FieldError::new(
        field,
        format!(
            "must be between {} and {}, got {}",
            describe(min),
            describe(max),
            describe(value)
        ),
    ))
}

/// `count` must be at most `max`; `what` says what is counted.
pub fn check_count(field: &str, what: &str, count: u64, max: u64) -> Result<(), FieldError> {
    if count <= max {
        return Ok(());
    }
    Err(FieldError::new(
        field,
        format!("{what} must be at most {max}, got {count}"),
    ))
}

/// `value` must lie in `[min, max]` (bit/s); the error names the bound and the value.
pub fn check_bps(field: &str, value: f64, min: f64, max: f64) -> Result<(), FieldError> {
    check_range(field, value, min, max, describe_bps)
}

/// A rate for a message: `1 Tbps`, `50 kbps`, `1500 bps`.
pub fn describe_bps(bps: f64) -> String {
    for (unit, name) in [(1e12, "Tbps"), (1e9, "Gbps"), (1e6, "Mbps"), (1e3, "kbps")] {
        if bps.abs() >= unit && (bps / unit).fract() == 0.0 {
            return format!("{} {name}", bps / unit);
        }
    }
    format!("{} bps", round_sig(bps))
}

/// A time for a message: `350 ms`, `60 s`, `1 us`.
pub fn describe_secs(s: f64) -> String {
    if s != 0.0 && s.abs() < 1e-3 {
        format!("{} us", round_sig(s * 1e6))
    } else if s != 0.0 && s.abs() < 1.0 {
        format!("{} ms", round_sig(s * 1e3))
    } else {
        format!("{} s", round_sig(s))
    }
}

fn round_sig(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_the_bound_and_the_value() {
        let e = check_secs("sbd.base_interval", 1e-6, 0.01, 60.0).unwrap_err();
        assert_eq!(e.field, "sbd.base_interval");
        assert_eq!(e.message, "must be between 10 ms and 60 s, got 1 us");
        assert!(check_secs("x", f64::NAN, 0.0, 1.0).is_err());
        assert!(check_secs("x", 0.5, 0.0, 1.0).is_ok());
        let e = check_count("sbd.n", "N", 11, 10).unwrap_err();
        assert_eq!(e.message, "N must be at most 10, got 11");
    }

    #[test]
    fn every_bound_names_a_field_and_a_reason() {
        for b in ALL {
            assert!(!b.field.is_empty() && !b.limit.is_empty() && !b.why.is_empty());
        }
    }
}
