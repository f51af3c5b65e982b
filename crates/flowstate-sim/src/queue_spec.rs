//! A link's `queue` field: a drop-tail limit (`"300ms"`, `"62pkt"`, `"75kB"`) or a
//! table naming the discipline and its parameters, e.g.
//! `{ discipline = "fq-codel", limit = "10240pkt", target = "5ms" }`
//! (docs/SCENARIOS.md, "Queue disciplines"). Every parameter defaults to its RFC's (or
//! Linux's) value; an unknown key or a value out of range is one line naming the key
//! and what it accepts.

use crate::queue::{CodelParams, Discipline, DualPi2Params, FqCodelParams, PieParams, QueueLimit};
use crate::units_parse::{parse_bytes, parse_secs, QueueSpec};
use flowstate_core::TimeDelta;
use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::Deserialize;
use std::fmt;

/// The `queue` field as written.
#[derive(Debug, Clone, PartialEq)]
pub enum QueueField {
    /// A drop-tail queue of this limit.
    Limit(QueueSpec),
    /// `{ discipline = "...", limit = "...", ... }`.
    Table(toml::Table),
}

impl<'de> Deserialize<'de> for QueueField {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = QueueField;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str(
                    "a queue limit such as \"300ms\", \"62pkt\" or \"75kB\", or a table such as { discipline = \"fq-codel\" }",
                )
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<QueueField, E> {
                QueueSpec::deserialize(de::value::StrDeserializer::<E>::new(s))
                    .map(QueueField::Limit)
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<QueueField, A::Error> {
                toml::Table::deserialize(de::value::MapAccessDeserializer::new(map))
                    .map(QueueField::Table)
            }
        }
        d.deserialize_any(V)
    }
}

impl From<QueueSpec> for QueueField {
    fn from(s: QueueSpec) -> Self {
        QueueField::Limit(s)
    }
}

/// The limit a written one means.
pub fn queue_limit(spec: QueueSpec) -> QueueLimit {
    match spec {
        QueueSpec::Bytes(b) => QueueLimit::Bytes(b as u64),
        QueueSpec::Packets(p) => QueueLimit::Packets(p as u64),
        QueueSpec::Secs(s) => QueueLimit::Time(TimeDelta::from_secs_f64(s)),
    }
}

/// What is wrong with a limit, if anything.
pub fn limit_error(spec: QueueSpec) -> Option<String> {
    match spec {
        QueueSpec::Bytes(b) => (b < 1.0).then(|| format!("must hold at least 1 B, got {b} B")),
        QueueSpec::Packets(p) => (p < 1.0 || p.fract() != 0.0)
            .then(|| format!("must be a whole number of packets >= 1, got {p}")),
        QueueSpec::Secs(s) => (s <= 0.0).then(|| format!("must be > 0 s, got {s} s")),
    }
}

/// An error in the table: the key (under `queue`) and the message.
pub type KeyError = (String, String);

/// The keys each discipline takes (besides `discipline` and `limit`).
pub fn discipline_keys(name: &str) -> &'static [&'static str] {
    match name {
        "codel" => &["target", "interval", "ecn", "ce_threshold", "mtu"],
        "fq-codel" => &[
            "target",
            "interval",
            "ecn",
            "ce_threshold",
            "mtu",
            "quantum",
            "flows",
            "drop_batch",
        ],
        "pie" => &[
            "target",
            "t_update",
            "alpha",
            "beta",
            "max_burst",
            "ecn",
            "mark_ecn_threshold",
            "derandomize",
            "cap_drop_adjustment",
            "mtu",
        ],
        "dual-pi2" => &[
            "target",
            "t_update",
            "alpha",
            "beta",
            "k",
            "step_thresh",
            "min_qlen_step",
            "c_protection",
            "drop_overload",
            "min_backlog",
            "mtu",
            "pi_both_queues",
        ],
        _ => &[],
    }
}

impl QueueField {
    /// The limit and the discipline, or the first error.
    pub fn resolve(&self) -> Result<(QueueLimit, Discipline), KeyError> {
        let t = match self {
            QueueField::Limit(spec) => {
                if let Some(m) = limit_error(*spec) {
                    return Err((String::new(), m));
                }
                return Ok((queue_limit(*spec), Discipline::DropTail));
            }
            QueueField::Table(t) => t,
        };
        let names = Discipline::NAMES.join(", ");
        let name = match t.get("discipline") {
            Some(toml::Value::String(s)) => s.as_str(),
            Some(v) => {
                return Err((
                    "discipline".into(),
                    format!("must be one of {names}, got {v}"),
                ))
            }
            None => {
                return Err((
                    "discipline".into(),
                    format!("required field is missing (one of {names})"),
                ))
            }
        };
        let Some(mut discipline) = Discipline::from_name(name) else {
            return Err((
                "discipline".into(),
                format!("must be one of {names}, got \"{name}\""),
            ));
        };
        let keys = discipline_keys(name);
        for k in t.keys() {
            if k != "discipline" && k != "limit" && !keys.contains(&k.as_str()) {
                let valid: Vec<&str> = ["discipline", "limit"]
                    .iter()
                    .chain(keys)
                    .copied()
                    .collect();
                return Err((
                    k.clone(),
                    format!("unknown key for {name} (valid keys: {})", valid.join(", ")),
                ));
            }
        }
        let limit = match t.get("limit") {
            Some(v) => {
                let spec: QueueSpec = v
                    .clone()
                    .try_into()
                    .map_err(|e: toml::de::Error| ("limit".to_string(), e.message().to_string()))?;
                if let Some(m) = limit_error(spec) {
                    return Err(("limit".into(), m));
                }
                queue_limit(spec)
            }
            None => discipline.default_limit().ok_or_else(|| {
                (
                    "limit".to_string(),
                    "required field is missing for drop-tail (e.g. \"62pkt\")".to_string(),
                )
            })?,
        };
        let r = Reader(t);
        match &mut discipline {
            Discipline::DropTail => {}
            Discipline::Codel(p) => r.codel(p)?,
            Discipline::FqCodel(p) => {
                r.codel(&mut p.codel)?;
                r.fq(p)?;
            }
            Discipline::Pie(p) => r.pie(p)?,
            Discipline::DualPi2(p) => r.dual_pi2(p)?,
        }
        Ok((limit, discipline))
    }
}

/// Reads optional parameters of a table, each within its range.
struct Reader<'a>(&'a toml::Table);

/// The largest time a parameter may take.
const MAX_SECS: f64 = 100.0;

impl Reader<'_> {
    fn time(&self, key: &str, min_inclusive: bool, out: &mut TimeDelta) -> Result<(), KeyError> {
        let Some(v) = self.0.get(key) else {
            return Ok(());
        };
        let lo = if min_inclusive { ">= 0 s" } else { "> 0 s" };
        let range = format!("a time {lo} and <= {MAX_SECS} s, such as \"5ms\"");
        let s = match v {
            toml::Value::String(s) => {
                parse_secs(s).map_err(|e| (key.to_string(), format!("{e} (expected {range})")))?
            }
            other => return Err((key.into(), format!("must be {range}, got {other}"))),
        };
        let ok = if min_inclusive { s >= 0.0 } else { s > 0.0 };
        if !ok || s > MAX_SECS {
            return Err((key.into(), format!("must be {range}, got {s} s")));
        }
        *out = TimeDelta::from_secs_f64(s);
        Ok(())
    }

    fn size(&self, key: &str, lo: u64, hi: u64, out: &mut u64) -> Result<(), KeyError> {
        let Some(v) = self.0.get(key) else {
            return Ok(());
        };
        let range = format!("a size from {lo} B to {hi} B, such as \"1514B\"");
        let b = match v {
            toml::Value::String(s) => {
                parse_bytes(s).map_err(|e| (key.to_string(), format!("{e} (expected {range})")))?
            }
            other => return Err((key.into(), format!("must be {range}, got {other}"))),
        };
        if !(lo as f64..=hi as f64).contains(&b) || b.fract() != 0.0 {
            return Err((key.into(), format!("must be {range}, got {b} B")));
        }
        *out = b as u64;
        Ok(())
    }

    fn int(&self, key: &str, lo: i64, hi: i64) -> Result<Option<i64>, KeyError> {
        let Some(v) = self.0.get(key) else {
            return Ok(None);
        };
        match v {
            toml::Value::Integer(n) if (lo..=hi).contains(n) => Ok(Some(*n)),
            other => Err((
                key.into(),
                format!("must be a whole number from {lo} to {hi}, got {other}"),
            )),
        }
    }

    fn float(
        &self,
        key: &str,
        lo: f64,
        lo_inclusive: bool,
        hi: f64,
        out: &mut f64,
    ) -> Result<(), KeyError> {
        let Some(v) = self.0.get(key) else {
            return Ok(());
        };
        let x = match v {
            toml::Value::Float(x) => *x,
            toml::Value::Integer(n) => *n as f64,
            _ => f64::NAN,
        };
        let above = if lo_inclusive { x >= lo } else { x > lo };
        if !(above && x <= hi) {
            let bracket = if lo_inclusive { "[" } else { "(" };
            return Err((
                key.into(),
                format!("must be a number in {bracket}{lo}, {hi}], got {v}"),
            ));
        }
        *out = x;
        Ok(())
    }

    fn boolean(&self, key: &str, out: &mut bool) -> Result<(), KeyError> {
        match self.0.get(key) {
            None => Ok(()),
            Some(toml::Value::Boolean(b)) => {
                *out = *b;
                Ok(())
            }
            Some(other) => Err((key.into(), format!("must be true or false, got {other}"))),
        }
    }

    fn codel(&self, p: &mut CodelParams) -> Result<(), KeyError> {
        self.time("target", false, &mut p.target)?;
        self.time("interval", false, &mut p.interval)?;
        self.boolean("ecn", &mut p.ecn)?;
        if self.0.contains_key("ce_threshold") {
            let mut th = TimeDelta::ZERO;
            self.time("ce_threshold", false, &mut th)?;
            p.ce_threshold = Some(th);
        }
        self.size("mtu", 64, 65_536, &mut p.mtu)
    }

    fn fq(&self, p: &mut FqCodelParams) -> Result<(), KeyError> {
        let mut quantum = u64::from(p.quantum);
        self.size("quantum", 64, 1_048_576, &mut quantum)?;
        p.quantum = quantum as u32;
        if let Some(n) = self.int("flows", 1, 65_536)? {
            p.flows = n as u32;
        }
        if let Some(n) = self.int("drop_batch", 1, 65_536)? {
            p.drop_batch = n as u32;
        }
        Ok(())
    }

    fn pie(&self, p: &mut PieParams) -> Result<(), KeyError> {
        self.time("target", false, &mut p.target)?;
        self.time("t_update", false, &mut p.t_update)?;
        self.float("alpha", 0.0, true, 100.0, &mut p.alpha)?;
        self.float("beta", 0.0, true, 100.0, &mut p.beta)?;
        self.time("max_burst", true, &mut p.max_burst)?;
        self.boolean("ecn", &mut p.ecn)?;
        self.float(
            "mark_ecn_threshold",
            0.0,
            true,
            1.0,
            &mut p.mark_ecn_threshold,
        )?;
        self.boolean("derandomize", &mut p.derandomize)?;
        self.boolean("cap_drop_adjustment", &mut p.cap_drop_adjustment)?;
        self.size("mtu", 64, 65_536, &mut p.mtu)
    }

    fn dual_pi2(&self, p: &mut DualPi2Params) -> Result<(), KeyError> {
        self.time("target", false, &mut p.target)?;
        self.time("t_update", false, &mut p.t_update)?;
        self.float("alpha", 0.0, false, 100.0, &mut p.alpha)?;
        self.float("beta", 0.0, false, 100.0, &mut p.beta)?;
        self.float("k", 0.0, false, 100.0, &mut p.k)?;
        self.time("step_thresh", false, &mut p.step_thresh)?;
        if let Some(n) = self.int("min_qlen_step", 0, 1_000_000)? {
            p.min_qlen_step = n as u32;
        }
        if let Some(n) = self.int("c_protection", 0, 100)? {
            p.c_protection = n as u8;
        }
        self.boolean("drop_overload", &mut p.drop_overload)?;
        self.size("min_backlog", 0, 1 << 30, &mut p.min_backlog)?;
        self.boolean("pi_both_queues", &mut p.pi_both_queues)?;
        self.size("mtu", 64, 65_536, &mut p.mtu)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field(text: &str) -> QueueField {
        #[derive(Deserialize)]
        struct W {
            queue: QueueField,
        }
        toml::from_str::<W>(text).expect("parses").queue
    }

    #[test]
    fn a_string_is_a_drop_tail_limit() {
        let (limit, d) = field("queue = \"62pkt\"").resolve().expect("valid");
        assert_eq!(limit, QueueLimit::Packets(62));
        assert_eq!(d, Discipline::DropTail);
    }

    #[test]
    fn a_table_gives_the_discipline_with_defaults_and_overrides() {
        let (limit, d) = field(
            "queue = { discipline = \"fq-codel\", target = \"10ms\", flows = 16, ecn = false }",
        )
        .resolve()
        .expect("valid");
        assert_eq!(limit, QueueLimit::Packets(10_240));
        let Discipline::FqCodel(p) = d else {
            panic!("{d:?}")
        };
        assert_eq!(p.codel.target, TimeDelta::millis(10));
        assert_eq!(p.codel.interval, TimeDelta::millis(100));
        assert_eq!(p.flows, 16);
        assert!(!p.codel.ecn);
        assert_eq!(p.quantum, 1514);
        let (limit, d) = field("queue = { discipline = \"dual-pi2\", limit = \"50ms\", k = 3 }")
            .resolve()
            .expect("valid");
        assert_eq!(limit, QueueLimit::Time(TimeDelta::millis(50)));
        let Discipline::DualPi2(p) = d else {
            panic!("{d:?}")
        };
        assert_eq!(p.k, 3.0);
        assert_eq!(p.t_update, TimeDelta::millis(16));
    }

    #[test]
    fn errors_name_the_key_and_the_range() {
        let e = |t: &str| field(t).resolve().expect_err("invalid");
        let (k, m) = e("queue = { discipline = \"codel\", tarket = \"5ms\" }");
        assert_eq!(k, "tarket");
        assert!(
            m.contains("unknown key for codel") && m.contains("target"),
            "{m}"
        );
        let (k, m) = e("queue = { discipline = \"pie\", target = \"-5ms\" }");
        assert_eq!(k, "target");
        assert!(m.contains("> 0 s") && m.contains("-0.005"), "{m}");
        let (k, m) = e("queue = { discipline = \"dual-pi2\", c_protection = 120 }");
        assert_eq!(k, "c_protection");
        assert!(m.contains("from 0 to 100"), "{m}");
        let (k, m) = e("queue = { discipline = \"red\" }");
        assert_eq!(k, "discipline");
        assert!(m.contains("fq-codel") && m.contains("\"red\""), "{m}");
        let (k, _) = e("queue = { limit = \"5pkt\" }");
        assert_eq!(k, "discipline");
        let (k, m) = e("queue = { discipline = \"drop-tail\" }");
        assert_eq!(k, "limit");
        assert!(m.contains("required"), "{m}");
        let (k, m) = e("queue = { discipline = \"fq-codel\", quantum = 1514 }");
        assert_eq!(k, "quantum");
        assert!(m.contains("\"1514B\""), "{m}");
        let (k, m) = e("queue = { discipline = \"pie\", ecn = \"yes\" }");
        assert_eq!(k, "ecn");
        assert!(m.contains("true or false"), "{m}");
        let (k, _) = e("queue = { discipline = \"codel\", limit = \"0pkt\" }");
        assert_eq!(k, "limit");
    }
}
