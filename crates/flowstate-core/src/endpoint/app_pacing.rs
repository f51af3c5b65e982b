//! A web application's pacing of its own data-channel writes: a token bucket
//! at the rate the Web-API rule gives ([`crate::coupling::web_api`]) and a cap on the
//! channel's `bufferedAmount`, as js/flowstate-coupling does with
//! `bufferedAmountLowThreshold`.
//!
//! The application writes one message whenever the bucket is not in debt (tokens >= 0)
//! and the channel holds at most `low_threshold` bytes: what the rate moves in 20 ms,
//! between 1 KiB and `message_size` ([`AppPacing::chunk`]); each write takes its size
//! in tokens (the bucket may go into debt by one message, so that a
//! message larger than the bucket still goes out at the average rate). Tokens refill at
//! the pacing rate up to `depth` bytes: after an idle spell the application may burst
//! at most `depth` + one message. Rate [`Bitrate::INFINITY`] is unpaced (only the
//! buffer cap holds), rate zero writes nothing.

use crate::units::{Bitrate, DataSize, TimeDelta, Timestamp};

/// A paced write carries what the rate moves in this time (20 ms)...
pub const CHUNK_TIME: TimeDelta = TimeDelta::millis(20);
/// ...but at least this much (1 KiB).
pub const MIN_CHUNK: DataSize = DataSize::kibibytes(1);

/// The application's token bucket in front of a data channel.
#[derive(Debug, Clone, PartialEq)]
pub struct AppPacing {
    rate: Bitrate,
    message_size: DataSize,
    low_threshold: DataSize,
    depth: DataSize,
    /// Bytes of credit (negative: debt).
    tokens: f64,
    last: Timestamp,
}

impl AppPacing {
    /// The defaults of js/flowstate-coupling: 16 KiB messages (RFC 8831 section 6.6:
    /// the largest size every implementation interoperates with), a 64 KiB
    /// `bufferedAmountLowThreshold` and a bucket one message deep.
    pub fn web_defaults(rate: Bitrate, now: Timestamp) -> Self {
        Self::new(
            rate,
            DataSize::kibibytes(16),
            DataSize::kibibytes(64),
            DataSize::kibibytes(16),
            now,
        )
    }

    /// A bucket that starts empty at `now`. A zero `message_size` is taken as 1 byte.
    pub fn new(
        rate: Bitrate,
        message_size: DataSize,
        low_threshold: DataSize,
        depth: DataSize,
        now: Timestamp,
    ) -> Self {
        AppPacing {
            rate,
            message_size: message_size.max(DataSize::bytes(1)),
            low_threshold,
            depth,
            tokens: 0.0,
            last: now,
        }
    }

    pub fn rate(&self) -> Bitrate {
        self.rate
    }
    pub fn message_size(&self) -> DataSize {
        self.message_size
    }

    fn refill(&mut self, now: Timestamp) {
        if now <= self.last {
            return;
        }
        let dt = now.saturating_since(self.last).as_secs_f64();
        self.last = now;
        let cap = self.depth.as_bytes() as f64;
        if self.rate.is_finite() {
            self.tokens = (self.tokens + self.rate.as_bps() * dt / 8.0).min(cap);
        } else {
            self.tokens = cap;
        }
    }

    /// A new pacing rate from `now` on (tokens earned so far at the old rate are kept).
    pub fn set_rate(&mut self, now: Timestamp, rate: Bitrate) {
        self.refill(now);
        self.rate = rate;
    }

    /// The size of the message the application may write at `now` with `buffered`
    /// bytes in the channel, taking its tokens; `None` if it must wait.
    pub fn take(&mut self, now: Timestamp, buffered: DataSize) -> Option<DataSize> {
        self.refill(now);
        if buffered > self.low_threshold || self.rate == Bitrate::ZERO || self.tokens < 0.0 {
            return None;
        }
        let size = self.chunk();
        if self.rate.is_finite() {
            self.tokens -= size.as_bytes() as f64;
        }
        Some(size)
    }

    /// The size of the next write: what the rate moves in [`CHUNK_TIME`], within
    /// [[`MIN_CHUNK`], `message_size`] (a greedy application writing 16 KiB at
    /// 150 kbit/s would send one burst every 0.9 s).
    pub fn chunk(&self) -> DataSize {
        let size = (self.rate * CHUNK_TIME).max(MIN_CHUNK);
        size.min(self.message_size)
    }

    /// When the bucket is out of debt again (`None`: now, unpaced, or never at rate 0).
    /// A full channel buffer is not a timer: the sender's progress frees it.
    pub fn next_write(&self) -> Option<Timestamp> {
        if self.tokens >= 0.0 || !self.rate.is_finite() || self.rate == Bitrate::ZERO {
            return None;
        }
        let secs = -self.tokens * 8.0 / self.rate.as_bps();
        let wait = TimeDelta::from_secs_f64(secs).max(TimeDelta::from_micros(1));
        Some(self.last + TimeDelta::from_micros(wait.as_micros() + 1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bucket(rate: Bitrate) -> AppPacing {
        AppPacing::new(
            rate,
            DataSize::bytes(1000),
            DataSize::bytes(4000),
            DataSize::bytes(1000),
            Timestamp::ZERO,
        )
    }

    // Average rate: n writes of 1000 B at 80 kbit/s take (n - 1) * 100 ms.
    #[test]
    fn writes_at_the_pacing_rate() {
        let mut b = bucket(Bitrate::kbps(80.0));
        let mut now = Timestamp::ZERO;
        let mut writes = 0;
        while now < Timestamp::from_secs(10) {
            if b.take(now, DataSize::ZERO).is_some() {
                writes += 1;
            } else {
                now = b.next_write().unwrap();
            }
        }
        // 10 s at 10 kB/s = 100 messages (+1 at t = 0).
        assert!((100..=101).contains(&writes), "{writes}");
    }

    #[test]
    fn buffer_cap_blocks_and_rate_zero_never_writes() {
        let mut b = bucket(Bitrate::INFINITY);
        assert!(b.take(Timestamp::ZERO, DataSize::bytes(4001)).is_none());
        assert!(b.take(Timestamp::ZERO, DataSize::bytes(4000)).is_some());
        assert!(b.take(Timestamp::ZERO, DataSize::bytes(4000)).is_some());
        assert_eq!(b.next_write(), None);
        let mut z = bucket(Bitrate::ZERO);
        assert!(z.take(Timestamp::from_secs(5), DataSize::ZERO).is_none());
        assert_eq!(z.next_write(), None);
    }

    // After idling, the burst is bounded by depth + one message.
    #[test]
    fn idle_credit_is_bounded_by_depth() {
        let mut b = bucket(Bitrate::mbps(1.0));
        let t = Timestamp::from_secs(60);
        let mut burst = 0;
        while b.take(t, DataSize::ZERO).is_some() {
            burst += 1;
        }
        assert_eq!(burst, 2);
    }

    // A rate change keeps what was earned at the old rate.
    #[test]
    fn set_rate_keeps_earned_tokens() {
        let mut b = bucket(Bitrate::kbps(80.0));
        assert!(b.take(Timestamp::ZERO, DataSize::ZERO).is_some());
        // 50 ms at 80 kbit/s = 500 B earned: debt -500.
        b.set_rate(Timestamp::from_millis(50), Bitrate::kbps(8.0));
        // 500 B at 1 kB/s: 500 ms more.
        let next = b.next_write().unwrap();
        assert!((next.as_micros() as i64 - 550_000).abs() <= 2, "{next}");
    }
}
