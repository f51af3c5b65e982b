//! Dynamic flow groups: moving a flow to another group when shared bottleneck
//! detection changes its verdict (RFC 8382). A child module of `manager.rs`
//! so that the manager keeps one place for groups, ids and dispatch.
//!
//! A move is the two membership changes RFC 8699 section 5.1 already defines, done
//! back to back for one flow, keeping its id and its controller's state:
//! - leaving: as [`CouplingManager::deregister`] (the [`super::DeregisterPolicy`]
//!   decides whether S_CR keeps the leaver's share for the others or drops it; the
//!   mechanism's `deregistered` hook runs, e.g. FSE-NG's restored caps);
//! - joining: as [`CouplingManager::register`] at the flow's current rate (a rate
//!   flow's FSE_R; a window flow's cwnd and newest RTT), so S_CR of the new group grows
//!   by exactly that rate; then the flow reports that same value once, so the new group
//!   is redistributed at once and the flow takes its priority share now rather than at
//!   the group's next update.
//!
//! A flow moves at most once per [`CouplingManager::min_regroup_interval`] (default
//! [`DEFAULT_MIN_REGROUP_INTERVAL`] = RFC 8382's base interval T, the interval at which
//! the grouping decides, section 3.3.2): a verdict that flaps faster is deferred.

use std::collections::HashMap;

use super::{CouplingManager, RegroupGuard};
use crate::coupling::error::CouplingError;
use crate::coupling::flow::{Allocation, FlowId, FlowReport, FlowSpec, GroupKey};
use crate::coupling::group::FlowEntry;
use crate::coupling::validate::validate_spec;
use crate::units::{Bitrate, TimeDelta, Timestamp};

/// RFC 8382 section 2.2: the base interval T (350 ms), at which the grouping runs.
pub const DEFAULT_MIN_REGROUP_INTERVAL: TimeDelta = TimeDelta::millis(350);

/// What [`CouplingManager::move_flow`] did.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Regroup<'a> {
    /// The flow moved. The allocations of every flow whose allowance changed: the old
    /// group's when leaving changes them (FSE-NG, Extended FSE-NG: restored caps), then
    /// the new group's after the flow joined (the flow's own among them, for the
    /// mechanisms that redistribute on its report).
    Moved(&'a [Allocation]),
    /// The flow is already in that group: nothing changed.
    Unchanged,
    /// The flow moved less than the minimum regroup interval ago; nothing changed.
    /// The verdict may be applied from `until` on.
    Deferred { until: Timestamp },
}

impl Default for RegroupGuard {
    fn default() -> Self {
        RegroupGuard {
            min_interval: DEFAULT_MIN_REGROUP_INTERVAL,
            last_move: HashMap::new(),
        }
    }
}

impl RegroupGuard {
    /// The flow left the manager: an id registered again starts without a past move.
    pub(super) fn forget(&mut self, flow: FlowId) {
        self.last_move.remove(&flow);
    }
}

impl CouplingManager {
    /// Sets the minimum time between two moves of one flow (zero: no guard).
    pub fn with_min_regroup_interval(mut self, interval: TimeDelta) -> Result<Self, CouplingError> {
        if interval.as_micros() < 0 {
            return Err(CouplingError::InvalidTime {
                what: "minimum regroup interval",
                value: interval.as_secs_f64(),
            });
        }
        self.regroup.min_interval = interval;
        Ok(self)
    }

    /// The minimum time between two moves of one flow.
    pub fn min_regroup_interval(&self) -> TimeDelta {
        self.regroup.min_interval
    }

    /// Moves `flow` to the group `to` (created on first use; an emptied group is
    /// forgotten), for every mechanism alike. See the module documentation for what
    /// leaving and joining do to each group's S_CR.
    pub fn move_flow(
        &mut self,
        now: Timestamp,
        flow: FlowId,
        to: GroupKey,
    ) -> Result<Regroup<'_>, CouplingError> {
        let (from, idx) = self.locate(flow)?;
        if from == to {
            return Ok(Regroup::Unchanged);
        }
        if let Some(&last) = self.regroup.last_move.get(&flow) {
            let until = last + self.regroup.min_interval;
            if now < until {
                return Ok(Regroup::Deferred { until });
            }
        }
        let entry = self
            .groups
            .get(&from)
            .map(|g| g.flows.flows[idx].clone())
            .ok_or(CouplingError::UnknownFlow(flow))?;
        let (spec, report) = join_as(&entry);
        // Nothing can fail past this point but what validated specs never trigger; check
        // first anyway, so that a failure leaves the flow where it was.
        validate_spec(flow, &spec)?;

        let left: Vec<Allocation> = self.deregister(flow)?.to_vec();
        self.register_as(flow, to, spec)?;
        if let Some(group) = self.groups.get_mut(&to) {
            if let Some(i) = group.flows.index_of(flow) {
                let joined = &mut group.flows.flows[i];
                if joined.window != entry.window {
                    joined.window = entry.window.clone();
                    group.flows.claims_changed();
                }
            }
        }
        self.update(now, flow, report)?;
        if let Some(group) = self.groups.get_mut(&to) {
            group
                .state
                .inner_mut()
                .moved_in(&mut group.flows, flow, &mut self.out);
        }
        self.out.splice(0..0, left);
        self.regroup.last_move.insert(flow, now);
        Ok(Regroup::Moved(&self.out))
    }
}

/// How a flow re-enters a group: its spec at its current rate, and the report that
/// makes the group redistribute without changing S_CR.
fn join_as(entry: &FlowEntry) -> (FlowSpec, FlowReport) {
    match &entry.window {
        None => {
            let rate = Bitrate::bps(entry.fse_r);
            let desired_rate = entry
                .desired_rate
                .is_finite()
                .then(|| Bitrate::bps(entry.desired_rate));
            let spec = FlowSpec::Rate {
                priority: entry.priority,
                initial_rate: rate,
                desired_rate,
            };
            (spec, FlowReport::Rate { rate, rtt: None })
        }
        Some(w) => {
            let spec = FlowSpec::Window {
                priority: entry.priority,
                initial_cwnd: w.cwnd,
                initial_rtt: w.last_rtt,
                initial_max_cwnd: w.initial_max_cwnd,
                mtu: w.mtu,
            };
            let report = FlowReport::Window {
                cwnd: w.cwnd,
                rtt: w.last_rtt,
                ssthresh: w.ssthresh,
                desired_cwnd: w.desired_cwnd,
            };
            (spec, report)
        }
    }
}
