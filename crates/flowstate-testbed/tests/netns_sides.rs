//! The testbed's two sides in two network namespaces joined by a veth pair with a
//! kernel tbf bottleneck (`TestbedOptions::netns`): runs when root with iproute2 and
//! namespace support, skipped with a notice otherwise.

use flowstate_sim::Scenario;
use flowstate_testbed::{run, NetnsSide, NetnsSides, TestbedOptions};
use std::process::Command;

fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("Uid:"))
                .and_then(|l| l.split_whitespace().nth(1).map(|u| u == "0"))
        })
        .unwrap_or(false)
}

fn ip(args: &[&str]) -> bool {
    Command::new("ip")
        .args(args)
        .status()
        .is_ok_and(|s| s.success())
}

/// Two namespaces, a veth pair 10.80.0.1 <-> 10.80.0.2, a tbf of `rate` on the sender's
/// side. Deleted on drop.
struct Pair {
    snd: String,
    rcv: String,
}

impl Pair {
    fn up(prefix: &str, rate: &str) -> Option<Pair> {
        let pair = Pair {
            snd: format!("{prefix}-s"),
            rcv: format!("{prefix}-r"),
        };
        let (s, r) = (pair.snd.as_str(), pair.rcv.as_str());
        let (sd, rd) = (format!("{prefix}s"), format!("{prefix}r"));
        let ok = ip(&["netns", "add", s])
            && ip(&["netns", "add", r])
            && ip(&[
                "link", "add", &sd, "netns", s, "type", "veth", "peer", "name", &rd, "netns", r,
            ])
            && ip(&["-n", s, "addr", "add", "10.80.0.1/24", "dev", &sd])
            && ip(&["-n", r, "addr", "add", "10.80.0.2/24", "dev", &rd])
            && ip(&["-n", s, "link", "set", &sd, "up"])
            && ip(&["-n", r, "link", "set", &rd, "up"])
            && Command::new("ip")
                .args(["netns", "exec", s, "tc", "qdisc", "add", "dev", &sd, "root"])
                .args(["tbf", "rate", rate, "burst", "1600", "limit", "30000"])
                .status()
                .is_ok_and(|st| st.success());
        ok.then_some(pair)
    }
}

impl Drop for Pair {
    fn drop(&mut self) {
        let _ = ip(&["netns", "del", &self.snd]);
        let _ = ip(&["netns", "del", &self.rcv]);
    }
}

const GCC: &str = r#"
name = "netns-sides"
duration = "5s"
[link]
capacity = "1Mbps"
delay = "0ms"
queue = "30kB"
[[flows]]
name = "gcc"
kind = "gcc"
preset = "chromium"
overrides = { start_rate = "600kbps" }
[measure]
start = "1s"
"#;

#[test]
fn sides_in_namespaces_use_the_hosts_path() {
    let prefix = format!("ft{}", std::process::id() % 100_000);
    if !is_root() {
        eprintln!("SKIPPED: netns sides need root, iproute2 and network namespaces");
        return;
    }
    let Some(pair) = Pair::up(&prefix, "1mbit") else {
        eprintln!("SKIPPED: could not build the namespaces, veth pair and tbf");
        return;
    };
    let sides = NetnsSides {
        sender: NetnsSide {
            netns: pair.snd.clone(),
            ip: [10, 80, 0, 1].into(),
        },
        receiver: NetnsSide {
            netns: pair.rcv.clone(),
            ip: [10, 80, 0, 2].into(),
        },
    };
    let scenario = Scenario::from_toml(GCC, "<test>").unwrap();
    let opts = TestbedOptions {
        netns: Some(sides),
        ..TestbedOptions::default()
    };
    let r = run(&scenario, opts).unwrap();
    let f = &r.run.summary.flows[0];
    // Packets crossed the veth pair and its 1 Mbit/s tbf, not the emulator.
    assert!(r.bottleneck.forward.packets_in == 0, "no emulator");
    assert!(r.receiver.decoded > 100, "{:?}", r.receiver);
    assert!(f.throughput_mbps > 0.2, "{}", f.throughput_mbps);
    assert!(
        f.throughput_mbps < 1.05,
        "the tbf caps it: {}",
        f.throughput_mbps
    );
}

const RMCAT: &str = r#"
name = "netns-rmcat"
duration = "8s"
[link]
capacity = "1Mbps"
delay = "0ms"
queue = "30kB"
[[flows]]
name = "nada"
kind = "nada"
[[flows]]
name = "scream"
kind = "scream"
[measure]
start = "2s"
"#;

/// NADA and SCReAM with their RFC 8888 feedback across the namespaces and the kernel's
/// tbf.
#[test]
fn nada_and_scream_cross_the_namespaces() {
    let prefix = format!("fr{}", std::process::id() % 100_000);
    if !is_root() {
        eprintln!("SKIPPED: netns sides need root, iproute2 and network namespaces");
        return;
    }
    let Some(pair) = Pair::up(&prefix, "1mbit") else {
        eprintln!("SKIPPED: could not build the namespaces, veth pair and tbf");
        return;
    };
    let sides = NetnsSides {
        sender: NetnsSide {
            netns: pair.snd.clone(),
            ip: [10, 80, 0, 1].into(),
        },
        receiver: NetnsSide {
            netns: pair.rcv.clone(),
            ip: [10, 80, 0, 2].into(),
        },
    };
    let scenario = Scenario::from_toml(RMCAT, "<test>").unwrap();
    let opts = TestbedOptions {
        netns: Some(sides),
        ..TestbedOptions::default()
    };
    let r = run(&scenario, opts).unwrap();
    assert!(r.bottleneck.forward.packets_in == 0, "no emulator");
    assert_eq!(r.sender.malformed + r.receiver.malformed, 0);
    let total: f64 = r.run.summary.flows.iter().map(|f| f.throughput_mbps).sum();
    for f in &r.run.summary.flows {
        eprintln!(
            "{}: {:.3} Mbit/s, RTT {:?} ms",
            f.name, f.throughput_mbps, f.rtt_ms.mean
        );
        assert!(f.throughput_mbps > 0.1, "{}: {}", f.name, f.throughput_mbps);
        assert!(f.rtt_ms.mean.is_some(), "{}: RTT from RFC 8888", f.name);
    }
    assert!(total < 1.05, "the tbf caps it: {total}");
}

#[test]
fn a_missing_namespace_is_a_one_line_error() {
    let sides = NetnsSides {
        sender: NetnsSide {
            netns: "flowstate-absent-s".into(),
            ip: [10, 80, 0, 1].into(),
        },
        receiver: NetnsSide {
            netns: "flowstate-absent-r".into(),
            ip: [10, 80, 0, 2].into(),
        },
    };
    let scenario = Scenario::from_toml(GCC, "<test>").unwrap();
    let e = run(
        &scenario,
        TestbedOptions {
            netns: Some(sides.clone()),
            ..TestbedOptions::default()
        },
    )
    .expect_err("no such namespace")
    .to_string();
    assert!(
        e.starts_with("sender namespace 'flowstate-absent-s'"),
        "{e}"
    );
    assert!(!e.contains('\n'), "{e}");
    let e = run(
        &scenario,
        TestbedOptions {
            netns: Some(sides),
            direct: true,
            ..TestbedOptions::default()
        },
    )
    .expect_err("direct excludes namespaces")
    .to_string();
    assert!(e.contains("exclude each other"), "{e}");
}
