//! The Flow State Exchange: RFC 8699 section 5.2, active algorithm 1 (paper 000 Alg. 1),
//! and paper 004's first, simplest variant (its Algorithm 1).
//!
//! ```text
//! UPDATE(f, CC_R):
//!   S_CR = S_CR + CC_R - FSE_R(f)                         (RFC 8699 5.2 alg. 1, step a)
//!   distribute S_CR by priority, capped by DR              (steps b-c; waterfill.rs)
//!   hand every flow its FSE_R                              (step d)
//!   S_CR = sum of FSE_R   (paper 000 Alg. 1 lines 28-31; option, see FseConfig)
//! ```

use super::flow::Allocation;
use super::group::FlowGroup;
use super::waterfill::{proportional_share, Claim};

/// How S_CR is split among the flows of a group.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Distribution {
    /// RFC 8699's leftover loop (weighted water-filling): a flow limited by its DR
    /// leaves its leftover to the others. Computed in closed form.
    WaterFilling,
    /// Paper 004 Alg. 1 (and its Alg. 2): FSE_R(f) = min(DR(f), P(f) * S_CR / S_P);
    /// leftover of DR-limited flows is not redistributed.
    Proportional,
}

/// Options of the FSE (RFC 8699 algorithm 1).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FseConfig {
    pub distribution: Distribution,
    /// After distributing, set S_CR to the sum of the allocations, dropping leftover
    /// that no flow could take because all are DR-limited. Paper 000's Alg. 1 (lines
    /// 28-31) and its reference code do this; RFC 8699's text and paper 004 do not, and
    /// then S_CR can grow without bound while every flow is DR-limited.
    pub reset_aggregate_to_allocated: bool,
}

impl Default for FseConfig {
    /// RFC 8699 algorithm 1 as paper 000 implemented it.
    fn default() -> Self {
        FseConfig {
            distribution: Distribution::WaterFilling,
            reset_aggregate_to_allocated: true,
        }
    }
}

impl FseConfig {
    /// Paper 004's first, simplest FSE: proportional shares, no leftover loop, no reset.
    pub fn simple() -> Self {
        FseConfig {
            distribution: Distribution::Proportional,
            reset_aggregate_to_allocated: false,
        }
    }
}

pub(crate) const FSE_NAME: &str = "FSE";

/// Per-group state of the FSE (it has none beyond the group itself).
#[derive(Debug, Clone)]
pub(crate) struct Fse {
    pub config: FseConfig,
}

impl Fse {
    /// RFC 8699 5.2 alg. 1 step a: S_CR = S_CR + CC_R - FSE_R(f); then distribute.
    pub fn update(&self, group: &mut FlowGroup, idx: usize, cc_r: f64, out: &mut Vec<Allocation>) {
        let delta = cc_r - group.flows[idx].fse_r;
        group.add_to_aggregate(delta);
        distribute(
            group,
            self.config.distribution,
            self.config.reset_aggregate_to_allocated,
            out,
        );
    }
}

/// Steps b-d of RFC 8699 5.2 (shared by the FSE and the conservative FSE): split S_CR,
/// store every FSE_R, and emit one allocation per flow.
pub(crate) fn distribute(
    group: &mut FlowGroup,
    distribution: Distribution,
    reset_aggregate: bool,
    out: &mut Vec<Allocation>,
) {
    let assigned = match distribution {
        Distribution::WaterFilling => group.water_fill(0, |f| Claim {
            priority: f.priority,
            cap: f.desired_rate,
        }),
        Distribution::Proportional => {
            let (s_cr, s_p) = (group.s_cr, group.priority_sum());
            let mut sum = 0.0;
            for flow in &mut group.flows {
                let claim = Claim {
                    priority: flow.priority,
                    cap: flow.desired_rate,
                };
                flow.fse_r = proportional_share(s_cr, s_p, claim);
                sum += flow.fse_r;
            }
            sum
        }
    };
    if reset_aggregate {
        group.s_cr = assigned;
    }
    out.extend(group.flows.iter().map(|f| f.rate_allocation()));
}
