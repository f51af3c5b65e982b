//! The shape every sans-I/O endpoint shares, so that the simulator and the real-network
//! driver can drive media, SCTP, TCP, RAP and TFRC endpoints through one interface.
//!
//! An endpoint never reads a clock and never touches a socket. The driver:
//! 1. hands it every message that arrives ([`Endpoint::handle_input`]);
//! 2. drains what it wants to send ([`Endpoint::poll_transmit`]) until `None`;
//! 3. asks when it next needs attention ([`Endpoint::poll_timeout`]) and calls
//!    [`Endpoint::handle_timeout`] at (or after) that time.
//!
//! Messages are semantic values (an RTP packet's header fields, an SCTP SACK's gap
//! blocks), not bytes: flowstate-wire turns them into real packets for the network, and
//! the simulator moves them as they are, charging `size` bytes on the link.

pub mod media;
pub mod nack;
pub mod overhead;
mod paced;
pub mod report_schedule;
pub mod send_path;

use crate::coupling::{Allowance, FlowReport};
use crate::ecn::Ecn;
use crate::units::{Bitrate, DataSize, TimeDelta, Timestamp};
use crate::window::WindowController;

/// A message an endpoint wants sent, and its size on the wire (headers included:
/// the link charges this many bytes).
#[derive(Debug, Clone, PartialEq)]
pub struct Transmit<M> {
    pub size: DataSize,
    pub message: M,
}

/// The earliest of several optional deadlines (`None` when there is none): what a
/// `poll_timeout` with several timers returns. A plain loop: the same result as
/// `times.into_iter().flatten().min()`, which the compiler did not turn into straight
/// code (2 % of a RAP run's instructions, in the iterator adapters).
#[inline]
pub(crate) fn earliest<const N: usize>(times: [Option<Timestamp>; N]) -> Option<Timestamp> {
    let mut best: Option<Timestamp> = None;
    for t in times {
        best = match (best, t) {
            (Some(b), Some(t)) => Some(b.min(t)),
            (b, t) => b.or(t),
        };
    }
    best
}

#[cfg(test)]
mod earliest_tests {
    use super::earliest;
    use crate::units::Timestamp;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn earliest_is_the_min_of_the_present(ts in proptest::collection::vec(proptest::option::of(0u64..1_000_000), 4)) {
            let times: Vec<Option<Timestamp>> = ts.iter().map(|t| t.map(Timestamp::from_micros)).collect();
            let arr = [times[0], times[1], times[2], times[3]];
            prop_assert_eq!(earliest(arr), times.iter().flatten().min().copied());
        }
    }

    #[test]
    fn earliest_of_nothing_is_none() {
        assert_eq!(earliest::<3>([None, None, None]), None);
        assert_eq!(
            earliest([Some(Timestamp::from_micros(5)), None]),
            Some(Timestamp::from_micros(5))
        );
    }
}

/// A sans-I/O endpoint: one side of a flow.
pub trait Endpoint {
    /// Messages this endpoint sends.
    type Outgoing;
    /// Messages this endpoint receives.
    type Incoming;

    /// A message arrived at `now`.
    fn handle_input(&mut self, now: Timestamp, message: Self::Incoming);

    /// A message arrived at `now` with the ECN codepoint `ecn` its IP header carried
    /// (crate::ecn). The default ignores the codepoint; a receiver that feeds marks back
    /// (RFC 8888, TCP's ECE, SCTP's ECNE) overrides it. Drivers call this one.
    fn handle_input_ecn(&mut self, now: Timestamp, message: Self::Incoming, ecn: Ecn) {
        let _ = ecn;
        self.handle_input(now, message);
    }

    /// The next message to send at `now`, if any. Call repeatedly until `None`.
    #[must_use]
    fn poll_transmit(&mut self, now: Timestamp) -> Option<Transmit<Self::Outgoing>>;

    /// When the endpoint next wants [`Endpoint::handle_timeout`] called; `None` if it
    /// waits only for input.
    #[must_use]
    fn poll_timeout(&self) -> Option<Timestamp>;

    /// Time has advanced to `now` (at or after the instant `poll_timeout` named).
    fn handle_timeout(&mut self, now: Timestamp);
}

/// The controller seam: what every congestion-controlled sender offers the simulator, the
/// real-time testbed and a coupling manager, on top of the [`Endpoint`] traffic
/// (feedback in through [`Endpoint::handle_input`], packets out through
/// [`Endpoint::poll_transmit`]).
///
/// A coupling manager (paper 000's FSE, `crate::coupling`) needs two calls: the
/// controller's newest value as a [`FlowReport`] ([`Controller::poll_cc_report`]) and the
/// share it allows back ([`Controller::apply_allowance`]). The drivers also read the RTT
/// the controller measured and its current value when a flow joins a group. Every
/// sender in this crate implements the trait in its own file (`media/sender.rs`,
/// `sctp/sender.rs`, `tcp.rs`, `paced.rs` for RAP and TFRC, `nada.rs`, `scream.rs`,
/// `ledbat.rs`), so a driver is written once for all of them.
pub trait Controller: Endpoint {
    /// True when the sender sends only in reaction to input or at its own deadline
    /// (`poll_timeout`): a driver then needs to poll it only after an input or a
    /// timeout, not at every event of its flow. False (the default) for senders whose
    /// output depends on how often they are polled (a pacer's budget, SCTP's max
    /// burst).
    const INPUT_DRIVEN: bool = false;

    /// The controller's newest value for a coupling manager, once per change (`None`:
    /// nothing new since the last call).
    fn poll_cc_report(&mut self) -> Option<FlowReport>;

    /// Apply what the coupling manager allowed (a rate or a window).
    fn apply_allowance(&mut self, now: Timestamp, allowance: Allowance);

    /// The controller's current value as a report, whether new or not: what a flow
    /// registers with when it joins a coupling group.
    fn snapshot(&self) -> FlowReport;

    /// The newest RTT sample (or the controller's estimate), if it has one.
    fn latest_rtt(&self) -> Option<TimeDelta>;

    /// How many RTT samples the sender took, if it counts them. A driver that reports
    /// RTT samples reports every new one when the sender counts them (a LEDBAT flow
    /// holding its queue at TARGET sees the same RTT to the microsecond on every ack),
    /// else each change of [`Controller::latest_rtt`]. Default `None`.
    fn rtt_samples(&self) -> Option<u64> {
        None
    }

    /// GCC's n_dd (delay-based decreases so far), for controllers that run GCC.
    fn delay_based_decreases(&self) -> Option<u64> {
        None
    }

    /// The application's rate limit changed (a schedule of desired rates); default:
    /// ignored by senders whose application rate is fixed at start.
    fn set_app_rate(&mut self, _rate: Option<Bitrate>) {}

    /// The application paused its media at `now` (RFC 8867 section 5.8): a driver stops
    /// polling the sender until [`Controller::resume`]. Default: nothing. A sender that
    /// keeps a shaping buffer empties it here if its specification says so.
    fn pause(&mut self, _now: Timestamp) {}

    /// The application resumed at `now`: frames the source would have captured while
    /// paused are never produced, and the controller restarts as its specification
    /// (or, where silent, its reference implementation) says. Default: nothing.
    fn resume(&mut self, _now: Timestamp) {}

    /// The ECN codepoint the sender puts on its data packets (crate::ecn): `NotEct`
    /// (the default) unless the sender was configured ECN-capable. Feedback packets are
    /// always Not-ECT. A driver reads it right after [`Endpoint::poll_transmit`]
    /// returned a packet: that packet's codepoint (TCP's retransmissions are Not-ECT,
    /// RFC 3168 section 6.1.5).
    fn ecn_codepoint(&self) -> Ecn {
        Ecn::NotEct
    }

    /// How often the controller reduced its rate or window in answer to ECN-CE marks
    /// so far (docs/ALGORITHMS.md, "ECN responses"); `None` when the sender is not
    /// ECN-capable or has no discrete response to count (TFRC's marks enter its loss
    /// event rate; GCC does not answer marks).
    fn ecn_responses(&self) -> Option<u64> {
        None
    }
}

/// A window controller's current value as a report (what SCTP, TCP and LEDBAT senders
/// register with): cwnd, ssthresh and the newest RTT sample.
pub fn window_snapshot<C: WindowController>(cc: &C, rtt: Option<TimeDelta>) -> FlowReport {
    FlowReport::Window {
        cwnd: cc.cwnd(),
        rtt,
        ssthresh: cc.ssthresh(),
        desired_cwnd: None,
    }
}

pub mod app_pacing;
pub mod data_source;
#[cfg(test)]
mod ecn_closed_loop_tests;
#[cfg(test)]
mod ecn_tests;
pub mod external;
#[cfg(test)]
mod fec_sender_tests;
pub mod ledbat;
pub mod nada;
pub mod rap;
#[cfg(test)]
mod rate_testbed_tests;
pub mod rfc8888;
#[cfg(test)]
mod rmcat_proptests;
pub mod rtx;
pub mod rtx_limiter;
#[cfg(test)]
mod rtx_scenario_tests;
pub mod scream;
pub mod scream_v2;
pub mod sctp;
pub mod tcp;
pub mod tfrc;
pub mod video;
