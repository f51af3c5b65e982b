//! A flow's `overrides` table (`[[flows]] overrides = { ... }`), one typed struct per
//! family of flow kinds, each field defined once: the [`overrides!`] macro makes from one
//! list both the struct that reads the table (strictly: an unknown key is an error) and
//! its [`OverrideDef`] list (key, flow kinds, unit, default, description: the doc
//! comment), which `flowstate list-options` prints through the bindings
//! (`_native.definitions()`).
//!
//! Defaults that depend on the GCC preset are computed from the presets' configurations
//! ([`OverrideDefault::PerPreset`]), so a new preset shows its own.

use crate::error::FieldError;
use crate::flow_kind::FlowKind;
use crate::units_parse::{Bps, Bytes};
use flowstate_core::endpoint::sctp::SctpSenderConfig;
use flowstate_core::gcc::delay_based::DelayFilterConfig;
use flowstate_core::gcc::kalman::NoiseModel;
use flowstate_core::gcc::loss_based::LossVariant;
use flowstate_core::gcc::threshold::{StaticThresholdConfig, ThresholdConfig};
use flowstate_core::gcc::{EstimationSide, GccConfig, GccPreset};
use flowstate_core::nada::NadaConfig;
use flowstate_core::scream::ScreamConfig;
use flowstate_core::source::EncoderBounds;
use flowstate_core::window::{CubicConfig, LedbatConfig, NewRenoConfig};
use serde::Deserialize;

/// An override's default value.
#[derive(Debug, Clone, Copy)]
pub enum OverrideDefault {
    /// The field is required (no default).
    Required,
    /// A fixed value, as text in the override's unit.
    Value(fn() -> String),
    /// Depends on the flow's GCC preset; `None`: the override does not apply to that
    /// preset.
    PerPreset(fn(GccPreset) -> Option<String>),
}

impl OverrideDefault {
    /// One line: the value, `required`, or (when the presets differ) each preset's value
    /// (`chromium: 1.1, paper: 1.5, paper-static: 1.5`; `-` where it does not apply).
    pub fn describe(&self) -> Option<String> {
        match self {
            Self::Required => None,
            Self::Value(f) => Some(f()),
            Self::PerPreset(f) => {
                let values: Vec<_> = GccPreset::ALL.iter().map(|&p| f(p)).collect();
                if values.iter().all(|v| v.is_some() && *v == values[0]) {
                    return values[0].clone();
                }
                let per: Vec<_> = GccPreset::ALL
                    .iter()
                    .zip(values)
                    .map(|(p, v)| format!("{p}: {}", v.as_deref().unwrap_or("-")))
                    .collect();
                Some(per.join(", "))
            }
        }
    }
}

/// One key of a flow's `overrides` table.
#[derive(Debug, Clone, Copy)]
pub struct OverrideDef {
    /// The key in the `overrides` table (`start_rate`).
    pub name: &'static str,
    /// The flow kinds that take it.
    pub applies_to: &'static [FlowKind],
    /// The unit a value is written in (`bit/s` values carry their unit: `"300kbps"`);
    /// `None` for flags, choices and plain numbers.
    pub unit: Option<&'static str>,
    pub default: OverrideDefault,
    /// The doc comment of the struct field (lines joined).
    doc: &'static str,
}

impl OverrideDef {
    /// The key as a scenario writes it: `overrides.start_rate`.
    pub fn key(&self) -> String {
        format!("overrides.{}", self.name)
    }
    /// The description on one line.
    pub fn description(&self) -> String {
        self.doc.split_whitespace().collect::<Vec<_>>().join(" ")
    }
    /// The message when a flow of another kind sets it (`sctp only`, `tcp flows only`).
    pub fn only_message(&self) -> String {
        let tcp = [FlowKind::TcpNewReno, FlowKind::TcpCubic];
        match self.applies_to {
            [k] if k.is_window() && !k.is_tcp() => format!("{k} only"),
            k if k == tcp => "tcp flows only".into(),
            k => {
                let names: Vec<_> = k.iter().map(|k| k.name()).collect();
                format!("{} flows only", names.join(" and "))
            }
        }
    }
}

/// Whether a field of an overrides struct was written in the scenario.
trait IsSet {
    fn is_set(&self) -> bool;
}
impl<T> IsSet for Option<T> {
    fn is_set(&self) -> bool {
        self.is_some()
    }
}
impl IsSet for Bps {
    fn is_set(&self) -> bool {
        true
    }
}

/// The number a field holds, if it is a number that was written (rates, sizes, plain
/// numbers); flags and choices hold none.
trait Number {
    fn number(&self) -> Option<f64>;
}
impl<T: Number> Number for Option<T> {
    fn number(&self) -> Option<f64> {
        self.as_ref().and_then(Number::number)
    }
}
impl Number for Bps {
    fn number(&self) -> Option<f64> {
        Some(self.0)
    }
}
impl Number for Bytes {
    fn number(&self) -> Option<f64> {
        Some(self.0)
    }
}
impl Number for f64 {
    fn number(&self) -> Option<f64> {
        Some(*self)
    }
}
macro_rules! no_number {
    ($($t:ty),*) => {$(
        impl Number for $t {
            fn number(&self) -> Option<f64> {
                None
            }
        }
    )*};
}
no_number!(bool, RuleOrigin, ThresholdMode);

/// An overrides struct and its definitions from one list of fields:
/// `/// doc` `name: Type => [Kinds], unit, default;`.
macro_rules! overrides {
    (
        $(#[$meta:meta])*
        pub struct $name:ident {
            $(
                $(#[doc = $doc:literal])*
                $field:ident: $ty:ty => [$($kind:ident),+], $unit:expr, $default:expr;
            )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct $name {
            $( $(#[doc = $doc])* pub $field: $ty, )*
        }

        impl $name {
            /// Every key of this struct, defined once with the field.
            pub const DEFINITIONS: &'static [OverrideDef] = &[$(
                OverrideDef {
                    name: stringify!($field),
                    applies_to: &[$(FlowKind::$kind),+],
                    unit: $unit,
                    default: $default,
                    doc: concat!($($doc, "\n"),*),
                },
            )*];

            /// `(key, value)` of every number the flow set, in the order of the
            /// definitions.
            pub fn numbers(&self) -> Vec<(&'static str, f64)> {
                let values = [$( self.$field.number() ),*];
                Self::DEFINITIONS
                    .iter()
                    .zip(values)
                    .filter_map(|(d, v)| v.map(|v| (d.name, v)))
                    .collect()
            }

            /// The definitions of the keys this flow set.
            pub fn set_keys(&self) -> Vec<&'static OverrideDef> {
                let set = [$( self.$field.is_set() ),*];
                Self::DEFINITIONS
                    .iter()
                    .zip(set)
                    .filter_map(|(d, s)| s.then_some(d))
                    .collect()
            }
        }
    };
}

const BPS: Option<&str> = Some("bit/s");
const BYTES: Option<&str> = Some("B");
const FPS: Option<&str> = Some("frames/s");
const MS: Option<&str> = Some("ms");

fn text(x: impl ToString) -> Option<String> {
    Some(x.to_string())
}

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
        start_rate: Option<Bps> => [Gcc], BPS,
            OverrideDefault::PerPreset(|p| aimd_rate(p, |c| c.delay.aimd.start_rate));
        /// GCC minimum rate.
        min_rate: Option<Bps> => [Gcc], BPS,
            OverrideDefault::PerPreset(|p| aimd_rate(p, |c| c.delay.aimd.min_rate));
        /// GCC maximum rate.
        max_rate: Option<Bps> => [Gcc], BPS,
            OverrideDefault::PerPreset(|p| aimd_rate(p, |c| c.delay.aimd.max_rate));
        /// The video encoder's maximum rate (paper 000).
        video_max_rate: Option<Bps> => [Gcc], BPS,
            OverrideDefault::Value(|| EncoderBounds::paper000().max_rate.as_bps().to_string());
        /// The video encoder's minimum rate.
        video_min_rate: Option<Bps> => [Gcc], BPS,
            OverrideDefault::Value(|| EncoderBounds::paper000().min_rate.as_bps().to_string());
        /// Frames per second (1 to 1000).
        fps: Option<f64> => [Gcc], FPS,
            OverrideDefault::Value(|| EncoderBounds::paper000().fps.to_string());
        /// `true`: a perfect codec (frames exactly at the target) instead of the statistics
        /// codec with noise and I-frames.
        perfect_codec: Option<bool> => [Gcc], None, OverrideDefault::Value(|| "false".into());
        /// Pacer rate / target (paper 1.5, Chromium 1.1; chromium-m156: Chromium's pacing
        /// multiplier).
        pacing_factor: Option<f64> => [Gcc], None,
            OverrideDefault::PerPreset(|p| {
                let c = p.config();
                match c.m156.and_then(|m| m.pacing) {
                    Some(pacing) => text(pacing.pace_multiplier),
                    None => text(c.pacing_factor),
                }
            });
        /// Kalman state noise variance Q (paper 002 eq. 15; Kalman presets `paper` and
        /// `paper-static` only).
        kalman_q: Option<f64> => [Gcc], None,
            OverrideDefault::PerPreset(|p| kalman(p).map(|k| k.q.to_string()));
        /// Kalman measurement-noise estimator: `paper` (paper 002 eq. 16) or `chromium`
        /// (Chromium's OveruseEstimator: 3-sigma outlier clamp, updated only in the normal
        /// state, slow EWMA); Kalman presets only.
        kalman_noise: Option<RuleOrigin> => [Gcc], None,
            OverrideDefault::PerPreset(|p| kalman(p).map(|k| match k.noise {
                NoiseModel::Paper => RuleOrigin::Paper.name().to_string(),
                NoiseModel::Chromium { .. } => RuleOrigin::Chromium.name().to_string(),
            }));
        /// `true`: the two-state Kalman filter with Chromium's 1/C state (paper 001 eq. 2;
        /// paper 002 eq. 7 before its reduction to eq. 10); Kalman presets only.
        kalman_slope: Option<bool> => [Gcc], None,
            OverrideDefault::PerPreset(|p| kalman(p).map(|k| k.slope.is_some().to_string()));
        /// `true`: GCC's target counts the RTP/UDP/IP overhead and the encoder gets target
        /// minus the overhead rate (Chromium ~M100, WebRTC-SendSideBwe-WithOverhead);
        /// `false`: the encoder gets the whole target, headers come on top.
        target_includes_overhead: Option<bool> => [Gcc], None,
            OverrideDefault::PerPreset(|p| text(p.target_includes_overhead()));
        /// `true`: an FSE allocation restarts the clock of TimeToReduceFurther (Chromium's
        /// SetEstimate); `false`: it sets the AIMD rate without touching the clock (as
        /// Chromium's SetStartBitrate). Send-side presets (chromium) only.
        allocation_restarts_decrease_timer: Option<bool> => [Gcc], None,
            OverrideDefault::PerPreset(|p| {
                let c = p.config();
                (c.side == EstimationSide::Sender)
                    .then(|| c.delay.aimd.allocation_restarts_decrease_timer.to_string())
            });
        /// Over-use threshold: `static` (paper 001) or `adaptive` (paper 002).
        threshold: Option<ThresholdMode> => [Gcc], None,
            OverrideDefault::PerPreset(|p| match p.config().delay.threshold {
                ThresholdConfig::Static(_) => text(ThresholdMode::Static.name()),
                ThresholdConfig::Adaptive(_) => text(ThresholdMode::Adaptive.name()),
            });
        /// Static threshold gamma_bar in ms of m (paper 001: 10/60 .. 65/60); with
        /// `threshold = "static"` only.
        gamma_bar_ms: Option<f64> => [Gcc], MS,
            OverrideDefault::PerPreset(|p| text(static_threshold(p).gamma_bar_ms));
        /// Static threshold: halve gamma near congestion (paper 001); with
        /// `threshold = "static"` only.
        threshold_halving: Option<bool> => [Gcc], None,
            OverrideDefault::PerPreset(|p| text(static_threshold(p).halving));
        /// Adaptive threshold gain k_u (paper 002 eq. 18: 0.01; Chromium 0.0087); with
        /// `threshold = "adaptive"` only.
        k_up: Option<f64> => [Gcc], None,
            OverrideDefault::PerPreset(|p| text(adaptive_threshold(p).k_up));
        /// Adaptive threshold gain k_d (paper 002 eq. 18: 0.00018; Chromium 0.039); with
        /// `threshold = "adaptive"` only.
        k_down: Option<f64> => [Gcc], None,
            OverrideDefault::PerPreset(|p| text(adaptive_threshold(p).k_down));
        /// Adaptive threshold: skip the update when |M| - gamma > 15 (Chromium's guard
        /// against latency spikes); `false` is paper 002's eq. 17 as written.
        threshold_ignores_spikes: Option<bool> => [Gcc], None,
            OverrideDefault::PerPreset(|p| text(adaptive_threshold(p).max_adapt_offset.is_finite()));
        /// `false`: the rate controller increases multiplicatively in every Increase state
        /// (paper 002 eq. 3 as written); `true`: additive near convergence, i.e. while the
        /// incoming rate is within the link-capacity estimate's bounds (Chromium
        /// `AimdRateControl`).
        additive_increase: Option<bool> => [Gcc], None,
            OverrideDefault::PerPreset(|p| text(p.config().delay.aimd.additive_near_convergence));
        /// The loss-based controller: `paper` (paper 002 eq. 5: x1.05 per receiver report
        /// below 2 % loss; paper 001 eq. 1 for paper-static) or `chromium` (1.08 x the
        /// minimum rate of the last second + 1 kbit/s, re-evaluated every 25 ms).
        loss_controller: Option<RuleOrigin> => [Gcc], None,
            OverrideDefault::PerPreset(|p| match p.config().loss.variant {
                LossVariant::ChromiumClassic => text(RuleOrigin::Chromium.name()),
                LossVariant::Paper001 | LossVariant::Paper002 => text(RuleOrigin::Paper.name()),
            });
        /// `chromium-m156` only: `false` switches the probe controller off (no initial,
        /// further, ALR or drop-recovery probes).
        probing: Option<bool> => [Gcc], None,
            OverrideDefault::PerPreset(|p| p.config().m156.map(|m| m.probing.is_some().to_string()));
        /// `chromium-m156` only: `false` switches the ALR detector off.
        alr_detector: Option<bool> => [Gcc], None,
            OverrideDefault::PerPreset(|p| p.config().m156.map(|m| m.alr.is_some().to_string()));
        /// `chromium-m156` only: `false` paces at `pacing_factor` x target without
        /// Chromium's 2 s queue drain (`drain_large_queues`).
        chromium_pacing: Option<bool> => [Gcc], None,
            OverrideDefault::PerPreset(|p| p.config().m156.map(|m| m.pacing.is_some().to_string()));
        /// `chromium-m156` only: `false` uses the chromium preset's classic loss-based
        /// controller instead of loss-based BWE v2.
        loss_based_v2: Option<bool> => [Gcc], None,
            OverrideDefault::PerPreset(|p| p.config().m156.map(|m| m.loss_v2.is_some().to_string()));
        /// `chromium-m156` only: `false` takes the AIMD's throughput (and the
        /// acknowledged rate of the probe floor and loss-based BWE v2) from the chromium
        /// preset's 500 ms receive-rate window instead of Chromium's
        /// `RobustThroughputEstimator`.
        robust_throughput: Option<bool> => [Gcc], None,
            OverrideDefault::PerPreset(|p| p.config().m156.map(|m| m.throughput.is_some().to_string()));
        /// `chromium-m156` only: `false` switches the congestion-window pushback off (no
        /// frames dropped while the bytes in flight exceed target x (min feedback RTT +
        /// 350 ms)).
        congestion_window: Option<bool> => [Gcc], None,
            OverrideDefault::PerPreset(|p| p.config().m156.map(|m| m.congestion_window.is_some().to_string()));
        /// The pacer's burst interval: the budget it may accrue, as time at the pacing
        /// rate (`gcc::pacer`; default 5 ms), or with `chromium_pacer` the media debt's
        /// interval (default 40 ms, `chromium-m156`'s). Chromium since 2023 lets
        /// the media debt reach `PacingController::kDefaultBurstInterval` = 40 ms
        /// (`modules/pacing/pacing_controller.h`) before it waits, so a small frame
        /// leaves back to back (docs/REPRODUCTION.md, issue 21's CUBIC cases). 0.1 to
        /// 1000 ms.
        pacer_burst_ms: Option<f64> => [Gcc], MS,
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
        /// `chromium-m156`, false (the budget) in the paper-era presets; issue 21,
        /// docs/REPRODUCTION.md.
        chromium_pacer: Option<bool> => [Gcc], None,
            OverrideDefault::PerPreset(|p| text(send_chain(p).media_debt.is_some()));
        /// `true`: the statistics codec's frame rate falls with its rate as real Chromium
        /// 156's VP8 encoder's did (1 frame/s under 100 kbit/s, 4 under 200, 22.5 under
        /// 400, measured: `source::statistics::CHROMIUM156_LOW_RATE_FPS`); default false
        /// (always `fps`).
        low_rate_fps: Option<bool> => [Gcc], None, OverrideDefault::Value(|| "false".into());
        /// `true`: the statistics codec drops frames as libvpx VP8's one-pass CBR buffer
        /// does in Chromium (rc_dropframe_thresh 30, buffer 500 / 600 / 1000 ms, a frame
        /// forced after 2 s), each encoded frame at least the measured clip's frame-size
        /// floor for its distance to the previous one (`source::vp8_frame_drop`; issue 21,
        /// docs/ALGORITHMS.md); default false. Not together with `low_rate_fps`.
        vp8_frame_drop: Option<bool> => [Gcc], None, OverrideDefault::Value(|| "false".into());
        /// `true`: Chromium's encoder-side protection (`flowstate_core::fec`, WebRTC M150
        /// sources; issue 21, docs/ALGORITHMS.md "Chromium's protection"): the loss
        /// fraction of the receiver reports, max-filtered over 10 s, sets the hybrid
        /// NACK/FEC protection factors (`media_opt_util.cc`, `kFecRateTable`); the
        /// encoder gets the target less the per-packet overhead by packet rate
        /// (`RtpVideoSender::CalculateOverheadRate`), less the FEC share of the last
        /// second's sent bytes (at most half, `FecControllerDefault`), and ULPFEC packets (count and
        /// size as `UlpfecGenerator` makes them) are sent behind the media. Default
        /// true in `chromium-m156`, false in the paper-era presets.
        chromium_fec: Option<bool> => [Gcc], None,
            OverrideDefault::PerPreset(|p| text(p.config().fec.is_some()));
        /// `true`: Chromium's encoder bitrate adjuster (`flowstate_core::endpoint::
        /// encoder_adjuster`, WebRTC M150 `encoder_bitrate_adjuster.cc` and
        /// `encoder_overshoot_detector.cc`; issue 21, docs/ALGORITHMS.md "Chromium's
        /// encoder bitrate adjuster"): the encoder's rate is divided by its mean overshoot
        /// over 3 s (a buffer draining at that rate, each frame's leftover counted in
        /// frames of the input frame rate; factor 1-2, 1.2 for the first 30 frames), at
        /// least 30 kbit/s; re-adjusted at each target update and every second. Default
        /// true in `chromium-m156`, false in the paper-era presets.
        chromium_adjuster: Option<bool> => [Gcc], None,
            OverrideDefault::PerPreset(|p| text(p.config().encoder_adjuster.is_some()));
        /// `true`: the receiver sends transport-wide feedback as Chromium 156's does
        /// (`flowstate_core::gcc::feedback_cadence`; issue 21, docs/ALGORITHMS.md
        /// "Chromium's transport-feedback cadence"): on a fixed schedule from the
        /// receiver's start, a report at each step if packets came since the last; the
        /// step is libwebrtc M150's interval, 68 B / (5 % of the receiving peer's own
        /// send-side target, `feedback_peer_rate`) clamped to 50-250 ms
        /// (`TransportSequenceNumberFeedbackGenenerator::OnSendBandwidthEstimateChanged`
        /// via `Call::OnTargetTransferRate`), rounded up to whole ticks of Chromium's
        /// 64 Hz metronome for low-precision tasks: 62.5 ms. Default true in
        /// `chromium-m156`; false in the paper-era presets (100 ms after the first packet
        /// since the last report).
        chromium_feedback_cadence: Option<bool> => [Gcc], None,
            OverrideDefault::PerPreset(|p| text(p.config().feedback_cadence.is_some()));
        /// `true`: the receiver spaces its RTCP receiver reports (the sender's loss
        /// fraction, and with it ULPFEC's protection) as libwebrtc's `RTCPSender` does:
        /// the first half a report interval (1 s) after its first packet, then each gap
        /// uniform over the whole milliseconds in [0.5, 1.5] s
        /// (`flowstate_core::endpoint::report_schedule`; issue 21, docs/ALGORITHMS.md
        /// "Chromium's receiver-report interval"). Default true in `chromium-m156`;
        /// false (a report every second from the first packet) in the paper-era presets.
        rtcp_report_random: Option<bool> => [Gcc], None,
            OverrideDefault::PerPreset(|p| text(p.config().randomized_report_interval));
        /// With `chromium_feedback_cadence`: the receiving peer's own send-side target,
        /// which sets libwebrtc's feedback interval. Default 300 kbit/s, Chromium's start
        /// bitrate (`BitrateConstraints`), the target of a receiver that sends no media
        /// (every receiver's RTC event log of the real runs: 300 kbit/s throughout).
        feedback_peer_rate: Option<Bps> => [Gcc], BPS, OverrideDefault::Value(|| "300000".into());
        /// `true`: the send times the transport feedback is matched with are whole
        /// milliseconds, as Chromium's socket layer stamps them (WebRTC M150
        /// `AsyncUDPSocket::SendTo`: `TimeInMilliseconds()`;
        /// `TransportFeedbackAdapter::ProcessSentPacket`: `Timestamp::Millis`), so the
        /// delay-based detector groups and differences them as Chromium's does
        /// (`flowstate_core::endpoint::send_path`; issue 21, docs/ALGORITHMS.md
        /// "Chromium's send path"). Default true in `chromium-m156`; false (exact) in the
        /// paper-era presets.
        send_time_ms: Option<bool> => [Gcc], None,
            OverrideDefault::PerPreset(|p| text(send_chain(p).whole_ms_send_times));
        /// With `chromium_fec`: ULPFEC packets join the pacer's queue this long after the
        /// media packet that completed them (Chromium 156 measured: 5 ms or more after the
        /// frame, p25 5.1 ms in p000-fig3; the rule in the sources was not found; issue
        /// 21, docs/ALGORITHMS.md "Chromium's send path"). 0.1 to 1000 ms, or 0: at once,
        /// as the sources read; default 5.4 in `chromium-m156` (the measured median of
        /// the first mode), unset (at once) in the paper-era presets.
        fec_delay_ms: Option<f64> => [Gcc], MS,
            OverrideDefault::PerPreset(|p| match send_chain(p).fec_delay {
                d if d > flowstate_core::TimeDelta::ZERO => Some(ms(d)),
                _ => text("none"),
            });
        /// `chromium-m156` only: loss-based BWE v2 with WebRTC M150's defaults
        /// (libwebrtc `068e6ba696`, 2025-05-20: window 15, bandwidth balances 100 kbit/s,
        /// preference threshold 0.2, ramp-up bound 1.5 x the acknowledged rate (1.2 in
        /// HOLD), the acknowledged rate as lower bound, HOLD after a loss-limited decrease
        /// (300 ms doubling to 60 s), byte loss rate, the padding state for 2 s (its
        /// padding not sent), bound best candidate); `false`: M125's; issue 21,
        /// docs/ALGORITHMS.md "loss-based BWE v2". Default true.
        loss_v2_m150: Option<bool> => [Gcc], None,
            OverrideDefault::PerPreset(|p| {
                let v2 = p.config().m156.and_then(|m| m.loss_v2)?;
                text(v2 == flowstate_core::gcc::loss_based_v2::LossBasedBweV2Config::m150())
            });
        /// With `loss_v2_m150`: the pacer pads while loss-based BWE v2 is
        /// `IncreaseUsingPadding`, at the loss-based estimate, 5 ms at a time with an empty
        /// queue: copies of the last media packet (+2 B) when they fit, else 255 B
        /// padding-only packets (WebRTC M150 `GetPacingRates`, `PaddingToAdd`,
        /// `GeneratePadding`; `flowstate_core::gcc::padding`; issue 21, docs/REPRODUCTION.md
        /// "Chromium's NACK/RTX retransmissions and padding, measured"). Default true in
        /// `chromium-m156` (off with M125's loss-based BWE v2), false elsewhere.
        loss_v2_padding: Option<bool> => [Gcc], None,
            OverrideDefault::PerPreset(|p| text(send_chain(p).padding));
        /// Chromium's NACK/RTX retransmissions: the receiver NACKs every media packet a
        /// newer one skipped at once and again every RTT (checked every 20 ms, up to 100
        /// times); the sender resends each NACKed packet still in its history, not resent
        /// within the last 5 ms + RTT, as RTX (+2 B) ahead of new video in the pacer,
        /// within the target rate over 500 ms; ULPFEC and padding are never resent
        /// (WebRTC M150 `NackRequester`, `RTPSender::OnReceivedNack`;
        /// `flowstate_core::endpoint::nack`, `rtx`; issue 21, docs/ALGORITHMS.md
        /// "Chromium's NACK/RTX retransmissions"). Default false.
        nack_rtx: Option<bool> => [Gcc], None, OverrideDefault::Value(|| "false".into());
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

impl<'de> Deserialize<'de> for RuleOrigin {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        const NAMES: &[&str] = &["paper", "chromium"];
        crate::name_de::read_name(
            d,
            &[(Self::Paper, NAMES[0]), (Self::Chromium, NAMES[1])],
            NAMES,
        )
    }
}

impl<'de> Deserialize<'de> for ThresholdMode {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        const NAMES: &[&str] = &["static", "adaptive"];
        crate::name_de::read_name(
            d,
            &[(Self::Static, NAMES[0]), (Self::Adaptive, NAMES[1])],
            NAMES,
        )
    }
}

/// An `sctp` override's default under each SCTP preset: "usrsctp: X, dcsctp: Y".
fn per_sctp_preset(rule: fn(&SctpSenderConfig) -> bool) -> String {
    let usrsctp = rule(&SctpSenderConfig::default());
    let dcsctp = rule(&SctpSenderConfig::dcsctp());
    format!("usrsctp: {usrsctp}, dcsctp: {dcsctp}")
}

/// The numeric gcc overrides a zero switches off instead of being an error (every other
/// number must be > 0): `fec_delay_ms = 0` sends ULPFEC at once, as the sources read.
pub const ZERO_SWITCHES_OFF: &[&str] = &["fec_delay_ms"];

/// The message size of an application-limited (`desired_rate`) SCTP or TCP source.
pub const DEFAULT_MESSAGE_SIZE: flowstate_core::DataSize = flowstate_core::DataSize::bytes(1200);

overrides! {
    /// The `overrides` `sctp`, `tcp-newreno` and `tcp-cubic` flows accept.
    #[derive(Default)]
    pub struct WindowOverrides {
        /// SCTP path MTU / TCP SMSS.
        mtu: Option<Bytes> => [Sctp, TcpNewReno, TcpCubic], BYTES,
            OverrideDefault::Value(|| {
                let sctp = SctpSenderConfig::default().cc.mtu;
                let tcp = NewRenoConfig::default().smss;
                let cubic = CubicConfig::default().smss;
                format!("sctp: {}, tcp-newreno: {}, tcp-cubic: {}", sctp.as_bytes(), tcp.as_bytes(), cubic.as_bytes())
            });
        /// Message size of the application-limited (`desired_rate`) source.
        message_size: Option<Bytes> => [Sctp, TcpNewReno, TcpCubic], BYTES,
            OverrideDefault::Value(|| DEFAULT_MESSAGE_SIZE.as_bytes().to_string());
        /// Report the cwnd grown by an ack before a max-cwnd cap clips it, as paper 000's
        /// usrsctp patch does (`SctpSenderConfig`).
        report_cwnd_before_cap: Option<bool> => [Sctp], None,
            OverrideDefault::Value(|| SctpSenderConfig::default().report_cwnd_before_cap.to_string());
        /// dcSCTP's loss rule for retransmissions: a retransmitted chunk can be declared
        /// lost again after three new miss indications (`SctpSenderConfig`).
        renack_retransmissions: Option<bool> => [Sctp], None,
            OverrideDefault::Value(|| per_sctp_preset(|c| c.renack_retransmissions));
        /// dcSCTP's RFC 7053 rule: the I bit on every DATA chunk sent while cwnd is under
        /// 10 MTUs, and an immediate SACK for it (`SctpSenderConfig`).
        immediate_sack_bit: Option<bool> => [Sctp], None,
            OverrideDefault::Value(|| per_sctp_preset(|c| c.immediate_sack_under_cwnd_mtus > 0));
        /// dcSCTP's packet budget: a packet never takes the flight past cwnd (new data
        /// cut to the room, a retransmission waits until it fits; `SctpSenderConfig`).
        cwnd_sized_packets: Option<bool> => [Sctp], None,
            OverrideDefault::Value(|| per_sctp_preset(|c| c.cwnd_sized_packets));
        /// A cwnd set from outside (FSEv2) resets partial_bytes_acked to zero; `false`:
        /// kept, capped at the new cwnd (`SctpCcConfig`).
        reset_pba_on_set_cwnd: Option<bool> => [Sctp], None,
            OverrideDefault::Value(|| SctpSenderConfig::default().cc.reset_pba_on_set_cwnd.to_string());
        /// SACK loss recovery (RFC 2018 + RFC 6675, as Linux).
        sack: Option<bool> => [TcpNewReno, TcpCubic], None, OverrideDefault::Value(|| "false".into());
        /// RTT samples as with the timestamps option (RFC 7323, as Linux); `false`: Karn's
        /// algorithm.
        timestamps: Option<bool> => [TcpNewReno, TcpCubic], None,
            OverrideDefault::Value(|| "false".into());
        /// Linux's RTO (SRTT + max(4 RTTVAR, 200 ms), min 200 ms) instead of RFC 6298's
        /// (min 1 s).
        linux_rto: Option<bool> => [TcpNewReno, TcpCubic], None,
            OverrideDefault::Value(|| "false".into());
        /// HyStart as Linux's CUBIC runs it (kernels 3.x constants); `false`: RFC 9438's
        /// plain slow start.
        hystart: Option<bool> => [TcpCubic], None, OverrideDefault::Value(|| "false".into());
        /// A timeout during fast recovery keeps the recovery's ssthresh when lower than
        /// RFC 5681 eq. 4 on the FlightSize (as Linux); `false`: eq. 4 as it is, on a
        /// FlightSize inflated by recovery.
        rto_keeps_recovery_ssthresh: Option<bool> => [TcpNewReno, TcpCubic], None,
            OverrideDefault::Value(|| {
                let reno = NewRenoConfig::default().rto_keeps_recovery_ssthresh;
                let cubic = CubicConfig::default().rto_keeps_recovery_ssthresh;
                if reno == cubic {
                    reno.to_string()
                } else {
                    format!("tcp-newreno: {reno}, tcp-cubic: {cubic}")
                }
            });
    }
}

overrides! {
    /// The `overrides` `rap` and `tfrc` flows accept.
    #[derive(Default)]
    pub struct RateOverrides {
        /// Packet (segment) size.
        packet_size: Option<Bytes> => [Rap, Tfrc], BYTES, OverrideDefault::Value(|| {
            let rap = flowstate_core::rate::rap::RapConfig::default().packet_size;
            let tfrc = flowstate_core::rate::tfrc::TfrcConfig::default().segment_size;
            if rap == tfrc {
                rap.as_bytes().to_string()
            } else {
                format!("rap: {}, tfrc: {}", rap.as_bytes(), tfrc.as_bytes())
            }
        });
        /// Maximum rate (default unlimited).
        max_rate: Option<Bps> => [Rap, Tfrc], BPS, OverrideDefault::Value(|| "unlimited".into());
        /// RAP's initial rate (TFRC starts from its initial window, RFC 5348 4.2).
        initial_rate: Option<Bps> => [Rap], BPS, OverrideDefault::Value(|| {
            flowstate_core::rate::rap::RapConfig::default().initial_rate.as_bps().to_string()
        });
    }
}

overrides! {
    /// The `overrides` a `cbr` flow accepts.
    pub struct CbrOverrides {
        /// The constant sending rate.
        rate: Bps => [Cbr], BPS, OverrideDefault::Required;
        /// Packet size.
        packet_size: Option<Bytes> => [Cbr], BYTES,
            OverrideDefault::Value(|| crate::cbr::CbrConfig::default().packet_size.as_bytes().to_string());
    }
}

/// A duration default in ms, as the override is written.
fn ms(d: flowstate_core::TimeDelta) -> String {
    d.as_millis_f64().to_string()
}

/// A rate default in bit/s.
fn bps(r: flowstate_core::Bitrate) -> String {
    r.as_bps().to_string()
}

const COUNT: Option<&str> = None;

fn nada() -> NadaConfig {
    NadaConfig::default()
}

fn scream() -> ScreamConfig {
    ScreamConfig::default()
}

fn ledbat() -> LedbatConfig {
    LedbatConfig::default()
}

/// NADA's RFC 8888 feedback interval: DELTA (RFC 8698 section 4.1).
pub const NADA_FEEDBACK_INTERVAL_MS: f64 = 100.0;
/// SCReAM's RFC 8888 feedback interval (20 ms: RFC 8298 section 4.1.1 asks for
/// feedback frequent enough for the self-clocking, at least once per RTT; the
/// reference implementation's default).
pub const SCREAM_FEEDBACK_INTERVAL_MS: f64 = 20.0;

overrides! {
    /// The `overrides` a `nada` flow accepts: every parameter of RFC 8698 section 4.1
    /// (Figure 3) with its default, the named deviations, and the media source.
    #[derive(Default)]
    pub struct NadaOverrides {
        /// PRIO: weight of priority of the flow (RFC 8698 section 4.1).
        prio: Option<f64> => [Nada], None, OverrideDefault::Value(|| nada().prio.to_string());
        /// RMIN: minimum rate of the application (RFC 8698 section 4.1).
        min_rate: Option<Bps> => [Nada], BPS, OverrideDefault::Value(|| bps(nada().min_rate));
        /// RMAX: maximum rate of the application (RFC 8698 section 4.1).
        max_rate: Option<Bps> => [Nada], BPS, OverrideDefault::Value(|| bps(nada().max_rate));
        /// The reference rate before the first feedback (RFC 8698 section 4.3 starts at
        /// RMIN).
        initial_rate: Option<Bps> => [Nada], BPS, OverrideDefault::Value(|| bps(nada().initial_rate));
        /// XREF: reference congestion level (RFC 8698 section 4.1).
        x_ref_ms: Option<f64> => [Nada], MS, OverrideDefault::Value(|| ms(nada().x_ref));
        /// KAPPA: scaling parameter of the gradual rate update (RFC 8698 section 4.1).
        kappa: Option<f64> => [Nada], None, OverrideDefault::Value(|| nada().kappa.to_string());
        /// ETA: scaling parameter of the gradual rate update (RFC 8698 section 4.1).
        eta: Option<f64> => [Nada], None, OverrideDefault::Value(|| nada().eta.to_string());
        /// TAU: upper bound of the RTT in the gradual rate update (RFC 8698 section 4.1).
        tau_ms: Option<f64> => [Nada], MS, OverrideDefault::Value(|| ms(nada().tau));
        /// DELTA: target feedback interval, the interval of the RFC 8888 reports
        /// (RFC 8698 section 4.1).
        delta_ms: Option<f64> => [Nada], MS, OverrideDefault::Value(|| ms(nada().delta));
        /// LOGWIN: observation window in time (RFC 8698 section 4.1).
        logwin_ms: Option<f64> => [Nada], MS, OverrideDefault::Value(|| ms(nada().logwin));
        /// QEPS: threshold for determining queuing delay build-up (RFC 8698 section 4.1).
        qeps_ms: Option<f64> => [Nada], MS, OverrideDefault::Value(|| ms(nada().qeps));
        /// DFILT: bound on the filtering delay (RFC 8698 section 4.1).
        dfilt_ms: Option<f64> => [Nada], MS, OverrideDefault::Value(|| ms(nada().dfilt));
        /// GAMMA_MAX: upper bound on the rate increase ratio of accelerated ramp-up
        /// (RFC 8698 section 4.1).
        gamma_max: Option<f64> => [Nada], None, OverrideDefault::Value(|| nada().gamma_max.to_string());
        /// QBOUND: upper bound on the self-inflicted queuing delay during ramp-up (RFC
        /// 8698 section 4.1).
        qbound_ms: Option<f64> => [Nada], MS, OverrideDefault::Value(|| ms(nada().qbound));
        /// MULTILOSS: multiplier of the average loss interval giving the expiry of the
        /// last loss (RFC 8698 section 4.1).
        multiloss: Option<f64> => [Nada], None, OverrideDefault::Value(|| nada().multiloss.to_string());
        /// QTH: queuing-delay threshold for invoking non-linear warping (RFC 8698 section
        /// 4.1).
        qth_ms: Option<f64> => [Nada], MS, OverrideDefault::Value(|| ms(nada().qth));
        /// LAMBDA: exponent of the non-linear warping (RFC 8698 section 4.1).
        lambda: Option<f64> => [Nada], None, OverrideDefault::Value(|| nada().lambda.to_string());
        /// PLRREF: reference packet loss ratio (RFC 8698 section 4.1).
        plr_ref: Option<f64> => [Nada], None, OverrideDefault::Value(|| nada().plr_ref.to_string());
        /// PMRREF: reference packet marking ratio (RFC 8698 section 4.1).
        pmr_ref: Option<f64> => [Nada], None, OverrideDefault::Value(|| nada().pmr_ref.to_string());
        /// DLOSS: reference delay penalty for loss at PLRREF (RFC 8698 section 4.1).
        d_loss_ms: Option<f64> => [Nada], MS, OverrideDefault::Value(|| ms(nada().d_loss));
        /// DMARK: reference delay penalty for ECN marking at PMRREF (RFC 8698 section
        /// 4.1).
        d_mark_ms: Option<f64> => [Nada], MS, OverrideDefault::Value(|| ms(nada().d_mark));
        /// FPS: frame rate of the video, also the encoder model's (RFC 8698 section 4.1).
        fps: Option<f64> => [Nada], FPS, OverrideDefault::Value(|| nada().fps.to_string());
        /// BETA_S: scaling of the sending-rate deviation from r_ref (RFC 8698 section 4.1).
        beta_s: Option<f64> => [Nada], None, OverrideDefault::Value(|| nada().beta_s.to_string());
        /// BETA_V: scaling of the encoder-rate deviation from r_ref (RFC 8698 section 4.1).
        beta_v: Option<f64> => [Nada], None, OverrideDefault::Value(|| nada().beta_v.to_string());
        /// ALPHA: smoothing factor of the loss and marking ratios (RFC 8698 section 4.1).
        alpha: Option<f64> => [Nada], None, OverrideDefault::Value(|| nada().alpha.to_string());
        /// The largest offset of r_vin and r_send from r_ref as a fraction of r_ref (RFC
        /// 8698 equations (11), (12): 0.05).
        max_rate_offset: Option<f64> => [Nada], None, OverrideDefault::Value(|| nada().max_rate_offset.to_string());
        /// Taps of the minimum filter on raw queuing-delay samples (RFC 8698 section
        /// 5.1.1: 15).
        min_filter_taps: Option<f64> => [Nada], COUNT, OverrideDefault::Value(|| nada().min_filter_taps.to_string());
        /// Deviation (ns3-rmcat): after the last loss expires, blend warped and raw delay
        /// over one more loss interval; `false` is RFC 8698 section 4.2.
        warp_blend_after_expiry: Option<bool> => [Nada], None, OverrideDefault::Value(|| nada().warp_blend_after_expiry.to_string());
        /// Deviation (ns3-rmcat NADA_PARAM_XMAX): clip x_curr to this; unset is the RFC
        /// (no clip).
        x_max_ms: Option<f64> => [Nada], MS, OverrideDefault::Value(|| "none".into());
        /// `true`: a perfect codec (frames exactly at r_vin) instead of the statistics
        /// codec with noise and I-frames.
        perfect_codec: Option<bool> => [Nada], None, OverrideDefault::Value(|| "false".into());
        /// The RFC 8888 feedback interval; unset: DELTA (RFC 8698 section 4.1).
        feedback_interval_ms: Option<f64> => [Nada], MS,
            OverrideDefault::Value(|| NADA_FEEDBACK_INTERVAL_MS.to_string());
    }
}

overrides! {
    /// The `overrides` a `scream` flow accepts: every constant of RFC 8298 (SCReAM v1)
    /// sections 4.1.2.1 and 4.1.3 with its default, and the feedback interval.
    #[derive(Default)]
    pub struct ScreamOverrides {
        /// QDELAY_TARGET_LO: the queuing-delay target (RFC 8298 section 4.1.2.1).
        qdelay_target_ms: Option<f64> => [Scream], MS, OverrideDefault::Value(|| ms(scream().qdelay_target));
        /// QDELAY_TARGET_HI: the ceiling of the adjusted target (RFC 8298 section 4.1.2.1).
        qdelay_target_hi_ms: Option<f64> => [Scream], MS, OverrideDefault::Value(|| ms(scream().qdelay_target_hi));
        /// Competing-flows compensation (RFC 8298 section 4.1.2.3, which it MAY turn off).
        competing_flows_compensation: Option<bool> => [Scream], None, OverrideDefault::Value(|| scream().competing_flows_compensation.to_string());
        /// QDELAY_TREND_LO (RFC 8298 section 4.1.2.1).
        qdelay_trend_lo: Option<f64> => [Scream], None, OverrideDefault::Value(|| scream().qdelay_trend_lo.to_string());
        /// QDELAY_WEIGHT: smoothing of qdelay_fraction_avg (RFC 8298 section 4.1.2.1).
        qdelay_weight: Option<f64> => [Scream], None, OverrideDefault::Value(|| scream().qdelay_weight.to_string());
        /// QDELAY_TREND_TH: qdelay_trend at which fast increase ends (RFC 8298 section
        /// 4.1.2.1).
        qdelay_trend_th: Option<f64> => [Scream], None, OverrideDefault::Value(|| scream().qdelay_trend_th.to_string());
        /// Decay of qdelay_trend_mem per sample (RFC 8298 section 4.1.2.2).
        qdelay_trend_mem_decay: Option<f64> => [Scream], None, OverrideDefault::Value(|| scream().qdelay_trend_mem_decay.to_string());
        /// Interval of the qdelay_fraction_hist samples (reference implementation).
        qdelay_hist_interval_ms: Option<f64> => [Scream], MS, OverrideDefault::Value(|| ms(scream().qdelay_hist_interval));
        /// Length of qdelay_fraction_hist (reference implementation).
        qdelay_hist_len: Option<f64> => [Scream], COUNT, OverrideDefault::Value(|| scream().qdelay_hist_len.to_string());
        /// MIN_CWND (RFC 8298 section 4.1.2.1).
        min_cwnd: Option<Bytes> => [Scream], BYTES, OverrideDefault::Value(|| scream().min_cwnd.as_bytes().to_string());
        /// The initial cwnd (reference implementation; RFC 8298 starts at MIN_CWND).
        initial_cwnd: Option<Bytes> => [Scream], BYTES, OverrideDefault::Value(|| scream().initial_cwnd.as_bytes().to_string());
        /// MSS: the packet size the window update scales with (RFC 8298 section 4.1.2.1).
        mss: Option<Bytes> => [Scream], BYTES, OverrideDefault::Value(|| scream().mss.as_bytes().to_string());
        /// GAIN of the window update (RFC 8298 section 4.1.2.1).
        gain: Option<f64> => [Scream], None, OverrideDefault::Value(|| scream().gain.to_string());
        /// BETA_LOSS: cwnd scale on a loss event (RFC 8298 section 4.1.2.1).
        beta_loss: Option<f64> => [Scream], None, OverrideDefault::Value(|| scream().beta_loss.to_string());
        /// BETA_ECN: cwnd scale on an ECN-CE event (RFC 8298 section 4.1.2.1).
        beta_ecn: Option<f64> => [Scream], None, OverrideDefault::Value(|| scream().beta_ecn.to_string());
        /// MAX_BYTES_IN_FLIGHT_HEAD_ROOM (RFC 8298 section 4.1.2.1).
        max_bytes_in_flight_head_room: Option<f64> => [Scream], None, OverrideDefault::Value(|| scream().max_bytes_in_flight_head_room.to_string());
        /// The window over which max_bytes_in_flight is taken (RFC 8298 section 4.1.2.2).
        bytes_in_flight_window_ms: Option<f64> => [Scream], MS, OverrideDefault::Value(|| ms(scream().bytes_in_flight_window));
        /// Fast increase grows cwnd only while bytes_in_flight x this + bytes_newly_acked
        /// > cwnd (reference implementation).
        fast_increase_use_factor: Option<f64> => [Scream], None, OverrideDefault::Value(|| scream().fast_increase_use_factor.to_string());
        /// Congestion avoidance grows cwnd only while bytes_in_flight x this +
        /// bytes_newly_acked > cwnd (RFC 8298 section 4.1.2.2).
        increase_use_factor: Option<f64> => [Scream], None, OverrideDefault::Value(|| scream().increase_use_factor.to_string());
        /// T_RESUME_FAST_INCREASE (RFC 8298 section 4.1.2.1).
        fast_increase_resume_ms: Option<f64> => [Scream], MS, OverrideDefault::Value(|| ms(scream().fast_increase_resume));
        /// A packet unacked while one sent this much later was acked is lost (RFC 8298
        /// section 4.1.2.4; reference implementation's value).
        reorder_time_ms: Option<f64> => [Scream], MS, OverrideDefault::Value(|| ms(scream().reorder_time));
        /// Pacing headroom over cwnd / s_rtt (RFC 8298 section 4.1.2.6: 1.0).
        packet_pacing_headroom: Option<f64> => [Scream], None, OverrideDefault::Value(|| scream().packet_pacing_headroom.to_string());
        /// RATE_PACE_MIN (RFC 8298 section 4.1.2.1).
        rate_pace_min: Option<Bps> => [Scream], BPS, OverrideDefault::Value(|| bps(scream().rate_pace_min));
        /// BASE_OWD history length, one minimum per interval (RFC 8298 section 4.1.2.2).
        base_owd_history: Option<f64> => [Scream], COUNT, OverrideDefault::Value(|| scream().base_owd_history.to_string());
        /// The interval of one BASE_OWD minimum (RFC 8298 section 4.1.2.2).
        base_owd_interval_ms: Option<f64> => [Scream], MS, OverrideDefault::Value(|| ms(scream().base_owd_interval));
        /// TARGET_BITRATE_MIN (RFC 8298 section 4.1.3.1).
        min_rate: Option<Bps> => [Scream], BPS, OverrideDefault::Value(|| bps(scream().min_rate));
        /// TARGET_BITRATE_MAX (RFC 8298 section 4.1.3.1).
        max_rate: Option<Bps> => [Scream], BPS, OverrideDefault::Value(|| bps(scream().max_rate));
        /// The target bitrate at start.
        initial_rate: Option<Bps> => [Scream], BPS, OverrideDefault::Value(|| bps(scream().initial_rate));
        /// RATE_ADJUST_INTERVAL (RFC 8298 section 4.1.3.1).
        rate_adjust_interval_ms: Option<f64> => [Scream], MS, OverrideDefault::Value(|| ms(scream().rate_adjust_interval));
        /// RAMP_UP_SPEED in bit/s per second (RFC 8298 section 4.1.3.1).
        ramp_up_speed: Option<f64> => [Scream], Some("bit/s per s"), OverrideDefault::Value(|| scream().ramp_up_speed.to_string());
        /// BETA_R: target bitrate scale on a loss event (RFC 8298 section 4.1.3.1).
        beta_r_loss: Option<f64> => [Scream], None, OverrideDefault::Value(|| scream().beta_r_loss.to_string());
        /// PRE_CONGESTION_GUARD (RFC 8298 section 4.1.3.1; range 0..1).
        pre_congestion_guard: Option<f64> => [Scream], None, OverrideDefault::Value(|| scream().pre_congestion_guard.to_string());
        /// TX_QUEUE_SIZE_FACTOR (RFC 8298 section 4.1.3.1; range 0..2).
        tx_queue_size_factor: Option<f64> => [Scream], None, OverrideDefault::Value(|| scream().tx_queue_size_factor.to_string());
        /// RTP_QDELAY_TH: RTP queue delay above which the target is scaled down (RFC 8298
        /// section 4.1.3.1).
        rtp_qdelay_th_ms: Option<f64> => [Scream], MS, OverrideDefault::Value(|| ms(scream().rtp_qdelay_th));
        /// TARGET_RATE_SCALE_RTP_QDELAY (RFC 8298 section 4.1.3.1).
        target_rate_scale_rtp_qdelay: Option<f64> => [Scream], None, OverrideDefault::Value(|| scream().target_rate_scale_rtp_qdelay.to_string());
        /// The window of rate_media_median (RFC 8298 section 4.1.3.2: more than 10 s).
        rate_media_median_window_ms: Option<f64> => [Scream], MS, OverrideDefault::Value(|| ms(scream().rate_media_median_window));
        /// The RTP queue is discarded when its delay exceeds this (reference
        /// implementation) ...
        rtp_queue_delay_max_ms: Option<f64> => [Scream], MS, OverrideDefault::Value(|| ms(scream().rtp_queue_delay_max));
        /// ... at most once per this interval (reference implementation).
        rtp_queue_discard_interval_ms: Option<f64> => [Scream], MS, OverrideDefault::Value(|| ms(scream().rtp_queue_discard_interval));
        /// The averaging window of the transmitted and acked rates (reference
        /// implementation).
        rate_window_ms: Option<f64> => [Scream], MS, OverrideDefault::Value(|| ms(scream().rate_window));
        /// The RFC 8888 feedback interval.
        feedback_interval_ms: Option<f64> => [Scream], MS,
            OverrideDefault::Value(|| SCREAM_FEEDBACK_INTERVAL_MS.to_string());
        /// Frame rate of the encoder model.
        fps: Option<f64> => [Scream], FPS, OverrideDefault::Value(|| EncoderBounds::paper000().fps.to_string());
        /// `true`: a perfect codec (frames exactly at the target) instead of the
        /// statistics codec with noise and I-frames.
        perfect_codec: Option<bool> => [Scream], None, OverrideDefault::Value(|| "false".into());
    }
}

overrides! {
    /// The `overrides` a `ledbat` flow accepts: every constant of RFC 6817 section 2.5
    /// with its default, and the bulk transfer's message size.
    #[derive(Default)]
    pub struct LedbatOverrides {
        /// MSS: the unit of the window, the segment payload (RFC 6817 section 2.5).
        mss: Option<Bytes> => [Ledbat], BYTES, OverrideDefault::Value(|| ledbat().mss.as_bytes().to_string());
        /// GAIN: at most 1 (RFC 6817 section 2.5).
        gain: Option<f64> => [Ledbat], None, OverrideDefault::Value(|| ledbat().gain.to_string());
        /// TARGET: the queuing delay LEDBAT aims at; at most 100 ms (RFC 6817 section 2.5).
        target_ms: Option<f64> => [Ledbat], MS, OverrideDefault::Value(|| ms(ledbat().target));
        /// BASE_HISTORY: base-delay minima kept (RFC 6817 section 2.5).
        base_history: Option<f64> => [Ledbat], COUNT, OverrideDefault::Value(|| ledbat().base_history.to_string());
        /// The period of one base-delay minimum (RFC 6817 section 2.4.2: one minute).
        base_interval_ms: Option<f64> => [Ledbat], MS, OverrideDefault::Value(|| ms(ledbat().base_interval));
        /// CURRENT_FILTER: recent delays FILTER() (the minimum) looks at (RFC 6817 section
        /// 2.5).
        current_filter: Option<f64> => [Ledbat], COUNT, OverrideDefault::Value(|| ledbat().current_filter.to_string());
        /// ALLOWED_INCREASE in MSS (RFC 6817 section 2.5).
        allowed_increase: Option<f64> => [Ledbat], COUNT, OverrideDefault::Value(|| ledbat().allowed_increase.to_string());
        /// INIT_CWND in MSS (RFC 6817 section 2.5).
        init_cwnd: Option<f64> => [Ledbat], COUNT, OverrideDefault::Value(|| ledbat().init_cwnd.to_string());
        /// MIN_CWND in MSS (RFC 6817 section 2.5).
        min_cwnd: Option<f64> => [Ledbat], COUNT, OverrideDefault::Value(|| ledbat().min_cwnd.to_string());
        /// Message size of the application-limited (`desired_rate`) source.
        message_size: Option<Bytes> => [Ledbat], BYTES, OverrideDefault::Value(|| DEFAULT_MESSAGE_SIZE.as_bytes().to_string());
    }
}

/// Why a `tfrc` flow takes no `initial_rate`.
pub const TFRC_INITIAL_RATE: &str = "TFRC starts from its initial window (RFC 5348 4.2)";

/// The keys a flow of `kind` set that its kind does not take: the first one as
/// `.{key}: {kind} only` (e.g. `.sack: tcp flows only`).
pub fn check_kind(kind: FlowKind, set: &[&OverrideDef]) -> Result<(), FieldError> {
    match set.iter().find(|d| !d.applies_to.contains(&kind)) {
        Some(d) => Err(FieldError::new(format!(".{}", d.name), d.only_message())),
        None => Ok(()),
    }
}

/// Every override key of every flow kind, in the order the kinds are listed.
pub fn definitions() -> impl Iterator<Item = &'static OverrideDef> {
    [
        GccOverrides::DEFINITIONS,
        WindowOverrides::DEFINITIONS,
        RateOverrides::DEFINITIONS,
        CbrOverrides::DEFINITIONS,
        NadaOverrides::DEFINITIONS,
        ScreamOverrides::DEFINITIONS,
        LedbatOverrides::DEFINITIONS,
    ]
    .into_iter()
    .flatten()
}

/// A flow's `overrides` table as `T`, parsed strictly. Error: the sub-path under
/// `overrides` (`.k_up`, or empty for the table itself) and the message.
pub fn parse<T: serde::de::DeserializeOwned>(table: &toml::Table) -> Result<T, FieldError> {
    let value = toml::Value::Table(table.clone());
    serde_path_to_error::deserialize::<_, T>(value).map_err(|e| {
        let p = e.path().to_string();
        let msg = e.into_inner().to_string().trim().replace('\n', " ");
        if let Some(missing) = crate::error::missing_field(&msg) {
            let sub = format!(".{}", crate::error::join_path(&p, missing));
            return FieldError::new(sub, "required field is missing");
        }
        let sub = if p == "." {
            String::new()
        } else {
            format!(".{p}")
        };
        FieldError::new(sub, msg)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every key the struct reads is in its definitions and nothing else: the serde
    /// error for an unknown key lists the fields.
    fn keys_match<T: serde::de::DeserializeOwned + std::fmt::Debug>(defs: &[OverrideDef]) {
        let mut t = toml::Table::new();
        t.insert("no_such_key".into(), toml::Value::Integer(1));
        let e = parse::<T>(&t).expect_err("unknown key");
        for d in defs {
            assert!(
                e.message.contains(&format!("`{}`", d.name)),
                "{} in {e}",
                d.name
            );
        }
        let listed = e.message.matches('`').count() / 2 - 1;
        assert_eq!(listed, defs.len(), "{e}");
    }

    #[test]
    fn definitions_are_the_struct_fields() {
        keys_match::<GccOverrides>(GccOverrides::DEFINITIONS);
        keys_match::<WindowOverrides>(WindowOverrides::DEFINITIONS);
        keys_match::<RateOverrides>(RateOverrides::DEFINITIONS);
        keys_match::<CbrOverrides>(CbrOverrides::DEFINITIONS);
        keys_match::<NadaOverrides>(NadaOverrides::DEFINITIONS);
        keys_match::<ScreamOverrides>(ScreamOverrides::DEFINITIONS);
        keys_match::<LedbatOverrides>(LedbatOverrides::DEFINITIONS);
    }

    #[test]
    fn every_definition_is_described_and_has_a_default_line() {
        for d in definitions() {
            assert!(!d.description().is_empty(), "{}", d.name);
            assert!(!d.description().contains('\n'));
            match d.default {
                OverrideDefault::Required => assert_eq!(d.name, "rate"),
                _ => assert!(d.default.describe().is_some_and(|s| !s.is_empty())),
            }
        }
    }

    #[test]
    fn preset_defaults_come_from_the_presets() {
        let pacing = GccOverrides::DEFINITIONS
            .iter()
            .find(|d| d.name == "pacing_factor")
            .expect("defined");
        assert_eq!(
            pacing.default.describe().as_deref(),
            Some("paper: 1.5, paper-static: 1.5, chromium: 1.1, chromium-m156: 1.1")
        );
        // The send chain: on in chromium-m156 only.
        for (name, want) in [
            (
                "chromium_pacer",
                "paper: false, paper-static: false, chromium: false, chromium-m156: true",
            ),
            (
                "chromium_fec",
                "paper: false, paper-static: false, chromium: false, chromium-m156: true",
            ),
            (
                "fec_delay_ms",
                "paper: none, paper-static: none, chromium: none, chromium-m156: 5.4",
            ),
            (
                "pacer_burst_ms",
                "paper: 5, paper-static: 5, chromium: 5, chromium-m156: 40",
            ),
            (
                "loss_v2_m150",
                "paper: -, paper-static: -, chromium: -, chromium-m156: true",
            ),
        ] {
            let d = GccOverrides::DEFINITIONS
                .iter()
                .find(|d| d.name == name)
                .expect("defined");
            assert_eq!(d.default.describe().as_deref(), Some(want), "{name}");
        }
        let q = GccOverrides::DEFINITIONS
            .iter()
            .find(|d| d.name == "kalman_q")
            .expect("defined");
        assert!(q
            .default
            .describe()
            .expect("some")
            .ends_with("chromium: -, chromium-m156: -"));
    }

    #[test]
    fn numbers_are_the_numeric_keys_set_in_definition_order() {
        let o = GccOverrides {
            fps: Some(30.0),
            perfect_codec: Some(true),
            start_rate: Some(Bps(1e5)),
            threshold: Some(ThresholdMode::Static),
            ..GccOverrides::default()
        };
        assert_eq!(o.numbers(), vec![("start_rate", 1e5), ("fps", 30.0)]);
        let w = WindowOverrides {
            sack: Some(true),
            mtu: Some(Bytes(1000.0)),
            ..WindowOverrides::default()
        };
        assert_eq!(w.numbers(), vec![("mtu", 1000.0)]);
    }

    /// The names the defaults print are the names serde reads.
    #[test]
    fn choice_names_are_the_ones_serde_reads() {
        fn reads<T: serde::de::DeserializeOwned + PartialEq + std::fmt::Debug>(
            name: &str,
            want: T,
        ) {
            let got: T = toml::Value::String(name.into()).try_into().expect("reads");
            assert_eq!(got, want);
        }
        for m in [RuleOrigin::Paper, RuleOrigin::Chromium] {
            reads(m.name(), m);
        }
        for m in [ThresholdMode::Static, ThresholdMode::Adaptive] {
            reads(m.name(), m);
        }
    }

    #[test]
    fn only_messages() {
        let m = |n: &str| {
            WindowOverrides::DEFINITIONS
                .iter()
                .find(|d| d.name == n)
                .expect("defined")
                .only_message()
        };
        assert_eq!(m("report_cwnd_before_cap"), "sctp only");
        assert_eq!(m("sack"), "tcp flows only");
        assert_eq!(m("hystart"), "tcp-cubic flows only");
    }
}
