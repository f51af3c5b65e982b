//! Spacing packets at a rate (RAP's inter-packet gap; TFRC, RFC 5348, 4.6: send at
//! `t_ipi = s / X`). The gap is taken from the *current* rate each time, so a rate
//! change (including a coupling manager's allowance) applies to the next packet.

use crate::units::{Bitrate, DataSize, TimeDelta, Timestamp};

/// A packet scheduler: one slot per `size / rate`.
#[derive(Debug, Clone, Default)]
pub struct Pacer {
    last_slot: Option<Timestamp>,
}

impl Pacer {
    pub fn new() -> Self {
        Pacer { last_slot: None }
    }

    /// The gap between packets of `size` at `rate` (`None` if the rate is zero).
    pub fn gap(size: DataSize, rate: Bitrate) -> Option<TimeDelta> {
        let g = size / rate;
        (g != TimeDelta::MAX).then_some(g.max(TimeDelta::from_micros(1)))
    }

    /// When the next packet may go (`None` = never at this rate).
    pub fn next_send(&self, size: DataSize, rate: Bitrate) -> Option<Timestamp> {
        let gap = Self::gap(size, rate)?;
        Some(match self.last_slot {
            None => Timestamp::ZERO,
            Some(l) => l + gap,
        })
    }

    /// Whether a packet may go at `now`.
    pub fn is_due(&self, now: Timestamp, size: DataSize, rate: Bitrate) -> bool {
        self.next_send(size, rate).is_some_and(|t| now >= t)
    }

    /// A packet went at `now`. The slot stays on the schedule if the caller was late by
    /// less than one gap (no drift), else restarts at `now` (no catch-up burst).
    pub fn on_sent(&mut self, now: Timestamp, size: DataSize, rate: Bitrate) {
        let slot = match (self.last_slot, Self::gap(size, rate)) {
            (Some(l), Some(gap)) if now < l + gap + gap => (l + gap).min(now),
            _ => now,
        };
        self.last_slot = Some(slot);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
