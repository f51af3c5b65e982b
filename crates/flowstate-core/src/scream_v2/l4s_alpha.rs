//! l4s_alpha: the average fraction of CE-marked packets, a fast-attack, slow-decay EWMA
//! (draft 4.2.1.3; libwebrtc `ScreamV2::UpdateL4SAlpha`).
//!
//! libwebrtc updates it once per feedback from that feedback's packets; the draft counts
//! packets over min(10 ms, s_rtt) and updates once per such interval (option
//! `draft_l4s_alpha_interval`).

use super::ScreamV2Config;
use crate::units::{TimeDelta, Timestamp};

/// The draft's longest l4s_alpha update interval (draft 4.2.1.3: "at least every 10ms").
pub const DRAFT_L4S_ALPHA_INTERVAL: TimeDelta = TimeDelta::millis(10);

#[derive(Debug, Clone)]
pub struct L4sAlpha {
    g_up: f64,
    g_down: f64,
    per_interval: bool,
    alpha: f64,
    delivered: u64,
    marked: u64,
    last_update: Option<Timestamp>,
}

impl L4sAlpha {
    pub fn new(cfg: &ScreamV2Config) -> Self {
        L4sAlpha {
            g_up: cfg.l4s_avg_g_up,
            g_down: cfg.l4s_avg_g_down,
            per_interval: cfg.draft_l4s_alpha_interval,
            alpha: 0.0,
            delivered: 0,
            marked: 0,
            last_update: None,
        }
    }

    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    /// Sets alpha (libwebrtc's "more credible value" after a long uncongested time).
    pub fn set(&mut self, alpha: f64) {
        self.alpha = alpha.clamp(0.0, 1.0);
    }

    /// One filter step with the marked fraction `fraction`:
    /// `alpha = G_UP * f + (1 - G_UP) * alpha` if `f > alpha` (libwebrtc; the draft
    /// writes `>=`, the same value), else `alpha = (1 - G_DOWN) * alpha`.
    pub fn step(&mut self, fraction: f64) {
        if fraction > self.alpha {
            self.alpha = (self.g_up * fraction + (1.0 - self.g_up) * self.alpha).min(1.0);
        } else {
            self.alpha *= 1.0 - self.g_down;
        }
    }

    /// A feedback with `received` packets of which `marked` were CE.
    pub fn on_feedback(&mut self, now: Timestamp, received: u32, marked: u32, srtt: TimeDelta) {
        if received == 0 {
            return;
        }
        if !self.per_interval {
            self.step(f64::from(marked) / f64::from(received));
            return;
        }
        self.delivered += u64::from(received);
        self.marked += u64::from(marked);
        let interval = DRAFT_L4S_ALPHA_INTERVAL.min(srtt);
        let due = self
            .last_update
            .map_or(true, |t| now.saturating_since(t) >= interval);
        if due {
            self.step(self.marked as f64 / self.delivered as f64);
            self.delivered = 0;
            self.marked = 0;
            self.last_update = Some(now);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filter() -> L4sAlpha {
        L4sAlpha::new(&ScreamV2Config::default())
    }

    #[test]
    fn fast_attack() {
        // alpha = 1/8 * 0.5 + 7/8 * 0 = 0.0625
        let mut a = filter();
        a.step(0.5);
        assert!((a.alpha() - 0.0625).abs() < 1e-12);
        // alpha = 1/8 * 0.5 + 7/8 * 0.0625
        a.step(0.5);
        assert!((a.alpha() - (0.0625 + 0.875 * 0.0625)).abs() < 1e-12);
    }

    #[test]
    fn slow_decay() {
        // alpha = (1 - 1/128) * alpha when the fraction is not above alpha.
        let mut a = filter();
        a.set(0.5);
        a.step(0.0);
        assert!((a.alpha() - 0.5 * 127.0 / 128.0).abs() < 1e-12);
    }

    #[test]
    fn steady_fraction_converges_to_it() {
        let mut a = filter();
        for _ in 0..400 {
            a.step(0.3);
        }
        // The fast-attack, slow-decay filter settles at (not above) the fraction.
        assert!(
            a.alpha() <= 0.3 + 1e-12 && a.alpha() > 0.29,
            "{}",
            a.alpha()
        );
    }

    #[test]
    fn draft_cadence_accumulates_over_ten_ms() {
        let mut a = L4sAlpha::new(&ScreamV2Config {
            draft_l4s_alpha_interval: true,
            ..ScreamV2Config::default()
        });
        let srtt = TimeDelta::millis(50);
        // The first feedback updates at once (nothing marked).
        a.on_feedback(Timestamp::from_millis(0), 10, 0, srtt);
        assert_eq!(a.alpha(), 0.0);
        // 4 ms later: not due; the counts accumulate.
        a.on_feedback(Timestamp::from_millis(4), 10, 5, srtt);
        assert_eq!(a.alpha(), 0.0);
        // 10 ms after the first update: fraction (5 + 0) / (10 + 10).
        a.on_feedback(Timestamp::from_millis(10), 10, 0, srtt);
        assert!(
            (a.alpha() - 0.125 * 5.0 / 20.0).abs() < 1e-12,
            "{}",
            a.alpha()
        );
    }
}
