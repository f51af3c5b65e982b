//! Where a coupling manager plugs into the simulator.
//!
//! The engine hands every [`FlowReport`] a sender queues to the run's [`CouplingHook`]
//! and applies the [`Allowance`]s it returns to the named flows (the hook never calls
//! into flows itself, matching flowstate-core's "allocations are returned as data").
//! A hook that wraps `flowstate_core::coupling` managers keeps one manager per flow
//! group, maps flow indices to `FlowId`s on [`FlowState::Active`] and deregisters on
//! [`FlowState::Stopped`].

use crate::app_stats::{AppControl, AppStats, StatsSchedule};
use crate::coupling_rule::RuleClock;
use crate::error::{FieldError, SimError};
use crate::flow::FlowState;
use crate::flow_kind::FlowKind;
use crate::sbd::RegroupOutcome;
use flowstate_core::coupling::{
    mechanism_with_options, Allocation, Allowance, CouplingError, CouplingManager, FlowId,
    FlowReport, FlowSpec as CoreFlowSpec, GroupKey, Mechanism, OptionError, OptionValue, Regroup,
};
use flowstate_core::{Bitrate, DataSize, TimeDelta, Timestamp};

/// What the hook knows about a flow (from the scenario).
#[derive(Debug, Clone, PartialEq)]
pub struct FlowInfo {
    pub index: usize,
    pub name: String,
    /// The scenario kind, read once when the scenario was parsed.
    pub kind: FlowKind,
    pub priority: f64,
    pub desired_rate: Option<Bitrate>,
    /// Coupling group: flows with the same group share one coupling manager; `None`:
    /// the flow is not coupled (crate::scenario::FlowSpec::group).
    pub group: Option<String>,
}

/// A coupling manager as the simulator sees it.
pub trait CouplingHook {
    /// A flow changed state (started, paused, resumed, stopped).
    fn on_state(&mut self, now: Timestamp, flow: &FlowInfo, state: FlowState);
    /// The engine's entry point for state changes: `snapshot` is the flow's current
    /// controller value ([`crate::flow::SimFlow::cc_snapshot`]); push allowances a
    /// change causes (e.g. FSE-NG restoring caps on deregistration) into `out`.
    /// Default: [`CouplingHook::on_state`].
    fn on_state_with(
        &mut self,
        now: Timestamp,
        flow: &FlowInfo,
        state: FlowState,
        _snapshot: Option<&FlowReport>,
        _out: &mut Vec<(usize, Allowance)>,
    ) {
        self.on_state(now, flow, state);
    }
    /// A flow's priority changed (scenario `priority_schedule`); takes effect at the
    /// group's next update. Default: ignored.
    fn on_priority(&mut self, _now: Timestamp, _flow: &FlowInfo, _priority: f64) {}
    /// A rate flow's application rate changed (scenario `desired_rate_schedule`: the
    /// paper's new_DR); takes effect at the group's next update. Default: ignored.
    fn on_desired_rate(&mut self, _now: Timestamp, _flow: &FlowInfo, _rate: Bitrate) {}
    /// Web-API coupling (the `web-api` mode's hook): the engine polls every flow's
    /// [`AppStats`] each `interval` and applies the hook's controls `delay` later.
    /// Default: `None`, never polled (no event is scheduled).
    fn stats_schedule(&self) -> Option<StatsSchedule> {
        None
    }
    /// A poll: `stats[i]` is flow i's statistics (`None` when it is not active or has
    /// none). Push `(flow index, control)` pairs into `out`.
    fn on_stats(
        &mut self,
        _now: Timestamp,
        _stats: &[Option<AppStats>],
        _out: &mut Vec<(usize, AppControl)>,
    ) {
    }
    /// A flow's sender reported a new controller value. Push `(flow index, allowance)`
    /// pairs into `out` for every flow whose controller must change.
    fn on_report(
        &mut self,
        now: Timestamp,
        flow: usize,
        report: &FlowReport,
        out: &mut Vec<(usize, Allowance)>,
    );
    /// The calls the coupling manager rejected so far (the first
    /// [`MAX_REJECTIONS_KEPT`]), each with its flow and reason. Default: none.
    fn rejected(&self) -> &[Rejection] {
        &[]
    }
    /// `coupling.groups = "sbd"`: flow `index` starts in the coupling group `key(index)`
    /// instead of its scenario `group`, and a flow moves at most once per
    /// `decision_interval` (RFC 8382's T, 3.3.2). Called once, before the run.
    /// Default: ignored.
    fn use_dynamic_groups(&mut self, _key: &dyn Fn(usize) -> u64, _decision_interval: TimeDelta) {}
    /// Shared bottleneck detection put `flow` into group `key`: move it there
    /// (`CouplingManager::move_flow`), pushing the allowances the move changes into
    /// `out`. Default: [`RegroupOutcome::Pending`] (nothing coupled).
    fn on_regroup(
        &mut self,
        _now: Timestamp,
        _flow: &FlowInfo,
        _key: u64,
        _out: &mut Vec<(usize, Allowance)>,
    ) -> RegroupOutcome {
        RegroupOutcome::Pending
    }
}

/// What the hook asked the coupling manager to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CouplingCall {
    Register,
    Report,
    Deregister,
    SetPriority,
    SetDesiredRate,
    Regroup,
}

/// A call the coupling manager rejected: when, for which flow, what, and why. The
/// flow keeps its own controller's value (nothing is applied for a rejected call).
#[derive(Debug, Clone, PartialEq)]
pub struct Rejection {
    pub at: Timestamp,
    /// Scenario flow index.
    pub flow: usize,
    pub call: CouplingCall,
    pub reason: CouplingError,
}

impl std::fmt::Display for Rejection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: flows[{}]: {:?} rejected: {}",
            self.at, self.flow, self.call, self.reason
        )
    }
}

/// How many rejections a hook keeps (it counts them all).
pub const MAX_REJECTIONS_KEPT: usize = 1000;

/// No coupling: reports are ignored.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoCoupling;

impl CouplingHook for NoCoupling {
    fn on_state(&mut self, _now: Timestamp, _flow: &FlowInfo, _state: FlowState) {}
    fn on_report(
        &mut self,
        _now: Timestamp,
        _flow: usize,
        _report: &FlowReport,
        _out: &mut Vec<(usize, Allowance)>,
    ) {
    }
}

/// Builds the hook for a scenario's `[coupling]` section.
pub trait CouplingFactory {
    fn build(
        &self,
        mechanism: &str,
        options: &toml::Table,
        flows: &[FlowInfo],
    ) -> Result<Box<dyn CouplingHook>, SimError>;

    /// The hook of `mechanism = "python"`: the rule `rule` made with `params`, its
    /// groups' seeds drawn from `rng` (crate::coupling_rule). Default: refused with one
    /// line (only a driver that can load the rule builds it: crate::rule_runs).
    fn build_rule(
        &self,
        _rule: &str,
        _params: &toml::Table,
        _flows: &[FlowInfo],
        _rng: rand_chacha::ChaCha8Rng,
    ) -> Result<Box<dyn CouplingHook>, SimError> {
        Err(SimError::Build(crate::coupling_rule::refuse()))
    }
}

/// The `[coupling] options` table as flowstate-core option values.
pub fn option_values(options: &toml::Table) -> Result<Vec<(String, OptionValue)>, SimError> {
    options
        .iter()
        .map(|(k, v)| {
            let value = match v {
                toml::Value::Boolean(b) => OptionValue::Bool(*b),
                toml::Value::Integer(i) => OptionValue::Number(*i as f64),
                toml::Value::Float(f) => OptionValue::Number(*f),
                toml::Value::String(s) => OptionValue::Text(s.clone()),
                other => {
                    return Err(SimError::Build(FieldError::new(
                        format!("coupling.options.{k}"),
                        format!(
                            "expected a boolean, number or string, got {}",
                            other.type_str()
                        ),
                    )))
                }
            };
            Ok((k.clone(), value))
        })
        .collect()
}

/// One flowstate-core [`CouplingManager`] for the run: flows register when they start
/// (rate flows with their current rate, window flows with cwnd and RTT), deregister
/// when they stop, every report goes to [`CouplingManager::update`] and every returned
/// [`Allocation`] is handed back for the matching flow's sender. Flows with the same
/// scenario `group` share a [`GroupKey`] (keys numbered by first appearance). `cbr`
/// flows never register; under FSE / conservative FSE window flows stay uncoupled.
#[derive(Debug, Clone)]
pub struct ManagerHook {
    manager: CouplingManager,
    /// Scenario flow index -> registered id.
    ids: Vec<Option<FlowId>>,
    /// Registered id -> scenario flow index (ids are small and dense).
    index_of: std::collections::BTreeMap<FlowId, usize>,
    keys: Vec<GroupKey>,
    coupled: Vec<bool>,
    /// The calls the manager rejected (the first [`MAX_REJECTIONS_KEPT`]).
    rejected: Vec<Rejection>,
    /// How many calls it rejected.
    rejected_total: u64,
    /// Set to each call's time before the manager runs (a custom mechanism's rules
    /// read it where the manager passes no time).
    clock: Option<RuleClock>,
}

impl ManagerHook {
    pub fn new(mechanism: Mechanism, flows: &[FlowInfo]) -> Self {
        let info = mechanism.info();
        Self::with_manager(CouplingManager::new(mechanism), |c| info.couples(c), flows)
    }

    /// A hook over `manager` (e.g. one running a custom mechanism) that registers the
    /// grouped flows of the kinds `couples` accepts.
    pub fn with_manager(
        manager: CouplingManager,
        couples: impl Fn(flowstate_core::coupling::FlowKind) -> bool,
        flows: &[FlowInfo],
    ) -> Self {
        let mut groups: Vec<&str> = Vec::new();
        let keys = flows
            .iter()
            .map(|f| {
                let Some(group) = f.group.as_deref() else {
                    // Never registered (`coupled` is false): the key is never used.
                    return GroupKey(u64::MAX);
                };
                let k = match groups.iter().position(|g| *g == group) {
                    Some(k) => k,
                    None => {
                        groups.push(group);
                        groups.len() - 1
                    }
                };
                GroupKey(k as u64)
            })
            .collect();
        let coupled = flows
            .iter()
            .map(|f| {
                // Flows in no group (cross traffic, kinds without a controller such as
                // cbr) never register; flows of a kind the mechanism does not couple
                // (window flows under the FSE) stay uncoupled.
                f.group.is_some() && f.kind.coupling().is_some_and(&couples)
            })
            .collect();
        Self {
            manager,
            ids: vec![None; flows.len()],
            index_of: std::collections::BTreeMap::new(),
            keys,
            coupled,
            rejected: Vec::new(),
            rejected_total: 0,
            clock: None,
        }
    }

    /// The same hook, setting `clock` to the time of each call before the manager runs.
    pub fn with_clock(mut self, clock: RuleClock) -> Self {
        self.clock = Some(clock);
        self
    }

    fn tick(&self, now: Timestamp) {
        if let Some(clock) = &self.clock {
            clock.set(now);
        }
    }

    /// How many calls the manager rejected so far ([`CouplingHook::rejected`] keeps
    /// the first [`MAX_REJECTIONS_KEPT`] with their reasons).
    pub fn rejected_total(&self) -> u64 {
        self.rejected_total
    }

    fn reject(&mut self, at: Timestamp, flow: usize, call: CouplingCall, reason: CouplingError) {
        self.rejected_total += 1;
        if self.rejected.len() < MAX_REJECTIONS_KEPT {
            self.rejected.push(Rejection {
                at,
                flow,
                call,
                reason,
            });
        }
    }

    fn push(
        index_of: &std::collections::BTreeMap<FlowId, usize>,
        allocs: &[Allocation],
        out: &mut Vec<(usize, Allowance)>,
    ) {
        for a in allocs {
            if let Some(&i) = index_of.get(&a.flow) {
                out.push((i, a.allowance));
            }
        }
    }

    fn register(&mut self, now: Timestamp, flow: &FlowInfo, snapshot: Option<&FlowReport>) {
        let Some(report) = snapshot else { return };
        let spec = match report {
            FlowReport::Rate { rate, .. } => CoreFlowSpec::Rate {
                priority: flow.priority,
                initial_rate: *rate,
                desired_rate: flow.desired_rate,
            },
            FlowReport::Window { cwnd, rtt, .. } => CoreFlowSpec::Window {
                priority: flow.priority,
                initial_cwnd: *cwnd,
                initial_rtt: *rtt,
                initial_max_cwnd: None,
                mtu: window_mtu(flow.kind),
            },
        };
        let key = self.keys.get(flow.index).copied().unwrap_or(GroupKey(0));
        match self.manager.register(key, spec) {
            Ok(id) => {
                if let Some(slot) = self.ids.get_mut(flow.index) {
                    *slot = Some(id);
                }
                self.index_of.insert(id, flow.index);
            }
            Err(e) => self.reject(now, flow.index, CouplingCall::Register, e),
        }
    }
}

/// The unit a window flow's cwnd moves in (SCTP: 1200 B MTU; TCP: 1460 B SMSS), the
/// flowstate-core defaults the simulator's flows use (the kind's coupling role).
fn window_mtu(kind: FlowKind) -> DataSize {
    kind.window_mtu().unwrap_or(DataSize::bytes(1460))
}

impl CouplingHook for ManagerHook {
    fn on_state(&mut self, _now: Timestamp, _flow: &FlowInfo, _state: FlowState) {}

    fn on_priority(&mut self, now: Timestamp, flow: &FlowInfo, priority: f64) {
        self.tick(now);
        if let Some(id) = self.ids.get(flow.index).copied().flatten() {
            if let Err(e) = self.manager.set_priority(id, priority) {
                self.reject(now, flow.index, CouplingCall::SetPriority, e);
            }
        }
    }

    fn on_desired_rate(&mut self, now: Timestamp, flow: &FlowInfo, rate: Bitrate) {
        self.tick(now);
        if let Some(id) = self.ids.get(flow.index).copied().flatten() {
            if let Err(e) = self.manager.set_desired_rate(id, Some(rate)) {
                self.reject(now, flow.index, CouplingCall::SetDesiredRate, e);
            }
        }
    }

    fn rejected(&self) -> &[Rejection] {
        &self.rejected
    }

    fn use_dynamic_groups(&mut self, key: &dyn Fn(usize) -> u64, decision_interval: TimeDelta) {
        for (i, k) in self.keys.iter_mut().enumerate() {
            *k = GroupKey(key(i));
        }
        // A negative interval cannot come from a validated [sbd] section (T > 0).
        if let Ok(m) = self
            .manager
            .clone()
            .with_min_regroup_interval(decision_interval)
        {
            self.manager = m;
        }
    }

    fn on_regroup(
        &mut self,
        now: Timestamp,
        flow: &FlowInfo,
        key: u64,
        out: &mut Vec<(usize, Allowance)>,
    ) -> RegroupOutcome {
        self.tick(now);
        let Some(slot) = self.keys.get_mut(flow.index) else {
            return RegroupOutcome::Pending;
        };
        let Some(id) = self.ids.get(flow.index).copied().flatten() else {
            // Not registered (yet): it joins `key` when it registers.
            *slot = GroupKey(key);
            return RegroupOutcome::Pending;
        };
        match self.manager.move_flow(now, id, GroupKey(key)) {
            Ok(Regroup::Moved(allocs)) => {
                Self::push(&self.index_of, allocs, out);
                self.keys[flow.index] = GroupKey(key);
                RegroupOutcome::Moved
            }
            Ok(Regroup::Unchanged) => RegroupOutcome::Unchanged,
            Ok(Regroup::Deferred { .. }) => RegroupOutcome::Deferred,
            Err(e) => {
                self.reject(now, flow.index, CouplingCall::Regroup, e);
                RegroupOutcome::Deferred
            }
        }
    }

    fn on_state_with(
        &mut self,
        now: Timestamp,
        flow: &FlowInfo,
        state: FlowState,
        snapshot: Option<&FlowReport>,
        out: &mut Vec<(usize, Allowance)>,
    ) {
        if !self.coupled.get(flow.index).copied().unwrap_or(false) {
            return;
        }
        self.tick(now);
        let registered = self.ids.get(flow.index).copied().flatten();
        match (state, registered) {
            (FlowState::Active, None) => self.register(now, flow, snapshot),
            (FlowState::Stopped, Some(id)) => {
                if let Some(slot) = self.ids.get_mut(flow.index) {
                    *slot = None;
                }
                self.index_of.remove(&id);
                match self.manager.deregister(id) {
                    Ok(allocs) => Self::push(&self.index_of, allocs, out),
                    Err(e) => self.reject(now, flow.index, CouplingCall::Deregister, e),
                }
            }
            _ => {}
        }
    }

    fn on_report(
        &mut self,
        now: Timestamp,
        flow: usize,
        report: &FlowReport,
        out: &mut Vec<(usize, Allowance)>,
    ) {
        let Some(id) = self.ids.get(flow).copied().flatten() else {
            return;
        };
        self.tick(now);
        match self.manager.update(now, id, report.clone()) {
            Ok(allocs) => Self::push(&self.index_of, allocs, out),
            Err(e) => self.reject(now, flow, CouplingCall::Report, e),
        }
    }
}

/// A mechanism/option error as one line naming the scenario field
/// (`coupling.options.<name>: ...` for a bad option).
fn option_error(e: &OptionError) -> FieldError {
    match e {
        OptionError::UnknownOption { option, .. } | OptionError::WrongType { option, .. } => {
            FieldError::new(format!("coupling.options.{option}"), e.to_string())
        }
        _ => FieldError::new("coupling", e.to_string()),
    }
}

/// Builds `none` ([`NoCoupling`]) and every flowstate-core mechanism
/// ([`ManagerHook`] over [`mechanism_with_options`]).
#[derive(Debug, Clone, Copy, Default)]
pub struct DefaultCouplingFactory;

impl CouplingFactory for DefaultCouplingFactory {
    fn build(
        &self,
        mechanism: &str,
        options: &toml::Table,
        flows: &[FlowInfo],
    ) -> Result<Box<dyn CouplingHook>, SimError> {
        if mechanism == "none" {
            if let Some(k) = options.keys().next() {
                return Err(SimError::Build(FieldError::new(
                    format!("coupling.options.{k}"),
                    "mechanism 'none' takes no options",
                )));
            }
            return Ok(Box::new(NoCoupling));
        }
        if mechanism == crate::coupling_rule::MECHANISM {
            return Err(SimError::Build(crate::coupling_rule::refuse()));
        }
        let values = option_values(options)?;
        let m = mechanism_with_options(mechanism, values.iter().map(|(k, v)| (k.as_str(), v)))
            .map_err(|e| SimError::Build(option_error(&e)))?;
        Ok(Box::new(ManagerHook::new(m, flows)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gcc(index: usize) -> FlowInfo {
        FlowInfo {
            index,
            name: format!("gcc{index}"),
            kind: FlowKind::from_name("gcc").expect("a kind"),
            priority: 1.0,
            desired_rate: None,
            group: Some("g".into()),
        }
    }

    #[test]
    fn a_rejected_report_is_kept_with_its_flow_and_reason() {
        let flows = [gcc(0), gcc(1)];
        let mut hook = ManagerHook::new(Mechanism::from_name("conservative-fse").unwrap(), &flows);
        let mut out = Vec::new();
        let start = FlowReport::Rate {
            rate: Bitrate::mbps(1.0),
            rtt: None,
        };
        for f in &flows {
            hook.on_state_with(
                Timestamp::ZERO,
                f,
                FlowState::Active,
                Some(&start),
                &mut out,
            );
        }
        assert!(hook.rejected().is_empty());
        // The conservative FSE needs an RTT to arm its timer on a decrease.
        let at = Timestamp::from_micros(2_000_000);
        let decrease = FlowReport::Rate {
            rate: Bitrate::mbps(0.5),
            rtt: None,
        };
        hook.on_report(at, 1, &decrease, &mut out);
        assert!(out.is_empty(), "nothing is applied for a rejected report");
        let rejected = hook.rejected();
        assert_eq!(rejected.len(), 1);
        assert_eq!(rejected[0].flow, 1);
        assert_eq!(rejected[0].call, CouplingCall::Report);
        assert!(matches!(
            rejected[0].reason,
            CouplingError::MissingRtt {
                mechanism: "conservative FSE",
                ..
            }
        ));
        assert_eq!(hook.rejected_total(), 1);
        let line = rejected[0].to_string();
        assert!(
            line.contains("flows[1]: Report rejected: conservative FSE needs an RTT"),
            "{line}"
        );
    }
}
