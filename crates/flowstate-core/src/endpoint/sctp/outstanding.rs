//! The sender's records: a chunk sent and not yet cumulatively acknowledged, and a
//! message the application wrote that is not yet all sent.

use super::chunk::DataChunk;
use crate::units::{DataSize, Timestamp};

/// A chunk sent and not yet cumulatively acknowledged.
#[derive(Debug, Clone)]
pub(super) struct Outstanding {
    pub(super) chunk: DataChunk,
    pub(super) wire: DataSize,
    pub(super) sent_at: Timestamp,
    pub(super) transmissions: u32,
    pub(super) gap_acked: bool,
    pub(super) in_flight: bool,
    pub(super) marked: bool,
    pub(super) misses: u32,
    pub(super) fast_retransmitted: bool,
}

/// A message the application wrote, not yet all sent.
#[derive(Debug, Clone)]
pub(super) struct PendingMessage {
    pub(super) id: u64,
    pub(super) remaining: u64,
    pub(super) started: bool,
}
