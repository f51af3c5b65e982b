//! Typed errors of the coupling managers: bad input never panics.

use super::flow::{FlowId, FlowKind};
use thiserror::Error;

#[derive(Debug, Clone, PartialEq, Error)]
pub enum CouplingError {
    #[error("priority must be a number in [1e-6, 1e6] (only ratios matter), got {}", short_number(*.0))]
    InvalidPriority(f64),
    #[error("{what} must be a finite, non-negative number, got {value}")]
    InvalidRate { what: &'static str, value: f64 },
    #[error("{what} must be positive, got {value_us} us")]
    InvalidRtt { what: &'static str, value_us: i64 },
    #[error("{what} must be a finite, non-negative number of seconds, got {value}")]
    InvalidTime { what: &'static str, value: f64 },
    #[error("{0} is not registered")]
    UnknownFlow(FlowId),
    #[error("{0} is already registered")]
    DuplicateFlow(FlowId),
    #[error("{mechanism} does not couple {kind:?} flows")]
    UnsupportedKind {
        mechanism: &'static str,
        kind: FlowKind,
    },
    #[error("{flow} is a {registered:?} flow but sent a {reported:?} report")]
    ReportKindMismatch {
        flow: FlowId,
        registered: FlowKind,
        reported: FlowKind,
    },
    #[error("{mechanism} needs an RTT with every update of {flow}")]
    MissingRtt {
        mechanism: &'static str,
        flow: FlowId,
    },
    #[error("the MTU of a window flow must be at least 1 byte")]
    InvalidMtu,
}

/// `0.5`, `1e308`, `2.3e-308`: plain notation for ordinary magnitudes, scientific for
/// the others (Rust prints 1e308 with 309 digits otherwise).
fn short_number(x: f64) -> String {
    if x == 0.0 || !x.is_finite() || (1e-4..1e7).contains(&x.abs()) {
        format!("{x}")
    } else {
        format!("{x:e}")
    }
}
