//! The aggregated congestion signal x_curr (RFC 8698 section 4.2): the queuing delay,
//! non-linearly warped while losses are being observed, plus the equivalent-delay
//! penalties of ECN marking and packet loss.

use super::config::NadaConfig;
use super::loss_ratio::LossRatio;
use crate::units::TimeDelta;
#[cfg(test)]
use crate::units::Timestamp;

/// RFC 8698 section 4.2, non-linear warping of the queuing delay:
///
/// ```text
/// d_tilde = d_queue                                      if d_queue < QTH
///         = QTH * exp(-LAMBDA * (d_queue - QTH) / QTH)   otherwise
/// ```
pub fn warp(d_queue: TimeDelta, qth: TimeDelta, lambda: f64) -> TimeDelta {
    if d_queue < qth || !qth.is_positive() {
        return d_queue;
    }
    let q = qth.as_secs_f64();
    let ratio = (d_queue.as_secs_f64() - q) / q;
    TimeDelta::from_secs_f64(q * (-lambda * ratio).exp())
}

/// RFC 8698 section 4.2, the aggregated congestion signal:
///
/// ```text
/// x_curr = d_tilde + DMARK * (p_mark / PMRREF)^2 + DLOSS * (p_loss / PLRREF)^2
/// ```
pub fn aggregate(d_tilde: TimeDelta, p_mark: f64, p_loss: f64, cfg: &NadaConfig) -> TimeDelta {
    let mark = p_mark / cfg.pmr_ref;
    let loss = p_loss / cfg.plr_ref;
    let x = d_tilde.as_secs_f64()
        + cfg.d_mark.as_secs_f64() * mark * mark
        + cfg.d_loss.as_secs_f64() * loss * loss;
    let x = if x.is_finite() { x } else { 0.0 };
    let x = TimeDelta::from_secs_f64(x);
    match cfg.x_max {
        Some(max) => x.min(max),
        None => x,
    }
}

/// How the queuing delay enters x_curr.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum WarpMode {
    /// No recent loss: d_tilde = d_queue.
    Raw,
    /// A loss within MULTILOSS average loss intervals: d_tilde = warp(d_queue).
    Warped,
    /// (Option `warp_blend_after_expiry`.) Weight of the raw delay, in (0, 1).
    Blend(f64),
}

/// RFC 8698 section 4.2: the warping applies while the last observed loss is more
/// recent than loss_exp = MULTILOSS * loss_int packets (loss_int: the average loss
/// interval). With a single loss observed so far (no interval yet), warping stays on.
pub fn warp_mode(loss: &LossRatio, cfg: &NadaConfig) -> WarpMode {
    let Some((since, avg)) = loss.loss_interval() else {
        return WarpMode::Raw;
    };
    let Some(avg) = avg.filter(|a| *a > 0.0) else {
        return WarpMode::Warped;
    };
    let since = since as f64;
    let expiry = cfg.multiloss * avg;
    if since < expiry {
        WarpMode::Warped
    } else if cfg.warp_blend_after_expiry && since < expiry + avg {
        WarpMode::Blend((since - expiry) / avg)
    } else {
        WarpMode::Raw
    }
}

/// d_tilde for a warp mode.
pub fn d_tilde(d_queue: TimeDelta, mode: WarpMode, cfg: &NadaConfig) -> TimeDelta {
    match mode {
        WarpMode::Raw => d_queue,
        WarpMode::Warped => warp(d_queue, cfg.qth, cfg.lambda),
        WarpMode::Blend(w) => {
            let warped = warp(d_queue, cfg.qth, cfg.lambda);
            TimeDelta::from_secs_f64(w * d_queue.as_secs_f64() + (1.0 - w) * warped.as_secs_f64())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nada::loss_ratio::IntervalAverage;

    #[test]
    fn warping_below_and_above_qth() {
        let qth = TimeDelta::millis(50);
        assert_eq!(warp(TimeDelta::millis(30), qth, 0.5), TimeDelta::millis(30));
        // d_queue = QTH: exp(0) = 1 -> 50 ms.
        assert_eq!(warp(qth, qth, 0.5), qth);
        // d_queue = 150 ms: 50 * exp(-0.5 * 2) = 50 * 0.367879 = 18.394 ms.
        let w = warp(TimeDelta::millis(150), qth, 0.5);
        assert_eq!(w, TimeDelta::from_micros(18_394));
    }

    #[test]
    fn aggregate_adds_mark_and_loss_penalties() {
        let cfg = NadaConfig::default();
        // 20 ms + 2 ms * (0.01/0.01)^2 + 10 ms * (0.02/0.01)^2 = 20 + 2 + 40 = 62 ms.
        let x = aggregate(TimeDelta::millis(20), 0.01, 0.02, &cfg);
        assert_eq!(x, TimeDelta::millis(62));
        // No marking, no loss: x_curr = d_tilde.
        assert_eq!(
            aggregate(TimeDelta::millis(7), 0.0, 0.0, &cfg),
            TimeDelta::millis(7)
        );
        let capped = NadaConfig {
            x_max: Some(TimeDelta::millis(500)),
            ..cfg
        };
        assert_eq!(
            aggregate(TimeDelta::ZERO, 0.0, 1.0, &capped),
            TimeDelta::millis(500)
        );
    }

    /// With TFRC's average (the open interval counted, RFC 5348 section 5.4) loss_int is
    /// at least the packets since the last loss over the weight sum (at most 6), so
    /// with MULTILOSS = 7 the last loss never expires: warping stays on, as in the
    /// reference implementation.
    #[test]
    fn with_the_tfrc_average_the_last_loss_never_expires() {
        let cfg = NadaConfig::default();
        let mut l = LossRatio::new(cfg.alpha, cfg.logwin);
        let t = Timestamp::ZERO;
        for _ in 0..50 {
            l.on_received(t, false);
        }
        l.on_lost(t, 1);
        for _ in 0..8 {
            for _ in 0..10 {
                l.on_received(t, false);
            }
            l.on_lost(t, 1);
        }
        for n in 0..100_000 {
            assert_eq!(warp_mode(&l, &cfg), WarpMode::Warped, "{n} packets after");
            l.on_received(t, false);
        }
        // A MULTILOSS below the weight sum lets it expire: 1 x loss_int.
        let short = NadaConfig {
            multiloss: 1.0,
            ..cfg
        };
        assert_eq!(warp_mode(&l, &short), WarpMode::Raw);
    }

    #[test]
    fn warping_follows_the_loss_expiry() {
        let cfg = NadaConfig {
            loss_interval_ewma: true,
            ..NadaConfig::default()
        };
        let mut l = LossRatio::with_interval_average(cfg.alpha, cfg.logwin, IntervalAverage::Ewma);
        let t = Timestamp::ZERO;
        assert_eq!(warp_mode(&l, &cfg), WarpMode::Raw);
        l.on_lost(t, 1);
        assert_eq!(warp_mode(&l, &cfg), WarpMode::Warped);
        for _ in 0..10 {
            l.on_received(t, false);
        }
        l.on_lost(t, 1); // loss_int = 10 packets, loss_exp = 70 packets
        for _ in 0..69 {
            l.on_received(t, false);
        }
        assert_eq!(warp_mode(&l, &cfg), WarpMode::Warped);
        l.on_received(t, false); // 70 packets since the loss: expired
        assert_eq!(warp_mode(&l, &cfg), WarpMode::Raw);
        let blend = NadaConfig {
            warp_blend_after_expiry: true,
            ..cfg
        };
        for _ in 0..5 {
            l.on_received(t, false);
        }
        assert_eq!(warp_mode(&l, &blend), WarpMode::Blend(0.5));
        let d = d_tilde(TimeDelta::millis(150), WarpMode::Blend(0.5), &blend);
        // 0.5 * 150 + 0.5 * 18.394 = 84.197 ms.
        assert_eq!(d, TimeDelta::from_micros(84_197));
    }
}
