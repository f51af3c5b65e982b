//! PIE, Proportional Integral controller Enhanced (RFC 8033): a FIFO that drops (or
//! marks) arriving packets at random with a probability a PI controller updates every
//! `t_update` from the queuing delay.
//!
//! The queuing delay is measured with timestamps (RFC 8033 section 4.3 allows this in
//! place of section 5.2's departure-rate estimate; Linux's default): the sojourn time of the last
//! packet dequeued, 0 when that dequeue left the queue empty. The periodic update runs
//! lazily: before each enqueue and dequeue, every update due at or before that time,
//! in order (the inputs do not change between events, so this is the timer's result).

use super::fifo::{Entry, Fifo};
use super::limit::QueueLimit;
use super::verdict::{try_mark, Class, Dequeued, DropReason, MarkReason};
use crate::flow::SimPacket;
use flowstate_core::{Bitrate, DataSize, TimeDelta, Timestamp};
use rand::RngExt;
use rand_chacha::ChaCha8Rng;

/// PIE's parameters (RFC 8033 sections 4.2, 4.4 and 5 defaults).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PieParams {
    /// QDELAY_REF, the target queuing delay (15 ms).
    pub target: TimeDelta,
    /// T_UPDATE, the probability update period (15 ms).
    pub t_update: TimeDelta,
    /// The integral gain, per second (0.125).
    pub alpha: f64,
    /// The proportional gain, per second (1.25).
    pub beta: f64,
    /// MAX_BURST, the burst allowance after an idle or calm period (150 ms).
    pub max_burst: TimeDelta,
    /// Mark CE instead of dropping an ECN-capable packet while the probability is at
    /// most `mark_ecn_threshold` (RFC 8033 section 5.1).
    pub ecn: bool,
    /// 0.1.
    pub mark_ecn_threshold: f64,
    /// The derandomized drop of RFC 8033 section 5.4 (off).
    pub derandomize: bool,
    /// Cap a step of the probability at 2 % once it is at least 10 % (RFC 8033
    /// section 5.5, "cap drop adjustment"; on, as Linux).
    pub cap_drop_adjustment: bool,
    /// No random drop while the queue holds at most 2 x this (RFC 8033 section 4.1:
    /// 2 x MEAN_PKTSIZE; Linux: 2 x the device MTU, 1514 B).
    pub mtu: u64,
}

impl Default for PieParams {
    fn default() -> Self {
        Self {
            target: TimeDelta::millis(15),
            t_update: TimeDelta::millis(15),
            alpha: 0.125,
            beta: 1.25,
            max_burst: TimeDelta::millis(150),
            ecn: true,
            mark_ecn_threshold: 0.1,
            derandomize: false,
            cap_drop_adjustment: true,
            mtu: 1514,
        }
    }
}

/// The controller's state (RFC 8033 section 4: `drop_prob_`, `qdelay_old_`,
/// `burst_allowance_`, `accu_prob_`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PieState {
    pub drop_prob: f64,
    pub qdelay: TimeDelta,
    pub qdelay_old: TimeDelta,
    pub burst_allowance: TimeDelta,
    pub accu_prob: f64,
}

impl PieState {
    fn new(p: &PieParams) -> Self {
        Self {
            drop_prob: 0.0,
            qdelay: TimeDelta::ZERO,
            qdelay_old: TimeDelta::ZERO,
            burst_allowance: p.max_burst,
            accu_prob: 0.0,
        }
    }

    /// One periodic update with the current queuing delay `self.qdelay` (RFC 8033
    /// section 4.2, `calculate_drop_prob()`, with the auto-tuning of alpha and beta).
    pub fn update(&mut self, p: &PieParams) {
        let qdelay = self.qdelay.as_secs_f64();
        let old = self.qdelay_old.as_secs_f64();
        let target = p.target.as_secs_f64();
        let mut delta = p.alpha * (qdelay - target) + p.beta * (qdelay - old);
        // Scale the gains down at low probabilities (section 4.2's table).
        let prob = self.drop_prob;
        delta /= if prob < 0.000_001 {
            2048.0
        } else if prob < 0.000_01 {
            512.0
        } else if prob < 0.000_1 {
            128.0
        } else if prob < 0.001 {
            32.0
        } else if prob < 0.01 {
            8.0
        } else if prob < 0.1 {
            2.0
        } else {
            1.0
        };
        // Cap the step above 10 % (section 5.5: no more than 2 % at a time).
        if p.cap_drop_adjustment && prob >= 0.1 && delta > 0.02 {
            delta = 0.02;
        }
        self.drop_prob += delta;
        // Decay when the queue has stayed empty (section 4.2).
        if self.qdelay == TimeDelta::ZERO && self.qdelay_old == TimeDelta::ZERO {
            self.drop_prob *= 0.98;
        }
        self.drop_prob = self.drop_prob.clamp(0.0, 1.0);
        // Burst allowance (section 4.4): spent by T_UPDATE per update, restored in
        // full while the queue is calm.
        self.burst_allowance = (self.burst_allowance - p.t_update).max(TimeDelta::ZERO);
        if self.drop_prob == 0.0 && qdelay < target / 2.0 && old < target / 2.0 {
            self.burst_allowance = p.max_burst;
        }
        self.qdelay_old = self.qdelay;
    }
}

/// The PIE discipline (limit: Linux's default 1000 packets).
#[derive(Debug, Clone)]
pub struct PieQueue {
    fifo: Fifo,
    params: PieParams,
    limit: QueueLimit,
    state: PieState,
    next_update: Timestamp,
    rng: ChaCha8Rng,
}

impl PieQueue {
    pub fn new(limit: QueueLimit, params: PieParams, rng: ChaCha8Rng) -> Self {
        Self {
            fifo: Fifo::default(),
            state: PieState::new(&params),
            next_update: Timestamp::ZERO + params.t_update,
            params,
            limit,
            rng,
        }
    }

    pub fn state(&self) -> &PieState {
        &self.state
    }

    /// The controller's state, to set (tests start it from a given probability).
    pub fn state_mut(&mut self) -> &mut PieState {
        &mut self.state
    }

    /// Run every periodic update due at or before `now`.
    fn catch_up(&mut self, now: Timestamp) {
        while self.next_update <= now {
            self.state.update(&self.params);
            self.next_update += self.params.t_update;
        }
    }

    /// RFC 8033 section 4.1, `drop_early()`: whether to drop (or mark) an arrival.
    fn drop_early(&mut self) -> bool {
        let s = &mut self.state;
        let p = &self.params;
        if s.burst_allowance > TimeDelta::ZERO {
            return false;
        }
        if s.qdelay_old < p.target / 2 && s.drop_prob < 0.2 {
            return false;
        }
        if self.fifo.bytes() <= 2 * p.mtu {
            return false;
        }
        if p.derandomize {
            // Section 5.4: accumulate the probability; no drop below 0.85, certain
            // drop from 8.5, random in between.
            if s.drop_prob == 0.0 {
                s.accu_prob = 0.0;
            }
            s.accu_prob += s.drop_prob;
            if s.accu_prob < 0.85 {
                return false;
            }
            if s.accu_prob >= 8.5 {
                s.accu_prob = 0.0;
                return true;
            }
            let drop = self.rng.random::<f64>() < s.drop_prob;
            if drop {
                s.accu_prob = 0.0;
            }
            return drop;
        }
        self.rng.random::<f64>() < s.drop_prob
    }

    /// Queue `pkt`, refuse it when full, drop it or mark it at random (section 4.1,
    /// ECN as section 5.1).
    pub fn enqueue(
        &mut self,
        now: Timestamp,
        pkt: SimPacket,
        rate: Bitrate,
    ) -> Result<(), DropReason> {
        self.catch_up(now);
        let size = DataSize::bytes(u64::from(pkt.size));
        if !self
            .limit
            .admits(self.fifo.len() as u64, self.fifo.bytes(), size, rate)
        {
            return Err(DropReason::Overlimit);
        }
        let mut pkt = pkt;
        let mut mark = None;
        if self.drop_early() {
            let may_mark =
                self.params.ecn && self.state.drop_prob <= self.params.mark_ecn_threshold;
            if may_mark && try_mark(&mut pkt) {
                mark = Some(MarkReason::Aqm);
            } else {
                return Err(DropReason::Aqm);
            }
        }
        self.fifo.push(Entry { pkt, at: now, mark });
        Ok(())
    }

    pub fn dequeue(&mut self, now: Timestamp) -> Option<Dequeued> {
        self.catch_up(now);
        let e = self.fifo.pop()?;
        self.state.qdelay = if self.fifo.is_empty() {
            TimeDelta::ZERO
        } else {
            now - e.at
        };
        Some(Dequeued {
            pkt: e.pkt,
            enqueued: e.at,
            mark: e.mark,
            class: Class::Classic,
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
