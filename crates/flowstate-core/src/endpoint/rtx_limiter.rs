//! The retransmission rate limiter (option `nack_rtx`; [`super::rtx`]): retransmissions
//! may use at most the target rate, measured over a 500 ms window.
//!
//! Sources: WebRTC M150, signalapp/webrtc bd635df. `call/rtp_transport_controller_send.cc`
//! creates the limiter with `kRetransmitWindowSizeMs` 500 (:67) and sets its maximum to
//! each new target rate (`retransmission_rate_limiter_.SetMaxRate`, :219);
//! `rtc_base/rate_limiter.cc` `TryUseRate`: a packet is refused when the rate so far plus
//! the packet spread over the window exceeds the maximum, and allowed (and counted) when
//! there is no rate yet; `rtc_base/rate_statistics.cc` `Rate`: the bytes of the last
//! window over the active window (at most the window, from the first sample), no rate
//! without samples, with an active window of 1 ms or less, or with one sample in a
//! window not yet full. Times in whole milliseconds, as libwebrtc keeps them.

use crate::units::{Bitrate, DataSize, TimeDelta, Timestamp};
use std::collections::VecDeque;

/// `kRetransmitWindowSizeMs` (rtp_transport_controller_send.cc:67).
pub const RETRANSMIT_WINDOW: TimeDelta = TimeDelta::millis(500);

/// `RateLimiter` over `RateStatistics`: the retransmitted bytes of the last window.
#[derive(Debug, Clone)]
pub struct RetransmissionLimiter {
    window_ms: u64,
    /// (ms, bytes) of the retransmissions allowed, oldest first.
    samples: VecDeque<(u64, u64)>,
    total: u64,
    /// `first_timestamp_`: the first sample since the window last emptied.
    first_ms: Option<u64>,
}

impl Default for RetransmissionLimiter {
    fn default() -> Self {
        Self::new(RETRANSMIT_WINDOW)
    }
}

impl RetransmissionLimiter {
    pub fn new(window: TimeDelta) -> Self {
        Self {
            window_ms: u64::try_from(window.as_micros() / 1000).unwrap_or(1).max(1),
            samples: VecDeque::new(),
            total: 0,
            first_ms: None,
        }
    }

    /// `EraseOld`: samples before `now - window + 1` leave.
    fn erase_old(&mut self, now_ms: u64) {
        let oldest = (now_ms + 1).saturating_sub(self.window_ms);
        while let Some(&(t, b)) = self.samples.front() {
            if t >= oldest {
                break;
            }
            self.samples.pop_front();
            self.total -= b;
        }
    }

    /// `RateStatistics::Rate`: `None` while there is too little to say.
    fn rate(&mut self, now_ms: u64) -> Option<Bitrate> {
        self.erase_old(now_ms);
        let first = self.first_ms?;
        let active = if first + self.window_ms <= now_ms {
            self.window_ms
        } else {
            now_ms.saturating_sub(first) + 1
        };
        let n = self.samples.len();
        if n == 0 || active <= 1 || (n <= 1 && active < self.window_ms) {
            return None;
        }
        Some(Bitrate::bps(self.total as f64 * 8000.0 / active as f64))
    }

    /// `TryUseRate`: whether a retransmission of `size` (its RTP size) may go at `now`
    /// with the limit `max_rate`; if so it is counted.
    pub fn try_use(&mut self, now: Timestamp, size: DataSize, max_rate: Bitrate) -> bool {
        let now_ms = now.as_micros() / 1000;
        if let Some(rate) = self.rate(now_ms) {
            let addition = size.as_bits_f64() * 1000.0 / self.window_ms as f64;
            if rate.as_bps() + addition > max_rate.as_bps() {
                return false;
            }
        }
        if self.samples.is_empty() {
            self.first_ms = Some(now_ms);
        }
        self.samples.push_back((now_ms, size.as_bytes()));
        self.total += size.as_bytes();
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retransmissions_are_limited_to_the_target_over_500_ms() {
        // 160 kbit/s over 500 ms: 10,000 B. 1,000 B packets every 10 ms (800 kbit/s
        // offered): the rate is first known at the second packet; from then a packet
        // goes only while rate + 1,000 B / 500 ms <= 160 kbit/s.
        let mut l = RetransmissionLimiter::default();
        let max = Bitrate::kbps(160.0);
        let mut allowed = 0u64;
        for i in 0..300u64 {
            if l.try_use(Timestamp::from_millis(i * 10), DataSize::bytes(1000), max) {
                allowed += 1;
            }
        }
        // 3 s: about 3 s x 160 kbit/s / 8 kbit = 60 packets, not 300.
        assert!((50..=70).contains(&allowed), "{allowed} allowed");
    }

    #[test]
    fn a_first_retransmission_always_goes() {
        let mut l = RetransmissionLimiter::default();
        assert!(l.try_use(
            Timestamp::from_millis(5),
            DataSize::bytes(1200),
            Bitrate::kbps(1.0)
        ));
        // One sample in a window not yet full: still no rate, so it goes.
        assert!(l.try_use(
            Timestamp::from_millis(5),
            DataSize::bytes(1200),
            Bitrate::kbps(1.0)
        ));
        // Two samples and 11 ms active: 2,400 B x 8 / 11 ms = 1.7 Mbit/s, refused.
        assert!(!l.try_use(
            Timestamp::from_millis(15),
            DataSize::bytes(1200),
            Bitrate::kbps(1.0)
        ));
    }
}
