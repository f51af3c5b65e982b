//! `ledbat`: a LEDBAT bulk transfer (RFC 6817, one-way delay from sender timestamps),
//! long-lived greedy unless `source` or `desired_rate` says otherwise; coupled as a
//! window flow. Its options: every constant of RFC 6817 section 2.5
//! (`flowstate_core::window::LedbatConfig::OPTIONS`) and the source's message size.

use super::data_source::{data_source, DEFAULT_MESSAGE_SIZE};
use crate::error::FieldError;
use crate::flow::{EndpointPairFlow, ReceiverHooks};
use crate::flow_spec::FlowSpec;
use crate::flow_spec::{CouplingRole, KindDef};
use crate::overrides::{config_definitions, overrides, ConfigOverrides, OverrideDefault, BYTES};
use crate::tracked::{SimSender, Tracked};
use crate::units_parse::Bytes;
use flowstate_core::endpoint::ledbat::{self as ledbat_ep, LedbatReceiver, LedbatSender};
use flowstate_core::window::LedbatConfig;
use flowstate_core::DataSize;

/// The `ledbat` kind.
pub static KIND: KindDef = KindDef::new(
    "ledbat",
    "a LEDBAT bulk transfer (RFC 6817, one-way delay from sender timestamps), long-lived greedy by default; coupled as a window flow",
    |b| Ok(Box::new(ledbat_flow(b.spec, b.seed)?)),
)
.coupled(CouplingRole::Window {
        mtu: DataSize::bytes(1460),
    })
.with_source()
.with_options(|| config_definitions(LedbatConfig::OPTIONS, &["ledbat"], LedbatSourceOverrides::DEFINITIONS));

overrides! {
    /// The `overrides` of a `ledbat` flow besides LEDBAT's own constants.
    #[derive(Default)]
    pub struct LedbatSourceOverrides {
        /// Message size of the application-limited (`desired_rate`) source.
        message_size: Option<Bytes> => ["ledbat"], BYTES, OverrideDefault::Value(|| DEFAULT_MESSAGE_SIZE.as_bytes().to_string());
    }
}

/// A LEDBAT bulk transfer.
pub type LedbatFlow = EndpointPairFlow<Tracked<LedbatSender>, LedbatReceiver>;

impl SimSender for LedbatSender {}

impl ReceiverHooks for LedbatReceiver {
    /// The TCP receiver's acks, with the delays measured since the last one.
    const INPUT_DRIVEN: bool = true;
    fn goodput_bytes(&self) -> Option<u64> {
        Some(self.bytes_delivered().as_bytes())
    }
}

/// A `ledbat` flow's configuration and source keys. Error: the key under `overrides`.
pub fn ledbat_config(spec: &FlowSpec) -> Result<(LedbatConfig, LedbatSourceOverrides), FieldError> {
    let under = |e: FieldError| e.under("overrides");
    let o = ConfigOverrides::<LedbatConfig, LedbatSourceOverrides>::parse(
        &spec.overrides,
        LedbatConfig::OPTIONS,
        LedbatSourceOverrides::DEFINITIONS,
    )
    .map_err(under)?;
    let c = o.apply().map_err(under)?;
    if let Some(m) = o.own.message_size {
        if m.0 < 1.0 {
            return Err(FieldError::new(
                "overrides.message_size",
                format!("must be at least 1 B, got {} B", m.0),
            ));
        }
    }
    c.validate().map_err(|m| {
        under(super::rtp_video::at_key(
            "ledbat.",
            LedbatConfig::OPTIONS,
            &m,
        ))
    })?;
    Ok((c, o.own))
}

/// A LEDBAT bulk transfer (long-lived greedy unless the scenario says otherwise).
pub fn ledbat_flow(spec: &FlowSpec, seed: u64) -> Result<LedbatFlow, FieldError> {
    let (ledbat, own) = ledbat_config(spec)?;
    let mut cfg = ledbat_ep::sender_config(ledbat);
    cfg.ecn = spec.ecn();
    let msg = own
        .message_size
        .map_or(DEFAULT_MESSAGE_SIZE, |b| DataSize::bytes(b.0 as u64));
    let greedy = cfg.source.clone();
    cfg.source = data_source(spec, greedy, msg, seed);
    Ok(EndpointPairFlow::new(
        Tracked::new(LedbatSender::new(cfg)),
        LedbatReceiver::new(ledbat_ep::receiver_config()),
    ))
}
