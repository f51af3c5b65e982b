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

use crate::flow::Dir;
use crate::link::LinkConfig;
use flowstate_core::{Bitrate, TimeDelta, Timestamp};
use serde::{Deserialize, Serialize};
use std::io::Write;

/// A bounded-memory histogram of non-negative durations in microseconds:
/// 0.1 ms buckets up to 100 ms, 1 ms buckets up to 1 s, 10 ms buckets up to 10 s, one
/// overflow bucket (2 801 buckets) that reports the maximum. Quantiles are the midpoint of the bucket
/// holding the nearest-rank sample, clamped to the exact observed min and max, so the
/// error is at most half a bucket (<= 0.05 ms below 100 ms, <= 1 % above).
///
/// The buckets are stored in pages of [`PAGE`] counts allocated when a sample first
/// falls in them: a flow's samples span a few pages (128 B each), so a histogram holds
/// ~1-4 kB instead of 22 kB (10 000 flows, two histograms each: tens of MB instead of
/// 450 MB).
///
/// Recording touches one cache line: the count, sum, min and max sit in the struct's
/// first 64 bytes with a buffer of the last [`PENDING`] samples' bucket numbers, which
/// go into the pages [`PENDING`] at a time. With thousands of flows a flow's pages are
/// rarely in cache when its next packet comes, so this pays the page table's and the
/// page's cache misses once per [`PENDING`] samples instead of on every sample (the
/// same counts: only when they are added changes).
#[derive(Debug, Clone)]
#[repr(C, align(64))]
pub struct Histogram {
    n: u64,
    sum_us: f64,
    min_us: u64,
    max_us: u64,
    /// Buckets of the samples not yet counted in `pages` (the first `pending_len`).
    pending: [u16; PENDING],
    pending_len: u8,
    /// `page_of[p]`: 1 + index in `pages` of bucket page `p`, 0 while it is empty
    /// (allocated with the first sample). Empty until the first flush.
    page_of: Vec<u16>,
    /// Counts per bucket: u32 (a flow would need 4.3 x 10^9 samples in one bucket,
    /// every packet of a 1 Gbit/s flow for 14 hours in one bucket, to saturate it).
    pages: Vec<[u32; PAGE]>,
}

const FINE_END: u64 = 100_000; // 100 ms
const MID_END: u64 = 1_000_000; // 1 s
const COARSE_END: u64 = 10_000_000; // 10 s
const N_BUCKETS: usize = 1000 + 900 + 900 + 1;
/// Buckets per page of a [`Histogram`].
const PAGE: usize = 32;
const N_PAGES: usize = N_BUCKETS.div_ceil(PAGE);
/// Samples a [`Histogram`] buffers before counting them into its pages (the buffer
/// and the running statistics fill one 64-byte cache line).
const PENDING: usize = 14;

impl Default for Histogram {
    fn default() -> Self {
        Self::new()
    }
}

/// Two histograms are equal when they hold the same samples' counts and statistics,
/// whatever their buffers hold.
impl PartialEq for Histogram {
    fn eq(&self, other: &Self) -> bool {
        let (a, b) = (self.settled(), other.settled());
        a.n == b.n
            && a.sum_us.to_bits() == b.sum_us.to_bits()
            && a.min_us == b.min_us
            && a.max_us == b.max_us
            && a.counts()
                .filter(|c| c.1 > 0)
                .eq(b.counts().filter(|c| c.1 > 0))
    }
}

impl Histogram {
    /// An empty histogram (allocates its pages when samples first need them).
    pub fn new() -> Self {
        Self {
            n: 0,
            sum_us: 0.0,
            min_us: u64::MAX,
            max_us: 0,
            pending: [0; PENDING],
            pending_len: 0,
            page_of: Vec::new(),
            pages: Vec::new(),
        }
    }

    fn bucket(us: u64) -> usize {
        if us < FINE_END {
            (us / 100) as usize
        } else if us < MID_END {
            1000 + ((us - FINE_END) / 1000) as usize
        } else if us < COARSE_END {
            1900 + ((us - MID_END) / 10_000) as usize
        } else {
            N_BUCKETS - 1
        }
    }

    /// `[low, high)` of bucket `i` in microseconds.
    fn bounds(i: usize) -> (u64, u64) {
        let i = i as u64;
        if i < 1000 {
            (i * 100, i * 100 + 100)
        } else if i < 1900 {
            let j = i - 1000;
            (FINE_END + j * 1000, FINE_END + j * 1000 + 1000)
        } else if i < 2800 {
            let j = i - 1900;
            (MID_END + j * 10_000, MID_END + j * 10_000 + 10_000)
        } else {
            (COARSE_END, u64::MAX)
        }
    }

    #[inline]
    pub fn record(&mut self, d: TimeDelta) {
        let us = d.as_micros().max(0) as u64;
        let mut k = usize::from(self.pending_len);
        if k >= PENDING {
            self.flush();
            k = 0;
        }
        if let Some(slot) = self.pending.get_mut(k) {
            // N_BUCKETS < 2^16.
            *slot = Self::bucket(us) as u16;
            self.pending_len = (k + 1) as u8;
        }
        self.n += 1;
        self.sum_us += us as f64;
        self.min_us = self.min_us.min(us);
        self.max_us = self.max_us.max(us);
    }

    /// Count the buffered samples into their pages.
    #[cold]
    fn flush(&mut self) {
        if self.page_of.is_empty() {
            self.page_of = vec![0; N_PAGES];
        }
        let len = usize::from(self.pending_len).min(PENDING);
        for &b in &self.pending[..len] {
            let b = usize::from(b);
            if let Some(p) = self.page_of.get_mut(b / PAGE) {
                if *p == 0 {
                    self.pages.push([0; PAGE]);
                    *p = self.pages.len() as u16;
                }
                if let Some(page) = self.pages.get_mut(usize::from(*p) - 1) {
                    page[b % PAGE] = page[b % PAGE].saturating_add(1);
                }
            }
        }
        self.pending_len = 0;
    }

    /// This histogram with every buffered sample counted (a copy only when some are
    /// buffered; the readers below run once per flow at the end of a run).
    fn settled(&self) -> std::borrow::Cow<'_, Histogram> {
        if self.pending_len == 0 {
            std::borrow::Cow::Borrowed(self)
        } else {
            let mut h = self.clone();
            h.flush();
            std::borrow::Cow::Owned(h)
        }
    }

    pub fn count(&self) -> u64 {
        self.n
    }

    /// `(bucket, count)` of every allocated bucket, in bucket order.
    fn counts(&self) -> impl Iterator<Item = (usize, u64)> + '_ {
        self.page_of
            .iter()
            .enumerate()
            .filter(|(_, &p)| p != 0)
            .flat_map(move |(k, &p)| {
                let page = self.pages.get(usize::from(p) - 1);
                (0..PAGE).filter_map(move |j| {
                    let i = k * PAGE + j;
                    (i < N_BUCKETS).then(|| (i, page.map_or(0, |pg| u64::from(pg[j]))))
                })
            })
    }

    /// Mean in milliseconds (`None` when empty).
    pub fn mean_ms(&self) -> Option<f64> {
        (self.n > 0).then(|| self.sum_us / self.n as f64 / 1000.0)
    }

    /// Quantile `q` in [0, 1] in milliseconds (nearest rank; `None` when empty).
    pub fn quantile_ms(&self, q: f64) -> Option<f64> {
        if self.n == 0 {
            return None;
        }
        let q = if q.is_nan() { 0.5 } else { q.clamp(0.0, 1.0) };
        let rank = ((q * self.n as f64).ceil() as u64).clamp(1, self.n);
        let h = self.settled();
        // Whole pages are skipped by their sum; only the page holding the rank is
        // walked bucket by bucket.
        let mut seen = 0u64;
        for (k, &p) in h.page_of.iter().enumerate() {
            let Some(page) = usize::from(p).checked_sub(1).and_then(|p| h.pages.get(p)) else {
                continue;
            };
            let total: u64 = page.iter().map(|&c| u64::from(c)).sum();
            if seen + total < rank {
                seen += total;
                continue;
            }
            for (j, &c) in page.iter().enumerate() {
                seen += u64::from(c);
                if seen >= rank {
                    let (lo, hi) = Self::bounds(k * PAGE + j);
                    // The overflow bucket reports the largest sample.
                    let mid = if hi == u64::MAX {
                        self.max_us as f64
                    } else {
                        (lo + hi) as f64 / 2.0
                    };
                    let v = mid.clamp(self.min_us as f64, self.max_us as f64);
                    return Some(v / 1000.0);
                }
            }
        }
        Some(self.max_us as f64 / 1000.0)
    }

    pub fn stats(&self) -> Stats {
        let h = self.settled();
        Stats {
            mean: h.mean_ms(),
            p50: h.quantile_ms(0.5),
            p95: h.quantile_ms(0.95),
        }
    }
}

/// Mean, median and 95th percentile in milliseconds (`null` in JSON when no samples).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Stats {
    pub mean: Option<f64>,
    pub p50: Option<f64>,
    pub p95: Option<f64>,
}

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
}

#[derive(Debug, Clone, Default)]
struct BinAcc {
    sent_bytes: u64,
    recv_bytes: u64,
    sent_pkts: u64,
    lost_pkts: u64,
    qdelay_sum_us: f64,
    qdelay_n: u64,
    rtt_sum_us: f64,
    rtt_n: u64,
    goodput_at_start: u64,
}

#[derive(Debug, Clone, Default)]
struct FlowAcc {
    bin: BinAcc,
    window: WindowAcc,
    jitter: Jitter,
}

/// RFC 3550 section 6.4.1 interarrival jitter of one flow's data packets, over the whole
/// run (the estimate carries across the window's start).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct Jitter {
    /// One-way transit time of the previous delivered packet, microseconds.
    last_transit_us: Option<i64>,
    /// J, microseconds.
    j_us: f64,
}

impl Jitter {
    /// A packet with one-way transit `transit_us` arrived: J += (|D| - J) / 16
    /// (RFC 3550 section 6.4.1). Returns the new J (`None` for the first packet, which
    /// has no D).
    fn on_arrival(&mut self, transit_us: i64) -> Option<f64> {
        let last = self.last_transit_us.replace(transit_us)?;
        let d = (transit_us - last).unsigned_abs() as f64;
        self.j_us += (d - self.j_us) / 16.0;
        Some(self.j_us)
    }
}

#[derive(Debug, Clone, Default)]
struct WindowAcc {
    sent_bytes: u64,
    recv_bytes: u64,
    sent_pkts: u64,
    lost_pkts: u64,
    /// Sum and count of the jitter estimate J at the window's arrivals.
    jitter_sum_us: f64,
    jitter_n: u64,
    goodput_start: Option<u64>,
    goodput_end: Option<u64>,
}

/// A flow's histograms over the measurement window.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WindowHistograms {
    pub rtt: Histogram,
    pub qdelay: Histogram,
    /// One-way delay of the delivered data packets.
    pub delay: Histogram,
}

/// Which of a flow's [`WindowHistograms`] a sample goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WindowKind {
    Rtt,
    QueueWait,
    Delay,
}

impl WindowHistograms {
    #[inline]
    pub fn record(&mut self, kind: WindowKind, value: TimeDelta) {
        match kind {
            WindowKind::Rtt => self.rtt.record(value),
            WindowKind::QueueWait => self.qdelay.record(value),
            WindowKind::Delay => self.delay.record(value),
        }
    }
}

/// A window-histogram sample on its way to the recorder thread (crate::recorder).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WindowSample {
    pub flow: u32,
    pub kind: WindowKind,
    pub value: TimeDelta,
}

/// Counts a window sample into `hist`, or keeps it for the recorder thread.
#[inline(always)]
fn window_sample(
    deferred: &mut Option<Vec<WindowSample>>,
    hist: &mut WindowHistograms,
    flow: usize,
    kind: WindowKind,
    value: TimeDelta,
) {
    match deferred {
        Some(d) => d.push(WindowSample {
            flow: flow as u32,
            kind,
            value,
        }),
        None => hist.record(kind, value),
    }
}

/// Per-flow summary (summary.json `flows[]`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FlowSummary {
    pub name: String,
    pub kind: String,
    /// The coupling group the flow was in (`null`: not coupled; scenario `group`).
    #[serde(default)]
    pub group: Option<String>,
    pub priority: f64,
    pub throughput_mbps: f64,
    pub send_rate_mbps: f64,
    pub goodput_mbps: Option<f64>,
    pub rtt_ms: Stats,
    pub queuing_delay_ms: Stats,
    /// One-way delay of the delivered data packets (send to arrival; RFC 8868 section 2).
    #[serde(default)]
    pub one_way_delay_ms: Stats,
    /// Mean RFC 3550 interarrival jitter of the data packets over the window's
    /// arrivals (`null`: fewer than two arrivals).
    #[serde(default)]
    pub jitter_ms: Option<f64>,
    /// Lost / sent data packets in the window.
    pub loss_ratio: f64,
    pub sent_packets: u64,
    pub lost_packets: u64,
    /// Throughput / sum of all flows' throughputs.
    pub share: f64,
    /// P(f) / sum P: the share the priorities ask for.
    pub priority_share: f64,
    /// GCC flows: n_dd, the delay-based rate decreases over the whole run (`null` for
    /// other kinds).
    #[serde(default)]
    pub n_dd: Option<u64>,
    /// Shared bottleneck detection: how often the flow moved between coupling groups
    /// (absent without SBD; crate::sbd).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sbd_regroups: Option<u64>,
}

/// summary.json `aggregate`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AggregateSummary {
    pub utilization: f64,
    /// Jain's index of the flows' throughputs (docs/SCENARIOS.md, "What the summary means").
    pub jain_index: f64,
    /// Priority-weighted fairness: Jain's index of throughput / priority_share, so 1 when
    /// every flow gets the share its priority asks for ([`weighted_jain_index`]).
    #[serde(default = "one")]
    pub weighted_jain_index: f64,
    pub throughput_mbps: f64,
    /// Lost / sent data packets of all forward flows in the window (papers 003/004).
    #[serde(default)]
    pub loss_ratio: f64,
    /// Mean queuing delay of every forward data packet in the window (`None`: none).
    #[serde(default)]
    pub queuing_delay_ms: Option<f64>,
    /// Shared bottleneck detection (absent without it; crate::sbd): the fraction of
    /// correct pairwise same/different verdicts over the grouping runs in the window
    /// (`None`: no pair), ...
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sbd_accuracy: Option<f64>,
    /// ... the time of the first run at which every pairwise verdict was correct
    /// (`None`: never), ...
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sbd_time_to_correct_s: Option<f64>,
    /// ... and the moves between coupling groups of all flows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sbd_regroups: Option<u64>,
}

/// One link's summary (summary.json `links[]`; measured by crate::link_metrics).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LinkSummary {
    pub name: String,
    /// Mean capacity over the window.
    pub capacity_mbps: f64,
    pub throughput_mbps: f64,
    pub utilization: f64,
    pub queuing_delay_ms: Stats,
    /// The most bytes seen waiting at an arrival in the window.
    pub max_queue_bytes: u64,
    pub arrived_packets: u64,
    pub dropped_packets: u64,
    pub lost_packets: u64,
    /// (Dropped + lost) / arrived packets in the window.
    pub loss_ratio: f64,
}

impl LinkSummary {
    /// Link `name` with nothing measured (numbers 0, statistics `null`).
    pub fn empty(name: &str) -> Self {
        Self {
            name: name.to_string(),
            capacity_mbps: 0.0,
            throughput_mbps: 0.0,
            utilization: 0.0,
            queuing_delay_ms: Histogram::new().stats(),
            max_queue_bytes: 0,
            arrived_packets: 0,
            dropped_packets: 0,
            lost_packets: 0,
            loss_ratio: 0.0,
        }
    }
}

/// The summary.json contract of ARCHITECTURE.md.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub scenario: String,
    pub seed: u64,
    pub duration_s: f64,
    pub window_s: [f64; 2],
    pub flows: Vec<FlowSummary>,
    pub aggregate: AggregateSummary,
    /// Per link (crate::link_metrics): the dumbbell's `link` and `reverse_link`, or the
    /// named links in order.
    #[serde(default)]
    pub links: Vec<LinkSummary>,
    /// Events the engine processed (for performance tracking).
    pub events: u64,
    /// Shared bottleneck detection's verdicts over time (absent without SBD).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sbd: Option<crate::sbd::SbdSummary>,
    /// The coupling the run used (absent where no scenario said: the engine alone).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coupling: Option<CouplingSummary>,
    /// Values the scenario allows but that are almost surely a mistake
    /// (crate::scenario::Scenario::warnings), one line each.
    #[serde(default)]
    pub warnings: Vec<String>,
}

/// summary.json `coupling`: the mechanism and how its groups were formed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CouplingSummary {
    /// `none`, a coupling manager's name (`fsev2`, ...) or `web-api`.
    pub mechanism: String,
    /// `static` (the flows' `group`) or `sbd`.
    pub groups_mode: String,
}

/// Jain's fairness index (sum x)^2 / (n sum x^2); 1 for an empty or all-zero set.
pub fn jain_index(xs: &[f64]) -> f64 {
    let n = xs.len() as f64;
    let s: f64 = xs.iter().sum();
    let s2: f64 = xs.iter().map(|x| x * x).sum();
    if n == 0.0 || s2 <= 0.0 {
        1.0
    } else {
        s * s / (n * s2)
    }
}

/// Priority-weighted fairness index: [`jain_index`] of `throughput_i / priority_share_i`
/// (flows with a zero priority share are left out). 1 when every flow's throughput is in
/// proportion to its priority; equal priorities give Jain's index.
pub fn weighted_jain_index(throughputs: &[f64], priority_shares: &[f64]) -> f64 {
    let xs: Vec<f64> = throughputs
        .iter()
        .zip(priority_shares)
        .filter(|(_, p)| **p > 0.0)
        .map(|(t, p)| t / p)
        .collect();
    jain_index(&xs)
}

fn one() -> f64 {
    1.0
}

/// Rows [`Metrics::reserve_series`] reserves at most (~1.7 GB); a longer series grows.
const MAX_RESERVED_ROWS: u64 = 16 << 20;

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

/// The streaming collector.
#[derive(Debug, Clone)]
pub struct Metrics {
    config: MetricsConfig,
    flows: Vec<FlowMeta>,
    /// Per flow: its name as every series row shares it.
    names: Vec<FlowName>,
    /// Per flow: the open bin's and the window's counters side by side (one cache
    /// neighbourhood per flow on the per-packet path: three lines).
    acc: Vec<FlowAcc>,
    /// Per flow: its window histograms (apart from `acc`: with the recorder thread the
    /// loop never touches them).
    hists: Vec<WindowHistograms>,
    bin_start: Timestamp,
    rows: Vec<SeriesRow>,
    forward: LinkConfig,
    window_started: bool,
    /// Window-histogram samples waiting for the recorder thread (crate::recorder);
    /// `None`: recorded here, into `hists`.
    deferred: Option<Vec<WindowSample>>,
}

impl Metrics {
    pub fn new(config: MetricsConfig, flows: Vec<FlowMeta>, forward: LinkConfig) -> Self {
        let n = flows.len();
        Self {
            config,
            names: flows
                .iter()
                .map(|f| FlowName::from(f.name.as_str()))
                .collect(),
            flows,
            acc: vec![FlowAcc::default(); n],
            hists: vec![WindowHistograms::default(); n],
            bin_start: Timestamp::ZERO,
            rows: Vec::new(),
            forward,
            window_started: false,
            deferred: None,
        }
    }

    /// From now on, window-histogram samples are kept in order for the recorder thread
    /// ([`Metrics::deferred_samples`]) instead of being counted here.
    pub fn defer_window_samples(&mut self) {
        self.deferred = Some(Vec::new());
    }

    /// The deferred samples not yet handed over (`None` when nothing is deferred).
    pub fn deferred_samples(&mut self) -> Option<&mut Vec<WindowSample>> {
        self.deferred.as_mut()
    }

    /// Ends the deferral: every flow's window histograms as the recorder thread counted
    /// them (`histograms[i]`: flow i's).
    pub fn install_window_histograms(&mut self, histograms: Vec<WindowHistograms>) {
        self.deferred = None;
        for (acc, h) in self.hists.iter_mut().zip(histograms) {
            *acc = h;
        }
    }

    /// Reserve the time series' rows of a run of `duration` (one per flow per bin, up
    /// to [`MAX_RESERVED_ROWS`]): no growth by doubling, so neither its copies nor up
    /// to half the vector as unused room.
    pub fn reserve_series(&mut self, duration: Timestamp) {
        if !self.config.series {
            return;
        }
        let bin = self
            .config
            .bin
            .max(TimeDelta::from_micros(1))
            .as_micros()
            .max(1) as u64;
        let bins = duration.as_micros().div_ceil(bin);
        let rows = bins.saturating_mul(self.flows.len() as u64);
        let rows = usize::try_from(rows.min(MAX_RESERVED_ROWS)).unwrap_or(0);
        self.rows
            .reserve_exact(rows.saturating_sub(self.rows.len()));
    }

    fn in_window(&self, t: Timestamp) -> bool {
        t >= self.config.window_start && t < self.config.window_end
    }

    fn bin_end(&self) -> Timestamp {
        self.bin_start + self.config.bin.max(TimeDelta::from_micros(1))
    }

    /// Time moves to `now`: close every bin that ended. `goodput(i)` reads flow `i`'s
    /// cumulative goodput counter.
    #[inline]
    pub fn advance(
        &mut self,
        now: Timestamp,
        goodput: impl Fn(usize) -> Option<u64>,
        target: impl Fn(usize) -> Option<Bitrate>,
    ) {
        while now >= self.bin_end() {
            self.close_bin(&goodput, &target);
        }
        if !self.window_started && now >= self.config.window_start {
            self.window_started = true;
            for (i, w) in self.acc.iter_mut().map(|a| &mut a.window).enumerate() {
                w.goodput_start = Some(goodput(i).unwrap_or(0));
            }
        }
    }

    /// Close the open bin; `goodput(i)` and `target(i)` read flow `i`'s cumulative
    /// goodput and its controller's rate at the bin's end.
    fn close_bin(
        &mut self,
        goodput: &impl Fn(usize) -> Option<u64>,
        target: &impl Fn(usize) -> Option<Bitrate>,
    ) {
        let end = self.bin_end();
        let secs = (end - self.bin_start).as_secs_f64();
        let capacity = if self.forward.trace.is_some() {
            // A trace changes faster than a bin: the bin's mean capacity.
            self.forward.capacity_bits(self.bin_start, end) / secs.max(1e-9) / 1e6
        } else {
            self.forward.rate_at(self.bin_start).as_mbps()
        };
        let keep = self.config.series;
        for (i, b) in self.acc.iter_mut().map(|a| &mut a.bin).enumerate() {
            let g = goodput(i);
            let gp = g.map_or(b.recv_bytes, |g| g.saturating_sub(b.goodput_at_start));
            if keep {
                let name = self.names.get(i).cloned().unwrap_or_default();
                self.rows.push(SeriesRow {
                    time_s: self.bin_start.as_secs_f64(),
                    flow: name,
                    send_rate_mbps: b.sent_bytes as f64 * 8.0 / secs / 1e6,
                    throughput_mbps: b.recv_bytes as f64 * 8.0 / secs / 1e6,
                    goodput_mbps: gp as f64 * 8.0 / secs / 1e6,
                    queuing_delay_ms: (b.qdelay_n > 0)
                        .then(|| b.qdelay_sum_us / b.qdelay_n as f64 / 1000.0),
                    rtt_ms: (b.rtt_n > 0).then(|| b.rtt_sum_us / b.rtt_n as f64 / 1000.0),
                    sent_packets: b.sent_pkts,
                    lost_packets: b.lost_pkts,
                    capacity_mbps: capacity,
                    target_mbps: target(i).map(|r| r.as_mbps()),
                });
            }
            *b = BinAcc {
                goodput_at_start: g.unwrap_or(0),
                ..BinAcc::default()
            };
        }
        // Goodput at the window's end is the value when the bin holding it closes.
        if self.bin_start < self.config.window_end && end >= self.config.window_end {
            for (i, w) in self.acc.iter_mut().map(|a| &mut a.window).enumerate() {
                w.goodput_end = goodput(i);
            }
        }
        self.bin_start = end;
    }

    /// A flow handed a packet to the network.
    #[inline]
    pub fn on_send(&mut self, now: Timestamp, flow: usize, dir: Dir, size: u32) {
        if dir != Dir::Data {
            return;
        }
        let inw = self.in_window(now);
        if let Some(b) = self.acc.get_mut(flow).map(|a| &mut a.bin) {
            b.sent_bytes += u64::from(size);
            b.sent_pkts += 1;
        }
        if inw {
            if let Some(w) = self.acc.get_mut(flow).map(|a| &mut a.window) {
                w.sent_bytes += u64::from(size);
                w.sent_pkts += 1;
            }
        }
    }

    /// A packet was dropped (queue overflow or random loss).
    #[inline]
    pub fn on_loss(&mut self, now: Timestamp, flow: usize, dir: Dir) {
        if dir != Dir::Data {
            return;
        }
        let inw = self.in_window(now);
        if let Some(b) = self.acc.get_mut(flow).map(|a| &mut a.bin) {
            b.lost_pkts += 1;
        }
        if inw {
            if let Some(w) = self.acc.get_mut(flow).map(|a| &mut a.window) {
                w.lost_pkts += 1;
            }
        }
    }

    /// A packet started serialization after waiting `waited` in the queue.
    #[inline]
    pub fn on_queue_wait(&mut self, now: Timestamp, flow: usize, dir: Dir, waited: TimeDelta) {
        if dir != Dir::Data {
            return;
        }
        let inw = self.in_window(now);
        if let Some(b) = self.acc.get_mut(flow).map(|a| &mut a.bin) {
            b.qdelay_sum_us += waited.as_micros() as f64;
            b.qdelay_n += 1;
        }
        if inw {
            if let Some(h) = self.hists.get_mut(flow) {
                window_sample(&mut self.deferred, h, flow, WindowKind::QueueWait, waited);
            }
        }
    }

    /// A cache hint: a data packet of flow `flow` is about to start serializing, so
    /// start loading what its queuing delay is added to (the bin's counters and the
    /// window's histogram head).
    #[inline]
    pub fn prefetch_queue_wait(&self, flow: usize, dir: Dir) {
        use prefetch_index::prefetch_index;
        use std::slice::from_ref;
        if dir != Dir::Data {
            return;
        }
        if let Some(acc) = self.acc.get(flow) {
            prefetch_index(from_ref(&acc.bin), 0);
            if let (None, Some(h)) = (&self.deferred, self.hists.get(flow)) {
                prefetch_index(from_ref(&h.qdelay), 0);
            }
        }
    }

    /// A cache hint: a packet of flow `flow` travelling in `dir` is about to be
    /// delivered, so start loading the accumulators that delivery writes: the bin's
    /// counters, and for data the window's counters, the jitter estimate and the delay
    /// histogram's head, for feedback (whose RTT sample follows) the RTT histogram's.
    #[inline]
    pub fn prefetch(&self, flow: usize, dir: Dir) {
        use prefetch_index::prefetch_index;
        use std::slice::from_ref;
        let Some(acc) = self.acc.get(flow) else {
            return;
        };
        prefetch_index(from_ref(&acc.bin), 0);
        match dir {
            Dir::Data => {
                prefetch_index(from_ref(&acc.window.recv_bytes), 0);
                prefetch_index(from_ref(&acc.jitter), 0);
                if let (None, Some(h)) = (&self.deferred, self.hists.get(flow)) {
                    prefetch_index(from_ref(&h.delay), 0);
                }
            }
            Dir::Feedback => {
                if let (None, Some(h)) = (&self.deferred, self.hists.get(flow)) {
                    prefetch_index(from_ref(&h.rtt), 0);
                }
            }
        }
    }

    /// A packet sent at `sent_at` arrived at its destination.
    #[inline]
    pub fn on_deliver(
        &mut self,
        now: Timestamp,
        flow: usize,
        dir: Dir,
        size: u32,
        sent_at: Timestamp,
    ) {
        if dir != Dir::Data {
            return;
        }
        let inw = self.in_window(now);
        let Some(acc) = self.acc.get_mut(flow) else {
            return;
        };
        acc.bin.recv_bytes += u64::from(size);
        let transit = now - sent_at;
        let j = acc.jitter.on_arrival(transit.as_micros());
        if inw {
            let w = &mut acc.window;
            w.recv_bytes += u64::from(size);
            if let Some(h) = self.hists.get_mut(flow) {
                window_sample(&mut self.deferred, h, flow, WindowKind::Delay, transit);
            }
            if let Some(j) = j {
                w.jitter_sum_us += j;
                w.jitter_n += 1;
            }
        }
    }

    /// The sender measured an RTT sample.
    pub fn on_rtt(&mut self, now: Timestamp, flow: usize, rtt: TimeDelta) {
        let inw = self.in_window(now);
        if let Some(b) = self.acc.get_mut(flow).map(|a| &mut a.bin) {
            b.rtt_sum_us += rtt.as_micros() as f64;
            b.rtt_n += 1;
        }
        if inw {
            if let Some(h) = self.hists.get_mut(flow) {
                window_sample(&mut self.deferred, h, flow, WindowKind::Rtt, rtt);
            }
        }
    }

    /// Close the run at `end` (the scenario duration) and build the summary.
    pub fn finish(
        mut self,
        end: Timestamp,
        scenario: &str,
        seed: u64,
        events: u64,
        goodput: impl Fn(usize) -> Option<u64>,
        target: impl Fn(usize) -> Option<Bitrate>,
    ) -> (Summary, Vec<SeriesRow>) {
        // Samples still deferred (a run whose recorder did not take them) count here.
        if let Some(samples) = self.deferred.take() {
            for s in samples {
                if let Some(h) = self.hists.get_mut(s.flow as usize) {
                    h.record(s.kind, s.value);
                }
            }
        }
        // Close the bins up to `end` (the last, partial one included).
        while self.bin_start < end {
            let full_end = self.bin_end();
            if full_end > end {
                // Shorten the last bin so its rates are not diluted.
                self.config.bin = end - self.bin_start;
            }
            self.close_bin(&goodput, &target);
        }
        let w_start = self.config.window_start.min(end);
        let w_end = self.config.window_end.min(end);
        if self
            .acc
            .iter()
            .map(|a| &a.window)
            .any(|w| w.goodput_end.is_none())
        {
            for (i, w) in self.acc.iter_mut().map(|a| &mut a.window).enumerate() {
                if w.goodput_end.is_none() {
                    w.goodput_end = goodput(i);
                }
            }
        }
        let secs = (w_end - w_start).as_secs_f64();
        let mbps = |bytes: u64| {
            if secs > 0.0 {
                bytes as f64 * 8.0 / secs / 1e6
            } else {
                0.0
            }
        };
        let total_recv: u64 = self
            .acc
            .iter()
            .map(|a| &a.window)
            .map(|w| w.recv_bytes)
            .sum();
        let total_prio: f64 = self.flows.iter().map(|f| f.priority).sum();
        let mut flows = Vec::with_capacity(self.flows.len());
        let mut fwd_bytes = 0u64;
        let (mut fwd_sent, mut fwd_lost, mut fwd_q_n, mut fwd_q_ms) = (0u64, 0u64, 0u64, 0.0);
        for ((meta, w), h) in self
            .flows
            .iter()
            .zip(self.acc.iter().map(|a| &a.window))
            .zip(&self.hists)
        {
            if meta.forward {
                fwd_bytes += w.recv_bytes;
                fwd_sent += w.sent_pkts;
                fwd_lost += w.lost_pkts;
                if let Some(m) = h.qdelay.mean_ms() {
                    fwd_q_n += h.qdelay.count();
                    fwd_q_ms += m * h.qdelay.count() as f64;
                }
            }
            let goodput_mbps = match (w.goodput_start, w.goodput_end) {
                (Some(a), Some(b)) => Some(mbps(b.saturating_sub(a))),
                (None, Some(b)) => Some(mbps(b)),
                _ => None,
            };
            flows.push(FlowSummary {
                name: meta.name.clone(),
                kind: meta.kind.clone(),
                group: None,
                priority: meta.priority,
                throughput_mbps: mbps(w.recv_bytes),
                send_rate_mbps: mbps(w.sent_bytes),
                goodput_mbps,
                rtt_ms: h.rtt.stats(),
                queuing_delay_ms: h.qdelay.stats(),
                one_way_delay_ms: h.delay.stats(),
                jitter_ms: (w.jitter_n > 0).then(|| w.jitter_sum_us / w.jitter_n as f64 / 1000.0),
                loss_ratio: if w.sent_pkts > 0 {
                    w.lost_pkts as f64 / w.sent_pkts as f64
                } else {
                    0.0
                },
                sent_packets: w.sent_pkts,
                lost_packets: w.lost_pkts,
                share: if total_recv > 0 {
                    w.recv_bytes as f64 / total_recv as f64
                } else {
                    0.0
                },
                priority_share: if total_prio > 0.0 {
                    meta.priority / total_prio
                } else {
                    0.0
                },
                n_dd: None,
                sbd_regroups: None,
            });
        }
        let throughputs: Vec<f64> = flows.iter().map(|f| f.throughput_mbps).collect();
        let priority_shares: Vec<f64> = flows.iter().map(|f| f.priority_share).collect();
        let cap_bits = self.forward.capacity_bits(w_start, w_end);
        let summary = Summary {
            scenario: scenario.to_string(),
            seed,
            duration_s: end.as_secs_f64(),
            window_s: [w_start.as_secs_f64(), w_end.as_secs_f64()],
            aggregate: AggregateSummary {
                utilization: if cap_bits > 0.0 {
                    fwd_bytes as f64 * 8.0 / cap_bits
                } else {
                    0.0
                },
                jain_index: jain_index(&throughputs),
                weighted_jain_index: weighted_jain_index(&throughputs, &priority_shares),
                throughput_mbps: throughputs.iter().sum(),
                loss_ratio: if fwd_sent > 0 {
                    fwd_lost as f64 / fwd_sent as f64
                } else {
                    0.0
                },
                queuing_delay_ms: (fwd_q_n > 0).then(|| fwd_q_ms / fwd_q_n as f64),
                sbd_accuracy: None,
                sbd_time_to_correct_s: None,
                sbd_regroups: None,
            },
            flows,
            links: Vec::new(),
            events,
            sbd: None,
            coupling: None,
            warnings: Vec::new(),
        };
        (summary, self.rows)
    }
}

impl Summary {
    /// The shape of a summary with flows named `flows` and nothing measured: every field
    /// of the summary.json contract (numbers 0, optional ones `null`), built by the same
    /// code as a run's summary. Metric paths are checked against it before any run.
    pub fn template<S: AsRef<str>>(flows: &[S]) -> Summary {
        let meta = flows
            .iter()
            .map(|name| FlowMeta {
                name: name.as_ref().to_string(),
                kind: String::new(),
                priority: 1.0,
                forward: true,
            })
            .collect();
        let link = LinkConfig::constant(
            flowstate_core::Bitrate::ZERO,
            TimeDelta::ZERO,
            crate::queue::QueueLimit::Packets(0),
        );
        let metrics = Metrics::new(MetricsConfig::default(), meta, link);
        let mut summary = metrics
            .finish(Timestamp::ZERO, "", 0, 0, |_| None, |_| None)
            .0;
        summary.coupling = Some(CouplingSummary {
            mechanism: "none".into(),
            groups_mode: "static".into(),
        });
        // The dumbbell's links (a run with named links has one entry per link).
        summary.links = ["link", "reverse_link"]
            .into_iter()
            .map(LinkSummary::empty)
            .collect();
        summary
    }

    /// Pretty JSON (the summary.json file).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jain_hand_values() {
        assert_eq!(jain_index(&[1.0, 1.0, 1.0]), 1.0);
        // (1 + 0)^2 / (2 x 1) = 0.5
        assert_eq!(jain_index(&[1.0, 0.0]), 0.5);
        // (1 + 3)^2 / (2 x 10) = 0.8
        assert!((jain_index(&[1.0, 3.0]) - 0.8).abs() < 1e-12);
        assert_eq!(jain_index(&[]), 1.0);
    }

    #[test]
    fn weighted_jain_hand_values() {
        // Throughput in proportion to the priorities (1:3): perfectly fair by priority,
        // though Jain's index of the throughputs is 0.8.
        assert!((weighted_jain_index(&[1.0, 3.0], &[0.25, 0.75]) - 1.0).abs() < 1e-12);
        // Equal priorities: Jain's index.
        assert!((weighted_jain_index(&[1.0, 3.0], &[0.5, 0.5]) - 0.8).abs() < 1e-12);
        // The low-priority flow takes everything: x = (4/0.25, 0) -> 0.5.
        assert_eq!(weighted_jain_index(&[4.0, 0.0], &[0.25, 0.75]), 0.5);
        assert_eq!(weighted_jain_index(&[], &[]), 1.0);
    }

    #[test]
    fn histogram_quantiles_within_half_bucket() {
        let mut h = Histogram::new();
        // 1..=100 ms uniformly: p50 = 50 ms, p95 = 95 ms, mean 50.5 ms.
        for ms in 1..=100 {
            h.record(TimeDelta::millis(ms));
        }
        assert!((h.mean_ms().unwrap_or(0.0) - 50.5).abs() < 1e-9);
        let p50 = h.quantile_ms(0.5).unwrap_or(0.0);
        let p95 = h.quantile_ms(0.95).unwrap_or(0.0);
        assert!((p50 - 50.0).abs() <= 0.05 + 1e-9, "{p50}");
        assert!((p95 - 95.0).abs() <= 0.05 + 1e-9, "{p95}");
        // Mid range (1 ms buckets) and overflow.
        let mut h = Histogram::new();
        h.record(TimeDelta::millis(250));
        assert!((h.quantile_ms(0.5).unwrap_or(0.0) - 250.0).abs() <= 0.5);
        h.record(TimeDelta::secs(30));
        assert_eq!(h.quantile_ms(1.0), Some(30_000.0));
        assert_eq!(Histogram::new().quantile_ms(0.5), None);
    }

    proptest::proptest! {
        /// The paged buckets give the quantiles of a dense count array (every bucket
        /// present) for samples anywhere in the range, overflow included.
        #[test]
        fn paged_histogram_matches_dense_buckets(
            samples in proptest::collection::vec(0u64..12_000_000, 1..300),
            q in 0.0f64..1.0,
        ) {
            let mut h = Histogram::new();
            let mut dense = vec![0u64; N_BUCKETS];
            for &us in &samples {
                h.record(TimeDelta::from_micros(us as i64));
                dense[Histogram::bucket(us)] += 1;
            }
            let n = samples.len() as u64;
            let rank = ((q * n as f64).ceil() as u64).clamp(1, n);
            let (min, max) = (samples.iter().min().copied().unwrap_or(0), samples.iter().max().copied().unwrap_or(0));
            let mut seen = 0;
            let mut want = None;
            for (i, c) in dense.iter().enumerate() {
                seen += c;
                if seen >= rank {
                    let (lo, hi) = Histogram::bounds(i);
                    let mid = if hi == u64::MAX { max as f64 } else { (lo + hi) as f64 / 2.0 };
                    want = Some(mid.clamp(min as f64, max as f64) / 1000.0);
                    break;
                }
            }
            proptest::prop_assert_eq!(h.quantile_ms(q), want);
        }

        /// Buffering changes when a sample is counted, never the result: the samples
        /// in any split between two histograms' buffers and pages compare equal, and
        /// give the same statistics, as a histogram counting each sample at once.
        #[test]
        fn buffered_samples_count_like_immediate_ones(
            samples in proptest::collection::vec(0u64..12_000_000, 0..100),
        ) {
            let mut h = Histogram::new();
            let mut immediate = Histogram::new();
            for &us in &samples {
                h.record(TimeDelta::from_micros(us as i64));
                immediate.record(TimeDelta::from_micros(us as i64));
                immediate.flush();
            }
            proptest::prop_assert_eq!(h.stats(), immediate.stats());
            proptest::prop_assert!(h == immediate);
            proptest::prop_assert_eq!(h.count(), samples.len() as u64);
        }
    }

    #[test]
    fn histogram_buffer_fits_one_cache_line() {
        // What every sample touches: n, sum, min, max, the buffer and its length.
        assert!(std::mem::offset_of!(Histogram, pending_len) < 64);
        assert_eq!(std::mem::align_of::<Histogram>(), 64);
        let mut h = Histogram::new();
        for _ in 0..PENDING {
            h.record(TimeDelta::millis(5));
        }
        // Nothing counted into pages until the buffer is full.
        assert!(h.pages.is_empty());
        h.record(TimeDelta::millis(5));
        assert_eq!(h.pages.len(), 1);
        assert_eq!(h.quantile_ms(0.5), Some(5.0));
    }

    #[test]
    fn jitter_follows_rfc3550() {
        let mut j = Jitter::default();
        // The first packet has no D.
        assert_eq!(j.on_arrival(50_000), None);
        // Constant transit: D = 0, J stays 0.
        assert_eq!(j.on_arrival(50_000), Some(0.0));
        // D = 16 ms: J = 0 + (16 000 - 0) / 16 = 1 000 us.
        assert_eq!(j.on_arrival(66_000), Some(1000.0));
        // D = -16 ms counts by its magnitude: J = 1 000 + (16 000 - 1 000) / 16 = 1 937.5.
        assert_eq!(j.on_arrival(50_000), Some(1937.5));
    }

    #[test]
    fn one_way_delay_and_jitter_in_the_summary() {
        let fwd = LinkConfig::constant(
            flowstate_core::Bitrate::mbps(1.0),
            TimeDelta::ZERO,
            crate::queue::QueueLimit::Packets(1),
        );
        let meta = vec![FlowMeta {
            name: "a".into(),
            kind: "cbr".into(),
            priority: 1.0,
            forward: true,
        }];
        let mut m = Metrics::new(MetricsConfig::default(), meta, fwd);
        // Transit alternates 40 ms / 60 ms: mean one-way delay 50 ms; |D| = 20 ms.
        for k in 0..400u64 {
            let sent = Timestamp::from_millis(k * 10);
            let now = sent + TimeDelta::millis(if k % 2 == 0 { 40 } else { 60 });
            m.advance(now, |_| None, |_| None);
            m.on_deliver(now, 0, Dir::Data, 1000, sent);
        }
        let (sum, _) = m.finish(Timestamp::from_secs(5), "t", 1, 0, |_| None, |_| None);
        let f = &sum.flows[0];
        assert!(
            (f.one_way_delay_ms.mean.unwrap_or(0.0) - 50.0).abs() < 1e-9,
            "{f:?}"
        );
        // J converges to 20 ms from 0 with gain 1/16: the mean over 399 estimates is a
        // little below 20 ms (sum of the start-up deficit 20 x 16 = 320 ms / 399).
        let j = f.jitter_ms.unwrap_or(0.0);
        assert!(j > 19.0 && j < 20.0, "{j}");
        // Nothing delivered: no jitter, no delay.
        let empty = Summary::template(&["x"]);
        assert_eq!(empty.flows[0].jitter_ms, None);
        assert_eq!(empty.flows[0].one_way_delay_ms.mean, None);
    }

    #[test]
    fn histogram_all_zero_reports_zero() {
        let mut h = Histogram::new();
        for _ in 0..10 {
            h.record(TimeDelta::ZERO);
        }
        assert_eq!(h.stats().p95, Some(0.0));
        assert_eq!(h.stats().mean, Some(0.0));
    }

    #[test]
    fn bins_and_window_rates() {
        let fwd = LinkConfig::constant(
            flowstate_core::Bitrate::mbps(1.0),
            TimeDelta::ZERO,
            crate::queue::QueueLimit::Packets(1),
        );
        let cfg = MetricsConfig {
            bin: TimeDelta::secs(1),
            window_start: Timestamp::from_secs(1),
            window_end: Timestamp::from_secs(3),
            trace: false,
            series: true,
            trace_hash: true,
            ..MetricsConfig::default()
        };
        let meta = vec![FlowMeta {
            name: "a".into(),
            kind: "cbr".into(),
            priority: 1.0,
            forward: true,
        }];
        let mut m = Metrics::new(cfg, meta, fwd);
        // 125 000 B per second delivered = 1 Mbit/s, for 4 s.
        for s in 0..4u64 {
            for k in 0..125u64 {
                let t = Timestamp::from_millis(s * 1000 + k * 8);
                m.advance(t, |_| None, |_| None);
                m.on_send(t, 0, Dir::Data, 1000);
                m.on_deliver(t, 0, Dir::Data, 1000, t);
            }
        }
        let (sum, rows) = m.finish(Timestamp::from_secs(4), "t", 1, 0, |_| None, |_| None);
        assert_eq!(rows.len(), 4);
        for r in &rows {
            assert!((r.throughput_mbps - 1.0).abs() < 1e-9, "{r:?}");
        }
        let f = &sum.flows[0];
        assert!((f.throughput_mbps - 1.0).abs() < 1e-9);
        assert!((sum.aggregate.utilization - 1.0).abs() < 1e-9);
        assert_eq!(sum.window_s, [1.0, 3.0]);
        assert_eq!(f.sent_packets, 250);
    }
}
