//! What a queue discipline tells its link about a packet: dropped (and why), handed
//! out for serialization (with its wait, its sub-queue and any congestion mark).

use crate::flow::SimPacket;
use flowstate_core::{Ecn, Timestamp};
use std::collections::VecDeque;

/// Why a queue discarded a packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DropReason {
    /// The queue was full: a tail drop, or FQ-CoDel's drop from the fattest flow queue
    /// when over its limit (RFC 8290 section 4.1).
    Overlimit,
    /// The active queue management chose to drop it (CoDel's control law, PIE's or
    /// DualPI2's probability, DualPI2's overload rule).
    Aqm,
}

impl DropReason {
    /// The name used in metrics and docs: `overlimit`, `aqm`.
    pub const fn name(self) -> &'static str {
        match self {
            DropReason::Overlimit => "overlimit",
            DropReason::Aqm => "aqm",
        }
    }
}

/// Why a queue set a packet's ECN field to CE (RFC 3168 section 5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MarkReason {
    /// The AQM marked instead of dropping (CoDel, PIE, DualPI2's classic and coupled
    /// marks).
    Aqm,
    /// A threshold on the queuing delay: DualPI2's L4S step (RFC 9332 appendix A.1's
    /// native L4S AQM)
    /// or FQ-CoDel's `ce_threshold`.
    Step,
}

/// The sub-queue a packet went through: DualPI2's classic or L4S queue (RFC 9332);
/// every other discipline has the classic one only.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Class {
    #[default]
    Classic,
    L4s,
}

/// A packet a discipline discarded.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Dropped {
    pub pkt: SimPacket,
    pub reason: DropReason,
}

/// The packets a discipline discarded during one call, in the order it discarded them.
pub type DropSink = VecDeque<Dropped>;

/// A packet a discipline hands to the link for serialization.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Dequeued {
    /// The packet (its `ecn` is CE when `mark` is set).
    pub pkt: SimPacket,
    /// When it entered the queue.
    pub enqueued: Timestamp,
    /// The mark the discipline set on it, if any.
    pub mark: Option<MarkReason>,
    pub class: Class,
}

/// Set CE on `pkt` if it is ECN-capable (RFC 3168 section 5: ECT(0), ECT(1), or CE
/// already); `false` for a Not-ECT packet, which the caller drops instead.
#[inline]
pub fn try_mark(pkt: &mut SimPacket) -> bool {
    if pkt.ecn.is_ecn_capable() {
        pkt.ecn = Ecn::Ce;
        true
    } else {
        false
    }
}
