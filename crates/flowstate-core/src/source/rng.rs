//! A small seeded generator (xorshift64*), so that source models are reproducible
//! without a dependency. Not for cryptography.

/// One step of xorshift64* (Vigna 2016, "An experimental exploration of Marsaglia's
/// xorshift generators, scrambled", shifts 12/25/27 and multiplier M_32): advances
/// `state` (non-zero) and returns the scrambled output.
pub(crate) fn xorshift64star(state: &mut u64) -> u64 {
    let mut x = *state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    x.wrapping_mul(0x2545_F491_4F6C_DD1D)
}

/// The top 53 bits of `x` as a uniform number in [0, 1).
pub(crate) fn unit_f64(x: u64) -> f64 {
    (x >> 11) as f64 / (1u64 << 53) as f64
}

/// xorshift64* (Vigna 2016).
#[derive(Debug, Clone)]
pub struct XorShift64 {
    state: u64,
}

impl XorShift64 {
    /// Any seed works; zero is mapped to a fixed non-zero state.
    pub fn new(seed: u64) -> Self {
        let s = seed ^ 0x9E37_79B9_7F4A_7C15;
        Self {
            state: if s == 0 { 0x2545_F491_4F6C_DD1D } else { s },
        }
    }
    pub fn next_u64(&mut self) -> u64 {
        xorshift64star(&mut self.state)
    }
    /// Uniform in [0, 1).
    pub fn next_f64(&mut self) -> f64 {
        unit_f64(self.next_u64())
    }
    /// Laplace(0, b): -b sgn(u) ln(1 - 2|u|), u uniform in (-1/2, 1/2).
    pub fn laplace(&mut self, b: f64) -> f64 {
        let u = self.next_f64() - 0.5;
        let a = (1.0 - 2.0 * u.abs()).max(f64::MIN_POSITIVE);
        let v = -b * u.signum() * a.ln();
        if v.is_finite() {
            v
        } else {
            0.0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic_and_laplace_moments() {
        let mut a = XorShift64::new(7);
        let mut b = XorShift64::new(7);
        assert_eq!(a.next_u64(), b.next_u64());
        let n = 200_000;
        let (mut sum, mut abs) = (0.0, 0.0);
        for _ in 0..n {
            let x = a.laplace(0.15);
            sum += x;
            abs += x.abs();
        }
        // Laplace(0, b): mean 0, E|X| = b.
        assert!((sum / n as f64).abs() < 0.005);
        assert!((abs / n as f64 - 0.15).abs() < 0.005);
    }
}
