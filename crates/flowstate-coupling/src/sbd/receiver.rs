//! The receiver side of SBD for one flow (RFC 8382 section 3.1.2: statistics at the
//! receiver, grouping at the sender): OWD and loss per packet, base intervals of T on
//! the receiver's clock, and one [`SbdFeedback`] per closed interval.
//!
//! Sans-I/O as every endpoint here: [`SbdReceiver::on_packet`] takes the arrival time;
//! [`SbdReceiver::poll_timeout`] / [`SbdReceiver::handle_timeout`] close intervals in
//! which nothing arrives; [`SbdReceiver::poll_feedback`] hands out what to send.
//!
//! OWD is *relative* (section 4): arrival time on the receiver's clock minus the send
//! time stamp on the sender's clock. The clock offset is a constant shift that every
//! statistic (deviations from a mean, counts) cancels.
//!
//! Loss (3.2.5) is read from sequence numbers: a jump past the next expected number
//! counts the gap as lost in the current interval; a late packet (below the highest
//! seen) takes one back. Duplicates cannot be told from late packets without a
//! history of received numbers, and count as late ones.

use super::base_interval::BaseInterval;
use super::config::{SbdConfig, SbdConfigError};
use super::feedback::SbdFeedback;
use super::statistics::{StatisticsWindow, SummaryStats};
use crate::units::Timestamp;

/// One flow's receiver-side SBD state.
#[derive(Debug, Clone)]
pub struct SbdReceiver {
    config: SbdConfig,
    ssrc: u32,
    current: BaseInterval,
    window: StatisticsWindow,
    /// The end of the open interval; `None` before the first packet.
    interval_end: Option<Timestamp>,
    highest_seq: Option<u64>,
    next_feedback_seq: u16,
    feedback: Option<SbdFeedback>,
}

impl SbdReceiver {
    /// A receiver for the flow `ssrc` with the parameters the sender announced.
    pub fn new(ssrc: u32, config: SbdConfig) -> Result<Self, SbdConfigError> {
        let config = config.validated()?;
        Ok(SbdReceiver {
            config,
            ssrc,
            current: BaseInterval::default(),
            window: StatisticsWindow::new(config),
            interval_end: None,
            highest_seq: None,
            next_feedback_seq: 0,
            feedback: None,
        })
    }

    pub fn config(&self) -> &SbdConfig {
        &self.config
    }

    /// A packet of the flow arrived at `now`, sent at `send_time` (sender's clock),
    /// with extended sequence number `seq`. Intervals that ended by `now` close first.
    pub fn on_packet(&mut self, now: Timestamp, send_time: Timestamp, seq: u64) {
        self.handle_timeout(now);
        if self.interval_end.is_none() {
            self.interval_end = Some(now + self.config.t);
        }
        match self.highest_seq {
            Some(h) if seq > h => {
                let gap = seq - h - 1;
                self.current
                    .add_lost(u32::try_from(gap).unwrap_or(u32::MAX));
                self.highest_seq = Some(seq);
            }
            Some(_) => self.current.recover_lost(),
            None => self.highest_seq = Some(seq),
        }
        let owd = relative_owd_us(now, send_time);
        self.current.add_sample(owd, self.window.mean_delay_us());
    }

    /// When the open base interval ends (`None` before the first packet).
    #[must_use]
    pub fn poll_timeout(&self) -> Option<Timestamp> {
        self.interval_end
    }

    /// Closes every base interval that ended by `now`; each leaves one feedback (only
    /// the newest is kept). After a silence longer than N intervals, the window is
    /// filled with N empty intervals and the rest skipped.
    pub fn handle_timeout(&mut self, now: Timestamp) {
        let Some(mut end) = self.interval_end else {
            return;
        };
        let t = self.config.t;
        let mut closed = 0usize;
        while now >= end {
            if closed <= self.config.n {
                self.close_interval();
                closed += 1;
                end += t;
            } else {
                let behind = now.saturating_since(end).as_micros() / t.as_micros();
                end += t * (behind + 1);
            }
        }
        self.interval_end = Some(end);
    }

    fn close_interval(&mut self) {
        self.window.push(self.current.close());
        let seq = self.next_feedback_seq;
        self.next_feedback_seq = seq.wrapping_add(1);
        let crossings = u8::try_from(self.window.crossings()).unwrap_or(u8::MAX);
        self.feedback = Some(SbdFeedback::new(
            self.ssrc,
            seq,
            self.window.summary(),
            crossings,
            &self.config,
        ));
    }

    /// The feedback of the newest closed interval, once.
    #[must_use]
    pub fn poll_feedback(&mut self) -> Option<SbdFeedback> {
        self.feedback.take()
    }

    /// The current summary statistics (full precision), once they exist.
    pub fn statistics(&self) -> Option<SummaryStats> {
        self.window.summary()
    }
}

/// arrival - send in microseconds, saturating at the i64 range.
fn relative_owd_us(arrival: Timestamp, send: Timestamp) -> i64 {
    let diff = i128::from(arrival.as_micros()) - i128::from(send.as_micros());
    i64::try_from(diff).unwrap_or(if diff < 0 { i64::MIN } else { i64::MAX })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Timestamp {
        Timestamp::from_millis(v)
    }

    #[test]
    fn intervals_close_on_the_receivers_clock_and_leave_feedback() {
        let mut r = SbdReceiver::new(7, SbdConfig::default()).unwrap();
        assert_eq!(r.poll_timeout(), None);
        r.on_packet(ms(1_000), ms(900), 0);
        assert_eq!(r.poll_timeout(), Some(ms(1_350)));
        assert_eq!(r.poll_feedback(), None);
        r.on_packet(ms(1_349), ms(1_240), 1);
        r.handle_timeout(ms(1_350));
        let fb = r.poll_feedback().expect("one interval closed");
        assert_eq!((fb.ssrc, fb.seq), (7, 0));
        assert_eq!(
            fb.statistics(),
            None,
            "no mean_delay before the first interval"
        );
        assert_eq!(r.poll_feedback(), None, "handed out once");
        // Second interval: samples 100 and 109 ms against the mean 104.5 ms.
        r.on_packet(ms(1_400), ms(1_300), 2);
        r.on_packet(ms(1_500), ms(1_391), 3);
        r.handle_timeout(ms(1_700));
        let s = r.statistics().unwrap();
        assert_eq!(s.skew_est, 0.0);
        assert_eq!(r.poll_feedback().map(|f| f.seq), Some(1));
    }

    #[test]
    fn gaps_in_sequence_numbers_are_losses_and_late_packets_recover_them() {
        let config = SbdConfig {
            remove_oscillation_noise: false,
            ..SbdConfig::default()
        };
        let mut r = SbdReceiver::new(1, config).unwrap();
        r.on_packet(ms(0), ms(0), 10);
        r.on_packet(ms(10), ms(0), 14); // 11, 12, 13 missing
        r.on_packet(ms(20), ms(0), 12); // late: one of them recovered
        r.handle_timeout(ms(350));
        r.on_packet(ms(400), ms(390), 15);
        r.handle_timeout(ms(700));
        // lost 2 of 2 + 4 packets.
        let s = r.statistics().unwrap();
        assert!((s.pkt_loss - 2.0 / 6.0).abs() < 1e-12);
    }

    proptest::proptest! {
        /// Whatever arrives (any delays, reordering, gaps, clock offsets), the
        /// statistics are finite and in their ranges, and every feedback decodes.
        #[test]
        fn statistics_are_never_nan(
            packets in proptest::collection::vec((0u64..2_000_000, 0u64..3_000_000_000, 0u64..200), 1..300),
            noise in proptest::bool::ANY,
        ) {
            let config = SbdConfig { remove_oscillation_noise: noise, n: 8, m: 5, f: 4, ..SbdConfig::default() };
            let mut r = SbdReceiver::new(3, config).unwrap();
            let mut now = Timestamp::ZERO;
            for (i, (step, send, seq_jump)) in packets.into_iter().enumerate() {
                now += crate::units::TimeDelta::from_micros(step as i64);
                r.on_packet(now, Timestamp::from_micros(send), (i as u64) * 3 + seq_jump);
                if let Some(s) = r.statistics() {
                    proptest::prop_assert!(s.is_finite());
                    proptest::prop_assert!((-1.0..=1.0).contains(&s.skew_est));
                    proptest::prop_assert!(s.var_est_us >= 0.0);
                    proptest::prop_assert!((0.0..=1.0).contains(&s.freq_est));
                    proptest::prop_assert!((0.0..=1.0).contains(&s.pkt_loss));
                }
                if let Some(fb) = r.poll_feedback() {
                    proptest::prop_assert_eq!(SbdFeedback::from_bytes(&fb.to_bytes()), Ok(fb));
                }
            }
        }
    }

    #[test]
    fn a_long_silence_costs_at_most_n_closed_intervals() {
        let mut r = SbdReceiver::new(1, SbdConfig::default()).unwrap();
        r.on_packet(ms(0), ms(0), 0);
        r.handle_timeout(Timestamp::from_secs(3_600));
        assert_eq!(
            r.poll_timeout(),
            Some(ms(3_600_000 + 350 - 3_600_000 % 350))
        );
        assert!(r.poll_feedback().is_some());
    }
}
