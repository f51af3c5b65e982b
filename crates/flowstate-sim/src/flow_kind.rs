//! The flow kind of a scenario flow (`[[flows]] kind = "..."`), read once when the
//! scenario is parsed; everything after reads [`FlowKind`], not the name. A
//! `FlowKind` is a handle to the kind's [`KindDef`] in [`crate::kinds::ALL`]: adding a
//! kind is a file in `kinds/` and its line in that table, nothing here.

use crate::kinds::{self, CouplingRole, KindDef};
use serde::de::{self, Deserializer};
use serde::Deserialize;
use std::fmt;

/// A scenario flow kind.
#[derive(Clone, Copy)]
pub struct FlowKind(&'static KindDef);

/// The coupling group of a WebRTC call's own flows when the scenario names none
/// ([`FlowKind::default_group`]).
pub use crate::kinds::CALL_GROUP;

/// How a coupling manager sees a flow of a kind: flowstate-core's rate / window
/// distinction.
pub use flowstate_core::coupling::FlowKind as Coupling;

/// `"rate"` or `"window"`.
pub const fn coupling_name(c: Coupling) -> &'static str {
    match c {
        Coupling::Rate => "rate",
        Coupling::Window => "window",
    }
}

impl FlowKind {
    /// The kind `def` describes.
    pub const fn of(def: &'static KindDef) -> Self {
        Self(def)
    }
    /// Every kind, in the order they are listed.
    pub fn all() -> impl Iterator<Item = FlowKind> {
        kinds::ALL.iter().map(|&d| FlowKind(d))
    }
    /// Every kind's name, in the order of [`FlowKind::all`].
    pub fn names_list() -> Vec<&'static str> {
        Self::all().map(Self::name).collect()
    }
    /// The kind's description and builder.
    pub const fn def(self) -> &'static KindDef {
        self.0
    }
    /// The name scenario files use (`"tcp-cubic"`).
    pub const fn name(self) -> &'static str {
        self.0.name
    }
    /// One line saying what a flow of this kind is.
    pub const fn description(self) -> &'static str {
        self.0.description
    }
    /// How a coupling manager sees the flow; `None`: never coupled.
    pub const fn coupling(self) -> Option<Coupling> {
        match self.0.coupling {
            Some(role) => Some(role.coupling()),
            None => None,
        }
    }
    /// The unit a window flow's cwnd moves in (SCTP's MTU, TCP's SMSS); `None` for
    /// rate flows and uncoupled kinds.
    pub const fn window_mtu(self) -> Option<flowstate_core::DataSize> {
        match self.0.coupling {
            Some(CouplingRole::Window { mtu }) => Some(mtu),
            _ => None,
        }
    }
    /// The coupling group a flow of this kind joins when its scenario names none:
    /// [`CALL_GROUP`] for a WebRTC call's own flows (RTP media under GCC, NADA or
    /// SCReAM, and SCTP data channels), `None` (not coupled) for every other kind: TCP,
    /// LEDBAT, RAP, TFRC and CBR are another application's traffic unless the scenario
    /// puts them in a group (docs/SCENARIOS.md, "Coupling groups").
    pub const fn default_group(self) -> Option<&'static str> {
        self.0.default_group
    }
    /// A window-based flow (SCTP, TCP, LEDBAT).
    pub const fn is_window(self) -> bool {
        self.window_mtu().is_some()
    }
    /// A TCP flow (NewReno or CUBIC).
    pub fn is_tcp(self) -> bool {
        self.name().starts_with("tcp-")
    }
    /// The kind a scenario names (`"tcp-cubic"`), under the one name rule
    /// ([`flowstate_core::names`]: any case, `_` or `-`).
    pub fn from_name(name: &str) -> Option<Self> {
        flowstate_core::names::find_by_name(Self::all(), Self::name, name)
    }
    /// Every kind's name joined with `|`, for messages.
    pub fn names() -> String {
        Self::names_list().join("|")
    }
}

impl PartialEq for FlowKind {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self.0, other.0)
    }
}
impl Eq for FlowKind {}

impl std::hash::Hash for FlowKind {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.name().hash(state);
    }
}

impl fmt::Debug for FlowKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "FlowKind({})", self.name())
    }
}

impl fmt::Display for FlowKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl<'de> Deserialize<'de> for FlowKind {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = String::deserialize(d)?;
        FlowKind::from_name(&name).ok_or_else(|| {
            de::Error::custom(format!(
                "expected one of {}, got \"{name}\"",
                FlowKind::names()
            ))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_are_unique() {
        for k in FlowKind::all() {
            assert_eq!(FlowKind::from_name(k.name()), Some(k));
            assert!(!k.description().is_empty());
        }
        let mut names = FlowKind::names_list();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), FlowKind::all().count());
        // The one name rule: any case, `_` or `-`.
        assert_eq!(
            FlowKind::from_name("TCP_CUBIC"),
            FlowKind::from_name("tcp-cubic")
        );
        assert_eq!(FlowKind::from_name("tcpcubic"), None);
    }

    #[test]
    fn window_kinds_are_sctp_tcp_and_ledbat() {
        let window: Vec<_> = FlowKind::all()
            .filter(|k| k.is_window())
            .map(FlowKind::name)
            .collect();
        assert_eq!(window, ["sctp", "tcp-newreno", "tcp-cubic", "ledbat"]);
        assert_eq!(
            FlowKind::from_name("cbr").and_then(FlowKind::coupling),
            None
        );
    }

    #[test]
    fn only_a_calls_own_flows_are_coupled_by_default() {
        let call: Vec<_> = FlowKind::all()
            .filter(|k| k.default_group().is_some())
            .collect();
        let names: Vec<_> = call.iter().map(|k| k.name()).collect();
        assert_eq!(names, ["gcc", "sctp", "nada", "scream"]);
        for k in call {
            assert!(
                k.coupling().is_some(),
                "{k} joins a group it cannot be coupled in"
            );
        }
    }
}
