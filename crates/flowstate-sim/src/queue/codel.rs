//! CoDel, Controlled Delay (RFC 8289): a FIFO whose dequeue drops (or marks CE) packets
//! once their sojourn time has stayed above `target` for `interval`, at intervals
//! shrinking as `interval / sqrt(count)`.
//!
//! [`CodelVars::dequeue`] is the RFC's `dequeue()` (section 5.5 pseudocode) over any
//! [`Fifo`], so FQ-CoDel runs one per flow queue; [`CodelQueue`] is the single-queue
//! discipline.

use super::fifo::{Entry, Fifo};
use super::limit::QueueLimit;
use super::verdict::{try_mark, Dequeued, DropReason, DropSink, Dropped, MarkReason};
use crate::flow::SimPacket;
use flowstate_core::{Bitrate, DataSize, TimeDelta, Timestamp};

/// CoDel's parameters (RFC 8289 sections 4.3 and 4.4; `ecn` and `ce_threshold` as
/// Linux's).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CodelParams {
    /// The acceptable standing queue delay (5 ms).
    pub target: TimeDelta,
    /// The sliding window over which the sojourn must stay above `target` (100 ms).
    pub interval: TimeDelta,
    /// Mark CE instead of dropping an ECN-capable packet (RFC 3168 section 5;
    /// Linux's `ecn`, on by default in fq_codel).
    pub ecn: bool,
    /// Mark every ECN-capable packet whose sojourn exceeds this (Linux's
    /// `ce_threshold`; `None`: off).
    pub ce_threshold: Option<TimeDelta>,
    /// A queue holding at most this many bytes after the dequeue is never in drop
    /// state (the RFC's `maxpacket`; Linux uses the device MTU, 1514 B).
    pub mtu: u64,
}

impl Default for CodelParams {
    fn default() -> Self {
        Self {
            target: TimeDelta::millis(5),
            interval: TimeDelta::millis(100),
            ecn: true,
            ce_threshold: None,
            mtu: 1514,
        }
    }
}

/// `t + interval / sqrt(count)` (RFC 8289 section 5.5, `control_law`), to the microsecond.
pub fn control_law(t: Timestamp, interval: TimeDelta, count: u32) -> Timestamp {
    let us = interval.as_micros() as f64 / f64::from(count.max(1)).sqrt();
    t + TimeDelta::from_micros(us.round() as i64)
}

/// The state of one CoDel instance (RFC 8289 section 5.5: `first_above_time_`,
/// `drop_next_`, `count_`, `lastcount_`, `dropping_`).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct CodelVars {
    first_above_time: Option<Timestamp>,
    drop_next: Timestamp,
    count: u32,
    lastcount: u32,
    dropping: bool,
}

impl CodelVars {
    /// Whether the instance is in drop state.
    pub fn dropping(&self) -> bool {
        self.dropping
    }
    /// Drops (or marks) since drop state was last entered.
    pub fn count(&self) -> u32 {
        self.count
    }
    /// When the next drop is due in drop state.
    pub fn drop_next(&self) -> Timestamp {
        self.drop_next
    }

    /// The RFC's `dodequeue()`: take the head and say whether the sojourn time has been
    /// above `target` for at least `interval` (`ok_to_drop`).
    fn dodequeue(
        &mut self,
        q: &mut Fifo,
        now: Timestamp,
        p: &CodelParams,
    ) -> (Option<Entry>, bool) {
        let Some(e) = q.pop() else {
            self.first_above_time = None;
            return (None, false);
        };
        let sojourn = now - e.at;
        if sojourn < p.target || q.bytes() <= p.mtu {
            // Below target, or too little left to be a standing queue.
            self.first_above_time = None;
            return (Some(e), false);
        }
        match self.first_above_time {
            None => {
                self.first_above_time = Some(now + p.interval);
                (Some(e), false)
            }
            Some(t) => (Some(e), now >= t),
        }
    }

    /// The RFC's `dequeue()` over `q`: drops go to `drops`; an ECN-capable packet is
    /// marked CE instead when `p.ecn` (and then handed out, as Linux does).
    pub fn dequeue(
        &mut self,
        q: &mut Fifo,
        now: Timestamp,
        p: &CodelParams,
        drops: &mut DropSink,
    ) -> Option<(Entry, Option<MarkReason>)> {
        let (mut head, ok_to_drop) = self.dodequeue(q, now, p);
        let Some(mut e) = head.take() else {
            self.dropping = false;
            return None;
        };
        let mut mark = e.mark;
        if self.dropping {
            if !ok_to_drop {
                // Sojourn went below target: leave drop state.
                self.dropping = false;
            }
            // Drop (or mark) at the control law's times while in drop state.
            while self.dropping && now >= self.drop_next {
                self.count = self.count.saturating_add(1);
                if p.ecn && try_mark(&mut e.pkt) {
                    mark = Some(MarkReason::Aqm);
                    self.drop_next = control_law(self.drop_next, p.interval, self.count);
                    break;
                }
                drops.push_back(Dropped {
                    pkt: e.pkt,
                    reason: DropReason::Aqm,
                });
                let (next, ok) = self.dodequeue(q, now, p);
                let Some(n) = next else {
                    self.dropping = false;
                    return None;
                };
                e = n;
                mark = e.mark;
                if ok {
                    self.drop_next = control_law(self.drop_next, p.interval, self.count);
                } else {
                    self.dropping = false;
                }
            }
        } else if ok_to_drop {
            // Enter drop state: drop (or mark) this packet ...
            let out = if p.ecn && try_mark(&mut e.pkt) {
                mark = Some(MarkReason::Aqm);
                Some(e)
            } else {
                drops.push_back(Dropped {
                    pkt: e.pkt,
                    reason: DropReason::Aqm,
                });
                let next = self.dodequeue(q, now, p).0;
                mark = next.and_then(|n| n.mark);
                next
            };
            self.dropping = true;
            // ... and start from the drop rate that last controlled the queue if drop
            // state was left recently (the count memory, RFC 8289 section 5.5).
            let delta = self.count.saturating_sub(self.lastcount);
            self.count = if delta > 1 && now - self.drop_next < p.interval * 16 {
                delta
            } else {
                1
            };
            self.drop_next = control_law(now, p.interval, self.count);
            self.lastcount = self.count;
            e = out?;
        }
        if let Some(th) = p.ce_threshold {
            if now - e.at > th && mark.is_none() && try_mark(&mut e.pkt) {
                mark = Some(MarkReason::Step);
            }
        }
        Some((e, mark))
    }
}

/// The CoDel discipline: one FIFO under one CoDel instance, limited by `limit`
/// (Linux's default: 1000 packets).
#[derive(Debug, Clone)]
pub struct CodelQueue {
    fifo: Fifo,
    vars: CodelVars,
    params: CodelParams,
    limit: QueueLimit,
}

impl CodelQueue {
    pub fn new(limit: QueueLimit, params: CodelParams) -> Self {
        Self {
            fifo: Fifo::default(),
            vars: CodelVars::default(),
            params,
            limit,
        }
    }

    pub fn vars(&self) -> &CodelVars {
        &self.vars
    }

    /// Queue `pkt` (time-stamped `now`) or refuse it when the limit is reached.
    pub fn enqueue(
        &mut self,
        now: Timestamp,
        pkt: SimPacket,
        rate: Bitrate,
    ) -> Result<(), DropReason> {
        let size = DataSize::bytes(u64::from(pkt.size));
        if !self
            .limit
            .admits(self.fifo.len() as u64, self.fifo.bytes(), size, rate)
        {
            return Err(DropReason::Overlimit);
        }
        self.fifo.push(Entry {
            pkt,
            at: now,
            mark: None,
        });
        Ok(())
    }

    pub fn dequeue(&mut self, now: Timestamp, drops: &mut DropSink) -> Option<Dequeued> {
        let (e, mark) = self
            .vars
            .dequeue(&mut self.fifo, now, &self.params, drops)?;
        Some(Dequeued {
            pkt: e.pkt,
            enqueued: e.at,
            mark,
            class: Default::default(),
        })
    }

    pub fn bytes(&self) -> u64 {
        self.fifo.bytes()
    }
    pub fn len(&self) -> usize {
        self.fifo.len()
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    pub fn front(&self) -> Option<&SimPacket> {
        self.fifo.front().map(|e| &e.pkt)
    }
}
