//! Runs whose `[coupling] mechanism = "python"` rule comes from the driver
//! (crate::coupling_rule): a [`RuleFactory`] makes the rule's [`RuleMaker`] once per
//! run, and [`RuleCouplingFactory`] builds the run's coupling hook over it (every other
//! mechanism as the default factory does). The Python package's runs, sweeps and
//! catalogue pass one (flowstate-py implements it with the user's class); the
//! Rust-only tools use the default factory, which refuses the mechanism with one line.

use crate::coupling::{
    CouplingFactory, CouplingHook, DefaultCouplingFactory, FlowInfo, ManagerHook,
};
use crate::coupling_rule::{RuleClock, RuleMaker, RuleMechanism};
use crate::deciders::{DeciderFactory, DeciderFlowFactory};
use crate::engine::Simulation;
use crate::error::{FieldError, SimError};
use crate::scenario::Scenario;
use flowstate_core::coupling::CouplingManager;
use rand_chacha::ChaCha8Rng;

/// Makes the coupling rule of a run.
pub trait RuleFactory {
    /// The maker of the rule `rule` (`"module:Class"`) with the constructor's keyword
    /// arguments `params`. Error: a field of `[coupling]` (`rule`, `params.x`), put
    /// under `coupling.`.
    fn rule(&self, rule: &str, params: &toml::Table) -> Result<Box<dyn RuleMaker>, FieldError>;
}

/// The coupling factory of a run with a rule factory: `mechanism = "python"` with the
/// rule `rules` makes, every other mechanism as [`DefaultCouplingFactory`].
pub struct RuleCouplingFactory<'a> {
    pub rules: &'a dyn RuleFactory,
}

impl std::fmt::Debug for RuleCouplingFactory<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RuleCouplingFactory")
    }
}

impl CouplingFactory for RuleCouplingFactory<'_> {
    fn build(
        &self,
        mechanism: &str,
        options: &toml::Table,
        flows: &[FlowInfo],
    ) -> Result<Box<dyn CouplingHook>, SimError> {
        DefaultCouplingFactory.build(mechanism, options, flows)
    }

    fn build_rule(
        &self,
        rule: &str,
        params: &toml::Table,
        flows: &[FlowInfo],
        rng: ChaCha8Rng,
    ) -> Result<Box<dyn CouplingHook>, SimError> {
        let maker = self
            .rules
            .rule(rule, params)
            .map_err(|e| SimError::Build(e.under("coupling.")))?;
        let kinds = maker.flow_kinds();
        let clock = RuleClock::default();
        let mechanism = RuleMechanism::new(maker, clock.clone(), rng);
        let manager = CouplingManager::with_custom_mechanism(mechanism);
        let hook = ManagerHook::with_manager(manager, |k| kinds.contains(&k), flows);
        Ok(Box::new(hook.with_clock(clock)))
    }
}

/// The run of `scenario` with `seed`: its `python` / `onnx` flows asking the deciders
/// `deciders` makes, a `mechanism = "python"` coupling by the rule `rules` makes.
pub fn build_with_python(
    scenario: &Scenario,
    seed: u64,
    deciders: &dyn DeciderFactory,
    rules: &dyn RuleFactory,
) -> Result<Simulation, SimError> {
    crate::run::build_with(
        scenario,
        seed,
        &DeciderFlowFactory { deciders },
        &RuleCouplingFactory { rules },
    )
}
