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

use super::catalogue::{
    CheckedValue, MechanismInfo, OptionDefault, OptionInfo, OptionKind, RATE_AND_WINDOW,
};
use super::flow::FlowSpec;
use super::flow::{Allocation, Allowance, RateReportMode};
use super::group::FlowGroup;
use super::rules::{join_at_rate, CouplingRules, Out, Outcome, RateUpdate, WindowUpdate};
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
    /// What happens to the part of a window flow's share that rounding its cwnd down to
    /// whole MTUs cuts off. `true`: the window flow's FSE_R becomes the rate
    /// its rounded cwnd carries and the remainder goes to the group's rate flows (by
    /// priority, up to their DR), so S_CR stays the sum of what the flows can use.
    /// `false` (default): the paper as written: FSE_R keeps the unrounded share, and the next
    /// report of the window flow takes the cut-off part out of S_CR, a ratchet that can
    /// pin the aggregate below the capacity (docs/ALGORITHMS.md, "FSEv2 rounding").
    pub give_rounding_to_rate_flows: bool,
    /// How a rate flow's decrease moves S_CR. `false` (default, the paper): by the
    /// difference, S_CR += CC_R - FSE_R, so a GCC flow holding half the aggregate that
    /// cuts its rate by 15 % cuts the aggregate by 7.5 %. `true`: by the same factor,
    /// S_CR *= CC_R / FSE_R: a delay-based decrease of one rate flow is taken as a
    /// congestion signal for the whole group, as if every flow had seen it
    /// (docs/ALGORITHMS.md, "FSEv2 standing queue").
    pub proportional_rate_decrease: bool,
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
            give_rounding_to_rate_flows: false,
            proportional_rate_decrease: false,
        }
    }
}

pub(crate) const INFO: MechanismInfo = MechanismInfo {
    name: "fsev2",
    display_name: "FSEv2",
    aliases: &["fse-v2"],
    description: "rate and window flows both active and treated alike: a window flow's cwnd / RTT is its rate, and it gets its share back as a cwnd",
    source: "paper 000 section VII, Alg. 6",
    flow_kinds: RATE_AND_WINDOW,
    rate_report: RateReportMode::Target,
    options: &[
        OptionInfo {
            name: "rate_priority_boost",
            kind: OptionKind::Positive,
            default: OptionDefault::Unset,
            unit: Some("factor"),
            description: "multiply rate flows' priorities by this factor (the reference code used 1.1; not in the paper; unset = no boost)",
        },
        OptionInfo {
            name: "honour_desired_cwnd",
            kind: OptionKind::Bool,
            default: OptionDefault::Bool(true),
            unit: None,
            description: "cap a window flow that reports a desired cwnd at desired_cwnd / last_rtt (greedy flows report none: the paper's behaviour)",
        },
        OptionInfo {
            name: "cwnd_rtt",
            kind: OptionKind::Choice(&["newest", "minimum"]),
            default: OptionDefault::Text("newest"),
            unit: None,
            description: "the RTT that converts cwnd <-> rate: 'newest' sample (the paper) or the group's 'minimum' (a flowstate experiment)",
        },
        OptionInfo {
            name: "give_rounding_to_rate_flows",
            kind: OptionKind::Bool,
            default: OptionDefault::Bool(false),
            unit: None,
            description: "the part of a window flow's share cut off by rounding its cwnd to whole MTUs goes to the rate flows (off = the paper, a ratchet on S_CR)",
        },
        OptionInfo {
            name: "proportional_rate_decrease",
            kind: OptionKind::Bool,
            default: OptionDefault::Bool(false),
            unit: None,
            description: "a rate flow's decrease scales S_CR by CC_R / FSE_R instead of subtracting the difference (off = the paper)",
        },
    ],
};

impl FseV2Config {
    pub(crate) fn info(&self) -> &'static MechanismInfo {
        &INFO
    }

    /// Sets a declared option ([`INFO`]); false if there is no such field.
    pub(crate) fn set_option(&mut self, name: &str, value: CheckedValue) -> bool {
        match (name, value) {
            ("rate_priority_boost", CheckedValue::Positive(n)) => {
                self.rate_priority_boost = Some(n)
            }
            ("honour_desired_cwnd", CheckedValue::Bool(b)) => self.honour_desired_cwnd = b,
            ("cwnd_rtt", CheckedValue::Choice("newest")) => self.cwnd_rtt = CwndRtt::Newest,
            ("cwnd_rtt", CheckedValue::Choice("minimum")) => self.cwnd_rtt = CwndRtt::Minimum,
            ("give_rounding_to_rate_flows", CheckedValue::Bool(b)) => {
                self.give_rounding_to_rate_flows = b
            }
            ("proportional_rate_decrease", CheckedValue::Bool(b)) => {
                self.proportional_rate_decrease = b
            }
            _ => return false,
        }
        true
    }
}

#[derive(Debug, Clone)]
pub(crate) struct FseV2 {
    pub config: FseV2Config,
    /// The newest non-zero RTT sample of any window flow in the group.
    pub last_rtt: Option<TimeDelta>,
}

impl From<FseV2Config> for FseV2 {
    fn from(config: FseV2Config) -> Self {
        FseV2 {
            config,
            last_rtt: None,
        }
    }
}

impl CouplingRules for FseV2 {
    /// A window flow joins with CC_R = initial cwnd / initial RTT, added to S_CR
    /// (paper 000 VII-B2b).
    fn register(&mut self, group: &mut FlowGroup, idx: usize, spec: &FlowSpec) {
        let cc_r = match spec {
            FlowSpec::Rate { initial_rate, .. } => initial_rate.as_bps(),
            FlowSpec::Window {
                initial_cwnd,
                initial_rtt,
                ..
            } => self.window_rate(*initial_cwnd, *initial_rtt),
        };
        join_at_rate(group, idx, cc_r);
    }

    fn rate_update(&mut self, group: &mut FlowGroup, u: RateUpdate, out: &mut Out) -> Outcome {
        let RateUpdate { idx, cc_r, .. } = u;
        self.update(group, idx, cc_r, out);
        Ok(())
    }

    /// A window flow's CC_R = cwnd / last_rtt, then Alg. 6 as for a rate flow.
    fn window_update(&mut self, group: &mut FlowGroup, u: WindowUpdate, out: &mut Out) {
        let WindowUpdate { idx, cwnd, rtt } = u;
        let cc_r = self.window_rate(cwnd, rtt);
        self.update(group, idx, cc_r, out);
    }
}

impl FseV2 {
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
        let previous = group.flows[idx].fse_r;
        let change = if self.config.proportional_rate_decrease
            && group.flows[idx].window.is_none()
            && cc_r < previous
            && previous > 0.0
        {
            group.s_cr * (cc_r / previous - 1.0)
        } else {
            cc_r - previous
        };
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
        let mut allowances = Vec::new();
        let mut remainder = 0.0;
        if let Some(rtt) = last_rtt {
            for (i, flow) in group.flows.iter_mut().enumerate() {
                let Some(window) = flow.window.as_mut() else {
                    continue;
                };
                let (cwnd, ssthresh) = window_allowance(
                    Bitrate::bps(flow.fse_r),
                    rtt,
                    window.mtu,
                    window.cwnd,
                    window.ssthresh,
                );
                window.cwnd = cwnd;
                if let Some(s) = ssthresh {
                    window.ssthresh = s;
                }
                if self.config.give_rounding_to_rate_flows {
                    let carried = (cwnd / rtt).as_bps();
                    remainder += flow.fse_r - carried;
                    flow.fse_r = carried;
                }
                allowances.push((i, cwnd, ssthresh));
            }
        }
        if remainder != 0.0 {
            let left = give_to_rate_flows(group, remainder, boost);
            // What the rate flows cannot take (all at their DR, or none) stays with the
            // window flows' FSE_R, as in the paper.
            if left != 0.0 {
                let windows = allowances.len() as f64;
                for &(i, _, _) in &allowances {
                    let f = &mut group.flows[i];
                    f.fse_r = (f.fse_r + left / windows).max(0.0);
                }
            }
            group.s_cr = group.flows.iter().map(|f| f.fse_r).sum();
        }
        let mut windows = allowances.into_iter().peekable();
        for (i, flow) in group.flows.iter().enumerate() {
            if flow.window.is_none() {
                out.push(flow.rate_allocation());
                continue;
            }
            if let Some((_, cwnd, ssthresh)) = windows.next_if(|&(w, _, _)| w == i) {
                out.push(Allocation {
                    flow: flow.id,
                    rate: Bitrate::bps(flow.fse_r),
                    allowance: Allowance::Window { cwnd, ssthresh },
                });
            }
        }
    }
}

/// Spread `amount` (bit/s; negative takes away) over the rate flows of `group` by
/// priority, each kept within [0, DR]. Returns what could not be placed.
fn give_to_rate_flows(group: &mut FlowGroup, amount: f64, boost: f64) -> f64 {
    let mut left = amount;
    // A few passes suffice: each pass either places everything or saturates a flow.
    for _ in 0..group.flows.len().max(1) {
        let open = |f: &super::group::FlowEntry| {
            f.window.is_none()
                && if left > 0.0 {
                    f.fse_r < f.desired_rate
                } else {
                    f.fse_r > 0.0
                }
        };
        let total_priority: f64 = group
            .flows
            .iter()
            .filter(|f| open(f))
            .map(|f| f.priority * boost)
            .sum();
        if total_priority <= 0.0 || left.abs() < 1e-9 {
            break;
        }
        let mut placed = 0.0;
        for f in group.flows.iter_mut() {
            if !open(f) {
                continue;
            }
            let want = left * f.priority * boost / total_priority;
            let new = (f.fse_r + want).clamp(0.0, f.desired_rate);
            placed += new - f.fse_r;
            f.fse_r = new;
        }
        left -= placed;
    }
    if left.abs() < 1e-9 {
        0.0
    } else {
        left
    }
}

/// FSE_CWND = FSE_R x last_rtt (paper 000 Alg. 6 line 37), in whole bytes rounded to
/// the nearest byte, as the reference code's WebRTC units compute it (`DataRate *
/// TimeDelta` = (bps x us + 4e6) / 8e6). Truncating instead turns the floating-point
/// round trip cwnd -> cwnd / rtt -> x rtt into cwnd - 1 byte about one time in eight,
/// which the rounding down to whole MTUs then turns into a lost MTU: a lone window
/// flow's own report shrank its cwnd (the p000-fig20 stall at ~0.57 Mbit/s).
pub fn fse_cwnd_bytes(rate: Bitrate, rtt: TimeDelta) -> DataSize {
    let micros = rtt.as_micros().max(0) as f64;
    let bytes = (rate.as_bps() * micros / 8e6).round();
    if bytes.is_nan() || bytes <= 0.0 {
        DataSize::ZERO
    } else {
        // `as` saturates at u64::MAX for infinite values.
        DataSize::bytes(bytes as u64)
    }
}

/// The cwnd (and ssthresh, if it must change) FSEv2 hands a window flow: FSE_CWND
/// rounded down to whole MTUs, at least one MTU; ssthresh = cwnd - 1 MTU when the flow
/// is in congestion avoidance and the new cwnd would put it into slow start (paper 000
/// section VII-B2g).
pub fn window_allowance(
    rate: Bitrate,
    rtt: TimeDelta,
    mtu: DataSize,
    current_cwnd: DataSize,
    current_ssthresh: DataSize,
) -> (DataSize, Option<DataSize>) {
    let cwnd = fse_cwnd_bytes(rate, rtt).round_down_to(mtu).max(mtu);
    let in_congestion_avoidance = current_cwnd > current_ssthresh;
    let ssthresh = (in_congestion_avoidance && cwnd <= current_ssthresh).then(|| cwnd - mtu);
    (cwnd, ssthresh)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MTU: DataSize = DataSize::bytes(1200);

    /// A lone window flow's own report must come back unchanged: cwnd -> cwnd / rtt ->
    /// x rtt is exact to the byte (WebRTC units round to the nearest byte). With
    /// truncation 7 671 of these 59 899 cases lost one MTU (the p000-fig20 ratchet).
    #[test]
    fn cwnd_rate_cwnd_round_trip_keeps_whole_mtus() {
        for mtus in 1..200u64 {
            let cwnd = MTU * mtus;
            for rtt_us in (100_000..400_000).step_by(997) {
                let rtt = TimeDelta::from_micros(rtt_us);
                let rate = cwnd / rtt;
                assert_eq!(fse_cwnd_bytes(rate, rtt), cwnd, "{cwnd:?} at {rtt_us} us");
                let (back, ssthresh) = window_allowance(rate, rtt, MTU, cwnd, cwnd);
                assert_eq!(back, cwnd);
                assert_eq!(ssthresh, None);
            }
        }
    }

    #[test]
    fn fse_cwnd_rounds_to_the_nearest_byte() {
        let rtt = TimeDelta::millis(100);
        // 1 000 bit/s x 100 ms = 12.5 B -> 13 B; 996 bit/s -> 12.45 B -> 12 B.
        assert_eq!(
            fse_cwnd_bytes(Bitrate::bps(1000.0), rtt),
            DataSize::bytes(13)
        );
        assert_eq!(
            fse_cwnd_bytes(Bitrate::bps(996.0), rtt),
            DataSize::bytes(12)
        );
        assert_eq!(fse_cwnd_bytes(Bitrate::bps(-5.0), rtt), DataSize::ZERO);
        assert_eq!(fse_cwnd_bytes(Bitrate::bps(f64::NAN), rtt), DataSize::ZERO);
        // Still whole MTUs below: 1 199.6 B -> 1 200 B -> one MTU; 2 399 B -> one MTU.
        let (c, _) = window_allowance(Bitrate::bps(95_968.0), rtt, MTU, MTU * 8, MTU * 4);
        assert_eq!(c, MTU);
        let (c, _) = window_allowance(Bitrate::bps(191_920.0), rtt, MTU, MTU * 8, MTU * 4);
        assert_eq!(c, MTU);
    }
}
