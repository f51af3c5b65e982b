//! `scream`: RTP video from a video encoder model under SCReAM v1 (RFC 8298) with
//! RFC 8888 feedback; coupled as a rate flow (its target bitrate). Its options: every
//! constant of RFC 8298 sections 4.1.2.1 and 4.1.3
//! (`flowstate_core::scream::ScreamConfig::OPTIONS`) and the media source's.

use super::common::secs;
use super::playout_options::{playout_config, PlayoutKeys};
use super::rtp_video::{ccfb_receiver, feedback_interval, read_config, rmcat_source};
use crate::error::FieldError;
use crate::flow::EndpointPairFlow;
use crate::flow_spec::FlowSpec;
use crate::flow_spec::{BuildInput, CouplingRole, KindDef};
use crate::overrides::{config_definitions, overrides, OverrideDefault, FPS, MS};
use crate::tracked::{SimSender, Tracked};
use flowstate_core::config_options::{OptionField, OptionInput, OptionUnit};
use flowstate_core::endpoint::rfc8888::CcfbReceiver;
use flowstate_core::endpoint::scream::{ScreamSender, ScreamSenderConfig};
use flowstate_core::scream::ScreamConfig;
use flowstate_core::source::EncoderBounds;
use flowstate_core::{Bitrate, TimeDelta};

/// The `scream` kind.
pub static KIND: KindDef = KindDef::new(
    "scream",
    "RTP video from a video encoder model under SCReAM v1 (RFC 8298) with RFC 8888 feedback; coupled as a rate flow (its target bitrate)",
    |b| Ok(Box::new(scream_flow(b)?)),
)
.coupled(CouplingRole::Rate)
.in_call()
.with_options(|| config_definitions(ScreamConfig::OPTIONS, &["scream"], ScreamMediaOverrides::DEFINITIONS));

/// SCReAM's RFC 8888 feedback interval (20 ms: RFC 8298 section 4.1.1 asks for
/// feedback frequent enough for the self-clocking, at least once per RTT; the
/// reference implementation's default).
pub const SCREAM_FEEDBACK_INTERVAL_MS: f64 = 20.0;

overrides! {
    /// The `overrides` of a `scream` flow besides SCReAM's own constants.
    #[derive(Default)]
    pub struct ScreamMediaOverrides {
        /// The RFC 8888 feedback interval.
        feedback_interval_ms: Option<f64> => ["scream"], MS,
            OverrideDefault::Value(|| SCREAM_FEEDBACK_INTERVAL_MS.to_string());
        /// Frame rate of the encoder model.
        fps: Option<f64> => ["scream"], FPS, OverrideDefault::Value(|| EncoderBounds::paper000().fps.to_string());
        /// `true`: a perfect codec (frames exactly at the target) instead of the
        /// statistics codec with noise and I-frames.
        perfect_codec: Option<bool> => ["scream"], None, OverrideDefault::Value(|| "false".into());
        /// The receiver's playout rule: `adaptive` (libwebrtc's jitter buffer) or
        /// `fixed` (capture + `playout_delay_ms`); frame figures only.
        playout: Option<crate::kinds::playout_options::PlayoutRule> => ["scream"], None,
            OverrideDefault::Value(|| "adaptive".into());
        /// `playout = "fixed"`: capture to render, ms.
        playout_delay_ms: Option<f64> => ["scream"], MS,
            OverrideDefault::Value(|| crate::overrides::ms(flowstate_core::playout::DEFAULT_FIXED_PLAYOUT_DELAY));
        /// The receiver decodes a delta frame only after the frame before it (no
        /// key-frame request is modelled: a loss waits for the next key frame).
        reference_chain: Option<bool> => ["scream"], None, OverrideDefault::Value(|| "false".into());
        /// The receiver's decode time per frame, ms.
        decode_time_ms: Option<f64> => ["scream"], MS,
            OverrideDefault::Value(|| crate::overrides::ms(flowstate_core::playout::DEFAULT_DECODE_TIME));
    }
}

/// A SCReAM media flow (RFC 8888 feedback).
pub type ScreamFlow = EndpointPairFlow<Tracked<ScreamSender>, CcfbReceiver>;

impl SimSender for ScreamSender {
    fn encoder_log(&self) -> Option<&flowstate_core::playout::EncoderLog> {
        Some(ScreamSender::encoder_log(self))
    }
}

/// A `scream` flow's configuration, media keys, RFC 8888 feedback interval and frame
/// rate. Error: the key under `overrides`.
pub fn scream_config(
    spec: &FlowSpec,
) -> Result<(ScreamConfig, ScreamMediaOverrides, TimeDelta, f64), FieldError> {
    let (o, c) = read_config::<ScreamConfig, ScreamMediaOverrides>(
        spec,
        ScreamConfig::OPTIONS,
        ScreamMediaOverrides::DEFINITIONS,
        "scream.",
        ScreamConfig::validate,
    )?;
    let under = |e: FieldError| e.under("overrides");
    let interval = feedback_interval(
        o.own
            .feedback_interval_ms
            .unwrap_or(SCREAM_FEEDBACK_INTERVAL_MS),
    )
    .map_err(under)?;
    let fps = match o.own.fps {
        Some(v) => f64::from_input(OptionUnit::FramesPerSec, OptionInput::Number(v))
            .map_err(|m| under(FieldError::new(".fps", m)))?,
        None => EncoderBounds::paper000().fps,
    };
    Ok((c, o.own, interval, fps))
}

/// A SCReAM media flow (RFC 8298 v1 with RFC 8888 feedback).
pub fn scream_flow(b: &BuildInput<'_>) -> Result<ScreamFlow, FieldError> {
    let (scream, media, interval, fps) = scream_config(b.spec)?;
    let playout = playout_config(&PlayoutKeys {
        playout: media.playout,
        playout_delay_ms: media.playout_delay_ms,
        reference_chain: media.reference_chain,
        decode_time_ms: media.decode_time_ms,
    })
    .map_err(|e| e.under("overrides"))?;
    let source = rmcat_source(media.perfect_codec.unwrap_or(false), scream.max_rate, fps);
    let mut cfg = ScreamSenderConfig::new(scream, source);
    cfg.ecn = b.spec.ecn();
    cfg.ssrc = b.index as u32 + 1;
    cfg.seed = b.seed;
    let start = secs(b.spec.start_secs());
    let mut sender = ScreamSender::new(cfg, start);
    if let Some(d) = b.spec.desired_rate {
        sender.set_desired_rate(start, Some(Bitrate::bps(d.0)));
    }
    Ok(EndpointPairFlow::new(
        Tracked::new(sender),
        ccfb_receiver(b.index, interval, playout),
    ))
}
