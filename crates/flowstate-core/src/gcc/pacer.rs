//! The pacer: sends queued packets at `pacing_factor x target` in small bursts
//! (paper 002 section 3.5: "the Pacer is allowed to drain its queue at
//! a rate f * A"). A byte budget accrues at the pacing rate, capped at one burst
//! interval's worth; a packet may go whenever the budget is positive (the budget may go
//! negative by one packet).
//!
//! libwebrtc: none followed for the budget (M100's `modules/pacing/pacing_controller.cc`
//! and `interval_budget.cc` keep a 500 ms budget); the chromium factor 1.1 is
//! `kStrictPacingMultiplier` in `video/video_send_stream_impl.cc` (M100).

use crate::units::{Bitrate, DataSize, TimeDelta, Timestamp};
use std::collections::VecDeque;

/// Pacer constants.
#[derive(Debug, Clone, PartialEq)]
pub struct PacerConfig {
    /// Burst interval (5 ms).
    pub burst_interval: TimeDelta,
    /// Packets beyond this are dropped at enqueue (10 000).
    pub max_queue_packets: usize,
}

impl Default for PacerConfig {
    fn default() -> Self {
        Self {
            burst_interval: TimeDelta::millis(5),
            max_queue_packets: 10_000,
        }
    }
}

/// A FIFO of packets released at the pacing rate.
#[derive(Debug, Clone)]
pub struct Pacer<P> {
    cfg: PacerConfig,
    queue: VecDeque<(P, DataSize)>,
    queued: DataSize,
    rate: Bitrate,
    budget: i64,
    last: Option<Timestamp>,
    dropped: u64,
}

impl<P> Pacer<P> {
    pub fn new(cfg: PacerConfig, rate: Bitrate) -> Self {
        Self {
            cfg,
            queue: VecDeque::new(),
            queued: DataSize::ZERO,
            rate,
            budget: 0,
            last: None,
            dropped: 0,
        }
    }

    fn max_budget(&self) -> i64 {
        let b = (self.rate * self.cfg.burst_interval).as_bytes();
        i64::try_from(b).unwrap_or(i64::MAX)
    }

    fn refill(&mut self, now: Timestamp) {
        let Some(last) = self.last else {
            self.last = Some(now);
            self.budget = self.max_budget();
            return;
        };
        if now <= last {
            return;
        }
        let add =
            i64::try_from((self.rate * now.saturating_since(last)).as_bytes()).unwrap_or(i64::MAX);
        self.budget = self.budget.saturating_add(add).min(self.max_budget());
        self.last = Some(now);
    }

    /// Change the pacing rate (accrued budget is kept).
    pub fn set_rate(&mut self, now: Timestamp, rate: Bitrate) {
        self.refill(now);
        self.rate = rate;
        self.budget = self.budget.min(self.max_budget());
    }
    pub fn rate(&self) -> Bitrate {
        self.rate
    }

    /// Queue a packet; `false` (and dropped) when the queue is full.
    pub fn enqueue(&mut self, packet: P, size: DataSize) -> bool {
        if self.queue.len() >= self.cfg.max_queue_packets {
            self.dropped = self.dropped.saturating_add(1);
            return false;
        }
        self.queued += size;
        self.queue.push_back((packet, size));
        true
    }

    /// The next packet regardless of the budget (a probe sends it), charged to the
    /// budget, whose debt is capped at `max_debt` of sending time (Chromium
    /// `PacingController::kMaxDebtInTime`, 500 ms).
    pub fn poll_unpaced(&mut self, now: Timestamp, max_debt: TimeDelta) -> Option<(P, DataSize)> {
        self.refill(now);
        let (p, size) = self.queue.pop_front()?;
        self.queued -= size;
        let floor = -i64::try_from((self.rate * max_debt).as_bytes()).unwrap_or(i64::MAX);
        self.budget = self
            .budget
            .saturating_sub(i64::try_from(size.as_bytes()).unwrap_or(i64::MAX))
            .max(floor);
        Some((p, size))
    }

    /// The next packet allowed at `now`.
    pub fn poll(&mut self, now: Timestamp) -> Option<(P, DataSize)> {
        self.refill(now);
        if self.budget <= 0 {
            return None;
        }
        let (p, size) = self.queue.pop_front()?;
        self.queued -= size;
        self.budget = self
            .budget
            .saturating_sub(i64::try_from(size.as_bytes()).unwrap_or(i64::MAX));
        Some((p, size))
    }

    /// When a packet may next go (`None` with an empty queue or a zero rate).
    pub fn next_send_time(&self) -> Option<Timestamp> {
        if self.queue.is_empty() {
            return None;
        }
        // Never polled yet: at once.
        let Some(last) = self.last else {
            return Some(Timestamp::ZERO);
        };
        if self.budget > 0 {
            return Some(last);
        }
        if self.rate <= Bitrate::ZERO {
            return None;
        }
        let deficit = DataSize::bytes(self.budget.unsigned_abs() + 1);
        let wait = (deficit / self.rate).max(self.cfg.burst_interval);
        Some(last + wait)
    }

    pub fn queue_len(&self) -> usize {
        self.queue.len()
    }
    pub fn queued_bytes(&self) -> DataSize {
        self.queued
    }
    /// Packets dropped because the queue was full.
    pub fn dropped(&self) -> u64 {
        self.dropped
    }
    /// Time to drain the queue at the current rate.
    pub fn expected_queue_time(&self) -> TimeDelta {
        self.queued / self.rate
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paces_at_rate_in_bursts() {
        // 1.2 Mbit/s = 150 B/ms -> 750 B per 5 ms burst.
        let mut p = Pacer::new(PacerConfig::default(), Bitrate::mbps(1.2));
        for i in 0..100u32 {
            assert!(p.enqueue(i, DataSize::bytes(300)));
        }
        let mut now = Timestamp::ZERO;
        let mut sent = 0u64;
        let mut wakeups = 0;
        while let Some(t) = p.next_send_time() {
            now = now.max(t);
            while p.poll(now).is_some() {
                sent += 300;
            }
            wakeups += 1;
            if now > Timestamp::from_secs(10) {
                break;
            }
        }
        assert_eq!(sent, 30_000);
        // 30 kB at 150 B/ms = 200 ms (minus the first burst), in ~5 ms bursts.
        let ms = now.as_micros() as f64 / 1000.0;
        assert!((190.0..=205.0).contains(&ms), "{ms}");
        assert!((35..=45).contains(&wakeups), "{wakeups}");
    }

    #[test]
    fn full_queue_drops() {
        let mut p = Pacer::new(
            PacerConfig {
                max_queue_packets: 2,
                ..Default::default()
            },
            Bitrate::kbps(100.0),
        );
        assert!(p.enqueue(1, DataSize::bytes(10)));
        assert!(p.enqueue(2, DataSize::bytes(10)));
        assert!(!p.enqueue(3, DataSize::bytes(10)));
        assert_eq!(p.dropped(), 1);
        assert_eq!(p.queued_bytes(), DataSize::bytes(20));
    }
}
