//! Video source models for media senders: the papers' encoder bounds (minimum 50 kbit/s,
//! maximum 2 Mbit/s (paper 002) or 2.5 Mbit/s (paper 000), 30 or 60 fps), a perfect codec
//! for tests, and a statistics codec with rate-change lag and frame-size noise in the
//! spirit of RFC 8593 (its statistics-based model) and the syncodecs models; and
//! Chromium's encoder bitrate adjuster ([`encoder_adjuster`]: the rate the encoder is
//! given after its recent overshoot), which a GCC preset switches on for the media sender.

mod bounds;
pub mod encoder_adjuster;
mod frame;
pub mod perfect;
pub mod rng;
pub mod statistics;
pub mod vp8_frame_drop;

pub use bounds::EncoderBounds;
pub use frame::Frame;
pub(crate) use frame::FrameClock;
pub use perfect::PerfectCodec;
pub use statistics::{StatisticsCodec, StatisticsCodecConfig};

use crate::units::{Bitrate, Timestamp};

/// Which model.
#[derive(Debug, Clone, PartialEq)]
pub enum VideoSourceConfig {
    Perfect(EncoderBounds),
    /// The perfect codec's frame sizes with noisy frame intervals (relative Laplace
    /// scale, [`PerfectCodec::with_interval_noise`]): cisco/syncodecs'
    /// `SimpleFpsBasedCodec`.
    FixedFps {
        bounds: EncoderBounds,
        interval_noise: f64,
    },
    Statistics(StatisticsCodecConfig),
}

impl VideoSourceConfig {
    /// The source's encoder bounds.
    pub fn bounds(&self) -> &EncoderBounds {
        match self {
            Self::Perfect(b) | Self::FixedFps { bounds: b, .. } => b,
            Self::Statistics(c) => &c.bounds,
        }
    }
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
            VideoSourceConfig::FixedFps {
                bounds,
                interval_noise,
            } => Self::Perfect(PerfectCodec::with_interval_noise(
                bounds.clone(),
                start,
                *interval_noise,
                seed,
            )),
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
    /// The application resumes capture at `now` after a pause: the frames it did not
    /// capture while paused are not produced later (no backlog).
    pub fn resume_at(&mut self, now: Timestamp) {
        match self {
            Self::Perfect(c) => c.resume_at(now),
            Self::Statistics(c) => c.resume_at(now),
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
    /// Record the capture instants the encoder dropped since the last call in `log`
    /// (the statistics codec's `vp8_drop`; the perfect codec drops none).
    #[inline]
    pub fn log_dropped(&mut self, log: &mut crate::playout::EncoderLog) {
        if let Self::Statistics(c) = self {
            if c.has_dropped() {
                for at in c.take_dropped() {
                    log.on_dropped(at);
                }
            }
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
