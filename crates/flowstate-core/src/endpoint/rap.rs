//! Sans-I/O RAP endpoints (rate controller in [`crate::rate::rap`]).
//!
//! - [`RapSender`] sends [`RapData`] packets of `packet_size` bytes spaced by the
//!   inter-packet gap, keeps the transmission history, detects losses from ack gaps and
//!   timeouts, and runs RAP's increase step every SRTT.
//! - [`RapReceiver`] acknowledges every data packet with a [`RapAck`] naming it, echoing
//!   its send time and carrying a 64-packet history of what arrived before it.
//!
//! ECN: a sender made ECN-capable ([`RapSender::with_ecn`]) sends ECT; the receiver's
//! ack says whether the packet it acknowledges arrived CE-marked ([`RapAck::ce`]), and
//! the sender takes a marked packet as a lost one (RAP's back-off, once per loss
//! cluster), without retransmission (RAP never retransmits).
//!
//! Coupling: [`RapSender::poll_cc_report`] yields a `FlowReport::Rate` after every rate
//! change; [`RapSender::apply_allowance`] with `Allowance::Rate(r)` sets the rate
//! (inter-packet gap `s / r`).

use crate::coupling::{Allowance, FlowReport};
use crate::ecn::Ecn;
use crate::endpoint::paced::{paced_rate_controller, paced_rate_sender, PacedSending};
use crate::endpoint::{Endpoint, Transmit};
use crate::rate::rap::{RapConfig, RapController};
use crate::rate::rap_history::{LossReport, RapTxHistory};
use crate::units::{Bitrate, DataSize, Timestamp};
use std::collections::VecDeque;

/// A RAP data packet's header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RapData {
    pub seq: u64,
    /// Sender's clock at transmission (echoed in the ack for the RTT sample).
    pub send_time: Timestamp,
}

/// A RAP acknowledgement: one per data packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RapAck {
    /// The data packet acknowledged (RAP's `A_curr`).
    pub seq: u64,
    /// Its `send_time`.
    pub echo_send_time: Timestamp,
    /// Bit `i` set: packet `seq - 1 - i` was received too.
    pub history: u64,
    /// The packet acknowledged arrived CE-marked.
    pub ce: bool,
}

/// RAP sender endpoint.
#[derive(Debug, Clone)]
pub struct RapSender {
    ctl: RapController,
    history: RapTxHistory,
    sending: PacedSending,
    packets_lost: u64,
    ecn_responses: u64,
}

impl RapSender {
    /// A greedy sender.
    pub fn new(cfg: RapConfig) -> Self {
        let history = RapTxHistory::new(cfg.ndupack, cfg.max_history);
        RapSender {
            ctl: RapController::new(cfg),
            history,
            sending: PacedSending::default(),
            packets_lost: 0,
            ecn_responses: 0,
        }
    }

    paced_rate_sender!(RapController, size: packet_size);

    /// Packets declared lost (ack gaps and timeouts).
    pub fn packets_lost(&self) -> u64 {
        self.packets_lost
    }

    /// Back-offs a CE mark caused.
    fn ecn_response_count(&self) -> Option<u64> {
        self.sending
            .ecn()
            .is_ecn_capable()
            .then_some(self.ecn_responses)
    }

    fn on_loss(&mut self, now: Timestamp, rep: LossReport) {
        self.packets_lost = self.packets_lost.saturating_add(rep.newly_lost);
        if let Some(max) = rep.max_lost_seq {
            self.ctl.on_loss(now, max, self.sending.highest_sent());
        }
    }
}

paced_rate_controller!(RapSender, rtt: srtt_sample);

impl Endpoint for RapSender {
    type Outgoing = RapData;
    type Incoming = RapAck;

    fn handle_input(&mut self, now: Timestamp, ack: RapAck) {
        let out = self.history.on_ack(now, ack.seq, ack.history);
        if let Some(rtt) = out.rtt_sample {
            self.ctl.on_rtt_sample(rtt);
        }
        self.on_loss(now, out.loss);
        if ack.ce && self.sending.ecn().is_ecn_capable() {
            // A marked packet is a lost one for the rate (RAP's decrease, clusters
            // included), but it arrived: nothing is counted lost.
            if self.ctl.on_loss(now, ack.seq, self.sending.highest_sent()) {
                self.ecn_responses += 1;
            }
        }
    }

    fn poll_transmit(&mut self, now: Timestamp) -> Option<Transmit<RapData>> {
        let size = self.size();
        let seq = self.sending.send_if_due(now, size, self.ctl.rate())?;
        let rep = self.history.on_sent(seq, now);
        self.on_loss(now, rep);
        self.ctl.on_first_send(now);
        Some(Transmit {
            size,
            message: RapData {
                seq,
                send_time: now,
            },
        })
    }

    fn poll_timeout(&self) -> Option<Timestamp> {
        let send = self.sending.next_send(self.size(), self.ctl.rate());
        let loss = self.history.next_timeout(self.ctl.loss_timeout());
        super::earliest([send, self.ctl.next_step(), loss])
    }

    fn handle_timeout(&mut self, now: Timestamp) {
        self.ctl.on_timer(now);
        let rep = self.history.check_timeouts(now, self.ctl.loss_timeout());
        self.on_loss(now, rep);
    }
}

/// RAP receiver constants.
#[derive(Debug, Clone, PartialEq)]
pub struct RapReceiverConfig {
    /// Wire size of an ack (IP + UDP + RAP header).
    pub ack_size: DataSize,
    /// Acks queued at most (older ones are dropped if the driver does not poll).
    pub max_pending_acks: usize,
}

impl Default for RapReceiverConfig {
    fn default() -> Self {
        RapReceiverConfig {
            ack_size: DataSize::bytes(40),
            max_pending_acks: 10_000,
        }
    }
}

/// RAP receiver endpoint: acknowledges every packet.
#[derive(Debug, Clone)]
pub struct RapReceiver {
    cfg: RapReceiverConfig,
    highest: Option<u64>,
    /// Bit `d` set: packet `highest - d` arrived.
    window: u128,
    pending: VecDeque<RapAck>,
    packets_received: u64,
}

impl RapReceiver {
    pub fn new(cfg: RapReceiverConfig) -> Self {
        RapReceiver {
            cfg,
            highest: None,
            window: 0,
            pending: VecDeque::new(),
            packets_received: 0,
        }
    }

    pub fn packets_received(&self) -> u64 {
        self.packets_received
    }

    /// Bit `i` set: packet `seq - 1 - i` arrived (`received`), as one shift of the
    /// window: packet `seq - 1 - i` is window bit `highest - seq + 1 + i`.
    fn history_before(&self, seq: u64) -> u64 {
        let Some(h) = self.highest else { return 0 };
        let bits = if seq <= h {
            match h - seq + 1 {
                d if d >= 128 => 0,
                d => (self.window >> d) as u64,
            }
        } else {
            // (Not after an arrival, which makes `seq <= highest`.)
            match seq - 1 - h {
                k if k >= 64 => 0,
                k => (self.window << k) as u64,
            }
        };
        // Only packets >= 0 exist.
        if seq < 64 {
            bits & ((1u64 << seq) - 1)
        } else {
            bits
        }
    }

    #[cfg(test)]
    fn received(&self, seq: u64) -> bool {
        let Some(h) = self.highest else { return false };
        match h.checked_sub(seq) {
            Some(d) if d < 128 => self.window & (1u128 << d) != 0,
            _ => false,
        }
    }
}

impl Endpoint for RapReceiver {
    type Outgoing = RapAck;
    type Incoming = RapData;

    fn handle_input(&mut self, now: Timestamp, data: RapData) {
        self.handle_input_ecn(now, data, Ecn::NotEct);
    }

    fn handle_input_ecn(&mut self, _now: Timestamp, data: RapData, ecn: Ecn) {
        self.packets_received = self.packets_received.saturating_add(1);
        match self.highest {
            None => {
                self.highest = Some(data.seq);
                self.window = 1;
            }
            Some(h) if data.seq > h => {
                let shift = data.seq - h;
                self.window = if shift >= 128 {
                    0
                } else {
                    self.window << shift
                };
                self.window |= 1;
                self.highest = Some(data.seq);
            }
            Some(h) => {
                let d = h - data.seq;
                if d < 128 {
                    self.window |= 1u128 << d;
                }
            }
        }
        let history = self.history_before(data.seq);
        self.pending.push_back(RapAck {
            seq: data.seq,
            echo_send_time: data.send_time,
            history,
            ce: ecn.is_ce(),
        });
        while self.pending.len() > self.cfg.max_pending_acks.max(1) {
            self.pending.pop_front();
        }
    }

    fn poll_transmit(&mut self, _now: Timestamp) -> Option<Transmit<RapAck>> {
        let ack = self.pending.pop_front()?;
        Some(Transmit {
            size: self.cfg.ack_size,
            message: ack,
        })
    }

    fn poll_timeout(&self) -> Option<Timestamp> {
        None
    }

    fn handle_timeout(&mut self, _now: Timestamp) {}
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::endpoint::Controller;
    use crate::testing::ms;
    use crate::units::TimeDelta;
    use proptest::prelude::*;

    proptest! {
        /// The shifted window equals the 64 lookups it replaces, after any arrivals
        /// (reordered, duplicated, far ahead).
        #[test]
        fn history_is_the_64_lookups(arrivals in proptest::collection::vec(0u64..400, 1..60), probe in 0u64..500) {
            let mut r = RapReceiver::new(RapReceiverConfig::default());
            for s in arrivals {
                r.handle_input(ms(0), RapData { seq: s, send_time: ms(0) });
                for seq in [s, probe, s + 1, s.saturating_sub(130)] {
                    let mut want = 0u64;
                    for i in 0..64u64 {
                        if let Some(x) = seq.checked_sub(1 + i) {
                            if r.received(x) {
                                want |= 1 << i;
                            }
                        }
                    }
                    prop_assert_eq!(r.history_before(seq), want);
                }
            }
        }
    }

    #[test]
    fn receiver_acks_with_history() {
        let mut r = RapReceiver::new(RapReceiverConfig::default());
        for s in [0u64, 1, 3, 4] {
            r.handle_input(
                ms(s),
                RapData {
                    seq: s,
                    send_time: ms(s),
                },
            );
        }
        let acks: Vec<RapAck> =
            std::iter::from_fn(|| r.poll_transmit(ms(10)).map(|t| t.message)).collect();
        assert_eq!(acks.len(), 4);
        // ack for 4: 3 received (bit 0), 2 missing (bit 1), 1 and 0 received (bits 2, 3)
        assert_eq!(acks[3].seq, 4);
        assert_eq!(acks[3].history, 0b1101);
        assert_eq!(acks[3].echo_send_time, ms(4));
    }

    #[test]
    fn sender_paces_and_backs_off_on_gap() {
        let mut s = RapSender::new(RapConfig {
            initial_rate: Bitrate::mbps(8.0), // 1000 B every 1 ms
            ..RapConfig::default()
        });
        let mut sent = Vec::new();
        for t in 0..10u64 {
            while let Some(tx) = s.poll_transmit(ms(t)) {
                sent.push(tx.message);
            }
        }
        assert_eq!(sent.len(), 10);
        assert_eq!(s.poll_timeout(), Some(ms(10)));
        // acks for 0, 2, 3, 4 (1 lost) 50 ms later
        let mut r = RapReceiver::new(RapReceiverConfig::default());
        for d in sent.iter().filter(|d| d.seq != 1) {
            r.handle_input(ms(50), *d);
        }
        let _ = s.poll_cc_report();
        while let Some(a) = r.poll_transmit(ms(50)) {
            s.handle_input(ms(50 + a.message.seq), a.message);
        }
        assert_eq!(s.packets_lost(), 1);
        assert!((s.rate().as_bps() - 4e6).abs() < 1e-6);
        match s.poll_cc_report() {
            Some(FlowReport::Rate { rate, rtt }) => {
                assert!((rate.as_bps() - 4e6).abs() < 1e-6);
                assert!(rtt.is_some());
            }
            other => panic!("expected a rate report, got {other:?}"),
        }
        s.apply_allowance(ms(60), Allowance::Rate(Bitrate::mbps(2.0)));
        assert_eq!(s.rate(), Bitrate::mbps(2.0));
        assert_eq!(s.controller().ipg(), TimeDelta::millis(4));
    }

    #[test]
    fn desired_rate_limits_sending() {
        let mut s = RapSender::new(RapConfig {
            initial_rate: Bitrate::mbps(8.0),
            ..RapConfig::default()
        });
        s.set_desired_rate(Some(Bitrate::mbps(0.8))); // 1 packet / 10 ms
        let mut n = 0;
        for t in 0..100u64 {
            while s.poll_transmit(ms(t)).is_some() {
                n += 1;
            }
        }
        assert_eq!(n, 10);
        s.set_desired_rate(Some(Bitrate::ZERO));
        assert!(s.poll_transmit(ms(1000)).is_none());
    }

    proptest! {
        #[test]
        fn random_acks_never_break_sender(
            ops in proptest::collection::vec((0u8..3, 0u64..20_000, 0u64..300, any::<u64>()), 0..300),
        ) {
            let mut s = RapSender::new(RapConfig::default());
            let mut now = 0u64;
            for (op, dt, seq, hist) in ops {
                now += dt;
                let n = Timestamp::from_micros(now);
                match op {
                    0 => { while s.poll_transmit(n).is_some() {} }
                    1 => s.handle_input(n, RapAck { seq, echo_send_time: n, history: hist, ce: false }),
                    _ => s.handle_timeout(n),
                }
                let r = s.rate().as_bps();
                prop_assert!(r.is_finite() && r >= s.controller().config().min_rate.as_bps());
                if let Some(t) = s.poll_timeout() { prop_assert!(t >= Timestamp::ZERO); }
            }
        }
    }
}
