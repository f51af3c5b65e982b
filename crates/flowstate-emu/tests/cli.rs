//! The standalone binary: relays with a scenario's link, and bad input is one line
//! with exit status 2.

use std::io::{BufRead, BufReader};
use std::net::UdpSocket;
use std::process::{Command, Stdio};
use std::time::Duration;

const BIN: &str = env!("CARGO_BIN_EXE_flowstate-emu");

const SCENARIO: &str = r#"
name = "emu-cli"
duration = "30s"
[link]
capacity = "5Mbps"
delay = "10ms"
queue = "20pkt"
[[flows]]
name = "a"
kind = "cbr"
overrides = { rate = "1Mbps" }
"#;

fn scenario_file(name: &str, text: &str) -> std::path::PathBuf {
    let p = std::env::temp_dir().join(format!("flowstate-emu-{}-{name}.toml", std::process::id()));
    std::fs::write(&p, text).expect("write scenario");
    p
}

#[test]
fn relays_with_the_scenario_link() {
    let path = scenario_file("ok", SCENARIO);
    let receiver = UdpSocket::bind("127.0.0.1:0").expect("bind");
    receiver
        .set_read_timeout(Some(Duration::from_secs(2)))
        .expect("timeout");
    let mut child = Command::new(BIN)
        .arg(&path)
        .args([
            "--receiver",
            &receiver.local_addr().expect("addr").to_string(),
        ])
        .args(["--duration", "1.0", "--seed", "3"])
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut out = BufReader::new(child.stdout.take().expect("piped"));
    let mut line = String::new();
    out.read_line(&mut line).expect("first line");
    // "route 0: sender-facing 127.0.0.1:P receiver-facing 127.0.0.1:Q"
    let words: Vec<&str> = line.split_whitespace().collect();
    assert_eq!(words.first(), Some(&"route"), "{line}");
    let sf = words[3].to_string();
    let sender = UdpSocket::bind("127.0.0.1:0").expect("bind");
    for _ in 0..3 {
        sender.send_to(b"through", &sf).expect("send");
    }
    let mut buf = [0u8; 64];
    let (n, _) = receiver.recv_from(&mut buf).expect("relayed");
    assert_eq!(&buf[..n], b"through");
    let status = child.wait().expect("exit");
    assert!(status.success());
    let mut rest = String::new();
    for l in out.lines() {
        rest.push_str(&l.expect("utf-8"));
        rest.push('\n');
    }
    assert!(rest.contains("forward: in 3 out 3 "), "{rest}");
    let _ = std::fs::remove_file(path);
}

fn fails_with(args: &[&str], expect: &str) {
    let out = Command::new(BIN).args(args).output().expect("run");
    assert_eq!(out.status.code(), Some(2), "{args:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    assert!(err.contains(expect), "{err} lacks {expect}");
}

#[test]
fn bad_input_is_one_line_and_status_2() {
    fails_with(&[], "usage");
    fails_with(
        &["/nonexistent/x.toml", "--receiver", "127.0.0.1:9"],
        "no such file",
    );
    fails_with(&["x.toml", "--receiver", "nowhere"], "--receiver");
    fails_with(
        &["x.toml", "--receiver", "127.0.0.1:9", "--duration", "-1"],
        "--duration",
    );
    fails_with(&["x.toml", "--bogus"], "--bogus");
    let bad = scenario_file("bad", &SCENARIO.replace("\"20pkt\"", "\"20 parsecs\""));
    let p = bad.to_string_lossy().to_string();
    fails_with(&[&p, "--receiver", "127.0.0.1:9"], "link.queue");
    let _ = std::fs::remove_file(bad);
}
