//! A mechanism written outside the crate (feature `custom-mechanism`), run by a
//! `CouplingManager`: priority shares of the sum of the rate flows' newest reports.
//! The manager registers, checks, dispatches, regroups and clones; the allowances are
//! the mechanism's.

use std::collections::BTreeMap;

use flowstate_coupling::coupling::{
    Allocation, Allowance, CouplingError, CouplingManager, CouplingRules, CustomMechanism,
    FlowEntry, FlowGroup, FlowId, FlowKind, FlowReport, FlowSpec, GroupKey, RateUpdate, Regroup,
};
use flowstate_coupling::{Bitrate, DataSize, TimeDelta, Timestamp};

#[derive(Debug)]
struct PriorityShares;

impl CustomMechanism for PriorityShares {
    fn display_name(&self) -> &'static str {
        "priority shares"
    }
    fn flow_kinds(&self) -> &'static [FlowKind] {
        &[FlowKind::Rate]
    }
    fn new_group(&self) -> Box<dyn CouplingRules> {
        Box::new(Reports::default())
    }
}

/// Each flow's newest rate (its initial rate until it reports), bit/s.
#[derive(Debug, Clone, Default)]
struct Reports(BTreeMap<FlowId, f64>);

impl CouplingRules for Reports {
    fn register(&mut self, group: &mut FlowGroup, idx: usize, spec: &FlowSpec) {
        if let FlowSpec::Rate { initial_rate, .. } = spec {
            self.0
                .insert(group.flows()[idx].id(), initial_rate.as_bps());
            group.set_fse_r(idx, initial_rate.as_bps());
            group.set_s_cr(self.0.values().sum());
        }
    }

    fn rate_update(
        &mut self,
        group: &mut FlowGroup,
        u: RateUpdate,
        out: &mut Vec<Allocation>,
    ) -> Result<(), CouplingError> {
        self.0.insert(group.flows()[u.idx].id(), u.cc_r);
        let s_cr: f64 = self.0.values().sum();
        group.set_s_cr(s_cr);
        let s_p = group.priority_sum();
        for idx in 0..group.flows().len() {
            group.set_fse_r(idx, s_cr * group.flows()[idx].priority() / s_p);
            out.push(group.flows()[idx].rate_allocation());
        }
        Ok(())
    }

    fn deregistered(&mut self, _: &mut FlowGroup, removed: &FlowEntry, _: &mut Vec<Allocation>) {
        self.0.remove(&removed.id());
    }
}

fn rate_flow(priority: f64, mbps: f64) -> FlowSpec {
    FlowSpec::Rate {
        priority,
        initial_rate: Bitrate::mbps(mbps),
        desired_rate: None,
    }
}

fn report(mbps: f64) -> FlowReport {
    FlowReport::Rate {
        rate: Bitrate::mbps(mbps),
        rtt: Some(TimeDelta::millis(50)),
    }
}

/// Each allocation as (flow, Mbit/s), checking it is a rate allowance of that rate.
fn mbps(allocations: &[Allocation]) -> Vec<(FlowId, f64)> {
    allocations
        .iter()
        .map(|a| {
            assert_eq!(a.allowance, Allowance::Rate(a.rate));
            (a.flow, (a.rate.as_mbps() * 1e6).round() / 1e6)
        })
        .collect()
}

const T0: Timestamp = Timestamp::ZERO;

#[test]
fn the_manager_runs_the_outside_mechanism() {
    let mut m = CouplingManager::with_custom_mechanism(PriorityShares);
    assert_eq!(m.mechanism(), None);
    assert_eq!(m.mechanism_display_name(), "priority shares");
    let key = GroupKey(3);
    let a = m.register(key, rate_flow(3.0, 1.0)).unwrap();
    let b = m.register(key, rate_flow(1.0, 1.0)).unwrap();
    let c = m.register(key, rate_flow(1.0, 2.0)).unwrap();
    // S_CR = 6 + 1 + 2 = 9 Mbit/s, split 3:1:1.
    let out = mbps(m.update(T0, a, report(6.0)).unwrap());
    assert_eq!(out, [(a, 5.4), (b, 1.8), (c, 1.8)]);
    assert_eq!(m.aggregate(key), Some(Bitrate::mbps(9.0)));
    assert_eq!(m.flow(b).unwrap().allocated_rate, Bitrate::mbps(1.8));
    // c leaves: its report no longer counts. S_CR = 6 + 0.5 = 6.5, split 3:1.
    assert_eq!(m.deregister(c).unwrap(), &[]);
    let out = mbps(m.update(T0, b, report(0.5)).unwrap());
    assert_eq!(out, [(a, 4.875), (b, 1.625)]);
}

#[test]
fn the_manager_checks_reports_and_kinds_for_it() {
    let mut m = CouplingManager::with_custom_mechanism(PriorityShares);
    let key = GroupKey(1);
    let a = m.register(key, rate_flow(1.0, 1.0)).unwrap();
    let window = FlowSpec::Window {
        priority: 1.0,
        initial_cwnd: DataSize::bytes(12_000),
        initial_rtt: None,
        initial_max_cwnd: None,
        mtu: DataSize::bytes(1200),
    };
    assert!(matches!(
        m.register(key, window),
        Err(CouplingError::UnsupportedKind {
            mechanism: "priority shares",
            kind: FlowKind::Window,
        })
    ));
    // A report the manager rejects never reaches the mechanism: S_CR stays 1 Mbit/s.
    let endless = FlowReport::Rate {
        rate: Bitrate::bps(f64::INFINITY),
        rtt: None,
    };
    assert!(matches!(
        m.update(T0, a, endless),
        Err(CouplingError::InvalidRate { .. })
    ));
    let window_report = FlowReport::Window {
        cwnd: DataSize::bytes(12_000),
        rtt: None,
        ssthresh: DataSize::bytes(12_000),
        desired_cwnd: None,
    };
    assert!(matches!(
        m.update(T0, a, window_report),
        Err(CouplingError::ReportKindMismatch { .. })
    ));
    assert_eq!(m.aggregate(key), Some(Bitrate::mbps(1.0)));
    assert_eq!(m.timer_expiry(key, T0), None, "the default hook: no timer");
}

#[test]
fn groups_are_independent_and_flows_move_between_them() {
    let mut m = CouplingManager::with_custom_mechanism(PriorityShares);
    let (one, two) = (GroupKey(1), GroupKey(2));
    let a = m.register(one, rate_flow(1.0, 1.0)).unwrap();
    let b = m.register(one, rate_flow(1.0, 1.0)).unwrap();
    let c = m.register(two, rate_flow(1.0, 4.0)).unwrap();
    assert_eq!(
        mbps(m.update(T0, a, report(3.0)).unwrap()),
        [(a, 2.0), (b, 2.0)]
    );
    // b joins group two at its 2 Mbit/s: S_CR there = 4 + 2, split 1:1.
    let Regroup::Moved(out) = m.move_flow(T0, b, two).unwrap() else {
        panic!("b did not move");
    };
    assert_eq!(mbps(out), [(c, 3.0), (b, 3.0)]);
    // A copy of the manager goes on by itself.
    let mut copy = m.clone();
    assert_eq!(
        mbps(copy.update(T0, c, report(1.0)).unwrap()),
        [(c, 1.5), (b, 1.5)]
    );
    assert_eq!(m.aggregate(two), Some(Bitrate::mbps(6.0)));
    assert_eq!(copy.aggregate(two), Some(Bitrate::mbps(3.0)));
}
