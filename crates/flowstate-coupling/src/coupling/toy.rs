//! A toy mechanism, compiled for the tests only: the whole of adding a mechanism is
//! this file, `#[cfg(test)] mod toy;` in `coupling/mod.rs` and one line in the
//! `mechanisms!` list (`coupling/mechanism.rs`). Its tests use it through the public
//! API only: by name, with options, in a [`CouplingManager`].
//!
//! Equal shares: S_CR = S_CR + CC_R - FSE_R(f) (as RFC 8699 5.2 alg. 1 step a), and
//! every flow gets `headroom` x S_CR / N, whatever its priority.

use super::catalogue::{
    CheckedValue, MechanismInfo, OptionDefault, OptionInfo, OptionKind, RATE_ONLY,
};
use super::flow::RateReportMode;
use super::group::FlowGroup;
use super::rules::{CouplingRules, Out, Outcome, RateUpdate};

/// Options of the toy.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ToyConfig {
    /// The share of S_CR handed out.
    pub headroom: f64,
}

impl Default for ToyConfig {
    fn default() -> Self {
        ToyConfig { headroom: 1.0 }
    }
}

pub(crate) const INFO: MechanismInfo = MechanismInfo {
    name: "toy",
    display_name: "Toy",
    aliases: &["equal-shares"],
    description: "equal shares of S_CR, whatever the priorities (a test-only example)",
    source: "none: the recipe in coupling/mechanism.rs",
    flow_kinds: RATE_ONLY,
    rate_report: RateReportMode::Target,
    options: &[OptionInfo {
        name: "headroom",
        kind: OptionKind::Positive,
        default: OptionDefault::Number(1.0),
        unit: Some("factor"),
        description: "the share of S_CR handed out",
    }],
};

impl ToyConfig {
    pub(crate) fn info(&self) -> &'static MechanismInfo {
        &INFO
    }

    pub(crate) fn set_option(&mut self, name: &str, value: CheckedValue) -> bool {
        match (name, value) {
            ("headroom", CheckedValue::Positive(h)) => self.headroom = h,
            _ => return false,
        }
        true
    }
}

/// Per-group state: the config only.
#[derive(Debug, Clone)]
pub(crate) struct Toy {
    config: ToyConfig,
}

impl From<ToyConfig> for Toy {
    fn from(config: ToyConfig) -> Self {
        Toy { config }
    }
}

/// Registration, window updates, leaving and timers: the default hooks.
impl CouplingRules for Toy {
    fn rate_update(&mut self, group: &mut FlowGroup, u: RateUpdate, out: &mut Out) -> Outcome {
        let RateUpdate { idx, cc_r, .. } = u;
        let change = cc_r - group.flows[idx].fse_r;
        group.add_to_aggregate(change);
        let share = self.config.headroom * group.s_cr / group.flows.len() as f64;
        for flow in &mut group.flows {
            flow.fse_r = share;
            out.push(flow.rate_allocation());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::coupling::{
        mechanism_with_options, CouplingError, CouplingManager, FlowKind, FlowReport, FlowSpec,
        GroupKey, Mechanism, OptionValue,
    };
    use crate::units::{Bitrate, DataSize, Timestamp};

    fn rate_flow(priority: f64) -> FlowSpec {
        FlowSpec::Rate {
            priority,
            initial_rate: Bitrate::mbps(1.0),
            desired_rate: None,
        }
    }

    #[test]
    fn the_toy_is_listed_named_and_configured_like_any_mechanism() {
        let info = Mechanism::catalogue().iter().find(|i| i.name == "toy");
        assert_eq!(info.map(|i| i.flow_kinds), Some(&[FlowKind::Rate][..]));
        assert!(Mechanism::NAMES.contains(&"toy"));
        assert_eq!(Mechanism::canonical_name("Equal_Shares"), Some("toy"));
        let half = OptionValue::Number(0.5);
        let m = mechanism_with_options("toy", [("headroom", &half)]).unwrap();
        assert_eq!(m.display_name(), "Toy");
        let err = mechanism_with_options("toy", [("priority", &half)]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "unknown option 'priority' for toy (expected one of: headroom)"
        );
    }

    #[test]
    fn the_manager_couples_with_the_toy() {
        let half = OptionValue::Number(0.5);
        let m = mechanism_with_options("toy", [("headroom", &half)]).unwrap();
        let mut manager = CouplingManager::new(m);
        let key = GroupKey(7);
        let a = manager.register(key, rate_flow(3.0)).unwrap();
        let b = manager.register(key, rate_flow(1.0)).unwrap();
        // S_CR = 1 + 1 + (3 - 1) = 4 Mbit/s; each gets 0.5 x 4 / 2 = 1 Mbit/s.
        let report = FlowReport::Rate {
            rate: Bitrate::mbps(3.0),
            rtt: None,
        };
        let out = manager.update(Timestamp::ZERO, a, report).unwrap().to_vec();
        assert_eq!(out.len(), 2);
        for allocation in out {
            assert!((allocation.rate.as_mbps() - 1.0).abs() < 1e-9);
        }
        assert_eq!(manager.timer_expiry(key, Timestamp::ZERO), None);
        // Its flow kinds come from its catalogue entry.
        let window = FlowSpec::Window {
            priority: 1.0,
            initial_cwnd: DataSize::bytes(12_000),
            initial_rtt: None,
            initial_max_cwnd: None,
            mtu: DataSize::bytes(1200),
        };
        assert!(matches!(
            manager.register(key, window),
            Err(CouplingError::UnsupportedKind {
                mechanism: "Toy",
                ..
            })
        ));
        assert_eq!(manager.deregister(b).unwrap(), &[]);
    }
}
