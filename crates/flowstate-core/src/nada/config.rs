//! Every NADA constant: the defaults of RFC 8698 section 4.1 (Figure 3, "NADA
//! parameters"), each overridable, plus the named options where this implementation
//! may deviate from the RFC (each off by default, so the RFC's behaviour is the default).

use crate::units::{Bitrate, TimeDelta};

/// NADA parameters (RFC 8698 section 4.1, Figure 3).
#[derive(Debug, Clone, PartialEq)]
pub struct NadaConfig {
    /// PRIO: weight of priority of the flow (1.0).
    pub prio: f64,
    /// RMIN: minimum rate of the application (150 kbit/s).
    pub min_rate: Bitrate,
    /// RMAX: maximum rate of the application (1500 kbit/s).
    pub max_rate: Bitrate,
    /// The reference rate before the first feedback. The RFC starts at RMIN and ramps up
    /// (section 4.3); default RMIN.
    pub initial_rate: Bitrate,
    /// XREF: reference congestion level (10 ms).
    pub x_ref: TimeDelta,
    /// KAPPA: scaling parameter of the gradual rate update (0.5).
    pub kappa: f64,
    /// ETA: scaling parameter of the gradual rate update (2.0).
    pub eta: f64,
    /// TAU: upper bound of RTT in the gradual rate update (500 ms).
    pub tau: TimeDelta,
    /// DELTA: target feedback interval (100 ms).
    pub delta: TimeDelta,
    /// LOGWIN: observation window of the receiver (500 ms).
    pub logwin: TimeDelta,
    /// QEPS: threshold for the queuing delay build-up allowed during accelerated
    /// ramp-up (10 ms).
    pub qeps: TimeDelta,
    /// DFILT: bound on the filtering delay (120 ms).
    pub dfilt: TimeDelta,
    /// GAMMA_MAX: upper bound on the rate increase ratio of accelerated ramp-up (0.5).
    pub gamma_max: f64,
    /// QBOUND: upper bound on the self-inflicted queuing delay during ramp-up (50 ms).
    pub qbound: TimeDelta,
    /// MULTILOSS: multiplier of the average loss interval giving the expiry of the last
    /// observed loss, after which delay warping stops (7.0).
    pub multiloss: f64,
    /// QTH: queuing-delay threshold above which delay is warped (50 ms).
    pub qth: TimeDelta,
    /// LAMBDA: exponent of the non-linear warping (0.5).
    pub lambda: f64,
    /// PLRREF: reference packet loss ratio (0.01).
    pub plr_ref: f64,
    /// PMRREF: reference packet marking ratio (0.01).
    pub pmr_ref: f64,
    /// DLOSS: reference delay penalty for loss at PLRREF (10 ms).
    pub d_loss: TimeDelta,
    /// DMARK: reference delay penalty for ECN marking at PMRREF (2 ms).
    pub d_mark: TimeDelta,
    /// FPS: frame rate of the incoming video (30).
    pub fps: f64,
    /// BETA_S: scaling of the sending-rate deviation from r_ref (0.1).
    pub beta_s: f64,
    /// BETA_V: scaling of the encoder-rate deviation from r_ref (0.1).
    pub beta_v: f64,
    /// ALPHA: smoothing factor of the loss and marking ratios (0.1).
    pub alpha: f64,
    /// The largest offset of r_vin and r_send from r_ref, as a fraction of r_ref
    /// (equations (11) and (12): 0.05).
    pub max_rate_offset: f64,
    /// Taps of the minimum filter on raw queuing-delay samples (section 5.1.1: 15).
    pub min_filter_taps: usize,
    /// Deviation (ns3-rmcat): after the last loss expires, blend warped and raw delay
    /// linearly over one more average loss interval instead of switching straight back
    /// to the raw queuing delay. Default false (RFC 8698 section 4.2).
    pub warp_blend_after_expiry: bool,
    /// Deviation: estimate the average loss interval with an EWMA (ALPHA) over the
    /// intervals after the first, instead of TFRC's weighted average of the newest eight
    /// with the open interval (RFC 5348 section 5.4, as cisco/ns3-rmcat). Default false.
    pub loss_interval_ewma: bool,
    /// Deviation (ns3-rmcat `NADA_PARAM_XMAX` = 500 ms): clip x_curr to this value.
    /// Default `None` (the RFC does not clip; r_ref is clipped to [RMIN, RMAX] anyway).
    pub x_max: Option<TimeDelta>,
}

impl Default for NadaConfig {
    fn default() -> Self {
        NadaConfig {
            prio: 1.0,
            min_rate: Bitrate::kbps(150.0),
            max_rate: Bitrate::kbps(1500.0),
            initial_rate: Bitrate::kbps(150.0),
            x_ref: TimeDelta::millis(10),
            kappa: 0.5,
            eta: 2.0,
            tau: TimeDelta::millis(500),
            delta: TimeDelta::millis(100),
            logwin: TimeDelta::millis(500),
            qeps: TimeDelta::millis(10),
            dfilt: TimeDelta::millis(120),
            gamma_max: 0.5,
            qbound: TimeDelta::millis(50),
            multiloss: 7.0,
            qth: TimeDelta::millis(50),
            lambda: 0.5,
            plr_ref: 0.01,
            pmr_ref: 0.01,
            d_loss: TimeDelta::millis(10),
            d_mark: TimeDelta::millis(2),
            fps: 30.0,
            beta_s: 0.1,
            beta_v: 0.1,
            alpha: 0.1,
            max_rate_offset: 0.05,
            min_filter_taps: 15,
            warp_blend_after_expiry: false,
            loss_interval_ewma: false,
            x_max: None,
        }
    }
}

impl NadaConfig {
    /// Checks every field; the error names the first bad one and why.
    pub fn validate(&self) -> Result<(), String> {
        let pos = |name: &str, v: f64| {
            if v.is_finite() && v > 0.0 {
                Ok(())
            } else {
                Err(format!(
                    "nada.{name} must be a positive finite number, got {v}"
                ))
            }
        };
        let frac = |name: &str, v: f64| {
            if v.is_finite() && (0.0..=1.0).contains(&v) && v > 0.0 {
                Ok(())
            } else {
                Err(format!("nada.{name} must be in (0, 1], got {v}"))
            }
        };
        let dur = |name: &str, d: TimeDelta| {
            if d.is_positive() {
                Ok(())
            } else {
                Err(format!("nada.{name} must be a positive duration, got {d}"))
            }
        };
        pos("prio", self.prio)?;
        pos("min_rate", self.min_rate.as_bps())?;
        pos("max_rate", self.max_rate.as_bps())?;
        if self.max_rate < self.min_rate {
            return Err(format!(
                "nada.max_rate ({}) is below nada.min_rate ({})",
                self.max_rate, self.min_rate
            ));
        }
        if !self.initial_rate.is_finite() {
            return Err("nada.initial_rate must be finite".into());
        }
        dur("x_ref", self.x_ref)?;
        pos("kappa", self.kappa)?;
        pos("eta", self.eta)?;
        dur("tau", self.tau)?;
        dur("delta", self.delta)?;
        dur("logwin", self.logwin)?;
        dur("qeps", self.qeps)?;
        if self.dfilt < TimeDelta::ZERO {
            return Err(format!(
                "nada.dfilt must not be negative, got {}",
                self.dfilt
            ));
        }
        pos("gamma_max", self.gamma_max)?;
        dur("qbound", self.qbound)?;
        pos("multiloss", self.multiloss)?;
        dur("qth", self.qth)?;
        pos("lambda", self.lambda)?;
        frac("plr_ref", self.plr_ref)?;
        frac("pmr_ref", self.pmr_ref)?;
        if self.d_loss < TimeDelta::ZERO || self.d_mark < TimeDelta::ZERO {
            return Err("nada.d_loss and nada.d_mark must not be negative".into());
        }
        pos("fps", self.fps)?;
        if !(self.beta_s.is_finite() && self.beta_s >= 0.0) {
            return Err(format!("nada.beta_s must be >= 0, got {}", self.beta_s));
        }
        if !(self.beta_v.is_finite() && self.beta_v >= 0.0) {
            return Err(format!("nada.beta_v must be >= 0, got {}", self.beta_v));
        }
        frac("alpha", self.alpha)?;
        if !(self.max_rate_offset.is_finite() && (0.0..=1.0).contains(&self.max_rate_offset)) {
            return Err(format!(
                "nada.max_rate_offset must be in [0, 1], got {}",
                self.max_rate_offset
            ));
        }
        if self.min_filter_taps == 0 {
            return Err("nada.min_filter_taps must be at least 1".into());
        }
        if let Some(x) = self.x_max {
            dur("x_max", x)?;
        }
        Ok(())
    }

    /// The initial rate clipped into [RMIN, RMAX].
    pub(crate) fn clip(&self, r: Bitrate) -> Bitrate {
        r.max(self.min_rate).min(self.max_rate.max(self.min_rate))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid_and_bad_fields_are_named() {
        assert_eq!(NadaConfig::default().validate(), Ok(()));
        let bad = NadaConfig {
            kappa: f64::NAN,
            ..NadaConfig::default()
        };
        assert!(bad.validate().unwrap_err().contains("nada.kappa"));
        let bad = NadaConfig {
            max_rate: Bitrate::kbps(100.0),
            ..NadaConfig::default()
        };
        assert!(bad.validate().unwrap_err().contains("nada.max_rate"));
        let bad = NadaConfig {
            alpha: 1.5,
            ..NadaConfig::default()
        };
        assert!(bad.validate().unwrap_err().contains("nada.alpha"));
    }
}
