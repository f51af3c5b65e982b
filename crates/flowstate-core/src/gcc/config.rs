//! GCC configuration and the named presets: `paper` (from paper 002), `paper-static`
//! (from paper 001) and `chromium` (libwebrtc M100, branch-heads/4896; the file behind
//! each component is listed in docs/ALGORITHMS.md, "libwebrtc sources").

use super::aimd::AimdConfig;
use super::alr_detector::AlrDetectorConfig;
use super::bitrate_prober::BitrateProberConfig;
use super::chromium_pacing::ChromiumPacingConfig;
use super::congestion_window::CongestionWindowConfig;
use super::delay_based::DelayBasedConfig;
use super::loss_based::LossConfig;
use super::loss_based_v2::LossBasedBweV2Config;
use super::media_debt::MediaDebtConfig;
use super::probe_controller::ProbeControllerConfig;
use super::remb::RembConfig;
use super::robust_throughput::RobustThroughputConfig;
use super::threshold::AdaptiveThresholdConfig;
use crate::units::{Bitrate, TimeDelta};
use std::fmt;

/// Where the delay-based estimator runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EstimationSide {
    /// Receiver-side estimation, A_r fed back in REMB messages (papers 001, 002).
    Receiver,
    /// Send-side estimation on transport-wide per-packet feedback (Chromium).
    Sender,
}

/// The published variants.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GccPreset {
    /// Paper 002: receiver side, REMB, Kalman filter, adaptive threshold (0.01, 0.00018),
    /// overuse after 100 ms, pacing factor 1.5, loss-based eq. 5.
    Paper,
    /// Paper 001: as `Paper` with the static threshold 25/60 ms and halving, loss-based
    /// eq. 1 with the TFRC floor.
    PaperStatic,
    /// Chromium ~M100: send side, transport-wide feedback every 100 ms, trendline,
    /// adaptive threshold (0.0087, 0.039), overuse after 10 ms, pacing factor 1.1,
    /// classic loss-based controller.
    Chromium,
    /// Chromium 156 (libwebrtc M125 and M150 sources, the nearest available):
    /// `Chromium` plus probing (initial 3x / 6x, further 2x, ALR and drop-recovery
    /// probes), the ALR detector, loss-based BWE v2 (M150's defaults), Chromium's pacing
    /// (a video stream's 1.1 x target, queue drained within 2 s), the robust throughput
    /// estimator, the congestion-window pushback, and today's send chain (FEC controller
    /// and ULPFEC, encoder bitrate adjuster, feedback cadence; the sender's media debt,
    /// whole-ms send times, ULPFEC delay and padding: [`SendChainConfig`]); see
    /// [`M156Config`].
    ChromiumM156,
}

impl GccPreset {
    /// Every preset, in the order they are listed. Adding a preset: one variant, its
    /// entry here, its name and description in [`GccPreset::info`], its configuration in
    /// [`GccPreset::config`] and its answers in the three exhaustive rules below
    /// (`target_includes_overhead`, `adaptive_threshold`, `paper_loss`); the simulator,
    /// its override defaults and the bindings read them from here.
    pub const ALL: [GccPreset; 4] = [
        GccPreset::Paper,
        GccPreset::PaperStatic,
        GccPreset::Chromium,
        GccPreset::ChromiumM156,
    ];

    /// `(name, description)`: the name scenario files use, and one line saying what the
    /// preset is.
    const fn info(self) -> (&'static str, &'static str) {
        match self {
            Self::Paper => (
                "paper",
                "paper 002: receiver-side estimation with REMB, Kalman filter, adaptive threshold (0.01, 0.00018), over-use after 100 ms, pacing factor 1.5, loss-based eq. 5",
            ),
            Self::PaperStatic => (
                "paper-static",
                "paper 001: as paper with the static threshold 25/60 ms and halving, loss-based eq. 1 with the TFRC floor",
            ),
            Self::Chromium => (
                "chromium",
                "Chromium ~M100: send-side estimation on transport-wide feedback every 100 ms, trendline filter, adaptive threshold (0.0087, 0.039), over-use after 10 ms, pacing factor 1.1, classic loss-based controller",
            ),
            Self::ChromiumM156 => (
                "chromium-m156",
                "Chromium 156 (libwebrtc M125 and M150 sources, the nearest available): chromium plus probing (initial 3x / 6x, further 2x, ALR and drop-recovery probes), the ALR detector, loss-based BWE v2 with M150's defaults and its padding, Chromium's pacing (a video stream's 1.1 x target with the 40 ms media debt, queue drained within 2 s), the robust throughput estimator (the throughput AIMD decreases to), the congestion-window pushback (frame dropping), the FEC controller with ULPFEC (5.4 ms behind its frame, measured), the encoder bitrate adjuster, whole-ms send times and the 62.5 ms feedback cadence",
            ),
        }
    }

    /// A preset by name, under the one name rule ([`crate::names`]: any case, `_` or
    /// `-`), e.g. `"paper-static"`.
    pub fn from_name(name: &str) -> Option<Self> {
        crate::names::find_by_name(Self::ALL, Self::name, name)
    }
    /// The name scenario files use.
    pub const fn name(self) -> &'static str {
        self.info().0
    }
    /// One line saying what the preset is.
    pub const fn description(self) -> &'static str {
        self.info().1
    }
    /// Every preset's name joined with `|` (`paper|paper-static|chromium`), for messages.
    pub fn names() -> String {
        Self::ALL.map(Self::name).join("|")
    }
    /// Whether the preset's target counts the RTP/UDP/IP overhead (the media sender's
    /// `target_includes_overhead` default). Chromium ~M100 does
    /// (WebRTC-SendSideBwe-WithOverhead, on by default), and so does Chromium 156; the
    /// paper presets (Chromium of 2014-2016) did not.
    pub const fn target_includes_overhead(self) -> bool {
        match self {
            Self::Chromium | Self::ChromiumM156 => true,
            Self::Paper | Self::PaperStatic => false,
        }
    }
    /// The adaptive threshold the preset runs when switched to one (a static preset's
    /// `threshold = "adaptive"`): paper 002's gains for the paper presets, Chromium's for
    /// the Chromium ones.
    pub fn adaptive_threshold(self) -> AdaptiveThresholdConfig {
        match self {
            Self::Chromium | Self::ChromiumM156 => AdaptiveThresholdConfig::chromium(),
            Self::Paper | Self::PaperStatic => AdaptiveThresholdConfig::paper(),
        }
    }
    /// The paper loss-based controller the preset runs when switched to it: paper 001's
    /// eq. 1 for paper-static, paper 002's eq. 5 otherwise.
    pub fn paper_loss(self) -> LossConfig {
        match self {
            Self::PaperStatic => LossConfig::paper001(),
            Self::Paper | Self::Chromium | Self::ChromiumM156 => LossConfig::paper002(),
        }
    }
    pub fn config(self) -> GccConfig {
        match self {
            Self::Paper => GccConfig {
                side: EstimationSide::Receiver,
                delay: DelayBasedConfig::paper(),
                loss: LossConfig::paper002(),
                pacing_factor: 1.5,
                ..GccConfig::chromium()
            },
            Self::PaperStatic => GccConfig {
                side: EstimationSide::Receiver,
                delay: DelayBasedConfig::paper_static(),
                loss: LossConfig::paper001(),
                pacing_factor: 1.5,
                ..GccConfig::chromium()
            },
            Self::Chromium => GccConfig::chromium(),
            // Today's Chromium with its send chain: besides the M156 components, the
            // encoder-side protection (`chromium_fec`), the encoder bitrate adjuster
            // (`chromium_adjuster`) and Chromium's transport-feedback cadence
            // (`chromium_feedback_cadence`) and libwebrtc's randomized receiver-report
            // interval (`rtcp_report_random`), each an override that switches it off
            // (docs/ALGORITHMS.md "Today's Chromium's send chain").
            Self::ChromiumM156 => {
                let m156 = M156Config::default();
                GccConfig {
                    pacing_factor: m156.pacing.map_or(1.1, |p| p.pace_multiplier),
                    m156: Some(m156),
                    fec: Some(crate::fec::FecConfig::default()),
                    encoder_adjuster: Some(
                        crate::source::encoder_adjuster::EncoderAdjusterConfig::default(),
                    ),
                    feedback_cadence: Some(
                        super::feedback_cadence::FeedbackCadenceConfig::default(),
                    ),
                    randomized_report_interval: true,
                    ..GccConfig::chromium()
                }
            }
        }
    }
}

/// The components today's Chromium adds to the ~M100 GCC (`chromium-m156` preset);
/// each `None` switches one off (the ~M100 behaviour for that part).
#[derive(Debug, Clone, PartialEq)]
pub struct M156Config {
    /// Probe controller ([`super::probe_controller`]).
    pub probing: Option<ProbeControllerConfig>,
    /// The pacer's probe sender ([`super::bitrate_prober`]).
    pub prober: BitrateProberConfig,
    /// ALR detector ([`super::alr_detector`]).
    pub alr: Option<AlrDetectorConfig>,
    /// Chromium's pacing rate ([`super::chromium_pacing`]); `None`: `pacing_factor`.
    pub pacing: Option<ChromiumPacingConfig>,
    /// `kProbeDropThroughputFraction` (goog_cc_network_control.cc, 0.85): a probe
    /// result is raised to at least min(delay-based estimate, 0.85 x acknowledged rate)
    /// (`WebRTC-Bwe-LimitProbesLowerThanThroughputEstimate`, on unless disabled).
    /// The acknowledged rate is the delay-based estimator's incoming-rate window here.
    pub probe_drop_throughput_fraction: Option<f64>,
    /// Loss-based BWE v2 ([`super::loss_based_v2`]); `None`: the classic loss-based
    /// controller of the chromium preset.
    pub loss_v2: Option<LossBasedBweV2Config>,
    /// The acknowledged-throughput estimate ([`super::robust_throughput`],
    /// `RobustThroughputEstimator`, on by default in M125) that the AIMD decreases to and
    /// caps its increase by, and that the probe floor and loss-based BWE v2 take;
    /// `None`: the chromium preset's 500 ms receive-rate window at the feedback's
    /// arrival.
    pub throughput: Option<RobustThroughputConfig>,
    /// The congestion-window pushback ([`super::congestion_window`], on by default in
    /// M125: `WebRTC-CongestionWindow` `QueueSize:350,MinBitrate:30000,DropFrame:true`):
    /// frames are dropped while the bytes in flight exceed the data window; `None`: off.
    pub congestion_window: Option<CongestionWindowConfig>,
    /// The media sender's side of today's Chromium: its pacer, send times and padding.
    pub send_chain: SendChainConfig,
}

/// What today's Chromium's media sender does between the encoder and the socket
/// (`chromium-m156`; docs/ALGORITHMS.md "Today's Chromium's send chain"). The
/// [`crate::endpoint::MediaSenderConfig`] of a flow starts from it; each field is an
/// override of the scenario.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SendChainConfig {
    /// `PacingController`'s media debt with the 40 ms burst interval
    /// ([`super::media_debt`], WebRTC M150 `modules/pacing/pacing_controller.cc`;
    /// override `chromium_pacer`); `None`: the budget pacer of the paper-era presets.
    pub media_debt: Option<MediaDebtConfig>,
    /// Send times in whole milliseconds, as Chromium's socket layer stamps them (M150
    /// `AsyncUDPSocket::SendTo`, `TransportFeedbackAdapter::ProcessSentPacket`;
    /// override `send_time_ms`).
    pub whole_ms_send_times: bool,
    /// ULPFEC packets join the pacer's queue this long after the media packet that
    /// completed them: **measured** in Chromium 156 (p000-fig3: p25 5.1 ms, 5.4 ms the
    /// median of the 4-8 ms mode), no rule found in the sources (override
    /// `fec_delay_ms`; zero: at once, as `PacingController::ProcessPackets` reads).
    pub fec_delay: TimeDelta,
    /// The pacer pads while loss-based BWE v2 is `IncreaseUsingPadding` ([`super::padding`],
    /// M150 `GetPacingRates`, `PaddingToAdd`; override `loss_v2_padding`; needs
    /// loss-based BWE v2 with a padding duration, i.e. M150's defaults).
    pub padding: bool,
}

/// The ULPFEC delay measured in Chromium 156 (`SendChainConfig::fec_delay`): the median
/// of the first mode (4-8 ms, 42-50 % of the FEC packets) of the delay from a frame's
/// last media packet to its ULPFEC at the bottleneck in p000-fig3 (docs/REPRODUCTION.md,
/// "What sets GCC's target in p000-fig3").
pub const CHROMIUM156_FEC_DELAY: TimeDelta = TimeDelta::from_micros(5_400);

impl SendChainConfig {
    /// None of today's send chain (every paper-era preset).
    pub const NONE: SendChainConfig = SendChainConfig {
        media_debt: None,
        whole_ms_send_times: false,
        fec_delay: TimeDelta::ZERO,
        padding: false,
    };
}

impl Default for SendChainConfig {
    /// Chromium 156's send chain.
    fn default() -> Self {
        Self {
            media_debt: Some(MediaDebtConfig::default()),
            whole_ms_send_times: true,
            fec_delay: CHROMIUM156_FEC_DELAY,
            padding: true,
        }
    }
}

impl Default for M156Config {
    fn default() -> Self {
        Self {
            probing: Some(ProbeControllerConfig::default()),
            prober: BitrateProberConfig::default(),
            alr: Some(AlrDetectorConfig::default()),
            // A video stream's pacing factor: `kStrictPacingMultiplier` 1.1
            // (`video/video_send_stream_impl.cc`, M150), which
            // `GoogCcNetworkController::OnStreamsConfig` takes over
            // `kDefaultPaceMultiplier`'s 2.5.
            pacing: Some(ChromiumPacingConfig {
                pace_multiplier: super::chromium_pacing::VIDEO_PACE_MULTIPLIER,
                ..ChromiumPacingConfig::default()
            }),
            probe_drop_throughput_fraction: Some(0.85),
            // M150's defaults (libwebrtc 068e6ba696); M125's: override loss_v2_m150 = false.
            loss_v2: Some(LossBasedBweV2Config::m150()),
            throughput: Some(RobustThroughputConfig::default()),
            congestion_window: Some(CongestionWindowConfig::default()),
            send_chain: SendChainConfig::default(),
        }
    }
}

impl fmt::Display for GccPreset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Every GCC constant.
#[derive(Debug, Clone, PartialEq)]
pub struct GccConfig {
    pub side: EstimationSide,
    pub delay: DelayBasedConfig,
    pub loss: LossConfig,
    pub remb: RembConfig,
    /// Transport-wide feedback interval (Chromium preset: 100 ms), counted from the
    /// first packet after the previous report.
    pub feedback_interval: TimeDelta,
    /// Chromium's transport-feedback cadence ([`super::feedback_cadence`], option
    /// `chromium_feedback_cadence`): reports on a fixed schedule, libwebrtc's interval
    /// for the receiving peer's own target run on Chromium's 64 Hz metronome (62.5 ms);
    /// `None` (every preset): `feedback_interval` after the first packet.
    pub feedback_cadence: Option<super::feedback_cadence::FeedbackCadenceConfig>,
    /// RTCP receiver report interval (1 s).
    pub receiver_report_interval: TimeDelta,
    /// The receiver draws each report's gap as libwebrtc's `RTCPSender` does: the first
    /// half an interval after it starts, then uniformly in [1/2, 3/2] x the interval
    /// (`crate::endpoint::report_schedule`, option `rtcp_report_random`); `false`
    /// (the paper-era presets): a report every interval.
    pub randomized_report_interval: bool,
    /// The pacer sends at this factor times the target (paper 1.5, Chromium 1.1).
    pub pacing_factor: f64,
    /// RTT before the first sample (200 ms).
    pub default_rtt: TimeDelta,
    /// Observations kept until polled (oldest dropped beyond this).
    pub observation_capacity: usize,
    /// Today's Chromium's additional components (`None` for the paper-era presets).
    pub m156: Option<M156Config>,
    /// Chromium's encoder-side protection (`crate::fec`, option `chromium_fec`): the
    /// media sender cuts the encoder's rate by the protection overhead and sends ULPFEC
    /// packets; `None` (every preset): neither.
    pub fec: Option<crate::fec::FecConfig>,
    /// Chromium's encoder bitrate adjuster (`crate::source::encoder_adjuster`, option
    /// `chromium_adjuster`): the encoder's rate divided by its recent overshoot against
    /// the input frame rate; `None` (every preset): the rate as it is.
    pub encoder_adjuster: Option<crate::source::encoder_adjuster::EncoderAdjusterConfig>,
}

impl GccConfig {
    fn chromium() -> Self {
        Self {
            side: EstimationSide::Sender,
            delay: DelayBasedConfig::chromium(),
            loss: LossConfig::chromium(),
            remb: RembConfig::default(),
            feedback_interval: TimeDelta::millis(100),
            feedback_cadence: None,
            receiver_report_interval: TimeDelta::secs(1),
            randomized_report_interval: false,
            pacing_factor: 1.1,
            default_rtt: TimeDelta::millis(200),
            observation_capacity: 10_000,
            m156: None,
            fec: None,
            encoder_adjuster: None,
        }
    }

    /// The preset's configuration.
    pub fn preset(p: GccPreset) -> Self {
        p.config()
    }

    /// Set start, minimum and maximum rate of both the delay- and loss-based parts.
    pub fn with_rates(mut self, start: Bitrate, min: Bitrate, max: Bitrate) -> Self {
        let a: &mut AimdConfig = &mut self.delay.aimd;
        a.start_rate = start;
        a.min_rate = min;
        a.max_rate = max;
        self.loss.start_rate = start;
        self.loss.min_rate = min;
        self.loss.max_rate = max;
        self
    }
}

impl Default for GccConfig {
    fn default() -> Self {
        Self::chromium()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gcc::delay_based::DelayFilterConfig;
    use crate::gcc::threshold::ThresholdConfig;

    #[test]
    fn presets_by_name_with_their_constants() {
        assert_eq!(GccPreset::from_name("paper"), Some(GccPreset::Paper));
        assert_eq!(
            GccPreset::from_name("Paper_Static"),
            Some(GccPreset::PaperStatic)
        );
        assert_eq!(GccPreset::from_name("chromium"), Some(GccPreset::Chromium));
        assert_eq!(GccPreset::from_name("nada"), None);
        for p in GccPreset::ALL {
            assert_eq!(GccPreset::from_name(p.name()), Some(p));
        }
        let paper = GccPreset::Paper.config();
        assert_eq!(paper.side, EstimationSide::Receiver);
        assert_eq!(paper.pacing_factor, 1.5);
        assert!(matches!(paper.delay.filter, DelayFilterConfig::Kalman(_)));
        match &paper.delay.threshold {
            ThresholdConfig::Adaptive(a) => assert_eq!((a.k_up, a.k_down), (0.01, 0.00018)),
            ThresholdConfig::Static(_) => panic!("paper preset must be adaptive"),
        }
        assert_eq!(paper.delay.detector.overuse_time, TimeDelta::millis(100));
        let st = GccPreset::PaperStatic.config();
        match &st.delay.threshold {
            ThresholdConfig::Static(s) => assert!((s.gamma_bar_ms - 25.0 / 60.0).abs() < 1e-12),
            ThresholdConfig::Adaptive(_) => panic!("paper-static must be static"),
        }
        let c = GccPreset::Chromium.config();
        assert_eq!(c.side, EstimationSide::Sender);
        assert_eq!(c.pacing_factor, 1.1);
        assert_eq!(c.feedback_interval, TimeDelta::millis(100));
        assert!(matches!(c.delay.filter, DelayFilterConfig::Trendline(_)));
        match &c.delay.threshold {
            ThresholdConfig::Adaptive(a) => assert_eq!((a.k_up, a.k_down), (0.0087, 0.039)),
            ThresholdConfig::Static(_) => panic!("chromium must be adaptive"),
        }
        assert_eq!(c.delay.detector.overuse_time, TimeDelta::millis(10));
        assert_eq!(c.m156, None, "the paper-era presets have no M156 component");
        let m = GccPreset::ChromiumM156.config();
        assert_eq!(
            GccPreset::from_name("chromium_m156"),
            Some(GccPreset::ChromiumM156)
        );
        assert_eq!(
            m.pacing_factor, 1.1,
            "a video stream's kStrictPacingMultiplier"
        );
        assert_eq!(m.m156, Some(M156Config::default()));
        assert!(m.fec.is_some() && m.encoder_adjuster.is_some() && m.feedback_cadence.is_some());
        let chain = m.m156.as_ref().map(|m| m.send_chain);
        assert_eq!(chain, Some(SendChainConfig::default()));
        assert!(chain.is_some_and(|c| c.media_debt.is_some() && c.whole_ms_send_times && c.padding));
        assert_eq!(c.fec, None);
        assert_eq!(c.encoder_adjuster, None);
        assert_eq!(c.feedback_cadence, None);
        assert_eq!(
            m.delay, c.delay,
            "the delay-based part is the chromium preset's"
        );
    }
}
