//! The protection factors of Chromium's hybrid NACK/FEC method: libwebrtc
//! `modules/video_coding/media_opt_util.cc` (WebRTC M150, signalapp/webrtc bd635df),
//! `VCMFecMethod::ProtectionFactor`, `BitsPerFrame`, `ConvertFECRate`,
//! `BoostCodeRateKey` and `VCMNackFecMethod::{ProtectionFactor, ComputeMaxFramesFec,
//! BitRateTooLowForFec, UpdateParameters}` (`VCMLossProtectionLogic::SetMethod` picks
//! `VCMNackFecMethod(kLowRttNackMs, -1)` when NACK and ULPFEC are both on, as in a
//! browser's VP8 call). The arithmetic follows the C++ types: `u8` factors in Q8,
//! `float` intermediates, truncating `saturated_cast`s.
//!
//! Not modelled: temporal layers (one layer: `numLayers` 1, the whole rate and frame
//! rate are the base layer's), `_corrFecCost` (computed by the sources but read by
//! nothing on this path) and the effective packet loss (always 0 in the sources).

use super::rate_table::{FEC_RATE_TABLE, FEC_RATE_TABLE_SIZE};

/// `kPacketLossMax` (media_opt_util.cc): loss in Q8 is clamped below it; also the cap
/// (exclusive) of a protection factor before `ConvertFECRate`.
pub const PACKET_LOSS_MAX: u8 = 129;
/// `kLowRttNackMs` (media_opt_util.h): below this RTT the hybrid method is NACK only
/// (no delta-frame FEC).
pub const LOW_RTT_NACK_MS: i64 = 20;
/// `VCMNackFecMethod::kUpperLimitFramesFec` (media_opt_util.h).
pub const UPPER_LIMIT_FRAMES_FEC: i32 = 6;
/// `kMaxBytesPerFrameForFec`, `...Low` (<= 352 x 288 pixels), `...High` (> 640 x 480)
/// (media_opt_util.h): under these bytes per frame (and RTT < 200 ms) no FEC.
pub const MAX_BYTES_PER_FRAME_FOR_FEC: i32 = 700;
pub const MAX_BYTES_PER_FRAME_FOR_FEC_LOW: i32 = 400;
pub const MAX_BYTES_PER_FRAME_FOR_FEC_HIGH: i32 = 1000;
/// `kMaxRttTurnOffFec` (`BitRateTooLowForFec`), ms.
pub const MAX_RTT_TURN_OFF_FEC_MS: i64 = 200;
/// `VCMProtectionMethod::_maxPayloadSize` (1460 B, never changed by the controller:
/// `FecControllerDefault::SetEncodingData` keeps its own copy).
pub const METHOD_MAX_PAYLOAD: f32 = 1460.0;
/// `VCMProtectionMethod::_scaleProtKey`.
const SCALE_PROT_KEY: f32 = 2.0;

/// What `VCMLossProtectionLogic::UpdateMethod` hands the method
/// (`VCMProtectionParameters`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ProtectionInput {
    /// `rtt`, ms.
    pub rtt_ms: i64,
    /// The filtered loss in Q8 (`UpdateFilteredLossPr(packetLossEnc)`, 0..=255).
    pub loss_q8: u8,
    /// `bitRate`, kbit/s (the payload rate `UpdateFecRates` is given).
    pub bitrate_kbps: f32,
    /// `frameRate` (the sent frame rate, at least 1).
    pub frame_rate: f32,
    /// The filtered packets per delta / key frame (`_packetsPerFrame.filtered()`).
    pub packets_per_frame: f32,
    pub packets_per_frame_key: f32,
    /// `codecWidth`, `codecHeight`.
    pub width: u32,
    pub height: u32,
}

/// The method's result (`RequiredProtectionFactorK/D`, `MaxFramesFec`), in Q8 of the
/// media packets (after `ConvertFECRate`), as `FecProtectionParams::fec_rate` takes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ProtectionFactors {
    pub key: u8,
    pub delta: u8,
    pub max_fec_frames: i32,
}

/// `saturated_cast<uint8_t>(float)`: clamp, then truncate (Rust's `as` does both).
fn sat_u8(x: f32) -> u8 {
    x as u8
}

/// `VCMFecMethod::BitsPerFrame` with one layer: kbit per frame, truncated; the frame
/// rate at least 1.
pub fn bits_per_frame(bitrate_kbps: f32, frame_rate: f32) -> i32 {
    let fr = if frame_rate < 1.0 { 1.0 } else { frame_rate };
    (bitrate_kbps / fr) as i32
}

/// `VCMFecMethod::ConvertFECRate`: a factor of the total packets to one of the media
/// packets, min(255, 0.5 + 255 r / (255 - r)), truncated.
pub fn convert_fec_rate(code_rate_rtp: u8) -> u8 {
    let r = f64::from(code_rate_rtp);
    let v = 0.5 + 255.0 * r / f64::from(255.0f32 - code_rate_rtp as f32);
    v.min(255.0) as u8
}

/// `VCMFecMethod::BoostCodeRateKey`: max(2, key packets / delta packets) (integer).
pub fn boost_code_rate_key(packets_delta: u8, packets_key: u8) -> u8 {
    packets_key.checked_div(packets_delta).unwrap_or(1).max(2)
}

/// The table's rate index: clamp((eff - 5) / 5, 0, 49) (integer division toward zero).
fn rate_index(eff: i32) -> i32 {
    const RATE_PAR1: i32 = 5;
    const RATE_PAR2: i32 = 49;
    ((eff - RATE_PAR1) / RATE_PAR1).clamp(0, RATE_PAR2)
}

fn table(index: i32) -> u8 {
    let i = usize::try_from(index)
        .unwrap_or(0)
        .min(FEC_RATE_TABLE_SIZE - 1);
    FEC_RATE_TABLE[i]
}

/// `VCMFecMethod::ProtectionFactor`: (key, delta) factors in Q8 of the total packets,
/// before `ConvertFECRate`.
pub fn fec_protection_factor(p: &ProtectionInput) -> (u8, u8) {
    // "No protection if (filtered) packetLoss is 0".
    let loss_pr = (f64::from(p.loss_q8) / 255.0) as f32;
    let mut packet_loss = sat_u8(255.0 * loss_pr);
    if packet_loss == 0 {
        return (0, 0);
    }
    // First partition protection: ~20 %.
    let first_partition_prot = sat_u8(255.0 * 0.20);
    let loss_thr: u8 = 0;
    let packet_num_thr: u8 = 1;
    let spatial = (p.width as f32 * p.height as f32) / (704.0f32 * 576.0);
    let resoln_fac = (1.0 / f64::from(spatial.powf(0.3))) as f32;
    let bits = bits_per_frame(p.bitrate_kbps, p.frame_rate);
    let avg_tot_packets = sat_u8(1.5 + bits as f32 * 1000.0 / (8.0 * METHOD_MAX_PAYLOAD));
    let eff_rate = (resoln_fac * bits as f32).clamp(0.0, f32::from(u16::MAX)) as u16;
    let idx = rate_index(i32::from(eff_rate));
    if packet_loss >= PACKET_LOSS_MAX {
        packet_loss = PACKET_LOSS_MAX - 1;
    }
    let mut delta = table(idx * i32::from(PACKET_LOSS_MAX) + i32::from(packet_loss));
    if packet_loss > loss_thr && avg_tot_packets > packet_num_thr && delta < first_partition_prot {
        delta = first_partition_prot;
    }
    if delta >= PACKET_LOSS_MAX {
        delta = PACKET_LOSS_MAX - 1;
    }
    // Key frames: a boosted rate index, at least 2 x the delta factor and the loss.
    let pf_delta = sat_u8(0.5 + p.packets_per_frame);
    let pf_key = sat_u8(0.5 + p.packets_per_frame_key);
    let boost = i32::from(boost_code_rate_key(pf_delta, pf_key));
    let key_idx = (1 + (boost * i32::from(eff_rate) - 5) / 5).clamp(0, 49);
    let key_table = table(
        (key_idx * i32::from(PACKET_LOSS_MAX) + i32::from(packet_loss))
            .min(FEC_RATE_TABLE_SIZE as i32),
    );
    let mut boost_key_prot = (SCALE_PROT_KEY * f32::from(delta)) as i32;
    if boost_key_prot >= i32::from(PACKET_LOSS_MAX) {
        boost_key_prot = i32::from(PACKET_LOSS_MAX) - 1;
    }
    let mut key = i32::from(packet_loss)
        .max(boost_key_prot.max(i32::from(key_table)))
        .clamp(0, 255) as u8;
    if key >= PACKET_LOSS_MAX {
        key = PACKET_LOSS_MAX - 1;
    }
    (key, delta)
}

/// `VCMNackFecMethod::ComputeMaxFramesFec` (one layer): frames one FEC block may span,
/// so that a block completes within about an RTT: max(1, 2 fps rtt + 0.5), at most 6.
pub fn max_frames_fec(frame_rate: f32, rtt_ms: i64) -> i32 {
    let n = (2.0 * frame_rate * rtt_ms as f32 / 1000.0 + 0.5) as i32;
    n.clamp(1, UPPER_LIMIT_FRAMES_FEC)
}

/// `VCMNackFecMethod::BitRateTooLowForFec` (one layer): under the frame-size threshold
/// of the resolution and under 200 ms RTT, no FEC.
pub fn bitrate_too_low_for_fec(p: &ProtectionInput) -> bool {
    let bytes_per_frame = 1000 * bits_per_frame(p.bitrate_kbps, p.frame_rate) / 8;
    let pixels = u64::from(p.width) * u64::from(p.height);
    let max = if pixels <= 352 * 288 {
        MAX_BYTES_PER_FRAME_FOR_FEC_LOW
    } else if pixels > 640 * 480 {
        MAX_BYTES_PER_FRAME_FOR_FEC_HIGH
    } else {
        MAX_BYTES_PER_FRAME_FOR_FEC
    };
    bytes_per_frame < max && p.rtt_ms < MAX_RTT_TURN_OFF_FEC_MS
}

/// `VCMNackFecMethod::UpdateParameters`: the FEC factors, the delta factor 0 under
/// `kLowRttNackMs` (NACK only; the high-RTT threshold is -1: FEC and NACK at every
/// higher RTT, the RTT adjustment factor fixed at 1), both 0 when the rate is too low,
/// then converted to factors of the media packets.
pub fn nack_fec_factors(p: &ProtectionInput) -> ProtectionFactors {
    let (mut key, mut delta) = fec_protection_factor(p);
    if p.rtt_ms < LOW_RTT_NACK_MS {
        delta = 0;
    }
    let max_fec_frames = max_frames_fec(p.frame_rate, p.rtt_ms);
    if bitrate_too_low_for_fec(p) {
        key = 0;
        delta = 0;
    }
    ProtectionFactors {
        key: convert_fec_rate(key),
        delta: convert_fec_rate(delta),
        max_fec_frames,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(loss_q8: u8, kbps: f32, fps: f32, rtt_ms: i64) -> ProtectionInput {
        ProtectionInput {
            rtt_ms,
            loss_q8,
            bitrate_kbps: kbps,
            frame_rate: fps,
            packets_per_frame: 1.0,
            packets_per_frame_key: 1.0,
            width: 320,
            height: 180,
        }
    }

    #[test]
    fn convert_fec_rate_is_the_share_of_media_packets() {
        assert_eq!(convert_fec_rate(0), 0);
        // 51 / 255 of the total = 51 / 204 of the media: 63.75 + 0.5 -> 64.
        assert_eq!(convert_fec_rate(51), 64);
        // 128: 255 * 128 / 127 = 257 -> capped at 255.
        assert_eq!(convert_fec_rate(128), 255);
        assert_eq!(convert_fec_rate(85), 128);
    }

    #[test]
    fn bits_per_frame_truncates_and_floors_the_frame_rate() {
        assert_eq!(bits_per_frame(150.0, 3.0), 50);
        assert_eq!(bits_per_frame(100.0, 30.0), 3);
        assert_eq!(bits_per_frame(100.0, 0.0), 100);
    }

    #[test]
    fn boost_key_is_at_least_two() {
        assert_eq!(boost_code_rate_key(0, 9), 2);
        assert_eq!(boost_code_rate_key(2, 3), 2);
        assert_eq!(boost_code_rate_key(2, 9), 4);
    }

    #[test]
    fn no_loss_no_protection() {
        assert_eq!(fec_protection_factor(&input(0, 500.0, 30.0, 100)), (0, 0));
    }

    #[test]
    fn delta_factor_is_the_table_entry_with_the_first_partition_floor() {
        // 320 x 180: resolnFac = 1 / (57600 / 405504)^0.3 = 1.797; 150 kbit/s at 3
        // frames/s = 50 kbit per frame, effective 89 -> index (89 - 5) / 5 = 16.
        let p = input(13, 150.0, 3.0, 300);
        let idx = 16 * 129 + 13;
        let want = FEC_RATE_TABLE[idx].clamp(51, 128);
        assert_eq!(fec_protection_factor(&p).1, want);
        // A loss over 50 % (Q8 >= 129) reads the table's last column.
        let p = input(200, 150.0, 3.0, 300);
        let want = FEC_RATE_TABLE[16 * 129 + 128].clamp(51, 128);
        assert_eq!(fec_protection_factor(&p).1, want);
    }

    #[test]
    fn first_partition_floor_needs_more_than_one_packet_per_frame() {
        // 1 kbit per frame: avgTotPackets = 1.5 + 1000 / 11680 -> 1, no floor; index 0
        // of the table at loss 1 is 0.
        let p = input(1, 30.0, 30.0, 300);
        assert_eq!(fec_protection_factor(&p).1, FEC_RATE_TABLE[1]);
        assert_eq!(FEC_RATE_TABLE[1], 0);
    }

    #[test]
    fn key_factor_at_least_twice_delta_and_the_loss() {
        let p = input(40, 300.0, 10.0, 300);
        let (key, delta) = fec_protection_factor(&p);
        assert!(u32::from(key) >= (2 * u32::from(delta)).min(128));
        assert!(key >= 40);
        assert!(key < PACKET_LOSS_MAX && delta < PACKET_LOSS_MAX);
    }

    #[test]
    fn max_frames_fec_spans_about_an_rtt() {
        assert_eq!(max_frames_fec(3.0, 300), 2); // 2 x 3 x 0.3 + 0.5 = 2.3
        assert_eq!(max_frames_fec(30.0, 100), 6); // 6.5 -> 6, the upper limit
        assert_eq!(max_frames_fec(1.0, 10), 1);
    }

    #[test]
    fn too_low_for_fec_by_resolution_and_rtt() {
        // 30 kbit/s at 10 frames/s: 375 B per frame < 400 at 320 x 180.
        assert!(bitrate_too_low_for_fec(&input(20, 30.0, 10.0, 100)));
        // The same at 200 ms RTT: FEC allowed.
        assert!(!bitrate_too_low_for_fec(&input(20, 30.0, 10.0, 200)));
        // 40 kbit/s: 4 kbit (truncated) = 500 B per frame, over the low threshold.
        assert!(!bitrate_too_low_for_fec(&input(20, 40.0, 10.0, 100)));
        // At 640 x 480 the threshold is 700 B.
        let mut p = input(20, 40.0, 10.0, 100);
        p.width = 640;
        p.height = 480;
        assert!(bitrate_too_low_for_fec(&p));
    }

    #[test]
    fn low_rtt_is_nack_only_for_delta_frames() {
        let p = input(40, 300.0, 10.0, 19);
        let f = nack_fec_factors(&p);
        assert_eq!(f.delta, 0);
        assert!(f.key > 0);
        let f = nack_fec_factors(&input(40, 300.0, 10.0, 20));
        assert!(f.delta > 0);
    }

    #[test]
    fn factors_are_converted_to_media_packets() {
        let p = input(40, 300.0, 10.0, 300);
        let (key, delta) = fec_protection_factor(&p);
        let f = nack_fec_factors(&p);
        assert_eq!(f.delta, convert_fec_rate(delta));
        assert_eq!(f.key, convert_fec_rate(key));
        assert_eq!(f.max_fec_frames, 6);
    }
}
