//! The sender's reference rate r_ref (RFC 8698 section 4.3): accelerated ramp-up while
//! the receiver reports rmode = 0, the gradual (delay-gradient and offset) update
//! otherwise, and the final clip into [RMIN, RMAX].

use super::config::NadaConfig;
use crate::units::{Bitrate, TimeDelta};

/// RFC 8698 section 4.3, the ramp-up factor:
/// `gamma = min(GAMMA_MAX, QBOUND / (rtt + DELTA + DFILT))`.
pub fn ramp_up_gamma(rtt: TimeDelta, cfg: &NadaConfig) -> f64 {
    let denom = (rtt.max(TimeDelta::ZERO) + cfg.delta + cfg.dfilt).as_secs_f64();
    if denom <= 0.0 {
        return cfg.gamma_max;
    }
    (cfg.qbound.as_secs_f64() / denom).min(cfg.gamma_max)
}

/// RFC 8698 section 4.3, accelerated ramp-up: `r_ref = max(r_ref, (1 + gamma) * r_recv)`.
pub fn accelerated_ramp_up(
    r_ref: Bitrate,
    r_recv: Bitrate,
    rtt: TimeDelta,
    cfg: &NadaConfig,
) -> Bitrate {
    let gamma = ramp_up_gamma(rtt, cfg);
    r_ref.max(r_recv * (1.0 + gamma))
}

/// RFC 8698 section 4.3, gradual rate update:
///
/// ```text
/// x_offset = x_curr - PRIO * XREF * RMAX / r_ref
/// x_diff   = x_curr - x_prev
/// r_ref    = r_ref - KAPPA * (delta / TAU) * (x_offset / TAU) * r_ref
///                  - KAPPA * ETA * (x_diff / TAU) * r_ref
/// ```
///
/// `delta` is the time since the previous update. The result is not yet clipped (it
/// may be zero; [`NadaConfig::clip`] applies RMIN and RMAX).
pub fn gradual_update(
    r_ref: Bitrate,
    x_curr: TimeDelta,
    x_prev: TimeDelta,
    delta: TimeDelta,
    cfg: &NadaConfig,
) -> Bitrate {
    let r = r_ref.as_bps().max(1.0);
    let tau = cfg.tau.as_secs_f64();
    let x_offset =
        x_curr.as_secs_f64() - cfg.prio * cfg.x_ref.as_secs_f64() * cfg.max_rate.as_bps() / r;
    let x_diff = x_curr.as_secs_f64() - x_prev.as_secs_f64();
    let d = delta.max(TimeDelta::ZERO).as_secs_f64();
    let next =
        r - cfg.kappa * (d / tau) * (x_offset / tau) * r - cfg.kappa * cfg.eta * (x_diff / tau) * r;
    Bitrate::bps(if next.is_finite() { next } else { 0.0 })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gamma_is_bounded() {
        let cfg = NadaConfig::default();
        // 50 / (30 + 100 + 120) = 0.2.
        assert!((ramp_up_gamma(TimeDelta::millis(30), &cfg) - 0.2).abs() < 1e-12);
        // Tiny RTT and no filter delay: 50 / 100 = 0.5 = GAMMA_MAX.
        let fast = NadaConfig {
            dfilt: TimeDelta::ZERO,
            ..cfg.clone()
        };
        assert!((ramp_up_gamma(TimeDelta::ZERO, &fast) - 0.5).abs() < 1e-12);
        let fast = NadaConfig {
            delta: TimeDelta::millis(20),
            ..fast
        };
        assert!((ramp_up_gamma(TimeDelta::ZERO, &fast) - 0.5).abs() < 1e-12);
    }

    #[test]
    fn ramp_up_never_decreases() {
        let cfg = NadaConfig::default();
        let rtt = TimeDelta::millis(30);
        // (1 + 0.2) * 500 kbit/s = 600 kbit/s.
        let r = accelerated_ramp_up(Bitrate::kbps(400.0), Bitrate::kbps(500.0), rtt, &cfg);
        assert!((r.as_kbps() - 600.0).abs() < 1e-9);
        let r = accelerated_ramp_up(Bitrate::kbps(700.0), Bitrate::kbps(500.0), rtt, &cfg);
        assert!((r.as_kbps() - 700.0).abs() < 1e-9);
    }

    #[test]
    fn gradual_update_hand_computed() {
        let cfg = NadaConfig::default();
        // r_ref = 1 Mbit/s: x_offset = 30 - 1 * 10 * 1.5 / 1.0 = 15 ms, x_diff = 10 ms,
        // delta = 100 ms: r = 1e6 * (1 - 0.5 * 0.2 * 0.03 - 0.5 * 2 * 0.02)
        //                   = 1e6 * (1 - 0.003 - 0.02) = 977 000 bit/s.
        let r = gradual_update(
            Bitrate::mbps(1.0),
            TimeDelta::millis(30),
            TimeDelta::millis(20),
            TimeDelta::millis(100),
            &cfg,
        );
        assert!((r.as_bps() - 977_000.0).abs() < 1e-6, "{r}");
        // At equilibrium (x = 15 ms, steady) the rate holds.
        let r = gradual_update(
            Bitrate::mbps(1.0),
            TimeDelta::millis(15),
            TimeDelta::millis(15),
            TimeDelta::millis(100),
            &cfg,
        );
        assert!((r.as_bps() - 1e6).abs() < 1e-6);
        // No congestion: x_offset = -15 ms -> increase 0.5 * 0.2 * 0.03 = 0.3 %.
        let r = gradual_update(
            Bitrate::mbps(1.0),
            TimeDelta::ZERO,
            TimeDelta::ZERO,
            TimeDelta::millis(100),
            &cfg,
        );
        assert!((r.as_bps() - 1_003_000.0).abs() < 1e-6);
    }
}
