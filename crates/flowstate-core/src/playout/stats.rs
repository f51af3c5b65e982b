//! A video flow's frame-level figures over a measurement window, from the encoder's log
//! ([`EncoderLog`]) and the receiver's rendered frames ([`RenderedFrame`]).
//!
//! Over the window `[start, end)`:
//! - `frames_encoded`, `frames_dropped_encoder`: capture instants in the window the
//!   encoder encoded / dropped;
//! - `frames_lost`: frames encoded in the window that were never rendered: not
//!   complete, or not decodable, when a later frame was decoded, or still undecodable
//!   when the run ends (a frame after the last complete one, or complete, decodable and
//!   waiting for its decode time when the run ends, is neither rendered nor lost);
//! - `frames_rendered`, `fps`: frames on screen in the window (by their render time),
//!   per second of the window;
//! - `frames_late`: frames encoded in the window that the receiver skipped, complete
//!   but late while a later frame was ready ([`super::buffer`]; libwebrtc counts them in
//!   `framesDropped`); they are in neither `frames_rendered` nor `frames_lost`;
//! - `frame_delay_ms`: capture to screen of the frames rendered in the window: mean and
//!   the 50th, 95th and 99th percentiles (linear interpolation between the closest
//!   ranks, numpy's default);
//! - `freezes`, `freeze_duration_s`, `pauses`, `pause_duration_s`: the W3C figures
//!   ([`super::freeze`]) of the whole run's render times, counting the freezes and
//!   pauses that end in the window; `freezes_per_min` per minute of the window.

use super::buffer::RenderedFrame;
use super::encoder_log::EncoderLog;
use super::freeze::{FreezeDetector, Interval};
use crate::units::{TimeDelta, Timestamp};

/// Mean and percentiles of the capture-to-screen delay, ms (`None`: no frame).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct DelayStats {
    pub mean: Option<f64>,
    pub p50: Option<f64>,
    pub p95: Option<f64>,
    pub p99: Option<f64>,
}

/// A video flow's figures over a window.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct VideoStats {
    pub frames_encoded: u64,
    pub frames_rendered: u64,
    pub frames_dropped_encoder: u64,
    pub frames_lost: u64,
    pub frames_late: u64,
    pub frame_delay_ms: DelayStats,
    pub fps: f64,
    pub freezes: u64,
    pub freeze_duration_s: f64,
    pub freezes_per_min: f64,
    pub pauses: u64,
    pub pause_duration_s: f64,
}

/// The `q`-quantile of sorted `v` by linear interpolation between closest ranks.
pub fn percentile(sorted: &[f64], q: f64) -> Option<f64> {
    let n = sorted.len();
    if n == 0 {
        return None;
    }
    let pos = q.clamp(0.0, 1.0) * (n - 1) as f64;
    let lo = pos.floor() as usize;
    let hi = pos.ceil() as usize;
    let (a, b) = (sorted[lo], sorted[hi.min(n - 1)]);
    Some(a + (b - a) * (pos - lo as f64))
}

/// Mean and percentiles of `values` (any order).
pub fn delay_stats(mut values: Vec<f64>) -> DelayStats {
    if values.is_empty() {
        return DelayStats::default();
    }
    values.sort_by(f64::total_cmp);
    let mean = values.iter().sum::<f64>() / values.len() as f64;
    DelayStats {
        mean: Some(mean),
        p50: percentile(&values, 0.50),
        p95: percentile(&values, 0.95),
        p99: percentile(&values, 0.99),
    }
}

/// Each rendered frame with what the interval ending at it was (W3C rules).
pub fn intervals(rendered: &[RenderedFrame]) -> impl Iterator<Item = (&RenderedFrame, Interval)> {
    let mut d = FreezeDetector::new();
    rendered
        .iter()
        .map(move |r| (r, d.on_rendered(r.rendered_at)))
}

/// The figures over `[start, end)`; `lost(id)`: frame `id`, never rendered, is lost
/// (not still on its way or waiting for its decode time); `skipped`: the ids of the
/// frames skipped for lateness, ascending.
pub fn video_stats(
    encoder: &EncoderLog,
    rendered: &[RenderedFrame],
    skipped: &[u64],
    lost: impl Fn(u64) -> bool,
    start: Timestamp,
    end: Timestamp,
) -> VideoStats {
    let encoded = encoder.encoded_in(start, end);
    let is_rendered = |id: u64| rendered.binary_search_by_key(&id, |r| r.id).is_ok();
    let is_skipped = |id: u64| skipped.binary_search(&id).is_ok();
    let frames_lost = encoded
        .iter()
        .filter(|&&(id, _)| !is_rendered(id) && !is_skipped(id) && lost(id))
        .count() as u64;
    let frames_late = encoded.iter().filter(|&&(id, _)| is_skipped(id)).count() as u64;
    let in_window = |t: Timestamp| t >= start && t < end;
    let mut s = VideoStats {
        frames_encoded: encoded.len() as u64,
        frames_dropped_encoder: encoder.dropped_in(start, end),
        frames_lost,
        frames_late,
        ..VideoStats::default()
    };
    let mut delays = Vec::new();
    let (mut freeze, mut pause) = (TimeDelta::ZERO, TimeDelta::ZERO);
    for (r, interval) in intervals(rendered) {
        if !in_window(r.rendered_at) {
            continue;
        }
        s.frames_rendered += 1;
        delays.push(r.delay().as_millis_f64());
        match interval {
            Interval::Freeze(d) => {
                s.freezes += 1;
                freeze += d;
            }
            Interval::Pause(d) => {
                s.pauses += 1;
                pause += d;
            }
            Interval::First | Interval::Smooth(_) => {}
        }
    }
    let span = end.saturating_since(start).as_secs_f64();
    if span > 0.0 {
        s.fps = s.frames_rendered as f64 / span;
        s.freezes_per_min = s.freezes as f64 * 60.0 / span;
    }
    s.freeze_duration_s = freeze.as_secs_f64();
    s.pause_duration_s = pause.as_secs_f64();
    s.frame_delay_ms = delay_stats(delays);
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Timestamp {
        Timestamp::from_millis(v)
    }

    fn rendered(id: u64, at_ms: u64) -> RenderedFrame {
        RenderedFrame {
            id,
            capture_time: ms(id * 100),
            completed_at: ms(at_ms),
            rendered_at: ms(at_ms),
        }
    }

    #[test]
    fn percentiles_interpolate_between_ranks() {
        let v = [1.0, 2.0, 3.0, 4.0, 5.0];
        assert_eq!(percentile(&v, 0.5), Some(3.0));
        assert_eq!(percentile(&v, 0.95), Some(4.8));
        assert_eq!(percentile(&[], 0.5), None);
        assert_eq!(percentile(&[7.0], 0.99), Some(7.0));
    }

    #[test]
    fn the_window_counts_encoded_lost_rendered_late_and_freezes() {
        let mut enc = EncoderLog::new();
        for id in 0..20 {
            enc.on_encoded(id, ms(id * 100));
        }
        enc.on_dropped(ms(1050));
        // Frames 0..=9 and 15..=19 rendered 50 ms after capture; 10..=14 not: 12
        // skipped for lateness, the others lost; a gap of 600 ms after 9 intervals of
        // 100: a freeze.
        let mut r: Vec<_> = (0..10).map(|i| rendered(i, i * 100 + 50)).collect();
        r.extend((15..20).map(|i| rendered(i, i * 100 + 50)));
        let s = video_stats(&enc, &r, &[12], |_| true, ms(0), ms(2000));
        assert_eq!(s.frames_encoded, 20);
        assert_eq!(s.frames_rendered, 15);
        assert_eq!((s.frames_lost, s.frames_late), (4, 1));
        assert_eq!(s.frames_dropped_encoder, 1);
        assert_eq!((s.freezes, s.pauses), (1, 0));
        assert!((s.freeze_duration_s - 0.6).abs() < 1e-9);
        assert!((s.freezes_per_min - 30.0).abs() < 1e-9);
        assert!((s.fps - 7.5).abs() < 1e-9);
        assert_eq!(s.frame_delay_ms.p50, Some(50.0));
        // A frame not yet finished is not lost; the window cuts by capture and render.
        let s = video_stats(&enc, &r, &[], |id| id < 12, ms(1000), ms(2000));
        assert_eq!(
            (s.frames_encoded, s.frames_lost, s.frames_rendered),
            (10, 2, 5)
        );
        assert_eq!(s.freezes, 1, "the freeze ends in the window");
    }
}
