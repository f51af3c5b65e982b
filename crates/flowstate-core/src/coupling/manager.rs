//! The coupling manager: flow groups keyed by a shared-bottleneck key, each coupled by
//! one mechanism of the FSE family.

use std::collections::{BTreeMap, HashMap};

use super::conservative::ConservativeFse;
use super::error::CouplingError;
use super::ext_fse_ng::ExtendedFseNg;
use super::flow::{Allocation, FlowId, FlowKind, FlowReport, FlowSpec, GroupKey};
use super::fse::Fse;
use super::fse_ng::{restore_initial_caps, FseNg};
use super::fse_v2::FseV2;
use super::group::{FlowEntry, FlowGroup, WindowState};
use super::mechanism::Mechanism;
use crate::units::{Bitrate, DataSize, TimeDelta, Timestamp};

impl Mechanism {
    fn new_coupler(&self) -> Coupler {
        match *self {
            Mechanism::Uncoupled => Coupler::Uncoupled,
            Mechanism::Fse(config) => Coupler::Fse(Fse { config }),
            Mechanism::ConservativeFse(config) => {
                Coupler::Conservative(ConservativeFse::new(config))
            }
            Mechanism::FseNg(config) => Coupler::FseNg(FseNg::new(config)),
            Mechanism::ExtendedFseNg(config) => Coupler::ExtFseNg(ExtendedFseNg::new(config)),
            Mechanism::FseV2(config) => Coupler::FseV2(FseV2::new(config)),
        }
    }
}

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

/// Per-group mechanism state.
#[derive(Debug, Clone)]
enum Coupler {
    Uncoupled,
    Fse(Fse),
    Conservative(ConservativeFse),
    FseNg(FseNg),
    ExtFseNg(ExtendedFseNg),
    FseV2(FseV2),
}

#[derive(Debug, Clone)]
struct Group {
    flows: FlowGroup,
    coupler: Coupler,
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
/// use flowstate_core::coupling::{CouplingManager, FlowReport, FlowSpec, GroupKey, Mechanism};
/// use flowstate_core::{Bitrate, Timestamp};
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
    mechanism: Mechanism,
    deregister_policy: DeregisterPolicy,
    groups: BTreeMap<GroupKey, Group>,
    flow_groups: HashMap<FlowId, GroupKey>,
    next_id: u64,
    out: Vec<Allocation>,
}

impl CouplingManager {
    pub fn new(mechanism: Mechanism) -> Self {
        CouplingManager {
            mechanism,
            deregister_policy: DeregisterPolicy::default(),
            groups: BTreeMap::new(),
            flow_groups: HashMap::new(),
            next_id: 1,
            out: Vec::new(),
        }
    }

    pub fn with_deregister_policy(mut self, policy: DeregisterPolicy) -> Self {
        self.deregister_policy = policy;
        self
    }

    pub fn mechanism(&self) -> &Mechanism {
        &self.mechanism
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
        if !self.mechanism.info().couples(spec.kind()) {
            return Err(CouplingError::UnsupportedKind {
                mechanism: self.mechanism.display_name(),
                kind: spec.kind(),
            });
        }
        let mechanism = self.mechanism;
        let group = self.groups.entry(key).or_insert_with(|| Group {
            flows: FlowGroup::new(),
            coupler: mechanism.new_coupler(),
        });
        group.flows.flows.push(entry);
        group.flows.claims_changed();
        let idx = group.flows.flows.len() - 1;
        register_in_group(group, idx, &spec);
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
        let key = *self
            .flow_groups
            .get(&flow)
            .ok_or(CouplingError::UnknownFlow(flow))?;
        let group = self
            .groups
            .get_mut(&key)
            .ok_or(CouplingError::UnknownFlow(flow))?;
        let idx = group
            .flows
            .index_of(flow)
            .ok_or(CouplingError::UnknownFlow(flow))?;
        let registered = group.flows.flows[idx].kind();
        match report {
            FlowReport::Rate { rate, rtt } => {
                if registered != FlowKind::Rate {
                    return Err(mismatch(flow, registered, FlowKind::Rate));
                }
                let cc_r = checked_rate("reported rate", rate)?;
                let rtt = checked_rtt("reported RTT", rtt)?;
                rate_update(group, now, idx, cc_r, rtt, &mut self.out)?;
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
                let mut desired_changed = false;
                if let Some(window) = group.flows.flows[idx].window.as_mut() {
                    window.cwnd = cwnd;
                    window.ssthresh = ssthresh;
                    desired_changed = window.desired_cwnd != desired_cwnd;
                    window.desired_cwnd = desired_cwnd;
                    if let Some(r) = rtt.filter(|r| r.is_positive()) {
                        window.last_rtt = Some(r);
                    }
                }
                if desired_changed {
                    group.flows.claims_changed();
                }
                window_update(group, idx, cwnd, rtt, &mut self.out);
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
        if removed.is_rate() {
            if let Coupler::FseNg(_) | Coupler::ExtFseNg(_) = group.coupler {
                restore_initial_caps(&group.flows, &mut self.out);
            }
        }
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
        let key = *self
            .flow_groups
            .get(&flow)
            .ok_or(CouplingError::UnknownFlow(flow))?;
        let group = self
            .groups
            .get(&key)
            .ok_or(CouplingError::UnknownFlow(flow))?;
        let idx = group
            .flows
            .index_of(flow)
            .ok_or(CouplingError::UnknownFlow(flow))?;
        Ok(flow_info(key, &group.flows.flows[idx]))
    }

    /// The keys of all groups with at least one flow.
    pub fn groups(&self) -> Vec<GroupKey> {
        self.groups.keys().copied().collect()
    }

    /// The conservative FSE's group timer expiry, if it runs at `now` (other
    /// mechanisms have no timer).
    pub fn timer_expiry(&self, key: GroupKey, now: Timestamp) -> Option<Timestamp> {
        match &self.groups.get(&key)?.coupler {
            Coupler::Conservative(c) => c.timer_expiry(now),
            _ => None,
        }
    }

    /// The group of a flow and the flow's index in it. Callers that change a flow's
    /// priority or desired rate must call [`FlowGroup::claims_changed`].
    fn locate_mut(&mut self, flow: FlowId) -> Result<(&mut FlowGroup, usize), CouplingError> {
        let unknown = CouplingError::UnknownFlow(flow);
        let key = *self.flow_groups.get(&flow).ok_or(unknown.clone())?;
        let group = self.groups.get_mut(&key).ok_or(unknown.clone())?;
        let idx = group.flows.index_of(flow).ok_or(unknown)?;
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

/// Registration as each mechanism defines it.
fn register_in_group(group: &mut Group, idx: usize, spec: &FlowSpec) {
    let flows = &mut group.flows;
    match (spec, &mut group.coupler) {
        // RFC 8699 5.1 / paper 000: FSE_R = initial rate, S_CR += FSE_R (all mechanisms).
        (FlowSpec::Rate { initial_rate, .. }, _) => {
            flows.flows[idx].fse_r = initial_rate.as_bps();
            flows.add_to_aggregate(initial_rate.as_bps());
        }
        // FSE-NG: a window flow only stores its initial cap; S_CR is untouched.
        (FlowSpec::Window { .. }, Coupler::FseNg(_)) => {}
        // Extended FSE-NG: registration is the window flow's first update (paper 000 VI-D2a).
        (
            FlowSpec::Window {
                initial_cwnd,
                initial_rtt,
                ..
            },
            Coupler::ExtFseNg(ext),
        ) => {
            ext.register_window(flows, idx, *initial_cwnd, *initial_rtt);
        }
        // FSEv2: CC_R = initial cwnd / initial RTT, added to S_CR (paper 000 VII-B2b).
        (
            FlowSpec::Window {
                initial_cwnd,
                initial_rtt,
                ..
            },
            Coupler::FseV2(v2),
        ) => {
            let cc_r = v2.window_rate(*initial_cwnd, *initial_rtt);
            flows.flows[idx].fse_r = cc_r;
            flows.add_to_aggregate(cc_r);
        }
        // Rejected before we get here (Mechanism::supports).
        (FlowSpec::Window { .. }, Coupler::Fse(_) | Coupler::Conservative(_)) => {}
        // Uncoupled: nothing to share.
        (FlowSpec::Window { .. }, Coupler::Uncoupled) => {}
    }
}

fn rate_update(
    group: &mut Group,
    now: Timestamp,
    idx: usize,
    cc_r: f64,
    rtt: Option<TimeDelta>,
    out: &mut Vec<Allocation>,
) -> Result<(), CouplingError> {
    let flows = &mut group.flows;
    match &mut group.coupler {
        // Uncoupled: the flow's own rate stands; nothing changes for anyone.
        Coupler::Uncoupled => flows.flows[idx].fse_r = cc_r,
        Coupler::Fse(fse) => fse.update(flows, idx, cc_r, out),
        Coupler::Conservative(c) => c.update(now, flows, idx, cc_r, rtt, out)?,
        Coupler::FseNg(ng) => ng.rate_update(flows, idx, cc_r, rtt, out),
        Coupler::ExtFseNg(ext) => ext.rate_update(flows, idx, cc_r, out),
        Coupler::FseV2(v2) => v2.update(flows, idx, cc_r, out),
    }
    Ok(())
}

fn window_update(
    group: &mut Group,
    idx: usize,
    cwnd: DataSize,
    rtt: Option<TimeDelta>,
    out: &mut Vec<Allocation>,
) {
    let flows = &mut group.flows;
    match &mut group.coupler {
        // FSE-NG: window updates never change S_CR and trigger nothing.
        Coupler::FseNg(_) => {}
        Coupler::ExtFseNg(ext) => ext.window_update(flows, idx, cwnd, rtt),
        Coupler::FseV2(v2) => {
            let cc_r = v2.window_rate(cwnd, rtt);
            v2.update(flows, idx, cc_r, out);
        }
        // Window flows cannot register with these; uncoupled flows keep their cwnd.
        Coupler::Fse(_) | Coupler::Conservative(_) | Coupler::Uncoupled => {}
    }
}

fn mismatch(flow: FlowId, registered: FlowKind, reported: FlowKind) -> CouplingError {
    CouplingError::ReportKindMismatch {
        flow,
        registered,
        reported,
    }
}

/// The smallest priority a flow may have ([`check_priority`]).
pub const MIN_PRIORITY: f64 = 1e-6;
/// The largest priority a flow may have ([`check_priority`]).
pub const MAX_PRIORITY: f64 = 1e6;

/// `priority` if it is in [[`MIN_PRIORITY`], [`MAX_PRIORITY`]]: the one check every
/// priority passes (the manager, scenario files, the Python API). Only ratios of
/// priorities matter; the bounds keep sums and products of rates with priorities
/// far from the float limits (priorities of 1e308 or 2.3e-308 gave 0, inf or a 9 %
/// utilization instead of the priority shares).
pub fn check_priority(priority: f64) -> Result<f64, CouplingError> {
    if (MIN_PRIORITY..=MAX_PRIORITY).contains(&priority) {
        Ok(priority)
    } else {
        Err(CouplingError::InvalidPriority(priority))
    }
}

fn checked_priority(priority: f64) -> Result<f64, CouplingError> {
    check_priority(priority)
}

fn checked_rate(what: &'static str, rate: Bitrate) -> Result<f64, CouplingError> {
    let bps = rate.as_bps();
    if bps.is_finite() && bps >= 0.0 {
        Ok(bps)
    } else {
        Err(CouplingError::InvalidRate { what, value: bps })
    }
}

fn checked_desired(desired: Option<Bitrate>) -> Result<f64, CouplingError> {
    match desired {
        None => Ok(f64::INFINITY),
        Some(rate) => checked_rate("desired rate", rate),
    }
}

/// Negative RTTs are errors. A zero RTT passes: mechanisms that keep RTT samples
/// ignore it (no information), the conservative FSE arms a zero-length timer with it.
fn checked_rtt(
    what: &'static str,
    rtt: Option<TimeDelta>,
) -> Result<Option<TimeDelta>, CouplingError> {
    match rtt {
        Some(r) if r.as_micros() < 0 => Err(CouplingError::InvalidRtt {
            what,
            value_us: r.as_micros(),
        }),
        other => Ok(other),
    }
}

fn validate_spec(id: FlowId, spec: &FlowSpec) -> Result<FlowEntry, CouplingError> {
    let priority = checked_priority(spec.priority())?;
    match spec {
        FlowSpec::Rate {
            initial_rate,
            desired_rate,
            ..
        } => {
            checked_rate("initial rate", *initial_rate)?;
            Ok(FlowEntry {
                id,
                priority,
                desired_rate: checked_desired(*desired_rate)?,
                fse_r: 0.0,
                window: None,
            })
        }
        FlowSpec::Window {
            initial_cwnd,
            initial_rtt,
            initial_max_cwnd,
            mtu,
            ..
        } => {
            if mtu.as_bytes() == 0 {
                return Err(CouplingError::InvalidMtu);
            }
            let initial_rtt = checked_rtt("initial RTT", *initial_rtt)?;
            Ok(FlowEntry {
                id,
                priority,
                desired_rate: f64::INFINITY,
                fse_r: 0.0,
                window: Some(WindowState {
                    mtu: *mtu,
                    initial_max_cwnd: *initial_max_cwnd,
                    cwnd: *initial_cwnd,
                    ssthresh: DataSize::MAX,
                    desired_cwnd: None,
                    last_rtt: initial_rtt.filter(|r| r.is_positive()),
                }),
            })
        }
    }
}

/// Validates a rate given as a bare number of bit/s (for bindings and file formats):
/// NaN, infinite and negative values are errors naming `what`.
pub fn rate_from_bps(what: &'static str, bps: f64) -> Result<Bitrate, CouplingError> {
    if bps.is_finite() && bps >= 0.0 {
        Ok(Bitrate::bps(bps))
    } else {
        Err(CouplingError::InvalidRate { what, value: bps })
    }
}

/// Validates an RTT given in seconds (for bindings and file formats): NaN, infinite
/// and negative values are errors naming `what`.
pub fn rtt_from_secs(what: &'static str, secs: f64) -> Result<TimeDelta, CouplingError> {
    if (0.0..1e9).contains(&secs) {
        Ok(TimeDelta::from_secs_f64(secs))
    } else {
        Err(CouplingError::InvalidTime { what, value: secs })
    }
}

/// Validates a point in time given in seconds since the caller's epoch.
pub fn timestamp_from_secs(what: &'static str, secs: f64) -> Result<Timestamp, CouplingError> {
    if (0.0..1e12).contains(&secs) {
        Ok(Timestamp::from_micros((secs * 1e6).round() as u64))
    } else {
        Err(CouplingError::InvalidTime { what, value: secs })
    }
}
