//! The `overrides` a `gcc` flow accepts, each key defined once: its field, unit,
//! default per GCC preset (computed from the presets' configurations, so a new preset
//! shows its own) and description.

use crate::overrides::{no_number, overrides, text, OverrideDefault, BPS, FPS, MS};
use crate::units_parse::Bps;
use flowstate_core::gcc::delay_based::DelayFilterConfig;
use flowstate_core::gcc::kalman::NoiseModel;
use flowstate_core::gcc::loss_based::LossVariant;
use flowstate_core::gcc::threshold::{StaticThresholdConfig, ThresholdConfig};
use flowstate_core::gcc::{EstimationSide, GccConfig, GccPreset};
use flowstate_core::source::EncoderBounds;

use crate::overrides::ms;

/// The numeric gcc overrides a zero switches off instead of being an error (every other
/// number must be > 0): `fec_delay_ms = 0` sends ULPFEC at once, as the sources read.
pub const ZERO_SWITCHES_OFF: &[&str] = &["fec_delay_ms"];

no_number!(RuleOrigin, ThresholdMode);

/// The preset's send chain (`chromium-m156`'s; none for the paper-era presets).
fn send_chain(p: GccPreset) -> flowstate_core::gcc::config::SendChainConfig {
    p.config()
        .m156
        .map_or(flowstate_core::gcc::config::SendChainConfig::NONE, |m| {
            m.send_chain
        })
}

/// The preset's Kalman filter configuration, if it has one.
fn kalman(p: GccPreset) -> Option<flowstate_core::gcc::kalman::KalmanConfig> {
    match p.config().delay.filter {
        DelayFilterConfig::Kalman(k) => Some(k),
        DelayFilterConfig::Trendline(_) => None,
    }
}

/// The static threshold a preset runs with `threshold = "static"`.
fn static_threshold(p: GccPreset) -> StaticThresholdConfig {
    match p.config().delay.threshold {
        ThresholdConfig::Static(s) => s,
        ThresholdConfig::Adaptive(_) => StaticThresholdConfig::default(),
    }
}

/// The adaptive threshold a preset runs with `threshold = "adaptive"`.
fn adaptive_threshold(p: GccPreset) -> flowstate_core::gcc::threshold::AdaptiveThresholdConfig {
    match p.config().delay.threshold {
        ThresholdConfig::Adaptive(a) => a,
        ThresholdConfig::Static(_) => p.adaptive_threshold(),
    }
}

fn aimd_rate(p: GccPreset, f: fn(&GccConfig) -> flowstate_core::Bitrate) -> Option<String> {
    text(f(&p.config()).as_bps())
}

overrides! {
    /// The `overrides` a `gcc` flow accepts (all optional; defaults from the preset).
    #[derive(Default)]
    pub struct GccOverrides {
        /// GCC start rate (delay- and loss-based parts).
        start_rate: Option<Bps> => ["gcc"], BPS,
            OverrideDefault::PerPreset(|p| aimd_rate(p, |c| c.delay.aimd.start_rate));
        /// GCC minimum rate.
        min_rate: Option<Bps> => ["gcc"], BPS,
            OverrideDefault::PerPreset(|p| aimd_rate(p, |c| c.delay.aimd.min_rate));
        /// GCC maximum rate.
        max_rate: Option<Bps> => ["gcc"], BPS,
            OverrideDefault::PerPreset(|p| aimd_rate(p, |c| c.delay.aimd.max_rate));
        /// The video encoder's maximum rate (paper 000).
        video_max_rate: Option<Bps> => ["gcc"], BPS,
            OverrideDefault::Value(|| EncoderBounds::paper000().max_rate.as_bps().to_string());
        /// The video encoder's minimum rate.
        video_min_rate: Option<Bps> => ["gcc"], BPS,
            OverrideDefault::Value(|| EncoderBounds::paper000().min_rate.as_bps().to_string());
        /// Frames per second (1 to 1000).
        fps: Option<f64> => ["gcc"], FPS,
            OverrideDefault::Value(|| EncoderBounds::paper000().fps.to_string());
        /// `true`: a perfect codec (frames exactly at the target) instead of the statistics
        /// codec with noise and I-frames.
        perfect_codec: Option<bool> => ["gcc"], None, OverrideDefault::Value(|| "false".into());
        /// Pacer rate / target (paper 1.5, Chromium 1.1; chromium-m156: Chromium's pacing
        /// multiplier).
        pacing_factor: Option<f64> => ["gcc"], None,
            OverrideDefault::PerPreset(|p| {
                let c = p.config();
                match c.m156.and_then(|m| m.pacing) {
                    Some(pacing) => text(pacing.pace_multiplier),
                    None => text(c.pacing_factor),
                }
            });
        /// Kalman state noise variance Q (paper 002 eq. 15; Kalman presets `paper` and
        /// `paper-static` only).
        kalman_q: Option<f64> => ["gcc"], None,
            OverrideDefault::PerPreset(|p| kalman(p).map(|k| k.q.to_string()));
        /// Kalman measurement-noise estimator: `paper` (paper 002 eq. 16) or `chromium`
        /// (Chromium's OveruseEstimator: 3-sigma outlier clamp, updated only in the normal
        /// state, slow EWMA); Kalman presets only.
        kalman_noise: Option<RuleOrigin> => ["gcc"], None,
            OverrideDefault::PerPreset(|p| kalman(p).map(|k| match k.noise {
                NoiseModel::Paper => RuleOrigin::Paper.name().to_string(),
                NoiseModel::Chromium { .. } => RuleOrigin::Chromium.name().to_string(),
            }));
        /// `true`: the two-state Kalman filter with Chromium's 1/C state (paper 001 eq. 2;
        /// paper 002 eq. 7 before its reduction to eq. 10); Kalman presets only.
        kalman_slope: Option<bool> => ["gcc"], None,
            OverrideDefault::PerPreset(|p| kalman(p).map(|k| k.slope.is_some().to_string()));
        /// `true`: GCC's target counts the RTP/UDP/IP overhead and the encoder gets target
        /// minus the overhead rate (Chromium ~M100, WebRTC-SendSideBwe-WithOverhead);
        /// `false`: the encoder gets the whole target, headers come on top.
        target_includes_overhead: Option<bool> => ["gcc"], None,
            OverrideDefault::PerPreset(|p| text(p.target_includes_overhead()));
        /// `true`: an FSE allocation restarts the clock of TimeToReduceFurther (Chromium's
        /// SetEstimate); `false`: it sets the AIMD rate without touching the clock (as
        /// Chromium's SetStartBitrate). Send-side presets (chromium) only.
        allocation_restarts_decrease_timer: Option<bool> => ["gcc"], None,
            OverrideDefault::PerPreset(|p| {
                let c = p.config();
                (c.side == EstimationSide::Sender)
                    .then(|| c.delay.aimd.allocation_restarts_decrease_timer.to_string())
            });
        /// Over-use threshold: `static` (paper 001) or `adaptive` (paper 002).
        threshold: Option<ThresholdMode> => ["gcc"], None,
            OverrideDefault::PerPreset(|p| match p.config().delay.threshold {
                ThresholdConfig::Static(_) => text(ThresholdMode::Static.name()),
                ThresholdConfig::Adaptive(_) => text(ThresholdMode::Adaptive.name()),
            });
        /// Static threshold gamma_bar in ms of m (paper 001: 10/60 .. 65/60); with
        /// `threshold = "static"` only.
        gamma_bar_ms: Option<f64> => ["gcc"], MS,
            OverrideDefault::PerPreset(|p| text(static_threshold(p).gamma_bar_ms));
        /// Static threshold: halve gamma near congestion (paper 001); with
        /// `threshold = "static"` only.
        threshold_halving: Option<bool> => ["gcc"], None,
            OverrideDefault::PerPreset(|p| text(static_threshold(p).halving));
        /// Adaptive threshold gain k_u (paper 002 eq. 18: 0.01; Chromium 0.0087); with
        /// `threshold = "adaptive"` only.
        k_up: Option<f64> => ["gcc"], None,
            OverrideDefault::PerPreset(|p| text(adaptive_threshold(p).k_up));
        /// Adaptive threshold gain k_d (paper 002 eq. 18: 0.00018; Chromium 0.039); with
        /// `threshold = "adaptive"` only.
        k_down: Option<f64> => ["gcc"], None,
            OverrideDefault::PerPreset(|p| text(adaptive_threshold(p).k_down));
        /// Adaptive threshold: skip the update when |M| - gamma > 15 (Chromium's guard
        /// against latency spikes); `false` is paper 002's eq. 17 as written.
        threshold_ignores_spikes: Option<bool> => ["gcc"], None,
            OverrideDefault::PerPreset(|p| text(adaptive_threshold(p).max_adapt_offset.is_finite()));
        /// `false`: the rate controller increases multiplicatively in every Increase state
        /// (paper 002 eq. 3 as written); `true`: additive near convergence, i.e. while the
        /// incoming rate is within the link-capacity estimate's bounds (Chromium
        /// `AimdRateControl`).
        additive_increase: Option<bool> => ["gcc"], None,
            OverrideDefault::PerPreset(|p| text(p.config().delay.aimd.additive_near_convergence));
        /// The loss-based controller: `paper` (paper 002 eq. 5: x1.05 per receiver report
        /// below 2 % loss; paper 001 eq. 1 for paper-static) or `chromium` (1.08 x the
        /// minimum rate of the last second + 1 kbit/s, re-evaluated every 25 ms).
        loss_controller: Option<RuleOrigin> => ["gcc"], None,
            OverrideDefault::PerPreset(|p| match p.config().loss.variant {
                LossVariant::ChromiumClassic => text(RuleOrigin::Chromium.name()),
                LossVariant::Paper001 | LossVariant::Paper002 => text(RuleOrigin::Paper.name()),
            });
        /// `chromium-m156` only: `false` switches the probe controller off (no initial,
        /// further, ALR or drop-recovery probes).
        probing: Option<bool> => ["gcc"], None,
            OverrideDefault::PerPreset(|p| p.config().m156.map(|m| m.probing.is_some().to_string()));
        /// `chromium-m156` only: `false` switches the ALR detector off.
        alr_detector: Option<bool> => ["gcc"], None,
            OverrideDefault::PerPreset(|p| p.config().m156.map(|m| m.alr.is_some().to_string()));
        /// `chromium-m156` only: `false` paces at `pacing_factor` x target without
        /// Chromium's 2 s queue drain (`drain_large_queues`).
        chromium_pacing: Option<bool> => ["gcc"], None,
            OverrideDefault::PerPreset(|p| p.config().m156.map(|m| m.pacing.is_some().to_string()));
        /// `chromium-m156` only: `false` uses the chromium preset's classic loss-based
        /// controller instead of loss-based BWE v2.
        loss_based_v2: Option<bool> => ["gcc"], None,
            OverrideDefault::PerPreset(|p| p.config().m156.map(|m| m.loss_v2.is_some().to_string()));
        /// `chromium-m156` only: `false` takes the AIMD's throughput (and the
        /// acknowledged rate of the probe floor and loss-based BWE v2) from the chromium
        /// preset's 500 ms receive-rate window instead of Chromium's
        /// `RobustThroughputEstimator`.
        robust_throughput: Option<bool> => ["gcc"], None,
            OverrideDefault::PerPreset(|p| p.config().m156.map(|m| m.throughput.is_some().to_string()));
        /// `chromium-m156` only: `false` switches the congestion-window pushback off (no
        /// frames dropped while the bytes in flight exceed target x (min feedback RTT +
        /// 350 ms)).
        congestion_window: Option<bool> => ["gcc"], None,
            OverrideDefault::PerPreset(|p| p.config().m156.map(|m| m.congestion_window.is_some().to_string()));
        /// The pacer's burst interval: the budget it may accrue, as time at the pacing
        /// rate (`gcc::pacer`; default 5 ms), or with `chromium_pacer` the media debt's
        /// interval (default 40 ms, `chromium-m156`'s). Chromium since 2023 lets
        /// the media debt reach `PacingController::kDefaultBurstInterval` = 40 ms
        /// (`modules/pacing/pacing_controller.h`) before it waits, so a small frame
        /// leaves back to back (docs/REPRODUCTION.md, the CUBIC cases). 0.1 to
        /// 1000 ms.
        pacer_burst_ms: Option<f64> => ["gcc"], MS,
            OverrideDefault::PerPreset(|p| Some(ms(match send_chain(p).media_debt {
                Some(md) => md.burst_interval,
                None => flowstate_core::gcc::pacer::PacerConfig::default().burst_interval,
            })));
        /// `true`: the pacer follows today's Chromium `PacingController`
        /// (`gcc::media_debt`, WebRTC M150 sources): a media debt instead of a budget; a
        /// queued packet goes while the debt drains within the burst interval
        /// (`pacer_burst_ms`, here default `PacerConfig::kDefaultTimeInterval` = 40 ms,
        /// at most `kMaxBurstSize` 63 kB at the pacing rate), else once the debt is paid
        /// off; the debt capped at 500 ms (`kMaxDebtInTime`). Default true in
        /// `chromium-m156`, false (the budget) in the paper-era presets
        /// (docs/ALGORITHMS.md).
        chromium_pacer: Option<bool> => ["gcc"], None,
            OverrideDefault::PerPreset(|p| text(send_chain(p).media_debt.is_some()));
        /// `true`: the statistics codec's frame rate falls with its rate as real Chromium
        /// 156's VP8 encoder's did (1 frame/s under 100 kbit/s, 4 under 200, 22.5 under
        /// 400, measured: `source::statistics::CHROMIUM156_LOW_RATE_FPS`); default false
        /// (always `fps`).
        low_rate_fps: Option<bool> => ["gcc"], None, OverrideDefault::Value(|| "false".into());
        /// `true`: the statistics codec drops frames as libvpx VP8's one-pass CBR buffer
        /// does in Chromium (rc_dropframe_thresh 30, buffer 500 / 600 / 1000 ms, a frame
        /// forced after 2 s), each encoded frame at least the measured clip's frame-size
        /// floor for its distance to the previous one (`source::vp8_frame_drop`;
        /// docs/ALGORITHMS.md); default false. Not together with `low_rate_fps`.
        vp8_frame_drop: Option<bool> => ["gcc"], None, OverrideDefault::Value(|| "false".into());
        /// `true`: Chromium's encoder-side protection (`flowstate_core::fec`, WebRTC M150
        /// sources; docs/ALGORITHMS.md "Chromium's protection"): the loss
        /// fraction of the receiver reports, max-filtered over 10 s, sets the hybrid
        /// NACK/FEC protection factors (`media_opt_util.cc`, `kFecRateTable`); the
        /// encoder gets the target less the per-packet overhead by packet rate
        /// (`RtpVideoSender::CalculateOverheadRate`), less the FEC share of the last
        /// second's sent bytes (at most half, `FecControllerDefault`), and ULPFEC packets (count and
        /// size as `UlpfecGenerator` makes them) are sent behind the media. Default
        /// true in `chromium-m156`, false in the paper-era presets.
        chromium_fec: Option<bool> => ["gcc"], None,
            OverrideDefault::PerPreset(|p| text(p.config().fec.is_some()));
        /// `true`: Chromium's encoder bitrate adjuster (`flowstate_core::endpoint::
        /// encoder_adjuster`, WebRTC M150 `encoder_bitrate_adjuster.cc` and
        /// `encoder_overshoot_detector.cc`; docs/ALGORITHMS.md "Chromium's
        /// encoder bitrate adjuster"): the encoder's rate is divided by its mean overshoot
        /// over 3 s (a buffer draining at that rate, each frame's leftover counted in
        /// frames of the input frame rate; factor 1-2, 1.2 for the first 30 frames), at
        /// least 30 kbit/s; re-adjusted at each target update and every second. Default
        /// true in `chromium-m156`, false in the paper-era presets.
        chromium_adjuster: Option<bool> => ["gcc"], None,
            OverrideDefault::PerPreset(|p| text(p.config().encoder_adjuster.is_some()));
        /// `true`: the receiver sends transport-wide feedback as Chromium 156's does
        /// (`flowstate_core::gcc::feedback_cadence`; docs/ALGORITHMS.md
        /// "Chromium's transport-feedback cadence"): on a fixed schedule from the
        /// receiver's start, a report at each step if packets came since the last; the
        /// step is libwebrtc M150's interval, 68 B / (5 % of the receiving peer's own
        /// send-side target, `feedback_peer_rate`) clamped to 50-250 ms
        /// (`TransportSequenceNumberFeedbackGenenerator::OnSendBandwidthEstimateChanged`
        /// via `Call::OnTargetTransferRate`), rounded up to whole ticks of Chromium's
        /// 64 Hz metronome for low-precision tasks: 62.5 ms. Default true in
        /// `chromium-m156`; false in the paper-era presets (100 ms after the first packet
        /// since the last report).
        chromium_feedback_cadence: Option<bool> => ["gcc"], None,
            OverrideDefault::PerPreset(|p| text(p.config().feedback_cadence.is_some()));
        /// `true`: the receiver spaces its RTCP receiver reports (the sender's loss
        /// fraction, and with it ULPFEC's protection) as libwebrtc's `RTCPSender` does:
        /// the first half a report interval (1 s) after its first packet, then each gap
        /// uniform over the whole milliseconds in [0.5, 1.5] s
        /// (`flowstate_core::endpoint::report_schedule`; docs/ALGORITHMS.md
        /// "Chromium's receiver-report interval"). Default true in `chromium-m156`;
        /// false (a report every second from the first packet) in the paper-era presets.
        rtcp_report_random: Option<bool> => ["gcc"], None,
            OverrideDefault::PerPreset(|p| text(p.config().randomized_report_interval));
        /// With `chromium_feedback_cadence`: the receiving peer's own send-side target,
        /// which sets libwebrtc's feedback interval. Default 300 kbit/s, Chromium's start
        /// bitrate (`BitrateConstraints`), the target of a receiver that sends no media
        /// (every receiver's RTC event log of the real runs: 300 kbit/s throughout).
        feedback_peer_rate: Option<Bps> => ["gcc"], BPS, OverrideDefault::Value(|| "300000".into());
        /// `true`: the send times the transport feedback is matched with are whole
        /// milliseconds, as Chromium's socket layer stamps them (WebRTC M150
        /// `AsyncUDPSocket::SendTo`: `TimeInMilliseconds()`;
        /// `TransportFeedbackAdapter::ProcessSentPacket`: `Timestamp::Millis`), so the
        /// delay-based detector groups and differences them as Chromium's does
        /// (`flowstate_core::endpoint::send_path`; docs/ALGORITHMS.md
        /// "Chromium's send path"). Default true in `chromium-m156`; false (exact) in the
        /// paper-era presets.
        send_time_ms: Option<bool> => ["gcc"], None,
            OverrideDefault::PerPreset(|p| text(send_chain(p).whole_ms_send_times));
        /// With `chromium_fec`: ULPFEC packets join the pacer's queue this long after the
        /// media packet that completed them (Chromium 156 measured: 5 ms or more after the
        /// frame, p25 5.1 ms in p000-fig3; the rule in the sources was not found;
        /// docs/ALGORITHMS.md "Chromium's send path"). 0.1 to 1000 ms, or 0: at once,
        /// as the sources read; default 5.4 in `chromium-m156` (the measured median of
        /// the first mode), unset (at once) in the paper-era presets.
        fec_delay_ms: Option<f64> => ["gcc"], MS,
            OverrideDefault::PerPreset(|p| match send_chain(p).fec_delay {
                d if d > flowstate_core::TimeDelta::ZERO => Some(ms(d)),
                _ => text("none"),
            });
        /// `chromium-m156` only: loss-based BWE v2 with WebRTC M150's defaults
        /// (libwebrtc `068e6ba696`, 2025-05-20: window 15, bandwidth balances 100 kbit/s,
        /// preference threshold 0.2, ramp-up bound 1.5 x the acknowledged rate (1.2 in
        /// HOLD), the acknowledged rate as lower bound, HOLD after a loss-limited decrease
        /// (300 ms doubling to 60 s), byte loss rate, the padding state for 2 s (its
        /// padding not sent), bound best candidate); `false`: M125's;
        /// docs/ALGORITHMS.md "loss-based BWE v2". Default true.
        loss_v2_m150: Option<bool> => ["gcc"], None,
            OverrideDefault::PerPreset(|p| {
                let v2 = p.config().m156.and_then(|m| m.loss_v2)?;
                text(v2 == flowstate_core::gcc::loss_based_v2::LossBasedBweV2Config::m150())
            });
        /// With `loss_v2_m150`: the pacer pads while loss-based BWE v2 is
        /// `IncreaseUsingPadding`, at the loss-based estimate, 5 ms at a time with an empty
        /// queue: copies of the last media packet (+2 B) when they fit, else 255 B
        /// padding-only packets (WebRTC M150 `GetPacingRates`, `PaddingToAdd`,
        /// `GeneratePadding`; `flowstate_core::gcc::padding`; docs/REPRODUCTION.md
        /// "Chromium's NACK/RTX retransmissions and padding, measured"). Default true in
        /// `chromium-m156` (off with M125's loss-based BWE v2), false elsewhere.
        loss_v2_padding: Option<bool> => ["gcc"], None,
            OverrideDefault::PerPreset(|p| text(send_chain(p).padding));
        /// Chromium's NACK/RTX retransmissions: the receiver NACKs every media packet a
        /// newer one skipped at once and again every RTT (checked every 20 ms, up to 100
        /// times); the sender resends each NACKed packet still in its history, not resent
        /// within the last 5 ms + RTT, as RTX (+2 B) ahead of new video in the pacer,
        /// within the target rate over 500 ms; ULPFEC and padding are never resent
        /// (WebRTC M150 `NackRequester`, `RTPSender::OnReceivedNack`;
        /// `flowstate_core::endpoint::nack`, `rtx`; docs/ALGORITHMS.md
        /// "Chromium's NACK/RTX retransmissions"). Default false.
        nack_rtx: Option<bool> => ["gcc"], None, OverrideDefault::Value(|| "false".into());
        /// The receiver's playout rule: `adaptive` (libwebrtc's jitter buffer) or
        /// `fixed` (capture + `playout_delay_ms`); frame figures only.
        playout: Option<crate::kinds::playout_options::PlayoutRule> => ["gcc"], None,
            OverrideDefault::Value(|| "adaptive".into());
        /// `playout = "fixed"`: capture to render, ms.
        playout_delay_ms: Option<f64> => ["gcc"], MS,
            OverrideDefault::Value(|| crate::overrides::ms(flowstate_core::playout::DEFAULT_FIXED_PLAYOUT_DELAY));
        /// The receiver decodes a delta frame only after the frame before it (no
        /// key-frame request is modelled: a loss waits for the next key frame).
        reference_chain: Option<bool> => ["gcc"], None, OverrideDefault::Value(|| "false".into());
        /// The receiver's decode time per frame, ms.
        decode_time_ms: Option<f64> => ["gcc"], MS,
            OverrideDefault::Value(|| crate::overrides::ms(flowstate_core::playout::DEFAULT_DECODE_TIME));
    }
}

/// Which rule a `gcc` flow's `overrides.kalman_noise` (the Kalman measurement-noise
/// estimator) or `overrides.loss_controller` (the loss-based controller) selects: the
/// paper's or Chromium's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuleOrigin {
    Paper,
    Chromium,
}

impl RuleOrigin {
    /// The name a scenario writes.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Paper => "paper",
            Self::Chromium => "chromium",
        }
    }
}

/// The over-use threshold a `gcc` flow's `overrides.threshold` selects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ThresholdMode {
    Static,
    Adaptive,
}

impl ThresholdMode {
    /// The name a scenario writes.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Static => "static",
            Self::Adaptive => "adaptive",
        }
    }
}

impl<'de> serde::Deserialize<'de> for RuleOrigin {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        const NAMES: &[&str] = &["paper", "chromium"];
        crate::name_de::read_name(
            d,
            &[(Self::Paper, NAMES[0]), (Self::Chromium, NAMES[1])],
            NAMES,
        )
    }
}

impl<'de> serde::Deserialize<'de> for ThresholdMode {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        const NAMES: &[&str] = &["static", "adaptive"];
        crate::name_de::read_name(
            d,
            &[(Self::Static, NAMES[0]), (Self::Adaptive, NAMES[1])],
            NAMES,
        )
    }
}
