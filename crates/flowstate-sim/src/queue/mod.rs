//! A link's queue and its discipline: drop-tail (the default), CoDel (RFC 8289),
//! FQ-CoDel (RFC 8290), PIE (RFC 8033) and DualPI2 (RFC 9332), one file each.
//!
//! The link calls [`Queue`] (an enum, so the drop-tail hot path pays no indirection):
//! [`Queue::enqueue`] when a packet arrives behind a busy link, [`Queue::dequeue`] when
//! the link is free. A discipline marks a packet by setting its `ecn` to CE (reported
//! in [`Dequeued::mark`]) and reports every packet it discards other than a refused
//! arrival in a [`DropSink`], with a [`DropReason`]. Limits count the packets waiting,
//! not the one being serialized (as a Linux qdisc's backlog excludes the packet
//! already handed to the device).

mod codel;
mod discipline;
mod drop_tail;
mod dual_pi2;
mod fifo;
mod fq_codel;
mod limit;
mod pie;
mod verdict;

pub use codel::{control_law, CodelParams, CodelQueue, CodelVars};
pub use discipline::Discipline;
pub use drop_tail::DropTailQueue;
pub use dual_pi2::{is_l4s, DualPi2Params, DualPi2Queue};
pub use fq_codel::{FqCodelParams, FqCodelQueue};
pub use limit::QueueLimit;
pub use pie::{PieParams, PieQueue, PieState};
pub use verdict::{Class, Dequeued, DropReason, DropSink, Dropped, MarkReason};

use crate::flow::SimPacket;
use flowstate_core::{Bitrate, Timestamp};
use rand::RngExt;
use rand_chacha::ChaCha8Rng;

/// A link's queue under its discipline.
#[derive(Debug, Clone)]
pub enum Queue {
    DropTail(DropTailQueue),
    Codel(Box<CodelQueue>),
    FqCodel(Box<FqCodelQueue>),
    Pie(Box<PieQueue>),
    DualPi2(Box<DualPi2Queue>),
}

impl Queue {
    /// A queue of `discipline` limited by `limit`; `rng` is the link's stream for the
    /// disciplines that draw (PIE's and DualPI2's probabilities, FQ-CoDel's hash salt).
    pub fn new(
        limit: QueueLimit,
        discipline: &Discipline,
        rng: impl FnOnce() -> ChaCha8Rng,
    ) -> Self {
        match *discipline {
            Discipline::DropTail => Queue::DropTail(DropTailQueue::new(limit)),
            Discipline::Codel(p) => Queue::Codel(Box::new(CodelQueue::new(limit, p))),
            Discipline::FqCodel(p) => {
                let salt = rng().random::<u64>();
                Queue::FqCodel(Box::new(FqCodelQueue::new(limit, p, salt)))
            }
            Discipline::Pie(p) => Queue::Pie(Box::new(PieQueue::new(limit, p, rng()))),
            Discipline::DualPi2(p) => Queue::DualPi2(Box::new(DualPi2Queue::new(limit, p, rng()))),
        }
    }

    /// Queue `pkt` at `now` (link rate `rate`, for a time limit). `Err`: the arrival
    /// was refused or dropped; other packets the discipline discards (FQ-CoDel's
    /// drops from the fattest queue, which may include the arrival) go to `drops`.
    #[inline]
    pub fn enqueue(
        &mut self,
        now: Timestamp,
        pkt: SimPacket,
        rate: Bitrate,
        drops: &mut DropSink,
    ) -> Result<(), DropReason> {
        match self {
            Queue::DropTail(q) => {
                if q.push(now, pkt, rate) {
                    Ok(())
                } else {
                    Err(DropReason::Overlimit)
                }
            }
            Queue::Codel(q) => q.enqueue(now, pkt, rate),
            Queue::FqCodel(q) => q.enqueue(now, pkt, rate, drops),
            Queue::Pie(q) => q.enqueue(now, pkt, rate),
            Queue::DualPi2(q) => q.enqueue(now, pkt, rate),
        }
    }

    /// The next packet to serialize at `now`; packets the discipline drops on the way
    /// go to `drops`.
    #[inline]
    pub fn dequeue(&mut self, now: Timestamp, drops: &mut DropSink) -> Option<Dequeued> {
        match self {
            Queue::DropTail(q) => q.pop().map(|(pkt, enqueued)| Dequeued {
                pkt,
                enqueued,
                mark: None,
                class: Class::Classic,
            }),
            Queue::Codel(q) => q.dequeue(now, drops),
            Queue::FqCodel(q) => q.dequeue(now, drops),
            Queue::Pie(q) => q.dequeue(now),
            Queue::DualPi2(q) => q.dequeue(now, drops),
        }
    }

    /// Bytes waiting.
    #[inline]
    pub fn bytes(&self) -> u64 {
        match self {
            Queue::DropTail(q) => q.bytes(),
            Queue::Codel(q) => q.bytes(),
            Queue::FqCodel(q) => q.bytes(),
            Queue::Pie(q) => q.bytes(),
            Queue::DualPi2(q) => q.bytes(),
        }
    }

    /// Packets waiting.
    pub fn len(&self) -> usize {
        match self {
            Queue::DropTail(q) => q.len(),
            Queue::Codel(q) => q.len(),
            Queue::FqCodel(q) => q.len(),
            Queue::Pie(q) => q.len(),
            Queue::DualPi2(q) => q.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The packet at the head of a FIFO discipline, the likely next to serialize (a
    /// hint: CoDel may still drop it; `None` for the disciplines that pick at dequeue).
    #[inline]
    pub fn front(&self) -> Option<&SimPacket> {
        match self {
            Queue::DropTail(q) => q.front(),
            Queue::Codel(q) => q.front(),
            Queue::Pie(q) => q.front(),
            Queue::FqCodel(_) | Queue::DualPi2(_) => None,
        }
    }

    /// The drop-tail queue, if that is the discipline.
    pub fn as_drop_tail(&self) -> Option<&DropTailQueue> {
        match self {
            Queue::DropTail(q) => Some(q),
            _ => None,
        }
    }
}
