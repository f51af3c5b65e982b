//! The receiving side of the data channel: ordered reassembly of the messages and SACKs
//! with gap-ack blocks and duplicate TSNs, delayed or at once (RFC 9260 6.2, 6.7; RFC 7053).

use super::chunk::{DataChunk, DupTsns, GapBlocks, Sack};
use super::config::SctpReceiverConfig;
use super::stats::SctpReceiverStats;
use crate::ecn::Ecn;
use crate::endpoint::{Endpoint, Transmit};
use crate::seq_map::SeqMap;
use crate::units::{DataSize, Timestamp};
use std::collections::VecDeque;

/// A message handed to the application, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DeliveredMessage {
    pub message_id: u64,
    pub size: u64,
    /// Stream offset of the message's first byte.
    pub first_offset: u64,
    pub at: Timestamp,
}

/// The receiving side of the data channel.
#[derive(Debug, Clone)]
pub struct SctpReceiver {
    config: SctpReceiverConfig,
    cum_tsn: u64,
    /// Chunks above a gap, by TSN (a ring in TSN order: they mostly arrive in order).
    ooo: SeqMap<DataChunk>,
    ooo_bytes: u64,
    next_offset: u64,
    partial: Option<(u64, u64, u64)>,
    dups: Vec<u64>,
    unacked_packets: u32,
    sack_deadline: Option<Timestamp>,
    sack_now: bool,
    delivered: VecDeque<DeliveredMessage>,
    /// The TSN of a CE-marked packet, echoed in an ECNE on every SACK until a CWR
    /// naming it or a higher TSN arrives (RFC 9260 appendix A).
    ecne: Option<u64>,
    stats: SctpReceiverStats,
}

impl SctpReceiver {
    pub fn new(config: SctpReceiverConfig) -> Self {
        SctpReceiver {
            config,
            cum_tsn: 0,
            ooo: SeqMap::new(),
            ooo_bytes: 0,
            next_offset: 0,
            partial: None,
            dups: Vec::new(),
            unacked_packets: 0,
            sack_deadline: None,
            sack_now: false,
            delivered: VecDeque::new(),
            ecne: None,
            stats: SctpReceiverStats::default(),
        }
    }

    pub fn stats(&self) -> SctpReceiverStats {
        self.stats
    }
    pub fn bytes_delivered(&self) -> DataSize {
        DataSize::bytes(self.stats.bytes_delivered)
    }
    pub fn messages_delivered(&self) -> u64 {
        self.stats.messages_delivered
    }
    /// The next delivered message (only with `keep_delivery_log`).
    pub fn poll_delivered(&mut self) -> Option<DeliveredMessage> {
        self.delivered.pop_front()
    }

    fn buffered(&self) -> u64 {
        self.ooo_bytes + self.partial.map_or(0, |(_, _, b)| b)
    }

    fn a_rwnd(&self) -> u64 {
        self.config.rwnd.as_bytes().saturating_sub(self.buffered())
    }

    fn deliver_in_order(&mut self, now: Timestamp, chunk: DataChunk) {
        if chunk.stream_offset != self.next_offset {
            self.stats.order_errors += 1;
        }
        self.next_offset = chunk.stream_offset + chunk.payload_len as u64;
        let (id, first, bytes) = match self.partial {
            Some(p) if !chunk.begin => p,
            _ => (chunk.message_id, chunk.stream_offset, 0),
        };
        if id != chunk.message_id {
            self.stats.order_errors += 1;
        }
        let bytes = bytes + chunk.payload_len as u64;
        if chunk.end {
            self.partial = None;
            self.stats.bytes_delivered += bytes;
            self.stats.messages_delivered += 1;
            if self.config.keep_delivery_log {
                self.delivered.push_back(DeliveredMessage {
                    message_id: id,
                    size: bytes,
                    first_offset: first,
                    at: now,
                });
            }
        } else {
            self.partial = Some((id, first, bytes));
        }
    }

    fn build_sack(&mut self) -> Sack {
        let mut gap_blocks = GapBlocks::new();
        let mut run: Option<(u64, u64)> = None;
        for tsn in self.ooo.keys() {
            run = match run {
                Some((s, e)) if tsn == e + 1 => Some((s, tsn)),
                Some((s, e)) => {
                    gap_blocks.push(self.block(s, e));
                    Some((tsn, tsn))
                }
                None => Some((tsn, tsn)),
            };
            if gap_blocks.len() >= self.config.max_gap_blocks {
                run = None;
                break;
            }
        }
        if let Some((s, e)) = run {
            gap_blocks.push(self.block(s, e));
        }
        let kept = self.dups.len().min(self.config.max_dup_tsns);
        let dups = DupTsns::from_slice(&self.dups[..kept]);
        self.dups.clear();
        Sack {
            cum_tsn: self.cum_tsn,
            a_rwnd: self.a_rwnd(),
            gap_blocks,
            dup_tsns: dups,
            ecne: self.ecne,
        }
    }

    fn block(&self, start: u64, end: u64) -> (u32, u32) {
        let s = start.saturating_sub(self.cum_tsn).min(u32::MAX as u64) as u32;
        let e = end.saturating_sub(self.cum_tsn).min(u32::MAX as u64) as u32;
        (s, e)
    }
}

impl Endpoint for SctpReceiver {
    type Outgoing = Sack;
    type Incoming = DataChunk;

    fn handle_input(&mut self, now: Timestamp, chunk: DataChunk) {
        self.handle_input_ecn(now, chunk, Ecn::NotEct);
    }

    /// RFC 9260 appendix A: a CWR naming the echoed TSN or a higher one ends the ECNE;
    /// a CE-marked packet (the CWR's own included) starts one naming its TSN (the
    /// lowest in the packet: one DATA chunk per packet here), unless one is pending.
    fn handle_input_ecn(&mut self, now: Timestamp, chunk: DataChunk, ecn: Ecn) {
        if let (Some(cwr), Some(echoed)) = (chunk.cwr, self.ecne) {
            if cwr >= echoed {
                self.ecne = None;
            }
        }
        if ecn.is_ce() {
            self.stats.ce_marks += 1;
            self.ecne.get_or_insert(chunk.tsn);
        }
        self.on_chunk(now, chunk);
    }

    fn poll_transmit(&mut self, _now: Timestamp) -> Option<Transmit<Sack>> {
        if !self.sack_now {
            return None;
        }
        self.sack_now = false;
        self.sack_deadline = None;
        self.unacked_packets = 0;
        let sack = self.build_sack();
        self.stats.sacks_sent += 1;
        Some(Transmit {
            size: sack.wire_size(self.config.lower_layer_overhead),
            message: sack,
        })
    }

    fn poll_timeout(&self) -> Option<Timestamp> {
        self.sack_deadline
    }

    fn handle_timeout(&mut self, now: Timestamp) {
        if self.sack_deadline.is_some_and(|t| t <= now) {
            self.sack_now = true;
        }
    }
}

impl SctpReceiver {
    /// A DATA chunk arrived (RFC 9260 6.2, 6.7; RFC 7053).
    fn on_chunk(&mut self, now: Timestamp, chunk: DataChunk) {
        self.stats.packets_received += 1;
        let had_gap = !self.ooo.is_empty();
        if chunk.tsn <= self.cum_tsn || self.ooo.contains_key(chunk.tsn) {
            // 6.7: duplicates are reported, and a SACK goes out at once.
            self.stats.duplicate_chunks += 1;
            if self.dups.len() < self.config.max_dup_tsns {
                self.dups.push(chunk.tsn);
            }
            self.sack_now = true;
            return;
        }
        let fits = self.buffered() + chunk.payload_len as u64 <= self.config.rwnd.as_bytes();
        if chunk.tsn != self.cum_tsn + 1 && !fits {
            self.stats.dropped_chunks += 1;
            self.sack_now = true;
            return;
        }
        if chunk.tsn == self.cum_tsn + 1 {
            // In order (the common case): delivered at once, not through the map.
            self.cum_tsn += 1;
            self.deliver_in_order(now, chunk);
        } else {
            self.ooo_bytes += chunk.payload_len as u64;
            self.ooo.insert(chunk.tsn, chunk);
        }
        // Every buffered TSN is above the cumulative one, so only the lowest can be next.
        while self
            .ooo
            .first()
            .is_some_and(|(tsn, _)| tsn == self.cum_tsn + 1)
        {
            let Some((_, next)) = self.ooo.pop_first() else {
                break;
            };
            self.ooo_bytes -= next.payload_len as u64;
            self.cum_tsn += 1;
            self.deliver_in_order(now, next);
        }
        // 6.7: SACK immediately when there is a gap or a gap was (partly) filled;
        // otherwise every second packet or after the delayed-SACK timer (6.2).
        // RFC 7053 5.2: a chunk with the I bit is SACKed at once.
        self.unacked_packets += 1;
        if had_gap
            || !self.ooo.is_empty()
            || chunk.immediate_ack
            || self.unacked_packets >= self.config.sack_every
        {
            self.sack_now = true;
        } else if self.sack_deadline.is_none() {
            self.sack_deadline = Some(now + self.config.sack_delay);
        }
    }
}

#[cfg(test)]
#[path = "receiver_tests.rs"]
mod tests;
