//! Chromium's pacer burst rule: the media debt of `PacingController`
//! (`modules/pacing/pacing_controller.cc`, read at signalapp/webrtc `bd635df` =
//! upstream `branch-heads/7871`, WebRTC **M150**; Chromium 156 ships M156).
//!
//! The pacer keeps a *debt* (bytes sent and not yet paid for at the media rate), not a
//! budget:
//!
//! - every elapsed interval pays it off at the media rate, never below zero
//!   (`UpdateBudgetWithElapsedTime`: `media_debt_ -= min(media_debt_,
//!   adjusted_media_rate_ * delta)`);
//! - every sent packet adds its size, the debt capped at `kMaxDebtInTime` (500 ms) of
//!   sending (`UpdateBudgetWithSentData`);
//! - a queued packet may go now while the time to pay the debt off is *shorter* than the
//!   burst interval, else when it is paid off completely (`NextSendTime`:
//!   `last_process_time_ + (send_burst_interval > drain_time ? 0 : drain_time)`, with
//!   `send_burst_interval = min(send_burst_interval_, kMaxBurstSize /
//!   adjusted_media_rate_)`).
//!
//! So a frame goes out back to back until the debt reaches one burst interval of
//! sending, and then the pacer is silent until the whole debt is paid, not one packet
//! later: a backlog leaves in bursts of one interval with pauses of one interval.
//!
//! The burst interval is `PacerConfig::kDefaultTimeInterval` = 40 ms
//! (`api/transport/network_types.h`): `GoogCcNetworkController::GetPacingRates` hands it
//! to the pacer with every rate (`pacing_time_window_` =
//! `RtpTransportConfig::default_pacing_time_window`), unless the embedder sets
//! `PeerConnectionInterface::RTCConfiguration::pacer_burst_interval`.
//!
//! Not modelled: `TaskQueuePacedSender`'s hold-back window (min(5 ms, 3 packets at the
//! pacing rate), `call/rtp_transport_controller_send.cc`) delays only a wake-up that is
//! less than that away, never one after a burst (which waits at least one interval);
//! and the keep-alive and padding debts (no padding outside probes here).

use crate::units::{Bitrate, DataSize, TimeDelta};

/// `PacerConfig::kDefaultTimeInterval` (`api/transport/network_types.h`).
pub const DEFAULT_BURST_INTERVAL: TimeDelta = TimeDelta::millis(40);
/// `PacingController::kMaxBurstSize` (`modules/pacing/pacing_controller.h`).
pub const MAX_BURST_SIZE: DataSize = DataSize::bytes(63_000);
/// `kMaxDebtInTime` (`modules/pacing/pacing_controller.cc`).
pub const MAX_DEBT_IN_TIME: TimeDelta = TimeDelta::millis(500);

/// The media-debt rule's constants.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MediaDebtConfig {
    /// `send_burst_interval_` (40 ms).
    pub burst_interval: TimeDelta,
    /// `kMaxBurstSize` (63 kB): the interval shrinks to this much at the media rate.
    pub max_burst_size: DataSize,
    /// `kMaxDebtInTime` (500 ms): the debt never exceeds this much at the media rate.
    pub max_debt_in_time: TimeDelta,
}

impl Default for MediaDebtConfig {
    fn default() -> Self {
        Self {
            burst_interval: DEFAULT_BURST_INTERVAL,
            max_burst_size: MAX_BURST_SIZE,
            max_debt_in_time: MAX_DEBT_IN_TIME,
        }
    }
}

impl MediaDebtConfig {
    /// `NextSendTime`'s `send_burst_interval`: min(interval, `kMaxBurstSize` / rate).
    pub fn effective_burst_interval(&self, rate: Bitrate) -> TimeDelta {
        self.burst_interval.min(self.max_burst_size / rate)
    }

    /// `UpdateBudgetWithElapsedTime`: the debt after `elapsed` at `rate` (>= 0).
    pub fn pay(&self, debt: DataSize, rate: Bitrate, elapsed: TimeDelta) -> DataSize {
        debt.saturating_sub(rate * elapsed)
    }

    /// `UpdateBudgetWithSentData`: the debt after sending `size`, capped at
    /// `kMaxDebtInTime` at `rate`.
    pub fn charge(&self, debt: DataSize, size: DataSize, rate: Bitrate) -> DataSize {
        (debt + size).min(rate * self.max_debt_in_time)
    }

    /// `NextSendTime`: how long after the last processing a queued packet may go:
    /// zero while the drain time is shorter than the burst interval, else the drain
    /// time (`None` for a zero rate: nothing is paced out).
    pub fn wait(&self, debt: DataSize, rate: Bitrate) -> Option<TimeDelta> {
        if rate <= Bitrate::ZERO || !rate.as_bps().is_finite() {
            return if rate.as_bps().is_finite() {
                None
            } else {
                Some(TimeDelta::ZERO)
            };
        }
        let drain = debt / rate;
        if self.effective_burst_interval(rate) > drain {
            Some(TimeDelta::ZERO)
        } else {
            Some(drain)
        }
    }

    /// Whether a queued packet may go with this debt (the debt paid up to now): the
    /// drain time under the burst interval, or no debt at all.
    pub fn may_send(&self, debt: DataSize, rate: Bitrate) -> bool {
        debt == DataSize::ZERO || self.wait(debt, rate) == Some(TimeDelta::ZERO)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn burst_interval_is_40_ms_until_63_kb() {
        let c = MediaDebtConfig::default();
        // 1 Mbit/s: 63 kB takes 504 ms, the interval stays 40 ms.
        assert_eq!(
            c.effective_burst_interval(Bitrate::mbps(1.0)),
            TimeDelta::millis(40)
        );
        // 20 Mbit/s: 63 kB = 504 000 bit takes 25.2 ms.
        assert_eq!(
            c.effective_burst_interval(Bitrate::mbps(20.0)),
            TimeDelta::from_micros(25_200)
        );
    }

    #[test]
    fn pay_never_below_zero() {
        let c = MediaDebtConfig::default();
        // 800 kbit/s = 100 B/ms.
        let r = Bitrate::kbps(800.0);
        assert_eq!(
            c.pay(DataSize::bytes(5000), r, TimeDelta::millis(20)),
            DataSize::bytes(3000)
        );
        assert_eq!(
            c.pay(DataSize::bytes(1000), r, TimeDelta::millis(20)),
            DataSize::ZERO
        );
    }

    #[test]
    fn charge_caps_at_500_ms() {
        let c = MediaDebtConfig::default();
        let r = Bitrate::kbps(800.0); // 500 ms = 50 000 B
        assert_eq!(
            c.charge(DataSize::bytes(1000), DataSize::bytes(1200), r),
            DataSize::bytes(2200)
        );
        assert_eq!(
            c.charge(DataSize::bytes(49_500), DataSize::bytes(1200), r),
            DataSize::bytes(50_000)
        );
    }

    #[test]
    fn wait_zero_under_the_interval_else_the_whole_drain() {
        let c = MediaDebtConfig::default();
        let r = Bitrate::kbps(800.0); // 40 ms = 4000 B
        assert_eq!(c.wait(DataSize::bytes(3999), r), Some(TimeDelta::ZERO));
        // At the interval (not strictly under it): wait until all of it is paid.
        assert_eq!(
            c.wait(DataSize::bytes(4000), r),
            Some(TimeDelta::millis(40))
        );
        assert_eq!(
            c.wait(DataSize::bytes(6000), r),
            Some(TimeDelta::millis(60))
        );
        assert!(c.may_send(DataSize::ZERO, r));
        assert!(!c.may_send(DataSize::bytes(4000), r));
        assert_eq!(c.wait(DataSize::bytes(10), Bitrate::ZERO), None);
    }

    #[test]
    fn zero_interval_sends_only_without_debt() {
        let c = MediaDebtConfig {
            burst_interval: TimeDelta::ZERO,
            ..Default::default()
        };
        let r = Bitrate::kbps(800.0);
        assert!(c.may_send(DataSize::ZERO, r));
        assert!(!c.may_send(DataSize::bytes(1), r));
    }
}
