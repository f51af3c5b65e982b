//! The send statistics the FEC controller reads: libwebrtc `RtpSenderEgress` keeps one
//! `BitrateTracker` per packet type over `kBitrateStatisticsWindow` = 1 s
//! (`modules/rtp_rtcp/source/rtp_sender_egress.cc`), each packet counted with its RTP
//! size when sent; `rtc_base/rate_statistics.cc` `Rate`: the bytes in the last second
//! over the active window (1 s, or since the first sample when younger; no value with a
//! single sample in a young window). The sent frame rate (`SendStatisticsProxy::
//! GetSendFrameRate`, `video/send_statistics_proxy.cc`): encoded frames over the last
//! second (`RateTracker` of 10 x 100 ms buckets), rounded (WebRTC M150, signalapp/webrtc
//! bd635df). Simplification: the frame-rate tracker counts whole frames in the last
//! second, not its partly counted oldest 100 ms bucket; `RateStatistics`' reset of the
//! start time after a gap of over 1.5 windows is not modelled (the trackers here are fed
//! continuously or not at all).

use crate::units::{Bitrate, DataSize, TimeDelta, Timestamp};
use std::collections::VecDeque;

/// `kBitrateStatisticsWindow`.
pub const WINDOW: TimeDelta = TimeDelta::secs(1);

/// A 1 s byte-rate window (`BitrateTracker`).
#[derive(Debug, Clone, Default)]
pub struct BitrateTracker {
    samples: VecDeque<(Timestamp, DataSize)>,
    sum: u64,
    first: Option<Timestamp>,
}

impl BitrateTracker {
    pub fn new() -> Self {
        Self::default()
    }

    fn erase_old(&mut self, now: Timestamp) {
        while let Some(&(t, s)) = self.samples.front() {
            if now.saturating_since(t) >= WINDOW {
                self.samples.pop_front();
                self.sum -= s.as_bytes();
            } else {
                break;
            }
        }
    }

    pub fn update(&mut self, now: Timestamp, size: DataSize) {
        self.erase_old(now);
        self.first.get_or_insert(now);
        self.samples.push_back((now, size));
        self.sum += size.as_bytes();
    }

    /// `Rate(now)`, `None` while unavailable.
    pub fn rate(&mut self, now: Timestamp) -> Option<Bitrate> {
        self.erase_old(now);
        let first = self.first?;
        let ms = |d: TimeDelta| d.as_micros() / 1000;
        let active_ms = if now.saturating_since(first) >= WINDOW {
            ms(WINDOW)
        } else {
            ms(now.saturating_since(first)) + 1
        };
        let n = self.samples.len();
        if n == 0 || active_ms <= 1 || (n <= 1 && active_ms < ms(WINDOW)) {
            return None;
        }
        Some(Bitrate::bps(self.sum as f64 * 8000.0 / active_ms as f64))
    }
}

/// The encoded frame rate over the last second (`GetSendFrameRate`).
#[derive(Debug, Clone)]
pub struct FrameRateTracker {
    start: Timestamp,
    frames: VecDeque<Timestamp>,
}

impl FrameRateTracker {
    /// `RateTracker`'s bucket (100 ms): no rate before one has passed.
    pub const BUCKET: TimeDelta = TimeDelta::millis(100);

    pub fn new(start: Timestamp) -> Self {
        Self {
            start,
            frames: VecDeque::new(),
        }
    }

    pub fn on_frame(&mut self, now: Timestamp) {
        self.frames.push_back(now);
    }

    /// Frames per second over the last second (or since the start), rounded.
    pub fn rate(&mut self, now: Timestamp) -> i32 {
        while self
            .frames
            .front()
            .is_some_and(|&t| now.saturating_since(t) >= WINDOW)
        {
            self.frames.pop_front();
        }
        let span = now.saturating_since(self.start).min(WINDOW);
        if span < Self::BUCKET {
            return 0;
        }
        (self.frames.len() as f64 / span.as_secs_f64()).round() as i32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(ms: u64) -> Timestamp {
        Timestamp::from_millis(ms)
    }

    #[test]
    fn bitrate_over_the_last_second() {
        let mut b = BitrateTracker::new();
        assert_eq!(b.rate(at(0)), None);
        b.update(at(0), DataSize::bytes(1000));
        // One sample in a young window: unavailable.
        assert_eq!(b.rate(at(500)), None);
        b.update(at(499), DataSize::bytes(1000));
        // 2000 B over 501 ms.
        let r = b.rate(at(500)).unwrap().as_bps();
        assert!((r - 2000.0 * 8000.0 / 501.0).abs() < 1e-6, "{r}");
        // A full window later only the second sample is in it: 1000 B / 1 s.
        assert_eq!(b.rate(at(1200)), Some(Bitrate::bps(8000.0)));
        assert_eq!(b.rate(at(1500)), None);
    }

    #[test]
    fn frame_rate_counts_the_last_second() {
        let mut f = FrameRateTracker::new(at(0));
        assert_eq!(f.rate(at(50)), 0);
        for i in 0..30 {
            f.on_frame(at(i * 100));
        }
        // 10 frames in (1.9 s, 2.9 s].
        assert_eq!(f.rate(at(2950)), 10);
        // 3 frames in the first 0.3 s: 10 / s.
        let mut g = FrameRateTracker::new(at(0));
        g.on_frame(at(0));
        g.on_frame(at(100));
        g.on_frame(at(200));
        assert_eq!(g.rate(at(300)), 10);
    }
}
