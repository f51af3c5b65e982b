//! The SCReAM media sender (RFC 8298, SCReAM v1): a video source whose frames enter
//! SCReAM's RTP queue; packets leave when the self-clocked window and the pacer allow
//! (section 4.1.2); the encoder follows the media rate control's target bitrate
//! (section 4.1.3). Feedback: RFC 8888 reports from an
//! [`super::rfc8888::CcfbReceiver`] (RFC 8298 section 4.1.1 needs per-packet arrival
//! and ECN, which RFC 8888 carries), every 20 ms by default.
//!
//! ECN: with [`ScreamSenderConfig::ecn`] ECN-capable, the RTP packets go out ECT and a
//! report with a CE-marked packet is an ECN event: the window is scaled by BETA_ECN
//! and the target bitrate with it, at most once per RTT (RFC 8298 sections 4.1.2.1,
//! 4.1.2.3 and 4.1.3).
//!
//! Coupling: SCReAM's output to the application is a target bitrate, so it couples as
//! a rate flow: it reports its target as CC_R, and an allocation sets the target
//! ([`Scream::set_target_bitrate`]) and the encoder's rate with it. Its window stays
//! its own (the FSE family's window rules assume a TCP-like window with ssthresh and
//! slow start, which SCReAM's does not have).

use super::media::{RtpPacket, WireSizes};
use super::rfc8888::CcfbReport;
use super::video::VideoPacketizer;
use super::{Controller, Endpoint, Transmit};
use crate::coupling::{Allowance, FlowReport};
use crate::ecn::Ecn;
use crate::scream::{PacketAck, Scream, ScreamConfig};
use crate::source::VideoSourceConfig;
use crate::units::{Bitrate, DataSize, TimeDelta, Timestamp};
use std::collections::VecDeque;

/// SCReAM sender configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct ScreamSenderConfig {
    pub ssrc: u32,
    pub scream: ScreamConfig,
    pub source: VideoSourceConfig,
    /// Seed of the source's noise.
    pub seed: u64,
    pub wire: WireSizes,
    /// The codepoint of the RTP packets (RFC 8298 section 4.1.2.1 reacts to ECN-CE;
    /// ECT(1) for L4S, RFC 9331). Not-ECT (the default): no marks to react to.
    pub ecn: Ecn,
}

impl ScreamSenderConfig {
    pub fn new(scream: ScreamConfig, source: VideoSourceConfig) -> Self {
        ScreamSenderConfig {
            ssrc: 1,
            scream,
            source,
            seed: 1,
            wire: WireSizes::default(),
            ecn: Ecn::NotEct,
        }
    }
}

/// The sending side of a SCReAM media flow.
#[derive(Debug, Clone)]
pub struct ScreamSender {
    cfg: ScreamSenderConfig,
    scream: Scream,
    video: VideoPacketizer,
    /// The packets in SCReAM's RTP queue, in its order.
    queue: VecDeque<RtpPacket>,
    report: Option<FlowReport>,
    last_reported: Option<Bitrate>,
    /// The target the encoder was last given.
    encoder_target: Bitrate,
    /// The application's rate limit on the encoder (`None` = unlimited).
    desired: Option<Bitrate>,
    bytes_sent: u64,
    packets_sent: u64,
}

impl ScreamSender {
    /// A sender whose first frame is captured at `now`. Check `cfg.scream` with
    /// [`ScreamConfig::validate`] first.
    pub fn new(cfg: ScreamSenderConfig, now: Timestamp) -> Self {
        let video = VideoPacketizer::new(&cfg.source, cfg.wire.clone(), cfg.ssrc, now, cfg.seed);
        let mut s = ScreamSender {
            scream: Scream::new(cfg.scream.clone()),
            video,
            queue: VecDeque::new(),
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

    pub fn scream(&self) -> &Scream {
        &self.scream
    }
    pub fn config(&self) -> &ScreamSenderConfig {
        &self.cfg
    }
    pub fn target_bitrate(&self) -> Bitrate {
        self.scream.target_bitrate()
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

    /// The application's desired rate caps the encoder (`None` = unlimited), as for
    /// GCC media; SCReAM's target is unchanged.
    pub fn set_desired_rate(&mut self, now: Timestamp, rate: Option<Bitrate>) {
        self.desired = rate;
        self.encoder_target = Bitrate::ZERO;
        self.update_encoder(now);
    }

    fn update_encoder(&mut self, now: Timestamp) {
        let target = self.scream.target_bitrate();
        let target = self.desired.map_or(target, |d| target.min(d));
        if target != self.encoder_target {
            self.encoder_target = target;
            self.video.set_wire_rate(now, target);
        }
    }

    /// After anything that may change the target or discard the RTP queue.
    fn after_control(&mut self, now: Timestamp) {
        // A discard (section 4.1.3) empties SCReAM's queue: drop the same packets here.
        while self.queue.len() > self.scream.rtp_queue().len() {
            self.queue.pop_front();
        }
        let rate = self.scream.target_bitrate();
        if self.last_reported != Some(rate) {
            self.last_reported = Some(rate);
            self.report = Some(FlowReport::Rate {
                rate,
                rtt: self.scream.srtt(),
            });
        }
        self.update_encoder(now);
    }

    fn produce_frames(&mut self, now: Timestamp) {
        while let Some(packets) = self.video.poll_frame(now) {
            let sizes: Vec<DataSize> = packets.iter().map(|(_, s)| *s).collect();
            self.scream.enqueue_frame(now, &sizes);
            // enqueue_frame may discard the queue before the frame enters it.
            let before = self.scream.rtp_queue().len().saturating_sub(sizes.len());
            while self.queue.len() > before {
                self.queue.pop_front();
            }
            self.queue.extend(packets.into_iter().map(|(p, _)| p));
            self.after_control(now);
        }
    }
}

/// SCReAM couples as a rate flow: it reports its target bitrate and takes a rate
/// allowance as its target.
impl Controller for ScreamSender {
    /// Capture restarts at `now` without a backlog of the frames not captured while
    /// paused (RFC 8298 has no pause; SCReAM's own RTP-queue discard handles what was
    /// queued before it).
    fn resume(&mut self, now: Timestamp) {
        self.video.resume_at(now);
    }
    /// The coupling report: the target bitrate, when it changed since the last one.
    fn poll_cc_report(&mut self) -> Option<FlowReport> {
        self.report.take()
    }

    /// The controller's state as a report (registration).
    fn snapshot(&self) -> FlowReport {
        FlowReport::Rate {
            rate: self.scream.target_bitrate(),
            rtt: self.scream.srtt(),
        }
    }

    /// A coupling allowance: `Rate(r)` sets the target bitrate and the encoder's rate.
    fn apply_allowance(&mut self, now: Timestamp, a: Allowance) {
        if let Allowance::Rate(r) = a {
            self.scream.set_target_bitrate(r);
            self.last_reported = Some(self.scream.target_bitrate());
            self.update_encoder(now);
        }
    }

    fn latest_rtt(&self) -> Option<TimeDelta> {
        self.scream.srtt()
    }

    fn ecn_codepoint(&self) -> Ecn {
        self.cfg.ecn
    }

    fn ecn_responses(&self) -> Option<u64> {
        self.cfg
            .ecn
            .is_ecn_capable()
            .then(|| self.scream.ecn_events())
    }
}

impl Endpoint for ScreamSender {
    type Outgoing = RtpPacket;
    type Incoming = CcfbReport;

    /// An RFC 8888 report: its received packets are SCReAM's acks (section 4.1.2.2;
    /// losses are what the acks pass over, section 4.1.2.4).
    fn handle_input(&mut self, now: Timestamp, r: CcfbReport) {
        let acks: Vec<PacketAck> = r
            .entries()
            .filter_map(|(seq, e)| {
                e.map(|a| PacketAck {
                    seq,
                    arrival: a.arrival,
                    ce: a.ce(),
                })
            })
            .collect();
        self.scream.on_feedback(now, &acks);
        self.after_control(now);
    }

    fn poll_transmit(&mut self, now: Timestamp) -> Option<Transmit<RtpPacket>> {
        self.produce_frames(now);
        let sent = self.scream.poll_send(now)?;
        let mut p = self.queue.pop_front()?;
        p.sequence_number = sent.seq;
        p.transport_seq = sent.seq;
        p.send_time = now;
        self.bytes_sent += sent.size.as_bytes();
        self.packets_sent += 1;
        Some(Transmit {
            size: sent.size,
            message: p,
        })
    }

    fn poll_timeout(&self) -> Option<Timestamp> {
        let frame = self.video.next_frame_time();
        Some(self.scream.poll_timeout().map_or(frame, |t| t.min(frame)))
    }

    fn handle_timeout(&mut self, now: Timestamp) {
        self.produce_frames(now);
    }
}

/// The RTT a SCReAM flow reports (its smoothed RTT) for the metrics.
pub fn latest_rtt(s: &ScreamSender) -> Option<TimeDelta> {
    s.scream.srtt()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::endpoint::rfc8888::CcfbArrival;
    use crate::source::EncoderBounds;

    #[test]
    fn acks_open_the_window_and_the_allocation_sets_the_target() {
        let cfg = ScreamSenderConfig::new(
            ScreamConfig::default(),
            VideoSourceConfig::Perfect(EncoderBounds::paper000()),
        );
        let mut s = ScreamSender::new(cfg, Timestamp::ZERO);
        let mut sent = vec![];
        for ms in 0..200 {
            let now = Timestamp::from_millis(ms);
            s.handle_timeout(now);
            while let Some(t) = s.poll_transmit(now) {
                sent.push((t.message.sequence_number, now));
            }
            // Every 20 ms, ack everything sent up to 20 ms ago.
            if ms % 20 == 0 && !sent.is_empty() {
                let acked: Vec<_> = sent
                    .iter()
                    .filter(|(_, t)| *t + TimeDelta::millis(20) <= now)
                    .copied()
                    .collect();
                if let Some(&(first, _)) = acked.first() {
                    let r = CcfbReport {
                        ssrc: 1,
                        begin_seq: first,
                        packets: acked
                            .iter()
                            .map(|&(_, t)| {
                                Some(CcfbArrival {
                                    arrival: t + TimeDelta::millis(10),
                                    ecn: 0,
                                })
                            })
                            .collect(),
                        report_time: now,
                    };
                    sent.retain(|(_, t)| *t + TimeDelta::millis(20) > now);
                    s.handle_input(now, r);
                }
            }
        }
        assert!(s.packets_sent() > 3, "{}", s.packets_sent());
        assert!(s.scream().srtt().is_some());
        s.apply_allowance(
            Timestamp::from_millis(200),
            Allowance::Rate(Bitrate::kbps(800.0)),
        );
        assert_eq!(s.target_bitrate(), Bitrate::kbps(800.0));
        let _ = s.poll_cc_report();
        s.apply_allowance(
            Timestamp::from_millis(200),
            Allowance::Rate(Bitrate::kbps(700.0)),
        );
        assert_eq!(s.target_bitrate(), Bitrate::kbps(700.0));
        // An allocation is not echoed back as a report.
        assert_eq!(s.poll_cc_report(), None);
    }
}
