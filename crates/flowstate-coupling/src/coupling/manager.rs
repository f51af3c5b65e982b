//! The coupling manager: flow groups keyed by a shared-bottleneck key, each coupled by
//! one mechanism of the FSE family (or, with the crate feature `custom-mechanism`, by
//! a mechanism written outside the crate).

use std::collections::{BTreeMap, HashMap};
#[cfg(feature = "custom-mechanism")]
use std::sync::Arc;

#[cfg(feature = "custom-mechanism")]
use super::custom::CustomMechanism;
use super::error::CouplingError;
use super::flow::{Allocation, FlowId, FlowKind, FlowReport, FlowSpec, GroupKey};
use super::group::{FlowEntry, FlowGroup};
use super::mechanism::{GroupState, Mechanism};
use super::rules::{RateUpdate, WindowUpdate};
use super::validate::{
    checked_desired, checked_priority, checked_rate, checked_rtt, mismatch, validate_spec,
};
use crate::units::{Bitrate, TimeDelta, Timestamp};

// `move_flow` and its hysteresis (`manager/regroup.rs`); the manager imports nothing
// from it: the child adds to `CouplingManager`, `coupling/mod.rs` re-exports its types.
pub(super) mod regroup;

/// What happens to S_CR when a flow leaves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DeregisterPolicy {
    /// Leave S_CR untouched: the leaver's share goes to the others at the next update
    /// (the papers' reference code; RFC 8699 only removes the entry).
    #[default]
    KeepAggregate,
    /// S_CR -= FSE_R(f) (an early version of the reference code).
    SubtractAllocation,
}

/// The hysteresis of moves (`manager/regroup.rs`): when each flow last moved.
#[derive(Debug, Clone)]
struct RegroupGuard {
    min_interval: TimeDelta,
    last_move: HashMap<FlowId, Timestamp>,
}

#[derive(Debug, Clone)]
struct Group {
    flows: FlowGroup,
    state: GroupState,
}

/// What couples the manager's groups.
#[derive(Debug, Clone)]
enum Coupler {
    /// One of the crate's mechanisms.
    Builtin(Mechanism),
    /// A mechanism written outside the crate.
    #[cfg(feature = "custom-mechanism")]
    Custom(Arc<dyn CustomMechanism>),
}

impl Coupler {
    fn display_name(&self) -> &'static str {
        match self {
            Coupler::Builtin(mechanism) => mechanism.display_name(),
            #[cfg(feature = "custom-mechanism")]
            Coupler::Custom(custom) => custom.display_name(),
        }
    }

    fn couples(&self, kind: FlowKind) -> bool {
        match self {
            Coupler::Builtin(mechanism) => mechanism.info().couples(kind),
            #[cfg(feature = "custom-mechanism")]
            Coupler::Custom(custom) => custom.flow_kinds().contains(&kind),
        }
    }

    /// A new group's state.
    fn new_group(&self) -> GroupState {
        match self {
            Coupler::Builtin(mechanism) => GroupState::new(mechanism),
            #[cfg(feature = "custom-mechanism")]
            Coupler::Custom(custom) => GroupState::Custom(custom.new_group()),
        }
    }
}

/// A read-only view of one flow's state in the manager.
#[derive(Debug, Clone, PartialEq)]
pub struct FlowInfo {
    pub id: FlowId,
    pub group: GroupKey,
    pub kind: FlowKind,
    pub priority: f64,
    /// `None` = unlimited.
    pub desired_rate: Option<Bitrate>,
    /// FSE_R(f).
    pub allocated_rate: Bitrate,
}

/// The coupling manager: register flows into groups, feed it every controller update,
/// apply the allocations it returns.
///
/// ```
/// use flowstate_coupling::coupling::{CouplingManager, FlowReport, FlowSpec, GroupKey, Mechanism};
/// use flowstate_coupling::{Bitrate, Timestamp};
///
/// let mut fse = CouplingManager::new(Mechanism::from_name("fse").unwrap());
/// let key = GroupKey(1);
/// let rate_flow = |priority| FlowSpec::Rate {
///     priority,
///     initial_rate: Bitrate::kbps(300.0),
///     desired_rate: None,
/// };
/// let a = fse.register(key, rate_flow(2.0)).unwrap();
/// let b = fse.register(key, rate_flow(1.0)).unwrap();
/// // Flow a's controller computed 2.7 Mbit/s: S_CR = 0.6 + 2.7 - 0.3 = 3 Mbit/s.
/// let report = FlowReport::Rate { rate: Bitrate::mbps(2.7), rtt: None };
/// let allocations = fse.update(Timestamp::ZERO, a, report).unwrap();
/// assert_eq!(allocations.len(), 2);
/// assert!((allocations[0].rate.as_mbps() - 2.0).abs() < 1e-9); // 2/3 of 3 Mbit/s
/// assert!((allocations[1].rate.as_mbps() - 1.0).abs() < 1e-9); // 1/3
/// # let _ = b;
/// ```
#[derive(Debug, Clone)]
pub struct CouplingManager {
    coupler: Coupler,
    deregister_policy: DeregisterPolicy,
    groups: BTreeMap<GroupKey, Group>,
    flow_groups: HashMap<FlowId, GroupKey>,
    next_id: u64,
    out: Vec<Allocation>,
    /// When each flow last moved between groups (`manager/regroup.rs`).
    regroup: RegroupGuard,
}

impl CouplingManager {
    /// A manager whose groups `mechanism` couples.
    pub fn new(mechanism: Mechanism) -> Self {
        CouplingManager::with_coupler(Coupler::Builtin(mechanism))
    }

    /// A manager whose groups a mechanism written outside this crate couples: each new
    /// group gets the rules `mechanism` builds for it (crate feature
    /// `custom-mechanism`; `examples/custom_mechanism.rs`).
    #[cfg(feature = "custom-mechanism")]
    pub fn with_custom_mechanism(mechanism: impl CustomMechanism + 'static) -> Self {
        CouplingManager::with_coupler(Coupler::Custom(Arc::new(mechanism)))
    }

    fn with_coupler(coupler: Coupler) -> Self {
        CouplingManager {
            coupler,
            deregister_policy: DeregisterPolicy::default(),
            groups: BTreeMap::new(),
            flow_groups: HashMap::new(),
            next_id: 1,
            out: Vec::new(),
            regroup: RegroupGuard::default(),
        }
    }

    /// The same manager with `policy` for what leaving does to S_CR.
    pub fn with_deregister_policy(mut self, policy: DeregisterPolicy) -> Self {
        self.deregister_policy = policy;
        self
    }

    /// The built-in mechanism that couples the groups; `None` for a custom one.
    pub fn mechanism(&self) -> Option<&Mechanism> {
        match &self.coupler {
            Coupler::Builtin(mechanism) => Some(mechanism),
            #[cfg(feature = "custom-mechanism")]
            Coupler::Custom(_) => None,
        }
    }

    /// The printed name of the mechanism that couples the groups (`FSEv2`, or a custom
    /// mechanism's `display_name`).
    pub fn mechanism_display_name(&self) -> &'static str {
        self.coupler.display_name()
    }

    /// Registers a flow in the group `key` (created on first use) with a fresh id.
    pub fn register(&mut self, key: GroupKey, spec: FlowSpec) -> Result<FlowId, CouplingError> {
        while self.flow_groups.contains_key(&FlowId(self.next_id)) {
            self.next_id = self.next_id.wrapping_add(1);
        }
        let id = FlowId(self.next_id);
        self.register_as(id, key, spec)?;
        self.next_id = self.next_id.wrapping_add(1);
        Ok(id)
    }

    /// Registers a flow under an id the caller chose (e.g. an SSRC or a stream id).
    pub fn register_as(
        &mut self,
        id: FlowId,
        key: GroupKey,
        spec: FlowSpec,
    ) -> Result<(), CouplingError> {
        if self.flow_groups.contains_key(&id) {
            return Err(CouplingError::DuplicateFlow(id));
        }
        let entry = validate_spec(id, &spec)?;
        if !self.coupler.couples(spec.kind()) {
            return Err(CouplingError::UnsupportedKind {
                mechanism: self.coupler.display_name(),
                kind: spec.kind(),
            });
        }
        let coupler = &self.coupler;
        let group = self.groups.entry(key).or_insert_with(|| Group {
            flows: FlowGroup::new(),
            state: coupler.new_group(),
        });
        group.flows.flows.push(entry);
        group.flows.claims_changed();
        let idx = group.flows.flows.len() - 1;
        group
            .state
            .inner_mut()
            .register(&mut group.flows, idx, &spec);
        self.flow_groups.insert(id, key);
        Ok(())
    }

    /// A flow's controller computed a new value. Returns the allocation of every flow in
    /// the flow's group that changed (for most mechanisms: all of them; for window-flow
    /// updates under FSE-NG and Extended FSE-NG: none).
    pub fn update(
        &mut self,
        now: Timestamp,
        flow: FlowId,
        report: FlowReport,
    ) -> Result<&[Allocation], CouplingError> {
        self.out.clear();
        let (key, idx) = self.locate(flow)?;
        let group = self
            .groups
            .get_mut(&key)
            .ok_or(CouplingError::UnknownFlow(flow))?;
        let registered = group.flows.flows[idx].kind();
        let rules = group.state.inner_mut();
        match report {
            FlowReport::Rate { rate, rtt } => {
                if registered != FlowKind::Rate {
                    return Err(mismatch(flow, registered, FlowKind::Rate));
                }
                let cc_r = checked_rate("reported rate", rate)?;
                let rtt = checked_rtt("reported RTT", rtt)?;
                let u = RateUpdate {
                    now,
                    idx,
                    cc_r,
                    rtt,
                };
                rules.rate_update(&mut group.flows, u, &mut self.out)?;
            }
            FlowReport::Window {
                cwnd,
                rtt,
                ssthresh,
                desired_cwnd,
            } => {
                if registered != FlowKind::Window {
                    return Err(mismatch(flow, registered, FlowKind::Window));
                }
                let rtt = checked_rtt("reported RTT", rtt)?;
                group
                    .flows
                    .record_window_report(idx, cwnd, ssthresh, desired_cwnd, rtt);
                let u = WindowUpdate { idx, cwnd, rtt };
                rules.window_update(&mut group.flows, u, &mut self.out);
            }
        }
        Ok(&self.out)
    }

    /// A flow left. Returns allocations for the remaining flows when leaving changes
    /// them (FSE-NG: window flows get their initial cap back when the last rate flow
    /// leaves). An emptied group is forgotten.
    pub fn deregister(&mut self, flow: FlowId) -> Result<&[Allocation], CouplingError> {
        self.out.clear();
        let key = self
            .flow_groups
            .remove(&flow)
            .ok_or(CouplingError::UnknownFlow(flow))?;
        self.regroup.forget(flow);
        let Some(group) = self.groups.get_mut(&key) else {
            return Err(CouplingError::UnknownFlow(flow));
        };
        let Some(idx) = group.flows.index_of(flow) else {
            return Err(CouplingError::UnknownFlow(flow));
        };
        let removed = group.flows.flows.remove(idx);
        group.flows.claims_changed();
        if self.deregister_policy == DeregisterPolicy::SubtractAllocation {
            group.flows.add_to_aggregate(-removed.fse_r);
        }
        if group.flows.flows.is_empty() {
            self.groups.remove(&key);
            return Ok(&self.out);
        }
        group
            .state
            .inner_mut()
            .deregistered(&mut group.flows, &removed, &mut self.out);
        Ok(&self.out)
    }

    /// Changes P(f); takes effect at the group's next update.
    pub fn set_priority(&mut self, flow: FlowId, priority: f64) -> Result<(), CouplingError> {
        let priority = checked_priority(priority)?;
        let (group, idx) = self.locate_mut(flow)?;
        group.flows[idx].priority = priority;
        group.claims_changed();
        Ok(())
    }

    /// Changes a rate flow's DR(f) (`None` = unlimited); takes effect at the next update.
    pub fn set_desired_rate(
        &mut self,
        flow: FlowId,
        desired: Option<Bitrate>,
    ) -> Result<(), CouplingError> {
        let desired = checked_desired(desired)?;
        let (group, idx) = self.locate_mut(flow)?;
        if !group.flows[idx].is_rate() {
            return Err(mismatch(flow, FlowKind::Window, FlowKind::Rate));
        }
        group.flows[idx].desired_rate = desired;
        group.claims_changed();
        Ok(())
    }

    /// S_CR of a group, if it exists.
    pub fn aggregate(&self, key: GroupKey) -> Option<Bitrate> {
        self.groups.get(&key).map(|g| Bitrate::bps(g.flows.s_cr))
    }

    /// The flows of a group in registration order (empty if the group does not exist).
    pub fn flows(&self, key: GroupKey) -> Vec<FlowInfo> {
        self.groups
            .get(&key)
            .map(|g| g.flows.flows.iter().map(|f| flow_info(key, f)).collect())
            .unwrap_or_default()
    }

    /// One flow's state.
    pub fn flow(&self, flow: FlowId) -> Result<FlowInfo, CouplingError> {
        let (key, idx) = self.locate(flow)?;
        let entry = self.groups.get(&key).map(|g| &g.flows.flows[idx]);
        entry
            .map(|f| flow_info(key, f))
            .ok_or(CouplingError::UnknownFlow(flow))
    }

    /// The keys of all groups with at least one flow.
    pub fn groups(&self) -> Vec<GroupKey> {
        self.groups.keys().copied().collect()
    }

    /// The group's timer expiry, if one runs at `now` (the conservative FSE's; other
    /// mechanisms have no timer).
    pub fn timer_expiry(&self, key: GroupKey, now: Timestamp) -> Option<Timestamp> {
        self.groups.get(&key)?.state.inner().timer_expiry(now)
    }

    /// The group key of a registered flow and the flow's index in its group.
    fn locate(&self, flow: FlowId) -> Result<(GroupKey, usize), CouplingError> {
        let unknown = || CouplingError::UnknownFlow(flow);
        let key = *self.flow_groups.get(&flow).ok_or_else(unknown)?;
        let group = self.groups.get(&key).ok_or_else(unknown)?;
        let idx = group.flows.index_of(flow).ok_or_else(unknown)?;
        Ok((key, idx))
    }

    /// The group of a flow and the flow's index in it. Callers that change a flow's
    /// priority or desired rate must call [`FlowGroup::claims_changed`].
    fn locate_mut(&mut self, flow: FlowId) -> Result<(&mut FlowGroup, usize), CouplingError> {
        let (key, idx) = self.locate(flow)?;
        let group = self
            .groups
            .get_mut(&key)
            .ok_or(CouplingError::UnknownFlow(flow))?;
        Ok((&mut group.flows, idx))
    }
}

fn flow_info(key: GroupKey, f: &FlowEntry) -> FlowInfo {
    FlowInfo {
        id: f.id,
        group: key,
        kind: f.kind(),
        priority: f.priority,
        desired_rate: f
            .desired_rate
            .is_finite()
            .then(|| Bitrate::bps(f.desired_rate)),
        allocated_rate: Bitrate::bps(f.fse_r),
    }
}
