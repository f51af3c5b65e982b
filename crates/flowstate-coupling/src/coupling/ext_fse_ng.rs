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
//!   if no rate flows or AllAppLimited():  S_CR += CC_R - PREV_R(f)
//!   PREV_R(f) = CC_R
//! ```
//!
//! PREV_R(f) is what Alg. 5 calls FSE_R(flow). The reference code (paper 000 ref. \[28\],
//! `FseNgV2::CwndFlowUpdate`) keeps it apart from the allocation: it subtracts the flow's
//! previous *report* (`HybridCwndFlow::GetPrevCwnd`), and Alg. 4's allocation to window
//! flows (line 11) only becomes CWND_max. S_CR therefore moves by the window flow's own
//! rate changes, which lets SCTP grow S_CR once every rate flow is at its DR (section
//! VI-B). The printed algorithms write one variable FSE_R(f) in both places, so Alg. 5
//! subtracts the allocation instead: a cwnd capped at FSE_R x RTT_base and divided by an
//! RTT >= RTT_base never reports more than FSE_R, and S_CR can then only shrink through
//! SCTP. `ExtendedFseNgConfig::subtract_previous_report` (default on) selects the
//! reference code; off gives the printed reading.
//!
//! Window updates do not trigger a redistribution; only rate-flow updates do.
//! Registration of a window flow counts as its first update (from a previous rate of 0).

use std::collections::BTreeMap;

use super::catalogue::{
    CheckedValue, MechanismInfo, OptionDefault, OptionInfo, OptionKind, RATE_AND_WINDOW,
};
use super::flow::FlowSpec;
use super::flow::{FlowId, RateReportMode};
use super::fse_ng::{count_change_twice_option, distribute_rate_led, min_rtt};
use super::fse_ng::{restore_initial_cap, restore_initial_caps};
use super::group::FlowEntry;
use super::group::FlowGroup;
use super::rules::{join_at_rate, CouplingRules, Out, Outcome, RateUpdate, WindowUpdate};
use crate::units::{DataSize, TimeDelta};

/// Options of Extended FSE-NG.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ExtendedFseNgConfig {
    /// Bring back FSE-NG's double-counted rate change (paper 000 VI-C removed it).
    /// Default off, as in the paper; on only for ablation studies.
    pub count_change_twice: bool,
    /// Alg. 5 line 6 subtracts the window flow's previous reported rate (the reference
    /// code, `FseNgV2::CwndFlowUpdate`). Default on. Off = the algorithms as printed,
    /// where FSE_R(flow) is also the allocation written by Alg. 4 line 11.
    pub subtract_previous_report: bool,
}

impl Default for ExtendedFseNgConfig {
    fn default() -> Self {
        ExtendedFseNgConfig {
            count_change_twice: false,
            subtract_previous_report: true,
        }
    }
}

pub(crate) const INFO: MechanismInfo = MechanismInfo {
    name: "ext-fse-ng",
    display_name: "Extended FSE-NG",
    aliases: &[],
    description: "FSE-NG whose window flows report cwnd / RTT and move S_CR while every rate flow is application-limited",
    source: "paper 000 section VI, Algs. 4-5",
    flow_kinds: RATE_AND_WINDOW,
    rate_report: RateReportMode::DelayBased,
    options: &[
        count_change_twice_option(false),
        OptionInfo {
            name: "subtract_previous_report",
            kind: OptionKind::Bool,
            default: OptionDefault::Bool(true),
            unit: None,
            description: "Alg. 5 line 6 subtracts the window flow's previous report (the reference code, FseNgV2::CwndFlowUpdate); off = the algorithms as printed, which subtract its allocation",
        },
    ],
};

impl ExtendedFseNgConfig {
    pub(crate) fn info(&self) -> &'static MechanismInfo {
        &INFO
    }

    /// Sets a declared option ([`INFO`]); false if there is no such field.
    pub(crate) fn set_option(&mut self, name: &str, value: CheckedValue) -> bool {
        match (name, value) {
            ("count_change_twice", CheckedValue::Bool(b)) => self.count_change_twice = b,
            ("subtract_previous_report", CheckedValue::Bool(b)) => {
                self.subtract_previous_report = b
            }
            _ => return false,
        }
        true
    }
}

#[derive(Debug, Clone)]
pub(crate) struct ExtendedFseNg {
    pub config: ExtendedFseNgConfig,
    /// The lowest RTT any window flow has reported.
    pub rtt_base: Option<TimeDelta>,
    /// PREV_R(f) in bit/s: each window flow's previous reported rate (used when
    /// `subtract_previous_report` is on).
    prev_report: BTreeMap<FlowId, f64>,
}

impl From<ExtendedFseNgConfig> for ExtendedFseNg {
    fn from(config: ExtendedFseNgConfig) -> Self {
        ExtendedFseNg {
            config,
            rtt_base: None,
            prev_report: BTreeMap::new(),
        }
    }
}

impl CouplingRules for ExtendedFseNg {
    fn register(&mut self, group: &mut FlowGroup, idx: usize, spec: &FlowSpec) {
        match spec {
            FlowSpec::Rate { initial_rate, .. } => join_at_rate(group, idx, initial_rate.as_bps()),
            FlowSpec::Window {
                initial_cwnd,
                initial_rtt,
                ..
            } => self.register_window(group, idx, *initial_cwnd, *initial_rtt),
        }
    }

    /// Alg. 4: S_CR += CC_R - FSE_R(f) (once), then the rate-led distribution. Rate
    /// flows send no RTT.
    fn rate_update(&mut self, group: &mut FlowGroup, u: RateUpdate, out: &mut Out) -> Outcome {
        let RateUpdate { idx, cc_r, .. } = u;
        let change = cc_r - group.flows[idx].fse_r;
        let twice = self.config.count_change_twice
            && group.has_window_flows()
            && !group.all_rate_flows_app_limited();
        group.add_to_aggregate(if twice { change + change } else { change });
        distribute_rate_led(group, self.rtt_base, out);
        Ok(())
    }

    fn window_update(&mut self, group: &mut FlowGroup, u: WindowUpdate, _out: &mut Out) {
        let WindowUpdate { idx, cwnd, rtt } = u;
        self.window_report(group, idx, cwnd, rtt);
    }

    /// As FSE-NG: window flows get their registration-time cap back when the last rate
    /// flow leaves.
    fn deregistered(&mut self, group: &mut FlowGroup, removed: &FlowEntry, out: &mut Out) {
        if removed.is_rate() {
            restore_initial_caps(group, out);
        }
    }

    /// A window flow capped in a group with rate flows keeps that cap when it moves;
    /// in a group without rate flows nothing would lift it (only rate-led
    /// redistributions cap), so it gets its registration-time cap back, as when the
    /// last rate flow leaves its group.
    fn moved_in(&mut self, group: &mut FlowGroup, moved: FlowId, out: &mut Out) {
        restore_initial_cap(group, moved, out);
    }
}

impl ExtendedFseNg {
    /// Registration of a window flow (section VI-D2a): its first update, from a previous
    /// rate of 0.
    pub fn register_window(
        &mut self,
        group: &mut FlowGroup,
        idx: usize,
        cwnd: DataSize,
        rtt_sample: Option<TimeDelta>,
    ) {
        self.prev_report.remove(&group.flows[idx].id);
        self.window_report(group, idx, cwnd, rtt_sample);
    }

    /// Alg. 5.
    pub fn window_report(
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
        let cc_r = cwnd_rate(cwnd, rtt);
        let id = group.flows[idx].id;
        let previous = if self.config.subtract_previous_report {
            self.prev_report.get(&id).copied().unwrap_or(0.0)
        } else {
            group.flows[idx].fse_r
        };
        if !group.has_rate_flows() || group.all_rate_flows_app_limited() {
            group.add_to_aggregate(cc_r - previous);
        }
        if self.config.subtract_previous_report {
            self.prev_report.insert(id, cc_r);
        } else {
            group.flows[idx].fse_r = cc_r;
        }
    }
}

/// Alg. 5 line 4 (typo fixed): CC_R = CC_CWND / last_rtt in bit/s; 0 without an RTT.
pub(crate) fn cwnd_rate(cwnd: DataSize, rtt: Option<TimeDelta>) -> f64 {
    match rtt.filter(|r| r.is_positive()) {
        Some(rtt) => (cwnd / rtt).as_bps(),
        None => 0.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::coupling::flow::Allowance;
    use crate::coupling::group::{FlowEntry, WindowState};
    use crate::units::Bitrate;
    use crate::units::Timestamp;

    const MTU: DataSize = DataSize::bytes(1200);

    fn ms(v: i64) -> TimeDelta {
        TimeDelta::millis(v)
    }

    fn rate_entry(id: u64, fse_r: f64, desired: f64) -> FlowEntry {
        FlowEntry {
            id: FlowId(id),
            priority: 1.0,
            desired_rate: desired,
            fse_r,
            window: None,
        }
    }

    fn window_entry(id: u64) -> FlowEntry {
        FlowEntry {
            id: FlowId(id),
            priority: 1.0,
            desired_rate: f64::INFINITY,
            fse_r: 0.0,
            window: Some(WindowState {
                mtu: MTU,
                initial_max_cwnd: None,
                cwnd: MTU,
                ssthresh: DataSize::bytes(1_000_000),
                desired_cwnd: None,
                last_rtt: None,
            }),
        }
    }

    /// A group of GCC (index 0, registered with `gcc_rate`, DR `dr`) and SCTP (index 1).
    fn group(gcc_rate: f64, dr: f64) -> FlowGroup {
        let mut g = FlowGroup::new();
        g.flows.push(rate_entry(0, gcc_rate, dr));
        g.flows.push(window_entry(1));
        g.add_to_aggregate(gcc_rate);
        g
    }

    /// What the manager does before Alg. 5: remember the flow's newest RTT sample.
    fn report(ext: &mut ExtendedFseNg, g: &mut FlowGroup, cwnd: u64, rtt_ms: i64) {
        g.flows[1].window.as_mut().unwrap().last_rtt = Some(ms(rtt_ms));
        ext.window_report(g, 1, DataSize::bytes(cwnd), Some(ms(rtt_ms)));
    }

    /// Alg. 4 for the GCC flow (index 0) reporting `cc_r`.
    fn rate(ext: &mut ExtendedFseNg, g: &mut FlowGroup, cc_r: f64, out: &mut Out) {
        let u = RateUpdate {
            now: Timestamp::ZERO,
            idx: 0,
            cc_r,
            rtt: None,
        };
        ext.rate_update(g, u, out).unwrap();
    }

    fn close(a: f64, b: f64) {
        assert!((a - b).abs() < 1e-6 * b.abs().max(1.0), "{a} != {b}");
    }

    #[test]
    fn cc_r_is_cwnd_over_the_flows_newest_rtt_sample() {
        // Alg. 5 line 4 with the typo fixed: 12 000 B * 8 / 0.1 s = 960 kbit/s.
        close(cwnd_rate(DataSize::bytes(12_000), Some(ms(100))), 960_000.0);
        close(cwnd_rate(DataSize::bytes(12_000), Some(ms(200))), 480_000.0);
        assert_eq!(cwnd_rate(DataSize::bytes(12_000), None), 0.0);
        assert_eq!(cwnd_rate(DataSize::bytes(12_000), Some(ms(0))), 0.0);

        // The newest sample converts, not RTT_base (the minimum).
        let mut ext = ExtendedFseNg::from(ExtendedFseNgConfig::default());
        let mut g = group(1e6, 1e6);
        report(&mut ext, &mut g, 12_000, 100);
        report(&mut ext, &mut g, 12_000, 200);
        assert_eq!(ext.rtt_base, Some(ms(100)));
        close(ext.prev_report[&FlowId(1)], 480_000.0);
    }

    #[test]
    fn rtt_base_is_the_minimum_window_flow_sample() {
        let mut ext = ExtendedFseNg::from(ExtendedFseNgConfig::default());
        let mut g = group(1e6, 1e6);
        report(&mut ext, &mut g, 12_000, 150);
        report(&mut ext, &mut g, 12_000, 120);
        report(&mut ext, &mut g, 12_000, 300);
        assert_eq!(ext.rtt_base, Some(ms(120)));
        // Alg. 4 line 12: CWND_max = FSE_R * RTT_base. S_CR = 1 Mbit/s + SCTP's own
        // changes (GCC app-limited at 1 Mbit/s = DR): 1e6 + 12 000 B / 300 ms.
        let mut out = Vec::new();
        rate(&mut ext, &mut g, 1e6, &mut out);
        close(g.s_cr, 1e6 + 320_000.0);
        // Equal priorities: each gets S_CR / 2 = 660 kbit/s; 660 kbit/s x 120 ms = 9 900 B.
        close(out[1].rate.as_bps(), 660_000.0);
        assert_eq!(
            out[1].allowance,
            Allowance::MaxWindow(Some(Bitrate::bps(660_000.0) * ms(120)))
        );
        assert_eq!(
            out[1].allowance,
            Allowance::MaxWindow(Some(DataSize::bytes(9_900)))
        );
    }

    #[test]
    fn window_changes_count_only_when_every_rate_flow_is_app_limited() {
        let mut ext = ExtendedFseNg::from(ExtendedFseNgConfig::default());
        // GCC at 1 Mbit/s with DR 2 Mbit/s: wants more, SCTP changes are ignored.
        let mut g = group(1e6, 2e6);
        report(&mut ext, &mut g, 12_000, 100);
        report(&mut ext, &mut g, 24_000, 100);
        close(g.s_cr, 1e6);
        // ... but remembered: once GCC is at its DR, only changes from here count.
        g.flows[0].desired_rate = 1e6;
        report(&mut ext, &mut g, 36_000, 100);
        close(g.s_cr, 1e6 + 2.88e6 - 1.92e6);
        // Without rate flows every change counts.
        let mut alone = FlowGroup::new();
        alone.flows.push(window_entry(1));
        let mut ext = ExtendedFseNg::from(ExtendedFseNgConfig::default());
        ext.register_window(&mut alone, 0, DataSize::bytes(12_000), Some(ms(100)));
        close(alone.s_cr, 960_000.0);
    }

    #[test]
    fn subtracts_the_previous_report_not_the_allocation() {
        // Reference code: S_CR += CC_R - PREV_R(f). GCC app-limited at DR = 1 Mbit/s.
        let mut ext = ExtendedFseNg::from(ExtendedFseNgConfig::default());
        let mut g = group(1e6, 1e6);
        ext.register_window(&mut g, 1, DataSize::bytes(12_000), Some(ms(100)));
        close(g.s_cr, 1.96e6);
        let mut out = Vec::new();
        rate(&mut ext, &mut g, 1.1e6, &mut out); // GCC +0.1: S_CR 2.06
        close(g.flows[1].fse_r, 1.06e6); // SCTP's allocation
                                         // SCTP grows by one MTU: 13 200 B / 100 ms = 1.056 Mbit/s (< its 1.06 share).
        report(&mut ext, &mut g, 13_200, 100);
        close(g.s_cr, 2.06e6 + 1.056e6 - 0.96e6);
        // The allocation is left as Alg. 4 set it.
        close(g.flows[1].fse_r, 1.06e6);
    }

    #[test]
    fn printed_reading_subtracts_the_allocation() {
        let config = ExtendedFseNgConfig {
            subtract_previous_report: false,
            ..Default::default()
        };
        let mut ext = ExtendedFseNg::from(config);
        let mut g = group(1e6, 1e6);
        ext.register_window(&mut g, 1, DataSize::bytes(12_000), Some(ms(100)));
        let mut out = Vec::new();
        rate(&mut ext, &mut g, 1.1e6, &mut out);
        close(g.flows[1].fse_r, 1.06e6);
        // The cap CWND_max = 1.06 Mbit/s x 100 ms; a capped cwnd over RTT >= RTT_base
        // reports at most the allocation, so S_CR can only shrink.
        report(&mut ext, &mut g, 13_200, 100);
        close(g.s_cr, 2.06e6 + 1.056e6 - 1.06e6);
        close(g.flows[1].fse_r, 1.056e6);
    }

    #[test]
    fn re_registration_starts_from_zero() {
        let mut ext = ExtendedFseNg::from(ExtendedFseNgConfig::default());
        let mut alone = FlowGroup::new();
        alone.flows.push(window_entry(1));
        ext.register_window(&mut alone, 0, DataSize::bytes(12_000), Some(ms(100)));
        ext.register_window(&mut alone, 0, DataSize::bytes(12_000), Some(ms(100)));
        close(alone.s_cr, 2.0 * 960_000.0);
    }

    #[test]
    fn rate_change_is_counted_once_unless_asked_twice() {
        let mut ext = ExtendedFseNg::from(ExtendedFseNgConfig::default());
        let mut g = group(1e6, 2e6);
        let mut out = Vec::new();
        rate(&mut ext, &mut g, 1.3e6, &mut out);
        close(g.s_cr, 1.3e6);
        let config = ExtendedFseNgConfig {
            count_change_twice: true,
            ..Default::default()
        };
        let mut ext = ExtendedFseNg::from(config);
        let mut g = group(1e6, 2e6);
        rate(&mut ext, &mut g, 1.3e6, &mut out);
        close(g.s_cr, 1.6e6);
    }
}
