//! The playout model end to end: packets of a 30 frames/s stream in, rendered frames
//! and figures out.

use super::*;
use crate::units::DataSize;
use proptest::prelude::*;

const FRAME_MS: u64 = 33;

fn ms(v: u64) -> Timestamp {
    Timestamp::from_millis(v)
}

/// Frame `id`'s packet `index` of `count`.
fn packet(id: u64, index: u32, count: u32) -> RtpPacket {
    RtpPacket {
        ssrc: 1,
        sequence_number: id * 16 + u64::from(index),
        transport_seq: 0,
        send_time: ms(id * FRAME_MS),
        payload_size: DataSize::bytes(1000),
        frame_id: id,
        frame_capture_time: ms(id * FRAME_MS),
        frame_packet_index: index,
        frame_packet_count: count,
        keyframe: id == 0,
    }
}

/// Frames 0..n of 3 packets each, arriving `transit` ms after capture, except the
/// packets `drop` rejects; the log of the encoder.
fn stream(
    p: &mut FramePlayout,
    n: u64,
    transit: impl Fn(u64) -> u64,
    drop: impl Fn(u64, u32) -> bool,
) -> EncoderLog {
    let mut log = EncoderLog::new();
    for id in 0..n {
        log.on_encoded(id, ms(id * FRAME_MS));
        for i in 0..3 {
            if !drop(id, i) {
                p.on_packet(ms(id * FRAME_MS + transit(id)), &packet(id, i, 3), false);
            }
        }
    }
    log
}

fn fixed_100() -> PlayoutConfig {
    PlayoutConfig {
        mode: PlayoutMode::Fixed {
            playout_delay: TimeDelta::millis(100),
        },
        ..PlayoutConfig::default()
    }
}

#[test]
fn a_clean_stream_renders_every_frame_smoothly() {
    for cfg in [PlayoutConfig::default(), fixed_100()] {
        let mut p = FramePlayout::new(cfg);
        let log = stream(&mut p, 300, |_| 40, |_, _| false);
        p.advance(ms(20_000));
        let s = p.stats(&log, ms(0), ms(300 * FRAME_MS + 1000));
        assert_eq!(s.frames_rendered, 300, "{cfg:?}");
        assert_eq!(
            (s.frames_lost, s.frames_late, s.freezes),
            (0, 0, 0),
            "{cfg:?}"
        );
        // In a window of whole frame intervals: the capture rate.
        let s = p.stats(&log, ms(33 * 30), ms(33 * 270));
        assert!((s.fps - 1000.0 / 33.0).abs() < 0.01, "{}", s.fps);
    }
    // Fixed: every frame 100 ms after capture.
    let mut p = FramePlayout::new(fixed_100());
    let log = stream(&mut p, 100, |_| 40, |_, _| false);
    p.advance(ms(20_000));
    let s = p.stats(&log, ms(0), ms(100 * FRAME_MS + 1000));
    assert_eq!(s.frame_delay_ms.p99, Some(100.0));
}

#[test]
fn lost_frames_make_a_freeze() {
    // Frames 100..=109 lose a packet each: 10 frames (330 ms) missing.
    let mut p = FramePlayout::new(PlayoutConfig::default());
    let log = stream(
        &mut p,
        300,
        |_| 40,
        |id, i| (100..110).contains(&id) && i == 1,
    );
    p.advance(ms(20_000));
    let s = p.stats(&log, ms(0), ms(300 * FRAME_MS + 1000));
    assert_eq!((s.frames_rendered, s.frames_lost), (290, 10));
    assert_eq!(s.freezes, 1);
    assert!(
        (s.freeze_duration_s - 0.363).abs() < 0.002,
        "{}",
        s.freeze_duration_s
    );
}

/// Frame 30's third packet comes back on the RTX stream at `rtx_ms`; the others arrive
/// 40 ms after capture.
fn with_retransmission(rtx_ms: u64) -> (FramePlayout, EncoderLog) {
    let mut p = FramePlayout::new(fixed_100());
    let mut log = EncoderLog::new();
    for id in 0..60 {
        log.on_encoded(id, ms(id * FRAME_MS));
        for i in 0..3 {
            if id == 30 && i == 2 {
                continue;
            }
            p.on_packet(ms(id * FRAME_MS + 40), &packet(id, i, 3), false);
        }
        if id == 32 {
            p.on_packet(ms(rtx_ms), &packet(30, 2, 3), true);
        }
    }
    p.advance(ms(10_000));
    (p, log)
}

#[test]
fn a_retransmission_in_time_renders_its_frame() {
    // Frame 30's render time is 1,090 ms, its latest decode start 1,075: the RTX
    // packet at 1,070 completes it in time.
    let (p, log) = with_retransmission(30 * FRAME_MS + 80);
    let s = p.stats(&log, ms(0), ms(60 * FRAME_MS + 1000));
    assert_eq!(
        (s.frames_rendered, s.frames_lost, s.frames_late),
        (60, 0, 0)
    );
    assert_eq!(p.rendered()[30].rendered_at, ms(30 * FRAME_MS + 100));
}

#[test]
fn a_retransmission_past_the_decode_time_with_later_frames_ready_is_skipped_as_late() {
    // An RTT later (1,100 ms: 25 ms past its latest decode start) frames 31 and 32 are
    // complete: frame 30 is skipped (libwebrtc's framesDropped), neither rendered nor lost.
    let (p, log) = with_retransmission(30 * FRAME_MS + 110);
    let s = p.stats(&log, ms(0), ms(60 * FRAME_MS + 1000));
    assert_eq!(
        (s.frames_rendered, s.frames_lost, s.frames_late),
        (59, 0, 1)
    );
    assert_eq!(p.rendered()[30].id, 31);
}

#[test]
fn fec_packets_recover_a_lost_media_packet() {
    let mut p = FramePlayout::new(fixed_100());
    let mut log = EncoderLog::new();
    for id in 0..10 {
        log.on_encoded(id, ms(id * FRAME_MS));
        for i in 0..3 {
            if id == 5 && i == 0 {
                continue;
            }
            p.on_packet(ms(id * FRAME_MS + 40), &packet(id, i, 3), false);
        }
        let mut fec = packet(id, 0, 0);
        fec.sequence_number = id * 16 + 15;
        p.on_packet(ms(id * FRAME_MS + 41), &fec, false);
    }
    p.advance(ms(10_000));
    let s = p.stats(&log, ms(0), ms(10 * FRAME_MS + 1000));
    assert_eq!((s.frames_rendered, s.frames_lost), (10, 0));
}

#[test]
fn the_reference_chain_turns_one_loss_into_a_freeze_until_the_key_frame() {
    let cfg = PlayoutConfig {
        reference_chain: true,
        ..PlayoutConfig::default()
    };
    let mut p = FramePlayout::new(cfg);
    let mut log = EncoderLog::new();
    for id in 0..200 {
        log.on_encoded(id, ms(id * FRAME_MS));
        for i in 0..3 {
            if id == 50 && i == 0 {
                continue;
            }
            let mut pk = packet(id, i, 3);
            pk.keyframe = id == 0 || id == 120;
            p.on_packet(ms(id * FRAME_MS + 40), &pk, false);
        }
    }
    p.advance(ms(20_000));
    let s = p.stats(&log, ms(0), ms(200 * FRAME_MS + 1000));
    // 50..=119 undecodable: 70 frames.
    assert_eq!((s.frames_rendered, s.frames_lost), (130, 70));
    assert_eq!(s.freezes, 1);
    // No key frame after the loss: the frames that wait, undecodable, when the run ends
    // are lost too.
    let mut p = FramePlayout::new(cfg);
    let log = stream(&mut p, 200, |_| 40, |id, i| id == 50 && i == 0);
    p.advance(ms(20_000));
    let s = p.stats(&log, ms(0), ms(200 * FRAME_MS + 1000));
    assert_eq!((s.frames_rendered, s.frames_lost), (50, 150));
    // Off: only frame 50 is lost, and one 66 ms gap is no freeze.
    let mut p = FramePlayout::new(PlayoutConfig::default());
    let log = stream(&mut p, 200, |_| 40, |id, i| id == 50 && i == 0);
    p.advance(ms(20_000));
    let s = p.stats(&log, ms(0), ms(200 * FRAME_MS + 1000));
    assert_eq!((s.frames_lost, s.freezes), (1, 0));
}

#[test]
fn adaptive_playout_adds_delay_under_jitter_and_fixed_renders_late() {
    // Transit alternating 40 / 100 ms.
    let jitter = |id: u64| if id % 2 == 0 { 40 } else { 100 };
    let mut a = FramePlayout::new(PlayoutConfig::default());
    let log = stream(&mut a, 600, jitter, |_, _| false);
    a.advance(ms(30_000));
    let sa = a.stats(&log, ms(10_000), ms(19_000));
    let mut f = FramePlayout::new(PlayoutConfig {
        mode: PlayoutMode::Fixed {
            playout_delay: TimeDelta::millis(80),
        },
        ..PlayoutConfig::default()
    });
    let log = stream(&mut f, 600, jitter, |_, _| false);
    f.advance(ms(30_000));
    let sf = f.stats(&log, ms(10_000), ms(19_000));
    // Fixed 80 ms: a frame of 100 ms transit misses its decode start (65 ms after
    // capture) and, the next frame not yet there, is decoded on arrival: on screen at
    // 115 ms instead of 95 (late, not skipped).
    assert_eq!(sf.frame_delay_ms.p95, Some(115.0), "{sf:?}");
    assert_eq!((sf.frames_late, sf.frames_lost), (0, 0), "{sf:?}");
    // Adaptive: the jitter estimate covers the 60 ms swing after its start-up.
    assert!(
        (sa.frames_late + sa.frames_lost) * 20 < sa.frames_rendered,
        "{sa:?}"
    );
    assert!(sa.frame_delay_ms.p50.unwrap() >= 100.0, "{sa:?}");
}

proptest! {
    #[test]
    fn rendered_frames_are_in_order_and_accounted_for(
        transits in prop::collection::vec(20_u64..300, 120),
        losses in prop::collection::vec(0_u32..12, 120),
        chain in any::<bool>(),
        adaptive in any::<bool>(),
    ) {
        let cfg = PlayoutConfig {
            reference_chain: chain,
            mode: if adaptive {
                PlayoutMode::Adaptive
            } else {
                PlayoutMode::Fixed { playout_delay: TimeDelta::millis(120) }
            },
            ..PlayoutConfig::default()
        };
        // Packets in arrival order (the network may reorder frames).
        let mut arrivals: Vec<(u64, u64, u32)> = Vec::new();
        for id in 0..120_u64 {
            for i in 0..3 {
                if losses[id as usize] != i + 1 {
                    arrivals.push((id * FRAME_MS + transits[id as usize], id, i));
                }
            }
        }
        arrivals.sort();
        let run = || {
            let mut p = FramePlayout::new(cfg);
            for &(t, id, i) in &arrivals {
                p.on_packet(ms(t), &packet(id, i, 3), false);
            }
            p.advance(ms(60_000));
            p
        };
        let p = run();
        let r = p.rendered();
        for w in r.windows(2) {
            prop_assert!(w[0].id < w[1].id);
            prop_assert!(w[0].rendered_at <= w[1].rendered_at);
        }
        for f in r {
            prop_assert!(f.rendered_at >= f.completed_at);
            prop_assert!(f.completed_at >= f.capture_time);
        }
        let mut log = EncoderLog::new();
        for id in 0..120 {
            log.on_encoded(id, ms(id * FRAME_MS));
        }
        let s = p.stats(&log, ms(0), ms(120 * FRAME_MS + 1000));
        // Every frame up to the last complete one is rendered or lost (the run ends
        // long after the last arrival: none is waiting).
        let last = arrivals.iter().map(|a| a.1).filter(|&id| losses[id as usize] == 0).max();
        let complete_up_to = r.last().map(|f| f.id).max(last).map_or(0, |l| l + 1);
        // Rendered, skipped for lateness and lost are disjoint.
        let accounted = s.frames_lost + s.frames_late + r.len() as u64;
        prop_assert!(accounted <= 120);
        if losses.iter().all(|&l| l == 0 || l > 3) {
            prop_assert_eq!(accounted, complete_up_to);
        }
        // Deterministic.
        let again = run();
        prop_assert_eq!(again.rendered(), r);
    }
}
