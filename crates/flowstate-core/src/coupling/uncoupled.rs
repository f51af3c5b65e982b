//! No coupling (`none`): every flow keeps its own controller's value. The baseline the
//! papers compare against (e.g. paper 000 Table 5).

use super::catalogue::{MechanismInfo, RATE_AND_WINDOW};
use super::flow::RateReportMode;
use super::mechanism::Mechanism;

pub(crate) const INFO: MechanismInfo = MechanismInfo {
    name: "none",
    display_name: "none",
    aliases: &["uncoupled"],
    description: "no coupling: every flow keeps its own congestion controller's value",
    source: "the uncoupled baseline the papers compare against (e.g. paper 000 Table 5)",
    flow_kinds: RATE_AND_WINDOW,
    rate_report: RateReportMode::Target,
    options: &[],
    preset: || Mechanism::Uncoupled,
};
