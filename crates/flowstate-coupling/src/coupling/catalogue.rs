//! What a coupling mechanism is, as data: its names, description, source, the flow
//! kinds it couples and its options ([`MechanismInfo`], [`OptionInfo`]), and an option
//! value as a mechanism's config receives it (`CheckedValue`).
//!
//! Each mechanism declares its entry once, in its own file (`fse.rs::INFO`, ...);
//! [`super::Mechanism::catalogue`] lists them with their presets, and everything that
//! names mechanisms reads that list: [`super::Mechanism::from_name`],
//! [`super::Mechanism::NAMES`], [`super::mechanism_with_options`], the simulator's
//! scenario check, the Python bindings' `definitions()` and `flowstate list-options`.
//! An entry does not name [`super::Mechanism`]: `mechanism.rs` pairs each entry with
//! its preset, so that the mechanisms' files do not import the list that imports them.

use super::flow::{FlowKind, RateReportMode};

/// One coupling mechanism, described.
#[derive(Debug, Clone, Copy)]
pub struct MechanismInfo {
    /// The canonical name scenario files, the CLI and the Python API use (`fsev2`).
    pub name: &'static str,
    /// The name printed in reports and errors (`FSEv2`).
    pub display_name: &'static str,
    /// Further spellings read as this mechanism, besides `name` and `display_name`
    /// (compared after [`normalize_name`]: lower case, words joined by `-`).
    pub aliases: &'static [&'static str],
    /// One line: what the mechanism does.
    pub description: &'static str,
    /// The paper / RFC section it implements.
    pub source: &'static str,
    /// The kinds of flow it couples; registering another kind is an error, and the
    /// simulator leaves such flows uncoupled.
    pub flow_kinds: &'static [FlowKind],
    /// What a GCC flow reports to it (paper 000 V-B3).
    pub rate_report: RateReportMode,
    /// Its options, each settable by name ([`super::mechanism_with_options`]).
    pub options: &'static [OptionInfo],
}

impl MechanismInfo {
    /// True iff the mechanism couples flows of `kind`.
    pub fn couples(&self, kind: FlowKind) -> bool {
        self.flow_kinds.contains(&kind)
    }

    /// The option called `name`, if the mechanism has it.
    pub fn option(&self, name: &str) -> Option<&'static OptionInfo> {
        self.options.iter().find(|o| o.name == name)
    }

    /// True iff `name` (any case, `-`, `_` or space between words) names this mechanism.
    pub fn is_called(&self, name: &str) -> bool {
        let key = normalize_name(name);
        normalize_name(self.name) == key
            || normalize_name(self.display_name) == key
            || self.aliases.iter().any(|a| normalize_name(a) == key)
    }
}

/// One option of a mechanism.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OptionInfo {
    /// The snake_case name scenario files and the Python API use.
    pub name: &'static str,
    /// The values it takes.
    pub kind: OptionKind,
    /// Its value in the mechanism's defaults (the paper's behaviour unless the
    /// description says otherwise).
    pub default: OptionDefault,
    /// The unit of a number (`RTTs`, `factor`); `None` for flags and choices.
    pub unit: Option<&'static str>,
    /// One line: what it changes, and which reading of the paper each value gives.
    pub description: &'static str,
}

/// The values an option takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OptionKind {
    /// `true` or `false`.
    Bool,
    /// A finite number > 0.
    Positive,
    /// One of these names.
    Choice(&'static [&'static str]),
}

/// An option's default value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum OptionDefault {
    Bool(bool),
    Number(f64),
    Text(&'static str),
    /// Not set (the option's behaviour is off until a value is given).
    Unset,
}

impl OptionKind {
    /// What the option expects, for error messages: `true or false`, `a number > 0`,
    /// `'newest' or 'minimum'`.
    pub fn expected(&self) -> String {
        match self {
            OptionKind::Bool => "true or false".into(),
            OptionKind::Positive => "a number > 0".into(),
            OptionKind::Choice(names) => {
                let quoted: Vec<String> = names.iter().map(|n| format!("'{n}'")).collect();
                match quoted.split_last() {
                    Some((last, rest)) if !rest.is_empty() => {
                        format!("{} or {last}", rest.join(", "))
                    }
                    _ => quoted.concat(),
                }
            }
        }
    }
}

/// An option value checked against the option's [`OptionKind`]: what a mechanism's
/// config `set_option` receives.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum CheckedValue {
    Bool(bool),
    /// Finite and > 0.
    Positive(f64),
    /// One of the option's choices.
    Choice(&'static str),
}

/// A mechanism name as compared: the one name rule of [`crate::names`].
pub use crate::names::normalize_name;

/// Both kinds of flow.
pub(crate) const RATE_AND_WINDOW: &[FlowKind] = &[FlowKind::Rate, FlowKind::Window];
/// Rate flows only.
pub(crate) const RATE_ONLY: &[FlowKind] = &[FlowKind::Rate];
