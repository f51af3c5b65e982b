//! The send chain between a media sender's pacer and the wire, Chromium's parts of it:
//! probe clusters, padding, ULPFEC packets and NACKed retransmissions.

use super::packet::RtpPacket;
use super::sender::MediaSender;
use crate::fec::ulpfec::ProtectedPacket;
use crate::gcc::padding::{padding_payloads, padding_rate};
use crate::gcc::probe_estimator::ProbeTag;
use crate::units::{DataSize, TimeDelta, Timestamp};

/// Chromium `PacingController::kMaxDebtInTime` (pacing_controller.cc): the media debt a
/// probe's media packets may run up.
const MAX_DEBT_IN_TIME: TimeDelta = TimeDelta::millis(500);
/// IPv4 (20 B) + UDP (8 B): a packet's wire size less these is its RTP size, what
/// `RtpSenderEgress`'s send statistics count (`chromium_fec`).
const IP_UDP_HEADER: DataSize = DataSize::bytes(28);
/// The fixed RTP header (RFC 3550 5.1): a ULPFEC packet XORs what follows it
/// (`kRtpHeaderSize`, forward_error_correction.cc).
const RTP_FIXED_HEADER: DataSize = DataSize::bytes(12);

impl MediaSender {
    /// Probe clusters GCC asked for go to the pacer's prober.
    pub(super) fn pull_probe_clusters(&mut self) {
        while let Some(c) = self.gcc.poll_probe_cluster() {
            if let Some(p) = self.chromium.prober.as_mut() {
                p.create_cluster(c);
            }
        }
    }

    /// A padding packet of `size` on the wire (a probe without media to send): no
    /// frame (`frame_packet_count` 0), the next media sequence number.
    fn padding_packet(&mut self, now: Timestamp, size: DataSize) -> (RtpPacket, DataSize) {
        let wire = size
            .min(self.cfg.wire.max_packet)
            .max(self.cfg.wire.rtp_overhead + DataSize::bytes(1));
        // `nack_rtx`: with RTX the padding goes on the RTX stream (`RTPSender::
        // GeneratePadding`, rtp_sender.cc:375-440), out of the media stream's sequence.
        let (ssrc, sequence_number) = match self.chromium.rtx.as_mut() {
            Some(r) => (r.rtx_ssrc(), r.next_padding_seq()),
            None => {
                self.next_seq += 1;
                (self.cfg.ssrc, self.next_seq - 1)
            }
        };
        let p = RtpPacket {
            ssrc,
            sequence_number,
            transport_seq: 0,
            send_time: now,
            payload_size: wire - self.cfg.wire.rtp_overhead,
            frame_id: u64::MAX,
            frame_capture_time: now,
            frame_packet_index: 0,
            frame_packet_count: 0,
            keyframe: false,
        };
        (p, wire)
    }

    /// `chromium_fec`: a packet left the pacer. A media packet goes to the ULPFEC
    /// generator, and the FEC packets it completes are queued behind what is queued
    /// (`PacingController::ProcessPackets`: `EnqueuePacket(FetchFec())`); a FEC packet
    /// is counted in the send statistics.
    pub(super) fn on_sent_for_fec(&mut self, now: Timestamp, p: &RtpPacket, size: DataSize) {
        let Some(f) = self.chromium.fec.as_mut() else {
            return;
        };
        let rtp = size.saturating_sub(IP_UDP_HEADER);
        // `nack_rtx`: a retransmission is never FEC-protected (rtp_sender.cc:319-323),
        // and counts as NACK overhead in the FEC controller (`ProtectionRequest`); the
        // padding on the RTX stream is neither.
        if self.chromium.rtx.as_ref().is_some_and(|r| r.is_rtx(p)) {
            if p.frame_id != u64::MAX {
                f.on_retransmission_sent(now, rtp);
            }
            return;
        }
        if p.is_fec() {
            f.on_fec_sent(now, rtp);
            return;
        }
        if p.frame_packet_count == 0 {
            return;
        }
        let fec = f.on_media_sent(
            now,
            rtp,
            ProtectedPacket {
                protected_len: rtp.saturating_sub(RTP_FIXED_HEADER),
                marker: p.frame_packet_index + 1 == p.frame_packet_count,
                keyframe: p.keyframe,
            },
        );
        if fec.is_empty() {
            return;
        }
        for payload in fec {
            let q = RtpPacket {
                ssrc: self.cfg.ssrc,
                sequence_number: self.next_seq,
                transport_seq: 0,
                send_time: now,
                payload_size: payload,
                frame_id: p.frame_id,
                frame_capture_time: p.frame_capture_time,
                frame_packet_index: 0,
                frame_packet_count: 0,
                keyframe: false,
            };
            self.next_seq += 1;
            let size = payload + self.cfg.wire.rtp_overhead;
            if self.chromium.held_fec.delay() > TimeDelta::ZERO {
                self.chromium.held_fec.push(now, (q, size));
            } else {
                self.pacer.enqueue(q, size);
            }
        }
        self.refresh_chromium_pacing(now);
    }

    /// `chromium-m156`'s pacing: the rate follows the queue (Chromium drains a large
    /// pacer queue within 2 s), so it is set again whenever packets are queued.
    pub(super) fn refresh_chromium_pacing(&mut self, now: Timestamp) {
        if self
            .cfg
            .gcc
            .m156
            .as_ref()
            .is_some_and(|m| m.pacing.is_some())
        {
            let rate = self.pacing_rate();
            self.pacer.set_rate(now, rate);
        }
    }

    /// `loss_v2_padding`: the padding rate after a GCC update (`GetPacingRates`).
    pub(super) fn refresh_padding_rate(&mut self, now: Timestamp) {
        let Some(b) = self.chromium.padding.as_mut() else {
            return;
        };
        let loss_v2 = self.gcc.m156().and_then(|m| m.loss_v2_estimate());
        let rate = padding_rate(loss_v2, self.gcc.target_rate());
        if rate != b.rate() {
            b.set_rate(now, rate);
        }
    }

    /// `loss_v2_padding`: with an empty queue and the padding debt paid, 5 ms of the
    /// padding rate into the pacer's queue (`PaddingToAdd`, `GeneratePadding`).
    pub(super) fn maybe_pad(&mut self, now: Timestamp) {
        if self.chromium.padding.is_none() || self.pacer.queue_len() > 0 {
            return;
        }
        self.refresh_padding_rate(now);
        let request = self
            .chromium
            .padding
            .as_mut()
            .map_or(DataSize::ZERO, |b| b.padding_to_add(now));
        if request == DataSize::ZERO {
            return;
        }
        for payload in padding_payloads(request, self.chromium.last_media_payload) {
            let (p, wire) = self.padding_packet(now, payload + self.cfg.wire.rtp_overhead);
            self.pacer.enqueue(p, wire);
        }
    }

    /// A probe packet due at `now`: media from the queue, else padding.
    pub(super) fn poll_probe(&mut self, now: Timestamp) -> Option<(RtpPacket, DataSize, ProbeTag)> {
        let tag = self.chromium.prober.as_mut()?.current_cluster(now)?;
        let recommended = self
            .chromium
            .prober
            .as_ref()
            .map_or(DataSize::ZERO, |p| p.recommended_probe_size());
        let (p, size) = match self.pacer.poll_unpaced(now, MAX_DEBT_IN_TIME) {
            Some(x) => x,
            None => self.padding_packet(now, recommended),
        };
        if let Some(pr) = self.chromium.prober.as_mut() {
            pr.probe_sent(now, size);
        }
        Some((p, size, tag))
    }

    /// `nack_rtx`: a Generic NACK arrived: the RTX packets it gets go into the pacer's
    /// queue ahead of new video (`RTPSender::OnReceivedNack`).
    pub(super) fn on_nack(&mut self, now: Timestamp, seqs: &[u64]) {
        let (rtt, target) = (self.gcc.rtt(), self.gcc.target_rate());
        let Some(r) = self.chromium.rtx.as_mut() else {
            return;
        };
        let resend = r.on_nack(now, seqs, rtt, target);
        if resend.is_empty() {
            return;
        }
        for (p, size) in resend {
            self.pacer.enqueue_retransmission(p, size);
        }
        self.refresh_chromium_pacing(now);
    }
}
