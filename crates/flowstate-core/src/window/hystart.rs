//! HyStart, hybrid slow start (Ha and Rhee, "Taming the elephants: New TCP slow start",
//! Computer Networks 55(9), 2011), as Linux's CUBIC module runs it (`tcp_cubic.c`, on by
//! default since kernel 2.6.29: `hystart = 1`, `hystart_detect = 3`; the constants here
//! are those of the 3.x kernels the papers' testbeds ran).
//!
//! Slow start ends early, with ssthresh = cwnd, when either
//! - *delay increase*: the minimum RTT of the first `min_samples` acks of a round exceeds
//!   the connection's minimum RTT by eta = clamp(delay_min / `delay_divisor`, 4 ms, 16 ms);
//! - *ack train*: acks spaced at most `ack_delta` apart have kept arriving for longer than
//!   delay_min / 2 since the round started (the train spans the path's BDP).
//!
//! Detection runs only while cwnd >= `low_window_segments` (16) and stops for good once it
//! has fired, until a retransmission timeout resets it (Linux `bictcp_reset`). A round
//! ends when the cumulative ack passes the sequence number that was next to send when it
//! began (`end_seq = snd_nxt`); the controller sees bytes, not sequence numbers, so it
//! takes snd_nxt as cum_ack + bytes in flight, exact in slow start before any loss.
//!
//! Sans-I/O: every call carries the time it happens at.

use crate::units::{TimeDelta, Timestamp};

/// HyStart's constants (Linux `tcp_cubic.c` module parameters of kernels 3.x).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HystartConfig {
    /// Detect the end of slow start from the ack train (`HYSTART_ACK_TRAIN`).
    pub ack_train: bool,
    /// Detect the end of slow start from the RTT increase (`HYSTART_DELAY`).
    pub delay_increase: bool,
    /// Detection runs only while cwnd is at least this many segments
    /// (`hystart_low_window = 16`).
    pub low_window_segments: u64,
    /// RTT samples per round whose minimum is compared (`HYSTART_MIN_SAMPLES = 8`).
    pub min_samples: u32,
    /// Acks closer than this continue the ack train (`hystart_ack_delta = 2` ms).
    pub ack_delta: TimeDelta,
    /// eta = clamp(delay_min / delay_divisor, eta_min, eta_max). Kernels 3.x compute
    /// `delay_min >> 4` on a delay kept in 1/8 ms, i.e. delay_min / 16; later kernels
    /// use delay_min / 8.
    pub delay_divisor: u32,
    /// Lower clamp of eta (`HYSTART_DELAY_MIN = 4` ms).
    pub eta_min: TimeDelta,
    /// Upper clamp of eta (`HYSTART_DELAY_MAX = 16` ms).
    pub eta_max: TimeDelta,
    /// RTT samples within this time of the start of a congestion-avoidance epoch are
    /// ignored ("discard delay samples right after fast recovery", one second).
    pub quiet_after_recovery: TimeDelta,
}

impl Default for HystartConfig {
    fn default() -> Self {
        HystartConfig {
            ack_train: true,
            delay_increase: true,
            low_window_segments: 16,
            min_samples: 8,
            ack_delta: TimeDelta::millis(2),
            delay_divisor: 16,
            eta_min: TimeDelta::millis(4),
            eta_max: TimeDelta::millis(16),
            quiet_after_recovery: TimeDelta::secs(1),
        }
    }
}

/// eta = clamp(delay_min / divisor, eta_min, eta_max): the RTT increase that ends slow
/// start.
pub fn delay_threshold(config: &HystartConfig, delay_min: TimeDelta) -> TimeDelta {
    let scaled =
        TimeDelta::from_micros(delay_min.as_micros() / i64::from(config.delay_divisor.max(1)));
    scaled.max(config.eta_min).min(config.eta_max)
}

/// Why HyStart ended slow start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HystartExit {
    AckTrain,
    DelayIncrease,
}

/// HyStart's state for one connection.
#[derive(Debug, Clone)]
pub struct Hystart {
    config: HystartConfig,
    /// When the current round began.
    round_start: Timestamp,
    /// The newest ack of the ack train.
    last_ack: Timestamp,
    /// The round ends when the cumulative ack passes this (snd_nxt at its start); `None`
    /// before the first round.
    end_seq: Option<u64>,
    /// Minimum RTT of this round's first samples.
    curr_rtt: Option<TimeDelta>,
    sample_count: u32,
    /// Minimum RTT since the connection began or the last timeout.
    delay_min: Option<TimeDelta>,
    found: Option<HystartExit>,
}

impl Hystart {
    pub fn new(config: HystartConfig) -> Self {
        Hystart {
            config,
            round_start: Timestamp::ZERO,
            last_ack: Timestamp::ZERO,
            end_seq: None,
            curr_rtt: None,
            sample_count: 0,
            delay_min: None,
            found: None,
        }
    }

    /// What ended slow start, if HyStart did.
    pub fn exit(&self) -> Option<HystartExit> {
        self.found
    }

    pub fn delay_min(&self) -> Option<TimeDelta> {
        self.delay_min
    }

    /// Linux `bictcp_acked` + `hystart_update`: one ack with an RTT sample, taken while
    /// the sender is in slow start with `cwnd_segments` segments. `epoch_start` is the
    /// start of the current congestion-avoidance epoch, if one is running. Returns true
    /// when slow start should end now (the caller sets ssthresh = cwnd).
    pub fn on_rtt_sample(
        &mut self,
        now: Timestamp,
        rtt: TimeDelta,
        cwnd_segments: u64,
        in_slow_start: bool,
        epoch_start: Option<Timestamp>,
    ) -> bool {
        if let Some(start) = epoch_start {
            if now.saturating_since(start) < self.config.quiet_after_recovery {
                return false;
            }
        }
        let rtt = rtt.max(TimeDelta::from_micros(1));
        if self.delay_min.map_or(true, |d| rtt < d) {
            self.delay_min = Some(rtt);
        }
        if !in_slow_start || cwnd_segments < self.config.low_window_segments || self.found.is_some()
        {
            return false;
        }
        let delay_min = self.delay_min.unwrap_or(rtt);
        if self.config.ack_train && now.saturating_since(self.last_ack) <= self.config.ack_delta {
            self.last_ack = now;
            if now.saturating_since(self.round_start) > delay_min / 2 {
                self.found = Some(HystartExit::AckTrain);
            }
        }
        if self.found.is_none() && self.config.delay_increase {
            if self.sample_count < self.config.min_samples {
                if self.curr_rtt.map_or(true, |c| rtt < c) {
                    self.curr_rtt = Some(rtt);
                }
                self.sample_count += 1;
            } else if let Some(curr) = self.curr_rtt {
                if curr > delay_min + delay_threshold(&self.config, delay_min) {
                    self.found = Some(HystartExit::DelayIncrease);
                }
            }
        }
        self.found.is_some()
    }

    /// Linux `bictcp_cong_avoid` in slow start: an ack past the round's end starts a new
    /// round whose end is `snd_nxt`.
    pub fn on_slow_start_ack(&mut self, now: Timestamp, cum_ack: u64, snd_nxt: u64) {
        if self.end_seq.map_or(true, |end| cum_ack > end) {
            self.round_start = now;
            self.last_ack = now;
            self.end_seq = Some(snd_nxt);
            self.curr_rtt = None;
            self.sample_count = 0;
        }
    }

    /// Linux `bictcp_reset` + `bictcp_hystart_reset` on a retransmission timeout: forget
    /// the minimum RTT and allow detection again.
    pub fn on_timeout(&mut self) {
        self.delay_min = None;
        self.found = None;
        self.end_seq = None;
        self.curr_rtt = None;
        self.sample_count = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: i64) -> TimeDelta {
        TimeDelta::millis(v)
    }
    fn at(v: i64) -> Timestamp {
        Timestamp::ZERO + ms(v)
    }

    #[test]
    fn eta_is_delay_min_over_16_clamped_to_4_16_ms() {
        let c = HystartConfig::default();
        assert_eq!(delay_threshold(&c, ms(20)), ms(4));
        assert_eq!(delay_threshold(&c, ms(96)), ms(6));
        assert_eq!(delay_threshold(&c, ms(400)), ms(16));
        let k4 = HystartConfig {
            delay_divisor: 8,
            ..c
        };
        assert_eq!(delay_threshold(&k4, ms(96)), ms(12));
    }

    /// Acks 20 ms apart (no ack train): the round's first 8 RTTs, then the test sample.
    fn round(h: &mut Hystart, start_ms: i64, rtts: &[i64], cwnd: u64, end: u64) -> bool {
        h.on_slow_start_ack(at(start_ms), end - 1, end);
        let mut fired = false;
        for (i, r) in rtts.iter().enumerate() {
            let now = at(start_ms + 20 * i as i64);
            fired |= h.on_rtt_sample(now, ms(*r), cwnd, true, None);
        }
        fired
    }

    #[test]
    fn delay_increase_ends_slow_start() {
        let mut h = Hystart::new(HystartConfig {
            ack_train: false,
            ..Default::default()
        });
        // First round sets delay_min = 100 ms; eta = 6.25 ms.
        assert!(!round(&mut h, 0, &[100; 9], 20, 1_000));
        // Second round: minimum of the first 8 samples 106 ms < 106.25: no exit.
        assert!(!round(
            &mut h,
            200,
            &[106, 107, 108, 109, 110, 111, 112, 113, 114],
            20,
            2_000
        ));
        // Third round: minimum 107 ms > 106.25 ms: exit on the 9th sample.
        assert!(round(
            &mut h,
            400,
            &[107, 108, 109, 110, 111, 112, 113, 114, 115],
            20,
            3_000
        ));
        assert_eq!(h.exit(), Some(HystartExit::DelayIncrease));
    }

    #[test]
    fn below_the_low_window_nothing_fires() {
        let mut h = Hystart::new(HystartConfig::default());
        assert!(!round(&mut h, 0, &[100; 9], 20, 1_000));
        assert!(!round(&mut h, 200, &[300; 9], 15, 2_000));
        assert!(round(&mut h, 400, &[300; 9], 16, 3_000));
    }

    /// HyStart with only the ack-train test, in a round that began at 0.
    fn ack_train_only_round() -> Hystart {
        let mut h = Hystart::new(HystartConfig {
            delay_increase: false,
            ..Default::default()
        });
        h.on_slow_start_ack(at(0), 0, 100);
        h
    }

    #[test]
    fn ack_train_longer_than_half_the_min_rtt_ends_slow_start() {
        let mut h = ack_train_only_round();
        // delay_min 40 ms; acks every 1 ms: the train passes 20 ms at the 21st ack.
        let mut fired_at = None;
        for i in 0..40 {
            if h.on_rtt_sample(at(i), ms(40), 32, true, None) && fired_at.is_none() {
                fired_at = Some(i);
            }
        }
        assert_eq!(fired_at, Some(21));
        assert_eq!(h.exit(), Some(HystartExit::AckTrain));
    }

    #[test]
    fn spaced_acks_break_the_train() {
        let mut h = ack_train_only_round();
        for i in 0..40 {
            assert!(!h.on_rtt_sample(at(3 * i), ms(40), 32, true, None));
        }
    }

    #[test]
    fn samples_right_after_recovery_are_ignored_and_timeout_rearms() {
        let mut h = Hystart::new(HystartConfig::default());
        assert!(!h.on_rtt_sample(at(500), ms(10), 20, true, Some(at(0))));
        assert_eq!(h.delay_min(), None);
        assert!(!round(&mut h, 0, &[100; 9], 20, 1_000));
        assert!(round(&mut h, 200, &[200; 9], 20, 2_000));
        h.on_timeout();
        assert_eq!(h.exit(), None);
        assert_eq!(h.delay_min(), None);
    }
}
