//! A flow's `preset`: which kinds take one and the names each takes, read in one place.
//! `gcc` flows take a GCC preset (flowstate-core's [`GccPreset`]), `sctp` flows an SCTP
//! stack ([`SctpPreset`]); every message lists the names from those enums.
//!
//! Adding a preset: one variant and its configuration in its enum (`GccPreset` in
//! flowstate-core's `gcc/config.rs`, `SctpPreset` here); a kind that takes presets
//! lists their names in its `KindDef::presets` and reads the name in its builder.

use crate::error::FieldError;
use flowstate_core::endpoint::sctp::SctpSenderConfig;

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

/// An `sctp` flow's preset (usrsctp without one). Error: the field is `preset`.
pub fn sctp(name: Option<&str>) -> Result<SctpPreset, FieldError> {
    let Some(p) = name else {
        return Ok(SctpPreset::Usrsctp);
    };
    SctpPreset::from_name(p).ok_or_else(|| {
        FieldError::new(
            "preset",
            format!(
                "expected one of {} for an sctp flow, got \"{p}\"",
                SctpPreset::names()
            ),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_reads_its_own_presets() {
        assert_eq!(sctp(Some("dcsctp")), Ok(SctpPreset::Dcsctp));
        assert_eq!(sctp(None), Ok(SctpPreset::Usrsctp));
        let e = sctp(Some("paper")).expect_err("not an sctp preset");
        assert_eq!(
            e.message,
            "expected one of usrsctp|dcsctp for an sctp flow, got \"paper\""
        );
    }
}
