//! The parameters of shared bottleneck detection, with RFC 8382's recommended values
//! (section 2.2, Table 1; their effect: section 2.1) as defaults.

use thiserror::Error;

use crate::units::TimeDelta;

/// Every SBD parameter of RFC 8382 (section 2.1 names them, section 2.2 gives the
/// values used as defaults here). The receiver needs `t`, `n`, `m`, `f`, `p_v` (and
/// `c_s`, `c_h`, `p_l` for the noise removal of section 3.4.1); the grouping needs the
/// thresholds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SbdConfig {
    /// T: the base time interval over which measurements are summarised (350 ms).
    pub t: TimeDelta,
    /// N: the number of base intervals in the longest window (pkt_loss, 50).
    pub n: usize,
    /// M: the number of base intervals of mean_delay, skew_est and var_est (30, M <= N).
    pub m: usize,
    /// F: the number of base intervals freq_est counts crossings over (20, F <= N).
    pub f: usize,
    /// c_s: a flow transits a bottleneck when skew_est < c_s (-0.01).
    pub c_s: f64,
    /// c_h: hysteresis: a flow that transited a bottleneck last time still does while
    /// skew_est < c_h (0.3).
    pub c_h: f64,
    /// p_s: flows stay together while sorted skew_est differ by less than p_s (0.15).
    pub p_s: f64,
    /// p_f: flows stay together while sorted freq_est differ by less than p_f (0.1).
    pub p_f: f64,
    /// p_mad: flows stay together while sorted var_est differ by less than p_mad times
    /// the higher one (0.1).
    pub p_mad: f64,
    /// p_d: flows stay together while sorted pkt_loss differ by less than p_d times the
    /// higher one (0.1).
    pub p_d: f64,
    /// p_l: packet loss above p_l is high enough to mark a bottleneck and to group by
    /// (0.1).
    pub p_l: f64,
    /// p_v: a crossing of mean_delay is significant when E_T(OWD) leaves mean_delay by
    /// more than p_v * var_est (0.7, section 3.2.4).
    pub p_v: f64,
    /// Section 3.4.1 (oscillation noise): while a flow is deemed not to transit a
    /// bottleneck, its var_base_T is not recorded and its mean crossings are not
    /// counted. Default on (the RFC's text); off = the plain statistics of 3.2.
    pub remove_oscillation_noise: bool,
    /// The grouping's step 5 (pkt_loss) replaces step 4 (skew_est) in a subgroup with
    /// a flow above p_l, as the RFC authors' reference script does. Default off: the
    /// RFC's steps 4 and 5 both apply, in order.
    pub loss_replaces_skew: bool,
}

impl Default for SbdConfig {
    /// RFC 8382 section 2.2, Table 1.
    fn default() -> Self {
        SbdConfig {
            t: TimeDelta::millis(350),
            n: 50,
            m: 30,
            f: 20,
            c_s: -0.01,
            c_h: 0.3,
            p_s: 0.15,
            p_f: 0.1,
            p_mad: 0.1,
            p_d: 0.1,
            p_l: 0.1,
            p_v: 0.7,
            remove_oscillation_noise: true,
            loss_replaces_skew: false,
        }
    }
}

/// A parameter outside the range the mechanism can work with.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum SbdConfigError {
    #[error("SBD base interval T must be positive, got {0} us")]
    BaseInterval(i64),
    #[error("SBD window counts must satisfy 1 <= M <= N, 1 <= F <= N and F <= 255 (got N = {n}, M = {m}, F = {f})")]
    Windows { n: usize, m: usize, f: usize },
    #[error("SBD parameter {name} must be a finite number{range}, got {value}")]
    Threshold {
        name: &'static str,
        range: &'static str,
        value: f64,
    },
}

impl SbdConfig {
    /// The config if every parameter is usable, else an error naming the first that is
    /// not. F is at most 255 because feedback carries the crossing count in one byte.
    pub fn validated(self) -> Result<Self, SbdConfigError> {
        if !self.t.is_positive() {
            return Err(SbdConfigError::BaseInterval(self.t.as_micros()));
        }
        let (n, m, f) = (self.n, self.m, self.f);
        if m == 0 || f == 0 || m > n || f > n || f > 255 {
            return Err(SbdConfigError::Windows { n, m, f });
        }
        for (name, value) in [("c_s", self.c_s), ("c_h", self.c_h)] {
            if !(-1.0..=1.0).contains(&value) {
                let range = " in [-1, 1]";
                return Err(SbdConfigError::Threshold { name, range, value });
            }
        }
        for (name, value) in [
            ("p_s", self.p_s),
            ("p_f", self.p_f),
            ("p_mad", self.p_mad),
            ("p_d", self.p_d),
            ("p_l", self.p_l),
            ("p_v", self.p_v),
        ] {
            if !(value.is_finite() && value >= 0.0) {
                let range = " >= 0";
                return Err(SbdConfigError::Threshold { name, range, value });
            }
        }
        Ok(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_table_1_and_valid() {
        let c = SbdConfig::default().validated().unwrap();
        assert_eq!(c.t, TimeDelta::millis(350));
        assert_eq!((c.n, c.m, c.f), (50, 30, 20));
        assert_eq!((c.c_s, c.c_h), (-0.01, 0.3));
        assert_eq!(
            (c.p_s, c.p_f, c.p_mad, c.p_d, c.p_l, c.p_v),
            (0.15, 0.1, 0.1, 0.1, 0.1, 0.7)
        );
    }

    #[test]
    fn bad_parameters_are_named() {
        let bad = SbdConfig {
            m: 60,
            ..SbdConfig::default()
        };
        assert_eq!(
            bad.validated().unwrap_err().to_string(),
            "SBD window counts must satisfy 1 <= M <= N, 1 <= F <= N and F <= 255 (got N = 50, M = 60, F = 20)"
        );
        let nan = SbdConfig {
            p_mad: f64::NAN,
            ..SbdConfig::default()
        };
        assert!(nan.validated().unwrap_err().to_string().contains("p_mad"));
        let zero_t = SbdConfig {
            t: TimeDelta::ZERO,
            ..SbdConfig::default()
        };
        assert!(zero_t.validated().is_err());
    }
}
