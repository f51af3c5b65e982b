//! The conservative active FSE: RFC 8699 section 5.2, algorithm 2 (paper 004 Alg. 2).
//!
//! Only the aggregate update differs from the FSE (RFC 8699 5.2 alg. 2, step a):
//!
//! ```text
//! if Timer has expired or was not set:
//!     DELTA = CC_R(f) - FSE_R(f)
//!     if DELTA < 0:  S_CR = S_CR * CC_R(f) / FSE_R(f)   (reduce proportionally)
//!                    set Timer for 2 RTTs (of f)
//!     else:          S_CR = S_CR + DELTA
//! ```
//!
//! Paper 004 (section 3) adds two rules its pseudo-code omits; both are options, on by
//! default:
//! - the aggregate's growth is limited to I/N for N flows ("to better emulate the
//!   behavior of a single flow"): an increase DELTA adds DELTA / N to S_CR;
//! - while the timer runs, "flows other than the flow that just reduced its rate" may
//!   not change the aggregate; the reducing flow still may (the pseudo-code lets no
//!   flow change it).

use super::catalogue::{
    CheckedValue, MechanismInfo, OptionDefault, OptionInfo, OptionKind, RATE_ONLY,
};
use super::error::CouplingError;
use super::flow::{FlowId, RateReportMode};
use super::fse::{
    distribute, distribution_option, reset_aggregate_option, Distribution, FseConfig,
};
use super::group::FlowGroup;
use super::rules::{CouplingRules, Out, Outcome, RateUpdate};
use crate::units::Timestamp;

/// Options of the conservative FSE.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ConservativeConfig {
    /// RFC 8699 distributes with the leftover loop; paper 004's Alg. 2 with
    /// `min(DR, P * S_CR / S_P)`.
    pub distribution: Distribution,
    /// Limit increases of the aggregate to I/N (paper 004 text). Default on.
    pub increase_limit_per_flow_count: bool,
    /// While the timer runs, the flow that reduced may still change the aggregate
    /// (paper 004 text). Off = the pseudo-code: nobody changes it. Default on.
    pub reducer_may_update_during_timer: bool,
    /// The timer lasts this many RTTs of the reducing flow (2 in RFC 8699 and paper 004).
    pub timer_rtts: i64,
    /// Set S_CR to the sum of allocations after distributing (as in [`super::FseConfig`]).
    pub reset_aggregate_to_allocated: bool,
}

impl Default for ConservativeConfig {
    fn default() -> Self {
        ConservativeConfig {
            distribution: Distribution::WaterFilling,
            increase_limit_per_flow_count: true,
            reducer_may_update_during_timer: true,
            timer_rtts: 2,
            reset_aggregate_to_allocated: true,
        }
    }
}

pub(crate) const INFO: MechanismInfo = MechanismInfo {
    name: "conservative-fse",
    display_name: "conservative FSE",
    aliases: &[],
    description: "the FSE whose S_CR follows a decrease proportionally and then holds for 2 RTTs (a group timer)",
    source: "RFC 8699 section 5.2, algorithm 2 (paper 004 Alg. 2)",
    flow_kinds: RATE_ONLY,
    rate_report: RateReportMode::DelayBased,
    options: &[
        distribution_option("water-filling"),
        OptionInfo {
            name: "increase_limit_per_flow_count",
            kind: OptionKind::Bool,
            default: OptionDefault::Bool(true),
            unit: None,
            description: "an increase I of S_CR adds I/N for N flows (paper 004 section 3 text; off = its pseudo-code)",
        },
        OptionInfo {
            name: "reducer_may_update_during_timer",
            kind: OptionKind::Bool,
            default: OptionDefault::Bool(true),
            unit: None,
            description: "while the timer runs, the flow that reduced may still change S_CR (paper 004 section 3 text; off = the pseudo-code: nobody may)",
        },
        OptionInfo {
            name: "timer_rtts",
            kind: OptionKind::Positive,
            default: OptionDefault::Number(2.0),
            unit: Some("RTTs"),
            description: "how long the group timer runs after a decrease, in RTTs of the reducing flow (rounded to whole RTTs; RFC 8699 and paper 004: 2)",
        },
        reset_aggregate_option(true),
    ],
};

impl ConservativeConfig {
    pub(crate) fn info(&self) -> &'static MechanismInfo {
        &INFO
    }

    /// Sets a declared option ([`INFO`]); false if there is no such field.
    pub(crate) fn set_option(&mut self, name: &str, value: CheckedValue) -> bool {
        // The options it shares with the FSE, set as the FSE sets them.
        let mut shared = FseConfig {
            distribution: self.distribution,
            reset_aggregate_to_allocated: self.reset_aggregate_to_allocated,
        };
        if shared.set_option(name, value) {
            self.distribution = shared.distribution;
            self.reset_aggregate_to_allocated = shared.reset_aggregate_to_allocated;
            return true;
        }
        match (name, value) {
            ("increase_limit_per_flow_count", CheckedValue::Bool(b)) => {
                self.increase_limit_per_flow_count = b
            }
            ("reducer_may_update_during_timer", CheckedValue::Bool(b)) => {
                self.reducer_may_update_during_timer = b
            }
            ("timer_rtts", CheckedValue::Positive(n)) => self.timer_rtts = n.round() as i64,
            _ => return false,
        }
        true
    }
}

/// The group timer: set when a flow reduces, for `timer_rtts` of its RTTs.
#[derive(Debug, Clone, Copy, PartialEq)]
struct ReductionTimer {
    expires: Timestamp,
    reducer: FlowId,
}

#[derive(Debug, Clone)]
pub(crate) struct ConservativeFse {
    pub config: ConservativeConfig,
    timer: Option<ReductionTimer>,
}

impl From<ConservativeConfig> for ConservativeFse {
    fn from(config: ConservativeConfig) -> Self {
        ConservativeFse {
            config,
            timer: None,
        }
    }
}

impl CouplingRules for ConservativeFse {
    /// The time the group timer expires, if it is running at `now`.
    fn timer_expiry(&self, now: Timestamp) -> Option<Timestamp> {
        self.timer.filter(|t| now < t.expires).map(|t| t.expires)
    }

    fn rate_update(&mut self, group: &mut FlowGroup, u: RateUpdate, out: &mut Out) -> Outcome {
        let RateUpdate {
            now,
            idx,
            cc_r,
            rtt,
        } = u;
        let flow = &group.flows[idx];
        let running = self.timer.filter(|t| now < t.expires);
        let may_change = match running {
            None => true,
            Some(t) => self.config.reducer_may_update_during_timer && t.reducer == flow.id,
        };
        if may_change {
            let fse_r = flow.fse_r;
            let delta = cc_r - fse_r;
            if delta < 0.0 {
                let rtt = rtt.ok_or(CouplingError::MissingRtt {
                    mechanism: INFO.display_name,
                    flow: flow.id,
                })?;
                // fse_r > cc_r >= 0 here, so the ratio is finite and in [0, 1).
                group.s_cr *= cc_r / fse_r;
                self.timer = Some(ReductionTimer {
                    expires: now + rtt * self.config.timer_rtts,
                    reducer: flow.id,
                });
            } else {
                let n = group.flows.len() as f64;
                let increase = if self.config.increase_limit_per_flow_count {
                    delta / n
                } else {
                    delta
                };
                group.add_to_aggregate(increase);
            }
        }
        let reset = self.config.reset_aggregate_to_allocated;
        distribute(group, self.config.distribution, reset, out);
        Ok(())
    }
}
