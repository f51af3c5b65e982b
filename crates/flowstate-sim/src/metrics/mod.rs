//! Streamed metrics (the RFC 8868 section 2 metrics): memory does not grow with run length,
//! except for one time-series row per flow per bin (the output itself) and the optional
//! packet trace.
//!
//! - Sending rate: data bytes a flow hands to the network (dropped ones included).
//! - Throughput: data bytes arriving at the receiver (headers included).
//! - Goodput: application payload the receiver endpoint reports (`goodput_bytes`).
//! - Queuing delay: per data packet, the wait in the bottleneck queue before its own
//!   serialization starts (one-way, simulator-exact).
//! - RTT: samples the sender reports.
//! - One-way delay (RFC 8868 section 2, "packet delay"): per delivered data packet,
//!   arrival time minus the time the endpoint handed it to the network (propagation,
//!   serialization and queuing).
//! - Jitter: the RFC 3550 section 6.4.1 interarrival jitter estimate
//!   J(i) = J(i-1) + (|D(i-1,i)| - J(i-1)) / 16 over the flow's delivered data packets,
//!   with D the difference of consecutive packets' one-way delays (transit from the send
//!   time, not the RTP timestamp, so a sender's pacing is not counted); the summary
//!   reports the mean of J over the window's arrivals.
//! - Loss ratio: data packets lost (tail drop or random loss) / data packets sent,
//!   counted in packets.
//! - Share: a flow's throughput / the sum of all flows' throughputs; `priority_share`
//!   = P(f) / sum P.
//! - Jain's index J = (sum x)^2 / (n sum x^2) over the flows' window throughputs.
//! - Utilization = forward-direction flows' throughput / mean forward capacity.
//!
//! Window statistics cover `[window_start, window_end)`; bins cover the whole run.
//!
//! One file per part: `collector.rs` (the streaming [`Metrics`]), `config.rs`,
//! `histogram.rs`, `window_histograms.rs`, `jitter.rs`, `fairness.rs`, `series.rs` (the
//! time series), `summary.rs` (summary.json).

mod collector;
mod config;
mod fairness;
mod histogram;
mod jitter;
mod series;
mod summary;
mod video;
mod window_histograms;

pub use collector::Metrics;
pub use config::{FlowMeta, MetricsConfig, RecorderThread, AUTO_RECORDER_MIN_FLOWS};
pub use fairness::{jain_index, weighted_jain_index};
pub use histogram::{Histogram, Stats};
pub use series::{write_series_csv, FlowName, SeriesRow};
pub use summary::{
    AggregateSummary, CouplingSummary, FlowSummary, LinkSummary, QueueSummary, Summary,
};
pub use video::{fill_series, video_summary, FrameDelayMs, VideoSummary};
pub use window_histograms::{WindowHistograms, WindowKind, WindowSample};
