use super::*;
use crate::gcc::{GccConfig, GccPreset};

/// `send_time_ms`: the feedback history keeps the send time in whole milliseconds,
/// as Chromium's `TransportFeedbackAdapter::ProcessSentPacket` does; the packet's own
/// send time (the RTT echo) stays exact.
#[test]
fn send_time_ms_keeps_whole_milliseconds_for_the_feedback() {
    for whole in [false, true] {
        let mut cfg = MediaSenderConfig::new(GccPreset::ChromiumM156.config());
        cfg.send_time_whole_ms = whole;
        let mut s = MediaSender::new(cfg, Timestamp::ZERO);
        let mut now = Timestamp::from_micros(1_033_337);
        let mut sent = Vec::new();
        while sent.len() < 20 && now < Timestamp::from_secs(3) {
            if s.poll_timeout().is_some_and(|t| t <= now) {
                s.handle_timeout(now);
            }
            while let Some(t) = s.poll_transmit(now) {
                sent.push((t.message.transport_seq, t.message.send_time));
            }
            now = s
                .poll_timeout()
                .unwrap_or(now)
                .max(now + TimeDelta::from_micros(137));
        }
        assert!(sent.len() >= 20);
        let mut off_grid = 0;
        for (seq, exact) in sent {
            let kept = s.history.get(seq).expect("in the history").0;
            assert_eq!(kept, sent_packet_time(exact, whole));
            off_grid += usize::from(exact.as_micros() % 1000 != 0);
        }
        assert!(
            off_grid > 0,
            "the test needs sends off the millisecond grid"
        );
    }
}

/// Packets the sender releases in [from, to) when feedback (every packet arriving
/// 30 ms after it left) comes every 100 ms until `blackout` and never after.
fn sent_with_feedback_blackout(
    gcc: GccConfig,
    blackout: Timestamp,
    from: Timestamp,
    to: Timestamp,
) -> u64 {
    let mut s = MediaSender::new(MediaSenderConfig::new(gcc), Timestamp::ZERO);
    let mut pending: Vec<PacketArrival> = Vec::new();
    let mut next_fb = Timestamp::from_millis(100);
    let mut now = Timestamp::ZERO;
    let mut count = 0u64;
    while now < to {
        if s.poll_timeout().is_some_and(|t| t <= now) {
            s.handle_timeout(now);
        }
        while let Some(t) = s.poll_transmit(now) {
            if now >= from {
                count += 1;
            }
            pending.push(PacketArrival {
                transport_seq: t.message.transport_seq,
                arrival_time: now + TimeDelta::millis(30),
            });
        }
        if now >= next_fb {
            if now < blackout {
                let packets = std::mem::take(&mut pending);
                s.handle_input(
                    now,
                    MediaFeedback::TransportFeedback {
                        ssrc: 0,
                        packets,
                        echo: None,
                    },
                );
            }
            next_fb += TimeDelta::millis(100);
        }
        let next = [s.poll_timeout(), Some(next_fb)]
            .into_iter()
            .flatten()
            .min()
            .unwrap_or(to);
        now = next.max(now + TimeDelta::from_micros(1)).min(to);
    }
    count
}

#[test]
fn chromium_m156_drops_frames_while_the_bytes_in_flight_exceed_the_window() {
    // 3 s of feedback (the window: target x (~0.1 s + 350 ms)), then none: the bytes
    // in flight pass the window within ~0.5 s and every 2nd frame is dropped.
    let on = GccPreset::ChromiumM156.config();
    let mut off = on.clone();
    if let Some(m) = off.m156.as_mut() {
        m.congestion_window = None;
    }
    let (blackout, from, to) = (
        Timestamp::from_secs(3),
        Timestamp::from_secs(4),
        Timestamp::from_secs(6),
    );
    let with = sent_with_feedback_blackout(on, blackout, from, to);
    let without = sent_with_feedback_blackout(off, blackout, from, to);
    assert!(without > 0);
    assert!(
        (with as f64) < 0.8 * without as f64,
        "with the pushback {with} packets, without {without}"
    );
}

#[test]
fn allowance_sets_estimates_and_desired_rate_caps_encoder() {
    let mut s = MediaSender::new(
        MediaSenderConfig::new(GccPreset::Chromium.config()),
        Timestamp::ZERO,
    );
    s.apply_allowance(
        Timestamp::from_secs(1),
        Allowance::Rate(Bitrate::kbps(800.0)),
    );
    assert_eq!(s.gcc().delay_based_estimate(), Bitrate::kbps(800.0));
    assert_eq!(s.gcc().loss_based_estimate(), Bitrate::kbps(800.0));
    assert_eq!(s.target_rate(), Bitrate::kbps(800.0));
    s.set_desired_rate(Timestamp::from_secs(1), Some(Bitrate::kbps(300.0)));
    assert!(s.is_app_limited());
    // The statistics codec changes at most once per 100 ms (it jumped 50 -> 800 at
    // 1 s); at the next frame after 1.1 s it jumps to 300 (a change > 50 %).
    assert_eq!(s.encoder_rate(), Bitrate::kbps(800.0));
    s.handle_timeout(Timestamp::from_millis(1150));
    assert_eq!(s.encoder_rate(), Bitrate::kbps(300.0));
    // Loss report at the receiver side: report queued with the target.
    s.handle_input(
        Timestamp::from_secs(2),
        MediaFeedback::ReceiverReport {
            ssrc: 1,
            fraction_lost: 0.5,
            cumulative_lost: 10,
            highest_seq: 20,
            echo: None,
        },
    );
    match s.poll_cc_report() {
        Some(FlowReport::Rate { rate, rtt }) => {
            // Chromium classic: 800 * (1 - 0.25) = 600.
            assert!((rate.as_kbps() - 600.0).abs() < 1e-6, "{rate}");
            assert_eq!(rtt, Some(TimeDelta::millis(200)));
        }
        other => panic!("expected a rate report, got {other:?}"),
    }
}

#[test]
fn target_including_overhead_gives_the_encoder_target_less_overhead() {
    let enc = |with: bool| {
        let mut cfg = MediaSenderConfig::new(GccPreset::Chromium.config());
        cfg.source =
            crate::source::VideoSourceConfig::Perfect(crate::source::EncoderBounds::paper000());
        cfg.target_includes_overhead = with;
        let mut s = MediaSender::new(cfg, Timestamp::ZERO);
        s.apply_allowance(
            Timestamp::from_secs(1),
            Allowance::Rate(Bitrate::kbps(800.0)),
        );
        assert_eq!(s.target_rate(), Bitrate::kbps(800.0));
        s.encoder_rate()
    };
    assert_eq!(enc(false), Bitrate::kbps(800.0));
    // 800 kbit/s at 30 fps: 3333 B per frame -> 3 packets of <= 1152 B payload ->
    // 90 packets/s x 48 B = 34.56 kbit/s of overhead.
    let with = enc(true);
    assert!((with.as_kbps() - (800.0 - 34.56)).abs() < 0.01, "{with}");
}
