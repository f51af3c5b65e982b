//! Fairness of the flows' throughputs: Jain's index, and weighted by the priorities.

/// Jain's fairness index (sum x)^2 / (n sum x^2); 1 for an empty or all-zero set.
pub fn jain_index(xs: &[f64]) -> f64 {
    let n = xs.len() as f64;
    let s: f64 = xs.iter().sum();
    let s2: f64 = xs.iter().map(|x| x * x).sum();
    if n == 0.0 || s2 <= 0.0 {
        1.0
    } else {
        s * s / (n * s2)
    }
}

/// Priority-weighted fairness index: [`jain_index`] of `throughput_i / priority_share_i`
/// (flows with a zero priority share are left out). 1 when every flow's throughput is in
/// proportion to its priority; equal priorities give Jain's index.
pub fn weighted_jain_index(throughputs: &[f64], priority_shares: &[f64]) -> f64 {
    let xs: Vec<f64> = throughputs
        .iter()
        .zip(priority_shares)
        .filter(|(_, p)| **p > 0.0)
        .map(|(t, p)| t / p)
        .collect();
    jain_index(&xs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jain_hand_values() {
        assert_eq!(jain_index(&[1.0, 1.0, 1.0]), 1.0);
        // (1 + 0)^2 / (2 x 1) = 0.5
        assert_eq!(jain_index(&[1.0, 0.0]), 0.5);
        // (1 + 3)^2 / (2 x 10) = 0.8
        assert!((jain_index(&[1.0, 3.0]) - 0.8).abs() < 1e-12);
        assert_eq!(jain_index(&[]), 1.0);
    }

    #[test]
    fn weighted_jain_hand_values() {
        // Throughput in proportion to the priorities (1:3): perfectly fair by priority,
        // though Jain's index of the throughputs is 0.8.
        assert!((weighted_jain_index(&[1.0, 3.0], &[0.25, 0.75]) - 1.0).abs() < 1e-12);
        // Equal priorities: Jain's index.
        assert!((weighted_jain_index(&[1.0, 3.0], &[0.5, 0.5]) - 0.8).abs() < 1e-12);
        // The low-priority flow takes everything: x = (4/0.25, 0) -> 0.5.
        assert_eq!(weighted_jain_index(&[4.0, 0.0], &[0.25, 0.75]), 0.5);
        assert_eq!(weighted_jain_index(&[], &[]), 1.0);
    }
}
