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
//! | `nada` | [`NadaSender`] / [`CcfbReceiver`] | RFC 8698 defaults, statistics codec, RFC 8888 feedback every DELTA |
//! | `scream` | [`ScreamSender`] / [`CcfbReceiver`] | RFC 8298 defaults, statistics codec, RFC 8888 feedback every 20 ms |
//! | `ledbat` | [`LedbatSender`] / [`LedbatReceiver`] | RFC 6817 defaults, long-lived greedy |
//!
//! Every sender is wrapped in [`Tracked`], which turns the sender's newest RTT sample
//! into metrics samples (a sample is reported when the newest value changes, so two
//! consecutive equal samples count once; senders that count their samples, `ledbat`,
//! report every one) and forwards the coupling calls.

use crate::app_stats::{AppControl, AppStats};
use crate::cbr::{cbr_flow, CbrConfig};
use crate::error::{FieldError, SimError};
use crate::flow::{EndpointPairFlow, ReceiverHooks, SenderHooks, SimFlow};
use crate::flow_kind::FlowKind;
use crate::gcc_config::gcc_config;
use crate::overrides::{
    self, CbrOverrides, GccOverrides, LedbatOverrides, NadaOverrides, RateOverrides,
    ScreamOverrides, WindowOverrides, DEFAULT_MESSAGE_SIZE,
};
use crate::presets::{self, SctpPreset};
use crate::scenario::{AppSource, FlowSpec};
use flowstate_core::coupling::{Allowance, FlowReport, Mechanism};
use flowstate_core::endpoint::data_source::SourceKind;
use flowstate_core::endpoint::ledbat::{self as ledbat_ep, LedbatReceiver, LedbatSender};
use flowstate_core::endpoint::media::{
    MediaReceiver, MediaReceiverConfig, MediaSender, MediaSenderConfig, RateReportMode,
};
use flowstate_core::endpoint::nada::{NadaSender, NadaSenderConfig};
use flowstate_core::endpoint::rap::{RapReceiver, RapReceiverConfig, RapSender};
use flowstate_core::endpoint::rfc8888::{CcfbReceiver, CcfbReceiverConfig};
use flowstate_core::endpoint::scream::{ScreamSender, ScreamSenderConfig};
use flowstate_core::endpoint::sctp::{SctpReceiver, SctpReceiverConfig, SctpSender};
use flowstate_core::endpoint::tcp::{
    TcpCcKind, TcpReceiver, TcpReceiverConfig, TcpSender, TcpSenderConfig,
};
use flowstate_core::endpoint::tfrc::{TfrcReceiver, TfrcReceiverEndpointConfig, TfrcSender};
use flowstate_core::endpoint::{Endpoint, Transmit};
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
    /// See [`SenderHooks::INPUT_DRIVEN`].
    const INPUT_DRIVEN: bool = false;
    fn cc_report(&mut self) -> Option<FlowReport>;
    fn allowance(&mut self, now: Timestamp, a: Allowance);
    /// The newest RTT sample (or estimate), if any.
    fn latest_rtt(&self) -> Option<TimeDelta>;
    /// How many RTT samples the sender took, if it counts them: then every new sample is
    /// reported, also one equal to the previous (a LEDBAT flow holding its queue at
    /// TARGET sees the same RTT to the microsecond on every ack). Default `None`: a
    /// sample is reported when the value changes.
    fn rtt_samples(&self) -> Option<u64> {
        None
    }
    /// The controller's current value as a report.
    fn snapshot(&self) -> Option<FlowReport>;
    fn n_dd(&self) -> Option<u64> {
        None
    }
    /// The application's rate limit changed (`desired_rate_schedule`); default: ignored.
    fn set_app_rate(&mut self, _rate: Option<Bitrate>) {}
    /// What getStats would show (Web-API coupling); default: nothing.
    fn web_stats(&self) -> Option<AppStats> {
        None
    }
    /// The web application's decision; default: ignored.
    fn web_control(&mut self, _now: Timestamp, _control: AppControl) {}
}

/// A flowstate-core sender with the simulator hooks.
#[derive(Debug)]
pub struct Tracked<S> {
    inner: S,
    last_rtt: Option<TimeDelta>,
    /// The sender's sample count at the last report ([`CoreSender::rtt_samples`]).
    last_rtt_count: u64,
    /// `(at, rate)` application rate changes not yet applied (sorted).
    app_rates: Vec<(Timestamp, Bitrate)>,
    next_app_rate: usize,
}

impl<S> Tracked<S> {
    pub fn new(inner: S) -> Self {
        Self {
            inner,
            last_rtt: None,
            last_rtt_count: 0,
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
    pub fn inner_mut(&mut self) -> &mut S {
        &mut self.inner
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
    /// The wrapper's own input, a scheduled application rate, is a deadline in its
    /// `poll_timeout`.
    const INPUT_DRIVEN: bool = S::INPUT_DRIVEN;
    fn poll_cc_report(&mut self) -> Option<FlowReport> {
        self.inner.cc_report()
    }
    fn apply_allowance(&mut self, now: Timestamp, allowance: Allowance) {
        self.inner.allowance(now, allowance);
    }
    fn poll_rtt_sample(&mut self) -> Option<TimeDelta> {
        let r = self.inner.latest_rtt();
        if let Some(n) = self.inner.rtt_samples() {
            if n != self.last_rtt_count && r.is_some() {
                self.last_rtt_count = n;
                self.last_rtt = r;
                return r;
            }
            return None;
        }
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
    fn app_stats(&self) -> Option<AppStats> {
        self.inner.web_stats()
    }
    fn apply_app_control(&mut self, now: Timestamp, control: AppControl) {
        self.inner.web_control(now, control);
    }
}

/// Not [`CoreSender::INPUT_DRIVEN`]: the pacer sends what its budget allows whenever
/// it is polled, so the media sender is polled at every event of its flow, as before.
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
    fn web_stats(&self) -> Option<AppStats> {
        Some(crate::web_api::media_stats(self))
    }
    fn web_control(&mut self, now: Timestamp, control: AppControl) {
        crate::web_api::apply_media(self, now, control);
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
            /// A segment goes out on an ack, a timeout or new data from the source,
            /// whose next write is in `poll_timeout` (`DataSource::next_wakeup`).
            const INPUT_DRIVEN: bool = true;
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

window_core_sender!(TcpSender);

/// Not [`CoreSender::INPUT_DRIVEN`]: every new instant it is polled at refills its
/// max-burst allowance (RFC 4960 6.1 D), so how often it is polled is part of what it
/// sends; the catalogue's traces change if it is polled less.
impl CoreSender for SctpSender {
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
    fn web_stats(&self) -> Option<AppStats> {
        crate::web_api::data_stats(self)
    }
    fn web_control(&mut self, now: Timestamp, control: AppControl) {
        crate::web_api::apply_data(self, now, control);
    }
}

/// RAP and TFRC senders are driven alike (paced rate senders, coupled as rate flows);
/// only where their RTT comes from differs.
macro_rules! paced_rate_core_sender {
    ($sender:ty, $rtt:expr) => {
        impl CoreSender for $sender {
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
                $rtt(self)
            }
            fn snapshot(&self) -> Option<FlowReport> {
                Some(FlowReport::Rate {
                    rate: self.rate(),
                    rtt: $rtt(self),
                })
            }
        }
    };
}

paced_rate_core_sender!(RapSender, |s: &RapSender| s.controller().srtt_sample());
paced_rate_core_sender!(TfrcSender, |s: &TfrcSender| s.controller().rtt());

impl CoreSender for NadaSender {
    fn cc_report(&mut self) -> Option<FlowReport> {
        self.poll_cc_report()
    }
    fn allowance(&mut self, now: Timestamp, a: Allowance) {
        self.apply_allowance(now, a);
    }
    fn latest_rtt(&self) -> Option<TimeDelta> {
        self.rtt()
    }
    fn snapshot(&self) -> Option<FlowReport> {
        Some(NadaSender::snapshot(self))
    }
}

impl CoreSender for ScreamSender {
    fn cc_report(&mut self) -> Option<FlowReport> {
        self.poll_cc_report()
    }
    fn allowance(&mut self, now: Timestamp, a: Allowance) {
        self.apply_allowance(now, a);
    }
    fn latest_rtt(&self) -> Option<TimeDelta> {
        self.scream().srtt()
    }
    fn snapshot(&self) -> Option<FlowReport> {
        Some(ScreamSender::snapshot(self))
    }
}

impl CoreSender for LedbatSender {
    /// The TCP sender underneath.
    const INPUT_DRIVEN: bool = true;
    fn cc_report(&mut self) -> Option<FlowReport> {
        self.tcp_mut().poll_cc_report()
    }
    fn allowance(&mut self, now: Timestamp, a: Allowance) {
        self.tcp_mut().apply_allowance(now, a);
    }
    fn latest_rtt(&self) -> Option<TimeDelta> {
        self.tcp().rtt_estimator().latest()
    }
    fn rtt_samples(&self) -> Option<u64> {
        Some(self.tcp().rtt_estimator().samples())
    }
    fn snapshot(&self) -> Option<FlowReport> {
        Some(window_snapshot(
            self.tcp().congestion_control(),
            self.tcp().rtt_estimator().latest(),
        ))
    }
}

impl ReceiverHooks for CcfbReceiver {}
impl ReceiverHooks for LedbatReceiver {
    /// The TCP receiver's acks, with the delays measured since the last one.
    const INPUT_DRIVEN: bool = true;
    fn goodput_bytes(&self) -> Option<u64> {
        Some(self.bytes_delivered().as_bytes())
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
    /// An ack goes out on a segment or at the delayed-ack deadline.
    const INPUT_DRIVEN: bool = true;
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
/// A NADA media flow (RFC 8888 feedback).
pub type NadaFlow = EndpointPairFlow<Tracked<NadaSender>, CcfbReceiver>;
/// A SCReAM media flow (RFC 8888 feedback).
pub type ScreamFlow = EndpointPairFlow<Tracked<ScreamSender>, CcfbReceiver>;
/// A LEDBAT bulk transfer.
pub type LedbatFlow = EndpointPairFlow<Tracked<LedbatSender>, LedbatReceiver>;

fn secs(s: f64) -> Timestamp {
    Timestamp::from_micros((s.max(0.0) * 1e6).round() as u64)
}

/// A flow's `overrides` as `T`, or the error under `flows[{index}].overrides`.
fn parse_overrides<T: serde::de::DeserializeOwned>(
    index: usize,
    spec: &FlowSpec,
) -> Result<T, SimError> {
    overrides::parse(&spec.overrides).map_err(|e| bad_override(index, e))
}

/// An error in a flow's `overrides` (sub-path `.key`) as a build error.
fn bad_override(index: usize, e: FieldError) -> SimError {
    SimError::Build(e.under(&format!("flows[{index}].overrides")))
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
) -> Result<GccFlow, SimError> {
    let preset = crate::gcc_config::preset(spec.preset.as_deref())
        .map_err(|e| SimError::Build(e.under(&format!("flows[{index}]."))))?;
    let o: GccOverrides = parse_overrides(index, spec)?;
    let mut gcc = gcc_config(preset, &o).map_err(|e| bad_override(index, e))?;
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
    cfg.ssrc = index as u32 + 1;
    cfg.seed = seed;
    if let Some(b) = o.pacer_burst_ms {
        if !(b.is_finite() && (0.1..=1000.0).contains(&b)) {
            return Err(bad_override(
                index,
                FieldError::new(
                    ".pacer_burst_ms",
                    format!("must be between 0.1 and 1000 ms, got {b}"),
                ),
            ));
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
        let field = |m: String| bad_override(index, FieldError::new(".fec_delay_ms", m));
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
            return Err(bad_override(
                index,
                FieldError::new(
                    ".loss_v2_padding",
                    "needs loss_v2_m150 = true (M125's loss-based BWE v2 never increases with padding)",
                ),
            ));
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
        return Err(bad_override(
            index,
            FieldError::new(
                ".vp8_frame_drop",
                "cannot be combined with low_rate_fps (both set the frame rate at low rates)",
            ),
        ));
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
    cfg.report_mode = Mechanism::info_by_name(&ctx.mechanism)
        .map_or(RateReportMode::Target, |info| info.rate_report);
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
    match (spec.source, spec.desired_rate) {
        (Some(AppSource::OnOff), _) => SourceKind::paper_on_off(start),
        (Some(AppSource::ShortFlows), _) => match SourceKind::rfc8867_short_flows(seed) {
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

/// The overrides of an `sctp` / `tcp-*` flow, with no key of another kind.
fn window_overrides(index: usize, spec: &FlowSpec) -> Result<WindowOverrides, SimError> {
    let o: WindowOverrides = parse_overrides(index, spec)?;
    overrides::check_kind(spec.kind, &o.set_keys()).map_err(|e| bad_override(index, e))?;
    Ok(o)
}

/// An SCTP flow (paper 000's greedy data channel unless the scenario says otherwise).
pub fn sctp_flow(index: usize, spec: &FlowSpec, seed: u64) -> Result<SctpFlow, SimError> {
    let o = window_overrides(index, spec)?;
    // `usrsctp` (default: RFC 9260 with WebRTC's RTO, paper 000's stack) or `dcsctp`
    // (Chromium's SCTP since M95).
    let preset = presets::sctp(spec.preset.as_deref())
        .map_err(|e| SimError::Build(e.under(&format!("flows[{index}]."))))?;
    let dcsctp = preset == SctpPreset::Dcsctp;
    let mut cfg = preset.config();
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
    if let Some(renack) = o.renack_retransmissions {
        cfg.renack_retransmissions = renack;
    }
    if let Some(on) = o.immediate_sack_bit {
        cfg.immediate_sack_under_cwnd_mtus = if on {
            flowstate_core::endpoint::sctp::DCSCTP_IMMEDIATE_SACK_UNDER_CWND_MTUS
        } else {
            0
        };
    }
    if let Some(sized) = o.cwnd_sized_packets {
        cfg.cwnd_sized_packets = sized;
    }
    if let Some(reset) = o.reset_pba_on_set_cwnd {
        cfg.cc.reset_pba_on_set_cwnd = reset;
    }
    let msg = o
        .message_size
        .map_or(DEFAULT_MESSAGE_SIZE, |b| DataSize::bytes(b.0 as u64));
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
    let o = window_overrides(index, spec)?;
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
        TcpCcKind::Ledbat(_) => {}
    }
    if let Some(keep) = o.rto_keeps_recovery_ssthresh {
        match &mut cfg.cc {
            TcpCcKind::Cubic(c) => c.rto_keeps_recovery_ssthresh = keep,
            TcpCcKind::NewReno(c) => c.rto_keeps_recovery_ssthresh = keep,
            TcpCcKind::Ledbat(_) => {}
        }
    }
    cfg.sack = sack;
    cfg.timestamps = o.timestamps.unwrap_or(false);
    if o.linux_rto.unwrap_or(false) {
        cfg.rto = RtoConfig::linux();
    }
    let msg = o
        .message_size
        .map_or(DEFAULT_MESSAGE_SIZE, |b| DataSize::bytes(b.0 as u64));
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
    let o: RateOverrides = parse_overrides(index, spec)?;
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
    let o: RateOverrides = parse_overrides(index, spec)?;
    if o.initial_rate.is_some() {
        return Err(SimError::Build(FieldError::new(
            format!("flows[{index}].overrides.initial_rate"),
            overrides::TFRC_INITIAL_RATE,
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

/// The video source of a `nada` / `scream` flow: the statistics codec (or a perfect
/// codec) between 50 kbit/s (paper 000's minimum) and the controller's maximum rate, at
/// `fps`.
fn rmcat_source(perfect: bool, max_rate: Bitrate, fps: f64) -> VideoSourceConfig {
    let bounds = EncoderBounds {
        max_rate,
        fps,
        ..EncoderBounds::paper000()
    };
    if perfect {
        VideoSourceConfig::Perfect(bounds)
    } else {
        VideoSourceConfig::Statistics(StatisticsCodecConfig {
            bounds,
            ..StatisticsCodecConfig::default()
        })
    }
}

/// The RFC 8888 receiver of a `nada` / `scream` flow.
fn ccfb_receiver(index: usize, interval: TimeDelta) -> CcfbReceiver {
    CcfbReceiver::new(CcfbReceiverConfig {
        ssrc: index as u32 + 1,
        interval,
        rtp_overhead: flowstate_core::endpoint::media::WireSizes::default().rtp_overhead,
    })
}

/// A NADA media flow (RFC 8698 with RFC 8888 feedback every DELTA).
pub fn nada_flow(index: usize, spec: &FlowSpec, seed: u64) -> Result<NadaFlow, SimError> {
    let o: NadaOverrides = parse_overrides(index, spec)?;
    let (nada, interval) =
        crate::rmcat_config::nada_config(&o).map_err(|e| bad_override(index, e))?;
    let source = rmcat_source(o.perfect_codec.unwrap_or(false), nada.max_rate, nada.fps);
    let mut cfg = NadaSenderConfig::new(nada, source);
    cfg.ssrc = index as u32 + 1;
    cfg.seed = seed;
    let start = secs(spec.start_secs());
    let mut sender = NadaSender::new(cfg, start);
    if let Some(d) = spec.desired_rate {
        sender.set_desired_rate(start, Some(Bitrate::bps(d.0)));
    }
    Ok(EndpointPairFlow::new(
        Tracked::new(sender),
        ccfb_receiver(index, interval),
    ))
}

/// A SCReAM media flow (RFC 8298 v1 with RFC 8888 feedback).
pub fn scream_flow(index: usize, spec: &FlowSpec, seed: u64) -> Result<ScreamFlow, SimError> {
    let o: ScreamOverrides = parse_overrides(index, spec)?;
    let (scream, interval, fps) =
        crate::rmcat_config::scream_config(&o).map_err(|e| bad_override(index, e))?;
    let source = rmcat_source(o.perfect_codec.unwrap_or(false), scream.max_rate, fps);
    let mut cfg = ScreamSenderConfig::new(scream, source);
    cfg.ssrc = index as u32 + 1;
    cfg.seed = seed;
    let start = secs(spec.start_secs());
    let mut sender = ScreamSender::new(cfg, start);
    if let Some(d) = spec.desired_rate {
        sender.set_desired_rate(start, Some(Bitrate::bps(d.0)));
    }
    Ok(EndpointPairFlow::new(
        Tracked::new(sender),
        ccfb_receiver(index, interval),
    ))
}

/// A LEDBAT bulk transfer (long-lived greedy unless the scenario says otherwise).
pub fn ledbat_flow(index: usize, spec: &FlowSpec, seed: u64) -> Result<LedbatFlow, SimError> {
    let o: LedbatOverrides = parse_overrides(index, spec)?;
    let ledbat = crate::rmcat_config::ledbat_config(&o).map_err(|e| bad_override(index, e))?;
    let mut cfg = ledbat_ep::sender_config(ledbat);
    let msg = o
        .message_size
        .map_or(DEFAULT_MESSAGE_SIZE, |b| DataSize::bytes(b.0 as u64));
    let greedy = cfg.source.clone();
    cfg.source = data_source(spec, greedy, msg, seed);
    Ok(EndpointPairFlow::new(
        Tracked::new(LedbatSender::new(cfg)),
        LedbatReceiver::new(ledbat_ep::receiver_config()),
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
        Ok(match spec.kind {
            FlowKind::Cbr => {
                let o: CbrOverrides = parse_overrides(index, spec)?;
                let config = CbrConfig {
                    rate: Bitrate::bps(o.rate.0),
                    packet_size: o.packet_size.map_or(CbrConfig::default().packet_size, |b| {
                        DataSize::bytes(b.0 as u64)
                    }),
                };
                Box::new(cbr_flow(config))
            }
            FlowKind::Gcc => Box::new(gcc_flow(ctx, index, spec, seed)?),
            FlowKind::Sctp => {
                let mut flow = sctp_flow(index, spec, seed)?;
                if ctx.mechanism == crate::web_api::MECHANISM && spec.group().is_some() {
                    crate::web_api::pace_application(flow.sender_mut().inner_mut());
                }
                Box::new(flow)
            }
            FlowKind::TcpNewReno => Box::new(tcp_flow(index, spec, false, seed)?),
            FlowKind::TcpCubic => Box::new(tcp_flow(index, spec, true, seed)?),
            FlowKind::Rap => Box::new(rap_flow(index, spec)?),
            FlowKind::Tfrc => Box::new(tfrc_flow(index, spec)?),
            FlowKind::Nada => Box::new(nada_flow(index, spec, seed)?),
            FlowKind::Scream => Box::new(scream_flow(index, spec, seed)?),
            FlowKind::Ledbat => Box::new(ledbat_flow(index, spec, seed)?),
        })
    }
}
