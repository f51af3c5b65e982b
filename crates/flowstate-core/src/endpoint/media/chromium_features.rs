//! The state of the optional Chromium send-chain features a media sender may run, in one
//! struct the sender holds: probing (`chromium-m156`), the congestion-window frame drops
//! (`cwnd_frame_drop`), ULPFEC (`chromium_fec`, `fec_delay_ms`), the encoder's bitrate
//! adjuster (`chromium_adjuster`), padding (`loss_v2_padding`) and NACK/RTX
//! retransmissions (`nack_rtx`). Each is `None` (or idle) when its option is off.

use super::config::MediaSenderConfig;
use super::packet::RtpPacket;
use crate::endpoint::rtx::{rtx_ssrc, RtxSender};
use crate::endpoint::send_path::HeldPackets;
use crate::fec::controller::FecController;
use crate::gcc::bitrate_prober::BitrateProber;
use crate::gcc::padding::PaddingBudget;
use crate::source::encoder_adjuster::EncoderBitrateAdjuster;
use crate::units::{Bitrate, DataSize, Timestamp};

/// The optional Chromium send-chain state of a [`super::MediaSender`].
#[derive(Debug)]
pub(super) struct ChromiumFeatures {
    /// The pacer's probe sender (`chromium-m156` with probing).
    pub(super) prober: Option<BitrateProber>,
    /// `chromium-m156` congestion-window pushback: drop every N-th frame
    /// (`cwnd_frame_drop_interval_`) and the frame counter (`cwnd_frame_counter_`).
    pub(super) cwnd_drop_interval: Option<u32>,
    pub(super) cwnd_frame_counter: u64,
    /// `chromium_fec`: the protection chain (`crate::fec`).
    pub(super) fec: Option<FecController>,
    /// `fec_delay_ms`: ULPFEC packets on their way to the pacer.
    pub(super) held_fec: HeldPackets<(RtpPacket, DataSize)>,
    /// `chromium_adjuster`: `EncoderBitrateAdjuster`, and the rate before it (kept for
    /// its periodic re-adjustment).
    pub(super) adjuster: Option<EncoderBitrateAdjuster>,
    pub(super) unadjusted: Bitrate,
    /// `loss_v2_padding`: the pacer's padding debt, and the last media packet's payload
    /// (what payload padding copies).
    pub(super) padding: Option<PaddingBudget>,
    pub(super) last_media_payload: Option<DataSize>,
    /// `nack_rtx`: the packet history and the NACK handling.
    pub(super) rtx: Option<RtxSender>,
}

impl ChromiumFeatures {
    /// The features `cfg` turns on, for a sender starting at `now`.
    pub(super) fn new(cfg: &MediaSenderConfig, now: Timestamp) -> Self {
        let prober = cfg
            .gcc
            .m156
            .as_ref()
            .filter(|m| m.probing.is_some())
            .map(|m| BitrateProber::new(m.prober));
        Self {
            prober,
            cwnd_drop_interval: None,
            cwnd_frame_counter: 0,
            fec: cfg.gcc.fec.clone().map(|c| FecController::new(c, now)),
            held_fec: HeldPackets::new(cfg.fec_delay),
            adjuster: cfg.gcc.encoder_adjuster.map(EncoderBitrateAdjuster::new),
            unadjusted: Bitrate::ZERO,
            padding: cfg.loss_v2_padding.then(PaddingBudget::new),
            last_media_payload: None,
            rtx: cfg.nack_rtx.then(|| RtxSender::new(rtx_ssrc(cfg.ssrc))),
        }
    }
}
