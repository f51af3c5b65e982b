//! SCReAM v2 (draft-ietf-ccwg-rfc8298bis-screamv2-01, 6 July 2026), sans-I/O, as
//! Chromium runs it: libwebrtc's `modules/congestion_controller/scream/` at
//! branch-heads/7871 as merged in signalapp/webrtc bd635df (the directory last changed
//! by b1dde843, 2026-06-01), the nearest readable revision to Chromium 156. Where the
//! draft and libwebrtc differ this follows libwebrtc and the draft's rule is an
//! option; docs/ALGORITHMS.md, "SCReAM v2", lists each.
//!
//! One file per component: [`config`] (every constant), [`feedback`] (one report as
//! the controller reads it), [`l4s_alpha`] (the CE-fraction EWMA), [`queue_delay`]
//! (the delay-based part: s_rtt, base delay, qdelay_avg against qdelay_target, virtual
//! CE), [`loss`] (when a loss is congestion), [`ref_window`] (reduction and increase),
//! [`target_rate`] (target from the window and the RTT), [`media_rate`] (the draft's
//! media-rate corrections), [`pacing`] (send window and pacing rate).
//!
//! [`ScreamV2`] takes a [`FeedbackSummary`] per report and the data in flight per
//! packet sent; the sender reads [`ScreamV2::target_bitrate`] (the encoder's),
//! [`ScreamV2::pacing_rate`] and [`ScreamV2::send_window`] (the congestion window
//! its pacer obeys). No clock: every input carries its time.

pub mod config;
pub mod feedback;
pub mod l4s_alpha;
pub mod loss;
pub mod media_rate;
mod options;
pub mod pacing;
pub mod queue_delay;
pub mod ref_window;
pub mod target_rate;

#[cfg(test)]
mod closed_loop;
#[cfg(test)]
mod proptests;

pub use config::ScreamV2Config;
pub use feedback::FeedbackSummary;

use crate::units::{Bitrate, DataSize, TimeDelta, Timestamp};
use l4s_alpha::L4sAlpha;
use loss::LossFilter;
use media_rate::MediaRateAdjust;
use queue_delay::QueueDelay;
use ref_window::{RefWindow, WindowInputs, ALPHA_AFTER_RESET};
use target_rate::TargetRate;

/// The SCReAM v2 controller of one media stream.
#[derive(Debug, Clone)]
pub struct ScreamV2 {
    cfg: ScreamV2Config,
    window: RefWindow,
    delay: QueueDelay,
    alpha: L4sAlpha,
    loss: LossFilter,
    media: MediaRateAdjust,
    rate: TargetRate,
    target: Bitrate,
    hold_time: TimeDelta,
    first_feedback_done: bool,
    application_limited: bool,
    ce_reductions: u64,
}

impl ScreamV2 {
    /// Check the configuration first with [`ScreamV2Config::validate`].
    pub fn new(cfg: ScreamV2Config) -> Self {
        ScreamV2 {
            window: RefWindow::new(&cfg),
            delay: QueueDelay::new(&cfg),
            alpha: L4sAlpha::new(&cfg),
            loss: LossFilter::new(&cfg),
            media: MediaRateAdjust::new(&cfg),
            rate: TargetRate::default(),
            target: cfg.initial_rate.max(cfg.min_rate).min(cfg.max_rate),
            hold_time: TimeDelta::ZERO,
            first_feedback_done: false,
            application_limited: false,
            ce_reductions: 0,
            cfg,
        }
    }

    pub fn config(&self) -> &ScreamV2Config {
        &self.cfg
    }
    /// The encoder's target bitrate.
    pub fn target_bitrate(&self) -> Bitrate {
        self.target
    }
    /// The pacer's rate.
    pub fn pacing_rate(&self) -> Bitrate {
        pacing::pacing_rate(&self.cfg, self.target)
    }
    /// The pacer's burst window at `now` ([`pacing::pacing_window`]).
    pub fn pacing_window(&self, now: Timestamp) -> TimeDelta {
        pacing::pacing_window(&self.cfg, now, self.window.last_reaction())
    }
    /// The most data in flight before the sender stops (draft 4.3.1 send window).
    pub fn send_window(&self) -> DataSize {
        pacing::send_window(
            &self.cfg,
            self.window.window(),
            self.delay.scale_due_to_min_delay(true),
        )
    }
    pub fn ref_window(&self) -> DataSize {
        self.window.window()
    }
    pub fn ref_window_i(&self) -> DataSize {
        self.window.window_i()
    }
    pub fn l4s_alpha(&self) -> f64 {
        self.alpha.alpha()
    }
    /// The smoothed RTT, once feedback arrived.
    pub fn srtt(&self) -> Option<TimeDelta> {
        self.first_feedback_done.then(|| self.delay.srtt())
    }
    pub fn qdelay_avg(&self) -> TimeDelta {
        self.delay.qdelay_avg()
    }
    pub fn feedback_hold_time(&self) -> TimeDelta {
        self.hold_time
    }
    pub fn application_limited(&self) -> bool {
        self.application_limited
    }
    /// Window reductions for CE marks so far (at most one per min(s_rtt, VIRTUAL_RTT)).
    pub fn ce_reductions(&self) -> u64 {
        self.ce_reductions
    }
    /// The draft's media-rate corrections (used with `draft_media_rate`).
    pub fn media_rate(&self) -> &MediaRateAdjust {
        &self.media
    }

    /// Coupling: the target becomes `rate` (clamped) and the window the one whose
    /// target it is at the current RTT ([`target_rate::window_for_rate`]), so the next
    /// feedback continues from it rather than from a small window's scaled-down rate.
    pub fn set_target_bitrate(&mut self, rate: Bitrate) {
        self.target = rate.max(self.cfg.min_rate).min(self.cfg.max_rate);
        if self.first_feedback_done {
            self.window.set_window(target_rate::window_for_rate(
                &self.cfg,
                self.target,
                self.delay.srtt(),
                self.hold_time,
                &self.media,
            ));
        }
    }

    /// A packet left; `in_flight` is the data in flight after it (libwebrtc
    /// `ScreamV2::OnPacketSent`).
    pub fn on_packet_sent(&mut self, in_flight: DataSize) {
        self.window.on_packet_sent(in_flight);
    }

    /// A video frame of `size` entered the send queue, whose oldest packet waited
    /// `queue_delay` (the draft's media-rate corrections; nothing without
    /// `draft_media_rate`).
    pub fn on_frame(&mut self, queue_delay: TimeDelta, size: DataSize, frame_period: TimeDelta) {
        if self.cfg.draft_media_rate {
            self.media
                .on_frame(queue_delay, size, self.target, frame_period);
        }
    }

    /// One feedback report (libwebrtc `ScreamV2::OnTransportPacketsFeedback`). A report
    /// without received packets is ignored.
    pub fn on_feedback(&mut self, fb: &FeedbackSummary) {
        if fb.received == 0 {
            return;
        }
        self.window.on_in_flight(fb.data_in_flight);
        if self.cfg.enable_alr {
            self.application_limited = self.window.application_limited();
        }
        self.delay.on_feedback(fb, self.application_limited);
        if !self.application_limited {
            self.update_hold_time(fb.hold_time);
        }
        let srtt = self.delay.srtt();
        if !self.first_feedback_done {
            // ref_window = max(MIN_REF_WND, start rate x (s_rtt + hold time)).
            self.window
                .set_window(self.target * (srtt + self.hold_time));
            self.first_feedback_done = true;
        }
        self.alpha
            .on_feedback(fb.now, fb.received, fb.ce_marked, srtt);
        let mut loss = self.loss.on_feedback(fb, srtt);
        let mut loss_level = self.loss.level();
        if self.cfg.loss_step_filter {
            // A loss backs off only when the filter says congested or the queue
            // delay is up (libwebrtc ScreamV2::UpdateRefWindow).
            if loss && !self.loss.congested() && !self.delay.queue_delay_detected() {
                loss = false;
            }
        } else {
            loss_level = 0.0;
        }
        let out = self.window.update(
            fb,
            &self.delay,
            WindowInputs {
                ce: fb.ce_marked > 0,
                loss,
                loss_level,
                l4s_alpha: self.alpha.alpha(),
                hold_time: self.hold_time,
                at_max_rate: self.target >= self.cfg.max_rate,
            },
        );
        if out.reset_alpha {
            self.alpha.set(ALPHA_AFTER_RESET);
        }
        self.ce_reductions += u64::from(out.ce_reduction);
        let rate = target_rate::window_rate(
            &self.cfg,
            self.window.window(),
            self.window.mss_ratio(),
            srtt,
            self.hold_time,
            &self.media,
        );
        self.target = self.rate.update(&self.cfg, fb.now, rate, &mut self.delay);
        self.window.end_feedback(fb.now, srtt);
    }

    /// hold = g x sample + (1 - g) x hold, the first sample as is (libwebrtc
    /// `UpdateFeedbackHoldTime`; g = 0 keeps it at zero).
    fn update_hold_time(&mut self, sample: TimeDelta) {
        let g = self.cfg.feedback_hold_time_avg_g;
        if self.hold_time == TimeDelta::ZERO && g > 0.0 {
            self.hold_time = sample;
        }
        self.hold_time = sample * g + self.hold_time * (1.0 - g);
    }
}
