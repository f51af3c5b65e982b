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
    /// (time, bytes in flight) samples of the last `bytes_in_flight_window`.
    flight_hist: VecDeque<(Timestamp, DataSize)>,
    in_fast_increase: bool,
    last_loss_event: Option<Timestamp>,
    last_ecn_event: Option<Timestamp>,
    last_congestion: Option<Timestamp>,
    srtt: Option<TimeDelta>,
    qdelay: QueueDelay,
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
            cfg,
        }
    }

    pub fn cwnd(&self) -> DataSize {
        DataSize::bytes(self.cwnd.max(0.0).floor() as u64)
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

    fn note_flight(&mut self, now: Timestamp) {
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
            .iter()
            .map(|s| s.1)
            .max()
            .unwrap_or(DataSize::ZERO)
            .max(self.flight)
    }

    /// Section 4.1.2.5: a packet of `size` may be sent when it fits in the send window
    /// cwnd - bytes_in_flight, which may be exceeded by one MSS while the queuing delay
    /// is below its target (or when nothing is in flight). Without the MSS of slack a
    /// window of a few packets could never grow past window validation's
    /// 1.1 x max_bytes_in_flight.
    pub fn can_send(&self, size: DataSize) -> bool {
        let slack = if self.qdelay.qdelay() < self.cfg.qdelay_target {
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
    pub fn pacing_interval(&self, size: DataSize) -> TimeDelta {
        let Some(srtt) = self.srtt.filter(|s| s.is_positive()) else {
            return TimeDelta::ZERO;
        };
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
        let cfg = &self.cfg;
        self.qdelay.update(now, cfg);
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
        } else if acked > 0.0 && !fb.loss && !fb.ce {
            if self.in_fast_increase {
                if self.qdelay.trend() >= cfg.qdelay_trend_th {
                    self.in_fast_increase = false;
                } else if flight * cfg.fast_increase_use_factor + acked > self.cwnd {
                    self.cwnd += acked;
                }
            } else {
                let target = cfg.qdelay_target.as_secs_f64();
                let off_target = (target - self.qdelay.qdelay().as_secs_f64()) / target;
                let mss = cfg.mss.as_bytes() as f64;
                let delta = cfg.gain * off_target * acked * mss / self.cwnd.max(1.0);
                if off_target > 0.0 {
                    if flight * cfg.increase_use_factor + acked > self.cwnd {
                        self.cwnd += delta;
                    }
                } else {
                    self.cwnd += delta;
                    self.last_congestion = Some(now);
                }
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
        // Section 4.1.2.7: resume fast increase after a calm period.
        let last = *self.last_congestion.get_or_insert(now);
        if self.qdelay.trend() >= cfg.qdelay_trend_th {
            self.last_congestion = Some(now);
        } else if !self.in_fast_increase && now.saturating_since(last) > cfg.fast_increase_resume {
            self.in_fast_increase = true;
            self.last_congestion = Some(now);
        }
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
    fn pacing_interval() {
        let mut n = NetworkControl::new(ScreamConfig::default());
        assert_eq!(n.pacing_interval(DataSize::bytes(1000)), TimeDelta::ZERO);
        n.set_cwnd(DataSize::bytes(10_000));
        n.on_rtt(TimeDelta::millis(100));
        // 10 000 B / 0.1 s = 800 kbit/s * 1.25 = 1 Mbit/s: 1000 B = 8 ms.
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
