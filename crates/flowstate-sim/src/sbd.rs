//! Shared bottleneck detection (RFC 8382) running in the simulator's flows, and the
//! evaluation of its verdicts against the topology.
//!
//! Per flow, whatever its kind (GCC, SCTP, TCP, ...), the engine hands every data
//! packet that reaches the receiver to that flow's [`SbdReceiver`] (RFC 8382 section
//! 3.1.2: statistics at the receiver): its one-way delay (arrival minus send time;
//! relative, section 4) and its sequence number (losses, 3.2.5). The receiver closes a
//! base interval T on its own clock (section 3.2), by a packet or by its timer, and each
//! closed interval leaves one [`SbdFeedback`] (the 16-byte record of
//! `flowstate_core::sbd::feedback`). The feedback reaches the sender side after the
//! *base one-way delay of the flow's return path* (the propagation delay of the links
//! its feedback crosses plus its path delay): it is modelled as an out-of-band message
//! that is neither queued nor lost (16 bytes per 350 ms per flow; a real RTCP report
//! would also queue behind the flow's own feedback).
//!
//! The sender side of each host runs the grouping (RFC 8382 section 3.3.1) every T
//! (3.3.2) over the newest feedback of its active flows. A host is the sending end of
//! the dumbbell: forward flows share one host, reverse flows the other.
//!
//! Verdicts are labelled so that a group keeps its label from one run to the next: a
//! group takes the label most of its members had (ties: the smaller label; a label
//! taken by an earlier group of the same run is not reused); otherwise a fresh one.
//! Flows SBD deems not bottlenecked have no label (`None`): no verdict.
//!
//! With `coupling.groups = "sbd"` the coupling manager follows the verdicts: every flow
//! starts in a group of its own (uncoupled until SBD says it shares a bottleneck), and a
//! flow with a label moves to the coupling group of that label
//! ([`crate::coupling::CouplingHook::on_regroup`], i.e.
//! `CouplingManager::move_flow`, at most once per decision interval). A flow without a
//! verdict stays where it is.
//!
//! Ground truth (for the metrics only; SBD never sees it): the bottleneck of a flow is
//! the most congested link of its data route, the link whose packets waited longest in
//! its queue on average over the last [`TRUTH_WINDOW_INTERVALS`] base intervals (ties,
//! e.g. no queue anywhere: the link of lower capacity, then the first on the route).
//! Two flows of one host share a bottleneck when those links are the same. On the
//! dumbbell every route has one link, so every pair shares.

use crate::flow::FlowState;
use crate::link::LinkId;
use flowstate_core::sbd::{FlowGrouping, SbdConfig, SbdFeedback, SbdReceiver, SummaryStats};
use flowstate_core::{TimeDelta, Timestamp};
use serde::{Deserialize, Serialize};

/// Base intervals over which a link's mean queuing delay decides the ground truth.
pub const TRUTH_WINDOW_INTERVALS: usize = 5;

/// Which groups the coupling manager uses (`coupling.groups`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum GroupsMode {
    /// The flows' `group` fields (default; today's behaviour, the ground truth on a
    /// dumbbell).
    #[default]
    Static,
    /// RFC 8382's verdicts, as they change.
    Sbd,
}

impl GroupsMode {
    pub const NAMES: [&'static str; 2] = ["static", "sbd"];

    /// The name scenario files use.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Static => "static",
            Self::Sbd => "sbd",
        }
    }

    /// The mode `name` names, under the one name rule ([`flowstate_core::names`]: any
    /// case, `_` or `-`).
    pub fn from_name(name: &str) -> Option<Self> {
        flowstate_core::names::find_by_name(
            [Self::Static, Self::Sbd],
            |m| Self::NAMES[m as usize],
            name,
        )
    }
}

/// One grouping run as the summary keeps it (summary.json `sbd.timeline[]`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SbdVerdict {
    pub time_s: f64,
    /// Per flow (scenario order): the SBD group label, `null` when SBD has no verdict
    /// (not bottlenecked, no statistics yet, or the flow is not running).
    pub groups: Vec<Option<u64>>,
    /// Per flow: the link that is its bottleneck by the ground truth (`null`: not
    /// running).
    pub truth: Vec<Option<u8>>,
    /// Pairs of running flows of one host whose same/different verdict matches the
    /// ground truth, and all such pairs.
    pub correct_pairs: u32,
    pub pairs: u32,
}

/// summary.json `sbd`: the verdicts over time and what they cost.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SbdSummary {
    /// `static` or `sbd` (`coupling.groups`).
    pub groups: String,
    /// Base interval T in seconds.
    pub interval_s: f64,
    pub timeline: Vec<SbdVerdict>,
}

/// What [`crate::coupling::CouplingHook::on_regroup`] did with a verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RegroupOutcome {
    /// The flow moved to the group.
    Moved,
    /// It was there already.
    Unchanged,
    /// It moved less than the decision interval ago: asked again at the next run.
    Deferred,
    /// Not registered (not started, stopped, or a kind the mechanism does not couple):
    /// it joins that group when it registers.
    Pending,
}

/// A receiver-side event the engine must schedule.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SbdAction {
    /// Wake flow `f`'s receiver at this time (its base interval ends).
    Close(Timestamp),
    /// This feedback reaches the sender at this time.
    Feedback(Timestamp, SbdFeedback),
}

/// Per-flow state.
#[derive(Debug, Clone)]
struct FlowSbd {
    receiver: SbdReceiver,
    armed: Option<Timestamp>,
    /// Base one-way delay of the return path.
    return_delay: TimeDelta,
    host: usize,
    /// Links of the data route, in order.
    route: Vec<LinkId>,
    running: bool,
    /// Newest feedback statistics at the sender, and when it arrived.
    latest: Option<(Timestamp, SummaryStats)>,
    label: Option<u64>,
    /// The coupling group the flow is in (or will join), `coupling.groups = "sbd"`.
    key: u64,
    regroups: u64,
}

/// Per-link queuing delays of the last few intervals.
#[derive(Debug, Clone, Default)]
struct LinkWaits {
    /// Newest last: (sum of waits in us, packets).
    intervals: std::collections::VecDeque<(u64, u64)>,
    open: (u64, u64),
}

impl LinkWaits {
    fn mean_us(&self) -> f64 {
        let (s, n) = self
            .intervals
            .iter()
            .fold((0u64, 0u64), |(s, n), (a, b)| (s + a, n + b));
        if n == 0 {
            0.0
        } else {
            s as f64 / n as f64
        }
    }
    fn roll(&mut self) {
        self.intervals.push_back(std::mem::take(&mut self.open));
        while self.intervals.len() > TRUTH_WINDOW_INTERVALS {
            self.intervals.pop_front();
        }
    }
}

/// Route and return path of one flow, as the topology gives them.
#[derive(Debug, Clone)]
pub struct SbdFlowPath {
    pub host: usize,
    pub route: Vec<LinkId>,
    pub return_delay: TimeDelta,
}

/// SBD for every flow of a run: receivers, feedback, the senders' grouping, the
/// labels, the ground truth and the timeline.
#[derive(Debug, Clone)]
pub struct SbdObserver {
    config: SbdConfig,
    mode: GroupsMode,
    flows: Vec<FlowSbd>,
    groupings: Vec<FlowGrouping<usize>>,
    links: Vec<LinkWaits>,
    next_label: u64,
    timeline: Vec<SbdVerdict>,
}

impl SbdObserver {
    /// `config` must be valid ([`SbdConfig::validated`]); `paths[i]` is flow i's.
    pub fn new(
        config: SbdConfig,
        mode: GroupsMode,
        paths: Vec<SbdFlowPath>,
        n_links: usize,
    ) -> Result<Self, flowstate_core::sbd::SbdConfigError> {
        let config = config.validated()?;
        let hosts = paths.iter().map(|p| p.host + 1).max().unwrap_or(0);
        let mut flows = Vec::with_capacity(paths.len());
        for (i, p) in paths.into_iter().enumerate() {
            flows.push(FlowSbd {
                receiver: SbdReceiver::new(i as u32, config)?,
                armed: None,
                return_delay: p.return_delay,
                host: p.host,
                route: p.route,
                running: false,
                latest: None,
                label: None,
                key: i as u64,
                regroups: 0,
            });
        }
        let groupings = (0..hosts)
            .map(|_| FlowGrouping::new(config))
            .collect::<Result<_, _>>()?;
        Ok(Self {
            config,
            mode,
            next_label: flows.len() as u64,
            flows,
            groupings,
            links: vec![LinkWaits::default(); n_links],
            timeline: Vec::new(),
        })
    }

    /// The base interval T: the grouping runs every T.
    pub fn interval(&self) -> TimeDelta {
        self.config.t
    }

    pub fn mode(&self) -> GroupsMode {
        self.mode
    }

    /// The coupling group flow `f` starts in (`coupling.groups = "sbd"`): its own.
    pub fn initial_key(&self, f: usize) -> u64 {
        f as u64
    }

    /// Flow `f` changed state: only running flows are grouped and close intervals.
    pub fn on_state(&mut self, f: usize, state: FlowState) {
        if let Some(flow) = self.flows.get_mut(f) {
            flow.running = matches!(state, FlowState::Active | FlowState::Paused);
        }
    }

    /// A data packet of flow `f` reached its receiver at `now`.
    pub fn on_data(
        &mut self,
        now: Timestamp,
        f: usize,
        sent_at: Timestamp,
        seq: u32,
        out: &mut Vec<SbdAction>,
    ) {
        let Some(flow) = self.flows.get_mut(f) else {
            return;
        };
        flow.receiver.on_packet(now, sent_at, u64::from(seq));
        Self::after_receiver(now, flow, out);
    }

    /// Flow `f`'s receiver timer fired at `now`.
    pub fn on_close(&mut self, now: Timestamp, f: usize, out: &mut Vec<SbdAction>) {
        let Some(flow) = self.flows.get_mut(f) else {
            return;
        };
        if flow.armed != Some(now) {
            return;
        }
        flow.armed = None;
        flow.receiver.handle_timeout(now);
        Self::after_receiver(now, flow, out);
    }

    fn after_receiver(now: Timestamp, flow: &mut FlowSbd, out: &mut Vec<SbdAction>) {
        if let Some(fb) = flow.receiver.poll_feedback() {
            out.push(SbdAction::Feedback(now + flow.return_delay, fb));
        }
        // A stopped flow's receiver is not woken again (packets still in flight close
        // intervals themselves).
        let next = flow.receiver.poll_timeout().filter(|_| flow.running);
        if next.is_some() && next != flow.armed {
            flow.armed = next;
            if let Some(t) = next {
                out.push(SbdAction::Close(t));
            }
        }
    }

    /// Feedback of flow `f` reached its sender.
    pub fn on_feedback(&mut self, now: Timestamp, f: usize, fb: &SbdFeedback) {
        if let Some(flow) = self.flows.get_mut(f) {
            if let Some(stats) = fb.statistics() {
                flow.latest = Some((now, stats));
            }
        }
    }

    /// A packet waited `waited` in `link`'s queue (ground truth).
    pub fn on_queue_wait(&mut self, link: LinkId, waited: TimeDelta) {
        if let Some(l) = self.links.get_mut(link.index()) {
            l.open.0 += waited.as_micros().max(0) as u64;
            l.open.1 += 1;
        }
    }

    /// One grouping run at every host (RFC 8382 3.3.1, every T: 3.3.2). Returns the
    /// `(flow, coupling key)` moves to ask of the coupling manager
    /// (`coupling.groups = "sbd"`; empty otherwise). `capacity(link)` breaks ties of
    /// the ground truth.
    pub fn group(
        &mut self,
        now: Timestamp,
        capacity: impl Fn(LinkId) -> f64,
        moves: &mut Vec<(usize, u64)>,
    ) {
        for l in &mut self.links {
            l.roll();
        }
        // Feedback older than 3 T is stale (a paused or stopped flow): not grouped.
        let stale = self.config.t * 3;
        let mut taken: Vec<u64> = Vec::new();
        let before: Vec<Option<u64>> = self.previous_labels();
        for host in 0..self.groupings.len() {
            let input: Vec<(usize, SummaryStats)> = self
                .flows
                .iter()
                .enumerate()
                .filter(|(_, fl)| fl.host == host && fl.running)
                .filter_map(|(i, fl)| {
                    let (at, s) = fl.latest?;
                    (now.saturating_since(at) <= stale).then_some((i, s))
                })
                .collect();
            let groups = self.groupings[host].group(&input);
            for fl in self.flows.iter_mut().filter(|fl| fl.host == host) {
                fl.label = None;
            }
            for members in &groups.shared {
                let label = self.pick_label(members, &before, &taken);
                taken.push(label);
                for &m in members {
                    self.flows[m].label = Some(label);
                }
            }
        }
        if self.mode == GroupsMode::Sbd {
            for (i, fl) in self.flows.iter().enumerate() {
                if let Some(label) = fl.label {
                    if label != fl.key {
                        moves.push((i, label));
                    }
                }
            }
        }
        self.record(now, capacity);
    }

    /// The labels of the last run (from the timeline).
    fn previous_labels(&self) -> Vec<Option<u64>> {
        self.timeline
            .last()
            .map_or_else(|| vec![None; self.flows.len()], |v| v.groups.clone())
    }

    fn pick_label(&mut self, members: &[usize], before: &[Option<u64>], taken: &[u64]) -> u64 {
        let mut counts: Vec<(u64, usize)> = Vec::new();
        for &m in members {
            if let Some(Some(l)) = before.get(m) {
                match counts.iter_mut().find(|(k, _)| k == l) {
                    Some(c) => c.1 += 1,
                    None => counts.push((*l, 1)),
                }
            }
        }
        counts.retain(|(l, _)| !taken.contains(l));
        counts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        if let Some(&(l, _)) = counts.first() {
            return l;
        }
        let l = self.next_label;
        self.next_label += 1;
        l
    }

    /// The coupling manager's answer to a move.
    pub fn on_regroup(&mut self, f: usize, key: u64, outcome: RegroupOutcome) {
        if let Some(fl) = self.flows.get_mut(f) {
            match outcome {
                RegroupOutcome::Moved => {
                    fl.key = key;
                    fl.regroups += 1;
                }
                RegroupOutcome::Unchanged | RegroupOutcome::Pending => fl.key = key,
                RegroupOutcome::Deferred => {}
            }
        }
    }

    fn truth(&self, f: usize, capacity: &impl Fn(LinkId) -> f64) -> Option<LinkId> {
        let fl = self.flows.get(f)?;
        let mut best: Option<(LinkId, f64, f64)> = None;
        for &l in &fl.route {
            let wait = self.links.get(l.index()).map_or(0.0, LinkWaits::mean_us);
            let cap = capacity(l);
            let better = match best {
                None => true,
                Some((_, w, c)) => wait > w || (wait == w && cap < c),
            };
            if better {
                best = Some((l, wait, cap));
            }
        }
        best.map(|b| b.0)
    }

    fn record(&mut self, now: Timestamp, capacity: impl Fn(LinkId) -> f64) {
        let n = self.flows.len();
        let truth: Vec<Option<LinkId>> = (0..n)
            .map(|f| {
                if self.flows[f].running {
                    self.truth(f, &capacity)
                } else {
                    None
                }
            })
            .collect();
        let groups: Vec<Option<u64>> = self
            .flows
            .iter()
            .map(|fl| fl.label.filter(|_| fl.running))
            .collect();
        let (mut correct, mut pairs) = (0u32, 0u32);
        for a in 0..n {
            for b in a + 1..n {
                let (fa, fb) = (&self.flows[a], &self.flows[b]);
                if !(fa.running && fb.running) || fa.host != fb.host {
                    continue;
                }
                let same_truth = truth[a].is_some() && truth[a] == truth[b];
                let same_verdict = groups[a].is_some() && groups[a] == groups[b];
                pairs += 1;
                if same_truth == same_verdict {
                    correct += 1;
                }
            }
        }
        self.timeline.push(SbdVerdict {
            time_s: now.as_secs_f64(),
            groups,
            truth: truth.iter().map(|t| t.map(|l| l.0)).collect(),
            correct_pairs: correct,
            pairs,
        });
    }

    /// Moves of flow `f` so far.
    pub fn regroups(&self, f: usize) -> u64 {
        self.flows.get(f).map_or(0, |fl| fl.regroups)
    }

    /// The coupling group flow `f` is in (or joins when it registers).
    pub fn key(&self, f: usize) -> u64 {
        self.flows.get(f).map_or(f as u64, |fl| fl.key)
    }

    /// The runs so far.
    pub fn timeline(&self) -> &[SbdVerdict] {
        &self.timeline
    }

    /// Fraction of correct pairwise verdicts over the runs in `[from, to)`, `None`
    /// without pairs.
    pub fn accuracy(&self, from: Timestamp, to: Timestamp) -> Option<f64> {
        let (c, p) = self
            .timeline
            .iter()
            .filter(|v| v.time_s >= from.as_secs_f64() && v.time_s < to.as_secs_f64())
            .fold((0u64, 0u64), |(c, p), v| {
                (c + u64::from(v.correct_pairs), p + u64::from(v.pairs))
            });
        (p > 0).then(|| c as f64 / p as f64)
    }

    /// The first run at or after `from` at which every pairwise verdict was correct.
    pub fn first_correct(&self, from: Timestamp) -> Option<f64> {
        self.timeline
            .iter()
            .find(|v| v.time_s >= from.as_secs_f64() && v.pairs > 0 && v.correct_pairs == v.pairs)
            .map(|v| v.time_s)
    }

    /// summary.json `sbd`.
    pub fn summary(&self) -> SbdSummary {
        SbdSummary {
            groups: match self.mode {
                GroupsMode::Static => "static",
                GroupsMode::Sbd => "sbd",
            }
            .to_string(),
            interval_s: self.config.t.as_secs_f64(),
            timeline: self.timeline.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn observer(n: usize, mode: GroupsMode) -> SbdObserver {
        let paths = (0..n)
            .map(|_| SbdFlowPath {
                host: 0,
                route: vec![LinkId::FORWARD],
                return_delay: TimeDelta::millis(10),
            })
            .collect();
        let mut o = SbdObserver::new(SbdConfig::default(), mode, paths, 2).unwrap();
        for f in 0..n {
            o.on_state(f, FlowState::Active);
        }
        o
    }

    /// Statistics a bottleneck gives (skew_est < c_s), `var` apart for splitting.
    fn feed(o: &mut SbdObserver, now: Timestamp, vars: &[f64]) {
        for (f, &var) in vars.iter().enumerate() {
            let stats = SummaryStats {
                skew_est: -0.5,
                var_est_us: var,
                freq_est: 0.1,
                pkt_loss: 0.0,
            };
            o.flows[f].latest = Some((now, stats));
        }
    }

    #[test]
    fn labels_follow_the_majority_and_moves_are_asked_for_changes_only() {
        let mut o = observer(3, GroupsMode::Sbd);
        let mut moves = Vec::new();
        let t1 = Timestamp::from_millis(350);
        feed(&mut o, t1, &[1000.0, 1000.0, 5000.0]);
        o.group(t1, |_| 1e6, &mut moves);
        // Labels start after the flows' own initial keys 0..3.
        assert_eq!(o.timeline()[0].groups, vec![Some(3), Some(3), Some(4)]);
        assert_eq!(moves, vec![(0, 3), (1, 3), (2, 4)]);
        for &(f, k) in &moves {
            o.on_regroup(f, k, RegroupOutcome::Moved);
        }
        // All three together: the majority label 3 stays; only flow 2 moves.
        moves.clear();
        let t2 = Timestamp::from_millis(700);
        feed(&mut o, t2, &[1000.0, 1000.0, 1000.0]);
        o.group(t2, |_| 1e6, &mut moves);
        assert_eq!(o.timeline()[1].groups, vec![Some(3); 3]);
        assert_eq!(moves, vec![(2, 3)]);
        o.on_regroup(2, 3, RegroupOutcome::Deferred);
        assert_eq!(o.key(2), 4, "a deferred move leaves the flow where it was");
        assert_eq!(o.regroups(0), 1);
    }

    #[test]
    fn pairwise_accuracy_against_the_one_shared_link() {
        let mut o = observer(3, GroupsMode::Static);
        let mut moves = Vec::new();
        let t1 = Timestamp::from_millis(350);
        feed(&mut o, t1, &[1000.0, 1000.0, 5000.0]);
        o.group(t1, |_| 1e6, &mut moves);
        assert!(moves.is_empty(), "static groups ask for no move");
        // Truth: all share the forward link; verdict: {0, 1} {2} -> 1 of 3 pairs right.
        let v = &o.timeline()[0];
        assert_eq!((v.correct_pairs, v.pairs), (1, 3));
        assert_eq!(v.truth, vec![Some(0); 3]);
        let t2 = Timestamp::from_millis(700);
        feed(&mut o, t2, &[1000.0, 1000.0, 1000.0]);
        o.group(t2, |_| 1e6, &mut moves);
        assert_eq!(
            o.accuracy(Timestamp::ZERO, Timestamp::from_secs(1)),
            Some(4.0 / 6.0)
        );
        assert_eq!(o.first_correct(Timestamp::ZERO), Some(0.7));
        // Stale feedback (older than 3 T) is not grouped: no verdict, all pairs "apart".
        let t3 = Timestamp::from_millis(2_000);
        o.group(t3, |_| 1e6, &mut moves);
        assert_eq!(o.timeline()[2].groups, vec![None; 3]);
        assert_eq!(o.timeline()[2].correct_pairs, 0);
    }

    proptest::proptest! {
        /// Over any sequence of grouping runs, labels mirror the grouping: flows of one
        /// group share a label, flows of different groups never do (also across two
        /// hosts), and flows without a verdict have none.
        #[test]
        fn labels_mirror_the_groups(
            rounds in proptest::collection::vec(
                proptest::collection::vec((-1.0f64..1.0, 0.0f64..3000.0, 0.0f64..0.5), 6),
                1..8,
            ),
        ) {
            let paths = (0..6)
                .map(|i| SbdFlowPath {
                    host: i % 2,
                    route: vec![LinkId::FORWARD],
                    return_delay: TimeDelta::ZERO,
                })
                .collect();
            let mut o = SbdObserver::new(SbdConfig::default(), GroupsMode::Sbd, paths, 2).unwrap();
            let mut reference: Vec<FlowGrouping<usize>> =
                (0..2).map(|_| FlowGrouping::new(SbdConfig::default()).unwrap()).collect();
            for f in 0..6 {
                o.on_state(f, FlowState::Active);
            }
            for (k, round) in rounds.iter().enumerate() {
                let now = Timestamp::from_millis(350 * (k as u64 + 1));
                let stats: Vec<SummaryStats> = round
                    .iter()
                    .map(|&(skew, var, freq)| SummaryStats {
                        skew_est: skew,
                        var_est_us: var,
                        freq_est: freq,
                        pkt_loss: 0.0,
                    })
                    .collect();
                for (f, s) in stats.iter().enumerate() {
                    o.flows[f].latest = Some((now, *s));
                }
                let mut moves = Vec::new();
                o.group(now, |_| 1e6, &mut moves);
                let labels = o.timeline().last().unwrap().groups.clone();
                let mut seen: Vec<u64> = Vec::new();
                for (host, g) in reference.iter_mut().enumerate() {
                    let input: Vec<(usize, SummaryStats)> =
                        (0..6).filter(|f| f % 2 == host).map(|f| (f, stats[f])).collect();
                    let groups = g.group(&input);
                    for members in &groups.shared {
                        let l = labels[members[0]];
                        proptest::prop_assert!(l.is_some());
                        proptest::prop_assert!(members.iter().all(|&m| labels[m] == l));
                        proptest::prop_assert!(!seen.contains(&l.unwrap()), "a label on two groups");
                        seen.push(l.unwrap());
                    }
                    for &f in &groups.not_bottlenecked {
                        proptest::prop_assert_eq!(labels[f], None);
                    }
                }
                // Every move asked for is to the flow's label.
                for (f, key) in moves {
                    proptest::prop_assert_eq!(labels[f], Some(key));
                    o.on_regroup(f, key, RegroupOutcome::Moved);
                }
            }
        }
    }

    #[test]
    fn the_truth_is_the_link_that_queued_longest() {
        let paths = vec![
            SbdFlowPath {
                host: 0,
                route: vec![LinkId::FORWARD, LinkId::REVERSE],
                return_delay: TimeDelta::ZERO,
            },
            SbdFlowPath {
                host: 0,
                route: vec![LinkId::FORWARD],
                return_delay: TimeDelta::ZERO,
            },
        ];
        let mut o = SbdObserver::new(SbdConfig::default(), GroupsMode::Static, paths, 2).unwrap();
        o.on_state(0, FlowState::Active);
        o.on_state(1, FlowState::Active);
        // No queue anywhere: the link of lower capacity.
        let cap = |l: LinkId| if l == LinkId::REVERSE { 1e6 } else { 2e6 };
        o.group(Timestamp::from_millis(350), cap, &mut Vec::new());
        assert_eq!(o.timeline()[0].truth, vec![Some(1), Some(0)]);
        o.on_queue_wait(LinkId::FORWARD, TimeDelta::millis(5));
        o.group(Timestamp::from_millis(700), cap, &mut Vec::new());
        assert_eq!(o.timeline()[1].truth, vec![Some(0), Some(0)]);
    }
}
