//! The over-use threshold gamma: adaptive (paper 002 eqs. 17-18, Chromium) or static with
//! halving (paper 001, "remote state region").
//!
//! libwebrtc: the adaptive threshold's guards and Chromium gains are
//! `TrendlineEstimator::UpdateThreshold` in
//! `modules/congestion_controller/goog_cc/trendline_estimator.cc` (M100); the static
//! threshold follows paper 001 only.
//!
//! All values are in the detector's units: the *modified estimate*
//! `min(n, 60) * gain * m` (Chromium compares this, not m itself, with the threshold;
//! gain = 1 for the Kalman filter, 4 for the trendline). Once 60 deltas have been seen,
//! a threshold of 25 on the modified estimate equals gamma_bar = 25/60 ms on m
//! (paper 001).

use crate::units::{TimeDelta, Timestamp};

/// Adaptive threshold constants.
#[derive(Debug, Clone, PartialEq)]
pub struct AdaptiveThresholdConfig {
    /// k_u: gain when |m| >= gamma (paper 002: 0.01; Chromium: 0.0087).
    pub k_up: f64,
    /// k_d: gain when |m| < gamma (paper 002: 0.00018; Chromium: 0.039).
    pub k_down: f64,
    /// Initial gamma (Chromium: 12.5).
    pub initial: f64,
    /// gamma is clamped to [min, max] (Chromium: [6, 600]).
    pub min: f64,
    pub max: f64,
    /// No update when |m| - gamma exceeds this (Chromium: 15).
    pub max_adapt_offset: f64,
    /// dT is capped at this (100 ms).
    pub max_time_delta: TimeDelta,
}

impl AdaptiveThresholdConfig {
    /// Paper 002's (k_u, k_d) = (0.01, 0.00018), Chromium's bounds.
    pub fn paper() -> Self {
        Self {
            k_up: 0.01,
            k_down: 0.00018,
            ..Self::chromium()
        }
    }
    /// Chromium ~M100: k_up 0.0087, k_down 0.039.
    pub fn chromium() -> Self {
        Self {
            k_up: 0.0087,
            k_down: 0.039,
            initial: 12.5,
            min: 6.0,
            max: 600.0,
            max_adapt_offset: 15.0,
            max_time_delta: TimeDelta::millis(100),
        }
    }
}

impl Default for AdaptiveThresholdConfig {
    fn default() -> Self {
        Self::chromium()
    }
}

/// The adaptive threshold, eq. 17: gamma += dT * k * (|m| - gamma), dT in ms.
#[derive(Debug, Clone)]
pub struct AdaptiveThreshold {
    cfg: AdaptiveThresholdConfig,
    gamma: f64,
    last_update: Option<Timestamp>,
}

impl AdaptiveThreshold {
    pub fn new(cfg: AdaptiveThresholdConfig) -> Self {
        let gamma = if cfg.initial.is_finite() {
            cfg.initial
        } else {
            12.5
        };
        Self {
            cfg,
            gamma,
            last_update: None,
        }
    }
    pub fn value(&self) -> f64 {
        self.gamma
    }
    /// Eqs. 17-18 with Chromium's guards.
    pub fn update(&mut self, modified: f64, now: Timestamp) {
        if !modified.is_finite() {
            return;
        }
        let last = *self.last_update.get_or_insert(now);
        self.last_update = Some(now);
        let abs = modified.abs();
        if abs > self.gamma + self.cfg.max_adapt_offset {
            return;
        }
        // Eq. 18.
        let k = if abs < self.gamma {
            self.cfg.k_down
        } else {
            self.cfg.k_up
        };
        let dt_ms = now
            .saturating_since(last)
            .min(self.cfg.max_time_delta)
            .as_millis_f64();
        let g = self.gamma + k * (abs - self.gamma) * dt_ms;
        if g.is_finite() {
            self.gamma = g.clamp(
                self.cfg.min.min(self.cfg.max),
                self.cfg.max.max(self.cfg.min),
            );
        }
    }
}

/// Paper 001's static threshold.
#[derive(Debug, Clone, PartialEq)]
pub struct StaticThresholdConfig {
    /// gamma_bar in ms of m (paper 001 default 25/60 ms; swept 10/60 .. 65/60).
    pub gamma_bar_ms: f64,
    /// The factor that converts m-units to the modified-estimate units (60, Chromium's
    /// delta-count cap), so that gamma_bar_ms = 25/60 means 25.
    pub scale: f64,
    /// Halve gamma in the "near congestion" region (paper 001 III-B-3).
    pub halving: bool,
}

impl Default for StaticThresholdConfig {
    fn default() -> Self {
        Self {
            gamma_bar_ms: 25.0 / 60.0,
            scale: 60.0,
            halving: true,
        }
    }
}

/// The static threshold: gamma = gamma_bar, or gamma_bar / 2 while halved.
#[derive(Debug, Clone)]
pub struct StaticThreshold {
    cfg: StaticThresholdConfig,
    halved: bool,
}

impl StaticThreshold {
    pub fn new(cfg: StaticThresholdConfig) -> Self {
        Self { cfg, halved: false }
    }
    /// Enter or leave the halved region.
    pub fn set_halved(&mut self, halved: bool) {
        self.halved = halved && self.cfg.halving;
    }
    pub fn is_halved(&self) -> bool {
        self.halved
    }
    pub fn value(&self) -> f64 {
        let g = (self.cfg.gamma_bar_ms * self.cfg.scale).abs();
        let g = if g.is_finite() { g } else { 25.0 };
        if self.halved {
            g / 2.0
        } else {
            g
        }
    }
}

/// Threshold choice.
#[derive(Debug, Clone, PartialEq)]
pub enum ThresholdConfig {
    Adaptive(AdaptiveThresholdConfig),
    Static(StaticThresholdConfig),
}

impl Default for ThresholdConfig {
    fn default() -> Self {
        Self::Adaptive(AdaptiveThresholdConfig::default())
    }
}

/// Either threshold.
#[derive(Debug, Clone)]
pub enum Threshold {
    Adaptive(AdaptiveThreshold),
    Static(StaticThreshold),
}

impl Threshold {
    pub fn new(cfg: &ThresholdConfig) -> Self {
        match cfg {
            ThresholdConfig::Adaptive(c) => Self::Adaptive(AdaptiveThreshold::new(c.clone())),
            ThresholdConfig::Static(c) => Self::Static(StaticThreshold::new(c.clone())),
        }
    }
    pub fn value(&self) -> f64 {
        match self {
            Self::Adaptive(t) => t.value(),
            Self::Static(t) => t.value(),
        }
    }
    /// Adapt to a new modified estimate (no-op for the static threshold).
    pub fn update(&mut self, modified: f64, now: Timestamp) {
        if let Self::Adaptive(t) = self {
            t.update(modified, now);
        }
    }
    /// Set the "remote state region" halving (no-op for the adaptive threshold).
    pub fn set_halved(&mut self, halved: bool) {
        if let Self::Static(t) = self {
            t.set_halved(halved);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adaptive_update_matches_eq17() {
        let mut t = AdaptiveThreshold::new(AdaptiveThresholdConfig::paper());
        t.update(20.0, Timestamp::from_millis(0)); // first call: dT = 0
        assert_eq!(t.value(), 12.5);
        t.update(20.0, Timestamp::from_millis(10));
        // |m| = 20 >= 12.5 -> k_u = 0.01: 12.5 + 10*0.01*7.5 = 13.25
        assert!((t.value() - 13.25).abs() < 1e-12);
        t.update(0.0, Timestamp::from_millis(20));
        // |m| < gamma -> k_d: 13.25 + 10*0.00018*(0 - 13.25)
        assert!((t.value() - (13.25 - 10.0 * 0.00018 * 13.25)).abs() < 1e-12);
    }

    #[test]
    fn chromium_constants_and_caps() {
        let mut t = AdaptiveThreshold::new(AdaptiveThresholdConfig::chromium());
        t.update(0.0, Timestamp::from_millis(0));
        // dT capped at 100 ms: 12.5 + 0.039*100*(0 - 12.5) = 12.5 - 48.75 -> clamp 6
        t.update(0.0, Timestamp::from_millis(1000));
        assert_eq!(t.value(), 6.0);
        // |m| - gamma > 15: no update.
        t.update(100.0, Timestamp::from_millis(1100));
        assert_eq!(t.value(), 6.0);
        // 20 - 6 = 14 <= 15: 6 + 0.0087*50*14 = 12.09
        t.update(20.0, Timestamp::from_millis(1150));
        assert!((t.value() - (6.0 + 0.0087 * 50.0 * 14.0)).abs() < 1e-12);
    }

    #[test]
    fn without_the_spike_guard_a_spike_raises_gamma_eq17() {
        let mut t = AdaptiveThreshold::new(AdaptiveThresholdConfig {
            max_adapt_offset: f64::INFINITY,
            ..AdaptiveThresholdConfig::paper()
        });
        t.update(100.0, Timestamp::from_millis(0));
        t.update(100.0, Timestamp::from_millis(10));
        // 12.5 + 10 * 0.01 * (100 - 12.5) = 21.25
        assert!((t.value() - 21.25).abs() < 1e-12);
    }

    #[test]
    fn static_threshold_halves() {
        let mut t = StaticThreshold::new(StaticThresholdConfig::default());
        assert!((t.value() - 25.0).abs() < 1e-12);
        t.set_halved(true);
        assert!((t.value() - 12.5).abs() < 1e-12);
        let mut no = StaticThreshold::new(StaticThresholdConfig {
            halving: false,
            ..Default::default()
        });
        no.set_halved(true);
        assert!((no.value() - 25.0).abs() < 1e-12);
    }
}
