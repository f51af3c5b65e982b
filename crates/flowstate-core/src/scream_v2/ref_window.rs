//! The reference window (draft 4.2.2; libwebrtc `ScreamV2::UpdateRefWindow`): at most
//! one reduction per min(s_rtt, VIRTUAL_RTT) for a loss (x BETA_LOSS), CE marks
//! (x (1 - l4s_alpha / 2), scaled down for long RTTs, near the inflection point
//! ref_window_i and with a varying delay) or virtual CE from the queue delay
//! (x (1 - l4s_alpha_v / 2)); otherwise, and in the same feedback as a reduction, an
//! increase of the non-CE bytes acked x MSS / ref_window (one MSS per RTT) x
//! damping factors x a multiplicative term that grows with the time since the last
//! congestion, capped by the data actually in flight.

use super::feedback::FeedbackSummary;
use super::queue_delay::QueueDelay;
use super::ScreamV2Config;
use crate::units::{DataSize, TimeDelta, Timestamp};

/// l4s_alpha after libwebrtc's long-uncongested reset ("a more credible value").
pub const ALPHA_AFTER_RESET: f64 = 0.25;

/// `size x factor`, rounded to whole bytes (libwebrtc's DataSize arithmetic).
pub fn scale(size: DataSize, factor: f64) -> DataSize {
    DataSize::bytes((size.as_bytes() as f64 * factor).max(0.0).round() as u64)
}

/// What one feedback brings besides the report itself.
#[derive(Debug, Clone, Copy)]
pub struct WindowInputs {
    /// The feedback has a CE-marked packet.
    pub ce: bool,
    /// The feedback is a loss event (after the loss filter).
    pub loss: bool,
    /// The loss filter's level (libwebrtc: no increase while >= 0.01).
    pub loss_level: f64,
    /// l4s_alpha.
    pub l4s_alpha: f64,
    /// The average feedback hold time.
    pub hold_time: TimeDelta,
    /// The target is at its maximum (for `hold_increase_at_max_rate`).
    pub at_max_rate: bool,
}

/// What an update did, for the l4s_alpha reset.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct WindowOutcome {
    /// The long-uncongested reset ran: set l4s_alpha to [`ALPHA_AFTER_RESET`].
    pub reset_alpha: bool,
    /// The window was reduced for CE marks (an ECN response).
    pub ce_reduction: bool,
}

#[derive(Debug, Clone)]
pub struct RefWindow {
    cfg: ScreamV2Config,
    window: DataSize,
    /// The inflection point: the window when congestion was last met.
    window_i: DataSize,
    allow_i_update: bool,
    last_reaction: Option<Timestamp>,
    last_decrease: Option<Timestamp>,
    max_in_flight_this_rtt: DataSize,
    max_in_flight_prev_rtt: DataSize,
    last_in_flight_rollover: Option<Timestamp>,
}

impl RefWindow {
    pub fn new(cfg: &ScreamV2Config) -> Self {
        RefWindow {
            cfg: cfg.clone(),
            window: cfg.min_ref_window,
            window_i: DataSize::bytes(1),
            allow_i_update: true,
            last_reaction: None,
            last_decrease: None,
            max_in_flight_this_rtt: DataSize::ZERO,
            max_in_flight_prev_rtt: DataSize::ZERO,
            last_in_flight_rollover: None,
        }
    }

    pub fn window(&self) -> DataSize {
        self.window
    }
    pub fn window_i(&self) -> DataSize {
        self.window_i
    }
    /// Sets the window (the first feedback: start rate x RTT), not below the minimum.
    pub fn set_window(&mut self, w: DataSize) {
        self.window = w.max(self.cfg.min_ref_window);
    }
    pub fn last_reaction(&self) -> Option<Timestamp> {
        self.last_reaction
    }
    pub fn last_decrease(&self) -> Option<Timestamp> {
        self.last_decrease
    }

    /// A packet left; `in_flight` is the data in flight after it.
    pub fn on_packet_sent(&mut self, in_flight: DataSize) {
        self.max_in_flight_this_rtt = self.max_in_flight_this_rtt.max(in_flight);
    }

    /// Data in flight seen in a feedback.
    pub fn on_in_flight(&mut self, in_flight: DataSize) {
        self.max_in_flight_this_rtt = self.max_in_flight_this_rtt.max(in_flight);
    }

    /// After a feedback: the per-RTT maxima roll over every max(VIRTUAL_RTT, s_rtt).
    pub fn end_feedback(&mut self, now: Timestamp, srtt: TimeDelta) {
        let due = self.last_in_flight_rollover.map_or(true, |t| {
            now.saturating_since(t) >= self.cfg.virtual_rtt.max(srtt)
        });
        if due {
            self.last_in_flight_rollover = Some(now);
            self.max_in_flight_prev_rtt = self.max_in_flight_this_rtt;
            self.max_in_flight_this_rtt = DataSize::ZERO;
        }
    }

    /// min(1, MSS / ref_window) (libwebrtc `ref_window_mss_ratio`; the draft's
    /// ref_wnd_ratio).
    pub fn mss_ratio(&self) -> f64 {
        (self.cfg.mss.as_bytes() as f64 / self.window.as_bytes().max(1) as f64).min(1.0)
    }

    /// clamp((S (ref_window - ref_window_i) / ref_window_i)^2, 0.1, 1) (draft 4.2.2.1
    /// scl_t with S = 8; libwebrtc S = 2).
    pub fn scale_close_to_window_i(&self) -> f64 {
        let w = self.window.as_bytes() as f64;
        let wi = self.window_i.as_bytes().max(1) as f64;
        let scl = self.cfg.close_to_ref_window_i_scale * (w - wi).abs() / wi;
        (scl * scl).clamp(0.1, 1.0)
    }

    /// 1 + MUL_INCREASE_FACTOR x ref_window / MSS (draft 4.2.2.2
    /// ref_wnd_scale_factor_t).
    pub fn multiplicative_scale(&self) -> f64 {
        1.0 + self.cfg.multiplicative_increase_factor * self.window.as_bytes() as f64
            / self.cfg.mss.as_bytes() as f64
    }

    /// max(MSS + max(in flight this RTT, previous RTT) x BYTES_IN_FLIGHT_HEAD_ROOM,
    /// MIN_REF_WND) (draft 4.2.2.2 max_allowed_t).
    pub fn max_allowed(&self) -> DataSize {
        let in_flight = self.max_in_flight_this_rtt.max(self.max_in_flight_prev_rtt);
        (self.cfg.mss + scale(in_flight, self.cfg.bytes_in_flight_head_room))
            .max(self.cfg.min_ref_window)
    }

    /// Application-limited: the window is above what the data in flight allows.
    pub fn application_limited(&self) -> bool {
        self.max_allowed() < self.window
    }

    /// One feedback's reduction and increase.
    pub fn update(
        &mut self,
        fb: &FeedbackSummary,
        delay: &QueueDelay,
        inp: WindowInputs,
    ) -> WindowOutcome {
        let mut out = WindowOutcome::default();
        let now = fb.now;
        let srtt = delay.srtt();
        let vrtt = self.cfg.virtual_rtt;
        let virtual_ce = delay.queue_delay_detected();
        let previous = self.window;
        let since_reaction = self
            .last_reaction
            .map_or(TimeDelta::MAX, |t| now.saturating_since(t));
        // libwebrtc ignores RTTs above VIRTUAL_RTT here: s_rtt / VIRTUAL_RTT >= 1 scales
        // the backoff instead.
        let rtt_scale = (srtt.as_secs_f64() / vrtt.as_secs_f64()).max(1.0);
        if (virtual_ce || inp.ce || inp.loss) && since_reaction >= srtt.min(vrtt) {
            self.last_reaction = Some(now);
            let backoff = if inp.loss {
                // ref_wnd = ref_wnd * BETA_LOSS
                1.0 - self.cfg.beta_loss
            } else if inp.ce {
                out.ce_reduction = true;
                self.ce_backoff(
                    delay,
                    inp.l4s_alpha,
                    rtt_scale,
                    since_reaction,
                    srtt,
                    &mut out,
                )
            } else {
                // backoff = l4s_alpha_v / 2 / max(1, s_rtt / VIRTUAL_RTT)
                delay.l4s_alpha_v() / 2.0 / rtt_scale
            };
            self.window = scale(self.window, 1.0 - backoff).max(self.cfg.min_ref_window);
        }
        let reacted_now = self.last_reaction == Some(now);
        if (!inp.ce && inp.loss_level < 0.01 && !virtual_ce) || reacted_now {
            let held = self.cfg.hold_increase_at_max_rate && inp.at_max_rate;
            let increase = scale(
                fb.acked_not_marked,
                self.increase_factor(now, delay, inp.hold_time),
            );
            let max = self.max_allowed();
            if !held && self.window < max {
                self.window = (self.window + increase).clamp(self.cfg.min_ref_window, max);
            }
        }
        if previous < self.window {
            self.allow_i_update = true;
        }
        if previous > self.window {
            self.last_decrease = Some(now);
            if self.allow_i_update {
                self.window_i = previous;
                self.allow_i_update = false;
            }
        }
        out
    }

    /// backoff = l4s_alpha / 2 / max(1, s_rtt / VIRTUAL_RTT), x max(0.25, scl) x
    /// max(0.1, delay scale) unless the queue delay is up (libwebrtc; the draft tests
    /// qdelay < qdelay_target / 4 and floors the delay scale at 0.25).
    fn ce_backoff(
        &mut self,
        delay: &QueueDelay,
        alpha: f64,
        rtt_scale: f64,
        since_reaction: TimeDelta,
        srtt: TimeDelta,
        out: &mut WindowOutcome,
    ) -> f64 {
        let mut backoff: f64 = alpha / 2.0 / rtt_scale;
        if !delay.queue_delay_detected() {
            backoff *= self.scale_close_to_window_i().max(0.25);
            backoff *= delay.scale_due_to_min_delay(false).max(0.1);
        }
        let long = self.cfg.virtual_rtt.max(srtt) * self.cfg.reset_after_uncongested_rtts;
        if self.cfg.draft_uncongested_reset && since_reaction > long {
            // ref_wnd = min(ref_wnd, max_bytes_in_flight_prev) (draft 4.2.2.1), and,
            // as libwebrtc's code would, l4s_alpha = 0.25 for the next events.
            self.window = self.max_in_flight_prev_rtt.clamp(
                self.cfg.min_ref_window,
                self.window.max(self.cfg.min_ref_window),
            );
            out.reset_alpha = true;
        }
        backoff
    }

    /// The increase per acked byte (draft 4.2.2.2; libwebrtc's order of factors).
    fn increase_factor(&self, now: Timestamp, delay: &QueueDelay, hold: TimeDelta) -> f64 {
        let vrtt = self.cfg.virtual_rtt;
        let srtt = delay.srtt();
        // One MSS per RTT: bytes acked x MSS / ref_window.
        let mut f = self.mss_ratio();
        // Small RTTs: x ((s_rtt + hold) / VIRTUAL_RTT)^2 (libwebrtc; the draft's
        // min(1, s_rtt / VIRTUAL_RTT) is linear).
        if srtt + hold < vrtt {
            let r = (srtt + hold).as_secs_f64() / vrtt.as_secs_f64();
            f *= r * r;
        }
        f *= self.scale_close_to_window_i().max(0.25);
        f *= delay.scale_due_to_min_delay(false);
        f *= delay.scale_due_to_latency_difference();
        // post_congestion_scale = clamp(since congestion / (POST_CONGESTION_DELAY_RTTS x
        // max(VIRTUAL_RTT, s_rtt)), 0, 1); multiplicative = 1 + (scale - 1) x post x scl.
        let since = self
            .last_reaction
            .map_or(TimeDelta::MAX, |t| now.saturating_since(t));
        let horizon = vrtt.max(srtt) * self.cfg.post_congestion_delay_rtts;
        let post = (since.as_secs_f64() / horizon.as_secs_f64()).clamp(0.0, 1.0);
        f * (1.0 + (self.multiplicative_scale() - 1.0) * post * self.scale_close_to_window_i())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fb(ms: u64, acked: u64, in_flight: u64) -> FeedbackSummary {
        FeedbackSummary {
            now: Timestamp::from_millis(ms),
            data_in_flight: DataSize::bytes(in_flight),
            received: 10,
            ce_marked: 0,
            lost: 0,
            recovered: 0,
            acked_not_marked: DataSize::bytes(acked),
            min_one_way_delay: TimeDelta::millis(25),
            max_one_way_delay: TimeDelta::millis(25),
            hold_time: TimeDelta::ZERO,
            rtt_sample: TimeDelta::millis(50),
        }
    }

    fn inputs() -> WindowInputs {
        WindowInputs {
            ce: false,
            loss: false,
            loss_level: 0.0,
            l4s_alpha: 0.0,
            hold_time: TimeDelta::ZERO,
            at_max_rate: false,
        }
    }

    fn setup(window: u64) -> (RefWindow, QueueDelay) {
        let cfg = ScreamV2Config::default();
        let mut w = RefWindow::new(&cfg);
        w.set_window(DataSize::bytes(window));
        w.on_packet_sent(DataSize::bytes(window * 2));
        let mut d = QueueDelay::new(&cfg);
        d.on_feedback(&fb(0, 0, 0), false);
        (w, d)
    }

    #[test]
    fn ce_backoff_is_half_alpha_scaled_for_long_rtts() {
        // s_rtt 50 ms = 2 x VIRTUAL_RTT: backoff = 0.4 / 2 / 2 = 0.1, then x
        // max(0.25, scl) with the window far from ref_window_i (scl = 1) and x the
        // delay scale (1 with no queue delay).
        let (mut w, d) = setup(100_000);
        let before = w.window();
        let out = w.update(
            &fb(100, 0, 0),
            &d,
            WindowInputs {
                ce: true,
                l4s_alpha: 0.4,
                ..inputs()
            },
        );
        assert!(out.ce_reduction && !out.reset_alpha);
        // The same feedback also increases by acked x factor; acked = 0 here.
        assert_eq!(w.window(), scale(before, 0.9));
        assert_eq!(w.window_i(), before);
    }

    #[test]
    fn loss_backoff_is_beta_loss() {
        let (mut w, d) = setup(100_000);
        w.update(
            &fb(100, 0, 0),
            &d,
            WindowInputs {
                loss: true,
                loss_level: 1.0,
                ..inputs()
            },
        );
        assert_eq!(w.window(), DataSize::bytes(70_000));
    }

    #[test]
    fn at_most_one_reduction_per_virtual_rtt() {
        let (mut w, d) = setup(100_000);
        let ce = WindowInputs {
            ce: true,
            l4s_alpha: 0.4,
            ..inputs()
        };
        w.update(&fb(100, 0, 0), &d, ce);
        let after_first = w.window();
        w.update(&fb(110, 0, 0), &d, ce);
        assert_eq!(w.window(), after_first, "10 ms < min(s_rtt, VIRTUAL_RTT)");
        w.update(&fb(125, 0, 0), &d, ce);
        assert!(w.window() < after_first);
    }

    #[test]
    fn increase_is_one_mss_per_window_of_acked_bytes() {
        // No congestion ever: post_congestion_scale = 1, scl = 1 far from
        // ref_window_i: increase = acked x MSS / W x (1 + 0.02 W / MSS).
        let (mut w, d) = setup(12_800);
        w.update(&fb(100, 12_800, 0), &d, inputs());
        let expected: f64 = 12_800.0 + 12_800.0 * (1280.0 / 12_800.0) * (1.0 + 0.02 * 10.0);
        assert_eq!(w.window().as_bytes(), expected.round() as u64);
    }

    #[test]
    fn no_increase_beyond_the_data_in_flight_headroom() {
        let cfg = ScreamV2Config::default();
        let mut w = RefWindow::new(&cfg);
        w.set_window(DataSize::bytes(20_000));
        w.on_packet_sent(DataSize::bytes(5_000));
        let mut d = QueueDelay::new(&cfg);
        d.on_feedback(&fb(0, 0, 0), false);
        // max_allowed = 1280 + 1.1 x 5000 = 6780 < 20000: application-limited.
        assert_eq!(w.max_allowed(), DataSize::bytes(6780));
        assert!(w.application_limited());
        w.update(&fb(100, 50_000, 0), &d, inputs());
        assert_eq!(w.window(), DataSize::bytes(20_000));
    }

    #[test]
    fn scale_close_to_window_i_is_squared_and_clamped() {
        let (mut w, _) = setup(100_000);
        w.window_i = DataSize::bytes(100_000);
        assert_eq!(w.scale_close_to_window_i(), 0.1);
        // (2 x 0.2)^2 = 0.16
        w.window = DataSize::bytes(120_000);
        assert!((w.scale_close_to_window_i() - 0.16).abs() < 1e-9);
        w.window = DataSize::bytes(200_000);
        assert_eq!(w.scale_close_to_window_i(), 1.0);
    }
}
