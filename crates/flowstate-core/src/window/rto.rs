//! Retransmission timeout estimator, RFC 6298 section 2 (also RFC 9260 section 6.3.1,
//! which uses the same rules with RTO.Alpha = 1/8, RTO.Beta = 1/4).

use crate::units::TimeDelta;

/// RTO constants. [`RtoConfig::default`] gives the RFC values (RFC 9260 section 16:
/// RTO.Initial 1 s, RTO.Min 1 s, RTO.Max 60 s); [`RtoConfig::webrtc`] gives the lower
/// values WebRTC stacks use (dcSCTP: initial 500 ms, min 400 ms) - a named deviation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RtoConfig {
    pub initial: TimeDelta,
    pub min: TimeDelta,
    pub max: TimeDelta,
    /// RTO.Alpha, the SRTT gain (1/8).
    pub alpha: f64,
    /// RTO.Beta, the RTTVAR gain (1/4).
    pub beta: f64,
    /// K, the RTTVAR multiplier (4).
    pub k: i64,
    /// Clock granularity G (RFC 6298 section 2.2/2.3: RTO = SRTT + max(G, K*RTTVAR)).
    pub granularity: TimeDelta,
    /// The backed-off RTO never exceeds this (`None`: only `max`). Chromium gives dcSCTP
    /// `max_timer_backoff_duration` = 3 s (media/sctp/dcsctp_transport.cc
    /// `kMaxTimerBackoffDuration`).
    pub max_backoff: Option<TimeDelta>,
}

impl Default for RtoConfig {
    fn default() -> Self {
        RtoConfig {
            initial: TimeDelta::secs(1),
            min: TimeDelta::secs(1),
            max: TimeDelta::secs(60),
            alpha: 0.125,
            beta: 0.25,
            k: 4,
            granularity: TimeDelta::millis(1),
            max_backoff: None,
        }
    }
}

impl RtoConfig {
    /// WebRTC preset (dcSCTP): RTO.Initial 500 ms, RTO.Min 400 ms, RTO.Max 60 s.
    pub fn webrtc() -> Self {
        RtoConfig {
            initial: TimeDelta::millis(500),
            min: TimeDelta::millis(400),
            ..Default::default()
        }
    }
}

impl RtoConfig {
    /// dcSCTP as Chromium runs it (`dcsctp` preset): RTO.Initial 500 ms, RTO.Min 400 ms,
    /// RTO.Max 60 s (net/dcsctp/public/dcsctp_options.h `rto_initial`, `rto_min`,
    /// `rto_max`); `min_rtt_variance` 220 ms floors the scaled RTTVAR
    /// (net/dcsctp/tx/retransmission_timeout.cc: RTO = SRTT + max(4 RTTVAR, 220 ms)),
    /// i.e. RFC 6298's G = 220 ms; the backoff stops at 3 s
    /// (media/sctp/dcsctp_transport.cc `kMaxTimerBackoffDuration`).
    pub fn dcsctp() -> Self {
        RtoConfig {
            granularity: TimeDelta::millis(220),
            max_backoff: Some(TimeDelta::secs(3)),
            ..Self::webrtc()
        }
    }

    /// Linux TCP (net/ipv4/tcp_input.c `__tcp_set_rto`, `TCP_RTO_MIN` = 200 ms,
    /// `TCP_RTO_MAX` = 120 s): RTO = SRTT + max(4*mdev, 200 ms), i.e. RFC 6298's formula
    /// with G = RTO.Min = 200 ms. A named deviation for Linux cross traffic.
    pub fn linux() -> Self {
        RtoConfig {
            initial: TimeDelta::secs(1),
            min: TimeDelta::millis(200),
            max: TimeDelta::secs(120),
            granularity: TimeDelta::millis(200),
            ..Default::default()
        }
    }
}

/// SRTT / RTTVAR / RTO state with exponential backoff.
#[derive(Debug, Clone)]
pub struct RttEstimator {
    config: RtoConfig,
    srtt: Option<TimeDelta>,
    rttvar: TimeDelta,
    latest: Option<TimeDelta>,
    /// Samples taken so far.
    samples: u64,
    /// RTO before backoff.
    base_rto: TimeDelta,
    /// Current RTO (after backoff).
    rto: TimeDelta,
}

impl RttEstimator {
    pub fn new(config: RtoConfig) -> Self {
        let max = config.max.max(TimeDelta::from_micros(1));
        let rto = config.initial.min(max).max(TimeDelta::from_micros(1));
        RttEstimator {
            config,
            srtt: None,
            rttvar: TimeDelta::ZERO,
            latest: None,
            samples: 0,
            base_rto: rto,
            rto,
        }
    }

    pub fn config(&self) -> &RtoConfig {
        &self.config
    }

    /// Take an RTT measurement R (non-positive samples are ignored).
    ///
    /// RFC 6298 section 2.2 (first sample): SRTT = R, RTTVAR = R/2.
    /// Section 2.3 (later samples): RTTVAR = (1 - beta) RTTVAR + beta |SRTT - R|, then
    /// SRTT = (1 - alpha) SRTT + alpha R. Both: RTO = SRTT + max(G, K * RTTVAR),
    /// clamped to [RTO.Min, RTO.Max] (sections 2.4, 2.5). A new sample also clears the
    /// backoff (section 5.7 collapses it when the timer restarts with a new estimate).
    pub fn on_sample(&mut self, r: TimeDelta) {
        if !r.is_positive() {
            return;
        }
        self.latest = Some(r);
        self.samples += 1;
        match self.srtt {
            None => {
                self.srtt = Some(r);
                self.rttvar = r / 2;
            }
            Some(srtt) => {
                let err = (srtt - r).abs();
                self.rttvar = self.rttvar * (1.0 - self.config.beta) + err * self.config.beta;
                self.srtt = Some(srtt * (1.0 - self.config.alpha) + r * self.config.alpha);
            }
        }
        let srtt = self.srtt.unwrap_or(r);
        let rto = srtt + self.config.granularity.max(self.rttvar * self.config.k);
        self.base_rto = self.clamp(rto);
        self.rto = self.base_rto;
    }

    /// Timer expiry: RTO = min(2 * RTO, RTO.Max) (RFC 6298 section 5.5, RFC 9260 6.3.3 E2).
    pub fn backoff(&mut self) {
        self.rto = self.clamp(self.rto * 2);
        if let Some(cap) = self.config.max_backoff {
            self.rto = self.rto.min(cap.max(self.base_rto));
        }
    }

    fn clamp(&self, rto: TimeDelta) -> TimeDelta {
        let max = self.config.max.max(TimeDelta::from_micros(1));
        rto.max(self.config.min)
            .min(max)
            .max(TimeDelta::from_micros(1))
    }

    pub fn rto(&self) -> TimeDelta {
        self.rto
    }
    pub fn srtt(&self) -> Option<TimeDelta> {
        self.srtt
    }
    pub fn rttvar(&self) -> TimeDelta {
        self.rttvar
    }
    /// The newest sample (not smoothed).
    pub fn latest(&self) -> Option<TimeDelta> {
        self.latest
    }
    /// How many samples were taken (two equal samples in a row count twice).
    pub fn samples(&self) -> u64 {
        self.samples
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: i64) -> TimeDelta {
        TimeDelta::millis(v)
    }

    #[test]
    fn initial_rto_is_config_initial() {
        assert_eq!(RttEstimator::new(RtoConfig::default()).rto(), ms(1000));
        assert_eq!(RttEstimator::new(RtoConfig::webrtc()).rto(), ms(500));
    }

    #[test]
    fn dcsctp_rttvar_floor_and_backoff_cap() {
        let mut e = RttEstimator::new(RtoConfig::dcsctp());
        assert_eq!(e.rto(), ms(500));
        // First sample 100 ms: SRTT 100, RTTVAR 50: 4 RTTVAR = 200 < 220 ms floor.
        e.on_sample(ms(100));
        assert_eq!(e.rto(), ms(400), "100 + 220 = 320, raised to RTO.Min 400");
        e.on_sample(ms(300));
        // SRTT 125, RTTVAR 0.75*50 + 0.25*200 = 87.5: RTO = 125 + 350 = 475 ms.
        assert_eq!(e.rto(), ms(475));
        for _ in 0..5 {
            e.backoff();
        }
        assert_eq!(e.rto(), ms(3000), "Chromium caps dcSCTP's backoff at 3 s");
    }

    /// RFC 6298's estimator with a 10 ms floor, so that its formulas show unclamped.
    fn low_floor() -> RttEstimator {
        RttEstimator::new(RtoConfig {
            min: ms(10),
            ..RtoConfig::default()
        })
    }

    #[test]
    fn first_sample_rfc6298_2_2() {
        // R = 100 ms: SRTT = 100, RTTVAR = 50, RTO = 100 + 4*50 = 300 ms (WebRTC min 400).
        let mut e = low_floor();
        e.on_sample(ms(100));
        assert_eq!(e.srtt(), Some(ms(100)));
        assert_eq!(e.rttvar(), ms(50));
        assert_eq!(e.rto(), ms(300));
        let mut w = RttEstimator::new(RtoConfig::webrtc());
        w.on_sample(ms(100));
        assert_eq!(w.rto(), ms(400));
    }

    #[test]
    fn second_sample_rfc6298_2_3() {
        // R1 = 100, R2 = 200: RTTVAR = 0.75*50 + 0.25*100 = 62.5; SRTT = 87.5 + 25 = 112.5;
        // RTO = 112.5 + 250 = 362.5 ms.
        let mut e = low_floor();
        e.on_sample(ms(100));
        e.on_sample(ms(200));
        assert_eq!(e.rttvar(), TimeDelta::from_micros(62_500));
        assert_eq!(e.srtt(), Some(TimeDelta::from_micros(112_500)));
        assert_eq!(e.rto(), TimeDelta::from_micros(362_500));
        assert_eq!(e.latest(), Some(ms(200)));
    }

    #[test]
    fn rto_min_applies_rfc6298_2_4() {
        let mut e = RttEstimator::new(RtoConfig::default());
        e.on_sample(ms(10));
        assert_eq!(e.rto(), ms(1000));
    }

    #[test]
    fn backoff_doubles_up_to_max_rfc6298_5_5() {
        let mut e = RttEstimator::new(RtoConfig::default());
        let mut expected = 1000;
        for _ in 0..10 {
            e.backoff();
            expected = (expected * 2).min(60_000);
            assert_eq!(e.rto(), ms(expected));
        }
        assert_eq!(e.rto(), ms(60_000));
        // A new sample collapses the backoff.
        e.on_sample(ms(100));
        assert_eq!(e.rto(), ms(1000));
    }

    #[test]
    fn linux_rto_is_srtt_plus_max_200ms_4rttvar() {
        // R = 100 ms: SRTT 100, RTTVAR 50: 100 + max(200, 200) = 300 ms; R = 300 then
        // steady: RTTVAR shrinks, the 200 ms floor on the variance term remains.
        let mut e = RttEstimator::new(RtoConfig::linux());
        e.on_sample(ms(100));
        assert_eq!(e.rto(), ms(300));
        for _ in 0..200 {
            e.on_sample(ms(300));
        }
        assert!((e.rto().as_millis_f64() - 500.0).abs() < 1.0, "{}", e.rto());
    }

    #[test]
    fn non_positive_samples_ignored() {
        let mut e = RttEstimator::new(RtoConfig::default());
        e.on_sample(TimeDelta::ZERO);
        e.on_sample(ms(-5));
        assert_eq!(e.srtt(), None);
        assert_eq!(e.rto(), ms(1000));
    }
}
