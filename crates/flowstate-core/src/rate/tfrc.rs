//! TFRC sender (RFC 5348, section 4): the allowed sending rate `X` from the receiver's
//! feedback (`X_recv`, `p`) and the throughput equation.
//!
//! - 4.2 initial rate: `X = s / 1 s` until the first feedback; then `X = W_init / R` with
//!   `W_init = min(4*s, max(2*s, 4380))`; the nofeedback timer starts at 2 s.
//! - 4.3 on feedback: `R_sample = (t_now - t_recvdata) - t_delay`; `R = q*R + (1-q)*R_sample`
//!   (`q = 0.9`); `RTO = max(4*R, 2*s/X)`; `X_recv_set` keeps the receive rates of the last
//!   two RTTs (data-limited intervals handled as in step 4); then
//!   `p > 0`: `X = max(min(X_Bps, recv_limit), s/t_mbi)`;
//!   `p = 0` (slow start): once per RTT `X = max(min(2*X, recv_limit), initial_rate)`;
//!   restart the nofeedback timer at `max(4*R, 2*s/X)`.
//! - 4.4 nofeedback timer expiry: halve as the RFC's pseudo-code says (`Update_Limits`).
//! - 4.5 (oscillation reduction, a MAY) is not implemented; 4.6 (pacing at `s/X`) is in
//!   the endpoint.
//!
//! Rates inside are bytes per second (as in the RFC); the API speaks [`Bitrate`].

use crate::rate::tfrc_equation::{throughput_bytes_per_sec, EquationParams};
use crate::units::{Bitrate, DataSize, TimeDelta, Timestamp};

/// TFRC sender constants (all RFC 5348 values by default).
#[derive(Debug, Clone, PartialEq)]
pub struct TfrcConfig {
    /// Segment size `s` (paper 004: 1000 bytes).
    pub segment_size: DataSize,
    /// `t_mbi`, the longest back-off interval: `X >= s / t_mbi` (4.3: 64 s).
    pub t_mbi: TimeDelta,
    /// RTT filter constant `q` (4.3: 0.9).
    pub rtt_filter: f64,
    /// Rate before the first feedback (4.2: one packet per second -> `s / 1 s`).
    pub initial_interval: TimeDelta,
    /// The nofeedback timer before the first feedback (4.2: 2 seconds).
    pub initial_nofeedback: TimeDelta,
    /// `W_init`; `None` = RFC 5348, 4.2: `min(4*s, max(2*s, 4380))`.
    pub initial_window: Option<DataSize>,
    /// `b` and `t_RTO = 4*R` of the equation (3.1).
    pub equation: EquationParams,
    /// Never allow more than this (`Bitrate::INFINITY` = no cap).
    pub max_rate: Bitrate,
}

impl Default for TfrcConfig {
    fn default() -> Self {
        TfrcConfig {
            segment_size: DataSize::bytes(1000),
            t_mbi: TimeDelta::secs(64),
            rtt_filter: 0.9,
            initial_interval: TimeDelta::secs(1),
            initial_nofeedback: TimeDelta::secs(2),
            initial_window: None,
            equation: EquationParams::default(),
            max_rate: Bitrate::INFINITY,
        }
    }
}

/// One feedback report's content (RFC 5348, 6.2).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Feedback {
    /// `t_recvdata`: the timestamp of the last data packet received (sender's clock).
    pub timestamp_echo: Timestamp,
    /// `t_delay`: time between that packet's arrival and this feedback.
    pub t_delay: TimeDelta,
    /// `X_recv`: the rate the receiver received at since its last feedback.
    pub x_recv: Bitrate,
    /// The loss event rate `p`.
    pub p: f64,
}

/// The TFRC sender's rate controller.
#[derive(Debug, Clone)]
pub struct TfrcController {
    cfg: TfrcConfig,
    /// Allowed sending rate X, bytes/s.
    x: f64,
    /// RTT estimate R, seconds.
    r: Option<f64>,
    p: f64,
    /// X_Bps from the last equation evaluation, bytes/s.
    x_bps: f64,
    /// (time added, X_recv in bytes/s).
    x_recv_set: Vec<(Timestamp, f64)>,
    tld: Option<Timestamp>,
    nofeedback_at: Option<Timestamp>,
    feedback_received: bool,
    /// A packet was sent since the nofeedback timer was (re)set.
    sent_since_timer: bool,
    /// A packet was sent while not application-limited since the last feedback.
    unlimited_send_since_feedback: bool,
    report_pending: bool,
}

impl TfrcController {
    pub fn new(cfg: TfrcConfig) -> Self {
        let s = cfg.segment_size.as_bytes() as f64;
        let x0 = s / cfg.initial_interval.as_secs_f64().max(1e-6);
        let mut me = TfrcController {
            cfg,
            x: 0.0,
            r: None,
            p: 0.0,
            x_bps: f64::INFINITY,
            x_recv_set: Vec::new(),
            tld: None,
            nofeedback_at: None,
            feedback_received: false,
            sent_since_timer: false,
            unlimited_send_since_feedback: false,
            report_pending: true,
        };
        me.x = me.clamp_x(x0);
        me
    }

    pub fn config(&self) -> &TfrcConfig {
        &self.cfg
    }

    fn s(&self) -> f64 {
        self.cfg.segment_size.as_bytes().max(1) as f64
    }

    fn min_x(&self) -> f64 {
        // 4.3: s / t_mbi
        self.s() / self.cfg.t_mbi.as_secs_f64().max(1e-6)
    }

    fn clamp_x(&self, x: f64) -> f64 {
        let max = self.cfg.max_rate.as_bps() / 8.0;
        let x = if x.is_nan() { self.min_x() } else { x };
        x.min(max).max(self.min_x())
    }

    /// The allowed sending rate X.
    pub fn rate(&self) -> Bitrate {
        Bitrate::bps(self.x * 8.0)
    }

    /// The RTT estimate R, once feedback arrived.
    pub fn rtt(&self) -> Option<TimeDelta> {
        self.r.map(TimeDelta::from_secs_f64)
    }

    /// The loss event rate from the last feedback.
    pub fn loss_event_rate(&self) -> f64 {
        self.p
    }

    /// `W_init / R` (4.2), bytes/s.
    fn initial_rate(&self, r: f64) -> f64 {
        let s = self.s();
        let w = match self.cfg.initial_window {
            Some(w) => w.as_bytes() as f64,
            None => (4.0 * s).min((2.0 * s).max(4380.0)),
        };
        w / r.max(1e-6)
    }

    /// The next time [`TfrcController::on_nofeedback_timer`] must run.
    pub fn nofeedback_deadline(&self) -> Option<Timestamp> {
        self.nofeedback_at
    }

    /// A data packet was sent at `now`; `app_limited` = the application had less to
    /// send than X allowed.
    pub fn on_packet_sent(&mut self, now: Timestamp, app_limited: bool) {
        if self.nofeedback_at.is_none() {
            // 4.2: the nofeedback timer starts at 2 s with the first packet.
            self.nofeedback_at = Some(now + self.cfg.initial_nofeedback);
        }
        self.sent_since_timer = true;
        if !app_limited {
            self.unlimited_send_since_feedback = true;
        }
    }

    /// 4.3: process a feedback packet received at `now`.
    pub fn on_feedback(&mut self, now: Timestamp, fb: Feedback) {
        let s = self.s();
        // (1) R_sample = (t_now - t_recvdata) - t_delay
        let sample = ((now - fb.timestamp_echo) - fb.t_delay).as_secs_f64();
        // (2) R = q*R + (1-q)*R_sample (first sample: R = R_sample)
        if sample > 0.0 && sample.is_finite() {
            let q = self.cfg.rtt_filter.clamp(0.0, 1.0);
            self.r = Some(match self.r {
                None => sample,
                Some(r) => q * r + (1.0 - q) * sample,
            });
        }
        let Some(r) = self.r else {
            // Without any RTT sample the feedback cannot be used (no R for the equation).
            return;
        };
        let p_prev = self.p;
        let p = if fb.p.is_finite() {
            fb.p.clamp(0.0, 1.0)
        } else {
            0.0
        };
        let x_recv = fb.x_recv.as_bps() / 8.0;
        let x_recv = if x_recv.is_finite() { x_recv } else { 0.0 };
        self.p = p;
        // (4) recv_limit from X_recv_set
        let data_limited = self.feedback_received && !self.unlimited_send_since_feedback;
        let recv_limit = if data_limited {
            if p > p_prev {
                for e in self.x_recv_set.iter_mut() {
                    e.1 *= 0.5;
                }
                self.maximize_x_recv_set(now, 0.85 * x_recv);
                self.max_x_recv()
            } else {
                self.maximize_x_recv_set(now, x_recv);
                2.0 * self.max_x_recv()
            }
        } else {
            self.update_x_recv_set(now, x_recv, r);
            2.0 * self.max_x_recv()
        };
        let first = !self.feedback_received;
        self.feedback_received = true;
        if p > 0.0 {
            // congestion avoidance: X = max(min(X_Bps, recv_limit), s/t_mbi)
            self.x_bps = throughput_bytes_per_sec(s, r, p, self.cfg.equation);
            self.x = self.clamp_x(self.x_bps.min(recv_limit));
        } else if first {
            // 4.2: first feedback with an RTT sample: X = W_init / R
            self.x = self.clamp_x(self.initial_rate(r));
            self.tld = Some(now);
        } else if self.tld.map_or(true, |tld| (now - tld).as_secs_f64() >= r) {
            // initial slow start: X = max(min(2*X, recv_limit), initial_rate)
            self.x = self.clamp_x((2.0 * self.x).min(recv_limit).max(self.initial_rate(r)));
            self.tld = Some(now);
        }
        // (6) nofeedback timer: max(4*R, 2*s/X)
        self.restart_nofeedback(now);
        self.unlimited_send_since_feedback = false;
        self.report_pending = true;
    }

    fn max_x_recv(&self) -> f64 {
        self.x_recv_set.iter().map(|e| e.1).fold(0.0, f64::max)
    }

    /// Update_X_recv_set(): add X_recv, drop entries older than two RTTs.
    fn update_x_recv_set(&mut self, now: Timestamp, x_recv: f64, r: f64) {
        let horizon = TimeDelta::from_secs_f64(2.0 * r);
        self.x_recv_set.retain(|e| now - e.0 <= horizon);
        self.x_recv_set.push((now, x_recv.max(0.0)));
    }

    /// Maximize_X_recv_set(): X_recv = max(X_recv_set, X_recv); X_recv_set = {X_recv}.
    fn maximize_x_recv_set(&mut self, now: Timestamp, x_recv: f64) {
        let m = self.max_x_recv().max(x_recv.max(0.0));
        self.x_recv_set.clear();
        self.x_recv_set.push((now, m));
    }

    fn restart_nofeedback(&mut self, now: Timestamp) {
        let t = match self.r {
            Some(r) => (4.0 * r).max(2.0 * self.s() / self.x.max(1e-9)),
            None => self.cfg.initial_nofeedback.as_secs_f64(),
        };
        self.nofeedback_at = Some(now + TimeDelta::from_secs_f64(t.min(1e9)));
        self.sent_since_timer = false;
    }

    /// 4.4: the nofeedback timer expired (call at or after
    /// [`TfrcController::nofeedback_deadline`]).
    pub fn on_nofeedback_timer(&mut self, now: Timestamp) {
        match self.nofeedback_at {
            Some(t) if now >= t => {}
            _ => return,
        }
        let x_recv = self.max_x_recv();
        let idle = !self.sent_since_timer;
        let recover_rate = self.r.map(|r| self.initial_rate(r)).unwrap_or(0.0);
        if self.r.is_none() && !self.feedback_received && !idle {
            self.x = self.clamp_x(self.x / 2.0);
        } else if ((self.p > 0.0 && x_recv < recover_rate)
            || (self.p == 0.0 && self.x < 2.0 * recover_rate))
            && idle
        {
            // don't halve
        } else if self.p == 0.0 {
            self.x = self.clamp_x(self.x / 2.0);
        } else if self.x_bps > 2.0 * x_recv {
            self.update_limits(x_recv);
        } else {
            self.update_limits(self.x_bps / 2.0);
        }
        self.restart_nofeedback(now);
        self.report_pending = true;
    }

    /// Update_Limits(timer_limit) of 4.4.
    fn update_limits(&mut self, timer_limit: f64) {
        let tl = if timer_limit.is_finite() {
            timer_limit.max(self.min_x())
        } else {
            self.x
        };
        self.x_recv_set.clear();
        // The set's time stamp is irrelevant until the next feedback replaces it.
        self.x_recv_set.push((Timestamp::ZERO, tl / 2.0));
        // Recalculate X as in step (4) with recv_limit = 2 * max(X_recv_set) = tl.
        if self.p > 0.0 {
            self.x = self.clamp_x(self.x_bps.min(tl));
        } else {
            self.x = self.clamp_x((2.0 * self.x).min(tl));
        }
    }

    /// A coupling manager's allowance: adopt `rate` as X (clamped to [s/t_mbi, max_rate]).
    pub fn set_rate(&mut self, rate: Bitrate) {
        self.x = self.clamp_x(rate.as_bps() / 8.0);
    }

    /// Whether X was recomputed since the last call (a coupling report is due).
    pub fn take_report(&mut self) -> bool {
        std::mem::take(&mut self.report_pending)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::ms;
    use proptest::prelude::*;

    fn fb(echo_ms: u64, x_recv_bytes_per_s: f64, p: f64) -> Feedback {
        Feedback {
            timestamp_echo: ms(echo_ms),
            t_delay: TimeDelta::ZERO,
            x_recv: Bitrate::bps(x_recv_bytes_per_s * 8.0),
            p,
        }
    }

    #[test]
    fn initial_rate_and_first_feedback() {
        let mut t = TfrcController::new(TfrcConfig::default());
        // 4.2: one 1000-byte packet per second = 8 kbit/s
        assert!((t.rate().as_bps() - 8000.0).abs() < 1e-9);
        t.on_packet_sent(ms(0), false);
        assert_eq!(t.nofeedback_deadline(), Some(ms(2000)));
        // R_sample = 100 ms; W_init = min(4000, max(2000, 4380)) = 4000 B -> X = 40000 B/s
        t.on_feedback(ms(100), fb(0, 1000.0, 0.0));
        assert_eq!(t.rtt(), Some(TimeDelta::millis(100)));
        assert!((t.rate().as_bps() - 320_000.0).abs() < 1e-6);
        // nofeedback = max(4R, 2s/X) = max(400 ms, 50 ms)
        assert_eq!(t.nofeedback_deadline(), Some(ms(500)));
    }

    #[test]
    fn slow_start_doubles_once_per_rtt_limited_by_2_x_recv() {
        let mut t = TfrcController::new(TfrcConfig::default());
        t.on_packet_sent(ms(0), false);
        t.on_feedback(ms(100), fb(0, 1000.0, 0.0)); // X = 40000 B/s
        t.on_packet_sent(ms(110), false);
        // 50 ms later (< R): no doubling
        t.on_feedback(ms(150), fb(50, 40_000.0, 0.0));
        assert!((t.rate().as_bps() / 8.0 - 40_000.0).abs() < 1e-6);
        t.on_packet_sent(ms(160), false);
        // R stays 100 ms (all samples 100 ms); 100 ms after tld: X = min(2X, 2*max X_recv)
        // = min(80000, 2*40000) = 80000
        t.on_feedback(ms(200), fb(100, 40_000.0, 0.0));
        assert!((t.rate().as_bps() / 8.0 - 80_000.0).abs() < 1e-6);
        t.on_packet_sent(ms(210), false);
        // receiver saw only 25000 B/s; set still holds 40000 (within 2 RTT) -> limit 80000
        t.on_feedback(ms(300), fb(200, 25_000.0, 0.0));
        assert!((t.rate().as_bps() / 8.0 - 80_000.0).abs() < 1e-6);
    }

    #[test]
    fn congestion_avoidance_uses_equation_and_2_x_recv() {
        let mut t = TfrcController::new(TfrcConfig::default());
        t.on_packet_sent(ms(0), false);
        t.on_feedback(ms(100), fb(0, 1000.0, 0.0));
        t.on_packet_sent(ms(150), false);
        // p = 0.01, R = 0.1 s: X_Bps = 112332 B/s (see tfrc_equation worked example);
        // X_recv = 1e6 B/s so the limit 2e6 does not bind.
        t.on_feedback(ms(200), fb(100, 1e6, 0.01));
        assert!((t.rate().as_bps() / 8.0 - 112_332.0).abs() < 2.0);
        t.on_packet_sent(ms(250), false);
        // X_recv = 30000 -> set {1e6 @200, 30000 @300}; both within 2R -> limit 2e6: unchanged
        t.on_feedback(ms(300), fb(200, 30_000.0, 0.01));
        assert!((t.rate().as_bps() / 8.0 - 112_332.0).abs() < 2.0);
        t.on_packet_sent(ms(450), false);
        // 300 ms later the 1e6 entry (t=200) is older than 2R = 200 ms: limit = 2*40000
        t.on_feedback(ms(500), fb(400, 40_000.0, 0.01));
        assert!((t.rate().as_bps() / 8.0 - 80_000.0).abs() < 1e-6);
    }

    #[test]
    fn nofeedback_before_any_feedback_halves() {
        let mut t = TfrcController::new(TfrcConfig::default());
        t.on_packet_sent(ms(0), false);
        t.on_packet_sent(ms(1000), false);
        t.on_nofeedback_timer(ms(2000));
        // 1000 B/s -> 500 B/s
        assert!((t.rate().as_bps() / 8.0 - 500.0).abs() < 1e-9);
        assert_eq!(t.nofeedback_deadline(), Some(ms(4000)));
    }

    #[test]
    fn nofeedback_in_congestion_avoidance_halves_via_update_limits() {
        let mut t = TfrcController::new(TfrcConfig::default());
        t.on_packet_sent(ms(0), false);
        t.on_feedback(ms(100), fb(0, 1000.0, 0.0));
        t.on_packet_sent(ms(150), false);
        t.on_feedback(ms(200), fb(100, 1e6, 0.01)); // X = X_Bps = 112332
        t.on_packet_sent(ms(250), false);
        // X_Bps (112332) <= 2 * X_recv (2e6): Update_Limits(X_Bps/2) -> X = min(X_Bps, X_Bps/2)
        t.on_nofeedback_timer(ms(600));
        assert!((t.rate().as_bps() / 8.0 - 56_166.0).abs() < 2.0);
    }

    #[test]
    fn min_rate_is_s_over_t_mbi() {
        let mut t = TfrcController::new(TfrcConfig::default());
        t.set_rate(Bitrate::ZERO);
        // 1000 B / 64 s = 15.625 B/s = 125 bit/s
        assert!((t.rate().as_bps() - 125.0).abs() < 1e-9);
    }

    proptest! {
        #[test]
        fn random_feedback_keeps_x_valid(
            ops in proptest::collection::vec((0u8..4, 0u64..300_000, 0.0f64..1e7, -0.5f64..1.5, 0i64..100_000), 0..150),
        ) {
            let mut t = TfrcController::new(TfrcConfig::default());
            let mut now = 0u64;
            for (op, dt, xr, p, delay) in ops {
                now += dt;
                let n = Timestamp::from_micros(now);
                match op {
                    0 => t.on_packet_sent(n, xr < 5e6),
                    1 => t.on_feedback(n, Feedback {
                        timestamp_echo: Timestamp::from_micros(now.saturating_sub(dt / 2)),
                        t_delay: TimeDelta::from_micros(delay),
                        x_recv: Bitrate::bps(xr),
                        p,
                    }),
                    2 => t.on_nofeedback_timer(n),
                    _ => t.set_rate(Bitrate::bps(xr)),
                }
                let r = t.rate().as_bps();
                prop_assert!(r.is_finite() && r >= 125.0 - 1e-9);
                let lp = t.loss_event_rate();
                prop_assert!((0.0..=1.0).contains(&lp));
            }
        }
    }
}
