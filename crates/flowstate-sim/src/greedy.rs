//! A simple greedy window-based flow for tests and examples of feedback flows: the
//! sender keeps `cwnd` packets in flight; the receiver acks every packet, echoing its
//! send time. Optional Reno-like AIMD (+1 packet per window of acks, halve once per RTT
//! on loss). Loss is detected by sequence gaps (the simulator never reorders within a
//! flow) and by a retransmission-timeout-like timer. Nothing is retransmitted: this is
//! a load generator with feedback, not a transport.

use crate::flow::{EndpointPairFlow, ReceiverHooks, SenderHooks};
use flowstate_core::coupling::{Allowance, FlowReport};
use flowstate_core::endpoint::{Endpoint, Transmit};
use flowstate_core::{DataSize, TimeDelta, Timestamp};
use std::collections::VecDeque;

/// Parameters of the greedy test flow.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GreedyConfig {
    pub packet_size: DataSize,
    pub ack_size: DataSize,
    /// Initial (and, without AIMD, constant) window in packets.
    pub initial_cwnd: f64,
    /// Additive increase, multiplicative decrease.
    pub aimd: bool,
    /// Packets outstanding longer than this are declared lost.
    pub loss_timeout: TimeDelta,
}

impl Default for GreedyConfig {
    fn default() -> Self {
        Self {
            packet_size: DataSize::bytes(1500),
            ack_size: DataSize::bytes(40),
            initial_cwnd: 10.0,
            aimd: false,
            loss_timeout: TimeDelta::secs(1),
        }
    }
}

/// A data packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GreedyData {
    pub seq: u64,
    pub sent_at: Timestamp,
}

/// An acknowledgement of one data packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GreedyAck {
    pub seq: u64,
    pub echo: Timestamp,
}

/// The sender side.
#[derive(Debug, Clone)]
pub struct GreedySender {
    config: GreedyConfig,
    cwnd: f64,
    next_seq: u64,
    /// Outstanding packets: (seq, send time), in send order.
    outstanding: VecDeque<(u64, Timestamp)>,
    /// No further decrease before this sequence number is acked (one cut per RTT).
    recover: u64,
    rtt_sample: Option<TimeDelta>,
    report: Option<FlowReport>,
    /// Cap set by a coupling manager (packets).
    max_cwnd: Option<f64>,
    pub losses: u64,
}

impl GreedySender {
    pub fn new(config: GreedyConfig) -> Self {
        Self {
            cwnd: config.initial_cwnd.max(1.0),
            config,
            next_seq: 0,
            outstanding: VecDeque::new(),
            recover: 0,
            rtt_sample: None,
            report: None,
            max_cwnd: None,
            losses: 0,
        }
    }
    /// The window in force (cwnd, capped by the coupling manager's maximum).
    pub fn cwnd(&self) -> f64 {
        self.max_cwnd.map_or(self.cwnd, |m| self.cwnd.min(m))
    }
    fn on_loss(&mut self, n: u64, upto_seq: u64) {
        self.losses += n;
        if self.config.aimd && upto_seq >= self.recover {
            self.cwnd = (self.cwnd / 2.0).max(1.0);
            self.recover = self.next_seq;
            self.queue_report();
        }
    }
    fn queue_report(&mut self) {
        let mss = self.config.packet_size.as_bytes() as f64;
        self.report = Some(FlowReport::Window {
            cwnd: DataSize::bytes((self.cwnd * mss) as u64),
            rtt: self.rtt_sample,
            ssthresh: DataSize::MAX,
            desired_cwnd: None,
        });
    }
}

impl Endpoint for GreedySender {
    type Outgoing = GreedyData;
    type Incoming = GreedyAck;

    fn handle_input(&mut self, now: Timestamp, ack: GreedyAck) {
        // Everything sent before `ack.seq` and still outstanding was lost (no reordering).
        let mut lost = 0;
        while let Some(&(seq, _)) = self.outstanding.front() {
            if seq < ack.seq {
                self.outstanding.pop_front();
                lost += 1;
            } else {
                break;
            }
        }
        if lost > 0 {
            self.on_loss(lost, ack.seq);
        }
        if self.outstanding.front().is_some_and(|&(s, _)| s == ack.seq) {
            self.outstanding.pop_front();
            self.rtt_sample = Some(now.saturating_since(ack.echo));
            if self.config.aimd {
                self.cwnd += 1.0 / self.cwnd;
                self.queue_report();
            }
        }
    }

    fn poll_transmit(&mut self, now: Timestamp) -> Option<Transmit<GreedyData>> {
        if (self.outstanding.len() as f64) + 1.0 > self.cwnd() + 1e-9 {
            return None;
        }
        let seq = self.next_seq;
        self.next_seq += 1;
        self.outstanding.push_back((seq, now));
        Some(Transmit {
            size: self.config.packet_size,
            message: GreedyData { seq, sent_at: now },
        })
    }

    fn poll_timeout(&self) -> Option<Timestamp> {
        self.outstanding
            .front()
            .map(|&(_, t)| t + self.config.loss_timeout)
    }

    fn handle_timeout(&mut self, now: Timestamp) {
        let mut lost = 0;
        let mut upto = 0;
        while let Some(&(seq, t)) = self.outstanding.front() {
            if t + self.config.loss_timeout <= now {
                self.outstanding.pop_front();
                lost += 1;
                upto = seq;
            } else {
                break;
            }
        }
        if lost > 0 {
            self.on_loss(lost, upto);
        }
    }
}

impl SenderHooks for GreedySender {
    fn poll_cc_report(&mut self) -> Option<FlowReport> {
        self.report.take()
    }
    /// `Window` sets cwnd, `MaxWindow` caps it (rounded down to whole packets, at
    /// least one); `Rate` is ignored (this is a window flow).
    fn apply_allowance(&mut self, _now: Timestamp, allowance: Allowance) {
        let mss = self.config.packet_size.as_bytes().max(1) as f64;
        match allowance {
            Allowance::Window { cwnd, .. } => {
                self.cwnd = (cwnd.as_bytes() as f64 / mss).floor().max(1.0);
            }
            Allowance::MaxWindow(Some(max)) => {
                self.max_cwnd = Some((max.as_bytes() as f64 / mss).floor().max(1.0));
            }
            Allowance::MaxWindow(None) => self.max_cwnd = None,
            Allowance::Rate(_) => {}
        }
    }
    fn poll_rtt_sample(&mut self) -> Option<TimeDelta> {
        self.rtt_sample.take()
    }
}

/// The receiver side: one ack per data packet.
#[derive(Debug, Clone, Default)]
pub struct GreedyReceiver {
    ack_size: DataSize,
    pending: VecDeque<GreedyAck>,
    bytes: u64,
    packet_size: u64,
}

impl GreedyReceiver {
    pub fn new(config: GreedyConfig) -> Self {
        Self {
            ack_size: config.ack_size,
            pending: VecDeque::new(),
            bytes: 0,
            packet_size: config.packet_size.as_bytes(),
        }
    }
}

impl Endpoint for GreedyReceiver {
    type Outgoing = GreedyAck;
    type Incoming = GreedyData;

    fn handle_input(&mut self, _now: Timestamp, d: GreedyData) {
        self.bytes += self.packet_size;
        self.pending.push_back(GreedyAck {
            seq: d.seq,
            echo: d.sent_at,
        });
    }
    fn poll_transmit(&mut self, _now: Timestamp) -> Option<Transmit<GreedyAck>> {
        self.pending.pop_front().map(|a| Transmit {
            size: self.ack_size,
            message: a,
        })
    }
    fn poll_timeout(&self) -> Option<Timestamp> {
        None
    }
    fn handle_timeout(&mut self, _now: Timestamp) {}
}

impl ReceiverHooks for GreedyReceiver {
    fn goodput_bytes(&self) -> Option<u64> {
        Some(self.bytes)
    }
}

pub type GreedyFlow = EndpointPairFlow<GreedySender, GreedyReceiver>;

pub fn greedy_flow(config: GreedyConfig) -> GreedyFlow {
    EndpointPairFlow::new(GreedySender::new(config), GreedyReceiver::new(config))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_limits_outstanding_and_gap_means_loss() {
        let mut s = GreedySender::new(GreedyConfig {
            initial_cwnd: 4.0,
            aimd: true,
            ..GreedyConfig::default()
        });
        let t0 = Timestamp::ZERO;
        let mut n = 0;
        while s.poll_transmit(t0).is_some() {
            n += 1;
        }
        assert_eq!(n, 4);
        // Ack of seq 2 arrives: 0 and 1 are lost; window halves to 2.
        s.handle_input(Timestamp::from_millis(100), GreedyAck { seq: 2, echo: t0 });
        assert_eq!(s.losses, 2);
        assert!((s.cwnd() - 2.0 - 0.5).abs() < 1e-9, "halved then +1/cwnd");
        assert_eq!(s.poll_rtt_sample(), Some(TimeDelta::millis(100)));
        assert!(matches!(
            s.poll_cc_report(),
            Some(FlowReport::Window { .. })
        ));
    }
}
