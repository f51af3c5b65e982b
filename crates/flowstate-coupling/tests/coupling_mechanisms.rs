//! Each mechanism's S_CR over scripted update sequences, computed by hand from the
//! papers' pseudo-code.

use flowstate_coupling::coupling::{
    Allocation, Allowance, ConservativeConfig, CouplingManager, DeregisterPolicy,
    ExtendedFseNgConfig, FlowId, FlowReport, FlowSpec, FseNgConfig, FseV2Config, GroupKey,
    Mechanism,
};
use flowstate_coupling::{Bitrate, DataSize, TimeDelta, Timestamp};

const G: GroupKey = GroupKey(1);
const MTU: DataSize = DataSize::bytes(1200);
const T0: Timestamp = Timestamp::ZERO;

fn rate_flow(priority: f64, initial_mbps: f64, desired_mbps: Option<f64>) -> FlowSpec {
    FlowSpec::Rate {
        priority,
        initial_rate: Bitrate::mbps(initial_mbps),
        desired_rate: desired_mbps.map(Bitrate::mbps),
    }
}

fn window_flow(cwnd: u64, rtt_ms: i64, initial_max_cwnd: Option<u64>) -> FlowSpec {
    FlowSpec::Window {
        priority: 1.0,
        initial_cwnd: DataSize::bytes(cwnd),
        initial_rtt: Some(TimeDelta::millis(rtt_ms)),
        initial_max_cwnd: initial_max_cwnd.map(DataSize::bytes),
        mtu: MTU,
    }
}

fn rate(mbps: f64, rtt_ms: i64) -> FlowReport {
    FlowReport::Rate {
        rate: Bitrate::mbps(mbps),
        rtt: Some(TimeDelta::millis(rtt_ms)),
    }
}

fn window(cwnd: u64, rtt_ms: i64, ssthresh: u64) -> FlowReport {
    FlowReport::Window {
        cwnd: DataSize::bytes(cwnd),
        rtt: Some(TimeDelta::millis(rtt_ms)),
        ssthresh: DataSize::bytes(ssthresh),
        desired_cwnd: None,
    }
}

fn s_cr(m: &CouplingManager) -> f64 {
    m.aggregate(G).map(|r| r.as_mbps()).unwrap_or(0.0)
}

fn find(allocations: &[Allocation], flow: FlowId) -> Allocation {
    *allocations
        .iter()
        .find(|a| a.flow == flow)
        .expect("flow has an allocation")
}

fn assert_close(actual: f64, expected: f64) {
    assert!(
        (actual - expected).abs() < 1e-9,
        "expected {expected}, got {actual}"
    );
}

// ---------------------------------------------------------------- FSE-NG

fn fse_ng(count_twice: bool) -> CouplingManager {
    CouplingManager::new(Mechanism::FseNg(FseNgConfig {
        count_change_twice: count_twice,
    }))
}

#[test]
fn fse_ng_counts_a_rate_change_twice_while_sctp_is_present() {
    let mut m = fse_ng(true);
    let gcc = m.register(G, rate_flow(1.0, 1.0, None)).unwrap();
    let sctp = m.register(G, window_flow(12_000, 100, None)).unwrap();
    assert_close(s_cr(&m), 1.0); // SCTP registration leaves S_CR alone.
                                 // change = 1.2 - 1.0 = 0.2, counted twice: S_CR = 1.4.
    let alloc = m.update(T0, gcc, rate(1.2, 100)).unwrap().to_vec();
    assert_close(s_cr(&m), 1.4);
    assert_close(find(&alloc, gcc).rate.as_mbps(), 0.7);
    assert_close(find(&alloc, sctp).rate.as_mbps(), 0.7);
    // CWND_max = 0.7 Mbit/s * 100 ms = 8 750 bytes.
    assert_eq!(
        find(&alloc, sctp).allowance,
        Allowance::MaxWindow(Some(DataSize::bytes(8_750)))
    );
    // Next: 0.8 against FSE_R 0.7: +0.1 twice -> 1.6.
    m.update(T0, gcc, rate(0.8, 100)).unwrap();
    assert_close(s_cr(&m), 1.6);
}

#[test]
fn fse_ng_counts_once_when_the_option_is_off() {
    let mut m = fse_ng(false);
    let gcc = m.register(G, rate_flow(1.0, 1.0, None)).unwrap();
    m.register(G, window_flow(12_000, 100, None)).unwrap();
    m.update(T0, gcc, rate(1.2, 100)).unwrap();
    assert_close(s_cr(&m), 1.2);
}

#[test]
fn fse_ng_counts_once_without_sctp_and_drops_excess() {
    // No window flows: S_CR += change once, then S_CR = sum of rate allocations.
    let mut m = fse_ng(true);
    let gcc = m.register(G, rate_flow(1.0, 0.3, Some(0.5))).unwrap();
    let alloc = m.update(T0, gcc, rate(1.0, 100)).unwrap().to_vec();
    assert_close(find(&alloc, gcc).rate.as_mbps(), 0.5);
    assert_close(s_cr(&m), 0.5);
}

#[test]
fn fse_ng_counts_once_when_all_rate_flows_are_app_limited() {
    let mut m = fse_ng(true);
    // FSE_R = 0.5 >= DR = 0.5: app-limited.
    let gcc = m.register(G, rate_flow(1.0, 0.5, Some(0.5))).unwrap();
    m.register(G, window_flow(12_000, 100, None)).unwrap();
    m.update(T0, gcc, rate(0.6, 100)).unwrap();
    assert_close(s_cr(&m), 0.6);
}

#[test]
fn fse_ng_rtt_base_is_the_minimum_rtt_of_rate_flows() {
    let mut m = fse_ng(false);
    let gcc = m.register(G, rate_flow(1.0, 1.0, None)).unwrap();
    let sctp = m.register(G, window_flow(12_000, 10, None)).unwrap();
    // GCC's default 200 ms RTT first (the start-up spike of paper 000 Fig. 11).
    let alloc = m.update(T0, gcc, rate(1.0, 200)).unwrap().to_vec();
    // SCTP share 0.5 Mbit/s * 200 ms = 12 500 B.
    assert_eq!(
        find(&alloc, sctp).allowance,
        Allowance::MaxWindow(Some(DataSize::bytes(12_500)))
    );
    // GCC now reports its allocation (0.5) back, so S_CR stays 1.0; RTT_base = 100 ms.
    m.update(T0, gcc, rate(0.5, 100)).unwrap();
    let alloc = m.update(T0, gcc, rate(0.5, 150)).unwrap().to_vec();
    assert_close(s_cr(&m), 1.0);
    assert_eq!(
        find(&alloc, sctp).allowance,
        Allowance::MaxWindow(Some(DataSize::bytes(6_250)))
    );
}

#[test]
fn fse_ng_sctp_updates_change_nothing() {
    let mut m = fse_ng(true);
    let gcc = m.register(G, rate_flow(1.0, 1.0, None)).unwrap();
    let sctp = m.register(G, window_flow(12_000, 100, None)).unwrap();
    m.update(T0, gcc, rate(1.0, 100)).unwrap();
    let before = s_cr(&m);
    let alloc = m.update(T0, sctp, window(120_000, 50, 60_000)).unwrap();
    assert!(alloc.is_empty());
    assert_close(s_cr(&m), before);
}

#[test]
fn fse_ng_resets_sctp_caps_when_the_last_rate_flow_leaves() {
    let mut m = fse_ng(true);
    let g1 = m.register(G, rate_flow(1.0, 1.0, None)).unwrap();
    let g2 = m.register(G, rate_flow(1.0, 1.0, None)).unwrap();
    let sctp = m
        .register(G, window_flow(12_000, 100, Some(64_000)))
        .unwrap();
    m.update(T0, g1, rate(1.0, 100)).unwrap();
    assert!(
        m.deregister(g1).unwrap().is_empty(),
        "a rate flow remains: no reset"
    );
    let alloc = m.deregister(g2).unwrap().to_vec();
    assert_eq!(alloc.len(), 1);
    assert_eq!(
        find(&alloc, sctp).allowance,
        Allowance::MaxWindow(Some(DataSize::bytes(64_000)))
    );
}

#[test]
fn fse_ng_max_cwnd_never_below_one_mtu() {
    let mut m = fse_ng(false);
    let gcc = m.register(G, rate_flow(1.0, 0.001, None)).unwrap();
    let sctp = m.register(G, window_flow(12_000, 100, None)).unwrap();
    let alloc = m.update(T0, gcc, rate(0.001, 10)).unwrap().to_vec();
    assert_eq!(
        find(&alloc, sctp).allowance,
        Allowance::MaxWindow(Some(MTU))
    );
}

// ---------------------------------------------------------------- Extended FSE-NG

fn ext() -> CouplingManager {
    CouplingManager::new(Mechanism::ExtendedFseNg(ExtendedFseNgConfig::default()))
}

#[test]
fn ext_fse_ng_sctp_alone_drives_the_aggregate() {
    let mut m = ext();
    // 12 000 B / 100 ms = 0.96 Mbit/s, added at registration (no rate flows).
    let sctp = m.register(G, window_flow(12_000, 100, None)).unwrap();
    assert_close(s_cr(&m), 0.96);
    // cwnd / its RTT sample (Alg. 5 line 4 with the typo fixed): 24 000 B / 100 ms.
    let alloc = m.update(T0, sctp, window(24_000, 100, 1_000_000)).unwrap();
    assert!(alloc.is_empty(), "SCTP updates trigger no redistribution");
    assert_close(s_cr(&m), 1.92);
}

#[test]
fn ext_fse_ng_ignores_sctp_changes_while_a_rate_flow_wants_more() {
    let mut m = ext();
    let gcc = m.register(G, rate_flow(1.0, 1.0, None)).unwrap();
    let sctp = m.register(G, window_flow(12_000, 100, None)).unwrap();
    assert_close(s_cr(&m), 1.0);
    m.update(T0, sctp, window(24_000, 100, 1_000_000)).unwrap();
    assert_close(s_cr(&m), 1.0);
    // The rate change is counted once: 1.0 + (1.3 - 1.0) = 1.3.
    m.update(T0, gcc, rate(1.3, 100)).unwrap();
    assert_close(s_cr(&m), 1.3);
}

#[test]
fn ext_fse_ng_adds_sctp_changes_when_every_rate_flow_is_app_limited() {
    let mut m = ext();
    let gcc = m.register(G, rate_flow(1.0, 0.5, Some(0.5))).unwrap();
    let sctp = m.register(G, window_flow(12_000, 100, None)).unwrap();
    // GCC app-limited at registration: SCTP's 0.96 Mbit/s counts.
    assert_close(s_cr(&m), 1.46);
    // GCC update keeps S_CR, gives GCC min(P*S_CR/S_P, DR) = 0.5, SCTP 0.96.
    let alloc = m.update(T0, gcc, rate(0.5, 100)).unwrap().to_vec();
    assert_close(find(&alloc, gcc).rate.as_mbps(), 0.5);
    assert_close(find(&alloc, sctp).rate.as_mbps(), 0.96);
    // SCTP grows to 36 000 B / 100 ms = 2.88: S_CR += 2.88 - 0.96.
    m.update(T0, sctp, window(36_000, 100, 1_000_000)).unwrap();
    assert_close(s_cr(&m), 1.46 + 2.88 - 0.96);
    // RTT_base comes from SCTP: the cap is FSE_R * min SCTP RTT (100 ms).
    let alloc = m.update(T0, gcc, rate(0.5, 300)).unwrap().to_vec();
    let share = find(&alloc, sctp).rate;
    assert_eq!(
        find(&alloc, sctp).allowance,
        Allowance::MaxWindow(Some(share * TimeDelta::millis(100)))
    );
}

// ---------------------------------------------------------------- FSEv2

fn fsev2() -> CouplingManager {
    CouplingManager::new(Mechanism::FseV2(FseV2Config::default()))
}

#[test]
fn fsev2_sums_both_kinds_and_resets_the_aggregate() {
    let mut m = fsev2();
    let gcc = m.register(G, rate_flow(1.0, 1.0, None)).unwrap();
    let sctp = m.register(G, window_flow(24_000, 100, None)).unwrap();
    assert_close(s_cr(&m), 2.92); // 1 + 24 000 B / 100 ms
                                  // SCTP reports 36 000 B (2.88 Mbit/s) against FSE_R 1.92: S_CR = 3.88, halves.
    let alloc = m
        .update(T0, sctp, window(36_000, 100, 12_000))
        .unwrap()
        .to_vec();
    assert_close(s_cr(&m), 3.88);
    assert_close(find(&alloc, gcc).rate.as_mbps(), 1.94);
    // 1.94 Mbit/s * 100 ms = 24 250 B -> 24 000 B; CA (36 000 > 12 000), 24 000 > 12 000.
    assert_eq!(
        find(&alloc, sctp).allowance,
        Allowance::Window {
            cwnd: DataSize::bytes(24_000),
            ssthresh: None
        }
    );
}

#[test]
fn fsev2_ssthresh_rule_keeps_sctp_out_of_slow_start() {
    let mut m = fsev2();
    let gcc = m.register(G, rate_flow(1.0, 1.0, None)).unwrap();
    let sctp = m.register(G, window_flow(24_000, 100, None)).unwrap();
    // SCTP in congestion avoidance: cwnd 30 000 > ssthresh 20 000.
    m.update(T0, sctp, window(30_000, 100, 20_000)).unwrap();
    // GCC drops to 0.1: S_CR shrinks; SCTP gets (S_CR/2) * 100 ms.
    let alloc = m.update(T0, gcc, rate(0.1, 100)).unwrap().to_vec();
    let total = s_cr(&m);
    let expected = DataSize::bytes((total / 2.0 * 1e6 * 0.1 / 8.0) as u64).round_down_to(MTU);
    assert!(expected <= DataSize::bytes(20_000));
    assert_eq!(
        find(&alloc, sctp).allowance,
        Allowance::Window {
            cwnd: expected,
            ssthresh: Some(expected - MTU)
        }
    );
}

#[test]
fn fsev2_no_ssthresh_change_in_slow_start() {
    let mut m = fsev2();
    let gcc = m.register(G, rate_flow(1.0, 1.0, None)).unwrap();
    let sctp = m.register(G, window_flow(4_800, 100, None)).unwrap();
    m.update(T0, sctp, window(4_800, 100, 1_000_000)).unwrap(); // slow start
    let alloc = m.update(T0, gcc, rate(0.1, 100)).unwrap().to_vec();
    match find(&alloc, sctp).allowance {
        Allowance::Window { ssthresh, .. } => assert_eq!(ssthresh, None),
        other => panic!("expected a window allowance, got {other:?}"),
    }
}

#[test]
fn fsev2_cwnd_never_below_one_mtu() {
    let mut m = fsev2();
    // SCTP's priority share is 1/1001 of a small aggregate: far below one MTU per RTT.
    let gcc = m.register(G, rate_flow(1000.0, 0.0, None)).unwrap();
    let sctp = m.register(G, window_flow(1_200, 100, None)).unwrap();
    m.update(T0, gcc, rate(0.0, 100)).unwrap();
    let alloc = m
        .update(T0, sctp, window(1_200, 1_000, 1_000_000))
        .unwrap()
        .to_vec();
    match find(&alloc, sctp).allowance {
        Allowance::Window { cwnd, .. } => assert_eq!(cwnd, MTU),
        other => panic!("expected a window allowance, got {other:?}"),
    }
}

#[test]
fn fsev2_uses_the_newest_nonzero_sctp_rtt() {
    let mut m = fsev2();
    let gcc = m.register(G, rate_flow(1.0, 1.0, None)).unwrap();
    let sctp = m.register(G, window_flow(12_000, 100, None)).unwrap();
    // Registered at 0.96 Mbit/s (12 000 B / 100 ms): S_CR = 1.96.
    // CC_R = 12 000 B / 50 ms = 1.92: S_CR = 1.96 + 1.92 - 0.96 = 2.92 -> 1.46 each.
    m.update(T0, sctp, window(12_000, 50, 1_000_000)).unwrap();
    assert_close(s_cr(&m), 2.92);
    // A zero sample is ignored: CC_R is still 1.92, S_CR = 2.92 + 1.92 - 1.46 = 3.38.
    let alloc = m
        .update(T0, sctp, window(12_000, 0, 1_000_000))
        .unwrap()
        .to_vec();
    assert_close(s_cr(&m), 3.38);
    assert_close(find(&alloc, sctp).rate.as_mbps(), 1.69);
    assert_close(find(&alloc, gcc).rate.as_mbps(), 1.69);
    // cwnd = 1.69 Mbit/s * 50 ms = 10 562 B -> 9 600 B.
    match find(&alloc, sctp).allowance {
        Allowance::Window { cwnd, .. } => assert_eq!(cwnd, DataSize::bytes(9_600)),
        other => panic!("expected a window allowance, got {other:?}"),
    }
}

#[test]
fn fsev2_priority_boost_is_off_by_default_and_optional() {
    let mut plain = fsev2();
    let mut boosted = CouplingManager::new(Mechanism::FseV2(FseV2Config {
        rate_priority_boost: Some(1.1),
        ..FseV2Config::default()
    }));
    for m in [&mut plain, &mut boosted] {
        let gcc = m.register(G, rate_flow(1.0, 1.0, None)).unwrap();
        m.register(G, window_flow(12_500, 100, None)).unwrap();
        m.update(T0, gcc, rate(1.0, 100)).unwrap();
    }
    let gcc_share = |m: &CouplingManager| m.flows(G)[0].allocated_rate.as_mbps();
    assert_close(gcc_share(&plain), 1.0);
    assert_close(gcc_share(&boosted), 2.0 * 1.1 / 2.1);
}

#[test]
fn fsev2_desired_cwnd_caps_an_app_limited_sctp_flow() {
    let mut m = fsev2();
    let gcc = m.register(G, rate_flow(1.0, 3.0, None)).unwrap();
    let sctp = m.register(G, window_flow(12_500, 100, None)).unwrap();
    let report = FlowReport::Window {
        cwnd: DataSize::bytes(12_500),
        rtt: Some(TimeDelta::millis(100)),
        ssthresh: DataSize::bytes(1_000_000),
        desired_cwnd: Some(DataSize::bytes(6_250)), // 0.5 Mbit/s at 100 ms
    };
    // S_CR = 3 + 1 = 4 Mbit/s; SCTP is capped at 0.5, GCC takes the leftover.
    let alloc = m.update(T0, sctp, report).unwrap().to_vec();
    assert_close(find(&alloc, sctp).rate.as_mbps(), 0.5);
    assert_close(find(&alloc, gcc).rate.as_mbps(), 3.5);
    assert_eq!(
        find(&alloc, sctp).allowance,
        Allowance::Window {
            cwnd: DataSize::bytes(6_000),
            ssthresh: None
        }
    );
}

// ---------------------------------------------------------------- conservative FSE

fn conservative(config: ConservativeConfig) -> CouplingManager {
    CouplingManager::new(Mechanism::ConservativeFse(config))
}

#[test]
fn conservative_fse_timer_blocks_other_flows_for_two_rtts() {
    let mut m = conservative(ConservativeConfig::default());
    let a = m.register(G, rate_flow(1.0, 1.0, None)).unwrap();
    let b = m.register(G, rate_flow(1.0, 1.0, None)).unwrap();
    // a reduces 1.0 -> 0.5: S_CR = 2 * 0.5 / 1.0 = 1.0; timer until 200 ms.
    m.update(T0, a, rate(0.5, 100)).unwrap();
    assert_close(s_cr(&m), 1.0);
    assert_eq!(m.timer_expiry(G, T0), Some(Timestamp::from_millis(200)));
    // b tries to grow at 50 ms: blocked by the timer, S_CR unchanged, shares 0.5/0.5.
    let alloc = m
        .update(Timestamp::from_millis(50), b, rate(2.0, 100))
        .unwrap()
        .to_vec();
    assert_close(s_cr(&m), 1.0);
    assert_close(find(&alloc, b).rate.as_mbps(), 0.5);
    // a, the reducer, may reduce again at 100 ms: S_CR = 1.0 * 0.25 / 0.5; timer re-armed.
    m.update(Timestamp::from_millis(100), a, rate(0.25, 100))
        .unwrap();
    assert_close(s_cr(&m), 0.5);
    assert_eq!(
        m.timer_expiry(G, Timestamp::from_millis(100)),
        Some(Timestamp::from_millis(300))
    );
    // After expiry, b's increase of 1.0 is limited to I/N = 1.0 / 2.
    m.update(Timestamp::from_millis(300), b, rate(1.25, 100))
        .unwrap();
    assert_close(s_cr(&m), 1.0);
    assert_eq!(m.timer_expiry(G, Timestamp::from_millis(300)), None);
}

#[test]
fn conservative_fse_pseudo_code_variant_blocks_everyone() {
    let mut m = conservative(ConservativeConfig {
        reducer_may_update_during_timer: false,
        increase_limit_per_flow_count: false,
        ..ConservativeConfig::default()
    });
    let a = m.register(G, rate_flow(1.0, 1.0, None)).unwrap();
    let b = m.register(G, rate_flow(1.0, 1.0, None)).unwrap();
    m.update(T0, a, rate(0.5, 100)).unwrap();
    m.update(Timestamp::from_millis(100), a, rate(0.25, 100))
        .unwrap();
    assert_close(s_cr(&m), 1.0); // the reducer is blocked too
                                 // After expiry the full increase counts: 0.5 + (1.5 - 0.5) = 2.0.
    m.update(Timestamp::from_millis(200), b, rate(1.5, 100))
        .unwrap();
    assert_close(s_cr(&m), 2.0);
}

// ---------------------------------------------------------------- FSE and groups

#[test]
fn fse_drops_leftover_only_with_the_reset_option() {
    let mut m = CouplingManager::new(Mechanism::from_name("fse").unwrap());
    let a = m.register(G, rate_flow(1.0, 1.0, Some(0.5))).unwrap();
    m.update(T0, a, rate(3.0, 100)).unwrap();
    assert_close(s_cr(&m), 0.5);
    let mut simple = CouplingManager::new(Mechanism::from_name("fse-simple").unwrap());
    let a = simple.register(G, rate_flow(1.0, 1.0, Some(0.5))).unwrap();
    simple.update(T0, a, rate(3.0, 100)).unwrap();
    assert_close(s_cr(&simple), 3.0);
}

#[test]
fn deregister_policy_keep_or_subtract() {
    for (policy, expected) in [
        (DeregisterPolicy::KeepAggregate, 2.0),
        (DeregisterPolicy::SubtractAllocation, 1.0),
    ] {
        let mut m = CouplingManager::new(Mechanism::from_name("fse").unwrap())
            .with_deregister_policy(policy);
        let a = m.register(G, rate_flow(1.0, 1.0, None)).unwrap();
        let b = m.register(G, rate_flow(1.0, 1.0, None)).unwrap();
        m.update(T0, a, rate(1.0, 100)).unwrap();
        m.deregister(b).unwrap();
        assert_close(s_cr(&m), expected);
        // The survivor gets the whole aggregate at its next update.
        let alloc = m.update(T0, a, rate(1.0, 100)).unwrap().to_vec();
        assert_close(find(&alloc, a).rate.as_mbps(), expected);
    }
}

#[test]
fn groups_are_independent() {
    let mut m = CouplingManager::new(Mechanism::from_name("fse").unwrap());
    let a = m.register(GroupKey(1), rate_flow(1.0, 1.0, None)).unwrap();
    let b = m.register(GroupKey(2), rate_flow(1.0, 1.0, None)).unwrap();
    let alloc = m.update(T0, a, rate(4.0, 100)).unwrap().to_vec();
    assert_eq!(
        alloc.len(),
        1,
        "only the updating flow's group is allocated"
    );
    assert_close(m.aggregate(GroupKey(2)).unwrap().as_mbps(), 1.0);
    m.deregister(a).unwrap();
    assert_eq!(m.groups(), vec![GroupKey(2)]);
    assert_eq!(m.flow(b).unwrap().group, GroupKey(2));
}

#[test]
fn priority_and_desired_rate_changes_apply_at_the_next_update() {
    let mut m = CouplingManager::new(Mechanism::from_name("fse").unwrap());
    let a = m.register(G, rate_flow(1.0, 1.0, None)).unwrap();
    let b = m.register(G, rate_flow(1.0, 1.0, None)).unwrap();
    m.set_priority(a, 3.0).unwrap();
    let alloc = m.update(T0, b, rate(1.0, 100)).unwrap().to_vec();
    assert_close(find(&alloc, a).rate.as_mbps(), 1.5);
    m.set_desired_rate(a, Some(Bitrate::mbps(0.2))).unwrap();
    let alloc = m.update(T0, b, rate(0.5, 100)).unwrap().to_vec();
    assert_close(find(&alloc, a).rate.as_mbps(), 0.2);
    assert_close(find(&alloc, b).rate.as_mbps(), 1.8);
    m.set_desired_rate(a, None).unwrap();
    let alloc = m.update(T0, b, rate(1.8, 100)).unwrap().to_vec();
    assert_close(find(&alloc, a).rate.as_mbps(), 1.5);
}

#[test]
fn fsev2_minimum_rtt_option_converts_with_the_lowest_sample() {
    use flowstate_coupling::coupling::CwndRtt;
    let mut m = CouplingManager::new(Mechanism::FseV2(FseV2Config {
        cwnd_rtt: CwndRtt::Minimum,
        ..FseV2Config::default()
    }));
    let gcc = m.register(G, rate_flow(1.0, 1.0, None)).unwrap();
    let sctp = m.register(G, window_flow(12_000, 100, None)).unwrap();
    // A queue builds: the newest sample is 300 ms, the minimum stays 100 ms.
    m.update(T0, sctp, window(12_000, 300, 1_000_000)).unwrap();
    // CC_R = 12 000 B / 100 ms = 0.96: S_CR = 1.96 + 0.96 - 0.96 = 1.96 -> 0.98 each.
    assert_close(s_cr(&m), 1.96);
    let alloc = m.update(T0, gcc, rate(0.98, 100)).unwrap().to_vec();
    // cwnd = 0.98 Mbit/s * 100 ms = 12 250 B -> 12 000 B (the newest sample would give 36 000).
    match find(&alloc, sctp).allowance {
        Allowance::Window { cwnd, .. } => assert_eq!(cwnd, DataSize::bytes(12_000)),
        other => panic!("expected a window allowance, got {other:?}"),
    }
}

#[test]
fn fsev2_rounding_remainder_goes_to_the_rate_flow_when_asked() {
    let config = FseV2Config {
        give_rounding_to_rate_flows: true,
        ..FseV2Config::default()
    };
    let mut m = CouplingManager::new(Mechanism::FseV2(config));
    let gcc = m.register(G, rate_flow(1.0, 1.0, None)).unwrap();
    let sctp = m.register(G, window_flow(24_000, 100, None)).unwrap();
    // As in fsev2_sums_both_kinds_and_resets_the_aggregate: S_CR 3.88, halves of 1.94;
    // SCTP's 1.94 Mbit/s * 100 ms = 24 250 B rounds down to 24 000 B (1.92 Mbit/s), and
    // the cut-off 0.02 Mbit/s goes to GCC: 1.96. S_CR stays 3.88.
    let alloc = m
        .update(T0, sctp, window(36_000, 100, 12_000))
        .unwrap()
        .to_vec();
    assert_close(find(&alloc, gcc).rate.as_mbps(), 1.96);
    assert_close(find(&alloc, sctp).rate.as_mbps(), 1.92);
    assert_close(s_cr(&m), 3.88);
    // The next SCTP report at the same cwnd changes nothing: no ratchet.
    m.update(T0, sctp, window(24_000, 100, 12_000)).unwrap();
    assert_close(s_cr(&m), 3.88);
}

#[test]
fn fsev2_paper_rounding_lets_the_next_report_take_the_remainder_out() {
    let mut m = fsev2();
    let _gcc = m.register(G, rate_flow(1.0, 1.0, None)).unwrap();
    let sctp = m.register(G, window_flow(24_000, 100, None)).unwrap();
    m.update(T0, sctp, window(36_000, 100, 12_000)).unwrap();
    assert_close(s_cr(&m), 3.88);
    // SCTP reports the 24 000 B it was given: CC_R 1.92 against FSE_R 1.94.
    m.update(T0, sctp, window(24_000, 100, 12_000)).unwrap();
    assert_close(s_cr(&m), 3.86);
}

#[test]
fn fsev2_proportional_rate_decrease_scales_the_aggregate() {
    for (proportional, expected) in [(false, 2.92 - 0.15), (true, 2.92 * 0.85)] {
        let config = FseV2Config {
            proportional_rate_decrease: proportional,
            ..FseV2Config::default()
        };
        let mut m = CouplingManager::new(Mechanism::FseV2(config));
        let gcc = m.register(G, rate_flow(1.0, 1.0, None)).unwrap();
        let _sctp = m.register(G, window_flow(24_000, 100, None)).unwrap();
        assert_close(s_cr(&m), 2.92);
        // GCC's FSE_R is still its registered 1.0; it cuts by 15 %.
        m.update(T0, gcc, rate(0.85, 100)).unwrap();
        assert_close(s_cr(&m), expected);
    }
}
