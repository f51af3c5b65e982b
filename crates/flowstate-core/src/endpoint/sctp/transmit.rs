//! What an SCTP sender puts on the wire: retransmissions before new data (RFC 9260 6.1
//! C), new DATA chunks cut to the MTU (or, with dcSCTP's rule, to what cwnd leaves), and
//! the T3-rtx timer started with the first chunk in flight (6.3.2 R1).

use super::chunk::{data_packet_size, DataChunk, COMMON_HEADER, DATA_CHUNK_HEADER};
use super::outstanding::Outstanding;
use super::sender::SctpSender;
use crate::endpoint::Transmit;
use crate::units::{DataSize, Timestamp};
use crate::window::WindowController;

impl SctpSender {
    fn max_payload(&self) -> u64 {
        self.cc
            .mtu()
            .as_bytes()
            .saturating_sub(COMMON_HEADER + DATA_CHUNK_HEADER)
            .max(4)
            / 4
            * 4
    }

    fn start_t3_if_stopped(&mut self, now: Timestamp) {
        if self.t3.is_none() {
            self.t3 = Some(now + self.rtt.rto());
        }
    }

    /// RFC 7053's I bit as dcSCTP sets it: cwnd under `immediate_sack_under_cwnd_mtus`.
    pub(super) fn immediate_ack(&self) -> bool {
        self.cc.cwnd() < self.cc.mtu() * self.config.immediate_sack_under_cwnd_mtus
    }

    pub(super) fn send_retransmission(
        &mut self,
        now: Timestamp,
        immediate_ack: bool,
    ) -> Option<Transmit<DataChunk>> {
        let (tsn, _) = self.rtx.first()?;
        self.rtx.remove(tsn);
        let o = self.outstanding.get_mut(tsn)?;
        o.marked = false;
        o.in_flight = true;
        o.sent_at = now;
        o.transmissions += 1;
        if self.config.renack_retransmissions {
            o.misses = 0; // dcSCTP's MarkAsRetransmitted: counted again from zero
        }
        let (wire, mut chunk) = (o.wire, o.chunk);
        chunk.immediate_ack = immediate_ack;
        if self.rtt_probe.is_some_and(|(p, _)| p == tsn) {
            self.rtt_probe = None; // Karn: no sample from a retransmitted chunk (6.3.1 C4)
        }
        self.cc.on_sent(now, wire);
        self.stats.bytes_sent += wire.as_bytes();
        self.stats.bytes_retransmitted += wire.as_bytes();
        self.stats.packets_sent += 1;
        self.stats.packets_retransmitted += 1;
        self.start_t3_if_stopped(now);
        Some(Transmit {
            size: wire,
            message: chunk,
        })
    }

    /// The payload bytes a new chunk may carry: the MTU's, or with `cwnd_sized_packets`
    /// what cwnd leaves after the packet's headers (whole 4-byte units; 0: none fits).
    fn payload_budget(&self) -> u64 {
        let max_payload = self.max_payload();
        if !self.config.cwnd_sized_packets {
            return max_payload;
        }
        let room = self.cc.cwnd().saturating_sub(self.cc.bytes_in_flight());
        let headers = data_packet_size(0, self.config.lower_layer_overhead);
        (room.saturating_sub(headers).as_bytes() / 4 * 4).min(max_payload)
    }

    /// With `cwnd_sized_packets`, whether the first chunk marked for retransmission fits
    /// whole in what cwnd leaves.
    pub(super) fn retransmission_fits(&self) -> bool {
        // With nothing in flight a chunk always goes (cwnd is at least an MTU, and the
        // bytes below SCTP that `lower_layer_overhead` adds must not stall it).
        if !self.config.cwnd_sized_packets || self.cc.bytes_in_flight() == DataSize::ZERO {
            return true;
        }
        let room = self.cc.cwnd().saturating_sub(self.cc.bytes_in_flight());
        self.rtx
            .first()
            .and_then(|(tsn, _)| self.outstanding.get(tsn))
            .is_some_and(|o| o.wire <= room)
    }

    pub(super) fn send_new(&mut self, now: Timestamp) -> Option<Transmit<DataChunk>> {
        let max_payload = self.payload_budget();
        if max_payload == 0 {
            return None;
        }
        let msg = self.queue.front_mut()?;
        let payload = msg.remaining.min(max_payload);
        let begin = !msg.started;
        msg.started = true;
        msg.remaining -= payload;
        let end = msg.remaining == 0;
        let id = msg.id;
        if end {
            self.queue.pop_front();
        }
        self.buffered = self.buffered.saturating_sub(payload);
        let payload = payload as u32;
        let chunk = DataChunk {
            tsn: self.next_tsn,
            message_id: id,
            stream_offset: self.stream_offset,
            payload_len: payload,
            begin,
            end,
            immediate_ack: self.immediate_ack(),
            cwr: None,
        };
        self.next_tsn += 1;
        self.stream_offset += payload as u64;
        let wire = data_packet_size(payload, self.config.lower_layer_overhead);
        self.outstanding_payload += payload as u64;
        self.outstanding.insert(
            chunk.tsn,
            Outstanding {
                chunk,
                wire,
                sent_at: now,
                transmissions: 1,
                gap_acked: false,
                in_flight: true,
                marked: false,
                misses: 0,
                fast_retransmitted: false,
            },
        );
        // 6.2.1 B: rwnd is reduced by the data sent.
        self.peer_rwnd = self.peer_rwnd.saturating_sub(payload as u64);
        if self.rtt_probe.is_none() {
            self.rtt_probe = Some((chunk.tsn, now));
        }
        self.cc.on_sent(now, wire);
        self.stats.bytes_sent += wire.as_bytes();
        self.stats.packets_sent += 1;
        self.start_t3_if_stopped(now);
        Some(Transmit {
            size: wire,
            message: chunk,
        })
    }
}
