//! The network: links and each flow's path over them.
//!
//! Two forms (docs/SCENARIOS.md, "Topologies"):
//!
//! - **The dumbbell** (`[link]`, `[reverse_link]`): a forward and a reverse bottleneck
//!   link shared by all flows. A `forward` flow sends data over the forward link and
//!   feedback over the reverse link; a `reverse` flow the other way round.
//! - **Named links** (`[[links]]`, `[parking_lot]`; [`Network`]): any number of links,
//!   and per flow a data route (a sequence of links, crossed in order: a packet that
//!   leaves link `k` enters link `k + 1` at that instant) and a feedback path (a
//!   sequence of links too, or a fixed one-way delay without a queue).
//!
//! In both, a per-flow access (path) one-way delay is added after the last link in each
//! direction, so flows can have different RTTs:
//!
//! `RTT_base(f) = 2 x path_delay(f) + sum(delay of the data route's links)
//!   + sum(delay of the feedback route's links)` (or `+ return_delay`), plus
//!   serialization. For the dumbbell the sums are `forward.delay + reverse.delay`.

use crate::flow::Dir;
use crate::link::{Link, LinkConfig, LinkId};
use flowstate_core::TimeDelta;

/// Which way a flow's data travels over the dumbbell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FlowDirection {
    Forward,
    Reverse,
}

/// Per-flow path attributes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FlowPath {
    /// Dumbbell only (a flow on named links follows its [`Route`]; this is `Forward`).
    pub direction: FlowDirection,
    /// One-way access delay, applied after the last link in each direction.
    pub path_delay: TimeDelta,
}

/// The links one direction of a flow crosses.
#[derive(Debug, Clone, PartialEq)]
pub enum Hops {
    /// These links in order (at least one, none twice).
    Links(Vec<LinkId>),
    /// No link: the packets arrive after this one-way delay, in the order sent, never
    /// queued or lost (a `return_delay`).
    Delay(TimeDelta),
}

/// A flow's path over named links.
#[derive(Debug, Clone, PartialEq)]
pub struct Route {
    /// The links its data crosses (at least one).
    pub data: Vec<LinkId>,
    /// Its feedback's path.
    pub feedback: Hops,
}

/// Named links and the flows' routes over them (`[[links]]` / `[parking_lot]`).
#[derive(Debug, Clone, PartialEq)]
pub struct Network {
    /// `(name, link)`; [`LinkId`] `k` is `links[k]` (at most [`MAX_LINKS`]).
    pub links: Vec<(String, LinkConfig)>,
    /// `routes[f]`: flow `f`'s route.
    pub routes: Vec<Route>,
}

/// Most named links a scenario may have: a [`LinkId`] is one byte and [`NO_LINK`] is
/// taken.
pub const MAX_LINKS: usize = 255;

/// The `link` of a trace record of a packet on a fixed-delay path (no link).
pub const NO_LINK: u8 = u8::MAX;

/// Where a packet goes first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FirstHop {
    Link(LinkId),
    /// A fixed-delay path: it arrives (before the path delay) this much later.
    Delay(TimeDelta),
}

#[derive(Debug, Clone, PartialEq)]
struct PathHops {
    data: Hops,
    feedback: Hops,
    path_delay: TimeDelta,
}

impl PathHops {
    fn hops(&self, dir: Dir) -> &Hops {
        match dir {
            Dir::Data => &self.data,
            Dir::Feedback => &self.feedback,
        }
    }
}

/// What the per-packet path asks of a flow's route, in 16 bytes a flow (a 10,000-flow
/// run's fit a core's L2 cache; `PathHops` keeps each direction's links in a vector of
/// its own, a second cache miss behind the first). Derived from `PathHops`.
#[derive(Debug, Clone, Copy, PartialEq)]
struct RouteEnds {
    path_delay: TimeDelta,
    /// Per direction: the first and the last link ([`NO_LINK`]: a fixed-delay path).
    first: [u8; 2],
    last: [u8; 2],
    /// Per direction: whether the route crosses more than one link.
    multi_hop: [bool; 2],
}

impl RouteEnds {
    fn of(p: &PathHops) -> Self {
        let ends = |h: &Hops| match h {
            Hops::Links(l) => (
                l.first().map_or(NO_LINK, |x| x.0),
                l.last().map_or(NO_LINK, |x| x.0),
                l.len() > 1,
            ),
            Hops::Delay(_) => (NO_LINK, NO_LINK, false),
        };
        let (d, f) = (ends(&p.data), ends(&p.feedback));
        Self {
            path_delay: p.path_delay,
            first: [d.0, f.0],
            last: [d.1, f.1],
            multi_hop: [d.2, f.2],
        }
    }
}

/// The running links and every flow's hops.
#[derive(Debug, Clone)]
pub struct Topology {
    links: Vec<Link>,
    names: Vec<String>,
    paths: Vec<PathHops>,
    /// `ends[f]`: `RouteEnds::of(&paths[f])`.
    ends: Vec<RouteEnds>,
}

impl Topology {
    /// The dumbbell: links `[forward, reverse]`.
    pub fn new(forward: LinkConfig, reverse: LinkConfig, paths: Vec<FlowPath>, seed: u64) -> Self {
        let paths: Vec<PathHops> = paths
            .into_iter()
            .map(|p| {
                let (data, feedback) = match p.direction {
                    FlowDirection::Forward => (LinkId::FORWARD, LinkId::REVERSE),
                    FlowDirection::Reverse => (LinkId::REVERSE, LinkId::FORWARD),
                };
                PathHops {
                    data: Hops::Links(vec![data]),
                    feedback: Hops::Links(vec![feedback]),
                    path_delay: p.path_delay,
                }
            })
            .collect();
        Self {
            links: vec![
                Link::new(LinkId::FORWARD, forward, seed),
                Link::new(LinkId::REVERSE, reverse, seed),
            ],
            names: vec!["link".into(), "reverse_link".into()],
            ends: paths.iter().map(RouteEnds::of).collect(),
            paths,
        }
    }

    /// Named links with routes; `path_delays[f]` is flow `f`'s access delay.
    pub fn from_network(network: &Network, path_delays: &[TimeDelta], seed: u64) -> Self {
        let links = network
            .links
            .iter()
            .enumerate()
            .map(|(k, (_, c))| Link::new(LinkId(k as u8), c.clone(), seed))
            .collect();
        let paths: Vec<PathHops> = network
            .routes
            .iter()
            .enumerate()
            .map(|(f, r)| PathHops {
                data: Hops::Links(r.data.clone()),
                feedback: r.feedback.clone(),
                path_delay: path_delays.get(f).copied().unwrap_or(TimeDelta::ZERO),
            })
            .collect();
        Self {
            links,
            names: network.links.iter().map(|(n, _)| n.clone()).collect(),
            ends: paths.iter().map(RouteEnds::of).collect(),
            paths,
        }
    }

    /// Where flow `flow`'s packet of direction `dir` goes first (a flow without a path:
    /// the dumbbell's forward flow).
    #[inline]
    pub fn first_hop(&self, flow: usize, dir: Dir) -> FirstHop {
        match self.ends.get(flow).map(|e| e.first[dir as usize]) {
            Some(NO_LINK) => match self.paths.get(flow).map(|p| p.hops(dir)) {
                Some(Hops::Delay(d)) => FirstHop::Delay(*d),
                // An empty route (validation rejects it).
                Some(Hops::Links(_)) => FirstHop::Link(LinkId::FORWARD),
                None => FirstHop::Link(Self::default_link(dir)),
            },
            Some(link) => FirstHop::Link(LinkId(link)),
            None => FirstHop::Link(Self::default_link(dir)),
        }
    }

    /// The dumbbell link of a flow without a path.
    fn default_link(dir: Dir) -> LinkId {
        match dir {
            Dir::Data => LinkId::FORWARD,
            Dir::Feedback => LinkId::REVERSE,
        }
    }

    /// The link after `link` on flow `flow`'s path for `dir` (`None`: `link` is the
    /// last one).
    #[inline]
    pub fn next_hop(&self, flow: usize, dir: Dir, link: LinkId) -> Option<LinkId> {
        if !self.is_multi_hop(flow, dir) {
            return None;
        }
        match self.paths.get(flow).map(|p| p.hops(dir)) {
            Some(Hops::Links(l)) => {
                let k = l.iter().position(|&x| x == link)?;
                l.get(k + 1).copied()
            }
            _ => None,
        }
    }

    /// Whether flow `flow`'s path for `dir` crosses more than one link.
    #[inline]
    pub fn is_multi_hop(&self, flow: usize, dir: Dir) -> bool {
        self.ends
            .get(flow)
            .is_some_and(|e| e.multi_hop[dir as usize])
    }

    /// The trace-record link of a packet's delivery: the last link it crossed, or
    /// [`NO_LINK`] for a fixed-delay path.
    #[inline]
    pub fn last_link(&self, flow: usize, dir: Dir) -> u8 {
        self.ends
            .get(flow)
            .map_or(Self::default_link(dir).0, |e| e.last[dir as usize])
    }

    /// The links flow `flow`'s data crosses (empty for an unknown flow).
    pub fn data_links(&self, flow: usize) -> &[LinkId] {
        match self.paths.get(flow).map(|p| &p.data) {
            Some(Hops::Links(l)) => l,
            _ => &[],
        }
    }

    /// The base one-way delay of flow `flow`'s feedback path before its path delay: the
    /// propagation delays of the links it crosses, or its fixed `return_delay`.
    pub fn feedback_base_delay(&self, flow: usize) -> TimeDelta {
        match self.paths.get(flow).map(|p| &p.feedback) {
            Some(Hops::Links(l)) => l
                .iter()
                .filter_map(|id| self.links.get(id.index()))
                .fold(TimeDelta::ZERO, |acc, k| acc + k.config().delay),
            Some(Hops::Delay(d)) => *d,
            None => self
                .links
                .get(1)
                .map_or(TimeDelta::ZERO, |k| k.config().delay),
        }
    }

    #[inline]
    pub fn path_delay(&self, flow: usize) -> TimeDelta {
        self.ends
            .get(flow)
            .map_or(TimeDelta::ZERO, |e| e.path_delay)
    }

    /// How many flows have a path.
    pub fn flows(&self) -> usize {
        self.paths.len()
    }

    /// How many links.
    pub fn len(&self) -> usize {
        self.links.len()
    }

    pub fn is_empty(&self) -> bool {
        self.links.is_empty()
    }

    /// Link `id`'s name (`link` / `reverse_link` for the dumbbell).
    pub fn name(&self, id: LinkId) -> &str {
        self.names.get(id.index()).map_or("", |n| n.as_str())
    }

    #[inline]
    pub fn link(&self, id: LinkId) -> &Link {
        &self.links[id.index()]
    }

    #[inline]
    pub fn link_mut(&mut self, id: LinkId) -> &mut Link {
        &mut self.links[id.index()]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::QueueLimit;
    use flowstate_core::Bitrate;

    fn cfg() -> LinkConfig {
        LinkConfig::constant(Bitrate::mbps(1.0), TimeDelta::ZERO, QueueLimit::Packets(1))
    }

    #[test]
    fn reverse_flows_swap_links() {
        let t = Topology::new(
            cfg(),
            cfg(),
            vec![
                FlowPath {
                    direction: FlowDirection::Forward,
                    path_delay: TimeDelta::millis(5),
                },
                FlowPath {
                    direction: FlowDirection::Reverse,
                    path_delay: TimeDelta::ZERO,
                },
            ],
            0,
        );
        assert_eq!(t.first_hop(0, Dir::Data), FirstHop::Link(LinkId::FORWARD));
        assert_eq!(
            t.first_hop(0, Dir::Feedback),
            FirstHop::Link(LinkId::REVERSE)
        );
        assert_eq!(t.first_hop(1, Dir::Data), FirstHop::Link(LinkId::REVERSE));
        assert_eq!(
            t.first_hop(1, Dir::Feedback),
            FirstHop::Link(LinkId::FORWARD)
        );
        assert_eq!(t.next_hop(0, Dir::Data, LinkId::FORWARD), None);
        assert_eq!(t.path_delay(0), TimeDelta::millis(5));
        assert_eq!(t.name(LinkId::REVERSE), "reverse_link");
    }

    #[test]
    fn routes_walk_their_links_in_order() {
        let net = Network {
            links: (1..=3).map(|k| (format!("hop{k}"), cfg())).collect(),
            routes: vec![
                Route {
                    data: vec![LinkId(0), LinkId(1), LinkId(2)],
                    feedback: Hops::Delay(TimeDelta::millis(30)),
                },
                Route {
                    data: vec![LinkId(2)],
                    feedback: Hops::Links(vec![LinkId(1), LinkId(0)]),
                },
            ],
        };
        let t = Topology::from_network(&net, &[TimeDelta::millis(1), TimeDelta::ZERO], 7);
        assert_eq!(t.len(), 3);
        assert_eq!(t.first_hop(0, Dir::Data), FirstHop::Link(LinkId(0)));
        assert_eq!(t.next_hop(0, Dir::Data, LinkId(0)), Some(LinkId(1)));
        assert_eq!(t.next_hop(0, Dir::Data, LinkId(1)), Some(LinkId(2)));
        assert_eq!(t.next_hop(0, Dir::Data, LinkId(2)), None);
        assert_eq!(
            t.first_hop(0, Dir::Feedback),
            FirstHop::Delay(TimeDelta::millis(30))
        );
        assert_eq!(t.last_link(0, Dir::Feedback), NO_LINK);
        assert_eq!(t.last_link(0, Dir::Data), 2);
        assert_eq!(t.next_hop(1, Dir::Feedback, LinkId(1)), Some(LinkId(0)));
        assert!(t.is_multi_hop(0, Dir::Data) && !t.is_multi_hop(1, Dir::Data));
        assert_eq!(t.name(LinkId(1)), "hop2");
        assert_eq!(t.path_delay(0), TimeDelta::millis(1));
    }
}
