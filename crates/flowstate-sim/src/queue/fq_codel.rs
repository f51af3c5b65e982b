//! FQ-CoDel (RFC 8290): packets hashed by flow into `flows` queues, served by deficit
//! round robin with `quantum` bytes per round, newly active queues first (the new and
//! old lists), each queue under its own CoDel instance; over the limit, packets are
//! dropped from the head of the queue holding the most bytes.
//!
//! In the simulator a flow's number and direction stand for its 5-tuple (RFC 8290
//! section 4.1); the bucket is a SplitMix64 hash of them, salted by the link's
//! random stream (Linux salts its hash at random too), modulo `flows`, so two flows
//! can share a queue as they can in Linux.

use super::codel::{CodelParams, CodelVars};
use super::fifo::{Entry, Fifo};
use super::limit::QueueLimit;
use super::verdict::{Class, Dequeued, DropReason, DropSink, Dropped};
use crate::flow::SimPacket;
use crate::scheduler::splitmix64;
use flowstate_core::{Bitrate, Timestamp};
use std::collections::VecDeque;

/// FQ-CoDel's parameters (RFC 8290 section 5.2 and Linux's defaults).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FqCodelParams {
    /// Each queue's CoDel (RFC 8290 sections 5.2.1-5.2.2: interval 100 ms, target 5 ms).
    pub codel: CodelParams,
    /// Bytes a queue may send per round (RFC 8290 section 5.2.4: 1514 B).
    pub quantum: u32,
    /// Number of queues flows hash into (RFC 8290 section 5.2.5: 1024).
    pub flows: u32,
    /// Most packets one over-limit event drops from the fattest queue (Linux's
    /// `drop_batch`, 64; it stops earlier once half that queue's bytes are gone).
    pub drop_batch: u32,
}

impl Default for FqCodelParams {
    fn default() -> Self {
        Self {
            codel: CodelParams::default(),
            quantum: 1514,
            flows: 1024,
            drop_batch: 64,
        }
    }
}

#[derive(Debug, Clone, Default)]
struct FlowQueue {
    fifo: Fifo,
    codel: CodelVars,
    deficit: i64,
    /// On the new or the old list.
    listed: bool,
}

/// The FQ-CoDel discipline.
#[derive(Debug, Clone)]
pub struct FqCodelQueue {
    queues: Vec<FlowQueue>,
    new_flows: VecDeque<u32>,
    old_flows: VecDeque<u32>,
    params: FqCodelParams,
    limit: QueueLimit,
    salt: u64,
    bytes: u64,
    len: u64,
}

impl FqCodelQueue {
    /// `salt` perturbs the flow hash (drawn from the link's random stream).
    pub fn new(limit: QueueLimit, params: FqCodelParams, salt: u64) -> Self {
        Self {
            queues: vec![FlowQueue::default(); params.flows.max(1) as usize],
            new_flows: VecDeque::new(),
            old_flows: VecDeque::new(),
            params,
            limit,
            salt,
            bytes: 0,
            len: 0,
        }
    }

    /// The queue a packet hashes to (RFC 8290 section 4.1).
    pub fn bucket(&self, pkt: &SimPacket) -> u32 {
        let mut state = self.salt ^ ((u64::from(pkt.flow) << 1) | pkt.dir as u64);
        (splitmix64(&mut state) % u64::from(self.params.flows.max(1))) as u32
    }

    /// Queue `pkt`; when that puts the queue over its limit, drop from the head of the
    /// fattest flow queue (RFC 8290 section 4.1, batched as Linux does). The arriving
    /// packet itself may be among the dropped (then it is in `drops`).
    pub fn enqueue(
        &mut self,
        now: Timestamp,
        pkt: SimPacket,
        rate: Bitrate,
        drops: &mut DropSink,
    ) -> Result<(), DropReason> {
        let idx = self.bucket(&pkt);
        let q = &mut self.queues[idx as usize];
        q.fifo.push(Entry {
            pkt,
            at: now,
            mark: None,
        });
        if !q.listed {
            // A newly active queue goes to the new list with a full quantum (RFC 8290
            // section 4.1).
            q.listed = true;
            q.deficit = i64::from(self.params.quantum);
            self.new_flows.push_back(idx);
        }
        self.bytes += u64::from(pkt.size);
        self.len += 1;
        if !self.limit.holds(self.len, self.bytes, rate) {
            self.drop_from_fattest(drops);
        }
        Ok(())
    }

    fn drop_from_fattest(&mut self, drops: &mut DropSink) {
        // The first queue with the most bytes (ties: the lowest index, as Linux's scan).
        let mut fat = 0usize;
        let mut most = 0u64;
        for (i, q) in self.queues.iter().enumerate() {
            if q.fifo.bytes() > most {
                most = q.fifo.bytes();
                fat = i;
            }
        }
        let threshold = most / 2;
        let q = &mut self.queues[fat];
        let mut dropped_bytes = 0u64;
        let mut n = 0u32;
        while let Some(e) = q.fifo.pop() {
            dropped_bytes += u64::from(e.pkt.size);
            self.bytes -= u64::from(e.pkt.size);
            self.len -= 1;
            n += 1;
            drops.push_back(Dropped {
                pkt: e.pkt,
                reason: DropReason::Overlimit,
            });
            if n >= self.params.drop_batch.max(1) || dropped_bytes >= threshold {
                break;
            }
        }
    }

    /// The next packet by deficit round robin over the new, then the old list, through
    /// its queue's CoDel (RFC 8290 section 4.2).
    pub fn dequeue(&mut self, now: Timestamp, drops: &mut DropSink) -> Option<Dequeued> {
        loop {
            let (idx, from_new) = match self.new_flows.front() {
                Some(&i) => (i, true),
                None => (*self.old_flows.front()?, false),
            };
            let quantum = i64::from(self.params.quantum);
            let q = &mut self.queues[idx as usize];
            if q.deficit <= 0 {
                // Out of credit: a new quantum, and to the back of the old list.
                q.deficit += quantum;
                self.pop_list(from_new);
                self.old_flows.push_back(idx);
                continue;
            }
            let (bytes_before, len_before) = (q.fifo.bytes(), q.fifo.len());
            let out = q.codel.dequeue(&mut q.fifo, now, &self.params.codel, drops);
            self.bytes -= bytes_before - q.fifo.bytes();
            self.len -= (len_before - q.fifo.len()) as u64;
            match out {
                Some((e, mark)) => {
                    q.deficit -= i64::from(e.pkt.size);
                    return Some(Dequeued {
                        pkt: e.pkt,
                        enqueued: e.at,
                        mark,
                        class: Class::Classic,
                    });
                }
                None => {
                    // Empty: a new queue passes through the old list once (so that it
                    // cannot starve the old ones by going idle and coming back); an
                    // old one leaves the lists.
                    self.pop_list(from_new);
                    if from_new && !self.old_flows.is_empty() {
                        self.old_flows.push_back(idx);
                    } else {
                        self.queues[idx as usize].listed = false;
                    }
                }
            }
        }
    }

    fn pop_list(&mut self, from_new: bool) {
        if from_new {
            self.new_flows.pop_front();
        } else {
            self.old_flows.pop_front();
        }
    }

    pub fn bytes(&self) -> u64 {
        self.bytes
    }
    pub fn len(&self) -> usize {
        self.len as usize
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Bytes waiting in the queue `pkt` hashes to.
    pub fn queue_bytes(&self, pkt: &SimPacket) -> u64 {
        self.queues[self.bucket(pkt) as usize].fifo.bytes()
    }
}
