//! `rap`: a RAP flow (Rejaie et al., INFOCOM 1999; papers 003/004), greedy unless
//! `desired_rate` or `desired_rate_schedule` limits it.

use super::common::{check_positive, parse_overrides};
use super::rate_options::{app_rates, RateOverrides};
use crate::error::FieldError;
use crate::flow::{EndpointPairFlow, ReceiverHooks};
use crate::flow_spec::FlowSpec;
use crate::flow_spec::{CouplingRole, KindDef};
use crate::tracked::{SimSender, Tracked};
use flowstate_core::endpoint::rap::{RapReceiver, RapReceiverConfig, RapSender};
use flowstate_core::rate::rap::RapConfig;
use flowstate_core::{Bitrate, DataSize};

/// The `rap` kind.
pub static KIND: KindDef = KindDef::new(
    "rap",
    "a RAP flow (Rejaie et al., INFOCOM 1999; papers 003/004), greedy by default",
    |b| Ok(Box::new(rap_flow(b.spec)?)),
)
.coupled(CouplingRole::Rate)
.with_options(|| RateOverrides::DEFINITIONS.to_vec())
.with_rate_schedule();

/// A RAP flow.
pub type RapFlow = EndpointPairFlow<Tracked<RapSender>, RapReceiver>;

impl SimSender for RapSender {}
impl ReceiverHooks for RapReceiver {}

/// A greedy RAP flow (application-limited with `desired_rate`, or over time with
/// `desired_rate_schedule`).
pub fn rap_flow(spec: &FlowSpec) -> Result<RapFlow, FieldError> {
    let o: RateOverrides = parse_overrides(spec)?;
    // Every number an override holds must be > 0.
    check_positive(&o.numbers(), &[])?;
    let mut cfg = RapConfig::default();
    if let Some(p) = o.packet_size {
        cfg.packet_size = DataSize::bytes(p.0 as u64);
    }
    if let Some(r) = o.max_rate {
        cfg.max_rate = Bitrate::bps(r.0);
    }
    if let Some(r) = o.initial_rate {
        cfg.initial_rate = Bitrate::bps(r.0);
    }
    let mut s = RapSender::new(cfg).with_ecn(spec.ecn());
    s.set_desired_rate(spec.desired_rate.map(|r| Bitrate::bps(r.0)));
    Ok(EndpointPairFlow::new(
        Tracked::new(s).with_app_rates(app_rates(spec)),
        RapReceiver::new(RapReceiverConfig::default()),
    ))
}
