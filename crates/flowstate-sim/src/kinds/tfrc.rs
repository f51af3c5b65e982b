//! `tfrc`: a TFRC flow (RFC 5348; papers 003/004), greedy unless `desired_rate` or
//! `desired_rate_schedule` limits it.

use super::common::{check_positive, parse_overrides};
use super::rate_options::TFRC_INITIAL_RATE;
use super::rate_options::{app_rates, RateOverrides};
use crate::error::FieldError;
use crate::flow::{EndpointPairFlow, ReceiverHooks};
use crate::flow_spec::FlowSpec;
use crate::flow_spec::{CouplingRole, KindDef};
use crate::tracked::{SimSender, Tracked};
use flowstate_core::endpoint::tfrc::{TfrcReceiver, TfrcReceiverEndpointConfig, TfrcSender};
use flowstate_core::rate::tfrc::TfrcConfig;
use flowstate_core::{Bitrate, DataSize};

/// The `tfrc` kind.
pub static KIND: KindDef = KindDef::new(
    "tfrc",
    "a TFRC flow (RFC 5348; papers 003/004), greedy by default",
    |b| Ok(Box::new(tfrc_flow(b.spec)?)),
)
.coupled(CouplingRole::Rate)
.with_options(|| RateOverrides::DEFINITIONS.to_vec())
.with_rate_schedule();

/// A TFRC flow.
pub type TfrcFlow = EndpointPairFlow<Tracked<TfrcSender>, TfrcReceiver>;

impl SimSender for TfrcSender {}
impl ReceiverHooks for TfrcReceiver {}

/// A greedy TFRC flow (application-limited with `desired_rate`).
pub fn tfrc_flow(spec: &FlowSpec) -> Result<TfrcFlow, FieldError> {
    let o: RateOverrides = parse_overrides(spec)?;
    // Every number an override holds must be > 0.
    check_positive(&o.numbers(), &[])?;
    if o.initial_rate.is_some() {
        return Err(FieldError::new("overrides.initial_rate", TFRC_INITIAL_RATE));
    }
    let mut cfg = TfrcConfig::default();
    if let Some(p) = o.packet_size {
        cfg.segment_size = DataSize::bytes(p.0 as u64);
    }
    if let Some(r) = o.max_rate {
        cfg.max_rate = Bitrate::bps(r.0);
    }
    let mut s = TfrcSender::new(cfg).with_ecn(spec.ecn());
    s.set_desired_rate(spec.desired_rate.map(|r| Bitrate::bps(r.0)));
    Ok(EndpointPairFlow::new(
        Tracked::new(s).with_app_rates(app_rates(spec)),
        TfrcReceiver::new(TfrcReceiverEndpointConfig::default()),
    ))
}
