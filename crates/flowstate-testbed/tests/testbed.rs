//! Real-time runs over loopback UDP (a few seconds each).

use flowstate_core::endpoint::media::RtpPacket;
use flowstate_core::{DataSize, Timestamp};
use flowstate_sim::Scenario;
use flowstate_testbed::codec;
use flowstate_testbed::{run, TestbedOptions};
use std::net::UdpSocket;
use std::sync::atomic::Ordering;
use std::sync::mpsc;
use std::time::Duration;

fn scenario(text: &str) -> Scenario {
    Scenario::from_toml(text, "<test>").unwrap()
}

const MIXED: &str = r#"
name = "testbed-mixed"
duration = "6s"
[link]
capacity = "2Mbps"
delay = "20ms"
queue = "300ms"
[coupling]
mechanism = "fsev2"
[[flows]]
name = "gcc"
kind = "gcc"
preset = "chromium"
[[flows]]
name = "sctp"
kind = "sctp"
start = "1s"
[measure]
start = "2s"
"#;

#[test]
fn mixed_run_measures_both_flows_and_closes_the_association() {
    let r = run(&scenario(MIXED), TestbedOptions::default()).unwrap();
    let s = &r.run.summary;
    assert_eq!(s.flows.len(), 2);
    assert!(!r.interrupted);
    assert!((s.duration_s - 6.0).abs() < 0.1, "{}", s.duration_s);
    for f in &s.flows {
        assert!(
            f.throughput_mbps > 0.05,
            "{}: {}",
            f.name,
            f.throughput_mbps
        );
        assert!(f.send_rate_mbps >= f.throughput_mbps * 0.8);
    }
    assert!(
        s.aggregate.throughput_mbps < 2.2,
        "cannot exceed the bottleneck: {}",
        s.aggregate.throughput_mbps
    );
    assert!(s.flows[0].rtt_ms.mean.unwrap() >= 40.0, "RTT >= 2 x 20 ms");
    let t = r.sctp[0];
    assert!(t.established && t.shut_down, "{t:?}");
    assert_eq!(t.order_errors, 0);
    assert!(t.bytes_delivered > 10_000);
    assert_eq!(r.sender.malformed + r.receiver.malformed, 0);
    assert_eq!(r.sender.foreign + r.receiver.foreign, 0);
    for side in [r.sender, r.receiver] {
        assert_eq!(
            side.received,
            side.decoded + side.malformed + side.foreign,
            "{side:?}"
        );
    }
    assert!(r.bottleneck.forward.packets_out > 100);
    assert!(r.sender_pcap.len() > 10_000 && r.receiver_pcap.len() > 10_000);
    // Same time-series shape as the simulator: one row per flow per 500 ms bin.
    assert_eq!(r.run.series.len(), 2 * 12); // The video flow's frames at its receiver, as the simulator reports them; none for
                                            // the data channel.
    let video = s.flows[0].video.expect("the gcc flow's frames");
    assert!(video.frames_rendered > 60 && video.fps > 15.0, "{video:?}");
    assert!(
        video.frame_delay_ms.p50.is_some_and(|d| d >= 20.0),
        "{video:?}"
    );
    assert!(s.flows[1].video.is_none());
    assert!(r
        .run
        .series
        .iter()
        .any(|row| row.fps.is_some_and(|f| f > 0.0)));
}

#[test]
fn sctp_loses_no_byte_under_five_percent_random_loss() {
    let text = r#"
name = "testbed-loss"
duration = "6s"
[link]
capacity = "4Mbps"
delay = "10ms"
queue = "200ms"
loss = 0.05
[[flows]]
name = "sctp"
kind = "sctp"
desired_rate = "1Mbps"
"#;
    let r = run(&scenario(text), TestbedOptions::default()).unwrap();
    let t = r.sctp[0];
    assert!(
        r.bottleneck.forward.dropped_loss > 10,
        "{} lost of {}",
        r.bottleneck.forward.dropped_loss,
        r.bottleneck.forward.packets_in
    );
    assert_eq!(t.order_errors, 0);
    // Ordered delivery: one byte lost for good would stall everything after it. What
    // is missing at the end is only what was still in flight (at most ~0.25 s).
    let behind = t.bytes_written - t.bytes_delivered;
    eprintln!(
        "5 % loss: {t:?}, {} of {} lost",
        r.bottleneck.forward.dropped_loss, r.bottleneck.forward.packets_in
    );
    assert!(
        t.bytes_delivered > 600_000 && behind < 30_000,
        "written {} delivered {}",
        t.bytes_written,
        t.bytes_delivered
    );
    assert_eq!(
        t.bytes_delivered,
        t.messages_delivered * 1200,
        "whole messages only"
    );
    assert!(r.run.summary.flows[0].loss_ratio > 0.02);
}

fn rtp_bytes(ssrc: u32, seq: u64) -> Vec<u8> {
    codec::encode_rtp(&RtpPacket {
        ssrc,
        sequence_number: seq,
        transport_seq: seq,
        send_time: Timestamp::from_micros(1000),
        payload_size: DataSize::bytes(300),
        frame_id: 1,
        frame_capture_time: Timestamp::from_micros(1000),
        frame_packet_index: 0,
        frame_packet_count: 1,
        keyframe: false,
    })
}

#[test]
fn endpoints_survive_malformed_truncated_duplicated_reordered_and_foreign_datagrams() {
    let (tx, rx) = mpsc::channel();
    let opts = TestbedOptions {
        ready: Some(tx),
        ..TestbedOptions::default()
    };
    let injector = std::thread::spawn(move || {
        let (s, r) = rx.recv().unwrap();
        let sock = UdpSocket::bind("127.0.0.1:0").unwrap();
        std::thread::sleep(Duration::from_millis(1500));
        let rtp = rtp_bytes(1, 5);
        let init = codec::encode_control(1, &codec::SctpMessage::Init);
        let mut bad_crc = codec::encode_control(1, &codec::SctpMessage::CookieEcho);
        bad_crc[13] ^= 1;
        let datagrams: Vec<Vec<u8>> = vec![
            vec![],                             // empty
            vec![0xFF; 40],                     // foreign first byte
            b"GET / HTTP/1.1\r\n\r\n".to_vec(), // foreign protocol
            rtp[..15].to_vec(),                 // truncated RTP
            rtp.clone(),                        // duplicate of a real packet ...
            rtp.clone(),                        // ... twice
            rtp_bytes(1, 2),                    // reordered (older)
            rtp_bytes(77, 1),                   // unknown SSRC
            init[..10].to_vec(),                // truncated SCTP
            bad_crc,                            // bad CRC32c
            init.clone(),                       // duplicate INIT after set-up
            vec![0x80, 201, 0, 50, 1, 2],       // RTCP with a lying length
            vec![0x80, 0xCD, 0, 1],             // truncated RTCP feedback
        ];
        for round in 0..20 {
            for d in &datagrams {
                let _ = sock.send_to(d, s);
                let _ = sock.send_to(d, r);
            }
            if round % 5 == 0 {
                std::thread::sleep(Duration::from_millis(100));
            }
        }
    });
    let r = run(&scenario(MIXED), opts).unwrap();
    injector.join().unwrap();
    let bad_rx = r.receiver.malformed + r.receiver.foreign;
    let bad_tx = r.sender.malformed + r.sender.foreign;
    assert!(
        bad_rx >= 20 * 8,
        "receiver counted {bad_rx}: {:?}",
        r.receiver
    );
    assert!(bad_tx >= 20 * 8, "sender counted {bad_tx}: {:?}", r.sender);
    for f in &r.run.summary.flows {
        assert!(
            f.throughput_mbps > 0.05,
            "{} starved after the injection",
            f.name
        );
    }
    assert_eq!(r.sctp[0].order_errors, 0);
    for side in [r.sender, r.receiver] {
        assert_eq!(
            side.received,
            side.decoded + side.malformed + side.foreign,
            "{side:?}"
        );
    }
}

#[test]
fn a_stopped_run_returns_what_it_measured() {
    let opts = TestbedOptions::default();
    let stop = opts.stop.clone();
    let t = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(2500));
        stop.store(true, Ordering::Relaxed);
    });
    let r = run(&scenario(MIXED), opts).unwrap();
    t.join().unwrap();
    assert!(r.interrupted);
    let s = &r.run.summary;
    assert!(s.duration_s > 2.0 && s.duration_s < 3.5, "{}", s.duration_s);
    assert!(s.flows[0].throughput_mbps > 0.05);
    assert!(!r.run.series.is_empty());
}

#[test]
fn unsupported_kinds_are_a_one_line_error() {
    let text = MIXED.replace("kind = \"sctp\"", "kind = \"tfrc\"");
    let e = run(&scenario(&text), TestbedOptions::default()).unwrap_err();
    assert!(e.to_string().contains("flows[1].kind"), "{e}");
    let text = MIXED.replace("queue = \"300ms\"", "queue = \"300ms\"\njitter = \"5ms\"");
    let e = run(&scenario(&text), TestbedOptions::default()).unwrap_err();
    assert!(e.to_string().starts_with("link.jitter:"), "{e}");
}

const RMCAT: &str = r#"
name = "testbed-rmcat"
duration = "8s"
[link]
capacity = "2Mbps"
delay = "20ms"
queue = "300ms"
[coupling]
mechanism = "fse"
[[flows]]
name = "nada"
kind = "nada"
[[flows]]
name = "scream"
kind = "scream"
[measure]
start = "2s"
"#;

/// NADA and SCReAM media with RFC 8888 feedback on the wire: both flows get the link
/// (coupled by the FSE), every feedback datagram decodes, and the RTT both senders
/// measure from the reports' arrival time offsets is at least the path's 40 ms.
#[test]
fn nada_and_scream_run_with_rfc8888_feedback() {
    let r = run(&scenario(RMCAT), TestbedOptions::default()).unwrap();
    let s = &r.run.summary;
    for f in &s.flows {
        eprintln!(
            "{}: {:.3} Mbit/s, RTT {:?} ms, queuing delay {:?} ms",
            f.name, f.throughput_mbps, f.rtt_ms.mean, f.queuing_delay_ms.mean
        );
        assert!(
            f.throughput_mbps > 0.15,
            "{}: {}",
            f.name,
            f.throughput_mbps
        );
        let rtt = f.rtt_ms.mean.expect("RTT samples from RFC 8888 reports");
        assert!((38.0..500.0).contains(&rtt), "{}: RTT {rtt}", f.name);
        let video = f.video.expect("a video flow's frames");
        assert!(video.frames_rendered > 50, "{}: {video:?}", f.name);
    }
    assert_eq!(r.sender.malformed + r.receiver.malformed, 0);
    assert_eq!(r.sender.foreign + r.receiver.foreign, 0);
    // The sender decoded RFC 8888 reports: NADA's every ~100 ms, SCReAM's every 20 ms.
    assert!(r.sender.decoded > 200, "{:?}", r.sender);
    assert!(
        s.aggregate.throughput_mbps < 2.2,
        "{}",
        s.aggregate.throughput_mbps
    );
}

/// LEDBAT over uTP (BEP 29) through the emulator's bottleneck: it fills the link with a
/// queuing delay near its 100 ms TARGET, every segment and ack decodes, and the
/// receiver's bytes count as goodput.
#[test]
fn ledbat_runs_over_utp() {
    let text = RMCAT
        .replace("kind = \"nada\"", "kind = \"ledbat\"")
        .replace("name = \"nada\"", "name = \"ledbat\"")
        .replace("[[flows]]\nname = \"scream\"\nkind = \"scream\"\n", "")
        .replace("mechanism = \"fse\"", "mechanism = \"none\"");
    let r = run(&scenario(&text), TestbedOptions::default()).unwrap();
    let f = &r.run.summary.flows[0];
    eprintln!(
        "ledbat: {:.3} Mbit/s (goodput {:?}), queuing delay {:?} ms, RTT {:?} ms",
        f.throughput_mbps, f.goodput_mbps, f.queuing_delay_ms.mean, f.rtt_ms.mean
    );
    assert_eq!(r.run.summary.flows.len(), 1);
    assert!(f.throughput_mbps > 1.2, "{}", f.throughput_mbps);
    assert!(
        f.goodput_mbps.is_some_and(|g| g > 1.0),
        "{:?}",
        f.goodput_mbps
    );
    let q = f.queuing_delay_ms.mean.expect("queuing delay");
    assert!(q > 30.0 && q < 200.0, "queuing delay {q} ms (TARGET 100)");
    assert_eq!(r.sender.malformed + r.receiver.malformed, 0);
    assert_eq!(r.sender.foreign + r.receiver.foreign, 0);
}

/// An ECN-capable SCTP flow (RFC 9260 appendix A) through the emulator's CoDel: its
/// DATA leaves with ECT(0) in the real IP header, CoDel's marks reach the receiver as
/// CE, its ECNE chunks make the sender reduce, and no datagram is dropped by the AQM.
/// The same flow without ECN is never marked.
#[cfg(target_os = "linux")]
#[test]
fn an_ecn_capable_flow_is_marked_by_the_scenarios_codel_and_reacts() {
    let text = |ecn: &str| {
        format!(
            r#"
name = "testbed-ecn"
duration = "5s"
[link]
capacity = "2Mbps"
delay = "20ms"
queue = {{ discipline = "codel", limit = "1000pkt" }}
[[flows]]
name = "sctp"
kind = "sctp"
ecn = "{ecn}"
[measure]
start = "1s"
"#
        )
    };
    let r = run(&scenario(&text("ect0")), TestbedOptions::default()).unwrap();
    let f = &r.run.summary.flows[0];
    let fwd = &r.bottleneck.forward;
    assert!(fwd.ecn_capable > 100, "{} ECT datagrams", fwd.ecn_capable);
    assert!(fwd.ce_marked > 0, "no CE marks");
    assert_eq!(fwd.dropped_aqm, 0, "CoDel marks ECT instead of dropping");
    assert!(r.receiver.ce_received > 0 && r.receiver.ce_received <= fwd.ce_marked);
    assert!(f.ce_marks.is_some_and(|m| m > 0), "{:?}", f.ce_marks);
    assert!(
        f.ecn_responses.is_some_and(|n| n > 0),
        "{:?}",
        f.ecn_responses
    );
    let off = run(&scenario(&text("off")), TestbedOptions::default()).unwrap();
    let fwd = &off.bottleneck.forward;
    assert_eq!((fwd.ecn_capable, fwd.ce_marked), (0, 0));
    assert_eq!(off.receiver.ecn_capable_received, 0);
    assert_eq!(off.run.summary.flows[0].ce_marks, None);
}
