//! The encoder's limits: the papers' minimum and maximum encoding rates and frame rate.

use crate::units::{Bitrate, TimeDelta};

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
