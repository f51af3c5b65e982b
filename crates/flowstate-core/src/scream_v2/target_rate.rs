//! The target bitrate from the reference window and the RTT (libwebrtc
//! `ScreamV2::UpdateTargetRate`; draft 4.4): target = scale x ref_window / (s_rtt +
//! feedback hold time), scale = 1 - clamp(MSS / ref_window - 0.1, 0, 0.2); halved while
//! an undrained queue is drained, then the delay estimate is reset (draft 4.5.1);
//! clamped to [min_rate, max_rate]. With `draft_media_rate` the draft's 4.4 formula.

use super::media_rate::MediaRateAdjust;
use super::queue_delay::QueueDelay;
use super::ScreamV2Config;
use crate::units::{Bitrate, DataSize, TimeDelta, Timestamp};

/// libwebrtc's floor of the RTT in the target ("avoid division by zero").
pub const MIN_RTT: TimeDelta = TimeDelta::millis(1);
/// libwebrtc's shortest drain (max(100 ms, QDelayDrainRtts x s_rtt)).
pub const MIN_DRAIN_TIME: TimeDelta = TimeDelta::millis(100);

/// 1 - clamp(mss_ratio - 0.1, 0, 0.2): up to 20 % lower when the window is a few MSS.
pub fn small_window_scale(mss_ratio: f64) -> f64 {
    1.0 - (mss_ratio - 0.1).clamp(0.0, 0.2)
}

/// The unclamped target before draining.
pub fn window_rate(
    cfg: &ScreamV2Config,
    window: DataSize,
    mss_ratio: f64,
    srtt: TimeDelta,
    hold: TimeDelta,
    media: &MediaRateAdjust,
) -> Bitrate {
    let rtt = srtt.max(MIN_RTT);
    let mut scale = small_window_scale(mss_ratio);
    if cfg.draft_media_rate {
        // tmp_t *= MSS / (MSS + PACKET_OVERHEAD); tmp_t /= 1.2 + adjust + dev;
        // target = tmp_t x 8 x ref_wnd / s_rtt
        let mss = cfg.mss.as_bytes() as f64;
        scale *= mss / (mss + cfg.packet_overhead.as_bytes() as f64);
        scale *= media.divisor_scale();
        return (window / rtt) * scale;
    }
    (window / (rtt + hold)) * scale
}

/// The reference window whose [`window_rate`] is `rate`: its inverse, so that a rate
/// set from outside (coupling) is the target the next feedback starts from. Not in
/// libwebrtc or the draft, which have no external rate.
///
/// x = rate x (s_rtt + hold) (draft: rate x s_rtt / (MSS / (MSS + overhead) x
/// divisor)) is window x small_window_scale, which is window for window >= 10 MSS,
/// 1.1 window - MSS between MSS / 0.3 and 10 MSS, and 0.8 window below: continuous
/// and increasing, inverted piece by piece.
pub fn window_for_rate(
    cfg: &ScreamV2Config,
    rate: Bitrate,
    srtt: TimeDelta,
    hold: TimeDelta,
    media: &MediaRateAdjust,
) -> DataSize {
    let rtt = srtt.max(MIN_RTT);
    let scaled = if cfg.draft_media_rate {
        let mss = cfg.mss.as_bytes() as f64;
        let media_scale =
            mss / (mss + cfg.packet_overhead.as_bytes() as f64) * media.divisor_scale();
        (rate * (1.0 / media_scale)) * rtt
    } else {
        rate * (rtt + hold)
    };
    let x = scaled.as_bytes() as f64;
    let mss = cfg.mss.as_bytes() as f64;
    let window = if x >= 10.0 * mss {
        x
    } else if x >= mss / 0.3 * 0.8 {
        (x + mss) / 1.1
    } else {
        x / 0.8
    };
    DataSize::bytes(window.round() as u64)
}

#[derive(Debug, Clone, Default)]
pub struct TargetRate {
    drain_start: Option<Timestamp>,
}

impl TargetRate {
    /// Whether the target is currently halved to drain the queue.
    pub fn draining(&self) -> bool {
        self.drain_start.is_some()
    }

    /// The clamped target for `rate` (from [`window_rate`]) at `now`.
    pub fn update(
        &mut self,
        cfg: &ScreamV2Config,
        now: Timestamp,
        rate: Bitrate,
        delay: &mut QueueDelay,
    ) -> Bitrate {
        let mut rate = rate;
        if !delay.drained_in_time(now) {
            let start = *self.drain_start.get_or_insert(now);
            let period = MIN_DRAIN_TIME.max(delay.srtt().max(MIN_RTT) * cfg.qdelay_drain_rtts);
            if now.saturating_since(start) < period {
                rate = rate * 0.5;
            } else {
                delay.reset();
            }
        } else {
            self.drain_start = None;
        }
        rate.max(cfg.min_rate).min(cfg.max_rate)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn target_is_window_over_rtt_plus_hold() {
        let cfg = ScreamV2Config::default();
        let media = MediaRateAdjust::new(&cfg);
        // 25000 B over 50 ms + 0 hold = 4 Mbit/s; MSS ratio 0.0512 < 0.1: scale 1.
        let r = window_rate(
            &cfg,
            DataSize::bytes(25_000),
            0.0512,
            TimeDelta::millis(50),
            TimeDelta::ZERO,
            &media,
        );
        assert_eq!(r, Bitrate::mbps(4.0));
        // With 12.5 ms hold: 25000 x 8 / 62.5 ms = 3.2 Mbit/s.
        let r = window_rate(
            &cfg,
            DataSize::bytes(25_000),
            0.0512,
            TimeDelta::millis(50),
            TimeDelta::from_micros(12_500),
            &media,
        );
        assert!((r.as_mbps() - 3.2).abs() < 1e-9);
    }

    #[test]
    fn small_windows_scale_the_target_down_by_at_most_a_fifth() {
        assert_eq!(small_window_scale(0.05), 1.0);
        assert!((small_window_scale(0.2) - 0.9).abs() < 1e-12);
        assert!((small_window_scale(1.0) - 0.8).abs() < 1e-12);
    }

    #[test]
    fn draft_media_rate_divides_by_1_2_and_the_packet_overhead() {
        let cfg = ScreamV2Config {
            draft_media_rate: true,
            ..ScreamV2Config::default()
        };
        let media = MediaRateAdjust::new(&cfg);
        let r = window_rate(
            &cfg,
            DataSize::bytes(25_000),
            0.0512,
            TimeDelta::millis(50),
            TimeDelta::millis(20),
            &media,
        );
        // 4 Mbit/s x 1280 / 1300 / 1.2 (the hold time does not count).
        assert!((r.as_mbps() - 4.0 * 1280.0 / 1300.0 / 1.2).abs() < 1e-9);
    }

    #[test]
    fn window_for_rate_inverts_window_rate_at_every_window_size() {
        let media = MediaRateAdjust::new(&ScreamV2Config::default());
        for cfg in [ScreamV2Config::default(), ScreamV2Config::draft()] {
            let mss = cfg.mss.as_bytes() as f64;
            let (srtt, hold) = (TimeDelta::millis(100), TimeDelta::millis(12));
            // From below MSS / 0.3 (scale 0.8) through the 1.1 W - MSS piece to W >= 10 MSS.
            for kbps in [20.0, 60.0, 150.0, 300.0, 700.0, 1_000.0, 2_500.0, 10_000.0] {
                let rate = Bitrate::kbps(kbps);
                let w = window_for_rate(&cfg, rate, srtt, hold, &media);
                let ratio = (mss / w.as_bytes() as f64).min(1.0);
                let back = window_rate(&cfg, w, ratio, srtt, hold, &media);
                // Within the rounding of the window to whole bytes.
                assert!(
                    (back.as_bps() / rate.as_bps() - 1.0).abs() < 5e-3,
                    "{kbps} kbit/s: window {w} gives {back}"
                );
            }
        }
    }

    #[test]
    fn clamped_to_min_and_max() {
        let cfg = ScreamV2Config::default();
        let mut t = TargetRate::default();
        let mut d = QueueDelay::new(&cfg);
        let now = Timestamp::from_secs(1);
        assert_eq!(
            t.update(&cfg, now, Bitrate::mbps(10.0), &mut d),
            cfg.max_rate
        );
        assert_eq!(
            t.update(&cfg, now, Bitrate::kbps(1.0), &mut d),
            cfg.min_rate
        );
    }
}
