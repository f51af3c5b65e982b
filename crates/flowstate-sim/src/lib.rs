//! # flowstate-sim
//!
//! A deterministic packet-level discrete-event simulator that drives flowstate's sans-I/O
//! endpoints over a dumbbell topology (forward and reverse bottleneck links, per-flow
//! path delays). A run is a pure function of `(scenario, seed)`: no clock, no sockets;
//! every random component has its own seeded stream. The event loop is one thread; a run
//! of many flows hands what it only records (trace hash, window histograms) to one
//! helper thread that consumes it in order ([`recorder`]), with the same results.
//!
//! Entry points: [`run::run`] (a parsed [`scenario::Scenario`] and a seed) and
//! [`run::run_toml`] / [`run::run_file`]; plug new flow kinds in through
//! [`run::FlowFactory`] and coupling managers through [`coupling::CouplingHook`].

pub mod app_stats;
pub mod bounds;
pub mod coupling;
pub mod coupling_rule;
pub mod deciders;
pub mod endpoints;
pub mod engine;
pub mod error;
pub mod flow;
pub mod flow_kind;
pub mod flow_spec;
pub mod greedy;
pub mod input_file;
pub mod kinds;
pub mod link;
pub mod link_metrics;
pub mod metrics;
pub mod name_de;
pub mod overrides;
pub mod presets;
pub mod queue;
pub mod queue_spec;
pub mod recorder;
pub mod rule_runs;
pub mod run;
pub mod sbd;
pub mod scenario;
pub mod scenario_bounds;
pub mod scenario_check;
pub mod scheduler;
pub mod series_text;
pub mod topology;
pub mod topology_spec;
pub mod trace;
pub mod trace_record;
pub mod tracked;
pub mod units_parse;
pub mod web_api;

pub use engine::{RunResult, SimConfig, Simulation};
pub use error::{FieldError, ScenarioError, SimError};
pub use flow_kind::FlowKind;
pub use run::{build_with, run, run_file, run_toml, run_with, validate, validate_toml};
pub use scenario::Scenario;
