//! The sender's retransmissions: a history of sent media packets and the RTX packets
//! a Generic NACK gets back (option `nack_rtx`; docs/ALGORITHMS.md
//! "Chromium's NACK/RTX retransmissions"; the receiver's side is [`super::nack`]).
//!
//! Sources: WebRTC M150, signalapp/webrtc bd635df (file:line).
//!
//! - `RTPSender::OnReceivedNack` (modules/rtp_rtcp/source/rtp_sender.cc:348) sets the
//!   history's RTT to [`RTT_MARGIN`] + the average RTT and resends the NACKed packets
//!   in order (`ReSendPacket`, :280-326); a packet the rate limiter refuses ends the
//!   NACK's handling (`bytes_sent < 0`: "Discard rest of packets"); a packet not in the
//!   history, already queued or resent within the RTT is skipped.
//! - `RtpPacketHistory` (rtp_packet_history.h:50-55, .cc): media packets that allow
//!   retransmission are stored when sent (`RtpSenderEgress::SendPacket`); ULPFEC packets
//!   do not (ulpfec_generator.cc:233), nor padding. `GetPacketAndMarkAsPending` refuses
//!   a packet already in the pacer (`pending_transmission_`) or resent less than the
//!   RTT ago (`VerifyRtt`, rtp_packet_history.cc:235-245); the resend's send time and
//!   count are set when it leaves the pacer. `CullOldPackets`: a packet is kept at least
//!   max([`MIN_PACKET_DURATION_RTT`] x RTT, [`MIN_PACKET_DURATION`]), then removed once
//!   [`NUMBER_TO_STORE`] packets are stored or it is [`PACKET_CULLING_DELAY_FACTOR`]
//!   times that old; at most [`MAX_CAPACITY`].
//! - The resend is the original wrapped in RTX (RFC 4588 section 4: the original's
//!   payload after a 2-byte original sequence number, [`RTX_HEADER`]; its own SSRC),
//!   queued in the pacer as `kRetransmission` ahead of video and FEC
//!   (modules/pacing/prioritized_packet_queue.cc:44-50) and never FEC-protected
//!   (rtp_sender.cc:319-323). Retransmissions are limited to the target rate over
//!   500 ms ([`super::rtx_limiter`]).
//!
//! - Padding (probes, `loss_v2_padding`) goes on the RTX stream when RTX is on
//!   (`RTPSender::GeneratePadding`, rtp_sender.cc:375-440), never into the history.
//!
//! Deviation (named): the RTX packet carries the original's sequence number in its
//! `sequence_number` field (the RFC's OSN); the RTX stream's own sequence numbers are
//! not modelled for retransmissions (nothing in the model reads them); padding packets
//! number their own.

use super::media::RtpPacket;
use super::rtx_limiter::RetransmissionLimiter;
use crate::seq_map::SeqMap;
use crate::units::{Bitrate, DataSize, TimeDelta, Timestamp};

/// RFC 4588 section 4: the RTX payload's original sequence number (2 bytes).
pub const RTX_HEADER: DataSize = DataSize::bytes(2);
/// `RTPSender::OnReceivedNack`: the history's RTT is 5 ms + the average RTT.
pub const RTT_MARGIN: TimeDelta = TimeDelta::millis(5);
/// `RtpPacketHistory::kMinPacketDuration` (rtp_packet_history.h): kept at least 1 s.
pub const MIN_PACKET_DURATION: TimeDelta = TimeDelta::secs(1);
/// `RtpPacketHistory::kMinPacketDurationRtt`: kept at least 3 RTT.
pub const MIN_PACKET_DURATION_RTT: i64 = 3;
/// `RtpPacketHistory::kPacketCullingDelayFactor`: removed at 3 x the kept duration.
pub const PACKET_CULLING_DELAY_FACTOR: i64 = 3;
/// `RtpPacketHistory::kMaxCapacity`: the history's hard bound.
pub const MAX_CAPACITY: usize = 9_600;
/// `kMinSendSidePacketHistorySize` (call/rtp_video_sender.cc): the packets a video
/// stream's history stores before the oldest may go.
pub const NUMBER_TO_STORE: usize = 600;
/// IPv4 + UDP: a packet's wire size less these is the RTP size the limiter counts
/// (`stored_packet.size()`).
const IP_UDP_HEADER: DataSize = DataSize::bytes(28);

/// The bit that tells an RTX SSRC from its media SSRC in the model (any SSRC other
/// than the media one would do: libwebrtc draws it at random).
pub const RTX_SSRC_BIT: u32 = 0x4000_0000;

/// The SSRC of a media SSRC's RTX stream in the model.
pub fn rtx_ssrc(media_ssrc: u32) -> u32 {
    media_ssrc ^ RTX_SSRC_BIT
}

/// A stored packet (`StoredPacket`).
#[derive(Debug, Clone, Copy)]
struct Stored {
    packet: RtpPacket,
    wire: DataSize,
    send_time: Timestamp,
    times_retransmitted: u32,
    pending: bool,
}

/// The history and the NACK handling of one media stream.
#[derive(Debug, Clone)]
pub struct RtxSender {
    rtx_ssrc: u32,
    history: SeqMap<Stored>,
    /// `RtpPacketHistory::rtt_` (unset until the first NACK).
    rtt: Option<TimeDelta>,
    limiter: RetransmissionLimiter,
    /// Retransmissions queued, and those the limiter refused.
    queued: u64,
    refused: u64,
    /// The RTX stream's sequence numbers of its padding packets.
    next_padding_seq: u64,
}

impl RtxSender {
    pub fn new(rtx_ssrc: u32) -> Self {
        Self {
            rtx_ssrc,
            history: SeqMap::new(),
            rtt: None,
            limiter: RetransmissionLimiter::default(),
            queued: 0,
            refused: 0,
            next_padding_seq: 0,
        }
    }

    pub fn rtx_ssrc(&self) -> u32 {
        self.rtx_ssrc
    }
    /// Whether `p` went on the RTX stream (a retransmission, or padding: no frame).
    pub fn is_rtx(&self, p: &RtpPacket) -> bool {
        p.ssrc == self.rtx_ssrc
    }
    /// The sequence number of the next padding packet on the RTX stream (with RTX on,
    /// libwebrtc sends padding there, `RTPSender::GeneratePadding`).
    pub fn next_padding_seq(&mut self) -> u64 {
        self.next_padding_seq += 1;
        self.next_padding_seq - 1
    }
    /// Packets in the history.
    pub fn stored(&self) -> usize {
        self.history.len()
    }
    /// Retransmissions queued so far.
    pub fn retransmissions(&self) -> u64 {
        self.queued
    }
    /// Retransmissions the rate limiter refused.
    pub fn refused(&self) -> u64 {
        self.refused
    }

    /// A packet left the pacer at `now` (`wire` its size on the wire): a media packet
    /// goes into the history (`PutRtpPacket`); an RTX packet marks its original sent
    /// (`MarkPacketAsSent`); ULPFEC and padding are not stored.
    pub fn on_sent(&mut self, now: Timestamp, p: &RtpPacket, wire: DataSize) {
        if self.is_rtx(p) {
            if p.frame_packet_count == 0 {
                return;
            }
            if let Some(s) = self.history.get_mut(p.sequence_number) {
                s.pending = false;
                s.send_time = now;
                s.times_retransmitted += 1;
            }
            return;
        }
        if p.frame_packet_count == 0 {
            return;
        }
        self.history.insert(
            p.sequence_number,
            Stored {
                packet: *p,
                wire,
                send_time: now,
                times_retransmitted: 0,
                pending: false,
            },
        );
        self.cull(now);
    }

    /// `CullOldPackets`.
    fn cull(&mut self, now: Timestamp) {
        let duration = match self.rtt {
            Some(rtt) => (rtt * MIN_PACKET_DURATION_RTT).max(MIN_PACKET_DURATION),
            None => MIN_PACKET_DURATION,
        };
        while let Some((_, s)) = self.history.first() {
            if self.history.len() >= MAX_CAPACITY {
                self.history.pop_first();
                continue;
            }
            if s.pending || s.send_time + duration > now {
                return;
            }
            if self.history.len() >= NUMBER_TO_STORE
                || s.send_time + duration * PACKET_CULLING_DELAY_FACTOR <= now
            {
                self.history.pop_first();
            } else {
                return;
            }
        }
    }

    /// `OnReceivedNack`: the RTX packets (with their wire sizes) to queue for the NACKed
    /// `seqs`, with the sender's average RTT `avg_rtt` and target rate `target` (the
    /// limiter's maximum).
    pub fn on_nack(
        &mut self,
        now: Timestamp,
        seqs: &[u64],
        avg_rtt: TimeDelta,
        target: Bitrate,
    ) -> Vec<(RtpPacket, DataSize)> {
        let rtt = RTT_MARGIN + avg_rtt;
        self.rtt = Some(rtt);
        let mut out = Vec::new();
        for seq in seqs {
            let Some(s) = self.history.get_mut(*seq) else {
                continue;
            };
            // `GetPacketAndMarkAsPending`: queued already, or resent within the RTT.
            if s.pending || (s.times_retransmitted > 0 && now - s.send_time < rtt) {
                continue;
            }
            if !self
                .limiter
                .try_use(now, s.wire.saturating_sub(IP_UDP_HEADER), target)
            {
                self.refused += 1;
                break;
            }
            s.pending = true;
            let mut rtx = s.packet;
            rtx.ssrc = self.rtx_ssrc;
            rtx.payload_size = s.packet.payload_size + RTX_HEADER;
            rtx.transport_seq = 0;
            rtx.send_time = now;
            out.push((rtx, s.wire + RTX_HEADER));
            self.queued += 1;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn media(seq: u64, payload: u64) -> RtpPacket {
        RtpPacket {
            ssrc: 1,
            sequence_number: seq,
            transport_seq: seq,
            send_time: Timestamp::ZERO,
            payload_size: DataSize::bytes(payload),
            frame_id: seq,
            frame_capture_time: Timestamp::ZERO,
            frame_packet_index: 0,
            frame_packet_count: 1,
            keyframe: false,
        }
    }

    fn ms(x: u64) -> Timestamp {
        Timestamp::from_millis(x)
    }

    const WIRE: DataSize = DataSize::bytes(48);

    fn sent(r: &mut RtxSender, t: u64, p: RtpPacket) {
        r.on_sent(ms(t), &p, p.payload_size + WIRE);
    }

    #[test]
    fn a_nacked_packet_comes_back_as_rtx_two_bytes_larger() {
        let mut r = RtxSender::new(rtx_ssrc(1));
        sent(&mut r, 0, media(7, 1000));
        let out = r.on_nack(ms(50), &[7], TimeDelta::millis(40), Bitrate::mbps(1.0));
        assert_eq!(out.len(), 1);
        let (p, wire) = out[0];
        assert_eq!(p.ssrc, rtx_ssrc(1));
        assert!(r.is_rtx(&p));
        assert_eq!(p.sequence_number, 7);
        assert_eq!(p.payload_size, DataSize::bytes(1002));
        assert_eq!(wire, DataSize::bytes(1050));
        // Not again while it waits in the pacer.
        assert!(r
            .on_nack(ms(60), &[7], TimeDelta::millis(40), Bitrate::mbps(1.0))
            .is_empty());
    }

    #[test]
    fn no_resend_within_an_rtt_of_the_last() {
        let mut r = RtxSender::new(rtx_ssrc(1));
        sent(&mut r, 0, media(3, 500));
        let (p, w) = r.on_nack(ms(50), &[3], TimeDelta::millis(95), Bitrate::mbps(1.0))[0];
        r.on_sent(ms(51), &p, w);
        // History RTT 5 + 95 = 100 ms: refused at 150 ms (99 ms after the resend),
        // resent at 151 ms.
        let again = |r: &mut RtxSender, t| {
            r.on_nack(ms(t), &[3], TimeDelta::millis(95), Bitrate::mbps(1.0))
                .len()
        };
        assert_eq!(again(&mut r, 150), 0);
        assert_eq!(again(&mut r, 151), 1);
    }

    #[test]
    fn ulpfec_and_padding_are_never_retransmitted() {
        let mut r = RtxSender::new(rtx_ssrc(1));
        let mut fec = media(4, 300);
        fec.frame_packet_count = 0; // a ULPFEC packet of frame 4
        let mut pad = media(5, 200);
        pad.frame_packet_count = 0;
        pad.frame_id = u64::MAX;
        assert!(fec.is_fec());
        sent(&mut r, 0, fec);
        sent(&mut r, 0, pad);
        sent(&mut r, 0, media(6, 900));
        let out = r.on_nack(
            ms(50),
            &[4, 5, 6],
            TimeDelta::millis(40),
            Bitrate::mbps(1.0),
        );
        // 4 and 5 are not in the history: skipped, 6 is resent.
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].0.sequence_number, 6);
    }

    #[test]
    fn the_rate_limiter_ends_a_nack() {
        let run = |target: Bitrate| {
            let mut r = RtxSender::new(rtx_ssrc(1));
            for s in 0..40 {
                sent(&mut r, 0, media(s, 1100));
            }
            // A NACK of two packets every 50 ms (358 kbit/s of RTX asked for).
            let mut short = 0;
            let mut total = 0;
            for i in 0..20u64 {
                let n = r
                    .on_nack(
                        ms(100 + 50 * i),
                        &[2 * i, 2 * i + 1],
                        TimeDelta::millis(40),
                        target,
                    )
                    .len();
                short += u64::from(n < 2);
                total += n;
            }
            (total, short, r.refused())
        };
        // 100 kbit/s for the 1 s of NACKs: 12,500 B, about 11 packets of 1,120 B, not 40.
        let (total, short, refused) = run(Bitrate::kbps(100.0));
        assert!((8..=12).contains(&total), "{total} resent");
        // A refusal ends its NACK: one refusal per short NACK, never two.
        assert_eq!(short, refused);
        // Ten times the asked rate: all 40.
        assert_eq!(run(Bitrate::mbps(20.0)).0, 40);
    }

    #[test]
    fn the_history_keeps_packets_at_least_a_second() {
        let mut r = RtxSender::new(rtx_ssrc(1));
        for s in 0..700u64 {
            sent(&mut r, s * 2, media(s, 100));
        }
        // Sent over 1.4 s at 500 packets/s: those older than 1 s may go once 600 are
        // stored; none younger than 1 s.
        assert!(r.stored() >= 500 && r.stored() <= 600, "{}", r.stored());
        assert!(!r
            .on_nack(ms(1400), &[699], TimeDelta::millis(40), Bitrate::mbps(10.0))
            .is_empty());
        assert!(r
            .on_nack(ms(1400), &[0], TimeDelta::millis(40), Bitrate::mbps(10.0))
            .is_empty());
    }
}
