//! The receiver's frame playout options every video kind (`gcc`, `nada`, `scream`, `scream-v2`)
//! takes under `overrides`: `playout` (`adaptive` or `fixed`), `playout_delay_ms`
//! (`fixed` only), `reference_chain`, `decode_time_ms` (flowstate-core's `playout`;
//! docs/ALGORITHMS.md, "Frame playout and freezes"). The model only observes: no
//! option changes a packet of the flow.

use crate::error::FieldError;
use crate::overrides::no_number;
use flowstate_core::playout::{PlayoutConfig, PlayoutMode, DEFAULT_FIXED_PLAYOUT_DELAY};
use flowstate_core::TimeDelta;

/// The most a delay option takes: 10 s.
pub const MAX_PLAYOUT_OPTION_MS: f64 = 10_000.0;

/// `playout`: the playout rule's name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlayoutRule {
    Adaptive,
    Fixed,
}

impl PlayoutRule {
    /// The name a scenario writes.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Adaptive => "adaptive",
            Self::Fixed => "fixed",
        }
    }
}

no_number!(PlayoutRule);

impl<'de> serde::Deserialize<'de> for PlayoutRule {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        const NAMES: &[&str] = &["adaptive", "fixed"];
        crate::name_de::read_name(
            d,
            &[(Self::Adaptive, NAMES[0]), (Self::Fixed, NAMES[1])],
            NAMES,
        )
    }
}

/// The four keys as a flow set them.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct PlayoutKeys {
    pub playout: Option<PlayoutRule>,
    pub playout_delay_ms: Option<f64>,
    pub reference_chain: Option<bool>,
    pub decode_time_ms: Option<f64>,
}

/// A delay option in ms: finite, > 0 and at most [`MAX_PLAYOUT_OPTION_MS`]. Error:
/// `.{key}` with the value.
fn delay(key: &str, ms: f64) -> Result<TimeDelta, FieldError> {
    if !(ms.is_finite() && ms > 0.0 && ms <= MAX_PLAYOUT_OPTION_MS) {
        return Err(FieldError::new(
            format!(".{key}"),
            format!("must be a number of ms > 0 and at most {MAX_PLAYOUT_OPTION_MS}, got {ms}"),
        ));
    }
    Ok(TimeDelta::from_millis_f64(ms))
}

/// The playout model the keys ask for. Error (relative to `overrides`): a delay out of
/// range, or `playout_delay_ms` without `playout = "fixed"`.
pub fn playout_config(k: &PlayoutKeys) -> Result<PlayoutConfig, FieldError> {
    let mut cfg = PlayoutConfig::default();
    let fixed = k.playout == Some(PlayoutRule::Fixed);
    match k.playout_delay_ms {
        Some(_) if !fixed => {
            return Err(FieldError::new(
                ".playout_delay_ms",
                "applies only with playout = \"fixed\"; set it or remove playout_delay_ms",
            ))
        }
        Some(v) => {
            cfg.mode = PlayoutMode::Fixed {
                playout_delay: delay("playout_delay_ms", v)?,
            }
        }
        None if fixed => {
            cfg.mode = PlayoutMode::Fixed {
                playout_delay: DEFAULT_FIXED_PLAYOUT_DELAY,
            }
        }
        None => {}
    }
    if let Some(v) = k.decode_time_ms {
        cfg.decode_time = delay("decode_time_ms", v)?;
    }
    cfg.reference_chain = k.reference_chain.unwrap_or(false);
    Ok(cfg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_keys_give_the_playout_model_or_a_one_line_error() {
        assert_eq!(
            playout_config(&PlayoutKeys::default()),
            Ok(PlayoutConfig::default())
        );
        let fixed = playout_config(&PlayoutKeys {
            playout: Some(PlayoutRule::Fixed),
            playout_delay_ms: Some(80.0),
            reference_chain: Some(true),
            decode_time_ms: Some(2.0),
        })
        .unwrap();
        assert_eq!(
            fixed.mode,
            PlayoutMode::Fixed {
                playout_delay: TimeDelta::millis(80)
            }
        );
        assert!(fixed.reference_chain);
        assert_eq!(fixed.decode_time, TimeDelta::millis(2));
        let e = playout_config(&PlayoutKeys {
            playout_delay_ms: Some(80.0),
            ..PlayoutKeys::default()
        })
        .unwrap_err();
        assert!(e.to_string().contains("playout_delay_ms"), "{e}");
        let e = playout_config(&PlayoutKeys {
            decode_time_ms: Some(-1.0),
            ..PlayoutKeys::default()
        })
        .unwrap_err();
        assert!(
            e.to_string().contains("decode_time_ms") && e.to_string().contains("-1"),
            "{e}"
        );
    }
}
