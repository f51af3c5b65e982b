//! The time series: one row per flow per bin, and its CSV form (timeseries.csv).

use serde::{Deserialize, Serialize};
use std::io::Write;

/// A flow's name in the time series: shared by all of the flow's rows (a reference
/// count, not a string allocated per row: a 1,000-flow run of an hour has 7.2 M rows).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct FlowName(std::sync::Arc<str>);

impl FlowName {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::ops::Deref for FlowName {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for FlowName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<&str> for FlowName {
    fn from(s: &str) -> Self {
        FlowName(s.into())
    }
}

impl From<String> for FlowName {
    fn from(s: String) -> Self {
        FlowName(s.into())
    }
}

impl PartialEq<str> for FlowName {
    fn eq(&self, other: &str) -> bool {
        &*self.0 == other
    }
}

impl PartialEq<&str> for FlowName {
    fn eq(&self, other: &&str) -> bool {
        &*self.0 == *other
    }
}

impl PartialEq<String> for FlowName {
    fn eq(&self, other: &String) -> bool {
        *self.0 == **other
    }
}

impl Serialize for FlowName {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for FlowName {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d).map(FlowName::from)
    }
}

/// One row of the time series: one flow, one bin.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SeriesRow {
    /// Start of the bin, seconds.
    pub time_s: f64,
    pub flow: FlowName,
    pub send_rate_mbps: f64,
    pub throughput_mbps: f64,
    pub goodput_mbps: f64,
    /// Mean one-way queuing delay of the flow's data packets that left the queue in
    /// the bin (`None`: none did).
    pub queuing_delay_ms: Option<f64>,
    /// Mean RTT sample in the bin.
    pub rtt_ms: Option<f64>,
    pub sent_packets: u64,
    pub lost_packets: u64,
    /// Forward link capacity at the start of the bin.
    pub capacity_mbps: f64,
    /// The flow's rate controller's value when the bin closes, as the controller
    /// reports it to a coupling manager: GCC's target rate, NADA's reference rate
    /// r_ref, SCReAM's target bitrate, RAP's and TFRC's sending rate (`None`: a window
    /// flow, a fixed-rate flow, or a flow that is not running).
    #[serde(default)]
    pub target_mbps: Option<f64>,
    /// A video flow's frames rendered in the bin per second (`None`: not a video flow).
    #[serde(default)]
    pub fps: Option<f64>,
    /// Mean capture-to-screen delay of the frames rendered in the bin (`None`: none
    /// rendered, or not a video flow).
    #[serde(default)]
    pub frame_delay_ms: Option<f64>,
    /// Freezes that ended in the bin (`None`: not a video flow).
    #[serde(default)]
    pub freezes: Option<u64>,
}

/// Write the time series as CSV (header + one line per row; empty cell = no sample).
pub fn write_series_csv<W: Write>(rows: &[SeriesRow], mut out: W) -> std::io::Result<()> {
    writeln!(
        out,
        "time_s,flow,send_rate_mbps,throughput_mbps,goodput_mbps,queuing_delay_ms,rtt_ms,sent_packets,lost_packets,capacity_mbps,target_mbps"
    )?;
    let opt = |v: Option<f64>| v.map(|x| format!("{x:.3}")).unwrap_or_default();
    let rate = |v: Option<f64>| v.map(|x| format!("{x:.6}")).unwrap_or_default();
    for r in rows {
        // Flow names are validated to be free of commas and quotes.
        writeln!(
            out,
            "{:.3},{},{:.6},{:.6},{:.6},{},{},{},{},{:.6},{}",
            r.time_s,
            r.flow,
            r.send_rate_mbps,
            r.throughput_mbps,
            r.goodput_mbps,
            opt(r.queuing_delay_ms),
            opt(r.rtt_ms),
            r.sent_packets,
            r.lost_packets,
            r.capacity_mbps,
            rate(r.target_mbps)
        )?;
    }
    Ok(())
}
