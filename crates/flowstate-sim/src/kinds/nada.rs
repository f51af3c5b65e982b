//! `nada`: RTP video from a video encoder model under NADA (RFC 8698) with RFC 8888
//! feedback; coupled as a rate flow (r_ref, with r_vin and r_send following, paper 003
//! Table I). Its options: every parameter of RFC 8698 section 4.1
//! (`flowstate_core::nada::NadaConfig::OPTIONS`) and the media source's.

use super::common::secs;
use super::rtp_video::{
    ccfb_receiver, feedback_interval, min_feedback_interval, read_config, rmcat_source,
};
use crate::error::FieldError;
use crate::flow::EndpointPairFlow;
use crate::flow_spec::FlowSpec;
use crate::flow_spec::{BuildInput, CouplingRole, KindDef};
use crate::overrides::{config_definitions, overrides, OverrideDefault, MS};
use crate::tracked::{SimSender, Tracked};
use flowstate_core::endpoint::nada::{NadaSender, NadaSenderConfig};
use flowstate_core::endpoint::rfc8888::CcfbReceiver;
use flowstate_core::nada::NadaConfig;
use flowstate_core::{Bitrate, TimeDelta};

/// The `nada` kind.
pub static KIND: KindDef = KindDef::new(
    "nada",
    "RTP video from a video encoder model under NADA (RFC 8698) with RFC 8888 feedback; coupled as a rate flow (r_ref, with r_vin and r_send following, paper 003 Table I)",
    |b| Ok(Box::new(nada_flow(b)?)),
)
.coupled(CouplingRole::Rate)
.in_call()
.with_options(|| config_definitions(NadaConfig::OPTIONS, &["nada"], NadaMediaOverrides::DEFINITIONS));

/// NADA's RFC 8888 feedback interval: DELTA (RFC 8698 section 4.1).
pub const NADA_FEEDBACK_INTERVAL_MS: f64 = 100.0;

overrides! {
    /// The `overrides` of a `nada` flow besides NADA's own parameters.
    #[derive(Default)]
    pub struct NadaMediaOverrides {
        /// `true`: a perfect codec (frames exactly at r_vin) instead of the statistics
        /// codec with noise and I-frames.
        perfect_codec: Option<bool> => ["nada"], None, OverrideDefault::Value(|| "false".into());
        /// The RFC 8888 feedback interval; unset: DELTA (RFC 8698 section 4.1).
        feedback_interval_ms: Option<f64> => ["nada"], MS,
            OverrideDefault::Value(|| NADA_FEEDBACK_INTERVAL_MS.to_string());
    }
}

/// A NADA media flow (RFC 8888 feedback).
pub type NadaFlow = EndpointPairFlow<Tracked<NadaSender>, CcfbReceiver>;

impl SimSender for NadaSender {}

/// A `nada` flow's configuration, media keys and RFC 8888 feedback interval (DELTA
/// unless set). Error: the key under `overrides`.
pub fn nada_config(
    spec: &FlowSpec,
) -> Result<(NadaConfig, NadaMediaOverrides, TimeDelta), FieldError> {
    let (o, c) = read_config::<NadaConfig, NadaMediaOverrides>(
        spec,
        NadaConfig::OPTIONS,
        NadaMediaOverrides::DEFINITIONS,
        "nada.",
        NadaConfig::validate,
    )?;
    let interval = match o.own.feedback_interval_ms {
        Some(v) => feedback_interval(v),
        None if o.has("delta_ms") => min_feedback_interval(c.delta).map(|()| c.delta),
        None => feedback_interval(NADA_FEEDBACK_INTERVAL_MS),
    }
    .map_err(|e| e.under("overrides"))?;
    Ok((c, o.own, interval))
}

/// A NADA media flow (RFC 8698 with RFC 8888 feedback every DELTA).
pub fn nada_flow(b: &BuildInput<'_>) -> Result<NadaFlow, FieldError> {
    let (nada, media, interval) = nada_config(b.spec)?;
    let source = rmcat_source(
        media.perfect_codec.unwrap_or(false),
        nada.max_rate,
        nada.fps,
    );
    let mut cfg = NadaSenderConfig::new(nada, source);
    cfg.ecn = b.spec.ecn();
    cfg.ssrc = b.index as u32 + 1;
    cfg.seed = b.seed;
    let start = secs(b.spec.start_secs());
    let mut sender = NadaSender::new(cfg, start);
    if let Some(d) = b.spec.desired_rate {
        sender.set_desired_rate(start, Some(Bitrate::bps(d.0)));
    }
    Ok(EndpointPairFlow::new(
        Tracked::new(sender),
        ccfb_receiver(b.index, interval),
    ))
}
