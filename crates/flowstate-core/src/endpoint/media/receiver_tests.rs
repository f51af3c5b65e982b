use super::*;
use crate::gcc::{GccConfig, GccPreset};
use crate::units::DataSize;

/// When a receiver sends its transport feedback for packets arriving at
/// `arrivals_ms`: the report times in ms and the packets in each.
fn feedback_times(gcc: GccConfig, arrivals_ms: &[f64], until_ms: u64) -> Vec<(f64, usize)> {
    let mut r = MediaReceiver::new(MediaReceiverConfig::new(gcc));
    let mut arrivals: VecDeque<Timestamp> = arrivals_ms
        .iter()
        .map(|ms| Timestamp::from_micros((ms * 1000.0) as u64))
        .collect();
    let mut out = Vec::new();
    let mut seq = 0;
    let end = Timestamp::from_millis(until_ms);
    loop {
        let next_in = arrivals.front().copied();
        let next_timeout = r.poll_timeout();
        let now = match (next_in, next_timeout) {
            (Some(a), Some(t)) => a.min(t),
            (Some(a), None) => a,
            (None, Some(t)) => t,
            (None, None) => break,
        };
        if now > end {
            break;
        }
        if next_in == Some(now) {
            arrivals.pop_front();
            seq += 1;
            r.handle_input(
                now,
                RtpPacket {
                    ssrc: 1,
                    sequence_number: seq,
                    transport_seq: seq,
                    send_time: now - TimeDelta::millis(10),
                    payload_size: DataSize::bytes(1000),
                    frame_id: seq,
                    frame_capture_time: now,
                    frame_packet_index: 0,
                    frame_packet_count: 1,
                    keyframe: false,
                },
            );
        } else {
            r.handle_timeout(now);
        }
        while let Some(t) = r.poll_transmit(now) {
            if let MediaFeedback::TransportFeedback { packets, .. } = t.message {
                out.push((now.as_micros() as f64 / 1000.0, packets.len()));
            }
        }
    }
    out
}

/// `chromium_feedback_cadence`: reports on Chromium's 62.5 ms schedule from the
/// receiver's start (libwebrtc's 50 ms for a peer at 300 kbit/s, on the 64 Hz
/// metronome), only at steps after which packets came; without it, 100 ms after the
/// first packet since the last report.
#[test]
fn chromium_feedback_cadence_reports_on_a_fixed_62_5_ms_schedule() {
    let arrivals = [10.0, 20.0, 70.0, 300.0, 312.5];
    let mut gcc = GccPreset::ChromiumM156.config();
    // Without the cadence (on in the preset): 100 ms after the first packet.
    gcc.feedback_cadence = None;
    assert_eq!(
        feedback_times(gcc.clone(), &arrivals, 1000),
        vec![(110.0, 3), (400.0, 2)]
    );
    gcc.feedback_cadence = Some(crate::gcc::feedback_cadence::FeedbackCadenceConfig::default());
    // Nothing came in (125, 187.5] or (187.5, 250]: no report at 187.5 or 250 ms;
    // the packet arriving at 312.5 ms, before that step, goes with it.
    assert_eq!(
        feedback_times(gcc.clone(), &arrivals, 1000),
        vec![(62.5, 2), (125.0, 1), (312.5, 2)]
    );
    // A peer sending 100 kbit/s: 108.8 ms, on the metronome 109.375 ms.
    gcc.feedback_cadence = Some(crate::gcc::feedback_cadence::FeedbackCadenceConfig {
        peer_rate: Bitrate::kbps(100.0),
        ..Default::default()
    });
    assert_eq!(
        feedback_times(gcc, &arrivals, 1000),
        vec![(109.375, 3), (328.125, 2)]
    );
}

#[test]
fn receiver_report_counts_losses() {
    let mut r = MediaReceiver::new(MediaReceiverConfig::new(GccPreset::Chromium.config()));
    let mk = |seq: u64| RtpPacket {
        ssrc: 1,
        sequence_number: seq,
        transport_seq: seq,
        send_time: Timestamp::from_millis(seq),
        payload_size: DataSize::bytes(1000),
        frame_id: seq,
        frame_capture_time: Timestamp::from_millis(seq),
        frame_packet_index: 0,
        frame_packet_count: 1,
        keyframe: false,
    };
    // 0..10 with 3 and 7 missing: 10 expected, 8 received -> 0.2.
    for s in (0..10).filter(|s| *s != 3 && *s != 7) {
        r.handle_input(Timestamp::from_millis(s + 5), mk(s));
    }
    r.handle_timeout(Timestamp::from_secs(2));
    let mut found = false;
    while let Some(t) = r.poll_transmit(Timestamp::from_secs(2)) {
        if let MediaFeedback::ReceiverReport {
            fraction_lost,
            cumulative_lost,
            ..
        } = t.message
        {
            assert!((fraction_lost - 0.2).abs() < 1e-12);
            assert_eq!(cumulative_lost, 2);
            found = true;
        }
    }
    assert!(found);
}

/// The times a receiver sends its reports while packets come every 10 ms for 20 s.
fn report_times(preset: GccPreset, seed: u64) -> Vec<i64> {
    let mut cfg = MediaReceiverConfig::new(preset.config());
    cfg.seed = seed;
    let mut r = MediaReceiver::new(cfg);
    let mut out = Vec::new();
    for k in 0..2000u64 {
        let now = Timestamp::from_millis(10 * k + 10);
        while r.poll_timeout().is_some_and(|t| t <= now) {
            let t = r.poll_timeout().unwrap();
            r.handle_timeout(t);
            while let Some(x) = r.poll_transmit(t) {
                if matches!(x.message, MediaFeedback::ReceiverReport { .. }) {
                    out.push(t.as_micros() as i64);
                }
            }
        }
        r.handle_input(
            now,
            RtpPacket {
                ssrc: 1,
                sequence_number: k,
                transport_seq: k,
                send_time: now,
                payload_size: DataSize::bytes(1000),
                frame_id: k,
                frame_capture_time: now,
                frame_packet_index: 0,
                frame_packet_count: 1,
                keyframe: false,
            },
        );
    }
    out
}

#[test]
fn chromium_m156_receiver_reports_at_libwebrtc_random_gaps() {
    // The paper-era preset: every second from the first packet (10 ms).
    let fixed = report_times(GccPreset::Chromium, 1);
    assert_eq!(fixed[0], 1_010_000);
    assert!(fixed.windows(2).all(|w| w[1] - w[0] == 1_000_000));
    // chromium-m156: the first half a second after the first packet, then gaps of
    // 0.5-1.5 s (RTCPSender::ComputeTimeUntilNextReport), not all alike, and
    // another seed draws others.
    let random = report_times(GccPreset::ChromiumM156, 1);
    assert_eq!(random[0], 510_000);
    let gaps: Vec<i64> = random.windows(2).map(|w| w[1] - w[0]).collect();
    assert!(gaps.len() >= 12, "{} reports in 20 s", random.len());
    assert!(
        gaps.iter().all(|g| (500_000..=1_500_000).contains(g)),
        "{gaps:?}"
    );
    assert!(gaps.iter().any(|g| *g != gaps[0]));
    assert_ne!(random, report_times(GccPreset::ChromiumM156, 2));
}
