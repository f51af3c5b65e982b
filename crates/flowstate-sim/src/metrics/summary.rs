//! The run's summary (summary.json): per flow, aggregate, per link, and the coupling.

use super::histogram::{Histogram, Stats};
use serde::{Deserialize, Serialize};

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
    /// ECN (absent unless the flow sent ECN-capable packets, scenario `ecn`): data
    /// packets that reached the receiver CE-marked over the whole run, ...
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ce_marks: Option<u64>,
    /// ... and the rate or window reductions the controller made for them (absent for
    /// a controller without a discrete response: GCC, NADA, TFRC, CBR;
    /// docs/ALGORITHMS.md, "ECN responses").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ecn_responses: Option<u64>,
    /// A video flow's frame figures over the window (absent for other kinds;
    /// [`super::video`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub video: Option<super::VideoSummary>,
}

/// summary.json `aggregate`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AggregateSummary {
    pub utilization: f64,
    /// Jain's index of the flows' throughputs (docs/SCENARIOS.md, "What the summary means").
    pub jain_index: f64,
    /// Priority-weighted fairness: Jain's index of throughput / priority_share, so 1 when
    /// every flow gets the share its priority asks for
    /// ([`weighted_jain_index`](super::weighted_jain_index)).
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
    /// What the queue discipline did (absent for a drop-tail link).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue: Option<QueueSummary>,
}

/// A link's queue discipline at work over the window (summary.json `links[].queue`;
/// `dropped_packets` counts both kinds of drop, `lost_packets` the random loss).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QueueSummary {
    /// The discipline's scenario name (`codel`, `fq-codel`, `pie`, `dual-pi2`).
    pub discipline: String,
    /// Packets dropped because the queue was over its limit (tail drops, FQ-CoDel's
    /// drops from the fattest queue).
    pub overlimit_drops: u64,
    /// Packets the AQM dropped (control law, drop probability, overload).
    pub aqm_drops: u64,
    /// Packets the AQM marked CE instead of dropping them.
    pub aqm_marks: u64,
    /// Packets marked CE by a delay threshold (DualPI2's L4S step, FQ-CoDel's
    /// `ce_threshold`).
    pub step_marks: u64,
    /// Sojourn time (queuing delay) of the packets served from the classic queue
    /// (every packet, for a single-queue discipline), ms.
    pub classic_sojourn_ms: Stats,
    /// ... and from DualPI2's L4S queue (absent for the other disciplines).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub l4s_sojourn_ms: Option<Stats>,
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
            queue: None,
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

fn one() -> f64 {
    1.0
}

impl Summary {
    /// Pretty JSON (the summary.json file).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
    }
}
