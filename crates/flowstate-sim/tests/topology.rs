//! Named links and routes (crate::topology): delays add up along a route, a packet
//! dropped at a link is dropped there, a flow gets its route's smallest capacity, one
//! named link behaves exactly as the dumbbell, and the parking lot shows its known
//! unfairness.

use flowstate_sim::engine::TraceKind;
use flowstate_sim::{run, Scenario};
use proptest::prelude::*;
use std::path::Path;

fn scenario(text: &str) -> Scenario {
    Scenario::from_toml(text, "topology.toml").unwrap_or_else(|e| panic!("{e}"))
}

fn error(text: &str) -> String {
    match Scenario::from_toml(text, "t.toml") {
        Ok(_) => panic!("accepted:\n{text}"),
        Err(e) => e.to_string(),
    }
}

/// One CBR packet every 100 ms over two links of 10 and 25 ms, with a 3 ms path
/// delay: each arrives 10 + 25 + 3 ms after it is sent, plus its serialization on
/// each link (1000 B at 8 Mbit/s = 1 ms, twice).
#[test]
fn a_two_link_route_delay_is_the_sum() {
    let s = scenario(
        r#"
name = "two-links"
duration = "2s"
[measure]
trace = true
[[links]]
name = "a"
capacity = "8Mbps"
delay = "10ms"
queue = "10pkt"
[[links]]
name = "b"
capacity = "8Mbps"
delay = "25ms"
queue = "10pkt"
[[flows]]
name = "cbr"
kind = "cbr"
route = ["a", "b"]
return_delay = "5ms"
path_delay = "3ms"
overrides = { rate = "80kbps", packet_size = "1000B" }
"#,
    );
    let r = run(&s, 1).expect("runs");
    let trace = r.trace.expect("kept");
    let data = |k: TraceKind| {
        trace
            .iter()
            .filter(move |x| x.kind == k && x.dir == 0)
            .collect::<Vec<_>>()
    };
    let sends = data(TraceKind::Send);
    let delivers = data(TraceKind::Deliver);
    assert!(sends.len() >= 15, "{} packets sent", sends.len());
    for d in &delivers {
        let s = sends
            .iter()
            .find(|s| s.packet == d.packet)
            .expect("sent before");
        assert_eq!(
            d.time_us - s.time_us,
            1_000 + 10_000 + 1_000 + 25_000 + 3_000
        );
        assert_eq!((s.link, d.link), (0, 1), "sent into a, delivered from b");
    }
    // Each data packet serializes on a then b.
    let ser: Vec<u8> = data(TraceKind::Serialize)
        .iter()
        .filter(|x| x.packet == sends[0].packet)
        .map(|x| x.link)
        .collect();
    assert_eq!(ser, vec![0, 1]);
}

/// 4 Mbit/s of CBR into a fast link then a 1 Mbit/s link with a 5-packet queue: every
/// drop happens at the second link.
#[test]
fn a_packet_dropped_at_link_2_is_dropped_there() {
    let s = scenario(
        r#"
name = "drop-at-2"
duration = "3s"
[measure]
trace = true
[[links]]
name = "fast"
capacity = "10Mbps"
delay = "5ms"
queue = "5pkt"
[[links]]
name = "slow"
capacity = "1Mbps"
delay = "5ms"
queue = "5pkt"
[[flows]]
name = "cbr"
kind = "cbr"
route = ["fast", "slow"]
overrides = { rate = "4Mbps", packet_size = "1000B" }
"#,
    );
    let r = run(&s, 1).expect("runs");
    let trace = r.trace.expect("kept");
    let drops: Vec<u8> = trace
        .iter()
        .filter(|x| x.kind == TraceKind::Drop)
        .map(|x| x.link)
        .collect();
    assert!(drops.len() > 100, "{} drops", drops.len());
    assert!(drops.iter().all(|&l| l == 1), "a drop at the fast link");
    // The per-link metrics count them at the slow link, which is busy all the time.
    let links = &r.summary.links;
    assert_eq!(
        (links[0].name.as_str(), links[0].dropped_packets),
        ("fast", 0)
    );
    assert_eq!(links[1].dropped_packets as usize, drops.len());
    assert!(links[1].utilization > 0.97, "{:?}", links[1]);
    assert!((links[0].utilization - 0.4).abs() < 0.01, "{:?}", links[0]);
    assert!(
        links[1].queuing_delay_ms.mean > Some(30.0),
        "{:?}",
        links[1]
    );
    let slow_rows: Vec<_> = r.link_series.iter().filter(|x| x.link == "slow").collect();
    assert_eq!(slow_rows.len(), 6, "a row per 500 ms bin");
    assert_eq!(
        slow_rows.iter().map(|x| x.dropped_packets).sum::<u64>() as usize,
        drops.len()
    );
    // The flow counts them as its losses: about 3/4 of what it sends.
    let f = &r.summary.flows[0];
    assert!((f.loss_ratio - 0.75).abs() < 0.05, "loss {}", f.loss_ratio);
}

/// A greedy TCP flow alone on hops 1 and 2 of a parking lot of 3, 1.5 and 2 Mbit/s
/// gets the smaller capacity of its route: about 1.5 Mbit/s, never more.
#[test]
fn a_flow_on_links_1_and_2_gets_the_min_capacity() {
    let s = scenario(
        r#"
name = "min-capacity"
duration = "30s"
[measure]
start = "5s"
[parking_lot]
hops = 3
capacities = ["3Mbps", "1.5Mbps", "2Mbps"]
link = { delay = "10ms", queue = "100ms" }
[[flows]]
name = "tcp"
kind = "tcp-cubic"
hops = [1, 2]
"#,
    );
    let r = run(&s, 1).expect("runs");
    let t = r.summary.flows[0].throughput_mbps;
    assert!(t <= 1.5 + 1e-9, "above the route's minimum: {t}");
    assert!(t > 1.5 * 0.9, "far below the route's minimum: {t}");
    // Hop 2 is the bottleneck: full; hop 1 half used; hop 3 carries nothing.
    let u: Vec<f64> = r.summary.links.iter().map(|l| l.utilization).collect();
    assert!(u[1] > 0.9 && u[0] < 0.55 && u[2] == 0.0, "{u:?}");
    // Its time series shows its route's capacity: min(3, 1.5) Mbit/s.
    assert!(r.series.iter().all(|row| row.capacity_mbps == 1.5));
}

fn topologies() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/topologies")
}

/// The parking-lot unfairness: the long flow, which crosses every hop, gets less than
/// each short flow, which crosses one (TCP NewReno on drop-tail queues).
#[test]
fn parking_lot_long_flow_gets_less_than_each_short_flow() {
    let s = flowstate_sim::run::load(&topologies().join("parking-lot.toml")).expect("loads");
    let r = run(&s, 1).expect("runs");
    let tput = |name: &str| {
        r.summary
            .flows
            .iter()
            .find(|f| f.name == name)
            .map(|f| f.throughput_mbps)
            .expect("flow")
    };
    let long = tput("long");
    for short in ["short1", "short2", "short3"] {
        assert!(
            long < tput(short),
            "long {long} Mbit/s >= {short} {} Mbit/s",
            tput(short)
        );
    }
    // Every hop stays busy: long + short k fill hop k.
    for short in ["short1", "short2", "short3"] {
        assert!(long + tput(short) > 2.0 * 0.9, "hop of {short} underused");
    }
    for l in &r.summary.links {
        assert!(l.utilization > 0.95, "{l:?}");
    }
    assert!(r.summary.aggregate.utilization > 0.95);
}

/// The compact parking lot and the same topology written out as links and routes are
/// the same run.
#[test]
fn compact_and_written_out_parking_lots_are_the_same_run() {
    let a = flowstate_sim::run::load(&topologies().join("parking-lot.toml")).expect("loads");
    let b = flowstate_sim::run::load(&topologies().join("parking-lot-links.toml")).expect("loads");
    let (mut a, mut b) = (a, b);
    a.duration.0 = 10.0;
    b.duration.0 = 10.0;
    a.measure.start = None;
    b.measure.start = None;
    let ra = run(&a, 3).expect("runs");
    let rb = run(&b, 3).expect("runs");
    assert_eq!(ra.trace_hash, rb.trace_hash);
}

const JITTERY: &str = r#"
name = "jittery"
duration = "8s"
[parking_lot]
hops = 2
link = { capacity = "2Mbps", delay = "10ms", queue = "50ms", jitter = "2ms", loss = 0.01 }
[[flows]]
name = "long"
kind = "gcc"
hops = [1, 2]
[[flows]]
name = "cross"
kind = "tcp-cubic"
hops = [2]
return_route = ["hop1"]
"#;

/// Same scenario and seed: the same trace hash (links with jitter and loss draw from
/// their own seeded streams); another seed: another run.
#[test]
fn topology_runs_are_deterministic() {
    let s = scenario(JITTERY);
    let a = run(&s, 5).expect("runs");
    let b = run(&s, 5).expect("runs");
    assert_eq!(a.trace_hash, b.trace_hash);
    assert_eq!(a.summary, b.summary);
    assert_eq!(a.link_series, b.link_series);
    assert_ne!(a.trace_hash, run(&s, 6).expect("runs").trace_hash);
}

fn dumbbell(
    kind: &str,
    cap_kbps: u32,
    delay_ms: u32,
    queue_pkt: u32,
    path_ms: u32,
    jitter: bool,
) -> (String, String) {
    let extra = if jitter {
        "jitter = \"1ms\"\nloss = 0.01\n"
    } else {
        ""
    };
    let link = format!("capacity = \"{cap_kbps}kbps\"\ndelay = \"{delay_ms}ms\"\nqueue = \"{queue_pkt}pkt\"\n{extra}");
    let back = format!(
        "capacity = \"{}kbps\"\ndelay = \"{}ms\"\nqueue = \"50pkt\"\n",
        cap_kbps * 2,
        delay_ms / 2
    );
    let flow = format!(
        "[[flows]]\nname = \"a\"\nkind = \"{kind}\"\npath_delay = \"{path_ms}ms\"\n{}",
        if kind == "cbr" {
            "overrides = { rate = \"1Mbps\" }\n"
        } else {
            ""
        }
    );
    let second = "[[flows]]\nname = \"b\"\nkind = \"tcp-newreno\"\nstart = \"1s\"\n";
    let old = format!(
        "name = \"x\"\nduration = \"4s\"\n[link]\n{link}[reverse_link]\n{back}{flow}{second}"
    );
    let new = format!(
        "name = \"x\"\nduration = \"4s\"\n[[links]]\nname = \"fwd\"\n{link}[[links]]\nname = \"rev\"\n{back}{flow}route = [\"fwd\"]\nreturn_route = [\"rev\"]\n{second}route = [\"fwd\"]\nreturn_route = [\"rev\"]\n"
    );
    (old, new)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]
    /// A route through one named link (feedback through another) is the dumbbell:
    /// the same trace, event for event.
    #[test]
    fn one_link_route_equals_the_dumbbell(
        kind in prop::sample::select(vec!["cbr", "tcp-cubic", "gcc", "sctp"]),
        cap in 500u32..5000,
        delay in 0u32..60,
        queue in 2u32..60,
        path in 0u32..30,
        jitter in any::<bool>(),
        seed in 0u64..1000,
    ) {
        let (old, new) = dumbbell(kind, cap, delay, queue, path, jitter);
        let a = run(&scenario(&old), seed).expect("runs");
        let b = run(&scenario(&new), seed).expect("runs");
        prop_assert_eq!(a.trace_hash, b.trace_hash);
        prop_assert_eq!(a.events, b.events);
    }
}

const LINKS: &str = r#"
name = "v"
duration = "5s"
[[links]]
name = "a"
capacity = "1Mbps"
delay = "10ms"
queue = "10pkt"
[[links]]
name = "b"
capacity = "1Mbps"
delay = "10ms"
queue = "10pkt"
"#;

fn with_flow(flow: &str) -> String {
    format!("{LINKS}[[flows]]\nname = \"f\"\nkind = \"cbr\"\noverrides = {{ rate = \"100kbps\" }}\n{flow}\n")
}

#[test]
fn route_errors_name_the_field() {
    let cases = [
        (with_flow("route = []"), "t.toml: flows[0].route: must name at least one link (links: a, b)"),
        (with_flow("route = [\"a\", \"c\"]"), "t.toml: flows[0].route[1]: unknown link \"c\" (links: a, b)"),
        (with_flow("route = [\"a\", \"b\", \"a\"]"), "t.toml: flows[0].route[2]: \"a\" is already crossed at route[0] (a route crosses a link at most once: no cycles)"),
        (with_flow(""), "t.toml: flows[0].route: required field is missing: with named links every flow names the links its data crosses (links: a, b)"),
        (with_flow("route = [\"a\"]\nreturn_route = [\"x\"]"), "t.toml: flows[0].return_route[0]: unknown link \"x\" (links: a, b)"),
        (with_flow("route = [\"a\"]\nreturn_route = [\"b\"]\nreturn_delay = \"5ms\""), "t.toml: flows[0].return_delay: give either return_route or return_delay, not both"),
        (with_flow("route = [\"a\"]\nreturn_delay = \"-5ms\""), "t.toml: flows[0].return_delay: must be >= 0 s, got -0.005 s"),
        (with_flow("route = [\"a\"]\ndirection = \"reverse\""), "t.toml: flows[0].direction: a flow on named links goes where its route says: give route and return_route instead of direction = \"reverse\""),
        (with_flow("hops = [1]"), "t.toml: flows[0].hops: only with [parking_lot] (with [[links]], give a route)"),
    ];
    for (text, want) in cases {
        assert_eq!(error(&text), want);
    }
}

#[test]
fn link_errors_name_the_field() {
    let flow = "[[flows]]\nname = \"f\"\nkind = \"cbr\"\noverrides = { rate = \"100kbps\" }\nroute = [\"a\"]\n";
    let cases = [
        (
            format!("name = \"v\"\nduration = \"5s\"\n[[links]]\nname = \"a\"\ncapacity = \"1Mbps\"\ndelay = \"1ms\"\nqueue = \"5pkt\"\n[[links]]\nname = \"a\"\ncapacity = \"1Mbps\"\ndelay = \"1ms\"\nqueue = \"5pkt\"\n{flow}"),
            "t.toml: links[1].name: \"a\" is already used by links[0] (link names must be unique)",
        ),
        (
            format!("name = \"v\"\nduration = \"5s\"\n[[links]]\ncapacity = \"1Mbps\"\ndelay = \"1ms\"\nqueue = \"5pkt\"\n{flow}"),
            "t.toml: links[0].name: required field is missing (routes name the links they cross)",
        ),
        (
            format!("name = \"v\"\nduration = \"5s\"\n[[links]]\nname = \"a\"\ncapacity = \"0Mbps\"\ndelay = \"1ms\"\nqueue = \"5pkt\"\n{flow}"),
            "t.toml: links[0].capacity: must be > 0 bit/s, got 0 bit/s",
        ),
        (
            format!("name = \"v\"\nduration = \"5s\"\n[link]\ncapacity = \"1Mbps\"\ndelay = \"1ms\"\nqueue = \"5pkt\"\n[[links]]\nname = \"a\"\ncapacity = \"1Mbps\"\ndelay = \"1ms\"\nqueue = \"5pkt\"\n{flow}"),
            "t.toml: link: give either the dumbbell ([link]) or named links ([[links]] / [parking_lot]), not both",
        ),
        (
            format!("name = \"v\"\nduration = \"5s\"\n{flow}"),
            "t.toml: link: required field is missing (or give named links: [[links]] or [parking_lot])",
        ),
        (
            "name = \"v\"\nduration = \"5s\"\n[link]\nname = \"x\"\ncapacity = \"1Mbps\"\ndelay = \"1ms\"\nqueue = \"5pkt\"\n[[flows]]\nname = \"f\"\nkind = \"cbr\"\noverrides = { rate = \"100kbps\" }\n".to_string(),
            "t.toml: link.name: only [[links]] entries take a name",
        ),
        (
            format!("name = \"v\"\nduration = \"5s\"\n[link]\ncapacity = \"1Mbps\"\ndelay = \"1ms\"\nqueue = \"5pkt\"\n{flow}"),
            "t.toml: flows[0].route: only with named links ([[links]] or [parking_lot]); the dumbbell's flows cross [link]",
        ),
        (
            "name = \"v\"\nduration = \"5s\"\n[parking_lot]\nhops = 0\nlink = { capacity = \"1Mbps\", delay = \"1ms\", queue = \"5pkt\" }\n[[flows]]\nname = \"f\"\nkind = \"cbr\"\noverrides = { rate = \"100kbps\" }\nhops = [1]\n".to_string(),
            "t.toml: parking_lot.hops: must be between 1 and 255, got 0",
        ),
        (
            "name = \"v\"\nduration = \"5s\"\n[parking_lot]\nhops = 3\nlink = { capacity = \"1Mbps\", delay = \"1ms\", queue = \"5pkt\" }\n[[flows]]\nname = \"f\"\nkind = \"cbr\"\noverrides = { rate = \"100kbps\" }\nhops = [2, 4]\n".to_string(),
            "t.toml: flows[0].hops: must be [k] or [first, last] with 1 <= first <= last <= 3 (the parking lot's hops), got [2, 4]",
        ),
        (
            "name = \"v\"\nduration = \"5s\"\n[parking_lot]\nhops = 2\ncapacities = [\"1Mbps\"]\nlink = { delay = \"1ms\", queue = \"5pkt\" }\n[[flows]]\nname = \"f\"\nkind = \"cbr\"\noverrides = { rate = \"100kbps\" }\nhops = [1]\n".to_string(),
            "t.toml: parking_lot.capacities: must give one capacity per hop (2), got 1",
        ),
        (
            "name = \"v\"\nduration = \"5s\"\n[parking_lot]\nhops = 2\nlink = { capacity = \"1Mbps\", delay = \"1ms\", queue = \"5pkt\" }\n[[links]]\nname = \"hop2\"\ncapacity = \"1Mbps\"\ndelay = \"1ms\"\nqueue = \"5pkt\"\n[[flows]]\nname = \"f\"\nkind = \"cbr\"\noverrides = { rate = \"100kbps\" }\nhops = [1]\n".to_string(),
            "t.toml: links[0].name: \"hop2\" is already used by the parking lot's hop 2 (link names must be unique)",
        ),
    ];
    for (text, want) in cases {
        assert_eq!(error(&text), want);
    }
}

/// The emulator and the testbed take one bottleneck per direction: a route of one
/// named link is accepted, a multi-link route refused with one line.
#[test]
fn one_bottleneck_is_accepted_and_several_refused() {
    let one = scenario(&with_flow("route = [\"b\"]\nreturn_route = [\"a\"]"));
    let b = one.bottleneck("t.toml").expect("one bottleneck");
    assert_eq!(b.forward.delay.0, 0.01);
    assert!(b.reverse.is_some());
    let two = scenario(&with_flow("route = [\"a\", \"b\"]"));
    assert_eq!(
        two.bottleneck("t.toml").expect_err("two links").to_string(),
        "t.toml: flows[0].route: crosses 2 links (a, b); the emulator and the testbed emulate one bottleneck per direction; run multi-link topologies in the simulator (flowstate run)"
    );
    let lot = scenario(JITTERY);
    assert_eq!(
        lot.bottleneck("t.toml").expect_err("parking lot").to_string(),
        "t.toml: flows[0].hops: crosses 2 links (hop1, hop2); the emulator and the testbed emulate one bottleneck per direction; run multi-link topologies in the simulator (flowstate run)"
    );
}

/// The TOML examples of docs/SCENARIOS.md's "Topologies" section parse and run (each
/// with a name and a short duration put in front).
#[test]
fn topology_doc_examples_run() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/SCENARIOS.md");
    let doc = std::fs::read_to_string(path).expect("docs/SCENARIOS.md exists");
    let section = doc
        .split("### Topologies")
        .nth(1)
        .and_then(|s| s.split("\n### ").next())
        .expect("Topologies section");
    let mut n = 0;
    for block in section.split("```toml").skip(1) {
        let body = block.split("```").next().unwrap_or_default();
        let text = format!("name = \"doc\"\nduration = \"3s\"\n{body}");
        let s = scenario(&text);
        assert!(run(&s, 1).expect("runs").events > 0);
        n += 1;
    }
    assert_eq!(n, 2, "both examples checked");
}

/// Every scenario under scenarios/topologies/ loads and runs (its first 5 s).
#[test]
fn topology_scenario_files_run() {
    let mut n = 0;
    for entry in std::fs::read_dir(topologies()).expect("scenarios/topologies") {
        let path = entry.expect("entry").path();
        if path.extension().is_some_and(|e| e == "toml") {
            let mut s = flowstate_sim::run::load(&path).unwrap_or_else(|e| panic!("{e}"));
            s.duration.0 = 5.0;
            s.measure.start = None;
            for f in &mut s.flows {
                f.start = f.start.filter(|t| t.0 < 5.0);
            }
            assert!(run(&s, 1).expect("runs").events > 0, "{}", path.display());
            n += 1;
        }
    }
    assert!(n >= 3, "{n} scenario files");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]
    /// Any routes over any link names: the scenario is refused with one line naming a
    /// field, or it runs; never a panic. A run's per-link counts are consistent: drops
    /// and losses at a link are at most its arrivals, its utilization at most 1.
    #[test]
    fn random_routes_are_refused_in_one_line_or_run(
        n_links in 1usize..4,
        routes in prop::collection::vec(prop::collection::vec(0usize..5, 0..4), 1..4),
        back in prop::collection::vec(prop::option::of(prop::collection::vec(0usize..5, 0..3)), 1..4),
        seed in 0u64..100,
    ) {
        let name = |k: usize| format!("l{k}");
        let mut text = String::from("name = \"r\"\nduration = \"2s\"\n");
        for k in 0..n_links {
            text.push_str(&format!(
                "[[links]]\nname = \"{}\"\ncapacity = \"{}Mbps\"\ndelay = \"{}ms\"\nqueue = \"8pkt\"\n",
                name(k), k + 1, 5 * k
            ));
        }
        for (i, r) in routes.iter().enumerate() {
            let list = |r: &[usize]| r.iter().map(|&k| format!("\"{}\"", name(k))).collect::<Vec<_>>().join(", ");
            text.push_str(&format!("[[flows]]\nname = \"f{i}\"\nkind = \"tcp-newreno\"\nroute = [{}]\n", list(r)));
            if let Some(Some(b)) = back.get(i) {
                text.push_str(&format!("return_route = [{}]\n", list(b)));
            }
        }
        match Scenario::from_toml(&text, "r.toml") {
            Err(e) => {
                let m = e.to_string();
                prop_assert!(m.starts_with("r.toml: flows[") && !m.contains('\n'), "{}", m);
            }
            Ok(s) => {
                let r = run(&s, seed).expect("a valid scenario runs");
                for l in &r.summary.links {
                    prop_assert!(l.dropped_packets + l.lost_packets <= l.arrived_packets, "{:?}", l);
                    prop_assert!(l.utilization <= 1.0 + 1e-9, "{:?}", l);
                }
            }
        }
    }
}
