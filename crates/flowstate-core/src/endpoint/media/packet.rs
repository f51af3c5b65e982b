//! The RTP packet every media sender of the crate sends (GCC's, NADA's and SCReAM's), and
//! the wire sizes of the media flows' packets and feedback.

use crate::units::{DataSize, Timestamp};

/// An RTP packet's header fields (what the receiver and the estimator need). A packet
/// with `frame_packet_count` 0 carries no media: padding (`frame_id` `u64::MAX`) or,
/// with `chromium_fec`, a ULPFEC packet of frame `frame_id` ([`RtpPacket::is_fec`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RtpPacket {
    pub ssrc: u32,
    /// Extended RTP sequence number.
    pub sequence_number: u64,
    /// Transport-wide sequence number (draft-holmer-rmcat-transport-wide-cc-extensions).
    pub transport_seq: u64,
    /// When the pacer released the packet (abs-send-time).
    pub send_time: Timestamp,
    /// Media payload bytes (the wire size adds the header overhead).
    pub payload_size: DataSize,
    pub frame_id: u64,
    pub frame_capture_time: Timestamp,
    /// Index of this packet within its frame and the frame's packet count.
    pub frame_packet_index: u32,
    pub frame_packet_count: u32,
    pub keyframe: bool,
}

impl RtpPacket {
    /// A ULPFEC packet (`chromium_fec`): no media, a frame's id.
    pub fn is_fec(&self) -> bool {
        self.frame_packet_count == 0 && self.frame_id != u64::MAX
    }
}

/// Wire overheads.
#[derive(Debug, Clone, PartialEq)]
pub struct WireSizes {
    /// IPv4 + UDP + RTP + header extensions: 20 + 8 + 12 + 8 = 48 B.
    pub rtp_overhead: DataSize,
    /// Largest packet on the wire (1200 B).
    pub max_packet: DataSize,
    /// Transport feedback: fixed part (IP/UDP 28 + RTCP 20) and per packet (2 B).
    pub feedback_fixed: DataSize,
    pub feedback_per_packet: DataSize,
    /// REMB: 28 + 24 B; receiver report: 28 + 32 B.
    pub remb: DataSize,
    pub receiver_report: DataSize,
}

impl Default for WireSizes {
    fn default() -> Self {
        Self {
            rtp_overhead: DataSize::bytes(48),
            max_packet: DataSize::bytes(1200),
            feedback_fixed: DataSize::bytes(48),
            feedback_per_packet: DataSize::bytes(2),
            remb: DataSize::bytes(52),
            receiver_report: DataSize::bytes(60),
        }
    }
}
