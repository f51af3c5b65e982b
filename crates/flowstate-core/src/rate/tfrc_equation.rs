//! The TCP throughput equation TFRC uses (RFC 5348, section 3.1), and its inverse
//! (needed by the receiver to seed the loss history after the first loss event,
//! RFC 5348, section 6.3.1).
//!
//! ```text
//!                               s
//! X_Bps = ----------------------------------------------------------
//!         R*sqrt(2*b*p/3) + (t_RTO * (3*sqrt(3*b*p/8)*p*(1+32*p^2)))
//! ```
//! `s` segment size in bytes, `R` round-trip time in seconds, `p` loss event rate,
//! `b` packets acknowledged per TCP ACK (RFC 5348 recommends b = 1), `t_RTO` the TCP
//! retransmission timeout (RFC 5348 recommends t_RTO = 4*R).

/// The parameters of the equation that are not measurements.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EquationParams {
    /// `b`, packets acknowledged by one TCP ACK (RFC 5348, 3.1: "b = 1").
    pub b: f64,
    /// `t_RTO = rto_rtt_factor * R` (RFC 5348, 3.1: "t_RTO = 4*R").
    pub rto_rtt_factor: f64,
}

impl Default for EquationParams {
    fn default() -> Self {
        EquationParams {
            b: 1.0,
            rto_rtt_factor: 4.0,
        }
    }
}

/// X_Bps in bytes per second (RFC 5348, 3.1) for segment size `s_bytes`, round-trip
/// time `rtt_secs` and loss event rate `p`.
///
/// Total: `p <= 0` (or NaN) gives `f64::INFINITY` (no loss: the equation sets no
/// limit; callers handle slow start); `p` is clamped to at most 1; a non-positive or
/// NaN RTT is treated as 1 microsecond; the result is never NaN or negative.
pub fn throughput_bytes_per_sec(
    s_bytes: f64,
    rtt_secs: f64,
    p: f64,
    params: EquationParams,
) -> f64 {
    if p.is_nan() || p <= 0.0 {
        return f64::INFINITY;
    }
    let s = if s_bytes.is_finite() && s_bytes > 0.0 {
        s_bytes
    } else {
        0.0
    };
    let p = p.min(1.0);
    let r = if rtt_secs.is_finite() && rtt_secs > 0.0 {
        rtt_secs
    } else {
        1e-6
    };
    let b = if params.b.is_finite() && params.b > 0.0 {
        params.b
    } else {
        1.0
    };
    let k = if params.rto_rtt_factor.is_finite() && params.rto_rtt_factor >= 0.0 {
        params.rto_rtt_factor
    } else {
        4.0
    };
    let t_rto = k * r;
    let denom = r * (2.0 * b * p / 3.0).sqrt()
        + t_rto * (3.0 * (3.0 * b * p / 8.0).sqrt() * p * (1.0 + 32.0 * p * p));
    if denom > 0.0 && denom.is_finite() {
        s / denom
    } else {
        0.0
    }
}

/// The loss event rate `p` for which [`throughput_bytes_per_sec`] gives `target`
/// bytes per second (within `rel_tol`), found by bisection on `log p` (the equation is
/// strictly decreasing in `p`). Used for RFC 5348, 6.3.1 ("find some value p for
/// which the throughput equation gives a sending rate within 5% of X_target").
///
/// Returns a value in `[1e-10, 1]`: targets above what p = 1e-10 gives map to 1e-10,
/// targets below what p = 1 gives (or non-positive / NaN targets) map to 1.
pub fn loss_rate_for_throughput(
    s_bytes: f64,
    rtt_secs: f64,
    target: f64,
    params: EquationParams,
    rel_tol: f64,
) -> f64 {
    const P_MIN: f64 = 1e-10;
    const P_MAX: f64 = 1.0;
    if target.is_nan() || target <= 0.0 {
        return P_MAX;
    }
    if throughput_bytes_per_sec(s_bytes, rtt_secs, P_MIN, params) <= target {
        return P_MIN;
    }
    if throughput_bytes_per_sec(s_bytes, rtt_secs, P_MAX, params) >= target {
        return P_MAX;
    }
    let tol = if rel_tol.is_finite() && rel_tol > 0.0 {
        rel_tol
    } else {
        0.05
    };
    let (mut lo, mut hi) = (P_MIN.ln(), P_MAX.ln());
    let mut mid = 0.5 * (lo + hi);
    for _ in 0..200 {
        mid = 0.5 * (lo + hi);
        let x = throughput_bytes_per_sec(s_bytes, rtt_secs, mid.exp(), params);
        if ((x - target) / target).abs() <= tol {
            break;
        }
        if x > target {
            lo = mid; // rate too high: need more loss
        } else {
            hi = mid;
        }
    }
    mid.exp().clamp(P_MIN, P_MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn worked_example_s1000_r100ms_p1pct() {
        // s = 1000 B, R = 0.1 s, p = 0.01, b = 1, t_RTO = 4R = 0.4 s.
        // term1 = R*sqrt(2p/3) = 0.1 * sqrt(0.0066667) = 0.1 * 0.0816497 = 0.00816497
        // sqrt(3p/8) = sqrt(0.00375) = 0.0612372; 3 * that = 0.1837117
        // * p = 0.001837117; * (1 + 32*0.0001) = * 1.0032 = 0.00184300
        // term2 = t_RTO * 0.00184300 = 0.4 * 0.00184300 = 0.00073720
        // X = 1000 / (0.00816497 + 0.00073720) = 1000 / 0.00890217 = 112332 B/s
        let x = throughput_bytes_per_sec(1000.0, 0.1, 0.01, EquationParams::default());
        assert!((x - 112_332.0).abs() / 112_332.0 < 1e-4, "x = {x}");
    }

    #[test]
    fn worked_example_s1460_r200ms_p10pct() {
        // s = 1460 B, R = 0.2 s, p = 0.1, t_RTO = 0.8 s.
        // term1 = 0.2 * sqrt(0.2/3) = 0.2 * 0.2581989 = 0.05163978
        // sqrt(0.3/8) = sqrt(0.0375) = 0.1936492; *3 = 0.5809475; *p = 0.05809475
        // * (1 + 32*0.01) = * 1.32 = 0.07668507; term2 = 0.8 * 0.07668507 = 0.06134806
        // X = 1460 / (0.05163978 + 0.06134806) = 1460 / 0.11298784 = 12921.8 B/s
        let x = throughput_bytes_per_sec(1460.0, 0.2, 0.1, EquationParams::default());
        assert!((x - 12_921.8).abs() / 12_921.8 < 1e-4, "x = {x}");
    }

    #[test]
    fn small_p_approaches_simple_sqrt_formula() {
        // For tiny p the t_RTO term vanishes: X ~ s / (R sqrt(2p/3)).
        // s = 1000, R = 0.1, p = 1e-6: sqrt(2e-6/3) = 8.16497e-4; R*that = 8.16497e-5
        // X ~ 1000 / 8.16497e-5 = 1.22474e7 B/s (term2 = 0.4*3*sqrt(3.75e-7)*1e-6 = 7.3e-10, negligible)
        let x = throughput_bytes_per_sec(1000.0, 0.1, 1e-6, EquationParams::default());
        assert!((x - 1.22474e7).abs() / 1.22474e7 < 1e-3, "x = {x}");
    }

    #[test]
    fn no_loss_is_unbounded_and_bad_inputs_are_finite() {
        let d = EquationParams::default();
        assert!(throughput_bytes_per_sec(1000.0, 0.1, 0.0, d).is_infinite());
        assert!(throughput_bytes_per_sec(1000.0, 0.1, f64::NAN, d).is_infinite());
        let x = throughput_bytes_per_sec(1000.0, 0.0, 0.5, d);
        assert!(x.is_finite() && x > 0.0);
        let x = throughput_bytes_per_sec(1000.0, f64::NAN, 2.0, d);
        assert!(x.is_finite() && x > 0.0);
        assert_eq!(throughput_bytes_per_sec(-5.0, 0.1, 0.1, d), 0.0);
    }

    #[test]
    fn inverse_recovers_p() {
        let d = EquationParams::default();
        for &p in &[1e-4, 1e-3, 0.01, 0.05, 0.3] {
            let x = throughput_bytes_per_sec(1000.0, 0.1, p, d);
            let q = loss_rate_for_throughput(1000.0, 0.1, x, d, 1e-6);
            assert!((q - p).abs() / p < 1e-3, "p = {p}, q = {q}");
        }
        assert_eq!(loss_rate_for_throughput(1000.0, 0.1, 0.0, d, 0.05), 1.0);
        assert_eq!(loss_rate_for_throughput(1000.0, 0.1, 1e30, d, 0.05), 1e-10);
    }
}
