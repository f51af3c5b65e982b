//! A video flow's frame figures in the outputs: summary.json's per-flow `video` object
//! and the time series' `fps`, `frame_delay_ms` and `freezes` columns, from the
//! receiver's frame playout (flowstate-core's `playout`) and the sender's encoder log.

use super::series::SeriesRow;
use flowstate_core::playout::freeze::Interval;
use flowstate_core::playout::stats::intervals;
use flowstate_core::playout::{EncoderLog, FramePlayout, VideoStats};
use flowstate_core::{TimeDelta, Timestamp};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// Capture to screen of the frames rendered in the window, ms (`null`: none).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
pub struct FrameDelayMs {
    pub mean: Option<f64>,
    pub p50: Option<f64>,
    pub p95: Option<f64>,
    pub p99: Option<f64>,
}

/// summary.json `flows[].video` (docs/SCENARIOS.md, "Outputs"; the definitions are
/// flowstate-core's `playout::stats`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
pub struct VideoSummary {
    pub frames_encoded: u64,
    pub frames_rendered: u64,
    pub frames_dropped_encoder: u64,
    pub frames_lost: u64,
    pub frames_late: u64,
    pub frame_delay_ms: FrameDelayMs,
    /// Frames rendered per second of the window.
    pub fps: f64,
    pub freezes: u64,
    pub freeze_duration_s: f64,
    pub freezes_per_min: f64,
    pub pauses: u64,
    pub pause_duration_s: f64,
}

impl From<VideoStats> for VideoSummary {
    fn from(s: VideoStats) -> Self {
        let d = s.frame_delay_ms;
        VideoSummary {
            frames_encoded: s.frames_encoded,
            frames_rendered: s.frames_rendered,
            frames_dropped_encoder: s.frames_dropped_encoder,
            frames_lost: s.frames_lost,
            frames_late: s.frames_late,
            frame_delay_ms: FrameDelayMs {
                mean: d.mean,
                p50: d.p50,
                p95: d.p95,
                p99: d.p99,
            },
            fps: s.fps,
            freezes: s.freezes,
            freeze_duration_s: s.freeze_duration_s,
            freezes_per_min: s.freezes_per_min,
            pauses: s.pauses,
            pause_duration_s: s.pause_duration_s,
        }
    }
}

/// The `video` object over `[start, end)`.
pub fn video_summary(
    encoder: &EncoderLog,
    playout: &FramePlayout,
    start: Timestamp,
    end: Timestamp,
) -> VideoSummary {
    playout.stats(encoder, start, end).into()
}

/// Fill the `fps`, `frame_delay_ms` and `freezes` columns of the video flows' rows
/// (`flows`: each video flow's name and playout; each row is its flow's bin, `bin` wide
/// from its `time_s`, the last one ending at `end`) from the frames they rendered. One
/// pass over the rows, whatever the number of flows.
pub fn fill_series(
    rows: &mut [SeriesRow],
    flows: &[(&str, &FramePlayout)],
    bin: TimeDelta,
    end: Timestamp,
) {
    type Frames<'a> = std::iter::Peekable<
        Box<dyn Iterator<Item = (&'a flowstate_core::playout::RenderedFrame, Interval)> + 'a>,
    >;
    let mut cursors: HashMap<&str, Frames<'_>> = flows
        .iter()
        .map(|&(name, p)| {
            let it: Box<dyn Iterator<Item = _>> = Box::new(intervals(p.rendered()));
            (name, it.peekable())
        })
        .collect();
    for row in rows.iter_mut() {
        let Some(frames) = cursors.get_mut(row.flow.as_str()) else {
            continue;
        };
        let start = Timestamp::from_micros((row.time_s * 1e6).round() as u64);
        let stop = (start + bin).min(end);
        let (mut n, mut delay_ms, mut freezes) = (0_u64, 0.0, 0_u64);
        while let Some((f, interval)) = frames.peek() {
            if f.rendered_at >= stop {
                break;
            }
            if f.rendered_at >= start {
                n += 1;
                delay_ms += f.delay().as_millis_f64();
                freezes += u64::from(matches!(interval, Interval::Freeze(_)));
            }
            frames.next();
        }
        let secs = stop.saturating_since(start).as_secs_f64();
        row.fps = Some(if secs > 0.0 { n as f64 / secs } else { 0.0 });
        row.frame_delay_ms = (n > 0).then(|| delay_ms / n as f64);
        row.freezes = Some(freezes);
    }
}
