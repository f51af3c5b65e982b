//! The controller seam: what every congestion-controlled sender offers the simulator, the
//! real-time testbed and a coupling manager, on top of the [`Endpoint`] traffic
//! (feedback in through [`Endpoint::handle_input`], packets out through
//! [`Endpoint::poll_transmit`]).
//!
//! A coupling manager (paper 000's FSE, `crate::coupling`) needs two calls: the
//! controller's newest value as a [`FlowReport`] ([`Controller::poll_cc_report`]) and the
//! share it allows back ([`Controller::apply_allowance`]). The drivers also read the RTT
//! the controller measured and its current value when a flow joins a group. Every
//! sender in this crate implements the trait in its own file (`media.rs`, `sctp.rs`,
//! `tcp.rs`, `paced.rs` for RAP and TFRC, `nada.rs`, `scream.rs`, `ledbat.rs`), so a
//! driver is written once for all of them.

use super::Endpoint;
use crate::coupling::{Allowance, FlowReport};
use crate::units::{Bitrate, TimeDelta, Timestamp};
use crate::window::WindowController;

/// A congestion-controlled sender as drivers and coupling see it.
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

/// GCC media couples as a rate flow. Not [`Controller::INPUT_DRIVEN`]: the pacer sends
/// what its budget allows whenever it is polled.
impl Controller for super::media::MediaSender {
    fn poll_cc_report(&mut self) -> Option<FlowReport> {
        super::media::MediaSender::poll_cc_report(self)
    }
    fn apply_allowance(&mut self, now: Timestamp, allowance: Allowance) {
        super::media::MediaSender::apply_allowance(self, now, allowance);
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
}

/// SCTP couples as a window flow. Not [`Controller::INPUT_DRIVEN`]: every new instant
/// it is polled at refills its max-burst allowance (RFC 4960 6.1 D), so how often it is
/// polled is part of what it sends.
impl Controller for super::sctp::SctpSender {
    fn poll_cc_report(&mut self) -> Option<FlowReport> {
        super::sctp::SctpSender::poll_cc_report(self)
    }
    fn apply_allowance(&mut self, now: Timestamp, allowance: Allowance) {
        super::sctp::SctpSender::apply_allowance(self, now, allowance);
    }
    fn snapshot(&self) -> FlowReport {
        window_snapshot(self.congestion_control(), self.rtt_estimator().latest())
    }
    fn latest_rtt(&self) -> Option<TimeDelta> {
        self.rtt_estimator().latest()
    }
}
