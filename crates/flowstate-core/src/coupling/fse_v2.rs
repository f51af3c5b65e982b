//! FSEv2 (paper 000 section VII, Alg. 6): rate and window flows are both active and
//! treated alike; window flows have no desired rate.
//!
//! ```text
//! OnFlowUpdated(f, CC_R):       (a window flow's CC_R = cwnd / last_rtt of the group)
//!   S_CR = S_CR + CC_R - FSE_R(f)
//!   leftover loop over all flows: rate flows capped by DR, window flows uncapped
//!   S_CR = sum of FSE_R
//!   rate flow:   set both GCC estimates to FSE_R
//!   window flow: FSE_CWND = FSE_R * last_rtt, rounded down to whole MTUs (>= 1 MTU);
//!                if in congestion avoidance and FSE_CWND <= ssthresh:
//!                    ssthresh = FSE_CWND - 1 MTU          (paper 000 VII-B2g)
//! ```
//!
//! `last_rtt` is the newest non-zero RTT sample any window flow of the group reported
//! (not SRTT). Options: the reference code's 10 % priority boost for rate flows (off by
//! default), and the desired cwnd of an application-limited window flow, used like a
//! rate flow's DR (the extension paper 000 names as the last step to deployment; a
//! window flow that reports none is greedy, as in the paper).

use super::flow::{Allocation, Allowance};
use super::group::FlowGroup;
use super::waterfill::Claim;
use crate::units::{Bitrate, DataSize, TimeDelta};

/// Options of FSEv2.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FseV2Config {
    /// Multiply rate flows' priorities by this factor (the reference code used 1.1;
    /// not in the paper). `None` (default) = no boost.
    pub rate_priority_boost: Option<f64>,
    /// Cap a window flow that reports a desired cwnd at desired_cwnd / last_rtt.
    /// Default on; greedy flows report none, which is the paper's behaviour.
    pub honour_desired_cwnd: bool,
    /// Which RTT converts between a window flow's cwnd and a rate. The paper (and its
    /// reference code) uses the newest sample, which includes any standing queue;
    /// `Minimum` uses the lowest sample seen in the group (a flowstate experiment, off by
    /// default; see docs/ALGORITHMS.md).
    pub cwnd_rtt: CwndRtt,
}

/// The RTT FSEv2 converts cwnd <-> rate with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CwndRtt {
    /// The newest non-zero sample (paper 000 section VII).
    #[default]
    Newest,
    /// The minimum sample seen in the group.
    Minimum,
}

impl Default for FseV2Config {
    fn default() -> Self {
        FseV2Config {
            rate_priority_boost: None,
            honour_desired_cwnd: true,
            cwnd_rtt: CwndRtt::Newest,
        }
    }
}

pub(crate) const FSE_V2_NAME: &str = "FSEv2";

#[derive(Debug, Clone)]
pub(crate) struct FseV2 {
    pub config: FseV2Config,
    /// The newest non-zero RTT sample of any window flow in the group.
    pub last_rtt: Option<TimeDelta>,
}

impl FseV2 {
    pub fn new(config: FseV2Config) -> Self {
        FseV2 {
            config,
            last_rtt: None,
        }
    }

    /// Remembers a window flow's RTT sample and converts its cwnd to CC_R.
    pub fn window_rate(&mut self, cwnd: DataSize, rtt_sample: Option<TimeDelta>) -> f64 {
        if let Some(rtt) = rtt_sample.filter(|r| r.is_positive()) {
            self.last_rtt = match (self.config.cwnd_rtt, self.last_rtt) {
                (CwndRtt::Minimum, Some(min)) => Some(min.min(rtt)),
                _ => Some(rtt),
            };
        }
        match self.last_rtt {
            Some(rtt) => (cwnd / rtt).as_bps(),
            None => 0.0,
        }
    }

    /// Alg. 6 for either kind of flow, with `cc_r` already converted.
    pub fn update(&self, group: &mut FlowGroup, idx: usize, cc_r: f64, out: &mut Vec<Allocation>) {
        let change = cc_r - group.flows[idx].fse_r;
        group.add_to_aggregate(change);
        let boost = self.config.rate_priority_boost.unwrap_or(1.0);
        let last_rtt = self.last_rtt;
        let honour = self.config.honour_desired_cwnd;
        // Window flows' caps depend on last_rtt only through a desired cwnd.
        let rtt_matters = honour
            && group
                .flows
                .iter()
                .any(|f| f.window.as_ref().is_some_and(|w| w.desired_cwnd.is_some()));
        let claim_key = match last_rtt {
            Some(rtt) if rtt_matters => rtt.as_micros().unsigned_abs() + 1,
            _ => 0,
        };
        let assigned = group.water_fill(claim_key, |f| match &f.window {
            None => Claim {
                priority: f.priority * boost,
                cap: f.desired_rate,
            },
            Some(w) => {
                let cap = match (w.desired_cwnd, last_rtt) {
                    (Some(desired), Some(rtt)) if honour => (desired / rtt).as_bps(),
                    _ => f64::INFINITY,
                };
                Claim {
                    priority: f.priority,
                    cap,
                }
            }
        });
        group.s_cr = assigned;
        for flow in group.flows.iter_mut() {
            let Some(window) = flow.window.as_mut() else {
                out.push(flow.rate_allocation());
                continue;
            };
            // Without any RTT sample there is no way to express the share as a cwnd;
            // such a flow keeps its own window until it reports one.
            let Some(rtt) = last_rtt else { continue };
            let rate = Bitrate::bps(flow.fse_r);
            let (cwnd, ssthresh) =
                window_allowance(rate, rtt, window.mtu, window.cwnd, window.ssthresh);
            window.cwnd = cwnd;
            if let Some(s) = ssthresh {
                window.ssthresh = s;
            }
            out.push(Allocation {
                flow: flow.id,
                rate,
                allowance: Allowance::Window { cwnd, ssthresh },
            });
        }
    }
}

/// Paper 000 VII-B2g: the cwnd to set for an allocated rate, and the ssthresh to set
/// with it (if any).
///
/// - cwnd = rate * rtt rounded DOWN to whole MTUs, never below one MTU (the reference
///   code could underflow here);
/// - if the flow is in congestion avoidance (cwnd > ssthresh) and the new cwnd <=
///   ssthresh, ssthresh = new cwnd - 1 MTU, so that the cut does not throw the flow
///   into slow start.
pub fn window_allowance(
    rate: Bitrate,
    rtt: TimeDelta,
    mtu: DataSize,
    current_cwnd: DataSize,
    current_ssthresh: DataSize,
) -> (DataSize, Option<DataSize>) {
    let cwnd = (rate * rtt).round_down_to(mtu).max(mtu);
    let in_congestion_avoidance = current_cwnd > current_ssthresh;
    let ssthresh = (in_congestion_avoidance && cwnd <= current_ssthresh).then(|| cwnd - mtu);
    (cwnd, ssthresh)
}
