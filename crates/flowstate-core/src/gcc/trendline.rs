//! Chromium's trendline estimator (`TrendlineEstimator`, libwebrtc M100:
//! `modules/congestion_controller/goog_cc/trendline_estimator.cc`, branch-heads/4896).
//!
//! accumulated += d; smoothed = a*smoothed + (1-a)*accumulated (a = 0.9); keep the last
//! 20 (arrival time, smoothed) points; slope by least squares over the window. The
//! detector compares min(n, 60) * slope * 4 (the "modified trend") with the threshold.

use std::collections::VecDeque;

/// Constants of the estimator.
#[derive(Debug, Clone, PartialEq)]
pub struct TrendlineConfig {
    /// Number of points in the regression window (20).
    pub window_size: usize,
    /// Smoothing coefficient of the accumulated delay (0.9).
    pub smoothing_coef: f64,
    /// Gain applied to the slope before thresholding (4).
    pub threshold_gain: f64,
    /// Cap on the delta counter (1000).
    pub delta_counter_max: u32,
}

impl Default for TrendlineConfig {
    fn default() -> Self {
        Self {
            window_size: 20,
            smoothing_coef: 0.9,
            threshold_gain: 4.0,
            delta_counter_max: 1000,
        }
    }
}

/// The estimator state.
#[derive(Debug, Clone)]
pub struct Trendline {
    cfg: TrendlineConfig,
    first_arrival_ms: Option<f64>,
    accumulated: f64,
    smoothed: f64,
    hist: VecDeque<(f64, f64)>,
    trend: f64,
}

impl Trendline {
    pub fn new(cfg: TrendlineConfig) -> Self {
        Self {
            cfg,
            first_arrival_ms: None,
            accumulated: 0.0,
            smoothed: 0.0,
            hist: VecDeque::new(),
            trend: 0.0,
        }
    }

    /// Feed one delay variation d (ms) of a group that completed at `arrival_ms`
    /// (ms on any fixed clock). Returns the slope (the trend).
    pub fn update(&mut self, d_ms: f64, arrival_ms: f64) -> f64 {
        if !d_ms.is_finite() || !arrival_ms.is_finite() {
            return self.trend;
        }
        let first = *self.first_arrival_ms.get_or_insert(arrival_ms);
        self.accumulated += d_ms;
        let a = self.cfg.smoothing_coef.clamp(0.0, 1.0);
        self.smoothed = a * self.smoothed + (1.0 - a) * self.accumulated;
        self.hist.push_back((arrival_ms - first, self.smoothed));
        let window = self.cfg.window_size.max(2);
        while self.hist.len() > window {
            self.hist.pop_front();
        }
        if self.hist.len() == window {
            if let Some(slope) = linear_fit_slope(&self.hist) {
                self.trend = slope;
            }
        }
        if !self.accumulated.is_finite() || !self.smoothed.is_finite() {
            // Defensive: never propagate infinities.
            self.accumulated = 0.0;
            self.smoothed = 0.0;
            self.hist.clear();
            self.trend = 0.0;
        }
        self.trend
    }

    /// The latest slope.
    pub fn trend(&self) -> f64 {
        self.trend
    }
    /// The gain applied to the slope (4).
    pub fn threshold_gain(&self) -> f64 {
        self.cfg.threshold_gain
    }
    /// The current smoothed accumulated delay (ms).
    pub fn smoothed_delay(&self) -> f64 {
        self.smoothed
    }
}

/// Least-squares slope of y over x; `None` if all x are equal or the result is not
/// finite.
pub fn linear_fit_slope(points: &VecDeque<(f64, f64)>) -> Option<f64> {
    if points.len() < 2 {
        return None;
    }
    let n = points.len() as f64;
    let (sx, sy) = points
        .iter()
        .fold((0.0, 0.0), |(a, b), (x, y)| (a + x, b + y));
    let (xm, ym) = (sx / n, sy / n);
    let mut num = 0.0;
    let mut den = 0.0;
    for (x, y) in points {
        num += (x - xm) * (y - ym);
        den += (x - xm) * (x - xm);
    }
    if den == 0.0 {
        return None;
    }
    let s = num / den;
    s.is_finite().then_some(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slope_of_a_line() {
        let pts: VecDeque<(f64, f64)> = [(0.0, 1.0), (1.0, 3.0), (2.0, 5.0)].into_iter().collect();
        assert!((linear_fit_slope(&pts).unwrap_or(0.0) - 2.0).abs() < 1e-12);
        let flat: VecDeque<(f64, f64)> = [(1.0, 1.0), (1.0, 3.0)].into_iter().collect();
        assert_eq!(linear_fit_slope(&flat), None);
    }

    #[test]
    fn smoothing_matches_hand_computation() {
        let mut t = Trendline::new(TrendlineConfig::default());
        t.update(1.0, 0.0);
        // acc = 1, smoothed = 0.1
        assert!((t.smoothed_delay() - 0.1).abs() < 1e-12);
        t.update(1.0, 5.0);
        // acc = 2, smoothed = 0.09 + 0.2 = 0.29
        assert!((t.smoothed_delay() - 0.29).abs() < 1e-12);
        // Window not full yet: trend stays 0.
        assert_eq!(t.trend(), 0.0);
    }

    #[test]
    fn constant_positive_variation_gives_positive_trend() {
        let mut t = Trendline::new(TrendlineConfig::default());
        for i in 0..100 {
            t.update(1.0, i as f64 * 10.0);
        }
        // accumulated grows 1 ms per 10 ms: smoothed slope approaches 0.1.
        assert!((t.trend() - 0.1).abs() < 0.01, "{}", t.trend());
        for i in 100..300 {
            t.update(0.0, i as f64 * 10.0);
        }
        assert!(t.trend().abs() < 1e-3);
    }
}
