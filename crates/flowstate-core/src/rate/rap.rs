//! RAP rate controller: rate-based AIMD (Rejaie, Handley, Estrin, "RAP: An End-to-end
//! Rate-based Congestion Control Mechanism for Realtime Streams in the Internet",
//! INFOCOM 1999; used by paper 004 in ns-2).
//!
//! - *Increase* (RAP, "Decision function" / "Increase/decrease algorithm"): once per
//!   step of one SRTT without a back-off, the inter-packet gap shrinks as
//!   `IPG_{i+1} = IPG_i * C / (IPG_i + C)` with `C = SRTT` (for `alpha` = 1 packet), i.e.
//!   the rate `S = s / IPG` grows by `alpha * s / SRTT` per SRTT: one packet per RTT
//!   per RTT, like TCP's congestion avoidance.
//! - *Decrease*: on a loss, `IPG_{i+1} = IPG_i / beta` with `beta = 0.5`: the rate halves.
//! - *Cluster loss* (RAP, "Clustered losses"): after a back-off, losses of packets sent
//!   before it are part of the same congestion signal and are ignored; so at most one
//!   back-off per round-trip.
//!
//! Loss detection is in [`crate::rate::rap_history`]; RTT estimation in
//! [`crate::rate::rtt`]. The controller is sans-I/O: time comes in as `now`.

use crate::rate::rtt::{RttConfig, RttEstimator};
use crate::units::{Bitrate, DataSize, TimeDelta, Timestamp};

/// RAP constants. Defaults follow the RAP paper and paper 004's setup.
#[derive(Debug, Clone, PartialEq)]
pub struct RapConfig {
    /// Packet size `s` on the wire (paper 004: 1000 bytes).
    pub packet_size: DataSize,
    /// Starting rate (10 packets/s of 1000 bytes).
    pub initial_rate: Bitrate,
    /// The rate never falls below this (1 packet/s of 1000 bytes).
    pub min_rate: Bitrate,
    /// The rate never rises above this (`Bitrate::INFINITY` = no cap).
    pub max_rate: Bitrate,
    /// SRTT assumed before the first sample: step length and loss timeout base.
    pub initial_rtt: TimeDelta,
    /// Additive increase in packets per SRTT per step (RAP: alpha = 1 packet).
    pub increase_packets: f64,
    /// Multiplicative decrease factor (RAP: beta = 0.5).
    pub decrease_factor: f64,
    /// Ack-based detection: later packets acked before a gap counts as lost (3).
    pub ndupack: u64,
    /// Timeout-based detection: `timeout = srtt_factor * SRTT + max(rttvar_factor *
    /// RTTVAR, granularity)` (the RAP paper uses a TCP-like SRTT + variance bound).
    pub timeout_srtt_factor: f64,
    pub timeout_rttvar_factor: f64,
    /// Floor of the variance term of the timeout (like RFC 6298's clock granularity G).
    pub timeout_granularity: TimeDelta,
    /// SRTT / RTTVAR gains.
    pub rtt: RttConfig,
    /// Transmission history length (records; older unresolved ones count as lost).
    pub max_history: usize,
}

impl Default for RapConfig {
    fn default() -> Self {
        RapConfig {
            packet_size: DataSize::bytes(1000),
            initial_rate: Bitrate::kbps(80.0),
            min_rate: Bitrate::kbps(8.0),
            max_rate: Bitrate::INFINITY,
            initial_rtt: TimeDelta::millis(500),
            increase_packets: 1.0,
            decrease_factor: 0.5,
            ndupack: 3,
            timeout_srtt_factor: 1.0,
            timeout_rttvar_factor: 4.0,
            timeout_granularity: TimeDelta::millis(10),
            rtt: RttConfig::default(),
            max_history: 65_536,
        }
    }
}

/// The RAP rate controller.
#[derive(Debug, Clone)]
pub struct RapController {
    cfg: RapConfig,
    rate: Bitrate,
    rtt: RttEstimator,
    /// Next increase step (set once the first packet is sent).
    next_step: Option<Timestamp>,
    /// Losses of packets with sequence numbers <= this belong to the last back-off's
    /// cluster and are ignored.
    recovery_seq: Option<u64>,
    backoffs: u64,
    report_pending: bool,
    /// [`RapController::loss_timeout`], recomputed when an RTT sample changes it (the
    /// sender asks for it on every poll).
    loss_timeout: TimeDelta,
}

impl RapController {
    pub fn new(cfg: RapConfig) -> Self {
        let rate = clamp_rate(cfg.initial_rate, &cfg);
        let rtt = RttEstimator::new(cfg.rtt);
        let mut c = RapController {
            cfg,
            rate,
            rtt,
            next_step: None,
            recovery_seq: None,
            backoffs: 0,
            report_pending: true,
            loss_timeout: TimeDelta::ZERO,
        };
        c.loss_timeout = c.compute_loss_timeout();
        c
    }

    pub fn config(&self) -> &RapConfig {
        &self.cfg
    }

    /// The current sending rate `S = s / IPG`.
    pub fn rate(&self) -> Bitrate {
        self.rate
    }

    /// The inter-packet gap `IPG = s / S`.
    pub fn ipg(&self) -> TimeDelta {
        self.cfg.packet_size / self.rate
    }

    /// SRTT, or the configured initial RTT before the first sample.
    pub fn srtt(&self) -> TimeDelta {
        self.rtt
            .srtt()
            .unwrap_or(self.cfg.initial_rtt)
            .max(TimeDelta::from_micros(1))
    }

    /// SRTT once a sample exists.
    pub fn srtt_sample(&self) -> Option<TimeDelta> {
        self.rtt.srtt()
    }

    pub fn backoffs(&self) -> u64 {
        self.backoffs
    }

    /// The loss timeout: `srtt_factor * SRTT + max(rttvar_factor * RTTVAR, G)`.
    pub fn loss_timeout(&self) -> TimeDelta {
        self.loss_timeout
    }

    fn compute_loss_timeout(&self) -> TimeDelta {
        let var = self
            .rtt
            .rttvar()
            .mul_f64_nonneg(self.cfg.timeout_rttvar_factor)
            .max(self.cfg.timeout_granularity);
        self.srtt().mul_f64_nonneg(self.cfg.timeout_srtt_factor) + var
    }

    /// Start the step clock at the first transmission.
    pub fn on_first_send(&mut self, now: Timestamp) {
        if self.next_step.is_none() {
            self.next_step = Some(now + self.srtt());
        }
    }

    /// An RTT sample from an ack.
    pub fn on_rtt_sample(&mut self, sample: TimeDelta) {
        self.rtt.on_sample(sample);
        self.loss_timeout = self.compute_loss_timeout();
    }

    /// Packets up to `max_lost_seq` were declared lost; `highest_sent` is the highest
    /// sequence number sent so far. Backs off (RAP decrease) unless the loss belongs to
    /// the cluster of the previous back-off. Returns whether it backed off.
    pub fn on_loss(&mut self, now: Timestamp, max_lost_seq: u64, highest_sent: u64) -> bool {
        if let Some(rec) = self.recovery_seq {
            if max_lost_seq <= rec {
                return false;
            }
        }
        let beta = if self.cfg.decrease_factor.is_finite() {
            self.cfg.decrease_factor.clamp(0.0, 1.0)
        } else {
            0.5
        };
        self.rate = clamp_rate(self.rate * beta, &self.cfg);
        self.recovery_seq = Some(highest_sent.max(max_lost_seq));
        self.backoffs += 1;
        self.next_step = Some(now + self.srtt());
        self.report_pending = true;
        true
    }

    /// When the next increase step is due.
    pub fn next_step(&self) -> Option<Timestamp> {
        self.next_step
    }

    /// Run the increase step if due: `S += alpha * s / SRTT`
    /// (`IPG_{i+1} = IPG_i * C / (IPG_i + C)`, RAP increase rule).
    pub fn on_timer(&mut self, now: Timestamp) {
        let Some(step) = self.next_step else { return };
        if now < step {
            return;
        }
        let srtt = self.srtt();
        let inc_bps = self.cfg.packet_size.as_bits_f64() * self.cfg.increase_packets.max(0.0)
            / srtt.as_secs_f64();
        self.rate = clamp_rate(self.rate + Bitrate::bps(inc_bps), &self.cfg);
        self.next_step = Some(now + srtt);
        self.report_pending = true;
    }

    /// A coupling manager's allowance: adopt `rate` (clamped to [min_rate, max_rate]).
    pub fn set_rate(&mut self, rate: Bitrate) {
        self.rate = clamp_rate(rate, &self.cfg);
    }

    /// Whether the rate changed since the last call (a coupling report is due).
    pub fn take_report(&mut self) -> bool {
        std::mem::take(&mut self.report_pending)
    }
}

fn clamp_rate(r: Bitrate, cfg: &RapConfig) -> Bitrate {
    let min = cfg.min_rate.max(Bitrate::bps(1.0));
    let max = cfg.max_rate.max(min);
    r.max(min).min(max)
}

/// `TimeDelta * f64` for non-negative finite factors (others count as zero).
trait MulNonNeg {
    fn mul_f64_nonneg(self, k: f64) -> TimeDelta;
}
impl MulNonNeg for TimeDelta {
    fn mul_f64_nonneg(self, k: f64) -> TimeDelta {
        if k.is_finite() && k > 0.0 {
            self * k
        } else {
            TimeDelta::ZERO
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::ms;
    use proptest::prelude::*;

    fn ctl(rate_kbps: f64) -> RapController {
        RapController::new(RapConfig {
            initial_rate: Bitrate::kbps(rate_kbps),
            ..RapConfig::default()
        })
    }

    #[test]
    fn increase_is_one_packet_per_srtt_per_srtt() {
        let mut c = ctl(800.0);
        c.on_rtt_sample(TimeDelta::millis(100));
        c.on_first_send(ms(0));
        assert_eq!(c.next_step(), Some(ms(100)));
        c.on_timer(ms(99));
        assert_eq!(c.rate(), Bitrate::kbps(800.0));
        c.on_timer(ms(100));
        // s = 1000 B = 8000 bit; + 8000 bit / 0.1 s = +80 kbit/s -> 880 kbit/s.
        assert!((c.rate().as_bps() - 880_000.0).abs() < 1e-6);
        // The IPG form gives the same: IPG = 8000/800000 = 10 ms, C = 100 ms:
        // IPG' = 10 * 100 / (10 + 100) = 9.0909 ms = 8000 bit / 880 kbit/s.
        assert_eq!(c.ipg(), TimeDelta::from_micros(9_091));
        assert_eq!(c.next_step(), Some(ms(200)));
    }

    #[test]
    fn loss_halves_once_per_cluster() {
        let mut c = ctl(800.0);
        c.on_rtt_sample(TimeDelta::millis(100));
        c.on_first_send(ms(0));
        assert!(c.on_loss(ms(50), 10, 20));
        assert!((c.rate().as_bps() - 400_000.0).abs() < 1e-6);
        // 15 was sent before the back-off: same cluster, ignored.
        assert!(!c.on_loss(ms(60), 15, 25));
        assert!((c.rate().as_bps() - 400_000.0).abs() < 1e-6);
        // 21 was sent after: new back-off to 200 kbit/s.
        assert!(c.on_loss(ms(170), 21, 40));
        assert!((c.rate().as_bps() - 200_000.0).abs() < 1e-6);
        assert_eq!(c.backoffs(), 2);
        // the step timer restarts one SRTT after the back-off
        assert_eq!(c.next_step(), Some(ms(270)));
    }

    #[test]
    fn rate_bounded_by_min_and_allowance() {
        let mut c = ctl(16.0);
        for i in 0..10 {
            c.on_loss(ms(i), 100 + i, 100 + i);
        }
        assert_eq!(c.rate(), Bitrate::kbps(8.0));
        c.set_rate(Bitrate::mbps(3.0));
        assert_eq!(c.rate(), Bitrate::mbps(3.0));
        c.set_rate(Bitrate::ZERO);
        assert_eq!(c.rate(), Bitrate::kbps(8.0));
    }

    #[test]
    fn timeout_is_srtt_plus_four_rttvar() {
        let mut c = ctl(800.0);
        c.on_rtt_sample(TimeDelta::millis(100));
        // SRTT 100, RTTVAR 50 -> 100 + 200 = 300 ms
        assert_eq!(c.loss_timeout(), TimeDelta::millis(300));
    }

    proptest! {
        #[test]
        fn random_events_keep_rate_valid(
            ops in proptest::collection::vec((0u8..4, 0u64..10_000, 0i64..2_000_000), 0..200),
            init in 0.0f64..1e8,
        ) {
            let mut c = RapController::new(RapConfig { initial_rate: Bitrate::bps(init), ..RapConfig::default() });
            let mut now = 0u64;
            let mut hs = 0u64;
            for (op, a, b) in ops {
                now += a;
                hs += a % 7;
                let t = Timestamp::from_micros(now);
                match op {
                    0 => c.on_rtt_sample(TimeDelta::from_micros(b)),
                    1 => { c.on_loss(t, a, hs); }
                    2 => { c.on_first_send(t); c.on_timer(t); }
                    _ => c.set_rate(Bitrate::bps(b as f64 * 10.0)),
                }
                // The cached loss timeout is the formula's value after every event.
                prop_assert_eq!(c.loss_timeout(), c.compute_loss_timeout());
                let r = c.rate().as_bps();
                prop_assert!(r.is_finite());
                prop_assert!(r >= c.config().min_rate.as_bps());
                prop_assert!(c.ipg() > TimeDelta::ZERO);
                prop_assert!(c.loss_timeout() > TimeDelta::ZERO);
            }
        }
    }
}
