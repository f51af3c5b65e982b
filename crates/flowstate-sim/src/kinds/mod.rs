//! The flow kinds a scenario may name (`[[flows]] kind = "..."`): one file per kind,
//! each declaring a [`KindDef`] (name, description, coupling role, default group,
//! options, and the function that builds the flow), all listed in [`ALL`].
//!
//! Adding a controller (docs/ARCHITECTURE.md, "Adding a controller"): its sans-I/O
//! sender in flowstate-core implementing `endpoint::Controller` (and its configuration's
//! `OPTIONS` table), one file here with its `KindDef` and builder, and its line in
//! [`ALL`]. Scenario parsing, validation (which runs the same builder), coupling,
//! metrics and `flowstate list-options` then know the kind.

pub mod cbr;
pub mod data_source;
pub mod gcc;
pub mod ledbat;
pub mod nada;
pub mod rap;
pub mod rate_options;
pub mod rtp_video;
pub mod scream;
pub mod sctp;
pub mod tcp;
pub mod tfrc;
#[cfg(test)]
mod toy;
pub mod window_options;

use crate::endpoints::FlowContext;
use crate::error::FieldError;
use crate::flow::SimFlow;
use crate::overrides::OverrideDef;
use crate::scenario::FlowSpec;
use flowstate_core::coupling::FlowKind as Coupling;
use flowstate_core::DataSize;

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

/// The coupling group of a WebRTC call's own flows when the scenario names none.
pub const CALL_GROUP: &str = "call";

/// No presets.
pub fn no_presets() -> Vec<&'static str> {
    Vec::new()
}

/// Every flow kind, in the order they are listed.
pub static ALL: &[&KindDef] = &[
    &gcc::KIND,
    &sctp::KIND,
    &tcp::NEWRENO,
    &tcp::CUBIC,
    &rap::KIND,
    &tfrc::KIND,
    &cbr::KIND,
    &nada::KIND,
    &scream::KIND,
    &ledbat::KIND,
    #[cfg(test)]
    &toy::KIND,
];

/// Seconds (a scenario time) as a timestamp.
pub(crate) fn secs(s: f64) -> flowstate_core::Timestamp {
    flowstate_core::Timestamp::from_micros((s.max(0.0) * 1e6).round() as u64)
}

/// A flow's `overrides` as `T`; the error's field under `overrides`.
pub(crate) fn parse_overrides<T: serde::de::DeserializeOwned>(
    spec: &FlowSpec,
) -> Result<T, FieldError> {
    crate::overrides::parse(&spec.overrides).map_err(|e| e.under("overrides"))
}

/// Every number an override holds must be > 0, but the zeros in `zero_ok` (a zero
/// that switches a rule off). Error: the key under `overrides`.
pub(crate) fn check_positive(
    numbers: &[(&'static str, f64)],
    zero_ok: &[&str],
) -> Result<(), FieldError> {
    for &(n, x) in numbers {
        if zero_ok.contains(&n) && x == 0.0 {
            continue;
        }
        if !(x.is_finite() && x > 0.0) {
            return Err(FieldError::new(
                format!("overrides.{n}"),
                format!("must be a number > 0, got {x}"),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::cbr::CbrOverrides;
    use super::gcc::options::{GccOverrides, RuleOrigin, ThresholdMode};
    use super::ledbat::LedbatSourceOverrides;
    use super::nada::NadaMediaOverrides;
    use super::rate_options::RateOverrides;
    use super::scream::ScreamMediaOverrides;
    use super::window_options::WindowOverrides;
    use crate::overrides::tests::keys_match;
    use crate::units_parse::{Bps, Bytes};

    #[test]
    fn definitions_are_the_struct_fields() {
        keys_match::<GccOverrides>(GccOverrides::DEFINITIONS);
        keys_match::<WindowOverrides>(WindowOverrides::DEFINITIONS);
        keys_match::<RateOverrides>(RateOverrides::DEFINITIONS);
        keys_match::<CbrOverrides>(CbrOverrides::DEFINITIONS);
        keys_match::<NadaMediaOverrides>(NadaMediaOverrides::DEFINITIONS);
        keys_match::<ScreamMediaOverrides>(ScreamMediaOverrides::DEFINITIONS);
        keys_match::<LedbatSourceOverrides>(LedbatSourceOverrides::DEFINITIONS);
    }

    #[test]
    fn preset_defaults_come_from_the_presets() {
        let pacing = GccOverrides::DEFINITIONS
            .iter()
            .find(|d| d.name == "pacing_factor")
            .expect("defined");
        assert_eq!(
            pacing.default.describe().as_deref(),
            Some("paper: 1.5, paper-static: 1.5, chromium: 1.1, chromium-m156: 1.1")
        );
        // The send chain: on in chromium-m156 only.
        for (name, want) in [
            (
                "chromium_pacer",
                "paper: false, paper-static: false, chromium: false, chromium-m156: true",
            ),
            (
                "chromium_fec",
                "paper: false, paper-static: false, chromium: false, chromium-m156: true",
            ),
            (
                "fec_delay_ms",
                "paper: none, paper-static: none, chromium: none, chromium-m156: 5.4",
            ),
            (
                "pacer_burst_ms",
                "paper: 5, paper-static: 5, chromium: 5, chromium-m156: 40",
            ),
            (
                "loss_v2_m150",
                "paper: -, paper-static: -, chromium: -, chromium-m156: true",
            ),
        ] {
            let d = GccOverrides::DEFINITIONS
                .iter()
                .find(|d| d.name == name)
                .expect("defined");
            assert_eq!(d.default.describe().as_deref(), Some(want), "{name}");
        }
        let q = GccOverrides::DEFINITIONS
            .iter()
            .find(|d| d.name == "kalman_q")
            .expect("defined");
        assert!(q
            .default
            .describe()
            .expect("some")
            .ends_with("chromium: -, chromium-m156: -"));
    }

    #[test]
    fn numbers_are_the_numeric_keys_set_in_definition_order() {
        let o = GccOverrides {
            fps: Some(30.0),
            perfect_codec: Some(true),
            start_rate: Some(Bps(1e5)),
            threshold: Some(ThresholdMode::Static),
            ..GccOverrides::default()
        };
        assert_eq!(o.numbers(), vec![("start_rate", 1e5), ("fps", 30.0)]);
        let w = WindowOverrides {
            sack: Some(true),
            mtu: Some(Bytes(1000.0)),
            ..WindowOverrides::default()
        };
        assert_eq!(w.numbers(), vec![("mtu", 1000.0)]);
    }

    /// The names the defaults print are the names serde reads.
    #[test]
    fn choice_names_are_the_ones_serde_reads() {
        fn reads<T: serde::de::DeserializeOwned + PartialEq + std::fmt::Debug>(
            name: &str,
            want: T,
        ) {
            let got: T = toml::Value::String(name.into()).try_into().expect("reads");
            assert_eq!(got, want);
        }
        for m in [RuleOrigin::Paper, RuleOrigin::Chromium] {
            reads(m.name(), m);
        }
        for m in [ThresholdMode::Static, ThresholdMode::Adaptive] {
            reads(m.name(), m);
        }
    }

    #[test]
    fn only_messages() {
        let m = |n: &str| {
            WindowOverrides::DEFINITIONS
                .iter()
                .find(|d| d.name == n)
                .expect("defined")
                .only_message()
        };
        assert_eq!(m("report_cwnd_before_cap"), "sctp only");
        assert_eq!(m("sack"), "tcp flows only");
        assert_eq!(m("hystart"), "tcp-cubic flows only");
    }
}
