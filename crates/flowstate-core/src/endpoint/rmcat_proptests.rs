//! Operation-sequence property tests of the NADA and SCReAM media senders: any order
//! of time steps, sends, RFC 8888 reports (any subset of what was sent, reordered,
//! duplicated, with any arrival times, including packets never sent), coupling
//! allocations (also NaN, infinite, zero, huge) and desired rates keeps r_ref, r_vin,
//! r_send and SCReAM's target finite and within [min, max], and the senders' timers
//! finite.

use super::media::RtpPacket;
use super::nada::{NadaSender, NadaSenderConfig};
use super::rfc8888::{CcfbArrival, CcfbReport};
use super::scream::{ScreamSender, ScreamSenderConfig};
use super::{Controller, Endpoint};
use crate::coupling::Allowance;
use crate::nada::NadaConfig;
use crate::scream::ScreamConfig;
use crate::source::{EncoderBounds, StatisticsCodecConfig, VideoSourceConfig};
use crate::units::{Bitrate, TimeDelta, Timestamp};
use proptest::prelude::*;

#[derive(Debug, Clone)]
enum Op {
    /// Advance the clock (us) and drain `poll_transmit`.
    Step(u32),
    /// Report packets: (how many of the unreported, skip every k-th, one-way delay us,
    /// report hold us, ECN bits, include a never-sent sequence number).
    Report(u8, u8, u32, u32, u8, bool),
    Allocate(f64),
    Desired(Option<f64>),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (0u32..200_000).prop_map(Op::Step),
        4 => (0u8..40, 0u8..5, 0u32..2_000_000, 0u32..300_000, 0u8..4, any::<bool>())
            .prop_map(|(a, b, c, d, e, f)| Op::Report(a, b, c, d, e, f)),
        1 => prop_oneof![
            Just(f64::NAN),
            Just(f64::INFINITY),
            Just(0.0),
            1.0f64..1e10
        ]
        .prop_map(Op::Allocate),
        1 => proptest::option::of(1.0f64..1e8).prop_map(Op::Desired),
    ]
}

fn source() -> VideoSourceConfig {
    VideoSourceConfig::Statistics(StatisticsCodecConfig {
        bounds: EncoderBounds::paper000(),
        ..StatisticsCodecConfig::default()
    })
}

/// Runs `ops` on a sender through the common surface; `check` after every op.
fn drive<S: Endpoint<Outgoing = RtpPacket, Incoming = CcfbReport>>(
    s: &mut S,
    ops: &[Op],
    allocate: impl Fn(&mut S, Timestamp, Allowance),
    desired: impl Fn(&mut S, Timestamp, Option<Bitrate>),
    check: impl Fn(&S) -> Result<(), TestCaseError>,
) -> Result<(), TestCaseError> {
    let mut now = Timestamp::ZERO;
    let mut sent: Vec<(u64, Timestamp)> = Vec::new();
    for op in ops {
        match *op {
            Op::Step(us) => {
                now += TimeDelta::from_micros(i64::from(us));
                if s.poll_timeout().is_some_and(|t| t <= now) {
                    s.handle_timeout(now);
                }
                for _ in 0..10_000 {
                    let Some(t) = s.poll_transmit(now) else { break };
                    prop_assert!(t.size.as_bytes() > 0);
                    sent.push((t.message.sequence_number, now));
                }
                let next = s.poll_timeout();
                prop_assert!(next.is_some_and(|t| t.as_micros() < u64::MAX / 2));
            }
            Op::Report(n, skip, owd, hold, ecn, stray) => {
                let take = usize::from(n).min(sent.len());
                let batch: Vec<_> = sent.drain(..take).collect();
                let Some(&(first, _)) = batch.first() else {
                    continue;
                };
                let last = batch.last().map_or(first, |b| b.0) + u64::from(stray);
                let mut packets = vec![None; (last - first + 1) as usize];
                for (k, &(seq, at)) in batch.iter().enumerate() {
                    if skip > 0 && k % usize::from(skip) == 0 {
                        continue;
                    }
                    packets[(seq - first) as usize] = Some(CcfbArrival {
                        arrival: at + TimeDelta::from_micros(i64::from(owd)),
                        ecn,
                    });
                }
                if stray {
                    if let Some(p) = packets.last_mut() {
                        *p = Some(CcfbArrival {
                            arrival: now,
                            ecn: 0,
                        });
                    }
                }
                let report_time = now + TimeDelta::from_micros(i64::from(hold));
                s.handle_input(
                    now,
                    CcfbReport {
                        ssrc: 1,
                        begin_seq: first,
                        packets,
                        report_time,
                    },
                );
            }
            Op::Allocate(bps) => {
                let r = if bps.is_nan() {
                    Bitrate::ZERO
                } else {
                    Bitrate::bps(bps)
                };
                allocate(s, now, Allowance::Rate(r));
            }
            Op::Desired(d) => desired(s, now, d.map(Bitrate::bps)),
        }
        check(s)?;
    }
    Ok(())
}

fn within(r: Bitrate, lo: Bitrate, hi: Bitrate) -> Result<(), TestCaseError> {
    prop_assert!(r.as_bps().is_finite(), "{r}");
    prop_assert!(r >= lo && r <= hi, "{r} outside [{lo}, {hi}]");
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn nada_sender_rates_stay_within_rmin_rmax(ops in proptest::collection::vec(op(), 1..120)) {
        let cfg = NadaConfig::default();
        let (lo, hi) = (cfg.min_rate, cfg.max_rate);
        let mut s = NadaSender::new(NadaSenderConfig::new(cfg, source()), Timestamp::ZERO);
        drive(
            &mut s,
            &ops,
            |s, now, a| s.apply_allowance(now, a),
            |s, now, d| s.set_desired_rate(now, d),
            |s| {
                within(s.reference_rate(), lo, hi)?;
                within(s.encoder_target(), lo, hi)?;
                within(s.sending_rate(), lo, hi)?;
                if let Some(rtt) = s.rtt() {
                    prop_assert!(rtt >= TimeDelta::ZERO);
                }
                Ok(())
            },
        )?;
    }

    #[test]
    fn scream_sender_target_stays_within_bounds(ops in proptest::collection::vec(op(), 1..120)) {
        let cfg = ScreamConfig::default();
        let (lo, hi, min_cwnd) = (cfg.min_rate, cfg.max_rate, cfg.min_cwnd);
        let mut s = ScreamSender::new(ScreamSenderConfig::new(cfg, source()), Timestamp::ZERO);
        drive(
            &mut s,
            &ops,
            |s, now, a| s.apply_allowance(now, a),
            |s, now, d| s.set_desired_rate(now, d),
            |s| {
                within(s.target_bitrate(), lo, hi)?;
                prop_assert!(s.scream().cwnd() >= min_cwnd);
                Ok(())
            },
        )?;
    }
}
