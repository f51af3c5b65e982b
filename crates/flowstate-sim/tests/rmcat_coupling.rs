//! The coupling of `nada`, `scream`, `scream-v2` and `ledbat` flows: an allocation must
//! change the controller's rates (NADA: r_ref with r_vin and r_send, paper 003 Table I;
//! SCReAM v1 and v2: the target bitrate) and a LEDBAT window flow must take its cwnd cap. The
//! priority tests fail when `apply_allowance` does nothing: uncoupled flows of one kind
//! share about equally.

mod common;

use flowstate_sim::metrics::Summary;

fn two_flows(kind: &str, mechanism: &str, other: &str) -> String {
    format!(
        r#"
name = "coupled-{kind}"
duration = "60s"
[link]
capacity = "2Mbps"
delay = "50ms"
queue = "300ms"
[coupling]
mechanism = "{mechanism}"
[[flows]]
name = "a"
kind = "{kind}"
group = "pair"
priority = 1.0
[[flows]]
name = "b"
kind = "{other}"
group = "pair"
priority = 2.0
[measure]
start = "20s"
end = "60s"
"#
    )
}

fn rates(s: &Summary) -> (f64, f64) {
    (s.flows[0].throughput_mbps, s.flows[1].throughput_mbps)
}

#[test]
fn fse_priorities_set_nada_rates() {
    let coupled = common::summary(&two_flows("nada", "fse", "nada"));
    let (a, b) = rates(&coupled);
    let uncoupled = common::summary(&two_flows("nada", "none", "nada"));
    let (ua, ub) = rates(&uncoupled);
    eprintln!(
        "NADA x2, priorities 1:2 on 2 Mbit/s: fse {a:.3} / {b:.3} (ratio {:.2}), uncoupled {ua:.3} / {ub:.3} (ratio {:.2})",
        b / a,
        ub / ua
    );
    assert!((1.6..2.4).contains(&(b / a)), "fse ratio {}", b / a);
    assert!(
        (0.7..1.4).contains(&(ub / ua)),
        "uncoupled ratio {}",
        ub / ua
    );
    assert!(
        coupled.aggregate.utilization > 0.8,
        "{}",
        coupled.aggregate.utilization
    );
}

#[test]
fn fse_priorities_set_scream_targets() {
    let coupled = common::summary(&two_flows("scream", "fse", "scream"));
    let (a, b) = rates(&coupled);
    eprintln!(
        "SCReAM x2, priorities 1:2 on 2 Mbit/s: fse {a:.3} / {b:.3} (ratio {:.2})",
        b / a
    );
    assert!((1.5..2.5).contains(&(b / a)), "fse ratio {}", b / a);
    assert!(
        coupled.aggregate.utilization > 0.7,
        "{}",
        coupled.aggregate.utilization
    );
}

#[test]
fn fse_ng_couples_nada_with_sctp_and_ledbat() {
    for data in ["sctp", "ledbat"] {
        let s = common::summary(&two_flows("nada", "fse-ng", data));
        let (media, bulk) = rates(&s);
        let q = s.flows[0].queuing_delay_ms.mean.unwrap_or(f64::NAN);
        eprintln!("NADA + {data} under FSE-NG: {media:.3} / {bulk:.3} Mbit/s, NADA queuing delay {q:.1} ms");
        assert!(media > 0.3, "{data}: NADA {media}");
        assert!(bulk > 0.5, "{data}: {bulk}");
        assert!(
            s.aggregate.utilization > 0.8,
            "{data}: {}",
            s.aggregate.utilization
        );
    }
}

#[test]
fn fse_priorities_set_scream_v2_targets() {
    let coupled = common::summary(&two_flows("scream-v2", "fse", "scream-v2"));
    let (a, b) = rates(&coupled);
    eprintln!(
        "SCReAM v2 x2, priorities 1:2 on 2 Mbit/s: fse {a:.3} / {b:.3} (ratio {:.2})",
        b / a
    );
    assert!((1.5..2.5).contains(&(b / a)), "fse ratio {}", b / a);
    assert!(
        coupled.aggregate.utilization > 0.7,
        "{}",
        coupled.aggregate.utilization
    );
}

/// A coupled scream-v2 flow keeps the rate it is given: the allowance sets the window
/// whose target it is, not a small window's scaled-down rate that shrinks at every
/// report (each flow alone in its group would then fall from its 300 kbit/s start).
#[test]
fn every_mechanism_for_window_flows_couples_scream_v2_with_sctp() {
    for mechanism in ["fse-ng", "ext-fse-ng", "fsev2"] {
        let s = common::summary(&two_flows("scream-v2", mechanism, "sctp"));
        let (media, data) = rates(&s);
        eprintln!("scream-v2 (P 1) + sctp (P 2) under {mechanism}: {media:.3} / {data:.3} Mbit/s");
        assert!(media > 0.4, "{mechanism}: scream-v2 {media}");
        assert!(
            s.aggregate.utilization > 0.8,
            "{mechanism}: {}",
            s.aggregate.utilization
        );
    }
}
