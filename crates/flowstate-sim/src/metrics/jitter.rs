//! The RFC 3550 interarrival jitter estimate of one flow's data packets.

/// RFC 3550 section 6.4.1 interarrival jitter of one flow's data packets, over the whole
/// run (the estimate carries across the window's start).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(super) struct Jitter {
    /// One-way transit time of the previous delivered packet, microseconds.
    last_transit_us: Option<i64>,
    /// J, microseconds.
    j_us: f64,
}

impl Jitter {
    /// A packet with one-way transit `transit_us` arrived: J += (|D| - J) / 16
    /// (RFC 3550 section 6.4.1). Returns the new J (`None` for the first packet, which
    /// has no D).
    pub(super) fn on_arrival(&mut self, transit_us: i64) -> Option<f64> {
        let last = self.last_transit_us.replace(transit_us)?;
        let d = (transit_us - last).unsigned_abs() as f64;
        self.j_us += (d - self.j_us) / 16.0;
        Some(self.j_us)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jitter_follows_rfc3550() {
        let mut j = Jitter::default();
        // The first packet has no D.
        assert_eq!(j.on_arrival(50_000), None);
        // Constant transit: D = 0, J stays 0.
        assert_eq!(j.on_arrival(50_000), Some(0.0));
        // D = 16 ms: J = 0 + (16 000 - 0) / 16 = 1 000 us.
        assert_eq!(j.on_arrival(66_000), Some(1000.0));
        // D = -16 ms counts by its magnitude: J = 1 000 + (16 000 - 1 000) / 16 = 1 937.5.
        assert_eq!(j.on_arrival(50_000), Some(1937.5));
    }
}
