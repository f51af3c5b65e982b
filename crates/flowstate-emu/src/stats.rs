//! What happened on a path: counters and one record per packet offered to the link.

use flowstate_core::{DataSize, Ecn, TimeDelta};

/// One datagram that entered a bottleneck (foreign and malformed ones never do).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PacketRecord {
    /// Index of the route it came in on.
    pub route: usize,
    /// UDP payload size (the size the link serializes).
    pub size: DataSize,
    /// When it reached the emulator, microseconds since start.
    pub arrival_us: u64,
    /// When the emulator sent it on (wall clock), microseconds since start; `None`:
    /// dropped (queue or loss), or still in the link at stop.
    pub departure_us: Option<u64>,
    /// The model's queuing delay: the wait until its own serialization started.
    pub queue_delay: TimeDelta,
    /// When the model said it should leave (`None`: dropped by the queue or by loss,
    /// or still queued at stop). `departure_us - model_departure_us` is the emulator's
    /// timing error.
    pub model_departure_us: Option<u64>,
    /// The ECN codepoint of its IP header when it arrived.
    pub ecn: Ecn,
    /// The link marked it CE (it arrived ECT(0) or ECT(1)); the I/O layer sent it with
    /// CE in its header.
    pub ce_marked: bool,
}

/// Counters and records of one direction.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PathStats {
    /// Datagrams offered to the bottleneck.
    pub packets_in: u64,
    /// Datagrams sent on.
    pub packets_out: u64,
    /// Tail drops (queue full; FQ-CoDel's drops from the fattest queue).
    pub dropped_queue: u64,
    /// Drops by the queue's active management (CoDel, PIE, DualPI2).
    pub dropped_aqm: u64,
    /// Random loss.
    pub dropped_loss: u64,
    /// From an unexpected address (not the route's learned sender / configured
    /// receiver), or reverse datagrams before the route's sender is known: dropped.
    pub foreign: u64,
    /// Empty datagrams (no UDP payload): dropped.
    pub malformed: u64,
    /// Socket errors on receive or send (counted, never fatal).
    pub io_errors: u64,
    /// Datagrams offered with an ECN-capable codepoint (ECT(0), ECT(1) or CE).
    pub ecn_capable: u64,
    /// ECN-capable datagrams the link marked CE (RFC 3168 section 5).
    pub ce_marked: u64,
    /// One record per datagram offered, in arrival order (index = packet id).
    pub records: Vec<PacketRecord>,
}

impl PathStats {
    /// Bytes sent on.
    pub fn delivered(&self) -> DataSize {
        DataSize::bytes(
            self.records
                .iter()
                .filter(|r| r.departure_us.is_some())
                .map(|r| r.size.as_bytes())
                .sum(),
        )
    }

    /// Offered but neither sent nor dropped (still in the link when it stopped, or a
    /// send failed).
    pub fn unaccounted(&self) -> u64 {
        self.packets_in.saturating_sub(
            self.packets_out + self.dropped_queue + self.dropped_aqm + self.dropped_loss,
        )
    }
}
