//! The incoming rate R over a sliding window (500 ms, paper 002 eq. 3; Chromium
//! `RateStatistics`). GCC's delay-based estimator (`gcc::delay_based`), NADA's
//! receiver (`nada::receiver`, r_recv) and SCReAM's sender (its transmit, ack and media
//! rates) each measure with one.
//!
//! libwebrtc: `rtc_base/rate_statistics.cc`; M100's send side measures throughput with
//! `modules/congestion_controller/goog_cc/acknowledged_bitrate_estimator.cc` instead,
//! which is not modelled (docs/ALGORITHMS.md, "libwebrtc sources").

use crate::units::{Bitrate, DataSize, TimeDelta, Timestamp};
use std::collections::VecDeque;

/// Bytes received per arrival time in a sliding window.
#[derive(Debug, Clone)]
pub struct RateWindow {
    window: TimeDelta,
    min_span: TimeDelta,
    samples: VecDeque<(Timestamp, u64)>,
    sum: u64,
    first: Option<Timestamp>,
    last: Timestamp,
}

impl RateWindow {
    /// `window`: averaging window (500 ms). `min_span`: no rate until samples span this
    /// long (avoids absurd rates from the first packet).
    pub fn new(window: TimeDelta, min_span: TimeDelta) -> Self {
        Self {
            window,
            min_span,
            samples: VecDeque::new(),
            sum: 0,
            first: None,
            last: Timestamp::ZERO,
        }
    }

    /// A packet of `size` arrived at `at` (out-of-order times are clamped forward).
    pub fn add(&mut self, at: Timestamp, size: DataSize) {
        let at = at.max(self.last);
        self.last = at;
        self.first.get_or_insert(at);
        self.samples.push_back((at, size.as_bytes()));
        self.sum = self.sum.saturating_add(size.as_bytes());
        self.evict(at);
    }

    fn evict(&mut self, now: Timestamp) {
        while let Some(&(t, b)) = self.samples.front() {
            if now.saturating_since(t) >= self.window {
                self.samples.pop_front();
                self.sum = self.sum.saturating_sub(b);
            } else {
                break;
            }
        }
    }

    /// The rate at `now`: bytes in (now - window, now] over min(window, time since the
    /// first sample); `None` until `min_span` has passed or with an empty window.
    pub fn rate(&mut self, now: Timestamp) -> Option<Bitrate> {
        let now = now.max(self.last);
        self.evict(now);
        let first = self.first?;
        let span = now.saturating_since(first).min(self.window);
        if span < self.min_span || self.samples.is_empty() || span <= TimeDelta::ZERO {
            return None;
        }
        Some(DataSize::bytes(self.sum) / span)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rate_over_window() {
        let mut w = RateWindow::new(TimeDelta::millis(500), TimeDelta::millis(100));
        // 1250 B every 10 ms = 1 Mbit/s.
        for i in 0..100u64 {
            w.add(Timestamp::from_millis(i * 10), DataSize::bytes(1250));
        }
        let r = w
            .rate(Timestamp::from_millis(990))
            .map_or(0.0, |b| b.as_bps());
        // Window (490, 990]: 50 packets = 62_500 B over 0.5 s = 1 Mbit/s.
        assert!((r - 1e6).abs() < 1.0, "{r}");
        // Long silence: empty window.
        assert_eq!(w.rate(Timestamp::from_millis(5000)), None);
    }

    #[test]
    fn no_rate_before_min_span() {
        let mut w = RateWindow::new(TimeDelta::millis(500), TimeDelta::millis(100));
        w.add(Timestamp::from_millis(0), DataSize::bytes(1000));
        assert_eq!(w.rate(Timestamp::from_millis(50)), None);
        // 1000 B over 200 ms = 40 kbit/s.
        let r = w
            .rate(Timestamp::from_millis(200))
            .map_or(0.0, |b| b.as_bps());
        assert!((r - 40_000.0).abs() < 1e-6);
    }
}
