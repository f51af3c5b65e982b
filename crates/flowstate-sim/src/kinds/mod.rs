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
pub mod common;
pub mod data_source;
pub mod external;
pub mod gcc;
pub mod ledbat;
pub mod nada;
pub mod playout_options;
pub mod rap;
pub mod rate_options;
pub mod rtp_video;
pub mod scream;
pub mod scream_v2;
pub mod sctp;
pub mod tcp;
pub mod tfrc;
#[cfg(test)]
mod toy;
pub mod window_options;

use crate::flow_spec::{FlowKind, KindDef};
use crate::overrides::OverrideDef;
use serde::de::{self, Deserializer};
use serde::Deserialize;

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
    &scream_v2::KIND,
    &ledbat::KIND,
    &external::PYTHON,
    &external::ONNX,
    #[cfg(test)]
    &toy::KIND,
];

impl FlowKind {
    /// Every kind, in the order they are listed ([`ALL`]).
    pub fn all() -> impl Iterator<Item = FlowKind> {
        ALL.iter().map(|&d| FlowKind::of(d))
    }
    /// Every kind's name, in the order of [`FlowKind::all`].
    pub fn names_list() -> Vec<&'static str> {
        Self::all().map(Self::name).collect()
    }
    /// The kind a scenario names (`"tcp-cubic"`), under the one name rule
    /// ([`flowstate_core::names`]: any case, `_` or `-`).
    pub fn from_name(name: &str) -> Option<Self> {
        flowstate_core::names::find_by_name(Self::all(), Self::name, name)
    }
    /// Every kind's name joined with `|`, for messages.
    pub fn names() -> String {
        Self::names_list().join("|")
    }
}

impl<'de> Deserialize<'de> for FlowKind {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = String::deserialize(d)?;
        FlowKind::from_name(&name).ok_or_else(|| {
            de::Error::custom(format!(
                "expected one of {}, got \"{name}\"",
                FlowKind::names()
            ))
        })
    }
}

/// Every override key of every flow kind, in the order the kinds are listed; a key
/// several kinds share (`mtu`) once.
pub fn definitions() -> Vec<OverrideDef> {
    let mut all: Vec<OverrideDef> = Vec::new();
    for kind in ALL {
        for d in (kind.options)() {
            let seen = all
                .iter()
                .any(|e| e.name == d.name && e.applies_to == d.applies_to);
            if !seen {
                all.push(d);
            }
        }
    }
    all
}

/// The names of the kinds `takes` holds for, for messages: `sctp, tcp-newreno,
/// tcp-cubic and ledbat`.
pub fn names_where(takes: fn(&KindDef) -> bool) -> String {
    let names: Vec<&str> = ALL.iter().filter(|k| takes(k)).map(|k| k.name).collect();
    match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => names.concat(),
    }
}

/// A flow that names a `preset` is of a kind that takes one (the kind's builder reads
/// the name). Error: the field is `preset`.
pub fn check_takes_preset(
    kind: FlowKind,
    name: Option<&str>,
) -> Result<(), crate::error::FieldError> {
    let Some(p) = name else { return Ok(()) };
    if !(kind.def().presets)().is_empty() {
        return Ok(());
    }
    let per_kind: Vec<String> = FlowKind::all()
        .filter(|k| !(k.def().presets)().is_empty())
        .map(|k| format!("{k}: {}", (k.def().presets)().join("|")))
        .collect();
    Err(crate::error::FieldError::new(
        "preset",
        format!(
            "only {} flows take a preset ({}), and this flow is {kind}; got \"{p}\"",
            names_where(|k| !(k.presets)().is_empty()),
            per_kind.join("; ")
        ),
    ))
}

#[cfg(test)]
mod tests {
    /// Every kind lists its `overrides` keys (a kind without them reads every key as
    /// unknown and `list-options` shows it nothing).
    #[test]
    fn every_kind_lists_its_options() {
        for kind in super::ALL {
            assert!(
                !(kind.options)().is_empty(),
                "{} lists no options",
                kind.name
            );
        }
    }

    use super::definitions;

    #[test]
    fn every_definition_is_described_and_has_a_default_line() {
        let defs = definitions();
        assert!(defs.len() > 100, "{}", defs.len());
        for d in &defs {
            assert!(!d.description().is_empty(), "{}", d.name);
            assert!(!d.description().contains('\n'));
            match d.default {
                crate::overrides::OverrideDefault::Required => assert_eq!(d.name, "rate"),
                _ => assert!(d.default.describe().is_some_and(|s| !s.is_empty())),
            }
            for k in d.applies_to {
                assert!(
                    crate::flow_spec::FlowKind::from_name(k).is_some(),
                    "{} names {k}",
                    d.name
                );
            }
        }
    }

    #[test]
    fn a_shared_key_is_listed_once() {
        let defs = definitions();
        assert_eq!(defs.iter().filter(|d| d.name == "mtu").count(), 1);
        // rap and tfrc share theirs, python and onnx theirs; cbr and nada have their own.
        let packet_size: Vec<_> = defs
            .iter()
            .filter(|d| d.name == "packet_size" && d.applies_to != ["toy"])
            .map(|d| d.applies_to)
            .collect();
        assert_eq!(
            packet_size,
            [
                &["rap", "tfrc"][..],
                &["cbr"][..],
                &["nada"][..],
                &["python", "onnx"][..]
            ]
        );
    }

    #[test]
    fn only_kinds_with_presets_take_one() {
        use super::check_takes_preset;
        let kind = |n: &str| super::FlowKind::from_name(n).expect("a kind");
        let e = check_takes_preset(kind("rap"), Some("paper")).expect_err("rap takes none");
        assert!(
            e.message
                .starts_with("only gcc and sctp flows take a preset (gcc: paper|"),
            "{e}"
        );
        assert_eq!(check_takes_preset(kind("cbr"), None), Ok(()));
        assert_eq!(check_takes_preset(kind("gcc"), Some("anything")), Ok(()));
    }

    use super::cbr::CbrOverrides;
    use super::gcc::options::{GccOverrides, RuleOrigin, ThresholdMode};
    use super::ledbat::LedbatSourceOverrides;
    use super::nada::NadaMediaOverrides;
    use super::rate_options::RateOverrides;
    use super::scream::ScreamMediaOverrides;
    use super::scream_v2::ScreamV2MediaOverrides;
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
        keys_match::<ScreamV2MediaOverrides>(ScreamV2MediaOverrides::DEFINITIONS);
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
