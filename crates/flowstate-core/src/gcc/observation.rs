//! Snapshots of GCC internals for simulators and plots (paper 001's variables: m,
//! gamma, s, sigma, A_r, A_s, n_dd). No libwebrtc counterpart.

use super::aimd::RateControlState;
use super::detector::BandwidthUsage;
use crate::units::{Bitrate, Timestamp};

/// One snapshot, taken at every delay-based rate update (and, at the sender, at every
/// loss-based update).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GccObservation {
    pub time: Timestamp,
    /// The filter output: m in ms (Kalman) or the trend slope (trendline).
    pub delay_estimate: f64,
    /// What the detector compares with gamma: min(n, 60) * gain * estimate.
    pub modified_estimate: f64,
    /// The threshold gamma, in modified-estimate units.
    pub threshold: f64,
    /// The detector signal s.
    pub signal: BandwidthUsage,
    /// The AIMD state sigma.
    pub state: RateControlState,
    /// A_r, the delay-based estimate.
    pub delay_based_rate: Bitrate,
    /// A_s, the loss-based estimate (`None` where only the delay-based part runs, i.e. at
    /// a paper-preset receiver).
    pub loss_based_rate: Option<Bitrate>,
    /// The incoming rate R (`None` until known).
    pub incoming_rate: Option<Bitrate>,
    /// n_dd: delay-based decreases so far.
    pub delay_based_decreases: u64,
}
