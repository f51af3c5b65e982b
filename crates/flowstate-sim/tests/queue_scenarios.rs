//! Queue disciplines in scenarios: the table on every kind of link, its errors naming
//! the field, the per-link queue metrics of a run, and runs that repeat by seed.

use flowstate_sim::trace_record::TraceKind;
use flowstate_sim::{run, Scenario};

/// Two CBR flows overloading a 2 Mbit/s link (2.5 Mbit/s offered) under `queue`.
fn dumbbell(queue: &str, trace: bool) -> String {
    format!(
        r#"
name = "t"
duration = "20s"
[link]
capacity = "2Mbps"
delay = "25ms"
queue = {queue}
[[flows]]
name = "a"
kind = "cbr"
overrides = {{ rate = "1.5Mbps" }}
[[flows]]
name = "b"
kind = "cbr"
overrides = {{ rate = "1Mbps", packet_size = "1000B" }}
[measure]
trace = {trace}
"#
    )
}

fn err(text: &str) -> String {
    Scenario::from_toml(text, "s.toml")
        .expect_err("invalid")
        .to_string()
}

#[test]
fn errors_name_the_links_queue_key() {
    let e = err(&dumbbell(
        r#"{ discipline = "codel", tarket = "5ms" }"#,
        false,
    ));
    assert!(
        e.contains("link.queue.tarket") && e.contains("unknown key for codel"),
        "{e}"
    );
    assert!(!e.contains('\n'), "one line: {e}");
    let e = err(&dumbbell(r#"{ discipline = "pie", alpha = -1 }"#, false));
    assert!(
        e.contains("link.queue.alpha") && e.contains("[0, 100]"),
        "{e}"
    );
    let e = err(&dumbbell(
        r#"{ discipline = "dual-pi2", limit = "0pkt" }"#,
        false,
    ));
    assert!(e.contains("link.queue.limit"), "{e}");
    let e = err(&dumbbell(r#""0pkt""#, false));
    assert!(
        e.contains("link.queue:") && e.contains("whole number of packets"),
        "{e}"
    );
}

#[test]
fn named_links_and_parking_lots_take_the_table() {
    let links = r#"
name = "t"
duration = "5s"
[[links]]
name = "core"
capacity = "2Mbps"
delay = "10ms"
queue = { discipline = "fq-codel", flows = 8 }
[[flows]]
name = "a"
kind = "cbr"
route = ["core"]
overrides = { rate = "1Mbps" }
"#;
    let s = Scenario::from_toml(links, "s.toml").expect("valid");
    let r = run(&s, 1).expect("runs");
    assert_eq!(
        r.summary.links[0]
            .queue
            .as_ref()
            .map(|q| q.discipline.as_str()),
        Some("fq-codel")
    );
    let lot = r#"
name = "t"
duration = "5s"
[parking_lot]
hops = 2
link = { capacity = "2Mbps", delay = "10ms", queue = { discipline = "pie", target = "20ms" } }
[[flows]]
name = "a"
kind = "cbr"
hops = [1, 2]
overrides = { rate = "1Mbps" }
"#;
    let s = Scenario::from_toml(lot, "s.toml").expect("valid");
    let r = run(&s, 1).expect("runs");
    assert!(r
        .summary
        .links
        .iter()
        .all(|l| l.queue.as_ref().is_some_and(|q| q.discipline == "pie")));
    let bad = lot.replace("target = \"20ms\"", "target = \"20\"");
    let e = err(&bad);
    assert!(e.contains("parking_lot.link.queue.target"), "{e}");
}

#[test]
fn a_run_counts_drops_and_marks_by_reason() {
    for (q, aqm) in [
        (r#""100ms""#, false),
        (r#"{ discipline = "codel" }"#, true),
        (r#"{ discipline = "fq-codel" }"#, true),
        (r#"{ discipline = "pie" }"#, true),
        (r#"{ discipline = "dual-pi2" }"#, true),
    ] {
        let s = Scenario::from_toml(&dumbbell(q, true), "s.toml").expect("valid");
        let r = run(&s, 1).expect("runs");
        let link = &r.summary.links[0];
        let trace = r.trace.expect("kept");
        let count =
            |k: TraceKind| trace.iter().filter(|t| t.kind == k && t.link == 0).count() as u64;
        assert!(link.dropped_packets > 0, "{q}: overloaded");
        match &link.queue {
            None => {
                assert!(!aqm, "{q}");
                assert_eq!(count(TraceKind::AqmDrop), 0);
            }
            Some(qs) => {
                assert!(aqm, "{q}");
                // Every drop is over the limit or by the AQM; the flows are Not-ECT.
                assert_eq!(
                    qs.overlimit_drops + qs.aqm_drops,
                    link.dropped_packets,
                    "{q}"
                );
                assert!(qs.aqm_drops > 0, "{q}: the AQM acted");
                assert_eq!(qs.aqm_marks + qs.step_marks, 0, "{q}: nothing to mark");
                assert_eq!(count(TraceKind::AqmDrop), qs.aqm_drops, "{q}");
                assert_eq!(count(TraceKind::Drop), qs.overlimit_drops, "{q}");
                assert!(qs.classic_sojourn_ms.p95.is_some(), "{q}");
                assert_eq!(qs.l4s_sojourn_ms.is_some(), q.contains("dual-pi2"), "{q}");
            }
        }
        assert_eq!(
            count(TraceKind::Drop) + count(TraceKind::AqmDrop),
            link.dropped_packets
        );
    }
}

#[test]
fn a_run_with_a_random_discipline_repeats_by_seed() {
    for q in [
        r#"{ discipline = "pie" }"#,
        r#"{ discipline = "dual-pi2" }"#,
        r#"{ discipline = "fq-codel" }"#,
    ] {
        let s = Scenario::from_toml(&dumbbell(q, false), "s.toml").expect("valid");
        let a = run(&s, 4).expect("runs").trace_hash;
        let b = run(&s, 4).expect("runs").trace_hash;
        assert_eq!(a, b, "{q}");
        assert!(a.is_some());
    }
}
