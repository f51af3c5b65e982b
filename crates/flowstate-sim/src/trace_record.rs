//! A trace record: one thing that happened to a packet (sent, dropped, started
//! serializing, lost, left a link, delivered). The engine hashes every record into the
//! run's fingerprint (FNV-1a, [`TraceRecord::hash_into`]) and keeps them when the
//! scenario asks for the trace.

use crate::scheduler::Fnv64;
use serde::{Deserialize, Serialize};

/// What happened to a packet (trace records, hashed into the run fingerprint).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TraceKind {
    /// Handed to a link by its flow.
    Send,
    /// Dropped at the queue because it was full (a tail drop, or FQ-CoDel's drop from
    /// the fattest queue over the limit).
    Drop,
    /// Started serialization.
    Serialize,
    /// Lost at random after serialization.
    Lost,
    /// Left the link (then crosses the flow's path delay).
    Exit,
    /// Arrived at the destination endpoint.
    Deliver,
    /// Dropped by the queue's active management (CoDel, PIE, DualPI2; crate::queue).
    AqmDrop,
}

/// One trace record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TraceRecord {
    pub time_us: u64,
    pub kind: TraceKind,
    /// The link ([`LinkId`]'s number; [`NO_LINK`] on a fixed-delay path).
    pub link: u8,
    pub flow: u32,
    /// 0 data, 1 feedback.
    pub dir: u8,
    pub size: u32,
    pub packet: u64,
}

impl TraceRecord {
    /// Adds the record's 27 little-endian bytes to the run's fingerprint. `write_le`
    /// skips the chain through the zero high bytes of times below ~71 min, flow numbers
    /// below 65,536, sizes below 64 kB and packet numbers below 2^32 (the same hash).
    #[inline]
    pub fn hash_into(&self, h: &mut Fnv64) {
        h.write_le::<8, 4>(self.time_us);
        h.write_u8(self.kind as u8);
        h.write_u8(self.link);
        h.write_le::<4, 2>(u64::from(self.flow));
        h.write_u8(self.dir);
        h.write_le::<4, 2>(u64::from(self.size));
        h.write_le::<8, 4>(self.packet);
    }
}
