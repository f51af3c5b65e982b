//! The dumbbell: a forward and a reverse bottleneck link shared by all flows, plus a
//! per-flow access (path) one-way delay added after the bottleneck in both directions,
//! so flows can have different RTTs:
//!
//! `RTT_base(f) = 2 x path_delay(f) + forward.delay + reverse.delay` (+ serialization).
//!
//! A `forward` flow sends data over the forward link and feedback over the reverse
//! link; a `reverse` flow the other way round.

use crate::flow::Dir;
use crate::link::{Link, LinkConfig, LinkId};
use flowstate_core::TimeDelta;

/// Which way a flow's data travels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FlowDirection {
    Forward,
    Reverse,
}

/// Per-flow path attributes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FlowPath {
    pub direction: FlowDirection,
    /// One-way access delay, applied after the bottleneck in each direction.
    pub path_delay: TimeDelta,
}

/// The links and the flows' paths.
#[derive(Debug, Clone)]
pub struct Topology {
    links: [Link; 2],
    paths: Vec<FlowPath>,
}

impl Topology {
    pub fn new(forward: LinkConfig, reverse: LinkConfig, paths: Vec<FlowPath>, seed: u64) -> Self {
        Self {
            links: [
                Link::new(LinkId::Forward, forward, seed),
                Link::new(LinkId::Reverse, reverse, seed),
            ],
            paths,
        }
    }

    /// The link a flow's packet of direction `dir` crosses.
    #[inline]
    pub fn route(&self, flow: usize, dir: Dir) -> LinkId {
        let direction = self
            .paths
            .get(flow)
            .map_or(FlowDirection::Forward, |p| p.direction);
        match (direction, dir) {
            (FlowDirection::Forward, Dir::Data) | (FlowDirection::Reverse, Dir::Feedback) => {
                LinkId::Forward
            }
            _ => LinkId::Reverse,
        }
    }

    #[inline]
    pub fn path_delay(&self, flow: usize) -> TimeDelta {
        self.paths
            .get(flow)
            .map_or(TimeDelta::ZERO, |p| p.path_delay)
    }

    pub fn path(&self, flow: usize) -> Option<&FlowPath> {
        self.paths.get(flow)
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

    #[test]
    fn reverse_flows_swap_links() {
        let l = LinkConfig::constant(Bitrate::mbps(1.0), TimeDelta::ZERO, QueueLimit::Packets(1));
        let t = Topology::new(
            l.clone(),
            l,
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
        assert_eq!(t.route(0, Dir::Data), LinkId::Forward);
        assert_eq!(t.route(0, Dir::Feedback), LinkId::Reverse);
        assert_eq!(t.route(1, Dir::Data), LinkId::Reverse);
        assert_eq!(t.route(1, Dir::Feedback), LinkId::Forward);
        assert_eq!(t.path_delay(0), TimeDelta::millis(5));
    }
}
