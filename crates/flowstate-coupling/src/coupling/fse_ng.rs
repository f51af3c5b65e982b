//! FSE-NG, as paper 000 adapted it to GCC (its Algs. 2 and 3; Flohr et al. 2018).
//!
//! Rate flows (GCC) lead; window flows (SCTP) are passive and only get a cap CWND_max.
//!
//! ```text
//! RateFlowUpdate(f, CC_R, last_rtt):                          (paper 000 Alg. 3)
//!   R_delta = CC_R - FSE_R(f)
//!   if no window flows or AllAppLimited():  S_CR += CC_R - FSE_R(f)
//!   else:                                   S_CR += CC_R - FSE_R(f) + R_delta
//!   for each rate flow:  FSE_R = min(P * S_CR / S_P, DR)      (S_P over ALL flows)
//!   RTT_base = min(RTT_base, last_rtt)
//!   S_CWND_CR = S_CR - sum of rate flows' FSE_R
//!   for each window flow: FSE_R = P * S_CWND_CR / S_CWND_P;  CWND_max = FSE_R * RTT_base
//!   if no window flows: S_CR = sum of rate flows' FSE_R       (paper 000 V-B1)
//! ```
//!
//! Window-flow updates never change S_CR. When the last rate flow leaves, every window
//! flow's CWND_max is reset to the value it registered with.

use super::catalogue::{
    CheckedValue, MechanismInfo, OptionDefault, OptionInfo, OptionKind, RATE_AND_WINDOW,
};
use super::flow::{Allocation, Allowance, FlowId, RateReportMode};
use super::group::FlowEntry;
use super::group::FlowGroup;
use super::rules::{CouplingRules, Out, Outcome, RateUpdate};
use super::waterfill::{proportional_share, Claim};
use crate::units::{Bitrate, TimeDelta};

/// Options of FSE-NG.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FseNgConfig {
    /// Add a rate flow's change to S_CR twice while window flows exist and not every
    /// rate flow is application-limited (paper 000 Alg. 3 line 5, which the authors call
    /// a probable bug but kept). Default on (faithful); off counts it once.
    pub count_change_twice: bool,
}

impl Default for FseNgConfig {
    fn default() -> Self {
        FseNgConfig {
            count_change_twice: true,
        }
    }
}

pub(crate) const INFO: MechanismInfo = MechanismInfo {
    name: "fse-ng",
    display_name: "FSE-NG",
    aliases: &["fseng"],
    description: "rate flows lead and share S_CR; window flows are passive and get what is left as a cap CWND_max",
    source: "paper 000 section V, Algs. 2-3",
    flow_kinds: RATE_AND_WINDOW,
    // Paper 000 V-B3: FSE-NG takes GCC's delay-based estimate A_hat.
    rate_report: RateReportMode::DelayBased,
    options: &[count_change_twice_option(true)],
};

/// The `count_change_twice` option of FSE-NG and Extended FSE-NG.
pub(crate) const fn count_change_twice_option(default: bool) -> OptionInfo {
    OptionInfo {
        name: "count_change_twice",
        kind: OptionKind::Bool,
        default: OptionDefault::Bool(default),
        unit: None,
        description: "add a rate flow's change to S_CR twice while window flows exist and not every rate flow is application-limited (paper 000 Alg. 3 line 5, a probable bug the authors kept; Extended FSE-NG removed it)",
    }
}

impl FseNgConfig {
    pub(crate) fn info(&self) -> &'static MechanismInfo {
        &INFO
    }

    /// Sets a declared option ([`INFO`]); false if there is no such field.
    pub(crate) fn set_option(&mut self, name: &str, value: CheckedValue) -> bool {
        match (name, value) {
            ("count_change_twice", CheckedValue::Bool(b)) => self.count_change_twice = b,
            _ => return false,
        }
        true
    }
}

#[derive(Debug, Clone)]
pub(crate) struct FseNg {
    pub config: FseNgConfig,
    /// The lowest RTT any rate flow has reported (unset until the first report).
    pub rtt_base: Option<TimeDelta>,
}

impl From<FseNgConfig> for FseNg {
    fn from(config: FseNgConfig) -> Self {
        FseNg {
            config,
            rtt_base: None,
        }
    }
}

/// A window flow only stores its initial cap at registration (S_CR is untouched), and
/// its updates never change S_CR and trigger nothing: the default hooks.
impl CouplingRules for FseNg {
    fn rate_update(&mut self, group: &mut FlowGroup, u: RateUpdate, out: &mut Out) -> Outcome {
        let RateUpdate {
            idx,
            cc_r,
            rtt: last_rtt,
            ..
        } = u;
        let change = cc_r - group.flows[idx].fse_r;
        let counted_once = !group.has_window_flows() || group.all_rate_flows_app_limited();
        if counted_once || !self.config.count_change_twice {
            group.add_to_aggregate(change);
        } else {
            group.add_to_aggregate(change + change);
        }
        self.rtt_base = min_rtt(self.rtt_base, last_rtt);
        distribute_rate_led(group, self.rtt_base, out);
        Ok(())
    }

    fn deregistered(&mut self, group: &mut FlowGroup, removed: &FlowEntry, out: &mut Out) {
        if removed.is_rate() {
            restore_initial_caps(group, out);
        }
    }

    /// A window flow capped in a group with rate flows keeps that cap when it moves;
    /// in a group without rate flows nothing would lift it (only rate-led
    /// redistributions cap), so it gets its registration-time cap back, as when the
    /// last rate flow leaves its group.
    fn moved_in(&mut self, group: &mut FlowGroup, moved: FlowId, out: &mut Out) {
        restore_initial_cap(group, moved, out);
    }
}

/// The lower of a running minimum and a new sample; zero and missing samples are ignored.
pub(crate) fn min_rtt(base: Option<TimeDelta>, sample: Option<TimeDelta>) -> Option<TimeDelta> {
    match (base, sample.filter(|s| s.is_positive())) {
        (Some(b), Some(s)) => Some(b.min(s)),
        (b, s) => b.or(s),
    }
}

/// Paper 000 Alg. 3 lines 7-22 (and Alg. 4 lines 3-17): rate flows take their capped
/// priority share, window flows split what is left and get it as a CWND_max.
pub(crate) fn distribute_rate_led(
    group: &mut FlowGroup,
    rtt_base: Option<TimeDelta>,
    out: &mut Vec<Allocation>,
) {
    let s_p = group.priority_sum();
    let s_cr = group.s_cr;
    let mut s_rate_cr = 0.0;
    for flow in group.flows.iter_mut().filter(|f| f.is_rate()) {
        let claim = Claim {
            priority: flow.priority,
            cap: flow.desired_rate,
        };
        flow.fse_r = proportional_share(s_cr, s_p, claim);
        s_rate_cr += flow.fse_r;
    }
    let s_cwnd_cr = (s_cr - s_rate_cr).max(0.0);
    let s_cwnd_p: f64 = group
        .flows
        .iter()
        .filter(|f| !f.is_rate())
        .map(|f| f.priority)
        .sum();
    for flow in group.flows.iter_mut() {
        let Some(window) = &flow.window else {
            out.push(flow.rate_allocation());
            continue;
        };
        flow.fse_r = if s_cwnd_p > 0.0 {
            flow.priority * s_cwnd_cr / s_cwnd_p
        } else {
            0.0
        };
        let rate = Bitrate::bps(flow.fse_r);
        // CWND_max = FSE_R * RTT_base, never below one MTU (usrsctp's floor). Without any
        // RTT yet there is nothing to convert with: the flow keeps its initial cap.
        let max_cwnd = match rtt_base {
            Some(rtt) => Some((rate * rtt).max(window.mtu)),
            None => window.initial_max_cwnd,
        };
        out.push(Allocation {
            flow: flow.id,
            rate,
            allowance: Allowance::MaxWindow(max_cwnd),
        });
    }
    if !group.has_window_flows() {
        group.s_cr = s_rate_cr;
    }
}

/// When the last rate flow leaves, window flows get their registration-time cap back.
/// [`restore_initial_caps`] for one flow: `flow`'s registration-time cap, if the group
/// has no rate flows and `flow` is a window flow of it.
pub(crate) fn restore_initial_cap(group: &FlowGroup, flow: FlowId, out: &mut Vec<Allocation>) {
    if group.has_rate_flows() {
        return;
    }
    if let Some(entry) = group.flows.iter().find(|f| f.id == flow) {
        if let Some(window) = &entry.window {
            out.push(Allocation {
                flow,
                rate: Bitrate::bps(entry.fse_r),
                allowance: Allowance::MaxWindow(window.initial_max_cwnd),
            });
        }
    }
}

pub(crate) fn restore_initial_caps(group: &FlowGroup, out: &mut Vec<Allocation>) {
    if group.has_rate_flows() {
        return;
    }
    for flow in &group.flows {
        if let Some(window) = &flow.window {
            out.push(Allocation {
                flow: flow.id,
                rate: Bitrate::bps(flow.fse_r),
                allowance: Allowance::MaxWindow(window.initial_max_cwnd),
            });
        }
    }
}
