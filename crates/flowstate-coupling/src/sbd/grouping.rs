//! The flow grouping algorithm of RFC 8382 section 3.3.1, run wherever the
//! statistics arrive (here: at the sender, every base interval T, section 3.3.2).
//!
//! ```text
//! 1. bottleneck: skew_est < c_s || (skew_est < c_h && PB) || pkt_loss > p_l
//!    (PB: the flow passed this test last time; only these flows are grouped)
//! 2. sort by freq_est (highest first); split where diff(freq_est) >= p_f
//! 3. in each group, sort by var_est; split where diff(var_est) >= p_mad * var_est
//!    (var_est of the higher of the two)
//! 4. in each group, sort by skew_est; split where diff(skew_est) >= p_s
//! 5. in each group with a flow whose pkt_loss > p_l, sort by pkt_loss; split where
//!    diff(pkt_loss) >= p_d * pkt_loss (the higher of the two)
//! ```
//!
//! "diff" is between neighbours in the sorted order: a group grows while each next
//! flow is close enough to the one before it. Equal values are never split (the
//! strict `<` of the RFC would split identical flows whose var_est is 0). With
//! [`SbdConfig::loss_replaces_skew`] step 5 replaces step 4 in a group with high
//! loss (the RFC authors' reference script); by default both run, as the RFC's
//! numbered steps read.
//!
//! The result does not depend on the order the flows are given in: each split is a
//! function of the sorted values, ties are broken by flow key, and the output is in a
//! canonical order (each group sorted, groups by their first key).

use std::collections::BTreeSet;

use super::config::{SbdConfig, SbdConfigError};
use super::statistics::SummaryStats;

/// The outcome of one grouping run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Groups<K> {
    /// Flows deemed to share a bottleneck, one `Vec` per bottleneck (each sorted by
    /// key; groups ordered by their first key).
    pub shared: Vec<Vec<K>>,
    /// Flows deemed to transit no bottleneck (sorted): SBD has no verdict on them.
    pub not_bottlenecked: Vec<K>,
}

impl<K: Ord + Copy> Groups<K> {
    /// The group `flow` is in, as an index into `shared`, if any.
    pub fn group_of(&self, flow: K) -> Option<usize> {
        self.shared
            .iter()
            .position(|g| g.binary_search(&flow).is_ok())
    }
}

/// The grouping algorithm with its one piece of memory: PB, the flows that passed
/// the bottleneck test last time.
#[derive(Debug, Clone)]
pub struct FlowGrouping<K> {
    config: SbdConfig,
    previously_bottlenecked: BTreeSet<K>,
}

type Entry<K> = (K, SummaryStats);

impl<K: Ord + Copy> FlowGrouping<K> {
    pub fn new(config: SbdConfig) -> Result<Self, SbdConfigError> {
        Ok(FlowGrouping {
            config: config.validated()?,
            previously_bottlenecked: BTreeSet::new(),
        })
    }

    pub fn config(&self) -> &SbdConfig {
        &self.config
    }

    /// Groups `flows` (each key once; later duplicates are ignored) and remembers PB
    /// for the next run. A flow missing from `flows` loses its PB. A flow with a
    /// non-finite statistic is treated as transiting no bottleneck.
    pub fn group(&mut self, flows: &[(K, SummaryStats)]) -> Groups<K> {
        let config = self.config;
        let mut seen = BTreeSet::new();
        let mut bottlenecked: Vec<Entry<K>> = Vec::new();
        let mut not_bottlenecked = Vec::new();
        for &(key, stats) in flows {
            if !seen.insert(key) {
                continue;
            }
            let pb = self.previously_bottlenecked.contains(&key);
            if stats.is_finite() && stats.transits_bottleneck(&config, pb) {
                bottlenecked.push((key, stats));
            } else {
                not_bottlenecked.push(key);
            }
        }
        self.previously_bottlenecked = bottlenecked.iter().map(|(k, _)| *k).collect();

        let freq = |s: &SummaryStats| s.freq_est;
        let var = |s: &SummaryStats| s.var_est_us;
        let skew = |s: &SummaryStats| s.skew_est;
        let loss = |s: &SummaryStats| s.pkt_loss;
        let mut groups = split(bottlenecked, freq, Threshold::Absolute(config.p_f));
        groups = split_each(groups, var, Threshold::Relative(config.p_mad));
        let mut done = Vec::new();
        for group in groups {
            let high_loss = group.iter().any(|(_, s)| s.pkt_loss > config.p_l);
            let by_skew = if high_loss && config.loss_replaces_skew {
                vec![group]
            } else {
                split(group, skew, Threshold::Absolute(config.p_s))
            };
            if high_loss {
                done.extend(split_each(by_skew, loss, Threshold::Relative(config.p_d)));
            } else {
                done.extend(by_skew);
            }
        }

        let mut shared: Vec<Vec<K>> = done
            .into_iter()
            .map(|g| {
                let mut keys: Vec<K> = g.into_iter().map(|(k, _)| k).collect();
                keys.sort();
                keys
            })
            .collect();
        shared.sort();
        not_bottlenecked.sort();
        Groups {
            shared,
            not_bottlenecked,
        }
    }
}

/// How close two neighbours must be to stay in one group.
#[derive(Debug, Clone, Copy)]
enum Threshold {
    /// diff < p
    Absolute(f64),
    /// diff < p * (the higher value)
    Relative(f64),
}

fn split_each<K: Ord + Copy>(
    groups: Vec<Vec<Entry<K>>>,
    key: impl Fn(&SummaryStats) -> f64 + Copy,
    threshold: Threshold,
) -> Vec<Vec<Entry<K>>> {
    groups
        .into_iter()
        .flat_map(|g| split(g, key, threshold))
        .collect()
}

/// Sorts highest first (ties by flow key) and cuts between neighbours that differ by
/// at least the threshold.
fn split<K: Ord + Copy>(
    mut flows: Vec<Entry<K>>,
    key: impl Fn(&SummaryStats) -> f64,
    threshold: Threshold,
) -> Vec<Vec<Entry<K>>> {
    flows.sort_by(|a, b| key(&b.1).total_cmp(&key(&a.1)).then(a.0.cmp(&b.0)));
    let mut groups: Vec<Vec<Entry<K>>> = Vec::new();
    let mut previous: Option<f64> = None;
    for flow in flows {
        let value = key(&flow.1);
        let joins = previous.is_some_and(|higher| {
            let diff = higher - value;
            // Equal values always stay together: with a var_est of 0 the RFC's strict
            // `diff < p_mad * var_est` would split identical flows (0 < 0 is false).
            diff <= 0.0
                || match threshold {
                    Threshold::Absolute(p) => diff < p,
                    Threshold::Relative(p) => diff < p * higher,
                }
        });
        match groups.last_mut() {
            Some(last) if joins => last.push(flow),
            _ => groups.push(vec![flow]),
        }
        previous = Some(value);
    }
    groups
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn s(skew: f64, var: f64, freq: f64, loss: f64) -> SummaryStats {
        SummaryStats {
            skew_est: skew,
            var_est_us: var,
            freq_est: freq,
            pkt_loss: loss,
        }
    }

    fn grouping() -> FlowGrouping<u32> {
        FlowGrouping::new(SbdConfig::default()).unwrap()
    }

    #[test]
    fn only_flows_through_a_bottleneck_are_grouped_with_hysteresis() {
        let mut g = grouping();
        let flows = [
            (1, s(-0.2, 1000.0, 0.1, 0.0)), // skew < c_s
            (2, s(0.2, 1000.0, 0.1, 0.0)),  // c_s <= skew < c_h, no PB yet
            (3, s(0.5, 1000.0, 0.1, 0.2)),  // loss > p_l
            (4, s(0.5, 1000.0, 0.1, 0.0)),  // none
        ];
        let out = g.group(&flows);
        assert_eq!(out.not_bottlenecked, vec![2, 4]);
        // Flow 1 keeps its bottleneck verdict at skew 0.2 < c_h (PB); flow 2 does not.
        let later = [(1, s(0.2, 1000.0, 0.1, 0.0)), (2, s(0.2, 1000.0, 0.1, 0.0))];
        let out = g.group(&later);
        assert_eq!(out.shared, vec![vec![1]]);
        assert_eq!(out.not_bottlenecked, vec![2]);
        // Above c_h the hysteresis ends.
        let out = g.group(&[(1, s(0.31, 1000.0, 0.1, 0.0))]);
        assert_eq!(out.not_bottlenecked, vec![1]);
    }

    #[test]
    fn splits_by_freq_then_var_then_skew() {
        let mut g = grouping();
        let flows = [
            // freq: 0.50, 0.45, 0.40 chain within p_f = 0.1; 0.25 is 0.15 below -> apart.
            (1, s(-0.5, 1000.0, 0.50, 0.0)),
            (2, s(-0.5, 950.0, 0.45, 0.0)),
            (3, s(-0.5, 1000.0, 0.40, 0.0)),
            (4, s(-0.5, 1000.0, 0.25, 0.0)),
            // var: 1000 -> 950 is 5 % (< 10 %); 800 is 16 % below 950 -> apart.
            (5, s(-0.5, 800.0, 0.45, 0.0)),
            // skew: -0.5 vs -0.3 differ by 0.2 >= p_s -> apart.
            (6, s(-0.3, 1000.0, 0.50, 0.0)),
        ];
        let out = g.group(&flows);
        assert_eq!(out.shared, vec![vec![1, 2, 3], vec![4], vec![5], vec![6]]);
        assert!(out.not_bottlenecked.is_empty());
        assert_eq!(out.group_of(2), Some(0));
    }

    #[test]
    fn high_loss_splits_by_relative_loss_difference() {
        let mut g = grouping();
        let flows = [
            (1, s(-0.5, 1000.0, 0.2, 0.30)),
            (2, s(-0.5, 1000.0, 0.2, 0.28)), // 0.02 < 0.1 x 0.30
            (3, s(-0.5, 1000.0, 0.2, 0.20)), // 0.08 >= 0.1 x 0.28
        ];
        assert_eq!(g.group(&flows).shared, vec![vec![1, 2], vec![3]]);
        // Skew apart but loss together: the RFC's steps split (step 4); the reference
        // script's reading groups by loss alone.
        let flows = [
            (1, s(-0.5, 1000.0, 0.2, 0.3)),
            (2, s(-0.2, 1000.0, 0.2, 0.3)),
        ];
        assert_eq!(g.group(&flows).shared, vec![vec![1], vec![2]]);
        let config = SbdConfig {
            loss_replaces_skew: true,
            ..SbdConfig::default()
        };
        let mut script = FlowGrouping::new(config).unwrap();
        assert_eq!(script.group(&flows).shared, vec![vec![1, 2]]);
    }

    #[test]
    fn non_finite_statistics_are_not_grouped() {
        let mut g = grouping();
        let out = g.group(&[
            (1, s(f64::NAN, 1.0, 0.1, 0.0)),
            (2, s(-0.5, f64::INFINITY, 0.1, 0.0)),
        ]);
        assert_eq!(out.not_bottlenecked, vec![1, 2]);
        assert!(out.shared.is_empty());
    }

    fn any_stats() -> impl Strategy<Value = SummaryStats> {
        (-1.0f64..1.0, 0.0f64..5_000.0, 0.0f64..1.0, 0.0f64..0.5)
            .prop_map(|(a, b, c, d)| s(a, b, c, d))
    }

    proptest! {
        /// The grouping is a function of the set of flows, not of their order; and so
        /// is the PB memory it leaves for the next run.
        #[test]
        fn permutation_invariant(
            stats in proptest::collection::vec(any_stats(), 1..12),
            rounds in 1usize..4,
            seed: u64,
        ) {
            let flows: Vec<(u32, SummaryStats)> =
                stats.iter().enumerate().map(|(i, s)| (i as u32, *s)).collect();
            let mut shuffled = flows.clone();
            // Deterministic shuffle from the seed (Fisher-Yates with an LCG).
            let mut x = seed | 1;
            for i in (1..shuffled.len()).rev() {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                shuffled.swap(i, (x >> 33) as usize % (i + 1));
            }
            let (mut a, mut b) = (grouping(), grouping());
            for _ in 0..rounds {
                prop_assert_eq!(a.group(&flows), b.group(&shuffled));
            }
        }

        /// Identical flows through a bottleneck end in one group; without a
        /// bottleneck, none of them is grouped.
        #[test]
        fn identical_flows_stay_together(stats in any_stats(), n in 1usize..20) {
            let flows: Vec<(u32, SummaryStats)> = (0..n as u32).map(|i| (i, stats)).collect();
            let out = grouping().group(&flows);
            let all: Vec<u32> = (0..n as u32).collect();
            if stats.transits_bottleneck(&SbdConfig::default(), false) {
                prop_assert_eq!(out.shared, vec![all]);
            } else {
                prop_assert!(out.shared.is_empty());
                prop_assert_eq!(out.not_bottlenecked, all);
            }
        }

        /// Every flow is in exactly one place.
        #[test]
        fn a_partition(stats in proptest::collection::vec(any_stats(), 0..15)) {
            let flows: Vec<(u32, SummaryStats)> =
                stats.iter().enumerate().map(|(i, s)| (i as u32, *s)).collect();
            let out = grouping().group(&flows);
            let mut all: Vec<u32> = out.shared.iter().flatten().copied().collect();
            all.extend(&out.not_bottlenecked);
            all.sort();
            prop_assert_eq!(all, (0..flows.len() as u32).collect::<Vec<_>>());
            prop_assert!(out.shared.iter().all(|g| !g.is_empty()));
        }
    }
}
