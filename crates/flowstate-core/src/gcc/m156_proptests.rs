//! Property tests of the `chromium-m156` state machines: the probe controller and the
//! ALR detector under random operation sequences.

use super::alr_detector::{AlrDetector, AlrDetectorConfig};
use super::bitrate_prober::{BitrateProber, BitrateProberConfig};
use super::probe_controller::{
    BandwidthLimitedCause, ProbeController, ProbeControllerConfig, ProbeState,
};
use crate::units::{Bitrate, DataSize, TimeDelta, Timestamp};
use proptest::prelude::*;

#[derive(Debug, Clone)]
enum ProbeOp {
    Advance(u32),
    Estimate(f64, u8),
    Allocated(f64),
    Alr(bool),
    AlrEnded,
    Request,
    Process,
    Network(bool),
}

fn probe_op() -> impl Strategy<Value = ProbeOp> {
    prop_oneof![
        4 => (0u32..3_000_000).prop_map(ProbeOp::Advance),
        4 => (1.0f64..20_000.0, 0u8..4).prop_map(|(r, c)| ProbeOp::Estimate(r, c)),
        1 => (1.0f64..10_000.0).prop_map(ProbeOp::Allocated),
        1 => any::<bool>().prop_map(ProbeOp::Alr),
        1 => Just(ProbeOp::AlrEnded),
        1 => Just(ProbeOp::Request),
        3 => Just(ProbeOp::Process),
        1 => any::<bool>().prop_map(ProbeOp::Network),
    ]
}

fn cause(c: u8) -> BandwidthLimitedCause {
    match c {
        0 => BandwidthLimitedCause::DelayBasedLimited,
        1 => BandwidthLimitedCause::DelayBasedLimitedDelayIncreased,
        2 => BandwidthLimitedCause::LossLimited,
        _ => BandwidthLimitedCause::LossLimitedIncreasing,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    /// Every probe is positive, finite and within the maximum probe rate; ids never
    /// repeat; no probe while delay- or loss-limited; `WaitingForResult` holds exactly
    /// when a further-probe threshold is pending; waiting never outlasts 1 s + a process.
    #[test]
    fn probe_controller_invariants(
        start in 10.0f64..5000.0,
        periodic in any::<bool>(),
        ops in prop::collection::vec(probe_op(), 1..300),
    ) {
        let cfg = ProbeControllerConfig { periodic_alr_probing: periodic, ..Default::default() };
        let mut now = Timestamp::ZERO;
        let mut p = ProbeController::new(cfg, now);
        let mut clusters = p.set_bitrates(now, Bitrate::kbps(5.0), Bitrate::kbps(start), Bitrate::INFINITY);
        clusters.extend(p.on_network_available(now, true));
        let mut last_id: Option<u32> = None;
        let mut last_cause = BandwidthLimitedCause::DelayBasedLimited;
        let mut waiting_since: Option<Timestamp> = None;
        let mut check = |c: &[_], p: &ProbeController, blocked: bool| -> Result<(), TestCaseError> {
            for cl in c {
                let cl: &super::probe_controller::ProbeCluster = cl;
                prop_assert!(cl.rate.is_finite() && cl.rate > Bitrate::ZERO, "rate {}", cl.rate);
                prop_assert!(cl.rate <= p.max_probe_bitrate() * 1.000_001, "{} > {}", cl.rate, p.max_probe_bitrate());
                prop_assert!(!blocked, "a probe while delay- or loss-limited");
                if let Some(l) = last_id { prop_assert!(cl.id > l); }
                last_id = Some(cl.id);
                prop_assert_eq!(cl.min_probes, 5);
                prop_assert_eq!(cl.duration, TimeDelta::millis(15));
            }
            let pending = p.min_bitrate_to_probe_further().is_finite();
            prop_assert_eq!(p.state() == ProbeState::WaitingForResult, pending);
            Ok(())
        };
        check(&clusters, &p, false)?;
        for op in ops {
            let blocked_before = matches!(last_cause, BandwidthLimitedCause::DelayBasedLimitedDelayIncreased | BandwidthLimitedCause::LossLimited);
            let (c, blocked) = match op {
                ProbeOp::Advance(us) => { now += TimeDelta::from_micros(i64::from(us)); (Vec::new(), false) }
                ProbeOp::Estimate(r, k) => {
                    last_cause = cause(k);
                    let blocked = matches!(last_cause, BandwidthLimitedCause::DelayBasedLimitedDelayIncreased | BandwidthLimitedCause::LossLimited);
                    (p.set_estimated_bitrate(now, Bitrate::kbps(r), last_cause), blocked)
                }
                ProbeOp::Allocated(r) => (p.on_max_total_allocated_bitrate(now, Bitrate::kbps(r)), blocked_before),
                ProbeOp::Alr(on) => { p.set_alr_start_time(on.then_some(now)); (Vec::new(), false) }
                ProbeOp::AlrEnded => { p.set_alr_ended_time(now); (Vec::new(), false) }
                ProbeOp::Request => (p.request_probe(now), blocked_before),
                ProbeOp::Process => {
                    let c = p.process(now);
                    if let Some(t) = waiting_since {
                        if now.saturating_since(t) > TimeDelta::secs(1) && c.is_empty() {
                            prop_assert_ne!(p.state(), ProbeState::WaitingForResult, "waited more than 1 s");
                        }
                    }
                    (c, blocked_before)
                }
                ProbeOp::Network(up) => (p.on_network_available(now, up), false),
            };
            check(&c, &p, blocked)?;
            if !c.is_empty() || waiting_since.is_none() {
                waiting_since = (p.state() == ProbeState::WaitingForResult).then_some(now);
            }
            if p.state() != ProbeState::WaitingForResult { waiting_since = None; }
        }
    }

    /// The budget ratio stays in [-1, 1]; ALR is entered only above the start level and
    /// left only below the stop level; its start time is never in the future.
    #[test]
    fn alr_detector_invariants(
        ops in prop::collection::vec((0u32..200_000, 0u32..3000, prop::option::of(1.0f64..20_000.0)), 1..400),
    ) {
        let cfg = AlrDetectorConfig::default();
        let mut d = AlrDetector::new(cfg);
        d.set_estimated_bitrate(Bitrate::kbps(300.0));
        let mut now = Timestamp::ZERO;
        for (dt, size, rate) in ops {
            now += TimeDelta::from_micros(i64::from(dt));
            if let Some(r) = rate { d.set_estimated_bitrate(Bitrate::kbps(r)); }
            let was = d.alr_start_time();
            d.on_bytes_sent(now, DataSize::bytes(u64::from(size)));
            let r = d.budget_ratio();
            prop_assert!((-1.0 - 1e-9..=1.0 + 1e-9).contains(&r), "ratio {r}");
            match (was, d.alr_start_time()) {
                (None, Some(t)) => { prop_assert_eq!(t, now); prop_assert!(r > cfg.start_budget_level_ratio); }
                (Some(_), None) => prop_assert!(r < cfg.stop_budget_level_ratio),
                (Some(a), Some(b)) => prop_assert_eq!(a, b),
                (None, None) => {}
            }
            if let Some(t) = d.alr_start_time() { prop_assert!(t <= now); }
        }
    }

    /// A probe cluster is sent at no more than its rate (after the first packet), and
    /// ends after its minimum bytes and packets.
    #[test]
    fn prober_sends_a_cluster_at_its_rate(kbps in 50.0f64..20_000.0, sizes in prop::collection::vec(1u64..1500, 1..60)) {
        let mut p = BitrateProber::new(BitrateProberConfig::default());
        let t0 = Timestamp::from_millis(10);
        p.create_cluster(super::probe_controller::ProbeCluster { id: 1, at: t0, rate: Bitrate::kbps(kbps), duration: TimeDelta::millis(15), min_probes: 5 });
        let mut now = t0;
        let mut sent = DataSize::ZERO;
        let mut n = 0u32;
        for s in sizes {
            let Some(t) = p.next_probe_time(now) else { break };
            now = now.max(t);
            if p.current_cluster(now).is_none() { break; }
            // Bytes before this packet took at least their time at the probe rate.
            let min_elapsed = sent / Bitrate::kbps(kbps);
            prop_assert!(now.saturating_since(t0) + TimeDelta::from_micros(1) >= min_elapsed);
            p.probe_sent(now, DataSize::bytes(s));
            sent += DataSize::bytes(s);
            n += 1;
        }
        let min_bytes = Bitrate::kbps(kbps) * TimeDelta::millis(15);
        if !p.is_probing() {
            prop_assert!(sent >= min_bytes && n >= 5);
        }
    }
}

mod robust_throughput {
    use crate::gcc::robust_throughput::{
        AckedPacket, RobustThroughputConfig, RobustThroughputEstimator,
    };
    use crate::units::{DataSize, TimeDelta, Timestamp};
    use proptest::prelude::*;

    /// (send gap us, receive offset us from the send time, size B) per packet; receive
    /// offsets vary, so packets can arrive out of order.
    fn packets() -> impl Strategy<Value = Vec<(u32, u32, u16)>> {
        prop::collection::vec((0u32..400_000, 0u32..1_500_000, 1u16..1500), 1..700)
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

        /// Whatever arrives, in reports of any length: the window stays sorted by receive
        /// time, within 500 packets and 5 s, and within 20 packets or 1 s; an estimate
        /// exists exactly when the window has >= 10 packets, and is finite and >= 0.
        #[test]
        fn window_bounds_and_estimate_are_sane(
            pkts in packets(),
            report in 1usize..60,
        ) {
            let cfg = RobustThroughputConfig::default();
            let mut e = RobustThroughputEstimator::new(cfg);
            let mut send = Timestamp::from_secs(1);
            let all: Vec<AckedPacket> = pkts
                .iter()
                .map(|&(gap, off, size)| {
                    send += TimeDelta::from_micros(gap.into());
                    AckedPacket {
                        send_time: send,
                        receive_time: send + TimeDelta::from_micros(off.into()),
                        size: DataSize::bytes(size.into()),
                    }
                })
                .collect();
            for chunk in all.chunks(report) {
                let mut chunk = chunk.to_vec();
                chunk.sort_by_key(|p| p.receive_time);
                e.on_packets(chunk.iter());
                let w = e.window_for_tests();
                prop_assert!(w.len() <= cfg.max_window_packets);
                prop_assert!(w.windows(2).all(|p| p[0].receive_time <= p[1].receive_time));
                if let (Some(f), Some(b)) = (w.first(), w.last()) {
                    let span = b.receive_time - f.receive_time;
                    prop_assert!(span <= cfg.max_window_duration);
                    prop_assert!(w.len() <= cfg.window_packets || span <= cfg.min_window_duration);
                }
                match e.bitrate() {
                    Some(r) => {
                        prop_assert!(w.len() >= cfg.required_packets);
                        prop_assert!(r.as_bps().is_finite() && r.as_bps() >= 0.0, "{r:?}");
                    }
                    None => prop_assert!(w.len() < cfg.required_packets),
                }
            }
        }

        /// A flow of equal packets sent every T and received every T after a constant
        /// delay is estimated at exactly size / T, whatever the window holds.
        #[test]
        fn constant_rate_flow_is_estimated_exactly(
            size in 50u64..1500,
            period_us in 500i64..200_000,
            delay_us in 0i64..500_000,
            n in 10usize..800,
            report in 1usize..40,
        ) {
            let mut e = RobustThroughputEstimator::new(RobustThroughputConfig::default());
            let all: Vec<AckedPacket> = (0..n as i64)
                .map(|i| {
                    let send = Timestamp::from_secs(1) + TimeDelta::from_micros(i * period_us);
                    AckedPacket {
                        send_time: send,
                        receive_time: send + TimeDelta::from_micros(delay_us),
                        size: DataSize::bytes(size),
                    }
                })
                .collect();
            for chunk in all.chunks(report) {
                e.on_packets(chunk.iter());
            }
            let want = (size * 8) as f64 / (period_us as f64 / 1e6);
            let got = e.bitrate().map_or(f64::NAN, |r| r.as_bps());
            prop_assert!((got - want).abs() <= 1e-6 * want, "got {got}, want {want}");
        }
    }
}
