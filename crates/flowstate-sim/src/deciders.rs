//! Runs whose `python` / `onnx` flows get their rate from a decider the driver makes
//! (crate::kinds::external): a [`DeciderFactory`] makes one `RateDecider` per such
//! flow, and [`DeciderFlowFactory`] builds every other flow as the default factory does.
//! The Python package's runs, sweeps and catalogue pass one (flowstate-py implements it
//! with the user's Python objects); the Rust-only tools use the default factory, which
//! refuses these kinds with one line.

use crate::coupling::DefaultCouplingFactory;
use crate::endpoints::{DefaultFlowFactory, FlowContext, FlowFactory};
use crate::engine::Simulation;
use crate::error::{FieldError, SimError};
use crate::flow::SimFlow;
use crate::flow_spec::{BuildInput, FlowSpec};
use crate::kinds::external::{external_flow, is_external};
use crate::scenario::Scenario;
use flowstate_core::endpoint::external::RateDecider;
use rand::RngExt;
use rand_chacha::ChaCha8Rng;

/// Makes the decider of each `python` / `onnx` flow.
pub trait DeciderFactory {
    /// The decider of flow `index` (`spec`: its entry, with its `controller` and
    /// `params`; `seed`: the flow's own seed, drawn from its random stream). Error: a
    /// field of the flow (`controller`, `params.x`), put under `flows[index].`.
    fn decider(
        &self,
        index: usize,
        spec: &FlowSpec,
        seed: u64,
    ) -> Result<Box<dyn RateDecider>, FieldError>;
}

/// The flow factory of a run with deciders: `python` / `onnx` flows with the decider
/// `deciders` makes, every other kind as [`DefaultFlowFactory`].
pub struct DeciderFlowFactory<'a> {
    pub deciders: &'a dyn DeciderFactory,
}

impl std::fmt::Debug for DeciderFlowFactory<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("DeciderFlowFactory")
    }
}

impl FlowFactory for DeciderFlowFactory<'_> {
    fn build(
        &self,
        ctx: &FlowContext,
        index: usize,
        spec: &FlowSpec,
        mut rng: ChaCha8Rng,
    ) -> Result<Box<dyn SimFlow>, SimError> {
        if !is_external(spec.kind) {
            return DefaultFlowFactory.build(ctx, index, spec, rng);
        }
        // The seed as the default factory draws it for every kind.
        let seed: u64 = rng.random();
        let under = |e: FieldError| SimError::Build(e.under(&format!("flows[{index}].")));
        let decider = self.deciders.decider(index, spec, seed).map_err(under)?;
        let input = BuildInput {
            ctx,
            index,
            spec,
            seed,
        };
        Ok(Box::new(external_flow(&input, decider).map_err(under)?))
    }
}

/// The run of `scenario` with `seed`, its `python` / `onnx` flows asking the deciders
/// `deciders` makes, coupled by the scenario's mechanism (crate::run::build_with).
pub fn build_with_deciders(
    scenario: &Scenario,
    seed: u64,
    deciders: &dyn DeciderFactory,
) -> Result<Simulation, SimError> {
    crate::run::build_with(
        scenario,
        seed,
        &DeciderFlowFactory { deciders },
        &DefaultCouplingFactory,
    )
}
