//! The sending side of a media flow: the video source cut into RTP packets, the pacer,
//! GCC fed by the receiver's feedback, and the rate reports for a coupling manager.

use super::chromium_features::ChromiumFeatures;
use super::config::MediaSenderConfig;
use super::feedback::{MediaFeedback, PacketArrival, RttEcho};
use super::packet::RtpPacket;
use crate::coupling::{Allowance, FlowReport, RateReportMode};
use crate::ecn::Ecn;
use crate::endpoint::rtx::RtxSender;
use crate::endpoint::send_path::sent_packet_time;
use crate::endpoint::{Controller, Endpoint, Transmit};
use crate::gcc::pacer::Pacer;
use crate::gcc::padding::PaddingBudget;
use crate::gcc::probe_estimator::ProbeTag;
use crate::gcc::{Gcc, GccObservation, PacketTiming};
use crate::playout::EncoderLog;
use crate::seq_map::SeqMap;
use crate::source::VideoSource;
use crate::units::{Bitrate, DataSize, TimeDelta, Timestamp};

/// What the sender derives from one transport feedback, in vectors kept from report to
/// report so that handling a report allocates nothing (each is cleared and refilled;
/// nothing in them outlives the report).
#[derive(Debug, Default)]
struct FeedbackScratch {
    /// The reported packets found in the history, in the report's order.
    timings: Vec<PacketTiming>,
    /// The probe cluster each of those was sent in.
    probes: Vec<Option<ProbeTag>>,
    /// (send time, size) of the packets the report shows lost (`chromium-m156`).
    lost: Vec<(Timestamp, DataSize)>,
    /// The report's transport sequence numbers, sorted (to find the lost ones).
    seqs: Vec<u64>,
}

/// The sending side of a media flow. Its methods are written in three files: this one
/// (frames, feedback, the [`Endpoint`] calls), `rates.rs` (the encoder's and the pacer's
/// rates) and `send_chain.rs` (probes, padding, FEC, retransmissions), hence the fields
/// those two use visible in `media`.
#[derive(Debug)]
pub struct MediaSender {
    pub(super) cfg: MediaSenderConfig,
    pub(super) gcc: Gcc,
    pub(super) source: VideoSource,
    pub(super) pacer: Pacer<RtpPacket>,
    pub(super) desired: Option<Bitrate>,
    pub(super) next_seq: u64,
    next_transport_seq: u64,
    pub(super) history: SeqMap<(Timestamp, DataSize, Option<ProbeTag>)>,
    /// Room for one transport feedback's views, reused from report to report.
    feedback_scratch: FeedbackScratch,
    /// The highest transport sequence number transport feedback has covered
    /// (`chromium-m156`: packets below it that were not reported are lost).
    pub(super) feedback_highest: Option<u64>,
    report: Option<FlowReport>,
    /// The rate of the newest coupling report: a GCC update that leaves it unchanged is
    /// not reported again (a controller reports a *new* rate, paper 000 Alg. 6).
    last_reported: Option<Bitrate>,
    bytes_sent: u64,
    packets_sent: u64,
    /// The state of the optional Chromium send-chain features (`chromium_features.rs`).
    pub(super) chromium: ChromiumFeatures,
    /// The frames encoded and dropped, for the receiver's frame figures.
    encoder_log: EncoderLog,
}

impl MediaSender {
    /// A sender whose first frame is captured at `now`.
    pub fn new(cfg: MediaSenderConfig, now: Timestamp) -> Self {
        let gcc = Gcc::new(cfg.gcc.clone());
        let source = VideoSource::new(&cfg.source, now, cfg.seed);
        let pacer = Pacer::new(cfg.pacer.clone(), Bitrate::ZERO);
        let chromium = ChromiumFeatures::new(&cfg, now);
        let mut s = Self {
            feedback_highest: None,
            gcc,
            source,
            pacer,
            desired: None,
            next_seq: 0,
            next_transport_seq: 0,
            history: SeqMap::new(),
            feedback_scratch: FeedbackScratch::default(),
            report: None,
            last_reported: None,
            bytes_sent: 0,
            packets_sent: 0,
            chromium,
            cfg,
            encoder_log: EncoderLog::new(),
        };
        if s.cfg.gcc.m156.is_some() {
            let max = s.bounds().max_rate;
            s.gcc.start(now);
            s.gcc.set_max_allocated(now, max);
            s.pull_probe_clusters();
        }
        s.apply_target(now);
        s
    }

    pub(super) fn bounds(&self) -> &crate::source::EncoderBounds {
        self.cfg.source.bounds()
    }

    fn after_gcc(&mut self, now: Timestamp) {
        self.update_cwnd_pushback(now);
        self.refresh_padding_rate(now);
        if self.gcc.poll_target_update().is_some() {
            let rate = match self.cfg.report_mode {
                RateReportMode::DelayBased => self.gcc.delay_based_estimate(),
                RateReportMode::Target => self.gcc.target_rate(),
            };
            // Reporting an unchanged rate would make the manager re-apply the current
            // allocation at once, which resets GCC's delay-based estimate before the
            // loss-based estimate can follow it (Chromium raises the loss-based target
            // on its 25 ms timer) and freezes GCC under FSEv2.
            if self.last_reported != Some(rate) {
                self.last_reported = Some(rate);
                self.report = Some(FlowReport::Rate {
                    rate,
                    rtt: Some(self.gcc.rtt()),
                });
            }
            self.apply_target(now);
        }
        self.pull_probe_clusters();
    }

    fn produce_frames(&mut self, now: Timestamp) {
        let max_payload = self
            .cfg
            .wire
            .max_packet
            .saturating_sub(self.cfg.wire.rtp_overhead)
            .max(DataSize::bytes(1));
        // `chromium_adjuster`: the allocation is re-adjusted every second at a captured
        // frame (`kParameterUpdateIntervalMs`).
        if self.source.next_frame_time() <= now
            && self
                .chromium
                .adjuster
                .as_ref()
                .is_some_and(|a| a.update_due(now))
        {
            let enc = self.adjusted(now, self.chromium.unadjusted);
            self.source.set_target_rate(now, enc);
        }
        while let Some(frame) = self.source.poll_frame(now) {
            // `cwnd_frame_drop`: every N-th frame is not encoded.
            if let Some(n) = self.chromium.cwnd_drop_interval {
                let drop = self.chromium.cwnd_frame_counter % u64::from(n.max(1)) == 0;
                self.chromium.cwnd_frame_counter += 1;
                if drop {
                    self.encoder_log.on_dropped(frame.capture_time);
                    continue;
                }
            }
            self.encoder_log.on_encoded(frame.id, frame.capture_time);
            if let Some(f) = self.chromium.fec.as_mut() {
                f.on_encoded_frame(now, frame.size, frame.keyframe);
            }
            if let Some(a) = self.chromium.adjuster.as_mut() {
                a.on_encoded_frame(now, frame.size);
            }
            let n = frame
                .size
                .as_bytes()
                .div_ceil(max_payload.as_bytes())
                .max(1);
            let n32 = u32::try_from(n).unwrap_or(u32::MAX);
            let base = frame.size.as_bytes() / n;
            let extra = frame.size.as_bytes() % n;
            for i in 0..n {
                let payload = DataSize::bytes(base + u64::from(i < extra));
                let p = RtpPacket {
                    ssrc: self.cfg.ssrc,
                    sequence_number: self.next_seq,
                    transport_seq: 0,
                    send_time: now,
                    payload_size: payload,
                    frame_id: frame.id,
                    frame_capture_time: frame.capture_time,
                    frame_packet_index: u32::try_from(i).unwrap_or(u32::MAX),
                    frame_packet_count: n32,
                    keyframe: frame.keyframe,
                };
                self.next_seq += 1;
                self.pacer.enqueue(p, payload + self.cfg.wire.rtp_overhead);
            }
            self.refresh_chromium_pacing(now);
        }
        self.source.log_dropped(&mut self.encoder_log);
    }

    /// Packets sent between the previous feedback's highest transport sequence number
    /// and this one's that this one does not report: lost (as libwebrtc's
    /// `TransportFeedbackAdapter` reports them; late reordering is not modelled).
    /// Fill `lost` with (send time, size) of the packets from the last report's highest
    /// sequence number to this one's that the report does not list, in sequence order;
    /// `seqs` is room for the report's sequence numbers.
    fn lost_since_last_feedback(
        &mut self,
        packets: &[PacketArrival],
        seqs: &mut Vec<u64>,
        lost: &mut Vec<(Timestamp, DataSize)>,
    ) {
        lost.clear();
        let Some(high) = packets.iter().map(|a| a.transport_seq).max() else {
            return;
        };
        let from = self.feedback_highest.map_or(0, |h| h + 1);
        self.feedback_highest = Some(self.feedback_highest.map_or(high, |h| h.max(high)));
        if from > high {
            return;
        }
        seqs.clear();
        seqs.extend(packets.iter().map(|a| a.transport_seq));
        seqs.sort_unstable();
        lost.extend(
            self.history
                .range(from..=high)
                .filter(|(k, _)| seqs.binary_search(k).is_err())
                .map(|(_, &(t, size, _))| (t, size)),
        );
    }

    /// The application's desired rate caps the encoder (`None` = unlimited).
    pub fn set_desired_rate(&mut self, now: Timestamp, rate: Option<Bitrate>) {
        self.desired = rate;
        self.apply_target(now);
    }
    pub fn desired_rate(&self) -> Option<Bitrate> {
        self.desired
    }
    /// Whether the target covers the desired rate (unlimited desired rate: false).
    pub fn is_app_limited(&self) -> bool {
        self.desired.is_some_and(|d| self.gcc.is_app_limited(d))
    }
    pub fn gcc(&self) -> &Gcc {
        &self.gcc
    }
    pub fn target_rate(&self) -> Bitrate {
        self.gcc.target_rate()
    }
    pub fn encoder_rate(&self) -> Bitrate {
        self.source.encoder_rate()
    }
    /// Next GCC internal snapshot (sender side; see also
    /// [`MediaReceiver::poll_observation`](super::MediaReceiver::poll_observation)).
    pub fn poll_observation(&mut self) -> Option<GccObservation> {
        self.gcc.poll_observation()
    }
    pub fn bytes_sent(&self) -> u64 {
        self.bytes_sent
    }
    /// The frames the encoder encoded and dropped.
    pub fn encoder_log(&self) -> &EncoderLog {
        &self.encoder_log
    }
    pub fn packets_sent(&self) -> u64 {
        self.packets_sent
    }
    pub fn pacer_queue_bytes(&self) -> DataSize {
        self.pacer.queued_bytes()
    }
    /// `nack_rtx`: the sender's retransmissions (`None` without the option).
    pub fn rtx(&self) -> Option<&RtxSender> {
        self.chromium.rtx.as_ref()
    }

    fn on_echo(&mut self, now: Timestamp, echo: Option<RttEcho>) {
        if let Some(e) = echo {
            let rtt = (now - e.send_time) - e.hold;
            if rtt >= TimeDelta::ZERO {
                self.gcc.on_rtt(rtt);
            }
        }
    }
}

impl Endpoint for MediaSender {
    type Outgoing = RtpPacket;
    type Incoming = MediaFeedback;

    fn handle_input(&mut self, now: Timestamp, msg: MediaFeedback) {
        match msg {
            MediaFeedback::Nack {
                sequence_numbers, ..
            } => {
                self.on_nack(now, &sequence_numbers);
                return;
            }
            MediaFeedback::TransportFeedback { packets, echo, .. } => {
                self.on_echo(now, echo);
                let mut scratch = std::mem::take(&mut self.feedback_scratch);
                scratch.timings.clear();
                scratch.probes.clear();
                for a in &packets {
                    if let Some(&(send_time, size, tag)) = self.history.get(a.transport_seq) {
                        scratch.probes.push(tag);
                        scratch.timings.push(PacketTiming {
                            send_time,
                            arrival_time: a.arrival_time,
                            size,
                            frame: None,
                        });
                    }
                }
                if self.cfg.gcc.m156.is_some() {
                    let FeedbackScratch {
                        timings,
                        probes,
                        lost,
                        seqs,
                    } = &mut scratch;
                    self.lost_since_last_feedback(&packets, seqs, lost);
                    self.gcc
                        .on_transport_feedback_probed(now, timings, probes, lost);
                } else {
                    self.gcc.on_transport_feedback(now, &scratch.timings);
                }
                self.feedback_scratch = scratch;
            }
            MediaFeedback::Remb { bitrate, echo, .. } => {
                self.on_echo(now, echo);
                self.gcc.on_remb(now, bitrate);
            }
            MediaFeedback::ReceiverReport {
                fraction_lost,
                cumulative_lost,
                highest_seq,
                echo,
                ..
            } => {
                self.on_echo(now, echo);
                self.gcc.on_loss_report(now, fraction_lost);
                // `chromium_fec`: a new loss fraction triggers a target update in
                // Chromium (`MaybeTriggerOnNetworkChanged`), so the FEC rates follow.
                if self
                    .chromium
                    .fec
                    .as_mut()
                    .is_some_and(|f| f.on_receiver_report(cumulative_lost, highest_seq))
                {
                    self.apply_target(now);
                }
            }
        }
        self.after_gcc(now);
    }

    fn poll_transmit(&mut self, now: Timestamp) -> Option<Transmit<RtpPacket>> {
        self.produce_frames(now);
        // `fec_delay_ms`: the ULPFEC packets whose delay is over join the queue.
        let mut released = false;
        while let Some((q, size)) = self.chromium.held_fec.pop_due(now) {
            self.pacer.enqueue(q, size);
            released = true;
        }
        if released {
            self.refresh_chromium_pacing(now);
        }
        // While a cluster is active every packet is a probe (PacingController sends
        // media as probe packets then, at the cluster's rate, not also at the pacing rate).
        let probing = self
            .chromium
            .prober
            .as_ref()
            .is_some_and(|p| p.is_probing());
        let (mut p, size, tag) = match self.poll_probe(now) {
            Some((p, size, tag)) => (p, size, Some(tag)),
            None if probing
                && self
                    .chromium
                    .prober
                    .as_ref()
                    .is_some_and(|p| p.is_probing()) =>
            {
                return None
            }
            None => {
                self.maybe_pad(now);
                let (p, size) = self.pacer.poll(now)?;
                (p, size, None)
            }
        };
        p.send_time = now;
        p.transport_seq = self.next_transport_seq;
        self.next_transport_seq += 1;
        // Chromium's transport feedback adapter keeps the socket's send time, in whole
        // milliseconds with `send_time_ms` (`send_path::sent_packet_time`).
        let sent = sent_packet_time(now, self.cfg.send_time_whole_ms);
        self.history.insert(p.transport_seq, (sent, size, tag));
        self.gcc.on_packet_sent(now, size);
        let horizon = now - self.cfg.history;
        while let Some((_, &(t, _, _))) = self.history.first() {
            if t < horizon {
                self.history.pop_first();
            } else {
                break;
            }
        }
        self.bytes_sent += size.as_bytes();
        self.packets_sent += 1;
        let is_rtx = self.chromium.rtx.as_ref().is_some_and(|r| r.is_rtx(&p));
        if let Some(r) = self.chromium.rtx.as_mut() {
            r.on_sent(now, &p, size);
        }
        if let Some(b) = self.chromium.padding.as_mut() {
            b.on_sent(now, size);
            if p.frame_packet_count > 0 && !is_rtx {
                self.chromium.last_media_payload = Some(p.payload_size);
            }
        }
        self.on_sent_for_fec(now, &p, size);
        self.update_cwnd_pushback(now);
        Some(Transmit { size, message: p })
    }

    fn poll_timeout(&self) -> Option<Timestamp> {
        let frame = self.source.next_frame_time();
        let probing = self
            .chromium
            .prober
            .as_ref()
            .is_some_and(|p| p.is_probing());
        let mut next = match self.pacer.next_send_time() {
            Some(t) if !probing => t.min(frame),
            _ => frame,
        };
        if let Some(t) = self.gcc.poll_timeout() {
            next = next.min(t);
        }
        if let Some(t) = self.chromium.held_fec.next_due() {
            next = next.min(t);
        }
        if self.pacer.queue_len() == 0 {
            if let Some(t) = self
                .chromium
                .padding
                .as_ref()
                .and_then(PaddingBudget::next_time)
            {
                next = next.min(t);
            }
        }
        if let Some(t) = self
            .chromium
            .prober
            .as_ref()
            .and_then(|p| p.next_probe_time(Timestamp::ZERO))
        {
            next = next.min(t);
        }
        Some(next)
    }

    fn handle_timeout(&mut self, now: Timestamp) {
        if self.gcc.poll_timeout().is_some_and(|t| t <= now) {
            self.gcc.handle_timeout(now);
            self.after_gcc(now);
        }
        self.pull_probe_clusters();
        self.produce_frames(now);
    }
}

#[cfg(test)]
#[path = "sender_tests.rs"]
mod tests;

/// GCC media couples as a rate flow. Not [`Controller::INPUT_DRIVEN`]: the pacer sends
/// what its budget allows whenever it is polled.
impl Controller for MediaSender {
    /// Capture restarts at `now` without a backlog of the frames not captured while
    /// paused; GCC keeps its estimates (libwebrtc's send-side estimator runs on while a
    /// track is paused).
    fn resume(&mut self, now: Timestamp) {
        self.source.resume_at(now);
    }
    /// The newest rate report for a coupling manager (coalesced: only the latest).
    fn poll_cc_report(&mut self) -> Option<FlowReport> {
        self.report.take()
    }
    /// Apply a coupling manager's allowance: `Rate(r)` sets both GCC estimates.
    fn apply_allowance(&mut self, now: Timestamp, a: Allowance) {
        if let Allowance::Rate(r) = a {
            self.gcc.set_estimates(now, r);
            self.last_reported = Some(match self.cfg.report_mode {
                RateReportMode::DelayBased => self.gcc.delay_based_estimate(),
                RateReportMode::Target => self.gcc.target_rate(),
            });
            self.apply_target(now);
        }
    }
    fn snapshot(&self) -> FlowReport {
        FlowReport::Rate {
            rate: self.target_rate(),
            rtt: Some(self.gcc().rtt()),
        }
    }
    /// GCC's RTT estimate, once it has a sample (until then it holds the configured
    /// default, which is no sample).
    fn latest_rtt(&self) -> Option<TimeDelta> {
        let r = self.gcc().rtt();
        (r != self.gcc().config().default_rtt).then_some(r)
    }
    fn delay_based_decreases(&self) -> Option<u64> {
        Some(self.gcc().delay_based_decreases())
    }
    /// The configured codepoint; GCC itself never reacts to the marks (libwebrtc
    /// goog_cc, docs/ALGORITHMS.md "ECN responses"), so there are no ECN responses.
    fn ecn_codepoint(&self) -> Ecn {
        self.cfg.ecn
    }
}
