//! The wall clock the I/O layer runs the model on: microseconds since the emulator
//! started, and waiting precisely until a deadline (block until close to it, then spin:
//! OS sleeps overshoot by tens to hundreds of microseconds).

use flowstate_core::{TimeDelta, Timestamp};
use std::time::{Duration, Instant};

/// Microseconds since a fixed start.
#[derive(Debug, Clone, Copy)]
pub struct WallClock {
    start: Instant,
}

impl WallClock {
    pub fn new(start: Instant) -> Self {
        Self { start }
    }

    pub fn start(&self) -> Instant {
        self.start
    }

    /// Now, as a model time.
    pub fn now(&self) -> Timestamp {
        Timestamp::from_micros(u64::try_from(self.start.elapsed().as_micros()).unwrap_or(u64::MAX))
    }
}

/// How long to block before `deadline` at `now`, leaving `spin` to busy-wait; `None`
/// when the deadline is within the spin window (spin now).
pub fn block_for(now: Timestamp, deadline: Timestamp, spin: TimeDelta) -> Option<Duration> {
    let left = deadline.saturating_since(now) - spin;
    left.is_positive()
        .then(|| Duration::from_micros(left.as_micros().unsigned_abs()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_leaves_the_spin_window() {
        let spin = TimeDelta::from_micros(300);
        let now = Timestamp::from_micros(1_000);
        assert_eq!(
            block_for(now, Timestamp::from_micros(2_000), spin),
            Some(Duration::from_micros(700))
        );
        assert_eq!(block_for(now, Timestamp::from_micros(1_300), spin), None);
        assert_eq!(block_for(now, Timestamp::from_micros(500), spin), None);
    }

    #[test]
    fn clock_advances() {
        let c = WallClock::new(Instant::now());
        let a = c.now();
        std::thread::sleep(Duration::from_millis(2));
        let b = c.now();
        assert!(b - a >= TimeDelta::millis(2), "{a} -> {b}");
    }
}
