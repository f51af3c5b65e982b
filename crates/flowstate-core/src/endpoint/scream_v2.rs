//! The SCReAM v2 media sender (crate::scream_v2): a video source whose encoder follows
//! the target bitrate, a send queue drained by a pacer at the pacing rate and stopped
//! while the data in flight reaches the send window (libwebrtc's pacer with
//! ScreamNetworkController's congestion window). The pacer is Chromium's by default
//! (`chromium_pacer`): the media debt of `PacingController` (`gcc::media_debt`), a
//! packet going while the debt drains within ScreamNetworkController's burst window
//! (40 ms, 10 ms for 15 s after a reaction to congestion), so a frame leaves in a burst;
//! without it every packet waits one packet time at the pacing rate. Feedback: RFC 8888 reports from a
//! [`super::rfc8888::CcfbReceiver`] (libwebrtc's CongestionControlFeedbackGenerator
//! sends one at most every 25 ms).
//!
//! ECN: every packet goes out ECT(1) by default, as Chromium's with the ScreamV2 field
//! trial ([`ScreamV2SenderConfig::ecn`]; ECT(0) and Not-ECT are options). A CE mark
//! feeds l4s_alpha and the window's CE reduction (the L4S response, whatever the
//! codepoint: libwebrtc has no classic-ECN mode).
//!
//! Coupling: as SCReAM v1, a rate flow: it reports its target and an allowance sets
//! the target and the reference window it implies.

use super::media::{RtpPacket, WireSizes};
use super::rfc8888::CcfbReport;
use super::video::VideoPacketizer;
use super::{Controller, Endpoint, Transmit};
use crate::coupling::{Allowance, FlowReport};
use crate::ecn::Ecn;
use crate::gcc::media_debt::MediaDebtConfig;
use crate::scream_v2::{FeedbackSummary, ScreamV2, ScreamV2Config};
use crate::source::VideoSourceConfig;
use crate::units::{Bitrate, DataSize, TimeDelta, Timestamp};
use std::collections::{BTreeMap, VecDeque};

/// How long a packet reported lost is remembered, in case it is reported received
/// later (reordering).
pub const LOST_MEMORY: TimeDelta = TimeDelta::secs(2);

/// SCReAM v2 sender configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct ScreamV2SenderConfig {
    pub ssrc: u32,
    pub scream: ScreamV2Config,
    pub source: VideoSourceConfig,
    /// Seed of the source's noise.
    pub seed: u64,
    pub wire: WireSizes,
    /// The codepoint of every RTP packet (ECT(1) by default, as Chromium's).
    pub ecn: Ecn,
}

impl ScreamV2SenderConfig {
    pub fn new(scream: ScreamV2Config, source: VideoSourceConfig) -> Self {
        ScreamV2SenderConfig {
            ssrc: 1,
            scream,
            source,
            seed: 1,
            wire: WireSizes::default(),
            ecn: Ecn::Ect1,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fate {
    InFlight,
    Lost,
}

#[derive(Debug, Clone, Copy)]
struct SentRecord {
    size: DataSize,
    sent: Timestamp,
    fate: Fate,
}

/// The sending side of a SCReAM v2 media flow.
#[derive(Debug, Clone)]
pub struct ScreamV2Sender {
    cfg: ScreamV2SenderConfig,
    cc: ScreamV2,
    video: VideoPacketizer,
    /// Packets waiting for the pacer, with their size on the wire and queueing time.
    queue: VecDeque<(RtpPacket, DataSize, Timestamp)>,
    sent: BTreeMap<u64, SentRecord>,
    in_flight: DataSize,
    next_seq: u64,
    next_send: Timestamp,
    /// Chromium's pacer: the media debt and when it was last paid off.
    debt: DataSize,
    debt_paid_at: Timestamp,
    last_frame: Option<Timestamp>,
    report: Option<FlowReport>,
    last_reported: Option<Bitrate>,
    encoder_target: Bitrate,
    desired: Option<Bitrate>,
    bytes_sent: u64,
    packets_sent: u64,
}

impl ScreamV2Sender {
    /// A sender whose first frame is captured at `now`. Check `cfg.scream` with
    /// [`ScreamV2Config::validate`] first.
    pub fn new(cfg: ScreamV2SenderConfig, now: Timestamp) -> Self {
        let video = VideoPacketizer::new(&cfg.source, cfg.wire.clone(), cfg.ssrc, now, cfg.seed);
        let mut s = ScreamV2Sender {
            cc: ScreamV2::new(cfg.scream.clone()),
            video,
            queue: VecDeque::new(),
            sent: BTreeMap::new(),
            in_flight: DataSize::ZERO,
            next_seq: 0,
            next_send: now,
            debt: DataSize::ZERO,
            debt_paid_at: now,
            last_frame: None,
            report: None,
            last_reported: None,
            encoder_target: Bitrate::ZERO,
            desired: None,
            bytes_sent: 0,
            packets_sent: 0,
            cfg,
        };
        s.update_encoder(now);
        s
    }

    pub fn controller(&self) -> &ScreamV2 {
        &self.cc
    }
    pub fn config(&self) -> &ScreamV2SenderConfig {
        &self.cfg
    }
    pub fn target_bitrate(&self) -> Bitrate {
        self.cc.target_bitrate()
    }
    pub fn bytes_in_flight(&self) -> DataSize {
        self.in_flight
    }
    /// The frames the encoder encoded and dropped.
    pub fn encoder_log(&self) -> &crate::playout::EncoderLog {
        self.video.encoder_log()
    }
    pub fn bytes_sent(&self) -> u64 {
        self.bytes_sent
    }
    pub fn packets_sent(&self) -> u64 {
        self.packets_sent
    }
    /// Packets waiting for the pacer.
    pub fn queued_packets(&self) -> usize {
        self.queue.len()
    }

    /// The application's desired rate caps the encoder (`None` = unlimited).
    pub fn set_desired_rate(&mut self, now: Timestamp, rate: Option<Bitrate>) {
        self.desired = rate;
        self.encoder_target = Bitrate::ZERO;
        self.update_encoder(now);
    }

    fn update_encoder(&mut self, now: Timestamp) {
        let target = self.cc.target_bitrate();
        let target = self.desired.map_or(target, |d| target.min(d));
        if target != self.encoder_target {
            self.encoder_target = target;
            self.video.set_wire_rate(now, target);
        }
    }

    fn after_control(&mut self, now: Timestamp) {
        let rate = self.cc.target_bitrate();
        if self.last_reported != Some(rate) {
            self.last_reported = Some(rate);
            self.report = Some(FlowReport::Rate {
                rate,
                rtt: self.cc.srtt(),
            });
        }
        self.update_encoder(now);
    }

    fn produce_frames(&mut self, now: Timestamp) {
        while let Some(packets) = self.video.poll_frame(now) {
            let size = packets.iter().fold(DataSize::ZERO, |acc, (_, s)| acc + *s);
            let oldest = self
                .queue
                .front()
                .map_or(TimeDelta::ZERO, |q| now.saturating_since(q.2));
            let period = self
                .last_frame
                .map_or(TimeDelta::millis(33), |t| now.saturating_since(t));
            self.last_frame = Some(now);
            self.cc.on_frame(oldest, size, period);
            self.queue
                .extend(packets.into_iter().map(|(p, s)| (p, s, now)));
        }
    }

    /// Chromium's pacer's rule at `now`: `PacingController`'s media debt with
    /// ScreamNetworkController's burst window.
    fn debt_config(&self, now: Timestamp) -> MediaDebtConfig {
        MediaDebtConfig {
            burst_interval: self.cc.pacing_window(now),
            ..MediaDebtConfig::default()
        }
    }

    /// `UpdateBudgetWithElapsedTime`: the debt paid off at the pacing rate up to `now`.
    fn pay_debt(&mut self, now: Timestamp) {
        let elapsed = now.saturating_since(self.debt_paid_at);
        self.debt = MediaDebtConfig::default().pay(self.debt, self.cc.pacing_rate(), elapsed);
        self.debt_paid_at = now;
    }

    /// The report as the controller reads it (libwebrtc `ParseScreamFeedback`), and
    /// the send records it settles.
    fn summarize(&mut self, now: Timestamp, r: &CcfbReport) -> FeedbackSummary {
        let mut fb = FeedbackSummary {
            now,
            data_in_flight: DataSize::ZERO,
            received: 0,
            ce_marked: 0,
            lost: 0,
            recovered: 0,
            acked_not_marked: DataSize::ZERO,
            min_one_way_delay: TimeDelta::MAX,
            max_one_way_delay: TimeDelta::ZERO,
            hold_time: TimeDelta::ZERO,
            rtt_sample: TimeDelta::ZERO,
        };
        // (arrival, send time) of the first and the last arrival reported.
        let mut first: Option<Timestamp> = None;
        let mut last: Option<(Timestamp, Timestamp)> = None;
        for (seq, entry) in r.entries() {
            let Some(rec) = self.sent.get(&seq).copied() else {
                continue;
            };
            match entry {
                Some(a) => {
                    self.sent.remove(&seq);
                    match rec.fate {
                        Fate::InFlight => self.in_flight = self.in_flight.saturating_sub(rec.size),
                        Fate::Lost => fb.recovered += 1,
                    }
                    fb.received += 1;
                    if a.ce() {
                        fb.ce_marked += 1;
                    } else {
                        fb.acked_not_marked += rec.size;
                    }
                    let owd = a.arrival - rec.sent;
                    fb.min_one_way_delay = fb.min_one_way_delay.min(owd);
                    fb.max_one_way_delay = fb.max_one_way_delay.max(owd);
                    first = Some(first.map_or(a.arrival, |f| f.min(a.arrival)));
                    if last.map_or(true, |(newest, _)| newest <= a.arrival) {
                        last = Some((a.arrival, rec.sent));
                    }
                }
                None if rec.fate == Fate::InFlight => {
                    fb.lost += 1;
                    fb.acked_not_marked += rec.size;
                    self.in_flight = self.in_flight.saturating_sub(rec.size);
                    if let Some(x) = self.sent.get_mut(&seq) {
                        x.fate = Fate::Lost;
                    }
                }
                None => {}
            }
        }
        if let (Some(f), Some((arrival, sent))) = (first, last) {
            // hold = last arrival + its wait at the receiver - first arrival.
            fb.hold_time = r.report_time.saturating_since(f);
            let waited = r.report_time.saturating_since(arrival);
            fb.rtt_sample = (now.saturating_since(sent) - waited).max(TimeDelta::ZERO);
        }
        self.sent
            .retain(|_, x| x.fate == Fate::InFlight || now.saturating_since(x.sent) < LOST_MEMORY);
        fb.data_in_flight = self.in_flight;
        fb
    }
}

impl Controller for ScreamV2Sender {
    fn resume(&mut self, now: Timestamp) {
        self.video.resume_at(now);
    }
    fn poll_cc_report(&mut self) -> Option<FlowReport> {
        self.report.take()
    }
    fn snapshot(&self) -> FlowReport {
        FlowReport::Rate {
            rate: self.cc.target_bitrate(),
            rtt: self.cc.srtt(),
        }
    }
    /// A coupling allowance: `Rate(r)` sets the target (and the window it implies).
    fn apply_allowance(&mut self, now: Timestamp, a: Allowance) {
        if let Allowance::Rate(r) = a {
            self.cc.set_target_bitrate(r);
            self.last_reported = Some(self.cc.target_bitrate());
            self.update_encoder(now);
        }
    }
    fn latest_rtt(&self) -> Option<TimeDelta> {
        self.cc.srtt()
    }
    fn ecn_codepoint(&self) -> Ecn {
        self.cfg.ecn
    }
    fn ecn_responses(&self) -> Option<u64> {
        self.cfg
            .ecn
            .is_ecn_capable()
            .then(|| self.cc.ce_reductions())
    }
}

impl Endpoint for ScreamV2Sender {
    type Outgoing = RtpPacket;
    type Incoming = CcfbReport;

    fn handle_input(&mut self, now: Timestamp, r: CcfbReport) {
        let fb = self.summarize(now, &r);
        self.cc.on_feedback(&fb);
        self.after_control(now);
    }

    fn poll_transmit(&mut self, now: Timestamp) -> Option<Transmit<RtpPacket>> {
        self.produce_frames(now);
        if self.queue.is_empty() || now < self.next_send || self.in_flight >= self.cc.send_window()
        {
            return None;
        }
        if self.cfg.scream.chromium_pacer {
            self.pay_debt(now);
            if !self
                .debt_config(now)
                .may_send(self.debt, self.cc.pacing_rate())
            {
                return None;
            }
        }
        let (mut p, size, _) = self.queue.pop_front()?;
        let seq = self.next_seq;
        self.next_seq += 1;
        p.sequence_number = seq;
        p.transport_seq = seq;
        p.send_time = now;
        self.sent.insert(
            seq,
            SentRecord {
                size,
                sent: now,
                fate: Fate::InFlight,
            },
        );
        self.in_flight += size;
        self.cc.on_packet_sent(self.in_flight);
        if self.cfg.scream.chromium_pacer {
            // `UpdateBudgetWithSentData`.
            self.debt = MediaDebtConfig::default().charge(self.debt, size, self.cc.pacing_rate());
        } else {
            // The draft's pacer: the next packet after this one's time at the pacing rate.
            self.next_send = self.next_send.max(now) + size / self.cc.pacing_rate();
        }
        self.bytes_sent += size.as_bytes();
        self.packets_sent += 1;
        Some(Transmit { size, message: p })
    }

    fn poll_timeout(&self) -> Option<Timestamp> {
        let frame = self.video.next_frame_time();
        let ready = !self.queue.is_empty() && self.in_flight < self.cc.send_window();
        let pacer = if !ready {
            None
        } else if self.cfg.scream.chromium_pacer {
            // `NextSendTime`: the debt as of its last payment, drained at the pacing rate.
            self.debt_config(self.debt_paid_at)
                .wait(self.debt, self.cc.pacing_rate())
                .map(|w| self.debt_paid_at + w)
        } else {
            Some(self.next_send)
        };
        Some(pacer.map_or(frame, |t| t.min(frame)))
    }

    fn handle_timeout(&mut self, now: Timestamp) {
        self.produce_frames(now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::endpoint::rfc8888::CcfbArrival;
    use crate::source::EncoderBounds;

    fn sender() -> ScreamV2Sender {
        let cfg = ScreamV2SenderConfig::new(
            ScreamV2Config::default(),
            VideoSourceConfig::Perfect(EncoderBounds::paper000()),
        );
        ScreamV2Sender::new(cfg, Timestamp::ZERO)
    }

    fn send_until(s: &mut ScreamV2Sender, ms: u64) -> Vec<(u64, Timestamp)> {
        let mut out = vec![];
        for t in 0..=ms {
            let now = Timestamp::from_millis(t);
            s.handle_timeout(now);
            while let Some(tx) = s.poll_transmit(now) {
                out.push((tx.message.sequence_number, now));
            }
        }
        out
    }

    #[test]
    fn packets_go_out_ect1_and_a_report_settles_them() {
        let mut s = sender();
        assert_eq!(s.ecn_codepoint(), Ecn::Ect1);
        let sent = send_until(&mut s, 40);
        assert!(sent.len() >= 2, "{sent:?}");
        let in_flight = s.bytes_in_flight();
        assert!(in_flight > DataSize::ZERO);
        // Report: the first received CE 25 ms after sending, the second lost.
        let now = Timestamp::from_millis(80);
        let r = CcfbReport {
            ssrc: 1,
            begin_seq: 0,
            packets: vec![
                Some(CcfbArrival {
                    arrival: sent[0].1 + TimeDelta::millis(25),
                    ecn: 0b11,
                }),
                None,
            ],
            report_time: now - TimeDelta::millis(25),
        };
        let fb = s.summarize(now, &r);
        assert_eq!((fb.received, fb.ce_marked, fb.lost), (1, 1, 1));
        assert_eq!(fb.min_one_way_delay, TimeDelta::millis(25));
        // rtt = now - send - (report time - arrival).
        let waited =
            (now - TimeDelta::millis(25)).saturating_since(sent[0].1 + TimeDelta::millis(25));
        assert_eq!(fb.rtt_sample, now.saturating_since(sent[0].1) - waited);
        assert!(fb.data_in_flight < in_flight);
    }

    #[test]
    fn the_send_window_stops_the_pacer_without_feedback() {
        let mut s = sender();
        send_until(&mut s, 2000);
        // Nothing acked: the data in flight stops at the send window (plus a packet).
        assert!(s.bytes_in_flight() <= s.controller().send_window() + DataSize::bytes(1500));
        assert!(s.queued_packets() > 0);
    }
}
