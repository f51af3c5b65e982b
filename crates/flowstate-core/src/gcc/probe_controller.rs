//! The probe controller of today's Chromium (libwebrtc
//! `modules/congestion_controller/goog_cc/probe_controller.{h,cc}`, WebRTC M125;
//! `chromium-m156` preset): when and at which rates the pacer sends probe clusters.
//!
//! - *Initial exponential probing*: once the network is up, two clusters at
//!   `first_exponential_probe_scale` (3) and `second_exponential_probe_scale` (6) times
//!   the start rate; while waiting for their result (at most 1 s), an estimate above
//!   `further_probe_threshold` (0.7) x the last probed rate triggers a further probe at
//!   `further_exponential_probe_scale` (2) x the estimate.
//! - *Allocation probing*: in ALR, a higher maximum allocated (encoder) rate is probed at
//!   1x and 2x.
//! - *ALR probing*: every `alr_probing_interval` (5 s) in ALR, at `alr_probe_scale` (2) x
//!   the estimate, if periodic ALR probing is enabled (Chromium enables it for screen
//!   share only: `requests_alr_probing`; off for camera video).
//! - *Drop recovery*: after a large drop (below 0.66 x) and the delay-based estimator's
//!   recovery from over-use, in ALR or within 3 s of its end, a probe at 0.85 x the rate
//!   before the drop (`RequestProbe`).
//!
//! Every probe is capped at the maximum rate (`max_bitrate`, 5 Mbit/s when unbounded)
//! and at twice the maximum allocated rate; a capped probe ends exponential probing.
//! No probe is sent while the estimate is loss- or delay-limited (`BandwidthLimitedCause`).

use crate::units::{Bitrate, TimeDelta, Timestamp};

/// `kMaxWaitingTimeForProbingResult` (probe_controller.cc).
pub const MAX_WAITING_TIME_FOR_PROBING_RESULT: TimeDelta = TimeDelta::secs(1);
/// `kDefaultMaxProbingBitrate` (probe_controller.cc): 5000 kbit/s.
pub const DEFAULT_MAX_PROBING_BITRATE_KBPS: f64 = 5000.0;
/// `kBitrateDropThreshold` (probe_controller.cc).
pub const BITRATE_DROP_THRESHOLD: f64 = 0.66;
/// `kBitrateDropTimeout` (probe_controller.cc).
pub const BITRATE_DROP_TIMEOUT: TimeDelta = TimeDelta::secs(5);
/// `kProbeFractionAfterDrop` (probe_controller.cc).
pub const PROBE_FRACTION_AFTER_DROP: f64 = 0.85;
/// `kAlrEndedTimeout` (probe_controller.cc).
pub const ALR_ENDED_TIMEOUT: TimeDelta = TimeDelta::secs(3);
/// `kMinTimeBetweenAlrProbes` (probe_controller.cc).
pub const MIN_TIME_BETWEEN_ALR_PROBES: TimeDelta = TimeDelta::secs(5);
/// `kProbeUncertainty` (probe_controller.cc).
pub const PROBE_UNCERTAINTY: f64 = 0.05;

/// `ProbeControllerConfig` (probe_controller.cc), default field-trial values.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ProbeControllerConfig {
    /// `p1` = 3.0.
    pub first_exponential_probe_scale: f64,
    /// `p2` = 6.0 (`None`: one initial probe).
    pub second_exponential_probe_scale: Option<f64>,
    /// `step_size` = 2.
    pub further_exponential_probe_scale: f64,
    /// `further_probe_threshold` = 0.7.
    pub further_probe_threshold: f64,
    /// `alr_interval` = 5 s.
    pub alr_probing_interval: TimeDelta,
    /// `alr_scale` = 2.
    pub alr_probe_scale: f64,
    /// Periodic ALR probes (`EnablePeriodicAlrProbing`): Chromium turns them on for
    /// screen share only (`requests_alr_probing`), so `false` for camera video.
    pub periodic_alr_probing: bool,
    /// `probe_max_allocation` = true.
    pub probe_on_max_allocated_bitrate_change: bool,
    /// `alloc_p1` = 1, `alloc_p2` = 2.
    pub first_allocation_probe_scale: f64,
    pub second_allocation_probe_scale: Option<f64>,
    /// `min_probe_packets_sent` = 5.
    pub min_probe_packets_sent: u32,
    /// `min_probe_duration` = 15 ms.
    pub min_probe_duration: TimeDelta,
    /// `loss_limited_scale` = 1.5.
    pub loss_limited_probe_scale: f64,
    /// `WebRTC-BweRapidRecoveryExperiment` (off by default): drop-recovery probes
    /// also outside ALR.
    pub rapid_recovery: bool,
}

impl Default for ProbeControllerConfig {
    fn default() -> Self {
        Self {
            first_exponential_probe_scale: 3.0,
            second_exponential_probe_scale: Some(6.0),
            further_exponential_probe_scale: 2.0,
            further_probe_threshold: 0.7,
            alr_probing_interval: TimeDelta::secs(5),
            alr_probe_scale: 2.0,
            periodic_alr_probing: false,
            probe_on_max_allocated_bitrate_change: true,
            first_allocation_probe_scale: 1.0,
            second_allocation_probe_scale: Some(2.0),
            min_probe_packets_sent: 5,
            min_probe_duration: TimeDelta::millis(15),
            loss_limited_probe_scale: 1.5,
            rapid_recovery: false,
        }
    }
}

/// One probe cluster for the pacer (`ProbeClusterConfig`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ProbeCluster {
    pub id: u32,
    pub at: Timestamp,
    pub rate: Bitrate,
    /// At least this long at `rate` ...
    pub duration: TimeDelta,
    /// ... and at least this many packets.
    pub min_probes: u32,
}

/// `ProbeController::State`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProbeState {
    /// No probe sent yet.
    Init,
    /// Exponential probing: waiting for a result that may trigger a further probe.
    WaitingForResult,
    /// Only ALR, allocation and drop-recovery probes from here on.
    Complete,
}

/// `BandwidthLimitedCause` (goog_cc_network_control.cc `GetBandwidthLimitedCause`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BandwidthLimitedCause {
    /// The loss-based estimator follows the delay-based one: probes allowed.
    DelayBasedLimited,
    /// The delay detector is over- or under-using: no probe.
    DelayBasedLimitedDelayIncreased,
    /// Loss-based BWE v2 decreasing (or increasing with padding): no probe.
    LossLimited,
    /// Loss-based BWE v2 increasing: probes capped at 1.5 x the estimate.
    LossLimitedIncreasing,
}

/// The probe controller.
#[derive(Debug, Clone, PartialEq)]
pub struct ProbeController {
    cfg: ProbeControllerConfig,
    state: ProbeState,
    network_available: bool,
    start_bitrate: Bitrate,
    max_bitrate: Bitrate,
    estimated_bitrate: Bitrate,
    max_total_allocated: Bitrate,
    min_bitrate_to_probe_further: Bitrate,
    time_last_probing_initiated: Timestamp,
    alr_start: Option<Timestamp>,
    alr_end: Option<Timestamp>,
    time_of_last_large_drop: Timestamp,
    bitrate_before_last_large_drop: Bitrate,
    last_bwe_drop_probing_time: Timestamp,
    cause: BandwidthLimitedCause,
    next_id: u32,
}

impl ProbeController {
    /// `ProbeController` after `Reset(now)`.
    pub fn new(cfg: ProbeControllerConfig, now: Timestamp) -> Self {
        Self {
            cfg,
            state: ProbeState::Init,
            network_available: false,
            start_bitrate: Bitrate::ZERO,
            max_bitrate: Bitrate::kbps(DEFAULT_MAX_PROBING_BITRATE_KBPS),
            estimated_bitrate: Bitrate::ZERO,
            max_total_allocated: Bitrate::ZERO,
            min_bitrate_to_probe_further: Bitrate::INFINITY,
            time_last_probing_initiated: Timestamp::ZERO,
            alr_start: None,
            alr_end: None,
            time_of_last_large_drop: now,
            bitrate_before_last_large_drop: Bitrate::ZERO,
            last_bwe_drop_probing_time: now,
            cause: BandwidthLimitedCause::DelayBasedLimited,
            next_id: 0,
        }
    }

    pub fn state(&self) -> ProbeState {
        self.state
    }
    pub fn estimated_bitrate(&self) -> Bitrate {
        self.estimated_bitrate
    }
    /// The rate an estimate must exceed for a further exponential probe (infinite when
    /// none is pending).
    pub fn min_bitrate_to_probe_further(&self) -> Bitrate {
        self.min_bitrate_to_probe_further
    }

    /// `SetBitrates`: start and maximum rate (an infinite maximum probes up to 5 Mbit/s).
    pub fn set_bitrates(
        &mut self,
        now: Timestamp,
        min: Bitrate,
        start: Bitrate,
        max: Bitrate,
    ) -> Vec<ProbeCluster> {
        if start > Bitrate::ZERO {
            self.start_bitrate = start;
            self.estimated_bitrate = start;
        } else if self.start_bitrate <= Bitrate::ZERO {
            self.start_bitrate = min;
        }
        let old_max = self.max_bitrate;
        self.max_bitrate = if max.is_finite() {
            max
        } else {
            Bitrate::kbps(DEFAULT_MAX_PROBING_BITRATE_KBPS)
        };
        match self.state {
            ProbeState::Init if self.network_available => self.initiate_exponential_probing(now),
            ProbeState::Complete
                if self.estimated_bitrate > Bitrate::ZERO
                    && old_max < self.max_bitrate
                    && self.estimated_bitrate < self.max_bitrate =>
            {
                self.initiate_probing(now, &[self.max_bitrate], false)
            }
            _ => Vec::new(),
        }
    }

    /// `OnNetworkAvailability`: the initial probes once the network is up.
    pub fn on_network_available(&mut self, now: Timestamp, available: bool) -> Vec<ProbeCluster> {
        self.network_available = available;
        if !available && self.state == ProbeState::WaitingForResult {
            self.state = ProbeState::Complete;
            self.min_bitrate_to_probe_further = Bitrate::INFINITY;
        }
        if available && self.state == ProbeState::Init && self.start_bitrate > Bitrate::ZERO {
            return self.initiate_exponential_probing(now);
        }
        Vec::new()
    }

    fn initiate_exponential_probing(&mut self, now: Timestamp) -> Vec<ProbeCluster> {
        let mut rates = vec![self.start_bitrate * self.cfg.first_exponential_probe_scale];
        if let Some(s) = self.cfg.second_exponential_probe_scale.filter(|s| *s > 0.0) {
            rates.push(self.start_bitrate * s);
        }
        self.initiate_probing(now, &rates, true)
    }

    /// `OnMaxTotalAllocatedBitrate`: in ALR, a higher encoder maximum is probed.
    pub fn on_max_total_allocated_bitrate(
        &mut self,
        now: Timestamp,
        allocated: Bitrate,
    ) -> Vec<ProbeCluster> {
        let in_alr = self.alr_start.is_some();
        if self.cfg.probe_on_max_allocated_bitrate_change
            && self.state == ProbeState::Complete
            && allocated != self.max_total_allocated
            && self.estimated_bitrate < self.max_bitrate
            && self.estimated_bitrate < allocated
            && in_alr
        {
            self.max_total_allocated = allocated;
            let first = allocated * self.cfg.first_allocation_probe_scale;
            let mut rates = vec![first];
            if let Some(s) = self.cfg.second_allocation_probe_scale {
                let second = allocated * s;
                if second > first {
                    rates.push(second);
                }
            }
            return self.initiate_probing(now, &rates, false);
        }
        self.max_total_allocated = allocated;
        Vec::new()
    }

    /// `SetEstimatedBitrate`: a new target; while waiting for a probe result, one above
    /// the threshold triggers a further probe at `further_exponential_probe_scale` x.
    pub fn set_estimated_bitrate(
        &mut self,
        now: Timestamp,
        bitrate: Bitrate,
        cause: BandwidthLimitedCause,
    ) -> Vec<ProbeCluster> {
        self.cause = cause;
        if bitrate < self.estimated_bitrate * BITRATE_DROP_THRESHOLD {
            self.time_of_last_large_drop = now;
            self.bitrate_before_last_large_drop = self.estimated_bitrate;
        }
        self.estimated_bitrate = bitrate;
        if self.state == ProbeState::WaitingForResult && bitrate > self.min_bitrate_to_probe_further
        {
            let rate = bitrate * self.cfg.further_exponential_probe_scale;
            return self.initiate_probing(now, &[rate], true);
        }
        Vec::new()
    }

    /// `SetAlrStartTimeMs`.
    pub fn set_alr_start_time(&mut self, start: Option<Timestamp>) {
        self.alr_start = start;
    }
    /// `SetAlrEndedTimeMs`.
    pub fn set_alr_ended_time(&mut self, end: Timestamp) {
        self.alr_end = Some(end);
    }

    /// `RequestProbe`: after the delay-based estimator recovered from over-use, probe at
    /// 0.85 x the rate before a recent large drop (in ALR or just after it).
    pub fn request_probe(&mut self, now: Timestamp) -> Vec<ProbeCluster> {
        let in_alr = self.alr_start.is_some();
        let alr_ended_recently = self
            .alr_end
            .is_some_and(|t| now.saturating_since(t) < ALR_ENDED_TIMEOUT);
        if (in_alr || alr_ended_recently || self.cfg.rapid_recovery)
            && self.state == ProbeState::Complete
        {
            let suggested = self.bitrate_before_last_large_drop * PROBE_FRACTION_AFTER_DROP;
            let min_expected = suggested * (1.0 - PROBE_UNCERTAINTY);
            let since_drop = now.saturating_since(self.time_of_last_large_drop);
            let since_probe = now.saturating_since(self.last_bwe_drop_probing_time);
            if min_expected > self.estimated_bitrate
                && since_drop < BITRATE_DROP_TIMEOUT
                && since_probe > MIN_TIME_BETWEEN_ALR_PROBES
            {
                self.last_bwe_drop_probing_time = now;
                return self.initiate_probing(now, &[suggested], false);
            }
        }
        Vec::new()
    }

    fn time_for_alr_probe(&self, now: Timestamp) -> bool {
        match (self.cfg.periodic_alr_probing, self.alr_start) {
            (true, Some(start)) => {
                let next =
                    start.max(self.time_last_probing_initiated) + self.cfg.alr_probing_interval;
                now >= next
            }
            _ => false,
        }
    }

    /// `Process` (every 25 ms in Chromium): the result timeout and ALR probes.
    pub fn process(&mut self, now: Timestamp) -> Vec<ProbeCluster> {
        if now.saturating_since(self.time_last_probing_initiated)
            > MAX_WAITING_TIME_FOR_PROBING_RESULT
            && self.state == ProbeState::WaitingForResult
        {
            self.state = ProbeState::Complete;
            self.min_bitrate_to_probe_further = Bitrate::INFINITY;
        }
        if self.estimated_bitrate <= Bitrate::ZERO || self.state != ProbeState::Complete {
            return Vec::new();
        }
        if self.time_for_alr_probe(now) {
            let rate = self.estimated_bitrate * self.cfg.alr_probe_scale;
            return self.initiate_probing(now, &[rate], true);
        }
        Vec::new()
    }

    /// The highest rate a probe may have: the maximum, and twice the allocated maximum.
    pub fn max_probe_bitrate(&self) -> Bitrate {
        if self.max_total_allocated > Bitrate::ZERO {
            self.max_bitrate.min(self.max_total_allocated * 2.0)
        } else {
            self.max_bitrate
        }
    }

    /// `InitiateProbing`.
    fn initiate_probing(
        &mut self,
        now: Timestamp,
        rates: &[Bitrate],
        mut probe_further: bool,
    ) -> Vec<ProbeCluster> {
        let max_probe = self.max_probe_bitrate();
        let capped = match self.cause {
            BandwidthLimitedCause::DelayBasedLimitedDelayIncreased
            | BandwidthLimitedCause::LossLimited => return Vec::new(),
            BandwidthLimitedCause::LossLimitedIncreasing => {
                max_probe.min(self.estimated_bitrate * self.cfg.loss_limited_probe_scale)
            }
            BandwidthLimitedCause::DelayBasedLimited => Bitrate::INFINITY,
        };
        let mut out = Vec::with_capacity(rates.len());
        for &r in rates {
            let mut rate = r.min(capped);
            if rate > max_probe {
                rate = max_probe;
                probe_further = false;
            }
            out.push(ProbeCluster {
                id: self.next_id,
                at: now,
                rate,
                duration: self.cfg.min_probe_duration,
                min_probes: self.cfg.min_probe_packets_sent,
            });
            self.next_id = self.next_id.wrapping_add(1);
        }
        self.time_last_probing_initiated = now;
        match (probe_further, rates.last()) {
            (true, Some(&last)) => {
                self.state = ProbeState::WaitingForResult;
                self.min_bitrate_to_probe_further =
                    capped.min(last) * self.cfg.further_probe_threshold;
            }
            _ => {
                self.state = ProbeState::Complete;
                self.min_bitrate_to_probe_further = Bitrate::INFINITY;
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(ms: u64) -> Timestamp {
        Timestamp::from_millis(ms)
    }
    fn kbps(x: f64) -> Bitrate {
        Bitrate::kbps(x)
    }
    fn rates(c: &[ProbeCluster]) -> Vec<f64> {
        c.iter().map(|p| p.rate.as_kbps()).collect()
    }

    fn started() -> ProbeController {
        let mut p = ProbeController::new(ProbeControllerConfig::default(), t(0));
        assert!(p
            .set_bitrates(t(0), kbps(30.0), kbps(300.0), Bitrate::INFINITY)
            .is_empty());
        p
    }

    #[test]
    fn initial_probes_at_3x_and_6x_of_the_start_rate() {
        let mut p = started();
        let c = p.on_network_available(t(0), true);
        assert_eq!(rates(&c), vec![900.0, 1800.0]);
        assert_eq!(c[0].duration, TimeDelta::millis(15));
        assert_eq!(c[0].min_probes, 5);
        assert_ne!(c[0].id, c[1].id);
        assert_eq!(p.state(), ProbeState::WaitingForResult);
        // Further probing above 0.7 x the last probe (1800 -> 1260).
        assert!((p.min_bitrate_to_probe_further().as_kbps() - 1260.0).abs() < 1e-9);
    }

    #[test]
    fn further_probes_at_2x_while_the_estimate_keeps_up() {
        let mut p = started();
        p.on_network_available(t(0), true);
        let cause = BandwidthLimitedCause::DelayBasedLimited;
        assert!(p
            .set_estimated_bitrate(t(200), kbps(1200.0), cause)
            .is_empty());
        let c = p.set_estimated_bitrate(t(300), kbps(1700.0), cause);
        assert_eq!(rates(&c), vec![3400.0]);
        assert_eq!(p.state(), ProbeState::WaitingForResult);
        // A probe above the maximum (5 Mbit/s without an allocation) is capped and ends
        // exponential probing.
        let c = p.set_estimated_bitrate(t(500), kbps(3000.0), cause);
        assert_eq!(rates(&c), vec![5000.0]);
        assert_eq!(p.state(), ProbeState::Complete);
    }

    #[test]
    fn probes_are_capped_at_twice_the_allocated_rate_and_time_out_after_1s() {
        let mut p = started();
        p.on_max_total_allocated_bitrate(t(0), kbps(500.0));
        let c = p.on_network_available(t(0), true);
        assert_eq!(rates(&c), vec![900.0, 1000.0]);
        assert_eq!(
            p.state(),
            ProbeState::Complete,
            "capped: no further probing"
        );
        let mut p = started();
        p.on_network_available(t(0), true);
        assert!(p.process(t(1000)).is_empty());
        assert_eq!(p.state(), ProbeState::WaitingForResult);
        p.process(t(1001));
        assert_eq!(p.state(), ProbeState::Complete);
    }

    #[test]
    fn no_probe_while_delay_or_loss_limited() {
        let mut p = started();
        p.on_network_available(t(0), true);
        let c = p.set_estimated_bitrate(
            t(100),
            kbps(1700.0),
            BandwidthLimitedCause::DelayBasedLimitedDelayIncreased,
        );
        assert!(c.is_empty());
        let c = p.set_estimated_bitrate(
            t(100),
            kbps(1700.0),
            BandwidthLimitedCause::LossLimitedIncreasing,
        );
        assert_eq!(
            rates(&c),
            vec![1700.0 * 1.5],
            "capped at 1.5 x the estimate"
        );
    }

    #[test]
    fn periodic_alr_probes_only_when_enabled() {
        for enabled in [false, true] {
            let cfg = ProbeControllerConfig {
                periodic_alr_probing: enabled,
                ..ProbeControllerConfig::default()
            };
            let mut p = ProbeController::new(cfg, t(0));
            p.set_bitrates(t(0), kbps(30.0), kbps(300.0), kbps(10_000.0));
            p.on_network_available(t(0), true);
            p.process(t(2000));
            p.set_estimated_bitrate(
                t(2000),
                kbps(500.0),
                BandwidthLimitedCause::DelayBasedLimited,
            );
            p.set_alr_start_time(Some(t(3000)));
            assert!(p.process(t(7999)).is_empty());
            let c = p.process(t(8000));
            if enabled {
                assert_eq!(
                    rates(&c),
                    vec![1000.0],
                    "2 x the estimate, 5 s after ALR start"
                );
            } else {
                assert!(c.is_empty());
            }
        }
    }

    #[test]
    fn drop_recovery_probe_in_alr() {
        let mut p = started();
        p.on_network_available(t(0), true);
        p.process(t(2000));
        let cause = BandwidthLimitedCause::DelayBasedLimited;
        p.set_estimated_bitrate(t(6000), kbps(2000.0), cause);
        p.set_estimated_bitrate(t(7000), kbps(1000.0), cause); // < 0.66 x 2000
        assert!(p.request_probe(t(7500)).is_empty(), "not in ALR");
        p.set_alr_start_time(Some(t(7200)));
        let c = p.request_probe(t(7500));
        assert_eq!(rates(&c), vec![1700.0], "0.85 x the rate before the drop");
        assert!(p.request_probe(t(8000)).is_empty(), "at most every 5 s");
    }

    #[test]
    fn allocation_probes_in_alr() {
        let mut p = started();
        p.on_network_available(t(0), true);
        p.process(t(2000));
        p.set_estimated_bitrate(
            t(2000),
            kbps(400.0),
            BandwidthLimitedCause::DelayBasedLimited,
        );
        assert!(p
            .on_max_total_allocated_bitrate(t(2100), kbps(800.0))
            .is_empty());
        p.set_alr_start_time(Some(t(2200)));
        let c = p.on_max_total_allocated_bitrate(t(2300), kbps(1000.0));
        assert_eq!(rates(&c), vec![1000.0, 2000.0]);
    }
}
