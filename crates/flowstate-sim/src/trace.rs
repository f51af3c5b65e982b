//! Trace-driven links: `capacity_trace = { file, format, loop }` in `[link]` /
//! `[reverse_link]` (docs/SCENARIOS.md, "Trace-driven links"). Three formats:
//!
//! - `mahimahi`: Mahimahi's packet-delivery traces (`mm-link`, ravinet/mahimahi): one
//!   line per delivery opportunity, an integer time in ms; each opportunity carries up to
//!   [`MAHIMAHI_BYTES`] bytes of queued packets (a packet may span opportunities), an
//!   unused opportunity is lost, and the trace repeats with period = its last time.
//! - `csv`: `time,rate` rows, a piecewise-constant capacity (seconds and bit/s, or the
//!   units a header names: `time_s,rate_Mbps`, `time (ms),rate (kbit/s)`).
//! - `gym-json`: the AlphaRTC / OpenNetLab gym trace (`trace_pattern`: `duration` ms,
//!   `capacity` kbit/s, `loss` %, `rtt` ms, `jitter` ms), a capacity schedule plus
//!   per-segment loss, one-way delay (rtt / 2) and jitter.
//!
//! A parsed trace is a [`LinkTrace`], which the link model ([`crate::link`]) plays; the
//! emulator and the testbed use the same link, so a trace means the same everywhere.
//! Parsing is pure (text in, trace out); errors are one line naming the line.

use flowstate_core::{Bitrate, TimeDelta, Timestamp};
use serde::Deserialize;
use std::path::Path;

/// Bytes one Mahimahi delivery opportunity carries (the README's 1500-byte packet).
pub const MAHIMAHI_BYTES: u64 = 1500;

/// Largest rate a trace may give (bit/s): 1 Pbit/s, far above any link, far below
/// overflow.
pub const MAX_TRACE_BPS: f64 = 1e15;

/// Largest trace file read (bytes): 64 MiB holds a Mahimahi trace of a 100 Mbit/s link
/// for some 20 minutes (8 bytes a line), or a gym trace of a million segments, and keeps a wrong path (a
/// video, a disk image) from filling memory. Counted on the bytes actually read.
pub const MAX_TRACE_BYTES: u64 = 64 << 20;

/// Most points a trace may have (Mahimahi opportunities, csv rows, gym segments):
/// ten minutes of Mahimahi opportunities at 200 Mbit/s, 80 MB of memory for the link.
pub const MAX_TRACE_POINTS: usize = 10_000_000;

/// The format of a trace file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TraceFormat {
    Mahimahi,
    Csv,
    GymJson,
}

impl TraceFormat {
    pub const ALL: [TraceFormat; 3] = [
        TraceFormat::Mahimahi,
        TraceFormat::Csv,
        TraceFormat::GymJson,
    ];

    /// The format `name` names, under the one name rule ([`flowstate_core::names`]:
    /// any case, `_` or `-`).
    pub fn from_name(name: &str) -> Option<Self> {
        flowstate_core::names::find_by_name(Self::ALL, Self::name, name)
    }

    pub fn name(self) -> &'static str {
        match self {
            TraceFormat::Mahimahi => "mahimahi",
            TraceFormat::Csv => "csv",
            TraceFormat::GymJson => "gym-json",
        }
    }
}

impl<'de> Deserialize<'de> for TraceFormat {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = String::deserialize(d)?;
        TraceFormat::from_name(&name).ok_or_else(|| {
            let names: Vec<&str> = TraceFormat::ALL.iter().map(|f| f.name()).collect();
            serde::de::Error::custom(format!(
                "expected one of {}, got \"{name}\"",
                names.join("|")
            ))
        })
    }
}

/// Conditions of one trace segment; `None` keeps the link's own value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Segment {
    /// Start of the segment (within one period).
    pub at: Timestamp,
    pub delay: Option<TimeDelta>,
    pub jitter: Option<TimeDelta>,
    pub loss: Option<f64>,
}

/// A parsed trace: what the link plays.
#[derive(Debug, Clone, PartialEq)]
pub struct LinkTrace {
    pub format: TraceFormat,
    /// Length of one period; the trace repeats with it when `looped`. After the end of
    /// a trace that does not loop, the last rate and segment hold and a Mahimahi link
    /// delivers nothing more.
    pub period: TimeDelta,
    pub looped: bool,
    /// Capacity points `(at, rate)` of one period, the first at 0 (`csv`, `gym-json`).
    /// For `mahimahi`: one point, the mean rate (what a queue limit in time and the
    /// default reverse link use).
    pub rates: Vec<(Timestamp, Bitrate)>,
    /// Mahimahi delivery opportunities of one period, sorted (empty for other formats).
    pub opportunities: Vec<Timestamp>,
    /// Per-segment delay, jitter and loss (`gym-json`; empty otherwise).
    pub segments: Vec<Segment>,
    /// Mean capacity over one period.
    pub mean_rate: Bitrate,
}

/// A trace that cannot be read: `{line}: {message}` (line `None` for the whole file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceError {
    pub line: Option<usize>,
    pub message: String,
}

impl TraceError {
    fn at(line: usize, message: impl Into<String>) -> Self {
        Self {
            line: Some(line),
            message: message.into(),
        }
    }
    fn file(message: impl Into<String>) -> Self {
        Self {
            line: None,
            message: message.into(),
        }
    }
    /// `file: line N: message` (or `file: message`).
    pub fn describe(&self, file: &str) -> String {
        match self.line {
            Some(l) => format!("{file}: line {l}: {}", self.message),
            None => format!("{file}: {}", self.message),
        }
    }
}

impl LinkTrace {
    /// Read and parse `path`: a regular file (a FIFO, a device or a folder is refused
    /// before it is read) of at most [`MAX_TRACE_BYTES`] bytes.
    pub fn load(path: &Path, format: TraceFormat, looped: bool) -> Result<Self, TraceError> {
        let text = read_trace_file(path)?;
        Self::parse(&text, format, looped)
    }

    /// Parse trace text.
    pub fn parse(text: &str, format: TraceFormat, looped: bool) -> Result<Self, TraceError> {
        Self::parse_at_most(text, format, looped, MAX_TRACE_POINTS)
    }

    /// [`LinkTrace::parse`] with at most `max_points` points.
    fn parse_at_most(
        text: &str,
        format: TraceFormat,
        looped: bool,
        max_points: usize,
    ) -> Result<Self, TraceError> {
        match format {
            TraceFormat::Mahimahi => parse_mahimahi(text, looped, max_points),
            TraceFormat::Csv => parse_csv(text, looped, max_points),
            TraceFormat::GymJson => parse_gym(text, looped, max_points),
        }
    }

    /// Whether the link delivers by Mahimahi opportunities.
    pub fn is_delivery(&self) -> bool {
        self.format == TraceFormat::Mahimahi
    }

    /// The unrolled `k`-th opportunity (looping), `None` past the end of a trace that
    /// does not loop.
    pub fn opportunity(&self, k: u64) -> Option<Timestamp> {
        let n = self.opportunities.len() as u64;
        if n == 0 {
            return None;
        }
        if !self.looped {
            return self.opportunities.get(usize::try_from(k).ok()?).copied();
        }
        let cycle = k / n;
        let base = self.period.as_micros().max(0) as u64;
        let t = self.opportunities[(k % n) as usize];
        Some(t + TimeDelta::from_micros(cycle.saturating_mul(base).min(i64::MAX as u64) as i64))
    }

    /// Index of the first opportunity strictly after `t`.
    pub fn first_opportunity_after(&self, t: Timestamp) -> u64 {
        let n = self.opportunities.len() as u64;
        let p = self.period.as_micros().max(0) as u64;
        if !self.looped || p == 0 {
            return self.opportunities.partition_point(|&o| o <= t) as u64;
        }
        let cycle = t.as_micros() / p;
        let r = Timestamp::from_micros(t.as_micros() % p);
        cycle * n + self.opportunities.partition_point(|&o| o <= r) as u64
    }

    /// Number of opportunities in `[from, to)`.
    pub fn opportunities_in(&self, from: Timestamp, to: Timestamp) -> u64 {
        if to <= from {
            return 0;
        }
        let before = |t: Timestamp| {
            // Opportunities strictly before t: those at or before t - 1 us.
            if t == Timestamp::ZERO {
                0
            } else {
                self.first_opportunity_after(Timestamp::from_micros(t.as_micros() - 1))
            }
        };
        before(to).saturating_sub(before(from))
    }

    /// `t` folded into the first period (unchanged when the trace does not loop).
    pub fn fold(&self, t: Timestamp) -> Timestamp {
        let p = self.period.as_micros().max(0) as u64;
        if self.looped && p > 0 {
            Timestamp::from_micros(t.as_micros() % p)
        } else {
            t
        }
    }

    /// The segment in force at `t`, if the trace has segments.
    pub fn segment_at(&self, t: Timestamp) -> Option<&Segment> {
        let f = self.fold(t);
        let i = self.segments.partition_point(|s| s.at <= f);
        self.segments.get(i.checked_sub(1)?)
    }

    /// The trace a default reverse link plays: the forward trace's per-segment delays
    /// only (so the round-trip time is the trace's `rtt`), no capacity changes.
    pub fn delays_only(&self) -> Option<LinkTrace> {
        if !self.segments.iter().any(|s| s.delay.is_some()) {
            return None;
        }
        Some(LinkTrace {
            format: TraceFormat::GymJson,
            period: self.period,
            looped: self.looped,
            rates: vec![(Timestamp::ZERO, self.mean_rate)],
            opportunities: Vec::new(),
            segments: self
                .segments
                .iter()
                .map(|s| Segment {
                    at: s.at,
                    delay: s.delay,
                    jitter: None,
                    loss: None,
                })
                .collect(),
            mean_rate: self.mean_rate,
        })
    }
}

/// The text of the trace file `path` ([`crate::input_file::read_text`]: a regular file
/// of at most [`MAX_TRACE_BYTES`] bytes as read).
fn read_trace_file(path: &Path) -> Result<String, TraceError> {
    crate::input_file::read_text(path, MAX_TRACE_BYTES, "a trace").map_err(TraceError::file)
}

/// The error of a trace with more than `max_points` points ([`MAX_TRACE_POINTS`]).
fn too_many_points(max_points: usize, line: usize, what: &str) -> TraceError {
    TraceError::at(
        line,
        format!("more than {max_points} {what}: the limit of a trace"),
    )
}

/// Lines that carry data: 1-based numbers, comments (`#`) and blanks skipped.
fn data_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines().enumerate().filter_map(|(i, l)| {
        let l = l.split('#').next().unwrap_or("").trim();
        (!l.is_empty()).then_some((i + 1, l))
    })
}

fn parse_mahimahi(text: &str, looped: bool, max_points: usize) -> Result<LinkTrace, TraceError> {
    let mut opps: Vec<Timestamp> = Vec::new();
    let mut last_line = 0;
    for (line, l) in data_lines(text) {
        let ms: u64 = l.parse().map_err(|_| {
            TraceError::at(
                line,
                format!(
                    "expected a whole number of milliseconds (one delivery opportunity), got {l:?}"
                ),
            )
        })?;
        if ms > 1_000_000_000_000 {
            return Err(TraceError::at(
                line,
                format!("{ms} ms is beyond the clock's range"),
            ));
        }
        let t = Timestamp::from_millis(ms);
        if let Some(&prev) = opps.last() {
            if t < prev {
                return Err(TraceError::at(
                    line,
                    format!(
                        "times must not decrease: {ms} ms after {} ms",
                        prev.as_micros() / 1000
                    ),
                ));
            }
        }
        if opps.len() == max_points {
            return Err(too_many_points(max_points, line, "delivery opportunities"));
        }
        opps.push(t);
        last_line = line;
    }
    let Some(&last) = opps.last() else {
        return Err(TraceError::file(
            "no delivery opportunities (an empty trace)",
        ));
    };
    if last == Timestamp::ZERO {
        return Err(TraceError::at(
            last_line,
            "the trace must last a nonzero time (its last opportunity is at 0 ms)",
        ));
    }
    let period = last - Timestamp::ZERO;
    let bits = opps.len() as f64 * (MAHIMAHI_BYTES * 8) as f64;
    let mean = Bitrate::bps(bits / period.as_secs_f64());
    Ok(LinkTrace {
        format: TraceFormat::Mahimahi,
        period,
        looped,
        rates: vec![(Timestamp::ZERO, mean)],
        opportunities: opps,
        segments: Vec::new(),
        mean_rate: mean,
    })
}

/// Seconds per unit of a header's time column and bit/s per unit of its rate column.
fn header_units(line: usize, fields: &[&str]) -> Result<(f64, f64), TraceError> {
    let unit_of = |f: &str| -> Option<String> {
        let f = f.trim();
        if let (Some(a), Some(b)) = (f.find(['(', '[']), f.rfind([')', ']'])) {
            if b > a {
                return Some(f[a + 1..b].trim().to_string());
            }
        }
        f.rsplit_once('_').map(|(_, u)| u.trim().to_string())
    };
    let time = match unit_of(fields[0]) {
        None => 1.0,
        Some(u) => crate::units_parse::parse_secs(&format!("1{u}")).map_err(|_| {
            TraceError::at(
                line,
                format!("header: time unit {u:?} is not one of us, ms, s, min"),
            )
        })?,
    };
    let rate = match unit_of(fields[1]) {
        None => 1.0,
        Some(u) => crate::units_parse::parse_bps(&format!("1{u}")).map_err(|_| {
            TraceError::at(
                line,
                format!("header: rate unit {u:?} is not a bit rate unit (bps, kbps, Mbps, Gbps, Bps, kBps, MBps, ...)"),
            )
        })?,
    };
    Ok((time, rate))
}

fn split_fields(l: &str) -> Vec<&str> {
    if l.contains(',') {
        l.split(',').map(str::trim).collect()
    } else {
        l.split_whitespace().collect()
    }
}

fn parse_csv(text: &str, looped: bool, max_points: usize) -> Result<LinkTrace, TraceError> {
    let mut units = (1.0, 1.0);
    let mut rows: Vec<(f64, f64, usize)> = Vec::new();
    for (n, (line, l)) in data_lines(text).enumerate() {
        let fields = split_fields(l);
        if fields.len() != 2 {
            return Err(TraceError::at(
                line,
                format!(
                    "expected two fields, time,rate; got {} in {l:?}",
                    fields.len()
                ),
            ));
        }
        let nums = (fields[0].parse::<f64>(), fields[1].parse::<f64>());
        let (Ok(t), Ok(r)) = nums else {
            if n == 0 && nums.0.is_err() {
                units = header_units(line, &fields)?;
                continue;
            }
            return Err(TraceError::at(
                line,
                format!("expected numbers time,rate; got {l:?}"),
            ));
        };
        let (t, r) = (t * units.0, r * units.1);
        if !(0.0..=crate::units_parse::MAX_DURATION_SECS).contains(&t) {
            return Err(TraceError::at(
                line,
                format!("time must be >= 0 s and <= 1e12 s, got {t} s"),
            ));
        }
        if !(0.0..=MAX_TRACE_BPS).contains(&r) {
            return Err(TraceError::at(
                line,
                format!("rate must be >= 0 and <= {MAX_TRACE_BPS:e} bit/s, got {r} bit/s"),
            ));
        }
        if let Some(&(prev, _, _)) = rows.last() {
            if t <= prev {
                return Err(TraceError::at(
                    line,
                    format!("times must increase: {t} s after {prev} s"),
                ));
            }
        }
        if rows.len() == max_points {
            return Err(too_many_points(max_points, line, "rows"));
        }
        rows.push((t, r, line));
    }
    if rows.is_empty() {
        return Err(TraceError::file("no time,rate rows (an empty trace)"));
    }
    // Times count from the first row; the last row lasts as long as the interval before
    // it (the trace's sampling period), which is where a looped trace restarts.
    let t0 = rows[0].0;
    let n = rows.len();
    let last_len = if n >= 2 {
        rows[n - 1].0 - rows[n - 2].0
    } else {
        1.0
    };
    let end = rows[n - 1].0 - t0 + last_len;
    let to_ts = |s: f64| Timestamp::from_micros((s * 1e6).round() as u64);
    let rates: Vec<(Timestamp, Bitrate)> = rows
        .iter()
        .map(|&(t, r, _)| (to_ts(t - t0), Bitrate::bps(r)))
        .collect();
    for w in rates.windows(2).zip(rows.iter().skip(1)) {
        if w.0[1].0 <= w.0[0].0 {
            return Err(TraceError::at(
                w.1 .2,
                "less than 1 us after the previous row (the clock's resolution)",
            ));
        }
    }
    rate_trace(
        TraceFormat::Csv,
        rates,
        Vec::new(),
        to_ts(end) - Timestamp::ZERO,
        looped,
    )
    .map_err(|m| TraceError::at(rows[n - 1].2, m))
}

fn rate_trace(
    format: TraceFormat,
    rates: Vec<(Timestamp, Bitrate)>,
    segments: Vec<Segment>,
    period: TimeDelta,
    looped: bool,
) -> Result<LinkTrace, String> {
    let end = Timestamp::ZERO + period;
    let mut bits = 0.0;
    for (i, &(at, r)) in rates.iter().enumerate() {
        let until = rates.get(i + 1).map_or(end, |p| p.0);
        bits += r.as_bps() * (until.saturating_since(at)).as_secs_f64();
    }
    let mean = Bitrate::bps(bits / period.as_secs_f64().max(1e-6));
    if mean.as_bps() <= 0.0 {
        return Err("the trace has no capacity at all (every rate is 0)".into());
    }
    Ok(LinkTrace {
        format,
        period,
        looped,
        rates,
        opportunities: Vec::new(),
        segments,
        mean_rate: mean,
    })
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GymSegment {
    /// Milliseconds.
    duration: f64,
    /// kbit/s.
    capacity: f64,
    /// Percent.
    loss: Option<f64>,
    /// Milliseconds (round trip; the link's one-way delay is half).
    rtt: Option<f64>,
    /// Milliseconds.
    jitter: Option<f64>,
    /// Start time in the file (informational; segments follow each other).
    #[allow(dead_code)]
    time: Option<f64>,
}

#[derive(Deserialize)]
struct GymDirection {
    #[serde(default)]
    trace_pattern: Vec<GymSegment>,
}

#[derive(Deserialize)]
struct GymFile {
    #[serde(default)]
    trace_pattern: Option<Vec<GymSegment>>,
    uplink: Option<GymDirection>,
    downlink: Option<GymDirection>,
    #[allow(dead_code)]
    #[serde(rename = "type")]
    kind: Option<String>,
}

/// Lines (1-based) of the `"duration"` keys, in order: where each segment's error
/// points. One pass over the text.
fn gym_segment_lines(text: &str) -> Vec<usize> {
    let mut lines = Vec::new();
    let (mut line, mut counted) = (1, 0);
    for (pos, _) in text.match_indices("\"duration\"") {
        line += text[counted..pos].matches('\n').count();
        counted = pos;
        lines.push(line);
    }
    lines
}

fn parse_gym(text: &str, looped: bool, max_points: usize) -> Result<LinkTrace, TraceError> {
    let file: GymFile = serde_json::from_str(text).map_err(|e| {
        let msg = e.to_string();
        let msg = msg.split(" at line ").next().unwrap_or(&msg).to_string();
        TraceError::at(e.line().max(1), msg)
    })?;
    let pattern = match (file.trace_pattern, file.uplink, file.downlink) {
        (Some(p), _, _) => p,
        (None, Some(u), _) if !u.trace_pattern.is_empty() => u.trace_pattern,
        (None, _, Some(d)) => d.trace_pattern,
        _ => Vec::new(),
    };
    if pattern.is_empty() {
        return Err(TraceError::file(
            "no trace_pattern entries (top level, uplink or downlink)",
        ));
    }
    let lines = gym_segment_lines(text);
    let line_of = |i: usize| lines.get(i).copied().unwrap_or(1);
    if pattern.len() > max_points {
        return Err(too_many_points(max_points, line_of(max_points), "segments"));
    }
    let mut rates = Vec::with_capacity(pattern.len());
    let mut segments = Vec::with_capacity(pattern.len());
    let mut at_ms = 0.0f64;
    let ms = |x: f64| TimeDelta::from_micros((x * 1000.0).round() as i64);
    for (i, s) in pattern.iter().enumerate() {
        let line = line_of(i);
        let bad = |m: String| TraceError::at(line, format!("trace_pattern[{i}]: {m}"));
        if !(s.duration.is_finite() && s.duration >= 0.001) {
            return Err(bad(format!(
                "duration must be >= 0.001 ms, got {}",
                s.duration
            )));
        }
        if !(0.0..=MAX_TRACE_BPS / 1e3).contains(&s.capacity) {
            return Err(bad(format!(
                "capacity must be >= 0 and <= {:e} kbit/s, got {}",
                MAX_TRACE_BPS / 1e3,
                s.capacity
            )));
        }
        if let Some(l) = s.loss {
            if !(0.0..100.0).contains(&l) {
                return Err(bad(format!(
                    "loss must be a percentage in [0, 100), got {l}"
                )));
            }
        }
        for (name, v) in [("rtt", s.rtt), ("jitter", s.jitter)] {
            if let Some(v) = v {
                if !(v.is_finite() && (0.0..=1e9).contains(&v)) {
                    return Err(bad(format!("{name} must be >= 0 ms, got {v}")));
                }
            }
        }
        let at = Timestamp::ZERO + ms(at_ms);
        rates.push((at, Bitrate::bps(s.capacity * 1000.0)));
        segments.push(Segment {
            at,
            delay: s.rtt.map(|r| ms(r / 2.0)),
            jitter: s.jitter.map(ms),
            loss: s.loss.map(|l| l / 100.0),
        });
        at_ms += s.duration;
        if at_ms > crate::units_parse::MAX_DURATION_SECS * 1e3 {
            return Err(bad("the trace is longer than the clock's range".into()));
        }
    }
    let last = line_of(pattern.len() - 1);
    rate_trace(TraceFormat::GymJson, rates, segments, ms(at_ms), looped)
        .map_err(|m| TraceError::at(last, m))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mahimahi_parses_opportunities_and_period() {
        let t = LinkTrace::parse("# a comment\n1\n1\n3\n\n10\n", TraceFormat::Mahimahi, true)
            .expect("valid");
        assert_eq!(t.opportunities.len(), 4);
        assert_eq!(t.period, TimeDelta::millis(10));
        // 4 x 1500 B in 10 ms = 4.8 Mbit/s.
        assert!((t.mean_rate.as_bps() - 4.8e6).abs() < 1e-6);
        // Unrolled: 1, 1, 3, 10, 11, 11, 13, 20, ...
        let ms: Vec<u64> = (0..8)
            .map(|k| t.opportunity(k).expect("looped").as_micros() / 1000)
            .collect();
        assert_eq!(ms, vec![1, 1, 3, 10, 11, 11, 13, 20]);
        assert_eq!(t.first_opportunity_after(Timestamp::from_millis(1)), 2);
        assert_eq!(t.first_opportunity_after(Timestamp::from_millis(10)), 4);
        assert_eq!(t.first_opportunity_after(Timestamp::ZERO), 0);
        assert_eq!(
            t.opportunities_in(Timestamp::ZERO, Timestamp::from_millis(20)),
            7
        );
        let once = LinkTrace::parse("1\n2\n", TraceFormat::Mahimahi, false).expect("valid");
        assert_eq!(once.opportunity(2), None);
        assert_eq!(once.first_opportunity_after(Timestamp::from_millis(5)), 2);
    }

    #[test]
    fn mahimahi_errors_name_the_line() {
        let e = LinkTrace::parse("1\n2\nx\n", TraceFormat::Mahimahi, true).unwrap_err();
        assert_eq!(e.line, Some(3));
        assert!(e
            .describe("t.down")
            .starts_with("t.down: line 3: expected a whole number"));
        let e = LinkTrace::parse("5\n3\n", TraceFormat::Mahimahi, true).unwrap_err();
        assert_eq!(e.line, Some(2));
        assert!(e.message.contains("must not decrease"), "{}", e.message);
        let e = LinkTrace::parse("0\n0\n", TraceFormat::Mahimahi, true).unwrap_err();
        assert!(e.message.contains("nonzero"), "{}", e.message);
        let e = LinkTrace::parse("\n# nothing\n", TraceFormat::Mahimahi, true).unwrap_err();
        assert_eq!(e.line, None);
        let e = LinkTrace::parse("1.5\n", TraceFormat::Mahimahi, true).unwrap_err();
        assert_eq!(e.line, Some(1));
    }

    #[test]
    fn csv_with_and_without_header() {
        let t =
            LinkTrace::parse("0,1000000\n1,2000000\n2,0\n", TraceFormat::Csv, true).expect("valid");
        assert_eq!(
            t.rates,
            vec![
                (Timestamp::ZERO, Bitrate::mbps(1.0)),
                (Timestamp::from_secs(1), Bitrate::mbps(2.0)),
                (Timestamp::from_secs(2), Bitrate::ZERO),
            ]
        );
        // The last row lasts one sampling interval: period 3 s, mean 1 Mbit/s.
        assert_eq!(t.period, TimeDelta::secs(3));
        assert!((t.mean_rate.as_mbps() - 1.0).abs() < 1e-9);
        // A header names units; whitespace-separated rows (Pensieve's files) too;
        // times count from the first row.
        let h = LinkTrace::parse(
            "time (ms),rate (Mbit/s)\n500,1.5\n1500,3\n",
            TraceFormat::Csv,
            false,
        )
        .expect("valid");
        assert_eq!(h.rates[1], (Timestamp::from_secs(1), Bitrate::mbps(3.0)));
        let p = LinkTrace::parse(
            "time_s rate_Mbps\n0.0 1.25\n1.0 0.5\n",
            TraceFormat::Csv,
            true,
        )
        .expect("valid");
        assert_eq!(p.rates[0].1, Bitrate::mbps(1.25));
        // b is a bit, B a byte in a header as anywhere.
        let b = LinkTrace::parse("time_s,rate_kBps\n0,1\n", TraceFormat::Csv, true).expect("valid");
        assert_eq!(b.rates[0].1, Bitrate::kbps(8.0));
    }

    #[test]
    fn csv_errors_name_the_line() {
        for (text, line, needle) in [
            ("0,1e6\n1,x\n", 2, "expected numbers"),
            ("0,1e6\n0,2e6\n", 2, "must increase"),
            ("0,1e6\n1,-5\n", 2, "rate must be >= 0"),
            ("0,1e6\n1,1e300\n", 2, "rate must be >= 0 and <= 1e15"),
            ("0,1e6\n1,nan\n", 2, "rate must be >= 0"),
            ("0,1e6\ninf,5\n", 2, "time must be >= 0"),
            ("0,1e6,3\n", 1, "two fields"),
            ("time_s,rate_furlongs\n0,1\n", 1, "not a bit rate unit"),
            ("0,0\n1,0\n", 2, "no capacity"),
        ] {
            let e = LinkTrace::parse(text, TraceFormat::Csv, true).unwrap_err();
            assert_eq!(e.line, Some(line), "{text:?}: {e:?}");
            assert!(e.message.contains(needle), "{text:?}: {}", e.message);
        }
    }

    #[test]
    fn gym_json_segments() {
        let text = r#"{"type": "video", "downlink": {}, "uplink": {"trace_pattern": [
            {"duration": 2000, "capacity": 1000, "loss": 1, "rtt": 80, "jitter": 5, "time": 0.0},
            {"duration": 1000, "capacity": 250}
        ]}}"#;
        let t = LinkTrace::parse(text, TraceFormat::GymJson, true).expect("valid");
        assert_eq!(t.period, TimeDelta::secs(3));
        assert_eq!(t.rates[1], (Timestamp::from_secs(2), Bitrate::kbps(250.0)));
        let s = t.segment_at(Timestamp::from_millis(3500)).expect("looped");
        assert_eq!(s.delay, Some(TimeDelta::millis(40)));
        assert_eq!(s.jitter, Some(TimeDelta::millis(5)));
        assert_eq!(s.loss, Some(0.01));
        let s = t.segment_at(Timestamp::from_millis(2500)).expect("second");
        assert_eq!((s.delay, s.loss), (None, None));
        // (2 s x 1000 + 1 s x 250) / 3 s = 750 kbit/s.
        assert!((t.mean_rate.as_bps() - 750e3).abs() < 1e-6);
        let d = t.delays_only().expect("has delays");
        assert_eq!(d.segments[0].jitter, None);
        let top = LinkTrace::parse(
            r#"{"trace_pattern": [{"duration": 10, "capacity": 5}]}"#,
            TraceFormat::GymJson,
            false,
        )
        .expect("valid");
        assert_eq!(top.rates.len(), 1);
    }

    #[test]
    fn gym_json_errors_name_the_line() {
        let e = LinkTrace::parse(
            "{\n\"trace_pattern\": [\n{\"duration\": 10, \"capacity\": 5,}\n]}",
            TraceFormat::GymJson,
            true,
        )
        .unwrap_err();
        assert_eq!(e.line, Some(3), "{e:?}");
        let e = LinkTrace::parse(
            "{\"trace_pattern\": [\n{\"duration\": 10, \"capacity\": 5},\n{\"duration\": 10, \"capacity\": -1}]}",
            TraceFormat::GymJson,
            true,
        )
        .unwrap_err();
        assert_eq!(e.line, Some(3), "{e:?}");
        assert!(
            e.message.contains("trace_pattern[1]: capacity"),
            "{}",
            e.message
        );
        let e = LinkTrace::parse("{\"uplink\": {}}", TraceFormat::GymJson, true).unwrap_err();
        assert!(e.message.contains("no trace_pattern"), "{}", e.message);
        let e = LinkTrace::parse(
            "{\"trace_pattern\": [{\"duration\": 10, \"capacity\": 5, \"bandwidth\": 3}]}",
            TraceFormat::GymJson,
            true,
        )
        .unwrap_err();
        assert!(e.message.contains("bandwidth"), "{}", e.message);
    }

    #[cfg(unix)]
    #[test]
    fn a_trace_must_be_a_regular_file() {
        // crate::input_file's tests cover FIFOs, the byte limit and non-blocking opens.
        let e = LinkTrace::load(Path::new("/dev/zero"), TraceFormat::Csv, true).unwrap_err();
        assert_eq!(e.message, "is a device; a trace must be a regular file");
        assert_eq!(e.line, None);
    }

    #[test]
    fn point_counts_are_bounded() {
        let gym = r#"{"trace_pattern": [
            {"duration": 10, "capacity": 5},
            {"duration": 10, "capacity": 5},
            {"duration": 10, "capacity": 5}]}"#;
        for (format, text, line, what) in [
            (
                TraceFormat::Mahimahi,
                "1\n2\n3\n",
                3,
                "delivery opportunities",
            ),
            (
                TraceFormat::Csv,
                "time_s,rate_Mbps\n0,1\n1,2\n2,3\n",
                4,
                "rows",
            ),
            (TraceFormat::GymJson, gym, 4, "segments"),
        ] {
            LinkTrace::parse_at_most(text, format, true, 3).expect("at the limit");
            let e = LinkTrace::parse_at_most(text, format, true, 2).unwrap_err();
            assert_eq!(e.line, Some(line), "{format:?}: {e:?}");
            assert_eq!(
                e.message,
                format!("more than 2 {what}: the limit of a trace"),
                "{format:?}"
            );
        }
    }

    #[test]
    fn gym_json_parses_in_linear_time() {
        // 40,000 segments, about 3.5 MB: re-scanning the text for each segment's line
        // took minutes for this; one pass takes well under a second.
        let mut text = String::from("{\"trace_pattern\": [\n");
        for k in 0..40_000 {
            text.push_str(&format!(
                "{{\"duration\": 200, \"capacity\": {}, \"loss\": 0, \"rtt\": 40, \"jitter\": 0, \"time\": 0.0}},\n",
                1000 + k % 7
            ));
        }
        text.push_str("{\"duration\": 200, \"capacity\": 5}\n]}");
        assert!(text.len() > 3_000_000, "{}", text.len());
        let started = std::time::Instant::now();
        let t = LinkTrace::parse(&text, TraceFormat::GymJson, true).expect("valid");
        assert_eq!(t.segments.len(), 40_001);
        let took = started.elapsed();
        assert!(took.as_secs_f64() < 10.0, "{took:?}");
        // Errors still name the segment's line.
        let bad = text.replacen("\"capacity\": 5}", "\"capacity\": -5}", 1);
        let e = LinkTrace::parse(&bad, TraceFormat::GymJson, true).unwrap_err();
        assert_eq!(e.line, Some(40_002), "{e:?}");
    }
}
