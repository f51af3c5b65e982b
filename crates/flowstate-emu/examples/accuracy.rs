//! Accuracy of the emulator on loopback: a CBR UDP stream above the
//! capacity crosses the forward bottleneck; reports the delivered rate against the set
//! capacity and the added-delay error: measured one-way delay minus (configured delay +
//! serialization + the model's queuing delay for that packet), p50 / p99 / max, plus
//! the emulator's own send lateness (actual minus model departure).
//!
//! cargo run --release -p flowstate-emu --example accuracy -- [--capacity-mbps 10]
//!     [--offered-mbps 12] [--secs 20] [--delay-ms 20] [--queue-ms 100] [--size 1200]
//!     [--runs 3] [--warmup-secs 2]

use flowstate_core::{Bitrate, DataSize, TimeDelta};
use flowstate_emu::{Emulator, EmulatorConfig, PathConfig, QueueLimit, Route};
use std::net::{SocketAddr, UdpSocket};
use std::time::{Duration, Instant};

#[derive(Debug, Clone, Copy)]
struct Opts {
    capacity_mbps: f64,
    offered_mbps: f64,
    secs: f64,
    delay_ms: i64,
    queue_ms: i64,
    size: usize,
    runs: usize,
    warmup_secs: f64,
}

fn parse() -> Opts {
    let mut o = Opts {
        capacity_mbps: 10.0,
        offered_mbps: 12.0,
        secs: 20.0,
        delay_ms: 20,
        queue_ms: 100,
        size: 1200,
        runs: 3,
        warmup_secs: 2.0,
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    for pair in args.chunks(2) {
        let v = pair.get(1).map(String::as_str).unwrap_or("");
        let f = |v: &str| -> f64 {
            v.parse().unwrap_or_else(|_| {
                eprintln!("accuracy: {}: expected a number, got \"{v}\"", pair[0]);
                std::process::exit(2)
            })
        };
        match pair[0].as_str() {
            "--capacity-mbps" => o.capacity_mbps = f(v),
            "--offered-mbps" => o.offered_mbps = f(v),
            "--secs" => o.secs = f(v),
            "--delay-ms" => o.delay_ms = f(v) as i64,
            "--queue-ms" => o.queue_ms = f(v) as i64,
            "--size" => o.size = f(v) as usize,
            "--runs" => o.runs = f(v) as usize,
            "--warmup-secs" => o.warmup_secs = f(v),
            other => {
                eprintln!("accuracy: {other}: unknown option");
                std::process::exit(2)
            }
        }
    }
    o
}

fn pct(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[i]
}

fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "?".into())
}

#[derive(Debug, Clone, Copy)]
struct RunResult {
    rate_ratio: f64,
    err_p50: f64,
    err_p99: f64,
    err_max: f64,
    late_p99: f64,
}

fn one_run(o: &Opts) -> RunResult {
    let load_before = loadavg();
    let receiver = UdpSocket::bind("127.0.0.1:0").expect("bind");
    receiver
        .set_read_timeout(Some(Duration::from_millis(500)))
        .expect("timeout");
    let cap = Bitrate::mbps(o.capacity_mbps);
    let delay = TimeDelta::millis(o.delay_ms);
    let fwd = PathConfig::constant(cap, delay, QueueLimit::Time(TimeDelta::millis(o.queue_ms)));
    let emu = Emulator::start(EmulatorConfig {
        forward: fwd.clone(),
        reverse: fwd,
        routes: vec![Route {
            sender_facing: "127.0.0.1:0".parse().expect("addr"),
            receiver_facing: "127.0.0.1:0".parse().expect("addr"),
            receiver: receiver.local_addr().expect("addr"),
        }],
    })
    .expect("start");
    let t0 = emu.start_instant();
    let us = move |t: Instant| t.duration_since(t0).as_micros() as u64;
    let sf: SocketAddr = emu.route_addrs()[0].0;
    let rx = std::thread::spawn(move || {
        let mut got: Vec<(u64, u64)> = Vec::new(); // (seq, recv_us)
        let mut buf = [0u8; 2048];
        while let Ok((n, _)) = receiver.recv_from(&mut buf) {
            let now = us(Instant::now());
            if n >= 8 {
                let seq = u64::from_be_bytes(buf[..8].try_into().expect("8 bytes"));
                got.push((seq, now));
            }
        }
        got
    });
    let sender = UdpSocket::bind("127.0.0.1:0").expect("bind");
    let gap = Duration::from_secs_f64(o.size as f64 * 8.0 / (o.offered_mbps * 1e6));
    let mut sent_us = Vec::new();
    let start = Instant::now();
    let mut payload = vec![0u8; o.size];
    let n = (o.secs / gap.as_secs_f64()) as u64;
    for seq in 0..n {
        let due = start + gap * seq as u32;
        if let Some(w) = due.checked_duration_since(Instant::now()) {
            if w > Duration::from_micros(300) {
                std::thread::sleep(w - Duration::from_micros(300));
            }
            while Instant::now() < due {
                std::hint::spin_loop();
            }
        }
        payload[..8].copy_from_slice(&seq.to_be_bytes());
        sent_us.push(us(Instant::now()));
        sender.send_to(&payload, sf).expect("send");
    }
    let send_end = us(Instant::now());
    std::thread::sleep(Duration::from_millis(
        (o.delay_ms + o.queue_ms) as u64 + 200,
    ));
    let report = emu.stop();
    let got = rx.join().expect("receiver");
    let f = report.forward;
    assert_eq!(
        f.packets_in, n,
        "datagrams lost before the emulator (socket buffer): the record mapping needs all"
    );
    // Delivered rate over [warmup, end of sending] by receive time.
    let w0 = (o.warmup_secs * 1e6) as u64;
    let in_window: Vec<_> = got
        .iter()
        .filter(|g| g.1 >= w0 && g.1 <= send_end)
        .collect();
    let span = (in_window.last().expect("packets").1 - in_window[0].1) as f64 / 1e6;
    let rate = (in_window.len() - 1) as f64 * o.size as f64 * 8.0 / span;
    // Added-delay error per packet.
    let ser = (DataSize::bytes(o.size as u64) / cap).as_micros() as f64;
    let mut err: Vec<f64> = Vec::new();
    for &(seq, recv) in &got {
        let rec = f.records[seq as usize];
        if rec.arrival_us < w0 {
            continue;
        }
        let measured = recv as f64 - sent_us[seq as usize] as f64;
        let expected = (o.delay_ms * 1000) as f64 + ser + rec.queue_delay.as_micros() as f64;
        err.push((measured - expected) / 1000.0);
    }
    err.sort_by(f64::total_cmp);
    let mut late: Vec<f64> = f
        .records
        .iter()
        .filter_map(|r| Some((r.departure_us? as f64 - r.model_departure_us? as f64) / 1000.0))
        .collect();
    late.sort_by(f64::total_cmp);
    let r = RunResult {
        rate_ratio: rate / cap.as_bps(),
        err_p50: pct(&err, 0.5),
        err_p99: pct(&err, 0.99),
        err_max: err.last().copied().unwrap_or(f64::NAN),
        late_p99: pct(&late, 0.99),
    };
    println!(
        "run: sent {n} in {} dropped_queue {} delivered/capacity {:.4} ({:+.2} %) | added-delay error ms p50 {:.3} p99 {:.3} max {:.3} min {:.3} | send lateness ms p50 {:.3} p99 {:.3} | loadavg {} -> {}",
        f.packets_in,
        f.dropped_queue,
        r.rate_ratio,
        (r.rate_ratio - 1.0) * 100.0,
        r.err_p50,
        r.err_p99,
        r.err_max,
        err.first().copied().unwrap_or(f64::NAN),
        pct(&late, 0.5),
        r.late_p99,
        load_before,
        loadavg()
    );
    r
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    pct(&v, 0.5)
}

fn main() {
    let o = parse();
    println!(
        "accuracy: capacity {} Mbit/s, offered {} Mbit/s, {} B datagrams, delay {} ms, queue {} ms, {} s x {} runs, {} cores",
        o.capacity_mbps,
        o.offered_mbps,
        o.size,
        o.delay_ms,
        o.queue_ms,
        o.secs,
        o.runs,
        std::thread::available_parallelism().map_or(0, |n| n.get())
    );
    let runs: Vec<RunResult> = (0..o.runs.max(1)).map(|_| one_run(&o)).collect();
    let m = |f: fn(&RunResult) -> f64| median(runs.iter().map(f).collect());
    println!(
        "median of {} runs: delivered/capacity {:.4} ({:+.2} %), added-delay error p50 {:.3} ms p99 {:.3} ms max {:.3} ms, send lateness p99 {:.3} ms",
        runs.len(),
        m(|r| r.rate_ratio),
        (m(|r| r.rate_ratio) - 1.0) * 100.0,
        m(|r| r.err_p50),
        m(|r| r.err_p99),
        m(|r| r.err_max),
        m(|r| r.late_p99)
    );
}
