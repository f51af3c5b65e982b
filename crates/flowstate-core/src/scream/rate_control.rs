//! SCReAM media rate control (RFC 8298 section 4.1.3): the encoder's target bitrate,
//! cut at once by BETA_R on a loss event and by BETA_ECN on an ECN event, otherwise
//! updated every RATE_ADJUST_INTERVAL: ramped at RAMP_UP_SPEED in fast increase,
//! else steered to the measured throughput minus the RTP queue, slowed near the last
//! congested rate (target_bitrate_last_max), and capped near what the encoder
//! actually produces.

use super::config::ScreamConfig;
use crate::units::{Bitrate, DataSize, TimeDelta, Timestamp};

/// Below this target the `low_rate_push` term acts in full (the reference code's
/// 50 kbit/s).
const LOW_RATE_PUSH_KNEE_BPS: f64 = 50_000.0;

/// Inputs of one rate update.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RateInputs {
    /// Network control in fast increase.
    pub in_fast_increase: bool,
    pub qdelay_trend: f64,
    pub qdelay_trend_mem: f64,
    /// A loss event / an ECN event in this feedback.
    pub loss: bool,
    pub ce: bool,
    /// rate_transmit and rate_ack (current_rate is their maximum).
    pub rate_transmit: Bitrate,
    pub rate_ack: Bitrate,
    /// rate_media (the encoder's output into the RTP queue) and its long-term median;
    /// `None` before enough data.
    pub rate_media: Option<Bitrate>,
    pub rate_media_median: Option<Bitrate>,
    /// rtp_queue_size and the delay of the RTP queue's head.
    pub rtp_queue_size: DataSize,
    pub rtp_queue_delay: TimeDelta,
}

/// What the update asks of the caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RateAction {
    None,
    /// The RTP queue is excessively delayed: discard it (the RFC's SHOULD; the encoder
    /// is then asked for a refresh).
    DiscardRtpQueue,
}

/// The media rate controller.
#[derive(Debug, Clone)]
pub struct MediaRateControl {
    cfg: ScreamConfig,
    target: f64,
    /// target_bitrate_last_max: the target when congestion was last detected.
    target_last_max: Option<f64>,
    last_adjust: Option<Timestamp>,
    last_discard: Option<Timestamp>,
    was_fast_increase: bool,
    /// The average of rtp_queue_size in bits (`rtp_queue_size_smoothing`).
    queue_bits_avg: f64,
}

impl MediaRateControl {
    pub fn new(cfg: ScreamConfig) -> Self {
        MediaRateControl {
            target: cfg.clip(cfg.initial_rate).as_bps(),
            target_last_max: None,
            last_adjust: None,
            last_discard: None,
            was_fast_increase: true,
            queue_bits_avg: 0.0,
            cfg,
        }
    }

    pub fn target(&self) -> Bitrate {
        Bitrate::bps(self.target)
    }

    /// Coupling: set the target bitrate (clipped into [min, max]).
    pub fn set_target(&mut self, rate: Bitrate) {
        if rate.is_finite() {
            self.target = self.cfg.clip(rate).as_bps();
        }
    }

    /// `scale_t = clamp((4 (target_bitrate - target_bitrate_last_max) /
    /// target_bitrate_last_max)^2, 0.2, 1)`; 1 before any congestion.
    pub fn scale(&self) -> f64 {
        match self.target_last_max {
            Some(i) if i > 0.0 => {
                let s = 4.0 * (self.target - i) / i;
                (s * s).clamp(0.2, 1.0)
            }
            _ => 1.0,
        }
    }

    /// Whether [`MediaRateControl::update`] would act at `now` (a loss or ECN event, or
    /// RATE_ADJUST_INTERVAL elapsed), so callers can skip gathering its inputs.
    pub fn due(&self, now: Timestamp, loss_or_ce: bool) -> bool {
        loss_or_ce
            || self.last_adjust.map_or(true, |t| {
                now.saturating_since(t) >= self.cfg.rate_adjust_interval
            })
    }

    /// One step (call on each feedback and each new frame):
    ///
    /// ```text
    /// on loss: target = max(BETA_R * target, TARGET_BITRATE_MIN); exit
    /// on ECN:  target = max(BETA_ECN * target, TARGET_BITRATE_MIN); exit
    /// every RATE_ADJUST_INTERVAL:
    ///   ramp = min(RAMP_UP_SPEED, target / 2)
    ///   fast increase: target += ramp * RATE_ADJUST_INTERVAL * scale
    ///   else: current = max(rate_transmit, rate_ack)
    ///         delta = current * (1 - PRE_CONGESTION_GUARD * qdelay_trend)
    ///                 - TX_QUEUE_SIZE_FACTOR * rtp_queue_size - target
    ///         delta > 0: delta = min(delta * scale, ramp * RATE_ADJUST_INTERVAL)
    ///         target += delta
    ///         rtp_queue_size / current > RTP_QDELAY_TH:
    ///             target *= TARGET_RATE_SCALE_RTP_QDELAY
    ///   target = min(target, max(current, rate_media, rate_media_median)
    ///                        * (2 - qdelay_trend_mem))
    /// target within [TARGET_BITRATE_MIN, TARGET_BITRATE_MAX]
    /// ```
    ///
    /// RFC 8298's pseudo-code writes `target_bitrate += delta_rate_t` with delta
    /// computed without `- target`; read literally that adds the whole throughput every
    /// 0.2 s, so `- target` is there as in the reference implementation (see
    /// docs/ALGORITHMS.md).
    pub fn update(&mut self, now: Timestamp, inp: &RateInputs) -> RateAction {
        let cfg = &self.cfg;
        let min = cfg.min_rate.as_bps();
        let mut action = RateAction::None;
        if inp.loss || inp.ce {
            self.target_last_max = Some(self.target);
            let beta = if inp.loss {
                cfg.beta_r_loss
            } else {
                cfg.beta_ecn
            };
            self.target = (beta * self.target).max(min);
            self.last_adjust = Some(now);
        } else {
            let last = *self.last_adjust.get_or_insert(now);
            if now.saturating_since(last) < cfg.rate_adjust_interval {
                return action;
            }
            self.last_adjust = Some(now);
            let interval = cfg.rate_adjust_interval.as_secs_f64();
            let ramp = cfg.ramp_up_speed.min(self.target / 2.0);
            let scale = self.scale();
            let current = inp.rate_transmit.max(inp.rate_ack).as_bps();
            let queue_bits = inp.rtp_queue_size.as_bits_f64();
            // `rtp_queue_size_smoothing` (0 in RFC 8298; the reference code's 0.5 EWMA,
            // ScreamTx.cpp `Stream::updateTargetBitrate`, `txSizeBitsAvg`).
            let smoothing = cfg.rtp_queue_size_smoothing;
            let tx_queue_bits = if smoothing > 0.0 {
                smoothing * self.queue_bits_avg + (1.0 - smoothing) * queue_bits
            } else {
                queue_bits
            };
            self.queue_bits_avg = tx_queue_bits;
            let discard_due = self.last_discard.map_or(true, |t| {
                now.saturating_since(t) > cfg.rtp_queue_discard_interval
            });
            if inp.rtp_queue_delay > cfg.rtp_queue_delay_max && discard_due {
                action = RateAction::DiscardRtpQueue;
                self.last_discard = Some(now);
                self.queue_bits_avg = 0.0;
            }
            // `increase_max_throughput_ratio` (the reference code: no increase while the
            // target is above 1.5 x the throughput).
            let ratio = cfg.increase_max_throughput_ratio;
            let increase_blocked = ratio > 0.0 && self.target > ratio * current;
            // `fast_increase_rtp_queue_delay_max` (the reference code ramps only while
            // the RTP queue holds less than 0.1 s).
            let fast = inp.in_fast_increase
                && cfg
                    .fast_increase_rtp_queue_delay_max
                    .map_or(true, |max| inp.rtp_queue_delay < max);
            if fast {
                if !increase_blocked {
                    self.target += ramp * interval * scale;
                }
                self.was_fast_increase = true;
            } else {
                if self.was_fast_increase {
                    // Fast increase ended on a rising queuing delay: congestion detected.
                    self.was_fast_increase = false;
                    self.target_last_max = Some(self.target);
                }
                // `low_rate_push` (0 in RFC 8298; the reference code's increment scale)
                // lets the target climb above the throughput, most at low rates.
                let push = 1.0
                    + cfg.low_rate_push * (LOW_RATE_PUSH_KNEE_BPS / self.target.max(1.0)).min(1.0);
                let mut delta =
                    push * current * (1.0 - cfg.pre_congestion_guard * inp.qdelay_trend)
                        - cfg.tx_queue_size_factor * tx_queue_bits
                        - self.target;
                if delta > 0.0 {
                    delta = (delta * scale).min(ramp * interval);
                    // `rtp_queue_increase_limit` (the reference code: none while more
                    // than 12 kbit wait in the RTP queue).
                    let limit = cfg.rtp_queue_increase_limit;
                    if increase_blocked || (limit > DataSize::ZERO && inp.rtp_queue_size > limit) {
                        delta = 0.0;
                    }
                } else if cfg.coder_limited_decrease_guard {
                    // The reference code keeps the target while the encoder, not the
                    // network, sets the output rate (below 0.8 x or above 2 x target).
                    let media = inp.rate_media.map_or(0.0, |m| m.as_bps());
                    if media < 0.8 * self.target || media > 2.0 * self.target {
                        delta = 0.0;
                    }
                }
                self.target += delta;
                if current > 0.0 && queue_bits / current > cfg.rtp_qdelay_th.as_secs_f64() {
                    self.target *= cfg.target_rate_scale_rtp_qdelay;
                }
            }
            if let Some(media) = inp.rate_media.filter(|_| cfg.rate_media_cap) {
                let median = inp.rate_media_median.map_or(0.0, |m| m.as_bps());
                let limit = current.max(media.as_bps()).max(median)
                    * (2.0 - inp.qdelay_trend_mem.clamp(0.0, 1.0));
                self.target = self.target.min(limit);
            }
        }
        if !self.target.is_finite() {
            self.target = min;
        }
        self.target = cfg.clip(Bitrate::bps(self.target)).as_bps();
        action
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inputs() -> RateInputs {
        RateInputs {
            in_fast_increase: true,
            qdelay_trend: 0.0,
            qdelay_trend_mem: 0.0,
            loss: false,
            ce: false,
            rate_transmit: Bitrate::kbps(300.0),
            rate_ack: Bitrate::kbps(300.0),
            rate_media: None,
            rate_media_median: None,
            rtp_queue_size: DataSize::ZERO,
            rtp_queue_delay: TimeDelta::ZERO,
        }
    }

    fn t(ms: u64) -> Timestamp {
        Timestamp::from_millis(ms)
    }

    #[test]
    fn fast_increase_ramps_at_ramp_up_speed() {
        let cfg = ScreamConfig {
            initial_rate: Bitrate::kbps(500.0),
            ..ScreamConfig::default()
        };
        let mut r = MediaRateControl::new(cfg);
        r.update(t(0), &inputs());
        // 200 ms later: + min(200, 500 / 2) kbit/s/s * 0.2 s = 40 kbit/s.
        r.update(t(200), &inputs());
        assert!((r.target().as_kbps() - 540.0).abs() < 1e-9);
        // Too early for the next step.
        r.update(t(300), &inputs());
        assert!((r.target().as_kbps() - 540.0).abs() < 1e-9);
        // The media limit: max(300, 250) * (2 - 0.5) = 450 kbit/s.
        let mut i = inputs();
        i.rate_media = Some(Bitrate::kbps(250.0));
        i.qdelay_trend_mem = 0.5;
        r.update(t(400), &i);
        assert!(
            (r.target().as_kbps() - 450.0).abs() < 1e-9,
            "{}",
            r.target()
        );
    }

    #[test]
    fn low_rate_push_lifts_the_target_above_the_throughput() {
        let target_after = |push: f64, kbps: f64| {
            let cfg = ScreamConfig {
                initial_rate: Bitrate::kbps(kbps),
                low_rate_push: push,
                ..ScreamConfig::default()
            };
            let mut r = MediaRateControl::new(cfg);
            let mut i = inputs();
            i.in_fast_increase = false;
            i.rate_transmit = Bitrate::kbps(kbps);
            i.rate_ack = Bitrate::kbps(kbps);
            r.update(t(0), &i);
            r.update(t(200), &i);
            r.target().as_kbps()
        };
        // Without it the target holds at the throughput.
        assert!((target_after(0.0, 1000.0) - 1000.0).abs() < 1e-9);
        // 1000 kbit/s: x (1 + 0.05 * 50 / 1000) = + 2.5 kbit/s.
        assert!((target_after(0.05, 1000.0) - 1002.5).abs() < 1e-9);
        // 200 kbit/s: + 0.05 * 50 / 200 * 200 = + 2.5 kbit/s as well.
        assert!((target_after(0.05, 200.0) - 202.5).abs() < 1e-9);
    }

    /// The target after two congestion-avoidance updates 200 ms apart from
    /// `kbps`, with `inp` adjusted by `tweak` and the configuration by `cfg`.
    fn ca_target(kbps: f64, cfg: ScreamConfig, tweak: impl Fn(&mut RateInputs)) -> f64 {
        let mut r = MediaRateControl::new(ScreamConfig {
            initial_rate: Bitrate::kbps(kbps),
            ..cfg
        });
        let mut i = inputs();
        i.in_fast_increase = false;
        tweak(&mut i);
        r.update(t(0), &i);
        r.update(t(200), &i);
        r.target().as_kbps()
    }

    #[test]
    fn rtp_queue_increase_limit_holds_an_increase() {
        // Throughput 400 kbit/s above a 300 kbit/s target, 2,000 B waiting (16 kbit,
        // 40 ms at 400 kbit/s; the 0.95 scale-down off for the comparison).
        let tweak = |i: &mut RateInputs| {
            i.rate_transmit = Bitrate::kbps(400.0);
            i.rtp_queue_size = DataSize::bytes(2000);
        };
        let base = ScreamConfig {
            target_rate_scale_rtp_qdelay: 1.0,
            ..ScreamConfig::default()
        };
        // RFC 8298: up by min(400 - 16 - 300, ramp x 0.2 s) = min(84, 150 x 0.2) = 30
        // kbit/s.
        assert!((ca_target(300.0, base.clone(), tweak) - 330.0).abs() < 1e-9);
        let limited = ScreamConfig {
            rtp_queue_increase_limit: DataSize::bytes(1500),
            ..base
        };
        assert!((ca_target(300.0, limited, tweak) - 300.0).abs() < 1e-9);
    }

    #[test]
    fn rtp_queue_size_smoothing_averages_the_tx_queue_term() {
        let cfg = ScreamConfig {
            rtp_queue_size_smoothing: 0.5,
            target_rate_scale_rtp_qdelay: 1.0,
            ..ScreamConfig::default()
        };
        let mut r = MediaRateControl::new(ScreamConfig {
            initial_rate: Bitrate::kbps(300.0),
            ..cfg
        });
        let mut i = inputs();
        i.in_fast_increase = false;
        i.rate_transmit = Bitrate::kbps(300.0);
        i.rate_ack = Bitrate::kbps(300.0);
        r.update(t(0), &i);
        // 10 kbit waiting at the first update that acts: the average is 0.5 x 0 +
        // 0.5 x 10 = 5 kbit, so the target falls by 1 x 5 kbit/s, not 10.
        i.rtp_queue_size = DataSize::bytes(1250);
        r.update(t(200), &i);
        assert!(
            (r.target().as_kbps() - 295.0).abs() < 1e-9,
            "{}",
            r.target()
        );
    }

    #[test]
    fn coder_limited_decrease_guard_keeps_the_target() {
        // Throughput 200 kbit/s below a 300 kbit/s target; the coder at 200 kbit/s
        // (below 0.8 x target).
        let tweak = |i: &mut RateInputs| {
            i.rate_transmit = Bitrate::kbps(200.0);
            i.rate_ack = Bitrate::kbps(200.0);
            i.rate_media = Some(Bitrate::kbps(200.0));
        };
        let cfg = ScreamConfig {
            rate_media_cap: false,
            ..ScreamConfig::default()
        };
        assert!((ca_target(300.0, cfg.clone(), tweak) - 200.0).abs() < 1e-9);
        let guarded = ScreamConfig {
            coder_limited_decrease_guard: true,
            ..cfg
        };
        assert!((ca_target(300.0, guarded, tweak) - 300.0).abs() < 1e-9);
    }

    #[test]
    fn rate_media_cap_and_the_throughput_ratio() {
        // Fast increase from 500 kbit/s at 300 kbit/s of throughput, coder at 250:
        // RFC 8298 caps at max(300, 250) x 2 = 600 kbit/s after +40.
        let run = |cfg: ScreamConfig| {
            let mut r = MediaRateControl::new(ScreamConfig {
                initial_rate: Bitrate::kbps(500.0),
                ..cfg
            });
            let mut i = inputs();
            i.rate_media = Some(Bitrate::kbps(250.0));
            r.update(t(0), &i);
            r.update(t(200), &i);
            r.target().as_kbps()
        };
        let rfc = ScreamConfig::default();
        assert!((run(rfc.clone()) - 540.0).abs() < 1e-9);
        let capped_low = |i: &mut RateInputs| i.qdelay_trend_mem = 1.0;
        // With trend memory 1 the cap is 1 x 300 kbit/s.
        assert!((ca_target(500.0, rfc.clone(), capped_low) - 300.0).abs() < 1e-9);
        let no_cap = ScreamConfig {
            rate_media_cap: false,
            ..rfc.clone()
        };
        assert!((run(no_cap.clone()) - 540.0).abs() < 1e-9);
        // The reference code's rule instead: no increase above 1.5 x 300 kbit/s.
        let ratio = ScreamConfig {
            increase_max_throughput_ratio: 1.5,
            ..no_cap
        };
        assert!((run(ratio) - 500.0).abs() < 1e-9);
    }

    #[test]
    fn fast_increase_only_below_the_rtp_queue_delay_max() {
        let run = |max: Option<TimeDelta>| {
            let mut r = MediaRateControl::new(ScreamConfig {
                initial_rate: Bitrate::kbps(300.0),
                fast_increase_rtp_queue_delay_max: max,
                target_rate_scale_rtp_qdelay: 1.0,
                ..ScreamConfig::default()
            });
            let mut i = inputs();
            i.rtp_queue_delay = TimeDelta::millis(100);
            r.update(t(0), &i);
            r.update(t(200), &i);
            r.target().as_kbps()
        };
        // RFC 8298: + min(200, 300 / 2) kbit/s/s x 0.2 s = 30 kbit/s; with the rule the
        // throughput-steered update runs instead (300 kbit/s of throughput: it stays).
        assert!((run(None) - 330.0).abs() < 1e-9);
        assert!((run(Some(TimeDelta::millis(100))) - 300.0).abs() < 1e-9);
    }

    #[test]
    fn loss_and_ecn_cut_and_set_last_max() {
        let cfg = ScreamConfig {
            initial_rate: Bitrate::kbps(1000.0),
            ..ScreamConfig::default()
        };
        let mut r = MediaRateControl::new(cfg);
        let mut i = inputs();
        i.loss = true;
        r.update(t(0), &i);
        assert!((r.target().as_kbps() - 900.0).abs() < 1e-9);
        // last max 1000, target 900: scale = (4 * -0.1)^2 = 0.16 -> 0.2.
        assert!((r.scale() - 0.2).abs() < 1e-12);
        i.loss = false;
        i.ce = true; // BETA_ECN 0.8
        r.update(t(10), &i);
        assert!((r.target().as_kbps() - 720.0).abs() < 1e-9);
        assert!((r.scale() - 0.64).abs() < 1e-12); // (4 * -0.2)^2
    }

    #[test]
    fn congestion_avoidance_hand_computed() {
        let cfg = ScreamConfig {
            initial_rate: Bitrate::kbps(1000.0),
            ..ScreamConfig::default()
        };
        let mut r = MediaRateControl::new(cfg);
        let mut i = inputs();
        i.in_fast_increase = false;
        i.rate_transmit = Bitrate::kbps(800.0);
        i.rate_ack = Bitrate::kbps(700.0);
        i.qdelay_trend = 0.5;
        r.update(t(0), &i);
        r.update(t(200), &i);
        // Leaving fast increase sets last max = 1000. delta = 800 * (1 - 0.1 * 0.5)
        // - 0 - 1000 = -240 kbit/s -> 760 kbit/s.
        assert!(
            (r.target().as_kbps() - 760.0).abs() < 1e-9,
            "{}",
            r.target()
        );
        // 1500 B queued: 12 kbit; delta = 760 - 12 - 760 = -12 -> 748; 12 / 760 =
        // 15.8 ms, not above RTP_QDELAY_TH.
        i.qdelay_trend = 0.0;
        i.rate_transmit = Bitrate::kbps(760.0);
        i.rate_ack = Bitrate::kbps(760.0);
        i.rtp_queue_size = DataSize::bytes(1500);
        r.update(t(400), &i);
        assert!(
            (r.target().as_kbps() - 748.0).abs() < 1e-9,
            "{}",
            r.target()
        );
        // 3000 B: 24 kbit / 760 kbit/s = 31.6 ms > 20 ms: delta = 760 - 24 - 748 = -12
        // -> 736, then x 0.95 = 699.2.
        i.rtp_queue_size = DataSize::bytes(3000);
        r.update(t(600), &i);
        assert!(
            (r.target().as_kbps() - 699.2).abs() < 1e-9,
            "{}",
            r.target()
        );
        // An increase is scaled near last max (699.2 vs 1000: scale 1) and capped at
        // ramp * interval = 200 * 0.2 = 40 kbit/s.
        i.rtp_queue_size = DataSize::ZERO;
        i.rate_transmit = Bitrate::kbps(900.0);
        r.update(t(800), &i);
        assert!(
            (r.target().as_kbps() - 739.2).abs() < 1e-9,
            "{}",
            r.target()
        );
        // A discard when the RTP queue is too old.
        i.rtp_queue_delay = TimeDelta::millis(150);
        assert_eq!(r.update(t(1000), &i), RateAction::DiscardRtpQueue);
        assert_eq!(r.update(t(1200), &i), RateAction::None);
    }
}
