//! The `chromium-m156` preset's extra state inside [`super::Gcc`]: probe controller,
//! probe result estimator and ALR detector, wired as `GoogCcNetworkController` wires them
//! (`modules/congestion_controller/goog_cc/goog_cc_network_control.cc`, WebRTC M125):
//!
//! - at start (network available): `SetBitrates(min, start, max)` and the initial probes;
//! - on every packet sent: the ALR detector (`OnSentPacket`);
//! - on transport feedback: the received packets to the robust throughput estimator
//!   (its rate is the acknowledged rate every consumer below takes); probe packets to the
//!   probe estimator; the ALR end time to the probe controller; a probe result (raised to min(A_r, 0.85 x acknowledged rate)) sets
//!   the delay-based and the loss-based estimate (`SetSendBitrate`);
//! - on every new target (`MaybeTriggerOnNetworkChanged`): the ALR budget rate and the
//!   probe controller's estimate (further probes);
//! - after a recovery from over-use: `RequestProbe` (drop recovery);
//! - every process interval: `ProbeController::Process` (timeouts, ALR probes).

use super::alr_detector::AlrDetector;
use super::config::M156Config;
use super::congestion_window::{self, CongestionWindow};
use super::detector::BandwidthUsage;
use super::loss_based_v2::{FeedbackSummary, LossBasedBweV2, LossBasedState};
use super::probe_controller::{BandwidthLimitedCause, ProbeCluster, ProbeController};
use super::probe_estimator::{ProbeBitrateEstimator, ProbeTag};
use super::robust_throughput::{AckedPacket, RobustThroughputEstimator};
use crate::units::{Bitrate, DataSize, Timestamp};
use std::collections::VecDeque;

/// The M156 components' state.
#[derive(Debug, Clone)]
pub struct M156State {
    cfg: M156Config,
    probes: Option<ProbeController>,
    estimator: ProbeBitrateEstimator,
    alr: Option<AlrDetector>,
    previously_in_alr: bool,
    clusters: VecDeque<ProbeCluster>,
    started: bool,
    last_signal: BandwidthUsage,
    loss_v2: Option<LossBasedBweV2>,
    throughput: Option<RobustThroughputEstimator>,
    cwnd: Option<CongestionWindow>,
}

impl M156State {
    pub fn new(cfg: M156Config) -> Self {
        Self {
            probes: cfg
                .probing
                .map(|c| ProbeController::new(c, Timestamp::ZERO)),
            estimator: ProbeBitrateEstimator::new(),
            alr: cfg.alr.map(AlrDetector::new),
            previously_in_alr: false,
            clusters: VecDeque::new(),
            started: false,
            last_signal: BandwidthUsage::Normal,
            loss_v2: cfg.loss_v2.clone().map(LossBasedBweV2::new),
            throughput: cfg.throughput.map(RobustThroughputEstimator::new),
            cwnd: cfg.congestion_window.map(CongestionWindow::new),
            cfg,
        }
    }

    pub fn config(&self) -> &M156Config {
        &self.cfg
    }

    /// The network is up at `now` with these bounds: the initial probes (once).
    /// Chromium's maximum is the peer connection's (unbounded by default, so probes go
    /// up to 5 Mbit/s); the encoder's maximum comes in through
    /// [`M156State::set_max_allocated`].
    pub fn start(&mut self, now: Timestamp, min: Bitrate, start: Bitrate, target: Bitrate) {
        if std::mem::replace(&mut self.started, true) {
            return;
        }
        if let Some(a) = self.alr.as_mut() {
            a.set_estimated_bitrate(target);
        }
        if let Some(p) = self.probes.as_mut() {
            *p = ProbeController::new(
                *self.cfg.probing.as_ref().unwrap_or(&Default::default()),
                now,
            );
            let mut c = p.set_bitrates(now, min, start, Bitrate::INFINITY);
            c.extend(p.on_network_available(now, true));
            self.clusters.extend(c);
        }
    }

    /// Whether the robust throughput estimator replaces the receive-rate window.
    pub fn has_robust_throughput(&self) -> bool {
        self.throughput.is_some()
    }

    /// `acknowledged_bitrate_estimator_->IncomingPacketFeedbackVector(
    /// report.SortedByReceiveTime())` then `bitrate()`: one report's received packets,
    /// in receive-time order. `None` when the estimator is off or has too few packets.
    pub fn on_acknowledged<'a>(
        &mut self,
        packets: impl IntoIterator<Item = &'a AckedPacket>,
    ) -> Option<Bitrate> {
        let t = self.throughput.as_mut()?;
        t.on_packets(packets);
        t.bitrate()
    }

    /// The robust throughput estimator's current rate.
    pub fn acknowledged_rate(&self) -> Option<Bitrate> {
        self.throughput.as_ref().and_then(|t| t.bitrate())
    }

    /// One report's send times of received packets, at `now` (the feedback RTTs of the
    /// congestion window).
    pub fn on_feedback_rtt(&mut self, now: Timestamp, sends: impl IntoIterator<Item = Timestamp>) {
        if let (Some(c), Some(rtt)) = (
            self.cwnd.as_mut(),
            congestion_window::max_feedback_rtt(now, sends),
        ) {
            c.on_feedback_rtt(rtt);
        }
    }

    /// `UpdateCongestionWindowSize` with the last target.
    pub fn update_congestion_window(&mut self, target: Bitrate) {
        if let Some(c) = self.cwnd.as_mut() {
            c.update_window(target);
        }
    }

    /// `UpdateOutstandingData` then `UpdateTargetBitrate`: the `cwnd_reduce_ratio` for
    /// `target` (0 without the pushback).
    pub fn cwnd_reduce_ratio(&mut self, in_flight: DataSize, target: Bitrate, min: Bitrate) -> f64 {
        let Some(c) = self.cwnd.as_mut() else {
            return 0.0;
        };
        c.set_in_flight(in_flight);
        let pushback = c.pushback_rate(target);
        congestion_window::reduce_ratio(target, pushback, min)
    }

    /// Whether the congestion-window pushback runs.
    pub fn has_congestion_window(&self) -> bool {
        self.cwnd.is_some()
    }

    /// Loss-based BWE v2's bounds (`SetMinMaxBitrate`).
    pub fn set_min_max(&mut self, min: Bitrate, max: Bitrate) {
        if let Some(l) = self.loss_v2.as_mut() {
            l.set_min_max_bitrate(min, max);
        }
    }

    /// `UpdateLossBasedEstimator` with one feedback's packets (received and lost).
    pub fn update_loss_v2(
        &mut self,
        summary: &FeedbackSummary,
        delay_estimate: Bitrate,
        acknowledged: Option<Bitrate>,
    ) {
        let in_alr = self.alr_start_time().is_some();
        if let Some(l) = self.loss_v2.as_mut() {
            if let Some(a) = acknowledged {
                l.set_acknowledged_bitrate(a);
            }
            l.update(summary, delay_estimate, in_alr);
        }
    }

    /// A probe result sets loss-based BWE v2's estimate (`SetSendBitrate`).
    pub fn on_probe_applied(&mut self, rate: Bitrate) {
        if let Some(l) = self.loss_v2.as_mut() {
            l.set_bandwidth_estimate(rate);
        }
    }

    /// Loss-based BWE v2's estimate once it is ready (`None`: use the classic one).
    pub fn loss_v2_estimate(&self) -> Option<(Bitrate, LossBasedState)> {
        self.loss_v2
            .as_ref()
            .filter(|l| l.is_ready())
            .map(|l| l.result())
    }

    /// `OnStreamsConfig`: the encoders' maximum (probes stay under twice it).
    pub fn set_max_allocated(&mut self, now: Timestamp, rate: Bitrate) {
        if let Some(p) = self.probes.as_mut() {
            self.clusters
                .extend(p.on_max_total_allocated_bitrate(now, rate));
        }
    }

    pub fn on_packet_sent(&mut self, now: Timestamp, size: DataSize) {
        if let Some(a) = self.alr.as_mut() {
            a.on_bytes_sent(now, size);
        }
    }

    /// One probe packet's feedback.
    pub fn on_probe_feedback(
        &mut self,
        tag: ProbeTag,
        send: Timestamp,
        arrival: Timestamp,
        size: DataSize,
    ) {
        self.estimator.on_probe_feedback(tag, send, arrival, size);
    }

    /// At every feedback report: the ALR state to the probe controller, and the probe
    /// result if a cluster completed (`limit_probes_lower_than_throughput_estimate`).
    pub fn on_feedback(
        &mut self,
        now: Timestamp,
        delay_estimate: Bitrate,
        acknowledged: Option<Bitrate>,
    ) -> Option<Bitrate> {
        let alr_start = self.alr.as_ref().and_then(|a| a.alr_start_time());
        if let Some(p) = self.probes.as_mut() {
            if self.previously_in_alr && alr_start.is_none() {
                p.set_alr_ended_time(now);
            }
            p.set_alr_start_time(alr_start);
        }
        self.previously_in_alr = alr_start.is_some();
        let probe = self.estimator.fetch_and_reset()?;
        Some(
            match (self.cfg.probe_drop_throughput_fraction, acknowledged) {
                (Some(f), Some(ack)) => probe.max(delay_estimate.min(ack * f)),
                _ => probe,
            },
        )
    }

    /// A new target (`MaybeTriggerOnNetworkChanged`); `signal` is the delay detector's.
    pub fn on_target(&mut self, now: Timestamp, target: Bitrate, signal: BandwidthUsage) {
        if let Some(a) = self.alr.as_mut() {
            a.set_estimated_bitrate(target);
        }
        let recovered =
            self.last_signal == BandwidthUsage::Underusing && signal == BandwidthUsage::Normal;
        self.last_signal = signal;
        let cause = match (signal, self.loss_v2_estimate().map(|(_, s)| s)) {
            (BandwidthUsage::Overusing | BandwidthUsage::Underusing, _) => {
                BandwidthLimitedCause::DelayBasedLimitedDelayIncreased
            }
            // M150: no probes while increasing with padding either (`GetBandwidthLimitedCause`).
            (_, Some(LossBasedState::Decreasing | LossBasedState::IncreaseUsingPadding)) => {
                BandwidthLimitedCause::LossLimited
            }
            (_, Some(LossBasedState::Increasing)) => BandwidthLimitedCause::LossLimitedIncreasing,
            _ => BandwidthLimitedCause::DelayBasedLimited,
        };
        if let Some(p) = self.probes.as_mut() {
            self.clusters
                .extend(p.set_estimated_bitrate(now, target, cause));
            if recovered {
                self.clusters.extend(p.request_probe(now));
            }
        }
    }

    /// `ProbeController::Process`.
    pub fn process(&mut self, now: Timestamp) {
        if let Some(p) = self.probes.as_mut() {
            self.clusters.extend(p.process(now));
        }
    }

    /// The next probe cluster for the pacer.
    pub fn poll_cluster(&mut self) -> Option<ProbeCluster> {
        self.clusters.pop_front()
    }

    pub fn alr_start_time(&self) -> Option<Timestamp> {
        self.alr.as_ref().and_then(|a| a.alr_start_time())
    }
    pub fn probe_controller(&self) -> Option<&ProbeController> {
        self.probes.as_ref()
    }
}
