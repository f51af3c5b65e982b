//! Property tests of the protection chain (`fec`).

use super::controller::{FecConfig, FecController, PROTECTION_OVERHEAD_RATE_THRESHOLD};
use super::loss_filter::MaxLossFilter;
use super::protection::{
    fec_protection_factor, nack_fec_factors, ProtectionInput, PACKET_LOSS_MAX,
};
use super::ulpfec::{
    num_fec_packets, ulpfec_header_size, FecParams, ProtectedPacket, UlpfecGenerator,
    RED_FOR_FEC_HEADER, ULPFEC_MAX_MEDIA_PACKETS,
};
use crate::units::{Bitrate, DataSize, TimeDelta, Timestamp};
use proptest::prelude::*;

proptest! {
    /// The FEC count never falls as the factor grows, never exceeds the media packets,
    /// and is at least one for any positive factor.
    #[test]
    fn fec_count_monotone_in_the_factor(m in 1usize..=48, f in 0u8..=254) {
        let a = num_fec_packets(m, f);
        let b = num_fec_packets(m, f + 1);
        prop_assert!(a <= b);
        prop_assert!(b <= m);
        prop_assert!(b >= 1);
    }

    /// Every factor stays in the sources' range: under `kPacketLossMax` before the
    /// conversion, the key factor at least the delta factor, nothing without loss.
    #[test]
    fn factors_in_range(loss in 0u8..=255, kbps in 1.0f32..5000.0, fps in 1.0f32..60.0,
                        rtt in 0i64..1000, ppf in 0.0f32..20.0, ppfk in 0.0f32..40.0) {
        let p = ProtectionInput { rtt_ms: rtt, loss_q8: loss, bitrate_kbps: kbps, frame_rate: fps,
            packets_per_frame: ppf, packets_per_frame_key: ppfk, width: 320, height: 180 };
        let (key, delta) = fec_protection_factor(&p);
        prop_assert!(key < PACKET_LOSS_MAX && delta < PACKET_LOSS_MAX);
        prop_assert!(key >= delta);
        if loss == 0 {
            prop_assert_eq!((key, delta), (0, 0));
        }
        let f = nack_fec_factors(&p);
        prop_assert!((1..=6).contains(&f.max_fec_frames));
        prop_assert!(f.key >= f.delta);
    }

    /// Over any sequence of frames, the FEC packets stay within the factor's bound:
    /// per block at most round(media x factor / 256) (or one), so in all at most
    /// media x factor / 256 + one per block; each no longer than the RED and ULPFEC
    /// headers plus the longest media packet; no block beyond 48 packets.
    #[test]
    fn fec_within_the_factors_bound(rate in 0u8..=255, frames_max in 1i32..=6,
                                    frames in proptest::collection::vec((1usize..12, 100u64..1200), 1..60)) {
        let mut g = UlpfecGenerator::new();
        let p = FecParams { fec_rate: rate, max_fec_frames: frames_max };
        g.set_protection_parameters(p, p);
        let (mut media, mut fec, mut blocks) = (0usize, 0usize, 0usize);
        let longest = frames.iter().map(|&(_, l)| l).max().unwrap_or(0);
        for &(n, len) in &frames {
            for i in 0..n {
                media += 1;
                let out = g.add_packet(ProtectedPacket { protected_len: DataSize::bytes(len), marker: i + 1 == n, keyframe: false });
                prop_assert!(g.block_len() <= ULPFEC_MAX_MEDIA_PACKETS);
                if !out.is_empty() {
                    blocks += 1;
                }
                for s in &out {
                    prop_assert!(*s <= DataSize::bytes(RED_FOR_FEC_HEADER + ulpfec_header_size(48) + longest));
                }
                fec += out.len();
            }
        }
        prop_assert!(fec as f64 <= media as f64 * f64::from(rate) / 256.0 + blocks as f64 + 1e-9,
            "fec {} media {} blocks {}", fec, media, blocks);
        if rate == 0 {
            prop_assert_eq!(fec, 0);
        }
    }

    /// The encoder's rate is the payload rate less at most half of it.
    #[test]
    fn encoder_share_within_the_threshold(sends in proptest::collection::vec((0u64..50, 50u64..1300, any::<bool>()), 1..200),
                                          kbps in 10.0f64..5000.0) {
        let mut c = FecController::new(FecConfig::default(), Timestamp::ZERO);
        let mut t = 0u64;
        for &(dt, size, is_fec) in &sends {
            t += dt;
            let now = Timestamp::from_millis(t);
            if is_fec {
                c.on_fec_sent(now, DataSize::bytes(size));
            } else {
                c.on_media_sent(now, DataSize::bytes(size), ProtectedPacket { protected_len: DataSize::bytes(size), marker: true, keyframe: false });
            }
        }
        let payload = Bitrate::kbps(kbps);
        let r = c.update_fec_rates(Timestamp::from_millis(t), payload, TimeDelta::millis(100));
        prop_assert!(r.as_bps() <= payload.as_bps() + 1e-9);
        prop_assert!(r.as_bps() >= payload.as_bps() * f64::from(1.0 - PROTECTION_OVERHEAD_RATE_THRESHOLD) - 1e-6);
    }

    /// The max filter never reports more than the largest loss of the last 10 s plus
    /// its 1 s window plus one gap between samples (a window's maximum is stored with the next window's
    /// first sample, here at most 3 s later), and 0 when there was none.
    #[test]
    fn loss_filter_bounded_by_recent_losses(samples in proptest::collection::vec((1i64..3000, 0u8..=255), 1..100)) {
        let mut f = MaxLossFilter::new();
        let mut t = 0i64;
        let mut seen: Vec<(i64, u8)> = Vec::new();
        for &(dt, loss) in &samples {
            t += dt;
            seen.push((t, loss));
            let out = f.filtered(t, loss);
            let recent = seen.iter().filter(|&&(s, _)| t - s <= 14_000).map(|&(_, l)| l).max().unwrap_or(0);
            prop_assert!(out <= recent, "{} > {} at {}", out, recent, t);
        }
    }
}
