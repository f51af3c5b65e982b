//! Link-capacity tracking for the AIMD controller (libwebrtc M100
//! `modules/congestion_controller/goog_cc/link_capacity_estimator.cc`, Chromium
//! `LinkCapacityEstimator`): an EWMA of the incoming rate at each delay-based decrease,
//! with a normalised deviation, used to decide whether the rate is near convergence.

use crate::units::Bitrate;

/// Constants (Chromium values).
#[derive(Debug, Clone, PartialEq)]
pub struct LinkCapacityConfig {
    /// EWMA weight of a new sample at a decrease (0.05).
    pub alpha: f64,
    /// Normalised deviation bounds, kbit/s (0.4, 2.5).
    pub deviation_min: f64,
    pub deviation_max: f64,
    /// The bounds are estimate +- this many deviations (3).
    pub bound_sigmas: f64,
}

impl Default for LinkCapacityConfig {
    fn default() -> Self {
        Self {
            alpha: 0.05,
            deviation_min: 0.4,
            deviation_max: 2.5,
            bound_sigmas: 3.0,
        }
    }
}

/// The estimator state (kbit/s internally, like Chromium).
#[derive(Debug, Clone)]
pub struct LinkCapacityEstimator {
    cfg: LinkCapacityConfig,
    estimate_kbps: Option<f64>,
    deviation_kbps: f64,
}

impl LinkCapacityEstimator {
    pub fn new(cfg: LinkCapacityConfig) -> Self {
        let deviation_kbps = cfg.deviation_min;
        Self {
            cfg,
            estimate_kbps: None,
            deviation_kbps,
        }
    }

    pub fn has_estimate(&self) -> bool {
        self.estimate_kbps.is_some()
    }
    pub fn estimate(&self) -> Option<Bitrate> {
        self.estimate_kbps.map(Bitrate::kbps)
    }
    fn sigma_kbps(&self) -> f64 {
        (self.deviation_kbps * self.estimate_kbps.unwrap_or(0.0))
            .max(0.0)
            .sqrt()
    }
    /// estimate + 3 sigma (infinite without an estimate).
    pub fn upper_bound(&self) -> Bitrate {
        match self.estimate_kbps {
            Some(e) => Bitrate::kbps(e + self.cfg.bound_sigmas * self.sigma_kbps()),
            None => Bitrate::INFINITY,
        }
    }
    /// estimate - 3 sigma (zero without an estimate).
    pub fn lower_bound(&self) -> Bitrate {
        match self.estimate_kbps {
            Some(e) => Bitrate::kbps(e - self.cfg.bound_sigmas * self.sigma_kbps()),
            None => Bitrate::ZERO,
        }
    }
    pub fn reset(&mut self) {
        self.estimate_kbps = None;
    }
    /// A delay-based decrease happened at incoming rate `sample`.
    pub fn on_overuse_detected(&mut self, sample: Bitrate) {
        self.update(sample, self.cfg.alpha);
    }

    fn update(&mut self, sample: Bitrate, alpha: f64) {
        let s = sample.as_kbps();
        if !s.is_finite() {
            return;
        }
        let alpha = alpha.clamp(0.0, 1.0);
        let est = match self.estimate_kbps {
            None => s,
            Some(e) => (1.0 - alpha) * e + alpha * s,
        };
        let norm = est.max(1.0);
        let err = est - s;
        let dev = (1.0 - alpha) * self.deviation_kbps + alpha * err * err / norm;
        self.deviation_kbps = if dev.is_finite() {
            dev.clamp(
                self.cfg.deviation_min,
                self.cfg.deviation_max.max(self.cfg.deviation_min),
            )
        } else {
            self.cfg.deviation_max
        };
        self.estimate_kbps = Some(est);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ewma_and_bounds() {
        let mut l = LinkCapacityEstimator::new(LinkCapacityConfig::default());
        assert!(!l.has_estimate());
        l.on_overuse_detected(Bitrate::kbps(1000.0));
        // First sample: estimate 1000, deviation 0.95*0.4 + 0 = 0.38 -> clamped 0.4.
        assert!((l.estimate().map_or(0.0, |b| b.as_kbps()) - 1000.0).abs() < 1e-9);
        let sigma = (0.4f64 * 1000.0).sqrt();
        assert!((l.upper_bound().as_kbps() - (1000.0 + 3.0 * sigma)).abs() < 1e-9);
        l.on_overuse_detected(Bitrate::kbps(800.0));
        // 0.95*1000 + 0.05*800 = 990
        assert!((l.estimate().map_or(0.0, |b| b.as_kbps()) - 990.0).abs() < 1e-9);
        l.reset();
        assert_eq!(l.upper_bound(), Bitrate::INFINITY);
    }
}
