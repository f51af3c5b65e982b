//! How much a queue may hold: a byte, packet or time limit (the time limit in bytes at
//! the link's current rate).

use flowstate_core::{Bitrate, DataSize, TimeDelta};

/// How much a queue may hold.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum QueueLimit {
    /// At most this many bytes waiting.
    Bytes(u64),
    /// At most this many packets waiting.
    Packets(u64),
    /// At most as many bytes as the link sends in this time at its current rate
    /// (`limit_bytes = rate x time`, re-evaluated on every arrival).
    Time(TimeDelta),
}

impl QueueLimit {
    /// The byte limit this implies at `rate` (`None` for a packet limit).
    pub fn byte_limit(&self, rate: Bitrate) -> Option<u64> {
        match *self {
            QueueLimit::Bytes(b) => Some(b),
            QueueLimit::Packets(_) => None,
            QueueLimit::Time(t) => Some((rate * t).as_bytes()),
        }
    }

    /// Whether `len` packets of `bytes` in total fit, at link rate `rate` (a byte or
    /// time limit counts the bytes, a packet limit the packets).
    #[inline]
    pub fn holds(&self, len: u64, bytes: u64, rate: Bitrate) -> bool {
        match *self {
            QueueLimit::Packets(n) => len <= n,
            other => other.byte_limit(rate).is_some_and(|b| bytes <= b),
        }
    }

    /// Whether a packet of `size` fits behind `len` packets of `bytes` in total.
    #[inline]
    pub fn admits(&self, len: u64, bytes: u64, size: DataSize, rate: Bitrate) -> bool {
        self.holds(len + 1, bytes.saturating_add(size.as_bytes()), rate)
    }
}
