//! The flow kinds a scenario may name (`[[flows]] kind = "..."`), read once when the
//! scenario is parsed; everything after reads [`FlowKind`], not the name.
//!
//! Adding a kind: one variant, its entry in [`FlowKind::ALL`], its name, description and
//! coupling in [`FlowKind::info`], its overrides (crate::overrides) and its builder in
//! `endpoints::DefaultFlowFactory` (the compiler lists every other match to extend).

use serde::de::{self, Deserializer};
use serde::Deserialize;
use std::fmt;

/// A scenario flow kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FlowKind {
    /// GCC-controlled video (flowstate-core `MediaSender` / `MediaReceiver`).
    Gcc,
    /// An SCTP data channel.
    Sctp,
    /// TCP with NewReno.
    TcpNewReno,
    /// TCP with CUBIC.
    TcpCubic,
    /// RAP.
    Rap,
    /// TFRC.
    Tfrc,
    /// Constant bit rate, no congestion control.
    Cbr,
    /// NADA-controlled video (RFC 8698; flowstate-core `NadaSender` / `CcfbReceiver`).
    Nada,
    /// SCReAM-controlled video (RFC 8298 v1; `ScreamSender` / `CcfbReceiver`).
    Scream,
    /// A LEDBAT bulk transfer (RFC 6817; `LedbatSender` / `LedbatReceiver`).
    Ledbat,
}

/// The coupling group of a WebRTC call's own flows when the scenario names none
/// ([`FlowKind::default_group`]).
pub const CALL_GROUP: &str = "call";

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
    /// Every kind, in the order they are listed.
    pub const ALL: [FlowKind; 10] = [
        FlowKind::Gcc,
        FlowKind::Sctp,
        FlowKind::TcpNewReno,
        FlowKind::TcpCubic,
        FlowKind::Rap,
        FlowKind::Tfrc,
        FlowKind::Cbr,
        FlowKind::Nada,
        FlowKind::Scream,
        FlowKind::Ledbat,
    ];

    /// Every kind's name, in the order of [`FlowKind::ALL`].
    pub const NAMES: [&'static str; 10] = {
        let mut names = [""; 10];
        let mut i = 0;
        while i < names.len() {
            names[i] = Self::ALL[i].name();
            i += 1;
        }
        names
    };

    /// `(name, description, coupling)`.
    const fn info(self) -> (&'static str, &'static str, Option<Coupling>) {
        match self {
            Self::Gcc => (
                "gcc",
                "RTP video from a video encoder model under Google Congestion Control (draft-ietf-rmcat-gcc-02, papers 001/002; presets in gcc_presets)",
                Some(Coupling::Rate),
            ),
            Self::Sctp => (
                "sctp",
                "an SCTP data channel (RFC 4960 congestion control, paper 000's greedy sender unless source or desired_rate says otherwise)",
                Some(Coupling::Window),
            ),
            Self::TcpNewReno => (
                "tcp-newreno",
                "a TCP flow with NewReno (RFC 5681, RFC 6582), long-lived greedy by default",
                Some(Coupling::Window),
            ),
            Self::TcpCubic => (
                "tcp-cubic",
                "a TCP flow with CUBIC (RFC 9438), long-lived greedy by default",
                Some(Coupling::Window),
            ),
            Self::Rap => (
                "rap",
                "a RAP flow (Rejaie et al., INFOCOM 1999; papers 003/004), greedy by default",
                Some(Coupling::Rate),
            ),
            Self::Tfrc => (
                "tfrc",
                "a TFRC flow (RFC 5348; papers 003/004), greedy by default",
                Some(Coupling::Rate),
            ),
            Self::Cbr => (
                "cbr",
                "constant bit rate packets without congestion control (never coupled)",
                None,
            ),
            Self::Nada => (
                "nada",
                "RTP video from a video encoder model under NADA (RFC 8698) with RFC 8888 feedback; coupled as a rate flow (r_ref, with r_vin and r_send following, paper 003 Table I)",
                Some(Coupling::Rate),
            ),
            Self::Scream => (
                "scream",
                "RTP video from a video encoder model under SCReAM v1 (RFC 8298) with RFC 8888 feedback; coupled as a rate flow (its target bitrate)",
                Some(Coupling::Rate),
            ),
            Self::Ledbat => (
                "ledbat",
                "a LEDBAT bulk transfer (RFC 6817, one-way delay from sender timestamps), long-lived greedy by default; coupled as a window flow",
                Some(Coupling::Window),
            ),
        }
    }

    /// The name scenario files use (`"tcp-cubic"`).
    pub const fn name(self) -> &'static str {
        self.info().0
    }
    /// One line saying what a flow of this kind is.
    pub const fn description(self) -> &'static str {
        self.info().1
    }
    /// How a coupling manager sees the flow; `None`: never coupled.
    pub const fn coupling(self) -> Option<Coupling> {
        self.info().2
    }
    /// The coupling group a flow of this kind joins when its scenario names none:
    /// [`CALL_GROUP`] for a WebRTC call's own flows (RTP media under GCC, NADA or
    /// SCReAM, and SCTP data channels), `None` (not coupled) for every other kind: TCP,
    /// LEDBAT, RAP, TFRC and CBR are another application's traffic unless the scenario
    /// puts them in a group (docs/SCENARIOS.md, "Coupling groups").
    pub const fn default_group(self) -> Option<&'static str> {
        match self {
            Self::Gcc | Self::Sctp | Self::Nada | Self::Scream => Some(CALL_GROUP),
            _ => None,
        }
    }
    /// A window-based flow (SCTP, TCP, LEDBAT).
    pub const fn is_window(self) -> bool {
        matches!(self.coupling(), Some(Coupling::Window))
    }
    /// A TCP flow (NewReno or CUBIC).
    pub const fn is_tcp(self) -> bool {
        matches!(self, Self::TcpNewReno | Self::TcpCubic)
    }
    /// The kind a scenario names (`"tcp-cubic"`), under the one name rule
    /// ([`flowstate_core::names`]: any case, `_` or `-`).
    pub fn from_name(name: &str) -> Option<Self> {
        flowstate_core::names::find_by_name(Self::ALL, Self::name, name)
    }
    /// Every kind's name joined with `|`, for messages.
    pub fn names() -> String {
        Self::NAMES.join("|")
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
        for k in FlowKind::ALL {
            assert_eq!(FlowKind::from_name(k.name()), Some(k));
            assert!(!k.description().is_empty());
        }
        let mut names: Vec<_> = FlowKind::ALL.iter().map(|k| k.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), FlowKind::ALL.len());
        // The one name rule: any case, `_` or `-`.
        assert_eq!(FlowKind::from_name("TCP_CUBIC"), Some(FlowKind::TcpCubic));
        assert_eq!(FlowKind::from_name("tcpcubic"), None);
    }

    #[test]
    fn window_kinds_are_sctp_tcp_and_ledbat() {
        let window: Vec<_> = FlowKind::ALL
            .into_iter()
            .filter(|k| k.is_window())
            .collect();
        assert_eq!(
            window,
            [
                FlowKind::Sctp,
                FlowKind::TcpNewReno,
                FlowKind::TcpCubic,
                FlowKind::Ledbat
            ]
        );
        assert_eq!(FlowKind::Cbr.coupling(), None);
    }

    #[test]
    fn only_a_calls_own_flows_are_coupled_by_default() {
        let call: Vec<_> = FlowKind::ALL
            .into_iter()
            .filter(|k| k.default_group().is_some())
            .collect();
        assert_eq!(
            call,
            [
                FlowKind::Gcc,
                FlowKind::Sctp,
                FlowKind::Nada,
                FlowKind::Scream
            ]
        );
        for k in call {
            assert!(
                k.coupling().is_some(),
                "{k} joins a group it cannot be coupled in"
            );
        }
    }
}
