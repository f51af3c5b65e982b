//! Loss-based BWE v2 of today's Chromium (libwebrtc
//! `modules/congestion_controller/goog_cc/loss_based_bwe_v2.{h,cc}`, WebRTC M125; on by
//! default since December 2022; `chromium-m156` preset).
//!
//! A maximum-likelihood estimate of the channel (loss-limited bandwidth B, inherent loss
//! p0) from the last 20 observations (each >= 250 ms of sent packets, exponentially
//! weighted 0.9^age). The loss model of an observation sent at rate r:
//!
//! `P(loss) = p0 + (1 - p0) (r - B) / r` for r > B, `p0` otherwise, clamped to
//! [1e-6, 1 - 1e-6] (`GetLossProbability`).
//!
//! Each update tries candidates B' in {1.02, 1.0, 0.95} x B, the acknowledged rate
//! (unless in ALR) and the delay-based estimate if higher, each capped at the candidate
//! upper bound (max rate, or 1.3 x the estimate after a loss-limited decrease); takes one
//! Newton step (size 0.75) on p0 (kept in [1e-3, 0.05 + 75 kbit/s / B']) and keeps the
//! candidate with the highest log-likelihood plus a high-bandwidth bias
//! (`GetObjective`). The result is bounded by the instant upper bound
//! 75 kbit/s / (average loss - 0.05) when the weighted average loss exceeds 5 %, and by
//! the delay-based estimate; below the delay-based estimate the state is Decreasing or
//! Increasing (loss limited), else DelayBasedEstimate.
//!
//! Defaults are the M125 field-trial defaults (`CreateConfig`); the options off by
//! default there (hold, padding, rampup acceleration, byte loss rate, bounding the best
//! candidate, lower bound by acked rate) are not modelled.

use crate::units::{Bitrate, DataSize, TimeDelta, Timestamp};

/// `LossBasedBweV2::Config`, M125 defaults (`CreateConfig`, loss_based_bwe_v2.cc).
#[derive(Debug, Clone, PartialEq)]
pub struct LossBasedBweV2Config {
    /// `CandidateFactors` {1.02, 1.0, 0.95}.
    pub candidate_factors: Vec<f64>,
    /// `HigherBwBiasFactor` 0.0002.
    pub higher_bandwidth_bias_factor: f64,
    /// `HigherLogBwBiasFactor` 0.02.
    pub higher_log_bandwidth_bias_factor: f64,
    /// `InherentLossLowerBound` 1e-3.
    pub inherent_loss_lower_bound: f64,
    /// `LossThresholdOfHighBandwidthPreference` 0.15.
    pub loss_threshold_of_high_bandwidth_preference: f64,
    /// `BandwidthPreferenceSmoothingFactor` 0.002.
    pub bandwidth_preference_smoothing_factor: f64,
    /// `InherentLossUpperBoundBwBalance` 75 kbit/s.
    pub inherent_loss_upper_bound_bandwidth_balance: Bitrate,
    /// `InherentLossUpperBoundOffset` 0.05.
    pub inherent_loss_upper_bound_offset: f64,
    /// `InitialInherentLossEstimate` 0.01.
    pub initial_inherent_loss_estimate: f64,
    /// `NewtonIterations` 1, `NewtonStepSize` 0.75.
    pub newton_iterations: u32,
    pub newton_step_size: f64,
    /// `AckedRateCandidate` true, `DelayBasedCandidate` true.
    pub append_acknowledged_rate_candidate: bool,
    pub append_delay_based_estimate_candidate: bool,
    /// `ObservationDurationLowerBound` 250 ms.
    pub observation_duration_lower_bound: TimeDelta,
    /// `ObservationWindowSize` 20.
    pub observation_window_size: usize,
    /// `InstantUpperBoundTemporalWeightFactor` 0.9.
    pub instant_upper_bound_temporal_weight_factor: f64,
    /// `InstantUpperBoundBwBalance` 75 kbit/s.
    pub instant_upper_bound_bandwidth_balance: Bitrate,
    /// `InstantUpperBoundLossOffset` 0.05.
    pub instant_upper_bound_loss_offset: f64,
    /// `TemporalWeightFactor` 0.9.
    pub temporal_weight_factor: f64,
    /// `BwBackoffLowerBoundFactor` 1.0.
    pub bandwidth_backoff_lower_bound_factor: f64,
    /// `MaxIncreaseFactor` 1.3.
    pub max_increase_factor: f64,
    /// `DelayedIncreaseWindow` 300 ms.
    pub delayed_increase_window: TimeDelta,
    /// `NotIncreaseIfInherentLossLessThanAverageLoss` true.
    pub not_increase_if_inherent_loss_less_than_average_loss: bool,
    /// `NotUseAckedRateInAlr` true.
    pub not_use_acked_rate_in_alr: bool,
    /// `MinNumObservations` 3.
    pub min_num_observations: u64,
    /// `BwRampupUpperBoundFactor` (M125 1e6, M150 1.5): while loss limited and increasing,
    /// the estimate is at most this x the acknowledged rate.
    pub bandwidth_rampup_upper_bound_factor: f64,
    /// `BwRampupUpperBoundInHoldFactor` (M125 1e6, M150 1.2): the same while the
    /// acknowledged rate is under `BwRampupUpperBoundHoldThreshold` (1.3) x the hold rate.
    pub bandwidth_rampup_upper_bound_factor_in_hold: f64,
    pub bandwidth_rampup_hold_threshold: f64,
    /// `LowerBoundByAckedRateFactor` (M125 0, M150 1.0): the instant lower bound is
    /// max(min bitrate, this x the acknowledged rate).
    pub lower_bound_by_acked_rate_factor: f64,
    /// `HoldDurationFactor` (M125 0: no HOLD, M150 2.0): entering Decreasing starts a HOLD
    /// (`kInitHoldDuration` 300 ms, multiplied by this each time, at most
    /// `kMaxHoldDuration` 60 s) during which the estimate stays at most the hold rate.
    pub hold_duration_factor: f64,
    /// `UseByteLossRate` (M125 false, M150 true): the average loss, the objective and
    /// the Newton step count bytes (kB) instead of packets; the average leaves out the
    /// observations with the largest and the smallest loss (more than 3 observations)
    /// unless the largest loss was sent at >= `MedianSendingRateFactor` (2.0) x the
    /// median sending rate.
    pub use_byte_loss_rate: bool,
    pub median_sending_rate_factor: f64,
    /// `PaddingDuration` (M125 0, M150 2 s): an increasing loss-limited estimate is the
    /// state `IncreaseUsingPadding` for at least this long (the acknowledged rate stays a
    /// candidate in ALR). The padding `GetPacingRates` then sends up to the loss-based
    /// target is not modelled (docs/ALGORITHMS.md).
    pub padding_duration: TimeDelta,
    /// `BoundBestCandidate` (M125 false, M150 true): a best candidate above the bounded
    /// estimate is replaced by it (inherent loss 0).
    pub bound_best_candidate: bool,
}

impl LossBasedBweV2Config {
    /// The defaults of WebRTC M150 (signalapp/webrtc `bd635df`, `CreateConfig`), changed
    /// from M125's by libwebrtc `068e6ba696` ("Update new default loss based configs",
    /// 2025-05-20): window 15, both bandwidth balances 100 kbit/s, high-bandwidth
    /// preference threshold 0.2, ramp-up bounds 1.5 / 1.2, lower bound by the acknowledged
    /// rate 1.0, HOLD factor 2.0, byte loss rate, padding duration 2 s, bound best
    /// candidate (`UseInStartPhase` true: the model uses the estimator whenever it is
    /// ready, as before). Option `loss_v2_m150`.
    pub fn m150() -> Self {
        Self {
            observation_window_size: 15,
            inherent_loss_upper_bound_bandwidth_balance: Bitrate::kbps(100.0),
            instant_upper_bound_bandwidth_balance: Bitrate::kbps(100.0),
            loss_threshold_of_high_bandwidth_preference: 0.2,
            bandwidth_rampup_upper_bound_factor: 1.5,
            bandwidth_rampup_upper_bound_factor_in_hold: 1.2,
            lower_bound_by_acked_rate_factor: 1.0,
            hold_duration_factor: 2.0,
            use_byte_loss_rate: true,
            padding_duration: TimeDelta::secs(2),
            bound_best_candidate: true,
            ..Self::default()
        }
    }
}

impl Default for LossBasedBweV2Config {
    fn default() -> Self {
        Self {
            candidate_factors: vec![1.02, 1.0, 0.95],
            higher_bandwidth_bias_factor: 0.0002,
            higher_log_bandwidth_bias_factor: 0.02,
            inherent_loss_lower_bound: 1.0e-3,
            loss_threshold_of_high_bandwidth_preference: 0.15,
            bandwidth_preference_smoothing_factor: 0.002,
            inherent_loss_upper_bound_bandwidth_balance: Bitrate::kbps(75.0),
            inherent_loss_upper_bound_offset: 0.05,
            initial_inherent_loss_estimate: 0.01,
            newton_iterations: 1,
            newton_step_size: 0.75,
            append_acknowledged_rate_candidate: true,
            append_delay_based_estimate_candidate: true,
            observation_duration_lower_bound: TimeDelta::millis(250),
            observation_window_size: 20,
            instant_upper_bound_temporal_weight_factor: 0.9,
            instant_upper_bound_bandwidth_balance: Bitrate::kbps(75.0),
            instant_upper_bound_loss_offset: 0.05,
            temporal_weight_factor: 0.9,
            bandwidth_backoff_lower_bound_factor: 1.0,
            max_increase_factor: 1.3,
            delayed_increase_window: TimeDelta::millis(300),
            not_increase_if_inherent_loss_less_than_average_loss: true,
            not_use_acked_rate_in_alr: true,
            min_num_observations: 3,
            bandwidth_rampup_upper_bound_factor: 1_000_000.0,
            bandwidth_rampup_upper_bound_factor_in_hold: 1_000_000.0,
            bandwidth_rampup_hold_threshold: 1.3,
            lower_bound_by_acked_rate_factor: 0.0,
            hold_duration_factor: 0.0,
            use_byte_loss_rate: false,
            median_sending_rate_factor: 2.0,
            padding_duration: TimeDelta::ZERO,
            bound_best_candidate: false,
        }
    }
}

/// `kInitHoldDuration` 300 ms, `kMaxHoldDuration` 60 s (loss_based_bwe_v2.cc, M150).
const INIT_HOLD_DURATION: TimeDelta = TimeDelta::millis(300);
const MAX_HOLD_DURATION: TimeDelta = TimeDelta::secs(60);

/// `HoldInfo`: until when (None: -infinity), for how long the next one, at which rate.
#[derive(Debug, Clone, Copy, PartialEq)]
struct HoldInfo {
    until: Option<Timestamp>,
    duration: TimeDelta,
    rate: Bitrate,
}

impl HoldInfo {
    const RESET: HoldInfo = HoldInfo {
        until: None,
        duration: INIT_HOLD_DURATION,
        rate: Bitrate::INFINITY,
    };
}

/// `LossBasedState`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LossBasedState {
    Increasing,
    /// `kIncreaseUsingPadding` (M150 with `padding_duration` > 0).
    IncreaseUsingPadding,
    Decreasing,
    DelayBasedEstimate,
}

/// `kCongestionControllerMinBitrate` (api/transport/network_types.h ... 5 kbit/s).
pub const CONGESTION_CONTROLLER_MIN_BITRATE_KBPS: f64 = 5.0;

#[derive(Debug, Clone, Copy, PartialEq)]
struct Observation {
    num_packets: f64,
    num_lost: f64,
    sending_rate_bps: f64,
    /// Bytes sent and lost, kB (`ToKiloBytes(size)`, `lost_size`).
    size_kb: f64,
    lost_kb: f64,
    id: u64,
}

#[derive(Debug, Clone, Copy, PartialEq)]
struct Channel {
    /// B in bit/s.
    bandwidth_bps: f64,
    inherent_loss: f64,
}

/// `GetLossProbability`.
pub fn loss_probability(inherent_loss: f64, bandwidth_bps: f64, sending_rate_bps: f64) -> f64 {
    let p0 = inherent_loss.clamp(0.0, 1.0);
    let mut p = p0;
    if sending_rate_bps.is_finite() && bandwidth_bps.is_finite() && sending_rate_bps > bandwidth_bps
    {
        p += (1.0 - p0) * (sending_rate_bps - bandwidth_bps) / sending_rate_bps;
    }
    p.clamp(1.0e-6, 1.0 - 1.0e-6)
}

/// The estimator.
#[derive(Debug, Clone, PartialEq)]
pub struct LossBasedBweV2 {
    cfg: LossBasedBweV2Config,
    observations: Vec<Option<Observation>>,
    num_observations: u64,
    partial_packets: f64,
    partial_lost: f64,
    partial_size: DataSize,
    partial_lost_size: DataSize,
    last_send_time: Option<Timestamp>,
    hold: HoldInfo,
    /// `PaddingInfo` (rate, since), None: reset.
    padding: Option<(Bitrate, Timestamp)>,
    best: Channel,
    result: Bitrate,
    state: LossBasedState,
    acknowledged: Option<Bitrate>,
    delay_based: Bitrate,
    min_bitrate: Bitrate,
    max_bitrate: Bitrate,
    instant_upper_bound: Option<Bitrate>,
    recovering_after_loss: Option<Timestamp>,
    bandwidth_limit_in_current_window: Bitrate,
}

impl LossBasedBweV2 {
    pub fn new(cfg: LossBasedBweV2Config) -> Self {
        let window = cfg.observation_window_size.max(1);
        Self {
            observations: vec![None; window],
            num_observations: 0,
            partial_packets: 0.0,
            partial_lost: 0.0,
            partial_size: DataSize::ZERO,
            partial_lost_size: DataSize::ZERO,
            last_send_time: None,
            hold: HoldInfo::RESET,
            padding: None,
            best: Channel {
                bandwidth_bps: f64::INFINITY,
                inherent_loss: cfg.initial_inherent_loss_estimate,
            },
            result: Bitrate::INFINITY,
            state: LossBasedState::DelayBasedEstimate,
            acknowledged: None,
            delay_based: Bitrate::INFINITY,
            min_bitrate: Bitrate::ZERO,
            max_bitrate: Bitrate::INFINITY,
            instant_upper_bound: None,
            recovering_after_loss: None,
            bandwidth_limit_in_current_window: Bitrate::INFINITY,
            cfg,
        }
    }

    /// `IsReady`: an initial estimate and at least `min_num_observations`.
    pub fn is_ready(&self) -> bool {
        self.best.bandwidth_bps.is_finite()
            && self.num_observations >= self.cfg.min_num_observations
    }
    /// `GetLossBasedResult`: (estimate, state); the delay-based estimate until ready.
    pub fn result(&self) -> (Bitrate, LossBasedState) {
        if !self.is_ready() {
            return (self.delay_based, LossBasedState::DelayBasedEstimate);
        }
        (self.result, self.state)
    }
    pub fn set_acknowledged_bitrate(&mut self, r: Bitrate) {
        if r.is_finite() {
            self.acknowledged = Some(r);
        }
    }
    /// `SetBandwidthEstimate` (a probe result, `SetSendBitrate`).
    /// Kept within [min, max] (`SetMinMaxBitrate`).
    pub fn set_bandwidth_estimate(&mut self, r: Bitrate) {
        if r.is_finite() {
            let r = r.max(self.min_bitrate).min(self.max_bitrate);
            self.best.bandwidth_bps = r.as_bps();
            self.result = r;
            self.state = LossBasedState::DelayBasedEstimate;
        }
    }
    pub fn set_min_max_bitrate(&mut self, min: Bitrate, max: Bitrate) {
        if min.is_finite() {
            self.min_bitrate = min;
        }
        if max.is_finite() {
            self.max_bitrate = max;
        }
    }
    /// The estimate of p0 (inherent loss) and B.
    pub fn channel(&self) -> (f64, Bitrate) {
        (
            self.best.inherent_loss,
            Bitrate::bps(self.best.bandwidth_bps.min(f64::MAX)),
        )
    }

    fn weight(&self, factor: f64, id: u64) -> f64 {
        let age = (self.num_observations - 1).saturating_sub(id);
        factor.powi(i32::try_from(age).unwrap_or(i32::MAX))
    }

    /// `UpdateAverageReportedLossRatio`: by bytes with `use_byte_loss_rate`, else by
    /// packets (weights 0.9^age).
    pub fn average_loss(&self) -> f64 {
        if self.cfg.use_byte_loss_rate {
            self.average_byte_loss()
        } else {
            self.average_packet_loss()
        }
    }

    /// `GetMedianSendingRate` over the observations with a positive finite rate.
    fn median_sending_rate_bps(&self) -> f64 {
        let mut r: Vec<f64> = self
            .observations
            .iter()
            .flatten()
            .map(|o| o.sending_rate_bps)
            .filter(|r| r.is_finite() && *r > 0.0)
            .collect();
        if r.is_empty() {
            return 0.0;
        }
        r.sort_by(f64::total_cmp);
        let n = r.len();
        if n % 2 == 0 {
            (r[n / 2 - 1] + r[n / 2]) / 2.0
        } else {
            r[n / 2]
        }
    }

    /// `CalculateAverageReportedByteLossRatio`: weighted lost / sent bytes, less the
    /// observations with the largest and the smallest loss ratio (with more than 3
    /// observations), unless the largest was sent at >= `median_sending_rate_factor` x
    /// the median sending rate or the two are all there is.
    fn average_byte_loss(&self) -> f64 {
        if self.num_observations == 0 {
            return 0.0;
        }
        let (mut total, mut lost) = (0.0, 0.0);
        let (mut min_rate, mut max_rate) = (1.0, 0.0);
        let (mut min_lost, mut max_lost, mut min_size, mut max_size) = (0.0, 0.0, 0.0, 0.0);
        let mut send_rate_of_max = 0.0;
        for o in self.observations.iter().flatten() {
            let w = self.weight(self.cfg.instant_upper_bound_temporal_weight_factor, o.id);
            total += w * o.size_kb;
            lost += w * o.lost_kb;
            let r = if o.size_kb > 0.0 {
                o.lost_kb / o.size_kb
            } else {
                0.0
            };
            if self.num_observations > 3 {
                if r > max_rate {
                    max_rate = r;
                    max_lost = w * o.lost_kb;
                    max_size = w * o.size_kb;
                    send_rate_of_max = o.sending_rate_bps;
                }
                if r < min_rate {
                    min_rate = r;
                    min_lost = w * o.lost_kb;
                    min_size = w * o.size_kb;
                }
            }
        }
        if total <= 0.0 {
            return 0.0;
        }
        if self.median_sending_rate_bps() * self.cfg.median_sending_rate_factor <= send_rate_of_max
            || total == max_size + min_size
        {
            return lost / total;
        }
        (lost - min_lost - max_lost) / (total - max_size - min_size)
    }

    /// `CalculateAverageReportedPacketLossRatio` (weights 0.9^age).
    fn average_packet_loss(&self) -> f64 {
        if self.num_observations == 0 {
            return 0.0;
        }
        let (mut n, mut l) = (0.0, 0.0);
        for o in self.observations.iter().flatten() {
            let w = self.weight(self.cfg.instant_upper_bound_temporal_weight_factor, o.id);
            n += w * o.num_packets;
            l += w * o.num_lost;
        }
        if n > 0.0 {
            l / n
        } else {
            0.0
        }
    }

    fn inherent_loss_upper_bound(&self, bandwidth_bps: f64) -> f64 {
        if bandwidth_bps <= 0.0 {
            return 1.0;
        }
        (self.cfg.inherent_loss_upper_bound_offset
            + self
                .cfg
                .inherent_loss_upper_bound_bandwidth_balance
                .as_bps()
                / bandwidth_bps)
            .min(1.0)
    }
    fn feasible_inherent_loss(&self, c: &Channel) -> f64 {
        c.inherent_loss
            .max(self.cfg.inherent_loss_lower_bound)
            .min(self.inherent_loss_upper_bound(c.bandwidth_bps))
    }
    fn adjust_bias(&self, loss: f64, bias: f64) -> f64 {
        let t = self.cfg.loss_threshold_of_high_bandwidth_preference;
        bias * (t - loss) / (self.cfg.bandwidth_preference_smoothing_factor + (t - loss).abs())
    }
    fn high_bandwidth_bias(&self, bandwidth_bps: f64) -> f64 {
        if !bandwidth_bps.is_finite() {
            return 0.0;
        }
        let loss = self.average_loss();
        let kbps = bandwidth_bps / 1000.0;
        self.adjust_bias(loss, self.cfg.higher_bandwidth_bias_factor) * kbps
            + self.adjust_bias(loss, self.cfg.higher_log_bandwidth_bias_factor) * (1.0 + kbps).ln()
    }

    /// `GetObjective`: weighted log-likelihood plus the high-bandwidth bias.
    fn objective(&self, c: &Channel) -> f64 {
        let bias = self.high_bandwidth_bias(c.bandwidth_bps);
        let mut obj = 0.0;
        for o in self.observations.iter().flatten() {
            let p = loss_probability(c.inherent_loss, c.bandwidth_bps, o.sending_rate_bps);
            let w = self.weight(self.cfg.temporal_weight_factor, o.id);
            if self.cfg.use_byte_loss_rate {
                obj += w * (o.lost_kb * p.ln() + (o.size_kb - o.lost_kb) * (1.0 - p).ln());
                obj += w * bias * o.size_kb;
            } else {
                obj += w * (o.num_lost * p.ln() + (o.num_packets - o.num_lost) * (1.0 - p).ln());
                obj += w * bias * o.num_packets;
            }
        }
        obj
    }

    /// `NewtonsMethodUpdate` on the inherent loss.
    fn newton(&self, c: &mut Channel) {
        if self.num_observations == 0 {
            return;
        }
        for _ in 0..self.cfg.newton_iterations {
            let (mut first, mut second) = (0.0, 0.0);
            for o in self.observations.iter().flatten() {
                let p = loss_probability(c.inherent_loss, c.bandwidth_bps, o.sending_rate_bps);
                let w = self.weight(self.cfg.temporal_weight_factor, o.id);
                let (lost, received) = if self.cfg.use_byte_loss_rate {
                    (o.lost_kb, o.size_kb - o.lost_kb)
                } else {
                    (o.num_lost, o.num_packets - o.num_lost)
                };
                first += w * (lost / p - received / (1.0 - p));
                second -= w * (lost / (p * p) + received / ((1.0 - p) * (1.0 - p)));
            }
            if second >= 0.0 {
                second = -1.0e-6;
            }
            c.inherent_loss -= self.cfg.newton_step_size * first / second;
            c.inherent_loss = self.feasible_inherent_loss(c);
        }
    }

    fn in_loss_limited_state(&self) -> bool {
        self.state != LossBasedState::DelayBasedEstimate
    }

    fn candidates(&self, in_alr: bool) -> Vec<Channel> {
        let b = self.best.bandwidth_bps;
        let mut bw: Vec<f64> = self.cfg.candidate_factors.iter().map(|f| f * b).collect();
        if let (Some(a), true) = (
            self.acknowledged,
            self.cfg.append_acknowledged_rate_candidate,
        ) {
            let padding_recent = self.cfg.padding_duration > TimeDelta::ZERO
                && self.padding.is_some_and(|(_, t)| {
                    Some(t + self.cfg.padding_duration) >= self.last_send_time
                });
            if !(self.cfg.not_use_acked_rate_in_alr && in_alr) || padding_recent {
                bw.push(a.as_bps() * self.cfg.bandwidth_backoff_lower_bound_factor);
            }
        }
        if self.delay_based.is_finite()
            && self.cfg.append_delay_based_estimate_candidate
            && self.delay_based.as_bps() > b
        {
            bw.push(self.delay_based.as_bps());
        }
        let mut upper = self.max_bitrate.as_bps();
        if self.in_loss_limited_state() && self.bandwidth_limit_in_current_window.is_finite() {
            upper = self.bandwidth_limit_in_current_window.as_bps();
        }
        bw.into_iter()
            .map(|x| {
                let mut c = Channel {
                    bandwidth_bps: x.min(b.max(upper)),
                    inherent_loss: self.best.inherent_loss,
                };
                c.inherent_loss = self.feasible_inherent_loss(&c);
                c
            })
            .collect()
    }

    /// `PushBackObservation`: adds packets to the partial observation; true once it
    /// spans at least `observation_duration_lower_bound` of send time.
    fn push_observation(&mut self, f: &FeedbackSummary) -> bool {
        if f.num_packets == 0 {
            return false;
        }
        self.partial_packets += f.num_packets as f64;
        self.partial_lost += f.num_lost as f64;
        self.partial_size += f.total_size;
        self.partial_lost_size += f.lost_size;
        let last = *self.last_send_time.get_or_insert(f.first_send);
        let duration = f.last_send.saturating_since(last);
        if duration <= TimeDelta::ZERO || duration < self.cfg.observation_duration_lower_bound {
            return false;
        }
        self.last_send_time = Some(f.last_send);
        let id = self.num_observations;
        self.num_observations += 1;
        let rate = self.partial_size / duration;
        let window = self.observations.len() as u64;
        self.observations[(id % window) as usize] = Some(Observation {
            num_packets: self.partial_packets,
            num_lost: self.partial_lost,
            sending_rate_bps: rate.as_bps(),
            size_kb: self.partial_size.as_bytes() as f64 / 1000.0,
            lost_kb: self.partial_lost_size.as_bytes() as f64 / 1000.0,
            id,
        });
        self.partial_packets = 0.0;
        self.partial_lost = 0.0;
        self.partial_size = DataSize::ZERO;
        self.partial_lost_size = DataSize::ZERO;
        // `CalculateInstantUpperBound`.
        let loss = self.average_loss();
        self.instant_upper_bound = Some(if loss > self.cfg.instant_upper_bound_loss_offset {
            self.cfg.instant_upper_bound_bandwidth_balance
                / (loss - self.cfg.instant_upper_bound_loss_offset)
        } else {
            self.max_bitrate
        });
        true
    }

    fn is_increasing(&self, old: Bitrate, new: Bitrate) -> bool {
        (old < new
            || (old == new
                && matches!(
                    self.state,
                    LossBasedState::Increasing | LossBasedState::IncreaseUsingPadding
                )))
            && self.in_loss_limited_state()
    }

    /// `GetInstantLowerBound`: max(min bitrate, `lower_bound_by_acked_rate_factor` x
    /// the acknowledged rate) (`CalculateInstantLowerBound`).
    fn instant_lower_bound(&self) -> Bitrate {
        let mut lower = Bitrate::ZERO;
        if let (Some(a), true) = (
            self.acknowledged,
            self.cfg.lower_bound_by_acked_rate_factor > 0.0,
        ) {
            lower = a * self.cfg.lower_bound_by_acked_rate_factor;
        }
        lower.max(self.min_bitrate)
    }

    /// `CanKeepIncreasingState`.
    fn can_keep_increasing(&self, estimate: Bitrate) -> bool {
        if self.cfg.padding_duration == TimeDelta::ZERO
            || self.state != LossBasedState::IncreaseUsingPadding
        {
            return true;
        }
        match self.padding {
            Some((rate, t)) => {
                Some(t + self.cfg.padding_duration) >= self.last_send_time || rate < estimate
            }
            None => true,
        }
    }

    /// `UpdateBandwidthEstimate` with one transport feedback.
    pub fn update(&mut self, f: &FeedbackSummary, delay_based: Bitrate, in_alr: bool) {
        self.delay_based = delay_based;
        if !self.push_observation(f) {
            return;
        }
        if !self.best.bandwidth_bps.is_finite() {
            if !delay_based.is_finite() {
                return;
            }
            self.best.bandwidth_bps = delay_based.as_bps();
            self.result = delay_based;
            self.state = LossBasedState::DelayBasedEstimate;
        }
        let now = self.last_send_time.unwrap_or(Timestamp::ZERO);
        let mut best = self.best;
        let mut max_obj = f64::MIN;
        for mut c in self.candidates(in_alr) {
            self.newton(&mut c);
            let o = self.objective(&c);
            if o > max_obj {
                max_obj = o;
                best = c;
            }
        }
        if self.average_loss() > best.inherent_loss
            && self
                .cfg
                .not_increase_if_inherent_loss_less_than_average_loss
            && self.best.bandwidth_bps < best.bandwidth_bps
        {
            best.bandwidth_bps = self.best.bandwidth_bps;
        }
        if self.in_loss_limited_state() {
            if let Some(t) = self.recovering_after_loss {
                if t + self.cfg.delayed_increase_window > now
                    && best.bandwidth_bps > self.bandwidth_limit_in_current_window.as_bps()
                {
                    best.bandwidth_bps = self.bandwidth_limit_in_current_window.as_bps();
                }
            }
            // Bound the increase by `bandwidth_rampup_upper_bound_factor` (in HOLD: the
            // `_in_hold` one) x the acknowledged rate (M125: 1e6, no bound); a decreasing
            // estimate that stops falling is nudged up by 1 bit/s.
            let current = self.best.bandwidth_bps;
            let increasing =
                self.is_increasing(Bitrate::bps(current), Bitrate::bps(best.bandwidth_bps));
            if let (true, Some(a)) = (increasing, self.acknowledged) {
                let mut factor = self.cfg.bandwidth_rampup_upper_bound_factor;
                if self.hold.rate.is_finite()
                    && a < self.hold.rate * self.cfg.bandwidth_rampup_hold_threshold
                {
                    factor = self.cfg.bandwidth_rampup_upper_bound_factor_in_hold;
                }
                best.bandwidth_bps = current.max(best.bandwidth_bps.min(a.as_bps() * factor));
                if self.state == LossBasedState::Decreasing && best.bandwidth_bps == current {
                    best.bandwidth_bps = current + 1.0;
                }
            }
        }
        let upper = self.instant_upper_bound.unwrap_or(self.max_bitrate);
        let lower = self.instant_lower_bound();
        let candidate = Bitrate::bps(best.bandwidth_bps);
        let bounded = if delay_based.is_finite() {
            lower.max(candidate.min(upper).min(delay_based))
        } else {
            lower.max(candidate.min(upper))
        };
        if self.cfg.bound_best_candidate && bounded < candidate {
            // A lossy network caps the best estimate at the instant upper bound, else at
            // the delay-based estimate or the maximum.
            self.best.bandwidth_bps = bounded.as_bps();
            self.best.inherent_loss = 0.0;
        } else {
            self.best = best;
            if self.cfg.lower_bound_by_acked_rate_factor > 0.0 {
                self.best.bandwidth_bps = self.best.bandwidth_bps.max(lower.as_bps());
            }
        }
        // HOLD: after a loss-limited decrease the estimate does not rise above the hold
        // rate (at least the acknowledged rate) until the hold ends.
        if self.state == LossBasedState::Decreasing
            && self
                .hold
                .until
                .is_some_and(|t| Some(t) > self.last_send_time)
            && bounded < delay_based
        {
            if self.cfg.lower_bound_by_acked_rate_factor > 0.0 {
                self.hold.rate = lower.max(self.hold.rate);
            }
            self.result = self.hold.rate.min(bounded);
            return;
        }
        if self.is_increasing(self.result, bounded)
            && self.can_keep_increasing(bounded)
            && bounded < delay_based
            && bounded < self.max_bitrate
        {
            if self.cfg.padding_duration > TimeDelta::ZERO
                && self.padding.map_or(true, |(rate, _)| bounded > rate)
            {
                self.padding = Some((bounded, now));
            }
            self.state = if self.cfg.padding_duration > TimeDelta::ZERO {
                LossBasedState::IncreaseUsingPadding
            } else {
                LossBasedState::Increasing
            };
        } else if bounded < delay_based && bounded < self.max_bitrate {
            if self.state != LossBasedState::Decreasing && self.cfg.hold_duration_factor > 0.0 {
                self.hold = HoldInfo {
                    until: Some(now + self.hold.duration),
                    duration: MAX_HOLD_DURATION
                        .min(self.hold.duration * self.cfg.hold_duration_factor),
                    rate: bounded,
                };
            }
            self.padding = None;
            self.state = LossBasedState::Decreasing;
        } else {
            // The delay-based estimate works: reset HOLD so as not to stay low.
            self.hold = HoldInfo::RESET;
            self.padding = None;
            self.state = LossBasedState::DelayBasedEstimate;
        }
        self.result = bounded;
        if self.in_loss_limited_state()
            && self
                .recovering_after_loss
                .map_or(true, |t| t + self.cfg.delayed_increase_window < now)
        {
            self.bandwidth_limit_in_current_window =
                Bitrate::kbps(CONGESTION_CONTROLLER_MIN_BITRATE_KBPS)
                    .max(Bitrate::bps(self.best.bandwidth_bps) * self.cfg.max_increase_factor);
            self.recovering_after_loss = Some(now);
        }
    }
}

/// One transport feedback's packets as loss-based BWE v2 sees them
/// (`GetPacketResultsSummary`): counts, bytes and the span of send times.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FeedbackSummary {
    pub num_packets: u64,
    pub num_lost: u64,
    /// The lost packets' bytes (`lost_size`, `UseByteLossRate`).
    pub lost_size: DataSize,
    pub total_size: DataSize,
    pub first_send: Timestamp,
    pub last_send: Timestamp,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fb(from_ms: u64, to_ms: u64, packets: u64, lost: u64, bytes: u64) -> FeedbackSummary {
        FeedbackSummary {
            num_packets: packets,
            num_lost: lost,
            lost_size: DataSize::bytes(bytes * lost / packets.max(1)),
            total_size: DataSize::bytes(bytes),
            first_send: Timestamp::from_millis(from_ms),
            last_send: Timestamp::from_millis(to_ms),
        }
    }

    #[test]
    fn loss_model_of_get_loss_probability() {
        assert!(
            (loss_probability(0.01, 1e6, 5e5) - 0.01).abs() < 1e-12,
            "below B: p0"
        );
        // r = 2B: p0 + (1 - p0) / 2.
        assert!((loss_probability(0.01, 1e6, 2e6) - (0.01 + 0.99 * 0.5)).abs() < 1e-12);
        assert_eq!(loss_probability(0.0, 1e6, 1e5), 1e-6, "clamped");
        assert_eq!(loss_probability(2.0, 1e6, 1e5), 1.0 - 1e-6, "clamped");
    }

    #[test]
    fn observations_need_250_ms_and_three_make_it_ready() {
        let mut e = LossBasedBweV2::new(LossBasedBweV2Config::default());
        let delay = Bitrate::kbps(1000.0);
        assert_eq!(
            e.result(),
            (Bitrate::INFINITY, LossBasedState::DelayBasedEstimate)
        );
        e.update(&fb(0, 100, 10, 0, 12_000), delay, false);
        assert!(!e.is_ready());
        for k in 1..=3 {
            e.update(&fb(k * 300 - 200, k * 300, 25, 0, 30_000), delay, false);
        }
        assert!(e.is_ready());
        let (r, s) = e.result();
        assert_eq!(
            (r, s),
            (delay, LossBasedState::DelayBasedEstimate),
            "no loss: delay-based"
        );
    }

    #[test]
    fn heavy_loss_above_the_5_percent_offset_bounds_the_estimate() {
        let mut e = LossBasedBweV2::new(LossBasedBweV2Config::default());
        let delay = Bitrate::kbps(2000.0);
        e.set_acknowledged_bitrate(Bitrate::kbps(1600.0));
        // Sending 1.6 Mbit/s (60 kB in 300 ms) with 20 % loss for 3 s.
        for k in 0..10 {
            e.update(&fb(k * 300, (k + 1) * 300, 50, 10, 60_000), delay, false);
        }
        let (r, s) = e.result();
        // Instant upper bound 75 kbit/s / (0.2 - 0.05) = 500 kbit/s.
        assert!((r.as_kbps() - 500.0).abs() < 1.0, "{r}");
        assert_ne!(s, LossBasedState::DelayBasedEstimate, "loss limited");
        assert!((e.average_loss() - 0.2).abs() < 1e-9);
    }

    #[test]
    fn moderate_loss_below_the_offset_keeps_the_estimate_near_the_sending_rate() {
        let mut e = LossBasedBweV2::new(LossBasedBweV2Config::default());
        let delay = Bitrate::kbps(2000.0);
        e.set_acknowledged_bitrate(Bitrate::kbps(1600.0));
        // 3 % loss at 1.6 Mbit/s: within p0's bound (0.05 + 75/1600 = 9.7 %).
        for k in 0..20 {
            e.update(&fb(k * 300, (k + 1) * 300, 100, 3, 60_000), delay, false);
        }
        let (r, _) = e.result();
        assert!(r > Bitrate::kbps(1400.0), "{r}");
        let (p0, _) = e.channel();
        assert!(p0 > 0.01 && p0 < 0.1, "inherent loss {p0}");
    }

    fn fb_lost_bytes(
        from_ms: u64,
        to_ms: u64,
        packets: u64,
        lost: u64,
        bytes: u64,
        lost_bytes: u64,
    ) -> FeedbackSummary {
        FeedbackSummary {
            lost_size: DataSize::bytes(lost_bytes),
            ..fb(from_ms, to_ms, packets, lost, bytes)
        }
    }

    #[test]
    fn m150_defaults_are_the_sources() {
        let c = LossBasedBweV2Config::m150();
        assert_eq!(c.observation_window_size, 15);
        assert_eq!(
            c.inherent_loss_upper_bound_bandwidth_balance,
            Bitrate::kbps(100.0)
        );
        assert_eq!(
            c.instant_upper_bound_bandwidth_balance,
            Bitrate::kbps(100.0)
        );
        assert_eq!(c.loss_threshold_of_high_bandwidth_preference, 0.2);
        assert_eq!(
            (
                c.bandwidth_rampup_upper_bound_factor,
                c.bandwidth_rampup_upper_bound_factor_in_hold
            ),
            (1.5, 1.2)
        );
        assert_eq!(c.lower_bound_by_acked_rate_factor, 1.0);
        assert_eq!(c.hold_duration_factor, 2.0);
        assert!(c.use_byte_loss_rate && c.bound_best_candidate);
        assert_eq!(c.padding_duration, TimeDelta::secs(2));
        let d = LossBasedBweV2Config::default();
        assert!(!d.use_byte_loss_rate && !d.bound_best_candidate);
        assert_eq!(
            (d.hold_duration_factor, d.lower_bound_by_acked_rate_factor),
            (0.0, 0.0)
        );
    }

    #[test]
    fn byte_loss_rate_counts_lost_bytes_and_trims_the_extremes() {
        // Five observations of 30 kB: lost 0, 3, 3, 3 and 15 kB (loss 0, 10, 10, 10, 50 %).
        // By packets (1 lost of 25 each but the first) the average is 4 %; by bytes with
        // the smallest and the largest left out it is 10 %.
        let cfg = LossBasedBweV2Config {
            temporal_weight_factor: 1.0,
            instant_upper_bound_temporal_weight_factor: 1.0,
            ..LossBasedBweV2Config::m150()
        };
        let mut e = LossBasedBweV2::new(cfg);
        let delay = Bitrate::kbps(1000.0);
        let lost = [0u64, 3_000, 3_000, 3_000, 15_000];
        for (k, l) in lost.iter().enumerate() {
            let k = k as u64;
            e.update(
                &fb_lost_bytes(k * 300, (k + 1) * 300, 25, u64::from(*l > 0), 30_000, *l),
                delay,
                false,
            );
        }
        assert!(
            (e.average_loss() - 0.10).abs() < 1e-9,
            "{}",
            e.average_loss()
        );
        let mut p = LossBasedBweV2::new(LossBasedBweV2Config {
            use_byte_loss_rate: false,
            temporal_weight_factor: 1.0,
            instant_upper_bound_temporal_weight_factor: 1.0,
            ..LossBasedBweV2Config::m150()
        });
        for (k, l) in lost.iter().enumerate() {
            let k = k as u64;
            p.update(
                &fb_lost_bytes(k * 300, (k + 1) * 300, 25, u64::from(*l > 0), 30_000, *l),
                delay,
                false,
            );
        }
        assert!(
            (p.average_loss() - 4.0 / 125.0).abs() < 1e-9,
            "{}",
            p.average_loss()
        );
    }

    #[test]
    fn m150_estimate_never_under_the_acknowledged_rate() {
        // Heavy loss (20 %) would bound the estimate at 100 kbit/s / 0.15 = 667 kbit/s;
        // with the acknowledged rate at 900 kbit/s the lower bound holds it there.
        let mut e = LossBasedBweV2::new(LossBasedBweV2Config::m150());
        let delay = Bitrate::kbps(2000.0);
        e.set_acknowledged_bitrate(Bitrate::kbps(900.0));
        for k in 0..10 {
            e.update(&fb(k * 300, (k + 1) * 300, 50, 10, 60_000), delay, false);
        }
        let (r, s) = e.result();
        assert!((r.as_kbps() - 900.0).abs() < 1e-6, "{r}");
        assert_eq!(s, LossBasedState::Decreasing);
        // M125: no lower bound, the instant upper bound 75 / 0.15 = 500 kbit/s.
        let mut m = LossBasedBweV2::new(LossBasedBweV2Config::default());
        m.set_acknowledged_bitrate(Bitrate::kbps(900.0));
        for k in 0..10 {
            m.update(&fb(k * 300, (k + 1) * 300, 50, 10, 60_000), delay, false);
        }
        assert!((m.result().0.as_kbps() - 500.0).abs() < 1.0);
    }

    #[test]
    fn m150_hold_keeps_the_estimate_at_the_hold_rate() {
        // 20 % loss at 1.6 Mbit/s, acknowledged 300 kbit/s: loss limited, Decreasing, and a
        // HOLD of 300 ms at the first decreasing estimate starts; while it lasts the
        // result stays at most the hold rate even when the loss stops.
        let mut e = LossBasedBweV2::new(LossBasedBweV2Config::m150());
        let delay = Bitrate::kbps(2000.0);
        e.set_acknowledged_bitrate(Bitrate::kbps(300.0));
        let mut t = 0;
        while e.result().1 != LossBasedState::Decreasing && t < 30 {
            e.update(&fb(t * 300, (t + 1) * 300, 50, 10, 60_000), delay, false);
            t += 1;
        }
        assert_eq!(e.result().1, LossBasedState::Decreasing);
        let hold = e.hold;
        assert!(hold.rate.is_finite() && hold.until.is_some());
        assert_eq!(
            hold.duration,
            TimeDelta::millis(600),
            "300 ms doubled for the next one"
        );
        // The next observation ends before the hold does (it runs from the last send time).
        e.update(&fb(t * 300, t * 300 + 260, 50, 0, 60_000), delay, false);
        assert!(
            e.result().0 <= hold.rate,
            "{} > {}",
            e.result().0,
            hold.rate
        );
    }
}
