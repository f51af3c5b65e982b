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
use crate::source::rng::XorShift64;
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
    /// A frame's packets enter the shaping buffer one by one, evenly over the frame
    /// interval (1 / FPS), instead of all at the capture time (false). cisco/ns3-rmcat's
    /// source does so: syncodecs' `ShapedPacketizer::nextPacketOrFrame` (revision
    /// 6dcdc0b) gives each of a frame's n packets 1 / (n FPS) before the next.
    pub spread_frames: bool,
    /// Each packet leaves the buffer late by a uniform random fraction in [0, this) of
    /// the pacing gap before it, the next one keeping its nominal time (0: none).
    /// cisco/ns3-rmcat's `RmcatSender::SendPacket` (revision adb3f8e) delays every
    /// packet by 0-0.99 % of the gap it slept, its "synthetic oversleep" (0.01).
    pub send_oversleep: f64,
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
            spread_frames: false,
            send_oversleep: 0.0,
        }
    }
}

/// Mixed into the seed of the `send_oversleep` generator, so it draws apart from the
/// source's noise.
const OVERSLEEP_SEED: u64 = 0x6f76_6572_736c_6565;

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
    /// `spread_frames`: (release time, packet, wire size) of packets not yet in the
    /// shaping buffer.
    spreading: VecDeque<(Timestamp, RtpPacket, DataSize)>,
    /// `send_oversleep`: a packet the buffer released, due on the wire at the time given.
    oversleeping: Option<(Timestamp, RtpPacket, DataSize)>,
    /// The last pacing release and the generator of the oversleep.
    last_release: Option<Timestamp>,
    oversleep_rng: XorShift64,
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
            spreading: VecDeque::new(),
            oversleeping: None,
            last_release: None,
            oversleep_rng: XorShift64::new(cfg.seed ^ OVERSLEEP_SEED),
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
            if self.cfg.spread_frames {
                // Packet k of n enters the buffer k / n of the way to the next frame's
                // capture (syncodecs' `ShapedPacketizer` spreads a frame over the
                // codec's interval to the next one, noisy or not).
                let n = packets.len().max(1) as i64;
                let interval = self.video.next_frame_time().saturating_since(now);
                for (k, (p, wire)) in packets.into_iter().enumerate() {
                    let after = TimeDelta::from_micros(interval.as_micros() * k as i64 / n);
                    self.spreading.push_back((now + after, p, wire));
                }
            } else {
                for (p, wire) in packets {
                    self.nada.enqueue(now, wire);
                    self.queue.push_back(p);
                }
                produced = true;
            }
        }
        while self.spreading.front().is_some_and(|(t, _, _)| *t <= now) {
            if let Some((_, p, wire)) = self.spreading.pop_front() {
                self.nada.enqueue(now, wire);
                self.queue.push_back(p);
                produced = true;
            }
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
        self.spreading.clear();
        self.oversleeping = None;
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
        if self.cfg.send_oversleep > 0.0 {
            return self.poll_oversleeping(now);
        }
        let size = self.nada.poll_send(now)?;
        let p = self.queue.pop_front()?;
        Some(self.transmit(now, p, size))
    }

    fn poll_timeout(&self) -> Option<Timestamp> {
        let frame = self.video.next_frame_time();
        let mut next = self.nada.poll_timeout().map_or(frame, |t| t.min(frame));
        if let Some((t, _, _)) = self.spreading.front() {
            next = next.min(*t);
        }
        if let Some((t, _, _)) = &self.oversleeping {
            next = next.min(*t);
        }
        Some(next)
    }

    fn handle_timeout(&mut self, now: Timestamp) {
        self.produce_frames(now);
    }
}

impl NadaSender {
    /// A packet goes on the wire at `now`: numbered and remembered for the feedback.
    fn transmit(
        &mut self,
        now: Timestamp,
        mut p: RtpPacket,
        size: DataSize,
    ) -> Transmit<RtpPacket> {
        p.sequence_number = self.next_seq;
        p.transport_seq = self.next_seq;
        p.send_time = now;
        self.next_seq += 1;
        self.history.insert(p.sequence_number, (now, size));
        self.bytes_sent += size.as_bytes();
        self.packets_sent += 1;
        Transmit { size, message: p }
    }

    /// `send_oversleep`: the buffer releases a packet at its nominal pacing time; it
    /// goes on the wire a random fraction of the gap before it later, while the buffer
    /// paces the next one from the nominal time.
    fn poll_oversleeping(&mut self, now: Timestamp) -> Option<Transmit<RtpPacket>> {
        if self.oversleeping.is_none() {
            if let Some(size) = self.nada.poll_send(now) {
                if let Some(p) = self.queue.pop_front() {
                    // The gap slept: since the previous release, at most one pacing
                    // gap (after an idle buffer the reference sleeps only the rest).
                    let pacing = size / self.sending_rate();
                    let gap = self
                        .last_release
                        .map_or(TimeDelta::ZERO, |t| now.saturating_since(t).min(pacing));
                    self.last_release = Some(now);
                    let late = gap * (self.cfg.send_oversleep * self.oversleep_rng.next_f64());
                    self.oversleeping = Some((now + late, p, size));
                }
            }
        }
        match self.oversleeping.take() {
            Some((due, p, size)) if due <= now => Some(self.transmit(now, p, size)),
            pending => {
                self.oversleeping = pending;
                None
            }
        }
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

    /// A sender at 1 Mbit/s (frames of about 4 kB, 4 packets), with `tweak` applied.
    fn sender_1mbps(tweak: impl Fn(&mut NadaSenderConfig)) -> NadaSender {
        let rate = Bitrate::kbps(1000.0);
        let nada = NadaConfig {
            min_rate: rate,
            initial_rate: rate,
            ..NadaConfig::default()
        };
        let mut cfg =
            NadaSenderConfig::new(nada, VideoSourceConfig::Perfect(EncoderBounds::paper000()));
        tweak(&mut cfg);
        NadaSender::new(cfg, Timestamp::ZERO)
    }

    #[test]
    fn spread_frames_feeds_the_buffer_over_the_frame_interval() {
        let held = |s: &NadaSender| s.queue.len();
        let mut burst = sender_1mbps(|_| {});
        burst.handle_timeout(Timestamp::ZERO);
        // The whole frame waits in the shaping buffer at the capture.
        assert!(held(&burst) >= 3, "{}", held(&burst));
        let mut spread = sender_1mbps(|c| c.spread_frames = true);
        spread.handle_timeout(Timestamp::ZERO);
        assert_eq!(held(&spread), 1);
        // Packet k of n enters k / n of the frame interval (33,333 us) later: all in
        // before the next frame.
        let n = 1 + spread.spreading.len() as i64;
        assert!(n >= 4, "{n}");
        let last = spread.spreading.back().map(|p| p.0);
        let expected = TimeDelta::from_micros(33_333 * (n - 1) / n);
        assert_eq!(last, Some(Timestamp::ZERO + expected));
        let sent = drain(&mut spread, 0, 1000);
        let burst_sent = drain(&mut burst, 0, 1000);
        assert!(
            sent.len().abs_diff(burst_sent.len()) <= 4,
            "{} {}",
            sent.len(),
            burst_sent.len()
        );
    }

    #[test]
    fn spread_frames_follow_a_noisy_interval_to_the_next_frame() {
        // syncodecs' shaped packetizer: a frame's packets spread over the codec's own
        // interval to the next frame, however long the noise made it.
        let mut s = sender_1mbps(|c| {
            c.spread_frames = true;
            c.source = VideoSourceConfig::FixedFps {
                bounds: EncoderBounds::paper000(),
                interval_noise: 0.15,
            };
        });
        s.handle_timeout(Timestamp::ZERO);
        let next = s.video.next_frame_time();
        assert_ne!(
            next,
            Timestamp::from_micros(33_333),
            "the noise moved the next frame"
        );
        let n = 1 + s.spreading.len() as i64;
        let last = s.spreading.back().map(|p| p.0);
        let expected = TimeDelta::from_micros(next.as_micros() as i64 * (n - 1) / n);
        assert_eq!(last, Some(Timestamp::ZERO + expected));
    }

    #[test]
    fn send_oversleep_delays_packets_without_moving_the_schedule() {
        let times = |over: f64| {
            let mut s = sender_1mbps(|c| c.send_oversleep = over);
            drain_us(&mut s, 1_000_000)
        };
        let on_time = times(0.0);
        let late = times(0.5);
        assert_eq!(on_time.len(), late.len());
        // Never early, mostly late, and each by less than half a pacing gap (1,200 B at
        // 1 Mbit/s: 9.6 ms).
        let delays: Vec<i64> = on_time.iter().zip(&late).map(|(a, b)| b - a).collect();
        assert!(
            delays.iter().all(|&d| (0..4_800).contains(&d)),
            "{delays:?}"
        );
        assert!(delays.iter().filter(|&&d| d > 0).count() > on_time.len() / 2);
    }

    /// Send times in microseconds over `to_us`, polled every 100 us.
    fn drain_us(s: &mut NadaSender, to_us: u64) -> Vec<i64> {
        let mut out = vec![];
        for us in (0..to_us).step_by(100) {
            let now = Timestamp::from_micros(us);
            s.handle_timeout(now);
            while s.poll_transmit(now).is_some() {
                out.push(us as i64);
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
