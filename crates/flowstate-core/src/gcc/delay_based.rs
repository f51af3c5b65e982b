//! The delay-based estimator: arrival groups -> filter (Kalman or trendline) ->
//! over-use detector with threshold -> AIMD, fed with per-packet (send time, arrival
//! time, size). Runs at the receiver for the paper presets and at the sender (on
//! transport-wide feedback) for the Chromium preset.
//!
//! libwebrtc: `modules/congestion_controller/goog_cc/delay_based_bwe.cc` at M100 (sender
//! side); the receiver side of the paper presets follows
//! `webrtc/modules/remote_bitrate_estimator/remote_bitrate_estimator_abs_send_time.cc`
//! (M50).

use super::aimd::{AimdConfig, AimdRateControl, RateControlState};
use super::detector::{BandwidthUsage, DetectorConfig, OveruseDetector};
use super::inter_arrival::{InterArrival, InterArrivalConfig, SendTimeReference};
use super::kalman::{Hypothesis, KalmanConfig, KalmanFilter};
use super::observation::GccObservation;
use super::threshold::{
    AdaptiveThresholdConfig, StaticThresholdConfig, Threshold, ThresholdConfig,
};
use super::trendline::{Trendline, TrendlineConfig};
use crate::rate_window::RateWindow;
use crate::units::{Bitrate, DataSize, TimeDelta, Timestamp};

/// Which delay filter.
#[derive(Debug, Clone, PartialEq)]
pub enum DelayFilterConfig {
    /// Paper 002's scalar Kalman filter; the detector gain is 1.
    Kalman(KalmanConfig),
    /// Chromium's trendline; the detector gain is the trendline's threshold gain (4).
    Trendline(TrendlineConfig),
}

#[derive(Debug, Clone)]
enum DelayFilter {
    Kalman(KalmanFilter),
    Trendline(Trendline),
}

/// Constants of the delay-based part.
#[derive(Debug, Clone, PartialEq)]
pub struct DelayBasedConfig {
    pub inter_arrival: InterArrivalConfig,
    pub filter: DelayFilterConfig,
    pub threshold: ThresholdConfig,
    pub detector: DetectorConfig,
    pub aimd: AimdConfig,
    /// Window of the incoming rate R (500 ms).
    pub receive_rate_window: TimeDelta,
    /// Run the AIMD at most this often, except on overuse (receiver side: 100 ms;
    /// sender side: zero, i.e. on every feedback message).
    pub update_interval: TimeDelta,
}

impl DelayBasedConfig {
    /// Paper 002: Kalman filter, adaptive threshold (0.01, 0.00018), overuse after 100 ms.
    pub fn paper() -> Self {
        Self {
            inter_arrival: InterArrivalConfig {
                send_time_reference: SendTimeReference::First,
                group_by_frame: true,
                ..InterArrivalConfig::default()
            },
            filter: DelayFilterConfig::Kalman(KalmanConfig::default()),
            threshold: ThresholdConfig::Adaptive(AdaptiveThresholdConfig::paper()),
            detector: DetectorConfig::paper(),
            aimd: AimdConfig::paper(),
            receive_rate_window: TimeDelta::millis(500),
            update_interval: TimeDelta::millis(100),
        }
    }
    /// Paper 001: as paper, with the static threshold gamma_bar (25/60 ms) and halving.
    pub fn paper_static() -> Self {
        Self {
            threshold: ThresholdConfig::Static(StaticThresholdConfig::default()),
            ..Self::paper()
        }
    }
    /// Chromium ~M100: trendline, adaptive threshold (0.0087, 0.039), overuse after 10 ms.
    pub fn chromium() -> Self {
        Self {
            inter_arrival: InterArrivalConfig::default(),
            filter: DelayFilterConfig::Trendline(TrendlineConfig::default()),
            threshold: ThresholdConfig::Adaptive(AdaptiveThresholdConfig::chromium()),
            detector: DetectorConfig::chromium(),
            aimd: AimdConfig::chromium(),
            receive_rate_window: TimeDelta::millis(500),
            update_interval: TimeDelta::ZERO,
        }
    }
}

impl Default for DelayBasedConfig {
    fn default() -> Self {
        Self::chromium()
    }
}

/// One packet's send and arrival times.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PacketTiming {
    pub send_time: Timestamp,
    pub arrival_time: Timestamp,
    pub size: DataSize,
    /// The video frame the packet carries (used when grouping by frame).
    pub frame: Option<u64>,
}

/// The delay-based estimator state.
#[derive(Debug, Clone)]
pub struct DelayBasedBwe {
    cfg: DelayBasedConfig,
    inter_arrival: InterArrival,
    filter: DelayFilter,
    threshold: Threshold,
    detector: OveruseDetector,
    aimd: AimdRateControl,
    rate: RateWindow,
    num_deltas: u32,
    estimate: f64,
    modified: f64,
    last_update: Option<Timestamp>,
    last_observation: Option<GccObservation>,
    new_observation: bool,
}

const DELTA_COUNTER_MAX: u32 = 1000;

impl DelayBasedBwe {
    pub fn new(cfg: DelayBasedConfig) -> Self {
        let filter = match &cfg.filter {
            DelayFilterConfig::Kalman(k) => DelayFilter::Kalman(KalmanFilter::new(k.clone())),
            DelayFilterConfig::Trendline(t) => DelayFilter::Trendline(Trendline::new(t.clone())),
        };
        Self {
            inter_arrival: InterArrival::new(cfg.inter_arrival.clone()),
            filter,
            threshold: Threshold::new(&cfg.threshold),
            detector: OveruseDetector::new(cfg.detector.clone()),
            aimd: AimdRateControl::new(cfg.aimd.clone()),
            rate: RateWindow::new(cfg.receive_rate_window, TimeDelta::millis(100)),
            num_deltas: 0,
            estimate: 0.0,
            modified: 0.0,
            last_update: None,
            last_observation: None,
            new_observation: false,
            cfg,
        }
    }

    fn on_packet(&mut self, p: &PacketTiming) -> bool {
        self.rate.add(p.arrival_time, p.size);
        let Some(delta) =
            self.inter_arrival
                .on_packet(p.send_time, p.arrival_time, p.size.as_bytes(), p.frame)
        else {
            return false;
        };
        self.num_deltas = (self.num_deltas + 1).min(DELTA_COUNTER_MAX);
        let d = delta.delay_variation_ms();
        let (estimate, gain) = match &mut self.filter {
            DelayFilter::Kalman(k) => {
                let hypothesis = match self.detector.state() {
                    BandwidthUsage::Normal => Hypothesis::Normal,
                    BandwidthUsage::Overusing => Hypothesis::Overusing,
                    BandwidthUsage::Underusing => Hypothesis::Underusing,
                };
                let send_ms = delta.send_delta.as_millis_f64();
                let m = k.update_two_state(d, send_ms, delta.size_delta as f64, hypothesis);
                (m, 1.0)
            }
            DelayFilter::Trendline(t) => {
                let at_ms = delta.arrival_time.as_micros() as f64 / 1000.0;
                (t.update(d, at_ms), t.threshold_gain())
            }
        };
        // Paper 001 "remote state region": halve while decreasing or near the capacity.
        let halved = self.aimd.state() == RateControlState::Decrease
            || self.aimd.link_capacity().has_estimate();
        self.threshold.set_halved(halved);
        let modified = self.detector.modified(estimate, self.num_deltas, gain);
        let gamma = self.threshold.value();
        self.detector
            .detect(estimate, modified, gamma, delta.send_delta, self.num_deltas);
        self.threshold.update(modified, delta.arrival_time);
        self.estimate = estimate;
        self.modified = modified;
        true
    }

    /// Process packets (in arrival order) at `now`; runs the AIMD if due. Returns the new
    /// A_r if the AIMD ran.
    pub fn on_packets<'a>(
        &mut self,
        now: Timestamp,
        packets: impl IntoIterator<Item = &'a PacketTiming>,
    ) -> Option<Bitrate> {
        self.on_packets_with(now, packets, None)
    }

    /// As [`DelayBasedBwe::on_packets`], with the throughput the AIMD uses (decrease to
    /// beta x it, increase capped at 1.5 x it + 10 kbit/s, `TimeToReduceFurther`) taken
    /// from outside: `acknowledged` is the `acked_bitrate` M125's
    /// `DelayBasedBwe::IncomingPacketFeedbackVector` gets from the
    /// `RobustThroughputEstimator` (`chromium-m156`; `None` = no estimate yet: no
    /// decrease on over-use, the AIMD keeps its last throughput otherwise).
    pub fn on_packets_acknowledged<'a>(
        &mut self,
        now: Timestamp,
        packets: impl IntoIterator<Item = &'a PacketTiming>,
        acknowledged: Option<Bitrate>,
    ) -> Option<Bitrate> {
        self.on_packets_with(now, packets, Some(acknowledged))
    }

    /// `external`: `None` = the receive-rate window at `now`; `Some(r)` = `r`.
    fn on_packets_with<'a>(
        &mut self,
        now: Timestamp,
        packets: impl IntoIterator<Item = &'a PacketTiming>,
        external: Option<Option<Bitrate>>,
    ) -> Option<Bitrate> {
        let mut any = false;
        for p in packets {
            any |= self.on_packet(p);
        }
        let signal = self.detector.state();
        let (r, acked_only) = match external {
            None => (self.rate.rate(now), false),
            Some(a) => (a, true),
        };
        let due = if signal == BandwidthUsage::Overusing {
            // M125 `MaybeUpdateEstimate`: over-use decreases only with an acknowledged
            // rate (`acked_bitrate && TimeToReduceFurther`).
            (!acked_only || r.is_some()) && self.aimd.time_to_reduce_further(now, r)
        } else {
            any && self.last_update.map_or(true, |t| {
                now.saturating_since(t) >= self.cfg.update_interval
            })
        };
        if !due {
            return None;
        }
        self.last_update = Some(now);
        let rate = self.aimd.update(now, signal, r);
        self.last_observation = Some(self.snapshot(now, r));
        self.new_observation = true;
        Some(rate)
    }

    fn snapshot(&self, now: Timestamp, r: Option<Bitrate>) -> GccObservation {
        GccObservation {
            time: now,
            delay_estimate: self.estimate,
            modified_estimate: self.modified,
            threshold: self.threshold.value(),
            signal: self.detector.state(),
            state: self.aimd.state(),
            delay_based_rate: self.aimd.latest_estimate(),
            loss_based_rate: None,
            incoming_rate: r,
            delay_based_decreases: self.aimd.decrease_count(),
        }
    }

    /// The newest snapshot, once (`None` if nothing new since the last call).
    pub fn take_observation(&mut self) -> Option<GccObservation> {
        if std::mem::take(&mut self.new_observation) {
            self.last_observation
        } else {
            None
        }
    }
    /// The newest snapshot.
    pub fn latest_observation(&self) -> Option<GccObservation> {
        self.last_observation
    }

    /// A_r.
    pub fn estimate(&self) -> Bitrate {
        self.aimd.latest_estimate()
    }
    /// Set A_r (FSEv2 coupling).
    pub fn set_estimate(&mut self, now: Timestamp, rate: Bitrate) {
        self.aimd.set_estimate(now, rate);
    }
    /// A probe result (`DelayBasedBwe::MaybeUpdateEstimate`, delay_based_bwe.cc, M125):
    /// taken as A_r unless the detector signals over-use. Returns whether it was taken.
    pub fn apply_probe(&mut self, now: Timestamp, rate: Bitrate) -> bool {
        if self.detector.state() == BandwidthUsage::Overusing {
            return false;
        }
        self.aimd.set_estimate_from_probe(now, rate);
        true
    }
    pub fn set_rtt(&mut self, rtt: TimeDelta) {
        self.aimd.set_rtt(rtt);
    }
    /// n_dd.
    pub fn delay_based_decreases(&self) -> u64 {
        self.aimd.decrease_count()
    }
    pub fn signal(&self) -> BandwidthUsage {
        self.detector.state()
    }
    pub fn state(&self) -> RateControlState {
        self.aimd.state()
    }
    pub fn threshold(&self) -> f64 {
        self.threshold.value()
    }
    pub fn delay_estimate(&self) -> f64 {
        self.estimate
    }
    pub fn incoming_rate(&mut self, now: Timestamp) -> Option<Bitrate> {
        self.rate.rate(now)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 1200 B every 10 ms; `extra_delay_per_packet` ms of queue growth per packet.
    fn report(
        seq: &mut u64,
        delay: &mut u64,
        fb: u64,
        extra_delay_per_packet: u64,
    ) -> Vec<PacketTiming> {
        let mut pkts = Vec::new();
        while (*seq + 1) * 10 <= fb * 100 {
            *seq += 1;
            *delay += extra_delay_per_packet;
            let s = Timestamp::from_millis(*seq * 10);
            pkts.push(PacketTiming {
                send_time: s,
                arrival_time: s + TimeDelta::millis(*delay as i64),
                size: DataSize::bytes(1200),
                frame: None,
            });
        }
        pkts
    }

    #[test]
    fn acknowledged_rate_from_outside_sets_the_decrease_and_gates_it() {
        let mut d = DelayBasedBwe::new(DelayBasedConfig::chromium());
        let (mut seq, mut delay) = (0u64, 40u64);
        let at = |fb: u64, delay: u64| Timestamp::from_millis(fb * 100 + delay);
        for fb in 1..=30 {
            let p = report(&mut seq, &mut delay, fb, 0);
            d.on_packets_acknowledged(at(fb, delay), p.iter(), Some(Bitrate::kbps(960.0)));
        }
        d.set_estimate(at(30, delay), Bitrate::mbps(2.0));
        // The queue grows: over-use, but no acknowledged rate yet: no decrease (M125
        // `MaybeUpdateEstimate`: `acked_bitrate && TimeToReduceFurther`).
        let mut fb = 30;
        while d.signal() != BandwidthUsage::Overusing {
            fb += 1;
            assert!(fb < 60, "no over-use detected");
            let p = report(&mut seq, &mut delay, fb, 5);
            d.on_packets_acknowledged(at(fb, delay), p.iter(), None);
        }
        // Still none 300 ms later (past TimeToReduceFurther's 200 ms): still no decrease.
        for _ in 0..3 {
            fb += 1;
            let p = report(&mut seq, &mut delay, fb, 5);
            d.on_packets_acknowledged(at(fb, delay), p.iter(), None);
            assert_eq!(d.signal(), BandwidthUsage::Overusing);
        }
        assert!(d.estimate() >= Bitrate::mbps(2.0), "{}", d.estimate());
        assert_eq!(d.delay_based_decreases(), 0);
        // With one (below half the estimate: no wait): 0.85 x 900 - 5 = 760 kbit/s,
        // whatever the receive-rate window says.
        fb += 1;
        let p = report(&mut seq, &mut delay, fb, 5);
        d.on_packets_acknowledged(at(fb, delay), p.iter(), Some(Bitrate::kbps(900.0)));
        assert!(
            (d.estimate().as_kbps() - 760.0).abs() < 1e-6,
            "{}",
            d.estimate()
        );
        assert_eq!(d.delay_based_decreases(), 1);
    }
}
