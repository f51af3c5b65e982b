//! Building a [`Mechanism`] from a name and loosely typed options, as scenario files,
//! the CLI and the Python bindings supply them. Every option a mechanism's config
//! struct has can be set by its snake_case field name; an unknown name or a value of the
//! wrong type is an error that names the option.

use super::conservative::ConservativeConfig;
use super::fse::{Distribution, FseConfig};
use super::fse_v2::CwndRtt;
use super::manager::Mechanism;

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
    #[error("mechanism 'none' takes no options, got '{option}'")]
    NoOptions { option: String },
    #[error("option '{option}' expects {expected}, got {got}")]
    WrongType {
        option: String,
        expected: &'static str,
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

fn as_bool(option: &str, value: &OptionValue) -> Result<bool, OptionError> {
    match value {
        OptionValue::Bool(b) => Ok(*b),
        other => Err(OptionError::WrongType {
            option: option.to_string(),
            expected: "true or false",
            got: describe(other),
        }),
    }
}

fn as_positive(option: &str, value: &OptionValue) -> Result<f64, OptionError> {
    match value {
        OptionValue::Number(n) if n.is_finite() && *n > 0.0 => Ok(*n),
        other => Err(OptionError::WrongType {
            option: option.to_string(),
            expected: "a number > 0",
            got: describe(other),
        }),
    }
}

fn as_distribution(option: &str, value: &OptionValue) -> Result<Distribution, OptionError> {
    match value {
        OptionValue::Text(t) if t == "water-filling" => Ok(Distribution::WaterFilling),
        OptionValue::Text(t) if t == "proportional" => Ok(Distribution::Proportional),
        other => Err(OptionError::WrongType {
            option: option.to_string(),
            expected: "'water-filling' or 'proportional'",
            got: describe(other),
        }),
    }
}

/// The option names each mechanism accepts.
pub fn option_names(mechanism: &Mechanism) -> &'static [&'static str] {
    match mechanism {
        Mechanism::Uncoupled => &[],
        Mechanism::Fse(_) => &["distribution", "reset_aggregate_to_allocated"],
        Mechanism::ConservativeFse(_) => &[
            "distribution",
            "increase_limit_per_flow_count",
            "reducer_may_update_during_timer",
            "timer_rtts",
            "reset_aggregate_to_allocated",
        ],
        Mechanism::FseNg(_) => &["count_change_twice"],
        Mechanism::ExtendedFseNg(_) => &["count_change_twice", "subtract_previous_report"],
        Mechanism::FseV2(_) => &[
            "rate_priority_boost",
            "honour_desired_cwnd",
            "cwnd_rtt",
            "give_rounding_to_rate_flows",
            "proportional_rate_decrease",
        ],
    }
}

/// The mechanism called `name` with `options` applied over its defaults.
pub fn mechanism_with_options<'a>(
    name: &str,
    options: impl IntoIterator<Item = (&'a str, &'a OptionValue)>,
) -> Result<Mechanism, OptionError> {
    let mut mechanism = Mechanism::from_name(name)
        .ok_or_else(|| OptionError::UnknownMechanism(name.to_string()))?;
    for (option, value) in options {
        apply(&mut mechanism, name, option, value)?;
    }
    Ok(mechanism)
}

fn apply(
    mechanism: &mut Mechanism,
    name: &str,
    option: &str,
    value: &OptionValue,
) -> Result<(), OptionError> {
    let unknown = |m: &Mechanism| OptionError::UnknownOption {
        mechanism: name.to_string(),
        option: option.to_string(),
        expected: option_names(m).join(", "),
    };
    match mechanism {
        Mechanism::Uncoupled => {
            return Err(OptionError::NoOptions {
                option: option.to_string(),
            })
        }
        Mechanism::Fse(FseConfig {
            distribution,
            reset_aggregate_to_allocated,
        }) => match option {
            "distribution" => *distribution = as_distribution(option, value)?,
            "reset_aggregate_to_allocated" => {
                *reset_aggregate_to_allocated = as_bool(option, value)?
            }
            _ => return Err(unknown(mechanism)),
        },
        Mechanism::ConservativeFse(ConservativeConfig {
            distribution,
            increase_limit_per_flow_count,
            reducer_may_update_during_timer,
            timer_rtts,
            reset_aggregate_to_allocated,
        }) => match option {
            "distribution" => *distribution = as_distribution(option, value)?,
            "increase_limit_per_flow_count" => {
                *increase_limit_per_flow_count = as_bool(option, value)?
            }
            "reducer_may_update_during_timer" => {
                *reducer_may_update_during_timer = as_bool(option, value)?
            }
            "timer_rtts" => *timer_rtts = as_positive(option, value)?.round() as i64,
            "reset_aggregate_to_allocated" => {
                *reset_aggregate_to_allocated = as_bool(option, value)?
            }
            _ => return Err(unknown(mechanism)),
        },
        Mechanism::FseNg(config) => match option {
            "count_change_twice" => config.count_change_twice = as_bool(option, value)?,
            _ => return Err(unknown(mechanism)),
        },
        Mechanism::ExtendedFseNg(config) => match option {
            "count_change_twice" => config.count_change_twice = as_bool(option, value)?,
            "subtract_previous_report" => config.subtract_previous_report = as_bool(option, value)?,
            _ => return Err(unknown(mechanism)),
        },
        Mechanism::FseV2(config) => match option {
            "rate_priority_boost" => config.rate_priority_boost = Some(as_positive(option, value)?),
            "honour_desired_cwnd" => config.honour_desired_cwnd = as_bool(option, value)?,
            "proportional_rate_decrease" => {
                config.proportional_rate_decrease = as_bool(option, value)?
            }
            "give_rounding_to_rate_flows" => {
                config.give_rounding_to_rate_flows = as_bool(option, value)?
            }
            "cwnd_rtt" => {
                config.cwnd_rtt = match value {
                    OptionValue::Text(t) if t == "newest" => CwndRtt::Newest,
                    OptionValue::Text(t) if t == "minimum" => CwndRtt::Minimum,
                    other => {
                        return Err(OptionError::WrongType {
                            option: option.to_string(),
                            expected: "'newest' or 'minimum'",
                            got: describe(other),
                        })
                    }
                }
            }
            _ => return Err(unknown(mechanism)),
        },
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::coupling::{ExtendedFseNgConfig, FseNgConfig, FseV2Config};

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
