//! The papers' leftover loop, kept as the reference implementation of the allocation
//! (used by the property tests and the benchmark that compares it with the closed form).

use flowstate_coupling::coupling::waterfill::Claim;

/// The leftover loop of RFC 8699 5.2 / paper 000 Alg. 1 lines 8-24, verbatim except for
/// the tolerance the reference implementation also needed to stop on a float residue.
pub fn leftover_loop(total: f64, claims: &[Claim]) -> Vec<f64> {
    let mut fse_r = vec![0.0; claims.len()];
    let mut s_p: f64 = claims.iter().map(|c| c.priority).sum();
    let mut tlo = total;
    let mut ar = 0.0;
    let tolerance = 1e-9 * total.max(1.0);
    let mut passes = 0;
    while tlo - ar > tolerance && s_p > 0.0 && passes < 10 * claims.len() + 10 {
        passes += 1;
        ar = 0.0;
        for (i, c) in claims.iter().enumerate() {
            if fse_r[i] < c.cap {
                if tlo * c.priority / s_p >= c.cap {
                    tlo -= c.cap;
                    fse_r[i] = c.cap;
                    s_p -= c.priority;
                } else {
                    fse_r[i] = tlo * c.priority / s_p;
                    ar += fse_r[i];
                }
            }
        }
    }
    fse_r
}
