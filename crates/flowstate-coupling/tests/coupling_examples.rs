//! The papers' worked examples, run through the public coupling API.

use flowstate_coupling::coupling::{
    Allocation, Allowance, CouplingManager, FlowId, FlowReport, FlowSpec, GroupKey, Mechanism,
};
use flowstate_coupling::{Bitrate, DataSize, TimeDelta, Timestamp};

const G: GroupKey = GroupKey(7);
const MTU: DataSize = DataSize::bytes(1200);

fn manager(name: &str) -> CouplingManager {
    CouplingManager::new(Mechanism::from_name(name).expect("known mechanism"))
}

fn rate_flow(priority: f64, initial_mbps: f64, desired_mbps: Option<f64>) -> FlowSpec {
    FlowSpec::Rate {
        priority,
        initial_rate: Bitrate::mbps(initial_mbps),
        desired_rate: desired_mbps.map(Bitrate::mbps),
    }
}

fn window_flow(priority: f64, cwnd: u64, rtt_ms: i64) -> FlowSpec {
    FlowSpec::Window {
        priority,
        initial_cwnd: DataSize::bytes(cwnd),
        initial_rtt: Some(TimeDelta::millis(rtt_ms)),
        initial_max_cwnd: None,
        mtu: MTU,
    }
}

fn rate_report(mbps: f64) -> FlowReport {
    FlowReport::Rate {
        rate: Bitrate::mbps(mbps),
        rtt: Some(TimeDelta::millis(100)),
    }
}

fn mbps_of(allocations: &[Allocation], flow: FlowId) -> f64 {
    allocations
        .iter()
        .find(|a| a.flow == flow)
        .expect("flow has an allocation")
        .rate
        .as_mbps()
}

fn assert_close(actual: f64, expected: f64) {
    assert!(
        (actual - expected).abs() < 1e-9,
        "expected {expected}, got {actual}"
    );
}

#[test]
fn priorities_1_3_1_get_one_three_one_fifths() {
    // Paper 000 section IV-A: "if flows a, b and c have priorities 1, 3, 1, then the rate
    // assigned to flow b is 3/5 of the total and the others get 1/5".
    for name in ["fse", "fse-simple", "conservative-fse", "fsev2"] {
        let mut m = manager(name);
        let a = m.register(G, rate_flow(1.0, 1.0, None)).unwrap();
        let b = m.register(G, rate_flow(3.0, 1.0, None)).unwrap();
        let c = m.register(G, rate_flow(1.0, 1.0, None)).unwrap();
        // S_CR = 3 + (3 - 1) = 5 Mbit/s (conservative FSE: + 2/3 with the I/N limit).
        let alloc = m
            .update(Timestamp::ZERO, b, rate_report(3.0))
            .unwrap()
            .to_vec();
        let total = m.aggregate(G).unwrap().as_mbps();
        assert_close(mbps_of(&alloc, a), total / 5.0);
        assert_close(mbps_of(&alloc, b), total * 3.0 / 5.0);
        assert_close(mbps_of(&alloc, c), total / 5.0);
        let expected_total = if name == "conservative-fse" {
            3.0 + 2.0 / 3.0
        } else {
            5.0
        };
        assert_close(total, expected_total);
    }
}

/// Paper 000 Fig. 6's set-up under `name`: two rate flows at 1 Mbit/s, flow 1's DR
/// 0.75 Mbit/s; flow 2 reports 1 Mbit/s. The two allocations in Mbit/s.
fn fig6(name: &str) -> (f64, f64) {
    let mut m = manager(name);
    let f1 = m.register(G, rate_flow(1.0, 1.0, Some(0.75))).unwrap();
    let f2 = m.register(G, rate_flow(1.0, 1.0, None)).unwrap();
    let alloc = m.update(Timestamp::ZERO, f2, rate_report(1.0)).unwrap();
    (mbps_of(alloc, f1), mbps_of(alloc, f2))
}

#[test]
fn desired_rate_leftover_goes_to_the_other_flow() {
    // Paper 000 Fig. 6: 2 Mbit/s, flow 1's DR = 0.75 Mbit/s -> 0.75 / 1.25.
    for name in ["fse", "conservative-fse", "fsev2"] {
        let (f1, f2) = fig6(name);
        assert_close(f1, 0.75);
        assert_close(f2, 1.25);
    }
}

#[test]
fn simple_fse_does_not_redistribute_leftover() {
    // Paper 004 Alg. 1: min(DR, P * S_CR / S_P) only: flow 2 stays at 1.0.
    let (f1, f2) = fig6("fse-simple");
    assert_close(f1, 0.75);
    assert_close(f2, 1.0);
}

/// A GCC flow (priority `p`, starting at and reporting `mbps`) and an SCTP flow (priority
/// 1, `cwnd` bytes at `rtt_ms`) under `name`: their ids and the allocations of the report.
fn gcc_and_sctp(
    name: &str,
    p: f64,
    mbps: f64,
    cwnd: u64,
    rtt_ms: i64,
) -> (FlowId, FlowId, Vec<Allocation>) {
    let mut m = manager(name);
    let gcc = m.register(G, rate_flow(p, mbps, None)).unwrap();
    let sctp = m.register(G, window_flow(1.0, cwnd, rtt_ms)).unwrap();
    let alloc = m.update(Timestamp::ZERO, gcc, rate_report(mbps)).unwrap();
    (gcc, sctp, alloc.to_vec())
}

#[test]
fn priorities_2_to_1_give_two_thirds_and_one_third() {
    // Paper 000 Table 6: GCC P = 2, SCTP P = 1 -> 66 % / 34 %.
    // FSEv2: GCC at 2 Mbit/s, SCTP registers with 12 000 B at 96 ms = 1 Mbit/s.
    let (gcc, sctp, alloc) = gcc_and_sctp("fsev2", 2.0, 2.0, 12_000, 96);
    assert_close(mbps_of(&alloc, gcc), 2.0);
    assert_close(mbps_of(&alloc, sctp), 1.0);
    // FSE-NG: S_P over both flows: GCC gets 2/3 of S_CR, SCTP the rest.
    let (gcc, sctp, alloc) = gcc_and_sctp("fse-ng", 2.0, 3.0, 12_000, 96);
    assert_close(mbps_of(&alloc, gcc), 2.0);
    assert_close(mbps_of(&alloc, sctp), 1.0);
}

#[test]
fn priorities_1_5_1_5_1_give_three_eighths_and_two_eighths() {
    // Paper 000 Table 7: 2 GCC (P = 1.5) + 1 SCTP (P = 1) -> 37.5 %, 37.5 %, 25 %.
    for name in ["fse-ng", "ext-fse-ng", "fsev2"] {
        let mut m = manager(name);
        let g1 = m.register(G, rate_flow(1.5, 2.0, None)).unwrap();
        let g2 = m.register(G, rate_flow(1.5, 2.0, None)).unwrap();
        let sctp = m.register(G, window_flow(1.0, 12_000, 100)).unwrap();
        let alloc = m
            .update(Timestamp::ZERO, g1, rate_report(2.0))
            .unwrap()
            .to_vec();
        let total = m.aggregate(G).unwrap().as_mbps();
        assert!(total > 0.0, "{name}: empty aggregate");
        assert_close(mbps_of(&alloc, g1) / total, 3.0 / 8.0);
        assert_close(mbps_of(&alloc, g2) / total, 3.0 / 8.0);
        assert_close(mbps_of(&alloc, sctp) / total, 2.0 / 8.0);
    }
}

#[test]
fn fsev2_window_allocation_is_a_cwnd_in_whole_mtus() {
    // S_CR = 1 + 0.96 = 1.96 -> each 0.98 Mbit/s -> 0.98e6 * 0.1 / 8 = 12 250 B -> 12 000 B.
    let (_, sctp, alloc) = gcc_and_sctp("fsev2", 1.0, 1.0, 12_000, 100);
    let window = alloc.iter().find(|a| a.flow == sctp).unwrap();
    assert_eq!(
        window.allowance,
        Allowance::Window {
            cwnd: DataSize::bytes(12_000),
            ssthresh: None
        }
    );
}
