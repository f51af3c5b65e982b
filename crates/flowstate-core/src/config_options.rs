//! A controller configuration's options, described once next to the configuration:
//! the key a scenario writes, its unit, its description, its default (read from the
//! configuration's `Default`) and how a value is set. Drivers (the simulator's flow
//! overrides, `flowstate list-options`) read these tables instead of restating the
//! fields; see [`crate::nada::NadaConfig::OPTIONS`] for an example.
//!
//! Values arrive as plain numbers in the option's unit (a rate in bit/s, a duration in
//! ms, a size in bytes) or as flags; the range checks every option of a unit shares
//! (a duration at most a day, a count a whole number from 1 to 1,000,000, a frame rate
//! from 1 to 1000 frames/s) are made here, the configuration's own bounds by its
//! `validate()`.

use crate::units::{Bitrate, DataSize, TimeDelta};

/// The unit an option's value is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OptionUnit {
    /// A plain number (a gain, a ratio, a factor).
    Number,
    /// A duration in milliseconds (at most a day).
    Millis,
    /// A rate in bit/s.
    BitsPerSec,
    /// A rate of change of a rate, in bit/s per second.
    BitsPerSecPerSec,
    /// A size in bytes.
    Bytes,
    /// A whole number of things, from 1 to 1,000,000.
    Count,
    /// Frames per second, from 1 to 1000.
    FramesPerSec,
    /// `true` or `false`.
    Flag,
}

impl OptionUnit {
    /// The unit as listed (`ms`, `bit/s`); `None` for plain numbers, counts and flags.
    pub const fn symbol(self) -> Option<&'static str> {
        match self {
            Self::Millis => Some("ms"),
            Self::BitsPerSec => Some("bit/s"),
            Self::BitsPerSecPerSec => Some("bit/s per s"),
            Self::Bytes => Some("B"),
            Self::FramesPerSec => Some("frames/s"),
            Self::Number | Self::Count | Self::Flag => None,
        }
    }
}

/// An option value as a driver read it: a number in the option's unit, or a flag.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum OptionInput {
    Number(f64),
    Flag(bool),
}

/// The longest duration an option takes: a day, in ms.
pub const MAX_MILLIS: f64 = 86_400_000.0;
/// The frame rates an option takes.
pub const FRAME_RATES: (f64, f64) = (1.0, 1000.0);
/// The largest count an option takes.
pub const MAX_COUNT: f64 = 1e6;

/// A configuration field an option sets: how a value in the option's unit becomes the
/// field's type, and how the field's value is shown in that unit.
pub trait OptionField: Sized {
    /// The field's value from `input` in `unit`; the error is a message without the key
    /// (`must be at most 86400000 ms (a day), got 9e9 ms`).
    fn from_input(unit: OptionUnit, input: OptionInput) -> Result<Self, String>;
    /// The value as written in `unit` (`100` for 100 ms).
    fn show(&self, unit: OptionUnit) -> String;
}

fn number(input: OptionInput) -> Result<f64, String> {
    match input {
        OptionInput::Number(v) => Ok(v),
        OptionInput::Flag(b) => Err(format!("expects a number, got {b}")),
    }
}

/// A number in `unit`, with the unit's range checked.
fn checked(unit: OptionUnit, input: OptionInput) -> Result<f64, String> {
    let v = number(input)?;
    match unit {
        OptionUnit::Millis if v > MAX_MILLIS => Err(format!(
            "must be at most {MAX_MILLIS} ms (a day), got {v} ms"
        )),
        OptionUnit::FramesPerSec if !(FRAME_RATES.0..=FRAME_RATES.1).contains(&v) => Err(format!(
            "must be between {} and {} frames per second, got {v}",
            FRAME_RATES.0, FRAME_RATES.1
        )),
        OptionUnit::Count if v.fract() != 0.0 || !(1.0..=MAX_COUNT).contains(&v) => Err(format!(
            "must be a whole number from 1 to {MAX_COUNT}, got {v}"
        )),
        _ => Ok(v),
    }
}

impl OptionField for f64 {
    fn from_input(unit: OptionUnit, input: OptionInput) -> Result<Self, String> {
        checked(unit, input)
    }
    fn show(&self, _unit: OptionUnit) -> String {
        self.to_string()
    }
}

impl OptionField for bool {
    fn from_input(_unit: OptionUnit, input: OptionInput) -> Result<Self, String> {
        match input {
            OptionInput::Flag(b) => Ok(b),
            OptionInput::Number(v) => Err(format!("expects true or false, got {v}")),
        }
    }
    fn show(&self, _unit: OptionUnit) -> String {
        self.to_string()
    }
}

impl OptionField for TimeDelta {
    fn from_input(unit: OptionUnit, input: OptionInput) -> Result<Self, String> {
        checked(unit, input).map(|ms| TimeDelta::from_secs_f64(ms / 1e3))
    }
    fn show(&self, _unit: OptionUnit) -> String {
        self.as_millis_f64().to_string()
    }
}

/// An optional duration: unset (shown as `none`) unless a value is given.
impl OptionField for Option<TimeDelta> {
    fn from_input(unit: OptionUnit, input: OptionInput) -> Result<Self, String> {
        TimeDelta::from_input(unit, input).map(Some)
    }
    fn show(&self, unit: OptionUnit) -> String {
        self.map_or_else(|| "none".into(), |d| d.show(unit))
    }
}

impl OptionField for Bitrate {
    fn from_input(unit: OptionUnit, input: OptionInput) -> Result<Self, String> {
        checked(unit, input).map(Bitrate::bps)
    }
    fn show(&self, _unit: OptionUnit) -> String {
        self.as_bps().to_string()
    }
}

impl OptionField for DataSize {
    fn from_input(unit: OptionUnit, input: OptionInput) -> Result<Self, String> {
        checked(unit, input).map(|b| DataSize::bytes(b.round() as u64))
    }
    fn show(&self, _unit: OptionUnit) -> String {
        self.as_bytes().to_string()
    }
}

impl OptionField for usize {
    fn from_input(unit: OptionUnit, input: OptionInput) -> Result<Self, String> {
        checked(unit, input).map(|n| n as usize)
    }
    fn show(&self, _unit: OptionUnit) -> String {
        self.to_string()
    }
}

impl OptionField for u64 {
    fn from_input(unit: OptionUnit, input: OptionInput) -> Result<Self, String> {
        checked(unit, input).map(|n| n as u64)
    }
    fn show(&self, _unit: OptionUnit) -> String {
        self.to_string()
    }
}

/// One option of a configuration `C`.
pub struct ConfigOption<C> {
    /// The key a scenario writes (`x_ref_ms`: durations carry `_ms`).
    pub key: &'static str,
    /// The unit its value is written in.
    pub unit: OptionUnit,
    /// What it is, with its source (the doc comment of the table entry; see
    /// [`ConfigOption::description`]).
    pub doc: &'static str,
    /// The value in `config`, in the option's unit.
    pub show: fn(&C) -> String,
    /// Set the value in `config`; the error names no key.
    pub set: fn(&mut C, OptionInput) -> Result<(), String>,
}

impl<C> std::fmt::Debug for ConfigOption<C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ConfigOption")
            .field("key", &self.key)
            .field("unit", &self.unit)
            .finish()
    }
}

impl<C> ConfigOption<C> {
    /// The description on one line.
    pub fn description(&self) -> String {
        self.doc.split_whitespace().collect::<Vec<_>>().join(" ")
    }
}

impl<C: Default> ConfigOption<C> {
    /// The default value, in the option's unit.
    pub fn default_text(&self) -> String {
        (self.show)(&C::default())
    }
}

/// The option of `options` whose key is `key`.
pub fn find<'a, C>(options: &'a [ConfigOption<C>], key: &str) -> Option<&'a ConfigOption<C>> {
    options.iter().find(|o| o.key == key)
}

/// A configuration's option table from one list: `/// description` `key: Unit => field;`
/// (the description is the line a user reads in `list-options`).
#[macro_export]
macro_rules! config_options {
    ($config:ty { $( $(#[doc = $doc:literal])* $key:ident: $unit:ident => $field:ident; )* }) => {
        &[$(
            $crate::config_options::ConfigOption::<$config> {
                key: stringify!($key),
                unit: $crate::config_options::OptionUnit::$unit,
                doc: concat!($($doc, "\n"),*),
                show: |c| $crate::config_options::OptionField::show(
                    &c.$field,
                    $crate::config_options::OptionUnit::$unit,
                ),
                set: |c, v| {
                    c.$field = $crate::config_options::OptionField::from_input(
                        $crate::config_options::OptionUnit::$unit,
                        v,
                    )?;
                    Ok(())
                },
            },
        )*]
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Default)]
    struct Toy {
        gain: f64,
        interval: TimeDelta,
        taps: usize,
        cap: Option<TimeDelta>,
    }

    const TOY: &[ConfigOption<Toy>] = config_options!(Toy {
        /// A gain.
        gain: Number => gain;
        /// An interval.
        interval_ms: Millis => interval;
        /// A count.
        taps: Count => taps;
        /// An optional cap.
        cap_ms: Millis => cap;
    });

    #[test]
    fn values_are_set_and_shown_in_their_unit() {
        let mut t = Toy::default();
        (find(TOY, "interval_ms").unwrap().set)(&mut t, OptionInput::Number(250.0)).unwrap();
        assert_eq!(t.interval, TimeDelta::millis(250));
        assert_eq!((find(TOY, "interval_ms").unwrap().show)(&t), "250");
        assert_eq!(find(TOY, "cap_ms").unwrap().default_text(), "none");
        (find(TOY, "cap_ms").unwrap().set)(&mut t, OptionInput::Number(5.0)).unwrap();
        assert_eq!(t.cap, Some(TimeDelta::millis(5)));
        assert_eq!(find(TOY, "gain").unwrap().description(), "A gain.");
    }

    #[test]
    fn unit_ranges_are_checked() {
        let mut t = Toy::default();
        let taps = find(TOY, "taps").unwrap();
        assert_eq!(
            (taps.set)(&mut t, OptionInput::Number(2.5)),
            Err("must be a whole number from 1 to 1000000, got 2.5".into())
        );
        let interval = find(TOY, "interval_ms").unwrap();
        assert!((interval.set)(&mut t, OptionInput::Number(9e9))
            .unwrap_err()
            .contains("a day"));
        assert!((interval.set)(&mut t, OptionInput::Flag(true)).is_err());
    }
}
