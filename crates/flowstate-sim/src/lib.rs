//! # flowstate-sim
//!
//! A deterministic packet-level discrete-event simulator that drives flowstate's sans-I/O
//! endpoints over a dumbbell topology (forward and reverse bottleneck links, per-flow
//! path delays). A run is a pure function of `(scenario, seed)`: no clock, no sockets, no
//! threads; every random component has its own seeded stream.
//!
//! Entry points: [`run::run`] (a parsed [`scenario::Scenario`] and a seed) and
//! [`run::run_toml`] / [`run::run_file`]; plug new flow kinds in through
//! [`run::FlowFactory`] and coupling managers through [`coupling::CouplingHook`].

pub mod cbr;
pub mod coupling;
pub mod endpoints;
pub mod engine;
pub mod flow;
pub mod greedy;
pub mod link;
pub mod metrics;
pub mod queue;
pub mod run;
pub mod scenario;
pub mod scheduler;
pub mod topology;
pub mod trace;
pub mod units_parse;

pub use engine::{RunResult, SimConfig, Simulation};
pub use run::{build_with, run, run_file, run_toml, run_with, validate, validate_toml};
pub use scenario::{Scenario, ScenarioError};

/// Why a run could not be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SimError {
    /// The scenario is invalid (one line: file, field, what was expected).
    #[error("{0}")]
    Scenario(#[from] ScenarioError),
    /// A flow kind or coupling mechanism the simulator cannot build yet.
    #[error("{0}")]
    NotWired(String),
    #[error("{path}: {message}")]
    Io { path: String, message: String },
}
