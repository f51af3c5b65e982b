//! How many ULPFEC packets Chromium sends, and how large: libwebrtc
//! `modules/rtp_rtcp/source/ulpfec_generator.cc` (`AddPacketAndGenerateFec`,
//! `ExcessOverheadBelowMax`, `MinimumMediaPacketsReached`, `GetFecPackets`),
//! `forward_error_correction.cc` (`NumFecPackets`, `GenerateFecPayloads`),
//! `ulpfec_header_reader_writer.cc` (the header sizes) and
//! `forward_error_correction_internal.h` (WebRTC M150, signalapp/webrtc bd635df).
//!
//! The generator collects the media packets as the pacer sends them (`RtpSenderEgress`
//! hands every `fec_protect_packet` to it); on a frame's last packet (the marker bit) it
//! encodes a block when the block spans `max_fec_frames` frames, or when its overhead is
//! within 50/256 of the factor and it holds enough media packets. Modelled: the count
//! and each FEC packet's size, not the XOR payloads nor the packet masks. A FEC packet is
//! as long as the longest media packet it protects; which packets that are depends on
//! the mask table (`kFecMaskRandom`), so the model takes the longest of the block (the
//! same when the block's packets have one size, as a frame's packets do here; an upper
//! bound otherwise, by at most the spread of the block's packet sizes).

use crate::units::DataSize;

/// `kUlpfecMaxMediaPackets` (forward_error_correction_internal.h): a block protects at
/// most this many media packets; later ones are not added.
pub const ULPFEC_MAX_MEDIA_PACKETS: usize = 48;
/// `kUlpfecMaxMediaPacketsLBitClear`: up to this many the packet mask is 2 bytes
/// (`kUlpfecPacketMaskSizeLBitClear`), above it 6 (`...LBitSet`).
pub const ULPFEC_MAX_MEDIA_PACKETS_L_BIT_CLEAR: usize = 16;
/// `kFecLevel0HeaderSize` (ulpfec_header_reader_writer.cc).
pub const FEC_LEVEL0_HEADER: u64 = 10;
/// `kRedForFecHeaderLength` (ulpfec_generator.cc): the RED header of a FEC packet.
pub const RED_FOR_FEC_HEADER: u64 = 1;
/// `kMaxExcessOverhead` (Q8).
pub const MAX_EXCESS_OVERHEAD: i32 = 50;
/// `kMinMediaPackets`: the block's minimum above `kHighProtectionThreshold`.
pub const MIN_MEDIA_PACKETS: usize = 4;
/// `kHighProtectionThreshold` (Q8).
pub const HIGH_PROTECTION_THRESHOLD: u8 = 80;
/// `kMinMediaPacketsAdaptationThreshold` (packets per frame).
pub const MIN_MEDIA_PACKETS_ADAPTATION_THRESHOLD: f32 = 2.0;

/// `FecProtectionParams` (the part the generator reads; the mask type is
/// `kFecMaskRandom` in Chromium and does not change the count).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FecParams {
    /// `fec_rate`: FEC packets per media packet, Q8.
    pub fec_rate: u8,
    /// `max_fec_frames`.
    pub max_fec_frames: i32,
}

impl Default for FecParams {
    fn default() -> Self {
        Self {
            fec_rate: 0,
            max_fec_frames: 1,
        }
    }
}

/// `ForwardErrorCorrection::NumFecPackets`: round(media x factor / 256), at least one
/// when the factor is positive.
pub fn num_fec_packets(num_media_packets: usize, protection_factor: u8) -> usize {
    let n = (num_media_packets * usize::from(protection_factor) + (1 << 7)) >> 8;
    if protection_factor > 0 && n == 0 {
        1
    } else {
        n
    }
}

/// `UlpfecHeaderSize(PacketMaskSize(num_media_packets))`: 10 + 2 + a 2- or 6-byte mask.
pub fn ulpfec_header_size(num_media_packets: usize) -> u64 {
    let mask = if num_media_packets > ULPFEC_MAX_MEDIA_PACKETS_L_BIT_CLEAR {
        6
    } else {
        2
    };
    FEC_LEVEL0_HEADER + 2 + mask
}

/// One media packet as the generator sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProtectedPacket {
    /// The bytes after the 12-byte fixed RTP header (`data.size() - kRtpHeaderSize`:
    /// header extensions and payload), which a FEC packet XORs.
    pub protected_len: DataSize,
    /// The frame's last packet (the marker bit).
    pub marker: bool,
    pub keyframe: bool,
}

/// The ULPFEC generator's block state (`UlpfecGenerator`).
#[derive(Debug, Clone, Default)]
pub struct UlpfecGenerator {
    /// (delta, key) parameters in use and pending (`SetProtectionParameters` takes
    /// effect at the next media packet).
    current: (FecParams, FecParams),
    pending: Option<(FecParams, FecParams)>,
    min_num_media_packets: usize,
    media_lens: Vec<DataSize>,
    num_protected_frames: i32,
    media_contains_keyframe: bool,
}

impl UlpfecGenerator {
    pub fn new() -> Self {
        Self {
            min_num_media_packets: 1,
            ..Self::default()
        }
    }

    /// `SetProtectionParameters(delta, key)`.
    pub fn set_protection_parameters(&mut self, delta: FecParams, key: FecParams) {
        self.pending = Some((delta, key));
    }

    /// `CurrentParams`: the key-frame parameters while the block holds a key frame.
    pub fn current_params(&self) -> FecParams {
        if self.media_contains_keyframe {
            self.current.1
        } else {
            self.current.0
        }
    }

    /// Media packets in the current block.
    pub fn block_len(&self) -> usize {
        self.media_lens.len()
    }

    /// `Overhead`: FEC packets per media packet of the block, Q8.
    fn overhead(&self) -> i32 {
        let m = self.media_lens.len().max(1);
        let n = num_fec_packets(m, self.current_params().fec_rate);
        i32::try_from((n << 8) / m).unwrap_or(i32::MAX)
    }

    fn excess_overhead_below_max(&self) -> bool {
        self.overhead() - i32::from(self.current_params().fec_rate) < MAX_EXCESS_OVERHEAD
    }

    fn minimum_media_packets_reached(&self) -> bool {
        let n = self.media_lens.len();
        let avg = n as f32 / self.num_protected_frames.max(1) as f32;
        if avg < MIN_MEDIA_PACKETS_ADAPTATION_THRESHOLD {
            n >= self.min_num_media_packets
        } else {
            n > self.min_num_media_packets
        }
    }

    /// `AddPacketAndGenerateFec` then `GetFecPackets`: the sizes of the FEC packets this
    /// media packet completes (empty when none), each the RED header, the ULPFEC header
    /// and the longest protected length of the block (the RTP header, a copy of the last
    /// media packet's, comes on top as the media's per-packet overhead).
    pub fn add_packet(&mut self, p: ProtectedPacket) -> Vec<DataSize> {
        if let Some(params) = self.pending.take() {
            self.current = params;
            self.min_num_media_packets =
                if self.current_params().fec_rate > HIGH_PROTECTION_THRESHOLD {
                    MIN_MEDIA_PACKETS
                } else {
                    1
                };
        }
        if p.keyframe {
            self.media_contains_keyframe = true;
        }
        if self.media_lens.len() < ULPFEC_MAX_MEDIA_PACKETS {
            self.media_lens.push(p.protected_len);
        }
        if p.marker {
            self.num_protected_frames += 1;
        }
        let params = self.current_params();
        if !(p.marker
            && (self.num_protected_frames >= params.max_fec_frames
                || (self.excess_overhead_below_max() && self.minimum_media_packets_reached())))
        {
            return Vec::new();
        }
        let m = self.media_lens.len();
        let n = if params.fec_rate == 0 {
            0
        } else {
            num_fec_packets(m, params.fec_rate)
        };
        let longest = self
            .media_lens
            .iter()
            .copied()
            .fold(DataSize::ZERO, DataSize::max);
        // `EncodeFec` with no FEC packet leaves the block as it is only through
        // `ResetState` in `AddPacketAndGenerateFec`; with FEC, `GetFecPackets` resets it.
        self.reset();
        let size = DataSize::bytes(RED_FOR_FEC_HEADER + ulpfec_header_size(m)) + longest;
        vec![size; n]
    }

    /// `ResetState`.
    fn reset(&mut self) {
        self.media_lens.clear();
        self.num_protected_frames = 0;
        self.media_contains_keyframe = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pkt(len: u64, marker: bool) -> ProtectedPacket {
        ProtectedPacket {
            protected_len: DataSize::bytes(len),
            marker,
            keyframe: false,
        }
    }

    fn params(rate: u8, frames: i32) -> FecParams {
        FecParams {
            fec_rate: rate,
            max_fec_frames: frames,
        }
    }

    #[test]
    fn num_fec_packets_rounds_and_keeps_one() {
        assert_eq!(num_fec_packets(1, 0), 0);
        assert_eq!(num_fec_packets(1, 64), 1); // 0.25 rounds to 0, at least one
        assert_eq!(num_fec_packets(4, 64), 1);
        assert_eq!(num_fec_packets(10, 64), 3); // 2.5 -> 3 (+128 >> 8)
        assert_eq!(num_fec_packets(10, 255), 10);
    }

    #[test]
    fn header_size_follows_the_mask_length() {
        assert_eq!(ulpfec_header_size(1), 14);
        assert_eq!(ulpfec_header_size(16), 14);
        assert_eq!(ulpfec_header_size(17), 18);
    }

    #[test]
    fn a_frame_of_many_packets_is_protected_at_once() {
        let mut g = UlpfecGenerator::new();
        g.set_protection_parameters(params(64, 1), params(128, 1));
        for _ in 0..7 {
            assert!(g.add_packet(pkt(1000, false)).is_empty());
        }
        // 8 packets at 64/256: 2 FEC packets of 1 + 14 + 1000 B.
        let fec = g.add_packet(pkt(1000, true));
        assert_eq!(fec, vec![DataSize::bytes(1015); 2]);
        assert_eq!(g.block_len(), 0);
    }

    #[test]
    fn small_frames_wait_for_max_fec_frames() {
        let mut g = UlpfecGenerator::new();
        g.set_protection_parameters(params(64, 3), params(64, 3));
        // One packet per frame: overhead 256 - 64 > 50, so the block grows.
        assert!(g.add_packet(pkt(500, true)).is_empty());
        assert!(g.add_packet(pkt(600, true)).is_empty());
        // The third frame reaches max_fec_frames: one FEC packet over three, as long
        // as the longest.
        assert_eq!(g.add_packet(pkt(400, true)), vec![DataSize::bytes(615)]);
    }

    #[test]
    fn high_protection_needs_four_media_packets() {
        let mut g = UlpfecGenerator::new();
        // 128/256 over 2 packets: overhead exactly the factor, but fewer than 4 + 1.
        g.set_protection_parameters(params(128, 6), params(128, 6));
        assert!(g.add_packet(pkt(800, false)).is_empty());
        assert!(g.add_packet(pkt(800, true)).is_empty());
        assert!(g.add_packet(pkt(800, false)).is_empty());
        assert!(g.add_packet(pkt(800, false)).is_empty());
        // 5 packets, 2.5 per frame >= 2: needs more than 4.
        assert_eq!(g.add_packet(pkt(800, true)).len(), 3);
    }

    #[test]
    fn key_frames_take_the_key_parameters() {
        let mut g = UlpfecGenerator::new();
        g.set_protection_parameters(params(0, 1), params(255, 1));
        let fec = g.add_packet(ProtectedPacket {
            protected_len: DataSize::bytes(900),
            marker: true,
            keyframe: true,
        });
        assert_eq!(fec.len(), 1);
        // Delta frames at 0: no FEC, and the block is reset.
        assert!(g.add_packet(pkt(900, true)).is_empty());
        assert_eq!(g.block_len(), 0);
    }

    #[test]
    fn parameters_take_effect_at_the_next_packet() {
        let mut g = UlpfecGenerator::new();
        assert!(g.add_packet(pkt(900, true)).is_empty());
        g.set_protection_parameters(params(255, 1), params(255, 1));
        assert_eq!(g.current_params().fec_rate, 0);
        assert_eq!(g.add_packet(pkt(900, true)).len(), 1);
        assert_eq!(g.current_params().fec_rate, 255);
    }

    #[test]
    fn at_most_48_media_packets_per_block() {
        let mut g = UlpfecGenerator::new();
        g.set_protection_parameters(params(255, 1), params(255, 1));
        for _ in 0..59 {
            assert!(g.add_packet(pkt(100, false)).is_empty());
        }
        let fec = g.add_packet(pkt(100, true));
        assert_eq!(fec.len(), 48);
        assert_eq!(fec[0], DataSize::bytes(1 + 18 + 100));
    }
}
