//! The rate shaping buffer and the two rates derived from r_ref (RFC 8698 section
//! 4.3, equations (11)-(14), and section 5.2.1): the encoder target r_vin is lowered
//! and the sending rate r_send raised in proportion to the bytes waiting in the
//! buffer, by at most 5 % of r_ref, so the buffer drains within a few frames.
//!
//! ```text
//! r_diff_v = min(0.05 * r_ref, BETA_V * 8 * buffer_len * FPS)     (11)
//! r_diff_s = min(0.05 * r_ref, BETA_S * 8 * buffer_len * FPS)     (12)
//! r_vin    = max(RMIN, r_ref - r_diff_v)                          (13)
//! r_send   = min(RMAX, r_ref + r_diff_s)                          (14)
//! ```

use super::config::NadaConfig;
use crate::units::{Bitrate, DataSize, TimeDelta, Timestamp};
use std::collections::VecDeque;

/// r_vin: the target rate for the video encoder (equations (11) and (13)).
pub fn encoder_rate(r_ref: Bitrate, buffer_len: DataSize, cfg: &NadaConfig) -> Bitrate {
    let backlog = cfg.beta_v * buffer_len.as_bits_f64() * cfg.fps;
    let r_diff_v = (cfg.max_rate_offset * r_ref.as_bps()).min(backlog);
    Bitrate::bps(r_ref.as_bps() - r_diff_v).max(cfg.min_rate)
}

/// r_send: the rate the shaping buffer is drained at (equations (12) and (14)).
pub fn sending_rate(r_ref: Bitrate, buffer_len: DataSize, cfg: &NadaConfig) -> Bitrate {
    let backlog = cfg.beta_s * buffer_len.as_bits_f64() * cfg.fps;
    let r_diff_s = (cfg.max_rate_offset * r_ref.as_bps()).min(backlog);
    Bitrate::bps(r_ref.as_bps() + r_diff_s).min(cfg.max_rate)
}

/// The rate shaping buffer (section 5.2.1): encoded packets wait here and leave at
/// r_send, paced.
#[derive(Debug, Clone, Default)]
pub struct ShapingBuffer {
    queue: VecDeque<DataSize>,
    bytes: DataSize,
    next_send: Timestamp,
}

impl ShapingBuffer {
    pub fn new() -> Self {
        Self::default()
    }

    /// buffer_len: bytes waiting.
    pub fn len(&self) -> DataSize {
        self.bytes
    }

    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }

    /// Packets waiting.
    pub fn packets(&self) -> usize {
        self.queue.len()
    }

    /// An encoded packet of `size` enters the buffer.
    pub fn push(&mut self, now: Timestamp, size: DataSize) {
        if self.queue.is_empty() {
            self.next_send = self.next_send.max(now);
        }
        self.queue.push_back(size);
        self.bytes += size;
    }

    /// When the head packet may leave (`None` when empty).
    pub fn next_send_time(&self) -> Option<Timestamp> {
        (!self.queue.is_empty()).then_some(self.next_send)
    }

    /// The head packet if it may leave at `now`, pacing the next one at `r_send`.
    pub fn pop(&mut self, now: Timestamp, r_send: Bitrate) -> Option<DataSize> {
        if now < self.next_send {
            return None;
        }
        let size = self.queue.pop_front()?;
        self.bytes -= size;
        let gap = size / r_send;
        // A zero rate never sends again; keep the gap bounded so time stays finite.
        let gap = gap.min(TimeDelta::secs(10));
        self.next_send = self.next_send.max(now - TimeDelta::millis(1)) + gap;
        Some(size)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_move_with_the_backlog() {
        let cfg = NadaConfig::default();
        let r = Bitrate::kbps(800.0);
        // 100 B waiting: 0.1 * 800 bit * 30 = 2.4 kbit/s each way (below 5 % = 40).
        let b = DataSize::bytes(100);
        assert!((encoder_rate(r, b, &cfg).as_kbps() - 797.6).abs() < 1e-9);
        assert!((sending_rate(r, b, &cfg).as_kbps() - 802.4).abs() < 1e-9);
        // 1000 B: 24 kbit/s; 10 000 B: 240, capped at 5 % of r_ref = 40 kbit/s.
        let b = DataSize::bytes(1000);
        assert!((encoder_rate(r, b, &cfg).as_kbps() - 776.0).abs() < 1e-9);
        let big = DataSize::bytes(10_000);
        assert!((encoder_rate(r, big, &cfg).as_kbps() - 760.0).abs() < 1e-9);
        assert!((sending_rate(r, big, &cfg).as_kbps() - 840.0).abs() < 1e-9);
        // r_vin floored at RMIN, r_send capped at RMAX.
        assert_eq!(encoder_rate(cfg.min_rate, big, &cfg), cfg.min_rate);
        assert_eq!(sending_rate(cfg.max_rate, big, &cfg), cfg.max_rate);
        assert_eq!(encoder_rate(r, DataSize::ZERO, &cfg), r);
    }

    #[test]
    fn buffer_paces_at_r_send() {
        let mut s = ShapingBuffer::new();
        let t0 = Timestamp::from_millis(10);
        for _ in 0..3 {
            s.push(t0, DataSize::bytes(1000));
        }
        assert_eq!(s.len(), DataSize::bytes(3000));
        let r = Bitrate::kbps(800.0); // 1000 B = 10 ms
        assert_eq!(s.pop(t0, r), Some(DataSize::bytes(1000)));
        assert_eq!(s.pop(t0, r), None);
        assert_eq!(s.next_send_time(), Some(Timestamp::from_millis(20)));
        assert_eq!(
            s.pop(Timestamp::from_millis(20), r),
            Some(DataSize::bytes(1000))
        );
        assert_eq!(
            s.pop(Timestamp::from_millis(30), r),
            Some(DataSize::bytes(1000))
        );
        assert!(s.is_empty());
        assert_eq!(s.next_send_time(), None);
    }
}
