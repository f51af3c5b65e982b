//! The loops' clock and how long they sleep: until the earliest deadline, at most
//! [`MAX_WAIT`].

use flowstate_core::Timestamp;
use std::time::{Duration, Instant};

/// Longest a loop sleeps without looking at the clock (schedule, stop flag).
pub const MAX_WAIT: Duration = Duration::from_millis(5);
/// Shortest socket wait (a zero read timeout would mean "block forever").
pub const MIN_WAIT: Duration = Duration::from_micros(50);

#[derive(Debug, Clone, Copy)]
pub(super) struct Clock(pub(super) Instant);
impl Clock {
    pub(super) fn now(&self) -> Timestamp {
        Timestamp::from_micros(self.0.elapsed().as_micros() as u64)
    }
}

/// How long to sleep at `now` before the deadline `t` (`None`: none): [`MAX_WAIT`] at
/// most, nothing once it is due.
pub(super) fn wait_until(now: Timestamp, t: Option<Timestamp>) -> Duration {
    match t {
        Some(t) if t > now => Duration::from_micros((t - now).as_micros() as u64).min(MAX_WAIT),
        Some(_) => Duration::ZERO,
        None => MAX_WAIT,
    }
}

/// The earlier of two optional deadlines.
pub(super) fn earliest(a: Option<Timestamp>, b: Option<Timestamp>) -> Option<Timestamp> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, y) => x.or(y),
    }
}

#[cfg(test)]
#[path = "timing_tests.rs"]
mod tests;
