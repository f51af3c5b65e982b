//! Checks of what callers hand the coupling manager: priorities, rates, RTTs, times,
//! flow specs. Bad input is a [`CouplingError`] naming what is wrong, never a panic.

use super::error::CouplingError;
use super::flow::{FlowId, FlowKind, FlowSpec};
use super::group::{FlowEntry, WindowState};
use crate::units::{Bitrate, DataSize, TimeDelta, Timestamp};

pub(crate) fn mismatch(flow: FlowId, registered: FlowKind, reported: FlowKind) -> CouplingError {
    CouplingError::ReportKindMismatch {
        flow,
        registered,
        reported,
    }
}

/// The smallest priority a flow may have ([`check_priority`]).
pub const MIN_PRIORITY: f64 = 1e-6;
/// The largest priority a flow may have ([`check_priority`]).
pub const MAX_PRIORITY: f64 = 1e6;

/// `priority` if it is in [[`MIN_PRIORITY`], [`MAX_PRIORITY`]]: the one check every
/// priority passes (the manager, scenario files, the Python API). Only ratios of
/// priorities matter; the bounds keep sums and products of rates with priorities
/// far from the float limits (priorities of 1e308 or 2.3e-308 gave 0, inf or a 9 %
/// utilization instead of the priority shares).
pub fn check_priority(priority: f64) -> Result<f64, CouplingError> {
    if (MIN_PRIORITY..=MAX_PRIORITY).contains(&priority) {
        Ok(priority)
    } else {
        Err(CouplingError::InvalidPriority(priority))
    }
}

pub(crate) fn checked_priority(priority: f64) -> Result<f64, CouplingError> {
    check_priority(priority)
}

pub(crate) fn checked_rate(what: &'static str, rate: Bitrate) -> Result<f64, CouplingError> {
    let bps = rate.as_bps();
    if bps.is_finite() && bps >= 0.0 {
        Ok(bps)
    } else {
        Err(CouplingError::InvalidRate { what, value: bps })
    }
}

pub(crate) fn checked_desired(desired: Option<Bitrate>) -> Result<f64, CouplingError> {
    match desired {
        None => Ok(f64::INFINITY),
        Some(rate) => checked_rate("desired rate", rate),
    }
}

/// Negative RTTs are errors. A zero RTT passes: mechanisms that keep RTT samples
/// ignore it (no information), the conservative FSE arms a zero-length timer with it.
pub(crate) fn checked_rtt(
    what: &'static str,
    rtt: Option<TimeDelta>,
) -> Result<Option<TimeDelta>, CouplingError> {
    match rtt {
        Some(r) if r.as_micros() < 0 => Err(CouplingError::InvalidRtt {
            what,
            value_us: r.as_micros(),
        }),
        other => Ok(other),
    }
}

pub(crate) fn validate_spec(id: FlowId, spec: &FlowSpec) -> Result<FlowEntry, CouplingError> {
    let priority = checked_priority(spec.priority())?;
    match spec {
        FlowSpec::Rate {
            initial_rate,
            desired_rate,
            ..
        } => {
            checked_rate("initial rate", *initial_rate)?;
            Ok(FlowEntry {
                id,
                priority,
                desired_rate: checked_desired(*desired_rate)?,
                fse_r: 0.0,
                window: None,
            })
        }
        FlowSpec::Window {
            initial_cwnd,
            initial_rtt,
            initial_max_cwnd,
            mtu,
            ..
        } => {
            if mtu.as_bytes() == 0 {
                return Err(CouplingError::InvalidMtu);
            }
            let initial_rtt = checked_rtt("initial RTT", *initial_rtt)?;
            Ok(FlowEntry {
                id,
                priority,
                desired_rate: f64::INFINITY,
                fse_r: 0.0,
                window: Some(WindowState {
                    mtu: *mtu,
                    initial_max_cwnd: *initial_max_cwnd,
                    cwnd: *initial_cwnd,
                    ssthresh: DataSize::MAX,
                    desired_cwnd: None,
                    last_rtt: initial_rtt.filter(|r| r.is_positive()),
                }),
            })
        }
    }
}

/// Validates a rate given as a bare number of bit/s (for bindings and file formats):
/// NaN, infinite and negative values are errors naming `what`.
pub fn rate_from_bps(what: &'static str, bps: f64) -> Result<Bitrate, CouplingError> {
    if bps.is_finite() && bps >= 0.0 {
        Ok(Bitrate::bps(bps))
    } else {
        Err(CouplingError::InvalidRate { what, value: bps })
    }
}

/// Validates an RTT given in seconds (for bindings and file formats): NaN, infinite
/// and negative values are errors naming `what`.
pub fn rtt_from_secs(what: &'static str, secs: f64) -> Result<TimeDelta, CouplingError> {
    if (0.0..1e9).contains(&secs) {
        Ok(TimeDelta::from_secs_f64(secs))
    } else {
        Err(CouplingError::InvalidTime { what, value: secs })
    }
}

/// Validates a point in time given in seconds since the caller's epoch.
pub fn timestamp_from_secs(what: &'static str, secs: f64) -> Result<Timestamp, CouplingError> {
    if (0.0..1e12).contains(&secs) {
        Ok(Timestamp::from_micros((secs * 1e6).round() as u64))
    } else {
        Err(CouplingError::InvalidTime { what, value: secs })
    }
}
