//! The pacer: sends queued packets at `pacing_factor x target` in small bursts
//! (paper 002 section 3.5: "the Pacer is allowed to drain its queue at
//! a rate f * A"). A byte budget accrues at the pacing rate, capped at one burst
//! interval's worth; a packet may go whenever the budget is positive (the budget may go
//! negative by one packet).
//!
//! libwebrtc: none followed for the budget (M100's `modules/pacing/pacing_controller.cc`
//! and `interval_budget.cc` keep a 500 ms budget); the chromium factor 1.1 is
//! `kStrictPacingMultiplier` in `video/video_send_stream_impl.cc` (M100).
//!
//! With [`PacerConfig::media_debt`] set the pacer follows today's `PacingController`
//! instead ([`super::media_debt`]): a debt instead of the budget, a packet going while
//! the debt drains within the burst interval, else once the debt is paid off.

use super::media_debt::MediaDebtConfig;
use crate::units::{Bitrate, DataSize, TimeDelta, Timestamp};
use std::collections::VecDeque;

/// Pacer constants.
#[derive(Debug, Clone, PartialEq)]
pub struct PacerConfig {
    /// Burst interval (5 ms).
    pub burst_interval: TimeDelta,
    /// Packets beyond this are dropped at enqueue (10 000).
    pub max_queue_packets: usize,
    /// `Some`: Chromium's media-debt rule ([`super::media_debt`]; `burst_interval` is
    /// then unused, the rule has its own); `None`: the budget (the default).
    pub media_debt: Option<MediaDebtConfig>,
}

impl Default for PacerConfig {
    fn default() -> Self {
        Self {
            burst_interval: TimeDelta::millis(5),
            max_queue_packets: 10_000,
            media_debt: None,
        }
    }
}

/// A FIFO of packets released at the pacing rate, with retransmissions ahead of it
/// ([`Pacer::enqueue_retransmission`]).
#[derive(Debug, Clone)]
pub struct Pacer<P> {
    cfg: PacerConfig,
    queue: VecDeque<(P, DataSize)>,
    /// Retransmissions (`nack_rtx`): sent before `queue`, in their order
    /// (libwebrtc `PrioritizedPacketQueue`: `kRetransmission` ahead of video and FEC,
    /// modules/pacing/prioritized_packet_queue.cc:44-50 at signalapp/webrtc bd635df).
    retransmissions: VecDeque<(P, DataSize)>,
    queued: DataSize,
    rate: Bitrate,
    budget: i64,
    /// The media debt (media-debt rule only).
    debt: DataSize,
    /// A packet went into an empty queue since the last poll (media-debt rule).
    fast_forward: bool,
    last: Option<Timestamp>,
    dropped: u64,
}

impl<P> Pacer<P> {
    pub fn new(cfg: PacerConfig, rate: Bitrate) -> Self {
        Self {
            cfg,
            queue: VecDeque::new(),
            retransmissions: VecDeque::new(),
            queued: DataSize::ZERO,
            rate,
            budget: 0,
            debt: DataSize::ZERO,
            fast_forward: false,
            last: None,
            dropped: 0,
        }
    }

    fn max_budget(&self) -> i64 {
        let b = (self.rate * self.cfg.burst_interval).as_bytes();
        i64::try_from(b).unwrap_or(i64::MAX)
    }

    /// Media-debt rule: `UpdateTimeAndGetElapsed(now)` + `UpdateBudgetWithElapsedTime`:
    /// the debt paid off up to `now` at the current rate.
    fn pay_to(&mut self, md: MediaDebtConfig, now: Timestamp) {
        match self.last {
            Some(last) if now > last => {
                self.debt = md.pay(self.debt, self.rate, now.saturating_since(last));
                self.last = Some(now);
            }
            Some(_) => {}
            None => self.last = Some(now),
        }
    }

    fn refill(&mut self, now: Timestamp) {
        if let Some(md) = self.cfg.media_debt {
            self.pay_to(md, now);
            return;
        }
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
    ///
    /// Media-debt rule: `SetPacerConfig` neither pays the debt nor moves the last
    /// processing time, so the time since is paid at the new rate.
    pub fn set_rate(&mut self, now: Timestamp, rate: Bitrate) {
        if self.cfg.media_debt.is_some() {
            self.rate = rate;
            return;
        }
        self.refill(now);
        self.rate = rate;
        self.budget = self.budget.min(self.max_budget());
    }
    pub fn rate(&self) -> Bitrate {
        self.rate
    }

    /// Queue a packet; `false` (and dropped) when the queue is full.
    pub fn enqueue(&mut self, packet: P, size: DataSize) -> bool {
        if !self.admit() {
            return false;
        }
        self.queued += size;
        self.queue.push_back((packet, size));
        true
    }

    /// Queue a retransmission, ahead of every packet [`Pacer::enqueue`] queued;
    /// `false` (and dropped) when the queue is full.
    pub fn enqueue_retransmission(&mut self, packet: P, size: DataSize) -> bool {
        if !self.admit() {
            return false;
        }
        self.queued += size;
        self.retransmissions.push_back((packet, size));
        true
    }

    /// Room for one more packet (else counted as dropped), and the fast-forward of an
    /// empty queue.
    fn admit(&mut self) -> bool {
        if self.queue_len() >= self.cfg.max_queue_packets {
            self.dropped = self.dropped.saturating_add(1);
            return false;
        }
        // `EnqueuePacket` into an empty queue fast-forwards the last processing time
        // (the debt paid up to the enqueue), done at the next poll, which the caller
        // makes at the enqueue time.
        self.fast_forward |= self.queue_len() == 0;
        true
    }

    /// The next packet to go: a retransmission first.
    fn pop_next(&mut self) -> Option<(P, DataSize)> {
        let (p, size) = match self.retransmissions.pop_front() {
            Some(x) => x,
            None => self.queue.pop_front()?,
        };
        self.queued -= size;
        Some((p, size))
    }

    /// The next packet regardless of the budget (a probe sends it), charged to the
    /// budget, whose debt is capped at `max_debt` of sending time (Chromium
    /// `PacingController::kMaxDebtInTime`, 500 ms).
    pub fn poll_unpaced(&mut self, now: Timestamp, max_debt: TimeDelta) -> Option<(P, DataSize)> {
        self.refill(now);
        let (p, size) = self.pop_next()?;
        if let Some(md) = self.cfg.media_debt {
            // `OnPacketSent` -> `UpdateBudgetWithSentData`, capped at `kMaxDebtInTime`.
            self.debt = md.charge(self.debt, size, self.rate);
            return Some((p, size));
        }
        let floor = -i64::try_from((self.rate * max_debt).as_bytes()).unwrap_or(i64::MAX);
        self.budget = self
            .budget
            .saturating_sub(i64::try_from(size.as_bytes()).unwrap_or(i64::MAX))
            .max(floor);
        Some((p, size))
    }

    /// The next packet allowed at `now`.
    pub fn poll(&mut self, now: Timestamp) -> Option<(P, DataSize)> {
        if let Some(md) = self.cfg.media_debt {
            // `ProcessPackets`, entered only when `NextSendTime() <= now`: the debt paid
            // up to that target time, one packet sent and charged.
            if self.queue_len() == 0 {
                return None;
            }
            if std::mem::take(&mut self.fast_forward) {
                self.pay_to(md, now);
            }
            let last = *self.last.get_or_insert(now);
            let due = last + md.wait(self.debt, self.rate)?;
            if now < due {
                return None;
            }
            self.pay_to(md, due);
            let (p, size) = self.pop_next()?;
            self.debt = md.charge(self.debt, size, self.rate);
            return Some((p, size));
        }
        self.refill(now);
        if self.budget <= 0 {
            return None;
        }
        let (p, size) = self.pop_next()?;
        self.budget = self
            .budget
            .saturating_sub(i64::try_from(size.as_bytes()).unwrap_or(i64::MAX));
        Some((p, size))
    }

    /// When a packet may next go (`None` with an empty queue or a zero rate).
    pub fn next_send_time(&self) -> Option<Timestamp> {
        if self.queue_len() == 0 {
            return None;
        }
        // Never polled yet: at once.
        let Some(last) = self.last else {
            return Some(Timestamp::ZERO);
        };
        if let Some(md) = self.cfg.media_debt {
            if self.fast_forward {
                // Decided at the poll that follows the enqueue.
                return Some(last);
            }
            // `NextSendTime`: `last_process_time_ + (interval > drain ? 0 : drain)`.
            return md.wait(self.debt, self.rate).map(|w| last + w);
        }
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
        self.queue.len() + self.retransmissions.len()
    }
    pub fn queued_bytes(&self) -> DataSize {
        self.queued
    }
    /// The media debt (zero unless the media-debt rule is on).
    pub fn media_debt(&self) -> DataSize {
        self.debt
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
    fn retransmissions_go_ahead_of_queued_packets_in_their_order() {
        for media_debt in [None, Some(MediaDebtConfig::default())] {
            let cfg = PacerConfig {
                media_debt,
                ..PacerConfig::default()
            };
            let mut p = Pacer::new(cfg, Bitrate::mbps(100.0));
            p.enqueue("video 1", DataSize::bytes(1000));
            p.enqueue("video 2", DataSize::bytes(1000));
            p.enqueue_retransmission("rtx 1", DataSize::bytes(1002));
            p.enqueue_retransmission("rtx 2", DataSize::bytes(1002));
            assert_eq!(p.queue_len(), 4);
            assert_eq!(p.queued_bytes(), DataSize::bytes(4004));
            let mut order = Vec::new();
            let mut now = Timestamp::ZERO;
            while order.len() < 4 {
                if let Some((x, _)) = p.poll(now) {
                    order.push(x);
                } else {
                    now += TimeDelta::millis(1);
                }
                assert!(now < Timestamp::from_secs(1));
            }
            assert_eq!(order, ["rtx 1", "rtx 2", "video 1", "video 2"]);
            assert_eq!(p.queued_bytes(), DataSize::ZERO);
        }
    }

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

    fn debt_pacer(kbps: f64) -> Pacer<u32> {
        Pacer::new(
            PacerConfig {
                media_debt: Some(MediaDebtConfig::default()),
                ..Default::default()
            },
            Bitrate::kbps(kbps),
        )
    }

    #[test]
    fn media_debt_sends_a_small_frame_back_to_back() {
        // 800 kbit/s = 100 B/ms: 40 ms = 4000 B. A 4 x 1000 B frame: the first three
        // leave with debt 0 / 1000 / 2000 / 3000 (all under 4000), so all four at once.
        let mut p = debt_pacer(800.0);
        for i in 0..4 {
            p.enqueue(i, DataSize::bytes(1000));
        }
        let t0 = Timestamp::from_millis(100);
        assert_eq!(p.next_send_time(), Some(Timestamp::ZERO));
        let mut n = 0;
        while p.poll(t0).is_some() {
            n += 1;
        }
        assert_eq!(n, 4);
        assert_eq!(p.media_debt(), DataSize::bytes(4000));
    }

    #[test]
    fn media_debt_backlog_waits_until_paid_off() {
        // Ten 1000 B packets at 100 B/ms: 4 at once (debt 4000 = 40 ms, not under the
        // interval), then nothing until the debt is paid (40 ms later), then 4 more.
        let mut p = debt_pacer(800.0);
        for i in 0..10 {
            p.enqueue(i, DataSize::bytes(1000));
        }
        let t0 = Timestamp::from_millis(100);
        let mut times = Vec::new();
        let mut now = t0;
        while let Some(t) = p.next_send_time() {
            now = now.max(t);
            while p.poll(now).is_some() {
                times.push(now.as_micros() / 1000);
            }
        }
        assert_eq!(
            times,
            vec![100, 100, 100, 100, 140, 140, 140, 140, 180, 180]
        );
        // Halfway through a wait nothing goes.
        let mut q = debt_pacer(800.0);
        for i in 0..5 {
            q.enqueue(i, DataSize::bytes(1000));
        }
        while q.poll(t0).is_some() {}
        assert!(q.poll(t0 + TimeDelta::millis(20)).is_none());
        assert_eq!(q.next_send_time(), Some(t0 + TimeDelta::millis(40)));
    }

    #[test]
    fn budget_rule_paces_one_packet_per_refill() {
        // The default budget rule for contrast: after the 5 ms budget (500 B) the same
        // backlog leaves one packet per 10 ms, never four at once.
        let mut p: Pacer<u32> = Pacer::new(PacerConfig::default(), Bitrate::kbps(800.0));
        for i in 0..10 {
            p.enqueue(i, DataSize::bytes(1000));
        }
        let mut now = Timestamp::from_millis(100);
        let mut max_at_once = 0;
        while let Some(t) = p.next_send_time() {
            now = now.max(t);
            let mut k = 0;
            while p.poll(now).is_some() {
                k += 1;
            }
            max_at_once = max_at_once.max(k);
        }
        assert_eq!(max_at_once, 1);
    }
}
