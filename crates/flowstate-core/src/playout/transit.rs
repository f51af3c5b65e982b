//! Where a frame is expected to be complete, from its capture time: the receiver's
//! estimate of the frames' transit time, after libwebrtc's `TimestampExtrapolator`
//! (`modules/video_coding/timing/timestamp_extrapolator.cc`, signalapp/webrtc bd635df).
//!
//! libwebrtc fits each complete frame's local time against its RTP timestamp with a
//! recursive least-squares filter (forgetting factor `kLambda` = 1) of a slope (the
//! clocks' drift) and an offset, and boosts the offset's uncertainty when a CUSUM of
//! the residuals (clipped to `acc_max_error` 77 ms, drift `acc_drift` 73 ms) passes
//! `alarm_threshold` (667 ms), after the first `kStartUpFilterDelayInPackets` (2)
//! frames. Here the two ends share one clock (the simulator's, or one host's), so the
//! slope is 1 and the filter's offset is the mean transit (completion - capture) of the
//! frames since the last alarm; an alarm restarts the mean from the frame that raised
//! it. Not modelled: the hard outlier rejection (2 standard deviations of the residual
//! after 300 frames) and the 10 s hard reset.

use crate::units::{TimeDelta, Timestamp};

/// `acc_max_error`: 7,000 ticks of 90 kHz.
pub const ACC_MAX_ERROR: TimeDelta = TimeDelta::from_micros(77_778);
/// `acc_drift`: 6,600 ticks.
pub const ACC_DRIFT: TimeDelta = TimeDelta::from_micros(73_333);
/// `alarm_threshold`: 60,000 ticks.
pub const ALARM_THRESHOLD: TimeDelta = TimeDelta::from_micros(666_667);
/// `kStartUpFilterDelayInPackets`.
pub const STARTUP_FRAMES: u64 = 2;

/// The mean transit of the complete frames, restarted on a sustained change.
#[derive(Debug, Clone, Default)]
pub struct TransitEstimate {
    sum_us: i128,
    n: u64,
    frames: u64,
    acc_pos: TimeDelta,
    acc_neg: TimeDelta,
}

impl TransitEstimate {
    pub fn new() -> Self {
        Self::default()
    }

    /// A frame captured at `capture` was complete at `complete`.
    pub fn update(&mut self, capture: Timestamp, complete: Timestamp) {
        let transit = complete - capture;
        self.frames += 1;
        if let Some(mean) = self.mean() {
            let r = (transit - mean).max(-ACC_MAX_ERROR).min(ACC_MAX_ERROR);
            self.acc_pos = (self.acc_pos + r - ACC_DRIFT).max(TimeDelta::ZERO);
            self.acc_neg = (self.acc_neg + r + ACC_DRIFT).min(TimeDelta::ZERO);
            if self.acc_pos > ALARM_THRESHOLD || self.acc_neg < -ALARM_THRESHOLD {
                self.acc_pos = TimeDelta::ZERO;
                self.acc_neg = TimeDelta::ZERO;
                if self.frames > STARTUP_FRAMES {
                    self.sum_us = 0;
                    self.n = 0;
                }
            }
        }
        self.sum_us += i128::from(transit.as_micros());
        self.n += 1;
    }

    /// The mean transit (`None` before the first frame).
    pub fn mean(&self) -> Option<TimeDelta> {
        (self.n > 0).then(|| {
            TimeDelta::from_micros(
                i64::try_from(self.sum_us / i128::from(self.n)).unwrap_or(i64::MAX),
            )
        })
    }

    /// When a frame captured at `capture` is expected to be complete.
    pub fn expected_complete(&self, capture: Timestamp) -> Option<Timestamp> {
        self.mean().map(|m| shift(capture, m))
    }
}

/// `t + d`, saturating at the epoch and at `Timestamp::MAX`.
pub(crate) fn shift(t: Timestamp, d: TimeDelta) -> Timestamp {
    let us = i128::from(t.as_micros()) + i128::from(d.as_micros());
    Timestamp::from_micros(us.clamp(0, i128::from(u64::MAX)) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Timestamp {
        Timestamp::from_millis(v)
    }

    #[test]
    fn the_mean_follows_the_transits_and_restarts_on_a_sustained_step() {
        let mut t = TransitEstimate::new();
        assert_eq!(t.expected_complete(ms(0)), None);
        for i in 0..100 {
            t.update(ms(i * 33), ms(i * 33 + if i % 2 == 0 { 40 } else { 60 }));
        }
        assert_eq!(t.mean(), Some(TimeDelta::millis(50)));
        assert_eq!(t.expected_complete(ms(10_000)), Some(ms(10_050)));
        // The transit steps to 350 ms: residuals clip at 77.8 ms, 4.4 ms over the
        // drift per frame; the alarm after ~150 frames restarts the mean there.
        let mut restarted = None;
        for i in 100..400 {
            t.update(ms(i * 33), ms(i * 33 + 350));
            if restarted.is_none() && t.mean() == Some(TimeDelta::millis(350)) {
                restarted = Some(i);
            }
        }
        let at = restarted.expect("an alarm restarted the mean");
        assert!((200..320).contains(&at), "{at}");
    }
}
