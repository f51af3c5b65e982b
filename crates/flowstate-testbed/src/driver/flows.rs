//! The flows as the loops hold them: per flow kind, the sender and receiver endpoints
//! and what their datagrams are (RTP, RTCP, SCTP, uTP), built in one place
//! ([`flow_endpoints`]); an SCTP flow's association state.

use super::arrivals::Arrivals;
use super::error::TestbedError;
use crate::codec::{self, CcfbDecoder, Class, FeedbackDecoder, FeedbackEncoder, SctpMessage};
use flowstate_core::coupling::FlowReport;
use flowstate_core::endpoint::ledbat::{LedbatReceiver, LedbatSender};
use flowstate_core::endpoint::media::{MediaReceiver, MediaSender};
use flowstate_core::endpoint::nada::NadaSender;
use flowstate_core::endpoint::rfc8888::CcfbReceiver;
use flowstate_core::endpoint::scream::ScreamSender;
use flowstate_core::endpoint::sctp::{SctpReceiver, SctpSender};
use flowstate_core::endpoint::Endpoint;
use flowstate_core::{DataSize, Timestamp};
use flowstate_sim::endpoints::{
    gcc_flow, ledbat_flow, nada_flow, scream_flow, sctp_flow, FlowContext, Tracked,
};
use flowstate_sim::engine::FlowSetup;
use flowstate_sim::flow::{FlowState, SenderHooks};
use flowstate_sim::scenario::FlowSpec;

use super::timing::earliest;

/// Where an SCTP flow's association is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Assoc {
    Closed,
    InitSent,
    CookieEchoed,
    Established,
    ShutdownSent,
    Done,
}

impl Assoc {
    /// The handshake chunk resent when the handshake timer fires in this state (none
    /// outside the handshake).
    pub(super) fn handshake_message(self) -> Option<SctpMessage> {
        match self {
            Assoc::InitSent => Some(SctpMessage::Init),
            Assoc::CookieEchoed => Some(SctpMessage::CookieEcho),
            _ => None,
        }
    }
}

/// A flow's sender endpoint, with what its feedback needs to decode.
pub(super) enum TxKind {
    Gcc(Box<Tracked<MediaSender>>, FeedbackDecoder),
    Sctp(Box<Tracked<SctpSender>>),
    /// NADA and SCReAM media with RFC 8888 feedback.
    Nada(Box<Tracked<NadaSender>>, CcfbDecoder),
    Scream(Box<Tracked<ScreamSender>>, CcfbDecoder),
    /// LEDBAT over uTP; the count of data packets sent (the receiver's loss count) and
    /// the ack decoder.
    Ledbat(Box<Tracked<LedbatSender>>, u64, codec::LedbatAckDecoder),
}

impl TxKind {
    /// The sender endpoint's next timer.
    pub(super) fn sender_timeout(&self) -> Option<Timestamp> {
        match self {
            TxKind::Gcc(s, _) => s.poll_timeout(),
            TxKind::Sctp(s) => s.poll_timeout(),
            TxKind::Nada(s, _) => s.poll_timeout(),
            TxKind::Scream(s, _) => s.poll_timeout(),
            TxKind::Ledbat(s, ..) => s.poll_timeout(),
        }
    }
    /// The controller's reductions for CE marks so far (`None`: no discrete response).
    pub(super) fn ecn_responses(&self) -> Option<u64> {
        match self {
            TxKind::Gcc(s, _) => s.ecn_responses(),
            TxKind::Sctp(s) => s.ecn_responses(),
            TxKind::Nada(s, _) => s.ecn_responses(),
            TxKind::Scream(s, _) => s.ecn_responses(),
            TxKind::Ledbat(s, ..) => s.ecn_responses(),
        }
    }
    pub(super) fn cc_snapshot(&self) -> Option<FlowReport> {
        match self {
            TxKind::Gcc(s, _) => s.cc_snapshot(),
            TxKind::Sctp(s) => s.cc_snapshot(),
            TxKind::Nada(s, _) => s.cc_snapshot(),
            TxKind::Scream(s, _) => s.cc_snapshot(),
            TxKind::Ledbat(s, ..) => s.cc_snapshot(),
        }
    }
    /// The next datagram the sender of flow `i` sends at `now`: the endpoint's size on
    /// the wire, the datagram's class and its bytes.
    pub(super) fn poll_datagram(
        &mut self,
        i: usize,
        now: Timestamp,
    ) -> Option<(DataSize, Class, Vec<u8>)> {
        match self {
            TxKind::Gcc(s, _) => s
                .poll_transmit(now)
                .map(|t| (t.size, Class::Rtp, codec::encode_rtp(&t.message))),
            TxKind::Sctp(s) => s
                .poll_transmit(now)
                .map(|t| (t.size, Class::Sctp, codec::encode_data(i, &t.message, now))),
            TxKind::Nada(s, _) => s
                .poll_transmit(now)
                .map(|t| (t.size, Class::Rtp, codec::encode_rtp(&t.message))),
            TxKind::Scream(s, _) => s
                .poll_transmit(now)
                .map(|t| (t.size, Class::Rtp, codec::encode_rtp(&t.message))),
            TxKind::Ledbat(s, packets, _) => s.poll_transmit(now).map(|t| {
                *packets += 1;
                let b = codec::encode_ledbat_segment(i, &t.message, *packets - 1);
                (t.size, Class::Utp, b)
            }),
        }
    }
}

/// One flow at the sender.
pub(super) struct TxFlow {
    pub(super) setup: FlowSetup,
    pub(super) kind: TxKind,
    pub(super) state: FlowState,
    pub(super) assoc: Assoc,
    pub(super) handshake_at: Option<Timestamp>,
    /// The sender sent an ECN-capable data datagram (the summary's ECN counts then
    /// apply, as the simulator's).
    pub(super) ect_sent: bool,
}

/// Dispatch over the sender kinds (same hooks, different message types).
macro_rules! with_sender {
    ($flow:expr, $s:ident => $e:expr) => {
        match &mut $flow.kind {
            TxKind::Gcc($s, _) => $e,
            TxKind::Sctp($s) => $e,
            TxKind::Nada($s, _) => $e,
            TxKind::Scream($s, _) => $e,
            TxKind::Ledbat($s, ..) => $e,
        }
    };
}
pub(super) use with_sender;

impl TxFlow {
    /// The endpoint runs: the flow is active (and an SCTP association is up).
    pub(super) fn runs(&self) -> bool {
        self.state == FlowState::Active
            && match self.kind {
                TxKind::Gcc(..) | TxKind::Nada(..) | TxKind::Scream(..) | TxKind::Ledbat(..) => {
                    true
                }
                TxKind::Sctp(_) => self.assoc == Assoc::Established,
            }
    }

    pub(super) fn poll_timeout(&self) -> Option<Timestamp> {
        let t = if self.runs() {
            self.kind.sender_timeout()
        } else {
            None
        };
        earliest(t, self.handshake_at)
    }
}

/// A flow's receiver endpoint, with what its feedback needs to encode.
pub(super) enum RxKind {
    Gcc(Box<MediaReceiver>, FeedbackEncoder),
    Sctp(Box<SctpReceiver>),
    /// The RFC 8888 receiver of NADA and SCReAM media.
    Ccfb(Box<CcfbReceiver>),
    Ledbat(Box<LedbatReceiver>),
}

impl RxKind {
    pub(super) fn poll_timeout(&self) -> Option<Timestamp> {
        match self {
            RxKind::Gcc(r, _) => r.poll_timeout(),
            RxKind::Sctp(r) => r.poll_timeout(),
            RxKind::Ccfb(r) => r.poll_timeout(),
            RxKind::Ledbat(r) => r.poll_timeout(),
        }
    }
    pub(super) fn handle_timeout(&mut self, now: Timestamp) {
        match self {
            RxKind::Gcc(r, _) => r.handle_timeout(now),
            RxKind::Sctp(r) => r.handle_timeout(now),
            RxKind::Ccfb(r) => r.handle_timeout(now),
            RxKind::Ledbat(r) => r.handle_timeout(now),
        }
    }
    /// A media receiver (RTP in).
    pub(super) fn is_media(&self) -> bool {
        matches!(self, RxKind::Gcc(..) | RxKind::Ccfb(_))
    }
    /// The next datagram the receiver of flow `i` sends at `now`: its class and bytes.
    pub(super) fn poll_datagram(&mut self, i: usize, now: Timestamp) -> Option<(Class, Vec<u8>)> {
        match self {
            RxKind::Gcc(r, enc) => r
                .poll_transmit(now)
                .map(|t| (Class::Rtcp, enc.encode(&t.message))),
            RxKind::Sctp(r) => r
                .poll_transmit(now)
                .map(|t| (Class::Sctp, codec::encode_sack(i, &t.message))),
            RxKind::Ccfb(r) => r
                .poll_transmit(now)
                .map(|t| (Class::Rtcp, codec::encode_ccfb(&t.message))),
            RxKind::Ledbat(r) => r
                .poll_transmit(now)
                .map(|t| (Class::Utp, codec::encode_ledbat_ack(i, &t.message, now))),
        }
    }
    /// Whether the receiver counts the application's goodput (a transfer: SCTP, LEDBAT).
    pub(super) fn reports_goodput(&self) -> bool {
        matches!(self, RxKind::Sctp(_) | RxKind::Ledbat(_))
    }
    /// The bytes the receiver handed to the application (`None`: media, whose goodput
    /// is its throughput).
    pub(super) fn bytes_delivered(&self) -> Option<DataSize> {
        match self {
            RxKind::Sctp(r) => Some(r.bytes_delivered()),
            RxKind::Ledbat(r) => Some(r.bytes_delivered()),
            _ => None,
        }
    }
}

/// One flow at the receiver.
pub(super) struct RxFlow {
    pub(super) kind: RxKind,
    pub(super) arrivals: Arrivals,
    pub(super) established: bool,
    pub(super) shut_down: bool,
    /// Data datagrams that arrived with CE in their IP header.
    pub(super) ce_marks: u64,
}

/// Flow `i`'s sender and receiver endpoints for its kind, built by the simulator's
/// flow builders (`fseed` seeds them); the kinds the testbed does not wire are refused
/// in one line naming the field. The one place a flow kind maps to what its two sides
/// run and send.
pub(super) fn flow_endpoints(
    ctx: &FlowContext,
    i: usize,
    spec: &FlowSpec,
    fseed: u64,
) -> Result<(TxKind, RxKind), TestbedError> {
    // The testbed's wire mapping of each kind it carries (its packets as real RTP /
    // RTCP / SCTP / uTP bytes, `codec`), by the kind's name.
    let built = |e: flowstate_sim::FieldError| {
        TestbedError::Sim(flowstate_sim::SimError::Build(
            e.under(&format!("flows[{i}].")),
        ))
    };
    let input = flowstate_sim::flow_spec::BuildInput {
        ctx,
        index: i,
        spec,
        seed: fseed,
    };
    Ok(match spec.kind.name() {
        "gcc" => {
            let (s, r) = gcc_flow(ctx, i, spec, fseed).map_err(built)?.into_parts();
            (
                TxKind::Gcc(Box::new(s), FeedbackDecoder::default()),
                RxKind::Gcc(Box::new(r), FeedbackEncoder::default()),
            )
        }
        "sctp" => {
            let (s, r) = sctp_flow(spec, fseed).map_err(built)?.into_parts();
            (TxKind::Sctp(Box::new(s)), RxKind::Sctp(Box::new(r)))
        }
        "nada" => {
            let (s, r) = nada_flow(&input).map_err(built)?.into_parts();
            (
                TxKind::Nada(Box::new(s), CcfbDecoder::default()),
                RxKind::Ccfb(Box::new(r)),
            )
        }
        "scream" => {
            let (s, r) = scream_flow(&input).map_err(built)?.into_parts();
            (
                TxKind::Scream(Box::new(s), CcfbDecoder::default()),
                RxKind::Ccfb(Box::new(r)),
            )
        }
        "ledbat" => {
            let (s, r) = ledbat_flow(spec, fseed).map_err(built)?.into_parts();
            (
                TxKind::Ledbat(Box::new(s), 0, codec::LedbatAckDecoder::default()),
                RxKind::Ledbat(Box::new(r)),
            )
        }
        other => {
            return Err(TestbedError::Unsupported(format!(
                "flows[{i}].kind: '{other}' is not wired into the testbed (gcc, sctp, nada, scream and ledbat are)"
            )))
        }
})
}

#[cfg(test)]
#[path = "flows_tests.rs"]
mod tests;
