//! The NADA media sender (RFC 8698): a video source feeding NADA's rate shaping
//! buffer, the encoder at r_vin and the buffer drained at r_send (section 4.3,
//! equations (11)-(14); section 5.2.1), and RFC 8888 feedback.
//!
//! Feedback: the receiver is an [`super::rfc8888::CcfbReceiver`] sending an RFC 8888
//! report every DELTA (100 ms, RFC 8698 section 4.1); the sender runs NADA's
//! receiver-side aggregation ([`NadaReceiver`]: queuing delay, loss and marking into
//! x_curr, rmode, r_recv) on the reported packets at the report's timestamp, which RFC
//! 8698 section 5.3 allows ("the receiver-side calculations ... can be performed at the
//! sender" with per-packet feedback such as RFC 8888). The RTT comes from the same
//! report ([`super::rfc8888::CcfbReport::rtt`]).
//!
//! ECN: with [`NadaSenderConfig::ecn`] ECN-capable the RTP packets go out ECT, and the
//! reported CE marks enter the aggregation as p_mark: the marking penalty
//! DMARK * (p_mark / PMRREF)^2 of x_curr (RFC 8698 section 4.2, equation (1)).
//!
//! Coupling (paper 003 Table I): an allocation sets r_ref, and the encoder rate r_vin
//! and the sending rate r_send follow it at once ([`Nada::set_reference_rate`]; the
//! encoder's target is updated in the same call). NADA reports r_ref as CC_R to every
//! mechanism: it is the one rate NADA computes from its composite congestion signal
//! (paper 000 V-B3, "the aggregated value", used as CC_R under FSE-NG).

use super::media::{RtpPacket, WireSizes};
use super::rfc8888::CcfbReport;
use super::video::VideoPacketizer;
use super::{Controller, Endpoint, Transmit};
use crate::coupling::{Allowance, FlowReport};
use crate::ecn::Ecn;
use crate::nada::{Nada, NadaConfig, NadaReceiver, ReceivedPacket};
use crate::seq_map::SeqMap;
use crate::source::VideoSourceConfig;
use crate::units::{Bitrate, DataSize, TimeDelta, Timestamp};
use std::collections::VecDeque;

/// NADA sender configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct NadaSenderConfig {
    pub ssrc: u32,
    pub nada: NadaConfig,
    pub source: VideoSourceConfig,
    /// Seed of the source's noise.
    pub seed: u64,
    pub wire: WireSizes,
    /// Sent packets remembered for feedback matching (10 s).
    pub history: TimeDelta,
    /// The codepoint of the RTP packets (RFC 8698 section 4.2 counts the CE marks; ECT(1)
    /// for L4S, RFC 9331). Not-ECT (the default): no marks.
    pub ecn: Ecn,
}

impl NadaSenderConfig {
    pub fn new(nada: NadaConfig, source: VideoSourceConfig) -> Self {
        NadaSenderConfig {
            ssrc: 1,
            nada,
            source,
            seed: 1,
            wire: WireSizes::default(),
            history: TimeDelta::secs(10),
            ecn: Ecn::NotEct,
        }
    }
}

/// The sending side of a NADA media flow.
#[derive(Debug, Clone)]
pub struct NadaSender {
    cfg: NadaSenderConfig,
    nada: Nada,
    /// The receiver-side aggregation, run on the RFC 8888 reports.
    aggregator: NadaReceiver,
    video: VideoPacketizer,
    /// The packets in NADA's shaping buffer, in its order.
    queue: VecDeque<RtpPacket>,
    next_seq: u64,
    /// Sequence number -> (send time, wire size).
    history: SeqMap<(Timestamp, DataSize)>,
    rtt: Option<TimeDelta>,
    /// The application's rate limit on the encoder (`None` = unlimited).
    desired: Option<Bitrate>,
    report: Option<FlowReport>,
    last_reported: Option<Bitrate>,
    bytes_sent: u64,
    packets_sent: u64,
    feedback_reports: u64,
    /// When the application paused, while it is paused.
    paused_at: Option<Timestamp>,
}

impl NadaSender {
    /// A sender whose first frame is captured at `now`. Check `cfg.nada` with
    /// [`NadaConfig::validate`] first.
    pub fn new(cfg: NadaSenderConfig, now: Timestamp) -> Self {
        let video = VideoPacketizer::new(&cfg.source, cfg.wire.clone(), cfg.ssrc, now, cfg.seed);
        let mut s = NadaSender {
            nada: Nada::new(cfg.nada.clone()),
            aggregator: NadaReceiver::new(cfg.nada.clone()),
            video,
            queue: VecDeque::new(),
            next_seq: 0,
            history: SeqMap::new(),
            rtt: None,
            desired: None,
            report: None,
            last_reported: None,
            bytes_sent: 0,
            packets_sent: 0,
            feedback_reports: 0,
            paused_at: None,
            cfg,
        };
        s.update_encoder(now);
        s
    }

    pub fn nada(&self) -> &Nada {
        &self.nada
    }
    /// r_ref.
    pub fn reference_rate(&self) -> Bitrate {
        self.nada.reference_rate()
    }
    /// r_vin, the encoder target.
    pub fn encoder_target(&self) -> Bitrate {
        self.nada.encoder_rate()
    }
    /// r_send, the pacing rate of the shaping buffer.
    pub fn sending_rate(&self) -> Bitrate {
        self.nada.sending_rate()
    }
    /// The newest RTT from the RFC 8888 reports.
    pub fn rtt(&self) -> Option<TimeDelta> {
        self.rtt
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
    /// RFC 8888 reports processed.
    pub fn feedback_reports(&self) -> u64 {
        self.feedback_reports
    }

    /// The application's desired rate caps the encoder (`None` = unlimited), as for
    /// GCC media; NADA's rates are unchanged (the coupling manager's DR is the
    /// scenario's `desired_rate`).
    pub fn set_desired_rate(&mut self, now: Timestamp, rate: Option<Bitrate>) {
        self.desired = rate;
        self.update_encoder(now);
    }

    /// The encoder follows r_vin (the wire rate; the packetizer takes the overhead off),
    /// at most the desired rate.
    fn update_encoder(&mut self, now: Timestamp) {
        let r_vin = self.nada.encoder_rate();
        let r = self.desired.map_or(r_vin, |d| r_vin.min(d));
        self.video.set_wire_rate(now, r);
    }

    fn queue_report(&mut self) {
        let rate = self.nada.reference_rate();
        if self.last_reported != Some(rate) {
            self.last_reported = Some(rate);
            self.report = Some(FlowReport::Rate {
                rate,
                rtt: self.rtt,
            });
        }
    }

    fn produce_frames(&mut self, now: Timestamp) {
        let mut produced = false;
        while let Some(packets) = self.video.poll_frame(now) {
            for (p, wire) in packets {
                self.nada.enqueue(now, wire);
                self.queue.push_back(p);
            }
            produced = true;
        }
        if produced {
            // r_vin depends on the buffer's fill (equation (13)).
            self.update_encoder(now);
        }
    }

    /// An RFC 8888 report: every reported arrival enters the aggregation (gaps are
    /// losses), then the report's x_curr / rmode / r_recv update r_ref (RFC 8698
    /// section 4.3).
    fn on_report(&mut self, now: Timestamp, r: &CcfbReport) {
        if let Some(rtt) = r.rtt(now, |s| self.history.get(s).map(|h| h.0)) {
            self.rtt = Some(rtt);
            self.nada.on_rtt(rtt);
        }
        let mut any = false;
        for (seq, entry) in r.entries() {
            let (Some(a), Some(&(sent, size))) = (entry, self.history.get(seq)) else {
                continue;
            };
            self.aggregator.on_packet(&ReceivedPacket {
                seq,
                sent,
                arrival: a.arrival,
                size,
                ce_marked: a.ce(),
            });
            any = true;
        }
        if let Some(last) = r.packets.len().checked_sub(1) {
            let end = r.begin_seq + last as u64;
            let horizon = now - self.cfg.history;
            self.history
                .retain(|s, &mut (t, _)| s > end && t >= horizon);
        }
        if !any {
            return;
        }
        self.feedback_reports += 1;
        let fb = self.aggregator.report(r.report_time);
        self.nada.on_feedback(now, &fb);
        self.queue_report();
        self.update_encoder(now);
    }
}

/// NADA couples as a rate flow: it reports r_ref and takes a rate allowance as r_ref
/// (paper 003 Table I).
impl Controller for NadaSender {
    /// The frames in the shaping buffer are discarded (cisco/ns3-rmcat
    /// `RmcatSender::PauseResume`).
    fn pause(&mut self, now: Timestamp) {
        self.nada.pause();
        self.queue.clear();
        self.paused_at = Some(now);
    }

    /// Capture restarts at `now` without a backlog; r_vin and r_send restart at RINIT
    /// until the next report (the reference). After a pause of at least LOGWIN the
    /// aggregation restarts too (base delay, loss intervals), as the reference's packet
    /// history, LOGWIN long, has emptied.
    fn resume(&mut self, now: Timestamp) {
        self.video.resume_at(now);
        self.nada.resume();
        if self
            .paused_at
            .take()
            .is_some_and(|at| now.saturating_since(at) >= self.cfg.nada.logwin)
        {
            self.aggregator = NadaReceiver::new(self.cfg.nada.clone());
        }
        self.update_encoder(now);
    }

    /// The coupling report: r_ref, when it changed since the last one.
    fn poll_cc_report(&mut self) -> Option<FlowReport> {
        self.report.take()
    }

    /// The controller's state as a report (registration).
    fn snapshot(&self) -> FlowReport {
        FlowReport::Rate {
            rate: self.nada.reference_rate(),
            rtt: self.rtt,
        }
    }

    /// A coupling allowance: `Rate(r)` sets r_ref, and with it r_vin (the encoder's
    /// target, set here) and r_send (paper 003 Table I). Window allowances do not apply.
    fn apply_allowance(&mut self, now: Timestamp, a: Allowance) {
        if let Allowance::Rate(r) = a {
            self.nada.set_reference_rate(r);
            self.last_reported = Some(self.nada.reference_rate());
            self.update_encoder(now);
        }
    }

    fn latest_rtt(&self) -> Option<TimeDelta> {
        self.rtt
    }

    /// The configured codepoint. NADA's answer to marks is continuous (the penalty in
    /// x_curr), so [`Controller::ecn_responses`] stays `None`.
    fn ecn_codepoint(&self) -> Ecn {
        self.cfg.ecn
    }
}

impl Endpoint for NadaSender {
    type Outgoing = RtpPacket;
    type Incoming = CcfbReport;

    fn handle_input(&mut self, now: Timestamp, msg: CcfbReport) {
        self.on_report(now, &msg);
    }

    fn poll_transmit(&mut self, now: Timestamp) -> Option<Transmit<RtpPacket>> {
        self.produce_frames(now);
        let size = self.nada.poll_send(now)?;
        let mut p = self.queue.pop_front()?;
        p.sequence_number = self.next_seq;
        p.transport_seq = self.next_seq;
        p.send_time = now;
        self.next_seq += 1;
        self.history.insert(p.sequence_number, (now, size));
        self.bytes_sent += size.as_bytes();
        self.packets_sent += 1;
        Some(Transmit { size, message: p })
    }

    fn poll_timeout(&self) -> Option<Timestamp> {
        let frame = self.video.next_frame_time();
        Some(self.nada.poll_timeout().map_or(frame, |t| t.min(frame)))
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

    fn sender() -> NadaSender {
        let cfg = NadaSenderConfig::new(
            NadaConfig::default(),
            VideoSourceConfig::Perfect(EncoderBounds::paper000()),
        );
        NadaSender::new(cfg, Timestamp::ZERO)
    }

    /// Sends for `ms` milliseconds; returns (seq, send time).
    fn drain(s: &mut NadaSender, from_ms: u64, to_ms: u64) -> Vec<(u64, Timestamp)> {
        let mut out = vec![];
        for ms in from_ms..to_ms {
            let now = Timestamp::from_millis(ms);
            s.handle_timeout(now);
            while let Some(t) = s.poll_transmit(now) {
                out.push((t.message.sequence_number, now));
            }
        }
        out
    }

    #[test]
    fn sends_at_about_r_ref_from_rmin() {
        let mut s = sender();
        let sent = drain(&mut s, 0, 1000);
        let bytes = s.bytes_sent() as f64 * 8.0;
        // RMIN = 150 kbit/s for one second (frames at 30 frames/s).
        assert!((120e3..180e3).contains(&bytes), "{bytes}");
        assert!(sent.windows(2).all(|w| w[1].0 == w[0].0 + 1));
    }

    #[test]
    fn an_uncongested_report_ramps_up_and_the_allocation_sets_all_three_rates() {
        let mut s = sender();
        let sent = drain(&mut s, 0, 100);
        let report = CcfbReport {
            ssrc: 1,
            begin_seq: 0,
            packets: sent
                .iter()
                .map(|&(_, t)| {
                    Some(CcfbArrival {
                        arrival: t + TimeDelta::millis(20),
                        ecn: 0,
                    })
                })
                .collect(),
            report_time: Timestamp::from_millis(120),
        };
        s.handle_input(Timestamp::from_millis(140), report);
        assert_eq!(s.rtt(), Some(TimeDelta::millis(40)));
        assert!(s.reference_rate() > NadaConfig::default().min_rate);
        assert!(matches!(s.poll_cc_report(), Some(FlowReport::Rate { .. })));
        // Paper 003 Table I: the allocation moves r_ref, r_vin and r_send together.
        s.apply_allowance(
            Timestamp::from_millis(150),
            Allowance::Rate(Bitrate::kbps(900.0)),
        );
        assert_eq!(s.reference_rate(), Bitrate::kbps(900.0));
        assert!((s.encoder_target().as_kbps() - 900.0).abs() <= 45.0);
        assert!((s.sending_rate().as_kbps() - 900.0).abs() <= 45.0);
        let before = s.bytes_sent();
        drain(&mut s, 150, 1150);
        let rate = (s.bytes_sent() - before) as f64 * 8.0;
        assert!((800e3..1000e3).contains(&rate), "{rate}");
        // An allocation is not echoed back as a report.
        assert_eq!(s.poll_cc_report(), None);
    }
}
