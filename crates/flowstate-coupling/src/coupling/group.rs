//! A flow group (FG): the flows that share one bottleneck, their aggregate S_CR, and
//! the bookkeeping every mechanism needs (RFC 8699 section 5.1).
//!
//! The built-in mechanisms read and write the fields; a custom mechanism (crate
//! feature `custom-mechanism`) sees a group through the methods only, so that it
//! cannot add or drop the manager's flows: it reads the flows and sets S_CR and each
//! flow's FSE_R.

use super::flow::{Allocation, Allowance, FlowId, FlowKind};
use super::waterfill::{Claim, WaterFill};
use crate::units::{Bitrate, DataSize, TimeDelta};

/// What the manager remembers about a window flow (SCTP, TCP).
#[derive(Debug, Clone, PartialEq)]
pub struct WindowState {
    pub(crate) mtu: DataSize,
    /// CWND_max before coupling (`None` = uncapped); FSE-NG restores it when the last
    /// rate flow leaves.
    pub(crate) initial_max_cwnd: Option<DataSize>,
    pub(crate) cwnd: DataSize,
    pub(crate) ssthresh: DataSize,
    pub(crate) desired_cwnd: Option<DataSize>,
    /// The newest non-zero RTT sample this flow reported.
    pub(crate) last_rtt: Option<TimeDelta>,
}

#[cfg(feature = "custom-mechanism")]
impl WindowState {
    /// The unit the flow's cwnd moves in.
    pub fn mtu(&self) -> DataSize {
        self.mtu
    }
    /// CWND_max the flow had before coupling (`None` = uncapped).
    pub fn initial_max_cwnd(&self) -> Option<DataSize> {
        self.initial_max_cwnd
    }
    /// The newest congestion window the flow reported.
    pub fn cwnd(&self) -> DataSize {
        self.cwnd
    }
    /// The newest slow-start threshold the flow reported.
    pub fn ssthresh(&self) -> DataSize {
        self.ssthresh
    }
    /// The cwnd the flow asked for when application- or receive-window-limited.
    pub fn desired_cwnd(&self) -> Option<DataSize> {
        self.desired_cwnd
    }
    /// The newest non-zero RTT sample the flow reported.
    pub fn last_rtt(&self) -> Option<TimeDelta> {
        self.last_rtt
    }
}

/// One registered flow.
#[derive(Debug, Clone, PartialEq)]
pub struct FlowEntry {
    pub(crate) id: FlowId,
    pub(crate) priority: f64,
    /// DR(f) in bit/s; infinity when unset. Only rate flows have one.
    pub(crate) desired_rate: f64,
    /// FSE_R(f) in bit/s: the rate most recently allocated to (or, for some mechanisms,
    /// reported by) the flow.
    pub(crate) fse_r: f64,
    /// Present iff the flow is a window flow.
    pub(crate) window: Option<WindowState>,
}

#[cfg(feature = "custom-mechanism")]
impl FlowEntry {
    /// The flow's id.
    pub fn id(&self) -> FlowId {
        self.id
    }
    /// P(f).
    pub fn priority(&self) -> f64 {
        self.priority
    }
    /// DR(f) in bit/s; infinity when unset (and for window flows).
    pub fn desired_rate(&self) -> f64 {
        self.desired_rate
    }
    /// FSE_R(f) in bit/s.
    pub fn fse_r(&self) -> f64 {
        self.fse_r
    }
    /// What the manager remembers of a window flow; `None` for a rate flow.
    pub fn window(&self) -> Option<&WindowState> {
        self.window.as_ref()
    }
}

impl FlowEntry {
    /// Whether the flow is a rate or a window flow.
    pub fn kind(&self) -> FlowKind {
        if self.window.is_some() {
            FlowKind::Window
        } else {
            FlowKind::Rate
        }
    }
    /// True iff the flow is a rate flow.
    pub fn is_rate(&self) -> bool {
        self.window.is_none()
    }
    /// The FSE-NG application-limited test for one rate flow: FSE_R(f) >= DR(f).
    pub fn is_app_limited(&self) -> bool {
        self.fse_r >= self.desired_rate
    }
    /// A rate flow's allocation: FSE_R(f) as its rate.
    pub fn rate_allocation(&self) -> Allocation {
        let rate = Bitrate::bps(self.fse_r);
        Allocation {
            flow: self.id,
            rate,
            allowance: Allowance::Rate(rate),
        }
    }
}

/// The flows of one group and its aggregate S_CR.
#[derive(Debug, Clone)]
pub struct FlowGroup {
    /// In registration order (the order the papers' loops visit flows in).
    pub(crate) flows: Vec<FlowEntry>,
    /// S_CR in bit/s, never negative.
    pub(crate) s_cr: f64,
    /// Bumped whenever something the claims depend on changes (membership, priority,
    /// desired rate, desired cwnd), so that an unchanged group skips rebuilding them.
    claims_version: u64,
    /// The (claims_version, mechanism key) the water-fill cache was built for.
    cached_for: Option<(u64, u64)>,
    water: WaterFill,
    claims: Vec<Claim>,
    shares: Vec<f64>,
}

#[cfg(feature = "custom-mechanism")]
impl FlowGroup {
    /// The group's flows, in registration order (a hook's `idx` indexes this).
    pub fn flows(&self) -> &[FlowEntry] {
        &self.flows
    }

    /// S_CR in bit/s.
    pub fn s_cr(&self) -> f64 {
        self.s_cr
    }

    /// S_CR = `bps`, never below zero; a value that is not finite changes nothing.
    pub fn set_s_cr(&mut self, bps: f64) {
        if bps.is_finite() {
            self.s_cr = bps.max(0.0);
        }
    }

    /// FSE_R of the flow at `idx` = `bps`, never below zero; a value that is not finite
    /// changes nothing. Panics if `idx` is not an index of [`FlowGroup::flows`].
    pub fn set_fse_r(&mut self, idx: usize, bps: f64) {
        if bps.is_finite() {
            self.flows[idx].fse_r = bps.max(0.0);
        }
    }
}

impl FlowGroup {
    pub(crate) fn new() -> Self {
        FlowGroup {
            flows: Vec::new(),
            s_cr: 0.0,
            claims_version: 0,
            cached_for: None,
            water: WaterFill::new(),
            claims: Vec::new(),
            shares: Vec::new(),
        }
    }

    /// The index of flow `id` in [`FlowGroup::flows`].
    pub fn index_of(&self, id: FlowId) -> Option<usize> {
        self.flows.iter().position(|f| f.id == id)
    }

    /// True iff the group has a rate flow.
    pub fn has_rate_flows(&self) -> bool {
        self.flows.iter().any(FlowEntry::is_rate)
    }

    /// True iff the group has a window flow.
    pub fn has_window_flows(&self) -> bool {
        self.flows.iter().any(|f| !f.is_rate())
    }

    /// S_P over every flow of the group.
    pub fn priority_sum(&self) -> f64 {
        self.flows.iter().map(|f| f.priority).sum()
    }

    /// Paper 000 Alg. 2 (`AllAppLimited`), as its text and the reference code read it:
    /// true iff every rate flow has FSE_R(f) >= DR(f); vacuously true without rate flows.
    pub fn all_rate_flows_app_limited(&self) -> bool {
        self.flows
            .iter()
            .filter(|f| f.is_rate())
            .all(FlowEntry::is_app_limited)
    }

    /// S_CR += delta, never below zero (guard: FSE-NG's double-counted change can
    /// otherwise drive the aggregate negative; see docs/ALGORITHMS.md).
    pub fn add_to_aggregate(&mut self, delta: f64) {
        if delta.is_finite() {
            self.s_cr = (self.s_cr + delta).max(0.0);
        }
    }

    /// Remembers what a window flow at `idx` reported (its newest non-zero RTT sample
    /// too); a changed desired cwnd changes the claims.
    pub(crate) fn record_window_report(
        &mut self,
        idx: usize,
        cwnd: DataSize,
        ssthresh: DataSize,
        desired_cwnd: Option<DataSize>,
        rtt: Option<TimeDelta>,
    ) {
        let mut desired_changed = false;
        if let Some(window) = self.flows[idx].window.as_mut() {
            window.cwnd = cwnd;
            window.ssthresh = ssthresh;
            desired_changed = window.desired_cwnd != desired_cwnd;
            window.desired_cwnd = desired_cwnd;
            if let Some(r) = rtt.filter(|r| r.is_positive()) {
                window.last_rtt = Some(r);
            }
        }
        if desired_changed {
            self.claims_changed();
        }
    }

    /// Records that a flow joined or left, or changed its priority, desired rate or
    /// desired cwnd.
    pub(crate) fn claims_changed(&mut self) {
        self.claims_version = self.claims_version.wrapping_add(1);
    }

    /// Water-fills S_CR over every flow, with each flow's claim given by `claim_of`,
    /// stores the result in each FSE_R and returns the sum allocated.
    ///
    /// `claim_key` must change whenever `claim_of` would give other claims for the same
    /// flows (e.g. FSEv2's RTT that converts a desired cwnd into a cap); with an
    /// unchanged group version and key, the cached claims are reused without rebuilding.
    pub(crate) fn water_fill(
        &mut self,
        claim_key: u64,
        claim_of: impl Fn(&FlowEntry) -> Claim,
    ) -> f64 {
        self.shares.clear();
        self.shares.resize(self.flows.len(), 0.0);
        let stamp = (self.claims_version, claim_key);
        let sum = if self.cached_for == Some(stamp) {
            #[cfg(debug_assertions)]
            {
                let fresh: Vec<Claim> = self.flows.iter().map(&claim_of).collect();
                debug_assert_eq!(fresh, self.claims, "stale water-fill claims");
            }
            self.water.fill(self.s_cr, &mut self.shares)
        } else {
            self.claims.clear();
            self.claims.extend(self.flows.iter().map(claim_of));
            self.cached_for = Some(stamp);
            self.water
                .allocate(self.s_cr, &self.claims, &mut self.shares)
        };
        for (flow, share) in self.flows.iter_mut().zip(&self.shares) {
            flow.fse_r = *share;
        }
        sum
    }
}
