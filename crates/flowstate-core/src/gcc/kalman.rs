//! The scalar Kalman filter of paper 002, section 4.1 (eqs. 10-16).
//!
//! State: the one-way delay gradient m (ms). Per group delta d (ms):
//! - z = d - m(i-1) (residual)
//! - s2 = b*s2 + (1-b)*z^2 (eq. 16, b = 0.95)
//! - K = (P + Q) / (P + Q + s2) (eq. 12)
//! - m = (1 - K)*m + K*d (eq. 11)
//! - P = (1 - K)*(P + Q) (eq. 14), Q = 1e-3 (eq. 15), P(0) = 0.1, m(0) = 0.

/// How the measurement-noise variance s2 is estimated.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum NoiseModel {
    /// Paper 002 eq. 16: s2 = b*s2 + (1-b)*z^2 on every residual z (b = `beta`).
    Paper,
    /// Chromium's one-state `OveruseEstimator` (webrtc/modules/remote_bitrate_estimator/
    /// overuse_estimator.cc, 2015-2017, the code paper 002's testbed ran): the residual is
    /// clamped to +-`outlier_sigmas` * sqrt(s2) ("filter out very late frames"), and
    /// mean and variance of the residual are updated only while the detector signals
    /// normal, with an EWMA whose weight is `alpha` per 1/30 s of send-time delta
    /// (`alpha_startup` for the first `startup_deltas` deltas). A named model difference
    /// (docs/ALGORITHMS.md, GCC vs TCP).
    Chromium {
        alpha_startup: f64,
        alpha: f64,
        startup_deltas: u32,
        outlier_sigmas: f64,
    },
}

impl NoiseModel {
    /// Chromium's constants: alpha 0.01 for the first 300 deltas, then 0.002; clamp at 3 sigma.
    pub fn chromium() -> Self {
        NoiseModel::Chromium {
            alpha_startup: 0.01,
            alpha: 0.002,
            startup_deltas: 300,
            outlier_sigmas: 3.0,
        }
    }
}

/// The frame interval Chromium's noise EWMA weight `alpha` refers to (30 fps), ms.
const CHROMIUM_ALPHA_FRAME_MS: f64 = 1000.0 / 30.0;

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
    /// Estimator of s2 (default: paper 002 eq. 16).
    pub noise: NoiseModel,
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
            noise: NoiseModel::Paper,
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
    avg_noise: f64,
    deltas: u32,
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
            avg_noise: 0.0,
            deltas: 0,
            gain: 0.0,
        }
    }

    /// Feed one measured delay variation d (ms); returns the new estimate m (ms).
    /// Equivalent to [`KalmanFilter::update_with`] with a 1/30 s send delta in the
    /// normal state.
    pub fn update(&mut self, d_ms: f64) -> f64 {
        self.update_with(d_ms, CHROMIUM_ALPHA_FRAME_MS, true)
    }

    /// Feed one measured delay variation d (ms) of a group sent `send_delta_ms` after
    /// the previous one, while the over-use detector signals normal (`stable`) or not;
    /// returns the new estimate m (ms). Only [`NoiseModel::Chromium`] uses the last two.
    pub fn update_with(&mut self, d_ms: f64, send_delta_ms: f64, stable: bool) -> f64 {
        if !d_ms.is_finite() {
            return self.m;
        }
        let q = finite_or(self.cfg.q, 1e-3).max(f64::MIN_POSITIVE);
        // Residual against the previous estimate (eq. 16's z).
        let z = d_ms - self.m;
        self.deltas = self.deltas.saturating_add(1);
        self.update_noise(z, send_delta_ms, stable);
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

    fn update_noise(&mut self, z: f64, send_delta_ms: f64, stable: bool) {
        match self.cfg.noise {
            NoiseModel::Paper => {
                let beta = finite_or(self.cfg.beta, 0.95).clamp(0.0, 1.0);
                self.var_noise = beta * self.var_noise + (1.0 - beta) * z * z;
            }
            NoiseModel::Chromium {
                alpha_startup,
                alpha,
                startup_deltas,
                outlier_sigmas,
            } => {
                if !stable {
                    return;
                }
                let max_z = finite_or(outlier_sigmas, 3.0).max(0.0) * self.var_noise.sqrt();
                let z = z.clamp(-max_z, max_z);
                let a = if self.deltas > startup_deltas {
                    alpha
                } else {
                    alpha_startup
                };
                let a = finite_or(a, 0.002).clamp(0.0, 1.0);
                let frames = finite_or(send_delta_ms, CHROMIUM_ALPHA_FRAME_MS).max(0.0)
                    / CHROMIUM_ALPHA_FRAME_MS;
                let beta = (1.0 - a).powf(frames);
                self.avg_noise = beta * self.avg_noise + (1.0 - beta) * z;
                let dev = self.avg_noise - z;
                self.var_noise = beta * self.var_noise + (1.0 - beta) * dev * dev;
            }
        }
        self.var_noise = self.var_noise.max(self.cfg.min_noise_var.max(0.0));
        if !self.var_noise.is_finite() {
            self.var_noise = f64::MAX;
        }
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
    fn chromium_noise_clamps_outliers_at_three_sigma() {
        // s2 = 50: a 100 ms residual is clamped to 3*sqrt(50) = 21.21 ms. One frame
        // (33.3 ms) at alpha 0.01: beta = 0.99; avg = 0.01*21.21; s2 = 0.99*50 +
        // 0.01*(avg - 21.21)^2.
        let mut f = KalmanFilter::new(KalmanConfig {
            noise: NoiseModel::chromium(),
            ..Default::default()
        });
        f.update_with(100.0, 1000.0 / 30.0, true);
        let zc = 3.0 * 50f64.sqrt();
        let avg = 0.01 * zc;
        let s2 = 0.99 * 50.0 + 0.01 * (avg - zc) * (avg - zc);
        assert!(
            (f.noise_variance() - s2).abs() < 1e-9,
            "{}",
            f.noise_variance()
        );
        // The paper's eq. 16 takes the whole residual: 0.95*50 + 0.05*100^2.
        let mut p = KalmanFilter::new(KalmanConfig::default());
        p.update(100.0);
        assert!((p.noise_variance() - 547.5).abs() < 1e-9);
    }

    #[test]
    fn chromium_noise_frozen_outside_the_normal_state() {
        let mut f = KalmanFilter::new(KalmanConfig {
            noise: NoiseModel::chromium(),
            ..Default::default()
        });
        f.update_with(30.0, 33.0, false);
        assert_eq!(f.noise_variance(), 50.0);
        assert!(f.estimate() > 0.0, "the state is still updated");
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
