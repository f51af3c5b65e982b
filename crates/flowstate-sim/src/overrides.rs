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
use flowstate_core::source::EncoderBounds;
use flowstate_core::window::{CubicConfig, NewRenoConfig};
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
        /// `chromium-m156` only: `false` paces at `pacing_factor` x target (1.1, the
        /// chromium preset's) instead of Chromium's 2.5 x with the 2 s queue drain.
        chromium_pacing: Option<bool> => [Gcc], None,
            OverrideDefault::PerPreset(|p| p.config().m156.map(|m| m.pacing.is_some().to_string()));
        /// `chromium-m156` only: `false` uses the chromium preset's classic loss-based
        /// controller instead of loss-based BWE v2.
        loss_based_v2: Option<bool> => [Gcc], None,
            OverrideDefault::PerPreset(|p| p.config().m156.map(|m| m.loss_v2.is_some().to_string()));
    }
}

/// Which rule a `gcc` flow's `overrides.kalman_noise` (the Kalman measurement-noise
/// estimator) or `overrides.loss_controller` (the loss-based controller) selects: the
/// paper's or Chromium's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
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
            Some("paper: 1.5, paper-static: 1.5, chromium: 1.1, chromium-m156: 2.5")
        );
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
