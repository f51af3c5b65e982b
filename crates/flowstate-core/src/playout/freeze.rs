//! Freezes and pauses of a video stream's playback, from the times its frames were
//! rendered: the W3C webrtc-stats rules (RTCInboundRtpStreamStats `freezeCount`,
//! `totalFreezesDuration`, `pauseCount`, `totalPausesDuration`) as libwebrtc applies
//! them (`video/video_quality_observer2.cc`, signalapp/webrtc bd635df).
//!
//! W3C webrtc-stats: "It is a freeze if frame duration, which is time interval between
//! two consecutively rendered frames, is equal or exceeds Max(3 * avg_frame_duration_ms,
//! avg_frame_duration_ms + 150), where avg_frame_duration_ms is linear average of
//! durations of last 30 rendered frames." "Video is considered to be paused if time
//! passed since last rendered frame exceeds 5 seconds."
//!
//! The edges, as libwebrtc's `VideoQualityObserver::OnRenderedFrame`:
//! - the average is over the last 30 intervals *including* the one being judged
//!   (`render_interframe_delays_.AddSample` comes before `GetAverageRoundedDown`);
//! - no freeze is detected before 5 intervals are in the average
//!   (`kMinFrameSamplesToDetectFreeze`);
//! - the threshold is inclusive (`>=`), the pause rule strict (`> 5 s`);
//! - a pause is not a freeze, and its interval does not enter the average (libwebrtc
//!   learns of a pause from the stream going inactive; on a series of render times the
//!   interval longer than 5 s is what marks it).
//!
//! Times are kept in integer microseconds; libwebrtc rounds the average down to whole
//! milliseconds, which can move a verdict that is within 1 ms of the threshold.

use crate::units::{TimeDelta, Timestamp};
use std::collections::VecDeque;

/// `kAvgInterframeDelaysWindowSizeFrames`: the average is over this many intervals.
pub const FREEZE_AVERAGE_WINDOW: usize = 30;
/// `kMinFrameSamplesToDetectFreeze`: intervals needed before a freeze can be detected.
pub const FREEZE_MIN_SAMPLES: usize = 5;
/// `kMinIncreaseForFreezeMs`: a freeze is at least this much longer than the average.
pub const FREEZE_MIN_INCREASE: TimeDelta = TimeDelta::millis(150);
/// W3C webrtc-stats `pauseCount`: more than this without a rendered frame is a pause.
pub const PAUSE_THRESHOLD: TimeDelta = TimeDelta::secs(5);

/// What the interval ending at a rendered frame was.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Interval {
    /// The first frame: no interval.
    First,
    Smooth(TimeDelta),
    Freeze(TimeDelta),
    Pause(TimeDelta),
}

/// The W3C freeze and pause figures of a series of render times.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct FreezeStats {
    pub frames: u64,
    pub freezes: u64,
    pub total_freezes_duration: TimeDelta,
    pub pauses: u64,
    pub total_pauses_duration: TimeDelta,
}

/// The freeze and pause detector: feed it render times in order.
#[derive(Debug, Clone, Default)]
pub struct FreezeDetector {
    last: Option<Timestamp>,
    intervals: VecDeque<TimeDelta>,
    sum: TimeDelta,
    stats: FreezeStats,
}

impl FreezeDetector {
    pub fn new() -> Self {
        Self::default()
    }

    /// A frame was rendered at `at` (not earlier than the previous one: an earlier time
    /// is taken as the previous one, an interval of zero).
    pub fn on_rendered(&mut self, at: Timestamp) -> Interval {
        self.stats.frames += 1;
        let Some(last) = self.last.replace(at.max(self.last.unwrap_or(at))) else {
            return Interval::First;
        };
        let interval = at.saturating_since(last);
        if interval > PAUSE_THRESHOLD {
            self.stats.pauses += 1;
            self.stats.total_pauses_duration += interval;
            return Interval::Pause(interval);
        }
        self.intervals.push_back(interval);
        self.sum += interval;
        if self.intervals.len() > FREEZE_AVERAGE_WINDOW {
            if let Some(old) = self.intervals.pop_front() {
                self.sum -= old;
            }
        }
        if self.intervals.len() < FREEZE_MIN_SAMPLES {
            return Interval::Smooth(interval);
        }
        let avg = self.sum / self.intervals.len() as i64;
        if interval >= (avg * 3_i64).max(avg + FREEZE_MIN_INCREASE) {
            self.stats.freezes += 1;
            self.stats.total_freezes_duration += interval;
            Interval::Freeze(interval)
        } else {
            Interval::Smooth(interval)
        }
    }

    pub fn stats(&self) -> FreezeStats {
        self.stats
    }
}

/// The W3C freeze and pause figures of `render_times` (in order).
pub fn freeze_stats(render_times: impl IntoIterator<Item = Timestamp>) -> FreezeStats {
    let mut d = FreezeDetector::new();
    for t in render_times {
        d.on_rendered(t);
    }
    d.stats()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Timestamp {
        Timestamp::from_millis(v)
    }

    /// Frames every 33 ms, then one after `gap` ms.
    fn steady_then(n: u64, gap: u64) -> Vec<Timestamp> {
        let mut t: Vec<_> = (0..n).map(|i| ms(i * 33)).collect();
        let last = t.last().copied().unwrap_or(ms(0));
        t.push(last + TimeDelta::millis(gap as i64));
        t
    }

    #[test]
    fn a_gap_at_the_threshold_is_a_freeze_and_just_below_is_not() {
        // 30 intervals: 29 of 33 ms and the judged one g; avg = (29 * 33 + g) / 30;
        // threshold max(3 avg, avg + 150) = avg + 150 for avg < 75: g >= avg + 150
        // <=> g >= (957 + 4500) / 29 = 188.17 ms.
        let at = |gap_us: u64| {
            let mut t: Vec<_> = (0..30)
                .map(|i| Timestamp::from_micros(i * 33_000))
                .collect();
            t.push(Timestamp::from_micros(29 * 33_000 + gap_us));
            freeze_stats(t)
        };
        // avg = (957 ms + g) / 30 exactly at g = 5457/29 ms: use whole microseconds
        // around it.
        let g = 5_457_000 / 29;
        assert_eq!(at(g + 1).freezes, 1);
        assert_eq!(at(g - 1).freezes, 0);
        // Exactly at the threshold, on the 3 x avg branch: 5 intervals of 60 ms and a
        // gap of 300 ms: avg = 600 / 6 = 100 ms, max(300, 250) = 300 ms.
        let mut t: Vec<_> = (0..6).map(|i| ms(i * 60)).collect();
        t.push(ms(300 + 300));
        let s = freeze_stats(t.clone());
        assert_eq!(s.freezes, 1, "equal to the threshold is a freeze");
        assert_eq!(s.total_freezes_duration, TimeDelta::millis(300));
        // 10 us shorter: the threshold (which averages the gap in) falls by 5 us only.
        *t.last_mut().unwrap() = Timestamp::from_micros(599_990);
        assert_eq!(freeze_stats(t).freezes, 0, "just below it is not");
    }

    #[test]
    fn fewer_than_five_intervals_detect_no_freeze() {
        // 3 intervals of 33 ms and a 1 s gap: only 4 intervals.
        assert_eq!(freeze_stats(steady_then(4, 1000)).freezes, 0);
        // One more steady frame: 5 intervals, the gap is a freeze.
        assert_eq!(freeze_stats(steady_then(5, 1000)).freezes, 1);
    }

    #[test]
    fn more_than_five_seconds_is_a_pause_not_a_freeze() {
        let s = freeze_stats(steady_then(40, 5001));
        assert_eq!((s.freezes, s.pauses), (0, 1));
        assert_eq!(s.total_pauses_duration, TimeDelta::millis(5001));
        // Exactly 5 s is not a pause (strict), and is a freeze.
        let s = freeze_stats(steady_then(40, 5000));
        assert_eq!((s.freezes, s.pauses), (1, 0));
        assert_eq!(s.total_freezes_duration, TimeDelta::secs(5));
    }

    #[test]
    fn a_pause_does_not_enter_the_average() {
        // After a pause, a 200 ms gap is still judged against the 33 ms frames.
        let mut t = steady_then(40, 6000);
        let last = *t.last().unwrap();
        t.push(last + TimeDelta::millis(33));
        t.push(last + TimeDelta::millis(233));
        let s = freeze_stats(t);
        assert_eq!((s.freezes, s.pauses, s.frames), (1, 1, 43));
    }

    #[test]
    fn the_average_is_over_the_last_thirty_intervals() {
        // 100 intervals of 300 ms, then 30 of 33 ms: the old long ones have left the
        // window, so a 300 ms gap is a freeze (threshold ~ 33 + 150 ... with the gap).
        let mut t: Vec<_> = (0..=100).map(|i| ms(i * 300)).collect();
        let base = *t.last().unwrap();
        t.extend((1..=30).map(|i| base + TimeDelta::millis(33 * i)));
        let base = *t.last().unwrap();
        t.push(base + TimeDelta::millis(300));
        let s = freeze_stats(t);
        assert_eq!(s.freezes, 1);
    }

    #[test]
    fn a_steady_stream_never_freezes() {
        let s = freeze_stats((0..1000).map(|i| ms(i * 33)));
        assert_eq!((s.freezes, s.pauses, s.frames), (0, 0, 1000));
    }
}
