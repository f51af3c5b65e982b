//! Cost of one transport-wide feedback report at the media sender, with everything the
//! preset runs on it: `MediaSender::handle_input` for a `TransportFeedback` of a video
//! flow in a steady run (GCC, and under `chromium-m156` its send chain: the FEC
//! controller, the encoder bitrate adjuster, padding, the media-debt pacer's rate). The
//! flow runs against its receiver over a 2 Mbit/s, 25 ms link (a FIFO, no losses);
//! only the sender's handling of the feedback is timed (`iter_custom`), after 5 s of
//! warm-up. Three configurations: the ~M100 `chromium` preset, `chromium-m156` without
//! its send chain (as it was before it took Chromium's send chain) and `chromium-m156`.

use criterion::{criterion_group, criterion_main, Criterion};
use flowstate_core::endpoint::media::{
    MediaFeedback, MediaReceiver, MediaReceiverConfig, MediaSender, MediaSenderConfig, RtpPacket,
};
use flowstate_core::endpoint::Endpoint;
use flowstate_core::gcc::config::SendChainConfig;
use flowstate_core::gcc::loss_based_v2::LossBasedBweV2Config;
use flowstate_core::gcc::{GccConfig, GccPreset};
use flowstate_core::units::{Bitrate, TimeDelta, Timestamp};
use std::collections::VecDeque;
use std::hint::black_box;
use std::time::{Duration, Instant};

const ONE_WAY: TimeDelta = TimeDelta::millis(25);

/// A sender and its receiver over a FIFO link; `run` advances to `until`, timing the
/// sender's feedback handling.
struct Pair {
    sender: MediaSender,
    receiver: MediaReceiver,
    forward: VecDeque<(Timestamp, RtpPacket)>,
    reverse: VecDeque<(Timestamp, MediaFeedback)>,
    link_free: Timestamp,
    now: Timestamp,
    capacity: Bitrate,
    /// Reports and the packets they acknowledged (for the per-packet figure).
    reports: u64,
    reported_packets: u64,
}

impl Pair {
    fn new(gcc: GccConfig) -> Self {
        Self {
            sender: MediaSender::new(MediaSenderConfig::new(gcc.clone()), Timestamp::ZERO),
            receiver: MediaReceiver::new(MediaReceiverConfig::new(gcc)),
            forward: VecDeque::new(),
            reverse: VecDeque::new(),
            link_free: Timestamp::ZERO,
            now: Timestamp::ZERO,
            capacity: Bitrate::mbps(2.0),
            reports: 0,
            reported_packets: 0,
        }
    }

    /// Runs until `reports` feedback reports have reached the sender; returns the time
    /// its `handle_input` took for them.
    fn run(&mut self, reports: u64) -> Duration {
        let mut timed = Duration::ZERO;
        let mut seen = 0;
        while seen < reports {
            let now = self.now;
            if self.sender.poll_timeout().is_some_and(|t| t <= now) {
                self.sender.handle_timeout(now);
            }
            if self.receiver.poll_timeout().is_some_and(|t| t <= now) {
                self.receiver.handle_timeout(now);
            }
            while self.forward.front().is_some_and(|(t, _)| *t <= now) {
                let (_, p) = self.forward.pop_front().expect("front");
                self.receiver.handle_input(now, p);
            }
            while self.reverse.front().is_some_and(|(t, _)| *t <= now) {
                let (_, m) = self.reverse.pop_front().expect("front");
                let report = match &m {
                    MediaFeedback::TransportFeedback { packets, .. } => {
                        self.reported_packets += packets.len() as u64;
                        true
                    }
                    _ => false,
                };
                let start = Instant::now();
                self.sender.handle_input(now, black_box(m));
                if report {
                    timed += start.elapsed();
                    seen += 1;
                    self.reports += 1;
                }
            }
            while let Some(t) = self.sender.poll_transmit(now) {
                let start = self.link_free.max(now);
                self.link_free = start + t.size / self.capacity;
                self.forward
                    .push_back((self.link_free + ONE_WAY, t.message));
            }
            while let Some(t) = self.receiver.poll_transmit(now) {
                self.reverse.push_back((now + ONE_WAY, t.message));
            }
            let next = [
                self.sender.poll_timeout(),
                self.receiver.poll_timeout(),
                self.forward.front().map(|(t, _)| *t),
                self.reverse.front().map(|(t, _)| *t),
            ]
            .into_iter()
            .flatten()
            .filter(|&t| t > now)
            .min();
            self.now = next.unwrap_or(now + TimeDelta::millis(1));
        }
        timed
    }
}

/// `chromium-m156` as it was before it took the send chain: M125's
/// loss-based BWE v2, pacing 2.5, none of the send chain.
fn m156_bare() -> GccConfig {
    let mut gcc = GccPreset::ChromiumM156.config();
    gcc.fec = None;
    gcc.encoder_adjuster = None;
    gcc.feedback_cadence = None;
    gcc.pacing_factor = 2.5;
    if let Some(m) = gcc.m156.as_mut() {
        m.send_chain = SendChainConfig::NONE;
        m.loss_v2 = Some(LossBasedBweV2Config::default());
        if let Some(p) = m.pacing.as_mut() {
            p.pace_multiplier = 2.5;
        }
    }
    gcc
}

fn bench(c: &mut Criterion) {
    for (name, gcc) in [
        (
            "media_chromium_feedback_report",
            GccPreset::Chromium.config(),
        ),
        ("media_chromium_m156_bare_feedback_report", m156_bare()),
        (
            "media_chromium_m156_feedback_report",
            GccPreset::ChromiumM156.config(),
        ),
    ] {
        let mut probe = Pair::new(gcc.clone());
        let _ = probe.run(200);
        eprintln!(
            "{name}: {:.1} packets per report over the first 200 reports",
            probe.reported_packets as f64 / probe.reports as f64
        );
        c.bench_function(name, |b| {
            b.iter_custom(|iters| {
                let mut pair = Pair::new(gcc.clone());
                // 5 s of warm-up: the start, the probes, the encoder's first frames.
                let _ = pair.run(50);
                pair.run(iters)
            })
        });
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
