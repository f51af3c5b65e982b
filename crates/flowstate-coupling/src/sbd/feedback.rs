//! What a receiver sends its sender every base interval when the statistics are
//! computed at the receiver and the grouping runs at the sender (RFC 8382 section
//! 3.1.2): the four summary statistics of one flow, quantized to a fixed
//! [`SbdFeedback::WIRE_SIZE`] of 16 bytes.
//!
//! The RFC leaves the encoding open (an RTCP extension is outside this module); this
//! layout fixes the cost and the precision the sender's grouping works with. The
//! struct holds the quantized values, so a sender that groups on
//! [`SbdFeedback::statistics`] sees exactly what a wire would carry.
//!
//! | bytes | field | unit |
//! |---|---|---|
//! | 0-3 | SSRC of the flow | |
//! | 4-5 | feedback sequence number (one per base interval, wrapping) | |
//! | 6-7 | skew_est, signed | 1/32767; -32768 = no statistics yet |
//! | 8-11 | var_est | nanoseconds, saturating at 4.29 s |
//! | 12-13 | pkt_loss | 1/65535 |
//! | 14 | significant mean crossings among the last F intervals | count |
//! | 15 | F | intervals |
//!
//! freq_est = crossings / F exactly (RFC 8382 3.2.4); F <= 255 is checked by
//! [`super::SbdConfig::validated`]. All big-endian.

use thiserror::Error;

use super::config::SbdConfig;
use super::statistics::SummaryStats;

/// One flow's summary statistics for one base interval, as sent to the sender.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SbdFeedback {
    pub ssrc: u32,
    pub seq: u16,
    /// skew_est x 32767, or [`SbdFeedback::NO_STATISTICS`].
    pub skew: i16,
    /// var_est in nanoseconds.
    pub var_est_ns: u32,
    /// pkt_loss x 65535.
    pub pkt_loss: u16,
    pub crossings: u8,
    pub f: u8,
}

/// Bytes that are not a feedback message.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum FeedbackError {
    #[error("SBD feedback is {expected} bytes, got {got}")]
    Length { expected: usize, got: usize },
    #[error("SBD feedback counts {crossings} crossings over F = {f} intervals")]
    Crossings { crossings: u8, f: u8 },
}

impl SbdFeedback {
    /// Bytes on the wire per flow per base interval.
    pub const WIRE_SIZE: usize = 16;
    /// The skew value that says the receiver has no statistics yet.
    pub const NO_STATISTICS: i16 = i16::MIN;

    /// Quantizes `stats` (full precision) for the wire.
    pub fn new(
        ssrc: u32,
        seq: u16,
        stats: Option<SummaryStats>,
        crossings: u8,
        config: &SbdConfig,
    ) -> Self {
        let f = u8::try_from(config.f).unwrap_or(u8::MAX);
        let Some(s) = stats.filter(SummaryStats::is_finite) else {
            return SbdFeedback {
                ssrc,
                seq,
                skew: Self::NO_STATISTICS,
                var_est_ns: 0,
                pkt_loss: 0,
                crossings: 0,
                f,
            };
        };
        SbdFeedback {
            ssrc,
            seq,
            skew: (s.skew_est.clamp(-1.0, 1.0) * 32767.0).round() as i16,
            var_est_ns: (s.var_est_us * 1e3).round().clamp(0.0, f64::from(u32::MAX)) as u32,
            pkt_loss: (s.pkt_loss.clamp(0.0, 1.0) * 65535.0).round() as u16,
            crossings: crossings.min(f),
            f,
        }
    }

    /// The statistics the sender groups on (`None` while the receiver has none).
    pub fn statistics(&self) -> Option<SummaryStats> {
        if self.skew == Self::NO_STATISTICS || self.f == 0 {
            return None;
        }
        Some(SummaryStats {
            skew_est: f64::from(self.skew) / 32767.0,
            var_est_us: f64::from(self.var_est_ns) / 1e3,
            freq_est: f64::from(self.crossings) / f64::from(self.f),
            pkt_loss: f64::from(self.pkt_loss) / 65535.0,
        })
    }

    /// The 16 bytes of the table above.
    pub fn to_bytes(&self) -> [u8; Self::WIRE_SIZE] {
        let mut b = [0u8; Self::WIRE_SIZE];
        b[0..4].copy_from_slice(&self.ssrc.to_be_bytes());
        b[4..6].copy_from_slice(&self.seq.to_be_bytes());
        b[6..8].copy_from_slice(&self.skew.to_be_bytes());
        b[8..12].copy_from_slice(&self.var_est_ns.to_be_bytes());
        b[12..14].copy_from_slice(&self.pkt_loss.to_be_bytes());
        b[14] = self.crossings;
        b[15] = self.f;
        b
    }

    /// Parses the 16 bytes of the table above.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, FeedbackError> {
        let b: &[u8; Self::WIRE_SIZE] = bytes.try_into().map_err(|_| FeedbackError::Length {
            expected: Self::WIRE_SIZE,
            got: bytes.len(),
        })?;
        let (crossings, f) = (b[14], b[15]);
        if crossings > f {
            return Err(FeedbackError::Crossings { crossings, f });
        }
        Ok(SbdFeedback {
            ssrc: u32::from_be_bytes([b[0], b[1], b[2], b[3]]),
            seq: u16::from_be_bytes([b[4], b[5]]),
            skew: i16::from_be_bytes([b[6], b[7]]),
            var_est_ns: u32::from_be_bytes([b[8], b[9], b[10], b[11]]),
            pkt_loss: u16::from_be_bytes([b[12], b[13]]),
            crossings,
            f,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn stats(skew: f64, var_us: f64, freq: f64, loss: f64) -> SummaryStats {
        SummaryStats {
            skew_est: skew,
            var_est_us: var_us,
            freq_est: freq,
            pkt_loss: loss,
        }
    }

    #[test]
    fn quantization_by_hand() {
        let c = SbdConfig::default();
        let fb = SbdFeedback::new(9, 3, Some(stats(-0.5, 1234.5678, 0.15, 0.25)), 3, &c);
        assert_eq!(fb.skew, -16384); // -0.5 x 32767 = -16383.5, rounded away from 0
        assert_eq!(fb.var_est_ns, 1_234_568);
        assert_eq!(fb.pkt_loss, 16384); // 0.25 x 65535 = 16383.75
        assert_eq!((fb.crossings, fb.f), (3, 20));
        let back = fb.statistics().unwrap();
        assert!((back.skew_est + 0.5).abs() < 1.0 / 32767.0);
        assert!((back.var_est_us - 1234.568).abs() < 1e-9);
        assert_eq!(back.freq_est, 0.15);
        assert!((back.pkt_loss - 0.25).abs() < 1.0 / 65535.0);
        let none = SbdFeedback::new(9, 4, None, 0, &c);
        assert_eq!(none.statistics(), None);
        assert_eq!(none.to_bytes().len(), SbdFeedback::WIRE_SIZE);
    }

    #[test]
    fn bad_bytes_are_named() {
        assert_eq!(
            SbdFeedback::from_bytes(&[0; 15]).unwrap_err().to_string(),
            "SBD feedback is 16 bytes, got 15"
        );
        let mut b = [0u8; 16];
        b[14] = 21;
        b[15] = 20;
        assert_eq!(
            SbdFeedback::from_bytes(&b).unwrap_err().to_string(),
            "SBD feedback counts 21 crossings over F = 20 intervals"
        );
    }

    proptest! {
        #[test]
        fn bytes_round_trip(ssrc: u32, seq: u16, skew: i16, var: u32, loss: u16, f in 1u8.., c: u8) {
            let fb = SbdFeedback { ssrc, seq, skew, var_est_ns: var, pkt_loss: loss, crossings: (u16::from(c) % (u16::from(f) + 1)) as u8, f };
            prop_assert_eq!(SbdFeedback::from_bytes(&fb.to_bytes()), Ok(fb));
        }

        #[test]
        fn decoded_statistics_are_finite_and_in_range(skew in -2.0f64..2.0, var in 0.0f64..1e10, loss in 0.0f64..1.0, c: u8) {
            let fb = SbdFeedback::new(1, 0, Some(stats(skew, var, 0.0, loss)), c, &SbdConfig::default());
            let s = fb.statistics().unwrap();
            prop_assert!(s.is_finite());
            prop_assert!((-1.0..=1.0).contains(&s.skew_est));
            prop_assert!((0.0..=1.0).contains(&s.freq_est) && (0.0..=1.0).contains(&s.pkt_loss));
        }
    }
}
