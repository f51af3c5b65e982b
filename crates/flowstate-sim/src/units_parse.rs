//! Human units in scenario files: times (`"50ms"`, `"1.5s"`), bit rates (`"2Mbps"`, `"500kbps"`, `"1.5Mbit/s"`, or in bytes per second:
//! `"2MBps"`, `"250kB/s"`), sizes (`"1200B"`, `"75kB"`), queue limits (`"300ms"`,
//! `"62pkt"`, `"75kB"`).
//!
//! One grammar for every value: a number (no space inside it), optional spaces, a unit
//! (no space inside it either: `"2 2Mbps"` is an error, not 22 Mbit/s). Case matters
//! where it changes the meaning: `b` is a bit and `B` a byte, so `"2MBps"` is 16 Mbit/s
//! and a size in bits (`"8000b"`) is rejected with the size units named. Prefixes
//! (`k`/`K`, `M`/`m`, `G`/`g`) and time units are read in either case. The Python side
//! (`flowstate.derived`) calls these functions rather than parsing units itself.
//!
//! Values keep their sign so that validation can name the field in its message
//! ("must be >= 0 s, got -3 s") instead of failing inside the parser.

use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;
use std::fmt;

/// Longest `duration`: the simulator's clock counts microseconds in 64 bits, and a
/// longer run would never reach its end.
pub const MAX_DURATION_SECS: f64 = 1e12;

/// The units a bit rate may carry, as error messages name them.
pub const RATE_UNITS: &str =
    "bps, kbps, Mbps, Gbps (or bit/s, kbit/s, ...); bytes per second: Bps, kBps, MBps, GBps (or B/s, kB/s, ...)";

/// The units a size may carry, as error messages name them.
pub const SIZE_UNITS: &str = "B, kB, KiB, MB, MiB or bytes";

/// Split `"1.5 Mbps"` into `(1.5, "Mbps")`, the unit as written (its case matters).
/// `Err(Some(reason))` for a space inside the number or the unit, `Err(None)` for
/// anything else that is not a finite number followed by a unit.
fn split(s: &str) -> Result<(f64, &str), Option<String>> {
    let t = s.trim();
    let idx = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-' || c == '+' || c == 'e'))
        .unwrap_or(t.len());
    // An 'e' directly followed by a letter is part of the unit, not an exponent.
    let idx = if t[..idx].ends_with('e') {
        idx - 1
    } else {
        idx
    };
    let (num, rest) = t.split_at(idx);
    let unit = rest.trim_start();
    let spaced = unit.len() < rest.len();
    let numeric = |c: char| c.is_ascii_digit() || "+-.".contains(c);
    let continues_number = unit.starts_with(numeric)
        || ((unit.starts_with(['e', 'E'])) && unit[1..].starts_with(numeric));
    if unit.contains(char::is_whitespace) || (spaced && continues_number) {
        return Err(Some(format!(
            "\"{s}\": a space inside a number or a unit (write \"22Mbps\", not \"2 2Mbps\")"
        )));
    }
    let v: f64 = num.parse().map_err(|_| None)?;
    if v.is_finite() {
        Ok((v, unit))
    } else {
        Err(None)
    }
}

/// `split`, with `expected` as the message when there is no specific reason.
fn split_or(s: &str, expected: impl Fn() -> String) -> Result<(f64, &str), String> {
    split(s).map_err(|reason| reason.unwrap_or_else(expected))
}

/// `v * mult`, or an error naming `s` when the product overflows to infinity
/// (`"1e308min"`, `"1e300Gbps"`): an infinite duration would never end.
fn scaled(s: &str, v: f64, mult: f64) -> Result<f64, String> {
    let x = v * mult;
    if x.is_finite() {
        Ok(x)
    } else {
        Err(format!("\"{s}\" is too large"))
    }
}

/// Seconds per time unit (any case), or `None`.
fn time_mult(unit: &str) -> Option<f64> {
    Some(match unit.to_lowercase().as_str() {
        "us" | "µs" => 1e-6,
        "ms" => 1e-3,
        "s" => 1.0,
        "min" => 60.0,
        _ => return None,
    })
}

/// The units a time may carry, as error messages name them.
pub const TIME_UNITS: &str = "us, ms, s or min";

/// Parse a time to seconds. The unit is required: `"10"` is an error.
pub fn parse_secs(s: &str) -> Result<f64, String> {
    let err =
        || format!("expected a time such as \"50ms\" or \"2s\", got \"{s}\" (units: {TIME_UNITS})");
    let (v, unit) = split_or(s, err)?;
    if unit.is_empty() {
        return Err(bare_time_error(s.trim()));
    }
    let mult = time_mult(unit).ok_or_else(err)?;
    scaled(s, v, mult)
}

/// A decimal prefix in either case (`k`, `M`, `G`) and the rest of the unit.
fn decimal_prefix(unit: &str) -> (f64, &str) {
    match unit.chars().next() {
        Some('k' | 'K') => (1e3, &unit[1..]),
        Some('m' | 'M') => (1e6, &unit[1..]),
        Some('g' | 'G') => (1e9, &unit[1..]),
        _ => (1.0, unit),
    }
}

/// Bit/s per rate unit: `b` = bit, `B` = byte (8 bits), or `None`.
fn rate_mult(unit: &str) -> Option<f64> {
    let (scale, rest) = decimal_prefix(unit);
    let per = match rest {
        "bps" | "bit/s" => 1.0,
        "Bps" | "B/s" => 8.0,
        _ => return None,
    };
    Some(scale * per)
}

/// Parse a bit rate to bit/s.
pub fn parse_bps(s: &str) -> Result<f64, String> {
    let err = || {
        format!(
            "expected a bit rate such as \"2Mbps\" or \"500kbps\", got \"{s}\" (units: {RATE_UNITS})"
        )
    };
    let (v, unit) = split_or(s, err)?;
    let mult = rate_mult(unit).ok_or_else(err)?;
    scaled(s, v, mult)
}

/// Bytes per size unit, `Err(true)` for a unit in bits (`b`, `kb`, `bit`: a byte is
/// `B`), `Err(false)` for anything else that is not a size unit.
fn size_mult(unit: &str) -> Result<f64, bool> {
    if matches!(unit.to_lowercase().as_str(), "byte" | "bytes") {
        return Ok(1.0);
    }
    if matches!(unit.to_lowercase().as_str(), "bit" | "bits") {
        return Err(true);
    }
    let (scale, rest) = match unit.get(..2) {
        Some("ki" | "Ki" | "KI") => (1024.0, &unit[2..]),
        Some("mi" | "Mi" | "MI") => (1024.0 * 1024.0, &unit[2..]),
        _ => decimal_prefix(unit),
    };
    match rest {
        "B" => Ok(scale),
        "b" => Err(true),
        _ => Err(false),
    }
}

/// A size unit's error: bits are named as such, anything else gets the choices.
fn size_err(s: &str, bits: bool) -> String {
    if bits {
        format!("\"{s}\" is in bits (b = bit, B = byte): write the size in bytes ({SIZE_UNITS})")
    } else {
        format!("expected a size such as \"1200B\" or \"75kB\", got \"{s}\" (units: {SIZE_UNITS})")
    }
}

/// Parse a size to bytes.
pub fn parse_bytes(s: &str) -> Result<f64, String> {
    let (v, unit) = split_or(s, || size_err(s, false))?;
    let mult = size_mult(unit).map_err(|bits| size_err(s, bits))?;
    scaled(s, v, mult)
}

/// A time in seconds (signed; validated later). Must carry a unit: a bare number other
/// than 0 is an error, never read as seconds (`delay = 10` is ten seconds or ten
/// milliseconds depending on who wrote it).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Secs(pub f64);

/// The error for a time written as a bare number.
pub fn bare_time_error(v: impl fmt::Display) -> String {
    format!("a time needs a unit ({TIME_UNITS}): write \"{v}s\" or \"{v}ms\", not {v}")
}

/// A time written as a bare number: zero, or the error naming the units.
fn bare_time<E: de::Error>(v: f64, written: impl fmt::Display) -> Result<Secs, E> {
    if v == 0.0 {
        Ok(Secs(0.0))
    } else {
        Err(E::custom(bare_time_error(written)))
    }
}

impl<'de> Deserialize<'de> for Secs {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Secs;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a time with a unit, such as \"50ms\"")
            }
            // Zero is zero in every unit (as in CSS): `at = 0` stays allowed.
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Secs, E> {
                bare_time(v as f64, v)
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Secs, E> {
                bare_time(v as f64, v)
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Secs, E> {
                bare_time(v, v)
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Secs, E> {
                parse_secs(v).map(Secs).map_err(E::custom)
            }
        }
        d.deserialize_any(V)
    }
}

/// A bit rate in bit/s (signed; validated later). Must carry a unit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bps(pub f64);

impl<'de> Deserialize<'de> for Bps {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Bps;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a bit rate with a unit, such as \"2Mbps\"")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Bps, E> {
                parse_bps(v).map(Bps).map_err(E::custom)
            }
        }
        d.deserialize_any(V)
    }
}

/// A size in bytes (signed; validated later). Must carry a unit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bytes(pub f64);

impl<'de> Deserialize<'de> for Bytes {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Bytes;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a size with a unit, such as \"1200B\"")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Bytes, E> {
                parse_bytes(v).map(Bytes).map_err(E::custom)
            }
        }
        d.deserialize_any(V)
    }
}

/// A queue limit as written.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum QueueSpec {
    Bytes(f64),
    Packets(f64),
    Secs(f64),
}

impl<'de> Deserialize<'de> for QueueSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = QueueSpec;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a queue limit such as \"300ms\", \"62pkt\" or \"75kB\"")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<QueueSpec, E> {
                let expected = || {
                    format!(
                        "expected a queue limit such as \"300ms\", \"62pkt\" or \"75kB\", got \"{s}\" (size units: {SIZE_UNITS})"
                    )
                };
                let (v, unit) = split_or(s, expected).map_err(E::custom)?;
                match unit.to_lowercase().as_str() {
                    "pkt" | "pkts" | "packet" | "packets" => return Ok(QueueSpec::Packets(v)),
                    "us" | "ms" | "s" => {
                        return parse_secs(s).map(QueueSpec::Secs).map_err(E::custom)
                    }
                    _ => {}
                }
                match size_mult(unit) {
                    Ok(mult) => scaled(s, v, mult).map(QueueSpec::Bytes).map_err(E::custom),
                    Err(true) => Err(E::custom(size_err(s, true))),
                    Err(false) => Err(E::custom(expected())),
                }
            }
        }
        d.deserialize_any(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units() {
        assert_eq!(parse_secs("50ms"), Ok(0.05));
        assert_eq!(parse_secs("1.5 s"), Ok(1.5));
        assert_eq!(parse_secs("2min"), Ok(120.0));
        assert_eq!(parse_secs("-3s"), Ok(-3.0));
        assert!(parse_secs("5Mbps").is_err());
        let e = parse_secs("10").unwrap_err();
        assert!(e.contains("needs a unit") && e.contains("\"10ms\""), "{e}");
        assert_eq!(parse_bps("2Mbps"), Ok(2e6));
        assert_eq!(parse_bps("500 kbit/s"), Ok(5e5));
        assert!(parse_bps("2").is_err(), "a rate needs a unit");
        assert!(parse_bps("50ms").is_err());
        assert_eq!(parse_bytes("75kB"), Ok(75_000.0));
        assert_eq!(parse_bytes("1KiB"), Ok(1024.0));
        assert_eq!(parse_bytes("1e3B"), Ok(1000.0));
        assert!(parse_bytes("12").is_err());
    }

    #[test]
    fn b_is_a_bit_and_capital_b_a_byte() {
        assert_eq!(parse_bps("2MBps"), Ok(16e6));
        assert_eq!(parse_bps("250kBps"), Ok(2e6));
        assert_eq!(parse_bps("1 MB/s"), Ok(8e6));
        assert_eq!(parse_bps("2mbps"), Ok(2e6), "a prefix in either case");
        assert_eq!(parse_bps("3Kbit/s"), Ok(3e3));
        let e = parse_bps("2MBPS").unwrap_err();
        assert!(e.contains("units: bps, kbps, Mbps"), "{e}");
        let e = parse_bytes("8000b").unwrap_err();
        assert!(e.contains("in bits") && e.contains("B, kB, KiB"), "{e}");
        assert!(parse_bytes("75kb").unwrap_err().contains("in bits"));
        assert_eq!(parse_bytes("75KB"), Ok(75_000.0));
        assert_eq!(parse_bytes("1200 bytes"), Ok(1200.0));
        assert!(parse_bytes("3xB").unwrap_err().contains("units: B, kB"));
    }

    #[test]
    fn a_space_inside_a_number_is_an_error() {
        for s in ["2 2Mbps", "1 000kbps", "2. 5Mbps", "1 e3B", "1 0ms", "2 2"] {
            let e = parse_bps(s)
                .and(parse_bytes(s))
                .and(parse_secs(s))
                .unwrap_err();
            assert!(e.contains("space inside"), "{s}: {e}");
        }
        assert!(parse_bps("2 2Mbps").unwrap_err().contains("space inside"));
        assert!(parse_bytes("1 200B").unwrap_err().contains("space inside"));
        assert!(parse_secs("5 0ms").unwrap_err().contains("space inside"));
        assert!(parse_bps("2 M bps").unwrap_err().contains("space inside"));
        // Spaces around the number and before the unit stay allowed.
        assert_eq!(parse_bps(" 2 Mbps "), Ok(2e6));
        assert_eq!(parse_secs(" 2 s "), Ok(2.0));
    }

    #[test]
    fn a_bare_number_is_not_a_time() {
        for text in ["t = 10", "t = 0.5", "t = -3", "t = 1e-3"] {
            let table: toml::Table = toml::from_str(text).unwrap();
            let e = table["t"]
                .clone()
                .try_into::<Secs>()
                .unwrap_err()
                .to_string();
            assert!(e.contains("a time needs a unit"), "{text}: {e}");
        }
        let table: toml::Table = toml::from_str("t = \"10ms\"").unwrap();
        assert_eq!(table["t"].clone().try_into::<Secs>().unwrap(), Secs(0.01));
        // Zero is zero in every unit.
        for text in ["t = 0", "t = 0.0"] {
            let table: toml::Table = toml::from_str(text).unwrap();
            assert_eq!(table["t"].clone().try_into::<Secs>().unwrap(), Secs(0.0));
        }
    }

    #[test]
    fn queue_limits_follow_the_same_units() {
        let q = |s: &str| {
            toml::from_str::<toml::Table>(&format!("q = \"{s}\"")).unwrap()["q"]
                .clone()
                .try_into::<QueueSpec>()
        };
        assert_eq!(q("75kB").unwrap(), QueueSpec::Bytes(75_000.0));
        assert_eq!(q("62pkt").unwrap(), QueueSpec::Packets(62.0));
        assert_eq!(q("300ms").unwrap(), QueueSpec::Secs(0.3));
        assert!(q("75kb").unwrap_err().to_string().contains("in bits"));
        assert!(q("6 2pkt")
            .unwrap_err()
            .to_string()
            .contains("space inside"));
    }

    #[test]
    fn a_unit_that_overflows_to_infinity_is_an_error() {
        assert_eq!(
            parse_secs("1e308min"),
            Err("\"1e308min\" is too large".to_string())
        );
        assert_eq!(
            parse_bps("1e300Gbps"),
            Err("\"1e300Gbps\" is too large".to_string())
        );
        assert_eq!(
            parse_bytes("1e308MiB"),
            Err("\"1e308MiB\" is too large".to_string())
        );
    }
}
