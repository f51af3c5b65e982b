//! When a frame is to be rendered: the playout rule, in one of two modes.
//!
//! - `fixed`: a frame captured at c is rendered at c + `playout_delay` (the two ends
//!   share one clock; a frame not decoded by then is rendered as soon as it is).
//! - `adaptive`, after libwebrtc's `VCMTiming` (`modules/video_coding/timing/timing.cc`,
//!   signalapp/webrtc bd635df): render time = the frame's expected completion
//!   ([`TransitEstimate`], libwebrtc's `TimestampExtrapolator`) + the current delay,
//!   at least `min_playout_delay`. The target delay is max(`min_playout_delay`, jitter
//!   estimate + decode time + render delay) (`TargetDelay`); the current delay starts
//!   at the jitter estimate (`SetMinimumDelay` while it is zero) and, at each decoded
//!   frame, grows by how late the frame was decoded (`UpdateCurrentDelay`: (decode
//!   start - render time) + decode time + render delay, when not negative), and is cut
//!   to the target when it would pass it.
//!
//! In both modes the decoder starts a frame at render time - decode time - render
//! delay, or when it is complete if that is later (`FrameDecodeTiming`'s wait), and the
//! frame is on screen decode time + render delay after its decode started.

use super::jitter_estimator::JitterEstimator;
use super::transit::{shift, TransitEstimate};
use crate::units::{TimeDelta, Timestamp};

/// `kDefaultRenderDelay` (timing.h): 10 ms.
pub const DEFAULT_RENDER_DELAY: TimeDelta = TimeDelta::millis(10);

/// The playout rule.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PlayoutMode {
    /// Render at capture + the delay.
    Fixed { playout_delay: TimeDelta },
    /// libwebrtc's adaptive rule: jitter estimate + decode time + render delay.
    Adaptive,
}

/// The timing parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TimingConfig {
    pub mode: PlayoutMode,
    /// The decoder's time per frame (a constant; libwebrtc measures it, the 95th
    /// percentile of recent decode times).
    pub decode_time: TimeDelta,
    /// `render_delay`.
    pub render_delay: TimeDelta,
    /// `min_playout_delay` (adaptive mode).
    pub min_playout_delay: TimeDelta,
}

/// The render times of the frames.
#[derive(Debug, Clone)]
pub struct RenderTiming {
    cfg: TimingConfig,
    transit: TransitEstimate,
    jitter: JitterEstimator,
    current_delay: TimeDelta,
    /// (capture, completion) of the previous frame the jitter estimate took.
    prev: Option<(Timestamp, Timestamp)>,
}

impl RenderTiming {
    pub fn new(cfg: TimingConfig) -> Self {
        Self {
            cfg,
            transit: TransitEstimate::new(),
            jitter: JitterEstimator::new(),
            current_delay: TimeDelta::ZERO,
            prev: None,
        }
    }

    pub fn config(&self) -> &TimingConfig {
        &self.cfg
    }

    /// A frame captured at `capture` became complete at `complete`
    /// (`OnCompleteTemporalUnit`).
    pub fn on_complete(&mut self, capture: Timestamp, complete: Timestamp) {
        self.transit.update(capture, complete);
    }

    /// The render time of a frame captured at `capture`, asked at `now`.
    pub fn render_time(&self, capture: Timestamp, now: Timestamp) -> Timestamp {
        match self.cfg.mode {
            PlayoutMode::Fixed { playout_delay } => shift(capture, playout_delay),
            PlayoutMode::Adaptive => match self.transit.expected_complete(capture) {
                Some(t) => {
                    // Before the first decode the current delay is not set (zero in
                    // libwebrtc, which makes the first frame late by its decode and
                    // render time): the first frame is rendered as soon as it can be.
                    let delay = if self.current_delay == TimeDelta::ZERO {
                        self.lead()
                    } else {
                        self.current_delay
                    };
                    shift(t, delay.max(self.cfg.min_playout_delay))
                }
                // No estimate yet: as soon as it can be decoded and rendered
                // (libwebrtc's `RenderTime` answers `now`, and the frame is decoded
                // at once).
                None => now + self.lead(),
            },
        }
    }

    /// Decode time + render delay: how long before its render time a frame is started.
    pub fn lead(&self) -> TimeDelta {
        self.cfg.decode_time + self.cfg.render_delay
    }

    /// The target delay (`TargetDelay`).
    pub fn target_delay(&self) -> TimeDelta {
        self.cfg
            .min_playout_delay
            .max(self.jitter.estimate() + self.lead())
    }

    pub fn current_delay(&self) -> TimeDelta {
        self.current_delay
    }

    /// A frame goes to the decoder at `decode_start` for `render_time`
    /// (`VideoStreamBufferController::OnFrameReady`); `repaired`: a retransmission or
    /// FEC completed it, which the jitter estimate leaves out.
    pub fn on_decode(
        &mut self,
        capture: Timestamp,
        complete: Timestamp,
        repaired: bool,
        render_time: Timestamp,
        decode_start: Timestamp,
    ) {
        if self.cfg.mode != PlayoutMode::Adaptive {
            return;
        }
        if !repaired {
            if let Some((c0, t0)) = self.prev {
                self.jitter.update((complete - t0) - (capture - c0));
            }
            self.prev = Some((capture, complete));
        }
        let jitter = self.jitter.estimate();
        if self.current_delay == TimeDelta::ZERO {
            self.current_delay = jitter;
        }
        let target = self.target_delay();
        let delayed = (decode_start - render_time) + self.lead();
        if delayed < TimeDelta::ZERO {
            return;
        }
        self.current_delay = if self.current_delay + delayed <= target {
            self.current_delay + delayed
        } else {
            target
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(mode: PlayoutMode) -> TimingConfig {
        TimingConfig {
            mode,
            decode_time: TimeDelta::millis(5),
            render_delay: DEFAULT_RENDER_DELAY,
            min_playout_delay: TimeDelta::ZERO,
        }
    }

    fn ms(v: u64) -> Timestamp {
        Timestamp::from_millis(v)
    }

    #[test]
    fn fixed_mode_renders_at_capture_plus_the_delay() {
        let t = RenderTiming::new(cfg(PlayoutMode::Fixed {
            playout_delay: TimeDelta::millis(150),
        }));
        assert_eq!(t.render_time(ms(1000), ms(1020)), ms(1150));
    }

    #[test]
    fn adaptive_mode_renders_the_first_frame_at_once_then_after_the_transit_plus_delay() {
        let mut t = RenderTiming::new(cfg(PlayoutMode::Adaptive));
        assert_eq!(t.render_time(ms(0), ms(40)), ms(55));
        t.on_complete(ms(0), ms(40));
        t.on_decode(ms(0), ms(40), false, ms(55), ms(40));
        // Current delay: the jitter estimate (11 ms); the frame was not late.
        assert_eq!(t.current_delay(), TimeDelta::millis(11));
        assert_eq!(t.target_delay(), TimeDelta::millis(26));
        assert_eq!(t.render_time(ms(33), ms(80)), ms(33 + 40 + 11));
        // The next frame is complete at 73 ms and can start only then, 4 ms after
        // 84 - 15: the current delay grows by 4 ms (below the target).
        t.on_complete(ms(33), ms(73));
        t.on_decode(ms(33), ms(73), false, ms(84), ms(73));
        assert_eq!(t.current_delay(), TimeDelta::millis(15));
        // Very late (100 ms): cut to the target.
        t.on_decode(ms(66), ms(206), false, ms(117), ms(206));
        assert_eq!(t.current_delay(), t.target_delay());
    }

    #[test]
    fn the_target_never_falls_below_the_minimum_playout_delay() {
        let mut c = cfg(PlayoutMode::Adaptive);
        c.min_playout_delay = TimeDelta::millis(200);
        let mut t = RenderTiming::new(c);
        t.on_complete(ms(0), ms(40));
        assert_eq!(t.target_delay(), TimeDelta::millis(200));
        assert_eq!(t.render_time(ms(0), ms(40)), ms(240));
        assert_eq!(t.current_delay(), TimeDelta::ZERO);
    }
}
