//! The mechanisms, listed once: [`Mechanism`] (which mechanism, with its options), the
//! per-group state the manager keeps ([`GroupState`]), the catalogue of their
//! descriptions, and the names they are read by.
//!
//! # Adding a mechanism: one file plus one line here
//!
//! 1. `coupling/<name>.rs` holds everything about it: its config struct (`Copy`,
//!    `PartialEq`, `Default` = the paper's behaviour) with `info()` (its
//!    [`MechanismInfo`] `INFO`: names, description, source, flow kinds, GCC report mode,
//!    options) and `set_option()`; its per-group state struct, built `From` the config,
//!    implementing [`CouplingRules`] (only the hooks it needs: `rate_update`, and
//!    `register` / `window_update` / `deregistered` / `timer_expiry` when it does
//!    something there). Declare the module in `coupling/mod.rs`. The file does not
//!    name [`Mechanism`]: this list imports the file, not the other way round.
//! 2. One line in the `mechanisms!` list below: `Variant(Config) => State [INFO =>
//!    preset config]`, with the doc comment of the new [`Mechanism`] variant.
//!
//! The macro makes the [`Mechanism`] variant, the [`GroupState`] variant, the
//! catalogue entries with their presets and every dispatch from that line, so nothing
//! can be forgotten;
//! the tests below check each catalogue entry (names read back, declared option
//! defaults are the config's defaults, every option changes something). A complete
//! example is the test-only `toy` mechanism (`coupling/toy.rs`), which the manager
//! couples like any other in its tests.

use super::catalogue::{normalize_name, CheckedValue, MechanismInfo};
use super::conservative::{ConservativeConfig, ConservativeFse};
use super::ext_fse_ng::{ExtendedFseNg, ExtendedFseNgConfig};
use super::fse::{Fse, FseConfig};
use super::fse_ng::{FseNg, FseNgConfig};
use super::fse_v2::{FseV2, FseV2Config};
use super::rules::CouplingRules;
use super::uncoupled::{self, Uncoupled};

/// Declares every mechanism: `Variant(Config) => State [catalogue entry => its preset
/// config, ...]` (a test-only entry carries `#[cfg(test)]` on the line and on its
/// catalogue entries).
macro_rules! mechanisms {
    ($(
        $(#[doc = $doc:literal])*
        $(#[cfg($cfg:meta)])?
        $variant:ident($config:ty) => $state:ty [$(
            $(#[cfg($icfg:meta)])? $info:path => $preset:expr
        ),+ $(,)?]
    ),* $(,)?) => {
        /// Which member of the FSE family couples the flows, with its options.
        #[derive(Debug, Clone, Copy, PartialEq)]
        pub enum Mechanism {
            /// No coupling (`none`): every flow keeps its own controller's value;
            /// updates return no allocations. The baseline the papers compare against.
            Uncoupled,
            $(
                $(#[doc = $doc])*
                $(#[cfg($cfg)])?
                $variant($config),
            )*
        }

        /// One group's mechanism state: plain data, one variant per mechanism (and a
        /// custom mechanism's rules, behind a box).
        #[derive(Debug, Clone)]
        pub(crate) enum GroupState {
            Uncoupled(Uncoupled),
            $(
                $(#[cfg($cfg)])?
                $variant($state),
            )*
            #[cfg(feature = "custom-mechanism")]
            Custom(Box<dyn CouplingRules>),
        }

        impl GroupState {
            /// A new group's state under `mechanism`.
            pub(crate) fn new(mechanism: &Mechanism) -> Self {
                match *mechanism {
                    Mechanism::Uncoupled => GroupState::Uncoupled(Uncoupled),
                    $(
                        $(#[cfg($cfg)])?
                        Mechanism::$variant(config) => GroupState::$variant(<$state>::from(config)),
                    )*
                }
            }

            /// The mechanism's rules, over this group's state.
            pub(crate) fn inner_mut(&mut self) -> &mut dyn CouplingRules {
                match self {
                    GroupState::Uncoupled(state) => state,
                    $(
                        $(#[cfg($cfg)])?
                        GroupState::$variant(state) => state,
                    )*
                    #[cfg(feature = "custom-mechanism")]
                    GroupState::Custom(rules) => rules.as_mut(),
                }
            }

            /// The mechanism's rules, read-only.
            pub(crate) fn inner(&self) -> &dyn CouplingRules {
                match self {
                    GroupState::Uncoupled(state) => state,
                    $(
                        $(#[cfg($cfg)])?
                        GroupState::$variant(state) => state,
                    )*
                    #[cfg(feature = "custom-mechanism")]
                    GroupState::Custom(rules) => rules.as_ref(),
                }
            }
        }

        /// Every mechanism's description, in the order `NAMES` lists them.
        const CATALOGUE: &[MechanismInfo] = &[
            uncoupled::INFO,
            $($(
                $(#[cfg($icfg)])?
                $info,
            )+)*
        ];

        /// Each catalogue entry's mechanism with its default options, in catalogue order.
        const PRESETS: &[fn() -> Mechanism] = &[
            || Mechanism::Uncoupled,
            $($(
                $(#[cfg($icfg)])?
                || Mechanism::$variant($preset),
            )+)*
        ];

        impl Mechanism {
            /// This mechanism's catalogue entry (for [`Mechanism::Fse`]: `fse-simple`'s
            /// when the options are paper 004's simple ones).
            pub fn info(&self) -> &'static MechanismInfo {
                match self {
                    Mechanism::Uncoupled => &uncoupled::INFO,
                    $(
                        $(#[cfg($cfg)])?
                        Mechanism::$variant(config) => config.info(),
                    )*
                }
            }

            /// Sets the option `name` (declared in [`Mechanism::info`], value already
            /// checked against its kind). False if the config has no such field.
            pub(crate) fn set_option(&mut self, name: &str, value: CheckedValue) -> bool {
                match self {
                    Mechanism::Uncoupled => false,
                    $(
                        $(#[cfg($cfg)])?
                        Mechanism::$variant(config) => config.set_option(name, value),
                    )*
                }
            }
        }
    };
}

mechanisms! {
    /// RFC 8699 active algorithm 1; [`FseConfig::simple`] gives paper 004's first FSE.
    Fse(FseConfig) => Fse [
        super::fse::INFO => FseConfig::default(),
        super::fse::SIMPLE_INFO => FseConfig::simple(),
    ],
    /// RFC 8699 algorithm 2 (paper 004 Alg. 2).
    ConservativeFse(ConservativeConfig) => ConservativeFse [
        super::conservative::INFO => ConservativeConfig::default(),
    ],
    /// Paper 000 section V.
    FseNg(FseNgConfig) => FseNg [super::fse_ng::INFO => FseNgConfig::default()],
    /// Paper 000 section VI.
    ExtendedFseNg(ExtendedFseNgConfig) => ExtendedFseNg [
        super::ext_fse_ng::INFO => ExtendedFseNgConfig::default(),
    ],
    /// Paper 000 section VII.
    FseV2(FseV2Config) => FseV2 [super::fse_v2::INFO => FseV2Config::default()],
    /// A toy mechanism for the tests: the whole of adding one (`coupling/toy.rs`).
    #[cfg(test)]
    Toy(super::toy::ToyConfig) => super::toy::Toy [
        #[cfg(test)] super::toy::INFO => super::toy::ToyConfig::default(),
    ],
}

impl MechanismInfo {
    /// The mechanism this catalogue entry describes, with its default options; `None`
    /// for a description that is not an entry of [`Mechanism::catalogue`].
    pub fn mechanism(&self) -> Option<Mechanism> {
        let i = CATALOGUE.iter().position(|entry| entry.name == self.name)?;
        PRESETS.get(i).map(|preset| preset())
    }
}

impl Mechanism {
    /// Every mechanism, described: names, description, source, flow kinds, options
    /// with defaults and units. The one list everything that names mechanisms reads.
    pub fn catalogue() -> &'static [MechanismInfo] {
        CATALOGUE
    }

    /// The canonical names [`Mechanism::from_name`] accepts (`none`: uncoupled), in
    /// catalogue order.
    pub const NAMES: [&'static str; CATALOGUE.len()] = {
        let mut names = [""; CATALOGUE.len()];
        let mut i = 0;
        while i < CATALOGUE.len() {
            names[i] = CATALOGUE[i].name;
            i += 1;
        }
        names
    };

    /// The catalogue entry of the mechanism written `name` in any accepted spelling.
    pub fn info_by_name(name: &str) -> Option<&'static MechanismInfo> {
        let key = normalize_name(name);
        CATALOGUE.iter().find(|info| info.is_called(&key))
    }

    /// The mechanism called `name` (any spelling [`Mechanism::canonical_name`]
    /// accepts: `fsev2`, `FSEv2`, `FSE-NG`, `none`, ...), with default options.
    pub fn from_name(name: &str) -> Option<Mechanism> {
        Mechanism::info_by_name(name).and_then(MechanismInfo::mechanism)
    }

    /// The name scenario files use for the mechanism written `name` in any of the
    /// spellings people and this tool use, or `None`: the names of [`Mechanism::NAMES`],
    /// the display names (`FSEv2`, `FSE-NG`, `Extended FSE-NG`, `conservative FSE`) and
    /// each entry's aliases, in any case, with `-`, `_` or a space between words. The
    /// one place names are read: scenario files, the CLI and the Python API all come
    /// through here.
    pub fn canonical_name(name: &str) -> Option<&'static str> {
        Mechanism::info_by_name(name).map(|info| info.name)
    }

    /// A human-readable name.
    pub fn display_name(&self) -> &'static str {
        self.info().display_name
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::coupling::catalogue::{OptionDefault, OptionKind};
    use crate::coupling::{mechanism_with_options, FlowKind, OptionValue};

    #[test]
    fn every_catalogue_entry_reads_back_by_each_of_its_names() {
        assert_eq!(Mechanism::NAMES.len(), Mechanism::catalogue().len());
        for (info, name) in Mechanism::catalogue().iter().zip(Mechanism::NAMES) {
            assert_eq!(info.name, name);
            let m = info.mechanism().expect("a catalogue entry has a preset");
            assert_eq!(m.info().name, info.name, "{name}: preset's entry");
            for spelling in [info.name, info.display_name]
                .into_iter()
                .chain(info.aliases.iter().copied())
            {
                assert_eq!(
                    Mechanism::canonical_name(spelling),
                    Some(name),
                    "{spelling}"
                );
                assert_eq!(Mechanism::from_name(spelling), Some(m), "{spelling}");
            }
            assert!(!info.flow_kinds.is_empty(), "{name}");
            assert!(
                info.couples(FlowKind::Rate),
                "{name}: every mechanism couples rate flows"
            );
        }
        let mut names: Vec<_> = Mechanism::catalogue()
            .iter()
            .flat_map(|i| {
                [i.name, i.display_name]
                    .into_iter()
                    .chain(i.aliases.iter().copied())
                    .map(normalize_name)
                    .collect::<std::collections::BTreeSet<_>>()
            })
            .collect();
        let all = names.len();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), all, "a spelling names two mechanisms");
    }

    /// A value of `kind` other than `default`.
    fn other_value(kind: OptionKind, default: OptionDefault) -> OptionValue {
        match (kind, default) {
            (OptionKind::Bool, OptionDefault::Bool(b)) => OptionValue::Bool(!b),
            (OptionKind::Positive, OptionDefault::Number(n)) => OptionValue::Number(n + 1.0),
            (OptionKind::Positive, _) => OptionValue::Number(1.5),
            (OptionKind::Choice(names), OptionDefault::Text(t)) => OptionValue::Text(
                names
                    .iter()
                    .find(|n| **n != t)
                    .expect("two choices")
                    .to_string(),
            ),
            other => panic!("default of the wrong kind: {other:?}"),
        }
    }

    /// The declared defaults are the config's defaults, and every declared option
    /// reaches a field of the config.
    #[test]
    fn declared_options_match_the_configs() {
        for info in Mechanism::catalogue() {
            let preset = info.mechanism().expect("a catalogue entry has a preset");
            for option in info.options {
                let default = match option.default {
                    OptionDefault::Bool(b) => Some(OptionValue::Bool(b)),
                    OptionDefault::Number(n) => Some(OptionValue::Number(n)),
                    OptionDefault::Text(t) => Some(OptionValue::Text(t.into())),
                    OptionDefault::Unset => None,
                };
                if let Some(value) = default {
                    let m = mechanism_with_options(info.name, [(option.name, &value)]);
                    assert_eq!(
                        m,
                        Ok(preset),
                        "{}.{}: declared default",
                        info.name,
                        option.name
                    );
                }
                let value = other_value(option.kind, option.default);
                let m = mechanism_with_options(info.name, [(option.name, &value)]).unwrap();
                assert_ne!(m, preset, "{}.{} changes nothing", info.name, option.name);
            }
        }
    }
}
