//! The allocation routine every coupling mechanism shares: weighted water-filling with
//! caps, in closed form.
//!
//! RFC 8699 (section 5.2, algorithm 1, step c) and paper 000 (Alg. 1, lines 8-24)
//! distribute the aggregate S_CR with a "leftover loop": flows whose priority share
//! exceeds their desired rate DR get DR, the leftover is shared again among the others,
//! until no flow is capped any more. The fixed point of that loop is the weighted
//! max-min fair ("water-filling") allocation:
//!
//! ```text
//! FSE_R(f) = min(DR(f), P(f) * L)   with the level L chosen so that
//! sum_f FSE_R(f) = S_CR             (or every flow sits at its DR)
//! ```
//!
//! Sorted by DR(f)/P(f), the capped flows form a prefix: flow j is capped iff
//! DR(f_j) <= P(f_j) * (remaining total / remaining priority) after capping the flows
//! before it. With prefix sums of caps and priorities in that order, the number of
//! capped flows is found by binary search. Sorting costs O(N log N) and happens only
//! when priorities or desired rates change (they change rarely, the aggregate on every
//! update); a steady-state allocation costs O(log N) plus O(N) to write the shares.
//!
//! Unlike the loop, the closed form cannot spin on a floating-point residue (the
//! reference implementation needed a 1 bit/s tolerance to stop) and treats DR = 0
//! correctly (the loop keeps such a flow's priority in S_P forever, see
//! docs/ALGORITHMS.md). The leftover loop itself lives in the tests as the reference
//! implementation; property tests show both agree.

/// One flow's claim on the aggregate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Claim {
    /// P(f) > 0.
    pub priority: f64,
    /// DR(f) in bit/s; `f64::INFINITY` when the flow has no desired rate.
    pub cap: f64,
}

impl Claim {
    pub fn uncapped(priority: f64) -> Self {
        Claim {
            priority,
            cap: f64::INFINITY,
        }
    }
    /// Sort key: the water level at which this flow becomes capped.
    fn saturation_level(&self) -> f64 {
        self.cap / self.priority
    }
}

/// Weighted water-filling with caps.
///
/// Between calls it caches the claims it last saw, their order by saturation level and
/// the prefix sums of caps and priorities in that order. When the claims are unchanged
/// (the common case: only the aggregate moves), an allocation is a binary search for
/// the water level plus one sequential pass writing min(DR, P * level); otherwise the
/// cache is rebuilt in O(N log N).
#[derive(Debug, Clone, Default)]
pub struct WaterFill {
    claims: Vec<Claim>,
    /// The claims' caps and priorities as separate arrays (for the sequential pass).
    caps: Vec<f64>,
    priorities: Vec<f64>,
    /// Indices into `claims`, ascending by saturation level.
    order: Vec<u32>,
    /// `cap_prefix[k]` = sum of the caps of the first k flows in `order`.
    cap_prefix: Vec<f64>,
    /// `priority_suffix[k]` = sum of the priorities of flows k.. in `order`.
    priority_suffix: Vec<f64>,
}

impl WaterFill {
    pub fn new() -> Self {
        Self::default()
    }

    /// Distributes `total` (bit/s, >= 0) over `claims`, writing each flow's allocation
    /// into `out[i]`. Returns the sum of the allocations, which equals `total` unless
    /// every flow is capped (then it is the sum of the caps).
    ///
    /// `out` must have the same length as `claims` (extra entries are left untouched).
    pub fn allocate(&mut self, total: f64, claims: &[Claim], out: &mut [f64]) -> f64 {
        let n = claims.len().min(out.len());
        if self.claims.as_slice() != &claims[..n] {
            self.rebuild(&claims[..n]);
        }
        self.fill(total, out)
    }

    /// As [`WaterFill::allocate`] with the claims of the previous call, for callers that
    /// know they have not changed (skips comparing them).
    pub fn fill(&mut self, total: f64, out: &mut [f64]) -> f64 {
        let n = self.claims.len();
        if n == 0 || out.len() < n {
            return 0.0;
        }
        let total = if total.is_finite() && total > 0.0 {
            total
        } else {
            0.0
        };
        let capped = self.capped_count(total);
        if capped == n {
            out[..n].copy_from_slice(&self.caps);
            return self.cap_prefix[n];
        }
        // Every flow gets min(DR, P * L): capped flows have DR/P <= L, the others
        // DR/P > L. One sequential pass in registration order, no indirection.
        let level = (total - self.cap_prefix[capped]).max(0.0) / self.priority_suffix[capped];
        for ((slot, &cap), &priority) in out[..n].iter_mut().zip(&self.caps).zip(&self.priorities) {
            *slot = (priority * level).min(cap);
        }
        total
    }

    /// The number k of flows (a prefix of `order`) that the water level caps.
    ///
    /// Flow j (0-based, in order) is capped iff its share at the level left after
    /// capping the first j flows reaches its cap: the loop's `TLO * P(f) / S_P >= DR(f)`
    /// with TLO = total - cap_prefix[j] and S_P = priority_suffix[j], multiplied out.
    /// Sorted by saturation level, the capped flows form a prefix, so the predicate is
    /// true up to some j and false after: binary search.
    fn capped_count(&self, total: f64) -> usize {
        let is_capped = |j: usize| {
            let claim = self.claims[self.order[j] as usize];
            let remaining = total - self.cap_prefix[j];
            claim.cap.is_finite()
                && remaining >= 0.0
                && claim.cap * self.priority_suffix[j] <= remaining * claim.priority
        };
        let (mut lo, mut hi) = (0, self.order.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if is_capped(mid) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    }

    fn rebuild(&mut self, claims: &[Claim]) {
        let n = claims.len();
        self.claims.clear();
        self.claims.extend_from_slice(claims);
        self.caps.clear();
        self.caps.extend(claims.iter().map(|c| c.cap));
        self.priorities.clear();
        self.priorities.extend(claims.iter().map(|c| c.priority));
        let keys: Vec<f64> = claims.iter().map(Claim::saturation_level).collect();
        self.order.clear();
        self.order.extend(0..n as u32);
        self.order
            .sort_unstable_by(|&a, &b| keys[a as usize].total_cmp(&keys[b as usize]));
        self.cap_prefix.clear();
        self.cap_prefix.push(0.0);
        let mut sum = 0.0;
        for &idx in &self.order {
            // Infinite caps only ever sit after every finite one; their prefix is unused.
            sum += claims[idx as usize].cap;
            self.cap_prefix.push(sum);
        }
        self.priority_suffix.clear();
        self.priority_suffix.resize(n + 1, 0.0);
        for k in (0..n).rev() {
            self.priority_suffix[k] =
                self.priority_suffix[k + 1] + claims[self.order[k] as usize].priority;
        }
    }
}

/// Paper 004's first FSE (its Algorithm 1) and FSE-NG's rate-flow rule (paper 000
/// Alg. 3 line 9): a flow gets `min(DR(f), P(f) * total / S_P)`, with no leftover
/// redistribution. `priority_sum` is S_P, which FSE-NG takes over all flows of the
/// group while allocating only to some of them.
pub fn proportional_share(total: f64, priority_sum: f64, claim: Claim) -> f64 {
    let total = if total.is_finite() && total > 0.0 {
        total
    } else {
        0.0
    };
    let share = if priority_sum > 0.0 {
        claim.priority * total / priority_sum
    } else {
        0.0
    };
    share.min(claim.cap)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fill(total: f64, claims: &[Claim]) -> Vec<f64> {
        let mut out = vec![0.0; claims.len()];
        WaterFill::new().allocate(total, claims, &mut out);
        out
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
    }

    #[test]
    fn priorities_one_three_one_give_fifths() {
        // Paper 000 section IV-A: priorities 1, 3, 1 -> 1/5, 3/5, 1/5 of the total.
        let out = fill(
            5e6,
            &[
                Claim::uncapped(1.0),
                Claim::uncapped(3.0),
                Claim::uncapped(1.0),
            ],
        );
        assert!(
            close(out[0], 1e6) && close(out[1], 3e6) && close(out[2], 1e6),
            "{out:?}"
        );
    }

    #[test]
    fn desired_rate_leftover_goes_to_the_other_flow() {
        // Paper 000 Fig. 6: 2 Mbit/s, flow 1 DR 0.75 Mbit/s -> 0.75 / 1.25.
        let out = fill(
            2e6,
            &[
                Claim {
                    priority: 1.0,
                    cap: 0.75e6,
                },
                Claim::uncapped(1.0),
            ],
        );
        assert!(close(out[0], 0.75e6) && close(out[1], 1.25e6), "{out:?}");
    }

    #[test]
    fn cap_above_share_does_not_bind() {
        let out = fill(
            2e6,
            &[
                Claim {
                    priority: 1.0,
                    cap: 1.5e6,
                },
                Claim::uncapped(1.0),
            ],
        );
        assert!(close(out[0], 1e6) && close(out[1], 1e6), "{out:?}");
    }

    #[test]
    fn cascading_caps() {
        // 10 Mbit/s over caps 1, 2 and two uncapped flows of priority 1:
        // level 2.5 caps flow 0 (1), level 3 caps flow 1 (2), the rest share 7 -> 3.5 each.
        let claims = [
            Claim {
                priority: 1.0,
                cap: 2e6,
            },
            Claim {
                priority: 1.0,
                cap: 1e6,
            },
            Claim::uncapped(1.0),
            Claim::uncapped(1.0),
        ];
        let out = fill(10e6, &claims);
        assert!(close(out[0], 2e6) && close(out[1], 1e6), "{out:?}");
        assert!(close(out[2], 3.5e6) && close(out[3], 3.5e6), "{out:?}");
    }

    #[test]
    fn all_capped_leaves_leftover_unassigned() {
        let claims = [
            Claim {
                priority: 1.0,
                cap: 1e6,
            },
            Claim {
                priority: 2.0,
                cap: 0.5e6,
            },
        ];
        let mut out = vec![0.0; 2];
        let assigned = WaterFill::new().allocate(5e6, &claims, &mut out);
        assert_eq!(out, vec![1e6, 0.5e6]);
        assert!(close(assigned, 1.5e6));
    }

    #[test]
    fn zero_desired_rate_gets_nothing_and_frees_its_priority() {
        let out = fill(
            3e6,
            &[
                Claim {
                    priority: 1.0,
                    cap: 0.0,
                },
                Claim::uncapped(1.0),
            ],
        );
        assert_eq!(out[0], 0.0);
        assert!(close(out[1], 3e6));
    }

    #[test]
    fn non_finite_or_negative_total_allocates_zero() {
        for total in [f64::NAN, -1.0, f64::INFINITY] {
            let out = fill(total, &[Claim::uncapped(1.0), Claim::uncapped(2.0)]);
            assert_eq!(out, vec![0.0, 0.0]);
        }
    }

    #[test]
    fn cached_order_is_resorted_when_caps_change() {
        let mut wf = WaterFill::new();
        let mut out = vec![0.0; 2];
        wf.allocate(
            2e6,
            &[
                Claim {
                    priority: 1.0,
                    cap: 0.5e6,
                },
                Claim::uncapped(1.0),
            ],
            &mut out,
        );
        assert!(close(out[0], 0.5e6) && close(out[1], 1.5e6));
        wf.allocate(
            2e6,
            &[
                Claim::uncapped(1.0),
                Claim {
                    priority: 1.0,
                    cap: 0.5e6,
                },
            ],
            &mut out,
        );
        assert!(close(out[0], 1.5e6) && close(out[1], 0.5e6), "{out:?}");
    }

    #[test]
    fn proportional_share_ignores_leftover() {
        // Paper 004 Alg. 1: min(DR, P * S_CR / S_P); the capped flow's leftover is lost.
        assert_eq!(
            proportional_share(
                2e6,
                2.0,
                Claim {
                    priority: 1.0,
                    cap: 0.5e6
                }
            ),
            0.5e6
        );
        assert_eq!(proportional_share(2e6, 2.0, Claim::uncapped(1.0)), 1e6);
        assert_eq!(proportional_share(2e6, 0.0, Claim::uncapped(1.0)), 0.0);
    }
}
