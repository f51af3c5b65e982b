//! No coupling (`none`): every flow keeps its own controller's value. The baseline the
//! papers compare against (e.g. paper 000 Table 5).

use super::catalogue::{MechanismInfo, RATE_AND_WINDOW};
use super::flow::RateReportMode;
use super::group::FlowGroup;
use super::rules::{CouplingRules, Out, Outcome, RateUpdate};

pub(crate) const INFO: MechanismInfo = MechanismInfo {
    name: "none",
    display_name: "none",
    aliases: &["uncoupled"],
    description: "no coupling: every flow keeps its own congestion controller's value",
    source: "the uncoupled baseline the papers compare against (e.g. paper 000 Table 5)",
    flow_kinds: RATE_AND_WINDOW,
    rate_report: RateReportMode::Target,
    options: &[],
};

/// No state: the group only remembers each flow's own value.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Uncoupled;

impl CouplingRules for Uncoupled {
    /// The flow's own rate stands; nothing changes for anyone.
    fn rate_update(&mut self, group: &mut FlowGroup, u: RateUpdate, _out: &mut Out) -> Outcome {
        let RateUpdate { idx, cc_r, .. } = u;
        group.flows[idx].fse_r = cc_r;
        Ok(())
    }
}
