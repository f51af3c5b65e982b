//! Video source models for media senders: the papers' encoder bounds (minimum 50 kbit/s,
//! maximum 2 Mbit/s (paper 002) or 2.5 Mbit/s (paper 000), 30 or 60 fps), a perfect codec
//! for tests, and a statistics codec with rate-change lag and frame-size noise in the
//! spirit of RFC 8593 (its statistics-based model) and the syncodecs models.

pub mod perfect;
pub mod rng;
pub mod statistics;
pub mod vp8_frame_drop;

pub use perfect::PerfectCodec;
pub use statistics::{StatisticsCodec, StatisticsCodecConfig};

use crate::units::{Bitrate, DataSize, TimeDelta, Timestamp};

/// The encoder's limits.
#[derive(Debug, Clone, PartialEq)]
pub struct EncoderBounds {
    /// Minimum encoding rate (50 kbit/s).
    pub min_rate: Bitrate,
    /// Maximum encoding rate (VP8 in paper 002: 2 Mbit/s; paper 000: 2.5 Mbit/s).
    pub max_rate: Bitrate,
    /// Frames per second (30 or 60).
    pub fps: f64,
}

impl EncoderBounds {
    /// Paper 002: 2 Mbit/s, 30 fps.
    pub fn paper002() -> Self {
        Self {
            min_rate: Bitrate::kbps(50.0),
            max_rate: Bitrate::mbps(2.0),
            fps: 30.0,
        }
    }
    /// Paper 000: 2.5 Mbit/s, 30 fps.
    pub fn paper000() -> Self {
        Self {
            max_rate: Bitrate::mbps(2.5),
            ..Self::paper002()
        }
    }
    /// Clamp a target into the bounds.
    pub fn clamp(&self, r: Bitrate) -> Bitrate {
        r.max(self.min_rate).min(self.max_rate.max(self.min_rate))
    }
    /// Time between frames (1 s / fps; 1/30 s for a non-positive or NaN fps).
    pub fn frame_interval(&self) -> TimeDelta {
        let fps = if self.fps.is_finite() && self.fps > 0.0 {
            self.fps.min(1000.0)
        } else {
            30.0
        };
        TimeDelta::from_secs_f64(1.0 / fps)
    }
}

impl Default for EncoderBounds {
    fn default() -> Self {
        Self::paper000()
    }
}

/// One encoded frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Frame {
    pub id: u64,
    pub capture_time: Timestamp,
    pub size: DataSize,
    pub keyframe: bool,
}

/// The capture schedule both codecs share: frame ids from 0, one frame every frame
/// interval from the start time.
#[derive(Debug, Clone)]
pub(crate) struct FrameClock {
    next: Timestamp,
    id: u64,
}

impl FrameClock {
    pub fn new(start: Timestamp) -> Self {
        FrameClock { next: start, id: 0 }
    }

    /// The capture time of the next frame.
    pub fn next(&self) -> Timestamp {
        self.next
    }

    /// Whether the next frame is due at `now`.
    pub fn due(&self, now: Timestamp) -> bool {
        now >= self.next
    }

    /// The id the next frame gets.
    pub fn next_id(&self) -> u64 {
        self.id
    }

    /// The next frame is not encoded (dropped by the encoder's rate control); the one
    /// after it is captured `interval` later and gets the id this one would have had.
    pub fn skip(&mut self, interval: TimeDelta) {
        self.next += interval;
    }

    /// The next frame, of `size`; the one after it is captured `interval` later.
    pub fn emit(&mut self, interval: TimeDelta, size: DataSize, keyframe: bool) -> Frame {
        let f = Frame {
            id: self.id,
            capture_time: self.next,
            size,
            keyframe,
        };
        self.id += 1;
        self.next += interval;
        f
    }
}

/// Which model.
#[derive(Debug, Clone, PartialEq)]
pub enum VideoSourceConfig {
    Perfect(EncoderBounds),
    Statistics(StatisticsCodecConfig),
}

impl Default for VideoSourceConfig {
    fn default() -> Self {
        Self::Statistics(StatisticsCodecConfig::default())
    }
}

/// A video source: frames at a fixed frame rate with sizes following a target rate.
#[derive(Debug, Clone)]
pub enum VideoSource {
    Perfect(PerfectCodec),
    Statistics(StatisticsCodec),
}

impl VideoSource {
    /// A source whose first frame is captured at `start`; `seed` feeds the noise.
    pub fn new(cfg: &VideoSourceConfig, start: Timestamp, seed: u64) -> Self {
        match cfg {
            VideoSourceConfig::Perfect(b) => Self::Perfect(PerfectCodec::new(b.clone(), start)),
            VideoSourceConfig::Statistics(c) => {
                Self::Statistics(StatisticsCodec::new(c.clone(), start, seed))
            }
        }
    }
    /// The rate the application wants the encoder to produce (clamped to the bounds).
    pub fn set_target_rate(&mut self, now: Timestamp, rate: Bitrate) {
        match self {
            Self::Perfect(c) => c.set_target_rate(rate),
            Self::Statistics(c) => c.set_target_rate(now, rate),
        }
    }
    /// When the next frame is captured.
    pub fn next_frame_time(&self) -> Timestamp {
        match self {
            Self::Perfect(c) => c.next_frame_time(),
            Self::Statistics(c) => c.next_frame_time(),
        }
    }
    /// The next frame if it is due at `now`.
    pub fn poll_frame(&mut self, now: Timestamp) -> Option<Frame> {
        match self {
            Self::Perfect(c) => c.poll_frame(now),
            Self::Statistics(c) => c.poll_frame(now),
        }
    }
    /// The rate the encoder currently produces on average.
    pub fn encoder_rate(&self) -> Bitrate {
        match self {
            Self::Perfect(c) => c.encoder_rate(),
            Self::Statistics(c) => c.encoder_rate(),
        }
    }
}
