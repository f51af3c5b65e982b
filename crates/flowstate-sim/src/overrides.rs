//! A flow's `overrides` table (`[[flows]] overrides = { ... }`): the description of a
//! key ([`OverrideDef`]: key, flow kinds, unit, default, description), the
//! [`overrides!`] macro a kind's file uses to define its keys once (the struct that
//! reads the table, strictly, and its definitions), the reader of a controller's
//! option table ([`ConfigOverrides`], for the configurations that describe their own
//! options in flowstate-core), and the list `flowstate list-options` prints through
//! the bindings (`_native.definitions()`), gathered from every kind by
//! `kinds::definitions()`.
//!
//! Defaults that depend on the GCC preset are computed from the presets' configurations
//! ([`OverrideDefault::PerPreset`]), so a new preset shows its own.

use crate::error::FieldError;
use crate::units_parse::{Bps, Bytes};
use flowstate_core::config_options::{self, ConfigOption, OptionInput, OptionUnit};
use flowstate_core::gcc::GccPreset;

/// An override's default value.
#[derive(Debug, Clone)]
pub enum OverrideDefault {
    /// The field is required (no default).
    Required,
    /// A fixed value, as text in the override's unit.
    Value(fn() -> String),
    /// A fixed value read from a configuration's defaults.
    Text(String),
    /// Depends on the flow's GCC preset; `None`: the override does not apply to that
    /// preset.
    PerPreset(fn(GccPreset) -> Option<String>),
}

impl OverrideDefault {
    /// One line: the value, `required`, or (when the presets differ) each preset's value
    /// (`chromium: 1.1, paper: 1.5, paper-static: 1.5`; `-` where it does not apply).
    pub fn describe(&self) -> Option<String> {
        match self {
            Self::Required => None,
            Self::Value(f) => Some(f()),
            Self::Text(t) => Some(t.clone()),
            Self::PerPreset(f) => {
                let values: Vec<_> = GccPreset::ALL.iter().map(|&p| f(p)).collect();
                if values.iter().all(|v| v.is_some() && *v == values[0]) {
                    return values[0].clone();
                }
                let per: Vec<_> = GccPreset::ALL
                    .iter()
                    .zip(values)
                    .map(|(p, v)| format!("{p}: {}", v.as_deref().unwrap_or("-")))
                    .collect();
                Some(per.join(", "))
            }
        }
    }
}

/// One key of a flow's `overrides` table.
#[derive(Debug, Clone)]
pub struct OverrideDef {
    /// The key in the `overrides` table (`start_rate`).
    pub name: &'static str,
    /// The names of the flow kinds that take it.
    pub applies_to: &'static [&'static str],
    /// The unit a value is written in (`bit/s` values carry their unit: `"300kbps"`);
    /// `None` for flags, choices and plain numbers.
    pub unit: Option<&'static str>,
    pub default: OverrideDefault,
    /// The doc comment of the struct field (lines joined).
    pub doc: &'static str,
}

impl OverrideDef {
    /// The key as a scenario writes it: `overrides.start_rate`.
    pub fn key(&self) -> String {
        format!("overrides.{}", self.name)
    }
    /// The description on one line.
    pub fn description(&self) -> String {
        self.doc.split_whitespace().collect::<Vec<_>>().join(" ")
    }
    /// The message when a flow of another kind sets it (`sctp only`, `tcp flows only`).
    pub fn only_message(&self) -> String {
        let tcp = |k: &&str| k.starts_with("tcp-");
        match self.applies_to {
            [k] if !tcp(k) => format!("{k} only"),
            ks if ks.len() > 1 && ks.iter().all(tcp) => "tcp flows only".into(),
            ks => format!("{} flows only", ks.join(" and ")),
        }
    }

    /// True iff a flow of the kind called `kind` takes this key.
    pub fn applies(&self, kind: &str) -> bool {
        self.applies_to.contains(&kind)
    }
}

/// Whether a field of an overrides struct was written in the scenario.
pub(crate) trait IsSet {
    fn is_set(&self) -> bool;
}
impl<T> IsSet for Option<T> {
    fn is_set(&self) -> bool {
        self.is_some()
    }
}
impl IsSet for Bps {
    fn is_set(&self) -> bool {
        true
    }
}

/// The number a field holds, if it is a number that was written (rates, sizes, plain
/// numbers); flags and choices hold none.
pub(crate) trait Number {
    fn number(&self) -> Option<f64>;
}
impl<T: Number> Number for Option<T> {
    fn number(&self) -> Option<f64> {
        self.as_ref().and_then(Number::number)
    }
}
impl Number for Bps {
    fn number(&self) -> Option<f64> {
        Some(self.0)
    }
}
impl Number for Bytes {
    fn number(&self) -> Option<f64> {
        Some(self.0)
    }
}
impl Number for f64 {
    fn number(&self) -> Option<f64> {
        Some(*self)
    }
}
macro_rules! no_number {
    ($($t:ty),*) => {$(
        impl $crate::overrides::Number for $t {
            fn number(&self) -> Option<f64> {
                None
            }
        }
    )*};
}
pub(crate) use no_number;
no_number!(bool);

/// An overrides struct and its definitions from one list of fields:
/// `/// doc` `name: Type => [Kinds], unit, default;`.
macro_rules! overrides {
    (
        $(#[$meta:meta])*
        pub struct $name:ident {
            $(
                $(#[doc = $doc:literal])*
                $field:ident: $ty:ty => [$($kind:literal),+], $unit:expr, $default:expr;
            )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct $name {
            $( $(#[doc = $doc])* pub $field: $ty, )*
        }

        impl $name {
            /// Every key of this struct, defined once with the field.
            pub const DEFINITIONS: &'static [$crate::overrides::OverrideDef] = &[$(
                $crate::overrides::OverrideDef {
                    name: stringify!($field),
                    applies_to: &[$($kind),+],
                    unit: $unit,
                    default: $default,
                    doc: concat!($($doc, "\n"),*),
                },
            )*];

            /// `(key, value)` of every number the flow set, in the order of the
            /// definitions.
            pub fn numbers(&self) -> Vec<(&'static str, f64)> {
                use $crate::overrides::Number;
                let values = [$( self.$field.number() ),*];
                Self::DEFINITIONS
                    .iter()
                    .zip(values)
                    .filter_map(|(d, v)| v.map(|v| (d.name, v)))
                    .collect()
            }

            /// The definitions of the keys this flow set.
            pub fn set_keys(&self) -> Vec<&'static $crate::overrides::OverrideDef> {
                use $crate::overrides::IsSet;
                let set = [$( self.$field.is_set() ),*];
                Self::DEFINITIONS
                    .iter()
                    .zip(set)
                    .filter_map(|(d, s)| s.then_some(d))
                    .collect()
            }
        }
    };
}

pub(crate) use overrides;

pub(crate) const BPS: Option<&str> = Some("bit/s");
pub(crate) const BYTES: Option<&str> = Some("B");
pub(crate) const FPS: Option<&str> = Some("frames/s");
pub(crate) const MS: Option<&str> = Some("ms");

/// A default as text.
pub(crate) fn text(x: impl ToString) -> Option<String> {
    Some(x.to_string())
}

/// A duration default in ms, as the override is written.
pub(crate) fn ms(d: flowstate_core::TimeDelta) -> String {
    d.as_millis_f64().to_string()
}

/// The keys a flow of `kind` set that its kind does not take: the first one as
/// `.{key}: {kind} only` (e.g. `.sack: tcp flows only`).
pub fn check_kind(kind: &str, set: &[&OverrideDef]) -> Result<(), FieldError> {
    match set.iter().find(|d| !d.applies(kind)) {
        Some(d) => Err(FieldError::new(format!(".{}", d.name), d.only_message())),
        None => Ok(()),
    }
}

/// The definitions of a flowstate-core configuration's options
/// ([`flowstate_core::config_options`]) as keys of the `kinds` flows, then the kind's
/// own keys `own`.
pub fn config_definitions<C: Default>(
    options: &'static [ConfigOption<C>],
    kinds: &'static [&'static str],
    own: &[OverrideDef],
) -> Vec<OverrideDef> {
    let table = options.iter().map(|o| OverrideDef {
        name: o.key,
        applies_to: kinds,
        unit: o.unit.symbol(),
        default: OverrideDefault::Text(o.default_text()),
        doc: o.doc,
    });
    table.chain(own.iter().cloned()).collect()
}

/// A flow's `overrides` read against a flowstate-core configuration's option table
/// plus the kind's own keys (`T`, e.g. the media source's): each table key is read in
/// its option's unit (a rate as `"300kbps"` or bit/s, a size as `"1200B"` or bytes,
/// durations in ms, flags), every number finite and >= 0, then set on the
/// configuration ([`ConfigOverrides::apply`]).
#[derive(Debug, Clone)]
pub struct ConfigOverrides<C: 'static, T> {
    /// The options of the table that were set, in the table's order, with their values.
    set: Vec<(&'static ConfigOption<C>, OptionInput)>,
    /// The kind's own keys.
    pub own: T,
}

impl<C: Default + 'static, T: serde::de::DeserializeOwned + Default> ConfigOverrides<C, T> {
    /// Read `table`. Error: the sub-path under `overrides` (`.x_ref_ms`) and the
    /// message; an unknown key lists every key (the table's, then `own_keys`).
    pub fn parse(
        table: &toml::Table,
        options: &'static [ConfigOption<C>],
        own_keys: &[OverrideDef],
    ) -> Result<Self, FieldError> {
        let mut set = Vec::new();
        let mut own_table = toml::Table::new();
        for (key, value) in table {
            if let Some(o) = config_options::find(options, key) {
                let input = read_input(o.unit, value.clone())
                    .map_err(|m| FieldError::new(format!(".{key}"), m))?;
                set.push((o, input));
            } else if own_keys.iter().any(|d| d.name == key) {
                own_table.insert(key.clone(), value.clone());
            } else {
                let keys: Vec<&str> = options
                    .iter()
                    .map(|o| o.key)
                    .chain(own_keys.iter().map(|d| d.name))
                    .collect();
                return Err(FieldError::new(
                    format!(".{key}"),
                    format!("unknown field `{key}`, expected {}", one_of(&keys)),
                ));
            }
        }
        // Table order, as a struct's fields are read: the definitions' order.
        set.sort_by_key(|(o, _)| options.iter().position(|p| p.key == o.key));
        // A kind without keys of its own (`T = ()`) reads nothing here.
        let own = if own_table.is_empty() {
            T::default()
        } else {
            parse(&own_table)?
        };
        Ok(Self { set, own })
    }

    /// The keys of the table that were set, with their numbers.
    pub fn numbers(&self) -> Vec<(&'static str, f64)> {
        self.set
            .iter()
            .filter_map(|(o, v)| match v {
                OptionInput::Number(x) => Some((o.key, *x)),
                OptionInput::Flag(_) => None,
            })
            .collect()
    }

    /// True iff the table set `key`.
    pub fn has(&self, key: &str) -> bool {
        self.set.iter().any(|(o, _)| o.key == key)
    }

    /// The configuration's defaults with every key set: first every number checked
    /// (finite, >= 0), then each value in definition order. Error: `.{key}: message`.
    pub fn apply(&self) -> Result<C, FieldError> {
        for (key, v) in self.numbers() {
            if !(v.is_finite() && v >= 0.0) {
                return Err(FieldError::new(
                    format!(".{key}"),
                    format!("must be a finite number >= 0, got {v}"),
                ));
            }
        }
        let mut c = C::default();
        for (o, v) in &self.set {
            (o.set)(&mut c, *v).map_err(|m| FieldError::new(format!(".{}", o.key), m))?;
        }
        Ok(c)
    }
}

/// `value` as an option of `unit` takes it.
fn read_input(unit: OptionUnit, value: toml::Value) -> Result<OptionInput, String> {
    let clean = |e: toml::de::Error| e.to_string().trim().replace('\n', " ");
    Ok(match unit {
        OptionUnit::Flag => OptionInput::Flag(value.try_into::<bool>().map_err(clean)?),
        OptionUnit::BitsPerSec => OptionInput::Number(value.try_into::<Bps>().map_err(clean)?.0),
        OptionUnit::Bytes => OptionInput::Number(value.try_into::<Bytes>().map_err(clean)?.0),
        _ => OptionInput::Number(value.try_into::<f64>().map_err(clean)?),
    })
}

/// serde's wording for a list of expected keys: `` `a` ``, `` `a` or `b` ``,
/// `` one of `a`, `b`, `c` ``.
fn one_of(keys: &[&str]) -> String {
    let quoted: Vec<String> = keys.iter().map(|k| format!("`{k}`")).collect();
    match quoted.as_slice() {
        [] => "nothing".into(),
        [k] => k.clone(),
        [a, b] => format!("{a} or {b}"),
        more => format!("one of {}", more.join(", ")),
    }
}

/// A flow's `overrides` table as `T`, parsed strictly. Error: the sub-path under
/// `overrides` (`.k_up`, or empty for the table itself) and the message.
pub fn parse<T: serde::de::DeserializeOwned>(table: &toml::Table) -> Result<T, FieldError> {
    let value = toml::Value::Table(table.clone());
    serde_path_to_error::deserialize::<_, T>(value).map_err(|e| {
        let p = e.path().to_string();
        let msg = e.into_inner().to_string().trim().replace('\n', " ");
        if let Some(missing) = crate::error::missing_field(&msg) {
            let sub = format!(".{}", crate::error::join_path(&p, missing));
            return FieldError::new(sub, "required field is missing");
        }
        let sub = if p == "." {
            String::new()
        } else {
            format!(".{p}")
        };
        FieldError::new(sub, msg)
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Every key the struct reads is in its definitions and nothing else: the serde
    /// error for an unknown key lists the fields.
    pub(crate) fn keys_match<T: serde::de::DeserializeOwned + std::fmt::Debug>(
        defs: &[OverrideDef],
    ) {
        let mut t = toml::Table::new();
        t.insert("no_such_key".into(), toml::Value::Integer(1));
        let e = parse::<T>(&t).expect_err("unknown key");
        for d in defs {
            assert!(
                e.message.contains(&format!("`{}`", d.name)),
                "{} in {e}",
                d.name
            );
        }
        let listed = e.message.matches('`').count() / 2 - 1;
        assert_eq!(listed, defs.len(), "{e}");
    }

    #[test]
    fn one_of_reads_as_serde_writes() {
        assert_eq!(one_of(&["a"]), "`a`");
        assert_eq!(one_of(&["a", "b"]), "`a` or `b`");
        assert_eq!(one_of(&["a", "b", "c"]), "one of `a`, `b`, `c`");
    }
}
