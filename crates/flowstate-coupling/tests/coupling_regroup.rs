//! Dynamic coupling groups: `CouplingManager::move_flow` when shared
//! bottleneck detection changes its verdict. Hand-computed transitions, then property
//! tests over random sequences of register / update / move / deregister for every
//! mechanism: no allocation to a flow outside its group, no aggregate jump beyond the
//! moving flow's own rate, no move faster than the minimum regroup interval.

use std::collections::BTreeMap;

use flowstate_coupling::coupling::{
    Allocation, Allowance, CouplingError, CouplingManager, DeregisterPolicy, FlowId, FlowKind,
    FlowReport, FlowSpec, GroupKey, Mechanism, Regroup, DEFAULT_MIN_REGROUP_INTERVAL,
};
use flowstate_coupling::{Bitrate, DataSize, TimeDelta, Timestamp};
use proptest::prelude::*;

const A: GroupKey = GroupKey(1);
const B: GroupKey = GroupKey(2);
const RTT: TimeDelta = TimeDelta::millis(100);
const MTU: DataSize = DataSize::bytes(1200);

fn rate_flow(priority: f64, mbps: f64) -> FlowSpec {
    FlowSpec::Rate {
        priority,
        initial_rate: Bitrate::mbps(mbps),
        desired_rate: None,
    }
}

fn window_flow(priority: f64, cwnd: u64) -> FlowSpec {
    FlowSpec::Window {
        priority,
        initial_cwnd: DataSize::bytes(cwnd),
        initial_rtt: Some(RTT),
        initial_max_cwnd: Some(DataSize::bytes(64_000)),
        mtu: MTU,
    }
}

fn rate(mbps: f64) -> FlowReport {
    FlowReport::Rate {
        rate: Bitrate::mbps(mbps),
        rtt: Some(RTT),
    }
}

fn ms(v: u64) -> Timestamp {
    Timestamp::from_millis(v)
}

fn mbps(a: &Allocation) -> f64 {
    a.rate.as_mbps()
}

fn close(a: f64, b: f64) {
    assert!((a - b).abs() < 1e-9, "{a} != {b}");
}

#[test]
fn a_leaving_flow_gives_its_share_back_and_a_joining_flow_takes_its_priority_share() {
    let mut m = CouplingManager::new(Mechanism::from_name("fse").unwrap());
    let a = m.register(A, rate_flow(2.0, 1.0)).unwrap();
    let b = m.register(A, rate_flow(1.0, 1.0)).unwrap();
    let c = m.register(B, rate_flow(1.0, 1.0)).unwrap();
    // S_CR(A) = 1 + 1 + (2 - 1) = 3 Mbit/s: a 2, b 1.
    m.update(ms(0), a, rate(2.0)).unwrap();
    // b moves to B: S_CR(B) = 1 + b's 1 = 2 Mbit/s, split 1:1 at once.
    let Regroup::Moved(out) = m.move_flow(ms(10), b, B).unwrap() else {
        panic!("not moved")
    };
    let out = out.to_vec();
    assert_eq!(out.iter().map(|x| x.flow).collect::<Vec<_>>(), vec![c, b]);
    close(mbps(&out[0]), 1.0);
    close(mbps(&out[1]), 1.0);
    assert_eq!(m.flow(b).unwrap().group, B);
    close(m.aggregate(B).unwrap().as_mbps(), 2.0);
    // A keeps S_CR = 3 (the default policy): a gets b's share back at its next update.
    close(m.aggregate(A).unwrap().as_mbps(), 3.0);
    let out = m.update(ms(20), a, rate(2.0)).unwrap().to_vec();
    assert_eq!(out.len(), 1);
    close(mbps(&out[0]), 3.0);
}

#[test]
fn under_the_subtract_policy_the_old_group_loses_the_leavers_rate() {
    let mut m = CouplingManager::new(Mechanism::from_name("fse").unwrap())
        .with_deregister_policy(DeregisterPolicy::SubtractAllocation);
    let a = m.register(A, rate_flow(2.0, 1.0)).unwrap();
    let b = m.register(A, rate_flow(1.0, 1.0)).unwrap();
    m.update(ms(0), a, rate(2.0)).unwrap();
    m.move_flow(ms(10), b, B).unwrap();
    close(m.aggregate(A).unwrap().as_mbps(), 2.0);
    close(m.aggregate(B).unwrap().as_mbps(), 1.0);
}

#[test]
fn moves_faster_than_the_decision_interval_are_deferred() {
    let mut m = CouplingManager::new(Mechanism::from_name("fse").unwrap());
    assert_eq!(m.min_regroup_interval(), TimeDelta::millis(350));
    assert_eq!(DEFAULT_MIN_REGROUP_INTERVAL, TimeDelta::millis(350));
    let a = m.register(A, rate_flow(1.0, 1.0)).unwrap();
    m.register(A, rate_flow(1.0, 1.0)).unwrap();
    assert!(matches!(
        m.move_flow(ms(1_000), a, B),
        Ok(Regroup::Moved(_))
    ));
    assert_eq!(
        m.move_flow(ms(1_349), a, A),
        Ok(Regroup::Deferred { until: ms(1_350) })
    );
    assert_eq!(
        m.flow(a).unwrap().group,
        B,
        "a deferred move changes nothing"
    );
    assert_eq!(m.move_flow(ms(1_349), a, B), Ok(Regroup::Unchanged));
    assert!(matches!(
        m.move_flow(ms(1_350), a, A),
        Ok(Regroup::Moved(_))
    ));
    // Without the guard, a flow may move at every call.
    let mut free = CouplingManager::new(Mechanism::from_name("fse").unwrap())
        .with_min_regroup_interval(TimeDelta::ZERO)
        .unwrap();
    let f = free.register(A, rate_flow(1.0, 1.0)).unwrap();
    assert!(matches!(free.move_flow(ms(0), f, B), Ok(Regroup::Moved(_))));
    assert!(matches!(free.move_flow(ms(0), f, A), Ok(Regroup::Moved(_))));
    // A re-registered id starts without a past move.
    free.deregister(f).unwrap();
    let mut m2 = CouplingManager::new(Mechanism::from_name("fse").unwrap());
    m2.register_as(FlowId(9), A, rate_flow(1.0, 1.0)).unwrap();
    m2.move_flow(ms(0), FlowId(9), B).unwrap();
    m2.deregister(FlowId(9)).unwrap();
    m2.register_as(FlowId(9), A, rate_flow(1.0, 1.0)).unwrap();
    assert!(matches!(
        m2.move_flow(ms(1), FlowId(9), B),
        Ok(Regroup::Moved(_))
    ));
}

#[test]
fn bad_calls_are_errors() {
    let mut m = CouplingManager::new(Mechanism::from_name("fse").unwrap());
    assert_eq!(
        m.move_flow(ms(0), FlowId(3), B),
        Err(CouplingError::UnknownFlow(FlowId(3)))
    );
    let err = CouplingManager::new(Mechanism::Uncoupled)
        .with_min_regroup_interval(TimeDelta::millis(-1))
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "minimum regroup interval must be a finite, non-negative number of seconds, got -0.001"
    );
}

#[test]
fn fse_ng_restores_caps_in_the_old_group_when_its_last_rate_flow_moves() {
    let mut m = CouplingManager::new(Mechanism::from_name("fse-ng").unwrap());
    let g = m.register(A, rate_flow(1.0, 1.0)).unwrap();
    let s = m.register(A, window_flow(1.0, 12_000)).unwrap();
    m.update(ms(0), g, rate(1.0)).unwrap();
    let Regroup::Moved(out) = m.move_flow(ms(10), g, B).unwrap() else {
        panic!("not moved")
    };
    let restored = out
        .iter()
        .find(|x| x.flow == s)
        .expect("the SCTP flow's cap");
    assert_eq!(
        restored.allowance,
        Allowance::MaxWindow(Some(DataSize::bytes(64_000)))
    );
}

#[test]
fn a_capped_window_flow_moving_into_a_group_without_rate_flows_gets_its_cap_back() {
    // Found in the simulator (scenarios/sbd-wrong): an SCTP flow capped by FSE-NG
    // next to GCC kept that cap, 0.04 Mbit/s, for good after SBD moved it alone.
    for name in ["fse-ng", "ext-fse-ng"] {
        let mut m = CouplingManager::new(Mechanism::from_name(name).unwrap());
        let g = m.register(A, rate_flow(1.0, 0.1)).unwrap();
        let s = m.register(A, window_flow(1.0, 12_000)).unwrap();
        // The rate flow's report caps the window flow at what is left of S_CR.
        let capped = m.update(ms(0), g, rate(0.1)).unwrap().to_vec();
        assert!(
            capped.iter().any(|x| x.flow == s
                && matches!(x.allowance, Allowance::MaxWindow(Some(c)) if c < DataSize::bytes(64_000))),
            "{name}: capped next to the rate flow: {capped:?}"
        );
        let Regroup::Moved(out) = m.move_flow(ms(10), s, B).unwrap() else {
            panic!("not moved")
        };
        let own = out
            .iter()
            .rfind(|x| x.flow == s)
            .expect("the mover's allowance");
        assert_eq!(
            own.allowance,
            Allowance::MaxWindow(Some(DataSize::bytes(64_000))),
            "{name}"
        );
    }
}

#[test]
fn a_window_flow_keeps_its_controller_state_across_a_move() {
    let mut m = CouplingManager::new(Mechanism::from_name("fsev2").unwrap());
    let s = m.register(A, window_flow(1.0, 12_000)).unwrap();
    let report = FlowReport::Window {
        cwnd: DataSize::bytes(24_000),
        rtt: Some(RTT),
        ssthresh: DataSize::bytes(30_000),
        desired_cwnd: Some(DataSize::bytes(36_000)),
    };
    m.update(ms(0), s, report).unwrap();
    // 24 000 B per 100 ms = 1.92 Mbit/s joins B, alone: it keeps that rate.
    let Regroup::Moved(out) = m.move_flow(ms(10), s, B).unwrap() else {
        panic!("not moved")
    };
    assert_eq!(out.len(), 1);
    close(mbps(&out[0]), 1.92);
    close(m.aggregate(B).unwrap().as_mbps(), 1.92);
    assert_eq!(m.aggregate(A), None, "the emptied group is forgotten");
}

// --- Properties over random operation sequences, for every mechanism --------------

#[derive(Debug, Clone)]
enum Op {
    Register {
        group: u64,
        window: bool,
        priority: f64,
        mbps: f64,
    },
    Update {
        flow: usize,
        mbps: f64,
    },
    Move {
        flow: usize,
        group: u64,
    },
    Deregister {
        flow: usize,
    },
    Wait {
        ms: u64,
    },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        1 => (0u64..3, any::<bool>(), 0.5f64..4.0, 0.1f64..5.0).prop_map(|(group, window, priority, mbps)| {
            Op::Register { group, window, priority, mbps }
        }),
        3 => (0usize..8, 0.05f64..6.0).prop_map(|(flow, mbps)| Op::Update { flow, mbps }),
        3 => (0usize..8, 0u64..3).prop_map(|(flow, group)| Op::Move { flow, group }),
        1 => (0usize..8).prop_map(|flow| Op::Deregister { flow }),
        2 => (0u64..500).prop_map(|ms| Op::Wait { ms }),
    ]
}

/// A window flow's cwnd for `mbps` at the fixed RTT, in whole MTUs.
fn cwnd_for(mbps: f64) -> DataSize {
    let bytes = (mbps * 1e6 / 8.0 * RTT.as_secs_f64()) as u64;
    DataSize::bytes(bytes.max(MTU.as_bytes())).round_down_to(MTU)
}

/// The flow's own rate: FSE_R for a rate flow, cwnd / RTT for a window flow.
fn own_rate_bps(m: &CouplingManager, cwnds: &BTreeMap<FlowId, DataSize>, flow: FlowId) -> f64 {
    match cwnds.get(&flow) {
        Some(cwnd) => (*cwnd / RTT).as_bps(),
        None => m.flow(flow).unwrap().allocated_rate.as_bps(),
    }
}

/// Applies FSEv2's window allowances to the model, as the flow's sender would.
fn apply(cwnds: &mut BTreeMap<FlowId, DataSize>, out: &[Allocation]) {
    for a in out {
        if let (Allowance::Window { cwnd, .. }, Some(c)) = (a.allowance, cwnds.get_mut(&a.flow)) {
            *c = cwnd;
        }
    }
}

/// Every allocation is finite and for a registered flow whose group is one of `groups`.
fn allocations_in(
    m: &CouplingManager,
    out: &[Allocation],
    groups: &[GroupKey],
) -> Result<(), TestCaseError> {
    for a in out {
        prop_assert!(a.rate.as_bps().is_finite() && a.rate.as_bps() >= 0.0);
        let info = m.flow(a.flow);
        prop_assert!(info.is_ok(), "allocation to unregistered {}", a.flow);
        let group = info.unwrap().group;
        prop_assert!(
            groups.contains(&group),
            "{} in {group:?}, not in {groups:?}",
            a.flow
        );
    }
    Ok(())
}

fn run(name: &str, ops: &[Op]) -> Result<(), TestCaseError> {
    let mechanism = Mechanism::from_name(name).unwrap();
    let windows_ok = mechanism.info().couples(FlowKind::Window);
    let mut m = CouplingManager::new(mechanism);
    let interval = m.min_regroup_interval();
    let mut now = Timestamp::from_secs(1);
    let mut flows: Vec<FlowId> = Vec::new();
    let mut groups: BTreeMap<FlowId, GroupKey> = BTreeMap::new();
    let mut cwnds: BTreeMap<FlowId, DataSize> = BTreeMap::new();
    let mut last_move: BTreeMap<FlowId, Timestamp> = BTreeMap::new();
    for op in ops {
        match *op {
            Op::Register {
                group,
                window,
                priority,
                mbps,
            } => {
                let key = GroupKey(group);
                let id = if window && windows_ok {
                    let cwnd = cwnd_for(mbps);
                    let id = m
                        .register(key, window_flow(priority, cwnd.as_bytes()))
                        .unwrap();
                    cwnds.insert(id, cwnd);
                    id
                } else {
                    m.register(key, rate_flow(priority, mbps)).unwrap()
                };
                flows.push(id);
                groups.insert(id, key);
            }
            Op::Update { flow, mbps } => {
                let Some(&id) = flows.get(flow % flows.len().max(1)) else {
                    continue;
                };
                let report = match cwnds.get_mut(&id) {
                    Some(cwnd) => {
                        *cwnd = cwnd_for(mbps);
                        FlowReport::Window {
                            cwnd: *cwnd,
                            rtt: Some(RTT),
                            ssthresh: DataSize::MAX,
                            desired_cwnd: None,
                        }
                    }
                    None => rate(mbps),
                };
                let out = m.update(now, id, report).unwrap().to_vec();
                allocations_in(&m, &out, &[groups[&id]])?;
                apply(&mut cwnds, &out);
            }
            Op::Move { flow, group } => {
                let Some(&id) = flows.get(flow % flows.len().max(1)) else {
                    continue;
                };
                let (from, to) = (groups[&id], GroupKey(group));
                let own = own_rate_bps(&m, &cwnds, id);
                let before_from = m.aggregate(from).map_or(0.0, |r| r.as_bps());
                let before_to = m.aggregate(to).map_or(0.0, |r| r.as_bps());
                let too_soon = last_move.get(&id).is_some_and(|&t| now < t + interval);
                let result = m.move_flow(now, id, to).unwrap();
                match result {
                    Regroup::Unchanged => prop_assert_eq!(from, to),
                    Regroup::Deferred { until } => {
                        prop_assert!(from != to && too_soon);
                        prop_assert_eq!(until, last_move[&id] + interval);
                    }
                    Regroup::Moved(out) => {
                        let out = out.to_vec();
                        prop_assert!(from != to && !too_soon, "moved too soon");
                        groups.insert(id, to);
                        allocations_in(&m, &out, &[from, to])?;
                        apply(&mut cwnds, &out);
                        last_move.insert(id, now);
                        // No aggregate jump beyond the flow's own rate, in either group.
                        let after_to = m.aggregate(to).map_or(0.0, |r| r.as_bps());
                        let tol = 1e-6 * (before_to + own).max(1.0);
                        prop_assert!(
                            after_to - before_to <= own + tol,
                            "{name}: S_CR(to) {before_to} -> {after_to}, own rate {own}"
                        );
                        let after_from = m.aggregate(from).map_or(0.0, |r| r.as_bps());
                        prop_assert!(
                            after_from <= before_from + 1e-6 * before_from.max(1.0),
                            "{name}: S_CR(from) grew {before_from} -> {after_from}"
                        );
                    }
                }
            }
            Op::Deregister { flow } => {
                if flows.is_empty() {
                    continue;
                }
                let id = flows.remove(flow % flows.len());
                let from = groups.remove(&id).unwrap();
                cwnds.remove(&id);
                last_move.remove(&id);
                let out = m.deregister(id).unwrap().to_vec();
                allocations_in(&m, &out, &[from])?;
                apply(&mut cwnds, &out);
            }
            Op::Wait { ms } => now += TimeDelta::millis(ms as i64),
        }
        // The manager's membership is the model's; aggregates are finite.
        for (&id, &key) in &groups {
            prop_assert_eq!(m.flow(id).unwrap().group, key);
        }
        for key in m.groups() {
            let s = m.aggregate(key).unwrap().as_bps();
            prop_assert!(s.is_finite() && s >= 0.0);
            prop_assert!(m.flows(key).iter().all(|f| groups.get(&f.id) == Some(&key)));
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn every_mechanism_moves_flows_between_groups_safely(ops in prop::collection::vec(op(), 1..60)) {
        for name in Mechanism::NAMES {
            run(name, &ops)?;
        }
    }
}
