//! `FecControllerDefault` (libwebrtc `modules/video_coding/fec_controller_default.cc`,
//! WebRTC M150, signalapp/webrtc bd635df) with the sender around it: the encoder's
//! share of the payload rate and the ULPFEC packets.
//!
//! `UpdateFecRates(payload rate, sent frame rate, loss, rtt)`, called from
//! `RtpVideoSender::OnBitrateUpdated` with every target update: the loss through the
//! max filter (`loss_filter`), the hybrid NACK/FEC factors (`protection`), handed to the
//! ULPFEC generator (`ProtectionRequest` -> `SetFecProtectionParams`), then the encoder
//! gets the payload rate x (1 - min((NACK + FEC sent) / all sent over the last second,
//! `kProtectionOverheadRateThreshold` 0.5)). The FEC packets themselves are made as the
//! pacer sends the media (`ulpfec`) and queued behind them (`PacingController::
//! ProcessPackets`: `EnqueuePacket(FetchFec())` after each sent packet).
//!
//! The NACK rate is the RTX retransmissions' (`nack_rtx`; `ProtectionRequest` sums
//! `GetSendRates()[kRetransmission]`, not the padding sent on the RTX stream, which is
//! `kPadding`); without `nack_rtx` the receiver sends no NACKs and it is 0.
//!
//! Not modelled: the post-encode overhead `OnBitrateUpdated` also subtracts (the VP8
//! payload descriptor: the model's packets carry none), the RED header of the media
//! packets (1 byte each), `fec_allowed_` (true in the real calls, which carry FEC).

use super::exp_filter::ExpFilter;
use super::loss_filter::MaxLossFilter;
use super::loss_fraction::LossFraction;
use super::protection::{nack_fec_factors, ProtectionFactors, ProtectionInput};
use super::rate_tracker::{BitrateTracker, FrameRateTracker};
use super::ulpfec::{FecParams, ProtectedPacket, UlpfecGenerator};
use crate::units::{Bitrate, DataSize, TimeDelta, Timestamp};

/// `kProtectionOverheadRateThreshold` (fec_controller_default.cc, field trial
/// `WebRTC-ProtectionOverheadRateThreshold` unset).
pub const PROTECTION_OVERHEAD_RATE_THRESHOLD: f32 = 0.5;
/// `VCMLossProtectionLogic`'s packets-per-frame filter factor (`_packetsPerFrame(0.9999f)`).
pub const PACKETS_PER_FRAME_ALPHA: f32 = 0.9999;

/// The controller's fixed inputs.
#[derive(Debug, Clone, PartialEq)]
pub struct FecConfig {
    /// The encoded resolution (`SetEncodingData`): Chromium 156 sent 320 x 180 in every
    /// measured second of the low-rate runs (the quality scaler's floor,
    /// docs/REPRODUCTION.md, "The real encoder's frame rate, measured").
    pub width: u32,
    pub height: u32,
    /// `max_payload_size_` of `UpdateWithEncodedData` (the RTP max packet size).
    pub max_packet: DataSize,
    /// `overhead_threshold_`.
    pub overhead_threshold: f32,
}

impl Default for FecConfig {
    fn default() -> Self {
        Self {
            width: 320,
            height: 180,
            max_packet: DataSize::bytes(1200),
            overhead_threshold: PROTECTION_OVERHEAD_RATE_THRESHOLD,
        }
    }
}

/// The protection chain of one video stream.
#[derive(Debug, Clone)]
pub struct FecController {
    cfg: FecConfig,
    loss: LossFraction,
    filter: MaxLossFilter,
    packets_per_frame: ExpFilter,
    packets_per_frame_key: ExpFilter,
    last_ppf: Timestamp,
    last_ppf_key: Timestamp,
    video_sent: BitrateTracker,
    fec_sent: BitrateTracker,
    nack_sent: BitrateTracker,
    frames: FrameRateTracker,
    generator: UlpfecGenerator,
    factors: ProtectionFactors,
    overhead: f32,
}

fn ms(t: Timestamp) -> i64 {
    i64::try_from(t.as_micros() / 1000).unwrap_or(i64::MAX)
}

impl FecController {
    pub fn new(cfg: FecConfig, now: Timestamp) -> Self {
        Self {
            cfg,
            loss: LossFraction::new(),
            filter: MaxLossFilter::new(),
            packets_per_frame: ExpFilter::new(PACKETS_PER_FRAME_ALPHA),
            packets_per_frame_key: ExpFilter::new(PACKETS_PER_FRAME_ALPHA),
            last_ppf: now,
            last_ppf_key: now,
            video_sent: BitrateTracker::new(),
            fec_sent: BitrateTracker::new(),
            nack_sent: BitrateTracker::new(),
            frames: FrameRateTracker::new(now),
            generator: UlpfecGenerator::new(),
            factors: ProtectionFactors::default(),
            overhead: 0.0,
        }
    }

    /// A receiver report (cumulative lost, extended highest sequence number): true when
    /// goog_cc's loss fraction was recomputed (a target update follows in Chromium).
    pub fn on_receiver_report(&mut self, cumulative_lost: u64, highest_seq: u64) -> bool {
        self.loss.on_receiver_report(cumulative_lost, highest_seq)
    }

    /// `UpdateWithEncodedData` and the sent frame rate's tracker: a frame of `size`
    /// left the encoder.
    pub fn on_encoded_frame(&mut self, now: Timestamp, size: DataSize, keyframe: bool) {
        self.frames.on_frame(now);
        if size == DataSize::ZERO {
            return;
        }
        let packets = size.as_bytes() as f32 / self.cfg.max_packet.as_bytes().max(1) as f32;
        if keyframe {
            let exp = (ms(now) - ms(self.last_ppf_key)) as f32;
            self.packets_per_frame_key.apply(exp, packets);
            self.last_ppf_key = now;
        } else {
            let exp = (ms(now) - ms(self.last_ppf)) as f32;
            self.packets_per_frame.apply(exp, packets);
            self.last_ppf = now;
        }
    }

    /// `UpdateFecRates`: the encoder's rate for a payload rate; sets the generator's
    /// parameters.
    pub fn update_fec_rates(
        &mut self,
        now: Timestamp,
        payload: Bitrate,
        rtt: TimeDelta,
    ) -> Bitrate {
        let fps = self.frames.rate(now).max(1);
        let loss = self.filter.filtered(ms(now), self.loss.for_fec());
        let input = ProtectionInput {
            rtt_ms: rtt.as_micros() / 1000,
            loss_q8: loss,
            bitrate_kbps: (payload.as_bps() / 1000.0) as f32,
            frame_rate: fps as f32,
            packets_per_frame: self.packets_per_frame.filtered(),
            packets_per_frame_key: self.packets_per_frame_key.filtered(),
            width: self.cfg.width,
            height: self.cfg.height,
        };
        self.factors = nack_fec_factors(&input);
        let params = |rate| FecParams {
            fec_rate: rate,
            max_fec_frames: self.factors.max_fec_frames,
        };
        self.generator
            .set_protection_parameters(params(self.factors.delta), params(self.factors.key));
        let video = self.video_sent.rate(now).map_or(0.0, Bitrate::as_bps);
        let fec = self.fec_sent.rate(now).map_or(0.0, Bitrate::as_bps);
        let nack = self.nack_sent.rate(now).map_or(0.0, Bitrate::as_bps);
        let total = video + nack + fec;
        let overhead = if total > 0.0 {
            ((nack + fec) / total) as f32
        } else {
            0.0
        };
        self.overhead = overhead.min(self.cfg.overhead_threshold);
        payload * (1.0 - f64::from(self.overhead))
    }

    /// A media packet left the pacer (`rtp_size`: its RTP packet, for the send
    /// statistics; `protected_len`: what a FEC packet XORs): the FEC packets' sizes
    /// (RTP payload, the RTP header comes on top) it completes.
    pub fn on_media_sent(
        &mut self,
        now: Timestamp,
        rtp_size: DataSize,
        packet: ProtectedPacket,
    ) -> Vec<DataSize> {
        self.video_sent.update(now, rtp_size);
        self.generator.add_packet(packet)
    }

    /// A FEC packet left the pacer.
    pub fn on_fec_sent(&mut self, now: Timestamp, rtp_size: DataSize) {
        self.fec_sent.update(now, rtp_size);
    }

    /// A retransmission (an RTX packet answering a NACK) left the pacer.
    pub fn on_retransmission_sent(&mut self, now: Timestamp, rtp_size: DataSize) {
        self.nack_sent.update(now, rtp_size);
    }

    /// The factors of the latest update.
    pub fn factors(&self) -> ProtectionFactors {
        self.factors
    }

    /// The protection overhead of the latest update (capped).
    pub fn overhead(&self) -> f32 {
        self.overhead
    }

    /// goog_cc's loss fraction (Q8 of 255).
    pub fn loss_fraction_q8(&self) -> u8 {
        self.loss.fraction_q8()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(ms: u64) -> Timestamp {
        Timestamp::from_millis(ms)
    }

    /// A one-packet frame of 900 B (880 protected) leaves the pacer at `t`.
    fn send_one_packet_frame(c: &mut FecController, t: Timestamp) {
        c.on_media_sent(
            t,
            DataSize::bytes(900),
            ProtectedPacket {
                protected_len: DataSize::bytes(880),
                marker: true,
                keyframe: false,
            },
        );
    }

    #[test]
    fn no_loss_no_cut_no_fec() {
        let mut c = FecController::new(FecConfig::default(), at(0));
        for i in 0..30 {
            c.on_encoded_frame(at(i * 100), DataSize::bytes(3000), false);
        }
        let r = c.update_fec_rates(at(3000), Bitrate::kbps(300.0), TimeDelta::millis(100));
        assert_eq!(r, Bitrate::kbps(300.0));
        assert_eq!(c.factors().delta, 0);
        let fec = c.on_media_sent(
            at(3000),
            DataSize::bytes(1000),
            ProtectedPacket {
                protected_len: DataSize::bytes(990),
                marker: true,
                keyframe: false,
            },
        );
        assert!(fec.is_empty());
    }

    #[test]
    fn the_cut_is_the_sent_fec_share_capped_at_a_half() {
        let mut c = FecController::new(FecConfig::default(), at(0));
        for i in 0..10 {
            send_one_packet_frame(&mut c, at(i * 100));
            c.on_fec_sent(at(i * 100 + 1), DataSize::bytes(300));
        }
        // FEC 3000 of 12000 B sent in the last second (the FEC window 1 ms younger:
        // 3000 B / 999 ms against 9000 B / 1000 ms): the encoder gets ~3/4.
        let r = c.update_fec_rates(at(999), Bitrate::kbps(200.0), TimeDelta::millis(300));
        let fec = 3000.0 / 999.0;
        let want = 200.0 * (1.0 - fec / (fec + 9.0));
        assert!((r.as_kbps() - want).abs() < 1e-3, "{r} {want}");
        for i in 0..10 {
            c.on_fec_sent(at(1000 + i * 10), DataSize::bytes(3000));
        }
        let r = c.update_fec_rates(at(1100), Bitrate::kbps(200.0), TimeDelta::millis(300));
        assert!((r.as_kbps() - 100.0).abs() < 1e-3, "{r}");
        assert_eq!(c.overhead(), PROTECTION_OVERHEAD_RATE_THRESHOLD);
    }

    #[test]
    fn retransmissions_count_in_the_cut_like_fec() {
        // `ProtectionRequest`: overhead = (NACK + FEC sent) / (video + NACK + FEC sent).
        let mut c = FecController::new(FecConfig::default(), at(0));
        for i in 0..10 {
            send_one_packet_frame(&mut c, at(i * 100));
            c.on_retransmission_sent(at(i * 100), DataSize::bytes(300));
        }
        // Both trackers 1000 ms old at 999: retransmissions 3000 of 12000 B -> 3/4.
        let r = c.update_fec_rates(at(999), Bitrate::kbps(200.0), TimeDelta::millis(300));
        assert!((r.as_kbps() - 150.0).abs() < 1e-3, "{r}");
        assert!((c.overhead() - 0.25).abs() < 1e-6);
    }

    #[test]
    fn loss_turns_fec_on_and_the_generator_follows() {
        let mut c = FecController::new(FecConfig::default(), at(0));
        for i in 0..31 {
            c.on_encoded_frame(at(i * 333), DataSize::bytes(6000), false);
        }
        assert!(!c.on_receiver_report(0, 0));
        assert!(c.on_receiver_report(5, 100)); // 5 % -> 12 / 255
        assert_eq!(c.loss_fraction_q8(), 12);
        // 150 kbit/s at 3 frames/s, 300 ms: FEC on over blocks of 2 frames.
        c.update_fec_rates(at(10_000), Bitrate::kbps(150.0), TimeDelta::millis(300));
        let f = c.factors();
        assert!(f.delta > 0, "{f:?}");
        assert_eq!(f.max_fec_frames, 2);
        let mut n = 0;
        for frame in 0..2 {
            for i in 0..5 {
                n += c
                    .on_media_sent(
                        at(10_000 + frame * 333),
                        DataSize::bytes(1200),
                        ProtectedPacket {
                            protected_len: DataSize::bytes(1160),
                            marker: i == 4,
                            keyframe: false,
                        },
                    )
                    .len();
            }
        }
        assert!(n >= 1, "{n}");
    }
}
