//! The `overrides` `rap` and `tfrc` flows accept.

use super::common::secs;
use crate::flow_spec::FlowSpec;
use crate::overrides::{overrides, OverrideDefault, BPS, BYTES};
use crate::units_parse::{Bps, Bytes};
use flowstate_core::{Bitrate, Timestamp};

overrides! {
    /// The `overrides` `rap` and `tfrc` flows accept.
    #[derive(Default)]
    pub struct RateOverrides {
        /// Packet (segment) size.
        packet_size: Option<Bytes> => ["rap", "tfrc"], BYTES, OverrideDefault::Value(|| {
            let rap = flowstate_core::rate::rap::RapConfig::default().packet_size;
            let tfrc = flowstate_core::rate::tfrc::TfrcConfig::default().segment_size;
            if rap == tfrc {
                rap.as_bytes().to_string()
            } else {
                format!("rap: {}, tfrc: {}", rap.as_bytes(), tfrc.as_bytes())
            }
        });
        /// Maximum rate (default unlimited).
        max_rate: Option<Bps> => ["rap", "tfrc"], BPS, OverrideDefault::Value(|| "unlimited".into());
        /// RAP's initial rate (TFRC starts from its initial window, RFC 5348 4.2).
        initial_rate: Option<Bps> => ["rap"], BPS, OverrideDefault::Value(|| {
            flowstate_core::rate::rap::RapConfig::default().initial_rate.as_bps().to_string()
        });
    }
}

/// Why a `tfrc` flow takes no `initial_rate`.
pub const TFRC_INITIAL_RATE: &str = "TFRC starts from its initial window (RFC 5348 4.2)";

/// A rate flow's `desired_rate_schedule` as `(at, rate)`.
pub(crate) fn app_rates(spec: &FlowSpec) -> Vec<(Timestamp, Bitrate)> {
    spec.desired_rate_schedule
        .iter()
        .map(|p| (secs(p.at.0), Bitrate::bps(p.rate.0)))
        .collect()
}
