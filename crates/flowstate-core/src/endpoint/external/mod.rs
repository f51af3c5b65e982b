//! The external rate controller: a sender whose rate is set by a rule outside this
//! crate ([`RateDecider`]: Python code, a learned policy, an agent), with the inputs a
//! built-in rate controller has.
//!
//! The sender sends RTP packets of `packet_size` bytes on the wire at the decided
//! target rate (a greedy smooth source: it always has something to send), or at the
//! pacing rate when the decision sets one below the target. Its receiver
//! is the RFC 8888 receiver NADA and SCReAM use ([`super::rfc8888::CcfbReceiver`]: per
//! packet arrival time and ECN bits, a report every `feedback_interval_ms`). At each
//! report the sender builds a [`FeedbackBatch`] (every covered packet with its send
//! time, arrival time or loss, size and ECN bits; the report's RTT, RFC 8888 section
//! 3.1; the rate in force and the coupling allowance since the previous report) and
//! asks the decider once.
//!
//! The decision is checked ([`RateDecision::checked`]: a NaN, infinite or negative rate
//! is an error, not a rate) and then held in `[min_rate, max_rate]`. A decider error
//! stops the sender (it sends nothing more) and is kept ([`ExternalSender::failure`])
//! for the driver to report with the time it happened.
//!
//! Coupling: a rate flow. Each decision that changes the target is reported to the
//! coupling manager as CC_R; an allowance becomes the target at once (as NADA's r_ref,
//! paper 003 Table I) and is handed to the decider with the next report.

mod decider;

pub use decider::{
    DecideError, FeedbackBatch, FixedRate, PacketFeedback, RateDecider, RateDecision,
};

use super::media::RtpPacket;
use super::rfc8888::CcfbReport;
use super::{Controller, Endpoint, Transmit};
use crate::config_options::ConfigOption;
use crate::coupling::{Allowance, FlowReport};
use crate::ecn::Ecn;
use crate::seq_map::SeqMap;
use crate::units::{Bitrate, DataSize, TimeDelta, Timestamp};

/// IPv4 + UDP + RTP + extensions of every packet (as the media flows, 48 B).
pub const RTP_OVERHEAD: DataSize = DataSize::bytes(48);

/// The external controller's sender configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct ExternalConfig {
    /// The rate before the first decision.
    pub initial_rate: Bitrate,
    /// The lowest rate a decision or allowance can set.
    pub min_rate: Bitrate,
    /// The highest rate a decision or allowance can set.
    pub max_rate: Bitrate,
    /// The wire size of every packet (headers included).
    pub packet_size: DataSize,
    /// How often the receiver sends an RFC 8888 report (and the decider is asked).
    pub feedback_interval: TimeDelta,
    /// How far behind its schedule the pacer may fall and catch up in a burst.
    pub max_burst: TimeDelta,
    /// The ECN codepoint of the data packets (Not-ECT unless configured).
    pub ecn: Ecn,
}

impl Default for ExternalConfig {
    fn default() -> Self {
        Self {
            initial_rate: Bitrate::kbps(300.0),
            min_rate: Bitrate::kbps(10.0),
            max_rate: Bitrate::mbps(100.0),
            packet_size: DataSize::bytes(1200),
            feedback_interval: TimeDelta::millis(60),
            max_burst: TimeDelta::millis(10),
            ecn: Ecn::NotEct,
        }
    }
}

impl ExternalConfig {
    /// The options a scenario sets (`overrides`).
    pub const OPTIONS: &'static [ConfigOption<ExternalConfig>] = crate::config_options!(ExternalConfig {
        /// The rate before the first decision.
        initial_rate: BitsPerSec => initial_rate;
        /// The lowest rate a decision or allowance can set (decisions below are raised to it).
        min_rate: BitsPerSec => min_rate;
        /// The highest rate a decision or allowance can set (decisions above are lowered to it).
        max_rate: BitsPerSec => max_rate;
        /// The wire size of every packet, headers (48 B) included.
        packet_size: Bytes => packet_size;
        /// How often the receiver sends an RFC 8888 report, and the controller is asked for a rate.
        feedback_interval_ms: Millis => feedback_interval;
        /// How far behind its schedule the pacer may fall and catch up in a burst.
        max_burst_ms: Millis => max_burst;
    });

    /// Every value in range: `0 < min_rate <= initial_rate <= max_rate`, a packet
    /// larger than its 48-byte headers, a feedback interval of at least 1 ms.
    pub fn validate(&self) -> Result<(), String> {
        if self.min_rate <= Bitrate::ZERO {
            return Err("external.min_rate must be > 0 bit/s".into());
        }
        if self.max_rate < self.min_rate {
            return Err(format!(
                "external.max_rate must be >= min_rate ({} bit/s), got {} bit/s",
                self.min_rate.as_bps(),
                self.max_rate.as_bps()
            ));
        }
        if self.initial_rate < self.min_rate || self.initial_rate > self.max_rate {
            return Err(format!(
                "external.initial_rate must be in [min_rate, max_rate] = [{}, {}] bit/s, got {} bit/s",
                self.min_rate.as_bps(),
                self.max_rate.as_bps(),
                self.initial_rate.as_bps()
            ));
        }
        if self.packet_size <= RTP_OVERHEAD {
            return Err(format!(
                "external.packet_size must be more than its {} B of headers, got {} B",
                RTP_OVERHEAD.as_bytes(),
                self.packet_size.as_bytes()
            ));
        }
        if self.feedback_interval < TimeDelta::millis(1) {
            return Err("external.feedback_interval_ms must be at least 1 ms".into());
        }
        Ok(())
    }
}

/// The sending side of an external rate controller's flow.
pub struct ExternalSender {
    cfg: ExternalConfig,
    ssrc: u32,
    decider: Box<dyn RateDecider>,
    target: Bitrate,
    pacing: Bitrate,
    next_send: Timestamp,
    last_send: Option<Timestamp>,
    next_seq: u64,
    /// Sequence number -> (send time, wire size), until a report covers it.
    history: SeqMap<(Timestamp, DataSize)>,
    rtt: Option<TimeDelta>,
    allowance: Option<Bitrate>,
    report: Option<FlowReport>,
    last_reported: Option<Bitrate>,
    failure: Option<(Timestamp, DecideError)>,
    decisions: u64,
}

impl std::fmt::Debug for ExternalSender {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ExternalSender")
            .field("target", &self.target)
            .field("next_seq", &self.next_seq)
            .field("failure", &self.failure)
            .finish_non_exhaustive()
    }
}

impl ExternalSender {
    /// A sender that starts sending at `start` at `cfg.initial_rate` and asks `decider`
    /// at every report. Check `cfg` with [`ExternalConfig::validate`] first.
    pub fn new(
        cfg: ExternalConfig,
        ssrc: u32,
        start: Timestamp,
        decider: Box<dyn RateDecider>,
    ) -> Self {
        let target = cfg.initial_rate;
        Self {
            cfg,
            ssrc,
            decider,
            target,
            pacing: target,
            next_send: start,
            last_send: None,
            next_seq: 0,
            history: SeqMap::new(),
            rtt: None,
            allowance: None,
            report: None,
            last_reported: None,
            failure: None,
            decisions: 0,
        }
    }

    /// The rate in force.
    pub fn target(&self) -> Bitrate {
        self.target
    }
    /// The rate packets leave at.
    pub fn pacing(&self) -> Bitrate {
        self.pacing
    }
    /// Decisions taken so far (one per report with an answer).
    pub fn decisions(&self) -> u64 {
        self.decisions
    }
    /// Packets sent so far.
    pub fn packets_sent(&self) -> u64 {
        self.next_seq
    }
    /// The decider's error and when it happened, once the decider failed.
    pub fn failure(&self) -> Option<&(Timestamp, DecideError)> {
        self.failure.as_ref()
    }
    /// The configuration.
    pub fn config(&self) -> &ExternalConfig {
        &self.cfg
    }

    fn clamp(&self, r: Bitrate) -> Bitrate {
        r.max(self.cfg.min_rate).min(self.cfg.max_rate)
    }

    /// Set the target and pacing rates; the next packet leaves one gap at the new
    /// pacing rate after the last one (not after the gap of the old rate).
    fn set_rates(&mut self, target: Bitrate, pacing: Option<Bitrate>) {
        self.target = self.clamp(target);
        self.pacing = self.clamp(pacing.unwrap_or(target));
        self.reschedule();
        if self.last_reported != Some(self.target) {
            self.last_reported = Some(self.target);
            self.report = Some(self.snapshot());
        }
    }

    /// After a rate change: the next packet one gap at the new pacing rate after the
    /// last one, if that is sooner than the old schedule.
    fn reschedule(&mut self) {
        if let Some(last) = self.last_send {
            self.next_send = self.next_send.min(last + self.gap());
        }
    }

    /// The time between two packets: the source is smooth (equal packets at the
    /// target rate), so a pacing rate above the target changes nothing and one below it
    /// holds the packets back.
    fn gap(&self) -> TimeDelta {
        let rate = self.target.min(self.pacing);
        TimeDelta::from_secs_f64(self.cfg.packet_size.as_bits_f64() / rate.as_bps())
    }

    fn apply(&mut self, now: Timestamp, decided: Result<RateDecision, DecideError>) {
        match decided.and_then(|d| d.checked()) {
            Ok((target, pacing)) => {
                self.decisions += 1;
                self.set_rates(target, pacing);
            }
            Err(e) => self.failure = Some((now, e)),
        }
    }

    /// A decision made outside the feedback path, if the decider has one.
    fn poll_decider(&mut self, now: Timestamp) {
        if self.failure.is_none() {
            if let Some(d) = self.decider.poll_decision(now) {
                self.apply(now, Ok(d));
            }
        }
    }

    /// An RFC 8888 report: every covered packet into the batch, then one decision.
    fn on_report(&mut self, now: Timestamp, r: &CcfbReport) {
        if let Some(rtt) = r.rtt(now, |s| self.history.get(s).map(|h| h.0)) {
            self.rtt = Some(rtt);
        }
        let packets = r
            .entries()
            .filter_map(|(seq, entry)| {
                let &(sent, size) = self.history.get(seq)?;
                Some(PacketFeedback {
                    seq,
                    sent,
                    arrival: entry.map(|a| a.arrival),
                    size,
                    ecn: entry.map_or(0, |a| a.ecn),
                })
            })
            .collect();
        if let Some(last) = r.packets.len().checked_sub(1) {
            let end = r.begin_seq + last as u64;
            self.history.retain(|s, _| s > end);
        }
        let batch = FeedbackBatch {
            now,
            report_time: r.report_time,
            packets,
            rtt: self.rtt,
            target: self.target,
            allowance: self.allowance.take(),
        };
        let decided = self.decider.decide(&batch);
        self.apply(now, decided);
    }
}

impl Endpoint for ExternalSender {
    type Outgoing = RtpPacket;
    type Incoming = CcfbReport;

    fn handle_input(&mut self, now: Timestamp, report: CcfbReport) {
        if self.failure.is_none() {
            self.on_report(now, &report);
        }
    }

    fn poll_transmit(&mut self, now: Timestamp) -> Option<Transmit<RtpPacket>> {
        self.poll_decider(now);
        if self.failure.is_some() || now < self.next_send {
            return None;
        }
        let size = self.cfg.packet_size;
        self.next_send = self.next_send.max(now - self.cfg.max_burst) + self.gap();
        self.last_send = Some(now);
        let seq = self.next_seq;
        self.next_seq += 1;
        self.history.insert(seq, (now, size));
        Some(Transmit {
            size,
            message: RtpPacket {
                ssrc: self.ssrc,
                sequence_number: seq,
                transport_seq: seq,
                send_time: now,
                payload_size: size.saturating_sub(RTP_OVERHEAD),
                frame_id: seq,
                frame_capture_time: now,
                frame_packet_index: 0,
                frame_packet_count: 1,
                keyframe: false,
            },
        })
    }

    fn poll_timeout(&self) -> Option<Timestamp> {
        self.failure.is_none().then_some(self.next_send)
    }

    fn handle_timeout(&mut self, now: Timestamp) {
        self.poll_decider(now);
    }
}

/// A rate flow: reports its target, takes a rate allowance as its target.
impl Controller for ExternalSender {
    fn poll_cc_report(&mut self) -> Option<FlowReport> {
        self.report.take()
    }

    fn apply_allowance(&mut self, _now: Timestamp, allowance: Allowance) {
        if let Allowance::Rate(r) = allowance {
            self.allowance = Some(r);
            self.target = self.clamp(r);
            self.pacing = self.target;
            self.last_reported = Some(self.target);
            self.reschedule();
        }
    }

    fn snapshot(&self) -> FlowReport {
        FlowReport::Rate {
            rate: self.target,
            rtt: self.rtt,
        }
    }

    fn latest_rtt(&self) -> Option<TimeDelta> {
        self.rtt
    }

    /// After a pause the source sends from `now` on, at its rate: the packets of the
    /// paused time are never sent (no catch-up burst).
    fn resume(&mut self, now: Timestamp) {
        self.next_send = self.next_send.max(now);
    }

    fn ecn_codepoint(&self) -> Ecn {
        self.cfg.ecn
    }
}

#[cfg(test)]
mod tests;
