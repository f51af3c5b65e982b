//! DualPI2, the Dual-Queue Coupled AQM (RFC 9332): ECT(1) and CE packets go to the L4S
//! queue (RFC 9331 section 5.1), the rest to the classic queue. A PI controller on the
//! classic queue's delay sets a base probability p' every `t_update`; classic packets
//! are dropped (ECT(0): marked) with p_C = p'^2, L4S packets marked with the larger of
//! the coupled p_CL = k p' and the native step (delay >= `step_thresh`). Above
//! p_CL >= 1 (overload, section 4.2.3) L4S packets are dropped with p_C and classic
//! ECN packets dropped instead of marked.
//!
//! The scheduler between the queues is Linux's weighted round robin with a credit
//! (`c_protection`: the classic queue's share under contention, 10 %), not the
//! time-shifted FIFO the RFC's example uses (section 2.4 allows either). The periodic
//! update runs lazily before each enqueue and dequeue, every update due at or before
//! that time, in order (the head's enqueue time is fixed between events, so the
//! delays are the timer's).

use super::fifo::{Entry, Fifo};
use super::limit::QueueLimit;
use super::verdict::{try_mark, Class, Dequeued, DropReason, DropSink, Dropped, MarkReason};
use crate::flow::SimPacket;
use flowstate_core::{Bitrate, DataSize, Ecn, TimeDelta, Timestamp};
use rand::RngExt;
use rand_chacha::ChaCha8Rng;

/// DualPI2's parameters (RFC 9332 appendix A.1, with Linux's defaults where they
/// differ: t_update 16 ms, alpha 0.16 Hz, beta 3.2 Hz, a 1 ms step).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DualPi2Params {
    /// The classic queue's target delay (15 ms).
    pub target: TimeDelta,
    /// The PI update period (16 ms).
    pub t_update: TimeDelta,
    /// Integral gain, Hz (0.16).
    pub alpha: f64,
    /// Proportional gain, Hz (3.2).
    pub beta: f64,
    /// The coupling factor k (2).
    pub k: f64,
    /// The L4S queue's step: mark when a packet's sojourn is at least this (1 ms).
    pub step_thresh: TimeDelta,
    /// The step applies only while the L4S queue holds more than this many packets
    /// (Linux's `min_qlen_step`, 0; the RFC's Th_len is 1).
    pub min_qlen_step: u32,
    /// The classic queue's weight in percent under contention (Linux's
    /// `c_protection`, 10; the L4S queue gets the rest).
    pub c_protection: u8,
    /// Apply the overload rule (section 4.2.3); off: p' is capped at 1/k (Linux's
    /// `drop_overload`, on).
    pub drop_overload: bool,
    /// No probabilistic drop or mark while fewer bytes than this are queued after the
    /// dequeue (Linux: 2 MTU, 3028 B; 0 B: the RFC's pseudocode).
    pub min_backlog: u64,
    /// The MTU the scheduler's credit starts from (1514 B).
    pub mtu: u64,
    /// The delay p' follows: false, the classic queue's head (RFC 9332 appendix A.1,
    /// `dualpi2_update`); true, the larger of the two heads' (Linux `sch_dualpi2.c`
    /// `calculate_probability`: `qdelay = max(qdelay_l, qdelay_c)`), so an L4S queue
    /// alone drives p' too. Default false.
    pub pi_both_queues: bool,
}

impl Default for DualPi2Params {
    fn default() -> Self {
        Self {
            target: TimeDelta::millis(15),
            t_update: TimeDelta::millis(16),
            alpha: 0.16,
            beta: 3.2,
            k: 2.0,
            step_thresh: TimeDelta::millis(1),
            min_qlen_step: 0,
            c_protection: 10,
            drop_overload: true,
            min_backlog: 2 * 1514,
            mtu: 1514,
            pi_both_queues: false,
        }
    }
}

/// The DualPI2 discipline (limit: Linux's default 10 000 packets, both queues).
#[derive(Debug, Clone)]
pub struct DualPi2Queue {
    l: Fifo,
    c: Fifo,
    params: DualPi2Params,
    limit: QueueLimit,
    /// p', the base probability.
    base: f64,
    prev_q: TimeDelta,
    next_update: Timestamp,
    /// The scheduler's credit: <= 0 favours the L4S queue.
    credit: i64,
    rng: ChaCha8Rng,
}

/// Whether a packet belongs in the L4S queue: ECT(1) or CE (RFC 9331 section 5.1).
pub fn is_l4s(ecn: Ecn) -> bool {
    matches!(ecn, Ecn::Ect1 | Ecn::Ce)
}

impl DualPi2Queue {
    pub fn new(limit: QueueLimit, params: DualPi2Params, rng: ChaCha8Rng) -> Self {
        Self {
            l: Fifo::default(),
            c: Fifo::default(),
            next_update: Timestamp::ZERO + params.t_update,
            credit: Self::initial_credit(&params),
            base: 0.0,
            prev_q: TimeDelta::ZERO,
            params,
            limit,
            rng,
        }
    }

    fn initial_credit(p: &DualPi2Params) -> i64 {
        let wc = i64::from(p.c_protection);
        p.mtu as i64 * (wc - (100 - wc))
    }

    /// p', the base probability.
    pub fn base_prob(&self) -> f64 {
        self.base
    }
    /// p_C = p'^2, the classic drop/mark probability (RFC 9332 section 2.1).
    pub fn p_c(&self) -> f64 {
        self.base * self.base
    }
    /// p_CL = k p', capped at 1: the coupled L4S marking probability.
    pub fn p_cl(&self) -> f64 {
        (self.params.k * self.base).min(1.0)
    }
    fn overloaded(&self) -> bool {
        self.params.drop_overload && self.params.k * self.base >= 1.0
    }

    /// Every PI update due at or before `now` (RFC 9332 appendix A.1,
    /// `dualpi2_update`): the classic head's queuing time drives p' (with
    /// `pi_both_queues`, the larger of the two heads', as Linux).
    fn catch_up(&mut self, now: Timestamp) {
        while self.next_update <= now {
            let t = self.next_update;
            let head = |q: &Fifo| q.front().map_or(TimeDelta::ZERO, |e| t - e.at);
            let curq = if self.params.pi_both_queues {
                head(&self.c).max(head(&self.l))
            } else {
                head(&self.c)
            };
            self.pi_update(curq);
            self.next_update += self.params.t_update;
        }
    }

    /// One PI step with classic queuing delay `curq`.
    pub fn pi_update(&mut self, curq: TimeDelta) {
        let p = &self.params;
        self.base +=
            p.alpha * (curq - p.target).as_secs_f64() + p.beta * (curq - self.prev_q).as_secs_f64();
        let cap = if p.drop_overload {
            1.0
        } else {
            (1.0 / p.k).min(1.0)
        };
        self.base = self.base.clamp(0.0, cap);
        self.prev_q = curq;
    }

    /// Queue `pkt` in its queue, or refuse it over the shared limit.
    pub fn enqueue(
        &mut self,
        now: Timestamp,
        pkt: SimPacket,
        rate: Bitrate,
    ) -> Result<(), DropReason> {
        self.catch_up(now);
        let size = DataSize::bytes(u64::from(pkt.size));
        let len = (self.l.len() + self.c.len()) as u64;
        if !self.limit.admits(len, self.bytes(), size, rate) {
            return Err(DropReason::Overlimit);
        }
        let e = Entry {
            pkt,
            at: now,
            mark: None,
        };
        if is_l4s(pkt.ecn) {
            self.l.push(e);
        } else {
            self.c.push(e);
        }
        Ok(())
    }

    fn roll(&mut self, p: f64) -> bool {
        p > 0.0 && self.rng.random::<f64>() < p
    }

    /// The next packet: the scheduler picks a queue, then the L4S marking or the
    /// classic drop/mark applies (RFC 9332 appendix A.2, with overload).
    pub fn dequeue(&mut self, now: Timestamp, drops: &mut DropSink) -> Option<Dequeued> {
        self.catch_up(now);
        loop {
            let c_waiting = !self.c.is_empty();
            let l_waiting = !self.l.is_empty();
            if !c_waiting && !l_waiting {
                self.credit = Self::initial_credit(&self.params);
                return None;
            }
            let wc = i64::from(self.params.c_protection);
            let wl = 100 - wc;
            let from_l = l_waiting && (!c_waiting || self.credit <= 0);
            let l_len_before = self.l.len();
            let mut e = (if from_l { self.l.pop() } else { self.c.pop() })?;
            let guard = self.bytes() < self.params.min_backlog;
            let overload = self.overloaded();
            let mut mark = None;
            if from_l {
                if overload {
                    // Overload: revert to classic drop, mark the rest (p_CL >= 1).
                    if !guard && self.roll(self.p_c()) {
                        drops.push_back(Dropped {
                            pkt: e.pkt,
                            reason: DropReason::Aqm,
                        });
                        continue;
                    }
                    if try_mark(&mut e.pkt) {
                        mark = Some(MarkReason::Aqm);
                    }
                } else {
                    let step = l_len_before > self.params.min_qlen_step as usize
                        && now - e.at >= self.params.step_thresh;
                    if step {
                        if try_mark(&mut e.pkt) {
                            mark = Some(MarkReason::Step);
                        }
                    } else if !guard && self.roll(self.p_cl()) && try_mark(&mut e.pkt) {
                        mark = Some(MarkReason::Aqm);
                    }
                }
                if c_waiting {
                    self.credit += wc * i64::from(e.pkt.size);
                }
            } else {
                if !guard && self.roll(self.p_c()) {
                    if overload || !try_mark(&mut e.pkt) {
                        drops.push_back(Dropped {
                            pkt: e.pkt,
                            reason: DropReason::Aqm,
                        });
                        continue;
                    }
                    mark = Some(MarkReason::Aqm);
                }
                if l_waiting {
                    self.credit -= wl * i64::from(e.pkt.size);
                }
            }
            return Some(Dequeued {
                pkt: e.pkt,
                enqueued: e.at,
                mark,
                class: if from_l { Class::L4s } else { Class::Classic },
            });
        }
    }

    pub fn bytes(&self) -> u64 {
        self.l.bytes() + self.c.bytes()
    }
    pub fn len(&self) -> usize {
        self.l.len() + self.c.len()
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Packets waiting in the L4S and classic queues.
    pub fn lens(&self) -> (usize, usize) {
        (self.l.len(), self.c.len())
    }
}
