//! The one interface every coupling mechanism implements: how its flow group's S_CR
//! and allocations move when a flow registers, reports, leaves or a timer runs.
//!
//! Each mechanism keeps its per-group state in a plain struct in its own file and
//! implements [`CouplingRules`] for it; the hooks a mechanism has nothing to do in
//! default to nothing (as quinn-proto's `congestion::Controller`). The manager keeps
//! one `GroupState` per group (`mechanism.rs`: an enum of those structs, plain data)
//! and reaches the rules through `GroupState::inner_mut` (as smoltcp's
//! `socket::tcp::congestion::AnyController`).
//!
//! With the crate feature `custom-mechanism` the trait is public, with what its hooks
//! see ([`FlowGroup`], [`FlowEntry`], [`RateUpdate`], [`WindowUpdate`]): a mechanism
//! written outside the crate implements it for its per-group state and hands the
//! manager a [`super::CustomMechanism`] that builds that state for each new group
//! (`examples/custom_mechanism.rs`).
//!
//! The manager has already done, before each hook:
//! - `register`: validated the spec, pushed the flow's entry (FSE_R = 0) at `idx`;
//! - `rate_update`: validated the report (the flow is a rate flow, CC_R finite >= 0);
//! - `window_update`: recorded cwnd, ssthresh, desired cwnd and the RTT sample in the
//!   flow's [`super::group::WindowState`];
//! - `deregistered`: removed the entry (the group still has flows), applied the
//!   [`super::DeregisterPolicy`].

use std::fmt;

use super::error::CouplingError;
use super::flow::{Allocation, FlowId, FlowSpec};
use super::group::{FlowEntry, FlowGroup};
use crate::units::{DataSize, TimeDelta, Timestamp};

/// The allocations a hook emits (every flow whose allowance changes).
pub(crate) type Out = Vec<Allocation>;
/// What a rate update returns: an error rejects the report (nothing is applied).
pub(crate) type Outcome = Result<(), CouplingError>;

/// A rate flow's report, validated: CC_R in bit/s (finite, >= 0) and its RTT.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct RateUpdate {
    /// When the flow reported.
    pub now: Timestamp,
    /// The flow's index in the group ([`FlowGroup::flows`]).
    pub idx: usize,
    /// CC_R: the rate the flow's own controller computed, in bit/s.
    pub cc_r: f64,
    /// The flow's RTT estimate, if the report had one.
    pub rtt: Option<TimeDelta>,
}

/// A window flow's report, already recorded in its entry's
/// [`WindowState`](super::group::WindowState).
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct WindowUpdate {
    /// The flow's index in the group ([`FlowGroup::flows`]).
    pub idx: usize,
    /// The flow's new congestion window.
    pub cwnd: DataSize,
    /// The newest RTT sample, if the report had one.
    pub rtt: Option<TimeDelta>,
}

/// One coupling mechanism's rules for one flow group: the manager calls a hook with
/// the group after each change of the group's flows and lets the mechanism move S_CR
/// and the flows' FSE_R; each hook pushes into `out` the [`Allocation`] of every flow
/// whose allowance changes, which the manager returns to its caller.
///
/// Each group has its own value (built for a built-in mechanism from its config, for a
/// custom one by [`super::CustomMechanism::new_group`]); derive `Clone` and `Debug` on
/// it (the manager is `Clone` and `Debug`), and keep it `Send` and `Sync` (plain data).
pub trait CouplingRules: fmt::Debug + Send + Sync + CloneRules {
    /// A flow joined the group at index `idx`. Default: a rate flow's initial rate
    /// becomes its FSE_R and is added to S_CR (RFC 8699 section 5.1; every mechanism of
    /// paper 000 too); a window flow only stores its entry.
    fn register(&mut self, group: &mut FlowGroup, idx: usize, spec: &FlowSpec) {
        if let FlowSpec::Rate { initial_rate, .. } = spec {
            join_at_rate(group, idx, initial_rate.as_bps());
        }
    }

    /// A rate flow's controller computed CC_R. Push the allocations that change into
    /// `out`; an error rejects the report.
    fn rate_update(
        &mut self,
        group: &mut FlowGroup,
        u: RateUpdate,
        out: &mut Vec<Allocation>,
    ) -> Result<(), CouplingError>;

    /// A window flow's controller changed its cwnd. Default: nothing (the mechanism
    /// couples no window flows, or they are passive).
    fn window_update(
        &mut self,
        _group: &mut FlowGroup,
        _u: WindowUpdate,
        _out: &mut Vec<Allocation>,
    ) {
    }

    /// `removed` left the group, which still has flows. Default: nothing (S_CR is the
    /// [`super::DeregisterPolicy`]'s business; the others' shares change at the next
    /// update).
    fn deregistered(
        &mut self,
        _group: &mut FlowGroup,
        _removed: &FlowEntry,
        _out: &mut Vec<Allocation>,
    ) {
    }

    /// Flow `moved` joined this group by a move from another group
    /// ([`super::CouplingManager::move_flow`]), after the group was redistributed on
    /// its report. Its controller still holds what its old group allowed it. Default:
    /// nothing (what the redistribution allowed it replaces that).
    fn moved_in(&mut self, _group: &mut FlowGroup, _moved: FlowId, _out: &mut Vec<Allocation>) {}

    /// When the group's timer expires, if one runs at `now`. Default: no timer.
    fn timer_expiry(&self, _now: Timestamp) -> Option<Timestamp> {
        None
    }
}

/// A copy of a group's rules behind a `Box`, so that a manager holding a custom
/// mechanism's groups can be cloned. Implemented for every [`CouplingRules`] type that
/// is `Clone`: derive `Clone` and there is nothing to write.
pub trait CloneRules {
    /// A boxed copy of `self`.
    fn clone_rules(&self) -> Box<dyn CouplingRules>;
}

impl<T: CouplingRules + Clone + 'static> CloneRules for T {
    fn clone_rules(&self) -> Box<dyn CouplingRules> {
        Box::new(self.clone())
    }
}

impl Clone for Box<dyn CouplingRules> {
    fn clone(&self) -> Self {
        self.clone_rules()
    }
}

/// RFC 8699 5.1: FSE_R(f) = the flow's rate (bit/s), S_CR += FSE_R(f).
pub(crate) fn join_at_rate(group: &mut FlowGroup, idx: usize, bps: f64) {
    group.flows[idx].fse_r = bps;
    group.add_to_aggregate(bps);
}
