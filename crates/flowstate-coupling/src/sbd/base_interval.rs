//! One base interval T at the receiver (RFC 8382 section 3.2): the sums a flow's
//! one-way delay (OWD) samples and losses leave behind, from which the summary
//! statistics over N, M and F intervals are built ([`super::statistics`]).
//!
//! Per OWD sample (section 3.2.2 and 3.2.3), against `mean_delay` of the intervals
//! before this one (the current interval's own mean is not in it, so that it can be
//! computed iteratively):
//!
//! ```text
//! if OWD < mean_delay: skew_base_T++        (3.2.2)
//! if OWD > mean_delay: skew_base_T--
//! var_base_T += |OWD - mean_delay|          (3.2.3)
//! ```
//!
//! OWD samples are whole microseconds; the mean is an `f64` computed from the exact
//! integer sum, i.e. with more precision than the samples, as the note of 3.2.2 asks
//! (a rounded mean would bias skew_est).

/// The running sums of the interval that is still open.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct BaseInterval {
    /// sum_T(OWD) in microseconds (exact).
    sum_owd_us: i128,
    /// num_T(OWD).
    num: u32,
    /// Samples compared with a mean_delay (all of them once one exists).
    compared: u32,
    /// skew_base_T.
    skew_base: i64,
    /// var_base_T in microseconds.
    var_base_us: f64,
    /// Packets found missing in this interval (section 3.2.5).
    lost: u32,
}

/// A closed base interval, as the statistics window keeps it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct IntervalRecord {
    pub sum_owd_us: i128,
    pub num: u32,
    /// skew_base_T and the number of samples it compared; `None` when no mean_delay
    /// existed yet (the first interval with samples).
    pub skew: Option<(i64, u32)>,
    /// var_base_T and its sample count; `None` as for `skew`, or when section 3.4.1
    /// invalidated it (the flow was deemed not to transit a bottleneck).
    pub var: Option<(f64, u32)>,
    /// A significant mean crossing happened at the end of this interval (3.2.4).
    pub crossing: bool,
    pub lost: u32,
}

impl IntervalRecord {
    /// E_T(OWD) in microseconds, if the interval had samples.
    pub fn mean_us(&self) -> Option<f64> {
        (self.num > 0).then(|| self.sum_owd_us as f64 / f64::from(self.num))
    }
}

impl BaseInterval {
    /// One OWD sample (microseconds) against the mean delay of the previous intervals.
    pub fn add_sample(&mut self, owd_us: i64, mean_delay_us: Option<f64>) {
        self.sum_owd_us += i128::from(owd_us);
        self.num = self.num.saturating_add(1);
        if let Some(mean) = mean_delay_us {
            let owd = owd_us as f64;
            if owd < mean {
                self.skew_base += 1;
            } else if owd > mean {
                self.skew_base -= 1;
            }
            self.var_base_us += (owd - mean).abs();
            self.compared = self.compared.saturating_add(1);
        }
    }

    /// `count` packets were found missing.
    pub fn add_lost(&mut self, count: u32) {
        self.lost = self.lost.saturating_add(count);
    }

    /// A packet counted missing arrived late: it is received, not lost.
    pub fn recover_lost(&mut self) {
        self.lost = self.lost.saturating_sub(1);
    }

    /// Closes the interval (crossing and validity of var_base_T are decided by the
    /// statistics window) and starts a fresh one.
    pub fn close(&mut self) -> IntervalRecord {
        let done = std::mem::take(self);
        let compared = (done.compared > 0).then_some(done.compared);
        IntervalRecord {
            sum_owd_us: done.sum_owd_us,
            num: done.num,
            skew: compared.map(|c| (done.skew_base, c)),
            var: compared.map(|c| (done.var_base_us, c)),
            crossing: false,
            lost: done.lost,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skew_and_var_base_against_the_previous_mean() {
        // mean_delay 10 ms; samples 8, 9, 10, 13 ms: two below, one equal, one above.
        let mut t = BaseInterval::default();
        for owd in [8_000, 9_000, 10_000, 13_000] {
            t.add_sample(owd, Some(10_000.0));
        }
        t.add_lost(2);
        let r = t.close();
        assert_eq!(r.num, 4);
        assert_eq!(r.mean_us(), Some(10_000.0));
        assert_eq!(r.skew, Some((2 - 1, 4)));
        // |8-10| + |9-10| + 0 + |13-10| = 6 ms
        assert_eq!(r.var, Some((6_000.0, 4)));
        assert_eq!(r.lost, 2);
        assert_eq!(
            t,
            BaseInterval::default(),
            "closing starts a fresh interval"
        );
    }

    #[test]
    fn without_a_mean_there_is_no_skew_or_variability() {
        let mut t = BaseInterval::default();
        t.add_sample(-5, None);
        t.add_sample(7, None);
        let r = t.close();
        assert_eq!((r.num, r.skew, r.var), (2, None, None));
        assert_eq!(r.mean_us(), Some(1.0));
    }

    #[test]
    fn a_sub_microsecond_mean_is_not_rounded() {
        // Mean 10.4 us: a sample of 10 us is below it (a rounded mean of 10 would call
        // it equal and bias skew_est, the note of RFC 8382 3.2.2).
        let mut t = BaseInterval::default();
        t.add_sample(10, Some(10.4));
        assert_eq!(t.close().skew, Some((1, 1)));
    }
}
