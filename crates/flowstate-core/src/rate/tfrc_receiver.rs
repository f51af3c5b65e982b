//! TFRC receiver (RFC 5348, section 6): measure the receive rate `X_recv` and the loss
//! event rate `p`, and decide when to send feedback.
//!
//! - 6.1 on a data packet: add it to the loss history; if a new loss event starts
//!   (p may have increased) send feedback at once ("expedited feedback").
//! - 6.2 feedback timer: every `R_m` (the RTT the sender put in its most recent data
//!   packet) send feedback if data arrived since the last one; it carries the timestamp
//!   of the last data packet (`t_recvdata`), the time it was held (`t_delay`), `X_recv`
//!   and `p`. If nothing arrived the timer is disarmed until the next data packet
//!   (the RFC restarts it; the effect is the same: no feedback without data).
//! - 6.3 the first data packet triggers immediate feedback.
//! - 6.3.1 first loss event: the interval before it is set to `1/p` for the `p` at
//!   which the equation gives `X_recv` (within 5 %).
//!
//! `X_recv` is measured over `max(time since last feedback, R_m)`, so an expedited
//! feedback right after a regular one still reports a rate over a full RTT (RFC 5348,
//! 6.2 asks for the rate "since the last feedback"; the RTT floor is our named choice,
//! [`TfrcReceiverConfig::x_recv_min_window_rtts`]).

use crate::rate::loss_history::{LossHistory, LossHistoryConfig};
use crate::rate::tfrc::Feedback;
use crate::rate::tfrc_equation::{loss_rate_for_throughput, EquationParams};
use crate::units::{Bitrate, DataSize, TimeDelta, Timestamp};
use std::collections::VecDeque;

/// TFRC receiver constants.
#[derive(Debug, Clone, PartialEq)]
pub struct TfrcReceiverConfig {
    pub loss_history: LossHistoryConfig,
    /// RTT used before the sender reports one (feedback period and loss-event grouping).
    pub default_rtt: TimeDelta,
    /// Equation parameters for 6.3.1 (must match the sender's).
    pub equation: EquationParams,
    /// 6.3.1: "within 5%".
    pub initial_p_tolerance: f64,
    /// `X_recv` window floor in RTTs (1.0; 0.0 = exactly "since the last feedback").
    pub x_recv_min_window_rtts: f64,
    /// Arrival records kept for `X_recv` (bounds memory).
    pub max_arrival_log: usize,
}

impl Default for TfrcReceiverConfig {
    fn default() -> Self {
        TfrcReceiverConfig {
            loss_history: LossHistoryConfig::default(),
            default_rtt: TimeDelta::millis(500),
            equation: EquationParams::default(),
            initial_p_tolerance: 0.05,
            x_recv_min_window_rtts: 1.0,
            max_arrival_log: 100_000,
        }
    }
}

/// The receiver's state.
#[derive(Debug, Clone)]
pub struct TfrcReceiverState {
    cfg: TfrcReceiverConfig,
    history: LossHistory,
    /// The sender's RTT from the latest data packet (`R_m`).
    rtt: Option<TimeDelta>,
    /// (arrival, size) of recent packets.
    arrivals: VecDeque<(Timestamp, u64)>,
    last_feedback: Option<Timestamp>,
    /// (sender timestamp, arrival) of the latest data packet.
    last_data: Option<(Timestamp, Timestamp)>,
    data_since_feedback: bool,
    feedback_due: bool,
    feedback_timer: Option<Timestamp>,
    max_segment: u64,
    bytes_received: u64,
    packets_received: u64,
    ce_marks: u64,
    marked_events: u64,
}

impl TfrcReceiverState {
    pub fn new(cfg: TfrcReceiverConfig) -> Self {
        let history = LossHistory::new(cfg.loss_history.clone());
        TfrcReceiverState {
            cfg,
            history,
            rtt: None,
            arrivals: VecDeque::new(),
            last_feedback: None,
            last_data: None,
            data_since_feedback: false,
            feedback_due: false,
            feedback_timer: None,
            max_segment: 0,
            bytes_received: 0,
            packets_received: 0,
            ce_marks: 0,
            marked_events: 0,
        }
    }

    fn r_m(&self) -> TimeDelta {
        self.rtt
            .filter(|r| r.is_positive())
            .unwrap_or(self.cfg.default_rtt)
            .max(TimeDelta::from_micros(1))
    }

    pub fn history(&self) -> &LossHistory {
        &self.history
    }

    pub fn loss_event_rate(&self) -> f64 {
        self.history.loss_event_rate()
    }

    pub fn bytes_received(&self) -> u64 {
        self.bytes_received
    }

    pub fn packets_received(&self) -> u64 {
        self.packets_received
    }

    /// Packets that arrived CE-marked.
    pub fn ce_marks(&self) -> u64 {
        self.ce_marks
    }

    /// Loss events a CE mark started (RFC 5348, 5.2): TFRC's answer to marks.
    pub fn marked_events(&self) -> u64 {
        self.marked_events
    }

    /// 6.1: a data packet arrived.
    pub fn on_data(
        &mut self,
        now: Timestamp,
        seq: u64,
        timestamp: Timestamp,
        rtt: Option<TimeDelta>,
        size: DataSize,
    ) {
        self.on_data_ecn(now, seq, timestamp, rtt, size, false);
    }

    /// [`TfrcReceiverState::on_data`] for a packet that arrived CE-marked (`ce`) or
    /// not: a marked packet counts in the loss event rate as a lost one (RFC 5348, 5.1).
    pub fn on_data_ecn(
        &mut self,
        now: Timestamp,
        seq: u64,
        timestamp: Timestamp,
        rtt: Option<TimeDelta>,
        size: DataSize,
        ce: bool,
    ) {
        if ce {
            self.ce_marks = self.ce_marks.saturating_add(1);
        }
        if let Some(r) = rtt.filter(|r| r.is_positive()) {
            self.rtt = Some(r);
        }
        self.bytes_received = self.bytes_received.saturating_add(size.as_bytes());
        self.packets_received = self.packets_received.saturating_add(1);
        self.max_segment = self.max_segment.max(size.as_bytes());
        self.arrivals.push_back((now, size.as_bytes()));
        while self.arrivals.len() > self.cfg.max_arrival_log.max(1) {
            self.arrivals.pop_front();
        }
        self.last_data = Some((timestamp, now));
        self.data_since_feedback = true;
        let r_m = self.r_m();
        let upd = self.history.on_packet_ecn(seq, now, r_m, ce);
        self.marked_events = self.marked_events.saturating_add(upd.marked_events);
        if upd.first_loss_event {
            // 6.3.1: seed the interval before the first loss with 1/p(X_recv).
            let x_target = self.x_recv_bytes(now);
            let s = self.max_segment.max(1) as f64;
            let p = loss_rate_for_throughput(
                s,
                r_m.as_secs_f64(),
                x_target,
                self.cfg.equation,
                self.cfg.initial_p_tolerance,
            );
            self.history.seed_first_interval(1.0 / p);
        }
        if self.last_feedback.is_none() || upd.new_loss_event {
            // 6.3: first packet; 6.1: new loss event -> expedited feedback.
            self.feedback_due = true;
        }
        if self.feedback_timer.is_none() {
            self.feedback_timer = Some(now + r_m);
        }
    }

    /// Bytes per second received over `max(now - last_feedback, k * R_m)`.
    fn x_recv_bytes(&self, now: Timestamp) -> f64 {
        let floor = self.r_m() * self.cfg.x_recv_min_window_rtts.clamp(0.0, 1e6);
        let since_fb = match self.last_feedback {
            Some(t) => now.saturating_since(t),
            None => self
                .arrivals
                .front()
                .map(|a| now.saturating_since(a.0))
                .unwrap_or(TimeDelta::ZERO),
        };
        let window = since_fb.max(floor).max(TimeDelta::from_micros(1));
        let start = now - window;
        let bytes: u64 = self
            .arrivals
            .iter()
            .rev()
            .take_while(|a| a.0 > start)
            .map(|a| a.1)
            .fold(0u64, |acc, b| acc.saturating_add(b));
        bytes as f64 / window.as_secs_f64()
    }

    /// When feedback must be produced ([`TfrcReceiverState::poll_feedback`]).
    pub fn next_deadline(&self) -> Option<Timestamp> {
        if self.feedback_due {
            return self.last_data.map(|d| d.1);
        }
        self.feedback_timer
    }

    /// Time advanced to `now`: arms feedback if the timer expired.
    pub fn on_timer(&mut self, now: Timestamp) {
        if let Some(t) = self.feedback_timer {
            if now >= t {
                if self.data_since_feedback {
                    self.feedback_due = true;
                } else {
                    self.feedback_timer = None;
                }
            }
        }
    }

    /// The feedback to send at `now`, if one is due (6.2).
    pub fn poll_feedback(&mut self, now: Timestamp) -> Option<Feedback> {
        if !self.feedback_due {
            return None;
        }
        let (ts, arrival) = self.last_data?;
        self.feedback_due = false;
        let x_recv = self.x_recv_bytes(now);
        let fb = Feedback {
            timestamp_echo: ts,
            t_delay: now.saturating_since(arrival),
            x_recv: Bitrate::bps(x_recv * 8.0),
            p: self.history.loss_event_rate(),
        };
        self.last_feedback = Some(now);
        self.data_since_feedback = false;
        self.feedback_timer = Some(now + self.r_m());
        // keep one RTT (the X_recv floor window) of arrivals
        let keep_from = now - self.r_m() * self.cfg.x_recv_min_window_rtts.clamp(0.0, 1e6);
        while self.arrivals.front().is_some_and(|a| a.0 <= keep_from) {
            self.arrivals.pop_front();
        }
        Some(fb)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rate::tfrc_equation::throughput_bytes_per_sec;
    use crate::testing::ms;
    use proptest::prelude::*;

    #[test]
    fn feedback_once_per_rtt_with_x_recv() {
        let mut r = TfrcReceiverState::new(TfrcReceiverConfig::default());
        let rtt = Some(TimeDelta::millis(100));
        let s = DataSize::bytes(1000);
        r.on_data(ms(0), 0, ms(0), rtt, s);
        // first packet: immediate feedback
        assert_eq!(r.next_deadline(), Some(ms(0)));
        let f = r.poll_feedback(ms(0)).unwrap();
        assert_eq!(f.p, 0.0);
        assert_eq!(r.next_deadline(), Some(ms(100)));
        // 10 packets in the next 100 ms: 10 * 1000 B / 0.1 s = 100000 B/s = 800 kbit/s
        for i in 1..=10u64 {
            r.on_data(ms(i * 10 - 5), i, ms(i * 10 - 5), rtt, s);
        }
        assert!(r.poll_feedback(ms(99)).is_none());
        r.on_timer(ms(100));
        let f = r.poll_feedback(ms(100)).unwrap();
        assert!((f.x_recv.as_bps() - 800_000.0).abs() < 1e-6, "{}", f.x_recv);
        assert_eq!(f.timestamp_echo, ms(95));
        assert_eq!(f.t_delay, TimeDelta::millis(5));
        // no data -> no feedback, timer disarmed
        r.on_timer(ms(200));
        assert!(r.poll_feedback(ms(200)).is_none());
        assert_eq!(r.next_deadline(), None);
    }

    #[test]
    fn first_loss_seeds_interval_from_x_recv() {
        let mut r = TfrcReceiverState::new(TfrcReceiverConfig::default());
        let rtt = TimeDelta::millis(100);
        let s = DataSize::bytes(1000);
        // 1 packet per ms = 1e6 B/s for 300 ms, packet 200 lost
        let mut now = 0;
        for seq in 0..300u64 {
            now = seq;
            if seq != 200 {
                r.on_data(ms(now), seq, ms(now), Some(rtt), s);
            }
            r.on_timer(ms(now));
            let _ = r.poll_feedback(ms(now));
        }
        assert_eq!(r.history().loss_events(), 1);
        let p = r.loss_event_rate();
        // p is what makes the equation give ~1e6 B/s at R = 0.1 s (within 5 %), the open
        // interval (99 packets) being shorter than 1/p.
        let x = throughput_bytes_per_sec(1000.0, 0.1, p, EquationParams::default());
        assert!(
            (x - 1e6).abs() / 1e6 < 0.06,
            "p = {p}, x = {x}, now = {now}"
        );
    }

    proptest! {
        #[test]
        fn random_arrivals_never_panic(
            pkts in proptest::collection::vec((0u64..400, 0u64..50_000, 0i64..300_000, 0u64..2000), 0..200),
        ) {
            let mut r = TfrcReceiverState::new(TfrcReceiverConfig::default());
            let mut now = 0u64;
            for (seq, dt, rtt, size) in pkts {
                now += dt;
                let n = Timestamp::from_micros(now);
                r.on_data(n, seq, n, Some(TimeDelta::from_micros(rtt)), DataSize::bytes(size));
                r.on_timer(n);
                if let Some(f) = r.poll_feedback(n) {
                    prop_assert!(f.p.is_finite() && (0.0..=1.0).contains(&f.p));
                    prop_assert!(f.x_recv.is_finite());
                }
            }
        }
    }
}
