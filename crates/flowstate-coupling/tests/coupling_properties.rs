//! Property tests: the closed-form water-filling agrees with the papers' leftover loop,
//! and every mechanism keeps its invariants for any sequence of operations.

use flowstate_coupling::coupling::waterfill::{Claim, WaterFill};
use flowstate_coupling::coupling::{
    Allocation, Allowance, CouplingError, CouplingManager, FlowId, FlowKind, FlowReport, FlowSpec,
    GroupKey, Mechanism,
};
use flowstate_coupling::{Bitrate, DataSize, TimeDelta, Timestamp};
use proptest::prelude::*;

#[path = "support/leftover_loop.rs"]
mod leftover_loop;
use leftover_loop::leftover_loop;

fn claim_strategy() -> impl Strategy<Value = Claim> {
    (0.1f64..10.0, prop::option::of(1e3f64..1e7)).prop_map(|(priority, cap)| Claim {
        priority,
        cap: cap.unwrap_or(f64::INFINITY),
    })
}

proptest! {
    #[test]
    fn closed_form_matches_the_leftover_loop(
        claims in prop::collection::vec(claim_strategy(), 1..=200),
        total in 0.0f64..1e8,
    ) {
        let expected = leftover_loop(total, &claims);
        let mut actual = vec![0.0; claims.len()];
        WaterFill::new().allocate(total, &claims, &mut actual);
        for (i, (a, e)) in actual.iter().zip(&expected).enumerate() {
            let tol = 1e-6 * e.abs().max(1.0);
            prop_assert!((a - e).abs() <= tol, "flow {i}: closed form {a} vs loop {e}");
        }
    }

    #[test]
    fn water_fill_invariants(
        claims in prop::collection::vec(claim_strategy(), 1..=200),
        total in 0.0f64..1e9,
    ) {
        let mut out = vec![0.0; claims.len()];
        let assigned = WaterFill::new().allocate(total, &claims, &mut out);
        let sum: f64 = out.iter().sum();
        prop_assert!((sum - assigned).abs() <= 1e-6 * sum.max(1.0));
        // Caps hold; no NaN or negative value.
        for (c, r) in claims.iter().zip(&out) {
            prop_assert!(r.is_finite() && *r >= 0.0 && *r <= c.cap);
        }
        let uncapped: Vec<usize> = (0..claims.len()).filter(|&i| out[i] < claims[i].cap).collect();
        if !uncapped.is_empty() {
            // Allocations sum to the aggregate when some flow is not at its cap...
            prop_assert!((sum - total).abs() <= 1e-6 * total.max(1.0), "sum {sum} vs {total}");
            // ...and uncapped flows share by priority (one common level)...
            let level = out[uncapped[0]] / claims[uncapped[0]].priority;
            for &i in &uncapped {
                prop_assert!((out[i] / claims[i].priority - level).abs() <= 1e-6 * level.max(1.0));
            }
            // ...above the level of every capped flow (max-min fairness).
            for i in 0..claims.len() {
                if out[i] >= claims[i].cap {
                    prop_assert!(claims[i].cap / claims[i].priority <= level * (1.0 + 1e-9) + 1e-9);
                }
            }
        } else {
            prop_assert!(sum <= total * (1.0 + 1e-9) + 1e-6);
        }
    }
}

/// One step of a random operation sequence.
#[derive(Debug, Clone)]
enum Op {
    RegisterRate {
        priority: f64,
        initial: f64,
        desired: Option<f64>,
    },
    RegisterWindow {
        priority: f64,
        cwnd: u64,
        rtt_us: i64,
    },
    RateUpdate {
        pick: usize,
        rate: f64,
        rtt_us: i64,
    },
    WindowUpdate {
        pick: usize,
        cwnd: u64,
        rtt_us: i64,
        ssthresh: u64,
        desired: Option<u64>,
    },
    Deregister {
        pick: usize,
    },
    SetPriority {
        pick: usize,
        priority: f64,
    },
    SetDesired {
        pick: usize,
        desired: Option<f64>,
    },
    Advance {
        us: u64,
    },
}

fn rate_value() -> impl Strategy<Value = f64> {
    prop_oneof![Just(0.0), 1.0f64..1e4, 1e4f64..1e8, Just(1e12), Just(1e15)]
}

fn rtt_value() -> impl Strategy<Value = i64> {
    prop_oneof![Just(0i64), 1i64..1_000, 1_000i64..2_000_000]
}

fn op_strategy() -> impl Strategy<Value = Op> {
    prop_oneof![
        (0.1f64..10.0, rate_value(), prop::option::of(rate_value())).prop_map(
            |(priority, initial, desired)| Op::RegisterRate {
                priority,
                initial,
                desired
            }
        ),
        (0.1f64..10.0, 0u64..10_000_000, rtt_value()).prop_map(|(priority, cwnd, rtt_us)| {
            Op::RegisterWindow {
                priority,
                cwnd,
                rtt_us,
            }
        }),
        (any::<usize>(), rate_value(), rtt_value())
            .prop_map(|(pick, rate, rtt_us)| Op::RateUpdate { pick, rate, rtt_us }),
        (
            any::<usize>(),
            0u64..10_000_000,
            rtt_value(),
            0u64..10_000_000,
            prop::option::of(0u64..1_000_000)
        )
            .prop_map(|(pick, cwnd, rtt_us, ssthresh, desired)| Op::WindowUpdate {
                pick,
                cwnd,
                rtt_us,
                ssthresh,
                desired
            }),
        any::<usize>().prop_map(|pick| Op::Deregister { pick }),
        (any::<usize>(), 0.1f64..10.0)
            .prop_map(|(pick, priority)| Op::SetPriority { pick, priority }),
        (any::<usize>(), prop::option::of(rate_value()))
            .prop_map(|(pick, desired)| Op::SetDesired { pick, desired }),
        (0u64..1_000_000).prop_map(|us| Op::Advance { us }),
    ]
}

const MTU: DataSize = DataSize::bytes(1200);

fn check_allocations(
    m: &CouplingManager,
    allocations: &[Allocation],
    kinds: &[(FlowId, FlowKind)],
) -> Result<(), TestCaseError> {
    for a in allocations {
        let bps = a.rate.as_bps();
        prop_assert!(bps.is_finite() && bps >= 0.0, "bad rate {bps}");
        let info = m
            .flow(a.flow)
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        if let Some(desired) = info.desired_rate {
            prop_assert!(bps <= desired.as_bps() * (1.0 + 1e-9) + 1e-6, "cap broken");
        }
        let kind = kinds.iter().find(|(id, _)| *id == a.flow).map(|(_, k)| *k);
        match a.allowance {
            Allowance::Rate(r) => {
                prop_assert_eq!(kind, Some(FlowKind::Rate));
                prop_assert!(r.as_bps().is_finite());
            }
            Allowance::Window { cwnd, ssthresh } => {
                prop_assert_eq!(kind, Some(FlowKind::Window));
                prop_assert!(cwnd >= MTU, "cwnd below one MTU");
                prop_assert_eq!(cwnd.as_bytes() % MTU.as_bytes(), 0, "cwnd not whole MTUs");
                if let Some(s) = ssthresh {
                    prop_assert!(s < cwnd);
                }
            }
            Allowance::MaxWindow(max) => {
                prop_assert_eq!(kind, Some(FlowKind::Window));
                if let Some(max) = max {
                    prop_assert!(max >= MTU, "max cwnd below one MTU");
                }
            }
        }
    }
    Ok(())
}

fn run_ops(name: &str, ops: &[Op]) -> Result<(), TestCaseError> {
    let key = GroupKey(3);
    let mut m = CouplingManager::new(Mechanism::from_name(name).expect("mechanism"));
    let mut flows: Vec<(FlowId, FlowKind)> = Vec::new();
    let mut now = Timestamp::ZERO;
    for op in ops {
        let pick = |p: usize| (!flows.is_empty()).then(|| flows[p % flows.len()]);
        match op.clone() {
            Op::RegisterRate {
                priority,
                initial,
                desired,
            } => {
                let spec = FlowSpec::Rate {
                    priority,
                    initial_rate: Bitrate::bps(initial),
                    desired_rate: desired.map(Bitrate::bps),
                };
                let id = m
                    .register(key, spec)
                    .map_err(|e| TestCaseError::fail(e.to_string()))?;
                flows.push((id, FlowKind::Rate));
            }
            Op::RegisterWindow {
                priority,
                cwnd,
                rtt_us,
            } => {
                let spec = FlowSpec::Window {
                    priority,
                    initial_cwnd: DataSize::bytes(cwnd),
                    initial_rtt: Some(TimeDelta::from_micros(rtt_us)),
                    initial_max_cwnd: None,
                    mtu: MTU,
                };
                match m.register(key, spec) {
                    Ok(id) => flows.push((id, FlowKind::Window)),
                    Err(CouplingError::UnsupportedKind { .. }) => {
                        prop_assert!(
                            name == "fse" || name == "fse-simple" || name == "conservative-fse"
                        );
                    }
                    Err(e) => return Err(TestCaseError::fail(e.to_string())),
                }
            }
            Op::RateUpdate {
                pick: p,
                rate,
                rtt_us,
            } => {
                let Some((id, kind)) = pick(p) else { continue };
                let report = FlowReport::Rate {
                    rate: Bitrate::bps(rate),
                    rtt: Some(TimeDelta::from_micros(rtt_us)),
                };
                match m.update(now, id, report) {
                    Ok(a) => {
                        prop_assert_eq!(kind, FlowKind::Rate);
                        let a = a.to_vec();
                        check_allocations(&m, &a, &flows)?;
                    }
                    Err(CouplingError::ReportKindMismatch { .. }) => {
                        prop_assert_eq!(kind, FlowKind::Window)
                    }
                    Err(e) => return Err(TestCaseError::fail(e.to_string())),
                }
            }
            Op::WindowUpdate {
                pick: p,
                cwnd,
                rtt_us,
                ssthresh,
                desired,
            } => {
                let Some((id, kind)) = pick(p) else { continue };
                let report = FlowReport::Window {
                    cwnd: DataSize::bytes(cwnd),
                    rtt: Some(TimeDelta::from_micros(rtt_us)),
                    ssthresh: DataSize::bytes(ssthresh),
                    desired_cwnd: desired.map(DataSize::bytes),
                };
                match m.update(now, id, report) {
                    Ok(a) => {
                        prop_assert_eq!(kind, FlowKind::Window);
                        let a = a.to_vec();
                        check_allocations(&m, &a, &flows)?;
                    }
                    Err(CouplingError::ReportKindMismatch { .. }) => {
                        prop_assert_eq!(kind, FlowKind::Rate)
                    }
                    Err(e) => return Err(TestCaseError::fail(e.to_string())),
                }
            }
            Op::Deregister { pick: p } => {
                let Some((id, _)) = pick(p) else { continue };
                let a = m
                    .deregister(id)
                    .map_err(|e| TestCaseError::fail(e.to_string()))?
                    .to_vec();
                flows.retain(|(f, _)| *f != id);
                check_allocations(&m, &a, &flows)?;
                // Leaving twice is an error, not a panic.
                prop_assert_eq!(m.deregister(id).err(), Some(CouplingError::UnknownFlow(id)));
            }
            Op::SetPriority { pick: p, priority } => {
                let Some((id, _)) = pick(p) else { continue };
                m.set_priority(id, priority)
                    .map_err(|e| TestCaseError::fail(e.to_string()))?;
            }
            Op::SetDesired { pick: p, desired } => {
                let Some((id, kind)) = pick(p) else { continue };
                let result = m.set_desired_rate(id, desired.map(Bitrate::bps));
                prop_assert_eq!(result.is_ok(), kind == FlowKind::Rate);
            }
            Op::Advance { us } => now += TimeDelta::from_micros(us as i64),
        }
        if let Some(s_cr) = m.aggregate(key) {
            prop_assert!(
                s_cr.as_bps().is_finite() && s_cr.as_bps() >= 0.0,
                "S_CR {s_cr:?}"
            );
        }
        for info in m.flows(key) {
            prop_assert!(
                info.allocated_rate.as_bps().is_finite() && info.allocated_rate.as_bps() >= 0.0
            );
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn every_mechanism_survives_any_operation_sequence(
        ops in prop::collection::vec(op_strategy(), 1..80),
    ) {
        for name in Mechanism::NAMES {
            run_ops(name, &ops)?;
        }
    }

    #[test]
    fn fsev2_and_fse_allocate_the_whole_aggregate_when_no_cap_binds(
        priorities in prop::collection::vec(0.1f64..10.0, 1..50),
        initial in prop::collection::vec(1e3f64..1e7, 50),
        report in 1e3f64..1e8,
    ) {
        for name in ["fse", "conservative-fse", "fsev2"] {
            let key = GroupKey(9);
            let mut m = CouplingManager::new(Mechanism::from_name(name).unwrap());
            let ids: Vec<FlowId> = priorities.iter().zip(&initial).map(|(&p, &r)| {
                m.register(key, FlowSpec::Rate { priority: p, initial_rate: Bitrate::bps(r), desired_rate: None }).unwrap()
            }).collect();
            let report = FlowReport::Rate { rate: Bitrate::bps(report), rtt: Some(TimeDelta::millis(50)) };
            let allocations = m.update(Timestamp::ZERO, ids[0], report).unwrap().to_vec();
            let total = m.aggregate(key).unwrap().as_bps();
            let sum: f64 = allocations.iter().map(|a| a.rate.as_bps()).sum();
            prop_assert!((sum - total).abs() <= 1e-6 * total.max(1.0));
            // Shares follow priorities.
            for (a, p) in allocations.iter().zip(&priorities) {
                let expected = total * p / priorities.iter().sum::<f64>();
                prop_assert!((a.rate.as_bps() - expected).abs() <= 1e-6 * expected.max(1.0));
            }
        }
    }
}
