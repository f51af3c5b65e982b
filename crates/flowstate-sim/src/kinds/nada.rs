//! `nada`: RTP video from a video encoder model under NADA (RFC 8698) with RFC 8888
//! feedback; coupled as a rate flow (r_ref, with r_vin and r_send following, paper 003
//! Table I). Its options: every parameter of RFC 8698 section 4.1
//! (`flowstate_core::nada::NadaConfig::OPTIONS`) and the media source's.

use super::common::secs;
use super::playout_options::{playout_config, PlayoutKeys};
use super::rtp_video::{
    ccfb_receiver, feedback_interval, min_feedback_interval, read_config, rmcat_source,
};
use crate::error::FieldError;
use crate::flow::EndpointPairFlow;
use crate::flow_spec::FlowSpec;
use crate::flow_spec::{BuildInput, CouplingRole, KindDef};
use crate::overrides::{config_definitions, overrides, OverrideDefault, BYTES, MS};
use crate::tracked::{SimSender, Tracked};
use crate::units_parse::Bytes;
use flowstate_core::endpoint::media::WireSizes;
use flowstate_core::endpoint::nada::{NadaSender, NadaSenderConfig};
use flowstate_core::endpoint::rfc8888::CcfbReceiver;
use flowstate_core::nada::NadaConfig;
use flowstate_core::source::VideoSourceConfig;
use flowstate_core::{Bitrate, DataSize, TimeDelta};

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
        /// The largest RTP packet on the wire (IP, UDP, RTP and header extension
        /// included, 48 B of it); frames are cut into the fewest packets of at most this
        /// size. Unset: 1,200 B. cisco/ns3-rmcat sends 1,000 B of payload (1,040 B IP).
        packet_size: Option<Bytes> => ["nada"], BYTES,
            OverrideDefault::Value(|| WireSizes::default().max_packet.as_bytes().to_string());
        /// The receiver's playout rule: `adaptive` (libwebrtc's jitter buffer) or
        /// `fixed` (capture + `playout_delay_ms`); frame figures only.
        playout: Option<crate::kinds::playout_options::PlayoutRule> => ["nada"], None,
            OverrideDefault::Value(|| "adaptive".into());
        /// `playout = "fixed"`: capture to render, ms.
        playout_delay_ms: Option<f64> => ["nada"], MS,
            OverrideDefault::Value(|| crate::overrides::ms(flowstate_core::playout::DEFAULT_FIXED_PLAYOUT_DELAY));
        /// The receiver decodes a delta frame only after the frame before it (no
        /// key-frame request is modelled: a loss waits for the next key frame).
        reference_chain: Option<bool> => ["nada"], None, OverrideDefault::Value(|| "false".into());
        /// The receiver's decode time per frame, ms.
        decode_time_ms: Option<f64> => ["nada"], MS,
            OverrideDefault::Value(|| crate::overrides::ms(flowstate_core::playout::DEFAULT_DECODE_TIME));
        /// `true`: a frame's packets enter the shaping buffer evenly over the frame
        /// interval, as cisco/ns3-rmcat's source (syncodecs' shaped packetizer) delivers
        /// them; unset: all at the capture time.
        spread_frames: Option<bool> => ["nada"], None, OverrideDefault::Value(|| "false".into());
        /// Each packet leaves a random fraction in [0, this) of its pacing gap late, as
        /// cisco/ns3-rmcat's sender's "synthetic oversleep" (0.01); unset: 0, on time.
        send_oversleep: Option<f64> => ["nada"], None, OverrideDefault::Value(|| "0".into());
        /// With `perfect_codec`: each interval to the next frame is (1 / fps) x (1 + L),
        /// L ~ Laplace(0, this), as cisco/syncodecs' fixed-fps codec draws them (0.15,
        /// its SCALE_T; `SimpleFpsBasedCodec`, the source of cisco/ns3-rmcat's suites);
        /// unset: 0, every frame on the frame clock.
        frame_interval_noise: Option<f64> => ["nada"], None, OverrideDefault::Value(|| "0".into());
    }
}

/// The largest `frame_interval_noise`: a Laplace scale of one frame interval.
pub const NADA_MAX_FRAME_INTERVAL_NOISE: f64 = 1.0;

/// `frame_interval_noise` on the perfect codec: a Laplace scale in [0, 1]. Error: the
/// key, the range, or the codec it needs.
pub(crate) fn frame_interval_noise(media: &NadaMediaOverrides) -> Result<f64, FieldError> {
    let Some(b) = media.frame_interval_noise else {
        return Ok(0.0);
    };
    if !(b.is_finite() && (0.0..=NADA_MAX_FRAME_INTERVAL_NOISE).contains(&b)) {
        return Err(FieldError::new(
            "overrides.frame_interval_noise",
            format!("must be a Laplace scale in [0, {NADA_MAX_FRAME_INTERVAL_NOISE}] of the frame interval, e.g. 0.15, got {b}"),
        ));
    }
    if b > 0.0 && !media.perfect_codec.unwrap_or(false) {
        return Err(FieldError::new(
            "overrides.frame_interval_noise",
            "applies to the perfect codec: set `perfect_codec = true` as well (the statistics codec has its own noise)",
        ));
    }
    Ok(b)
}

/// The largest `packet_size` a `nada` flow takes: an IPv4 packet's limit.
pub const NADA_MAX_PACKET_BYTES: f64 = 65_535.0;

/// A `nada` flow's wire sizes: the default's, with `packet_size` as the largest packet
/// when set. Error: a size not above the 48 B of headers or above 65,535 B.
pub fn nada_wire(media: &NadaMediaOverrides) -> Result<WireSizes, FieldError> {
    let mut wire = WireSizes::default();
    if let Some(Bytes(size)) = media.packet_size {
        let least = wire.rtp_overhead.as_bytes() as f64 + 1.0;
        if !(least..=NADA_MAX_PACKET_BYTES).contains(&size) || size.fract() != 0.0 {
            return Err(FieldError::new(
                "overrides.packet_size",
                format!(
                    "must be a whole number of bytes from {least} B (the {} B of IP, UDP and RTP headers plus one) to {NADA_MAX_PACKET_BYTES} B, got {size} B",
                    wire.rtp_overhead.as_bytes()
                ),
            ));
        }
        wire.max_packet = DataSize::bytes(size as u64);
    }
    Ok(wire)
}

/// `send_oversleep`: a fraction in [0, 1). Error: the key and the range.
pub(crate) fn send_oversleep(v: Option<f64>) -> Result<f64, FieldError> {
    match v {
        None => Ok(0.0),
        Some(f) if f.is_finite() && (0.0..1.0).contains(&f) => Ok(f),
        Some(f) => Err(FieldError::new(
            "overrides.send_oversleep",
            format!("must be a fraction of the pacing gap in [0, 1), e.g. 0.01, got {f}"),
        )),
    }
}

/// A NADA media flow (RFC 8888 feedback).
pub type NadaFlow = EndpointPairFlow<Tracked<NadaSender>, CcfbReceiver>;

impl SimSender for NadaSender {
    fn encoder_log(&self) -> Option<&flowstate_core::playout::EncoderLog> {
        Some(NadaSender::encoder_log(self))
    }
}

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
    let playout = playout_config(&PlayoutKeys {
        playout: media.playout,
        playout_delay_ms: media.playout_delay_ms,
        reference_chain: media.reference_chain,
        decode_time_ms: media.decode_time_ms,
    })
    .map_err(|e| e.under("overrides"))?;
    let noise = frame_interval_noise(&media)?;
    let source = match rmcat_source(
        media.perfect_codec.unwrap_or(false),
        nada.max_rate,
        nada.fps,
    ) {
        VideoSourceConfig::Perfect(bounds) if noise > 0.0 => VideoSourceConfig::FixedFps {
            bounds,
            interval_noise: noise,
        },
        source => source,
    };
    let mut cfg = NadaSenderConfig::new(nada, source);
    cfg.ecn = b.spec.ecn();
    cfg.wire = nada_wire(&media)?;
    cfg.ssrc = b.index as u32 + 1;
    cfg.seed = b.seed;
    cfg.spread_frames = media.spread_frames.unwrap_or(false);
    cfg.send_oversleep = send_oversleep(media.send_oversleep)?;
    let start = secs(b.spec.start_secs());
    let mut sender = NadaSender::new(cfg, start);
    if let Some(d) = b.spec.desired_rate {
        sender.set_desired_rate(start, Some(Bitrate::bps(d.0)));
    }
    Ok(EndpointPairFlow::new(
        Tracked::new(sender),
        ccfb_receiver(b.index, interval, playout),
    ))
}
