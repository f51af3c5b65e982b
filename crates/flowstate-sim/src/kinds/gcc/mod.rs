//! `gcc`: RTP video from a video encoder model under Google Congestion Control
//! (draft-ietf-rmcat-gcc-02, papers 001/002, Chromium's goog_cc; the presets in
//! flowstate-core's `gcc::GccPreset`). The flow: flowstate-core's `MediaSender` /
//! `MediaReceiver`; its options: [`options::GccOverrides`]; the GCC configuration they
//! give: [`config::gcc_config`].

pub mod config;
pub mod options;

use super::common::{check_positive, parse_overrides, secs};
use crate::app_stats::{AppControl, AppStats};
use crate::error::FieldError;
use crate::flow::{EndpointPairFlow, ReceiverHooks};
use crate::flow_spec::FlowContext;
use crate::flow_spec::FlowSpec;
use crate::flow_spec::{CouplingRole, KindDef};
use crate::kinds::playout_options::{playout_config, PlayoutKeys};
use crate::tracked::{SimSender, Tracked};
use config::gcc_config;
use flowstate_core::coupling::Mechanism;
use flowstate_core::endpoint::media::{
    MediaReceiver, MediaReceiverConfig, MediaSender, MediaSenderConfig, RateReportMode,
};
use flowstate_core::playout::{EncoderLog, FramePlayout};
use flowstate_core::source::statistics::StatisticsCodecConfig;
use flowstate_core::source::{EncoderBounds, VideoSourceConfig};
use flowstate_core::{Bitrate, Timestamp};
use options::{GccOverrides, ZERO_SWITCHES_OFF};

/// The `gcc` kind.
pub static KIND: KindDef = KindDef::new(
    "gcc",
    "RTP video from a video encoder model under Google Congestion Control (draft-ietf-rmcat-gcc-02, papers 001/002; presets in gcc_presets)",
    |b| Ok(Box::new(gcc_flow(b.ctx, b.index, b.spec, b.seed)?)),
)
.coupled(CouplingRole::Rate)
.in_call()
.with_presets(|| flowstate_core::gcc::GccPreset::ALL.iter().map(|p| p.name()).collect())
.with_options(|| GccOverrides::DEFINITIONS.to_vec());

/// A GCC media flow (sender + receiver).
pub type GccFlow = EndpointPairFlow<Tracked<MediaSender>, MediaReceiver>;

/// What getStats shows of the video sender, and the web application's control of it
/// (the `web-api` coupling mode).
impl SimSender for MediaSender {
    fn web_stats(&self) -> Option<AppStats> {
        Some(crate::web_api::media_stats(self))
    }
    fn web_control(&mut self, now: Timestamp, control: AppControl) {
        crate::web_api::apply_media(self, now, control);
    }
    fn encoder_log(&self) -> Option<&EncoderLog> {
        Some(MediaSender::encoder_log(self))
    }
}

impl ReceiverHooks for MediaReceiver {
    fn delay_based_decreases(&self) -> Option<u64> {
        self.delay_based().map(|d| d.delay_based_decreases())
    }
    fn playout(&self) -> Option<&FramePlayout> {
        Some(MediaReceiver::playout(self))
    }
    fn advance_playout(&mut self, now: Timestamp) {
        MediaReceiver::advance_playout(self, now);
    }
}

/// An error in the flow's `overrides` (sub-path `.key`), relative to the flow.
fn bad_override(e: FieldError) -> FieldError {
    e.under("overrides")
}

/// Mixed into a GCC flow's seed for its receiver's own random draws, so that they do
/// not repeat the sender's (the video source's).
const RECEIVER_SEED_SALT: u64 = 0x5245_4345_4956_4552; // "RECEIVER"

/// A GCC flow as the scenario describes it. Report mode: delay-based estimate under
/// FSE-NG / Extended FSE-NG, target otherwise.
pub fn gcc_flow(
    ctx: &FlowContext,
    index: usize,
    spec: &FlowSpec,
    seed: u64,
) -> Result<GccFlow, FieldError> {
    let preset = config::preset(spec.preset.as_deref())?;
    let o: GccOverrides = parse_overrides(spec)?;
    // Every number an override holds must be > 0, but a zero that switches a rule off
    // (`fec_delay_ms = 0`: ULPFEC at once, as the sources read).
    check_positive(&o.numbers(), ZERO_SWITCHES_OFF)?;
    check_video_bounds(&o).map_err(bad_override)?;
    let playout = playout_config(&PlayoutKeys {
        playout: o.playout,
        playout_delay_ms: o.playout_delay_ms,
        reference_chain: o.reference_chain,
        decode_time_ms: o.decode_time_ms,
    })
    .map_err(bad_override)?;
    let mut gcc = gcc_config(preset, &o).map_err(bad_override)?;
    // The simulator never polls GCC's internal snapshots: queued, they would hold up
    // to 10,000 per flow (memory growing with run length); `latest` is still kept.
    gcc.observation_capacity = 0;
    let mut bounds = EncoderBounds::paper000();
    if let Some(r) = o.video_max_rate {
        bounds.max_rate = Bitrate::bps(r.0);
    }
    if let Some(r) = o.video_min_rate {
        bounds.min_rate = Bitrate::bps(r.0);
    }
    if let Some(f) = o.fps {
        bounds.fps = f;
    }
    let mut cfg = MediaSenderConfig::new(gcc.clone());
    cfg.ecn = spec.ecn();
    cfg.ssrc = index as u32 + 1;
    cfg.seed = seed;
    if let Some(b) = o.pacer_burst_ms {
        if !(b.is_finite() && (0.1..=1000.0).contains(&b)) {
            return Err(bad_override(FieldError::new(
                ".pacer_burst_ms",
                format!("must be between 0.1 and 1000 ms, got {b}"),
            )));
        }
        cfg.pacer.burst_interval =
            flowstate_core::TimeDelta::from_micros((b * 1000.0).round() as i64);
    }
    // The send chain: the preset's (`MediaSenderConfig::new`, chromium-m156's on), each
    // part switched by its override.
    if let Some(on) = o.chromium_pacer {
        cfg.pacer.media_debt = on.then(flowstate_core::gcc::media_debt::MediaDebtConfig::default);
    }
    if let (Some(md), Some(_)) = (cfg.pacer.media_debt.as_mut(), o.pacer_burst_ms) {
        md.burst_interval = cfg.pacer.burst_interval;
    }
    if let Some(on) = o.send_time_ms {
        cfg.send_time_whole_ms = on;
    }
    if let Some(d) = o.fec_delay_ms {
        let field = |m: String| bad_override(FieldError::new(".fec_delay_ms", m));
        if !(d == 0.0 || d.is_finite() && (0.1..=1000.0).contains(&d)) {
            return Err(field(format!(
                "must be 0 (at once) or between 0.1 and 1000 ms, got {d}"
            )));
        }
        if d > 0.0 && gcc.fec.is_none() {
            return Err(field(
                "needs chromium_fec = true (it delays ULPFEC packets)".into(),
            ));
        }
        cfg.fec_delay = flowstate_core::TimeDelta::from_micros((d * 1000.0).round() as i64);
    }
    // Padding needs loss-based BWE v2's padding state (M150's defaults): with M125's
    // the preset's padding is off, a flow that asks for it is an error.
    let pads = gcc
        .m156
        .as_ref()
        .and_then(|m| m.loss_v2.as_ref())
        .is_some_and(|l| l.padding_duration > flowstate_core::TimeDelta::ZERO);
    match o.loss_v2_padding {
        Some(true) if !pads => {
            return Err(bad_override(FieldError::new(
                ".loss_v2_padding",
                "needs loss_v2_m150 = true (M125's loss-based BWE v2 never increases with padding)",
            )));
        }
        Some(on) => cfg.loss_v2_padding = on,
        None => cfg.loss_v2_padding &= pads,
    }
    let nack_rtx = o.nack_rtx.unwrap_or(false);
    cfg.nack_rtx = nack_rtx;
    cfg.target_includes_overhead = preset.target_includes_overhead();
    if let Some(on) = o.target_includes_overhead {
        cfg.target_includes_overhead = on;
    }
    let vp8_drop = o.vp8_frame_drop.unwrap_or(false);
    if vp8_drop && o.low_rate_fps.unwrap_or(false) {
        return Err(bad_override(FieldError::new(
            ".vp8_frame_drop",
            "cannot be combined with low_rate_fps (both set the frame rate at low rates)",
        )));
    }
    cfg.source = if o.perfect_codec.unwrap_or(false) {
        VideoSourceConfig::Perfect(bounds)
    } else {
        VideoSourceConfig::Statistics(StatisticsCodecConfig {
            bounds,
            low_rate_fps: o
                .low_rate_fps
                .unwrap_or(false)
                .then_some(&flowstate_core::source::statistics::CHROMIUM156_LOW_RATE_FPS[..]),
            vp8_drop: vp8_drop
                .then(flowstate_core::source::vp8_frame_drop::Vp8DropConfig::chromium156),
            ..StatisticsCodecConfig::default()
        })
    };
    // What GCC reports is the mechanism's to say (paper 000 V-B3; the catalogue entry
    // in the mechanism's file gives the reason).
    cfg.report_mode = ctx.gcc_report.unwrap_or_else(|| {
        Mechanism::info_by_name(&ctx.mechanism)
            .map_or(RateReportMode::Target, |info| info.rate_report)
    });
    let start = secs(spec.start_secs());
    let mut sender = MediaSender::new(cfg, start);
    if let Some(d) = spec.desired_rate {
        sender.set_desired_rate(start, Some(Bitrate::bps(d.0)));
    }
    let mut rcfg = MediaReceiverConfig::new(gcc);
    rcfg.ssrc = index as u32 + 1;
    // The receiver's draws (the report interval) from their own stream of the flow's seed.
    rcfg.seed = seed ^ RECEIVER_SEED_SALT;
    rcfg.nack = nack_rtx.then(flowstate_core::endpoint::nack::NackConfig::default);
    rcfg.playout = playout;
    Ok(EndpointPairFlow::new(
        Tracked::new(sender),
        MediaReceiver::new(rcfg),
    ))
}

/// `x` for a message: plain (`0.5`, `5000`), or with an exponent when plain would be
/// a hundred digits long (`1e-300`).
fn show(x: f64) -> String {
    if x != 0.0 && !(1e-6..1e15).contains(&x.abs()) {
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}

/// The frame rates a `gcc` flow's `overrides.fps` may take: below 1 fps a frame
/// holds seconds of video (a single frame can take hours to packetize), above 1000 the
/// encoder would clamp it.
pub const FPS_RANGE: (f64, f64) = (1.0, 1000.0);

/// A `gcc` flow's encoder bounds: `video_min_rate` <= `video_max_rate` (defaults
/// 50 kbit/s and 2.5 Mbit/s, paper 000) and `fps` in [`FPS_RANGE`]. Error: the sub-path
/// under `overrides`.
fn check_video_bounds(o: &GccOverrides) -> Result<(), FieldError> {
    let defaults = flowstate_core::source::EncoderBounds::paper000();
    let lo = o.video_min_rate.map_or(defaults.min_rate.as_bps(), |b| b.0);
    let hi = o.video_max_rate.map_or(defaults.max_rate.as_bps(), |b| b.0);
    if lo > hi {
        let key = if o.video_min_rate.is_some() {
            "video_min_rate"
        } else {
            "video_max_rate"
        };
        return Err(FieldError::new(
            format!(".{key}"),
            format!("video_min_rate ({lo} bit/s) must be <= video_max_rate ({hi} bit/s)"),
        ));
    }
    if let Some(fps) = o.fps {
        let (min, max) = FPS_RANGE;
        if !(min..=max).contains(&fps) {
            return Err(FieldError::new(
                ".fps",
                format!(
                    "must be between {min} and {max} frames per second, got {}",
                    show(fps)
                ),
            ));
        }
    }
    Ok(())
}
