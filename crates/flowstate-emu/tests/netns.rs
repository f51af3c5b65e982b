//! The emulator between network namespaces (scripts/netns-testbed.sh selftest): runs
//! when root with iproute2 and namespace support, skipped with a notice otherwise.

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

fn netns_available(probe: &str) -> bool {
    let ok = Command::new("ip")
        .args(["netns", "add", probe])
        .status()
        .is_ok_and(|s| s.success());
    if ok {
        let _ = Command::new("ip").args(["netns", "del", probe]).status();
    }
    ok
}

#[test]
fn relays_between_namespaces_when_root() {
    // Unique per process: several worktrees may run this at once.
    let prefix = format!("fe{}", std::process::id() % 1_000_000);
    if !is_root() || !netns_available(&format!("{prefix}-probe")) {
        eprintln!("SKIPPED: netns test needs root, iproute2 and network namespaces");
        return;
    }
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scripts/netns-testbed.sh"
    );
    let out = Command::new("bash")
        .args([script, "selftest"])
        .env("FLOWSTATE_NETNS_PREFIX", &prefix)
        .env("FLOWSTATE_EMU_BIN", env!("CARGO_BIN_EXE_flowstate-emu"))
        .output()
        .expect("run netns-testbed.sh");
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "selftest failed:\n{text}");
    assert!(
        text.contains("receiver got 200/200 (200 with ECT(0)), sender got 200/200"),
        "{text}"
    );
    assert!(text.contains("forward: in 200 out 200"), "{text}");
    // Every datagram the sender sent was ECT(0), and it arrived so.
    assert!(text.contains("ecn_capable 200 ce_marked 0"), "{text}");
}
