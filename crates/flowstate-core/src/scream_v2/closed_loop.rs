//! Closed loops of the SCReAM v2 sender ([`crate::endpoint::scream_v2`], a perfect
//! encoder at the target, 30 frames/s, max 2.5 Mbit/s) and an RFC 8888 receiver
//! (every 25 ms, libwebrtc's CongestionControlFeedbackGenerator) over the shared test
//! link: 25 ms each way (50 ms RTT), an uncongested return path.
//!
//! The marking runs reproduce Chromium 156's measurement with the ScreamV2 field
//! trial: 10 Mbit/s, every packet ECT(1), a random fraction of them CE-marked between
//! 20 s and 50 s (independently per packet, at the link's exit), then none.
//! Chromium's target fell from 2.5 Mbit/s to 1.8-2.1 with 10 % marks and to 0.2-0.65
//! with 30 %, and was back at 2.5 about 2 s after the marking stopped.

use crate::ecn::Ecn;
use crate::endpoint::data_source::XorShift64;
use crate::endpoint::rfc8888::{CcfbReceiver, CcfbReceiverConfig};
use crate::endpoint::scream_v2::{ScreamV2Sender, ScreamV2SenderConfig};
use crate::endpoint::{Controller, Endpoint};
use crate::scream_v2::ScreamV2Config;
use crate::source::{EncoderBounds, VideoSourceConfig};
use crate::testing::link::TestLink;
use crate::units::{Bitrate, TimeDelta, Timestamp};
use std::collections::VecDeque;

const MAX_RATE_MBPS: f64 = 2.5;

/// Random CE marking: `fraction` of the ECN-capable packets leaving the link between
/// `from` and `until`.
#[derive(Debug, Clone, Copy)]
struct Marking {
    fraction: f64,
    from: Timestamp,
    until: Timestamp,
}

struct Trace {
    /// (time, target) once per 100 ms.
    targets: Vec<(Timestamp, Bitrate)>,
    /// (arrival, queuing delay at the link).
    delays: Vec<(Timestamp, TimeDelta)>,
    marked: u64,
    dropped: u64,
}

fn run(
    link: TestLink<crate::endpoint::media::RtpPacket>,
    marking: Option<Marking>,
    cfg: ScreamV2Config,
    secs: u64,
) -> Trace {
    let one_way = TimeDelta::millis(25);
    let mut link = link;
    let bounds = EncoderBounds {
        max_rate: cfg.max_rate,
        ..EncoderBounds::paper000()
    };
    let mut sender = ScreamV2Sender::new(
        ScreamV2SenderConfig::new(cfg, VideoSourceConfig::Perfect(bounds)),
        Timestamp::ZERO,
    );
    let mut receiver = CcfbReceiver::new(CcfbReceiverConfig {
        ssrc: 1,
        interval: TimeDelta::millis(25),
        rtp_overhead: crate::endpoint::media::WireSizes::default().rtp_overhead,
        playout: crate::playout::PlayoutConfig::default(),
    });
    let mut rng = XorShift64::new(7);
    let mut back = VecDeque::new();
    let mut tr = Trace {
        targets: vec![],
        delays: vec![],
        marked: 0,
        dropped: 0,
    };
    let end = Timestamp::from_secs(secs);
    let mut next_sample = Timestamp::ZERO;
    let mut now = Timestamp::ZERO;
    while now < end {
        while let Some((at, p, ecn)) = link.poll_ecn(now) {
            let mut ecn = ecn;
            if let Some(m) = marking {
                if at >= m.from
                    && at < m.until
                    && ecn.is_ecn_capable()
                    && rng.next_f64() < m.fraction
                {
                    ecn = Ecn::Ce;
                }
            }
            tr.marked += u64::from(ecn.is_ce());
            tr.delays
                .push((at, at.saturating_since(p.send_time) - one_way));
            receiver.handle_input_ecn(now, p, ecn);
        }
        while back.front().is_some_and(|b: &(Timestamp, _)| b.0 <= now) {
            if let Some((_, r)) = back.pop_front() {
                sender.handle_input(now, r);
            }
        }
        if sender.poll_timeout().is_some_and(|t| t <= now) {
            sender.handle_timeout(now);
        }
        if receiver.poll_timeout().is_some_and(|t| t <= now) {
            receiver.handle_timeout(now);
        }
        while let Some(t) = sender.poll_transmit(now) {
            link.send_ecn(now, t.size, t.message, sender.ecn_codepoint());
        }
        while let Some(t) = receiver.poll_transmit(now) {
            back.push_back((now + one_way, t.message));
        }
        if now >= next_sample {
            tr.targets.push((now, sender.target_bitrate()));
            next_sample += TimeDelta::millis(100);
        }
        let next = [
            link.next_arrival(),
            back.front().map(|b| b.0),
            sender.poll_timeout(),
            receiver.poll_timeout(),
            Some(next_sample),
            Some(end),
        ]
        .into_iter()
        .flatten()
        .min()
        .unwrap_or(end);
        now = next.max(now + TimeDelta::from_micros(1));
    }
    tr.dropped = link.dropped;
    tr
}

fn mean_target_mbps(tr: &Trace, a: f64, b: f64) -> f64 {
    let v: Vec<f64> = tr
        .targets
        .iter()
        .filter(|(t, _)| t.as_secs_f64() >= a && t.as_secs_f64() < b)
        .map(|(_, r)| r.as_mbps())
        .collect();
    v.iter().sum::<f64>() / v.len().max(1) as f64
}

fn range_target_mbps(tr: &Trace, a: f64, b: f64) -> (f64, f64) {
    tr.targets
        .iter()
        .filter(|(t, _)| t.as_secs_f64() >= a && t.as_secs_f64() < b)
        .fold((f64::MAX, 0.0f64), |(lo, hi), (_, r)| {
            (lo.min(r.as_mbps()), hi.max(r.as_mbps()))
        })
}

/// Seconds after `from` until the target first reaches `level` Mbit/s.
fn time_to_reach(tr: &Trace, from: f64, level: f64) -> Option<f64> {
    tr.targets
        .iter()
        .find(|(t, r)| t.as_secs_f64() >= from && r.as_mbps() >= level)
        .map(|(t, _)| t.as_secs_f64() - from)
}

fn ten_mbps_link() -> TestLink<crate::endpoint::media::RtpPacket> {
    let rate = Bitrate::mbps(10.0);
    TestLink::new(rate, TimeDelta::millis(25), rate * TimeDelta::millis(200))
}

fn chromium_like() -> ScreamV2Config {
    ScreamV2Config {
        max_rate: Bitrate::mbps(MAX_RATE_MBPS),
        ..ScreamV2Config::default()
    }
}

fn marking(fraction: f64) -> Marking {
    Marking {
        fraction,
        from: Timestamp::from_secs(20),
        until: Timestamp::from_secs(50),
    }
}

/// (mean target 30-50 s, (min, max) 30-50 s, recovery to 2.4 Mbit/s after 50 s).
fn marking_run(fraction: f64, cfg: ScreamV2Config) -> (f64, (f64, f64), Option<f64>) {
    let tr = run(ten_mbps_link(), Some(marking(fraction)), cfg, 70);
    assert!(tr.marked > 0);
    assert_eq!(tr.dropped, 0);
    (
        mean_target_mbps(&tr, 30.0, 50.0),
        range_target_mbps(&tr, 30.0, 50.0),
        time_to_reach(&tr, 50.0, 0.96 * MAX_RATE_MBPS),
    )
}

#[test]
fn without_marks_the_target_reaches_the_maximum_with_an_empty_queue() {
    let tr = run(ten_mbps_link(), None, chromium_like(), 20);
    let ramp = time_to_reach(&tr, 0.0, 0.96 * MAX_RATE_MBPS);
    let mean = mean_target_mbps(&tr, 10.0, 20.0);
    let delay = tr
        .delays
        .iter()
        .map(|d| d.1.as_millis_f64())
        .fold(0.0, f64::max);
    eprintln!("SCReAM v2 10 Mbit/s unmarked: ramp to 2.4 Mbit/s after {ramp:?} s, mean {mean:.3} Mbit/s, max queuing delay {delay:.1} ms");
    assert!(ramp.is_some_and(|r| r < 10.0), "{ramp:?}");
    assert!(mean > 0.96 * MAX_RATE_MBPS, "{mean}");
    assert!(delay < 20.0, "{delay}");
}

#[test]
fn ten_percent_ce_marks_lower_the_target_which_recovers_when_they_stop() {
    let (mean, range, recovery) = marking_run(0.1, chromium_like());
    eprintln!("SCReAM v2, 10 % random CE: target {mean:.3} Mbit/s (range {range:?}), back at 2.4 Mbit/s {recovery:?} s after marking stops (Chromium: 1.8-2.1, ~2 s)");
    // Measured: 1.712 (1.53-1.87), 1.4 s: 5 % below Chromium's window (docs/ALGORITHMS.md,
    // "SCReAM v2", has the comparison).
    assert!(mean > 1.4 && mean < 2.2, "{mean}");
    assert!(recovery.is_some_and(|r| r < 4.0), "{recovery:?}");
}

#[test]
fn thirty_percent_ce_marks_lower_it_further() {
    let (mean10, _, _) = marking_run(0.1, chromium_like());
    let (mean, range, recovery) = marking_run(0.3, chromium_like());
    eprintln!("SCReAM v2, 30 % random CE: target {mean:.3} Mbit/s (range {range:?}), back at 2.4 Mbit/s {recovery:?} s after marking stops (Chromium: 0.2-0.65, ~2 s)");
    // Measured: 0.374 (0.24-0.58), 1.5 s: inside Chromium's window.
    assert!(mean < mean10, "{mean} vs {mean10}");
    assert!(mean > 0.2 && mean < 0.65, "{mean}");
    assert!(recovery.is_some_and(|r| r < 4.0), "{recovery:?}");
}

/// The draft's variant of every rule (ScreamV2Config::draft) under the same marks,
/// recorded next to libwebrtc's.
#[test]
fn the_draft_variant_under_the_same_marks() {
    let cfg = ScreamV2Config {
        max_rate: Bitrate::mbps(MAX_RATE_MBPS),
        ..ScreamV2Config::draft()
    };
    let (m10, r10, rec10) = marking_run(0.1, cfg.clone());
    let (m30, r30, rec30) = marking_run(0.3, cfg);
    eprintln!("SCReAM v2 draft variant: 10 % CE {m10:.3} Mbit/s {r10:?} recovery {rec10:?} s; 30 % CE {m30:.3} Mbit/s {r30:?} recovery {rec30:?} s");
    assert!(m30 < m10 && m10 < MAX_RATE_MBPS);
}

/// An L4S step-marking bottleneck (CE above 1 ms of queue, DualPI2's L4S queue in
/// spirit) of 1 Mbit/s: the flow fills it with a short queue and follows a halving.
/// The draft's smooth pacer (`chromium_pacer = false`): one packet time between packets,
/// so a packet waits behind another only when the rate exceeds the link's.
fn smooth_paced() -> ScreamV2Config {
    ScreamV2Config {
        chromium_pacer: false,
        ..chromium_like()
    }
}

#[test]
fn fills_a_1mbps_step_marking_link_with_a_short_queue_and_follows_a_halving() {
    let rate = Bitrate::mbps(1.0);
    let link = TestLink::new(rate, TimeDelta::millis(25), rate * TimeDelta::millis(300))
        .mark_above(TimeDelta::millis(1))
        .change_at(Timestamp::from_secs(30), Bitrate::kbps(500.0));
    let tr = run(link, None, smooth_paced(), 50);
    let before = mean_target_mbps(&tr, 15.0, 30.0);
    let after = mean_target_mbps(&tr, 40.0, 50.0);
    let mean_delay = |a: f64, b: f64| {
        let d: Vec<f64> = tr
            .delays
            .iter()
            .filter(|(t, _)| t.as_secs_f64() >= a && t.as_secs_f64() < b)
            .map(|(_, d)| d.as_millis_f64())
            .collect();
        d.iter().sum::<f64>() / d.len().max(1) as f64
    };
    let (d1, d2) = (mean_delay(15.0, 30.0), mean_delay(40.0, 50.0));
    eprintln!("SCReAM v2 on a 1 Mbit/s step-marking link: target {before:.3} Mbit/s, queuing delay {d1:.1} ms; after halving {after:.3} Mbit/s, {d2:.1} ms; dropped {}", tr.dropped);
    assert!(before > 0.6 && before < 1.05, "{before}");
    assert!(after > 0.3 && after < 0.55, "{after}");
    assert!(d1 < 30.0 && d2 < 40.0, "{d1} {d2}");
    assert_eq!(tr.dropped, 0);
}

/// Chromium's pacer sends a frame in a burst (up to 40 ms of sending; 10 ms within 15 s
/// of a reaction), and on a link that marks every packet waiting more than 1 ms (DualPI2's
/// step with Linux's `min_qlen_step = 0`) a burst's later packets are marked even far
/// below the link's rate: Chromium 156's SCReAM v2 held 0.75 Mbit/s on a 3 Mbit/s
/// DualPI2 link and 0.66 on 1 Mbit/s (docs/REPRODUCTION.md, "L4S: the model against
/// Chromium's own SCReAM v2"). The smooth pacer fills the 3 Mbit/s link to the maximum.
#[test]
fn chromium_pacer_bursts_are_marked_far_below_a_step_marking_link() {
    let rate = Bitrate::mbps(3.0);
    let link = || {
        TestLink::new(rate, TimeDelta::millis(25), rate * TimeDelta::millis(300))
            .mark_above(TimeDelta::millis(1))
    };
    let bursty = mean_target_mbps(&run(link(), None, chromium_like(), 30), 10.0, 30.0);
    let smooth = mean_target_mbps(&run(link(), None, smooth_paced(), 30), 10.0, 30.0);
    eprintln!("3 Mbit/s step-marking link: target {bursty:.3} Mbit/s with Chromium's pacer, {smooth:.3} smooth");
    assert!(bursty > 0.4 && bursty < 1.2, "{bursty}");
    assert!(smooth > 2.2, "{smooth}");
}
