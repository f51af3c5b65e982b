//! The video half of the NADA and SCReAM media senders: a video source model
//! ([`crate::source`]) whose frames are cut into RTP packets of at most
//! `max_packet` bytes on the wire. The controller's rate counts the wire bytes, so the
//! encoder gets that rate less the RTP/UDP/IP overhead ([`super::overhead::payload_rate`]).
//! Sequence numbers are left for the sender to assign when a packet leaves.

use super::media::{RtpPacket, WireSizes};
use super::overhead;
use crate::playout::EncoderLog;
use crate::source::{VideoSource, VideoSourceConfig};
use crate::units::{Bitrate, DataSize, TimeDelta, Timestamp};

/// A video source with its packetizer.
#[derive(Debug, Clone)]
pub struct VideoPacketizer {
    source: VideoSource,
    frame_interval: TimeDelta,
    wire: WireSizes,
    ssrc: u32,
    /// The frames encoded and dropped, for the receiver's frame figures.
    log: EncoderLog,
}

impl VideoPacketizer {
    /// The first frame is captured at `start`; `seed` feeds the source's noise.
    pub fn new(
        cfg: &VideoSourceConfig,
        wire: WireSizes,
        ssrc: u32,
        start: Timestamp,
        seed: u64,
    ) -> Self {
        let frame_interval = cfg.bounds().frame_interval();
        VideoPacketizer {
            source: VideoSource::new(cfg, start, seed),
            frame_interval,
            wire,
            ssrc,
            log: EncoderLog::new(),
        }
    }

    fn max_payload(&self) -> DataSize {
        self.wire
            .max_packet
            .saturating_sub(self.wire.rtp_overhead)
            .max(DataSize::bytes(1))
    }

    /// The controller wants `rate` on the wire: the encoder gets it less the overhead.
    pub fn set_wire_rate(&mut self, now: Timestamp, rate: Bitrate) {
        let payload = overhead::payload_rate(
            rate,
            self.frame_interval,
            self.max_payload(),
            self.wire.rtp_overhead,
        );
        self.source.set_target_rate(now, payload);
    }

    /// Capture resumes at `now` after a pause (see [`VideoSource::resume_at`]).
    pub fn resume_at(&mut self, now: Timestamp) {
        self.source.resume_at(now);
    }

    /// When the next frame is captured.
    pub fn next_frame_time(&self) -> Timestamp {
        self.source.next_frame_time()
    }

    /// The frames the encoder encoded and dropped.
    pub fn encoder_log(&self) -> &EncoderLog {
        &self.log
    }

    /// The rate the encoder produces on average (payload).
    pub fn encoder_rate(&self) -> Bitrate {
        self.source.encoder_rate()
    }

    /// The packets of the next frame due at `now` with their wire sizes (sequence
    /// numbers 0: the sender assigns them); `None` when no frame is due.
    pub fn poll_frame(&mut self, now: Timestamp) -> Option<Vec<(RtpPacket, DataSize)>> {
        let frame = self.source.poll_frame(now);
        self.source.log_dropped(&mut self.log);
        let frame = frame?;
        self.log.on_encoded(frame.id, frame.capture_time);
        let max_payload = self.max_payload();
        let n = frame
            .size
            .as_bytes()
            .div_ceil(max_payload.as_bytes())
            .max(1);
        let count = u32::try_from(n).unwrap_or(u32::MAX);
        let base = frame.size.as_bytes() / n;
        let extra = frame.size.as_bytes() % n;
        Some(
            (0..n)
                .map(|i| {
                    let payload = DataSize::bytes(base + u64::from(i < extra));
                    let p = RtpPacket {
                        ssrc: self.ssrc,
                        sequence_number: 0,
                        transport_seq: 0,
                        send_time: now,
                        payload_size: payload,
                        frame_id: frame.id,
                        frame_capture_time: frame.capture_time,
                        frame_packet_index: u32::try_from(i).unwrap_or(u32::MAX),
                        frame_packet_count: count,
                        keyframe: frame.keyframe,
                    };
                    (p, payload + self.wire.rtp_overhead)
                })
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::EncoderBounds;

    #[test]
    fn frames_are_cut_into_packets_at_most_max_packet_on_the_wire() {
        let bounds = EncoderBounds::paper000();
        let mut v = VideoPacketizer::new(
            &VideoSourceConfig::Perfect(bounds),
            WireSizes::default(),
            3,
            Timestamp::ZERO,
            1,
        );
        v.set_wire_rate(Timestamp::ZERO, Bitrate::mbps(1.0));
        let pkts = v.poll_frame(Timestamp::ZERO).expect("first frame");
        let wire: u64 = pkts.iter().map(|(_, s)| s.as_bytes()).sum();
        // 1 Mbit/s at 30 frames/s = 4167 B per frame on the wire, 4 packets of <= 1200 B.
        assert_eq!(pkts.len(), 4);
        assert!(pkts
            .iter()
            .all(|(p, s)| *s <= DataSize::bytes(1200) && p.ssrc == 3));
        assert!((4000..=4200).contains(&wire), "{wire}");
        assert!(v.poll_frame(Timestamp::ZERO).is_none());
    }
}
