//! How a media sender and a media receiver are configured.

use super::packet::WireSizes;
use crate::coupling::RateReportMode;
use crate::ecn::Ecn;
use crate::endpoint::nack::NackConfig;
use crate::gcc::config::SendChainConfig;
use crate::gcc::pacer::PacerConfig;
use crate::gcc::GccConfig;
use crate::playout::PlayoutConfig;
use crate::source::VideoSourceConfig;
use crate::units::TimeDelta;

/// Sender configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct MediaSenderConfig {
    pub ssrc: u32,
    pub gcc: GccConfig,
    pub source: VideoSourceConfig,
    /// Seed of the source's noise.
    pub seed: u64,
    pub pacer: PacerConfig,
    pub wire: WireSizes,
    pub report_mode: RateReportMode,
    /// Sent packets remembered for feedback matching (10 s).
    pub history: TimeDelta,
    /// Whether GCC's target counts the RTP/UDP/IP overhead, so that the encoder gets
    /// target minus the overhead rate ([`crate::endpoint::overhead::payload_rate`];
    /// Chromium ~M100 `RtpVideoSender::OnBitrateUpdated` with
    /// `WebRTC-SendSideBwe-WithOverhead`).
    /// Default false: the encoder gets the whole target and each packet adds
    /// `wire.rtp_overhead` on top, so the flow sends ~5 % above its target.
    pub target_includes_overhead: bool,
    /// Send times in whole milliseconds for the transport feedback, as Chromium's socket
    /// layer stamps them ([`crate::endpoint::send_path::sent_packet_time`]; option
    /// `send_time_ms`). Default false: exact.
    pub send_time_whole_ms: bool,
    /// `chromium_fec`: ULPFEC packets enter the pacer's queue this long after the media
    /// packet that completed them ([`crate::endpoint::send_path::HeldPackets`]; option
    /// `fec_delay_ms`, Chromium 156 measured ~5 ms). Default zero: at once.
    pub fec_delay: TimeDelta,
    /// Chromium's padding while loss-based BWE v2 is `IncreaseUsingPadding`
    /// ([`crate::gcc::padding`]; option `loss_v2_padding`). Default false: no padding
    /// outside probes.
    pub loss_v2_padding: bool,
    /// Chromium's retransmissions: NACKed media packets resent as RTX through the
    /// pacer, ahead of new video ([`crate::endpoint::rtx`]; option `nack_rtx`, with
    /// [`MediaReceiverConfig::nack`]). Default false: no retransmissions.
    pub nack_rtx: bool,
    /// The codepoint of the RTP packets. GCC does not answer CE marks (libwebrtc's
    /// goog_cc reads no ECN; docs/ALGORITHMS.md, "ECN responses"), so an ECN-capable
    /// GCC flow only lets a marking queue mark instead of drop. Default Not-ECT.
    pub ecn: Ecn,
}

impl MediaSenderConfig {
    /// A sender running `gcc`, with the send chain of its preset
    /// ([`crate::gcc::config::SendChainConfig`]: `chromium-m156`'s pacer, send times,
    /// ULPFEC delay and padding; none for the paper-era presets).
    pub fn new(gcc: GccConfig) -> Self {
        let chain = gcc
            .m156
            .as_ref()
            .map_or(SendChainConfig::NONE, |m| m.send_chain);
        Self {
            ssrc: 1,
            source: VideoSourceConfig::default(),
            seed: 1,
            pacer: PacerConfig {
                media_debt: chain.media_debt,
                ..PacerConfig::default()
            },
            wire: WireSizes::default(),
            report_mode: RateReportMode::Target,
            history: TimeDelta::secs(10),
            target_includes_overhead: false,
            send_time_whole_ms: chain.whole_ms_send_times,
            fec_delay: if gcc.fec.is_some() {
                chain.fec_delay
            } else {
                TimeDelta::ZERO
            },
            loss_v2_padding: chain.padding,
            nack_rtx: false,
            ecn: Ecn::NotEct,
            gcc,
        }
    }
}

impl Default for MediaSenderConfig {
    fn default() -> Self {
        Self::new(GccConfig::default())
    }
}

/// Receiver configuration (the same [`GccConfig`] as the sender: it decides between
/// transport-wide feedback and receiver-side estimation with REMB).
#[derive(Debug, Clone, PartialEq)]
pub struct MediaReceiverConfig {
    pub ssrc: u32,
    pub gcc: GccConfig,
    pub wire: WireSizes,
    /// `nack_rtx`: the receiver NACKs missing media packets ([`crate::endpoint::nack`])
    /// and takes the sender's RTX packets (SSRC
    /// [`rtx_ssrc`](crate::endpoint::rtx::rtx_ssrc)). Default `None`: no NACKs.
    pub nack: Option<NackConfig>,
    /// Seeds the receiver's own random draws (the randomized report interval,
    /// [`GccConfig::randomized_report_interval`]).
    pub seed: u64,
    /// The frame playout model that observes the packets ([`crate::playout`]).
    pub playout: PlayoutConfig,
}

impl MediaReceiverConfig {
    pub fn new(gcc: GccConfig) -> Self {
        Self {
            ssrc: 1,
            gcc,
            wire: WireSizes::default(),
            nack: None,
            seed: 1,
            playout: PlayoutConfig::default(),
        }
    }
}

impl Default for MediaReceiverConfig {
    fn default() -> Self {
        Self::new(GccConfig::default())
    }
}
