//! One-way and queuing delay (RFC 8698 section 5.1.1): d_fwd = t_recv - t_sent (the two
//! clocks need not be synchronized: a constant offset cancels), d_base = the minimum
//! d_fwd observed, d_queue = d_fwd - d_base, and a minimum filter over the last
//! `min_filter_taps` (15) raw samples of d_queue to remove outliers.

use crate::units::{TimeDelta, Timestamp};
use std::collections::VecDeque;

/// Queuing-delay estimator.
#[derive(Debug, Clone)]
pub struct QueuingDelay {
    taps: usize,
    base: Option<TimeDelta>,
    /// The last `taps` one-way delays d_fwd (the base is subtracted when read, so a
    /// new, lower base applies to the whole window at once).
    recent: VecDeque<TimeDelta>,
}

impl QueuingDelay {
    pub fn new(taps: usize) -> Self {
        QueuingDelay {
            taps: taps.max(1),
            base: None,
            recent: VecDeque::with_capacity(taps.max(1)),
        }
    }

    /// A packet sent at `sent` (sender clock) arrived at `received` (receiver clock).
    /// Returns the raw (unfiltered) queuing delay of this packet.
    pub fn on_packet(&mut self, sent: Timestamp, received: Timestamp) -> TimeDelta {
        // d_fwd = t_recv - t_sent.
        let d_fwd = received - sent;
        // d_base = min(d_base, d_fwd).
        let base = self.base.map_or(d_fwd, |b| b.min(d_fwd));
        self.base = Some(base);
        if self.recent.len() == self.taps {
            self.recent.pop_front();
        }
        self.recent.push_back(d_fwd);
        d_fwd - base
    }

    /// The base delay d_base, once a packet has arrived.
    pub fn base(&self) -> Option<TimeDelta> {
        self.base
    }

    /// The filtered queuing delay d_queue: min over the last taps of d_fwd - d_base.
    pub fn queuing_delay(&self) -> TimeDelta {
        match (self.base, self.recent.iter().min()) {
            (Some(b), Some(&m)) => (m - b).max(TimeDelta::ZERO),
            _ => TimeDelta::ZERO,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(ms: u64) -> Timestamp {
        Timestamp::from_millis(ms)
    }

    #[test]
    fn queuing_delay_is_owd_minus_base_min_filtered() {
        let mut q = QueuingDelay::new(3);
        // Clock offset 1000 ms, propagation 50 ms: d_fwd = 1050 ms, base 1050 ms.
        assert_eq!(q.on_packet(t(0), t(1050)), TimeDelta::ZERO);
        // 30 ms of queue: raw 30 ms, but the filter still holds the 0 sample.
        assert_eq!(q.on_packet(t(10), t(1090)), TimeDelta::millis(30));
        assert_eq!(q.queuing_delay(), TimeDelta::ZERO);
        q.on_packet(t(20), t(1100));
        q.on_packet(t(30), t(1110)); // 3 taps: 30, 30, 30 ms
        assert_eq!(q.queuing_delay(), TimeDelta::millis(30));
        // One outlier of 200 ms does not move the filtered value.
        q.on_packet(t(40), t(1290));
        assert_eq!(q.queuing_delay(), TimeDelta::millis(30));
        assert_eq!(q.base(), Some(TimeDelta::millis(1050)));
    }

    #[test]
    fn a_lower_base_applies_to_the_window() {
        let mut q = QueuingDelay::new(2);
        q.on_packet(t(0), t(100));
        q.on_packet(t(10), t(120)); // d_fwd 110
        q.on_packet(t(20), t(110)); // d_fwd 90: new base
                                    // Window holds 110 and 90, base 90: min - base = 0.
        assert_eq!(q.queuing_delay(), TimeDelta::ZERO);
        q.on_packet(t(30), t(140)); // 110
        assert_eq!(q.queuing_delay(), TimeDelta::ZERO);
        q.on_packet(t(40), t(150)); // 110: window 110, 110
        assert_eq!(q.queuing_delay(), TimeDelta::millis(20));
    }
}
