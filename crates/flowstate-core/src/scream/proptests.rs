//! Operation sequences: frames, sends, feedback (reordered, duplicated, partial, with
//! any delays and ECN marks), time jumps and coupling calls keep the target bitrate
//! finite and within [min, max], cwnd >= MIN_CWND, bytes in flight equal to the
//! packets above the highest acknowledged sequence number, qdelay_trend in [0, 1] and
//! qdelay_target within [LO, HI].

use super::*;
use proptest::prelude::*;

#[derive(Debug, Clone)]
enum Op {
    Frame(u8, u16),
    Send,
    /// Ack a subset (bit mask over the outstanding packets), arrival delay, CE.
    Feedback(u64, u32, bool),
    Advance(u32),
    SetRate(f64),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (1u8..6, 1u16..1400).prop_map(|(n, s)| Op::Frame(n, s)),
        4 => Just(Op::Send),
        3 => (any::<u64>(), 0u32..2_000_000, any::<bool>()).prop_map(|(m, d, c)| Op::Feedback(m, d, c)),
        3 => (0u32..3_000_000).prop_map(Op::Advance),
        1 => prop_oneof![Just(f64::NAN), Just(f64::INFINITY), -1e3f64..1e9].prop_map(Op::SetRate),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]
    #[test]
    fn scream_invariants(ops in proptest::collection::vec(op(), 1..300)) {
        let cfg = ScreamConfig::default();
        let mut s = Scream::new(cfg.clone());
        let mut now = Timestamp::from_millis(1);
        let mut outstanding: Vec<(SentPacket, Timestamp)> = vec![];
        for op in ops {
            match op {
                Op::Frame(n, size) => s.enqueue_frame(now, &vec![DataSize::bytes(u64::from(size)); usize::from(n)]),
                Op::Send => {
                    if let Some(p) = s.poll_send(now) { outstanding.push((p, now)); }
                }
                Op::Feedback(mask, delay, ce) => {
                    let acks: Vec<PacketAck> = outstanding.iter().enumerate()
                        .filter(|(i, _)| mask >> (i % 64) & 1 == 1)
                        .map(|(_, (p, sent))| PacketAck { seq: p.seq, arrival: *sent + TimeDelta::from_micros(i64::from(delay)), ce })
                        .rev()
                        .collect();
                    s.on_feedback(now, &acks);
                }
                Op::Advance(us) => now += TimeDelta::from_micros(i64::from(us)),
                Op::SetRate(r) => s.set_target_bitrate(Bitrate::bps(r)),
            }
            let r = s.target_bitrate();
            prop_assert!(r.as_bps().is_finite() && r >= cfg.min_rate && r <= cfg.max_rate, "target {}", r);
            prop_assert!(s.cwnd() >= cfg.min_cwnd, "cwnd {}", s.cwnd());
            prop_assert!(s.net.qdelay_target() >= cfg.qdelay_target && s.net.qdelay_target() <= cfg.qdelay_target_hi);
            let trend = s.qdelay_trend();
            prop_assert!((0.0..=1.0).contains(&trend));
            prop_assert_eq!(s.bytes_in_flight(), s.flight_model());
        }
    }
}
