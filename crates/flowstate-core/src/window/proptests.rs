//! Operation-sequence property tests run against every window controller with one
//! generic model (s2n-quic style): for any order of sends, acks, losses, dup acks, fast
//! retransmits, timeouts, idle periods and coupling calls, no panic, `cwnd >= mtu`,
//! `cwnd <= max_cwnd` when capped, and bytes in flight equal to the model's count.

use super::*;
use crate::units::{DataSize, TimeDelta, Timestamp};
use proptest::prelude::*;

#[derive(Debug, Clone)]
enum Op {
    Send(u64),
    /// Ack this fraction (per mille) of the flight; bool: cum ack advanced.
    Ack {
        per_mille: u64,
        advanced: bool,
        rtt_ms: Option<i64>,
        extra_acked: u64,
    },
    Lose(u64),
    DupAck,
    FastRetransmit,
    Rto,
    RepeatedRto,
    Idle(i64),
    SetMax(Option<u64>),
    SetCwnd(u64, Option<u64>),
    Advance(i64),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (1u64..5000).prop_map(Op::Send),
        4 => (0u64..=1000, any::<bool>(), proptest::option::of(-5i64..2000), 0u64..3000)
            .prop_map(|(per_mille, advanced, rtt_ms, extra_acked)| Op::Ack { per_mille, advanced, rtt_ms, extra_acked }),
        1 => (0u64..=1000).prop_map(Op::Lose),
        1 => Just(Op::DupAck),
        1 => Just(Op::FastRetransmit),
        1 => Just(Op::Rto),
        1 => Just(Op::RepeatedRto),
        1 => (0i64..100_000).prop_map(Op::Idle),
        1 => proptest::option::of(0u64..200_000).prop_map(Op::SetMax),
        1 => (0u64..200_000, proptest::option::of(0u64..200_000)).prop_map(|(c, s)| Op::SetCwnd(c, s)),
        2 => (0i64..2000).prop_map(Op::Advance),
    ]
}

fn run_model<C: WindowController>(mut cc: C, ops: &[Op]) -> Result<(), TestCaseError> {
    let mut now = Timestamp::ZERO;
    let mut flight = 0u64;
    let mut seq = 0u64;
    let mut cum = 0u64;
    for op in ops {
        match *op {
            Op::Send(n) => {
                cc.on_sent(now, DataSize::bytes(n));
                flight += n;
                seq += n;
            }
            Op::Ack {
                per_mille,
                advanced,
                rtt_ms,
                extra_acked,
            } => {
                let removed = flight * per_mille / 1000;
                flight -= removed;
                if advanced {
                    cum = (cum + removed + 1).min(seq.max(cum));
                }
                let ack = AckEvent {
                    // Newly acked may exceed what leaves the flight (chunks already marked lost).
                    newly_acked: DataSize::bytes(removed + extra_acked),
                    removed_from_flight: DataSize::bytes(removed),
                    cum_ack: cum,
                    cum_ack_advanced: advanced,
                    rtt: rtt_ms.map(TimeDelta::millis),
                };
                cc.on_ack(now, &ack);
            }
            Op::Lose(per_mille) => {
                let lost = flight * per_mille / 1000;
                flight -= lost;
                cc.on_lost(DataSize::bytes(lost));
            }
            Op::DupAck => cc.on_dup_ack(now),
            Op::FastRetransmit => {
                cc.on_fast_retransmit(now, seq);
            }
            Op::Rto => cc.on_rto_timeout(now, false),
            Op::RepeatedRto => cc.on_rto_timeout(now, true),
            Op::Idle(ms) => cc.on_idle(TimeDelta::millis(ms), TimeDelta::millis(ms / 3)),
            Op::SetMax(m) => cc.set_max_cwnd(m.map(DataSize::bytes)),
            Op::SetCwnd(c, s) => cc.set_cwnd(DataSize::bytes(c), s.map(DataSize::bytes)),
            Op::Advance(ms) => now += TimeDelta::millis(ms),
        }
        prop_assert!(
            cc.cwnd() >= cc.mtu(),
            "cwnd {} < mtu {} after {:?}",
            cc.cwnd(),
            cc.mtu(),
            op
        );
        if let Some(max) = cc.max_cwnd() {
            prop_assert!(max >= cc.mtu());
            prop_assert!(
                cc.cwnd() <= max,
                "cwnd {} above cap {} after {:?}",
                cc.cwnd(),
                max,
                op
            );
        }
        prop_assert_eq!(
            cc.bytes_in_flight(),
            DataSize::bytes(flight),
            "flight after {:?}",
            op
        );
        prop_assert_eq!(cc.can_send(), cc.bytes_in_flight() < cc.cwnd());
        while let Some(change) = cc.poll_cwnd_change() {
            prop_assert!(change.cwnd >= cc.mtu());
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn sctp_invariants(ops in proptest::collection::vec(op(), 0..120)) {
        run_model(SctpCongestionControl::new(SctpCcConfig::default()), &ops)?;
    }

    #[test]
    fn sctp_tiny_mtu_invariants(ops in proptest::collection::vec(op(), 0..120)) {
        let cfg = SctpCcConfig { mtu: DataSize::ZERO, ..Default::default() };
        run_model(SctpCongestionControl::new(cfg), &ops)?;
    }

    #[test]
    fn new_reno_invariants(ops in proptest::collection::vec(op(), 0..120)) {
        run_model(NewReno::new(NewRenoConfig::default()), &ops)?;
    }

    #[test]
    fn cubic_invariants(ops in proptest::collection::vec(op(), 0..120)) {
        run_model(Cubic::new(CubicConfig::default()), &ops)?;
    }

    #[test]
    fn cubic_hystart_invariants(ops in proptest::collection::vec(op(), 0..120)) {
        let cfg = CubicConfig {
            hystart: Some(HystartConfig { low_window_segments: 2, min_samples: 2, ..Default::default() }),
            ..Default::default()
        };
        run_model(Cubic::new(cfg), &ops)?;
    }

    #[test]
    fn cubic_odd_config_invariants(ops in proptest::collection::vec(op(), 0..120),
                                   beta in -1.0f64..2.0, c in -1.0f64..2.0) {
        let cfg = CubicConfig { beta, c, smss: DataSize::bytes(1), ..Default::default() };
        run_model(Cubic::new(cfg), &ops)?;
    }
}
