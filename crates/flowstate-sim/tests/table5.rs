//! Paper 000, Table 5 (one GCC flow 0-120 s, one SCTP flow 10-120 s, 2 Mbit/s, RTT
//! 100 ms, 300 ms queue, equal priorities), from the files in scenarios/.
//!
//! Paper values (Table 5, averages of 10 runs):
//!
//! | | uncoupled | FSE-NG | Ext. FSE-NG | FSEv2 |
//! |---|---|---|---|---|
//! | GCC Mbit/s | 0.106 | 0.955 | 1.001 | 0.946 |
//! | SCTP Mbit/s | 1.889 | 0.942 | 0.954 | 0.948 |
//! | Jain | 0.556 | 1 | 0.999 | 1 |
//! | GCC RTT ms | 268 | 114 | 120 | 115 |

mod common;

use flowstate_sim::metrics::{FlowSummary, Summary};
use flowstate_sim::run_file;
use std::path::PathBuf;

fn summary(mechanism: &str) -> Summary {
    summary_seed(mechanism, None)
}

fn summary_seed(mechanism: &str, seed: Option<u64>) -> Summary {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../scenarios")
        .join(format!("p000-table5-{mechanism}.toml"));
    run_file(&path, seed)
        .unwrap_or_else(|e| panic!("{mechanism}: {e}"))
        .summary
}

fn flow<'a>(s: &'a Summary, name: &str) -> &'a FlowSummary {
    s.flows
        .iter()
        .find(|f| f.name == name)
        .unwrap_or_else(|| panic!("flow {name}"))
}

fn gcc_rtt(s: &Summary) -> f64 {
    flow(s, "gcc").rtt_ms.mean.expect("GCC has RTT samples")
}

/// Uncoupled: SCTP fills the 300 ms queue and GCC starves.
#[test]
fn uncoupled_gcc_starves() {
    let s = summary("none");
    let gcc = flow(&s, "gcc").throughput_mbps;
    let sctp = flow(&s, "sctp").throughput_mbps;
    assert!(
        s.aggregate.jain_index < 0.75,
        "Jain {}",
        s.aggregate.jain_index
    );
    assert!(gcc < 0.5 && sctp > 1.4, "gcc {gcc} sctp {sctp}");
    assert!(
        s.aggregate.utilization > 0.95,
        "{}",
        s.aggregate.utilization
    );
    assert!(gcc_rtt(&s) > 200.0, "queue filled: GCC RTT {}", gcc_rtt(&s));
    assert!(flow(&s, "gcc").n_dd.is_some_and(|n| n > 0));
}

fn assert_fair_and_low_delay(mechanism: &str, max_rtt_ms: f64) {
    assert_fair_and_low_delay_with(mechanism, max_rtt_ms, 0.98);
}

fn assert_fair_and_low_delay_with(mechanism: &str, max_rtt_ms: f64, min_jain: f64) {
    let s = summary(mechanism);
    common::assert_used_and_fair(mechanism, &s, 0.85, min_jain);
    let uncoupled = gcc_rtt(&summary("none"));
    let rtt = gcc_rtt(&s);
    assert!(
        rtt < max_rtt_ms && rtt < 0.6 * uncoupled,
        "{mechanism}: GCC RTT {rtt} ms (uncoupled {uncoupled} ms)"
    );
}

#[test]
fn fse_ng_is_fair_with_low_delay() {
    assert_fair_and_low_delay("fse-ng", 150.0);
}

/// Extended FSE-NG: low delay and fairness (the default seed; Jain 0.996 over seeds
/// 1-10 since the chromium preset counts RTP overhead in its target, docs/ALGORITHMS.md
/// GCC item 19); `ext_fse_ng_matches_paper_fairness` checks the paper's 0.98 on seeds
/// 1-5. SCTP is held at FSE_R x RTT_base / RTT (its cap uses the minimum RTT, its
/// packets see GCC's 20-30 ms queue); docs/ALGORITHMS.md, "Known deviations".
#[test]
fn ext_fse_ng_is_fair_with_low_delay() {
    assert_fair_and_low_delay_with("ext-fse-ng", 150.0, 0.97);
}

#[test]
fn ext_fse_ng_matches_paper_fairness() {
    for seed in 1..=5 {
        let s = summary_seed("ext-fse-ng", Some(seed));
        common::assert_fair(&format!("seed {seed}"), &s, 0.98);
    }
}

/// FSE-NG's fairness and delay hold for other seeds too.
#[test]
fn fse_ng_claims_hold_across_seeds() {
    for seed in 2..=4 {
        let s = summary_seed("fse-ng", Some(seed));
        common::assert_fair(&format!("seed {seed}"), &s, 0.98);
        let rtt = gcc_rtt(&s);
        assert!(rtt < 150.0, "seed {seed}: GCC RTT {rtt}");
    }
}

/// FSEv2 reaches the paper's fairness.
#[test]
fn fsev2_is_fair() {
    let s = summary("fsev2");
    assert!(
        s.aggregate.jain_index >= 0.98,
        "Jain {}",
        s.aggregate.jain_index
    );
    let gcc = flow(&s, "gcc").throughput_mbps;
    assert!((0.8..1.2).contains(&gcc), "gcc {gcc}");
}

/// Paper 000 reports a GCC RTT of 115 ms under FSEv2. Here a standing queue of about
/// 200 ms survives SCTP's slow start (see docs/ALGORITHMS.md, Simulator, "Known
/// deviations"): the claim does not reproduce yet.
#[test]
#[ignore = "known failure: FSEv2 keeps a standing queue, GCC RTT ~200 ms (paper: 115 ms; uncoupled ~305 ms); mechanism in docs/ALGORITHMS.md, FSEv2"]
fn fsev2_has_low_delay() {
    assert_fair_and_low_delay("fsev2", 150.0);
}

/// The single-file variant is the uncoupled run under another name.
#[test]
fn default_table5_file_is_uncoupled() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/p000-table5.toml");
    let a = run_file(&path, None).expect("runs");
    let b = summary("none");
    assert_eq!(a.summary.flows, b.flows);
}
