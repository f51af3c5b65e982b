//! The simulation loop: pops events in `(time, seq)` order and moves packets between
//! flows and links. Independent of the scenario file format: build a [`SimConfig`] and
//! a list of [`SimFlow`]s, or let [`crate::run`] do it from a scenario.

use crate::app_stats::{AppControl, AppStats};
use crate::coupling::{CouplingHook, FlowInfo};
use crate::flow::{Dir, FlowState, SimFlow, SimPacket};
use crate::link::{LinkConfig, LinkId, Offer, Started};
use crate::link_metrics::{LinkMetrics, LinkSeriesRow};
use crate::metrics::{
    fill_series, video_summary, CouplingSummary, FlowMeta, Metrics, MetricsConfig, SeriesRow,
    Summary,
};
use crate::queue::DropReason;
use crate::recorder::Recorder;
use crate::sbd::{SbdAction, SbdObserver};
use crate::scheduler::{EventQueue, Fnv64};
use crate::topology::{FirstHop, FlowPath, Network, Topology, NO_LINK};
pub use crate::trace_record::{TraceKind, TraceRecord};
use flowstate_core::coupling::Allowance;
use flowstate_core::playout::FramePlayout;
use flowstate_core::sbd::SbdFeedback;
use flowstate_core::{Bitrate, TimeDelta, Timestamp};

/// A flow's schedule and attributes.
#[derive(Debug, Clone, PartialEq)]
pub struct FlowSetup {
    pub info: FlowInfo,
    pub path: FlowPath,
    pub start: Timestamp,
    /// `None`: runs until the end.
    pub stop: Option<Timestamp>,
    /// `(pause at, resume at)` intervals, sorted, inside `[start, stop)`.
    pub pauses: Vec<(Timestamp, Timestamp)>,
    /// `(at, priority)` changes handed to [`CouplingHook::on_priority`].
    pub priority_schedule: Vec<(Timestamp, f64)>,
    /// `(at, rate)` application rate changes handed to
    /// [`CouplingHook::on_desired_rate`] (the sender applies them itself).
    pub desired_rate_schedule: Vec<(Timestamp, Bitrate)>,
}

/// Everything the engine needs besides the flows.
#[derive(Debug, Clone, PartialEq)]
pub struct SimConfig {
    pub name: String,
    pub seed: u64,
    pub duration: Timestamp,
    /// The dumbbell's links (unused when `network` is given).
    pub forward: LinkConfig,
    pub reverse: LinkConfig,
    /// Named links and the flows' routes (`None`: the dumbbell of `forward` and
    /// `reverse`, each flow by its `path.direction`).
    pub network: Option<Network>,
    pub flows: Vec<FlowSetup>,
    pub metrics: MetricsConfig,
}

/// The outcome of a run.
#[derive(Debug, Clone)]
pub struct RunResult {
    pub summary: Summary,
    pub series: Vec<SeriesRow>,
    /// The per-link time series (crate::link_metrics), one row per link per bin.
    pub link_series: Vec<LinkSeriesRow>,
    /// The full trace, when `MetricsConfig::trace` asked for it.
    pub trace: Option<Vec<TraceRecord>>,
    /// FNV-1a fingerprint of every trace record (`None` when
    /// `MetricsConfig::trace_hash` turned it off).
    pub trace_hash: Option<u64>,
    /// Events processed.
    pub events: u64,
}

#[derive(Debug, Clone, Copy)]
enum Event {
    LinkDone(LinkId),
    /// A packet that left one link of its route enters the next.
    Arrive(LinkId, SimPacket),
    Deliver(SimPacket),
    Timer(u32),
    State(u32, FlowState),
    Rate(LinkId, Bitrate),
    Priority(u32, f64),
    DesiredRate(u32, Bitrate),
    /// Web-API coupling: poll every flow's statistics ([`CouplingHook::on_stats`]).
    StatsPoll,
    /// Web-API coupling: apply the oldest pending poll's controls.
    StatsApply,
    /// SBD: flow f's receiver's base interval may have ended.
    SbdClose(u32),
    /// SBD: flow f's feedback reaches its sender.
    SbdFeedback(u32, SbdFeedback),
    /// SBD: the senders' grouping runs (every T).
    SbdGroup,
}

/// Bound on coupling ping-pong within one instant (reports -> allowances -> reports),
/// on top of one round per flow.
const MAX_COUPLING_ROUNDS: usize = 64;
/// Reports taken from one flow per drain.
const MAX_REPORTS_PER_DRAIN: usize = 16;
/// Runs with at least this many flows ask the CPU to load the next event's flow state
/// while the current event runs ([`Simulation::prefetch_next`]): their state no longer
/// fits the caches, so an event would otherwise wait on memory for it. Below, the state
/// stays cached and the hint would only add its instructions
/// (docs/investigations/2026-11-scaling-passes.md).
const PREFETCH_MIN_FLOWS: usize = crate::metrics::AUTO_RECORDER_MIN_FLOWS;
/// How many places down its lane the flow of an event gets its early hint
/// ([`SimFlow::prefetch_early`]).
const EARLY_PREFETCH_AHEAD: usize = 2;

/// A simulation in progress.
pub struct Simulation {
    config: SimConfig,
    queue: EventQueue<Event>,
    topo: Topology,
    flows: Vec<Box<dyn SimFlow>>,
    states: Vec<FlowState>,
    armed: Vec<Option<Timestamp>>,
    /// Whether the run prefetches the next event's flow state ([`PREFETCH_MIN_FLOWS`]).
    prefetch: bool,
    metrics: Metrics,
    coupling: Box<dyn CouplingHook>,
    next_packet: u64,
    hasher: Fnv64,
    /// `MetricsConfig::trace_hash`.
    hash_trace: bool,
    trace: Option<Vec<TraceRecord>>,
    allowances: Vec<(usize, Allowance)>,
    work: Vec<usize>,
    /// Web-API coupling: controls decided at a poll, waiting for their apply event.
    pending_controls: std::collections::VecDeque<Vec<(usize, AppControl)>>,
    /// Per flow and direction: the next packet's sequence number.
    next_seq: Vec<[u32; 2]>,
    /// Shared bottleneck detection, when the scenario runs it.
    sbd: Option<SbdObserver>,
    sbd_actions: Vec<SbdAction>,
    /// Data packets on a route of several links: the queuing delay so far, by packet
    /// id (the flow's queuing-delay sample is the sum over its links, taken when the
    /// last link starts serializing it).
    hop_waits: std::collections::HashMap<u64, TimeDelta>,
    link_metrics: LinkMetrics,
    lanes: EventLanes,
    /// The helper thread that computes the trace hash and the window histograms
    /// (crate::recorder), while a run that uses one is running.
    recorder: Option<Recorder>,
    /// What the summary says produced it: the coupling and the scenario's warnings
    /// ([`Simulation::describe`]).
    coupling_summary: Option<CouplingSummary>,
    warnings: Vec<String>,
    /// [`Simulation::run_until`] has started the run (its recorder thread).
    started: bool,
}

/// Which FIFO lane of the event queue (crate::scheduler, "FIFO lanes") each stream of
/// in-order events uses: a link's serialization-done events; the packets leaving a
/// link for the next link of their route; and the deliveries over one (last link,
/// delay) pair, shared by every flow with that pair.
#[derive(Debug, Clone, Default)]
struct EventLanes {
    /// Per link.
    link_done: Vec<usize>,
    /// Per link: packets entering the next link of their route as they leave this one.
    arrive: Vec<usize>,
    /// Per flow and direction: the lane's number ([`NO_LANE`]: more distinct pairs than
    /// [`MAX_DELIVERY_LANES`]; the wheel takes them). A byte each, so that a 10,000-flow
    /// run's stay in cache (they are read once per delivered packet).
    deliver: Vec<[u8; 2]>,
    /// The event queue's number of delivery lane `k` is `deliver_lanes[k]`.
    deliver_lanes: Vec<usize>,
}

/// [`EventLanes::deliver`]: no lane.
const NO_LANE: u8 = u8::MAX;

/// Bound on the delivery lanes (a pop compares every lane's head, so they must stay few;
/// below [`NO_LANE`]).
const MAX_DELIVERY_LANES: usize = 16;

impl EventLanes {
    fn new(queue: &mut EventQueue<Event>, topo: &Topology) -> Self {
        let link_done = (0..topo.len()).map(|_| queue.add_lane()).collect();
        let multi_hop = (0..topo.flows())
            .any(|f| topo.is_multi_hop(f, Dir::Data) || topo.is_multi_hop(f, Dir::Feedback));
        let arrive = if multi_hop {
            (0..topo.len()).map(|_| queue.add_lane()).collect()
        } else {
            Vec::new()
        };
        let mut pairs: Vec<(u8, TimeDelta)> = Vec::new();
        let mut deliver_lanes = Vec::new();
        let mut lane_of = |key: (u8, TimeDelta), queue: &mut EventQueue<Event>| {
            if let Some(k) = pairs.iter().position(|p| *p == key) {
                return k as u8;
            }
            if pairs.len() < MAX_DELIVERY_LANES {
                deliver_lanes.push(queue.add_lane());
                pairs.push(key);
                (pairs.len() - 1) as u8
            } else {
                NO_LANE
            }
        };
        let deliver = (0..topo.flows())
            .map(|f| {
                [Dir::Data, Dir::Feedback].map(|dir| {
                    let key = match topo.first_hop(f, dir) {
                        FirstHop::Link(_) => (topo.last_link(f, dir), topo.path_delay(f)),
                        FirstHop::Delay(d) => (NO_LINK, d + topo.path_delay(f)),
                    };
                    lane_of(key, queue)
                })
            })
            .collect();
        Self {
            link_done,
            arrive,
            deliver,
            deliver_lanes,
        }
    }

    #[inline]
    fn deliver(&self, flow: usize, dir: Dir) -> usize {
        self.deliver
            .get(flow)
            .and_then(|d| self.deliver_lanes.get(usize::from(d[dir as usize])))
            .copied()
            .unwrap_or(usize::MAX)
    }
}

impl std::fmt::Debug for Simulation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Simulation")
            .field("name", &self.config.name)
            .field("now", &self.queue.now())
            .field("flows", &self.flows.len())
            .finish()
    }
}

impl Simulation {
    /// `flows[i]` must belong to `config.flows[i]`; extra or missing flows are ignored.
    pub fn new(
        config: SimConfig,
        flows: Vec<Box<dyn SimFlow>>,
        coupling: Box<dyn CouplingHook>,
    ) -> Self {
        let n = flows.len().min(config.flows.len());
        let topo = match &config.network {
            None => Topology::new(
                config.forward.clone(),
                config.reverse.clone(),
                config.flows.iter().map(|f| f.path).collect(),
                config.seed,
            ),
            Some(net) => {
                let delays: Vec<TimeDelta> =
                    config.flows.iter().map(|f| f.path.path_delay).collect();
                Topology::from_network(net, &delays, config.seed)
            }
        };
        let metas = config
            .flows
            .iter()
            .map(|f| FlowMeta {
                name: f.info.name.clone(),
                kind: f.info.kind.name().to_string(),
                priority: f.info.priority,
                forward: f.path.direction == crate::topology::FlowDirection::Forward,
            })
            .collect();
        let reference = match &config.network {
            Some(net) => net
                .links
                .first()
                .map_or_else(|| config.forward.clone(), |l| l.1.clone()),
            None => config.forward.clone(),
        };
        let mut metrics = Metrics::new(config.metrics.clone(), metas, reference);
        metrics.reserve_series(config.duration);
        let link_metrics = LinkMetrics::new(
            &config.metrics,
            match &config.network {
                Some(net) => net.links.clone(),
                None => vec![
                    ("link".to_string(), config.forward.clone()),
                    ("reverse_link".to_string(), config.reverse.clone()),
                ],
            },
        );
        let mut queue = EventQueue::with_capacity(1024);
        for (i, f) in config.flows.iter().enumerate().take(n) {
            let i = i as u32;
            queue.schedule(f.start, Event::State(i, FlowState::Active));
            for &(p, r) in &f.pauses {
                queue.schedule(p, Event::State(i, FlowState::Paused));
                queue.schedule(r, Event::State(i, FlowState::Active));
            }
            if let Some(s) = f.stop {
                queue.schedule(s, Event::State(i, FlowState::Stopped));
            }
            for &(t, p) in &f.priority_schedule {
                queue.schedule(t, Event::Priority(i, p));
            }
            for &(t, r) in &f.desired_rate_schedule {
                queue.schedule(t.max(f.start), Event::DesiredRate(i, r));
            }
        }
        let links: Vec<&LinkConfig> = match &config.network {
            Some(net) => net.links.iter().map(|l| &l.1).collect(),
            None => vec![&config.forward, &config.reverse],
        };
        for (k, link) in links.into_iter().enumerate() {
            for (t, r) in link.rate_changes(config.duration) {
                queue.schedule(t, Event::Rate(LinkId(k as u8), r));
            }
        }
        // Web-API coupling polls from the first interval on; other hooks add no event.
        if let Some(s) = coupling.stats_schedule() {
            if s.interval.is_positive() {
                queue.schedule(Timestamp::ZERO + s.interval, Event::StatsPoll);
            }
        }
        let lanes = EventLanes::new(&mut queue, &topo);
        let mut flows = flows;
        flows.truncate(n);
        let trace = config.metrics.trace.then(Vec::new);
        Self {
            states: vec![FlowState::Idle; n],
            armed: vec![None; n],
            prefetch: n >= PREFETCH_MIN_FLOWS,
            queue,
            topo,
            flows,
            metrics,
            coupling,
            next_packet: 0,
            hasher: Fnv64::new(),
            hash_trace: config.metrics.trace_hash,
            trace,
            allowances: Vec::new(),
            work: Vec::new(),
            pending_controls: std::collections::VecDeque::new(),
            next_seq: vec![[0; 2]; n],
            sbd: None,
            sbd_actions: Vec::new(),
            hop_waits: std::collections::HashMap::new(),
            link_metrics,
            lanes,
            recorder: None,
            coupling_summary: None,
            warnings: Vec::new(),
            started: false,
            config,
        }
    }

    /// The summary names the coupling the run used and repeats the scenario's warnings
    /// (crate::run::build_with sets them from the scenario).
    pub fn describe(mut self, coupling: CouplingSummary, warnings: Vec<String>) -> Self {
        self.coupling_summary = Some(coupling);
        self.warnings = warnings;
        self
    }

    /// Runs shared bottleneck detection (RFC 8382) in the flows (crate::sbd): every
    /// data packet a receiver gets feeds its flow's SBD receiver, and the grouping of
    /// each sending host (`hosts[i]`: flow i's) runs every base interval T from T on.
    /// Each flow's route is its data links; its feedback arrives after the base
    /// one-way delay of its return path (the propagation delays of the links its
    /// feedback crosses plus its path delay). With `GroupsMode::Sbd` the coupling hook
    /// starts every flow in a group of its own and follows the verdicts.
    pub fn with_sbd(
        self,
        config: flowstate_core::sbd::SbdConfig,
        mode: crate::sbd::GroupsMode,
        hosts: &[usize],
    ) -> Result<Self, flowstate_core::sbd::SbdConfigError> {
        let paths = (0..self.flows.len())
            .map(|f| crate::sbd::SbdFlowPath {
                host: hosts.get(f).copied().unwrap_or(0),
                route: self.topo.data_links(f).to_vec(),
                return_delay: self.topo.feedback_base_delay(f) + self.topo.path_delay(f),
            })
            .collect();
        let sbd = SbdObserver::new(config, mode, paths, self.topo.len())?;
        Ok(self.with_observer(sbd))
    }

    fn with_observer(mut self, sbd: SbdObserver) -> Self {
        if sbd.mode() == crate::sbd::GroupsMode::Sbd {
            self.coupling
                .use_dynamic_groups(&|i| sbd.initial_key(i), sbd.interval());
        }
        self.queue
            .schedule(Timestamp::ZERO + sbd.interval(), Event::SbdGroup);
        self.sbd = Some(sbd);
        self
    }

    /// Run to the scenario's duration and collect the results.
    pub fn run(mut self) -> RunResult {
        self.run_until(self.config.duration);
        self.finish()
    }

    /// Process every event before `until` (at most the scenario's duration), then
    /// stop: the run can be resumed with a later time, and a run advanced in steps
    /// processes the same events in the same order as one [`Simulation::run`] (a
    /// driver that steps a controller between them, e.g. a learning environment,
    /// changes only what its controller decides).
    pub fn run_until(&mut self, until: Timestamp) {
        let end = until.min(self.config.duration);
        if !self.started {
            self.started = true;
            // The helper thread starts with the run (a simulation built only to check
            // a scenario starts none).
            if self.config.metrics.recorder_thread.used(self.flows.len()) {
                self.recorder = Recorder::start(self.flows.len());
                if self.recorder.is_some() {
                    self.metrics.defer_window_samples();
                }
            }
        }
        while let Some((now, ev)) = self.queue.pop_before(end) {
            if self.prefetch {
                self.prefetch_next();
            }
            let (flows, states) = (&self.flows, &self.states);
            self.metrics.advance(
                now,
                |i| flows.get(i).and_then(|f| f.goodput_bytes()),
                |i| controller_rate(flows, states, i),
            );
            self.handle(now, ev);
            if let (Some(r), Some(samples)) =
                (self.recorder.as_mut(), self.metrics.deferred_samples())
            {
                r.maybe_hand_over(samples);
            }
        }
    }

    /// The time the run has reached: the latest event processed (the epoch before
    /// the first).
    pub fn now(&self) -> Timestamp {
        self.queue.now()
    }

    /// The scenario's duration: where [`Simulation::run`] ends.
    pub fn duration(&self) -> Timestamp {
        self.config.duration
    }

    /// End the run where it is and collect the results (a run stopped before its
    /// duration measures what happened until then, over the scenario's window).
    pub fn finish(mut self) -> RunResult {
        let end = self.config.duration;
        if let Some(r) = self.recorder.take() {
            let mut samples =
                std::mem::take(self.metrics.deferred_samples().unwrap_or(&mut Vec::new()));
            let recorded = r.finish(&mut samples);
            self.hasher = recorded.hash;
            self.metrics.install_window_histograms(recorded.histograms);
        }
        let events = self.queue.processed();
        for f in self.flows.iter_mut() {
            f.finish_playout(end);
        }
        let (flows, states) = (&self.flows, &self.states);
        let (mut summary, mut series) = self.metrics.finish(
            end,
            &self.config.name,
            self.config.seed,
            events,
            |i| flows.get(i).and_then(|f| f.goodput_bytes()),
            |i| controller_rate(flows, states, i),
        );
        for ((fs, flow), setup) in summary
            .flows
            .iter_mut()
            .zip(self.flows.iter())
            .zip(self.config.flows.iter())
        {
            fs.n_dd = flow.delay_based_decreases();
            if let Some((log, playout)) = flow.video() {
                let m = &self.config.metrics;
                let (start, stop) = (m.window_start.min(end), m.window_end.min(end));
                fs.video = Some(video_summary(log, playout, start, stop));
            }
            if let Some(e) = flow.ecn_counts() {
                fs.ce_marks = Some(e.ce_marks);
                fs.ecn_responses = e.responses;
            }
            fs.group.clone_from(&setup.info.group);
        }
        let videos: Vec<(&str, &FramePlayout)> = summary
            .flows
            .iter()
            .zip(self.flows.iter())
            .filter_map(|(fs, flow)| Some((fs.name.as_str(), flow.video()?.1)))
            .collect();
        fill_series(&mut series, &videos, self.config.metrics.bin, end);
        if let Some(sbd) = &self.sbd {
            let m = &self.config.metrics;
            summary.aggregate.sbd_accuracy = sbd.accuracy(m.window_start, m.window_end);
            summary.aggregate.sbd_time_to_correct_s = sbd.first_correct(Timestamp::ZERO);
            let mut total = 0;
            for (i, fs) in summary.flows.iter_mut().enumerate() {
                fs.sbd_regroups = Some(sbd.regroups(i));
                total += sbd.regroups(i);
            }
            summary.aggregate.sbd_regroups = Some(total);
            summary.sbd = Some(sbd.summary());
        }
        let (links, link_series) = self.link_metrics.finish(end);
        if self.config.network.is_some() {
            summary.aggregate.utilization = route_utilization(&self.topo, &links);
            route_capacities(&self.topo, &mut series, &link_series);
        }
        summary.links = links;
        summary.coupling = self.coupling_summary;
        summary.warnings = self.warnings;
        RunResult {
            summary,
            series,
            link_series,
            trace: self.trace,
            trace_hash: self.hash_trace.then(|| self.hasher.finish()),
            events,
        }
    }

    /// A cache hint (changes nothing): start loading what the next event reads first,
    /// the flow's endpoint, the message it is handed and the metrics accumulators the
    /// delivery writes, so
    /// that those loads overlap the current event's work instead of stalling the next.
    #[inline]
    fn prefetch_next(&mut self) {
        // Two stages: the flow of the event `EARLY_PREFETCH_AHEAD` places down the lane
        // just popped (its entry already loaded by the lane's own hint) gets its
        // fields' lines loaded, so that when it is next, the hint below finds them.
        if let Some(Event::Deliver(pkt)) = self.queue.lane_ahead(EARLY_PREFETCH_AHEAD) {
            if let Some(f) = self.flows.get(pkt.flow as usize) {
                f.prefetch_early(pkt.dir);
            }
        }
        let (flow, dir, slot) = match self.queue.peek() {
            Some(Event::Deliver(pkt)) => (pkt.flow as usize, pkt.dir, Some(pkt.slot)),
            Some(Event::Timer(f)) => (*f as usize, Dir::Data, None),
            // The packet that starts serializing when this one finishes: its queuing
            // delay goes to its flow's metrics.
            Some(Event::LinkDone(link)) => {
                if let Some(p) = self.topo.link(*link).queue().front() {
                    self.metrics.prefetch_queue_wait(p.flow as usize, p.dir);
                }
                return;
            }
            _ => return,
        };
        if let Some(f) = self.flows.get(flow) {
            f.prefetch(dir, slot);
        }
        // A timer writes no metrics before its flow sends.
        if slot.is_some() {
            self.metrics.prefetch(flow, dir);
        }
    }

    /// Record a packet event in the trace and the fingerprint, when the run keeps
    /// either (a run without both, like the catalogue's, pays one test).
    #[inline(always)]
    fn record(&mut self, now: Timestamp, kind: TraceKind, link: u8, pkt: &SimPacket) {
        if self.hash_trace || self.trace.is_some() {
            self.record_kept(now, kind, link, pkt);
        }
    }

    fn record_kept(&mut self, now: Timestamp, kind: TraceKind, link: u8, pkt: &SimPacket) {
        let rec = TraceRecord {
            time_us: now.as_micros(),
            kind,
            link,
            flow: pkt.flow,
            dir: pkt.dir as u8,
            size: pkt.size,
            packet: pkt.id,
        };
        if self.hash_trace {
            match self.recorder.as_mut() {
                Some(r) => r.trace(rec),
                None => rec.hash_into(&mut self.hasher),
            }
        }
        if let Some(t) = self.trace.as_mut() {
            t.push(rec);
        }
    }

    fn handle(&mut self, now: Timestamp, ev: Event) {
        match ev {
            Event::LinkDone(link) => self.on_link_done(now, link),
            Event::Arrive(link, pkt) => self.offer(now, link, pkt),
            Event::Deliver(pkt) => {
                let f = pkt.flow as usize;
                let link = self.topo.last_link(f, pkt.dir);
                self.record(now, TraceKind::Deliver, link, &pkt);
                self.metrics
                    .on_deliver(now, f, pkt.dir, pkt.size, pkt.sent_at);
                if pkt.dir == Dir::Data {
                    if let Some(sbd) = self.sbd.as_mut() {
                        sbd.on_data(now, f, pkt.sent_at, pkt.seq, &mut self.sbd_actions);
                        self.schedule_sbd(f);
                    }
                }
                if let Some(flow) = self.flows.get_mut(f) {
                    flow.deliver(now, &pkt);
                }
                self.service(now, f, false);
            }
            Event::Timer(f) => {
                let f = f as usize;
                if self.armed.get(f).copied().flatten() == Some(now) {
                    self.armed[f] = None;
                    if let Some(flow) = self.flows.get_mut(f) {
                        flow.handle_timeout(now);
                    }
                    self.service(now, f, true);
                }
            }
            Event::State(f, state) => {
                let i = f as usize;
                let Some(flow) = self.flows.get_mut(i) else {
                    return;
                };
                flow.set_state(now, state);
                let snapshot = flow.cc_snapshot();
                if let Some(sbd) = self.sbd.as_mut() {
                    sbd.on_state(i, state);
                }
                self.states[i] = state;
                self.work.clear();
                if let Some(setup) = self.config.flows.get(i) {
                    self.allowances.clear();
                    self.coupling.on_state_with(
                        now,
                        &setup.info,
                        state,
                        snapshot.as_ref(),
                        &mut self.allowances,
                    );
                    self.apply_allowances(now);
                }
                self.service(now, i, false);
            }
            Event::Rate(link, rate) => self.topo.link_mut(link).set_rate(rate),
            Event::Priority(f, p) => {
                if let Some(setup) = self.config.flows.get(f as usize) {
                    self.coupling.on_priority(now, &setup.info, p);
                }
            }
            Event::DesiredRate(f, r) => {
                if let Some(setup) = self.config.flows.get(f as usize) {
                    self.coupling.on_desired_rate(now, &setup.info, r);
                }
            }
            Event::StatsPoll => self.on_stats_poll(now),
            Event::StatsApply => self.on_stats_apply(now),
            Event::SbdClose(f) => {
                if let Some(sbd) = self.sbd.as_mut() {
                    sbd.on_close(now, f as usize, &mut self.sbd_actions);
                    self.schedule_sbd(f as usize);
                }
            }
            Event::SbdFeedback(f, fb) => {
                if let Some(sbd) = self.sbd.as_mut() {
                    sbd.on_feedback(now, f as usize, &fb);
                }
            }
            Event::SbdGroup => self.on_sbd_group(now),
        }
    }

    /// Schedule what flow `f`'s SBD receiver asked for.
    fn schedule_sbd(&mut self, f: usize) {
        for a in self.sbd_actions.drain(..) {
            match a {
                SbdAction::Close(t) => self.queue.schedule(t, Event::SbdClose(f as u32)),
                SbdAction::Feedback(t, fb) => {
                    self.queue.schedule(t, Event::SbdFeedback(f as u32, fb))
                }
            }
        }
    }

    /// The senders' grouping; with `coupling.groups = "sbd"` each verdict that changes
    /// a flow's group goes to the coupling hook as a move.
    fn on_sbd_group(&mut self, now: Timestamp) {
        let Some(mut sbd) = self.sbd.take() else {
            return;
        };
        let topo = &self.topo;
        let mut moves = Vec::new();
        sbd.group(now, |l| topo.link(l).rate().as_bps(), &mut moves);
        for (f, key) in moves {
            let Some(setup) = self.config.flows.get(f) else {
                continue;
            };
            self.allowances.clear();
            let outcome = self
                .coupling
                .on_regroup(now, &setup.info, key, &mut self.allowances);
            sbd.on_regroup(f, key, outcome);
            self.work.clear();
            self.apply_allowances(now);
            if let Some(&g) = self.work.first() {
                self.service(now, g, false);
            }
        }
        self.queue.schedule(now + sbd.interval(), Event::SbdGroup);
        self.sbd = Some(sbd);
    }

    /// Web-API coupling: what getStats shows now goes to the hook; its controls are
    /// applied `delay` later; the next poll is one `interval` on.
    fn on_stats_poll(&mut self, now: Timestamp) {
        let Some(schedule) = self.coupling.stats_schedule() else {
            return;
        };
        let stats: Vec<Option<AppStats>> = self
            .flows
            .iter()
            .zip(&self.states)
            .map(|(f, s)| match s {
                FlowState::Active => f.app_stats(),
                _ => None,
            })
            .collect();
        let mut out = Vec::new();
        self.coupling.on_stats(now, &stats, &mut out);
        self.pending_controls.push_back(out);
        self.queue
            .schedule(now + schedule.delay.max(TimeDelta::ZERO), Event::StatsApply);
        self.queue
            .schedule(now + schedule.interval, Event::StatsPoll);
    }

    fn on_stats_apply(&mut self, now: Timestamp) {
        let Some(controls) = self.pending_controls.pop_front() else {
            return;
        };
        for (g, c) in controls {
            let active = matches!(self.states.get(g), Some(FlowState::Active));
            if let (true, Some(flow)) = (active, self.flows.get_mut(g)) {
                flow.apply_app_control(now, c);
                self.work.clear();
                self.service(now, g, false);
            }
        }
    }

    fn start_service(&mut self, now: Timestamp, link: LinkId, s: Started) {
        self.record(now, TraceKind::Serialize, link.0, &s.pkt);
        self.link_metrics
            .on_start(now, link.index(), s.waited, s.mark, s.class);
        if let Some(sbd) = self.sbd.as_mut() {
            sbd.on_queue_wait(link, s.waited);
        }
        let f = s.pkt.flow as usize;
        if s.pkt.dir == Dir::Data && self.topo.is_multi_hop(f, Dir::Data) {
            // The flow's one-way queuing delay: the sum of its waits on every link.
            let total = self.hop_waits.remove(&s.pkt.id).unwrap_or(TimeDelta::ZERO) + s.waited;
            if self.topo.next_hop(f, Dir::Data, link).is_some() {
                self.hop_waits.insert(s.pkt.id, total);
            } else {
                self.metrics.on_queue_wait(now, f, s.pkt.dir, total);
            }
        } else {
            self.metrics.on_queue_wait(now, f, s.pkt.dir, s.waited);
        }
        let lane = self.lanes.link_done.get(link.index()).copied();
        self.queue
            .schedule_in(lane.unwrap_or(usize::MAX), s.done_at, Event::LinkDone(link));
    }

    /// `pkt` enters `link` at `now`: it starts serializing, waits, or is dropped (and
    /// the queue's discipline may drop others).
    fn offer(&mut self, now: Timestamp, link: LinkId, pkt: SimPacket) {
        let offer = self.topo.link_mut(link).offer(now, pkt);
        let queued = self.topo.link(link).queue().bytes();
        let dropped = match offer {
            Offer::Dropped(reason) => Some(reason),
            _ => None,
        };
        self.link_metrics
            .on_arrive(now, link.index(), dropped, queued);
        match offer {
            Offer::Started(s) => self.start_service(now, link, s),
            Offer::Queued => {}
            Offer::Dropped(reason) => self.queue_drop(now, link, &pkt, reason),
        }
        self.take_queue_drops(now, link);
    }

    /// The queue of `link` dropped `pkt`.
    fn queue_drop(&mut self, now: Timestamp, link: LinkId, pkt: &SimPacket, reason: DropReason) {
        let kind = match reason {
            DropReason::Overlimit => TraceKind::Drop,
            DropReason::Aqm => TraceKind::AqmDrop,
        };
        self.record(now, kind, link.0, pkt);
        self.lose(now, pkt);
    }

    /// The packets the discipline of `link` discarded during the last offer or finish,
    /// besides a refused arrival (never any under drop-tail).
    #[inline]
    fn take_queue_drops(&mut self, now: Timestamp, link: LinkId) {
        while let Some(d) = self.topo.link_mut(link).poll_dropped() {
            self.link_metrics.on_drop(now, link.index(), d.reason);
            self.queue_drop(now, link, &d.pkt, d.reason);
        }
    }

    /// `pkt` is gone (tail drop or random loss): count it and tell its flow.
    fn lose(&mut self, now: Timestamp, pkt: &SimPacket) {
        let f = pkt.flow as usize;
        self.metrics.on_loss(now, f, pkt.dir);
        if !self.hop_waits.is_empty() {
            self.hop_waits.remove(&pkt.id);
        }
        if let Some(flow) = self.flows.get_mut(f) {
            flow.discard(pkt);
        }
    }

    fn on_link_done(&mut self, now: Timestamp, link: LinkId) {
        let Some(fin) = self.topo.link_mut(link).finish(now) else {
            return;
        };
        let pkt = fin.pkt;
        let f = pkt.flow as usize;
        self.link_metrics
            .on_finish(now, link.index(), pkt.size, fin.exit_at.is_none());
        match fin.exit_at {
            Some(exit) => {
                self.record(exit, TraceKind::Exit, link.0, &pkt);
                match self.topo.next_hop(f, pkt.dir, link) {
                    // It enters the next link of its route as it leaves this one.
                    Some(next) => {
                        let lane = self.lanes.arrive.get(link.index()).copied();
                        self.queue.schedule_in(
                            lane.unwrap_or(usize::MAX),
                            exit,
                            Event::Arrive(next, pkt),
                        );
                    }
                    None => {
                        let at = exit + self.topo.path_delay(f);
                        let lane = self.lanes.deliver(f, pkt.dir);
                        self.queue.schedule_in(lane, at, Event::Deliver(pkt));
                    }
                }
            }
            None => {
                self.record(now, TraceKind::Lost, link.0, &pkt);
                self.lose(now, &pkt);
            }
        }
        self.take_queue_drops(now, link);
        if let Some(next) = fin.next {
            self.start_service(now, link, next);
        }
    }

    /// Let flow `f` (and any flow a coupling allowance touches) transmit, report and
    /// re-arm its timer. `after_timeout`: the flow's timer just fired at `now`, so a
    /// timeout still `<= now` is pushed 1 us later (guards against a live-lock by an
    /// endpoint that keeps asking for `now`).
    fn service(&mut self, now: Timestamp, f: usize, after_timeout: bool) {
        let max_rounds = MAX_COUPLING_ROUNDS + self.flows.len();
        let mut rounds = 0;
        let mut first = true;
        if self.work.is_empty() {
            // The common case, nothing queued by an earlier allowance: `f` first, as
            // the queue below would pop it, without the queue.
            if self.serviceable(f) {
                self.drain(now, f);
                self.arm(now, f, after_timeout);
                rounds = 1;
            }
            if self.work.is_empty() {
                return;
            }
            first = false;
        } else {
            // Flows touched by allowances applied before this call are already queued.
            self.work.retain(|&g| g != f);
            self.work.push(f);
        }
        while let Some(i) = self.work.pop() {
            if !self.serviceable(i) {
                first = false;
                continue;
            }
            self.drain(now, i);
            self.arm(now, i, after_timeout && first);
            first = false;
            rounds += 1;
            if rounds >= max_rounds {
                break;
            }
        }
        self.work.clear();
    }

    /// Flow `i` is polled (it has started: active, paused or stopped; see [`FlowState`]).
    #[inline]
    fn serviceable(&self, i: usize) -> bool {
        matches!(
            self.states.get(i),
            Some(FlowState::Active | FlowState::Paused | FlowState::Stopped)
        )
    }

    fn drain(&mut self, now: Timestamp, i: usize) {
        loop {
            let Some(flow) = self.flows.get_mut(i) else {
                return;
            };
            let Some(out) = flow.poll_transmit(now) else {
                break;
            };
            let seq = &mut self.next_seq[i][out.dir as usize];
            let pkt = SimPacket {
                id: self.next_packet,
                sent_at: now,
                flow: i as u32,
                size: out.size.as_bytes().min(u64::from(u32::MAX)) as u32,
                slot: out.slot,
                seq: *seq,
                dir: out.dir,
                ecn: out.ecn,
            };
            *seq = seq.wrapping_add(1);
            self.next_packet += 1;
            match self.topo.first_hop(i, out.dir) {
                FirstHop::Link(link) => {
                    self.record(now, TraceKind::Send, link.0, &pkt);
                    self.metrics.on_send(now, i, pkt.dir, pkt.size);
                    self.offer(now, link, pkt);
                }
                FirstHop::Delay(d) => {
                    // A fixed-delay path (`return_delay`): no queue, no loss.
                    self.record(now, TraceKind::Send, NO_LINK, &pkt);
                    self.metrics.on_send(now, i, pkt.dir, pkt.size);
                    let at = now + d + self.topo.path_delay(i);
                    let lane = self.lanes.deliver(i, pkt.dir);
                    self.queue.schedule_in(lane, at, Event::Deliver(pkt));
                }
            }
        }
        let Some(flow) = self.flows.get_mut(i) else {
            return;
        };
        while let Some(rtt) = flow.poll_rtt_sample() {
            self.metrics.on_rtt(now, i, rtt);
        }
        // Bounded: a sender that echoes every allowance with a new report must not
        // spin here; what is left is handled at the flow's next service.
        for _ in 0..MAX_REPORTS_PER_DRAIN {
            let Some(report) = self.flows.get_mut(i).and_then(|f| f.poll_cc_report()) else {
                break;
            };
            self.allowances.clear();
            self.coupling
                .on_report(now, i, &report, &mut self.allowances);
            self.apply_allowances(now);
        }
    }

    /// Apply `self.allowances` and queue every touched flow for service (it may now
    /// send more, or need its timer re-armed).
    fn apply_allowances(&mut self, now: Timestamp) {
        for k in 0..self.allowances.len() {
            let (g, a) = self.allowances[k];
            if let Some(flow) = self.flows.get_mut(g) {
                flow.apply_allowance(now, a);
                if !self.work.contains(&g) {
                    self.work.push(g);
                }
            }
        }
    }

    fn arm(&mut self, now: Timestamp, i: usize, after_timeout: bool) {
        let Some(t) = self.flows.get(i).and_then(|f| f.poll_timeout()) else {
            return;
        };
        let t = if after_timeout && t <= now {
            now + TimeDelta::from_micros(1)
        } else {
            t.max(now)
        };
        let Some(slot) = self.armed.get_mut(i) else {
            return;
        };
        let earlier = match *slot {
            None => true,
            Some(a) => t < a,
        };
        if earlier {
            *slot = Some(t);
            self.queue.schedule(t, Event::Timer(i as u32));
        }
    }

    /// Events processed so far.
    pub fn events(&self) -> u64 {
        self.queue.processed()
    }
}

/// Flow `i`'s rate controller's value as it reports it to a coupling manager (the
/// series' `target_mbps`), while the flow runs; `None` for window and fixed-rate flows.
fn controller_rate(flows: &[Box<dyn SimFlow>], states: &[FlowState], i: usize) -> Option<Bitrate> {
    if !matches!(states.get(i), Some(FlowState::Active)) {
        return None;
    }
    match flows.get(i)?.cc_snapshot()? {
        flowstate_core::coupling::FlowReport::Rate { rate, .. } => Some(rate),
        flowstate_core::coupling::FlowReport::Window { .. } => None,
    }
}

/// Named links: the mean utilization (crate::link_metrics) of the links some flow's
/// data crosses.
fn route_utilization(topo: &Topology, links: &[crate::metrics::LinkSummary]) -> f64 {
    let mut used = vec![false; links.len()];
    for f in 0..topo.flows() {
        for l in topo.data_links(f) {
            if let Some(u) = used.get_mut(l.index()) {
                *u = true;
            }
        }
    }
    let utils: Vec<f64> = links
        .iter()
        .zip(&used)
        .filter(|(_, &u)| u)
        .map(|(l, _)| l.utilization)
        .collect();
    if utils.is_empty() {
        0.0
    } else {
        utils.iter().sum::<f64>() / utils.len() as f64
    }
}

/// Named links: each flow's time-series `capacity_mbps` is the smallest capacity of the
/// links its data crosses in that bin (the dumbbell's rows keep the forward link's).
/// The flows' and the links' rows share their bins: `bins x flows` and `bins x links`
/// rows in bin order.
fn route_capacities(topo: &Topology, series: &mut [SeriesRow], links: &[LinkSeriesRow]) {
    let (n_flows, n_links) = (topo.flows(), topo.len());
    if n_flows == 0 || n_links == 0 {
        return;
    }
    for (rows, bin) in series.chunks_mut(n_flows).zip(links.chunks(n_links)) {
        for (f, row) in rows.iter_mut().enumerate() {
            let caps = topo
                .data_links(f)
                .iter()
                .filter_map(|l| bin.get(l.index()))
                .filter(|b| b.time_s == row.time_s)
                .map(|b| b.capacity_mbps);
            if let Some(c) = caps.reduce(f64::min) {
                row.capacity_mbps = c;
            }
        }
    }
}
