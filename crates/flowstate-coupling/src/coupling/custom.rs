//! A coupling mechanism written outside this crate (crate feature `custom-mechanism`),
//! run by a [`CouplingManager`](super::CouplingManager) like a built-in one: the manager keeps the groups, the
//! flow ids, the checks of every registration and report, and calls the mechanism's
//! [`CouplingRules`] for each group. As quinn's `TransportConfig` takes a congestion
//! controller factory, the manager takes a [`CustomMechanism`]: it names the mechanism,
//! says which kinds of flow it couples and builds each new group's rules.
//!
//! `examples/custom_mechanism.rs` is a complete one.

use std::fmt;

use super::flow::FlowKind;
use super::rules::CouplingRules;

/// A coupling mechanism written outside this crate: what
/// [`CouplingManager::with_custom_mechanism`](super::CouplingManager::with_custom_mechanism)
/// runs.
pub trait CustomMechanism: fmt::Debug + Send + Sync {
    /// The name printed for it: in
    /// [`CouplingError::UnsupportedKind`](super::CouplingError::UnsupportedKind) and by
    /// [`CouplingManager::mechanism_display_name`](super::CouplingManager::mechanism_display_name).
    fn display_name(&self) -> &'static str;

    /// The kinds of flow it couples; registering a flow of another kind is
    /// [`CouplingError::UnsupportedKind`](super::CouplingError::UnsupportedKind).
    fn flow_kinds(&self) -> &'static [FlowKind];

    /// The rules, with their state, of a new flow group (when its first flow
    /// registers, or a flow moves into a group that does not exist yet).
    fn new_group(&self) -> Box<dyn CouplingRules>;
}
