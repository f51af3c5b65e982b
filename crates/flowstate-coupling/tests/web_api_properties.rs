//! Invariants of the Web-API rule (coupling/web_api.rs) on generated input sequences.

use flowstate_coupling::coupling::web_api::UNBOUNDED_BACKLOG;
use flowstate_coupling::coupling::{DataInput, MediaInput, WebApiConfig, WebApiInput, WebApiRule};
use flowstate_coupling::{Bitrate, DataSize, TimeDelta};
use proptest::prelude::*;

#[derive(Debug, Clone)]
struct Step {
    elapsed_ms: i64,
    rtt_ms: Option<i64>,
    media: Vec<(f64, f64, f64, Option<f64>)>,
    data: Vec<(f64, f64, Option<u64>)>,
}

fn step() -> impl Strategy<Value = Step> {
    (
        50i64..400,
        proptest::option::of(10i64..1000),
        proptest::collection::vec(
            (
                0.1f64..10.0,
                0.0f64..10e6,
                0.0f64..10e6,
                proptest::option::of(0.0f64..5e6),
            ),
            0..4,
        ),
        proptest::collection::vec(
            (
                0.1f64..10.0,
                0.0f64..10e6,
                proptest::option::of(0u64..1_000_000),
            ),
            0..4,
        ),
    )
        .prop_map(|(elapsed_ms, rtt_ms, media, data)| Step {
            elapsed_ms,
            rtt_ms,
            media,
            data,
        })
}

fn inputs(s: &Step) -> (Vec<MediaInput>, Vec<DataInput>) {
    let media = s
        .media
        .iter()
        .enumerate()
        .map(|(i, &(p, t, sent, max))| MediaInput {
            id: i as u64,
            priority: p,
            target: Bitrate::bps(t),
            sent: Bitrate::bps(sent),
            max: max.map(Bitrate::bps),
        })
        .collect();
    let data = s
        .data
        .iter()
        .enumerate()
        .map(|(j, &(p, sent, backlog))| DataInput {
            id: 100 + j as u64,
            priority: p,
            sent: Bitrate::bps(sent),
            backlog: backlog.map_or(UNBOUNDED_BACKLOG, DataSize::bytes),
        })
        .collect();
    (media, data)
}

proptest! {
    // Outputs: one per flow, finite and non-negative (data unpaced only without media),
    // every media max >= the floor, the allocation (above the floors) never exceeds
    // S_CR, rho in (0, 1]; and the rule is deterministic.
    #[test]
    fn outputs_are_bounded_and_deterministic(steps in proptest::collection::vec(step(), 1..40)) {
        let cfg = WebApiConfig::default();
        let mut a = WebApiRule::new(cfg).unwrap();
        let mut b = WebApiRule::new(cfg).unwrap();
        for s in &steps {
            let (media, data) = inputs(s);
            let input = WebApiInput {
                elapsed: TimeDelta::millis(s.elapsed_ms),
                rtt: s.rtt_ms.map(TimeDelta::millis),
                media: &media,
                data: &data,
            };
            let d = a.update(&input).unwrap();
            prop_assert_eq!(&d, &b.update(&input).unwrap());
            prop_assert_eq!(d.media_max.len(), media.len());
            prop_assert_eq!(d.data_pacing.len(), data.len());
            prop_assert!(d.decrease > 0.0 && d.decrease <= 1.0);
            let total = d.aggregate.as_bps();
            prop_assert!(total.is_finite() && total >= 0.0);
            if media.is_empty() {
                prop_assert!(d.data_pacing.iter().all(|r| *r == Bitrate::INFINITY));
                continue;
            }
            let floor = cfg.min_media_rate.as_bps();
            let mut allocated = 0.0;
            for (m, r) in media.iter().zip(&d.media_max) {
                prop_assert!(r.is_finite() && r.as_bps() >= floor);
                if let Some(max) = m.max {
                    prop_assert!(r.as_bps() <= max.as_bps().max(floor) * (1.0 + 1e-12));
                }
                if r.as_bps() > floor {
                    allocated += r.as_bps();
                }
            }
            for r in &d.data_pacing {
                prop_assert!(r.is_finite() && r.as_bps() >= 0.0);
                allocated += r.as_bps();
            }
            prop_assert!(allocated <= total * (1.0 + 1e-9) + 1e-6, "{} > {}", allocated, total);
        }
    }

    // Priority shares: greedy data flows and media flows with no ceiling that send at
    // their target split S_CR exactly by priority (above the media floor).
    #[test]
    fn unconstrained_flows_split_by_priority(
        pm in 0.1f64..10.0, pd in 0.1f64..10.0, t in 1e6f64..5e6, d in 1e6f64..5e6,
    ) {
        let mut r = WebApiRule::default();
        let media = [MediaInput { id: 1, priority: pm, target: Bitrate::bps(t), sent: Bitrate::bps(t), max: None }];
        let data = [DataInput { id: 2, priority: pd, sent: Bitrate::bps(d), backlog: UNBOUNDED_BACKLOG }];
        let out = r.update(&WebApiInput { elapsed: TimeDelta::millis(150), rtt: None, media: &media, data: &data }).unwrap();
        let s = t + d;
        let m = out.media_max[0].as_bps();
        let want_m = s * pm / (pm + pd);
        prop_assume!(want_m > 1e5);
        prop_assert!((m - want_m).abs() <= 1e-6 * s);
        prop_assert!((out.data_pacing[0].as_bps() - s * pd / (pm + pd)).abs() <= 1e-6 * s);
    }

    // The fixed point: if GCC's target equals the media's share of T + R, the rule
    // returns the same caps again (shares are stable).
    #[test]
    fn priority_share_is_a_fixed_point(pm in 0.1f64..10.0, pd in 0.1f64..10.0, c in 1e6f64..20e6) {
        let mut r = WebApiRule::default();
        let t = c * pm / (pm + pd);
        let d = c - t;
        prop_assume!(t > 1e5); // above the media floor
        let media = [MediaInput { id: 1, priority: pm, target: Bitrate::bps(t), sent: Bitrate::bps(t), max: None }];
        let data = [DataInput { id: 2, priority: pd, sent: Bitrate::bps(d), backlog: UNBOUNDED_BACKLOG }];
        for _ in 0..5 {
            let out = r.update(&WebApiInput { elapsed: TimeDelta::millis(150), rtt: None, media: &media, data: &data }).unwrap();
            prop_assert!((out.media_max[0].as_bps() - t).abs() <= 1e-6 * c);
            prop_assert!((out.data_pacing[0].as_bps() - d).abs() <= 1e-6 * c);
        }
    }
}
