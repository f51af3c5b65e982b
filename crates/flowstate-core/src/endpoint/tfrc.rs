//! Sans-I/O TFRC endpoints (RFC 5348; controllers in [`crate::rate::tfrc`] and
//! [`crate::rate::tfrc_receiver`]).
//!
//! - [`TfrcSender`] sends [`TfrcData`] packets of `s` bytes at the allowed rate `X`
//!   (4.6: inter-packet interval `s / X`), each carrying a sequence number, a timestamp
//!   and the sender's RTT estimate (RFC 5348, 3.2.1), and processes [`TfrcFeedback`].
//! - [`TfrcReceiver`] sends feedback once per RTT and on every new loss event (6).
//!
//! ECN: a sender made ECN-capable ([`TfrcSender::with_ecn`]) sends ECT; the receiver
//! counts a CE-marked packet as a lost one in the loss event rate p (RFC 5348, 5.1),
//! which the equation then answers. No packet is retransmitted (TFRC never does).
//!
//! Coupling: [`TfrcSender::poll_cc_report`] yields a `FlowReport::Rate` after every
//! recomputation of `X`; [`TfrcSender::apply_allowance`] with `Allowance::Rate(r)` sets
//! `X = r` (clamped to `[s/t_mbi, max_rate]`); the next feedback recomputes `X` from the
//! equation as usual.

use crate::coupling::{Allowance, FlowReport};
use crate::ecn::Ecn;
use crate::endpoint::paced::{paced_rate_controller, paced_rate_sender, PacedSending};
use crate::endpoint::{Endpoint, Transmit};
use crate::rate::tfrc::{TfrcConfig, TfrcController};
use crate::rate::tfrc_receiver::{TfrcReceiverConfig, TfrcReceiverState};
use crate::units::{Bitrate, DataSize, TimeDelta, Timestamp};

/// TFRC feedback (RFC 5348, 6.2): timestamp echo, `t_delay`, `X_recv`, `p`.
pub use crate::rate::tfrc::Feedback as TfrcFeedback;

/// A TFRC data packet's header (RFC 5348, 3.2.1).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TfrcData {
    pub seq: u64,
    /// Sender's clock at transmission.
    pub timestamp: Timestamp,
    /// The sender's current RTT estimate (`None` before the first feedback).
    pub rtt: Option<TimeDelta>,
    /// This packet's wire size (the receiver's `X_recv` counts it).
    pub size: DataSize,
}

/// TFRC sender endpoint.
#[derive(Debug, Clone)]
pub struct TfrcSender {
    ctl: TfrcController,
    sending: PacedSending,
}

impl TfrcSender {
    /// A greedy sender.
    pub fn new(cfg: TfrcConfig) -> Self {
        TfrcSender {
            ctl: TfrcController::new(cfg),
            sending: PacedSending::default(),
        }
    }

    paced_rate_sender!(TfrcController, size: segment_size);

    /// TFRC's answer to marks is its loss event rate, computed at the receiver: no
    /// discrete response to count.
    fn ecn_response_count(&self) -> Option<u64> {
        None
    }
}

paced_rate_controller!(TfrcSender, rtt: rtt);

impl Endpoint for TfrcSender {
    type Outgoing = TfrcData;
    type Incoming = TfrcFeedback;

    fn handle_input(&mut self, now: Timestamp, fb: TfrcFeedback) {
        self.ctl.on_feedback(now, fb);
    }

    fn poll_transmit(&mut self, now: Timestamp) -> Option<Transmit<TfrcData>> {
        let size = self.size();
        let seq = self.sending.send_if_due(now, size, self.ctl.rate())?;
        let app_limited = self.sending.app_limited(self.ctl.rate());
        self.ctl.on_packet_sent(now, app_limited);
        Some(Transmit {
            size,
            message: TfrcData {
                seq,
                timestamp: now,
                rtt: self.ctl.rtt(),
                size,
            },
        })
    }

    fn poll_timeout(&self) -> Option<Timestamp> {
        let send = self.sending.next_send(self.size(), self.ctl.rate());
        super::earliest([send, self.ctl.nofeedback_deadline()])
    }

    fn handle_timeout(&mut self, now: Timestamp) {
        self.ctl.on_nofeedback_timer(now);
    }
}

/// TFRC receiver endpoint constants.
#[derive(Debug, Clone, PartialEq)]
pub struct TfrcReceiverEndpointConfig {
    pub state: TfrcReceiverConfig,
    /// Wire size of a feedback packet.
    pub feedback_size: DataSize,
}

impl Default for TfrcReceiverEndpointConfig {
    fn default() -> Self {
        TfrcReceiverEndpointConfig {
            state: TfrcReceiverConfig::default(),
            feedback_size: DataSize::bytes(40),
        }
    }
}

/// TFRC receiver endpoint.
#[derive(Debug, Clone)]
pub struct TfrcReceiver {
    state: TfrcReceiverState,
    feedback_size: DataSize,
}

impl TfrcReceiver {
    pub fn new(cfg: TfrcReceiverEndpointConfig) -> Self {
        TfrcReceiver {
            state: TfrcReceiverState::new(cfg.state),
            feedback_size: cfg.feedback_size,
        }
    }

    pub fn state(&self) -> &TfrcReceiverState {
        &self.state
    }

    /// The current loss event rate p.
    pub fn loss_event_rate(&self) -> f64 {
        self.state.loss_event_rate()
    }
}

impl Endpoint for TfrcReceiver {
    type Outgoing = TfrcFeedback;
    type Incoming = TfrcData;

    fn handle_input(&mut self, now: Timestamp, d: TfrcData) {
        self.handle_input_ecn(now, d, Ecn::NotEct);
    }

    fn handle_input_ecn(&mut self, now: Timestamp, d: TfrcData, ecn: Ecn) {
        self.state
            .on_data_ecn(now, d.seq, d.timestamp, d.rtt, d.size, ecn.is_ce());
    }

    fn poll_transmit(&mut self, now: Timestamp) -> Option<Transmit<TfrcFeedback>> {
        let fb = self.state.poll_feedback(now)?;
        Some(Transmit {
            size: self.feedback_size,
            message: fb,
        })
    }

    fn poll_timeout(&self) -> Option<Timestamp> {
        self.state.next_deadline()
    }

    fn handle_timeout(&mut self, now: Timestamp) {
        self.state.on_timer(now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::endpoint::Controller;
    use crate::testing::ms;
    use proptest::prelude::*;

    #[test]
    fn handshake_sets_initial_rate_and_reports() {
        let mut s = TfrcSender::new(TfrcConfig::default());
        let mut r = TfrcReceiver::new(TfrcReceiverEndpointConfig::default());
        let d = s.poll_transmit(ms(0)).unwrap();
        assert_eq!(d.size, DataSize::bytes(1000));
        assert!(s.poll_transmit(ms(1)).is_none()); // 1 packet per second
        assert_eq!(s.poll_timeout(), Some(ms(1000)));
        r.handle_input(ms(50), d.message);
        let fb = r.poll_transmit(ms(50)).unwrap().message;
        assert_eq!(fb.p, 0.0);
        let _ = s.poll_cc_report();
        s.handle_input(ms(100), fb);
        // R = 100 ms, X = W_init/R = 4000 B / 0.1 s = 320 kbit/s
        match s.poll_cc_report() {
            Some(FlowReport::Rate { rate, rtt }) => {
                assert!((rate.as_bps() - 320_000.0).abs() < 1e-6);
                assert_eq!(rtt, Some(TimeDelta::millis(100)));
            }
            other => panic!("expected a rate report, got {other:?}"),
        }
        s.apply_allowance(ms(100), Allowance::Rate(Bitrate::mbps(1.0)));
        assert_eq!(s.rate(), Bitrate::mbps(1.0));
        assert!(s.poll_cc_report().is_none());
    }

    proptest! {
        #[test]
        fn random_feedback_never_breaks_sender(
            ops in proptest::collection::vec((0u8..3, 0u64..50_000, 0.0f64..1e8, -1.0f64..2.0), 0..200),
        ) {
            let mut s = TfrcSender::new(TfrcConfig::default());
            let mut now = 0u64;
            for (op, dt, x, p) in ops {
                now += dt;
                let n = Timestamp::from_micros(now);
                match op {
                    0 => { while s.poll_transmit(n).is_some() {} }
                    1 => s.handle_input(n, TfrcFeedback {
                        timestamp_echo: Timestamp::from_micros(now / 2),
                        t_delay: TimeDelta::from_micros(dt as i64 / 3),
                        x_recv: Bitrate::bps(x),
                        p,
                    }),
                    _ => s.handle_timeout(n),
                }
                let r = s.rate().as_bps();
                prop_assert!(r.is_finite() && r > 0.0);
            }
        }
    }
}
