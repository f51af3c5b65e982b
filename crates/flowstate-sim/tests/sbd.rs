//! Shared bottleneck detection (RFC 8382) in the simulator's flows (crate::sbd): the
//! verdicts on a dumbbell, determinism, observation without effect, and the coupling
//! manager's moves when `coupling.groups = "sbd"`.

mod common;

use std::cell::RefCell;
use std::rc::Rc;

use flowstate_core::coupling::{Allowance, FlowReport};
use flowstate_core::{Bitrate, TimeDelta, Timestamp};
use flowstate_sim::app_stats::{AppControl, AppStats, StatsSchedule};
use flowstate_sim::coupling::{
    CouplingFactory, CouplingHook, DefaultCouplingFactory, FlowInfo, Rejection,
};
use flowstate_sim::flow::FlowState;
use flowstate_sim::run::{run_with, DefaultFlowFactory};
use flowstate_sim::sbd::RegroupOutcome;
use flowstate_sim::{run_toml, SimError};

/// Two SCTP flows and a GCC flow on one 4 Mbit/s dumbbell, SBD measuring.
const DUMBBELL: &str = r#"
name = "sbd-dumbbell"
duration = "40s"
[link]
capacity = "4Mbps"
delay = "25ms"
queue = "100ms"
[sbd]
[[flows]]
name = "sctp"
kind = "sctp"
count = 2
start_jitter = "1s"
[[flows]]
name = "gcc"
kind = "gcc"
"#;

#[test]
fn the_dumbbell_verdict_converges_to_one_group() {
    let s = common::summary(DUMBBELL);
    let sbd = s.sbd.as_ref().expect("an sbd summary");
    assert_eq!(sbd.groups, "static");
    assert_eq!(sbd.interval_s, 0.35);
    // One grouping run per T from T on.
    assert_eq!(sbd.timeline.len(), (40.0f64 / 0.35).ceil() as usize - 1);
    // Every pair shares the one bottleneck; from 20 s on SBD says so at every run.
    let late: Vec<_> = sbd.timeline.iter().filter(|v| v.time_s >= 20.0).collect();
    assert!(
        late.iter().all(|v| v.pairs == 3 && v.correct_pairs == 3),
        "{late:?}"
    );
    let first = s
        .aggregate
        .sbd_time_to_correct_s
        .expect("correct at some run");
    assert!(first < 20.0, "first correct grouping at {first} s");
    let g = late[0].groups[0].expect("a verdict");
    assert!(late.iter().all(|v| v.groups == vec![Some(g); 3]));
    assert!(late.iter().all(|v| v.truth == vec![Some(0); 3]));
    // Static groups: nothing moves.
    assert_eq!(s.aggregate.sbd_regroups, Some(0));
}

#[test]
fn sbd_runs_are_deterministic() {
    let a = run_toml(DUMBBELL, "a.toml", Some(3)).unwrap();
    let b = run_toml(DUMBBELL, "b.toml", Some(3)).unwrap();
    assert_eq!(a.trace_hash, b.trace_hash);
    assert_eq!(a.summary.sbd, b.summary.sbd);
    let follow = DUMBBELL.replace(
        "[sbd]",
        "[coupling]\nmechanism = \"fse-ng\"\ngroups = \"sbd\"",
    );
    let a = run_toml(&follow, "a.toml", Some(3)).unwrap();
    let b = run_toml(&follow, "b.toml", Some(3)).unwrap();
    assert_eq!(a.trace_hash, b.trace_hash);
    assert_eq!(a.summary.sbd, b.summary.sbd);
    assert_eq!(a.summary.sbd.unwrap().groups, "sbd");
}

#[test]
fn measuring_with_static_groups_changes_no_packet() {
    let coupled = DUMBBELL.replace("[sbd]", "[sbd]\n[coupling]\nmechanism = \"fse-ng\"");
    let without = coupled.replace("[sbd]\n", "");
    let a = run_toml(&coupled, "a.toml", Some(1)).unwrap();
    let b = run_toml(&without, "b.toml", Some(1)).unwrap();
    assert_eq!(a.trace_hash, b.trace_hash);
    assert!(a.summary.sbd.is_some() && b.summary.sbd.is_none());
}

#[test]
fn bad_sbd_settings_are_named() {
    for (text, expect) in [
        (
            DUMBBELL.replace("[sbd]", "[sbd]\nm = 60"),
            "test.toml: sbd: SBD window counts must satisfy 1 <= M <= N",
        ),
        (
            DUMBBELL.replace("[sbd]", "[sbd]\np_mad = -1.0"),
            "test.toml: sbd: SBD parameter p_mad must be a finite number >= 0, got -1",
        ),
        (
            DUMBBELL.replace("[sbd]", "[sbd]\nbase_interval = \"0s\""),
            "test.toml: sbd: SBD base interval T must be positive",
        ),
        (
            DUMBBELL.replace("[sbd]", "[coupling]\nmechanism = \"fse\"\ngroups = \"magic\""),
            "test.toml: coupling.groups: expected one of static|sbd, got \"magic\"",
        ),
        (
            DUMBBELL.replace("[sbd]", "[coupling]\nmechanism = \"none\"\ngroups = \"sbd\""),
            "test.toml: coupling.groups: \"sbd\" moves flows between a coupling manager's groups; mechanism \"none\" has none",
        ),
        (
            DUMBBELL.replace("[sbd]", "[sbd]\nt = \"1s\""),
            "test.toml: sbd.t: unknown field",
        ),
    ] {
        let e = common::parse_error(&text, "test.toml");
        assert!(e.starts_with(expect), "{e}\n  expected: {expect}");
    }
}

/// The catalogue's parking lot (scenarios/sbd-parking-lot): GCC flows a (hop1), b (both
/// hops), c (hop2) of one host; a TCP flow loads hop1 for 0-45 s, then hop2.
const PARKING_LOT: &str = include_str!("../../../scenarios/sbd-parking-lot/base.toml");

/// The fraction of the runs in `[from, to)` at which flows `i` and `j` were grouped.
fn together(s: &flowstate_sim::metrics::Summary, i: usize, j: usize, from: f64, to: f64) -> f64 {
    let runs: Vec<_> = s
        .sbd
        .as_ref()
        .unwrap()
        .timeline
        .iter()
        .filter(|v| v.time_s >= from && v.time_s < to)
        .collect();
    let same = runs
        .iter()
        .filter(|v| v.groups[i].is_some() && v.groups[i] == v.groups[j])
        .count();
    same as f64 / runs.len() as f64
}

#[test]
fn on_a_parking_lot_the_verdict_follows_the_moving_bottleneck() {
    let s = common::summary(PARKING_LOT);
    let tl = &s.sbd.as_ref().unwrap().timeline;
    // The ground truth moves: b shares hop1 (link 0) with a, then hop2 (link 1) with c.
    let at = |t: f64| tl.iter().find(|v| v.time_s >= t).unwrap();
    assert_eq!(at(30.0).truth[..3], [Some(0), Some(0), Some(1)]);
    assert_eq!(at(80.0).truth[..3], [Some(0), Some(1), Some(1)]);
    assert!(
        together(&s, 0, 1, 15.0, 45.0) >= 0.8,
        "a and b before the move"
    );
    assert!(
        together(&s, 1, 2, 15.0, 45.0) <= 0.1,
        "b and c before the move"
    );
    let bc = together(&s, 1, 2, 75.0, 90.0);
    assert!(bc >= 0.6, "b and c after the move: {bc}");
    assert!(
        together(&s, 0, 1, 75.0, 90.0) <= 0.1,
        "a and b after the move"
    );
    // Following the verdicts, the FSE moves b from a's group to c's.
    let follow = PARKING_LOT.replace(
        "[sbd]",
        "[sbd]\n[coupling]\nmechanism = \"fse\"\ngroups = \"sbd\"",
    );
    let f = common::summary(&follow);
    assert!(
        f.flows[1].sbd_regroups.unwrap() >= 2,
        "{:?}",
        f.flows[1].sbd_regroups
    );
}

/// What a wrapped hook saw: every call's allowances with the groups at that time.
#[derive(Default)]
struct Log {
    /// Coupling group per flow (scenario index), as the moves left them.
    key: Vec<u64>,
    /// Last rate each flow had (its report or, for a rate flow, its allowance).
    rate: Vec<f64>,
    /// The flow reported a window (its rate above is only an estimate).
    window: Vec<bool>,
    last_move: Vec<Option<Timestamp>>,
    /// The decision interval (T).
    interval: TimeDelta,
    /// Per group: the rates of flows that left it since its members' rates were last
    /// reallocated (the FSE keeps a leaver's share for the others, RFC 8699 5.1; the
    /// group hands it out at its next update).
    leftover: std::collections::HashMap<u64, f64>,
    moves: u64,
    violations: Vec<String>,
}

/// A report's rate: a rate flow's, or a window flow's cwnd / RTT (what FSE-NG counts).
/// `None`: a window report without an RTT (the flow's last rate stands).
fn rate_of(report: &FlowReport) -> Option<f64> {
    match report {
        FlowReport::Rate { rate, .. } => Some(rate.as_bps()),
        FlowReport::Window { cwnd, rtt, .. } => rtt
            .filter(|r| r.is_positive())
            .map(|r| cwnd.as_bytes() as f64 * 8.0 / r.as_secs_f64()),
    }
}

struct Checked {
    inner: Box<dyn CouplingHook>,
    log: Rc<RefCell<Log>>,
}

impl Checked {
    fn note_allowances(log: &mut Log, out: &[(usize, Allowance)]) {
        for (g, a) in out {
            if let Allowance::Rate(r) = a {
                log.rate[*g] = r.as_bps();
            }
        }
    }
}

impl CouplingHook for Checked {
    fn on_state(&mut self, now: Timestamp, flow: &FlowInfo, state: FlowState) {
        self.inner.on_state(now, flow, state);
    }
    fn on_state_with(
        &mut self,
        now: Timestamp,
        flow: &FlowInfo,
        state: FlowState,
        snapshot: Option<&FlowReport>,
        out: &mut Vec<(usize, Allowance)>,
    ) {
        self.inner.on_state_with(now, flow, state, snapshot, out);
        if let Some(r) = snapshot.and_then(rate_of) {
            self.log.borrow_mut().rate[flow.index] = r;
        }
    }
    fn on_priority(&mut self, now: Timestamp, flow: &FlowInfo, priority: f64) {
        self.inner.on_priority(now, flow, priority);
    }
    fn on_desired_rate(&mut self, now: Timestamp, flow: &FlowInfo, rate: Bitrate) {
        self.inner.on_desired_rate(now, flow, rate);
    }
    fn stats_schedule(&self) -> Option<StatsSchedule> {
        self.inner.stats_schedule()
    }
    fn on_stats(
        &mut self,
        now: Timestamp,
        s: &[Option<AppStats>],
        o: &mut Vec<(usize, AppControl)>,
    ) {
        self.inner.on_stats(now, s, o);
    }
    fn rejected(&self) -> &[Rejection] {
        self.inner.rejected()
    }
    fn use_dynamic_groups(&mut self, key: &dyn Fn(usize) -> u64, interval: TimeDelta) {
        let mut log = self.log.borrow_mut();
        for (i, k) in log.key.iter_mut().enumerate() {
            *k = key(i);
        }
        log.interval = interval;
        drop(log);
        self.inner.use_dynamic_groups(key, interval);
    }
    fn on_report(
        &mut self,
        now: Timestamp,
        flow: usize,
        report: &FlowReport,
        out: &mut Vec<(usize, Allowance)>,
    ) {
        let start = out.len();
        self.inner.on_report(now, flow, report, out);
        let mut log = self.log.borrow_mut();
        if let Some(r) = rate_of(report) {
            log.rate[flow] = r;
        }
        log.window[flow] = matches!(report, FlowReport::Window { .. });
        let k = log.key[flow];
        if out.len() > start {
            log.leftover.remove(&k);
        }
        for (g, _) in &out[start..] {
            if log.key[*g] != k {
                let v = format!(
                    "{now}: flow {flow}'s report (group {k}) allocated to flow {g} (group {})",
                    log.key[*g]
                );
                log.violations.push(v);
            }
        }
        Self::note_allowances(&mut log, &out[start..]);
    }
    fn on_regroup(
        &mut self,
        now: Timestamp,
        flow: &FlowInfo,
        key: u64,
        out: &mut Vec<(usize, Allowance)>,
    ) -> RegroupOutcome {
        let start = out.len();
        let outcome = self.inner.on_regroup(now, flow, key, out);
        let mut log = self.log.borrow_mut();
        let f = flow.index;
        let from = log.key[f];
        if outcome == RegroupOutcome::Moved {
            log.moves += 1;
            if let Some(last) = log.last_move[f] {
                if now.saturating_since(last) < log.interval {
                    let v = format!(
                        "{now}: flow {f} moved again {} after {last}",
                        now.saturating_since(last)
                    );
                    log.violations.push(v);
                }
            }
            log.last_move[f] = Some(now);
            // The rates of the joined group, before and after the move, with the mover.
            let members: Vec<usize> = (0..log.key.len())
                .filter(|&g| log.key[g] == key || g == f)
                .collect();
            let before: f64 = members.iter().map(|&g| log.rate[g]).sum();
            let mut after_rates = log.rate.clone();
            for (g, a) in &out[start..] {
                if let Allowance::Rate(r) = a {
                    after_rates[*g] = r.as_bps();
                }
            }
            let after: f64 = members.iter().map(|&g| after_rates[g]).sum();
            let leftover = log.leftover.get(&key).copied().unwrap_or(0.0);
            // Checked where every rate is exact: groups of rate flows (a window flow's
            // rate is the manager's own cwnd / RTT reading, which this log cannot see).
            let exact = members.iter().all(|&g| !log.window[g]);
            if exact && after > before + leftover + 1.0 {
                let v = format!("{now}: flow {f} joining group {key} raised its aggregate from {before} to {after} bit/s");
                log.violations.push(v);
            }
            for (g, _) in &out[start..] {
                let kg = log.key[*g];
                if *g != f && kg != from && kg != key {
                    let v = format!("{now}: moving flow {f} ({from} -> {key}) allocated to flow {g} of group {kg}");
                    log.violations.push(v);
                }
            }
            let mover = log.rate[f];
            *log.leftover.entry(from).or_insert(0.0) += mover;
            log.leftover.remove(&key);
            log.key[f] = key;
        } else if outcome == RegroupOutcome::Pending {
            log.key[f] = key;
        }
        Self::note_allowances(&mut log, &out[start..]);
        outcome
    }
}

struct CheckedFactory(Rc<RefCell<Log>>);

impl CouplingFactory for CheckedFactory {
    fn build(
        &self,
        mechanism: &str,
        options: &toml::Table,
        flows: &[FlowInfo],
    ) -> Result<Box<dyn CouplingHook>, SimError> {
        let inner = DefaultCouplingFactory.build(mechanism, options, flows)?;
        {
            let mut log = self.0.borrow_mut();
            log.key = flows.iter().map(|f| f.index as u64).collect();
            log.rate = vec![0.0; flows.len()];
            log.window = vec![false; flows.len()];
            log.last_move = vec![None; flows.len()];
        }
        Ok(Box::new(Checked {
            inner,
            log: self.0.clone(),
        }))
    }
}

/// GCC flows under the FSE (and window flows under FSE-NG) follow SBD's verdicts on a
/// dumbbell with TCP cross traffic: allocations stay inside the group of the flow
/// that caused them (or, for a move, inside the groups it leaves and joins), a joiner
/// raises its new group's rates by at most its own rate (plus the shares of flows that
/// left that group since its last reallocation, which the FSE keeps for the others),
/// and no flow moves twice within the decision interval (T: 350 ms, and 200 ms).
#[test]
fn moves_between_groups_keep_the_transition_rules() {
    for (mechanism, kinds) in [
        ("fse", ["gcc", "gcc", "gcc"]),
        ("fse-ng", ["tcp-newreno", "tcp-newreno", "gcc"]),
        ("fse-ng", ["sctp", "gcc", "gcc"]),
    ] {
        for interval in ["350ms", "200ms"] {
            let mut text = format!(
            "name = \"moves\"\nduration = \"60s\"\n[link]\ncapacity = \"4Mbps\"\ndelay = \"25ms\"\nqueue = \"150ms\"\n[coupling]\nmechanism = \"{mechanism}\"\ngroups = \"sbd\"\n[sbd]\nbase_interval = \"{interval}\"\n"
        );
            for (i, k) in kinds.iter().enumerate() {
                text += &format!("[[flows]]\nname = \"f{i}\"\nkind = \"{k}\"\nstart = \"{i}s\"\n");
            }
            text += "[[flows]]\nname = \"cross\"\nkind = \"tcp-cubic\"\nstart = \"3s\"\nstop = \"40s\"\n";
            let scenario = common::scenario(&text);
            let log = Rc::new(RefCell::new(Log::default()));
            let r = run_with(
                &scenario,
                1,
                &DefaultFlowFactory,
                &CheckedFactory(log.clone()),
            )
            .unwrap();
            let log = log.borrow();
            assert!(
                log.violations.is_empty(),
                "{mechanism} {kinds:?}: {:#?}",
                log.violations
            );
            assert!(log.moves > 0, "{mechanism} {kinds:?}: no move to check");
            assert_eq!(r.summary.aggregate.sbd_regroups, Some(log.moves));
        }
    }
}
