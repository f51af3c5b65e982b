//! What flows tell a coupling manager, and what the manager answers.
//!
//! A flow is either a *rate flow* (GCC, RAP, TFRC: its controller outputs a sending
//! rate) or a *window flow* (SCTP, TCP: its controller outputs a congestion window).
//! Flows report their controller's newest value with a [`FlowReport`]; the manager
//! answers with an [`Allocation`] for every flow of the group, which the caller applies
//! to each flow's controller (the manager never calls into flows itself).

use crate::units::{Bitrate, DataSize, TimeDelta};
use std::fmt;

/// Identifies a registered flow within one [`crate::coupling::CouplingManager`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FlowId(pub u64);

impl fmt::Display for FlowId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "flow {}", self.0)
    }
}

/// The shared-bottleneck key that puts flows into one flow group (FG). Flows with the
/// same key are coupled; groups with different keys are independent. WebRTC uses the
/// UDP 5-tuple (all flows of one peer connection share it); a caller may hash any
/// bottleneck identity, e.g. from shared bottleneck detection, into the key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct GroupKey(pub u64);

/// Whether a flow's controller outputs a rate or a window.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FlowKind {
    /// A rate-based controller (GCC, RAP, TFRC).
    Rate,
    /// A window-based controller (SCTP, TCP).
    Window,
}

/// Which estimate a GCC sender reports to a coupling manager (paper 000 V-B3): each
/// mechanism names its own ([`crate::coupling::MechanismInfo::rate_report`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RateReportMode {
    /// The delay-based estimate A_r (FSE-NG).
    DelayBased,
    /// min(A_s, A_r) (FSE, FSEv2).
    Target,
}

/// How a flow joins a group.
#[derive(Debug, Clone, PartialEq)]
pub enum FlowSpec {
    /// A rate flow. `initial_rate` is the controller's starting rate (added to S_CR);
    /// `desired_rate` is the application's limit (`None` = unlimited).
    Rate {
        priority: f64,
        initial_rate: Bitrate,
        desired_rate: Option<Bitrate>,
    },
    /// A window flow. `initial_cwnd` and `initial_rtt` give its starting rate
    /// (cwnd / RTT) to the mechanisms that use it; `initial_max_cwnd` is the cap the flow
    /// had before coupling (`None` = uncapped), restored by FSE-NG when the last rate flow
    /// leaves; `mtu` is the unit cwnd moves in.
    Window {
        priority: f64,
        initial_cwnd: DataSize,
        initial_rtt: Option<TimeDelta>,
        initial_max_cwnd: Option<DataSize>,
        mtu: DataSize,
    },
}

impl FlowSpec {
    pub fn kind(&self) -> FlowKind {
        match self {
            FlowSpec::Rate { .. } => FlowKind::Rate,
            FlowSpec::Window { .. } => FlowKind::Window,
        }
    }
    pub fn priority(&self) -> f64 {
        match self {
            FlowSpec::Rate { priority, .. } | FlowSpec::Window { priority, .. } => *priority,
        }
    }
}

/// A flow's controller computed a new value.
#[derive(Debug, Clone, PartialEq)]
pub enum FlowReport {
    /// A rate flow's new rate CC_R. GCC reports min(loss-based, delay-based) under
    /// FSE / FSEv2 and its delay-based estimate under FSE-NG (paper 000, V-B3).
    /// `rtt` is the flow's RTT estimate (FSE-NG's RTT_base input; the conservative FSE's
    /// 2-RTT timer); GCC reports 200 ms until it has a sample.
    Rate {
        rate: Bitrate,
        rtt: Option<TimeDelta>,
    },
    /// A window flow's new cwnd, sent on every cwnd change. `rtt` is the newest RTT
    /// sample (not SRTT); `ssthresh` lets FSEv2 apply its slow-start-avoidance rule;
    /// `desired_cwnd` is set when the sender is application- or receive-window-limited
    /// (the "desired cwnd" paper 000 names as the last step before deployment).
    Window {
        cwnd: DataSize,
        rtt: Option<TimeDelta>,
        ssthresh: DataSize,
        desired_cwnd: Option<DataSize>,
    },
}

/// What a flow's controller must adopt.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Allowance {
    /// A rate flow's new rate FSE_R. For GCC: set both the delay-based (AIMD) and the
    /// loss-based estimate to it (paper 000, VII-B2e).
    Rate(Bitrate),
    /// FSEv2: set the window flow's cwnd (already rounded down to whole MTUs, at least
    /// one MTU). `ssthresh`, when set, must be adopted too, so that the cut does not
    /// throw the flow into slow start (paper 000, VII-B2g).
    Window {
        cwnd: DataSize,
        ssthresh: Option<DataSize>,
    },
    /// FSE-NG: cap the window flow's cwnd at this many bytes (`None` = no cap).
    MaxWindow(Option<DataSize>),
}

/// One flow's share after an update.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Allocation {
    pub flow: FlowId,
    /// The rate the manager assigned (FSE_R), for observability.
    pub rate: Bitrate,
    /// What the flow's controller must apply.
    pub allowance: Allowance,
}
