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

use super::catalogue::{
    CheckedValue, MechanismInfo, OptionDefault, OptionInfo, OptionKind, RATE_ONLY,
};
use super::flow::{Allocation, RateReportMode};
use super::group::FlowGroup;
use super::rules::{CouplingRules, Out, Outcome, RateUpdate};
use super::waterfill::{proportional_share, Claim};

pub(crate) const INFO: MechanismInfo = MechanismInfo {
    name: "fse",
    display_name: "FSE",
    aliases: &[],
    description: "the Flow State Exchange: S_CR moves by each rate flow's change and is split by priority, capped by desired rates",
    source: "RFC 8699 section 5.2, active algorithm 1 (paper 000 Alg. 1)",
    flow_kinds: RATE_ONLY,
    // Paper 000's FSE (section IV) lives in Chromium's AimdRateControl, so it exchanges
    // the delay-based estimate A_hat; reporting the target min(A_s, A_r) freezes GCC at
    // its start rate (every allocation resets A_r to the target, and A_s is capped by A_r).
    rate_report: RateReportMode::DelayBased,
    options: &[
        distribution_option("water-filling"),
        reset_aggregate_option(true),
    ],
};

pub(crate) const SIMPLE_INFO: MechanismInfo = MechanismInfo {
    name: "fse-simple",
    display_name: "simple FSE",
    aliases: &[],
    description: "paper 004's first FSE: the FSE with proportional shares, no leftover loop and no reset of S_CR",
    source: "paper 004 Alg. 1",
    options: &[
        distribution_option("proportional"),
        reset_aggregate_option(false),
    ],
    ..INFO
};

/// The `distribution` option of the FSE and the conservative FSE.
pub(crate) const fn distribution_option(default: &'static str) -> OptionInfo {
    OptionInfo {
        name: "distribution",
        kind: OptionKind::Choice(&["water-filling", "proportional"]),
        default: OptionDefault::Text(default),
        unit: None,
        description: "how S_CR is split: 'water-filling' (RFC 8699's leftover loop) or 'proportional' (paper 004: min(DR, P * S_CR / S_P), no leftover loop)",
    }
}

/// The `reset_aggregate_to_allocated` option of the FSE and the conservative FSE.
pub(crate) const fn reset_aggregate_option(default: bool) -> OptionInfo {
    OptionInfo {
        name: "reset_aggregate_to_allocated",
        kind: OptionKind::Bool,
        default: OptionDefault::Bool(default),
        unit: None,
        description: "set S_CR to the sum of the allocations after distributing (paper 000 Alg. 1 lines 28-31; off = RFC 8699's text and paper 004)",
    }
}

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

impl Distribution {
    /// The distribution called `name` in options (`water-filling`, `proportional`).
    pub(crate) fn from_name(name: &str) -> Option<Self> {
        match name {
            "water-filling" => Some(Distribution::WaterFilling),
            "proportional" => Some(Distribution::Proportional),
            _ => None,
        }
    }
}

impl FseConfig {
    /// The catalogue entry: `fse-simple`'s for paper 004's options, else `fse`'s.
    pub(crate) fn info(&self) -> &'static MechanismInfo {
        if *self == FseConfig::simple() {
            &SIMPLE_INFO
        } else {
            &INFO
        }
    }

    /// Sets a declared option ([`INFO`]); false if there is no such field.
    pub(crate) fn set_option(&mut self, name: &str, value: CheckedValue) -> bool {
        match (name, value) {
            ("distribution", CheckedValue::Choice(c)) => Distribution::from_name(c)
                .map(|d| self.distribution = d)
                .is_some(),
            ("reset_aggregate_to_allocated", CheckedValue::Bool(b)) => {
                self.reset_aggregate_to_allocated = b;
                true
            }
            _ => false,
        }
    }

    /// Paper 004's first, simplest FSE: proportional shares, no leftover loop, no reset.
    pub fn simple() -> Self {
        FseConfig {
            distribution: Distribution::Proportional,
            reset_aggregate_to_allocated: false,
        }
    }
}

/// Per-group state of the FSE (it has none beyond the group itself).
#[derive(Debug, Clone)]
pub(crate) struct Fse {
    pub config: FseConfig,
}

impl From<FseConfig> for Fse {
    fn from(config: FseConfig) -> Self {
        Fse { config }
    }
}

impl CouplingRules for Fse {
    /// RFC 8699 5.2 alg. 1 step a: S_CR = S_CR + CC_R - FSE_R(f); then distribute.
    fn rate_update(&mut self, group: &mut FlowGroup, u: RateUpdate, out: &mut Out) -> Outcome {
        let RateUpdate { idx, cc_r, .. } = u;
        let delta = cc_r - group.flows[idx].fse_r;
        group.add_to_aggregate(delta);
        let reset = self.config.reset_aggregate_to_allocated;
        distribute(group, self.config.distribution, reset, out);
        Ok(())
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
