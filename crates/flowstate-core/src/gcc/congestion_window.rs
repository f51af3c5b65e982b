//! The congestion-window pushback of today's Chromium (`chromium-m156` preset): while
//! more bytes are in flight than a data window allows, the encoder drops frames.
//!
//! libwebrtc, WebRTC M125: the field trial `WebRTC-CongestionWindow` defaults to
//! `QueueSize:350,MinBitrate:30000,DropFrame:true`
//! (`rtc_base/experiments/rate_control_settings.cc`,
//! `kCongestionWindowDefaultFieldTrialString`), so `UseCongestionWindow`,
//! `UseCongestionWindowPushback` and `UseCongestionWindowDropFrameOnly` are all on.
//!
//! - Feedback RTTs (`GoogCcNetworkController::OnTransportPacketsFeedback`): per report,
//!   the largest `feedback_time - send_time` of its received packets, the last
//!   `kMaxFeedbackRttWindow` = 32 kept.
//! - Data window (`UpdateCongestionWindowSize`, after every report): last target x
//!   (min of those RTTs + `QueueSize` 350 ms), at least `kMinCwnd` = 2 x 1500 B, averaged
//!   with the previous window.
//! - Pushback (`CongestionWindowPushbackController::UpdateTargetBitrate`, run by
//!   `MaybeTriggerOnNetworkChanged` on every sent packet and every new estimate): fill =
//!   bytes in flight / window (the pacer queue is not added:
//!   `WebRTC-AddPacingToCongestionWindowPushback` is off); the encoding-rate ratio
//!   x 0.9 above a fill of 1.5, x 0.95 above 1, reset to 1 below 0.1, else x 1.05 up to
//!   1; pushback rate = target x ratio, but not below `MinBitrate` 30 kbit/s unless the
//!   target is; then at least GCC's minimum rate.
//! - Frame dropping (`DropFrame:true`): the target stays; `cwnd_reduce_ratio` =
//!   (target minus pushback rate) / target goes to the encoder
//!   (`VideoStreamEncoder::UpdateTargetBitrate`), which, above 1 % and while the target
//!   exceeds the codec's minimum, drops every N-th frame, N = max(2, target /
//!   min(target x cwnd_reduce_ratio, target minus the codec minimum)), and encodes at
//!   target - target / N (the codec minimum here: the encoder bounds' minimum rate).

use crate::units::{Bitrate, DataSize, TimeDelta, Timestamp};
use std::collections::VecDeque;

/// `CongestionWindowConfig::queue_size_ms` default (`QueueSize:350`).
pub const QUEUE_SIZE: TimeDelta = TimeDelta::millis(350);
/// `CongestionWindowConfig::min_bitrate_bps` default (`MinBitrate:30000`).
pub const MIN_PUSHBACK_RATE_BPS: f64 = 30_000.0;
/// `kMinCwnd` (goog_cc_network_control.cc): 2 x 1500 B.
pub const MIN_WINDOW: DataSize = DataSize::bytes(3000);
/// `kMaxFeedbackRttWindow` (goog_cc_network_control.cc).
pub const FEEDBACK_RTT_WINDOW: usize = 32;
/// `VideoStreamEncoder::UpdateTargetBitrate`: frames are dropped above this ratio.
pub const MIN_DROP_RATIO: f64 = 0.01;

/// The pushback's constants (defaults: M125's, no field trial).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CongestionWindowConfig {
    pub queue_size: TimeDelta,
    pub min_pushback_rate: Bitrate,
    pub min_window: DataSize,
    pub rtt_window: usize,
}

impl Default for CongestionWindowConfig {
    fn default() -> Self {
        Self {
            queue_size: QUEUE_SIZE,
            min_pushback_rate: Bitrate::bps(MIN_PUSHBACK_RATE_BPS),
            min_window: MIN_WINDOW,
            rtt_window: FEEDBACK_RTT_WINDOW,
        }
    }
}

/// The data window and the encoding-rate ratio.
#[derive(Debug, Clone)]
pub struct CongestionWindow {
    cfg: CongestionWindowConfig,
    max_rtts: VecDeque<TimeDelta>,
    window: Option<DataSize>,
    in_flight: DataSize,
    ratio: f64,
}

impl CongestionWindow {
    pub fn new(cfg: CongestionWindowConfig) -> Self {
        Self {
            cfg,
            max_rtts: VecDeque::new(),
            window: None,
            in_flight: DataSize::ZERO,
            ratio: 1.0,
        }
    }

    /// One report's largest feedback RTT (`feedback_time - send_time`).
    pub fn on_feedback_rtt(&mut self, max_feedback_rtt: TimeDelta) {
        self.max_rtts.push_back(max_feedback_rtt);
        while self.max_rtts.len() > self.cfg.rtt_window.max(1) {
            self.max_rtts.pop_front();
        }
    }

    /// `UpdateCongestionWindowSize` with the last target.
    pub fn update_window(&mut self, last_target: Bitrate) {
        let Some(min_rtt) = self.max_rtts.iter().copied().min() else {
            return;
        };
        let w = last_target * (min_rtt.max(TimeDelta::ZERO) + self.cfg.queue_size);
        let w = match self.window {
            Some(prev) => (w + prev) / 2,
            None => w,
        };
        self.window = Some(w.max(self.cfg.min_window));
    }

    /// `UpdateOutstandingData`.
    pub fn set_in_flight(&mut self, bytes: DataSize) {
        self.in_flight = bytes;
    }

    pub fn window(&self) -> Option<DataSize> {
        self.window
    }
    pub fn ratio(&self) -> f64 {
        self.ratio
    }

    /// `UpdateTargetBitrate`: the pushback rate for `target` (and the ratio's step).
    pub fn pushback_rate(&mut self, target: Bitrate) -> Bitrate {
        let Some(w) = self.window.filter(|w| *w > DataSize::ZERO) else {
            return target;
        };
        let fill = self.in_flight.as_bytes() as f64 / w.as_bytes() as f64;
        if fill > 1.5 {
            self.ratio *= 0.9;
        } else if fill > 1.0 {
            self.ratio *= 0.95;
        } else if fill < 0.1 {
            self.ratio = 1.0;
        } else {
            self.ratio = (self.ratio * 1.05).min(1.0);
        }
        let adjusted = target * self.ratio;
        if adjusted < self.cfg.min_pushback_rate {
            target.min(self.cfg.min_pushback_rate)
        } else {
            adjusted
        }
    }
}

/// `cwnd_reduce_ratio` (`MaybeTriggerOnNetworkChanged`): the pushback rate, raised to
/// GCC's minimum, as a fraction of the target taken away.
pub fn reduce_ratio(target: Bitrate, pushback: Bitrate, min_rate: Bitrate) -> f64 {
    if target.as_bps() <= 0.0 {
        return 0.0;
    }
    let pushback = pushback.max(min_rate);
    ((target.as_bps() - pushback.as_bps()) / target.as_bps()).max(0.0)
}

/// `VideoStreamEncoder::UpdateTargetBitrate` with `cwnd_reduce_ratio`: `Some(N)` (drop
/// every N-th frame, N >= 2) and the encoder's reduced target, or `None` (no dropping).
pub fn frame_drop(target: Bitrate, ratio: f64, codec_min: Bitrate) -> Option<(u32, Bitrate)> {
    if ratio <= MIN_DROP_RATIO || target.as_bps() <= 0.0 || target <= codec_min {
        return None;
    }
    let reduce = (target.as_bps() * ratio).min(target.as_bps() - codec_min.as_bps());
    if reduce <= 0.0 {
        return None;
    }
    let n = ((target.as_bps() / reduce) as u32).max(2);
    Some((n, target - target / f64::from(n)))
}

/// The largest `now - send_time` over a report's received packets.
pub fn max_feedback_rtt(
    now: Timestamp,
    sends: impl IntoIterator<Item = Timestamp>,
) -> Option<TimeDelta> {
    sends.into_iter().map(|s| now - s).max()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_is_target_times_min_rtt_plus_350_ms_averaged() {
        let mut c = CongestionWindow::new(CongestionWindowConfig::default());
        c.update_window(Bitrate::mbps(1.0));
        assert_eq!(c.window(), None, "no feedback RTT yet");
        c.on_feedback_rtt(TimeDelta::millis(250));
        c.on_feedback_rtt(TimeDelta::millis(150));
        c.on_feedback_rtt(TimeDelta::millis(400));
        // 1 Mbit/s x (150 + 350) ms = 62 500 B.
        c.update_window(Bitrate::mbps(1.0));
        assert_eq!(c.window(), Some(DataSize::bytes(62_500)));
        // Then averaged: (0.5 Mbit/s x 0.5 s = 31 250 + 62 500) / 2.
        c.update_window(Bitrate::mbps(0.5));
        assert_eq!(c.window(), Some(DataSize::bytes(46_875)));
        // Never below 3000 B.
        let mut c = CongestionWindow::new(CongestionWindowConfig::default());
        c.on_feedback_rtt(TimeDelta::millis(10));
        c.update_window(Bitrate::kbps(10.0));
        assert_eq!(c.window(), Some(MIN_WINDOW));
    }

    #[test]
    fn rtt_window_keeps_the_last_32_reports() {
        let mut c = CongestionWindow::new(CongestionWindowConfig::default());
        c.on_feedback_rtt(TimeDelta::millis(50));
        for _ in 0..32 {
            c.on_feedback_rtt(TimeDelta::millis(650));
        }
        // The 50 ms sample has left: 1 Mbit/s x (650 + 350) ms.
        c.update_window(Bitrate::mbps(1.0));
        assert_eq!(c.window(), Some(DataSize::bytes(125_000)));
    }

    #[test]
    fn ratio_steps_with_the_fill() {
        let mut c = CongestionWindow::new(CongestionWindowConfig::default());
        c.on_feedback_rtt(TimeDelta::millis(150));
        c.update_window(Bitrate::mbps(1.0)); // 62 500 B
        let t = Bitrate::mbps(1.0);
        assert_eq!(c.pushback_rate(t), t, "empty: fill 0 < 0.1, ratio 1");
        c.set_in_flight(DataSize::bytes(100_000)); // fill 1.6
        assert!((c.pushback_rate(t).as_kbps() - 900.0).abs() < 1e-9);
        c.set_in_flight(DataSize::bytes(70_000)); // fill 1.12
        assert!((c.pushback_rate(t).as_kbps() - 855.0).abs() < 1e-9);
        c.set_in_flight(DataSize::bytes(31_250)); // fill 0.5: x 1.05
        assert!((c.pushback_rate(t).as_kbps() - 0.855 * 1.05 * 1000.0).abs() < 1e-6);
        assert!((c.ratio() - 0.855 * 1.05).abs() < 1e-12);
        c.set_in_flight(DataSize::bytes(1000)); // fill 0.016: reset
        assert_eq!(c.pushback_rate(t), t);
        // Not pushed below 30 kbit/s unless the target is.
        c.set_in_flight(DataSize::bytes(1_000_000));
        for _ in 0..100 {
            c.pushback_rate(t);
        }
        assert_eq!(c.pushback_rate(t), Bitrate::kbps(30.0));
        assert_eq!(c.pushback_rate(Bitrate::kbps(20.0)), Bitrate::kbps(20.0));
    }

    #[test]
    fn frames_dropped_every_n_th_with_the_reduced_target() {
        let codec_min = Bitrate::kbps(50.0);
        // Ratio 0.2 of 1 Mbit/s: N = 1000 / 200 = 5, encoder at 800 kbit/s.
        assert_eq!(
            frame_drop(Bitrate::mbps(1.0), 0.2, codec_min),
            Some((5, Bitrate::kbps(800.0)))
        );
        // At most every 2nd frame.
        assert_eq!(
            frame_drop(Bitrate::mbps(1.0), 0.9, codec_min),
            Some((2, Bitrate::kbps(500.0)))
        );
        // Not at <= 1 %, nor at or below the codec minimum.
        assert_eq!(frame_drop(Bitrate::mbps(1.0), 0.01, codec_min), None);
        assert_eq!(frame_drop(Bitrate::kbps(50.0), 0.5, codec_min), None);
        // reduce_ratio: pushback 600 of 1000 -> 0.4; raised to the minimum first.
        assert!(
            (reduce_ratio(Bitrate::mbps(1.0), Bitrate::kbps(600.0), Bitrate::kbps(5.0)) - 0.4)
                .abs()
                < 1e-12
        );
        assert_eq!(
            reduce_ratio(Bitrate::mbps(1.0), Bitrate::mbps(1.0), Bitrate::kbps(5.0)),
            0.0
        );
        assert_eq!(
            max_feedback_rtt(
                Timestamp::from_millis(500),
                [Timestamp::from_millis(300), Timestamp::from_millis(100)]
            ),
            Some(TimeDelta::millis(400))
        );
    }
}
