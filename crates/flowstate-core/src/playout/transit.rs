//! Where a frame is expected to be complete, from its capture time: libwebrtc's
//! `TimestampExtrapolator` (`modules/video_coding/timing/timestamp_extrapolator.cc`,
//! signalapp/webrtc bd635df), which maps a frame's RTP timestamp to the local time it
//! is expected complete.
//!
//! Modelled as there: a recursive least-squares fit (forgetting factor `kLambda` = 1)
//! of the frame's timestamp (90 kHz ticks since the first frame) against its completion
//! time (ms since the filter's start), `ts = w0 t + w1`, from w = (90, 0) and
//! P = diag(`kP00` = 1, `kP11` = 1e10), so a steady change of the transit time is
//! followed as a clock drift (w0). Hard outlier rejection (default on,
//! `outlier_rejection_stddev` 2): after 300 frames, a frame whose residual is more than
//! 2 standard deviations of the residuals' running statistics (forgetting factor 0.999)
//! from their mean is left out, unless 150 in a row were, which soft-resets. Soft
//! attenuation: a CUSUM of the residuals (clipped to `acc_max_error` 7,000 ticks, drift
//! `acc_drift` 6,600, alarm at `alarm_threshold` 60,000) soft-resets after the first 2
//! frames; a soft reset sets P11 back to 1e10 (the offset is learnt again). A frame more
//! than 10 s after the previous one resets the filter (`hard_reset_timeout`).
//! Not modelled: the RTP timestamp's 32-bit wrap and the reset on an RTP timestamp jump
//! (the model takes capture times, which neither wrap nor jump).

use crate::units::{TimeDelta, Timestamp};

const TICKS_PER_MS: f64 = 90.0;
const P00: f64 = 1.0;
const P11: f64 = 1e10;
const START_RESIDUAL_VARIANCE: f64 = 3000.0 * 3000.0;
/// `kStartUpFilterDelayInPackets`.
pub const STARTUP_FRAMES: u32 = 2;
const MIN_SAMPLES_TO_LOG_DRIFT: u32 = 3000;
const HARD_RESET_TIMEOUT: TimeDelta = TimeDelta::secs(10);
const OUTLIER_STARTUP: u32 = 300;
const OUTLIER_MAX_CONSECUTIVE: u32 = 150;
const OUTLIER_FORGETTING: f64 = 0.999;
const OUTLIER_STDDEV: f64 = 2.0;
const ALARM_THRESHOLD: f64 = 60_000.0;
const ACC_DRIFT: f64 = 6_600.0;
const ACC_MAX_ERROR: f64 = 7_000.0;

/// The extrapolator's state.
#[derive(Debug, Clone)]
pub struct TransitEstimate {
    start: Timestamp,
    prev: Timestamp,
    first_ts: Option<f64>,
    prev_ts: Option<f64>,
    w: [f64; 2],
    p: [[f64; 2]; 2],
    count: u32,
    residual_mean: f64,
    residual_variance: f64,
    outliers_in_a_row: u32,
    acc_pos: f64,
    acc_neg: f64,
}

impl Default for TransitEstimate {
    fn default() -> Self {
        Self::new()
    }
}

/// A capture time as a 90 kHz timestamp (unwrapped).
fn ticks(capture: Timestamp) -> f64 {
    capture.as_micros() as f64 * TICKS_PER_MS / 1000.0
}

impl TransitEstimate {
    pub fn new() -> Self {
        let mut t = Self {
            start: Timestamp::ZERO,
            prev: Timestamp::ZERO,
            first_ts: None,
            prev_ts: None,
            w: [0.0; 2],
            p: [[0.0; 2]; 2],
            count: 0,
            residual_mean: 0.0,
            residual_variance: 0.0,
            outliers_in_a_row: 0,
            acc_pos: 0.0,
            acc_neg: 0.0,
        };
        t.reset(Timestamp::ZERO);
        t
    }

    fn reset(&mut self, start: Timestamp) {
        *self = Self {
            start,
            prev: start,
            first_ts: None,
            prev_ts: None,
            w: [TICKS_PER_MS, 0.0],
            p: [[P00, 0.0], [0.0, P11]],
            count: 0,
            residual_mean: 0.0,
            residual_variance: START_RESIDUAL_VARIANCE,
            outliers_in_a_row: 0,
            acc_pos: 0.0,
            acc_neg: 0.0,
        };
    }

    fn soft_reset(&mut self) {
        self.p[1][1] = P11;
    }

    /// A frame captured at `capture` was complete at `now` (`Update`).
    pub fn update(&mut self, capture: Timestamp, now: Timestamp) {
        if self.first_ts.is_none() {
            // The filter starts with its first frame (libwebrtc's starts when the
            // stream is created; only the offset of `now - start` differs).
            self.reset(now);
        }
        if now.saturating_since(self.prev) > HARD_RESET_TIMEOUT {
            self.reset(now);
        } else {
            self.prev = now;
        }
        let ts = ticks(capture);
        let t_ms = now.saturating_since(self.start).as_millis_f64();
        let first = *self.first_ts.get_or_insert_with(|| {
            self.w[1] = -self.w[0] * t_ms;
            ts
        });
        let residual = (ts - first) - t_ms * self.w[0] - self.w[1];
        if self.is_outlier(residual) {
            self.outliers_in_a_row += 1;
            if self.outliers_in_a_row <= OUTLIER_MAX_CONSECUTIVE {
                return;
            }
            self.soft_reset();
        }
        self.outliers_in_a_row = 0;
        if self.delay_change(residual) && self.count >= STARTUP_FRAMES {
            self.soft_reset();
        }
        // K = P T / (lambda + T' P T), T = [t 1]'; w += K residual; P -= K T' P.
        let p = self.p;
        let mut k = [p[0][0] * t_ms + p[0][1], p[1][0] * t_ms + p[1][1]];
        let tpt = 1.0 + t_ms * k[0] + k[1];
        k = [k[0] / tpt, k[1] / tpt];
        self.w[0] += k[0] * residual;
        self.w[1] += k[1] * residual;
        self.p = [
            [
                p[0][0] - (k[0] * t_ms * p[0][0] + k[0] * p[1][0]),
                p[0][1] - (k[0] * t_ms * p[0][1] + k[0] * p[1][1]),
            ],
            [
                p[1][0] - (k[1] * t_ms * p[0][0] + k[1] * p[1][0]),
                p[1][1] - (k[1] * t_ms * p[0][1] + k[1] * p[1][1]),
            ],
        ];
        self.prev_ts = Some(ts);
        if self.count < STARTUP_FRAMES.max(MIN_SAMPLES_TO_LOG_DRIFT) {
            self.count += 1;
        }
    }

    /// `OutlierDetection`: after the start-up, a residual far from the running mean.
    fn is_outlier(&mut self, residual: f64) -> bool {
        if self.count >= OUTLIER_STARTUP {
            let threshold = OUTLIER_STDDEV * self.residual_variance.sqrt();
            if (residual - self.residual_mean).abs() > threshold {
                return true;
            }
        }
        let f = OUTLIER_FORGETTING;
        self.residual_mean = f * self.residual_mean + (1.0 - f) * residual;
        let dev = residual - self.residual_mean;
        self.residual_variance = (f * self.residual_variance + (1.0 - f) * dev * dev).max(1.0);
        false
    }

    /// `DelayChangeDetection`: the CUSUM alarm.
    fn delay_change(&mut self, residual: f64) -> bool {
        let r = residual.clamp(-ACC_MAX_ERROR, ACC_MAX_ERROR);
        self.acc_pos = (self.acc_pos + r - ACC_DRIFT).max(0.0);
        self.acc_neg = (self.acc_neg + r + ACC_DRIFT).min(0.0);
        if self.acc_pos > ALARM_THRESHOLD || self.acc_neg < -ALARM_THRESHOLD {
            self.acc_pos = 0.0;
            self.acc_neg = 0.0;
            return true;
        }
        false
    }

    /// When a frame captured at `capture` is expected to be complete
    /// (`ExtrapolateLocalTime`; `None` before the first frame).
    pub fn expected_complete(&self, capture: Timestamp) -> Option<Timestamp> {
        let first = self.first_ts?;
        let ts = ticks(capture);
        if self.count < STARTUP_FRAMES {
            let prev = self.prev_ts.unwrap_or(first);
            return Some(shift(
                self.prev,
                TimeDelta::from_millis_f64((ts - prev) / TICKS_PER_MS),
            ));
        }
        if self.w[0] < 1e-3 {
            return Some(self.start);
        }
        let ms = ((ts - first) - self.w[1]) / self.w[0];
        Some(shift(self.start, TimeDelta::from_millis_f64(ms)))
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

    fn off(t: &TransitEstimate, capture_ms: u64) -> f64 {
        t.expected_complete(ms(capture_ms))
            .unwrap()
            .saturating_since(ms(capture_ms))
            .as_millis_f64()
    }

    #[test]
    fn a_steady_transit_is_learnt() {
        let mut t = TransitEstimate::new();
        assert_eq!(t.expected_complete(ms(0)), None);
        for i in 0..300 {
            t.update(ms(i * 33), ms(i * 33 + if i % 2 == 0 { 40 } else { 60 }));
        }
        let est = off(&t, 300 * 33);
        assert!((est - 50.0).abs() < 2.0, "{est}");
    }

    #[test]
    fn a_steady_rise_of_the_transit_is_followed_as_a_drift() {
        // The transit grows 10 ms per second (a filling queue) for 20 s.
        let mut t = TransitEstimate::new();
        for i in 0..600 {
            let c = i * 33;
            t.update(ms(c), ms(c + 50 + c / 100));
        }
        let c = 600 * 33;
        let est = off(&t, c);
        let truth = 50.0 + c as f64 / 100.0;
        assert!((est - truth).abs() < 10.0, "{est} vs {truth}");
    }

    #[test]
    fn a_step_is_learnt_again_after_the_alarm() {
        let mut t = TransitEstimate::new();
        for i in 0..100 {
            t.update(ms(i * 33), ms(i * 33 + 50));
        }
        for i in 100..300 {
            t.update(ms(i * 33), ms(i * 33 + 350));
        }
        // The new level is learnt; the fit reads part of the step as a drift and
        // overshoots it for a while (as libwebrtc's does).
        let est = off(&t, 300 * 33);
        assert!((300.0..500.0).contains(&est), "{est}");
    }
}
