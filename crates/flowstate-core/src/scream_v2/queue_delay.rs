//! The delay-based part (draft 4.2.1.4; libwebrtc `delay_based_congestion_control.cc`):
//! the smoothed RTT, the base one-way delay (RFC 6817: one minimum per interval over a
//! history), the queue delay per feedback (its smallest one-way delay minus the base),
//! qdelay_avg (slow attack, fast decay) against qdelay_target, the virtual CE
//! fraction l4s_alpha_v, and two averages of delay variation that damp the window's
//! growth. Also "queue not drained": the per-feedback minimum queue delay above a
//! threshold for too long (draft 4.5.1's clock-drift remedy, libwebrtc's variant).

use super::feedback::FeedbackSummary;
use super::ScreamV2Config;
use crate::units::{TimeDelta, Timestamp};
use std::collections::VecDeque;

#[derive(Debug, Clone)]
pub struct QueueDelay {
    cfg: ScreamV2Config,
    /// One base-delay minimum per interval, newest last.
    base_history: VecDeque<TimeDelta>,
    next_base: TimeDelta,
    last_base_update: Option<Timestamp>,
    above_drain_threshold_since: Option<Timestamp>,
    srtt: TimeDelta,
    last_sample: Option<TimeDelta>,
    /// qdelay_avg; `None` until the first sample (libwebrtc: +infinity).
    avg: Option<TimeDelta>,
    min_avg: TimeDelta,
    latency_diff_avg: TimeDelta,
}

impl QueueDelay {
    pub fn new(cfg: &ScreamV2Config) -> Self {
        let mut q = QueueDelay {
            cfg: cfg.clone(),
            base_history: VecDeque::new(),
            next_base: TimeDelta::MAX,
            last_base_update: None,
            above_drain_threshold_since: None,
            srtt: TimeDelta::ZERO,
            last_sample: None,
            avg: None,
            min_avg: TimeDelta::ZERO,
            latency_diff_avg: TimeDelta::ZERO,
        };
        q.reset();
        q
    }

    /// Forgets the base delay and the averages (libwebrtc `ResetQueueDelay`).
    pub fn reset(&mut self) {
        self.last_base_update = None;
        self.next_base = TimeDelta::MAX;
        self.base_history.clear();
        self.above_drain_threshold_since = None;
        self.avg = None;
        self.last_sample = None;
        self.min_avg = TimeDelta::ZERO;
        self.latency_diff_avg = TimeDelta::ZERO;
    }

    /// The smoothed RTT (zero before the first feedback).
    pub fn srtt(&self) -> TimeDelta {
        self.srtt
    }
    /// qdelay_avg (zero before the first feedback).
    pub fn qdelay_avg(&self) -> TimeDelta {
        self.avg.unwrap_or(TimeDelta::ZERO)
    }
    pub fn qdelay_min_avg(&self) -> TimeDelta {
        self.min_avg
    }

    fn base_delay(&self) -> TimeDelta {
        self.base_history
            .iter()
            .copied()
            .fold(self.next_base, TimeDelta::min)
    }

    pub fn on_feedback(&mut self, fb: &FeedbackSummary, application_limited: bool) {
        self.next_base = self.next_base.min(fb.min_one_way_delay);
        // s_rtt = g * sample + (1 - g) * s_rtt, the first sample as is.
        if self.srtt == TimeDelta::ZERO {
            self.srtt = fb.rtt_sample;
        } else {
            let g = if application_limited {
                self.cfg.srtt_avg_in_alr_g
            } else {
                self.cfg.srtt_avg_g
            };
            self.srtt = fb.rtt_sample * g + self.srtt * (1.0 - g);
        }
        // qdelay = min one-way delay of the feedback - base delay (RFC 6817).
        let qdelay = (fb.min_one_way_delay - self.base_delay()).max(TimeDelta::ZERO);
        if qdelay > self.cfg.qdelay_drain_threshold {
            self.above_drain_threshold_since.get_or_insert(fb.now);
        } else {
            self.above_drain_threshold_since = None;
        }
        // The average takes the smaller of this and the previous sample: one high
        // feedback alone does not raise it.
        let sample = self.last_sample.map_or(qdelay, |l| l.min(qdelay));
        self.avg = Some(qdelay_avg_step(self.avg, sample, self.cfg.qdelay_avg_g));
        self.last_sample = Some(qdelay);
        let g = self.cfg.delay_min_and_latency_diff_avg_g;
        // qdelay_min_avg = (1 - g) * avg + g * min(qdelay, 2 * QDelayMinThreshold)
        self.min_avg = self.min_avg * (1.0 - g) + qdelay.min(self.cfg.qdelay_min_threshold * 2) * g;
        let spread = (fb.max_one_way_delay - fb.min_one_way_delay).max(TimeDelta::ZERO);
        self.latency_diff_avg =
            self.latency_diff_avg * (1.0 - g) + spread.min(self.cfg.latency_diff_threshold * 2) * g;
        let due = self.last_base_update.map_or(true, |t| {
            fb.now.saturating_since(t) >= self.cfg.base_delay_interval
        });
        if due {
            self.base_history.push_back(self.next_base);
            while self.base_history.len() > self.cfg.base_delay_history {
                self.base_history.pop_front();
            }
            self.last_base_update = Some(fb.now);
            self.next_base = TimeDelta::MAX;
        }
    }

    /// Virtual CE: qdelay_avg above qdelay_target / 2 (draft 4.2.2.1).
    pub fn queue_delay_detected(&self) -> bool {
        self.avg.is_some_and(|a| a > self.cfg.qdelay_target / 2)
    }

    /// Whether the queue drained within QDelayDrainPeriod.
    pub fn drained_in_time(&self, now: Timestamp) -> bool {
        self.above_drain_threshold_since.map_or(true, |t| {
            now.saturating_since(t) < self.cfg.qdelay_drain_period
        })
    }

    /// l4s_alpha_v = clamp((qdelay_avg - target/2) / (target/2), 0, 1) (draft 4.2.2.1).
    pub fn l4s_alpha_v(&self) -> f64 {
        let half = self.cfg.qdelay_target / 2;
        let v = (self.qdelay_avg() - half).as_secs_f64() / half.as_secs_f64();
        v.clamp(0.0, 1.0)
    }

    /// clamp(0.1 + 1.2 (T - qdelay_min_avg) / T, floor, 1): 1 at T/4 and below, 0.1 at
    /// T (libwebrtc `ref_window_scale_factor_due_to_avg_min_delay`; the draft's
    /// ref_wnd_delay_scale). `allow_zero` lowers the floor from 0.1 to 0.
    pub fn scale_due_to_min_delay(&self, allow_zero: bool) -> f64 {
        scale_factor(self.min_avg, self.cfg.qdelay_min_threshold, allow_zero)
    }

    /// The same over the per-feedback spread of one-way delays.
    pub fn scale_due_to_latency_difference(&self) -> f64 {
        scale_factor(
            self.latency_diff_avg,
            self.cfg.latency_diff_threshold,
            false,
        )
    }
}

/// qdelay_avg = sample if sample < qdelay_avg, else G * sample + (1 - G) * qdelay_avg
/// (draft 4.2.1.4).
pub fn qdelay_avg_step(avg: Option<TimeDelta>, sample: TimeDelta, g: f64) -> TimeDelta {
    match avg {
        Some(a) if sample >= a => sample * g + a * (1.0 - g),
        _ => sample,
    }
}

fn scale_factor(value: TimeDelta, norm: TimeDelta, allow_zero: bool) -> f64 {
    let n = norm.as_secs_f64();
    let s = 0.1 + 1.2 * (n - value.as_secs_f64()) / n;
    s.clamp(if allow_zero { 0.0 } else { 0.1 }, 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::DataSize;

    fn fb(ms: u64, owd_ms: i64, spread_ms: i64) -> FeedbackSummary {
        FeedbackSummary {
            now: Timestamp::from_millis(ms),
            data_in_flight: DataSize::ZERO,
            received: 10,
            ce_marked: 0,
            lost: 0,
            recovered: 0,
            acked_not_marked: DataSize::bytes(10_000),
            min_one_way_delay: TimeDelta::millis(owd_ms),
            max_one_way_delay: TimeDelta::millis(owd_ms + spread_ms),
            hold_time: TimeDelta::ZERO,
            rtt_sample: TimeDelta::millis(2 * owd_ms),
        }
    }

    #[test]
    fn qdelay_avg_is_slow_attack_fast_decay() {
        // Up: 1/4 * 40 + 3/4 * 0 = 10 ms.
        let a = qdelay_avg_step(Some(TimeDelta::ZERO), TimeDelta::millis(40), 0.25);
        assert_eq!(a, TimeDelta::millis(10));
        // Down: straight to the sample.
        let b = qdelay_avg_step(Some(TimeDelta::millis(40)), TimeDelta::millis(5), 0.25);
        assert_eq!(b, TimeDelta::millis(5));
    }

    #[test]
    fn l4s_alpha_v_is_linear_between_half_and_full_target() {
        let cfg = ScreamV2Config::default();
        let mut q = QueueDelay::new(&cfg);
        q.avg = Some(TimeDelta::millis(30));
        assert_eq!(q.l4s_alpha_v(), 0.0);
        assert!(!q.queue_delay_detected());
        q.avg = Some(TimeDelta::millis(45));
        assert!((q.l4s_alpha_v() - 0.5).abs() < 1e-9);
        assert!(q.queue_delay_detected());
        q.avg = Some(TimeDelta::millis(90));
        assert_eq!(q.l4s_alpha_v(), 1.0);
    }

    #[test]
    fn scale_factor_is_one_at_a_quarter_and_a_tenth_at_the_threshold() {
        let t = TimeDelta::millis(10);
        // 0.1 + 1.2 * (10 - 2.5) / 10 = 1.0
        assert!((scale_factor(TimeDelta::from_micros(2500), t, false) - 1.0).abs() < 1e-9);
        assert!((scale_factor(t, t, false) - 0.1).abs() < 1e-9);
        assert_eq!(scale_factor(t * 2, t, false), 0.1);
        assert_eq!(scale_factor(t * 2, t, true), 0.0);
    }

    #[test]
    fn queue_delay_is_the_minimum_one_way_delay_above_the_base() {
        let mut q = QueueDelay::new(&ScreamV2Config::default());
        q.on_feedback(&fb(0, 25, 0), false);
        assert_eq!(q.qdelay_avg(), TimeDelta::ZERO);
        assert_eq!(q.srtt(), TimeDelta::millis(50));
        // Two feedbacks 20 ms above the base: the first is held back by the
        // min-of-two rule, the second enters the slow-attack average.
        q.on_feedback(&fb(25, 45, 0), false);
        assert_eq!(q.qdelay_avg(), TimeDelta::ZERO);
        q.on_feedback(&fb(50, 45, 0), false);
        assert_eq!(q.qdelay_avg(), TimeDelta::millis(5));
        // s_rtt = 1/8 * 90 + 7/8 * s_rtt
        assert!(q.srtt() > TimeDelta::millis(50));
    }

    #[test]
    fn an_undrained_queue_is_noticed_after_the_drain_period() {
        let mut q = QueueDelay::new(&ScreamV2Config::default());
        q.on_feedback(&fb(0, 25, 0), false);
        for s in 1..=21 {
            q.on_feedback(&fb(s * 1000, 40, 0), false);
        }
        assert!(!q.drained_in_time(Timestamp::from_secs(21)));
        q.on_feedback(&fb(22_000, 25, 0), false);
        assert!(q.drained_in_time(Timestamp::from_secs(22)));
    }
}
