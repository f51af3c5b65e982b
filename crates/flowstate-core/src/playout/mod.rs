//! The receiver's view of a video flow: frames assembled from RTP packets, decoded in
//! order, rendered by a playout rule, and the frame-level figures (rendered frames,
//! losses, late frames, capture-to-screen delay, W3C freezes and pauses).
//!
//! Sans-I/O like the rest of the crate, and an observer only: it is fed the packets
//! the receiver gets ([`FramePlayout::on_packet`]) and sends nothing, so a flow's
//! packets are the same with or without it. No timer: frames are released when time
//! is seen to pass (at each packet, and [`FramePlayout::advance`] at the end).
//!
//! One job per file: [`assembly`] (packets to complete frames, FEC recovery),
//! [`decodability`] (the reference-chain rule), [`transit`] and [`jitter_estimator`]
//! (libwebrtc's timestamp extrapolator and jitter estimate, reduced), [`timing`] (the
//! `fixed` and `adaptive` playout rules), [`buffer`] (the frame buffer: decode order,
//! lost and late frames), [`freeze`] (the W3C freeze and pause rules, on any series of
//! render times), [`encoder_log`] (the sender's encoded and dropped frames), [`stats`]
//! (the figures over a window). docs/ALGORITHMS.md, "Frame playout and freezes".

pub mod assembly;
pub mod buffer;
pub mod decodability;
pub mod encoder_log;
pub mod freeze;
pub mod jitter_estimator;
pub mod stats;
pub mod timing;
pub mod transit;

pub use assembly::{CompletedFrame, FrameAssembler};
pub use buffer::{FrameBuffer, RenderedFrame};
pub use decodability::ReferenceChain;
pub use encoder_log::EncoderLog;
pub use freeze::{freeze_stats, FreezeDetector, FreezeStats};
pub use stats::{video_stats, DelayStats, VideoStats};
pub use timing::{PlayoutMode, RenderTiming, TimingConfig, DEFAULT_RENDER_DELAY};

use crate::endpoint::media::RtpPacket;
use crate::units::{TimeDelta, Timestamp};

/// `kMaxAllowedFrameDelay` (video/frame_decode_timing.h): 5 ms.
pub const DEFAULT_LATE_MARGIN: TimeDelta = TimeDelta::millis(5);
/// The default decode time per frame.
pub const DEFAULT_DECODE_TIME: TimeDelta = TimeDelta::millis(5);
/// The `fixed` mode's default delay from capture to render.
pub const DEFAULT_FIXED_PLAYOUT_DELAY: TimeDelta = TimeDelta::millis(150);

/// The receiver's playout model.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlayoutConfig {
    pub mode: PlayoutMode,
    /// A delta frame needs the frame before it decoded ([`decodability`]).
    pub reference_chain: bool,
    pub decode_time: TimeDelta,
    pub render_delay: TimeDelta,
    /// The adaptive mode's floor on the target delay.
    pub min_playout_delay: TimeDelta,
    /// A frame whose decode would start later than its latest decode start by more
    /// than this is skipped when a later frame is ready ([`buffer`]).
    pub late_margin: TimeDelta,
}

impl Default for PlayoutConfig {
    /// Adaptive (libwebrtc's rule), no reference chain (the senders have no key-frame
    /// request), 5 ms decode time, 10 ms render delay, no minimum, 5 ms late margin.
    fn default() -> Self {
        Self {
            mode: PlayoutMode::Adaptive,
            reference_chain: false,
            decode_time: DEFAULT_DECODE_TIME,
            render_delay: DEFAULT_RENDER_DELAY,
            min_playout_delay: TimeDelta::ZERO,
            late_margin: DEFAULT_LATE_MARGIN,
        }
    }
}

/// Packets in, rendered frames out.
#[derive(Debug, Clone)]
pub struct FramePlayout {
    assembler: FrameAssembler,
    buffer: FrameBuffer,
    completed: Vec<CompletedFrame>,
    rendered: Vec<RenderedFrame>,
    /// The highest id of a frame that became complete.
    last_completed: Option<u64>,
}

impl FramePlayout {
    pub fn new(cfg: PlayoutConfig) -> Self {
        let timing = RenderTiming::new(TimingConfig {
            mode: cfg.mode,
            decode_time: cfg.decode_time,
            render_delay: cfg.render_delay,
            min_playout_delay: cfg.min_playout_delay,
        });
        Self {
            assembler: FrameAssembler::new(),
            buffer: FrameBuffer::new(
                timing,
                ReferenceChain::new(cfg.reference_chain),
                cfg.late_margin,
            ),
            completed: Vec::new(),
            rendered: Vec::new(),
            last_completed: None,
        }
    }

    /// A packet of the flow (media, FEC, padding, or a retransmission on the RTX
    /// stream: `retransmission`) arrived at `now`.
    pub fn on_packet(&mut self, now: Timestamp, p: &RtpPacket, retransmission: bool) {
        self.advance(now);
        self.assembler
            .on_packet(now, p, retransmission, &mut self.completed);
        if self.completed.is_empty() {
            return;
        }
        for f in self.completed.drain(..) {
            self.last_completed = Some(self.last_completed.map_or(f.id, |l| l.max(f.id)));
            self.buffer.insert(f);
        }
        self.advance(now);
    }

    /// Time reached `now`: render what is due.
    pub fn advance(&mut self, now: Timestamp) {
        let before = self.rendered.len();
        self.buffer.advance(now, &mut self.rendered);
        if self.rendered.len() > before {
            self.assembler.finish_through(self.buffer.next_id() - 1);
        }
    }

    /// The frames on screen so far, in order.
    pub fn rendered(&self) -> &[RenderedFrame] {
        &self.rendered
    }

    /// Whether frame `id`, not rendered, is lost as of now: it is not after the last
    /// complete frame (still on its way) and not waiting, decodable, for its decode.
    pub fn is_lost(&self, id: u64, waiting: &[u64]) -> bool {
        self.last_completed.is_some_and(|l| id <= l)
            && waiting.binary_search(&id).is_err()
            && self.buffer.skipped().binary_search(&id).is_err()
    }

    /// The figures over `[start, end)` against the sender's log.
    pub fn stats(&self, encoder: &EncoderLog, start: Timestamp, end: Timestamp) -> VideoStats {
        let waiting = self.buffer.decodable_waiting();
        video_stats(
            encoder,
            &self.rendered,
            self.buffer.skipped(),
            |id| self.is_lost(id, &waiting),
            start,
            end,
        )
    }
}

#[cfg(test)]
mod tests;
