//! Bad input is a typed error, never a panic.

use flowstate_coupling::coupling::{
    rate_from_bps, CouplingError, CouplingManager, FlowId, FlowKind, FlowReport, FlowSpec,
    GroupKey, Mechanism,
};
use flowstate_coupling::{Bitrate, DataSize, TimeDelta, Timestamp};

const G: GroupKey = GroupKey(1);

fn rate_spec(priority: f64) -> FlowSpec {
    FlowSpec::Rate {
        priority,
        initial_rate: Bitrate::mbps(1.0),
        desired_rate: None,
    }
}

fn window_spec(priority: f64, mtu: u64) -> FlowSpec {
    FlowSpec::Window {
        priority,
        initial_cwnd: DataSize::bytes(4_800),
        initial_rtt: Some(TimeDelta::millis(100)),
        initial_max_cwnd: None,
        mtu: DataSize::bytes(mtu),
    }
}

fn fsev2() -> CouplingManager {
    CouplingManager::new(Mechanism::from_name("fsev2").unwrap())
}

#[test]
fn priorities_near_the_float_limits_are_rejected() {
    // 1e308 and 2.3e-308 gave 0, inf or a 9 % utilization instead of the shares.
    let mut m = fsev2();
    for p in [
        1e308,
        2.3e-308,
        2f64.powi(1023),
        5e-324,
        1e6 * 1.000001,
        9.9e-7,
    ] {
        let e = m.register(G, rate_spec(p)).unwrap_err();
        assert!(
            matches!(e, CouplingError::InvalidPriority(_)),
            "priority {p}: {e:?}"
        );
        assert!(e.to_string().contains("[1e-6, 1e6]"), "{e}");
    }
    assert_eq!(
        CouplingError::InvalidPriority(1e308).to_string(),
        "priority must be a number in [1e-6, 1e6] (only ratios matter), got 1e308"
    );
    for p in [1e-6, 1e6, 0.5] {
        m.register(G, rate_spec(p)).unwrap();
    }
    assert!(m.register(G, window_spec(1e7, 1200)).is_err());
}

#[test]
fn non_positive_or_non_finite_priority_is_rejected() {
    let mut m = fsev2();
    for p in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        match m.register(G, rate_spec(p)) {
            Err(CouplingError::InvalidPriority(_)) => {}
            other => panic!("priority {p}: expected InvalidPriority, got {other:?}"),
        }
        assert!(matches!(
            m.register(G, window_spec(p, 1200)),
            Err(CouplingError::InvalidPriority(_))
        ));
    }
    let id = m.register(G, rate_spec(1.0)).unwrap();
    assert!(matches!(
        m.set_priority(id, 0.0),
        Err(CouplingError::InvalidPriority(_))
    ));
    assert!(
        m.groups().len() == 1 && m.flows(G).len() == 1,
        "rejected flows must not linger"
    );
}

#[test]
fn nan_and_infinite_rates_are_rejected() {
    assert!(matches!(
        rate_from_bps("rate", f64::NAN),
        Err(CouplingError::InvalidRate { .. })
    ));
    assert!(matches!(
        rate_from_bps("rate", -1.0),
        Err(CouplingError::InvalidRate { .. })
    ));
    assert!(matches!(
        rate_from_bps("rate", f64::INFINITY),
        Err(CouplingError::InvalidRate { .. })
    ));
    assert_eq!(rate_from_bps("rate", 5.0), Ok(Bitrate::bps(5.0)));
    let mut m = fsev2();
    let infinite = FlowSpec::Rate {
        priority: 1.0,
        initial_rate: Bitrate::INFINITY,
        desired_rate: None,
    };
    assert!(matches!(
        m.register(G, infinite),
        Err(CouplingError::InvalidRate { .. })
    ));
    let id = m.register(G, rate_spec(1.0)).unwrap();
    let report = FlowReport::Rate {
        rate: Bitrate::INFINITY,
        rtt: None,
    };
    assert!(matches!(
        m.update(Timestamp::ZERO, id, report),
        Err(CouplingError::InvalidRate { .. })
    ));
    assert!(matches!(
        m.set_desired_rate(id, Some(Bitrate::INFINITY)),
        Err(CouplingError::InvalidRate { .. })
    ));
}

#[test]
fn unknown_flow_ids_are_rejected() {
    let mut m = fsev2();
    let ghost = FlowId(42);
    let report = FlowReport::Rate {
        rate: Bitrate::mbps(1.0),
        rtt: None,
    };
    assert_eq!(
        m.update(Timestamp::ZERO, ghost, report).err(),
        Some(CouplingError::UnknownFlow(ghost))
    );
    assert_eq!(
        m.deregister(ghost).err(),
        Some(CouplingError::UnknownFlow(ghost))
    );
    assert_eq!(
        m.set_priority(ghost, 1.0).err(),
        Some(CouplingError::UnknownFlow(ghost))
    );
    assert_eq!(
        m.set_desired_rate(ghost, None).err(),
        Some(CouplingError::UnknownFlow(ghost))
    );
    assert_eq!(m.flow(ghost).err(), Some(CouplingError::UnknownFlow(ghost)));
}

#[test]
fn duplicate_registration_is_rejected() {
    let mut m = fsev2();
    m.register_as(FlowId(5), G, rate_spec(1.0)).unwrap();
    assert_eq!(
        m.register_as(FlowId(5), GroupKey(2), rate_spec(1.0)).err(),
        Some(CouplingError::DuplicateFlow(FlowId(5)))
    );
    // Fresh ids skip ids the caller chose.
    for _ in 0..10 {
        assert_ne!(m.register(G, rate_spec(1.0)).unwrap(), FlowId(5));
    }
}

#[test]
fn window_flows_are_rejected_by_rate_only_mechanisms() {
    for name in ["fse", "fse-simple", "conservative-fse"] {
        let mut m = CouplingManager::new(Mechanism::from_name(name).unwrap());
        assert!(matches!(
            m.register(G, window_spec(1.0, 1200)),
            Err(CouplingError::UnsupportedKind {
                kind: FlowKind::Window,
                ..
            })
        ));
    }
}

#[test]
fn report_of_the_wrong_kind_is_rejected() {
    let mut m = fsev2();
    let rate = m.register(G, rate_spec(1.0)).unwrap();
    let window = m.register(G, window_spec(1.0, 1200)).unwrap();
    let window_report = FlowReport::Window {
        cwnd: DataSize::bytes(1200),
        rtt: None,
        ssthresh: DataSize::bytes(1200),
        desired_cwnd: None,
    };
    assert!(matches!(
        m.update(Timestamp::ZERO, rate, window_report),
        Err(CouplingError::ReportKindMismatch { .. })
    ));
    let rate_report = FlowReport::Rate {
        rate: Bitrate::mbps(1.0),
        rtt: None,
    };
    assert!(matches!(
        m.update(Timestamp::ZERO, window, rate_report),
        Err(CouplingError::ReportKindMismatch { .. })
    ));
    assert!(matches!(
        m.set_desired_rate(window, None),
        Err(CouplingError::ReportKindMismatch { .. })
    ));
}

#[test]
fn negative_rtt_zero_mtu_and_missing_rtt_are_rejected() {
    let mut m = fsev2();
    let id = m.register(G, rate_spec(1.0)).unwrap();
    let report = FlowReport::Rate {
        rate: Bitrate::mbps(1.0),
        rtt: Some(TimeDelta::millis(-1)),
    };
    assert!(matches!(
        m.update(Timestamp::ZERO, id, report),
        Err(CouplingError::InvalidRtt { .. })
    ));
    assert_eq!(
        m.register(G, window_spec(1.0, 0)).err(),
        Some(CouplingError::InvalidMtu)
    );

    let mut c = CouplingManager::new(Mechanism::from_name("conservative-fse").unwrap());
    let id = c.register(G, rate_spec(1.0)).unwrap();
    let reduce = FlowReport::Rate {
        rate: Bitrate::mbps(0.5),
        rtt: None,
    };
    assert!(matches!(
        c.update(Timestamp::ZERO, id, reduce),
        Err(CouplingError::MissingRtt { .. })
    ));
}

#[test]
fn errors_read_as_one_line_naming_the_problem() {
    let msg = CouplingError::InvalidPriority(-2.0).to_string();
    assert_eq!(
        msg,
        "priority must be a number in [1e-6, 1e6] (only ratios matter), got -2"
    );
    assert_eq!(
        CouplingError::UnknownFlow(FlowId(3)).to_string(),
        "flow 3 is not registered"
    );
}
