//! The sender transmission control: the send window (draft 4.3.1; libwebrtc
//! `ScreamV2::max_data_in_flight`, the congestion window libwebrtc's pacer obeys) and
//! the pacing rate (libwebrtc `ScreamV2::pacing_rate`; draft 4.3.2 with
//! `draft_pacing`).

use super::ScreamV2Config;
use crate::units::{Bitrate, DataSize, TimeDelta, Timestamp};

/// ref_window x (REF_WND_OVERHEAD_MIN + (MAX - MIN) x delay scale), the delay scale
/// allowed down to 0 (draft 4.3.1 ref_wnd_overhead).
pub fn send_window(cfg: &ScreamV2Config, ref_window: DataSize, delay_scale: f64) -> DataSize {
    let overhead = cfg.ref_window_overhead_min
        + (cfg.ref_window_overhead_max - cfg.ref_window_overhead_min) * delay_scale;
    super::ref_window::scale(ref_window, overhead)
}

/// libwebrtc: target x PacingFactor. The draft (4.3.2): max(RATE_PACE_MIN, target) x
/// PACKET_PACING_HEADROOM, divided by the relaxed-pacing scale
/// clamp(1 - (target / max - LIMIT_LOW) / (1 - LIMIT_LOW), 1 / MAX_RELAXED, 1).
pub fn pacing_rate(cfg: &ScreamV2Config, target: Bitrate) -> Bitrate {
    if !cfg.draft_pacing {
        return target * cfg.pacing_factor;
    }
    let pace = target.max(cfg.rate_pace_min) * cfg.packet_pacing_headroom;
    let nominal = target.as_bps() / cfg.max_rate.as_bps();
    let relax =
        ((nominal - cfg.relaxed_pacing_limit_low) / (1.0 - cfg.relaxed_pacing_limit_low)).min(1.0);
    let scale = (1.0 - relax).clamp(1.0 / cfg.max_relaxed_pacing_factor, 1.0);
    pace / scale
}

/// The pacer's burst window (libwebrtc `ScreamNetworkController::MaybeCreatePacerConfig`):
/// `pacing_window` once more than `large_bursts_after_congestion` has passed since the
/// last reaction to congestion (or before any), else `pacing_window_after_congestion`.
pub fn pacing_window(
    cfg: &ScreamV2Config,
    now: Timestamp,
    last_reaction: Option<Timestamp>,
) -> TimeDelta {
    match last_reaction {
        Some(t) if now.saturating_since(t) <= cfg.large_bursts_after_congestion => {
            cfg.pacing_window_after_congestion
        }
        _ => cfg.pacing_window,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_burst_window_narrows_for_15_s_after_a_reaction() {
        let cfg = ScreamV2Config::default();
        let t = Timestamp::from_micros(100_000_000);
        assert_eq!(pacing_window(&cfg, t, None), TimeDelta::millis(40));
        assert_eq!(pacing_window(&cfg, t, Some(t)), TimeDelta::millis(10));
        let later = t + TimeDelta::secs(15);
        assert_eq!(pacing_window(&cfg, later, Some(t)), TimeDelta::millis(10));
        let after = later + TimeDelta::millis(1);
        assert_eq!(pacing_window(&cfg, after, Some(t)), TimeDelta::millis(40));
    }

    #[test]
    fn send_window_spans_the_two_overheads() {
        let cfg = ScreamV2Config::default();
        let w = DataSize::bytes(10_000);
        assert_eq!(send_window(&cfg, w, 0.0), DataSize::bytes(15_000));
        assert_eq!(send_window(&cfg, w, 1.0), DataSize::bytes(30_000));
    }

    #[test]
    fn libwebrtc_paces_at_1_1_x_the_target() {
        let cfg = ScreamV2Config::default();
        assert_eq!(pacing_rate(&cfg, Bitrate::mbps(1.0)), Bitrate::mbps(1.1));
    }

    #[test]
    fn draft_pacing_relaxes_near_the_maximum() {
        let cfg = ScreamV2Config::draft();
        // Below 0.8 x max: max(50k, target) x 1.5.
        assert_eq!(pacing_rate(&cfg, Bitrate::mbps(1.0)), Bitrate::mbps(1.5));
        assert_eq!(pacing_rate(&cfg, Bitrate::kbps(10.0)), Bitrate::kbps(75.0));
        // At max: scale 1/4, pacing 4 x 1.5 x target.
        assert_eq!(pacing_rate(&cfg, Bitrate::mbps(2.5)), Bitrate::mbps(15.0));
    }
}
