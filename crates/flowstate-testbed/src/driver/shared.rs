//! What the sender and receiver loops share: the clock, the metrics collector, and
//! per flow the goodput counter and the controller rate the series reports.

use super::timing::Clock;
use flowstate_core::{Bitrate, Timestamp};
use flowstate_sim::metrics::Metrics;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// No goodput counter (media flows: their goodput is their throughput).
pub(super) const NO_GOODPUT: u64 = u64::MAX;
/// No controller rate (window flows, flows not running): the series' empty cell.
pub(super) const NO_TARGET: u64 = u64::MAX;

/// A rate the sender loop published ([`NO_TARGET`]: none).
pub(super) fn published_rate(slot: &AtomicU64) -> Option<Bitrate> {
    let t = slot.load(Ordering::Relaxed);
    (t != NO_TARGET).then(|| Bitrate::bps(f64::from_bits(t)))
}

/// What the sender loop publishes for `rate` ([`published_rate`] reads it back).
pub(super) fn rate_bits(rate: Option<Bitrate>) -> u64 {
    rate.map_or(NO_TARGET, |r| r.as_bps().to_bits())
}

/// What both loops share.
pub(super) struct Shared {
    pub(super) clock: Clock,
    pub(super) metrics: Mutex<Metrics>,
    pub(super) goodput: Vec<AtomicU64>,
    /// Per flow: its rate controller's value in bit/s as `f64` bits (the series'
    /// `target_mbps`), published by the sender loop; [`NO_TARGET`] when none.
    pub(super) target: Vec<AtomicU64>,
    /// The measured run's end in microseconds (`u64::MAX` while it runs): events after
    /// it (the SCTP shutdown, packets still in flight) are not measured.
    pub(super) end_us: AtomicU64,
}

impl Shared {
    pub(super) fn goodput(&self, i: usize) -> Option<u64> {
        let g = self.goodput.get(i)?.load(Ordering::Relaxed);
        (g != NO_GOODPUT).then_some(g)
    }
    fn target(&self, i: usize) -> Option<Bitrate> {
        published_rate(self.target.get(i)?)
    }
    /// Record into the metrics at the current time.
    pub(super) fn record(&self, f: impl FnOnce(&mut Metrics, Timestamp)) {
        if let Ok(mut m) = self.metrics.lock() {
            let now = self.clock.now();
            if now.as_micros() >= self.end_us.load(Ordering::Relaxed) {
                return;
            }
            m.advance(now, |i| self.goodput(i), |i| self.target(i));
            f(&mut m, now);
        }
    }
}

#[cfg(test)]
#[path = "shared_tests.rs"]
mod tests;
