//! Frame assembly: a video frame from its RTP packets. A frame is complete when every
//! one of its media packets has arrived, or when the missing ones can be recovered from
//! the ULPFEC packets that protect it.
//!
//! Packets as the crate's media senders send them ([`RtpPacket`]): a media packet
//! carries its frame's id, capture time, packet count and its index in the frame; a
//! retransmission (RTX, `nack_rtx`) carries the original's fields, so it fills the same
//! slot; a duplicate (the same frame and index again) changes nothing; padding
//! (`frame_id` `u64::MAX`) is ignored.
//!
//! FEC recovery (`chromium_fec`). libwebrtc's `UlpfecGenerator` (ulpfec_generator.cc)
//! protects whole frames: a block is the media packets since the previous block, closed
//! at a frame's last packet, at most `max_fec_frames` frames; its FEC packets carry that
//! last frame's id here. The rule modelled: a block spans the frames after the frame of
//! the previous FEC packet the receiver saw, up to the FEC packets' frame; when at least
//! as many of its FEC packets have arrived as media packets are missing from it, every
//! missing packet is recovered (an ideal erasure code). RFC 5109 section 8 recovers one
//! packet per FEC packet by XOR, when every other packet of that FEC packet's mask has
//! arrived; with libwebrtc's `kFecMaskRandom` masks some patterns of that many losses
//! are not recoverable, so the rule is an upper bound on what ULPFEC recovers. Two more
//! simplifications: a frame none of whose media packets arrived is not recovered (its
//! packet count is known only from its packets; ULPFEC's mask would name them), and the
//! 48-packet limit of a block (`kUlpfecMaxMediaPackets`) is not applied.

use crate::endpoint::media::RtpPacket;
use crate::units::{DataSize, Timestamp};
use std::collections::VecDeque;

/// A frame of more packets than this is not assembled (its packets are ignored): far
/// above any frame of the crate's encoders (a 2.5 Mbit/s key frame is about 30 packets).
pub const MAX_PACKETS_PER_FRAME: u32 = 1 << 16;
/// A packet of a frame this many ids or more past the oldest frame not finished is
/// ignored (it bounds the memory a stream of wild frame ids can take: 10 s at 400
/// frames/s).
pub const MAX_FRAMES_AHEAD: u64 = 4096;

/// A frame all of whose media is here (received or recovered).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CompletedFrame {
    pub id: u64,
    pub capture_time: Timestamp,
    pub keyframe: bool,
    /// Media payload of the packets that arrived.
    pub size: DataSize,
    /// When its last needed packet arrived.
    pub completed_at: Timestamp,
    /// A retransmission (RTX) or FEC recovery completed it (libwebrtc's jitter
    /// estimator leaves such frames out: `delayed_by_retransmission`).
    pub repaired: bool,
}

#[derive(Debug, Clone, Default)]
struct PartialFrame {
    capture_time: Timestamp,
    keyframe: bool,
    /// 0 until a media packet arrived.
    count: u32,
    received: Bits,
    received_n: u32,
    size: DataSize,
    /// Distinct FEC packets (by sequence number) of the block ending at this frame.
    fec: Vec<u64>,
    /// The first frame of the block ending at this frame (set with its first FEC packet).
    block_start: Option<u64>,
    retransmitted: bool,
    complete: bool,
}

/// Which packets of a frame arrived: a bit per index, the first 128 inline.
#[derive(Debug, Clone, Default)]
struct Bits {
    inline: [u64; 2],
    more: Vec<u64>,
}

impl Bits {
    /// Set bit `i`; `false` if it was set already.
    fn set(&mut self, i: u32) -> bool {
        let (w, b) = ((i / 64) as usize, i % 64);
        let word = match w {
            0 | 1 => &mut self.inline[w],
            _ => {
                if self.more.len() <= w - 2 {
                    self.more.resize(w - 1, 0);
                }
                &mut self.more[w - 2]
            }
        };
        let was = *word >> b & 1 == 1;
        *word |= 1 << b;
        !was
    }
}

impl PartialFrame {
    fn missing(&self) -> Option<u32> {
        (self.count > 0).then(|| self.count - self.received_n)
    }
}

/// Packets in, completed frames out.
#[derive(Debug, Clone, Default)]
pub struct FrameAssembler {
    /// Frames from `floor` on, by id - `floor`.
    frames: VecDeque<PartialFrame>,
    /// Frames below this id are finished (played or given up): their packets are
    /// ignored.
    floor: u64,
    /// The highest frame id a FEC packet named so far.
    last_fec_frame: Option<u64>,
}

impl FrameAssembler {
    pub fn new() -> Self {
        Self::default()
    }

    /// A packet arrived at `now` (`retransmission`: on the RTX stream); the frames it
    /// completes are appended to `out` in id order.
    pub fn on_packet(
        &mut self,
        now: Timestamp,
        p: &RtpPacket,
        retransmission: bool,
        out: &mut Vec<CompletedFrame>,
    ) {
        if p.frame_id == u64::MAX || p.frame_id < self.floor {
            return;
        }
        if p.is_fec() {
            self.on_fec(now, p, out);
            return;
        }
        if p.frame_packet_count == 0
            || p.frame_packet_count > MAX_PACKETS_PER_FRAME
            || p.frame_packet_index >= p.frame_packet_count
        {
            return;
        }
        let Some(f) = self.entry(p.frame_id) else {
            return;
        };
        if f.count == 0 {
            f.count = p.frame_packet_count;
        } else if f.count != p.frame_packet_count {
            return;
        }
        f.capture_time = p.frame_capture_time;
        f.keyframe |= p.keyframe;
        if f.complete || !f.received.set(p.frame_packet_index) {
            return;
        }
        f.received_n += 1;
        f.size += p.payload_size;
        f.retransmitted |= retransmission;
        if f.received_n == f.count {
            self.complete(p.frame_id, now, false, out);
            return;
        }
        if self.last_fec_frame.is_none() {
            return;
        }
        if let Some(end) = self.block_covering(p.frame_id) {
            self.try_recover(end, now, out);
        }
    }

    fn on_fec(&mut self, now: Timestamp, p: &RtpPacket, out: &mut Vec<CompletedFrame>) {
        let start = match self.last_fec_frame {
            Some(last) if last < p.frame_id => (last + 1).max(self.floor),
            _ => p.frame_id,
        };
        let Some(f) = self.entry(p.frame_id) else {
            return;
        };
        if f.fec.contains(&p.sequence_number) {
            return;
        }
        f.fec.push(p.sequence_number);
        if f.count == 0 {
            f.capture_time = p.frame_capture_time;
        }
        f.block_start.get_or_insert(start);
        self.last_fec_frame = Some(
            self.last_fec_frame
                .map_or(p.frame_id, |l| l.max(p.frame_id)),
        );
        self.try_recover(p.frame_id, now, out);
    }

    /// Frame `id`'s state (made on first use); `None` for a finished frame or one too
    /// far ahead.
    fn entry(&mut self, id: u64) -> Option<&mut PartialFrame> {
        let i = id.checked_sub(self.floor)?;
        if i >= MAX_FRAMES_AHEAD {
            return None;
        }
        let i = i as usize;
        if self.frames.len() <= i {
            self.frames.resize_with(i + 1, PartialFrame::default);
        }
        self.frames.get_mut(i)
    }

    fn get(&self, id: u64) -> Option<&PartialFrame> {
        self.frames
            .get(usize::try_from(id.checked_sub(self.floor)?).ok()?)
    }

    /// The frame whose FEC block covers `id`, if FEC for it arrived.
    fn block_covering(&self, id: u64) -> Option<u64> {
        let from = usize::try_from(id.checked_sub(self.floor)?).ok()?;
        self.frames
            .iter()
            .enumerate()
            .skip(from)
            .find(|(_, f)| f.block_start.is_some())
            .filter(|(_, f)| f.block_start.is_some_and(|s| s <= id))
            .map(|(i, _)| self.floor + i as u64)
    }

    /// Recover the block ending at `end` if its FEC packets cover its missing packets.
    fn try_recover(&mut self, end: u64, now: Timestamp, out: &mut Vec<CompletedFrame>) {
        let Some(block) = self.get(end) else {
            return;
        };
        let Some(start) = block.block_start else {
            return;
        };
        let fec = block.fec.len() as u64;
        let mut missing = 0_u64;
        for id in start..=end {
            match self.get(id).and_then(PartialFrame::missing) {
                Some(m) => missing += u64::from(m),
                None => return,
            }
        }
        if missing == 0 || missing > fec {
            return;
        }
        for id in start..=end {
            if self.get(id).is_some_and(|f| !f.complete) {
                self.complete(id, now, true, out);
            }
        }
    }

    fn complete(
        &mut self,
        id: u64,
        now: Timestamp,
        recovered: bool,
        out: &mut Vec<CompletedFrame>,
    ) {
        let Some(f) = self.entry(id) else {
            return;
        };
        f.complete = true;
        out.push(CompletedFrame {
            id,
            capture_time: f.capture_time,
            keyframe: f.keyframe,
            size: f.size,
            completed_at: now,
            repaired: recovered || f.retransmitted,
        });
    }

    /// Frames up to and including `id` are finished: forget them and ignore their
    /// packets from now on.
    pub fn finish_through(&mut self, id: u64) {
        let floor = id.saturating_add(1);
        while self.floor < floor {
            if self.frames.pop_front().is_none() {
                self.floor = floor;
                break;
            }
            self.floor += 1;
        }
    }

    /// Frames started but not complete (for tests and diagnostics).
    pub fn pending(&self) -> usize {
        self.frames
            .iter()
            .filter(|f| f.count > 0 && !f.complete)
            .count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn media(frame: u64, index: u32, count: u32, seq: u64) -> RtpPacket {
        RtpPacket {
            ssrc: 1,
            sequence_number: seq,
            transport_seq: seq,
            send_time: Timestamp::ZERO,
            payload_size: DataSize::bytes(1000),
            frame_id: frame,
            frame_capture_time: Timestamp::from_millis(frame * 33),
            frame_packet_index: index,
            frame_packet_count: count,
            keyframe: frame == 0,
        }
    }

    fn fec(frame: u64, seq: u64) -> RtpPacket {
        RtpPacket {
            frame_packet_index: 0,
            frame_packet_count: 0,
            keyframe: false,
            ..media(frame, 0, 1, seq)
        }
    }

    fn feed(a: &mut FrameAssembler, ms: u64, p: RtpPacket, rtx: bool) -> Vec<u64> {
        let mut out = Vec::new();
        a.on_packet(Timestamp::from_millis(ms), &p, rtx, &mut out);
        out.iter().map(|f| f.id).collect()
    }

    #[test]
    fn a_frame_completes_with_its_last_packet_and_duplicates_change_nothing() {
        let mut a = FrameAssembler::new();
        assert!(feed(&mut a, 1, media(0, 0, 3, 0), false).is_empty());
        assert!(
            feed(&mut a, 2, media(0, 0, 3, 0), false).is_empty(),
            "duplicate"
        );
        assert!(feed(&mut a, 3, media(0, 2, 3, 2), false).is_empty());
        let mut out = Vec::new();
        a.on_packet(
            Timestamp::from_millis(4),
            &media(0, 1, 3, 1),
            false,
            &mut out,
        );
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].completed_at, Timestamp::from_millis(4));
        assert_eq!(out[0].size, DataSize::bytes(3000));
        assert!(out[0].keyframe && !out[0].repaired);
        assert!(
            feed(&mut a, 5, media(0, 1, 3, 1), false).is_empty(),
            "complete already"
        );
    }

    #[test]
    fn a_lost_packet_leaves_the_frame_incomplete_until_its_retransmission() {
        let mut a = FrameAssembler::new();
        feed(&mut a, 1, media(1, 0, 2, 10), false);
        assert_eq!(a.pending(), 1);
        // The RTX packet carries the original's fields.
        let got = {
            let mut out = Vec::new();
            a.on_packet(
                Timestamp::from_millis(60),
                &media(1, 1, 2, 11),
                true,
                &mut out,
            );
            out
        };
        assert_eq!(got.len(), 1);
        assert!(got[0].repaired);
        assert_eq!(got[0].completed_at, Timestamp::from_millis(60));
    }

    #[test]
    fn fec_recovers_as_many_missing_packets_as_fec_packets_arrived() {
        // Frame 2 of 4 packets, two lost, one FEC packet: not enough; a second: done.
        let mut a = FrameAssembler::new();
        feed(&mut a, 1, media(2, 0, 4, 20), false);
        feed(&mut a, 1, media(2, 3, 4, 23), false);
        assert!(feed(&mut a, 2, fec(2, 24), false).is_empty());
        assert!(
            feed(&mut a, 2, fec(2, 24), false).is_empty(),
            "a duplicate FEC packet"
        );
        assert_eq!(feed(&mut a, 3, fec(2, 25), false), vec![2]);
        // FEC before the media: recovery when the media that arrives leaves one gap.
        let mut a = FrameAssembler::new();
        feed(&mut a, 1, fec(5, 54), false);
        feed(&mut a, 2, media(5, 0, 3, 50), false);
        assert_eq!(feed(&mut a, 3, media(5, 2, 3, 52), false), vec![5]);
    }

    #[test]
    fn a_fec_block_spans_the_frames_since_the_previous_fec_packet() {
        let mut a = FrameAssembler::new();
        feed(&mut a, 1, media(0, 0, 1, 0), false);
        feed(&mut a, 1, fec(0, 1), false);
        // Block of frames 1 and 2 (FEC names frame 2); frame 1 misses one packet.
        feed(&mut a, 2, media(1, 0, 2, 2), false);
        feed(&mut a, 3, media(2, 0, 1, 4), false);
        assert_eq!(feed(&mut a, 4, fec(2, 5), false), vec![1]);
        // A frame none of whose packets arrived is not recovered.
        let mut a = FrameAssembler::new();
        feed(&mut a, 1, fec(0, 1), false);
        feed(&mut a, 3, media(2, 0, 1, 4), false);
        assert!(feed(&mut a, 4, fec(2, 5), false).is_empty());
        assert!(feed(&mut a, 4, fec(2, 6), false).is_empty());
    }

    #[test]
    fn finished_frames_and_padding_are_ignored() {
        let mut a = FrameAssembler::new();
        feed(&mut a, 1, media(3, 0, 2, 30), false);
        a.finish_through(3);
        assert_eq!(a.pending(), 0);
        assert!(feed(&mut a, 2, media(3, 1, 2, 31), false).is_empty());
        let mut pad = media(9, 0, 0, 99);
        pad.frame_id = u64::MAX;
        assert!(feed(&mut a, 2, pad, false).is_empty());
        assert_eq!(a.pending(), 0);
    }
}
