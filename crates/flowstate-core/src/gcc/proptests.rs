//! Property tests over random arrival sequences (reordering, duplicates, long gaps):
//! no panic, no NaN, no negative rate, rates within [min, max].

use super::*;
use crate::units::DataSize;
use proptest::prelude::*;

#[derive(Debug, Clone)]
enum Op {
    /// (send gap us, one-way delay us, size, duplicate)
    Packet(u32, u32, u16, bool),
    /// Swap the next two packets in arrival order.
    Reorder,
    /// A long silence (us).
    Gap(u64),
    Feedback,
    Loss(f64),
    Rtt(u32),
    SetEstimates(f64),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        8 => (0u32..40_000, 0u32..2_000_000, 1u16..1500, any::<bool>()).prop_map(|(a, b, c, d)| Op::Packet(a, b, c, d)),
        1 => Just(Op::Reorder),
        1 => (0u64..20_000_000).prop_map(Op::Gap),
        2 => Just(Op::Feedback),
        1 => prop_oneof![Just(f64::NAN), -1.0f64..2.0].prop_map(Op::Loss),
        1 => (0u32..5_000_000).prop_map(Op::Rtt),
        1 => prop_oneof![Just(f64::NAN), Just(f64::INFINITY), -1e3f64..1e9].prop_map(Op::SetEstimates),
    ]
}

fn check_rate(r: Bitrate, min: Bitrate, max: Bitrate) -> Result<(), TestCaseError> {
    prop_assert!(!r.as_bps().is_nan());
    prop_assert!(r.as_bps() >= 0.0);
    prop_assert!(
        r >= min && r <= max,
        "rate {} outside [{}, {}]",
        r,
        min,
        max
    );
    Ok(())
}

fn run(preset: GccPreset, ops: &[Op]) -> Result<(), TestCaseError> {
    let cfg = preset.config();
    let (min, max) = (cfg.delay.aimd.min_rate, cfg.delay.aimd.max_rate);
    let mut sender = Gcc::new(cfg.clone());
    let mut receiver = DelayBasedBwe::new(cfg.delay.clone());
    let mut send = Timestamp::from_millis(1);
    let mut now = Timestamp::from_millis(1);
    let mut pending: Vec<PacketTiming> = Vec::new();
    let mut swap = false;
    for op in ops {
        match *op {
            Op::Packet(gap, owd, size, dup) => {
                send += TimeDelta::from_micros(i64::from(gap));
                let arrival = send + TimeDelta::from_micros(i64::from(owd));
                let p = PacketTiming {
                    send_time: send,
                    arrival_time: arrival,
                    size: DataSize::bytes(u64::from(size)),
                    frame: Some(u64::from(gap % 7)),
                };
                now = now.max(arrival);
                pending.push(p);
                if dup {
                    pending.push(p);
                }
                if swap && pending.len() >= 2 {
                    let n = pending.len();
                    pending.swap(n - 1, n - 2);
                    swap = false;
                }
                let _ = receiver.on_packets(arrival, [p].iter());
                check_rate(receiver.estimate(), min, max)?;
            }
            Op::Reorder => swap = true,
            Op::Gap(us) => {
                send += TimeDelta::from_micros(us as i64);
                now += TimeDelta::from_micros(us as i64);
            }
            Op::Feedback => {
                sender.on_transport_feedback(now, &pending);
                sender.on_remb(now, receiver.estimate());
                pending.clear();
            }
            Op::Loss(f) => sender.on_loss_report(now, f),
            Op::Rtt(us) => sender.on_rtt(TimeDelta::from_micros(i64::from(us))),
            Op::SetEstimates(r) => sender.set_estimates(now, Bitrate::bps(r)),
        }
        check_rate(sender.target_rate(), min, max)?;
        check_rate(sender.loss_based_estimate(), min, max)?;
        prop_assert!(sender.target_rate() <= sender.delay_based_estimate());
        prop_assert!(sender.rtt() >= TimeDelta::ZERO);
        while let Some(o) = sender.poll_observation() {
            prop_assert!(o.delay_estimate.is_finite() && o.modified_estimate.is_finite());
            prop_assert!(o.threshold.is_finite() && o.threshold >= 0.0);
        }
        if let Some(o) = receiver.take_observation() {
            prop_assert!(o.delay_estimate.is_finite() && o.threshold.is_finite());
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn chromium_never_nan_negative_or_out_of_bounds(ops in prop::collection::vec(op(), 1..400)) {
        run(GccPreset::Chromium, &ops)?;
    }

    #[test]
    fn chromium_m156_never_nan_negative_or_out_of_bounds(ops in prop::collection::vec(op(), 1..400)) {
        run(GccPreset::ChromiumM156, &ops)?;
    }

    #[test]
    fn paper_never_nan_negative_or_out_of_bounds(ops in prop::collection::vec(op(), 1..400)) {
        run(GccPreset::Paper, &ops)?;
    }

    #[test]
    fn paper_static_never_nan_negative_or_out_of_bounds(ops in prop::collection::vec(op(), 1..400)) {
        run(GccPreset::PaperStatic, &ops)?;
    }

    #[test]
    fn kalman_stays_finite(ds in prop::collection::vec(prop_oneof![Just(f64::NAN), Just(f64::INFINITY), -1e12f64..1e12], 1..200)) {
        let mut k = kalman::KalmanFilter::new(kalman::KalmanConfig::default());
        for d in ds {
            let m = k.update(d);
            prop_assert!(m.is_finite());
            prop_assert!(k.gain() >= 0.0 && k.gain() <= 1.0);
        }
    }

    #[test]
    fn pacer_sends_everything_in_order(sizes in prop::collection::vec(1u64..2000, 0..200), kbps in 10.0f64..10_000.0) {
        let mut p = pacer::Pacer::new(pacer::PacerConfig::default(), Bitrate::kbps(kbps));
        for (i, s) in sizes.iter().enumerate() {
            p.enqueue(i, DataSize::bytes(*s));
        }
        let mut now = Timestamp::ZERO;
        let mut out = Vec::new();
        let mut steps = 0;
        while let Some(t) = p.next_send_time() {
            prop_assert!(t >= now || t == Timestamp::ZERO);
            now = now.max(t);
            while let Some((i, _)) = p.poll(now) {
                out.push(i);
            }
            steps += 1;
            prop_assert!(steps < 100_000);
        }
        prop_assert_eq!(out, (0..sizes.len()).collect::<Vec<_>>());
    }

    /// Chromium's media-debt rule (`media_debt`): every packet leaves, in order; what
    /// has left by any time is at most rate x elapsed + one burst interval of sending +
    /// one packet (the debt only grows under the interval); the debt never exceeds
    /// `kMaxDebtInTime` at the rate.
    #[test]
    fn media_debt_pacer_bounded_and_in_order(
        frames in prop::collection::vec((1u64..12, 0u32..200_000), 1..60),
        kbps in 50.0f64..10_000.0,
    ) {
        let md = super::media_debt::MediaDebtConfig::default();
        let cfg = pacer::PacerConfig { media_debt: Some(md), ..Default::default() };
        let rate = Bitrate::kbps(kbps);
        let mut p = pacer::Pacer::new(cfg, rate);
        let mut now = Timestamp::ZERO;
        let mut out = Vec::new();
        let mut sent = 0u64;
        let mut next_id = 0usize;
        let max_pkt = 1200u64;
        let burst = (rate * md.effective_burst_interval(rate)).as_bytes();
        for (packets, gap_us) in frames {
            let arrive = now + TimeDelta::from_micros(i64::from(gap_us));
            // Send what is due before the next frame arrives.
            while let Some(t) = p.next_send_time() {
                if t > arrive { break; }
                now = now.max(t);
                while let Some((i, s)) = p.poll(now) {
                    out.push(i);
                    sent += s.as_bytes();
                    prop_assert!(p.media_debt() <= rate * md.max_debt_in_time);
                }
                let since = now.saturating_since(Timestamp::ZERO);
                prop_assert!(sent <= (rate * since).as_bytes() + burst + max_pkt + 1,
                    "sent {} by {} us", sent, now.as_micros());
            }
            now = now.max(arrive);
            for _ in 0..packets {
                p.enqueue(next_id, DataSize::bytes(max_pkt));
                next_id += 1;
            }
        }
        let mut steps = 0;
        while let Some(t) = p.next_send_time() {
            now = now.max(t);
            while let Some((i, s)) = p.poll(now) {
                out.push(i);
                sent += s.as_bytes();
            }
            let since = now.saturating_since(Timestamp::ZERO);
            prop_assert!(sent <= (rate * since).as_bytes() + burst + max_pkt + 1);
            steps += 1;
            prop_assert!(steps < 100_000);
        }
        prop_assert_eq!(out, (0..next_id).collect::<Vec<_>>());
    }
}
