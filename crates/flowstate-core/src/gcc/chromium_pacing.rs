//! The pacing rate as today's Chromium sets it (`chromium-m156` preset).
//!
//! - `GoogCcNetworkController::GetPacingRates`
//!   (`modules/congestion_controller/goog_cc/goog_cc_network_control.cc`, WebRTC M125):
//!   pacing rate = max(min allocated rate, target) x `kDefaultPaceMultiplier` (2.5).
//! - `PacingController::UpdatePacingRates` (`modules/pacing/pacing_controller.cc`,
//!   `drain_large_queues`): the rate is raised so that the queue drains within
//!   `kMaxExpectedQueueLength` (2 s): at least queue size / max(1 ms, 2 s - average queue
//!   time).
//!
//! Simplification: the pacer keeps no per-packet enqueue time here, so the average
//! queue time is taken as 0 (the drain rate needed is queue / 2 s, a lower bound of
//! libwebrtc's).

use crate::units::{Bitrate, DataSize, TimeDelta};

/// `kDefaultPaceMultiplier` (goog_cc_network_control.cc).
pub const DEFAULT_PACE_MULTIPLIER: f64 = 2.5;
/// A video stream's pacing factor, `kStrictPacingMultiplier` (`video/video_send_stream_impl.cc`,
/// WebRTC M150: `PacingConfig::pacing_factor`, passed by `SetPacingFactor` whenever the
/// transport-wide sequence number extension is configured; `chromium-m156`'s).
pub const VIDEO_PACE_MULTIPLIER: f64 = 1.1;
/// `PacingController::kMaxExpectedQueueLength` (pacing_controller.h).
pub const MAX_EXPECTED_QUEUE_LENGTH: TimeDelta = TimeDelta::millis(2000);

/// The pacing model's constants.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChromiumPacingConfig {
    pub pace_multiplier: f64,
    /// `None` = no queue-drain floor (`drain_large_queues` off).
    pub queue_time_limit: Option<TimeDelta>,
}

impl Default for ChromiumPacingConfig {
    fn default() -> Self {
        Self {
            pace_multiplier: DEFAULT_PACE_MULTIPLIER,
            queue_time_limit: Some(MAX_EXPECTED_QUEUE_LENGTH),
        }
    }
}

impl ChromiumPacingConfig {
    /// The pacing rate for `target` with `queued` bytes in the pacer.
    pub fn pacing_rate(
        &self,
        target: Bitrate,
        min_allocated: Bitrate,
        queued: DataSize,
    ) -> Bitrate {
        let base = target.max(min_allocated) * self.pace_multiplier;
        match self.queue_time_limit {
            Some(limit) if queued > DataSize::ZERO => {
                let left = limit.max(TimeDelta::millis(1));
                base.max(queued / left)
            }
            _ => base,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pacing_at_2_5_x_the_target_and_draining_large_queues_in_2_s() {
        let c = ChromiumPacingConfig::default();
        let r = c.pacing_rate(Bitrate::kbps(400.0), Bitrate::kbps(30.0), DataSize::ZERO);
        assert!((r.as_kbps() - 1000.0).abs() < 1e-9);
        let r = c.pacing_rate(Bitrate::kbps(10.0), Bitrate::kbps(30.0), DataSize::ZERO);
        assert!(
            (r.as_kbps() - 75.0).abs() < 1e-9,
            "the minimum allocated rate"
        );
        // 500 kB queued: at least 2 Mbit/s so it drains in 2 s.
        let r = c.pacing_rate(
            Bitrate::kbps(400.0),
            Bitrate::ZERO,
            DataSize::bytes(500_000),
        );
        assert!((r.as_kbps() - 2000.0).abs() < 1e-9);
        let off = ChromiumPacingConfig {
            queue_time_limit: None,
            ..c
        };
        let r = off.pacing_rate(
            Bitrate::kbps(400.0),
            Bitrate::ZERO,
            DataSize::bytes(500_000),
        );
        assert!((r.as_kbps() - 1000.0).abs() < 1e-9);
    }
}
