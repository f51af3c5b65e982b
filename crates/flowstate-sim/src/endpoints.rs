//! The flowstate-core endpoints as simulator flows, and the default [`FlowFactory`]
//! that builds every scenario flow kind from them.
//!
//! | kind | sender / receiver | default |
//! |---|---|---|
//! | `gcc` | [`MediaSender`] / [`MediaReceiver`] | preset `chromium`, statistics codec, 2.5 Mbit/s max |
//! | `sctp` | [`SctpSender`] / [`SctpReceiver`] | paper 000's greedy data channel |
//! | `tcp-newreno`, `tcp-cubic` | [`TcpSender`] / [`TcpReceiver`] | long-lived greedy |
//! | `rap` | [`RapSender`] / [`RapReceiver`] | greedy |
//! | `tfrc` | [`TfrcSender`] / [`TfrcReceiver`] | greedy |
//! | `cbr` | [`crate::cbr`] | - |
//!
//! Every sender is wrapped in [`Tracked`], which turns the sender's newest RTT sample
//! into metrics samples (a sample is reported when the newest value changes, so two
//! consecutive equal samples count once) and forwards the coupling calls.

use crate::cbr::{cbr_flow, CbrConfig};
use crate::flow::{EndpointPairFlow, ReceiverHooks, SenderHooks, SimFlow};
use crate::scenario::{
    cbr_overrides, parse_overrides, FlowSpec, GccOverrides, KalmanNoiseMode, LossControllerMode,
    RateOverrides, ThresholdMode, WindowOverrides,
};
use crate::SimError;
use flowstate_core::coupling::{Allowance, FlowReport, Mechanism};
use flowstate_core::endpoint::data_source::SourceKind;
use flowstate_core::endpoint::media::{
    MediaReceiver, MediaReceiverConfig, MediaSender, MediaSenderConfig, RateReportMode,
};
use flowstate_core::endpoint::rap::{RapReceiver, RapReceiverConfig, RapSender};
use flowstate_core::endpoint::sctp::{
    SctpReceiver, SctpReceiverConfig, SctpSender, SctpSenderConfig,
};
use flowstate_core::endpoint::tcp::{
    TcpCcKind, TcpReceiver, TcpReceiverConfig, TcpSender, TcpSenderConfig,
};
use flowstate_core::endpoint::tfrc::{TfrcReceiver, TfrcReceiverEndpointConfig, TfrcSender};
use flowstate_core::endpoint::{Endpoint, Transmit};
use flowstate_core::gcc::delay_based::DelayFilterConfig;
use flowstate_core::gcc::kalman::{NoiseModel, SlopeState};
use flowstate_core::gcc::loss_based::LossConfig;
use flowstate_core::gcc::threshold::{
    AdaptiveThresholdConfig, StaticThresholdConfig, ThresholdConfig,
};
use flowstate_core::gcc::{EstimationSide, GccConfig, GccPreset};
use flowstate_core::rate::rap::RapConfig;
use flowstate_core::rate::tfrc::TfrcConfig;
use flowstate_core::source::statistics::StatisticsCodecConfig;
use flowstate_core::source::{EncoderBounds, VideoSourceConfig};
use flowstate_core::window::{
    CubicConfig, HystartConfig, NewRenoConfig, RtoConfig, WindowController,
};
use flowstate_core::{Bitrate, DataSize, TimeDelta, Timestamp};
use rand::RngExt;
use rand_chacha::ChaCha8Rng;

/// What a flow factory knows about the run besides the flow itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FlowContext {
    /// The scenario's coupling mechanism (`"none"` when uncoupled). GCC reports its
    /// delay-based estimate under `fse-ng` / `ext-fse-ng` (paper 000, V-B3) and its
    /// target otherwise.
    pub mechanism: String,
}

impl Default for FlowContext {
    fn default() -> Self {
        Self {
            mechanism: "none".into(),
        }
    }
}

/// Builds the flow for one `[[flows]]` entry.
pub trait FlowFactory {
    /// `index` is the flow's position; `rng` its own random stream (derived from the
    /// run seed and `index`).
    fn build(
        &self,
        ctx: &FlowContext,
        index: usize,
        spec: &FlowSpec,
        rng: ChaCha8Rng,
    ) -> Result<Box<dyn SimFlow>, SimError>;
}

/// What [`Tracked`] needs from a flowstate-core sender.
pub trait CoreSender: Endpoint {
    fn cc_report(&mut self) -> Option<FlowReport>;
    fn allowance(&mut self, now: Timestamp, a: Allowance);
    /// The newest RTT sample (or estimate), if any.
    fn latest_rtt(&self) -> Option<TimeDelta>;
    /// The controller's current value as a report.
    fn snapshot(&self) -> Option<FlowReport>;
    fn n_dd(&self) -> Option<u64> {
        None
    }
    /// The application's rate limit changed (`desired_rate_schedule`); default: ignored.
    fn set_app_rate(&mut self, _rate: Option<Bitrate>) {}
}

/// A flowstate-core sender with the simulator hooks.
#[derive(Debug)]
pub struct Tracked<S> {
    inner: S,
    last_rtt: Option<TimeDelta>,
    /// `(at, rate)` application rate changes not yet applied (sorted).
    app_rates: Vec<(Timestamp, Bitrate)>,
    next_app_rate: usize,
}

impl<S> Tracked<S> {
    pub fn new(inner: S) -> Self {
        Self {
            inner,
            last_rtt: None,
            app_rates: Vec::new(),
            next_app_rate: 0,
        }
    }
    /// With a `desired_rate_schedule`: `(at, rate)` sorted by time.
    pub fn with_app_rates(mut self, schedule: Vec<(Timestamp, Bitrate)>) -> Self {
        self.app_rates = schedule;
        self.next_app_rate = 0;
        self
    }
    pub fn inner(&self) -> &S {
        &self.inner
    }
}

impl<S: CoreSender> Tracked<S> {
    /// Apply every scheduled application rate due at `now`.
    fn apply_app_rates(&mut self, now: Timestamp) {
        while let Some(&(at, rate)) = self.app_rates.get(self.next_app_rate) {
            if at > now {
                break;
            }
            self.inner.set_app_rate(Some(rate));
            self.next_app_rate += 1;
        }
    }
}

impl<S: CoreSender> Endpoint for Tracked<S> {
    type Outgoing = S::Outgoing;
    type Incoming = S::Incoming;
    fn handle_input(&mut self, now: Timestamp, msg: Self::Incoming) {
        self.apply_app_rates(now);
        self.inner.handle_input(now, msg);
    }
    fn poll_transmit(&mut self, now: Timestamp) -> Option<Transmit<Self::Outgoing>> {
        self.apply_app_rates(now);
        self.inner.poll_transmit(now)
    }
    fn poll_timeout(&self) -> Option<Timestamp> {
        let next = self.app_rates.get(self.next_app_rate).map(|&(at, _)| at);
        match (self.inner.poll_timeout(), next) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
    fn handle_timeout(&mut self, now: Timestamp) {
        self.apply_app_rates(now);
        self.inner.handle_timeout(now);
    }
}

impl<S: CoreSender> SenderHooks for Tracked<S> {
    fn poll_cc_report(&mut self) -> Option<FlowReport> {
        self.inner.cc_report()
    }
    fn apply_allowance(&mut self, now: Timestamp, allowance: Allowance) {
        self.inner.allowance(now, allowance);
    }
    fn poll_rtt_sample(&mut self) -> Option<TimeDelta> {
        let r = self.inner.latest_rtt();
        if r.is_some() && r != self.last_rtt {
            self.last_rtt = r;
            return r;
        }
        None
    }
    fn cc_snapshot(&self) -> Option<FlowReport> {
        self.inner.snapshot()
    }
    fn delay_based_decreases(&self) -> Option<u64> {
        self.inner.n_dd()
    }
}

impl CoreSender for MediaSender {
    fn cc_report(&mut self) -> Option<FlowReport> {
        self.poll_cc_report()
    }
    fn allowance(&mut self, now: Timestamp, a: Allowance) {
        self.apply_allowance(now, a);
    }
    fn latest_rtt(&self) -> Option<TimeDelta> {
        // GCC's RTT estimate (the default 200 ms until the first sample is skipped by
        // comparing with the configured default).
        let r = self.gcc().rtt();
        (r != self.gcc().config().default_rtt).then_some(r)
    }
    fn snapshot(&self) -> Option<FlowReport> {
        Some(FlowReport::Rate {
            rate: self.target_rate(),
            rtt: Some(self.gcc().rtt()),
        })
    }
    fn n_dd(&self) -> Option<u64> {
        Some(self.gcc().delay_based_decreases())
    }
}

fn window_snapshot<C: WindowController>(cc: &C, rtt: Option<TimeDelta>) -> FlowReport {
    FlowReport::Window {
        cwnd: cc.cwnd(),
        rtt,
        ssthresh: cc.ssthresh(),
        desired_cwnd: None,
    }
}

/// SCTP and TCP senders expose the same window-flow surface.
macro_rules! window_core_sender {
    ($($sender:ty),*) => {$(
        impl CoreSender for $sender {
            fn cc_report(&mut self) -> Option<FlowReport> {
                self.poll_cc_report()
            }
            fn allowance(&mut self, now: Timestamp, a: Allowance) {
                self.apply_allowance(now, a);
            }
            fn latest_rtt(&self) -> Option<TimeDelta> {
                self.rtt_estimator().latest()
            }
            fn snapshot(&self) -> Option<FlowReport> {
                Some(window_snapshot(
                    self.congestion_control(),
                    self.rtt_estimator().latest(),
                ))
            }
        }
    )*};
}

window_core_sender!(SctpSender, TcpSender);

impl CoreSender for RapSender {
    fn cc_report(&mut self) -> Option<FlowReport> {
        self.poll_cc_report()
    }
    fn set_app_rate(&mut self, rate: Option<Bitrate>) {
        self.set_desired_rate(rate);
    }
    fn allowance(&mut self, now: Timestamp, a: Allowance) {
        self.apply_allowance(now, a);
    }
    fn latest_rtt(&self) -> Option<TimeDelta> {
        self.controller().srtt_sample()
    }
    fn snapshot(&self) -> Option<FlowReport> {
        Some(FlowReport::Rate {
            rate: self.rate(),
            rtt: self.controller().srtt_sample(),
        })
    }
}

impl CoreSender for TfrcSender {
    fn cc_report(&mut self) -> Option<FlowReport> {
        self.poll_cc_report()
    }
    fn set_app_rate(&mut self, rate: Option<Bitrate>) {
        self.set_desired_rate(rate);
    }
    fn allowance(&mut self, now: Timestamp, a: Allowance) {
        self.apply_allowance(now, a);
    }
    fn latest_rtt(&self) -> Option<TimeDelta> {
        self.controller().rtt()
    }
    fn snapshot(&self) -> Option<FlowReport> {
        Some(FlowReport::Rate {
            rate: self.rate(),
            rtt: self.controller().rtt(),
        })
    }
}

impl ReceiverHooks for MediaReceiver {
    fn delay_based_decreases(&self) -> Option<u64> {
        self.delay_based().map(|d| d.delay_based_decreases())
    }
}
impl ReceiverHooks for SctpReceiver {
    fn goodput_bytes(&self) -> Option<u64> {
        Some(self.bytes_delivered().as_bytes())
    }
}
impl ReceiverHooks for TcpReceiver {
    fn goodput_bytes(&self) -> Option<u64> {
        Some(self.bytes_delivered().as_bytes())
    }
}
impl ReceiverHooks for RapReceiver {}
impl ReceiverHooks for TfrcReceiver {}

/// A GCC media flow (sender + receiver).
pub type GccFlow = EndpointPairFlow<Tracked<MediaSender>, MediaReceiver>;
/// An SCTP data-channel flow.
pub type SctpFlow = EndpointPairFlow<Tracked<SctpSender>, SctpReceiver>;
/// A TCP flow (NewReno or CUBIC).
pub type TcpFlow = EndpointPairFlow<Tracked<TcpSender>, TcpReceiver>;
/// A RAP flow.
pub type RapFlow = EndpointPairFlow<Tracked<RapSender>, RapReceiver>;
/// A TFRC flow.
pub type TfrcFlow = EndpointPairFlow<Tracked<TfrcSender>, TfrcReceiver>;

fn secs(s: f64) -> Timestamp {
    Timestamp::from_micros((s.max(0.0) * 1e6).round() as u64)
}

fn bad(index: usize, field: &str, (k, m): (String, String)) -> SimError {
    SimError::NotWired(format!("flows[{index}].{field}{k}: {m}"))
}

/// The GCC configuration of `preset` with a flow's `overrides` applied. Error:
/// (sub-path, message), e.g. `(".k_up", "needs threshold = \"adaptive\"")`.
pub fn gcc_config(preset: GccPreset, o: &GccOverrides) -> Result<GccConfig, (String, String)> {
    let mut gcc = preset.config();
    if o.start_rate.is_some() || o.min_rate.is_some() || o.max_rate.is_some() {
        let a = &gcc.delay.aimd;
        let start = o.start_rate.map_or(a.start_rate, |b| Bitrate::bps(b.0));
        let min = o.min_rate.map_or(a.min_rate, |b| Bitrate::bps(b.0));
        let max = o.max_rate.map_or(a.max_rate, |b| Bitrate::bps(b.0));
        if min > max {
            let key = if o.min_rate.is_some() {
                "min_rate"
            } else {
                "max_rate"
            };
            return Err((
                format!(".{key}"),
                format!(
                    "min_rate ({} bit/s) must be <= max_rate ({} bit/s)",
                    min.as_bps(),
                    max.as_bps()
                ),
            ));
        }
        let start = match o.start_rate {
            // The preset's start rate follows the bounds the flow sets.
            None => start.max(min).min(max),
            // Before: a start rate outside the bounds was silently clamped.
            Some(_) if start < min || start > max => {
                return Err((
                    ".start_rate".into(),
                    format!(
                        "start_rate ({} bit/s) must be in [min_rate, max_rate] = [{}, {}] bit/s",
                        start.as_bps(),
                        min.as_bps(),
                        max.as_bps()
                    ),
                ));
            }
            Some(_) => start,
        };
        gcc = gcc.with_rates(start, min, max);
    }
    if let Some(p) = o.pacing_factor {
        gcc.pacing_factor = p;
        if let Some(c) = gcc.m156.as_mut().and_then(|m| m.pacing.as_mut()) {
            c.pace_multiplier = p;
        }
    }
    // The chromium-m156 components, one at a time (the preset's measured ablations).
    for (key, set) in [
        ("probing", o.probing),
        ("alr_detector", o.alr_detector),
        ("chromium_pacing", o.chromium_pacing),
    ] {
        let Some(on) = set else { continue };
        let Some(m) = gcc.m156.as_mut() else {
            return Err((
                format!(".{key}"),
                format!("preset {preset} has no such component (use chromium-m156)"),
            ));
        };
        match (key, on) {
            ("probing", false) => m.probing = None,
            ("alr_detector", false) => m.alr = None,
            ("chromium_pacing", false) => {
                m.pacing = None;
                gcc.pacing_factor = o.pacing_factor.unwrap_or(1.1);
            }
            _ => {}
        }
    }
    let err = |k: &str, m: String| Err((format!(".{k}"), m));
    // Paper 002 eq. 15: the Kalman filter's state noise Q.
    if let Some(q) = o.kalman_q {
        match &mut gcc.delay.filter {
            DelayFilterConfig::Kalman(k) => k.q = q,
            DelayFilterConfig::Trendline(_) => {
                let m = format!("preset {preset} has no Kalman filter (use paper or paper-static)");
                return err("kalman_q", m);
            }
        }
    }
    // Chromium's OveruseEstimator noise model vs paper 002 eq. 16.
    if let Some(mode) = o.kalman_noise {
        match &mut gcc.delay.filter {
            DelayFilterConfig::Kalman(k) => {
                k.noise = match mode {
                    KalmanNoiseMode::Paper => NoiseModel::Paper,
                    KalmanNoiseMode::Chromium => NoiseModel::chromium(),
                }
            }
            DelayFilterConfig::Trendline(_) => {
                let m = format!("preset {preset} has no Kalman filter (use paper or paper-static)");
                return err("kalman_noise", m);
            }
        }
    }
    // Chromium's two-state filter (1/C and m) vs paper 002's one-state eq. 10.
    if let Some(on) = o.kalman_slope {
        match &mut gcc.delay.filter {
            DelayFilterConfig::Kalman(k) => k.slope = on.then(SlopeState::default),
            DelayFilterConfig::Trendline(_) => {
                let m = format!("preset {preset} has no Kalman filter (use paper or paper-static)");
                return err("kalman_slope", m);
            }
        }
    }
    // Threshold mode: switching keeps the other preset constants; the adaptive
    // threshold of a paper preset takes paper 002's gains, of chromium Chromium's.
    match (o.threshold, &gcc.delay.threshold) {
        (Some(ThresholdMode::Static), ThresholdConfig::Adaptive(_)) => {
            gcc.delay.threshold = ThresholdConfig::Static(StaticThresholdConfig::default());
        }
        (Some(ThresholdMode::Adaptive), ThresholdConfig::Static(_)) => {
            gcc.delay.threshold = ThresholdConfig::Adaptive(match preset {
                GccPreset::Chromium | GccPreset::ChromiumM156 => {
                    AdaptiveThresholdConfig::chromium()
                }
                _ => AdaptiveThresholdConfig::paper(),
            });
        }
        _ => {}
    }
    match &mut gcc.delay.threshold {
        ThresholdConfig::Static(s) => {
            for (k, set) in [
                ("k_up", o.k_up.is_some()),
                ("k_down", o.k_down.is_some()),
                (
                    "threshold_ignores_spikes",
                    o.threshold_ignores_spikes.is_some(),
                ),
            ] {
                if set {
                    return err(k, "needs threshold = \"adaptive\"".into());
                }
            }
            if let Some(g) = o.gamma_bar_ms {
                s.gamma_bar_ms = g;
            }
            if let Some(h) = o.threshold_halving {
                s.halving = h;
            }
        }
        ThresholdConfig::Adaptive(a) => {
            if o.gamma_bar_ms.is_some() || o.threshold_halving.is_some() {
                let k = if o.gamma_bar_ms.is_some() {
                    "gamma_bar_ms"
                } else {
                    "threshold_halving"
                };
                return err(k, "needs threshold = \"static\"".into());
            }
            if let Some(k) = o.k_up {
                a.k_up = k;
            }
            if let Some(k) = o.k_down {
                a.k_down = k;
            }
            if o.threshold_ignores_spikes == Some(false) {
                a.max_adapt_offset = f64::INFINITY;
            }
        }
    }
    // Paper 002 eq. 3 has only eta's multiplicative increase; Chromium (and so every
    // preset by default) switches to an additive one near the link-capacity estimate.
    if let Some(on) = o.additive_increase {
        gcc.delay.aimd.additive_near_convergence = on;
    }
    // Paper 002 eq. 5 (per report) or Chromium's classic loss-based controller.
    if let Some(mode) = o.loss_controller {
        let keep = (gcc.loss.start_rate, gcc.loss.min_rate, gcc.loss.max_rate);
        gcc.loss = match (mode, preset) {
            (LossControllerMode::Chromium, _) => LossConfig::chromium(),
            (LossControllerMode::Paper, GccPreset::PaperStatic) => LossConfig::paper001(),
            (LossControllerMode::Paper, _) => LossConfig::paper002(),
        };
        (gcc.loss.start_rate, gcc.loss.min_rate, gcc.loss.max_rate) = keep;
    }
    // Whether an FSE allocation restarts TimeToReduceFurther's clock (Chromium
    // SetEstimate) or not (SetStartBitrate). The allocation reaches the AIMD only where
    // it runs at the sender.
    if let Some(on) = o.allocation_restarts_decrease_timer {
        if gcc.side != EstimationSide::Sender {
            let m = format!(
                "preset {preset} runs the AIMD at the receiver, where no allocation reaches it (use chromium)"
            );
            return err("allocation_restarts_decrease_timer", m);
        }
        gcc.delay.aimd.allocation_restarts_decrease_timer = on;
    }
    Ok(gcc)
}

/// A GCC flow as the scenario describes it. Report mode: delay-based estimate under
/// FSE-NG / Extended FSE-NG, target otherwise.
pub fn gcc_flow(
    ctx: &FlowContext,
    index: usize,
    spec: &FlowSpec,
    seed: u64,
) -> Result<GccFlow, SimError> {
    let preset_name = spec.preset.as_deref().unwrap_or("chromium");
    let preset = GccPreset::from_name(preset_name).ok_or_else(|| {
        SimError::NotWired(format!(
            "flows[{index}].preset: unknown GCC preset \"{preset_name}\""
        ))
    })?;
    let o: GccOverrides = parse_overrides(spec).map_err(|e| bad(index, "overrides", e))?;
    let gcc = gcc_config(preset, &o).map_err(|e| bad(index, "overrides", e))?;
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
    cfg.ssrc = index as u32 + 1;
    cfg.seed = seed;
    // Chromium ~M100 counts the RTP/UDP/IP overhead in its target (WebRTC-SendSideBwe-
    // WithOverhead, on by default): the chromium preset does too; the paper presets
    // (Chromium of 2014-2016) did not.
    cfg.target_includes_overhead = matches!(preset, GccPreset::Chromium | GccPreset::ChromiumM156);
    if let Some(on) = o.target_includes_overhead {
        cfg.target_includes_overhead = on;
    }
    cfg.source = if o.perfect_codec.unwrap_or(false) {
        VideoSourceConfig::Perfect(bounds)
    } else {
        VideoSourceConfig::Statistics(StatisticsCodecConfig {
            bounds,
            ..StatisticsCodecConfig::default()
        })
    };
    // What GCC reports is the mechanism's to say (paper 000 V-B3; the catalogue entry
    // in the mechanism's file gives the reason).
    cfg.report_mode = Mechanism::info_by_name(&ctx.mechanism)
        .map_or(RateReportMode::Target, |info| info.rate_report);
    let start = secs(spec.start_secs());
    let mut sender = MediaSender::new(cfg, start);
    if let Some(d) = spec.desired_rate {
        sender.set_desired_rate(start, Some(Bitrate::bps(d.0)));
    }
    let mut rcfg = MediaReceiverConfig::new(gcc);
    rcfg.ssrc = index as u32 + 1;
    Ok(EndpointPairFlow::new(
        Tracked::new(sender),
        MediaReceiver::new(rcfg),
    ))
}

/// The data source of an `sctp` / `tcp-*` flow: `source` if given, else a rate source
/// at `desired_rate` if given, else `greedy` (the sender kind's default greedy source).
fn data_source(
    spec: &FlowSpec,
    greedy: SourceKind,
    message_size: DataSize,
    seed: u64,
) -> SourceKind {
    let start = secs(spec.start_secs());
    match (spec.source.as_deref(), spec.desired_rate) {
        (Some("on-off"), _) => SourceKind::paper_on_off(start),
        (Some("short-flows"), _) => match SourceKind::rfc8867_short_flows(seed) {
            SourceKind::ShortFlows {
                min_file,
                max_file,
                mean_idle,
                seed,
                ..
            } => SourceKind::ShortFlows {
                min_file,
                max_file,
                mean_idle,
                start,
                seed,
            },
            other => other,
        },
        (None, Some(rate)) => SourceKind::Rate {
            rate: Bitrate::bps(rate.0),
            message_size,
            start,
            total: None,
        },
        _ => greedy,
    }
}

/// An SCTP flow (paper 000's greedy data channel unless the scenario says otherwise).
pub fn sctp_flow(index: usize, spec: &FlowSpec, seed: u64) -> Result<SctpFlow, SimError> {
    let o: WindowOverrides = parse_overrides(spec).map_err(|e| bad(index, "overrides", e))?;
    for (k, set) in [
        ("sack", o.sack.is_some()),
        ("timestamps", o.timestamps.is_some()),
        ("linux_rto", o.linux_rto.is_some()),
        ("hystart", o.hystart.is_some()),
        (
            "rto_keeps_recovery_ssthresh",
            o.rto_keeps_recovery_ssthresh.is_some(),
        ),
    ] {
        if set {
            return Err(bad(
                index,
                "overrides",
                (format!(".{k}"), "tcp flows only".into()),
            ));
        }
    }
    // `usrsctp` (default: RFC 9260 with WebRTC's RTO, paper 000's stack) or `dcsctp`
    // (Chromium's SCTP since M95).
    let dcsctp = spec.preset.as_deref() == Some("dcsctp");
    let mut cfg = if dcsctp {
        SctpSenderConfig::dcsctp()
    } else {
        SctpSenderConfig::default()
    };
    if let Some(m) = o.mtu {
        cfg.cc.mtu = DataSize::bytes(m.0 as u64);
        if dcsctp {
            cfg.cc.initial_cwnd =
                Some(cfg.cc.mtu * flowstate_core::window::sctp::DCSCTP_CWND_MTUS_INITIAL);
        }
    }
    if let Some(before_cap) = o.report_cwnd_before_cap {
        cfg.report_cwnd_before_cap = before_cap;
    }
    if let Some(reset) = o.reset_pba_on_set_cwnd {
        cfg.cc.reset_pba_on_set_cwnd = reset;
    }
    let msg = o
        .message_size
        .map_or(DataSize::bytes(1200), |b| DataSize::bytes(b.0 as u64));
    cfg.source = data_source(spec, SourceKind::paper_greedy(), msg, seed);
    Ok(EndpointPairFlow::new(
        Tracked::new(SctpSender::new(cfg)),
        SctpReceiver::new(SctpReceiverConfig::default()),
    ))
}

/// A TCP flow (long-lived greedy unless the scenario says otherwise).
pub fn tcp_flow(
    index: usize,
    spec: &FlowSpec,
    cubic: bool,
    seed: u64,
) -> Result<TcpFlow, SimError> {
    let o: WindowOverrides = parse_overrides(spec).map_err(|e| bad(index, "overrides", e))?;
    for (k, set) in [
        ("report_cwnd_before_cap", o.report_cwnd_before_cap.is_some()),
        ("reset_pba_on_set_cwnd", o.reset_pba_on_set_cwnd.is_some()),
    ] {
        if set {
            return Err(bad(
                index,
                "overrides",
                (format!(".{k}"), "sctp only".into()),
            ));
        }
    }
    let mut cfg = TcpSenderConfig::default();
    let smss = o.mtu.map(|m| DataSize::bytes(m.0 as u64));
    cfg.cc = if cubic {
        let mut c = CubicConfig::default();
        if let Some(s) = smss {
            c.smss = s;
        }
        if o.hystart.unwrap_or(false) {
            c.hystart = Some(HystartConfig::default());
        }
        TcpCcKind::Cubic(c)
    } else {
        if o.hystart.is_some() {
            return Err(bad(
                index,
                "overrides",
                (".hystart".into(), "tcp-cubic flows only".into()),
            ));
        }
        let mut c = NewRenoConfig::default();
        if let Some(s) = smss {
            c.smss = s;
        }
        TcpCcKind::NewReno(c)
    };
    // Linux-like loss recovery and RTT sampling (named options, docs/ALGORITHMS.md).
    let sack = o.sack.unwrap_or(false);
    match &mut cfg.cc {
        TcpCcKind::Cubic(c) => c.pipe_recovery = sack,
        TcpCcKind::NewReno(c) => c.pipe_recovery = sack,
    }
    if let Some(keep) = o.rto_keeps_recovery_ssthresh {
        match &mut cfg.cc {
            TcpCcKind::Cubic(c) => c.rto_keeps_recovery_ssthresh = keep,
            TcpCcKind::NewReno(c) => c.rto_keeps_recovery_ssthresh = keep,
        }
    }
    cfg.sack = sack;
    cfg.timestamps = o.timestamps.unwrap_or(false);
    if o.linux_rto.unwrap_or(false) {
        cfg.rto = RtoConfig::linux();
    }
    let msg = o
        .message_size
        .map_or(DataSize::bytes(1200), |b| DataSize::bytes(b.0 as u64));
    let greedy = cfg.source.clone();
    cfg.source = data_source(spec, greedy, msg, seed);
    Ok(EndpointPairFlow::new(
        Tracked::new(TcpSender::new(cfg)),
        TcpReceiver::new(TcpReceiverConfig {
            sack,
            ..TcpReceiverConfig::default()
        }),
    ))
}

/// A rate flow's `desired_rate_schedule` as `(at, rate)`.
fn app_rates(spec: &FlowSpec) -> Vec<(Timestamp, Bitrate)> {
    spec.desired_rate_schedule
        .iter()
        .map(|p| (secs(p.at.0), Bitrate::bps(p.rate.0)))
        .collect()
}

/// A greedy RAP flow (application-limited with `desired_rate`, or over time with
/// `desired_rate_schedule`).
pub fn rap_flow(index: usize, spec: &FlowSpec) -> Result<RapFlow, SimError> {
    let o: RateOverrides = parse_overrides(spec).map_err(|e| bad(index, "overrides", e))?;
    let mut cfg = RapConfig::default();
    if let Some(p) = o.packet_size {
        cfg.packet_size = DataSize::bytes(p.0 as u64);
    }
    if let Some(r) = o.max_rate {
        cfg.max_rate = Bitrate::bps(r.0);
    }
    if let Some(r) = o.initial_rate {
        cfg.initial_rate = Bitrate::bps(r.0);
    }
    let mut s = RapSender::new(cfg);
    s.set_desired_rate(spec.desired_rate.map(|r| Bitrate::bps(r.0)));
    Ok(EndpointPairFlow::new(
        Tracked::new(s).with_app_rates(app_rates(spec)),
        RapReceiver::new(RapReceiverConfig::default()),
    ))
}

/// A greedy TFRC flow (application-limited with `desired_rate`).
pub fn tfrc_flow(index: usize, spec: &FlowSpec) -> Result<TfrcFlow, SimError> {
    let o: RateOverrides = parse_overrides(spec).map_err(|e| bad(index, "overrides", e))?;
    if o.initial_rate.is_some() {
        return Err(SimError::NotWired(format!(
            "flows[{index}].overrides.initial_rate: TFRC starts from its initial window (RFC 5348 4.2)"
        )));
    }
    let mut cfg = TfrcConfig::default();
    if let Some(p) = o.packet_size {
        cfg.segment_size = DataSize::bytes(p.0 as u64);
    }
    if let Some(r) = o.max_rate {
        cfg.max_rate = Bitrate::bps(r.0);
    }
    let mut s = TfrcSender::new(cfg);
    s.set_desired_rate(spec.desired_rate.map(|r| Bitrate::bps(r.0)));
    Ok(EndpointPairFlow::new(
        Tracked::new(s).with_app_rates(app_rates(spec)),
        TfrcReceiver::new(TfrcReceiverEndpointConfig::default()),
    ))
}

/// Builds every scenario flow kind from the flowstate-core endpoints. Seeds (video
/// noise, short-flow sizes) come from the flow's own random stream.
#[derive(Debug, Clone, Copy, Default)]
pub struct DefaultFlowFactory;

impl FlowFactory for DefaultFlowFactory {
    fn build(
        &self,
        ctx: &FlowContext,
        index: usize,
        spec: &FlowSpec,
        mut rng: ChaCha8Rng,
    ) -> Result<Box<dyn SimFlow>, SimError> {
        let seed: u64 = rng.random();
        Ok(match spec.kind.as_str() {
            "cbr" => {
                let o = cbr_overrides(spec).map_err(|e| bad(index, "overrides", e))?;
                let config = CbrConfig {
                    rate: Bitrate::bps(o.rate.0),
                    packet_size: o.packet_size.map_or(CbrConfig::default().packet_size, |b| {
                        DataSize::bytes(b.0 as u64)
                    }),
                };
                Box::new(cbr_flow(config))
            }
            "gcc" => Box::new(gcc_flow(ctx, index, spec, seed)?),
            "sctp" => Box::new(sctp_flow(index, spec, seed)?),
            "tcp-newreno" => Box::new(tcp_flow(index, spec, false, seed)?),
            "tcp-cubic" => Box::new(tcp_flow(index, spec, true, seed)?),
            "rap" => Box::new(rap_flow(index, spec)?),
            "tfrc" => Box::new(tfrc_flow(index, spec)?),
            other => {
                return Err(SimError::NotWired(format!(
                    "flow kind '{other}' is not wired into the simulator"
                )))
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gcc_overrides_map_onto_the_config() {
        let o = GccOverrides {
            kalman_q: Some(0.01),
            k_up: Some(0.02),
            k_down: Some(0.0005),
            ..GccOverrides::default()
        };
        let c = gcc_config(GccPreset::Paper, &o).expect("valid");
        match &c.delay.filter {
            DelayFilterConfig::Kalman(k) => assert_eq!(k.q, 0.01),
            DelayFilterConfig::Trendline(_) => panic!("paper uses the Kalman filter"),
        }
        match &c.delay.threshold {
            ThresholdConfig::Adaptive(a) => {
                assert_eq!((a.k_up, a.k_down), (0.02, 0.0005));
                assert_eq!(a.max_adapt_offset, 15.0);
            }
            ThresholdConfig::Static(_) => panic!("paper is adaptive"),
        }
        let o = GccOverrides {
            threshold_ignores_spikes: Some(false),
            ..GccOverrides::default()
        };
        match &gcc_config(GccPreset::Paper, &o)
            .expect("valid")
            .delay
            .threshold
        {
            ThresholdConfig::Adaptive(a) => assert_eq!(a.max_adapt_offset, f64::INFINITY),
            ThresholdConfig::Static(_) => panic!("paper is adaptive"),
        }
        let o = GccOverrides {
            threshold: Some(ThresholdMode::Static),
            gamma_bar_ms: Some(40.0 / 60.0),
            threshold_halving: Some(false),
            ..GccOverrides::default()
        };
        let c = gcc_config(GccPreset::Paper, &o).expect("valid");
        match &c.delay.threshold {
            ThresholdConfig::Static(s) => {
                assert!((s.gamma_bar_ms - 40.0 / 60.0).abs() < 1e-12);
                assert!(!s.halving);
            }
            ThresholdConfig::Adaptive(_) => panic!("switched to static"),
        }
        let o = GccOverrides {
            threshold: Some(ThresholdMode::Adaptive),
            ..GccOverrides::default()
        };
        let c = gcc_config(GccPreset::PaperStatic, &o).expect("valid");
        assert_eq!(
            c.delay.threshold,
            ThresholdConfig::Adaptive(AdaptiveThresholdConfig::paper())
        );
        // Without threshold overrides the preset is unchanged.
        let c = gcc_config(GccPreset::PaperStatic, &GccOverrides::default()).expect("valid");
        assert_eq!(c, GccPreset::PaperStatic.config());
    }

    #[test]
    fn increase_and_loss_controller_overrides_map_onto_the_config() {
        assert!(
            GccPreset::Paper
                .config()
                .delay
                .aimd
                .additive_near_convergence
        );
        let o = GccOverrides {
            additive_increase: Some(false),
            ..GccOverrides::default()
        };
        let c = gcc_config(GccPreset::Paper, &o).expect("valid");
        assert!(!c.delay.aimd.additive_near_convergence);
        // The loss controller is swapped; the preset's (or overridden) rates stay.
        let o = GccOverrides {
            loss_controller: Some(LossControllerMode::Chromium),
            start_rate: Some(crate::units_parse::Bps(500_000.0)),
            ..GccOverrides::default()
        };
        let c = gcc_config(GccPreset::Paper, &o).expect("valid");
        let mut want = LossConfig::chromium();
        want.start_rate = Bitrate::kbps(500.0);
        want.min_rate = GccPreset::Paper.config().loss.min_rate;
        want.max_rate = GccPreset::Paper.config().loss.max_rate;
        assert_eq!(c.loss, want);
        let o = GccOverrides {
            loss_controller: Some(LossControllerMode::Paper),
            ..GccOverrides::default()
        };
        let c = gcc_config(GccPreset::Chromium, &o).expect("valid");
        assert_eq!(c.loss.variant, LossConfig::paper002().variant);
        assert_eq!(c.loss.increase_factor, 1.05);
        let c = gcc_config(GccPreset::PaperStatic, &o).expect("valid");
        assert_eq!(c.loss, GccPreset::PaperStatic.config().loss);
    }
}
