//! The scalar Kalman filter of paper 002, section 4.1 (eqs. 10-16).
//!
//! Follows the paper, not libwebrtc; the options [`NoiseModel::Chromium`] and the slope
//! state follow libwebrtc's `modules/remote_bitrate_estimator/overuse_estimator.cc`
//! (`OveruseEstimator`, M100 and M50; docs/ALGORITHMS.md, "libwebrtc sources").
//!
//! State: the one-way delay gradient m (ms). Per group delta d (ms):
//! - z = d - m(i-1) (residual)
//! - s2 = b*s2 + (1-b)*z^2 (eq. 16, b = 0.95)
//! - K = (P + Q) / (P + Q + s2) (eq. 12)
//! - m = (1 - K)*m + K*d (eq. 11)
//! - P = (1 - K)*(P + Q) (eq. 14), Q = 1e-3 (eq. 15), P(0) = 0.1, m(0) = 0.

use std::collections::VecDeque;

/// How the measurement-noise variance s2 is estimated.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum NoiseModel {
    /// Paper 002 eq. 16: s2 = b*s2 + (1-b)*z^2 on every residual z (b = `beta`).
    Paper,
    /// Chromium's one-state `OveruseEstimator` (webrtc/modules/remote_bitrate_estimator/
    /// overuse_estimator.cc, 2015-2017, the code paper 002's testbed ran): the residual is
    /// clamped to +-`outlier_sigmas` * sqrt(s2) ("filter out very late frames"), and
    /// mean and variance of the residual are updated only while the detector signals
    /// normal, with an EWMA whose weight is `alpha` per 1/30 s of the *minimum frame
    /// period*: the smallest send-time delta of the last `min_frame_period_history`
    /// deltas (Chromium `UpdateMinFramePeriod`, 60; 1 = the current delta, this crate's
    /// behaviour before 2026-11-21), `alpha_startup` for the first `startup_deltas`
    /// deltas. A named model difference (docs/ALGORITHMS.md, GCC vs TCP).
    Chromium {
        alpha_startup: f64,
        alpha: f64,
        startup_deltas: u32,
        outlier_sigmas: f64,
        min_frame_period_history: u32,
    },
}

impl NoiseModel {
    /// Chromium's constants: alpha 0.01 for the first 300 deltas, then 0.002; clamp at 3
    /// sigma; the EWMA step scaled by the minimum of the last 60 send-time deltas.
    pub fn chromium() -> Self {
        NoiseModel::Chromium {
            alpha_startup: 0.01,
            alpha: 0.002,
            startup_deltas: 300,
            outlier_sigmas: 3.0,
            min_frame_period_history: MIN_FRAME_PERIOD_HISTORY,
        }
    }
}

/// The 1/C state of the two-state filter (paper 001 eq. 2 / paper 002 eq. 7, Chromium's
/// `OveruseEstimator` with `OverUseDetectorOptions`, webrtc bwe_defines.h 2014-2016):
/// the measurement is d = slope * dL + m + n with dL the group size change in bytes, so
/// frame-size changes are explained by the slope instead of counted as noise.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SlopeState {
    /// Initial slope 1/C, ms per byte: 8/512 (Chromium `initial_slope`).
    pub initial_ms_per_byte: f64,
    /// Initial slope error variance: 100 (Chromium `initial_e[0][0]`).
    pub initial_var: f64,
    /// Slope process noise: 1e-13 (Chromium `initial_process_noise[0]`).
    pub process_noise: f64,
    /// Chromium adds 10 Q to the offset variance while over-using with a falling
    /// estimate (or under-using with a rising one), default true.
    pub boost_on_reversal: bool,
}

impl Default for SlopeState {
    fn default() -> Self {
        SlopeState {
            initial_ms_per_byte: 8.0 / 512.0,
            initial_var: 100.0,
            process_noise: 1e-13,
            boost_on_reversal: true,
        }
    }
}

/// Over-use detector state the filter sees (for Chromium's noise gate and boost).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hypothesis {
    Normal,
    Overusing,
    Underusing,
}

/// The frame interval Chromium's noise EWMA weight `alpha` refers to (30 fps), ms.
const CHROMIUM_ALPHA_FRAME_MS: f64 = 1000.0 / 30.0;

/// Chromium `kMinFramePeriodHistoryLength`: the send-time deltas the minimum frame period
/// is taken over.
pub const MIN_FRAME_PERIOD_HISTORY: u32 = 60;

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
    /// `Some`: the two-state filter with Chromium's 1/C state (paper 002 reduces it to
    /// one state, eq. 10); default `None`.
    pub slope: Option<SlopeState>,
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
            slope: None,
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
    /// Two-state filter: slope (ms/byte), its variance and the covariances.
    slope: f64,
    e00: f64,
    e01: f64,
    e10: f64,
    prev_m: f64,
    /// The last send-time deltas, ms (Chromium `ts_delta_hist_`), newest last.
    send_delta_history: VecDeque<f64>,
}

impl KalmanFilter {
    pub fn new(cfg: KalmanConfig) -> Self {
        let m = finite_or(cfg.m0, 0.0);
        let p = finite_or(cfg.p0, 0.1).max(0.0);
        let var_noise = finite_or(cfg.initial_noise_var, 50.0).max(0.0);
        let slope = cfg
            .slope
            .map_or(0.0, |s| finite_or(s.initial_ms_per_byte, 8.0 / 512.0));
        let e00 = cfg
            .slope
            .map_or(0.0, |s| finite_or(s.initial_var, 100.0).max(0.0));
        Self {
            cfg,
            m,
            p,
            var_noise,
            avg_noise: 0.0,
            deltas: 0,
            gain: 0.0,
            slope,
            e00,
            e01: 0.0,
            e10: 0.0,
            prev_m: m,
            send_delta_history: VecDeque::new(),
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
                min_frame_period_history,
            } => {
                // Chromium `UpdateMinFramePeriod`: runs on every delta, stable or not.
                let frame_period_ms =
                    self.min_frame_period(send_delta_ms, min_frame_period_history);
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
                let frames = frame_period_ms / CHROMIUM_ALPHA_FRAME_MS;
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

    /// Chromium `OveruseEstimator::UpdateMinFramePeriod`: the smallest of this send-time
    /// delta and the previous `history - 1` ones (ms); records this one.
    fn min_frame_period(&mut self, send_delta_ms: f64, history: u32) -> f64 {
        let delta = finite_or(send_delta_ms, CHROMIUM_ALPHA_FRAME_MS).max(0.0);
        let keep = history.max(1) as usize - 1;
        while self.send_delta_history.len() > keep {
            self.send_delta_history.pop_front();
        }
        let min = self
            .send_delta_history
            .iter()
            .copied()
            .fold(delta, f64::min);
        if keep > 0 {
            self.send_delta_history.push_back(delta);
        }
        min
    }

    /// The two-state update (Chromium `OveruseEstimator::Update`) for a delay variation
    /// `d_ms`, a group size change `size_delta` (bytes) and the detector state; falls
    /// back to [`KalmanFilter::update_with`] without a slope state.
    pub fn update_two_state(
        &mut self,
        d_ms: f64,
        send_delta_ms: f64,
        size_delta: f64,
        hypothesis: Hypothesis,
    ) -> f64 {
        let stable = hypothesis == Hypothesis::Normal;
        let Some(sl) = self.cfg.slope else {
            return self.update_with(d_ms, send_delta_ms, stable);
        };
        if !d_ms.is_finite() || !size_delta.is_finite() {
            return self.m;
        }
        let q = finite_or(self.cfg.q, 1e-3).max(f64::MIN_POSITIVE);
        self.deltas = self.deltas.saturating_add(1);
        self.e00 += finite_or(sl.process_noise, 1e-13).max(0.0);
        self.p += q;
        let reversal = (hypothesis == Hypothesis::Overusing && self.m < self.prev_m)
            || (hypothesis == Hypothesis::Underusing && self.m > self.prev_m);
        if sl.boost_on_reversal && reversal {
            self.p += 10.0 * q;
        }
        let h0 = size_delta;
        let eh0 = self.e00 * h0 + self.e01;
        let eh1 = self.e10 * h0 + self.p;
        let residual = d_ms - self.slope * h0 - self.m;
        self.update_noise(residual, send_delta_ms, stable);
        let denom = self.var_noise + h0 * eh0 + eh1;
        if !(denom.is_finite() && denom > 0.0) {
            return self.m;
        }
        let (k0, k1) = (eh0 / denom, eh1 / denom);
        let (i00, i01, i10, i11) = (1.0 - k0 * h0, -k0, -k1 * h0, 1.0 - k1);
        let (e00, e01, e10, e11) = (self.e00, self.e01, self.e10, self.p);
        let next = (
            e00 * i00 + e10 * i01,
            e01 * i00 + e11 * i01,
            e00 * i10 + e10 * i11,
            e01 * i10 + e11 * i11,
        );
        if [next.0, next.1, next.2, next.3, k0, k1]
            .iter()
            .all(|v| v.is_finite())
        {
            (self.e00, self.e01, self.e10, self.p) = (next.0, next.1, next.2, next.3.max(0.0));
            self.slope += k0 * residual;
            self.prev_m = self.m;
            self.m += k1 * residual;
            self.gain = k1;
        }
        self.m
    }

    /// The slope state 1/C, ms per byte (two-state filter only; 0 otherwise).
    pub fn slope_ms_per_byte(&self) -> f64 {
        self.slope
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
    fn chromium_noise_step_uses_the_minimum_frame_period_of_the_last_60_deltas() {
        // Chromium UpdateMinFramePeriod: a 5 ms delta (a frame split by the pacer) makes
        // the EWMA step 5 / 33.3 of a frame for the next 59 deltas too, even while not
        // stable (the history is kept then as well).
        let noise_after = |history: u32| {
            let mut f = KalmanFilter::new(KalmanConfig {
                noise: NoiseModel::Chromium {
                    alpha_startup: 0.01,
                    alpha: 0.002,
                    startup_deltas: 300,
                    outlier_sigmas: 3.0,
                    min_frame_period_history: history,
                },
                ..Default::default()
            });
            f.update_with(0.0, 5.0, false);
            f.update_with(0.0, 1000.0 / 30.0, true);
            f.noise_variance()
        };
        // The second delta: residual 0, alpha 0.01 (startup).
        let beta_min = 0.99f64.powf(5.0 * 30.0 / 1000.0);
        assert!((noise_after(60) - beta_min * 50.0).abs() < 1e-9);
        // History 1: the delta itself (33.3 ms = one frame), beta = 0.99.
        assert!((noise_after(1) - 0.99 * 50.0).abs() < 1e-9);
        // The 5 ms delta drops out after 60 deltas.
        let mut f = KalmanFilter::new(KalmanConfig {
            noise: NoiseModel::chromium(),
            ..Default::default()
        });
        f.update_with(0.0, 5.0, false);
        for _ in 0..59 {
            f.update_with(0.0, 1000.0 / 30.0, false);
        }
        let before = f.noise_variance();
        f.update_with(0.0, 1000.0 / 30.0, true);
        assert!((f.noise_variance() - 0.99 * before).abs() < 1e-9);
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
    fn two_state_learns_the_slope_and_keeps_m_near_zero() {
        // d = dL / C with C = 125 bytes/ms (1 Mbit/s), frame sizes alternating +-600 B:
        // the slope converges to 1/125 ms/B and m stays near 0, whereas the one-state
        // filter sees +-9.6 ms of noise.
        let mut f = KalmanFilter::new(KalmanConfig {
            noise: NoiseModel::chromium(),
            slope: Some(SlopeState::default()),
            ..Default::default()
        });
        for i in 0..3000 {
            let dl = if i % 2 == 0 { 1200.0 } else { -1200.0 };
            f.update_two_state(dl / 125.0, 33.3, dl, Hypothesis::Normal);
        }
        assert!(
            (f.slope_ms_per_byte() - 0.008).abs() < 1e-4,
            "{}",
            f.slope_ms_per_byte()
        );
        assert!(f.estimate().abs() < 0.05, "{}", f.estimate());
        assert!(f.noise_variance() < 2.0, "{}", f.noise_variance());
        // A queue building at 5 ms per frame is then seen within a few frames.
        for _ in 0..20 {
            f.update_two_state(5.0, 33.3, 0.0, Hypothesis::Normal);
        }
        assert!(f.estimate() > 1.0, "{}", f.estimate());
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
