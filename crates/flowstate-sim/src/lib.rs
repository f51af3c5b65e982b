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

pub mod flow;
pub mod link;
pub mod queue;
pub mod scheduler;
