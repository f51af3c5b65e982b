//! Coupling managers: the Flow State Exchange family.
mod error;
mod flow;

pub use error::CouplingError;
pub use flow::{Allocation, Allowance, FlowId, FlowKind, FlowReport, FlowSpec, GroupKey};
