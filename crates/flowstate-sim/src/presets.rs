//! A flow's `preset`: which kinds take one and the names each takes, read in one place.
//! `gcc` flows take a GCC preset (flowstate-core's [`GccPreset`]), `sctp` flows an SCTP
//! stack ([`SctpPreset`]); every message lists the names from those enums.
//!
//! Adding a preset: one variant and its configuration in its enum (`GccPreset` in
//! flowstate-core's `gcc/config.rs`, `SctpPreset` here); adding a kind that takes
//! presets: its arm in [`read`] and in [`kinds`].

use crate::error::FieldError;
use crate::flow_kind::FlowKind;
use flowstate_core::endpoint::sctp::SctpSenderConfig;
use flowstate_core::gcc::GccPreset;

/// The SCTP stack an `sctp` flow models.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SctpPreset {
    /// usrsctp: RFC 9260 with WebRTC's RTO (paper 000's stack; the default).
    Usrsctp,
    /// dcSCTP, Chromium's SCTP since M95.
    Dcsctp,
}

impl SctpPreset {
    /// Every SCTP preset, in the order they are listed.
    pub const ALL: [SctpPreset; 2] = [SctpPreset::Usrsctp, SctpPreset::Dcsctp];

    /// `(name, description)`.
    const fn info(self) -> (&'static str, &'static str) {
        match self {
            Self::Usrsctp => (
                "usrsctp",
                "usrsctp: RFC 9260 congestion control with WebRTC's RTO, paper 000's stack (default)",
            ),
            Self::Dcsctp => (
                "dcsctp",
                "dcSCTP, Chromium's SCTP since M95 (its initial window, RTO and MTU)",
            ),
        }
    }
    /// The name scenario files use.
    pub const fn name(self) -> &'static str {
        self.info().0
    }
    /// One line saying what the preset is.
    pub const fn description(self) -> &'static str {
        self.info().1
    }
    /// The preset called `name`, under the one name rule ([`flowstate_core::names`]:
    /// any case, `_` or `-`).
    pub fn from_name(name: &str) -> Option<Self> {
        flowstate_core::names::find_by_name(Self::ALL, Self::name, name)
    }
    /// Every name joined with `|`, for messages.
    pub fn names() -> String {
        Self::ALL.map(Self::name).join("|")
    }
    /// The sender configuration of the stack.
    pub fn config(self) -> SctpSenderConfig {
        match self {
            Self::Usrsctp => SctpSenderConfig::default(),
            Self::Dcsctp => SctpSenderConfig::dcsctp(),
        }
    }
}

/// A flow's preset, read for its kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Preset {
    Gcc(GccPreset),
    Sctp(SctpPreset),
}

/// The kinds that take a preset, with their names (`gcc: paper|...; sctp: ...`).
fn kinds() -> String {
    format!(
        "{}: {}; {}: {}",
        FlowKind::Gcc,
        GccPreset::names(),
        FlowKind::Sctp,
        SctpPreset::names()
    )
}

/// A flow's `preset` for its `kind` (`None` when the flow names none). Error: the field
/// is `preset` (the caller puts it under the flow).
pub fn read(kind: FlowKind, name: Option<&str>) -> Result<Option<Preset>, FieldError> {
    let Some(p) = name else { return Ok(None) };
    match kind {
        FlowKind::Gcc => GccPreset::from_name(p).map(Preset::Gcc).ok_or_else(|| {
            FieldError::new(
                "preset",
                format!("expected one of {}, got \"{p}\"", GccPreset::names()),
            )
        }),
        FlowKind::Sctp => SctpPreset::from_name(p).map(Preset::Sctp).ok_or_else(|| {
            FieldError::new(
                "preset",
                format!(
                    "expected one of {} for an sctp flow, got \"{p}\"",
                    SctpPreset::names()
                ),
            )
        }),
        FlowKind::TcpNewReno
        | FlowKind::TcpCubic
        | FlowKind::Rap
        | FlowKind::Tfrc
        | FlowKind::Cbr
        | FlowKind::Nada
        | FlowKind::Scream
        | FlowKind::Ledbat => Err(FieldError::new(
            "preset",
            format!(
                "only {} and {} flows take a preset ({}), and this flow is {kind}; got \"{p}\"",
                FlowKind::Gcc,
                FlowKind::Sctp,
                kinds()
            ),
        )),
    }
    .map(Some)
}

/// An `sctp` flow's preset (usrsctp without one).
pub fn sctp(name: Option<&str>) -> Result<SctpPreset, FieldError> {
    match read(FlowKind::Sctp, name)? {
        Some(Preset::Sctp(p)) => Ok(p),
        _ => Ok(SctpPreset::Usrsctp),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_reads_its_own_presets() {
        assert_eq!(
            read(FlowKind::Sctp, Some("dcsctp")),
            Ok(Some(Preset::Sctp(SctpPreset::Dcsctp)))
        );
        assert_eq!(
            read(FlowKind::Gcc, Some("paper")),
            Ok(Some(Preset::Gcc(GccPreset::Paper)))
        );
        let e = read(FlowKind::Gcc, Some("dcsctp")).expect_err("not a gcc preset");
        assert!(e.message.starts_with("expected one of paper|"), "{e}");
        let e = read(FlowKind::Sctp, Some("paper")).expect_err("not an sctp preset");
        assert_eq!(
            e.message,
            "expected one of usrsctp|dcsctp for an sctp flow, got \"paper\""
        );
        let e = read(FlowKind::Rap, Some("paper")).expect_err("rap takes none");
        assert!(
            e.message
                .starts_with("only gcc and sctp flows take a preset (gcc: paper|"),
            "{e}"
        );
        assert_eq!(read(FlowKind::Cbr, None), Ok(None));
    }
}
