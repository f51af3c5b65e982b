//! What the metrics collector is built from: the measurement settings and what it knows
//! about each flow.

use flowstate_core::{TimeDelta, Timestamp};
use serde::{Deserialize, Serialize};

/// What the metrics collector needs to know about a flow.
#[derive(Debug, Clone, PartialEq)]
pub struct FlowMeta {
    pub name: String,
    pub kind: String,
    pub priority: f64,
    /// Whether its data crosses the forward link (counts towards utilization).
    pub forward: bool,
}

/// Measurement settings.
#[derive(Debug, Clone, PartialEq)]
pub struct MetricsConfig {
    /// Bin width of the time series (default 500 ms, paper 000's statistics).
    pub bin: TimeDelta,
    pub window_start: Timestamp,
    pub window_end: Timestamp,
    /// Keep the full packet trace in memory.
    pub trace: bool,
    /// Keep the time series (one row per flow and link per bin). Without it a run's
    /// memory is flat in its length: the summary only.
    pub series: bool,
    /// Compute the trace hash (FNV-1a over every trace record, the run's fingerprint).
    /// Without it a run does 10-25 % less work and reports no hash; everything else is
    /// the same (a run whose outputs are its summary and series, like the catalogue's).
    pub trace_hash: bool,
    /// Whether the trace hash and the window histograms are computed on a helper
    /// thread (crate::recorder; the results are the same either way).
    pub recorder_thread: RecorderThread,
}

impl Default for MetricsConfig {
    fn default() -> Self {
        Self {
            bin: TimeDelta::millis(500),
            window_start: Timestamp::ZERO,
            window_end: Timestamp::MAX,
            trace: false,
            series: true,
            trace_hash: true,
            recorder_thread: RecorderThread::Auto,
        }
    }
}

/// Whether a run computes its trace hash and window histograms on a helper thread
/// (crate::recorder; `[measure] recorder_thread`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RecorderThread {
    /// From [`AUTO_RECORDER_MIN_FLOWS`] flows on.
    #[default]
    Auto,
    /// Always (the results are the same either way).
    On,
    /// Never: the loop records everything itself.
    Off,
}

impl<'de> Deserialize<'de> for RecorderThread {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        const NAMES: &[&str] = &["auto", "on", "off"];
        let items = [
            (Self::Auto, NAMES[0]),
            (Self::On, NAMES[1]),
            (Self::Off, NAMES[2]),
        ];
        crate::name_de::read_name(d, &items, NAMES)
    }
}

/// [`RecorderThread::Auto`]'s threshold: the flows from which a run's per-flow state
/// no longer fits the caches (the same bound as the engine's prefetch hint).
pub const AUTO_RECORDER_MIN_FLOWS: usize = 256;

impl RecorderThread {
    /// Whether a run of `flows` flows records on the helper.
    pub fn used(self, flows: usize) -> bool {
        match self {
            Self::Auto => flows >= AUTO_RECORDER_MIN_FLOWS,
            Self::On => true,
            Self::Off => false,
        }
    }
}
