//! What several kinds' builders share: scenario times as timestamps, a flow's
//! `overrides` read strictly, the rule that override numbers are > 0.

use crate::error::FieldError;
use crate::flow_spec::FlowSpec;

/// Seconds (a scenario time) as a timestamp.
pub(crate) fn secs(s: f64) -> flowstate_core::Timestamp {
    flowstate_core::Timestamp::from_micros((s.max(0.0) * 1e6).round() as u64)
}

/// A flow's `overrides` as `T`; the error's field under `overrides`.
pub(crate) fn parse_overrides<T: serde::de::DeserializeOwned>(
    spec: &FlowSpec,
) -> Result<T, FieldError> {
    crate::overrides::parse(&spec.overrides).map_err(|e| e.under("overrides"))
}

/// Every number an override holds must be > 0, but the zeros in `zero_ok` (a zero
/// that switches a rule off). Error: the key under `overrides`.
pub(crate) fn check_positive(
    numbers: &[(&'static str, f64)],
    zero_ok: &[&str],
) -> Result<(), FieldError> {
    for &(n, x) in numbers {
        if zero_ok.contains(&n) && x == 0.0 {
            continue;
        }
        if !(x.is_finite() && x > 0.0) {
            return Err(FieldError::new(
                format!("overrides.{n}"),
                format!("must be a number > 0, got {x}"),
            ));
        }
    }
    Ok(())
}
