//! Smoothed RTT and RTT variation, as TCP computes them (RFC 6298, section 2), used by
//! RAP (the RAP paper estimates SRTT with TCP's exponentially weighted average).

use crate::units::{round_to_i64, TimeDelta};

/// Gains of the estimator.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RttConfig {
    /// SRTT gain (RFC 6298: alpha = 1/8).
    pub alpha: f64,
    /// RTTVAR gain (RFC 6298: beta = 1/4).
    pub beta: f64,
}

impl Default for RttConfig {
    fn default() -> Self {
        RttConfig {
            alpha: 0.125,
            beta: 0.25,
        }
    }
}

/// SRTT / RTTVAR estimator (RFC 6298, 2.2 and 2.3).
#[derive(Debug, Clone)]
pub struct RttEstimator {
    cfg: RttConfig,
    srtt_us: Option<f64>,
    rttvar_us: f64,
    latest: Option<TimeDelta>,
}

impl RttEstimator {
    pub fn new(cfg: RttConfig) -> Self {
        RttEstimator {
            cfg,
            srtt_us: None,
            rttvar_us: 0.0,
            latest: None,
        }
    }

    /// Add a sample. Negative samples are ignored; a zero sample counts as 1 us.
    pub fn on_sample(&mut self, sample: TimeDelta) {
        if sample.as_micros() < 0 {
            return;
        }
        let r = (sample.as_micros().max(1)) as f64;
        let a = self.cfg.alpha.clamp(0.0, 1.0);
        let b = self.cfg.beta.clamp(0.0, 1.0);
        match self.srtt_us {
            None => {
                // RFC 6298, 2.2: SRTT = R, RTTVAR = R/2.
                self.srtt_us = Some(r);
                self.rttvar_us = r / 2.0;
            }
            Some(srtt) => {
                // RFC 6298, 2.3: RTTVAR = (1-beta) RTTVAR + beta |SRTT - R'|; SRTT = (1-alpha) SRTT + alpha R'.
                self.rttvar_us = (1.0 - b) * self.rttvar_us + b * (srtt - r).abs();
                self.srtt_us = Some((1.0 - a) * srtt + a * r);
            }
        }
        self.latest = Some(TimeDelta::from_micros(r as i64));
    }

    pub fn srtt(&self) -> Option<TimeDelta> {
        self.srtt_us
            .map(|v| TimeDelta::from_micros(round_to_i64(v)))
    }

    pub fn rttvar(&self) -> TimeDelta {
        TimeDelta::from_micros(round_to_i64(self.rttvar_us))
    }

    pub fn latest(&self) -> Option<TimeDelta> {
        self.latest
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn follows_rfc6298() {
        let mut e = RttEstimator::new(RttConfig::default());
        assert_eq!(e.srtt(), None);
        e.on_sample(TimeDelta::millis(100));
        // first: SRTT = 100, RTTVAR = 50
        assert_eq!(e.srtt(), Some(TimeDelta::millis(100)));
        assert_eq!(e.rttvar(), TimeDelta::millis(50));
        e.on_sample(TimeDelta::millis(200));
        // RTTVAR = 0.75*50 + 0.25*|100-200| = 37.5 + 25 = 62.5; SRTT = 0.875*100 + 0.125*200 = 112.5
        assert_eq!(e.rttvar(), TimeDelta::from_micros(62_500));
        assert_eq!(e.srtt(), Some(TimeDelta::from_micros(112_500)));
        e.on_sample(TimeDelta::millis(-5));
        assert_eq!(e.srtt(), Some(TimeDelta::from_micros(112_500)));
    }
}
