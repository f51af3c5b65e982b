//! Human units in scenario files: times (`"50ms"`, `"1.5s"`, or a bare number of
//! seconds), bit rates (`"2Mbps"`, `"500kbps"`, `"1.5Mbit/s"`), sizes (`"1200B"`,
//! `"75kB"`), queue limits (`"300ms"`, `"62pkt"`, `"75kB"`).
//!
//! Values keep their sign so that validation can name the field in its message
//! ("must be >= 0 s, got -3 s") instead of failing inside the parser.

use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;
use std::fmt;

/// Split `"1.5 Mbps"` into `(1.5, "mbps")` (unit lower-cased, spaces ignored).
fn split(s: &str) -> Option<(f64, String)> {
    let s: String = s.chars().filter(|c| !c.is_whitespace()).collect();
    let idx = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-' || c == '+' || c == 'e'))
        .unwrap_or(s.len());
    // An 'e' directly followed by a letter is part of the unit, not an exponent.
    let (num, unit) = s.split_at(idx);
    let (num, unit) = if let Some(stripped) = num.strip_suffix('e') {
        (stripped, format!("e{unit}"))
    } else {
        (num, unit.to_string())
    };
    let v: f64 = num.parse().ok()?;
    v.is_finite().then(|| (v, unit.to_ascii_lowercase()))
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

/// Parse a time to seconds.
pub fn parse_secs(s: &str) -> Result<f64, String> {
    let err = || format!("expected a time such as \"50ms\" or \"2s\", got \"{s}\"");
    let (v, unit) = split(s).ok_or_else(err)?;
    let mult = match unit.as_str() {
        "us" | "µs" => 1e-6,
        "ms" => 1e-3,
        "s" | "" => 1.0,
        "min" => 60.0,
        _ => return Err(err()),
    };
    scaled(s, v, mult)
}

/// Parse a bit rate to bit/s.
pub fn parse_bps(s: &str) -> Result<f64, String> {
    let err = || format!("expected a bit rate such as \"2Mbps\" or \"500kbps\", got \"{s}\"");
    let (v, unit) = split(s).ok_or_else(err)?;
    let mult = match unit.as_str() {
        "bps" | "bit/s" => 1.0,
        "kbps" | "kbit/s" => 1e3,
        "mbps" | "mbit/s" => 1e6,
        "gbps" | "gbit/s" => 1e9,
        _ => return Err(err()),
    };
    scaled(s, v, mult)
}

/// Parse a size to bytes (`None` if the unit is not a size unit).
fn size_bytes(v: f64, unit: &str) -> Option<f64> {
    let mult = match unit {
        "b" | "byte" | "bytes" => 1.0,
        "kb" => 1e3,
        "kib" => 1024.0,
        "mb" => 1e6,
        "mib" => 1024.0 * 1024.0,
        _ => return None,
    };
    Some(v * mult)
}

/// Parse a size to bytes.
pub fn parse_bytes(s: &str) -> Result<f64, String> {
    let err = || format!("expected a size such as \"1200B\" or \"75kB\", got \"{s}\"");
    let (v, unit) = split(s).ok_or_else(err)?;
    let bytes = size_bytes(v, &unit).ok_or_else(err)?;
    scaled(s, bytes, 1.0)
}

/// A time in seconds (signed; validated later).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Secs(pub f64);

impl<'de> Deserialize<'de> for Secs {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Secs;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a time such as \"50ms\" or a number of seconds")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Secs, E> {
                Ok(Secs(v as f64))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Secs, E> {
                Ok(Secs(v as f64))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Secs, E> {
                if v.is_finite() {
                    Ok(Secs(v))
                } else {
                    Err(E::custom(format!("expected a finite time, got {v}")))
                }
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
                let err = || {
                    E::custom(format!(
                        "expected a queue limit such as \"300ms\", \"62pkt\" or \"75kB\", got \"{s}\""
                    ))
                };
                let (v, unit) = split(s).ok_or_else(err)?;
                match unit.as_str() {
                    "pkt" | "pkts" | "packet" | "packets" => Ok(QueueSpec::Packets(v)),
                    "us" | "ms" | "s" => parse_secs(s).map(QueueSpec::Secs).map_err(E::custom),
                    u => {
                        let bytes = size_bytes(v, u).ok_or_else(err)?;
                        scaled(s, bytes, 1.0)
                            .map(QueueSpec::Bytes)
                            .map_err(E::custom)
                    }
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
