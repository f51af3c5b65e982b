//! Extended FSE-NG (paper 000 section VI, Algs. 4 and 5).
//!
//! Differences from FSE-NG ([`super::fse_ng`]):
//! - a rate flow's change is counted once, and rate flows send no RTT (Alg. 4);
//! - window flows report (cwnd, last_rtt) whenever cwnd changes (Alg. 5):
//!
//! ```text
//! CwndFlowUpdate(f, CC_CWND, last_rtt):
//!   RTT_base = min(RTT_base, last_rtt)
//!   CC_R = CC_CWND / last_rtt        (Alg. 5 line 4 prints a product: a typo; the
//!                                     reference code divides)
//!   if no rate flows or AllAppLimited():  S_CR += CC_R - FSE_R(f)
//!   FSE_R(f) = CC_R                   (remembered as the flow's previous rate)
//! ```
//!
//! Window updates do not trigger a redistribution; only rate-flow updates do.
//! Registration of a window flow counts as its first update (from a previous rate of 0).

use super::flow::Allocation;
use super::fse_ng::{distribute_rate_led, min_rtt};
use super::group::FlowGroup;
use crate::units::{DataSize, TimeDelta};

/// Options of Extended FSE-NG.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ExtendedFseNgConfig {
    /// Bring back FSE-NG's double-counted rate change (paper 000 VI-C removed it).
    /// Default off, as in the paper; on only for ablation studies.
    pub count_change_twice: bool,
}

pub(crate) const EXT_FSE_NG_NAME: &str = "Extended FSE-NG";

#[derive(Debug, Clone)]
pub(crate) struct ExtendedFseNg {
    pub config: ExtendedFseNgConfig,
    /// The lowest RTT any window flow has reported.
    pub rtt_base: Option<TimeDelta>,
}

impl ExtendedFseNg {
    pub fn new(config: ExtendedFseNgConfig) -> Self {
        ExtendedFseNg {
            config,
            rtt_base: None,
        }
    }

    /// Alg. 4: S_CR += CC_R - FSE_R(f) (once), then the rate-led distribution.
    pub fn rate_update(
        &mut self,
        group: &mut FlowGroup,
        idx: usize,
        cc_r: f64,
        out: &mut Vec<Allocation>,
    ) {
        let change = cc_r - group.flows[idx].fse_r;
        let twice = self.config.count_change_twice
            && group.has_window_flows()
            && !group.all_rate_flows_app_limited();
        group.add_to_aggregate(if twice { change + change } else { change });
        distribute_rate_led(group, self.rtt_base, out);
    }

    /// Alg. 5 (also used at registration, with the initial cwnd and RTT).
    pub fn window_update(
        &mut self,
        group: &mut FlowGroup,
        idx: usize,
        cwnd: DataSize,
        rtt_sample: Option<TimeDelta>,
    ) {
        self.rtt_base = min_rtt(self.rtt_base, rtt_sample);
        let rtt = group.flows[idx]
            .window
            .as_ref()
            .and_then(|w| w.last_rtt)
            .or(self.rtt_base);
        let cc_r = match rtt {
            Some(rtt) => (cwnd / rtt).as_bps(),
            None => 0.0,
        };
        if !group.has_rate_flows() || group.all_rate_flows_app_limited() {
            let change = cc_r - group.flows[idx].fse_r;
            group.add_to_aggregate(change);
        }
        group.flows[idx].fse_r = cc_r;
    }
}
