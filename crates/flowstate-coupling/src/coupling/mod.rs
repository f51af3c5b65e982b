//! Coupling managers: the Flow State Exchange (FSE) family.
//!
//! A [`CouplingManager`] keeps flow groups (flows that share a bottleneck, keyed by a
//! [`GroupKey`]); flows register with a [`FlowSpec`], report every new value of their
//! congestion controller with a [`FlowReport`], and get back an [`Allocation`] for every
//! flow of their group, which the caller applies to each flow's controller.
//!
//! | mechanism | source | file |
//! |---|---|---|
//! | FSE (and paper 004's simple variant) | RFC 8699 5.2 alg. 1; paper 000 Alg. 1; paper 004 Alg. 1 | [`fse`] |
//! | conservative FSE | RFC 8699 5.2 alg. 2; paper 004 Alg. 2 | [`conservative`] |
//! | FSE-NG | paper 000 Algs. 2-3 | [`fse_ng`] |
//! | Extended FSE-NG | paper 000 Algs. 4-5 | [`ext_fse_ng`] |
//! | FSEv2 | paper 000 Alg. 6 | [`fse_v2`] |
//!
//! All five share one allocation routine, weighted water-filling with caps in closed
//! form ([`waterfill`]), and differ in how the aggregate S_CR moves. Every deviation from
//! a paper is an option of the mechanism's config struct; docs/ALGORITHMS.md lists them.
//!
//! Each mechanism's file holds its rules (the `CouplingRules` trait), its config and
//! options, and its catalogue entry ([`MechanismInfo`], listed by
//! [`Mechanism::catalogue`]); `mechanism.rs` lists the mechanisms once and says how to
//! add one (one file plus one line).
//!
//! # A mechanism written outside this crate
//!
//! With the crate feature `custom-mechanism`, `CouplingRules` is public, with the
//! group state its hooks see (`FlowGroup`, `FlowEntry`, `WindowState`, `RateUpdate`,
//! `WindowUpdate`), and `CouplingManager::with_custom_mechanism` runs a
//! `CustomMechanism`: a mechanism written by the embedder, coupled by the manager like
//! a built-in one (the same groups, ids, checks of every report, moves between groups).
//! `examples/custom_mechanism.rs` writes one in about sixty lines.

pub mod catalogue;
pub mod conservative;
#[cfg(feature = "custom-mechanism")]
mod custom;
mod error;
pub mod ext_fse_ng;
mod flow;
pub mod fse;
pub mod fse_ng;
pub mod fse_v2;
mod group;
mod manager;
mod mechanism;
pub mod options;
mod rules;
#[cfg(test)]
mod toy;
mod uncoupled;
mod validate;
pub mod waterfill;
pub mod web_api;

pub use catalogue::{MechanismInfo, OptionDefault, OptionInfo, OptionKind};
pub use conservative::ConservativeConfig;
#[cfg(feature = "custom-mechanism")]
pub use custom::CustomMechanism;
pub use error::CouplingError;
pub use ext_fse_ng::ExtendedFseNgConfig;
pub use flow::{
    Allocation, Allowance, FlowId, FlowKind, FlowReport, FlowSpec, GroupKey, RateReportMode,
};
pub use fse::{Distribution, FseConfig};
pub use fse_ng::FseNgConfig;
pub use fse_v2::{window_allowance, CwndRtt, FseV2Config};
#[cfg(feature = "custom-mechanism")]
pub use group::{FlowEntry, FlowGroup, WindowState};
pub use manager::regroup::{Regroup, DEFAULT_MIN_REGROUP_INTERVAL};
pub use manager::{CouplingManager, DeregisterPolicy, FlowInfo};
pub use mechanism::Mechanism;
pub use options::{mechanism_with_options, OptionError, OptionValue};
#[cfg(feature = "custom-mechanism")]
pub use rules::{CloneRules, CouplingRules, RateUpdate, WindowUpdate};
pub use validate::{
    check_priority, rate_from_bps, rtt_from_secs, timestamp_from_secs, MAX_PRIORITY, MIN_PRIORITY,
};
pub use web_api::{
    DataInput, MediaInput, WebApiConfig, WebApiDecision, WebApiError, WebApiInput, WebApiRule,
};
