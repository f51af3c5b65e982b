//! The remote rate controller: AIMD over the detector signal (paper 002 eq. 3 and
//! Figure 4; Chromium `AimdRateControl`).
//!
//! libwebrtc: `modules/remote_bitrate_estimator/aimd_rate_control.cc` at M100
//! (branch-heads/4896; docs/ALGORITHMS.md, "libwebrtc sources").
//!
//! - FSM: normal: Hold -> Increase; overuse: -> Decrease; underuse: -> Hold.
//! - Increase: multiplicative `rate *= 1.08^min(dt, 1 s)` (at least +1 kbit/s), or
//!   additive near convergence (a link-capacity estimate exists):
//!   `+max(4 kbit/s, avg_packet_bits / (2 * (rtt + 100 ms)))` per second.
//! - Decrease: `rate = 0.85 * R` (R = incoming rate over 500 ms), then Hold.
//! - Cap: `rate <= 1.5 * R + 10 kbit/s`.

use super::detector::BandwidthUsage;
use super::link_capacity::{LinkCapacityConfig, LinkCapacityEstimator};
use crate::units::{Bitrate, DataSize, TimeDelta, Timestamp};

/// The FSM state sigma.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RateControlState {
    Hold,
    Increase,
    Decrease,
}

/// How the multiplicative increase is computed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum MultiplicativeIncrease {
    /// Chromium: `factor^min(dt_seconds, 1)` per update (factor 1.08).
    TimeScaled { factor_per_second: f64 },
    /// Paper 002 eq. 3 as written: `eta` per update (1.05), whatever the interval.
    PerUpdate { eta: f64 },
}

/// AIMD constants.
#[derive(Debug, Clone, PartialEq)]
pub struct AimdConfig {
    /// Initial A_r (Chromium default start rate: 300 kbit/s).
    pub start_rate: Bitrate,
    /// Floor (Chromium: 5 kbit/s).
    pub min_rate: Bitrate,
    /// Ceiling.
    pub max_rate: Bitrate,
    /// alpha of eq. 3 (the backoff factor): 0.85.
    pub beta: f64,
    /// Subtracted after the backoff (chromium preset 5 kbit/s, from the design notes: not
    /// in libwebrtc M100's `aimd_rate_control.cc`; paper 0).
    pub decrease_extra: Bitrate,
    /// Chromium never raises the rate on a decrease; the paper's eq. 3 sets 0.85 R even
    /// if that is higher.
    pub decrease_never_raises: bool,
    /// eta of eq. 3.
    pub increase: MultiplicativeIncrease,
    /// Minimum multiplicative step (1 kbit/s).
    pub min_multiplicative_step: Bitrate,
    /// Use additive increase near convergence (link-capacity estimate present).
    pub additive_near_convergence: bool,
    /// Minimum additive increase per second (4 kbit/s).
    pub min_additive_per_second: Bitrate,
    /// Response time = factor * (rtt + extra) (2, 100 ms).
    pub response_time_factor: f64,
    pub response_time_extra: TimeDelta,
    /// Frame interval and packet size used to estimate the average packet (1/30 s, 1200 B).
    pub frame_interval: TimeDelta,
    pub packet_size: DataSize,
    /// Cap: rate <= cap_factor * R + cap_extra (1.5, 10 kbit/s).
    pub cap_factor: f64,
    pub cap_extra: Bitrate,
    /// Chromium applies the cap only when increasing; paper 002 bounds A_r always.
    pub cap_always: bool,
    /// RTT before any sample (200 ms).
    pub default_rtt: TimeDelta,
    /// Repeat decreases during continued overuse at most once per clamp(rtt, 10, 200) ms
    /// (Chromium `TimeToReduceFurther`), or at once when R < 0.5 * A_r.
    pub reduce_interval_min: TimeDelta,
    pub reduce_interval_max: TimeDelta,
    /// Whether a rate set from outside ([`AimdRateControl::set_estimate`], a coupling
    /// allocation) restarts the clock of `TimeToReduceFurther`. `false` (default): the
    /// rate is set as Chromium's `DelayBasedBwe::SetStartBitrate` ->
    /// `AimdRateControl::SetStartBitrate` sets it, without touching the clock. That is
    /// GoogCc's own path for a rate imposed from outside (`ResetConstraints`), paired with
    /// `SendSideBandwidthEstimation::SetSendBitrate`, whose clearing of the min-bitrate
    /// history is what paper 000's FSEv2 relay is known to do (paper 000 VII-B2e).
    /// `true`: Chromium's `AimdRateControl::SetEstimate` (probe results), which sets
    /// `time_last_bitrate_change_`, so an over-use right after an allocation cannot cut
    /// (docs/ALGORITHMS.md, FSEv2 standing queue).
    pub allocation_restarts_decrease_timer: bool,
    pub link_capacity: LinkCapacityConfig,
}

impl Default for AimdConfig {
    fn default() -> Self {
        Self::chromium()
    }
}

impl AimdConfig {
    pub fn chromium() -> Self {
        Self {
            start_rate: Bitrate::kbps(300.0),
            min_rate: Bitrate::kbps(5.0),
            max_rate: Bitrate::mbps(10.0),
            beta: 0.85,
            decrease_extra: Bitrate::kbps(5.0),
            decrease_never_raises: true,
            increase: MultiplicativeIncrease::TimeScaled {
                factor_per_second: 1.08,
            },
            min_multiplicative_step: Bitrate::kbps(1.0),
            additive_near_convergence: true,
            min_additive_per_second: Bitrate::kbps(4.0),
            response_time_factor: 2.0,
            response_time_extra: TimeDelta::millis(100),
            frame_interval: TimeDelta::from_micros(33_333),
            packet_size: DataSize::bytes(1200),
            cap_factor: 1.5,
            cap_extra: Bitrate::kbps(10.0),
            cap_always: false,
            default_rtt: TimeDelta::millis(200),
            reduce_interval_min: TimeDelta::millis(10),
            reduce_interval_max: TimeDelta::millis(200),
            allocation_restarts_decrease_timer: false,
            link_capacity: LinkCapacityConfig::default(),
        }
    }
    pub fn paper() -> Self {
        Self {
            decrease_extra: Bitrate::ZERO,
            decrease_never_raises: false,
            cap_always: true,
            ..Self::chromium()
        }
    }
}

/// The controller state.
#[derive(Debug, Clone)]
pub struct AimdRateControl {
    cfg: AimdConfig,
    current: Bitrate,
    state: RateControlState,
    last_change: Option<Timestamp>,
    latest_throughput: Option<Bitrate>,
    rtt: TimeDelta,
    link_capacity: LinkCapacityEstimator,
    decreases: u64,
}

impl AimdRateControl {
    pub fn new(cfg: AimdConfig) -> Self {
        let lc = LinkCapacityEstimator::new(cfg.link_capacity.clone());
        let rtt = cfg.default_rtt;
        let mut s = Self {
            current: Bitrate::ZERO,
            state: RateControlState::Increase,
            last_change: None,
            latest_throughput: None,
            rtt,
            link_capacity: lc,
            decreases: 0,
            cfg,
        };
        s.current = s.clamp(s.cfg.start_rate);
        s
    }

    fn clamp(&self, r: Bitrate) -> Bitrate {
        let lo = self.cfg.min_rate;
        let hi = self.cfg.max_rate.max(lo);
        r.max(lo).min(hi)
    }

    pub fn latest_estimate(&self) -> Bitrate {
        self.current
    }
    pub fn state(&self) -> RateControlState {
        self.state
    }
    pub fn link_capacity(&self) -> &LinkCapacityEstimator {
        &self.link_capacity
    }
    /// Number of delay-based decreases applied (n_dd of paper 001).
    pub fn decrease_count(&self) -> u64 {
        self.decreases
    }
    pub fn set_rtt(&mut self, rtt: TimeDelta) {
        if rtt >= TimeDelta::ZERO {
            self.rtt = rtt;
        }
    }
    pub fn rtt(&self) -> TimeDelta {
        self.rtt
    }

    /// Set A_r from outside (a coupling allocation): the rate only, as Chromium's
    /// `SetStartBitrate`; with `allocation_restarts_decrease_timer` also the decrease
    /// timer, as Chromium's `SetEstimate`.
    pub fn set_estimate(&mut self, now: Timestamp, rate: Bitrate) {
        self.current = self.clamp(rate);
        if self.cfg.allocation_restarts_decrease_timer {
            self.last_change = Some(now);
        }
    }

    /// Chromium's `SetEstimate` (aimd_rate_control.cc) as a probe result uses it: the
    /// rate and the time of the last change (`chromium-m156` preset).
    pub fn set_estimate_from_probe(&mut self, now: Timestamp, rate: Bitrate) {
        self.current = self.clamp(rate);
        self.last_change = Some(now);
    }

    /// Chromium `TimeToReduceFurther`: whether another decrease is allowed now.
    pub fn time_to_reduce_further(&self, now: Timestamp, throughput: Option<Bitrate>) -> bool {
        let interval = self
            .rtt
            .max(self.cfg.reduce_interval_min)
            .min(self.cfg.reduce_interval_max);
        match self.last_change {
            None => return true,
            Some(t) if now.saturating_since(t) >= interval => return true,
            _ => {}
        }
        throughput.is_some_and(|r| r < self.current * 0.5)
    }

    /// The additive increase rate per second near convergence.
    pub fn near_max_increase_per_second(&self) -> Bitrate {
        let frame_size = self.current * self.cfg.frame_interval;
        let pkt = self.cfg.packet_size.as_bytes().max(1);
        let packets_per_frame = frame_size.as_bytes().div_ceil(pkt).max(1);
        let avg_packet = frame_size / packets_per_frame;
        let response = (self.rtt + self.cfg.response_time_extra) * self.cfg.response_time_factor;
        let r = avg_packet / response;
        r.max(self.cfg.min_additive_per_second)
    }

    fn change_state(&mut self, signal: BandwidthUsage, now: Timestamp) {
        match signal {
            BandwidthUsage::Normal => {
                if self.state == RateControlState::Hold {
                    self.last_change = Some(now);
                    self.state = RateControlState::Increase;
                }
            }
            BandwidthUsage::Overusing => self.state = RateControlState::Decrease,
            BandwidthUsage::Underusing => self.state = RateControlState::Hold,
        }
    }

    /// One update with the detector signal and the incoming rate R (None = unknown).
    /// Returns the new A_r.
    pub fn update(
        &mut self,
        now: Timestamp,
        signal: BandwidthUsage,
        throughput: Option<Bitrate>,
    ) -> Bitrate {
        if let Some(r) = throughput {
            self.latest_throughput = Some(r);
        }
        let r = self.latest_throughput.unwrap_or(self.current);
        self.change_state(signal, now);
        let limit = r * self.cfg.cap_factor + self.cfg.cap_extra;
        let mut new = self.current;
        match self.state {
            RateControlState::Hold => {}
            RateControlState::Increase => {
                if r > self.link_capacity.upper_bound() {
                    self.link_capacity.reset();
                }
                if self.current < limit {
                    let inc = if self.cfg.additive_near_convergence
                        && self.link_capacity.has_estimate()
                    {
                        let dt = self
                            .last_change
                            .map_or(TimeDelta::ZERO, |t| now.saturating_since(t));
                        Bitrate::bps(
                            self.near_max_increase_per_second().as_bps() * dt.as_secs_f64(),
                        )
                    } else {
                        self.multiplicative_increase(now)
                    };
                    new = (self.current + inc).min(limit);
                }
                self.last_change = Some(now);
            }
            RateControlState::Decrease => {
                // Eq. 3: alpha * R.
                let mut dec = (r * self.cfg.beta).saturating_sub(self.cfg.decrease_extra);
                if self.cfg.decrease_never_raises {
                    if dec > self.current {
                        if let Some(c) = self.link_capacity.estimate() {
                            dec = c * self.cfg.beta;
                        }
                    }
                    if dec < self.current {
                        new = dec;
                    }
                } else {
                    new = dec;
                }
                if r < self.link_capacity.lower_bound() {
                    self.link_capacity.reset();
                }
                self.link_capacity.on_overuse_detected(r);
                self.decreases = self.decreases.saturating_add(1);
                self.state = RateControlState::Hold;
                self.last_change = Some(now);
            }
        }
        if self.cfg.cap_always && self.latest_throughput.is_some() {
            new = new.min(limit);
        }
        self.current = self.clamp(new);
        self.current
    }

    fn multiplicative_increase(&self, now: Timestamp) -> Bitrate {
        match self.cfg.increase {
            MultiplicativeIncrease::TimeScaled { factor_per_second } => {
                let dt = self
                    .last_change
                    .map_or(1.0, |t| now.saturating_since(t).as_secs_f64().min(1.0));
                let alpha = factor_per_second.max(1.0).powf(dt);
                (self.current * (alpha - 1.0)).max(self.cfg.min_multiplicative_step)
            }
            MultiplicativeIncrease::PerUpdate { eta } => self.current * (eta.max(1.0) - 1.0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(ms: u64) -> Timestamp {
        Timestamp::from_millis(ms)
    }

    #[test]
    fn multiplicative_increase_is_time_scaled() {
        // The estimate set at 0 as Chromium's SetEstimate does (the clock starts there).
        let mut a = AimdRateControl::new(AimdConfig {
            start_rate: Bitrate::kbps(500.0),
            allocation_restarts_decrease_timer: true,
            ..AimdConfig::chromium()
        });
        a.set_estimate(t(0), Bitrate::kbps(500.0));
        let r = a.update(t(500), BandwidthUsage::Normal, Some(Bitrate::kbps(1000.0)));
        // 500 * 1.08^0.5
        assert!(
            (r.as_kbps() - 500.0 * 1.08f64.powf(0.5)).abs() < 1e-6,
            "{r}"
        );
    }

    #[test]
    fn decrease_is_beta_times_incoming_minus_extra_then_hold() {
        let mut a = AimdRateControl::new(AimdConfig {
            start_rate: Bitrate::kbps(1000.0),
            ..AimdConfig::chromium()
        });
        let r = a.update(
            t(100),
            BandwidthUsage::Overusing,
            Some(Bitrate::kbps(800.0)),
        );
        assert!((r.as_kbps() - (0.85 * 800.0 - 5.0)).abs() < 1e-6);
        assert_eq!(a.state(), RateControlState::Hold);
        assert_eq!(a.decrease_count(), 1);
        // Link capacity now known: 800 kbit/s.
        assert!((a.link_capacity().estimate().map_or(0.0, |b| b.as_kbps()) - 800.0).abs() < 1e-9);
        // Underuse keeps Hold; normal moves to Increase, which is now additive.
        a.update(
            t(200),
            BandwidthUsage::Underusing,
            Some(Bitrate::kbps(800.0)),
        );
        assert_eq!(a.state(), RateControlState::Hold);
        let before = a.latest_estimate();
        a.update(t(300), BandwidthUsage::Normal, Some(Bitrate::kbps(800.0)));
        assert_eq!(a.state(), RateControlState::Increase);
        assert_eq!(a.latest_estimate(), before); // dt = 0 at the transition
        let r = a.update(t(1300), BandwidthUsage::Normal, Some(Bitrate::kbps(800.0)));
        // Additive: frame = 675 kbit/s / 30 = 2812 B -> 3 packets of 937 B = 7499 bits,
        // response 2 * (200 + 100) ms = 0.6 s -> 12.5 kbit/s per second, for 1 s.
        let frame = (before * TimeDelta::from_micros(33_333)).as_bytes();
        let avg_bits = (frame / frame.div_ceil(1200)) as f64 * 8.0;
        let expect = before.as_bps() + avg_bits / 0.6;
        assert!(
            (r.as_bps() - expect).abs() < 1.0,
            "{} vs {}",
            r.as_bps(),
            expect
        );
    }

    #[test]
    fn chromium_decrease_never_raises_but_paper_does() {
        let mut c = AimdRateControl::new(AimdConfig {
            start_rate: Bitrate::kbps(100.0),
            ..AimdConfig::chromium()
        });
        let r = c.update(t(0), BandwidthUsage::Overusing, Some(Bitrate::kbps(1000.0)));
        assert!((r.as_kbps() - 100.0).abs() < 1e-9);
        let mut p = AimdRateControl::new(AimdConfig {
            start_rate: Bitrate::kbps(100.0),
            ..AimdConfig::paper()
        });
        let r = p.update(t(0), BandwidthUsage::Overusing, Some(Bitrate::kbps(1000.0)));
        assert!((r.as_kbps() - 850.0).abs() < 1e-9);
    }

    #[test]
    fn cap_is_one_and_a_half_incoming_plus_10k() {
        let mut a = AimdRateControl::new(AimdConfig {
            start_rate: Bitrate::kbps(300.0),
            ..AimdConfig::chromium()
        });
        let r = a.update(t(1000), BandwidthUsage::Normal, Some(Bitrate::kbps(100.0)));
        // limit = 160 kbit/s < current 300: no increase (Chromium does not lower).
        assert!((r.as_kbps() - 300.0).abs() < 1e-9);
        let mut p = AimdRateControl::new(AimdConfig {
            start_rate: Bitrate::kbps(300.0),
            ..AimdConfig::paper()
        });
        let r = p.update(t(1000), BandwidthUsage::Normal, Some(Bitrate::kbps(100.0)));
        assert!((r.as_kbps() - 160.0).abs() < 1e-9);
    }

    #[test]
    fn paper_per_update_eta() {
        let cfg = AimdConfig {
            start_rate: Bitrate::kbps(200.0),
            increase: MultiplicativeIncrease::PerUpdate { eta: 1.05 },
            ..AimdConfig::paper()
        };
        let mut a = AimdRateControl::new(cfg);
        let r = a.update(t(10), BandwidthUsage::Normal, Some(Bitrate::kbps(1000.0)));
        assert!((r.as_kbps() - 210.0).abs() < 1e-9);
    }

    #[test]
    fn increase_after_a_decrease_is_additive_unless_disabled() {
        // A decrease at 0 ms (R = 1000 kbit/s -> 850) gives a link-capacity estimate; the
        // increase 1 s later is additive near it (Chromium), 8 % without (eq. 3).
        let run = |additive: bool| {
            let mut a = AimdRateControl::new(AimdConfig {
                start_rate: Bitrate::kbps(1000.0),
                additive_near_convergence: additive,
                ..AimdConfig::paper()
            });
            a.set_rtt(TimeDelta::millis(100));
            let r = Some(Bitrate::kbps(1000.0));
            a.update(t(0), BandwidthUsage::Overusing, r);
            assert!((a.latest_estimate().as_kbps() - 850.0).abs() < 1e-9);
            // Hold -> Increase at 500 ms (the step there is the 1 kbit/s minimum); the
            // incoming rate then stays within the estimate's bounds.
            let r = Some(Bitrate::kbps(900.0));
            let before = a.update(t(500), BandwidthUsage::Normal, r).as_kbps();
            (
                before,
                a.update(t(1500), BandwidthUsage::Normal, r).as_kbps() - before,
            )
        };
        let (_, additive) = run(true);
        let (before, multiplicative) = run(false);
        assert!(
            (multiplicative - before * 0.08).abs() < 1e-6,
            "{multiplicative}"
        );
        // Near convergence: one average packet (a 3541 B frame at 850 kbit/s is three
        // 1180 B packets) per response time 2 * (100 ms RTT + 100 ms): 9.44 kbit / 0.4 s.
        assert!((additive - 23.6).abs() < 0.01, "{additive}");
    }

    #[test]
    fn time_to_reduce_further_uses_rtt_interval() {
        let mut a = AimdRateControl::new(AimdConfig {
            start_rate: Bitrate::kbps(1000.0),
            ..AimdConfig::chromium()
        });
        a.set_rtt(TimeDelta::millis(50));
        a.update(t(0), BandwidthUsage::Overusing, Some(Bitrate::kbps(1000.0)));
        assert!(!a.time_to_reduce_further(t(40), Some(Bitrate::kbps(800.0))));
        assert!(a.time_to_reduce_further(t(50), Some(Bitrate::kbps(800.0))));
        // Throughput below half the estimate: at once.
        assert!(a.time_to_reduce_further(t(1), Some(Bitrate::kbps(100.0))));
    }

    #[test]
    fn set_estimate_restarts_the_decrease_timer_only_when_configured() {
        // RTT 100 ms: a further decrease needs 100 ms since the last change.
        let run = |restart: bool| {
            let mut a = AimdRateControl::new(AimdConfig {
                start_rate: Bitrate::kbps(1000.0),
                allocation_restarts_decrease_timer: restart,
                ..AimdConfig::chromium()
            });
            a.set_rtt(TimeDelta::millis(100));
            a.update(t(0), BandwidthUsage::Overusing, Some(Bitrate::kbps(1000.0)));
            assert_eq!(a.decrease_count(), 1);
            // The allocation at 80 ms; the over-use is still there at 120 ms.
            a.set_estimate(t(80), Bitrate::kbps(900.0));
            assert!((a.latest_estimate().as_kbps() - 900.0).abs() < 1e-9);
            a.time_to_reduce_further(t(120), Some(Bitrate::kbps(800.0)))
        };
        // Chromium SetEstimate: the clock restarted at 80 ms, 40 ms < 100 ms: blocked.
        assert!(!run(true));
        // SetStartBitrate-like: 120 ms since the decrease at 0: allowed.
        assert!(run(false));
    }
}
