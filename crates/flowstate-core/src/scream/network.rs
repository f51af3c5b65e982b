//! SCReAM network congestion control (RFC 8298 section 4.1.2): a self-clocked window of
//! bytes in flight, grown quickly in fast increase (4.1.2.3, 4.1.2.7) and otherwise in
//! proportion to how far the queuing delay is below its target, reduced on loss
//! (BETA_LOSS), ECN-CE (BETA_ECN) and queuing delay above target, limited to a little
//! above the bytes actually in flight (window validation), and paced (4.1.2.6).

use super::config::ScreamConfig;
use super::queue_delay::QueueDelay;
use crate::units::{Bitrate, DataSize, TimeDelta, Timestamp};
use std::collections::VecDeque;

/// What one feedback report brought.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FeedbackSummary {
    /// bytes_newly_acked.
    pub newly_acked: DataSize,
    /// A packet was detected lost.
    pub loss: bool,
    /// A packet was reported ECN-CE marked.
    pub ce: bool,
}

/// The network congestion control.
#[derive(Debug, Clone)]
pub struct NetworkControl {
    cfg: ScreamConfig,
    /// cwnd in fractional bytes.
    cwnd: f64,
    flight: DataSize,
    /// (time, bytes in flight) samples of the last `bytes_in_flight_window`, decreasing.
    flight_hist: VecDeque<(Timestamp, DataSize)>,
    in_fast_increase: bool,
    last_loss_event: Option<Timestamp>,
    last_ecn_event: Option<Timestamp>,
    last_congestion: Option<Timestamp>,
    srtt: Option<TimeDelta>,
    qdelay: QueueDelay,
    /// qdelay_target, between QDELAY_TARGET_LO and QDELAY_TARGET_HI.
    qdelay_target: TimeDelta,
    /// qdelay / QDELAY_TARGET_LO every history interval, the last 200.
    qdelay_norm_hist: VecDeque<f64>,
    last_norm_sample: Option<Timestamp>,
    /// loss_event_rate: the smoothed fraction of RTTs with a loss.
    loss_event_rate: f64,
    loss_in_rtt: bool,
    last_rtt_tick: Option<Timestamp>,
    /// Window reductions by BETA_ECN so far.
    ecn_events: u64,
}

/// Length of the long qdelay_norm history (variance) and of its short tail (average),
/// section 4.1.2.3 `adjust_qdelay_target`.
const NORM_HIST_LONG: usize = 200;
const NORM_HIST_SHORT: usize = 50;

/// RFC 8298 `adjust_qdelay_target`: from the normalized queuing-delay history
/// (qdelay / QDELAY_TARGET_LO), `new_target = (avg(last 50) + sqrt(var(last 200))) *
/// QDELAY_TARGET_LO`; with loss_event_rate > 0.002 the target becomes 1.5 new_target,
/// with a low variance (< 0.2) new_target, otherwise it decays (halved toward a lower
/// new_target, else x 0.9); always within [QDELAY_TARGET_LO, QDELAY_TARGET_HI].
pub fn adjust_qdelay_target(
    target: TimeDelta,
    norm_hist: &[f64],
    loss_event_rate: f64,
    lo: TimeDelta,
    hi: TimeDelta,
) -> TimeDelta {
    if norm_hist.is_empty() {
        return target;
    }
    let n = norm_hist.len() as f64;
    let mean_all = norm_hist.iter().sum::<f64>() / n;
    let var = norm_hist
        .iter()
        .map(|x| (x - mean_all) * (x - mean_all))
        .sum::<f64>()
        / n;
    let tail = &norm_hist[norm_hist.len().saturating_sub(NORM_HIST_SHORT)..];
    let avg = tail.iter().sum::<f64>() / tail.len() as f64;
    let lo_s = lo.as_secs_f64();
    let new_target = (avg + var.sqrt()) * lo_s;
    let t = target.as_secs_f64();
    let next = if loss_event_rate > 0.002 {
        1.5 * new_target
    } else if var < 0.2 {
        new_target
    } else if new_target < lo_s {
        (t * 0.5).max(new_target)
    } else {
        t * 0.9
    };
    let next = if next.is_finite() { next } else { lo_s };
    TimeDelta::from_secs_f64(next.min(hi.as_secs_f64()).max(lo_s))
}

impl NetworkControl {
    pub fn new(cfg: ScreamConfig) -> Self {
        NetworkControl {
            cwnd: cfg.initial_cwnd.max(cfg.min_cwnd).as_bytes() as f64,
            flight: DataSize::ZERO,
            flight_hist: VecDeque::new(),
            in_fast_increase: true,
            last_loss_event: None,
            last_ecn_event: None,
            last_congestion: None,
            srtt: None,
            qdelay: QueueDelay::new(&cfg),
            qdelay_target: cfg.qdelay_target,
            qdelay_norm_hist: VecDeque::with_capacity(NORM_HIST_LONG),
            last_norm_sample: None,
            loss_event_rate: 0.0,
            ecn_events: 0,
            loss_in_rtt: false,
            last_rtt_tick: None,
            cfg,
        }
    }

    pub fn cwnd(&self) -> DataSize {
        DataSize::bytes(self.cwnd.max(0.0).floor() as u64)
    }
    /// How often an ECN-CE event reduced the window (BETA_ECN, once per RTT).
    pub fn ecn_events(&self) -> u64 {
        self.ecn_events
    }
    pub fn bytes_in_flight(&self) -> DataSize {
        self.flight
    }
    pub fn in_fast_increase(&self) -> bool {
        self.in_fast_increase
    }
    pub fn srtt(&self) -> Option<TimeDelta> {
        self.srtt
    }
    pub fn queue_delay(&self) -> &QueueDelay {
        &self.qdelay
    }
    pub fn queue_delay_mut(&mut self) -> &mut QueueDelay {
        &mut self.qdelay
    }
    /// The current qdelay_target.
    pub fn qdelay_target(&self) -> TimeDelta {
        self.qdelay_target
    }
    /// loss_event_rate.
    pub fn loss_event_rate(&self) -> f64 {
        self.loss_event_rate
    }

    /// The window's samples are kept as a monotonic queue (each older sample larger
    /// than every newer one), so the maximum is the front: O(1) amortized.
    fn note_flight(&mut self, now: Timestamp) {
        while self
            .flight_hist
            .back()
            .is_some_and(|&(_, b)| b <= self.flight)
        {
            self.flight_hist.pop_back();
        }
        self.flight_hist.push_back((now, self.flight));
        while let Some(&(t, _)) = self.flight_hist.front() {
            if now.saturating_since(t) > self.cfg.bytes_in_flight_window {
                self.flight_hist.pop_front();
            } else {
                break;
            }
        }
    }

    /// The largest bytes in flight of the last `bytes_in_flight_window`.
    pub fn max_bytes_in_flight(&self) -> DataSize {
        self.flight_hist
            .front()
            .map_or(DataSize::ZERO, |s| s.1)
            .max(self.flight)
    }

    /// Section 4.1.2.5 `calculate_send_window`: send_wnd = cwnd + MSS - bytes_in_flight
    /// while qdelay <= qdelay_target, else cwnd - bytes_in_flight; a packet of `size`
    /// may be sent when it fits (or when nothing is in flight).
    pub fn can_send(&self, size: DataSize) -> bool {
        let slack = if self.qdelay.qdelay() <= self.qdelay_target {
            self.cfg.mss.as_bytes() as f64
        } else {
            0.0
        };
        self.flight == DataSize::ZERO || (self.flight + size).as_bytes() as f64 <= self.cwnd + slack
    }

    pub fn on_sent(&mut self, now: Timestamp, size: DataSize) {
        self.flight += size;
        self.note_flight(now);
    }

    /// Bytes leave the flight (acked or lost).
    pub fn remove_from_flight(&mut self, size: DataSize) {
        self.flight -= size;
    }

    /// An RTT sample: s_rtt = 7/8 s_rtt + 1/8 rtt.
    pub fn on_rtt(&mut self, rtt: TimeDelta) {
        if rtt < TimeDelta::ZERO {
            return;
        }
        self.srtt = Some(match self.srtt {
            Some(s) => s * 0.875 + rtt * 0.125,
            None => rtt,
        });
    }

    /// Section 4.1.2.6: pacing_bitrate = max(RATE_PACE_MIN, cwnd * 8 / s_rtt) *
    /// PACKET_PACING_HEADROOM; t_pace = size * 8 / pacing_bitrate. Zero before the
    /// first RTT sample.
    ///
    /// With `pacing_min_qdelay_fraction` above zero (the reference code's 0.05,
    /// ScreamTx.cpp `ScreamTx::updateCwnd`) packets leave unpaced while
    /// qdelay_fraction_avg is at or below it.
    pub fn pacing_interval(&self, size: DataSize) -> TimeDelta {
        let Some(srtt) = self.srtt.filter(|s| s.is_positive()) else {
            return TimeDelta::ZERO;
        };
        let min_fraction = self.cfg.pacing_min_qdelay_fraction;
        if min_fraction > 0.0 && self.qdelay.fraction_avg() <= min_fraction {
            return TimeDelta::ZERO;
        }
        let rate = Bitrate::bps(self.cwnd * 8.0 / srtt.as_secs_f64()).max(self.cfg.rate_pace_min)
            * self.cfg.packet_pacing_headroom;
        (size / rate).min(TimeDelta::secs(1))
    }

    /// A loss or ECN reaction is allowed at most once per s_rtt.
    fn once_per_rtt(&self, last: Option<Timestamp>, now: Timestamp) -> bool {
        match (last, self.srtt) {
            (None, _) => true,
            (Some(t), Some(s)) => now.saturating_since(t) > s,
            (Some(t), None) => now > t,
        }
    }

    /// The window update after one feedback report (section 4.1.2.3), then window
    /// validation and the fast-increase resume rule (4.1.2.7):
    ///
    /// ```text
    /// loss event:  cwnd = max(MIN_CWND, BETA_LOSS * cwnd), fast increase off
    /// ECN-CE:      cwnd = max(MIN_CWND, BETA_ECN * cwnd), fast increase off
    /// fast increase: qdelay_trend >= QDELAY_TREND_TH ends it; else
    ///              cwnd += bytes_newly_acked (if the window is used)
    /// otherwise:   off_target = (qdelay_target - qdelay) / qdelay_target
    ///              cwnd += GAIN * off_target * bytes_newly_acked * MSS / cwnd
    ///              (increase only if the window is used)
    /// cwnd = min(cwnd, MAX_BYTES_IN_FLIGHT_HEAD_ROOM * max_bytes_in_flight)
    /// cwnd = max(cwnd, MIN_CWND)
    /// ```
    pub fn on_feedback(&mut self, now: Timestamp, fb: FeedbackSummary) {
        self.update_loss_event_rate(now, fb.loss);
        if self.cfg.competing_flows_compensation {
            self.compensate_competing_flows(now);
        }
        let cfg = &self.cfg;
        self.qdelay.update(now, cfg, self.qdelay_target);
        let min_cwnd = cfg.min_cwnd.as_bytes() as f64;
        let acked = fb.newly_acked.as_bytes() as f64;
        let flight = self.flight.as_bytes() as f64;
        if fb.loss && self.once_per_rtt(self.last_loss_event, now) {
            self.cwnd = (cfg.beta_loss * self.cwnd).max(min_cwnd);
            self.in_fast_increase = false;
            self.last_loss_event = Some(now);
            self.last_congestion = Some(now);
        } else if fb.ce && self.once_per_rtt(self.last_ecn_event, now) {
            self.cwnd = (cfg.beta_ecn * self.cwnd).max(min_cwnd);
            self.in_fast_increase = false;
            self.last_ecn_event = Some(now);
            self.last_congestion = Some(now);
            self.ecn_events += 1;
        } else if acked > 0.0 && !fb.loss && !fb.ce {
            if self.in_fast_increase {
                if self.qdelay.trend() >= cfg.qdelay_trend_th {
                    self.in_fast_increase = false;
                } else if flight * cfg.fast_increase_use_factor + acked > self.cwnd {
                    self.cwnd += acked;
                }
            } else {
                let target = self.qdelay_target.as_secs_f64();
                let off_target = (target - self.qdelay.qdelay().as_secs_f64()) / target;
                let mss = cfg.mss.as_bytes() as f64;
                // A decrease uses GAIN x gain_down_factor (1 in RFC 8298 4.1.2.3; the
                // reference code's gain down is 2).
                let gain = if off_target < 0.0 {
                    cfg.gain * cfg.gain_down_factor
                } else {
                    cfg.gain
                };
                let mut delta = gain * off_target * acked * mss / self.cwnd.max(1.0);
                // `window_reduction_cap` (1 in RFC 8298; the reference code takes at most
                // a quarter window, ScreamTx.cpp `ScreamTx::updateCwnd`).
                if cfg.window_reduction_cap < 1.0 {
                    delta = delta.max(-cfg.window_reduction_cap * self.cwnd);
                }
                // No increase while the window is underused (slack of the acked bytes
                // for sparse feedback).
                if off_target > 0.0 && flight * cfg.increase_use_factor + acked <= self.cwnd {
                    delta = 0.0;
                }
                self.cwnd += delta;
            }
        }
        // Window validation: not much above what is actually in flight.
        let max_flight = self.max_bytes_in_flight().as_bytes() as f64;
        let cap = cfg.max_bytes_in_flight_head_room * max_flight;
        if cap > min_cwnd {
            self.cwnd = self.cwnd.min(cap);
        }
        if !self.cwnd.is_finite() {
            self.cwnd = min_cwnd;
        }
        self.cwnd = self.cwnd.max(min_cwnd);
        // Section 4.1.2.7: resume fast increase after qdelay_trend stayed below
        // QDELAY_TREND_LO for T_RESUME_FAST_INCREASE.
        let last = *self.last_congestion.get_or_insert(now);
        if self.qdelay.trend() >= cfg.qdelay_trend_lo {
            self.last_congestion = Some(now);
        } else if !self.in_fast_increase && now.saturating_since(last) > cfg.fast_increase_resume {
            self.in_fast_increase = true;
            self.last_congestion = Some(now);
        }
    }

    /// loss_event_rate, once per s_rtt: 0.99 x rate + 0.01 after an RTT with a loss,
    /// else 0.99 x rate (ref).
    fn update_loss_event_rate(&mut self, now: Timestamp, loss: bool) {
        self.loss_in_rtt |= loss;
        let rtt = self.srtt.unwrap_or(TimeDelta::millis(100));
        let last = *self.last_rtt_tick.get_or_insert(now);
        if now.saturating_since(last) > rtt {
            self.loss_event_rate =
                0.99 * self.loss_event_rate + if self.loss_in_rtt { 0.01 } else { 0.0 };
            self.loss_in_rtt = false;
            self.last_rtt_tick = Some(now);
        }
    }

    /// Every `qdelay_hist_interval`: one qdelay_norm sample, then
    /// [`adjust_qdelay_target`].
    fn compensate_competing_flows(&mut self, now: Timestamp) {
        let last = *self.last_norm_sample.get_or_insert(now);
        if now.saturating_since(last) < self.cfg.qdelay_hist_interval {
            return;
        }
        self.last_norm_sample = Some(now);
        let norm = self.qdelay.qdelay().as_secs_f64() / self.cfg.qdelay_target.as_secs_f64();
        if self.qdelay_norm_hist.len() == NORM_HIST_LONG {
            self.qdelay_norm_hist.pop_front();
        }
        self.qdelay_norm_hist.push_back(norm);
        let target = self.qdelay_target;
        self.qdelay_target = adjust_qdelay_target(
            target,
            self.qdelay_norm_hist.make_contiguous(),
            self.loss_event_rate,
            self.cfg.qdelay_target,
            self.cfg.qdelay_target_hi,
        );
    }

    /// Coupling: set the window directly (floored at MIN_CWND).
    pub fn set_cwnd(&mut self, cwnd: DataSize) {
        self.cwnd = cwnd.max(self.cfg.min_cwnd).as_bytes() as f64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fb(acked: u64) -> FeedbackSummary {
        FeedbackSummary {
            newly_acked: DataSize::bytes(acked),
            ..Default::default()
        }
    }

    fn t(ms: u64) -> Timestamp {
        Timestamp::from_millis(ms)
    }

    #[test]
    fn fast_increase_adds_acked_bytes_while_the_window_is_used() {
        let mut n = NetworkControl::new(ScreamConfig::default());
        n.on_sent(t(0), DataSize::bytes(4000));
        n.queue_delay_mut().on_owd(t(10), TimeDelta::millis(30));
        n.remove_from_flight(DataSize::bytes(1000));
        // flight 3000 * 1.5 + 1000 > 5000: cwnd = 5000 + 1000 = 6000 (cap 1.1 * 4000 =
        // 4400 would bind: the validation cap applies after).
        n.on_feedback(t(10), fb(1000));
        assert_eq!(n.cwnd(), DataSize::bytes(4400));
        assert!(n.in_fast_increase());
    }

    #[test]
    fn delay_based_update_hand_computed() {
        let cfg = ScreamConfig {
            max_bytes_in_flight_head_room: 100.0,
            ..ScreamConfig::default()
        };
        let mut n = NetworkControl::new(cfg);
        n.in_fast_increase = false;
        n.on_sent(t(0), DataSize::bytes(5000));
        // Base 30 ms, then qdelay 50 ms: off_target 0.5,
        // cwnd = 5000 + 0.5 * 1000 * 1000 / 5000 = 5100.
        n.queue_delay_mut().on_owd(t(10), TimeDelta::millis(30));
        n.queue_delay_mut().on_owd(t(10), TimeDelta::millis(80));
        n.on_feedback(t(10), fb(1000));
        assert_eq!(n.cwnd(), DataSize::bytes(5100));
        // qdelay 200 ms: off_target -1: 5100 - 1000 * 1000 / 5100 = 4903.9.
        n.queue_delay_mut().on_owd(t(20), TimeDelta::millis(230));
        n.on_feedback(t(20), fb(1000));
        assert_eq!(n.cwnd(), DataSize::bytes(4903));
    }

    #[test]
    fn gain_down_factor_scales_only_the_decrease() {
        let cfg = ScreamConfig {
            max_bytes_in_flight_head_room: 100.0,
            gain_down_factor: 2.0,
            ..ScreamConfig::default()
        };
        let mut n = NetworkControl::new(cfg);
        n.in_fast_increase = false;
        n.on_sent(t(0), DataSize::bytes(5000));
        // The increase as with one GAIN: 5000 + 0.5 * 1000 * 1000 / 5000 = 5100.
        n.queue_delay_mut().on_owd(t(10), TimeDelta::millis(30));
        n.queue_delay_mut().on_owd(t(10), TimeDelta::millis(80));
        n.on_feedback(t(10), fb(1000));
        assert_eq!(n.cwnd(), DataSize::bytes(5100));
        // The decrease twice as large: 5100 - 2 * 1000 * 1000 / 5100 = 4707.8.
        n.queue_delay_mut().on_owd(t(20), TimeDelta::millis(230));
        n.on_feedback(t(20), fb(1000));
        assert_eq!(n.cwnd(), DataSize::bytes(4707));
    }

    #[test]
    fn window_reduction_cap_limits_one_delay_based_reduction() {
        let run = |cap: f64| {
            let cfg = ScreamConfig {
                max_bytes_in_flight_head_room: 100.0,
                gain_down_factor: 2.0,
                window_reduction_cap: cap,
                ..ScreamConfig::default()
            };
            let mut n = NetworkControl::new(cfg);
            n.in_fast_increase = false;
            n.set_cwnd(DataSize::bytes(8000));
            n.on_sent(t(0), DataSize::bytes(8000));
            // qdelay 900 ms against 100 ms: off_target -8, a reduction of
            // 2 * 8 * 8000 * 1000 / 8000 = 16000 B, more than the window.
            n.queue_delay_mut().on_owd(t(10), TimeDelta::millis(10));
            n.queue_delay_mut().on_owd(t(10), TimeDelta::millis(910));
            n.on_feedback(t(10), fb(8000));
            n.cwnd()
        };
        // Uncapped: down to MIN_CWND; capped at a quarter window: 8000 - 2000.
        assert_eq!(run(1.0), DataSize::bytes(3000));
        assert_eq!(run(0.25), DataSize::bytes(6000));
    }

    #[test]
    fn pacing_waits_for_the_delay_fraction_when_asked() {
        let mut cfg = ScreamConfig::default();
        let mut n = NetworkControl::new(cfg.clone());
        n.on_rtt(TimeDelta::millis(100));
        let size = DataSize::bytes(1000);
        assert!(n.pacing_interval(size) > TimeDelta::ZERO);
        cfg.pacing_min_qdelay_fraction = 0.05;
        let mut n = NetworkControl::new(cfg.clone());
        n.on_rtt(TimeDelta::millis(100));
        // qdelay_fraction_avg 0: unpaced.
        assert_eq!(n.pacing_interval(size), TimeDelta::ZERO);
        // 100 ms of queue for a while: qdelay_fraction_avg above 0.05, paced again.
        n.queue_delay_mut().on_owd(t(0), TimeDelta::millis(10));
        n.queue_delay_mut().on_owd(t(1), TimeDelta::millis(110));
        for i in 0..5 {
            n.queue_delay_mut()
                .update(t(1 + i), &cfg, TimeDelta::millis(100));
        }
        assert!(n.queue_delay().fraction_avg() > 0.05);
        assert!(n.pacing_interval(size) > TimeDelta::ZERO);
    }

    #[test]
    fn loss_and_ecn_once_per_rtt() {
        let mut n = NetworkControl::new(ScreamConfig::default());
        n.set_cwnd(DataSize::bytes(10_000));
        n.on_sent(t(0), DataSize::bytes(10_000));
        n.on_rtt(TimeDelta::millis(100));
        let loss = FeedbackSummary {
            loss: true,
            ..Default::default()
        };
        n.on_feedback(t(10), loss);
        assert_eq!(n.cwnd(), DataSize::bytes(8000));
        assert!(!n.in_fast_increase());
        n.on_feedback(t(50), loss); // within one s_rtt: ignored
        assert_eq!(n.cwnd(), DataSize::bytes(8000));
        n.on_feedback(t(200), loss);
        assert_eq!(n.cwnd(), DataSize::bytes(6400));
        let ce = FeedbackSummary {
            ce: true,
            ..Default::default()
        };
        n.on_feedback(t(210), ce);
        assert_eq!(n.cwnd(), DataSize::bytes(5120));
        for _ in 0..20 {
            n.on_feedback(t(1000), loss);
        }
        n.on_feedback(t(2000), loss);
        n.on_feedback(t(3000), loss);
        n.on_feedback(t(4000), loss);
        assert_eq!(n.cwnd(), DataSize::bytes(3000)); // MIN_CWND
    }

    #[test]
    fn send_window_has_one_mss_of_slack_below_the_delay_target() {
        let mut n = NetworkControl::new(ScreamConfig::default());
        n.set_cwnd(DataSize::bytes(5000));
        n.on_sent(t(0), DataSize::bytes(4800));
        // qdelay 0 < target: 4800 + 1200 <= 5000 + 1000.
        assert!(n.can_send(DataSize::bytes(1200)));
        assert!(!n.can_send(DataSize::bytes(1300)));
        n.queue_delay_mut().on_owd(t(1), TimeDelta::millis(10));
        n.queue_delay_mut().on_owd(t(2), TimeDelta::millis(150)); // qdelay 140 ms
        assert!(!n.can_send(DataSize::bytes(1200)));
        assert!(n.can_send(DataSize::bytes(200)));
    }

    #[test]
    fn qdelay_target_adjustment_hand_computed() {
        let (lo, hi) = (TimeDelta::millis(100), TimeDelta::millis(400));
        let adj = |t: i64, h: &[f64], loss: f64| {
            adjust_qdelay_target(TimeDelta::millis(t), h, loss, lo, hi)
        };
        // Steady normalized delay 2 (200 ms), no variance: new_target = 2 * 0.1 s.
        assert_eq!(adj(100, &[2.0; 200], 0.0), TimeDelta::millis(200));
        // With losses (loss_event_rate > 0.002): 1.5 * new_target.
        assert_eq!(adj(100, &[2.0; 200], 0.01), TimeDelta::millis(300));
        // Varying delay (0, 2, 0, 2, ...: mean 1, variance 1): decay by 0.9.
        let alternating: Vec<f64> = (0..200).map(|i| f64::from(i % 2) * 2.0).collect();
        assert_eq!(adj(300, &alternating, 0.0), TimeDelta::millis(270));
        // Clamped to [LO, HI].
        assert_eq!(adj(300, &[0.0; 200], 0.0), lo);
        assert_eq!(adj(100, &[10.0; 200], 0.0), hi);
    }

    #[test]
    fn max_bytes_in_flight_over_the_window() {
        let mut n = NetworkControl::new(ScreamConfig::default());
        n.on_sent(t(0), DataSize::bytes(1000));
        n.on_sent(t(10), DataSize::bytes(2000)); // 3000 in flight
        n.remove_from_flight(DataSize::bytes(2500));
        n.on_sent(t(20), DataSize::bytes(100)); // 600
        assert_eq!(n.max_bytes_in_flight(), DataSize::bytes(3000));
        n.on_sent(t(4000), DataSize::bytes(1000)); // 1600
        assert_eq!(n.max_bytes_in_flight(), DataSize::bytes(3000));
        // 5 s after the 3000-byte sample it leaves the window.
        n.on_sent(t(5011), DataSize::bytes(0));
        assert_eq!(n.max_bytes_in_flight(), DataSize::bytes(1600));
    }

    #[test]
    fn pacing_interval() {
        let mut n = NetworkControl::new(ScreamConfig::default());
        assert_eq!(n.pacing_interval(DataSize::bytes(1000)), TimeDelta::ZERO);
        n.set_cwnd(DataSize::bytes(10_000));
        n.on_rtt(TimeDelta::millis(100));
        // 10 000 B / 0.1 s = 800 kbit/s: 1000 B = 10 ms; with a headroom of 1.25, 8 ms.
        assert_eq!(
            n.pacing_interval(DataSize::bytes(1000)),
            TimeDelta::millis(10)
        );
        n.cfg.packet_pacing_headroom = 1.25;
        assert_eq!(
            n.pacing_interval(DataSize::bytes(1000)),
            TimeDelta::millis(8)
        );
    }

    #[test]
    fn fast_increase_resumes_after_a_calm_period() {
        let mut n = NetworkControl::new(ScreamConfig::default());
        n.on_rtt(TimeDelta::millis(50));
        n.on_feedback(
            t(100),
            FeedbackSummary {
                loss: true,
                ..Default::default()
            },
        );
        assert!(!n.in_fast_increase());
        n.on_feedback(t(5000), fb(0));
        assert!(!n.in_fast_increase());
        n.on_feedback(t(5200), fb(0));
        assert!(n.in_fast_increase());
    }
}
