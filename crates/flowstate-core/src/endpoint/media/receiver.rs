//! The receiving side of a media flow: arrivals recorded for transport-wide feedback or
//! estimated at the receiver (REMB), receiver reports, and NACKs with `nack_rtx`.

use super::config::MediaReceiverConfig;
use super::feedback::{MediaFeedback, PacketArrival, RttEcho};
use super::packet::RtpPacket;
use crate::ecn::Ecn;
use crate::endpoint::nack::{nack_wire_size, NackRequester};
use crate::endpoint::report_schedule::ReportSchedule;
use crate::endpoint::rtx::rtx_ssrc;
use crate::endpoint::{earliest, Endpoint, Transmit};
use crate::gcc::feedback_cadence::FeedbackCadence;
use crate::gcc::remb::RembScheduler;
use crate::gcc::{DelayBasedBwe, EstimationSide, GccObservation, PacketTiming};
use crate::playout::FramePlayout;
use crate::units::{Bitrate, TimeDelta, Timestamp};
use std::collections::VecDeque;

/// The receiving side of a media flow.
#[derive(Debug)]
pub struct MediaReceiver {
    cfg: MediaReceiverConfig,
    bwe: Option<DelayBasedBwe>,
    remb: RembScheduler,
    out: VecDeque<Transmit<MediaFeedback>>,
    pending_arrivals: Vec<PacketArrival>,
    next_feedback: Option<Timestamp>,
    /// `chromium_feedback_cadence`: the report schedule.
    cadence: Option<FeedbackCadence>,
    reports: ReportSchedule,
    next_report: Option<Timestamp>,
    newest: Option<(Timestamp, Timestamp)>,
    highest_seq: Option<u64>,
    prev_highest: Option<u64>,
    received_interval: u64,
    cumulative_lost: u64,
    expected_total_base: Option<u64>,
    received_total: u64,
    bytes_received: u64,
    last_delay: Option<TimeDelta>,
    observations: VecDeque<GccObservation>,
    /// `nack_rtx`: the NACK list.
    nack: Option<NackRequester>,
    /// Packets that arrived CE-marked (counted for the metrics; GCC's feedback carries
    /// no ECN).
    ce_marks: u64,
    /// The frames as the receiving application sees them (an observer: it sends
    /// nothing).
    playout: FramePlayout,
}

impl MediaReceiver {
    pub fn new(cfg: MediaReceiverConfig) -> Self {
        let bwe = match cfg.gcc.side {
            EstimationSide::Receiver => Some(DelayBasedBwe::new(cfg.gcc.delay.clone())),
            EstimationSide::Sender => None,
        };
        let remb = RembScheduler::new(cfg.gcc.remb.clone());
        let cadence = cfg.gcc.feedback_cadence.map(FeedbackCadence::new);
        let nack = cfg.nack.map(NackRequester::new);
        let reports = ReportSchedule::new(
            cfg.gcc.receiver_report_interval,
            cfg.gcc.randomized_report_interval,
            cfg.seed,
        );
        Self {
            playout: FramePlayout::new(cfg.playout),
            nack,
            cfg,
            cadence,
            reports,
            bwe,
            remb,
            out: VecDeque::new(),
            pending_arrivals: Vec::new(),
            next_feedback: None,
            next_report: None,
            newest: None,
            highest_seq: None,
            prev_highest: None,
            received_interval: 0,
            cumulative_lost: 0,
            expected_total_base: None,
            received_total: 0,
            bytes_received: 0,
            last_delay: None,
            observations: VecDeque::new(),
            ce_marks: 0,
        }
    }

    /// Packets that arrived CE-marked.
    pub fn ce_marks(&self) -> u64 {
        self.ce_marks
    }

    /// The frame playout model.
    pub fn playout(&self) -> &FramePlayout {
        &self.playout
    }

    /// Time reached `now`: render the frames due (for the end of a run; packets
    /// advance it on their own).
    pub fn advance_playout(&mut self, now: Timestamp) {
        self.playout.advance(now);
    }

    fn echo(&self, now: Timestamp) -> Option<RttEcho> {
        self.newest.map(|(send, arrival)| RttEcho {
            send_time: send,
            hold: now.saturating_since(arrival),
        })
    }

    fn send_remb(&mut self, now: Timestamp, rate: Bitrate) {
        let echo = self.echo(now);
        self.out.push_back(Transmit {
            size: self.cfg.wire.remb,
            message: MediaFeedback::Remb {
                ssrc: self.cfg.ssrc,
                bitrate: rate,
                echo,
            },
        });
    }

    /// When the transport feedback for a packet arriving at `now` goes: on Chromium's
    /// schedule with `chromium_feedback_cadence` (the next step strictly after `now`),
    /// else `feedback_interval` later.
    fn next_feedback_after(&self, now: Timestamp) -> Timestamp {
        match &self.cadence {
            Some(c) => c.next_after(now),
            None => now + self.cfg.gcc.feedback_interval,
        }
    }

    fn send_feedback(&mut self, now: Timestamp) {
        let packets = std::mem::take(&mut self.pending_arrivals);
        let n = packets.len() as u64;
        let echo = self.echo(now);
        self.out.push_back(Transmit {
            size: self.cfg.wire.feedback_fixed + self.cfg.wire.feedback_per_packet * n,
            message: MediaFeedback::TransportFeedback {
                ssrc: self.cfg.ssrc,
                packets,
                echo,
            },
        });
    }

    fn send_report(&mut self, now: Timestamp) {
        let Some(high) = self.highest_seq else { return };
        let expected = match self.prev_highest {
            Some(p) => high.saturating_sub(p),
            None => high.saturating_sub(self.expected_total_base.unwrap_or(high)) + 1,
        };
        let received = self.received_interval;
        let lost = expected.saturating_sub(received);
        let fraction = if expected == 0 {
            0.0
        } else {
            lost as f64 / expected as f64
        };
        self.cumulative_lost = self.cumulative_lost.saturating_add(lost);
        self.prev_highest = Some(high);
        self.received_interval = 0;
        let echo = self.echo(now);
        self.out.push_back(Transmit {
            size: self.cfg.wire.receiver_report,
            message: MediaFeedback::ReceiverReport {
                ssrc: self.cfg.ssrc,
                fraction_lost: fraction.clamp(0.0, 1.0),
                cumulative_lost: self.cumulative_lost,
                highest_seq: high,
                echo,
            },
        });
    }

    /// Next receiver-side GCC snapshot (paper presets).
    pub fn poll_observation(&mut self) -> Option<GccObservation> {
        self.observations.pop_front()
    }
    /// The receiver-side estimator (paper presets).
    pub fn delay_based(&self) -> Option<&DelayBasedBwe> {
        self.bwe.as_ref()
    }
    pub fn bytes_received(&self) -> u64 {
        self.bytes_received
    }
    pub fn packets_received(&self) -> u64 {
        self.received_total
    }
    /// One-way delay of the newest packet.
    pub fn last_one_way_delay(&self) -> Option<TimeDelta> {
        self.last_delay
    }
    /// `nack_rtx`: the NACK list (`None` without the option).
    pub fn nack(&self) -> Option<&NackRequester> {
        self.nack.as_ref()
    }

    /// `nack_rtx`: send a Generic NACK of `seqs` (none if empty).
    fn send_nack(&mut self, seqs: Vec<u64>) {
        if seqs.is_empty() {
            return;
        }
        self.out.push_back(Transmit {
            size: nack_wire_size(&seqs),
            message: MediaFeedback::Nack {
                ssrc: self.cfg.ssrc,
                sequence_numbers: seqs,
            },
        });
    }

    /// `nack_rtx`: a packet of the media stream or its RTX stream arrived; `true` if it
    /// came on the RTX stream (a retransmission or padding, which the media stream's
    /// receive statistics do not count).
    fn nack_on_arrival(&mut self, now: Timestamp, p: &RtpPacket) -> bool {
        let Some(n) = self.nack.as_mut() else {
            return false;
        };
        let rtx = p.ssrc == rtx_ssrc(self.cfg.ssrc);
        if rtx && p.frame_packet_count == 0 {
            // Padding on the RTX stream: nothing of the media stream.
            return true;
        }
        let batch = n.on_received(now, p.sequence_number, rtx);
        self.send_nack(batch);
        rtx
    }
}

impl Endpoint for MediaReceiver {
    type Outgoing = MediaFeedback;
    type Incoming = RtpPacket;

    /// The mark is counted and goes no further: transport-wide feedback (and REMB)
    /// carries no ECN, and goog_cc does not react to CE.
    fn handle_input_ecn(&mut self, now: Timestamp, p: RtpPacket, ecn: Ecn) {
        if ecn.is_ce() {
            self.ce_marks += 1;
        }
        self.handle_input(now, p);
    }

    fn handle_input(&mut self, now: Timestamp, p: RtpPacket) {
        let wire = p.payload_size + self.cfg.wire.rtp_overhead;
        self.bytes_received += wire.as_bytes();
        self.received_total += 1;
        self.last_delay = Some(now - p.send_time);
        if self.newest.is_none_or_older(p.send_time) {
            self.newest = Some((p.send_time, now));
        }
        let rtx = p.ssrc == rtx_ssrc(self.cfg.ssrc);
        self.playout.on_packet(now, &p, rtx);
        if !self.nack_on_arrival(now, &p) {
            self.received_interval += 1;
            self.expected_total_base.get_or_insert(p.sequence_number);
            self.highest_seq = Some(
                self.highest_seq
                    .map_or(p.sequence_number, |h| h.max(p.sequence_number)),
            );
        }
        if self.next_report.is_none() {
            self.next_report = Some(self.reports.first(now));
        }
        match self.cfg.gcc.side {
            EstimationSide::Sender => {
                self.pending_arrivals.push(PacketArrival {
                    transport_seq: p.transport_seq,
                    arrival_time: now,
                });
                if self.next_feedback.is_none() {
                    self.next_feedback = Some(self.next_feedback_after(now));
                }
            }
            EstimationSide::Receiver => {
                let timing = PacketTiming {
                    send_time: p.send_time,
                    arrival_time: now,
                    size: wire,
                    frame: Some(p.frame_id),
                };
                let updated = self
                    .bwe
                    .as_mut()
                    .and_then(|b| b.on_packets(now, [timing].iter()));
                if let Some(obs) = self.bwe.as_mut().and_then(|b| b.take_observation()) {
                    if self.observations.len() >= self.cfg.gcc.observation_capacity.max(1) {
                        self.observations.pop_front();
                    }
                    self.observations.push_back(obs);
                }
                if let Some(rate) = updated {
                    if self.remb.should_send(now, rate) {
                        self.send_remb(now, rate);
                    }
                }
            }
        }
    }

    fn poll_transmit(&mut self, _now: Timestamp) -> Option<Transmit<MediaFeedback>> {
        self.out.pop_front()
    }

    fn poll_timeout(&self) -> Option<Timestamp> {
        let remb = if self.bwe.is_some() {
            self.remb.next_periodic()
        } else {
            None
        };
        let nack = self.nack.as_ref().and_then(NackRequester::poll_timeout);
        earliest([self.next_feedback, self.next_report, remb, nack])
    }

    fn handle_timeout(&mut self, now: Timestamp) {
        if let Some(n) = self.nack.as_mut() {
            let again = n.handle_timeout(now);
            self.send_nack(again);
        }
        if self.next_feedback.is_some_and(|t| now >= t) {
            self.send_feedback(now);
            self.next_feedback = if self.pending_arrivals.is_empty() {
                None
            } else {
                Some(self.next_feedback_after(now))
            };
        }
        if self.next_report.is_some_and(|t| now >= t) {
            self.send_report(now);
            self.next_report = Some(self.reports.next(now));
        }
        if let Some(bwe) = self.bwe.as_ref() {
            if self.remb.next_periodic().is_some_and(|t| now >= t) {
                let rate = bwe.estimate();
                if self.remb.should_send(now, rate) {
                    self.send_remb(now, rate);
                }
            }
        }
    }
}

trait NewestExt {
    fn is_none_or_older(&self, send: Timestamp) -> bool;
}
impl NewestExt for Option<(Timestamp, Timestamp)> {
    fn is_none_or_older(&self, send: Timestamp) -> bool {
        self.map_or(true, |(s, _)| send >= s)
    }
}

#[cfg(test)]
#[path = "receiver_tests.rs"]
mod tests;
