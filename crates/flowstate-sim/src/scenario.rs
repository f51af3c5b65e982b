//! Scenario files (TOML; schema in docs/SCENARIOS.md), parsed strictly: unknown keys,
//! missing fields, wrong units and impossible values are rejected with one line that
//! names the file and the field, e.g.
//! `scenario.toml: flows[1].start: must be >= 0 s, got -3 s`.

pub use crate::error::ScenarioError;
use crate::error::{join_path, missing_field};
pub use crate::flow_spec::{
    AppSource, DirectionSpec, FlowKind, FlowSpec, PauseSpec, PriorityPoint, RatePoint, SOURCES,
};
use crate::queue_spec::QueueField;
use crate::sbd::GroupsMode;
use crate::trace::{LinkTrace, TraceFormat};
use crate::units_parse::{Bps, Secs};
use flowstate_core::coupling::Mechanism;
use flowstate_core::sbd::SbdConfig;
use serde::Deserialize;
use std::path::Path;
use std::sync::Arc;

/// Coupling mechanisms a scenario may name.
pub const MECHANISMS: &[&str] = &Mechanism::NAMES;

/// `[link]` and `[reverse_link]` (the dumbbell), a `[[links]]` entry (a named link)
/// or `parking_lot.link` (every hop of a parking lot).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    /// A `[[links]]` entry's name, which routes use (required there, refused elsewhere).
    pub name: Option<String>,
    /// Constant capacity (exclusive with `capacity_schedule`).
    pub capacity: Option<Bps>,
    /// Capacity over time: first point at 0 s, times increasing.
    pub capacity_schedule: Option<Vec<RatePoint>>,
    /// Capacity (and, for `gym-json`, loss, delay and jitter) from a trace file
    /// (exclusive with `capacity` and `capacity_schedule`; crate::trace).
    pub capacity_trace: Option<TraceSpec>,
    /// The parsed `capacity_trace`, read by [`Scenario::from_toml`] /
    /// [`Scenario::load_traces`].
    #[serde(skip)]
    pub trace: Option<Arc<LinkTrace>>,
    /// One-way propagation delay.
    pub delay: Secs,
    /// A drop-tail limit: `"300ms"` (at the current rate), `"62pkt"`, `"75kB"`; or a
    /// table naming the queue discipline and its parameters (crate::queue_spec).
    pub queue: QueueField,
    /// RFC 8868 jitter standard deviation (truncated at 3 sigma, no reordering).
    pub jitter: Option<Secs>,
    /// Random loss probability in [0, 1).
    pub loss: Option<f64>,
}

/// `capacity_trace = { file, format, loop }`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraceSpec {
    /// The trace file; a relative path is relative to the scenario file's folder.
    pub file: String,
    pub format: TraceFormat,
    /// Repeat the trace at its end (default true).
    #[serde(rename = "loop")]
    pub looped: Option<bool>,
}

/// `[coupling]`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CouplingSpec {
    /// Default `"none"` (a `[coupling]` section that only sets `groups` or `options`).
    #[serde(default = "no_mechanism")]
    pub mechanism: String,
    #[serde(default)]
    pub options: toml::Table,
    /// Which flows are coupled together: `"static"` (default: the flows' `group`
    /// fields) or `"sbd"` (RFC 8382 shared bottleneck detection's verdicts as they
    /// change; crate::sbd).
    pub groups: Option<String>,
    /// `mechanism = "python"`: the coupling rule's class, `"module:Class"` or
    /// `"file.py:Class"` (crate::coupling_rule).
    pub rule: Option<String>,
    /// `mechanism = "python"`: the keyword arguments of the rule's constructor.
    #[serde(default)]
    pub params: toml::Table,
    /// `mechanism = "python"`: what GCC flows report to the rule, `"target"`
    /// (min(A_s, A_r), the default) or `"delay-based"` (A_r, as under FSE and FSE-NG;
    /// paper 000 V-B3).
    pub gcc_report: Option<String>,
}

fn no_mechanism() -> String {
    "none".to_string()
}

/// The scenario name of the mechanism written `name`, under the one name rule
/// ([`flowstate_core::names`]): a manager mechanism (any of its spellings, `FSEv2`,
/// `FSE-NG`, ...), the simulator's own `web-api`, or `python` (a coupling rule
/// written in Python, crate::coupling_rule).
pub fn mechanism_name(name: &str) -> Option<&'static str> {
    Mechanism::canonical_name(name).or_else(|| {
        [crate::web_api::MECHANISM, crate::coupling_rule::MECHANISM]
            .into_iter()
            .find(|m| flowstate_core::names::same_name(name, m))
    })
}

impl CouplingSpec {
    /// `gcc_report`, read (`None`: unset or not a known name; validation rejects the
    /// latter).
    pub fn gcc_report_mode(&self) -> Option<flowstate_core::coupling::RateReportMode> {
        crate::coupling_rule::gcc_report_mode(self.gcc_report.as_deref()?)
    }

    /// `groups`, read (`None`: not a known name; validation rejects it).
    pub fn groups_mode(&self) -> Option<GroupsMode> {
        self.groups
            .as_deref()
            .map_or(Some(GroupsMode::Static), GroupsMode::from_name)
    }
}

/// `[sbd]`: run RFC 8382 shared bottleneck detection in the flows (receiver
/// statistics, feedback, the senders' grouping; crate::sbd). Every field defaults to
/// RFC 8382 Table 1 (section 2.2).
#[derive(Debug, Clone, PartialEq, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct SbdSpec {
    /// T, the base interval (350 ms).
    pub base_interval: Option<Secs>,
    /// N, M, F: base intervals of pkt_loss (50), of mean_delay / skew_est / var_est
    /// (30) and of freq_est (20).
    pub n: Option<usize>,
    pub m: Option<usize>,
    pub f: Option<usize>,
    pub c_s: Option<f64>,
    pub c_h: Option<f64>,
    pub p_s: Option<f64>,
    pub p_f: Option<f64>,
    pub p_mad: Option<f64>,
    pub p_d: Option<f64>,
    pub p_l: Option<f64>,
    pub p_v: Option<f64>,
    /// RFC 8382 3.4.1 (default true).
    pub remove_oscillation_noise: Option<bool>,
    /// The reference script's reading of steps 4 and 5 (default false).
    pub loss_replaces_skew: Option<bool>,
}

impl SbdSpec {
    /// The parameters, RFC 8382's defaults where the section is silent (not yet
    /// validated: [`SbdConfig::validated`]).
    pub fn config(&self) -> SbdConfig {
        let d = SbdConfig::default();
        SbdConfig {
            t: self
                .base_interval
                .map_or(d.t, |s| flowstate_core::TimeDelta::from_secs_f64(s.0)),
            n: self.n.unwrap_or(d.n),
            m: self.m.unwrap_or(d.m),
            f: self.f.unwrap_or(d.f),
            c_s: self.c_s.unwrap_or(d.c_s),
            c_h: self.c_h.unwrap_or(d.c_h),
            p_s: self.p_s.unwrap_or(d.p_s),
            p_f: self.p_f.unwrap_or(d.p_f),
            p_mad: self.p_mad.unwrap_or(d.p_mad),
            p_d: self.p_d.unwrap_or(d.p_d),
            p_l: self.p_l.unwrap_or(d.p_l),
            p_v: self.p_v.unwrap_or(d.p_v),
            remove_oscillation_noise: self
                .remove_oscillation_noise
                .unwrap_or(d.remove_oscillation_noise),
            loss_replaces_skew: self.loss_replaces_skew.unwrap_or(d.loss_replaces_skew),
        }
    }
}

pub use crate::units_parse::MAX_DURATION_SECS;

/// A time in seconds as the simulator's clock holds it: whole microseconds.
pub(crate) fn micros(secs: f64) -> f64 {
    (secs * 1e6).round()
}

/// [`Scenario::warnings`]: a one-way delay above this (seconds) is almost surely a
/// time written in the wrong unit (a satellite hop is 0.25-0.3 s).
pub const WARN_MAX_DELAY_SECS: f64 = 1.0;
/// [`Scenario::warnings`]: capacities outside this range (bit/s) are almost surely a
/// rate in the wrong unit.
pub const WARN_CAPACITY_BPS: (f64, f64) = (10e3, 100e9);
/// [`Scenario::warnings`]: a run shorter than this (seconds) ends before any
/// congestion controller leaves its start-up.
pub const WARN_MIN_DURATION_SECS: f64 = 1.0;

/// Largest `count` a flow may ask for.
pub const MAX_FLOW_COUNT: u32 = 10_000;

/// `[measure]`.
#[derive(Debug, Clone, PartialEq, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct MeasureSpec {
    /// Start of the summary window (default 0).
    pub start: Option<Secs>,
    /// End of the summary window (default: the duration).
    pub end: Option<Secs>,
    /// Time-series bin (default 500 ms).
    pub bin: Option<Secs>,
    /// Keep the full packet trace.
    pub trace: Option<bool>,
    /// Keep the time series (default true); false: the summary only, memory flat in
    /// the run's length.
    pub series: Option<bool>,
    /// Compute the run's trace hash (default true); false: no fingerprint, less work.
    pub trace_hash: Option<bool>,
    /// Record the trace hash and the window histograms on a helper thread: "auto"
    /// (default: from 256 flows on), "on" or "off" (crate::recorder; same results).
    pub recorder_thread: Option<crate::metrics::RecorderThread>,
}

/// A whole scenario, validated.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    pub name: String,
    pub duration: Secs,
    /// Default seed (a run's seed argument overrides it).
    pub seed: Option<u64>,
    /// The dumbbell's forward bottleneck (exclusive with `links` and `parking_lot`).
    pub link: Option<LinkSpec>,
    pub reverse_link: Option<LinkSpec>,
    /// Named links that flows' routes cross (crate::topology).
    #[serde(default)]
    pub links: Vec<LinkSpec>,
    /// Bottlenecks in series, generated as named links `hop1` .. `hopN`.
    pub parking_lot: Option<ParkingLotSpec>,
    pub coupling: Option<CouplingSpec>,
    /// Shared bottleneck detection (RFC 8382) in the flows; `coupling.groups = "sbd"`
    /// runs it with the defaults when this section is absent.
    pub sbd: Option<SbdSpec>,
    #[serde(default)]
    pub flows: Vec<FlowSpec>,
    #[serde(default)]
    pub measure: MeasureSpec,
    /// `[browser]`: what `flowstate browser` gives real Chromium; the simulator reads
    /// nothing from it (docs/BROWSER.md, "L4S: SCReAM v2 in Chromium").
    pub browser: Option<BrowserSpec>,
}

/// `[browser]`: settings of the real browsers of `flowstate browser`, which checks them
/// (python/flowstate/browser/plan.py); a simulation ignores them.
#[derive(Debug, Clone, PartialEq, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct BrowserSpec {
    /// Chromium field trials, each `"Name/Group"` (the group may carry parameters:
    /// `"WebRTC-Bwe-ScreamV2/Enabled,MinRefWindow:100"`), given to both browsers in
    /// `--force-fieldtrials`.
    #[serde(default)]
    pub field_trials: Vec<String>,
}

/// `[parking_lot]`: `hops` identical links in series (RFC 8867's "Wish List" section:
/// "several bottlenecks in series"), named `hop1` .. `hop<hops>`, before any
/// `[[links]]`. Flows cross one or more of them (`hops = [first, last]` or a `route`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ParkingLotSpec {
    /// How many bottlenecks (1 ..= [`crate::topology::MAX_LINKS`]).
    pub hops: u32,
    /// Every hop's link (capacity, delay, queue, jitter, loss; no `name`).
    pub link: LinkSpec,
    /// Per-hop capacities (`hops` of them) instead of `link.capacity`.
    pub capacities: Option<Vec<Bps>>,
}

/// The name of a parking lot's hop `k` (1-based).
pub fn hop_name(k: u32) -> String {
    format!("hop{k}")
}

/// The top-level keys that hold one table (`[sbd]`), not an array of tables.
const TABLE_KEYS: [&str; 7] = [
    "link",
    "reverse_link",
    "coupling",
    "sbd",
    "parking_lot",
    "measure",
    "browser",
];

/// The key of an error at `path` (`sbd[0]`, `sbd[0].n`) when a table was written as an
/// array of tables (`[[sbd]]`), which serde reports as a type error inside the first
/// entry.
fn table_written_as_array(path: &str) -> Option<&'static str> {
    let (key, rest) = path.split_once('[')?;
    let index = rest.split(']').next()?;
    let is_index = !index.is_empty() && index.bytes().all(|b| b.is_ascii_digit());
    TABLE_KEYS
        .into_iter()
        .find(|&k| k == key)
        .filter(|_| is_index)
}

/// serde's message for a count written wrong ("invalid value: integer `-1`, expected
/// usize") in the words of the rest of the scenario's messages ("expected a whole
/// number >= 0, got -1"); any other message as it is.
fn plain_message(message: &str) -> String {
    const UNSIGNED: [&str; 5] = ["usize", "u64", "u32", "u16", "u8"];
    let Some((what, expected)) = message.rsplit_once(", expected ") else {
        return message.to_string();
    };
    if !UNSIGNED.contains(&expected) {
        return message.to_string();
    }
    let got = what
        .strip_prefix("invalid value: ")
        .or_else(|| what.strip_prefix("invalid type: "))
        .unwrap_or(what);
    let got = match got.split_once('`') {
        Some((_, rest)) => rest.trim_end_matches('`'),
        None => got,
    };
    format!("expected a whole number >= 0, got {got}")
}

/// Line number (1-based) of byte offset `pos` in `text`.
fn line_of(text: &str, pos: usize) -> usize {
    text.get(..pos).map_or(0, |t| t.matches('\n').count()) + 1
}

impl Scenario {
    /// This scenario as one of several runs sharing the machine's cores (a pool of
    /// runs): `[measure] recorder_thread` "auto" (or unset) becomes "off", because the
    /// recorder's helper thread would compete with the other runs for the cores (two
    /// 1,000-flow runs side by side on two cores took 15-30 % longer with it:
    /// docs/investigations/2026-11-scaling-passes.md). An explicit "on" stays. Results do not change.
    pub fn sharing_cores(mut self) -> Self {
        use crate::metrics::RecorderThread;
        if matches!(
            self.measure.recorder_thread,
            None | Some(RecorderThread::Auto)
        ) {
            self.measure.recorder_thread = Some(RecorderThread::Off);
        }
        self
    }

    /// Parse and validate `text`; `file` names the source in error messages. Trace
    /// files are read relative to `file`'s folder when `file` is a file, else relative
    /// to the current folder.
    pub fn from_toml(text: &str, file: &str) -> Result<Scenario, ScenarioError> {
        let path = Path::new(file);
        let base = match path.parent() {
            Some(dir) if path.is_file() => dir,
            _ => Path::new(""),
        };
        Self::from_toml_in(text, file, base)
    }

    /// [`Scenario::from_toml`] with trace files read relative to `base`.
    pub fn from_toml_in(text: &str, file: &str, base: &Path) -> Result<Scenario, ScenarioError> {
        let de = toml::de::Deserializer::parse(text).map_err(|e| ScenarioError {
            file: file.to_string(),
            field: e.span().map_or_else(
                || "syntax".to_string(),
                |s| format!("line {}", line_of(text, s.start)),
            ),
            message: e.message().trim().replace('\n', " "),
        })?;
        let mut scenario: Scenario = serde_path_to_error::deserialize(de).map_err(|e| {
            let path = e.path().to_string();
            if let Some(key) = table_written_as_array(&path) {
                return ScenarioError {
                    file: file.to_string(),
                    field: key.to_string(),
                    message: format!("`{key}` is a table: write [{key}], not [[{key}]]"),
                };
            }
            let inner = e.into_inner();
            if let Some(missing) = missing_field(inner.message()) {
                return ScenarioError {
                    file: file.to_string(),
                    field: join_path(&path, missing),
                    message: "required field is missing".to_string(),
                };
            }
            let field = if path == "." {
                inner.span().map_or_else(
                    || "(top level)".to_string(),
                    |s| format!("line {}", line_of(text, s.start)),
                )
            } else {
                path
            };
            ScenarioError {
                file: file.to_string(),
                field,
                message: plain_message(inner.message().trim()).replace('\n', " "),
            }
        })?;
        // Any spelling of a mechanism's name ("FSEv2", "None") becomes its scenario
        // name here, so that everything after sees one name.
        if let Some(c) = scenario.coupling.as_mut() {
            if let Some(name) = mechanism_name(&c.mechanism) {
                c.mechanism = name.to_string();
            }
        }
        scenario.load_traces(base, file)?;
        scenario.validate(file)?;
        let expanded = scenario.expand_counts();
        if expanded.flows.len() != scenario.flows.len() {
            expanded.validate(file)?;
        }
        Ok(expanded)
    }

    /// The SBD parameters when the scenario runs shared bottleneck detection (an
    /// `[sbd]` section, or `coupling.groups = "sbd"`).
    pub fn sbd_config(&self) -> Option<SbdConfig> {
        let follows =
            self.coupling.as_ref().and_then(CouplingSpec::groups_mode) == Some(GroupsMode::Sbd);
        match &self.sbd {
            Some(spec) => Some(spec.config()),
            None if follows => Some(SbdConfig::default()),
            None => None,
        }
    }

    /// `coupling.groups` (static without a `[coupling]` section).
    pub fn groups_mode(&self) -> GroupsMode {
        self.coupling
            .as_ref()
            .and_then(CouplingSpec::groups_mode)
            .unwrap_or_default()
    }

    /// Read the `capacity_trace` of `[link]` and `[reverse_link]` (relative paths from
    /// `base`); errors name the scenario `file`, the field, the trace file and its line.
    pub fn load_traces(&mut self, base: &Path, file: &str) -> Result<(), ScenarioError> {
        let mut links: Vec<(String, &mut LinkSpec)> = Vec::new();
        if let Some(l) = self.link.as_mut() {
            links.push(("link".into(), l));
        }
        if let Some(l) = self.reverse_link.as_mut() {
            links.push(("reverse_link".into(), l));
        }
        if let Some(p) = self.parking_lot.as_mut() {
            links.push(("parking_lot.link".into(), &mut p.link));
        }
        for (k, l) in self.links.iter_mut().enumerate() {
            links.push((format!("links[{k}]"), l));
        }
        for (name, link) in links {
            let Some(spec) = &link.capacity_trace else {
                link.trace = None;
                continue;
            };
            let field = format!("{name}.capacity_trace.file");
            let err = |message: String| ScenarioError {
                file: file.to_string(),
                field: field.clone(),
                message,
            };
            if spec.file.trim().is_empty() {
                return Err(err("must name a trace file, got \"\"".into()));
            }
            let given = Path::new(&spec.file);
            let path = if given.is_absolute() {
                given.to_path_buf()
            } else {
                base.join(given)
            };
            let trace = LinkTrace::load(&path, spec.format, spec.looped.unwrap_or(true))
                .map_err(|e| err(e.describe(&path.display().to_string())))?;
            link.trace = Some(Arc::new(trace));
        }
        Ok(())
    }

    /// The scenario with every flow of `count = N > 1` replaced by N copies named
    /// `{name}1` .. `{name}N` (each with `count` unset); called by
    /// [`Scenario::from_toml`] and [`crate::run_with`] (a no-op when already expanded).
    pub fn expand_counts(&self) -> Scenario {
        let mut out = self.clone();
        out.flows = Vec::with_capacity(self.flows.len());
        for f in &self.flows {
            let n = f.count.unwrap_or(1);
            for k in 1..=n {
                let mut g = f.clone();
                g.count = None;
                if n > 1 {
                    g.name = format!("{}{k}", f.name);
                }
                out.flows.push(g);
            }
        }
        out
    }

    /// Values that are legal but almost surely a mistake (a one-way delay over
    /// [`WARN_MAX_DELAY_SECS`], a capacity outside [`WARN_CAPACITY_BPS`], a run shorter
    /// than [`WARN_MIN_DURATION_SECS`]), one line each naming the field. The run goes
    /// ahead; its summary repeats them (summary.json `warnings`).
    pub fn warnings(&self) -> Vec<String> {
        let mut out = Vec::new();
        let dur = self.duration.0;
        if dur < WARN_MIN_DURATION_SECS {
            out.push(format!(
                "duration = {dur} s: a run under {WARN_MIN_DURATION_SECS} s (did you mean \"{dur}min\" or a longer run?)"
            ));
        }
        let delay = |field: &str, d: f64, out: &mut Vec<String>| {
            if d > WARN_MAX_DELAY_SECS {
                out.push(format!(
                    "{field} = {d} s: a one-way delay over {WARN_MAX_DELAY_SECS} s (did you mean \"{d}ms\"?)"
                ));
            }
        };
        let rate = |field: &str, r: f64, out: &mut Vec<String>| {
            let (lo, hi) = WARN_CAPACITY_BPS;
            if r > 0.0 && !(lo..=hi).contains(&r) {
                out.push(format!(
                    "{field} = {r} bit/s: a capacity outside {} kbit/s .. {} Gbit/s",
                    lo / 1e3,
                    hi / 1e9
                ));
            }
        };
        let link = |field: &str, l: &LinkSpec, out: &mut Vec<String>| {
            delay(&format!("{field}.delay"), l.delay.0, out);
            if let Some(c) = l.capacity {
                rate(&format!("{field}.capacity"), c.0, out);
            }
            for (k, p) in l.capacity_schedule.iter().flatten().enumerate() {
                rate(
                    &format!("{field}.capacity_schedule[{k}].rate"),
                    p.rate.0,
                    out,
                );
            }
        };
        if let Some(l) = &self.link {
            link("link", l, &mut out);
        }
        if let Some(l) = &self.reverse_link {
            link("reverse_link", l, &mut out);
        }
        for (i, l) in self.links.iter().enumerate() {
            link(&format!("links[{i}]"), l, &mut out);
        }
        if let Some(p) = &self.parking_lot {
            link("parking_lot.link", &p.link, &mut out);
            for (k, c) in p.capacities.iter().flatten().enumerate() {
                rate(&format!("parking_lot.capacities[{k}]"), c.0, &mut out);
            }
        }
        for (i, f) in self.flows.iter().enumerate() {
            if let Some(d) = f.path_delay {
                delay(&format!("flows[{i}].path_delay"), d.0, &mut out);
            }
        }
        out
    }
}
