//! Property tests: no panics on any input; conservation laws of the engine.

use flowstate_sim::{run_toml, Scenario};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Arbitrary text never panics the parser; errors are one line naming the file.
    #[test]
    fn parser_never_panics(text in "\\PC{0,200}") {
        if let Err(e) = Scenario::from_toml(&text, "x.toml") {
            let m = e.to_string();
            prop_assert!(m.starts_with("x.toml: "));
            prop_assert!(!m.contains('\n'));
        }
    }

    /// Scenario-shaped text with random values never panics.
    #[test]
    fn random_values_never_panic(
        cap in "-?[0-9]{1,4}(\\.[0-9])?(bps|kbps|Mbps|ms|B)",
        delay in "-?[0-9]{1,3}(ms|s|us|Mbps)",
        queue in "-?[0-9]{1,4}(pkt|ms|kB|B|x)",
        start in -5.0f64..15.0,
        stop in -5.0f64..15.0,
    ) {
        let text = format!(r#"
name = "p"
duration = 2
[link]
capacity = "{cap}"
delay = "{delay}"
queue = "{queue}"
[[flows]]
name = "a"
kind = "cbr"
start = {start}
stop = {stop}
overrides = {{ rate = "300kbps" }}
"#);
        match run_toml(&text, "p.toml", Some(1)) {
            Ok(r) => {
                prop_assert!(r.summary.aggregate.utilization <= 1.0 + 1e-9);
            }
            Err(e) => prop_assert!(e.to_string().starts_with("p.toml: ")),
        }
    }

    /// Conservation: delivered bits never exceed capacity; losses never exceed sends;
    /// same seed, same fingerprint.
    #[test]
    fn engine_conservation(
        cap_kbps in 100u32..5000,
        delay_ms in 0u32..100,
        queue_pkts in 1u32..50,
        jitter_ms in 0u32..10,
        loss in 0.0f64..0.2,
        rates in proptest::collection::vec((50u32..3000, 100u32..1500, 0u32..1500), 1..5),
        seed in any::<u64>(),
    ) {
        let mut text = format!(r#"
name = "c"
duration = "3s"
[link]
capacity = "{cap_kbps}kbps"
delay = "{delay_ms}ms"
queue = "{queue_pkts}pkt"
jitter = "{jitter_ms}ms"
loss = {loss}
"#);
        for (i, (rate, size, start)) in rates.iter().enumerate() {
            text.push_str(&format!(
                "[[flows]]\nname = \"f{i}\"\nkind = \"cbr\"\nstart = \"{start}ms\"\noverrides = {{ rate = \"{rate}kbps\", packet_size = \"{size}B\" }}\n"
            ));
        }
        let a = run_toml(&text, "c.toml", Some(seed)).expect("valid");
        let b = run_toml(&text, "c.toml", Some(seed)).expect("valid");
        prop_assert_eq!(a.trace_hash, b.trace_hash);
        prop_assert!(a.summary.aggregate.utilization <= 1.0 + 1e-9);
        let j = a.summary.aggregate.jain_index;
        prop_assert!(j.is_finite() && j > 0.0 && j <= 1.0 + 1e-12);
        for f in &a.summary.flows {
            prop_assert!(f.lost_packets <= f.sent_packets);
            prop_assert!(f.loss_ratio >= 0.0 && f.loss_ratio <= 1.0);
            prop_assert!(f.throughput_mbps <= f.send_rate_mbps + 1e-9);
            if let (Some(p50), Some(p95)) = (f.queuing_delay_ms.p50, f.queuing_delay_ms.p95) {
                prop_assert!(p50 <= p95 + 1e-9);
            }
        }
    }
}
