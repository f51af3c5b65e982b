//! Operation-sequence property tests: any order of packets (reordered, duplicated,
//! lost, marked, with any delays), reports, RTT samples, coupling calls and buffer
//! operations keeps r_ref, r_vin and r_send finite and within [RMIN, RMAX], and x_curr
//! finite and non-negative.

use super::*;
use proptest::prelude::*;

#[derive(Debug, Clone)]
enum Op {
    /// (sequence step, send gap us, one-way delay us, size, CE)
    Packet(u8, u32, u32, u16, bool),
    Lost(u8),
    Report,
    Advance(u32),
    Rtt(i64),
    SetRate(f64),
    Enqueue(u16),
    Send,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        8 => (0u8..4, 0u32..50_000, 0u32..3_000_000, 1u16..1500, any::<bool>())
            .prop_map(|(a, b, c, d, e)| Op::Packet(a, b, c, d, e)),
        1 => (0u8..20).prop_map(Op::Lost),
        3 => Just(Op::Report),
        2 => (0u32..5_000_000).prop_map(Op::Advance),
        1 => (-10i64..5_000_000).prop_map(Op::Rtt),
        1 => prop_oneof![Just(f64::NAN), Just(f64::INFINITY), -1e3f64..1e9].prop_map(Op::SetRate),
        2 => (1u16..1500).prop_map(Op::Enqueue),
        2 => Just(Op::Send),
    ]
}

fn check(n: &Nada) -> Result<(), TestCaseError> {
    let cfg = n.config();
    for r in [n.reference_rate(), n.encoder_rate(), n.sending_rate()] {
        prop_assert!(r.as_bps().is_finite());
        prop_assert!(
            r >= cfg.min_rate && r <= cfg.max_rate,
            "{} out of bounds",
            r
        );
    }
    prop_assert!(n.congestion_signal() >= TimeDelta::ZERO);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]
    #[test]
    fn rates_stay_bounded(ops in proptest::collection::vec(op(), 1..300), blend in any::<bool>()) {
        let cfg = NadaConfig { warp_blend_after_expiry: blend, ..NadaConfig::default() };
        let mut rx = NadaReceiver::new(cfg.clone());
        let mut tx = Nada::new(cfg);
        let mut now = Timestamp::from_millis(1);
        let mut send = Timestamp::from_millis(1);
        let mut seq = 0u64;
        for op in ops {
            match op {
                Op::Packet(step, gap, owd, size, ce) => {
                    seq += u64::from(step);
                    send += TimeDelta::from_micros(i64::from(gap));
                    let arrival = send + TimeDelta::from_micros(i64::from(owd));
                    now = now.max(arrival);
                    rx.on_packet(&ReceivedPacket { seq, sent: send, arrival, size: DataSize::bytes(u64::from(size)), ce_marked: ce });
                }
                Op::Lost(n) => rx.on_lost(now, u64::from(n)),
                Op::Report => {
                    let fb = rx.report(now);
                    prop_assert!(fb.x_curr >= TimeDelta::ZERO);
                    prop_assert!(fb.r_recv.as_bps().is_finite());
                    tx.on_feedback(now, &fb);
                }
                Op::Advance(us) => now += TimeDelta::from_micros(i64::from(us)),
                Op::Rtt(us) => tx.on_rtt(TimeDelta::from_micros(us)),
                Op::SetRate(r) => tx.set_reference_rate(Bitrate::bps(r)),
                Op::Enqueue(s) => tx.enqueue(now, DataSize::bytes(u64::from(s))),
                Op::Send => { let _ = tx.poll_send(now); }
            }
            check(&tx)?;
        }
    }
}
