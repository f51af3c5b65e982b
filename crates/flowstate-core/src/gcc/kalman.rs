//! The scalar Kalman filter of paper 002, section 4.1 (eqs. 10-16).
//!
//! State: the one-way delay gradient m (ms). Per group delta d (ms):
//! - z = d - m(i-1) (residual)
//! - s2 = b*s2 + (1-b)*z^2 (eq. 16, b = 0.95)
//! - K = (P + Q) / (P + Q + s2) (eq. 12)
//! - m = (1 - K)*m + K*d (eq. 11)
//! - P = (1 - K)*(P + Q) (eq. 14), Q = 1e-3 (eq. 15), P(0) = 0.1, m(0) = 0.

/// Constants of the filter.
#[derive(Debug, Clone, PartialEq)]
pub struct KalmanConfig {
    /// State noise variance Q (eq. 15): 1e-3.
    pub q: f64,
    /// Initial error variance P(0): 0.1.
    pub p0: f64,
    /// Initial estimate m(0), ms: 0.
    pub m0: f64,
    /// EWMA coefficient beta of the noise variance (eq. 16): 0.95.
    pub beta: f64,
    /// Initial measurement noise variance s2(0), ms^2. Paper 002 is silent; 50 is the
    /// value of Chromium's `OveruseEstimator` (`var_noise_`).
    pub initial_noise_var: f64,
    /// Lower bound on s2, ms^2. Paper 002 has none (0.0); Chromium's estimator used 1.0.
    pub min_noise_var: f64,
}

impl Default for KalmanConfig {
    fn default() -> Self {
        Self {
            q: 1e-3,
            p0: 0.1,
            m0: 0.0,
            beta: 0.95,
            initial_noise_var: 50.0,
            min_noise_var: 1.0,
        }
    }
}

/// The filter state.
#[derive(Debug, Clone)]
pub struct KalmanFilter {
    cfg: KalmanConfig,
    m: f64,
    p: f64,
    var_noise: f64,
    gain: f64,
}

impl KalmanFilter {
    pub fn new(cfg: KalmanConfig) -> Self {
        let m = finite_or(cfg.m0, 0.0);
        let p = finite_or(cfg.p0, 0.1).max(0.0);
        let var_noise = finite_or(cfg.initial_noise_var, 50.0).max(0.0);
        Self {
            cfg,
            m,
            p,
            var_noise,
            gain: 0.0,
        }
    }

    /// Feed one measured delay variation d (ms); returns the new estimate m (ms).
    pub fn update(&mut self, d_ms: f64) -> f64 {
        if !d_ms.is_finite() {
            return self.m;
        }
        let q = finite_or(self.cfg.q, 1e-3).max(f64::MIN_POSITIVE);
        let beta = finite_or(self.cfg.beta, 0.95).clamp(0.0, 1.0);
        // Residual against the previous estimate (eq. 16's z).
        let z = d_ms - self.m;
        self.var_noise =
            (beta * self.var_noise + (1.0 - beta) * z * z).max(self.cfg.min_noise_var.max(0.0));
        if !self.var_noise.is_finite() {
            self.var_noise = f64::MAX;
        }
        // Eq. 12.
        let pq = self.p + q;
        let k = pq / (pq + self.var_noise);
        let k = if k.is_finite() {
            k.clamp(0.0, 1.0)
        } else {
            0.0
        };
        // Eq. 11.
        let m = (1.0 - k) * self.m + k * d_ms;
        if m.is_finite() {
            self.m = m;
        }
        // Eq. 14.
        self.p = ((1.0 - k) * pq).max(0.0);
        self.gain = k;
        self.m
    }

    /// Current estimate m (ms).
    pub fn estimate(&self) -> f64 {
        self.m
    }
    /// Last Kalman gain K.
    pub fn gain(&self) -> f64 {
        self.gain
    }
    /// Current error variance P.
    pub fn error_variance(&self) -> f64 {
        self.p
    }
    /// Current measurement noise variance estimate.
    pub fn noise_variance(&self) -> f64 {
        self.var_noise
    }
}

fn finite_or(v: f64, d: f64) -> f64 {
    if v.is_finite() {
        v
    } else {
        d
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_update_matches_hand_computation() {
        let mut f = KalmanFilter::new(KalmanConfig {
            min_noise_var: 0.0,
            ..Default::default()
        });
        let m = f.update(10.0);
        // z = 10; s2 = 0.95*50 + 0.05*100 = 52.5
        // K = (0.1+0.001)/(0.101+52.5) = 0.101/52.601
        let k = 0.101 / 52.601;
        assert!((f.noise_variance() - 52.5).abs() < 1e-12);
        assert!((f.gain() - k).abs() < 1e-12);
        assert!((m - 10.0 * k).abs() < 1e-12);
        assert!((f.error_variance() - (1.0 - k) * 0.101).abs() < 1e-12);
    }

    #[test]
    fn second_update_uses_previous_state() {
        let mut f = KalmanFilter::new(KalmanConfig {
            initial_noise_var: 1.0,
            min_noise_var: 0.0,
            ..Default::default()
        });
        f.update(2.0);
        // s2 = 0.95 + 0.05*4 = 1.15; K1 = 0.101/1.251; m1 = 2*K1; P1 = (1-K1)*0.101
        let k1 = 0.101 / 1.251;
        let m1 = 2.0 * k1;
        let p1 = (1.0 - k1) * 0.101;
        let m2 = f.update(-1.0);
        let z = -1.0 - m1;
        let s2 = 0.95 * 1.15 + 0.05 * z * z;
        let k2 = (p1 + 0.001) / (p1 + 0.001 + s2);
        assert!((m2 - ((1.0 - k2) * m1 + -k2)).abs() < 1e-12);
    }

    #[test]
    fn converges_to_constant_input_and_ignores_nan() {
        let mut f = KalmanFilter::new(KalmanConfig::default());
        for _ in 0..5000 {
            f.update(3.0);
        }
        assert!((f.estimate() - 3.0).abs() < 0.05, "{}", f.estimate());
        let before = f.estimate();
        f.update(f64::NAN);
        assert_eq!(f.estimate(), before);
    }
}
