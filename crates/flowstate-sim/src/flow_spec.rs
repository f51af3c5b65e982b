//! A scenario's flow entry (`[[flows]]`: [`FlowSpec`]) and the kind it names
//! ([`FlowKind`], a handle to the kind's [`KindDef`]: name, description, coupling role,
//! default group, options and builder). The kinds themselves, one file each, and the
//! table that lists them are in [`crate::kinds`]; this module is what those files and
//! the scenario reader share, so neither imports the other.

use crate::error::FieldError;
use crate::flow::SimFlow;
use crate::overrides::OverrideDef;
use crate::units_parse::{Bps, Secs};
use flowstate_core::{DataSize, Ecn};
use serde::Deserialize;
use std::fmt;

/// How a coupling manager sees a flow of a kind: flowstate-core's rate / window
/// distinction.
pub use flowstate_core::coupling::FlowKind as Coupling;

/// `"rate"` or `"window"`.
pub const fn coupling_name(c: Coupling) -> &'static str {
    match c {
        Coupling::Rate => "rate",
        Coupling::Window => "window",
    }
}

/// A scenario flow kind.
#[derive(Clone, Copy)]
pub struct FlowKind(&'static KindDef);

impl FlowKind {
    /// The kind `def` describes.
    pub const fn of(def: &'static KindDef) -> Self {
        Self(def)
    }
    /// The kind's description and builder.
    pub const fn def(self) -> &'static KindDef {
        self.0
    }
    /// The name scenario files use (`"tcp-cubic"`).
    pub const fn name(self) -> &'static str {
        self.0.name
    }
    /// One line saying what a flow of this kind is.
    pub const fn description(self) -> &'static str {
        self.0.description
    }
    /// How a coupling manager sees the flow; `None`: never coupled.
    pub const fn coupling(self) -> Option<Coupling> {
        match self.0.coupling {
            Some(role) => Some(role.coupling()),
            None => None,
        }
    }
    /// The unit a window flow's cwnd moves in (SCTP's MTU, TCP's SMSS); `None` for
    /// rate flows and uncoupled kinds.
    pub const fn window_mtu(self) -> Option<flowstate_core::DataSize> {
        match self.0.coupling {
            Some(CouplingRole::Window { mtu }) => Some(mtu),
            _ => None,
        }
    }
    /// The coupling group a flow of this kind joins when its scenario names none:
    /// [`CALL_GROUP`] for a WebRTC call's own flows (RTP media under GCC, NADA or
    /// SCReAM, and SCTP data channels), `None` (not coupled) for every other kind: TCP,
    /// LEDBAT, RAP, TFRC and CBR are another application's traffic unless the scenario
    /// puts them in a group (docs/SCENARIOS.md, "Coupling groups").
    pub const fn default_group(self) -> Option<&'static str> {
        self.0.default_group
    }
    /// A window-based flow (SCTP, TCP, LEDBAT).
    pub const fn is_window(self) -> bool {
        self.window_mtu().is_some()
    }
}

impl PartialEq for FlowKind {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self.0, other.0)
    }
}
impl Eq for FlowKind {}

impl std::hash::Hash for FlowKind {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.name().hash(state);
    }
}

impl fmt::Debug for FlowKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "FlowKind({})", self.name())
    }
}

impl fmt::Display for FlowKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How a coupling manager sees a flow of a kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CouplingRole {
    /// A rate-based flow (its controller reports and takes a rate).
    Rate,
    /// A window-based flow, whose window moves in units of `mtu` (SCTP's MTU, TCP's
    /// SMSS, the flowstate-core defaults the simulator's flows use).
    Window { mtu: DataSize },
}

impl CouplingRole {
    /// The role as flowstate-core's coupling manager names it.
    pub const fn coupling(self) -> Coupling {
        match self {
            Self::Rate => Coupling::Rate,
            Self::Window { .. } => Coupling::Window,
        }
    }
}

/// What a kind's builder gets: the run's context, the flow's position, its scenario
/// entry and its seed (drawn from the flow's own random stream).
#[derive(Debug, Clone, Copy)]
pub struct BuildInput<'a> {
    pub ctx: &'a FlowContext,
    pub index: usize,
    pub spec: &'a FlowSpec,
    pub seed: u64,
}

/// A flow kind, described and buildable.
#[derive(Debug)]
pub struct KindDef {
    /// The name scenario files use (`"tcp-cubic"`).
    pub name: &'static str,
    /// One line saying what a flow of this kind is.
    pub description: &'static str,
    /// How a coupling manager sees it; `None`: never coupled.
    pub coupling: Option<CouplingRole>,
    /// The coupling group a flow of this kind joins when its scenario names none:
    /// [`CALL_GROUP`] for a WebRTC call's own flows, `None` for another application's
    /// traffic (docs/SCENARIOS.md, "Coupling groups").
    pub default_group: Option<&'static str>,
    /// The names of the presets it takes (`preset = "..."`), empty when it takes none.
    pub presets: fn() -> Vec<&'static str>,
    /// Its `overrides` keys.
    pub options: fn() -> Vec<OverrideDef>,
    /// It takes a data `source` (on-off, short flows).
    pub takes_source: bool,
    /// It takes a `desired_rate_schedule`.
    pub takes_rate_schedule: bool,
    /// Builds the flow; an error's field is relative to the flow (`overrides.k_up`,
    /// `preset`). Scenario validation calls it too, so a scenario that validates builds.
    pub build: fn(&BuildInput<'_>) -> Result<Box<dyn SimFlow>, FieldError>,
}

impl KindDef {
    /// A kind called `name` that `build` builds: never coupled, in no group, without
    /// presets, options, a data source or a rate schedule until the methods below say
    /// otherwise (`KindDef::new(..).coupled(CouplingRole::Rate).in_call()`).
    pub const fn new(
        name: &'static str,
        description: &'static str,
        build: fn(&BuildInput<'_>) -> Result<Box<dyn SimFlow>, FieldError>,
    ) -> Self {
        Self {
            name,
            description,
            coupling: None,
            default_group: None,
            presets: no_presets,
            options: Vec::new,
            takes_source: false,
            takes_rate_schedule: false,
            build,
        }
    }
    /// Coupled in the role `role`.
    pub const fn coupled(self, role: CouplingRole) -> Self {
        Self {
            coupling: Some(role),
            ..self
        }
    }
    /// A WebRTC call's own flow: in [`CALL_GROUP`] unless the scenario names a group.
    pub const fn in_call(self) -> Self {
        Self {
            default_group: Some(CALL_GROUP),
            ..self
        }
    }
    /// Takes the presets `names` lists.
    pub const fn with_presets(self, names: fn() -> Vec<&'static str>) -> Self {
        Self {
            presets: names,
            ..self
        }
    }
    /// Takes the `overrides` keys `options` lists.
    pub const fn with_options(self, options: fn() -> Vec<OverrideDef>) -> Self {
        Self { options, ..self }
    }
    /// Takes a data `source`.
    pub const fn with_source(self) -> Self {
        Self {
            takes_source: true,
            ..self
        }
    }
    /// Takes a `desired_rate_schedule`.
    pub const fn with_rate_schedule(self) -> Self {
        Self {
            takes_rate_schedule: true,
            ..self
        }
    }
}

/// The coupling group of a WebRTC call's own flows when the scenario names none.
pub const CALL_GROUP: &str = "call";

/// No presets.
pub fn no_presets() -> Vec<&'static str> {
    Vec::new()
}

/// What a flow factory knows about the run besides the flow itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FlowContext {
    /// The scenario's coupling mechanism (`"none"` when uncoupled). GCC reports its
    /// delay-based estimate under `fse-ng` / `ext-fse-ng` (paper 000, V-B3) and its
    /// target otherwise.
    pub mechanism: String,
    /// What GCC reports under a coupling rule written in Python (`[coupling]
    /// gcc_report`; crate::coupling_rule); `None`: the mechanism's own mode.
    pub gcc_report: Option<flowstate_core::coupling::RateReportMode>,
}

impl Default for FlowContext {
    fn default() -> Self {
        Self {
            mechanism: "none".into(),
            gcc_report: None,
        }
    }
}

/// One point of a capacity schedule.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RatePoint {
    pub at: Secs,
    pub rate: Bps,
}

/// `direction` of a flow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DirectionSpec {
    #[default]
    Forward,
    Reverse,
}

impl<'de> Deserialize<'de> for DirectionSpec {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        const NAMES: &[&str] = &["forward", "reverse"];
        crate::name_de::read_name(
            d,
            &[(Self::Forward, NAMES[0]), (Self::Reverse, NAMES[1])],
            NAMES,
        )
    }
}

/// `ecn` of a flow: the ECN codepoint its sender puts on its data packets (RFC 3168
/// section 5), and with it whether the flow's controller answers CE marks
/// (docs/ALGORITHMS.md, "ECN responses"). Feedback packets are always Not-ECT.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EcnSetting {
    /// Not-ECT: a queue drops the flow's packets, never marks them (the default).
    #[default]
    Off,
    /// ECT(0): classic ECN (RFC 3168).
    Ect0,
    /// ECT(1): the L4S identifier (RFC 9331; RFC 8311 section 4.2).
    Ect1,
}

impl EcnSetting {
    /// Every setting, in the order they are listed.
    pub const ALL: [EcnSetting; 3] = [Self::Off, Self::Ect0, Self::Ect1];

    /// The name scenario files use.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Off => "off",
            Self::Ect0 => "ect0",
            Self::Ect1 => "ect1",
        }
    }

    /// The codepoint on the flow's data packets.
    pub const fn codepoint(self) -> Ecn {
        match self {
            Self::Off => Ecn::NotEct,
            Self::Ect0 => Ecn::Ect0,
            Self::Ect1 => Ecn::Ect1,
        }
    }

    /// One line saying what the setting does.
    pub const fn description(self) -> &'static str {
        match self {
            Self::Off => "Not-ECT: no ECN; a marking queue drops the flow's packets (default)",
            Self::Ect0 => "ECT(0), classic ECN (RFC 3168): a queue may mark instead of drop; the controller answers the marks",
            Self::Ect1 => "ECT(1), the L4S identifier (RFC 9331): as ect0 with the L4S codepoint; the controllers answer as for ect0",
        }
    }
}

/// Values `ecn` may take.
pub const ECN_SETTINGS: &[&str] = &{
    let mut names = [""; EcnSetting::ALL.len()];
    let mut i = 0;
    while i < names.len() {
        names[i] = EcnSetting::ALL[i].name();
        i += 1;
    }
    names
};

impl<'de> Deserialize<'de> for EcnSetting {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        crate::name_de::read_name(
            d,
            &[
                (Self::Off, ECN_SETTINGS[0]),
                (Self::Ect0, ECN_SETTINGS[1]),
                (Self::Ect1, ECN_SETTINGS[2]),
            ],
            ECN_SETTINGS,
        )
    }
}

/// One `pauses` entry.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PauseSpec {
    pub at: Secs,
    pub resume: Secs,
}

/// One `[[flows]]` entry.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowSpec {
    pub name: String,
    /// Read from its name when the scenario is parsed (`"tcp-cubic"`).
    pub kind: FlowKind,
    pub start: Option<Secs>,
    pub stop: Option<Secs>,
    #[serde(default)]
    pub pauses: Vec<PauseSpec>,
    pub priority: Option<f64>,
    pub desired_rate: Option<Bps>,
    pub preset: Option<String>,
    #[serde(default)]
    pub overrides: toml::Table,
    pub path_delay: Option<Secs>,
    #[serde(default)]
    pub direction: DirectionSpec,
    /// The coupling group: flows of one group share one coupling manager. Default:
    /// [`FlowKind::default_group`] (a WebRTC call's own flows, gcc / sctp / nada /
    /// scream, join [`crate::flow_kind::CALL_GROUP`]; every other kind is not coupled).
    pub group: Option<String>,
    /// Another application's traffic: never coupled, whatever its kind (exclusive with
    /// `group`).
    pub cross_traffic: Option<bool>,
    /// The sending host, for shared bottleneck detection: its grouping runs over the
    /// flows of one host (default: the dumbbell end the flow sends from, `"forward"` or
    /// `"reverse"`). Cross traffic from elsewhere names another host.
    pub host: Option<String>,
    /// With named links: the links the flow's data crosses, in order (crate::topology).
    pub route: Option<Vec<String>>,
    /// With named links: the links its feedback crosses, in order (exclusive with
    /// `return_delay`).
    pub return_route: Option<Vec<String>>,
    /// With named links: its feedback arrives this long after it is sent, without a
    /// queue or loss (exclusive with `return_route`; neither: the sum of the `route`
    /// links' delays).
    pub return_delay: Option<Secs>,
    /// With `[parking_lot]`: the hops its data crosses, `[k]` or `[first, last]`
    /// (1-based, inclusive), for `route = ["hop<first>", ..., "hop<last>"]`.
    pub hops: Option<Vec<u32>>,
    /// Application behaviour of `sctp` / `tcp-*` flows: `greedy` (default), `on-off`
    /// (paper 002: on 3 s every 12 s) or `short-flows` (RFC 8867 5.7). With
    /// `desired_rate` and no `source`, the application writes at that rate.
    pub source: Option<AppSource>,
    /// Run `count` copies of this flow (default 1), named `{name}1` .. `{name}{count}`
    /// when `count > 1` (papers 003/004: N = 2..15 identical flows).
    pub count: Option<u32>,
    /// Extra start delay drawn uniformly from `[0, start_jitter)` per flow and seed
    /// (papers 003/004: "randomly picked start times over the first second").
    pub start_jitter: Option<Secs>,
    /// Priority changes while the flow runs, applied through the coupling manager's
    /// `set_priority` (paper 004 Fig. 13).
    #[serde(default)]
    pub priority_schedule: Vec<PriorityPoint>,
    /// `rap` / `tfrc` only: the application's rate over time (a video-trace-like
    /// source; paper 004 Figs. 28-30); each point replaces `desired_rate` from `at` on.
    #[serde(default)]
    pub desired_rate_schedule: Vec<RatePoint>,
    /// The ECN codepoint of the sender's data packets: `off` (Not-ECT, the default of
    /// every kind but `scream-v2`, whose default is `ect1`), `ect0` or `ect1`
    /// ([`EcnSetting`]); every kind takes it. `None`: not written.
    #[serde(default)]
    pub ecn: Option<EcnSetting>,
    /// `python` / `onnx` flows only: the controller (`"module:Class"`, or an ONNX
    /// model file; crate::kinds::external).
    pub controller: Option<String>,
    /// `python` / `onnx` flows only: the parameters handed to the controller's
    /// constructor.
    #[serde(default)]
    pub params: toml::Table,
}

/// One `priority_schedule` entry.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PriorityPoint {
    pub at: Secs,
    pub priority: f64,
}

/// The application behind an `sctp` / `tcp-*` flow (`source`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AppSource {
    /// Always has data (the kind's greedy source).
    Greedy,
    /// Paper 002: on 3 s every 12 s.
    OnOff,
    /// RFC 8867 section 5.7: short file transfers with idle times between them.
    ShortFlows,
}

impl AppSource {
    /// Every source, in the order they are listed.
    pub const ALL: [AppSource; 3] = [AppSource::Greedy, AppSource::OnOff, AppSource::ShortFlows];

    /// The name scenario files use.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Greedy => "greedy",
            Self::OnOff => "on-off",
            Self::ShortFlows => "short-flows",
        }
    }
}

impl<'de> Deserialize<'de> for AppSource {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = String::deserialize(d)?;
        flowstate_core::names::find_by_name(AppSource::ALL, AppSource::name, &name).ok_or_else(
            || {
                serde::de::Error::custom(format!(
                    "expected one of {}, got \"{name}\"",
                    SOURCES.join("|")
                ))
            },
        )
    }
}

/// Values `source` may take.
pub const SOURCES: &[&str] = &{
    let mut names = [""; AppSource::ALL.len()];
    let mut i = 0;
    while i < names.len() {
        names[i] = AppSource::ALL[i].name();
        i += 1;
    }
    names
};

impl FlowSpec {
    pub fn start_secs(&self) -> f64 {
        self.start.map_or(0.0, |s| s.0)
    }
    pub fn priority(&self) -> f64 {
        self.priority.unwrap_or(1.0)
    }
    /// The coupling group the flow is in, `None` when it is not coupled (`group`, else
    /// its kind's default; never for cross traffic or a kind without a controller).
    pub fn group(&self) -> Option<&str> {
        if self.cross_traffic == Some(true) || self.kind.coupling().is_none() {
            return None;
        }
        self.group.as_deref().or(self.kind.default_group())
    }
    /// The sending host (`host`, else the end of the dumbbell it sends from).
    pub fn host(&self) -> &str {
        self.host.as_deref().unwrap_or(match self.direction {
            DirectionSpec::Forward => "forward",
            DirectionSpec::Reverse => "reverse",
        })
    }
    /// The ECN codepoint of the flow's data packets (`ecn`; Not-ECT by default).
    pub fn ecn(&self) -> Ecn {
        self.ecn_or(EcnSetting::Off)
    }
    /// The ECN codepoint of the flow's data packets, `default` when `ecn` is not
    /// written.
    pub fn ecn_or(&self, default: EcnSetting) -> Ecn {
        self.ecn.unwrap_or(default).codepoint()
    }
    /// `start_jitter` in seconds (0 without).
    pub fn start_jitter_secs(&self) -> f64 {
        self.start_jitter.map_or(0.0, |s| s.0)
    }
}
