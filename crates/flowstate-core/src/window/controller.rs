//! The [`WindowController`] trait every window controller implements, with the
//! bookkeeping defaults written once over the [`WindowCore`](super::state::WindowCore) it
//! embeds.

use super::events::{AckEvent, CwndChange};
use super::state;
use crate::units::{DataSize, TimeDelta, Timestamp};

/// A congestion-window controller. All sizes in bytes.
///
/// Invariants every implementation keeps (checked by the property tests for all of them):
/// `cwnd() >= mtu()`, `cwnd() <= max_cwnd()` when a cap is set (the cap is floored at one
/// MTU), bytes in flight equal bytes sent minus bytes acked or lost (never negative), and
/// no input sequence panics.
///
/// Every controller embeds one `WindowCore` (the bookkeeping of `window/state.rs`) and
/// hands it out through the crate-private supertrait `state::EmbedsCore`; the getters,
/// the flight accounting, the cap and the change queue below are default methods over
/// it, written once. (That supertrait seals the trait: controllers live in this crate.)
pub trait WindowController: state::EmbedsCore {
    /// The unit the window moves in (SCTP path MTU, TCP SMSS).
    fn mtu(&self) -> DataSize {
        self.core().mtu
    }
    /// The congestion window.
    fn cwnd(&self) -> DataSize {
        self.core().cwnd
    }
    /// The slow-start threshold.
    fn ssthresh(&self) -> DataSize {
        self.core().ssthresh
    }
    /// Bytes sent and neither acknowledged nor declared lost.
    fn bytes_in_flight(&self) -> DataSize {
        self.core().flight
    }
    /// Whether the controller is in fast recovery.
    fn in_recovery(&self) -> bool;
    /// `bytes` were put on the wire (new data or a retransmission).
    fn on_sent(&mut self, _now: Timestamp, bytes: DataSize) {
        self.core_mut().on_sent(bytes);
    }
    /// An acknowledgement arrived.
    fn on_ack(&mut self, now: Timestamp, ack: &AckEvent);
    /// `bytes` previously in flight were declared lost / marked for retransmission; they
    /// leave the flight without a window change (the window reaction is
    /// [`WindowController::on_fast_retransmit`] or [`WindowController::on_rto_timeout`]).
    fn on_lost(&mut self, bytes: DataSize) {
        self.core_mut().remove_from_flight(bytes);
    }
    /// A duplicate ack arrived (TCP; SCTP ignores it: its miss indications are counted by
    /// the endpoint).
    fn on_dup_ack(&mut self, _now: Timestamp) {}
    /// Loss detected by fast retransmit. `recovery_point` is the highest sequence number
    /// outstanding; fast recovery lasts until the cumulative ack reaches it. Returns
    /// whether fast recovery was entered (false if already in it).
    fn on_fast_retransmit(&mut self, now: Timestamp, recovery_point: u64) -> bool;
    /// The retransmission timer expired. `repeated`: it expired again before the data
    /// outstanding at its previous expiry was acknowledged (TCP: RFC 5681 section 3.1
    /// holds ssthresh constant then; SCTP ignores it, RFC 9260 7.2.3 halves every time).
    fn on_rto_timeout(&mut self, now: Timestamp, repeated: bool);
    /// A congestion mark without a loss (an ECN-Echo, RFC 3168 section 6.1.2; SCTP's
    /// ECNE, RFC 9260 appendix A): the window is reduced as for one loss, without fast
    /// recovery (nothing is retransmitted): ssthresh as the controller's loss rule sets
    /// it, cwnd = ssthresh. The sender limits it to once per round trip and ignores it
    /// during fast recovery (that loss already reduced the window).
    fn on_congestion_mark(&mut self, now: Timestamp);
    /// The sender is about to send after `idle` without sending, with the current `rto`.
    fn on_idle(&mut self, _idle: TimeDelta, _rto: TimeDelta) {}
    /// Cap the window (FSE-NG; `None` removes the cap). Floored at one MTU.
    fn set_max_cwnd(&mut self, max_cwnd: Option<DataSize>) {
        self.core_mut().set_max_cwnd(max_cwnd);
    }
    /// The current cap, if any.
    fn max_cwnd(&self) -> Option<DataSize> {
        self.core().max_cwnd
    }
    /// Set the window directly (FSEv2). Enforces `cwnd >= mtu` and the max-cwnd cap;
    /// adopts `ssthresh` when given.
    fn set_cwnd(&mut self, cwnd: DataSize, ssthresh: Option<DataSize>);
    /// The next queued cwnd change, if any.
    fn poll_cwnd_change(&mut self) -> Option<CwndChange> {
        self.core_mut().poll_change()
    }
    /// Whether new data may be sent now (flight below cwnd: a packet may overshoot the
    /// window by less than one MTU, RFC 9260 section 6.1 rule B).
    fn can_send(&self) -> bool {
        self.bytes_in_flight() < self.cwnd()
    }
}
