//! The streaming collector ([`Metrics`]): per-flow counters for the open bin and the
//! measurement window, fed packet by packet by the engine, closed into the time series'
//! rows and the summary.

use super::config::{FlowMeta, MetricsConfig};
use super::fairness::{jain_index, weighted_jain_index};
use super::jitter::Jitter;
use super::series::{FlowName, SeriesRow};
use super::summary::{AggregateSummary, CouplingSummary, FlowSummary, LinkSummary, Summary};
use super::window_histograms::{window_sample, WindowHistograms, WindowKind, WindowSample};
use crate::flow::Dir;
use crate::link::LinkConfig;
use flowstate_core::{Bitrate, TimeDelta, Timestamp};

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

/// Rows [`Metrics::reserve_series`] reserves at most (~1.7 GB); a longer series grows.
const MAX_RESERVED_ROWS: u64 = 16 << 20;

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
                    fps: None,
                    frame_delay_ms: None,
                    freezes: None,
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
                ce_marks: None,
                ecn_responses: None,
                video: None,
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
        // The fields only some flows have (ECN-capable flows, video flows), so that a
        // metric path may name them; a flow without one reads null at run time.
        for flow in &mut summary.flows {
            flow.ce_marks = Some(0);
            flow.ecn_responses = Some(0);
            flow.video = Some(super::VideoSummary::default());
        }
        // The dumbbell's links (a run with named links has one entry per link).
        summary.links = ["link", "reverse_link"]
            .into_iter()
            .map(LinkSummary::empty)
            .collect();
        summary
    }
}

#[cfg(test)]
#[path = "collector_tests.rs"]
mod tests;
