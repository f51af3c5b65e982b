//! Google Congestion Control, both published variants, sans-I/O (papers 001 and 002,
//! draft-ietf-rmcat-gcc-02; Chromium ~M100 as run by paper 000: libwebrtc
//! branch-heads/4896, the file behind each component in docs/ALGORITHMS.md, "libwebrtc
//! sources").
//!
//! One file per component:
//! [`inter_arrival`] (arrival groups), [`kalman`] (paper 002 eqs. 10-16), [`trendline`]
//! (Chromium), [`detector`] (over-use detector), [`threshold`] (adaptive and static),
//! [`aimd`] with [`link_capacity`] (remote rate controller), [`loss_based`] (sender),
//! [`crate::rate_window`] (incoming rate R, shared with NADA and SCReAM), [`remb`] (REMB
//! timing), [`delay_based`] (the chain from packets to A_r), [`pacer`], [`config`]
//! (presets), [`observation`].
//!
//! Today's Chromium (`chromium-m156` preset, libwebrtc M125 sources): [`probe_controller`],
//! [`probe_estimator`], [`bitrate_prober`] (the pacer's probe sender), [`alr_detector`],
//! [`chromium_pacing`], [`loss_based_v2`], [`robust_throughput`] (the acknowledged
//! throughput), [`congestion_window`] (the pushback's frame dropping), wired together in
//! [`m156`]; [`media_debt`] (the pacer's burst rule of WebRTC M150, option `chromium_pacer`).
//!
//! [`Gcc`] is the sender-side facade: it owns the loss-based controller and, for the
//! Chromium preset, the delay-based estimator (fed by transport-wide feedback); for the
//! paper presets A_r arrives in REMB messages from a receiver-side [`DelayBasedBwe`].
//! The target is A = min(A_s, A_r).

pub mod aimd;
pub mod alr_detector;
pub mod bitrate_prober;
pub mod chromium_pacing;
pub mod config;
pub mod congestion_window;
pub mod delay_based;
pub mod detector;
pub mod feedback_cadence;
pub mod inter_arrival;
pub mod kalman;
pub mod link_capacity;
pub mod loss_based;
pub mod loss_based_v2;
pub mod m156;
pub mod media_debt;
pub mod observation;
pub mod pacer;
pub mod padding;
pub mod probe_controller;
pub mod probe_estimator;
pub mod remb;
pub mod robust_throughput;
pub mod threshold;
pub mod trendline;

#[cfg(test)]
mod m156_proptests;
#[cfg(test)]
mod proptests;

pub use aimd::RateControlState;
pub use config::{EstimationSide, GccConfig, GccPreset, M156Config};
pub use delay_based::{DelayBasedBwe, DelayBasedConfig, PacketTiming};
pub use detector::BandwidthUsage;
pub use observation::GccObservation;

use crate::units::DataSize;
use crate::units::{Bitrate, TimeDelta, Timestamp};
use loss_based::LossBasedControl;
use m156::M156State;
use probe_controller::ProbeCluster;
use probe_estimator::ProbeTag;
use robust_throughput::AckedPacket;
use std::collections::VecDeque;

/// The sender-side GCC controller.
#[derive(Debug, Clone)]
pub struct Gcc {
    cfg: GccConfig,
    delay: Option<DelayBasedBwe>,
    delay_estimate: Bitrate,
    loss: LossBasedControl,
    rtt: Option<TimeDelta>,
    target: Bitrate,
    target_update: bool,
    observations: VecDeque<GccObservation>,
    latest: Option<GccObservation>,
    remote_decreases: u64,
    m156: Option<M156State>,
    /// Room for a report's packets in arrival order, kept between reports so that a
    /// report allocates nothing (its content is only used within one call).
    sorted_scratch: Vec<PacketTiming>,
    /// Room for the robust throughput estimator's view of a report (the same reuse).
    acked_scratch: Vec<AckedPacket>,
}

impl Gcc {
    pub fn new(cfg: GccConfig) -> Self {
        let delay = match cfg.side {
            EstimationSide::Sender => Some(DelayBasedBwe::new(cfg.delay.clone())),
            EstimationSide::Receiver => None,
        };
        let loss = LossBasedControl::new(cfg.loss.clone());
        let delay_estimate = match &delay {
            Some(d) => d.estimate(),
            None => Bitrate::INFINITY,
        };
        let mut g = Self {
            cfg,
            delay,
            delay_estimate,
            loss,
            rtt: None,
            target: Bitrate::ZERO,
            target_update: false,
            observations: VecDeque::new(),
            latest: None,
            remote_decreases: 0,
            m156: None,
            sorted_scratch: Vec::new(),
            acked_scratch: Vec::new(),
        };
        g.m156 = g.cfg.m156.clone().map(M156State::new);
        g.target = g.loss.estimate().min(g.delay_estimate);
        g
    }

    pub fn from_preset(p: GccPreset) -> Self {
        Self::new(p.config())
    }

    pub fn config(&self) -> &GccConfig {
        &self.cfg
    }

    fn clamp(&self, r: Bitrate) -> Bitrate {
        let lo = self.cfg.delay.aimd.min_rate;
        r.max(lo).min(self.cfg.delay.aimd.max_rate.max(lo))
    }

    fn recompute(&mut self, now: Timestamp) {
        self.loss.set_delay_based_limit(now, self.delay_estimate);
        self.target = self.loss_based_estimate().min(self.delay_estimate);
        self.target_update = true;
    }

    fn record(&mut self, obs: GccObservation) {
        let obs = GccObservation {
            loss_based_rate: Some(self.loss.estimate()),
            ..obs
        };
        self.latest = Some(obs);
        if self.cfg.observation_capacity == 0 {
            return;
        }
        while self.observations.len() >= self.cfg.observation_capacity {
            self.observations.pop_front();
        }
        self.observations.push_back(obs);
    }

    /// Transport-wide feedback: per-packet send/arrival times (Chromium preset). Lost
    /// packets are simply absent. Ignored when the estimator runs at the receiver.
    pub fn on_transport_feedback(&mut self, now: Timestamp, packets: &[PacketTiming]) {
        self.on_transport_feedback_probed(now, packets, &[], &[]);
    }

    /// Transport-wide feedback with the probe cluster each packet was sent in
    /// (`probes[i]` for `packets[i]`; missing entries are no probe) and the packets the
    /// feedback reports lost (send time, size) (`chromium-m156`: loss-based BWE v2).
    pub fn on_transport_feedback_probed(
        &mut self,
        now: Timestamp,
        packets: &[PacketTiming],
        probes: &[Option<ProbeTag>],
        lost: &[(Timestamp, DataSize)],
    ) {
        if self.delay.is_none() {
            return;
        }
        let mut sorted = std::mem::take(&mut self.sorted_scratch);
        sorted.clear();
        sorted.extend_from_slice(packets);
        sorted.sort_by_key(|p| (p.arrival_time, p.send_time));
        self.on_sorted_feedback(now, &sorted, packets, probes, lost);
        self.sorted_scratch = sorted;
    }

    /// [`Gcc::on_transport_feedback_probed`] with the report's packets also in arrival
    /// order (`sorted`; `packets` in the report's order).
    fn on_sorted_feedback(
        &mut self,
        now: Timestamp,
        sorted: &[PacketTiming],
        packets: &[PacketTiming],
        probes: &[Option<ProbeTag>],
        lost: &[(Timestamp, DataSize)],
    ) {
        let Some(d) = self.delay.as_mut() else { return };
        let mut updated = false;
        // chromium-m156: the robust throughput estimator sees the report first
        // (`OnTransportPacketsFeedback`) and its rate is the AIMD's throughput.
        let acked = &mut self.acked_scratch;
        let robust = self
            .m156
            .as_mut()
            .filter(|m| m.has_robust_throughput())
            .map(|m| {
                acked.clear();
                acked.extend(sorted.iter().map(|p| AckedPacket {
                    send_time: p.send_time,
                    receive_time: p.arrival_time,
                    size: p.size,
                }));
                m.on_acknowledged(acked.iter())
            });
        let ran = match robust {
            Some(acked) => d.on_packets_acknowledged(now, sorted.iter(), acked),
            None => d.on_packets(now, sorted.iter()),
        };
        if ran.is_some() {
            self.delay_estimate = d.estimate();
            let obs = d.take_observation();
            self.recompute(now);
            updated = true;
            if let Some(o) = obs {
                self.record(o);
            }
        }
        let (Some(m), Some(d)) = (self.m156.as_mut(), self.delay.as_mut()) else {
            return;
        };
        for (p, tag) in packets.iter().zip(probes) {
            if let Some(tag) = tag {
                m.on_probe_feedback(*tag, p.send_time, p.arrival_time, p.size);
            }
        }
        let acknowledged = match robust {
            Some(acked) => acked,
            None => d.incoming_rate(now),
        };
        if let Some(rate) = m.on_feedback(now, self.delay_estimate, acknowledged) {
            if d.apply_probe(now, rate) {
                self.delay_estimate = d.estimate();
                // `SetSendBitrate`: the loss-based estimates follow the probe.
                self.loss.set_estimate(self.delay_estimate);
                m.on_probe_applied(self.delay_estimate);
                updated = true;
            }
        }
        // The congestion window's feedback RTT (`OnTransportPacketsFeedback`).
        m.on_feedback_rtt(now, packets.iter().map(|p| p.send_time));
        // `UpdateLossBasedEstimator`: every feedback, received and lost packets.
        let sends = packets
            .iter()
            .map(|p| p.send_time)
            .chain(lost.iter().map(|l| l.0));
        let (first, last) = sends.fold((Timestamp::MAX, Timestamp::ZERO), |(a, b), t| {
            (a.min(t), b.max(t))
        });
        let size = packets
            .iter()
            .map(|p| p.size)
            .chain(lost.iter().map(|l| l.1));
        let summary = loss_based_v2::FeedbackSummary {
            num_packets: (packets.len() + lost.len()) as u64,
            num_lost: lost.len() as u64,
            lost_size: lost.iter().fold(DataSize::ZERO, |a, l| a + l.1),
            total_size: size.fold(DataSize::ZERO, |a, b| a + b),
            first_send: first,
            last_send: last,
        };
        let before = m.loss_v2_estimate();
        m.update_loss_v2(&summary, self.delay_estimate, acknowledged);
        if updated || m.loss_v2_estimate() != before {
            self.recompute(now);
            updated = true;
        }
        if updated {
            let signal = self
                .delay
                .as_ref()
                .map_or(BandwidthUsage::Normal, |d| d.signal());
            let target = self.target;
            if let Some(m) = self.m156.as_mut() {
                m.on_target(now, target, signal);
            }
        }
        // `UpdateCongestionWindowSize`, after the report (with the newest target).
        let target = self.target;
        if let Some(m) = self.m156.as_mut() {
            m.update_congestion_window(target);
        }
    }

    /// `chromium-m156`: the congestion-window pushback's `cwnd_reduce_ratio` with
    /// `in_flight` bytes sent and not yet reported (0 when it does not run).
    pub fn cwnd_reduce_ratio(&mut self, in_flight: DataSize) -> f64 {
        let (target, min) = (self.target, self.cfg.delay.aimd.min_rate);
        self.m156
            .as_mut()
            .map_or(0.0, |m| m.cwnd_reduce_ratio(in_flight, target, min))
    }

    /// The sender is up at `now` (`chromium-m156`: the initial probes).
    pub fn start(&mut self, now: Timestamp) {
        let a = &self.cfg.delay.aimd;
        let (min, start, max) = (a.min_rate, a.start_rate, a.max_rate);
        let target = self.target;
        if let Some(m) = self.m156.as_mut() {
            m.set_min_max(min, max);
            m.start(now, min, start, target);
        }
    }

    /// The encoders' maximum rate (`chromium-m156`: caps probes at twice it).
    pub fn set_max_allocated(&mut self, now: Timestamp, rate: Bitrate) {
        if let Some(m) = self.m156.as_mut() {
            m.set_max_allocated(now, rate);
        }
    }

    /// A packet left the pacer (`chromium-m156`: the ALR detector).
    pub fn on_packet_sent(&mut self, now: Timestamp, size: DataSize) {
        if let Some(m) = self.m156.as_mut() {
            m.on_packet_sent(now, size);
        }
    }

    /// The next probe cluster for the pacer (`chromium-m156`).
    pub fn poll_probe_cluster(&mut self) -> Option<ProbeCluster> {
        self.m156.as_mut().and_then(|m| m.poll_cluster())
    }

    /// The M156 components' state (`chromium-m156` preset only).
    pub fn m156(&self) -> Option<&M156State> {
        self.m156.as_ref()
    }

    /// A REMB carrying A_r (paper presets). With a sender-side estimator, a REMB acts as a
    /// receiver limit on top of it.
    pub fn on_remb(&mut self, now: Timestamp, rate: Bitrate) {
        if self.delay.is_some() {
            return;
        }
        let rate = self.clamp(rate);
        if rate < self.delay_estimate {
            self.remote_decreases = self.remote_decreases.saturating_add(1);
        }
        self.delay_estimate = rate;
        self.recompute(now);
    }

    /// A receiver report with loss fraction `fraction_lost` in [0, 1].
    pub fn on_loss_report(&mut self, now: Timestamp, fraction_lost: f64) {
        let rtt = self.rtt();
        self.loss.set_delay_based_limit(now, self.delay_estimate);
        self.loss.on_loss_report(now, fraction_lost, rtt);
        self.recompute(now);
        if let Some(o) = self.latest {
            self.record(GccObservation {
                time: now,
                delay_based_rate: self.delay_estimate,
                ..o
            });
        }
    }

    /// When [`Gcc::handle_timeout`] wants to run next (Chromium's loss-based process
    /// timer; `None` for the paper presets).
    pub fn poll_timeout(&self) -> Option<Timestamp> {
        self.loss.next_process_time()
    }

    /// Run the timers that are due (Chromium `OnProcessInterval`: the loss-based
    /// controller's periodic update).
    pub fn handle_timeout(&mut self, now: Timestamp) {
        if let Some(m) = self.m156.as_mut() {
            m.process(now);
        }
        self.loss.set_delay_based_limit(now, self.delay_estimate);
        if self.loss.on_process(now) {
            self.recompute(now);
        }
    }

    /// An RTT sample.
    pub fn on_rtt(&mut self, rtt: TimeDelta) {
        if rtt < TimeDelta::ZERO {
            return;
        }
        self.rtt = Some(rtt);
        if let Some(d) = self.delay.as_mut() {
            d.set_rtt(rtt);
        }
    }

    /// Coupling: set both the delay-based (AIMD current rate) and the loss-based estimate
    /// to `rate`, clearing the loss-based min-rate history (paper 000 VII-B2e). For the
    /// paper presets the AIMD runs at the receiver: the sender's copy of A_r is set and
    /// the next REMB overrides it.
    pub fn set_estimates(&mut self, now: Timestamp, rate: Bitrate) {
        match self.delay.as_mut() {
            Some(d) => {
                d.set_estimate(now, rate);
                self.delay_estimate = d.estimate();
            }
            None => self.delay_estimate = self.clamp(rate),
        }
        self.loss.set_estimate(self.delay_estimate.min(rate));
        // chromium-m156: loss-based BWE v2 takes the allocation as `SetSendBitrate`
        // takes a new rate (`SetBandwidthEstimate`).
        let allocated = self.clamp(self.delay_estimate.min(rate));
        if let Some(m) = self.m156.as_mut() {
            m.on_probe_applied(allocated);
        }
        self.target = self.loss_based_estimate().min(self.delay_estimate);
    }

    /// A = min(A_s, A_r).
    pub fn target_rate(&self) -> Bitrate {
        self.target
    }
    /// A_r (infinite for a paper preset before the first REMB).
    pub fn delay_based_estimate(&self) -> Bitrate {
        self.delay_estimate
    }
    /// A_s (`chromium-m156`: loss-based BWE v2's once it is ready).
    pub fn loss_based_estimate(&self) -> Bitrate {
        match self.m156.as_ref().and_then(|m| m.loss_v2_estimate()) {
            Some((r, _)) => r,
            None => self.loss.estimate(),
        }
    }
    /// The RTT estimate (200 ms until the first sample).
    pub fn rtt(&self) -> TimeDelta {
        self.rtt.unwrap_or(self.cfg.default_rtt)
    }
    /// Whether the target is at least the application's desired rate.
    pub fn is_app_limited(&self, desired_rate: Bitrate) -> bool {
        self.target >= desired_rate
    }
    /// n_dd at the sender (sender-side estimator), or the number of REMBs that lowered A_r.
    pub fn delay_based_decreases(&self) -> u64 {
        match &self.delay {
            Some(d) => d.delay_based_decreases(),
            None => self.remote_decreases,
        }
    }
    /// `Some(target)` once after every computation of a new target.
    pub fn poll_target_update(&mut self) -> Option<Bitrate> {
        std::mem::take(&mut self.target_update).then_some(self.target)
    }
    /// The next queued internal snapshot.
    pub fn poll_observation(&mut self) -> Option<GccObservation> {
        self.observations.pop_front()
    }
    /// The newest snapshot.
    pub fn latest_observation(&self) -> Option<GccObservation> {
        self.latest
    }
    /// The sender-side delay-based estimator, if it runs here.
    pub fn delay_based(&self) -> Option<&DelayBasedBwe> {
        self.delay.as_ref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::DataSize;

    #[test]
    fn set_estimates_sets_both_and_getters_report_them() {
        let mut g = Gcc::from_preset(GccPreset::Chromium);
        assert_eq!(g.rtt(), TimeDelta::millis(200));
        g.set_estimates(Timestamp::from_secs(1), Bitrate::kbps(700.0));
        assert_eq!(g.delay_based_estimate(), Bitrate::kbps(700.0));
        assert_eq!(g.loss_based_estimate(), Bitrate::kbps(700.0));
        assert_eq!(g.target_rate(), Bitrate::kbps(700.0));
        assert!(g.is_app_limited(Bitrate::kbps(700.0)));
        assert!(!g.is_app_limited(Bitrate::kbps(701.0)));
        // The loss-based min history was cleared: the next increase starts from 700.
        g.on_loss_report(Timestamp::from_secs(2), 0.0);
        assert!(
            (g.loss_based_estimate().as_kbps() - 700.0).abs() < 1e-9,
            "capped by A_r"
        );
        g.on_rtt(TimeDelta::millis(80));
        assert_eq!(g.rtt(), TimeDelta::millis(80));
    }

    #[test]
    fn target_is_min_of_loss_and_delay_based() {
        let mut g = Gcc::from_preset(GccPreset::Paper);
        let t = Timestamp::from_secs;
        // Paper preset: A_r from REMB.
        g.on_remb(t(1), Bitrate::kbps(2000.0));
        // A_s = 300 kbit/s start -> 315 after a loss-free report.
        g.on_loss_report(t(2), 0.0);
        assert!((g.target_rate().as_kbps() - 315.0).abs() < 1e-9);
        assert_eq!(g.poll_target_update(), Some(g.target_rate()));
        assert_eq!(g.poll_target_update(), None);
        g.on_remb(t(3), Bitrate::kbps(200.0));
        assert!((g.target_rate().as_kbps() - 200.0).abs() < 1e-9);
        assert_eq!(g.delay_based_decreases(), 2);
        // Heavy loss: 200 * (1 - 0.5*0.5) = 150.
        g.on_loss_report(t(4), 0.5);
        assert!((g.target_rate().as_kbps() - 150.0).abs() < 1e-9);
    }

    #[test]
    fn m156_feeds_the_robust_throughput_estimator_with_each_report() {
        // 1200 B every 10 ms (960 kbit/s), feedback every 100 ms arriving 40 ms after
        // the last packet: the estimate spans receive times, so it is exact.
        let run = |cfg: GccConfig| {
            let mut g = Gcc::new(cfg);
            g.start(Timestamp::ZERO);
            for fb in 1..=30u64 {
                let pkts: Vec<PacketTiming> = ((fb - 1) * 10 + 1..=fb * 10)
                    .map(|seq| {
                        let s = Timestamp::from_millis(seq * 10);
                        PacketTiming {
                            send_time: s,
                            arrival_time: s + TimeDelta::millis(40),
                            size: DataSize::bytes(1200),
                            frame: None,
                        }
                    })
                    .collect();
                g.on_transport_feedback(Timestamp::from_millis(fb * 100 + 80), &pkts);
            }
            g.m156().and_then(|m| m.acknowledged_rate())
        };
        let r = run(GccPreset::ChromiumM156.config()).map(|b| b.as_kbps());
        assert!(r.is_some_and(|k| (k - 960.0).abs() < 1e-6), "{r:?}");
        let mut off = GccPreset::ChromiumM156.config();
        if let Some(m) = off.m156.as_mut() {
            m.throughput = None;
        }
        assert_eq!(run(off), None, "switched off: no estimator");
    }

    #[test]
    fn transport_feedback_drives_sender_side_estimator() {
        let mut g = Gcc::from_preset(GccPreset::Chromium);
        let start = g.delay_based_estimate();
        // 1200 B every 10 ms with constant delay (960 kbit/s), feedback every 100 ms.
        let mut seq = 0u64;
        for fb in 1..=50u64 {
            let mut pkts = Vec::new();
            while (seq + 1) * 10 <= fb * 100 {
                seq += 1;
                let s = Timestamp::from_millis(seq * 10);
                pkts.push(PacketTiming {
                    send_time: s,
                    arrival_time: s + TimeDelta::millis(40),
                    size: DataSize::bytes(1200),
                    frame: None,
                });
            }
            g.on_transport_feedback(Timestamp::from_millis(fb * 100 + 40), &pkts);
        }
        assert!(g.delay_based_estimate() > start, "no congestion: A_r grows");
        assert!(g.latest_observation().is_some());
        assert!(g.poll_observation().is_some());
        // Now the queue grows 5 ms per 10 ms packet: overuse, decrease.
        let mut delay = 40u64;
        for fb in 51..=70u64 {
            let mut pkts = Vec::new();
            while (seq + 1) * 10 <= fb * 100 {
                seq += 1;
                delay += 5;
                let s = Timestamp::from_millis(seq * 10);
                pkts.push(PacketTiming {
                    send_time: s,
                    arrival_time: s + TimeDelta::millis(delay as i64),
                    size: DataSize::bytes(1200),
                    frame: None,
                });
            }
            g.on_transport_feedback(Timestamp::from_millis(fb * 100 + delay), &pkts);
        }
        assert!(g.delay_based_decreases() >= 1);
        let o = g
            .latest_observation()
            .map(|o| o.delay_based_decreases)
            .unwrap_or(0);
        assert!(o >= 1);
        // Arrival rate is 1200 B / 15 ms = 640 kbit/s: 0.85 * that is well below start.
        assert!(g.delay_based_estimate() < Bitrate::kbps(640.0));
    }
}
