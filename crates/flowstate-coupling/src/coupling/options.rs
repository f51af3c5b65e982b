//! Building a [`Mechanism`] from a name and loosely typed options, as scenario files,
//! the CLI and the Python bindings supply them. The options a mechanism has, their
//! kinds and defaults are its catalogue entry ([`MechanismInfo::options`], declared in
//! the mechanism's file); an unknown name or a value of the wrong kind is an error that
//! names the option.

use super::catalogue::{CheckedValue, MechanismInfo, OptionKind};
use super::mechanism::Mechanism;

/// A loosely typed option value.
#[derive(Debug, Clone, PartialEq)]
pub enum OptionValue {
    Bool(bool),
    Number(f64),
    Text(String),
}

/// Why a mechanism could not be built.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum OptionError {
    #[error("unknown coupling mechanism '{0}' (expected one of: {names}; any case, or as printed: FSEv2, FSE-NG, ...)", names = Mechanism::NAMES.join(", "))]
    UnknownMechanism(String),
    #[error("unknown option '{option}' for {mechanism} (expected one of: {expected})")]
    UnknownOption {
        mechanism: String,
        option: String,
        expected: String,
    },
    #[error("mechanism '{mechanism}' takes no options, got '{option}'")]
    NoOptions { mechanism: String, option: String },
    #[error("option '{option}' expects {expected}, got {got}")]
    WrongType {
        option: String,
        expected: String,
        got: String,
    },
}

fn describe(value: &OptionValue) -> String {
    match value {
        OptionValue::Bool(b) => format!("{b}"),
        OptionValue::Number(n) => format!("{n}"),
        OptionValue::Text(t) => format!("'{t}'"),
    }
}

/// `value` if it is of `kind`.
fn check(option: &str, kind: OptionKind, value: &OptionValue) -> Result<CheckedValue, OptionError> {
    let checked = match (kind, value) {
        (OptionKind::Bool, OptionValue::Bool(b)) => Some(CheckedValue::Bool(*b)),
        (OptionKind::Positive, OptionValue::Number(n)) if n.is_finite() && *n > 0.0 => {
            Some(CheckedValue::Positive(*n))
        }
        (OptionKind::Choice(names), OptionValue::Text(t)) => names
            .iter()
            .find(|n| **n == t)
            .map(|n| CheckedValue::Choice(n)),
        _ => None,
    };
    checked.ok_or_else(|| OptionError::WrongType {
        option: option.to_string(),
        expected: kind.expected(),
        got: describe(value),
    })
}

/// The option names each mechanism accepts.
pub fn option_names(mechanism: &Mechanism) -> Vec<&'static str> {
    mechanism.info().options.iter().map(|o| o.name).collect()
}

/// The mechanism called `name` with `options` applied over its defaults.
pub fn mechanism_with_options<'a>(
    name: &str,
    options: impl IntoIterator<Item = (&'a str, &'a OptionValue)>,
) -> Result<Mechanism, OptionError> {
    let unknown = || OptionError::UnknownMechanism(name.to_string());
    let info = Mechanism::info_by_name(name).ok_or_else(unknown)?;
    let mut mechanism = info.mechanism().ok_or_else(unknown)?;
    for (option, value) in options {
        apply(&mut mechanism, info, name, option, value)?;
    }
    Ok(mechanism)
}

fn apply(
    mechanism: &mut Mechanism,
    info: &MechanismInfo,
    name: &str,
    option: &str,
    value: &OptionValue,
) -> Result<(), OptionError> {
    if info.options.is_empty() {
        return Err(OptionError::NoOptions {
            mechanism: info.name.to_string(),
            option: option.to_string(),
        });
    }
    let unknown = || OptionError::UnknownOption {
        mechanism: name.to_string(),
        option: option.to_string(),
        expected: info
            .options
            .iter()
            .map(|o| o.name)
            .collect::<Vec<_>>()
            .join(", "),
    };
    let declared = info.option(option).ok_or_else(unknown)?;
    let checked = check(option, declared.kind, value)?;
    if mechanism.set_option(declared.name, checked) {
        Ok(())
    } else {
        Err(unknown())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::coupling::{Distribution, ExtendedFseNgConfig, FseConfig, FseNgConfig, FseV2Config};

    #[test]
    fn options_override_defaults() {
        let off = OptionValue::Bool(false);
        let m = mechanism_with_options("fse-ng", [("count_change_twice", &off)]).unwrap();
        assert_eq!(
            m,
            Mechanism::FseNg(FseNgConfig {
                count_change_twice: false
            })
        );
        let boost = OptionValue::Number(1.1);
        let m = mechanism_with_options("fsev2", [("rate_priority_boost", &boost)]).unwrap();
        assert_eq!(
            m,
            Mechanism::FseV2(FseV2Config {
                rate_priority_boost: Some(1.1),
                ..Default::default()
            })
        );
        let m = mechanism_with_options("ext-fse-ng", [("subtract_previous_report", &off)]);
        assert_eq!(
            m.unwrap(),
            Mechanism::ExtendedFseNg(ExtendedFseNgConfig {
                count_change_twice: false,
                subtract_previous_report: false,
            })
        );
        let err = mechanism_with_options("fse-ng", [("subtract_previous_report", &off)]);
        assert!(err.is_err(), "FSE-NG has no window reports to subtract");
        let prop = OptionValue::Text("proportional".into());
        let m = mechanism_with_options("fse", [("distribution", &prop)]).unwrap();
        assert!(matches!(
            m,
            Mechanism::Fse(FseConfig {
                distribution: Distribution::Proportional,
                ..
            })
        ));
    }

    #[test]
    fn every_spelling_of_a_name_in_one_place() {
        for (spelling, name) in [
            ("FSEv2", "fsev2"),
            ("fse_v2", "fsev2"),
            ("FSE-NG", "fse-ng"),
            ("Extended FSE-NG", "ext-fse-ng"),
            ("EXT_FSE_NG", "ext-fse-ng"),
            ("conservative FSE", "conservative-fse"),
            ("None", "none"),
            (" fse ", "fse"),
        ] {
            assert_eq!(
                Mechanism::canonical_name(spelling),
                Some(name),
                "{spelling}"
            );
            let m = mechanism_with_options(spelling, []).unwrap();
            assert_eq!(m, mechanism_with_options(name, []).unwrap());
        }
        // Every mechanism's printed name reads back as itself.
        for name in Mechanism::NAMES {
            let m = Mechanism::from_name(name).unwrap();
            let back = Mechanism::from_name(m.display_name()).unwrap();
            assert_eq!(back.display_name(), m.display_name(), "{name}");
        }
        assert_eq!(Mechanism::from_name("none"), Some(Mechanism::Uncoupled));
        let off = OptionValue::Bool(false);
        let err = mechanism_with_options("none", [("x", &off)]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "mechanism 'none' takes no options, got 'x'"
        );
        assert_eq!(Mechanism::canonical_name("fsev3"), None);
    }

    #[test]
    fn unknown_names_and_wrong_types_are_named() {
        let err = mechanism_with_options("fsev3", []).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("unknown coupling mechanism 'fsev3'"),
            "{err}"
        );
        let yes = OptionValue::Bool(true);
        let err = mechanism_with_options("fse", [("count_change_twice", &yes)]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "unknown option 'count_change_twice' for fse (expected one of: distribution, reset_aggregate_to_allocated)"
        );
        let text = OptionValue::Text("yes".into());
        let err = mechanism_with_options("fse-ng", [("count_change_twice", &text)]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "option 'count_change_twice' expects true or false, got 'yes'"
        );
    }
}
