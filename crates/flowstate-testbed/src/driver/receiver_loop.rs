//! The receiver side's event loop: data packets measured and handed to the receivers,
//! their feedback sent back, the SCTP association answered.

use super::flows::{RxFlow, RxKind};
use super::io::Io;
use super::shared::Shared;
use super::timing::{earliest, wait_until};
use crate::codec::{self, Class, SctpMessage};
use flowstate_core::endpoint::Endpoint;
use flowstate_core::{Ecn, TimeDelta, Timestamp};
use flowstate_sim::flow::Dir;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// The receiver side's loop (a thread of its own).
pub(super) struct ReceiverLoop {
    pub(super) shared: Arc<Shared>,
    pub(super) io: Io,
    pub(super) flows: Vec<RxFlow>,
    pub(super) done: Arc<AtomicBool>,
}

impl ReceiverLoop {
    pub(super) fn run(mut self) -> (Io, Vec<RxFlow>) {
        let clock = self.shared.clock;
        while !self.done.load(Ordering::Relaxed) {
            let now = clock.now();
            for i in 0..self.flows.len() {
                let f = &mut self.flows[i];
                if f.kind.poll_timeout().is_some_and(|t| t <= now) {
                    f.kind.handle_timeout(now);
                }
                self.drain(now, i);
            }
            let next = self
                .flows
                .iter()
                .fold(None, |a, f| earliest(a, f.kind.poll_timeout()));
            if let Some((t, bytes, ecn)) = self.io.recv(&clock, wait_until(now, next)) {
                self.input(t, &bytes, ecn);
            }
        }
        (self.io, self.flows)
    }

    fn drain(&mut self, now: Timestamp, i: usize) {
        let Some(f) = self.flows.get_mut(i) else {
            return;
        };
        loop {
            let out = f.kind.poll_datagram(i, now);
            let Some((class, bytes)) = out else { break };
            self.io.send(now, class, &bytes);
        }
        let delivered = f.kind.bytes_delivered();
        if let (Some(d), Some(g)) = (delivered, self.shared.goodput.get(i)) {
            g.store(d.as_bytes(), Ordering::Relaxed);
        }
    }

    /// Metrics for one arriving data packet: throughput, one-way delay above the
    /// flow's minimum (queuing delay), losses by sequence gaps, and CE marks.
    fn measure(
        &mut self,
        i: usize,
        seq: u64,
        sent: Timestamp,
        now: Timestamp,
        size: u32,
        ecn: Ecn,
    ) {
        let Some(f) = self.flows.get_mut(i) else {
            return;
        };
        f.ce_marks += u64::from(ecn.is_ce());
        let owd = now.as_micros() as i64 - sent.as_micros() as i64;
        let a = f.arrivals.on_packet(seq, owd);
        self.shared.record(|m, t| {
            // Sent `owd` before arrival (one-way delay and jitter of the summary).
            m.on_deliver(t, i, Dir::Data, size, t - TimeDelta::from_micros(owd));
            m.on_queue_wait(t, i, Dir::Data, TimeDelta::from_micros(a.queue_us));
            for _ in 0..a.lost {
                m.on_loss(t, i, Dir::Data);
            }
        });
    }

    /// A datagram from the sender side, with the ECN codepoint it arrived with (what
    /// the receivers feed back).
    fn input(&mut self, now: Timestamp, bytes: &[u8], ecn: Ecn) {
        match codec::classify(bytes) {
            Some(Class::Rtp) => match codec::decode_rtp(bytes) {
                Ok(p) => {
                    let i = codec::flow_of_ssrc(p.ssrc);
                    let Some(i) =
                        i.filter(|&i| self.flows.get(i).is_some_and(|f| f.kind.is_media()))
                    else {
                        self.io.stats.foreign += 1;
                        return;
                    };
                    self.io.stats.decoded += 1;
                    let size = (bytes.len() as u64 + codec::IP_UDP_OVERHEAD) as u32;
                    self.measure(i, p.sequence_number, p.send_time, now, size, ecn);
                    match self.flows.get_mut(i).map(|f| &mut f.kind) {
                        Some(RxKind::Gcc(r, _)) => r.handle_input_ecn(now, p, ecn),
                        Some(RxKind::Ccfb(r)) => r.handle_input_ecn(now, p, ecn),
                        _ => {}
                    }
                    self.drain(now, i);
                }
                Err(_) => self.io.stats.malformed += 1,
            },
            Some(Class::Sctp) => self.sctp(now, bytes, ecn),
            Some(Class::Utp) => self.utp(now, bytes, ecn),
            Some(Class::Rtcp) | None => self.io.stats.foreign += 1,
        }
    }

    /// A LEDBAT segment (uTP ST_DATA): measured like the other data packets (loss by
    /// gaps in the packet numbers), then handed to the receiver.
    fn utp(&mut self, now: Timestamp, bytes: &[u8], ecn: Ecn) {
        let Some((i, seg, packet)) = self.io.decoded(codec::decode_ledbat_segment(bytes)) else {
            return;
        };
        if !matches!(self.flows.get(i).map(|f| &f.kind), Some(RxKind::Ledbat(_))) {
            self.io.stats.foreign += 1;
            return;
        }
        self.io.stats.decoded += 1;
        let size = (bytes.len() as u64 + codec::IP_UDP_OVERHEAD) as u32;
        self.measure(i, packet, seg.timestamp, now, size, ecn);
        if let RxKind::Ledbat(r) = &mut self.flows[i].kind {
            r.handle_input_ecn(now, seg, ecn);
        }
        self.drain(now, i);
    }

    fn sctp(&mut self, now: Timestamp, bytes: &[u8], ecn: Ecn) {
        let Some((i, m)) = self.io.decoded(codec::decode_sctp(bytes)) else {
            return;
        };
        if !matches!(self.flows.get(i).map(|f| &f.kind), Some(RxKind::Sctp(_))) {
            self.io.stats.foreign += 1;
            return;
        }
        self.io.stats.decoded += 1;
        let reply = match m {
            SctpMessage::Init => Some(SctpMessage::InitAck {
                cookie: codec::cookie_for(i),
            }),
            SctpMessage::CookieEcho => {
                self.flows[i].established = true;
                Some(SctpMessage::CookieAck)
            }
            SctpMessage::Shutdown => {
                self.flows[i].shut_down = true;
                Some(SctpMessage::ShutdownAck)
            }
            SctpMessage::Data { chunk, sent } => {
                if self.flows[i].established && !self.flows[i].shut_down {
                    let size = bytes.len() as u32;
                    self.measure(i, chunk.tsn, sent, now, size, ecn);
                    if let RxKind::Sctp(r) = &mut self.flows[i].kind {
                        r.handle_input_ecn(now, chunk, ecn);
                    }
                }
                None
            }
            _ => None,
        };
        if let Some(r) = reply {
            let b = codec::encode_control(i, &r);
            self.io.send(now, Class::Sctp, &b);
        }
        self.drain(now, i);
    }
}
