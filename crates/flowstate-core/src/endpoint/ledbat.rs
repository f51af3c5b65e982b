//! A LEDBAT bulk transfer (RFC 6817): the TCP-like sender and receiver of
//! [`super::tcp`] (byte sequence numbers, cumulative acks, delayed acks, fast
//! retransmit, the RFC 6298 timer) driving a [`Ledbat`] window, plus what LEDBAT needs
//! beyond TCP: every data segment carries its send timestamp, and every ack carries the
//! one-way delays (receiver clock minus sender timestamp, RFC 6817 section 3.1) of the
//! segments received since the previous ack. The sender hands each delay to the
//! controller before the ack itself (`for each delay sample in the acknowledgement:
//! update_base_delay(delay); update_current_delay(delay)`, section 2.4.2). The two
//! clocks need not agree: a constant offset cancels in current - base delay.
//!
//! ECN: the TCP machinery's (RFC 3168 section 6.1: ECE / CWR on the segments and
//! acks, [`TcpSenderConfig::ecn`]); LEDBAT answers an ECE as data loss
//! ([`Ledbat`]'s `on_congestion_mark`, RFC 6817 section 2.4.2's loss rule).
//!
//! Coupling: a window flow (paper 003 lists LEDBAT among the FSE's flows; its reports
//! and allowances are the TCP sender's).

use super::tcp::{Segment, TcpAck, TcpReceiver, TcpReceiverConfig, TcpSender, TcpSenderConfig};
use super::{Controller, Endpoint, Transmit};
use crate::coupling::{Allowance, FlowReport};
use crate::ecn::Ecn;
use crate::units::{DataSize, TimeDelta, Timestamp};
use crate::window::{Ledbat, LedbatConfig};

/// IPv4 + TCP (40 B) + the timestamps option (12 B, RFC 7323) that carries the
/// sender's timestamp and, on acks, the delay.
pub const LEDBAT_HEADER: u64 = 52;

/// A data segment with the sender's timestamp.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LedbatSegment {
    pub segment: Segment,
    /// When the sender sent it (sender clock).
    pub timestamp: Timestamp,
}

/// An ack with the one-way delays of the segments it answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LedbatAck {
    pub ack: TcpAck,
    /// Receiver clock minus sender timestamp, per segment received since the previous ack.
    pub delays: Vec<TimeDelta>,
}

/// The LEDBAT sender configuration: a TCP sender with [`TcpCcKind::Ledbat`](super::tcp::TcpCcKind).
pub fn sender_config(ledbat: LedbatConfig) -> TcpSenderConfig {
    TcpSenderConfig {
        cc: super::tcp::TcpCcKind::Ledbat(ledbat),
        header_bytes: LEDBAT_HEADER,
        ..TcpSenderConfig::default()
    }
}

/// The receive window of a LEDBAT receiver: 1 MiB, libutp's maximum window (uTP,
/// BEP 29, is the wire format of LEDBAT on the testbed).
pub const LEDBAT_RWND: DataSize = DataSize::bytes(1 << 20);

/// The receiver configuration (delayed acks as TCP; header with the timestamp option;
/// receive window [`LEDBAT_RWND`]).
pub fn receiver_config() -> TcpReceiverConfig {
    TcpReceiverConfig {
        header_bytes: LEDBAT_HEADER,
        rwnd: LEDBAT_RWND,
        ..TcpReceiverConfig::default()
    }
}

/// The sending side of a LEDBAT flow.
#[derive(Debug, Clone)]
pub struct LedbatSender {
    tcp: TcpSender,
}

impl LedbatSender {
    /// `config.cc` must be [`TcpCcKind::Ledbat`](super::tcp::TcpCcKind) (see
    /// [`sender_config`]); with another controller the delays are ignored.
    pub fn new(config: TcpSenderConfig) -> Self {
        LedbatSender {
            tcp: TcpSender::new(config),
        }
    }
    /// The TCP machinery (statistics, RTT estimator, window, coupling reports).
    pub fn tcp(&self) -> &TcpSender {
        &self.tcp
    }
    pub fn tcp_mut(&mut self) -> &mut TcpSender {
        &mut self.tcp
    }
    /// The LEDBAT controller.
    pub fn ledbat(&self) -> Option<&Ledbat> {
        self.tcp.congestion_control().ledbat()
    }
    /// LEDBAT's queuing-delay estimate (current minus base delay).
    pub fn queuing_delay(&self) -> Option<TimeDelta> {
        self.ledbat().and_then(Ledbat::queuing_delay)
    }
}

/// LEDBAT couples as a window flow, through the TCP sender underneath.
impl Controller for LedbatSender {
    /// The TCP sender underneath.
    const INPUT_DRIVEN: bool = true;

    fn poll_cc_report(&mut self) -> Option<FlowReport> {
        self.tcp.poll_cc_report()
    }

    fn apply_allowance(&mut self, now: Timestamp, allowance: Allowance) {
        self.tcp.apply_allowance(now, allowance);
    }

    fn snapshot(&self) -> FlowReport {
        self.tcp.snapshot()
    }

    fn latest_rtt(&self) -> Option<TimeDelta> {
        self.tcp.latest_rtt()
    }

    /// Every RTT sample counts: a LEDBAT flow holding its queue at TARGET sees the same
    /// RTT to the microsecond on every ack.
    fn rtt_samples(&self) -> Option<u64> {
        Some(self.tcp.rtt_estimator().samples())
    }

    fn ecn_codepoint(&self) -> Ecn {
        self.tcp.ecn_codepoint()
    }

    fn ecn_responses(&self) -> Option<u64> {
        self.tcp.ecn_responses()
    }
}

impl Endpoint for LedbatSender {
    type Outgoing = LedbatSegment;
    type Incoming = LedbatAck;

    fn handle_input(&mut self, now: Timestamp, msg: LedbatAck) {
        if let Some(l) = self.tcp.congestion_control_mut().ledbat_mut() {
            for &d in &msg.delays {
                l.on_delay_sample(now, d);
            }
        }
        self.tcp.handle_input(now, msg.ack);
    }

    fn poll_transmit(&mut self, now: Timestamp) -> Option<Transmit<LedbatSegment>> {
        self.tcp.poll_transmit(now).map(|t| Transmit {
            size: t.size,
            message: LedbatSegment {
                segment: t.message,
                timestamp: now,
            },
        })
    }

    fn poll_timeout(&self) -> Option<Timestamp> {
        self.tcp.poll_timeout()
    }

    fn handle_timeout(&mut self, now: Timestamp) {
        self.tcp.handle_timeout(now);
    }
}

/// The receiving side of a LEDBAT flow.
#[derive(Debug, Clone)]
pub struct LedbatReceiver {
    tcp: TcpReceiver,
    delays: Vec<TimeDelta>,
}

impl LedbatReceiver {
    pub fn new(config: TcpReceiverConfig) -> Self {
        LedbatReceiver {
            tcp: TcpReceiver::new(config),
            delays: Vec::new(),
        }
    }
    pub fn tcp(&self) -> &TcpReceiver {
        &self.tcp
    }
    pub fn bytes_delivered(&self) -> DataSize {
        self.tcp.bytes_delivered()
    }
}

impl Endpoint for LedbatReceiver {
    type Outgoing = LedbatAck;
    type Incoming = LedbatSegment;

    fn handle_input(&mut self, now: Timestamp, msg: LedbatSegment) {
        self.handle_input_ecn(now, msg, Ecn::NotEct);
    }

    fn handle_input_ecn(&mut self, now: Timestamp, msg: LedbatSegment, ecn: Ecn) {
        self.delays.push(now - msg.timestamp);
        self.tcp.handle_input_ecn(now, msg.segment, ecn);
    }

    fn poll_transmit(&mut self, now: Timestamp) -> Option<Transmit<LedbatAck>> {
        self.tcp.poll_transmit(now).map(|t| Transmit {
            size: t.size,
            message: LedbatAck {
                ack: t.message,
                delays: std::mem::take(&mut self.delays),
            },
        })
    }

    fn poll_timeout(&self) -> Option<Timestamp> {
        self.tcp.poll_timeout()
    }

    fn handle_timeout(&mut self, now: Timestamp) {
        self.tcp.handle_timeout(now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::window::WindowController;

    #[test]
    fn delays_travel_from_segments_to_acks_into_the_controller() {
        let mut s = LedbatSender::new(sender_config(LedbatConfig::default()));
        let mut r = LedbatReceiver::new(receiver_config());
        let t0 = Timestamp::from_millis(0);
        let mut segs = vec![];
        while let Some(t) = s.poll_transmit(t0) {
            assert_eq!(
                t.size.as_bytes(),
                t.message.segment.len as u64 + LEDBAT_HEADER
            );
            segs.push(t.message);
        }
        // INIT_CWND = 2 MSS.
        assert_eq!(segs.len(), 2);
        // Clock offset: the receiver's clock is 5 s ahead; one-way delay 30 ms.
        let arrive = Timestamp::from_millis(5030);
        for seg in segs {
            r.handle_input(arrive, seg);
        }
        let ack = r
            .poll_transmit(arrive)
            .expect("an ack for two segments")
            .message;
        assert_eq!(ack.delays, vec![TimeDelta::millis(5030); 2]);
        s.handle_input(Timestamp::from_millis(60), ack);
        assert_eq!(s.queuing_delay(), Some(TimeDelta::ZERO));
        // The window grew by GAIN * off_target (1) * acked * MSS / cwnd = 1 MSS, then
        // capped at flight + ALLOWED_INCREASE MSS = 3 MSS.
        let cwnd = s.tcp().congestion_control().cwnd();
        assert_eq!(cwnd, DataSize::bytes(3 * 1460));
    }
}
