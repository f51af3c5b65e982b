//! Spacing packets at a rate (RAP's inter-packet gap; TFRC, RFC 5348, 4.6: send at
//! `t_ipi = s / X`). The gap is taken from the *current* rate each time, so a rate
//! change (including a coupling manager's allowance) applies to the next packet.

use crate::units::{Bitrate, DataSize, TimeDelta, Timestamp};
use std::cell::Cell;

/// A packet scheduler: one slot per `size / rate`.
#[derive(Debug, Clone, Default)]
pub struct Pacer {
    last_slot: Option<Timestamp>,
    /// The last `(size, rate bits, gap)` computed: a sender asks for the next send
    /// time on every poll, and the rate changes far less often (a division and a
    /// rounding saved; the same gap).
    memo: Cell<Option<(DataSize, u64, Option<TimeDelta>)>>,
}

impl Pacer {
    pub fn new() -> Self {
        Pacer::default()
    }

    /// [`Pacer::gap`], remembered for the last `(size, rate)`.
    fn gap_memo(&self, size: DataSize, rate: Bitrate) -> Option<TimeDelta> {
        let bits = rate.as_bps().to_bits();
        match self.memo.get() {
            Some((s, r, gap)) if s == size && r == bits => gap,
            _ => {
                let gap = Self::gap(size, rate);
                self.memo.set(Some((size, bits, gap)));
                gap
            }
        }
    }

    /// The gap between packets of `size` at `rate` (`None` if the rate is zero).
    pub fn gap(size: DataSize, rate: Bitrate) -> Option<TimeDelta> {
        let g = size / rate;
        (g != TimeDelta::MAX).then_some(g.max(TimeDelta::from_micros(1)))
    }

    /// When the next packet may go (`None` = never at this rate).
    #[inline]
    pub fn next_send(&self, size: DataSize, rate: Bitrate) -> Option<Timestamp> {
        let gap = self.gap_memo(size, rate)?;
        Some(match self.last_slot {
            None => Timestamp::ZERO,
            Some(l) => l + gap,
        })
    }

    /// Whether a packet may go at `now`.
    #[inline]
    pub fn is_due(&self, now: Timestamp, size: DataSize, rate: Bitrate) -> bool {
        self.next_send(size, rate).is_some_and(|t| now >= t)
    }

    /// A packet went at `now`. The slot stays on the schedule if the caller was late by
    /// less than one gap (no drift), else restarts at `now` (no catch-up burst).
    #[inline]
    pub fn on_sent(&mut self, now: Timestamp, size: DataSize, rate: Bitrate) {
        let slot = match (self.last_slot, self.gap_memo(size, rate)) {
            (Some(l), Some(gap)) if now < l + gap + gap => (l + gap).min(now),
            _ => now,
        };
        self.last_slot = Some(slot);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The remembered gap is the computed one, whatever sequence of sizes and
        /// rates (repeated, changed, zero, negative) is asked for.
        #[test]
        fn remembered_gap_is_the_gap(asks in proptest::collection::vec((0usize..3, 0usize..4), 1..50)) {
            let sizes = [DataSize::bytes(1000), DataSize::bytes(40), DataSize::ZERO];
            let rates = [Bitrate::mbps(8.0), Bitrate::kbps(333.3), Bitrate::ZERO, Bitrate::bps(-1.0)];
            let p = Pacer::new();
            for (s, r) in asks {
                prop_assert_eq!(p.gap_memo(sizes[s], rates[r]), Pacer::gap(sizes[s], rates[r]));
            }
        }
    }

    #[test]
    fn spaces_packets_by_size_over_rate() {
        let mut p = Pacer::new();
        let s = DataSize::bytes(1000);
        let r = Bitrate::mbps(8.0); // 1 ms per packet
        assert!(p.is_due(Timestamp::ZERO, s, r));
        p.on_sent(Timestamp::ZERO, s, r);
        assert_eq!(p.next_send(s, r), Some(Timestamp::from_millis(1)));
        // late by 0.5 ms: stays on schedule
        p.on_sent(Timestamp::from_micros(1_500), s, r);
        assert_eq!(p.next_send(s, r), Some(Timestamp::from_millis(2)));
        // late by 10 ms: restarts
        p.on_sent(Timestamp::from_millis(12), s, r);
        assert_eq!(p.next_send(s, r), Some(Timestamp::from_millis(13)));
        assert_eq!(p.next_send(s, Bitrate::ZERO), None);
    }
}
