//! `[coupling] mechanism = "python"`: a coupling rule written outside the simulator
//! (a Python class, `rule = "module:Class"`, `params = {...}`), run by the coupling
//! manager as a custom mechanism (flowstate-coupling's `CustomMechanism`).
//!
//! The driver that can load the rule (the Python package) hands the run a
//! [`RuleMaker`] (crate::rule_runs): one [`RuleGroup`] per flow group, asked at each
//! of the group's events with a plain view of its flows ([`RuleFlow`]). Everything
//! between those calls and the manager is here, so that the binding only converts
//! values: the group's bookkeeping (each flow's newest report), the checks of what the
//! rule returns (a flow of the group, a finite number >= 0) and the allocations made
//! from it (a rate flow's rate; a window flow's cwnd, rounded down to whole MTUs, at
//! least one MTU). A return that fails a check stops the run with one line
//! ([`RuleGroup::bad_return`]); the Rust-only tools refuse the mechanism
//! ([`refuse`]).

use std::collections::BTreeMap;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use crate::error::FieldError;
use flowstate_core::coupling::{
    Allocation, Allowance, CouplingError, CouplingRules, CustomMechanism, FlowEntry, FlowGroup,
    FlowId, FlowKind, FlowSpec, RateReportMode, RateUpdate, WindowUpdate,
};
use flowstate_core::{Bitrate, DataSize, Timestamp};
use rand::RngExt;
use rand_chacha::ChaCha8Rng;

/// The scenario name of the mechanism.
pub const MECHANISM: &str = "python";

/// `rule` and `params` go with `mechanism = "python"` only, which needs a `rule` and
/// takes no `options`. Error: the field, under `coupling.`.
pub fn check_fields(
    mechanism: &str,
    rule: Option<&str>,
    params: &toml::Table,
    options: &toml::Table,
    gcc_report: Option<&str>,
) -> Result<(), FieldError> {
    if mechanism != MECHANISM {
        if gcc_report.is_some() {
            return Err(FieldError::new(
                "coupling.gcc_report",
                format!("only mechanism = \"{MECHANISM}\" takes a gcc_report; mechanism \"{mechanism}\" sets what GCC reports itself"),
            ));
        }
        let only = |field: &str| {
            FieldError::new(
                format!("coupling.{field}"),
                format!("only mechanism = \"{MECHANISM}\" (a coupling rule written in Python) takes a {field}; mechanism \"{mechanism}\" has options instead"),
            )
        };
        if rule.is_some() {
            return Err(only("rule"));
        }
        if !params.is_empty() {
            return Err(only("params"));
        }
        return Ok(());
    }
    if rule.map_or(true, |r| r.trim().is_empty()) {
        return Err(FieldError::new(
            "coupling.rule",
            "mechanism = \"python\" needs the rule's class: rule = \"module:Class\" (or \"file.py:Class\")",
        ));
    }
    if let Some(r) = gcc_report.filter(|r| gcc_report_mode(r).is_none()) {
        return Err(FieldError::new(
            "coupling.gcc_report",
            format!("expected \"target\" (min of GCC's loss- and delay-based estimates) or \"delay-based\", got \"{r}\""),
        ));
    }
    if let Some(k) = options.keys().next() {
        return Err(FieldError::new(
            format!("coupling.options.{k}"),
            "a Python coupling rule takes params = { ... } (its constructor's keyword arguments), not options",
        ));
    }
    Ok(())
}

/// `gcc_report` as a report mode: `target` or `delay-based` (any case, `-`, `_` or a
/// space between words).
pub fn gcc_report_mode(name: &str) -> Option<RateReportMode> {
    if flowstate_core::names::same_name(name, "target") {
        Some(RateReportMode::Target)
    } else if flowstate_core::names::same_name(name, "delay-based") {
        Some(RateReportMode::DelayBased)
    } else {
        None
    }
}

/// The default coupling factory's answer to `mechanism = "python"` (the Rust-only
/// tools cannot load Python code).
pub fn refuse() -> FieldError {
    FieldError::new(
        "coupling.mechanism",
        "\"python\" runs a coupling rule written in Python: run the scenario with `flowstate run` or flowstate.run() (the Python package); this tool cannot load it",
    )
}

/// The simulated time of the run, as the manager's hooks last saw it: a rule's
/// register and leave events carry no time of their own. The run's coupling hook sets
/// it before every call into the manager.
#[derive(Debug, Clone, Default)]
pub struct RuleClock(Arc<AtomicU64>);

impl RuleClock {
    pub fn set(&self, now: Timestamp) {
        self.0.store(now.as_micros(), Ordering::Relaxed);
    }
    pub fn now(&self) -> Timestamp {
        Timestamp::from_micros(self.0.load(Ordering::Relaxed))
    }
}

/// One flow of a group as a rule sees it: the manager's entry and the flow's newest
/// report. Rates in bit/s, sizes in bytes, times in seconds.
#[derive(Debug, Clone, PartialEq)]
pub struct RuleFlow {
    /// The flow's id in the coupling manager (what the rule's answer names).
    pub id: u64,
    pub kind: FlowKind,
    pub priority: f64,
    /// DR(f), `None` = unlimited (rate flows).
    pub desired_bps: Option<f64>,
    /// FSE_R(f): what the rule last allowed the flow (a rate flow's initial rate until
    /// then; for a window flow, its allowed cwnd over its RTT, 0 until known).
    pub allocated_bps: f64,
    /// The newest rate the flow's controller reported (its initial rate at first;
    /// `None` for a window flow).
    pub rate_bps: Option<f64>,
    /// A window flow's newest cwnd, ssthresh and MTU (`None` for a rate flow).
    pub cwnd_bytes: Option<u64>,
    pub ssthresh_bytes: Option<u64>,
    pub mtu_bytes: Option<u64>,
    /// The newest RTT sample the flow reported, if any.
    pub rtt_s: Option<f64>,
}

/// What happened to a group, for its rule.
#[derive(Debug, Clone, PartialEq)]
pub enum RuleEvent {
    /// The flow at this index of the group's flows joined.
    Register(usize),
    /// The flow at this index reported a new value (already in its view).
    Report(usize),
    /// This flow left (no longer among the group's flows).
    Leave(RuleFlow),
}

/// Why a rule's call gave nothing: the rule failed and its driver keeps why (the run
/// stops at its next check).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RuleFailed;

/// One flow group's rule object.
pub trait RuleGroup: fmt::Debug + Send + Sync {
    /// `event` happened at `now`; `flows` are the group's flows after it, in
    /// registration order. Returns the allowances the rule sets, `(flow id, value)`:
    /// bit/s for a rate flow, cwnd bytes for a window flow (none: nothing changes).
    fn call(
        &mut self,
        now: Timestamp,
        event: &RuleEvent,
        flows: &[RuleFlow],
    ) -> Result<Vec<(i64, f64)>, RuleFailed>;

    /// What the rule returned at `now` failed a check: `message` says which and why.
    /// The driver stops the run with it.
    fn bad_return(&mut self, now: Timestamp, message: String);

    /// The same object, shared (a coupling manager is `Clone`).
    fn share(&self) -> Box<dyn RuleGroup>;
}

/// Makes the rule object of each new flow group.
pub trait RuleMaker: fmt::Debug + Send + Sync {
    /// The rule of a new group; `seed` is the group's own (drawn from the run's seed).
    fn new_group(&self, seed: u64) -> Box<dyn RuleGroup>;
    /// The kinds of flow the rule couples (the others stay uncoupled).
    fn flow_kinds(&self) -> &'static [FlowKind];
}

/// A [`RuleMaker`]'s rules as flowstate-coupling's custom mechanism.
#[derive(Debug)]
pub struct RuleMechanism {
    maker: Box<dyn RuleMaker>,
    clock: RuleClock,
    /// Draws each new group's seed, in the order groups are made.
    seeds: Mutex<ChaCha8Rng>,
}

impl RuleMechanism {
    /// `maker`'s rules; `clock` gives the time of events that carry none, `rng` each
    /// group's seed.
    pub fn new(maker: Box<dyn RuleMaker>, clock: RuleClock, rng: ChaCha8Rng) -> Self {
        Self {
            maker,
            clock,
            seeds: Mutex::new(rng),
        }
    }
}

impl CustomMechanism for RuleMechanism {
    fn display_name(&self) -> &'static str {
        "python coupling rule"
    }
    fn flow_kinds(&self) -> &'static [FlowKind] {
        self.maker.flow_kinds()
    }
    fn new_group(&self) -> Box<dyn CouplingRules> {
        let seed = match self.seeds.lock() {
            Ok(mut rng) => rng.random(),
            Err(poisoned) => poisoned.into_inner().random(),
        };
        Box::new(RuleRules {
            rule: self.maker.new_group(seed),
            clock: self.clock.clone(),
            reported: BTreeMap::new(),
        })
    }
}

/// One group's rule with the flows' newest reports.
#[derive(Debug)]
struct RuleRules {
    rule: Box<dyn RuleGroup>,
    clock: RuleClock,
    /// Each rate flow's newest reported rate (bit/s) and RTT (s).
    reported: BTreeMap<FlowId, (f64, Option<f64>)>,
}

impl Clone for RuleRules {
    fn clone(&self) -> Self {
        Self {
            rule: self.rule.share(),
            clock: self.clock.clone(),
            reported: self.reported.clone(),
        }
    }
}

impl RuleRules {
    fn view(&self, f: &FlowEntry) -> RuleFlow {
        let (rate, rtt) = self
            .reported
            .get(&f.id())
            .map_or((None, None), |(r, t)| (Some(*r), *t));
        let window = f.window();
        RuleFlow {
            id: f.id().0,
            kind: f.kind(),
            priority: f.priority(),
            desired_bps: Some(f.desired_rate()).filter(|d| d.is_finite()),
            allocated_bps: f.fse_r(),
            rate_bps: rate,
            cwnd_bytes: window.map(|w| w.cwnd().as_bytes()),
            ssthresh_bytes: window.map(|w| w.ssthresh().as_bytes()),
            mtu_bytes: window.map(|w| w.mtu().as_bytes()),
            rtt_s: window.map_or(rtt, |w| w.last_rtt().map(|r| r.as_secs_f64())),
        }
    }

    /// Asks the rule about `event` and applies its answer to `group`, pushing the
    /// allocations into `out`.
    fn ask(
        &mut self,
        now: Timestamp,
        group: &mut FlowGroup,
        event: RuleEvent,
        out: &mut Vec<Allocation>,
    ) {
        let flows: Vec<RuleFlow> = group.flows().iter().map(|f| self.view(f)).collect();
        let Ok(answer) = self.rule.call(now, &event, &flows) else {
            return;
        };
        match allocations(group, &answer) {
            Ok(allocs) => {
                for (idx, a) in allocs {
                    group.set_fse_r(idx, a.rate.as_bps());
                    out.push(a);
                }
                let s_cr = group.flows().iter().map(FlowEntry::fse_r).sum();
                group.set_s_cr(s_cr);
            }
            Err(message) => self.rule.bad_return(now, message),
        }
    }
}

/// The rule's answer as allocations, each with its flow's index in `group`; error:
/// what is wrong with it, in words.
fn allocations(
    group: &FlowGroup,
    answer: &[(i64, f64)],
) -> Result<Vec<(usize, Allocation)>, String> {
    let ids = || {
        group
            .flows()
            .iter()
            .map(|f| f.id().0.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut out = Vec::with_capacity(answer.len());
    for &(id, value) in answer {
        let idx = u64::try_from(id)
            .ok()
            .and_then(|id| group.index_of(FlowId(id)))
            .ok_or_else(|| {
                format!(
                    "flow id {id} is not in the group (its flows are {}): allow only the flows the call lists, by their id",
                    ids()
                )
            })?;
        let flow = &group.flows()[idx];
        if !(value.is_finite() && value >= 0.0) {
            let unit = if flow.is_rate() {
                "a rate in bit/s"
            } else {
                "a cwnd in bytes"
            };
            return Err(format!(
                "flow {id}'s allowance is {value}: it must be {unit}, a finite number >= 0"
            ));
        }
        let allocation = match flow.window() {
            None => Allocation {
                flow: flow.id(),
                rate: Bitrate::bps(value),
                allowance: Allowance::Rate(Bitrate::bps(value)),
            },
            Some(w) => {
                let mtu = w.mtu();
                let cwnd = DataSize::bytes(value as u64).round_down_to(mtu).max(mtu);
                let rate = w.last_rtt().map_or(flow.fse_r(), |rtt| {
                    cwnd.as_bytes() as f64 * 8.0 / rtt.as_secs_f64()
                });
                Allocation {
                    flow: flow.id(),
                    rate: Bitrate::bps(rate),
                    allowance: Allowance::Window {
                        cwnd,
                        ssthresh: None,
                    },
                }
            }
        };
        out.push((idx, allocation));
    }
    Ok(out)
}

impl CouplingRules for RuleRules {
    fn register(&mut self, group: &mut FlowGroup, idx: usize, spec: &FlowSpec) {
        if let FlowSpec::Rate { initial_rate, .. } = spec {
            let bps = initial_rate.as_bps();
            self.reported.insert(group.flows()[idx].id(), (bps, None));
            group.set_fse_r(idx, bps);
        }
        // As with the built-in mechanisms, a join changes the flows' allowances at the
        // group's next report: registration hands the flows nothing.
        let now = self.clock.now();
        let flows: Vec<RuleFlow> = group.flows().iter().map(|f| self.view(f)).collect();
        if let Ok(answer) = self.rule.call(now, &RuleEvent::Register(idx), &flows) {
            if !answer.is_empty() {
                self.rule.bad_return(
                    now,
                    "on_register returned allowances: it returns None (a join changes the allowances at the group's next report, from on_report)".into(),
                );
            }
        }
    }

    fn rate_update(
        &mut self,
        group: &mut FlowGroup,
        u: RateUpdate,
        out: &mut Vec<Allocation>,
    ) -> Result<(), CouplingError> {
        let rtt = u.rtt.map(|r| r.as_secs_f64());
        self.reported
            .insert(group.flows()[u.idx].id(), (u.cc_r, rtt));
        self.ask(u.now, group, RuleEvent::Report(u.idx), out);
        Ok(())
    }

    fn window_update(&mut self, group: &mut FlowGroup, u: WindowUpdate, out: &mut Vec<Allocation>) {
        self.ask(self.clock.now(), group, RuleEvent::Report(u.idx), out);
    }

    fn deregistered(
        &mut self,
        group: &mut FlowGroup,
        removed: &FlowEntry,
        out: &mut Vec<Allocation>,
    ) {
        let view = self.view(removed);
        self.reported.remove(&removed.id());
        self.ask(self.clock.now(), group, RuleEvent::Leave(view), out);
    }
}
