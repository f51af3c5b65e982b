//! From GCC's target to the rates a media sender applies: the encoder's (less the
//! overhead, the FEC protection and the congestion-window frame drops, capped by the
//! application, through Chromium's bitrate adjuster) and the pacer's.

use super::sender::MediaSender;
use crate::endpoint::overhead;
use crate::gcc::congestion_window;
use crate::units::{Bitrate, DataSize, Timestamp};

impl MediaSender {
    /// The pacing rate: `pacing_factor x target`, or Chromium's (`chromium-m156`).
    pub(super) fn pacing_rate(&self) -> Bitrate {
        let target = self.gcc.target_rate();
        match self.cfg.gcc.m156.as_ref().and_then(|m| m.pacing) {
            Some(p) => p.pacing_rate(target, self.bounds().min_rate, self.pacer.queued_bytes()),
            None => target * self.cfg.gcc.pacing_factor,
        }
    }

    /// The encoder's share of GCC's target (the whole target, or the target less the
    /// overhead rate with `target_includes_overhead`).
    fn encoder_target(&self, target: Bitrate) -> Bitrate {
        if !self.cfg.target_includes_overhead {
            return target;
        }
        let frame_interval = self.cfg.source.bounds().frame_interval();
        let wire = &self.cfg.wire;
        // `chromium_fec` models `RtpVideoSender::OnBitrateUpdated` (WebRTC M150), whose
        // overhead rate counts full packets at the target, not packets per frame
        // (`CalculateOverheadRate`, docs/ALGORITHMS.md "Chromium's protection").
        if self.chromium.fec.is_some() {
            return overhead::payload_rate_by_packet_rate(
                target,
                wire.max_packet,
                wire.rtp_overhead,
            );
        }
        overhead::payload_rate(
            target,
            frame_interval,
            wire.max_packet.saturating_sub(wire.rtp_overhead),
            wire.rtp_overhead,
        )
    }

    pub(super) fn apply_target(&mut self, now: Timestamp) {
        let target = self.gcc.target_rate();
        let mut payload = self.encoder_target(target);
        // `chromium_fec`: `FecControllerDefault::UpdateFecRates` takes the protection
        // overhead off (`RtpVideoSender::OnBitrateUpdated`).
        if let Some(f) = self.chromium.fec.as_mut() {
            payload = f.update_fec_rates(now, payload, self.gcc.rtt());
        }
        // `VideoStreamEncoder::UpdateTargetBitrate`: with every N-th frame dropped the
        // encoder runs at target - target / N.
        if let Some(n) = self.chromium.cwnd_drop_interval {
            payload = payload - payload / f64::from(n);
        }
        let enc = match self.desired {
            Some(d) => payload.min(d),
            None => payload,
        };
        self.chromium.unadjusted = enc;
        let enc = self.adjusted(now, enc);
        self.source.set_target_rate(now, enc);
        let rate = self.pacing_rate();
        self.pacer.set_rate(now, rate);
    }

    /// `chromium_adjuster`: the encoder's rate after `EncoderBitrateAdjuster`
    /// (`VideoStreamEncoder::UpdateBitrateAllocation`, input frame rate = the capture
    /// rate); without it `rate` itself.
    pub(super) fn adjusted(&mut self, now: Timestamp, rate: Bitrate) -> Bitrate {
        let interval = self.bounds().frame_interval();
        match self.chromium.adjuster.as_mut() {
            Some(a) => a.adjust(now, rate, 1.0 / interval.as_secs_f64()),
            None => rate,
        }
    }

    /// Bytes sent and not yet covered by transport feedback (`data_in_flight`).
    fn in_flight(&self) -> DataSize {
        let from = self.feedback_highest.map_or(0, |h| h + 1);
        self.history
            .range(from..)
            .fold(DataSize::ZERO, |a, (_, &(_, size, _))| a + size)
    }

    /// `chromium-m156`: the congestion-window pushback (`MaybeTriggerOnNetworkChanged` on
    /// a sent packet or a report): the frame-drop interval, and the encoder's target when
    /// it changes.
    pub(super) fn update_cwnd_pushback(&mut self, now: Timestamp) {
        if !self.gcc.m156().is_some_and(|m| m.has_congestion_window()) {
            return;
        }
        let ratio = self.gcc.cwnd_reduce_ratio(self.in_flight());
        let target = self.encoder_target(self.gcc.target_rate());
        let interval =
            congestion_window::frame_drop(target, ratio, self.bounds().min_rate).map(|(n, _)| n);
        if interval != self.chromium.cwnd_drop_interval {
            self.chromium.cwnd_drop_interval = interval;
            self.apply_target(now);
        }
    }
}
