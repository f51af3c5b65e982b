//! `rtc::ExpFilter` (libwebrtc `rtc_base/numerics/exp_filter.cc`, WebRTC M150,
//! signalapp/webrtc bd635df): y = a^exp y + (1 - a^exp) x, the first sample taken as
//! is. The FEC controller's packets-per-frame filters use it with a = 0.9999 and exp =
//! the milliseconds since the previous sample (`VCMLossProtectionLogic::
//! UpdatePacketsPerFrame{,Key}`).

/// An exponential filter; `None` until its first sample (`kValueUndefined`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ExpFilter {
    alpha: f32,
    filtered: Option<f32>,
}

impl ExpFilter {
    pub fn new(alpha: f32) -> Self {
        Self {
            alpha,
            filtered: None,
        }
    }

    /// `Apply(exp, sample)`.
    pub fn apply(&mut self, exp: f32, sample: f32) -> f32 {
        let y = match self.filtered {
            None => sample,
            Some(y) => {
                let a = if exp == 1.0 {
                    self.alpha
                } else {
                    self.alpha.powf(exp)
                };
                a * y + (1.0 - a) * sample
            }
        };
        self.filtered = Some(y);
        y
    }

    /// `filtered()`: -1 (`kValueUndefined`) before the first sample.
    pub fn filtered(&self) -> f32 {
        self.filtered.unwrap_or(-1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_sample_then_weighted_by_elapsed_time() {
        let mut f = ExpFilter::new(0.9999);
        assert_eq!(f.filtered(), -1.0);
        assert_eq!(f.apply(33.0, 4.0), 4.0);
        let a = 0.9999f32.powf(1000.0);
        let y = f.apply(1000.0, 1.0);
        assert!((y - (a * 4.0 + (1.0 - a))).abs() < 1e-6, "{y}");
        assert!(y > 1.0 && y < 4.0);
    }
}
