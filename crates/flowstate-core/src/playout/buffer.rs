//! The receiver's frame buffer: complete frames wait for their decode time, and are
//! released in frame order (libwebrtc's `VideoStreamBufferController` with
//! `FrameBuffer`, `video/video_stream_buffer_controller.cc`, signalapp/webrtc bd635df).
//!
//! The rule: the next frame to decode is the lowest-numbered complete frame the
//! decoder can take ([`ReferenceChain`]); the decoder starts it at the latest of its
//! render time less decode time and render delay ([`RenderTiming`]), its completion,
//! and the end of the previous decode; it is on screen decode time + render delay
//! later. Frames before it that are not complete by then are lost (libwebrtc drops
//! every frame older than the one it decodes).
//!
//! A frame whose decode would start more than `late_margin` after its latest decode
//! start (render time less decode time and render delay) while a later frame the
//! decoder can take is already complete is skipped, not decoded: libwebrtc's
//! `FrameDecodeTiming::OnFrameBufferUpdated` (`video/frame_decode_timing.cc`) fast-
//! forwards past it when its wait is below -`kMaxAllowedFrameDelay` (5 ms) and it is
//! not the last decodable frame, and the receive statistics count it in
//! `framesDropped`. A late frame that is the last decodable one is decoded and
//! rendered late (its lateness is in the frame delay).
//!
//! The buffer is driven by the packets' arrivals: [`FrameBuffer::advance`] releases
//! every frame whose decode starts at or before `now`, so a frame whose decode start is
//! the same instant as a packet's arrival is released before that packet counts.

use super::assembly::CompletedFrame;
use super::decodability::ReferenceChain;
use super::timing::RenderTiming;
use crate::units::{TimeDelta, Timestamp};

/// A frame on screen.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RenderedFrame {
    pub id: u64,
    pub capture_time: Timestamp,
    /// When its last needed packet arrived.
    pub completed_at: Timestamp,
    /// When it was on screen.
    pub rendered_at: Timestamp,
}

impl RenderedFrame {
    /// Capture to screen.
    pub fn delay(&self) -> TimeDelta {
        self.rendered_at - self.capture_time
    }
}

#[derive(Debug, Clone, Copy)]
struct Waiting {
    frame: CompletedFrame,
    render_time: Timestamp,
}

/// Complete frames to rendered frames.
#[derive(Debug, Clone)]
pub struct FrameBuffer {
    timing: RenderTiming,
    chain: ReferenceChain,
    late_margin: TimeDelta,
    /// Complete frames not yet decoded, by id (a few at a time).
    waiting: Vec<Waiting>,
    /// Frames below this id are decoded or lost.
    next_id: u64,
    decoder_free_at: Timestamp,
    last_render: Timestamp,
    /// The next decode: (position in `waiting`, its start), or `None` when nothing is
    /// decodable; recomputed only when `waiting` changes (`stale`).
    next: Option<(usize, Timestamp)>,
    stale: bool,
    /// The ids of the frames skipped for lateness, in order.
    skipped: Vec<u64>,
}

impl FrameBuffer {
    pub fn new(timing: RenderTiming, chain: ReferenceChain, late_margin: TimeDelta) -> Self {
        Self {
            timing,
            chain,
            late_margin,
            waiting: Vec::new(),
            next_id: 0,
            decoder_free_at: Timestamp::ZERO,
            last_render: Timestamp::ZERO,
            next: None,
            stale: false,
            skipped: Vec::new(),
        }
    }

    /// The ids of the frames skipped because they were late while a later frame was
    /// ready (ascending).
    pub fn skipped(&self) -> &[u64] {
        &self.skipped
    }

    /// Whether a frame after the one at `at` that the decoder could take next is
    /// complete by `by`.
    fn later_frame_ready(&self, at: usize, by: Timestamp) -> bool {
        let mut chain = self.chain.clone();
        chain.on_decoded(self.waiting[at].frame.id);
        self.waiting[at + 1..]
            .iter()
            .any(|w| w.frame.completed_at <= by && chain.decodable(w.frame.id, w.frame.keyframe))
    }

    /// Frames below this id are decoded or lost.
    pub fn next_id(&self) -> u64 {
        self.next_id
    }

    pub fn timing(&self) -> &RenderTiming {
        &self.timing
    }

    /// The frames waiting that the decoder will take in turn (complete and decodable
    /// once the ones before them are decoded), in order.
    pub fn decodable_waiting(&self) -> Vec<u64> {
        let mut chain = self.chain.clone();
        let mut ids = Vec::new();
        for w in &self.waiting {
            if chain.decodable(w.frame.id, w.frame.keyframe) {
                chain.on_decoded(w.frame.id);
                ids.push(w.frame.id);
            }
        }
        ids
    }

    /// A frame became complete (its render time is fixed now).
    pub fn insert(&mut self, frame: CompletedFrame) {
        if frame.id < self.next_id {
            return;
        }
        self.timing
            .on_complete(frame.capture_time, frame.completed_at);
        let render_time = self
            .timing
            .render_time(frame.capture_time, frame.completed_at);
        let w = Waiting { frame, render_time };
        match self.waiting.binary_search_by_key(&frame.id, |w| w.frame.id) {
            Ok(i) => self.waiting[i] = w,
            Err(i) => self.waiting.insert(i, w),
        }
        self.stale = true;
    }

    /// The lowest decodable waiting frame's position and decode start.
    fn next_decode(&mut self) -> Option<(usize, Timestamp)> {
        if self.stale {
            self.stale = false;
            let lead = self.timing.lead();
            self.next = self
                .waiting
                .iter()
                .position(|w| self.chain.decodable(w.frame.id, w.frame.keyframe))
                .map(|at| {
                    let w = &self.waiting[at];
                    let earliest = Timestamp::from_micros(
                        w.render_time
                            .as_micros()
                            .saturating_sub(lead.as_micros().max(0) as u64),
                    );
                    let start = earliest.max(w.frame.completed_at).max(self.decoder_free_at);
                    (at, start)
                });
        }
        self.next
    }

    /// Release every frame whose decode starts at or before `now` into `out`.
    pub fn advance(&mut self, now: Timestamp, out: &mut Vec<RenderedFrame>) {
        let lead = self.timing.lead();
        loop {
            let Some((at, start)) = self.next_decode() else {
                return;
            };
            if start > now {
                return;
            }
            let latest_start = Timestamp::from_micros(
                self.waiting[at]
                    .render_time
                    .as_micros()
                    .saturating_sub(lead.as_micros().max(0) as u64),
            );
            let skip = start > latest_start + self.late_margin && self.later_frame_ready(at, start);
            let w = self.waiting[at];
            let id = w.frame.id;
            self.waiting.drain(..=at);
            self.stale = true;
            self.next_id = id + 1;
            self.chain.on_decoded(id);
            if skip {
                self.skipped.push(id);
                continue;
            }
            self.decoder_free_at = start + self.timing.config().decode_time;
            self.timing.on_decode(
                w.frame.capture_time,
                w.frame.completed_at,
                w.frame.repaired,
                w.render_time,
                start,
            );
            let on_screen = (start + lead).max(self.last_render);
            self.last_render = on_screen;
            out.push(RenderedFrame {
                id,
                capture_time: w.frame.capture_time,
                completed_at: w.frame.completed_at,
                rendered_at: on_screen,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::timing::{PlayoutMode, TimingConfig, DEFAULT_RENDER_DELAY};
    use super::*;
    use crate::units::DataSize;

    fn ms(v: u64) -> Timestamp {
        Timestamp::from_millis(v)
    }

    fn fixed(chain: bool) -> FrameBuffer {
        let timing = RenderTiming::new(TimingConfig {
            mode: PlayoutMode::Fixed {
                playout_delay: TimeDelta::millis(100),
            },
            decode_time: TimeDelta::millis(5),
            render_delay: DEFAULT_RENDER_DELAY,
            min_playout_delay: TimeDelta::ZERO,
        });
        FrameBuffer::new(timing, ReferenceChain::new(chain), TimeDelta::millis(5))
    }

    fn frame(id: u64, complete_ms: u64) -> CompletedFrame {
        CompletedFrame {
            id,
            capture_time: ms(id * 33),
            keyframe: id == 0,
            size: DataSize::bytes(1000),
            completed_at: ms(complete_ms),
            repaired: false,
        }
    }

    fn run(b: &mut FrameBuffer, frames: &[CompletedFrame], until: u64) -> Vec<RenderedFrame> {
        let mut out = Vec::new();
        for f in frames {
            b.advance(f.completed_at, &mut out);
            b.insert(*f);
            b.advance(f.completed_at, &mut out);
        }
        b.advance(ms(until), &mut out);
        out
    }

    #[test]
    fn frames_render_at_capture_plus_the_delay_in_order() {
        let mut b = fixed(false);
        let out = run(&mut b, &[frame(0, 30), frame(1, 70), frame(2, 90)], 1000);
        let at: Vec<_> = out.iter().map(|r| r.rendered_at).collect();
        assert_eq!(at, [ms(100), ms(133), ms(166)]);
        assert!(b.skipped().is_empty());
        assert_eq!(out[1].delay(), TimeDelta::millis(100));
    }

    #[test]
    fn a_late_frame_with_nothing_after_it_is_rendered_late() {
        let mut b = fixed(false);
        // Frame 1 (render time 133, latest decode start 118) complete at 130 and alone:
        // decoded 130..135, on screen at 145.
        let out = run(&mut b, &[frame(0, 30), frame(1, 130), frame(2, 158)], 1000);
        assert_eq!(out[1].rendered_at, ms(145));
        assert_eq!(out.len(), 3);
        assert!(b.skipped().is_empty());
    }

    #[test]
    fn a_late_frame_is_skipped_when_a_later_one_is_ready_past_the_margin() {
        // Frame 1's latest decode start is 118 ms; it completes at 124 (6 ms past it,
        // beyond the 5 ms margin) with frame 2 already complete: skipped, never rendered.
        let mut b = fixed(false);
        let out = run(&mut b, &[frame(0, 30), frame(2, 90), frame(1, 124)], 1000);
        assert_eq!(out.iter().map(|r| r.id).collect::<Vec<_>>(), [0, 2]);
        assert_eq!(b.skipped(), [1]);
        // 5 ms past it (exactly at the margin): decoded and rendered.
        let mut b = fixed(false);
        let out = run(&mut b, &[frame(0, 30), frame(2, 90), frame(1, 123)], 1000);
        assert_eq!(out.iter().map(|r| r.id).collect::<Vec<_>>(), [0, 1, 2]);
        assert!(b.skipped().is_empty());
    }

    #[test]
    fn a_frame_missing_when_a_later_one_is_decoded_is_lost() {
        let mut b = fixed(false);
        // Frame 1 never completes; frame 2 is decoded at 166 - 15 = 151; frame 1
        // completing after that is ignored.
        let out = run(&mut b, &[frame(0, 30), frame(2, 90), frame(1, 160)], 1000);
        let ids: Vec<_> = out.iter().map(|r| r.id).collect();
        assert_eq!(ids, [0, 2]);
        // Completing before the later frame's decode start, it is rendered first.
        let mut b = fixed(false);
        let out = run(&mut b, &[frame(0, 30), frame(2, 90), frame(1, 110)], 1000);
        let ids: Vec<_> = out.iter().map(|r| r.id).collect();
        assert_eq!(ids, [0, 1, 2]);
    }

    #[test]
    fn with_the_reference_chain_a_loss_stops_decoding_until_a_key_frame() {
        let mut b = fixed(true);
        let mut key = frame(4, 150);
        key.keyframe = true;
        let out = run(
            &mut b,
            &[frame(0, 30), frame(2, 90), frame(3, 120), key],
            1000,
        );
        let ids: Vec<_> = out.iter().map(|r| r.id).collect();
        assert_eq!(ids, [0, 4]);
        // Without it, 2 and 3 are decoded.
        let mut b = fixed(false);
        let out = run(
            &mut b,
            &[frame(0, 30), frame(2, 90), frame(3, 120), key],
            1000,
        );
        assert_eq!(out.len(), 4);
    }

    #[test]
    fn the_decode_at_a_packet_instant_comes_before_the_packet() {
        // Frame 2's decode starts at 151 ms; frame 1 completes at exactly 151: lost.
        let mut b = fixed(false);
        let out = run(&mut b, &[frame(0, 30), frame(2, 90), frame(1, 151)], 1000);
        assert_eq!(out.iter().map(|r| r.id).collect::<Vec<_>>(), [0, 2]);
    }
}
