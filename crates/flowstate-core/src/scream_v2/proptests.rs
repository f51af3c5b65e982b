//! Properties: arbitrary feedback (any counts, delays, sizes, times, also out of order)
//! and coupling calls never panic and keep the target finite and within [min, max],
//! the reference window at least MIN_REF_WND and l4s_alpha in [0, 1]; and the settled
//! target falls as the CE fraction rises (monotone response).

use super::*;
use crate::units::Timestamp;
use proptest::prelude::*;

/// A report at `now_ms` with `received` packets of which `ce` marked and nothing else
/// unusual: 25 ms one way, a 50 ms RTT sample, 1000 B per packet acked.
fn summary(now_ms: u64, received: u32, ce: u32) -> FeedbackSummary {
    FeedbackSummary {
        now: Timestamp::from_millis(now_ms),
        data_in_flight: DataSize::ZERO,
        received,
        ce_marked: ce.min(received),
        lost: 0,
        recovered: 0,
        acked_not_marked: DataSize::bytes(1000 * u64::from(received - ce.min(received))),
        min_one_way_delay: TimeDelta::millis(25),
        max_one_way_delay: TimeDelta::millis(25),
        hold_time: TimeDelta::ZERO,
        rtt_sample: TimeDelta::millis(50),
    }
}

proptest! {
    #[test]
    fn arbitrary_feedback_keeps_the_state_in_range(
        draft in any::<bool>(),
        ops in prop::collection::vec(
            (0u64..3_000, 0u32..60, 0u32..60, 0u32..5, (-1_000_000i64..2_000_000, 0i64..2_000_000),
             0u64..200_000, 0u64..500_000, 0i64..3_000_000, 0i64..500_000,
             prop_oneof![Just(None), (-1e3f64..1e9).prop_map(Some), Just(Some(f64::NAN))]),
            1..200),
    ) {
        let cfg = if draft { ScreamV2Config::draft() } else { ScreamV2Config::default() };
        let (min, max) = (cfg.min_rate, cfg.max_rate);
        let min_window = cfg.min_ref_window;
        let mut s = ScreamV2::new(cfg);
        let mut now = 0;
        for (dt, rx, ce, lost, owd, acked, inflight, rtt, hold, set) in ops {
            now += dt;
            s.on_packet_sent(DataSize::bytes(inflight));
            s.on_frame(TimeDelta::from_micros(rtt), DataSize::bytes(acked), TimeDelta::millis(33));
            let (a, b) = owd;
            s.on_feedback(&FeedbackSummary {
                lost,
                acked_not_marked: DataSize::bytes(acked),
                data_in_flight: DataSize::bytes(inflight),
                min_one_way_delay: TimeDelta::from_micros(a.min(b)),
                max_one_way_delay: TimeDelta::from_micros(a.max(b)),
                hold_time: TimeDelta::from_micros(hold),
                rtt_sample: TimeDelta::from_micros(rtt),
                ..summary(now, rx, ce)
            });
            if let Some(r) = set {
                if r.is_finite() && r > 0.0 {
                    s.set_target_bitrate(Bitrate::bps(r));
                }
            }
            let t = s.target_bitrate();
            prop_assert!(t.is_finite() && t >= min && t <= max, "target {t}");
            prop_assert!(s.ref_window() >= min_window);
            prop_assert!((0.0..=1.0).contains(&s.l4s_alpha()));
            prop_assert!(s.pacing_rate().is_finite());
            prop_assert!(s.send_window() >= s.ref_window());
        }
    }
}

/// The target after 30 s of feedback every 25 ms with `fraction` of the packets
/// CE-marked (deterministically spread), on a path with 50 ms RTT that always has
/// twice the window in flight.
fn settled_target(fraction: f64) -> Bitrate {
    let cfg = ScreamV2Config {
        max_rate: Bitrate::mbps(100.0),
        ..ScreamV2Config::default()
    };
    let mut s = ScreamV2::new(cfg);
    let mut marked_so_far = 0.0;
    for i in 0..1200u64 {
        let in_flight = (s.target_bitrate() * TimeDelta::millis(50)).as_bytes() * 2;
        s.on_packet_sent(DataSize::bytes(in_flight));
        // 20 packets per feedback; the marks spread evenly.
        let due = fraction * 20.0 * (i + 1) as f64;
        let ce = (due - marked_so_far).floor();
        marked_so_far += ce;
        let acked = (s.target_bitrate() * TimeDelta::millis(25)).as_bytes();
        s.on_feedback(&FeedbackSummary {
            acked_not_marked: DataSize::bytes(acked),
            data_in_flight: DataSize::bytes(in_flight),
            ..summary(i * 25, 20, ce as u32)
        });
    }
    s.target_bitrate()
}

#[test]
fn the_settled_target_falls_as_the_ce_fraction_rises() {
    let fractions = [0.0, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5];
    let targets: Vec<f64> = fractions
        .iter()
        .map(|f| settled_target(*f).as_mbps())
        .collect();
    eprintln!("CE fraction -> settled target (Mbit/s): {fractions:?} -> {targets:?}");
    for w in targets.windows(2) {
        assert!(w[1] <= w[0] * 1.05, "not monotone: {targets:?}");
    }
    assert!(targets[0] > 2.0 * targets[targets.len() - 1], "{targets:?}");
}
