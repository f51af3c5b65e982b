//! `scream-v2`: RTP video from a video encoder model under SCReAM v2 as Chromium runs
//! it (libwebrtc's ScreamV2, draft-ietf-ccwg-rfc8298bis-screamv2) with RFC 8888
//! feedback; every packet ECT(1) unless the flow's `ecn` says otherwise; coupled as a
//! rate flow (its target bitrate). Its options: every SCReAM v2 constant and rule
//! variant (`flowstate_core::scream_v2::ScreamV2Config::OPTIONS`) and the media
//! source's.

use super::common::secs;
use super::playout_options::{playout_config, PlayoutKeys};
use super::rtp_video::{ccfb_receiver, feedback_interval, read_config, rmcat_source};
use crate::error::FieldError;
use crate::flow::EndpointPairFlow;
use crate::flow_spec::{BuildInput, CouplingRole, EcnSetting, FlowSpec, KindDef};
use crate::overrides::{config_definitions, overrides, OverrideDefault, FPS, MS};
use crate::tracked::{SimSender, Tracked};
use flowstate_core::config_options::{OptionField, OptionInput, OptionUnit};
use flowstate_core::endpoint::rfc8888::CcfbReceiver;
use flowstate_core::endpoint::scream_v2::{ScreamV2Sender, ScreamV2SenderConfig};
use flowstate_core::scream_v2::ScreamV2Config;
use flowstate_core::source::EncoderBounds;
use flowstate_core::{Bitrate, TimeDelta, Timestamp};

/// The `scream-v2` kind.
pub static KIND: KindDef = KindDef::new(
    "scream-v2",
    "RTP video from a video encoder model under SCReAM v2 as Chromium runs it (libwebrtc ScreamV2, draft-ietf-ccwg-rfc8298bis-screamv2) with RFC 8888 feedback, every packet ECT(1) by default; coupled as a rate flow (its target bitrate)",
    |b| Ok(Box::new(scream_v2_flow(b)?)),
)
.coupled(CouplingRole::Rate)
.in_call()
.with_options(|| {
    config_definitions(
        ScreamV2Config::OPTIONS,
        &["scream-v2"],
        ScreamV2MediaOverrides::DEFINITIONS,
    )
});

/// The RFC 8888 feedback interval of a `scream-v2` flow (25 ms: libwebrtc's
/// CongestionControlFeedbackGenerator `min_send_delta`, the interval at which Chromium
/// reports while media flows).
pub const SCREAM_V2_FEEDBACK_INTERVAL_MS: f64 = 25.0;

/// The default `ecn` of a `scream-v2` flow: ECT(1), as Chromium with the ScreamV2
/// field trial.
pub const DEFAULT_ECN: EcnSetting = EcnSetting::Ect1;

overrides! {
    /// The `overrides` of a `scream-v2` flow besides SCReAM v2's own constants.
    #[derive(Default)]
    pub struct ScreamV2MediaOverrides {
        /// The RFC 8888 feedback interval.
        feedback_interval_ms: Option<f64> => ["scream-v2"], MS,
            OverrideDefault::Value(|| SCREAM_V2_FEEDBACK_INTERVAL_MS.to_string());
        /// Frame rate of the encoder model.
        fps: Option<f64> => ["scream-v2"], FPS, OverrideDefault::Value(|| EncoderBounds::paper000().fps.to_string());
        /// `true`: a perfect codec (frames exactly at the target) instead of the
        /// statistics codec with noise and I-frames.
        perfect_codec: Option<bool> => ["scream-v2"], None, OverrideDefault::Value(|| "false".into());
        /// `true`: the statistics codec drops frames as libvpx VP8's CBR buffer does in
        /// Chromium 156, whatever the congestion controller (the gcc override of that
        /// name; `source::vp8_frame_drop`). Not with `perfect_codec`.
        vp8_frame_drop: Option<bool> => ["scream-v2"], None, OverrideDefault::Value(|| "false".into());
        /// The receiver's playout rule: `adaptive` (libwebrtc's jitter buffer) or
        /// `fixed` (capture + `playout_delay_ms`); frame figures only.
        playout: Option<crate::kinds::playout_options::PlayoutRule> => ["scream-v2"], None,
            OverrideDefault::Value(|| "adaptive".into());
        /// `playout = "fixed"`: capture to render, ms.
        playout_delay_ms: Option<f64> => ["scream-v2"], MS,
            OverrideDefault::Value(|| crate::overrides::ms(flowstate_core::playout::DEFAULT_FIXED_PLAYOUT_DELAY));
        /// The receiver decodes a delta frame only after the frame before it (no
        /// key-frame request is modelled: a loss waits for the next key frame).
        reference_chain: Option<bool> => ["scream-v2"], None, OverrideDefault::Value(|| "false".into());
        /// The receiver's decode time per frame, ms.
        decode_time_ms: Option<f64> => ["scream-v2"], MS,
            OverrideDefault::Value(|| crate::overrides::ms(flowstate_core::playout::DEFAULT_DECODE_TIME));
    }
}

/// A SCReAM v2 media flow (RFC 8888 feedback).
pub type ScreamV2Flow = EndpointPairFlow<Tracked<ScreamV2Sender>, CcfbReceiver>;

impl SimSender for ScreamV2Sender {
    /// What getStats shows of the video and the page's maxBitrate (the `web-api` mode).
    fn web_stats(&self) -> Option<crate::app_stats::AppStats> {
        Some(crate::web_api::scream_v2_stats(self))
    }
    fn web_control(&mut self, now: Timestamp, control: crate::app_stats::AppControl) {
        crate::web_api::apply_scream_v2(self, now, control);
    }
    fn encoder_log(&self) -> Option<&flowstate_core::playout::EncoderLog> {
        Some(ScreamV2Sender::encoder_log(self))
    }
}

/// A `scream-v2` flow's configuration, media keys, feedback interval and frame rate.
/// Error: the key under `overrides`.
pub fn scream_v2_config(
    spec: &FlowSpec,
) -> Result<(ScreamV2Config, ScreamV2MediaOverrides, TimeDelta, f64), FieldError> {
    let (o, c) = read_config::<ScreamV2Config, ScreamV2MediaOverrides>(
        spec,
        ScreamV2Config::OPTIONS,
        ScreamV2MediaOverrides::DEFINITIONS,
        "scream_v2.",
        ScreamV2Config::validate,
    )?;
    let under = |e: FieldError| e.under("overrides");
    let interval = feedback_interval(
        o.own
            .feedback_interval_ms
            .unwrap_or(SCREAM_V2_FEEDBACK_INTERVAL_MS),
    )
    .map_err(under)?;
    let fps = match o.own.fps {
        Some(v) => f64::from_input(OptionUnit::FramesPerSec, OptionInput::Number(v))
            .map_err(|m| under(FieldError::new(".fps", m)))?,
        None => EncoderBounds::paper000().fps,
    };
    Ok((c, o.own, interval, fps))
}

/// A SCReAM v2 media flow.
pub fn scream_v2_flow(b: &BuildInput<'_>) -> Result<ScreamV2Flow, FieldError> {
    let (scream, media, interval, fps) = scream_v2_config(b.spec)?;
    let playout = playout_config(&PlayoutKeys {
        playout: media.playout,
        playout_delay_ms: media.playout_delay_ms,
        reference_chain: media.reference_chain,
        decode_time_ms: media.decode_time_ms,
    })
    .map_err(|e| e.under("overrides"))?;
    let perfect = media.perfect_codec.unwrap_or(false);
    let vp8_drop = media.vp8_frame_drop.unwrap_or(false);
    if perfect && vp8_drop {
        return Err(FieldError::new(
            ".vp8_frame_drop",
            "cannot be combined with perfect_codec (the perfect codec drops no frame)",
        )
        .under("overrides"));
    }
    let mut source = rmcat_source(perfect, scream.max_rate, fps);
    if let flowstate_core::source::VideoSourceConfig::Statistics(c) = &mut source {
        c.vp8_drop =
            vp8_drop.then(flowstate_core::source::vp8_frame_drop::Vp8DropConfig::chromium156);
    }
    let mut cfg = ScreamV2SenderConfig::new(scream, source);
    cfg.ecn = b.spec.ecn_or(DEFAULT_ECN);
    cfg.ssrc = b.index as u32 + 1;
    cfg.seed = b.seed;
    let start = secs(b.spec.start_secs());
    let mut sender = ScreamV2Sender::new(cfg, start);
    if let Some(d) = b.spec.desired_rate {
        sender.set_desired_rate(start, Some(Bitrate::bps(d.0)));
    }
    Ok(EndpointPairFlow::new(
        Tracked::new(sender),
        ccfb_receiver(b.index, interval, playout),
    ))
}
