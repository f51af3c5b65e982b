//! A coupling mechanism written outside flowstate-coupling, run by its
//! `CouplingManager`: "equal shares". The aggregate S_CR is the sum of the newest rate
//! each flow's own controller reported (its initial rate until it reports), and every
//! flow gets S_CR / N, whatever its priority.
//!
//! Run: `cargo run -p flowstate-coupling --features custom-mechanism --example custom_mechanism`

use std::collections::BTreeMap;

use flowstate_coupling::coupling::{
    Allocation, CouplingError, CouplingManager, CouplingRules, CustomMechanism, FlowEntry,
    FlowGroup, FlowId, FlowKind, FlowReport, FlowSpec, GroupKey, RateUpdate,
};
use flowstate_coupling::{Bitrate, Timestamp};

/// The mechanism itself: what the manager asks when it needs a name, the kinds of
/// flow it may register, and the state of a new group.
#[derive(Debug)]
struct EqualShares;

impl CustomMechanism for EqualShares {
    fn display_name(&self) -> &'static str {
        "equal shares"
    }
    fn flow_kinds(&self) -> &'static [FlowKind] {
        &[FlowKind::Rate] // registering a window flow is an error
    }
    fn new_group(&self) -> Box<dyn CouplingRules> {
        Box::new(EqualSharesGroup::default())
    }
}

/// One group's state: each flow's newest rate in bit/s. Plain data, `Clone` (the
/// manager is `Clone`).
#[derive(Debug, Clone, Default)]
struct EqualSharesGroup {
    reports: BTreeMap<FlowId, f64>,
}

impl CouplingRules for EqualSharesGroup {
    // The manager has checked the spec and added the flow's entry at `idx`.
    fn register(&mut self, group: &mut FlowGroup, idx: usize, spec: &FlowSpec) {
        if let FlowSpec::Rate { initial_rate, .. } = spec {
            self.reports
                .insert(group.flows()[idx].id(), initial_rate.as_bps());
            group.set_fse_r(idx, initial_rate.as_bps());
            group.set_s_cr(self.reports.values().sum());
        }
    }

    // The manager has checked the report (a rate flow, CC_R finite and >= 0).
    fn rate_update(
        &mut self,
        group: &mut FlowGroup,
        update: RateUpdate,
        out: &mut Vec<Allocation>,
    ) -> Result<(), CouplingError> {
        self.reports
            .insert(group.flows()[update.idx].id(), update.cc_r);
        let s_cr: f64 = self.reports.values().sum();
        group.set_s_cr(s_cr);
        let share = s_cr / group.flows().len() as f64;
        for idx in 0..group.flows().len() {
            group.set_fse_r(idx, share);
            out.push(group.flows()[idx].rate_allocation()); // what the caller applies
        }
        Ok(())
    }

    // The manager has removed the flow's entry; its report no longer counts.
    fn deregistered(&mut self, _: &mut FlowGroup, removed: &FlowEntry, _: &mut Vec<Allocation>) {
        self.reports.remove(&removed.id());
    }
}

fn main() -> Result<(), CouplingError> {
    let mut manager = CouplingManager::with_custom_mechanism(EqualShares);
    let key = GroupKey(1);
    let flow = |priority, mbps| FlowSpec::Rate {
        priority,
        initial_rate: Bitrate::mbps(mbps),
        desired_rate: None,
    };
    let a = manager.register(key, flow(2.0, 1.0))?;
    manager.register(key, flow(1.0, 1.0))?;
    // a's controller says 3 Mbit/s: S_CR = 3 + 1 = 4 Mbit/s, 2 Mbit/s each.
    let report = FlowReport::Rate {
        rate: Bitrate::mbps(3.0),
        rtt: None,
    };
    for allocation in manager.update(Timestamp::ZERO, a, report)? {
        println!(
            "{}: {:.2} Mbit/s",
            allocation.flow,
            allocation.rate.as_mbps()
        );
    }
    Ok(())
}
