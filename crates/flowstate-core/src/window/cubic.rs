//! CUBIC congestion control, RFC 9438 (C = 0.4, beta_cubic = 0.7, fast convergence and
//! the Reno-friendly region). Slow start and the fast-recovery window mechanics are
//! those of NewReno (RFC 5681, RFC 6582), with ssthresh = FlightSize * beta_cubic.
//! Optional HyStart (`CubicConfig::hystart`, [`super::hystart`]) as Linux runs it.

use super::hystart::{Hystart, HystartConfig};
use super::new_reno::{TcpRecovery, INITIAL_SSTHRESH, INITIAL_WINDOW_SEGMENTS};
use super::{AckEvent, WindowController, WindowCore};
use crate::units::{DataSize, TimeDelta, Timestamp};

/// Constants of CUBIC.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CubicConfig {
    /// Sender maximum segment size.
    pub smss: DataSize,
    /// Initial window in segments (RFC 6928: 10).
    pub initial_window_segments: u64,
    /// Initial ssthresh (arbitrarily high).
    pub initial_ssthresh: DataSize,
    /// C, in segments / s^3 (RFC 9438 section 5: 0.4).
    pub c: f64,
    /// beta_cubic, the multiplicative decrease factor (RFC 9438 section 4.6: 0.7).
    pub beta: f64,
    /// Fast convergence (RFC 9438 section 4.7).
    pub fast_convergence: bool,
    /// The Reno-friendly region (RFC 9438 section 4.3).
    pub reno_friendly: bool,
    /// The RTT assumed before the first sample (used in W_cubic(t + RTT)).
    pub initial_rtt: TimeDelta,
    /// RFC 6675 pipe-based fast recovery for a SACK sender (see
    /// [`super::NewRenoConfig::pipe_recovery`]). Default false.
    pub pipe_recovery: bool,
    /// Proportional Rate Reduction in recovery (see [`super::NewRenoConfig::prr`]).
    /// Default false.
    pub prr: bool,
    /// HyStart as Linux's CUBIC runs it (on by default in kernels 2.6.29 and later),
    /// `None` for RFC 9438's plain slow start (the default here; RFC 9438 4.10 allows
    /// HyStart++ but does not require it).
    pub hystart: Option<HystartConfig>,
    /// A timeout during fast recovery keeps the recovery's ssthresh when it is lower
    /// than FlightSize * beta (see [`super::NewRenoConfig::rto_keeps_recovery_ssthresh`]).
    /// Default true.
    pub rto_keeps_recovery_ssthresh: bool,
}

impl Default for CubicConfig {
    fn default() -> Self {
        CubicConfig {
            smss: DataSize::bytes(1460),
            initial_window_segments: INITIAL_WINDOW_SEGMENTS,
            initial_ssthresh: INITIAL_SSTHRESH,
            c: 0.4,
            beta: 0.7,
            fast_convergence: true,
            reno_friendly: true,
            initial_rtt: TimeDelta::millis(100),
            pipe_recovery: false,
            prr: false,
            hystart: None,
            rto_keeps_recovery_ssthresh: true,
        }
    }
}

/// W_cubic(t) = C (t - K)^3 + W_max (RFC 9438 equation 1), in segments.
pub fn w_cubic(c: f64, t: f64, k: f64, w_max: f64) -> f64 {
    c * (t - k).powi(3) + w_max
}

/// K = cbrt((W_max - cwnd_epoch) / C) (RFC 9438 equation 2), in seconds; zero if the
/// window is already at or above W_max.
pub fn cubic_k(c: f64, w_max: f64, cwnd_epoch: f64) -> f64 {
    if c <= 0.0 || !c.is_finite() || w_max <= cwnd_epoch {
        0.0
    } else {
        ((w_max - cwnd_epoch) / c).cbrt()
    }
}

/// alpha_cubic = 3 (1 - beta) / (1 + beta) (RFC 9438 equation 4).
pub fn alpha_cubic(beta: f64) -> f64 {
    3.0 * (1.0 - beta) / (1.0 + beta)
}

#[derive(Debug, Clone, Copy)]
struct Epoch {
    start: Timestamp,
    k: f64,
    /// W_est in segments (RFC 9438 4.3).
    w_est: f64,
}

/// TCP CUBIC congestion control.
#[derive(Debug, Clone)]
pub struct Cubic {
    config: CubicConfig,
    core: WindowCore,
    recovery: TcpRecovery,
    /// W_max in segments.
    w_max: f64,
    /// cwnd_prior in segments (cwnd before the last reduction).
    cwnd_prior: f64,
    epoch: Option<Epoch>,
    /// Fractional bytes of growth not yet applied.
    carry: f64,
    /// Slow-start byte counting is shared with NewReno.
    rtt: TimeDelta,
    /// Boxed: most flows run without it, and it would double the controller's size.
    hystart: Option<Box<Hystart>>,
    /// Start of the current congestion-avoidance epoch (kept after the epoch ends, for
    /// HyStart's quiet second after recovery).
    last_epoch_start: Option<Timestamp>,
}

impl Cubic {
    pub fn new(config: CubicConfig) -> Self {
        let smss = config.smss.max(DataSize::bytes(1));
        let iw = smss * config.initial_window_segments.max(1);
        let beta = if config.beta.is_finite() {
            config.beta.clamp(0.0, 1.0)
        } else {
            0.7
        };
        Cubic {
            config: CubicConfig { beta, ..config },
            core: WindowCore::new(smss, iw, config.initial_ssthresh),
            recovery: TcpRecovery::new(config.pipe_recovery, config.prr),
            w_max: 0.0,
            cwnd_prior: 0.0,
            epoch: None,
            carry: 0.0,
            rtt: config.initial_rtt,
            hystart: config.hystart.map(|c| Box::new(Hystart::new(c))),
            last_epoch_start: None,
        }
    }

    /// What ended the last slow start early, if HyStart did.
    pub fn hystart_exit(&self) -> Option<super::hystart::HystartExit> {
        self.hystart.as_ref().and_then(|h| h.exit())
    }

    pub fn w_max_segments(&self) -> f64 {
        self.w_max
    }

    fn segs(&self, d: DataSize) -> f64 {
        d.as_bytes() as f64 / self.core.mtu.as_bytes() as f64
    }

    /// RFC 9438 4.6 / 4.7: on a congestion event, remember W_max (reduced further under
    /// fast convergence) and cwnd_prior; ssthresh = max(FlightSize * beta, 2*SMSS).
    fn congestion_event(&mut self) -> DataSize {
        let cwnd = self.segs(self.core.cwnd);
        self.w_max = if self.config.fast_convergence && cwnd < self.w_max {
            cwnd * (1.0 + self.config.beta) / 2.0
        } else {
            cwnd
        };
        self.cwnd_prior = cwnd;
        self.epoch = None;
        self.carry = 0.0;
        self.beta_ssthresh()
    }

    /// ssthresh = max(FlightSize * beta_cubic, 2*SMSS) (RFC 9438 4.6).
    fn beta_ssthresh(&self) -> DataSize {
        let flight = self.core.flight.as_bytes() as f64 * self.config.beta;
        DataSize::bytes(flight as u64).max(self.core.mtu * 2)
    }

    /// Congestion avoidance (RFC 9438 4.2-4.5) for `acked` bytes at `now`.
    fn avoid(&mut self, now: Timestamp, acked: DataSize) {
        let c = self.config.c;
        let cwnd = self.segs(self.core.cwnd);
        let epoch = match self.epoch {
            Some(e) => e,
            None => {
                if self.w_max < cwnd {
                    self.w_max = cwnd;
                }
                let e = Epoch {
                    start: now,
                    k: cubic_k(c, self.w_max, cwnd),
                    w_est: cwnd,
                };
                self.epoch = Some(e);
                self.last_epoch_start = Some(now);
                e
            }
        };
        let t = now.saturating_since(epoch.start).as_secs_f64();
        let rtt = self.rtt.as_secs_f64().max(0.0);
        // 4.2: target = W_cubic(t + RTT), clamped to [cwnd, 1.5 cwnd].
        let target = w_cubic(c, t + rtt, epoch.k, self.w_max).clamp(cwnd, 1.5 * cwnd);
        let acked_segs = self.segs(acked);
        let mut w_est = epoch.w_est;
        if self.config.reno_friendly {
            // 4.3: W_est += alpha_cubic * segments_acked / cwnd; alpha = 1 once
            // W_est >= cwnd_prior.
            let alpha = if w_est >= self.cwnd_prior {
                1.0
            } else {
                alpha_cubic(self.config.beta)
            };
            if cwnd > 0.0 {
                w_est += alpha * acked_segs / cwnd;
            }
            self.epoch = Some(Epoch { w_est, ..epoch });
        }
        let smss = self.core.mtu.as_bytes() as f64;
        let new_cwnd = if self.config.reno_friendly && w_cubic(c, t, epoch.k, self.w_max) < w_est {
            // 4.3: Reno-friendly region: cwnd = W_est.
            w_est.max(cwnd)
        } else {
            // 4.4 / 4.5: cwnd += (target - cwnd) / cwnd per acked segment.
            if cwnd > 0.0 {
                cwnd + (target - cwnd) / cwnd * acked_segs
            } else {
                cwnd
            }
        };
        let grow_bytes = (new_cwnd - cwnd) * smss + self.carry;
        if grow_bytes.is_finite() && grow_bytes > 0.0 {
            let whole = grow_bytes.floor();
            self.carry = grow_bytes - whole;
            self.core.cwnd += DataSize::bytes(whole.min(u32::MAX as f64) as u64);
        }
    }
}

impl WindowController for Cubic {
    fn in_recovery(&self) -> bool {
        self.recovery.point.is_some()
    }

    fn on_ack(&mut self, now: Timestamp, ack: &AckEvent) {
        self.core.on_ack(ack);
        if let Some(rtt) = ack.rtt {
            self.rtt = rtt;
            // Linux `bictcp_acked`: HyStart looks at every RTT sample before the window
            // grows; on detection slow start ends with ssthresh = cwnd.
            let in_slow_start =
                self.core.cwnd < self.core.ssthresh && self.recovery.point.is_none();
            let segments = self.core.cwnd.as_bytes() / self.core.mtu.as_bytes().max(1);
            if let Some(h) = self.hystart.as_mut() {
                if h.on_rtt_sample(now, rtt, segments, in_slow_start, self.last_epoch_start) {
                    self.core.ssthresh = self.core.cwnd;
                }
            }
        }
        if !self.recovery.on_ack(&mut self.core, ack)
            && ack.cum_ack_advanced
            && ack.newly_acked > DataSize::ZERO
        {
            if self.core.cwnd < self.core.ssthresh {
                // Linux `bictcp_cong_avoid`: a new HyStart round once the ack passes
                // the round's snd_nxt (taken as cum_ack + flight).
                if let Some(h) = self.hystart.as_mut() {
                    h.on_slow_start_ack(
                        now,
                        ack.cum_ack,
                        ack.cum_ack + self.core.flight.as_bytes(),
                    );
                }
                // Slow start (RFC 9438 4.10 defers to RFC 5681): cwnd += min(N, SMSS).
                self.core.cwnd += ack.newly_acked.min(self.core.mtu);
            } else {
                self.avoid(now, ack.newly_acked);
            }
        }
        self.core.settle();
    }

    fn on_dup_ack(&mut self, _now: Timestamp) {
        self.recovery.dup_ack(&mut self.core);
    }

    fn on_sent(&mut self, _now: Timestamp, bytes: DataSize) {
        self.core.on_sent(bytes);
        self.recovery.on_sent(bytes);
    }

    /// RFC 9438 4.6: ssthresh = max(FlightSize * beta_cubic, 2*SMSS), then NewReno fast
    /// recovery (RFC 6582 3.2) on that ssthresh. Call before removing the lost segment.
    fn on_fast_retransmit(&mut self, _now: Timestamp, recovery_point: u64) -> bool {
        if self.recovery.point.is_some() {
            return false;
        }
        let ssthresh = self.congestion_event();
        self.recovery
            .enter(&mut self.core, ssthresh, recovery_point);
        true
    }

    /// RFC 9438 section 4.8: on a timeout CUBIC reduces cwnd as Reno does (1 SMSS) and
    /// sets ssthresh with beta_cubic as in 4.6 (held constant on a repeated expiry, RFC
    /// 5681 3.1; in fast recovery the ssthresh of the recovery's start is kept if lower,
    /// see NewReno). The first congestion avoidance after it runs with K = 0 and W_max =
    /// cwnd at its start: W_max is cleared here and the next epoch sets it (Linux
    /// `bictcp_reset` on entering the Loss state does the same).
    fn on_rto_timeout(&mut self, _now: Timestamp, repeated: bool) {
        if !repeated {
            if self.recovery.point.is_some() && self.config.rto_keeps_recovery_ssthresh {
                self.core.ssthresh = self.beta_ssthresh().min(self.core.ssthresh);
            } else {
                self.core.ssthresh = self.congestion_event();
            }
        }
        self.w_max = 0.0;
        self.epoch = None;
        self.carry = 0.0;
        if let Some(h) = self.hystart.as_mut() {
            h.on_timeout();
        }
        self.last_epoch_start = None;
        self.core.cwnd = self.core.mtu;
        self.recovery.abandon();
        self.core.settle();
    }

    /// RFC 9438 section 4.6: an ECN-Echo is a congestion event like a loss (W_max,
    /// ssthresh = max(FlightSize * beta_cubic, 2*SMSS)); cwnd = ssthresh at once, as
    /// nothing is retransmitted (RFC 3168 section 6.1.2).
    fn on_congestion_mark(&mut self, _now: Timestamp) {
        self.core.ssthresh = self.congestion_event();
        self.core.cwnd = self.core.ssthresh;
        self.core.settle();
    }

    fn set_cwnd(&mut self, cwnd: DataSize, ssthresh: Option<DataSize>) {
        self.epoch = None;
        self.core.set_quietly(cwnd, ssthresh);
    }
}

super::state::embeds_core!(Cubic);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::window::test_util::{ack, b, S};

    fn cubic(iw: u64) -> Cubic {
        Cubic::new(CubicConfig {
            smss: b(S),
            initial_window_segments: iw,
            initial_rtt: TimeDelta::ZERO,
            ..Default::default()
        })
    }

    #[test]
    fn formulas_rfc9438_eq1_eq2_eq4() {
        // W_max = 100, cwnd_epoch = 70, C = 0.4: K = cbrt(30 / 0.4) = cbrt(75) = 4.2172.
        let k = cubic_k(0.4, 100.0, 70.0);
        assert!((k - 4.217_163).abs() < 1e-5);
        // W_cubic(K) = W_max; W_cubic(0) = cwnd_epoch.
        assert!((w_cubic(0.4, k, k, 100.0) - 100.0).abs() < 1e-9);
        assert!((w_cubic(0.4, 0.0, k, 100.0) - 70.0).abs() < 1e-9);
        // alpha_cubic(0.7) = 0.9 / 1.7 = 0.5294.
        assert!((alpha_cubic(0.7) - 0.529_411_76).abs() < 1e-6);
        assert_eq!(cubic_k(0.4, 50.0, 70.0), 0.0);
    }

    #[test]
    fn loss_multiplies_by_beta_rfc9438_4_6() {
        let mut c = cubic(100);
        c.on_sent(Timestamp::ZERO, b(100 * S));
        assert!(c.on_fast_retransmit(Timestamp::ZERO, 100 * S));
        assert_eq!(c.ssthresh(), b(70 * S));
        assert_eq!(c.cwnd(), b(73 * S)); // NewReno inflation: ssthresh + 3 SMSS
        assert!((c.w_max_segments() - 100.0).abs() < 1e-9);
        // Full ack: cwnd = min(ssthresh, max(flight, SMSS) + SMSS) = 70 segments
        // (flight 99 segments after one acked).
        c.on_ack(Timestamp::ZERO, &ack(S, 100 * S));
        assert_eq!(c.cwnd(), b(70 * S));
    }

    #[test]
    fn fast_convergence_rfc9438_4_7() {
        let mut c = cubic(100);
        c.on_sent(Timestamp::ZERO, b(100 * S));
        assert!(c.on_fast_retransmit(Timestamp::ZERO, 100 * S));
        assert!((c.w_max_segments() - 100.0).abs() < 1e-9);
        // Full ack of everything: cwnd = min(ssthresh, max(0, SMSS) + SMSS) = 2 segments.
        c.on_ack(Timestamp::ZERO, &ack(100 * S, 100 * S));
        assert_eq!(c.cwnd(), b(2 * S));
        // The next loss at cwnd 2 < W_max: W_max = 2 * (1 + 0.7) / 2 = 1.7.
        c.on_sent(Timestamp::ZERO, b(2 * S));
        assert!(c.on_fast_retransmit(Timestamp::ZERO, 102 * S));
        assert!((c.w_max_segments() - 1.7).abs() < 1e-9);
    }

    #[test]
    fn timeout_rfc9438_4_8() {
        // ssthresh = FlightSize * beta; cwnd = 1 SMSS; W_max cleared so that the next
        // congestion avoidance starts with K = 0 and W_max = its starting cwnd.
        let mut c = cubic(100);
        c.on_sent(Timestamp::ZERO, b(100 * S));
        c.on_rto_timeout(Timestamp::ZERO, false);
        assert_eq!(c.ssthresh(), b(70 * S));
        assert_eq!(c.cwnd(), b(S));
        assert_eq!(c.w_max_segments(), 0.0);
        // A repeated expiry holds ssthresh (RFC 5681 3.1).
        c.on_lost(b(100 * S));
        c.on_sent(Timestamp::ZERO, b(S));
        c.on_rto_timeout(Timestamp::ZERO, true);
        assert_eq!(c.ssthresh(), b(70 * S));
        // In fast recovery, the recovery's ssthresh is kept when lower than eq. 4's.
        let mut c = cubic(100);
        c.on_sent(Timestamp::ZERO, b(100 * S));
        assert!(c.on_fast_retransmit(Timestamp::ZERO, 100 * S));
        c.on_sent(Timestamp::ZERO, b(200 * S));
        c.on_rto_timeout(Timestamp::ZERO, false);
        assert_eq!(c.ssthresh(), b(70 * S));
        assert!(!c.in_recovery());
    }

    /// A CUBIC that had `w` segments in flight when one was lost (fast retransmit, then
    /// the ack of the next segment), the Reno-friendly region on or off.
    fn after_loss(w: u64, reno_friendly: bool) -> Cubic {
        let mut c = Cubic::new(CubicConfig {
            smss: b(S),
            initial_window_segments: w,
            initial_rtt: TimeDelta::ZERO,
            reno_friendly,
            ..Default::default()
        });
        c.on_sent(Timestamp::ZERO, b(w * S));
        c.on_fast_retransmit(Timestamp::ZERO, w * S);
        c.on_ack(Timestamp::ZERO, &ack(S, w * S));
        c
    }

    #[test]
    fn cubic_growth_reaches_w_max_at_k() {
        // After a loss at W_max = 100 segments, cwnd -> 70; at t = K the cubic window is
        // back at W_max (RFC 9438 4.2), Reno-friendly region off to isolate it.
        let mut c = after_loss(100, false);
        assert_eq!(c.cwnd(), b(70 * S));
        let k = cubic_k(0.4, 100.0, 70.0);
        // Drive acks every 10 ms until t = K (+ margin), with a full window in flight.
        let mut now = Timestamp::ZERO;
        let mut cum = 100 * S;
        let end = Timestamp::from_micros((k * 1e6) as u64 + 200_000);
        while now < end {
            now += TimeDelta::millis(10);
            c.on_sent(now, b(10 * S));
            cum += 10 * S;
            c.on_ack(now, &ack(10 * S, cum));
        }
        let w = c.cwnd().as_bytes() as f64 / S as f64;
        assert!((99.0..=102.0).contains(&w), "cwnd {w} segments at t = K");
    }

    #[test]
    fn reno_friendly_region_grows_when_cubic_is_flat() {
        // Near W_max the cubic curve is flat; W_est still grows by alpha per RTT.
        let mk = |rf: bool| {
            let mut c = after_loss(10, rf);
            let mut cum = 10 * S;
            let mut now = Timestamp::ZERO;
            for _ in 0..200 {
                now += TimeDelta::millis(1);
                c.on_sent(now, b(S));
                cum += S;
                c.on_ack(now, &ack(S, cum));
            }
            c.cwnd()
        };
        assert!(mk(true) > mk(false));
    }
}
