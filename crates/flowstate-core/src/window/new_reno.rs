//! TCP NewReno: slow start and congestion avoidance of RFC 5681 section 3.1 (with
//! byte counting, RFC 3465) and the fast recovery of RFC 6582 section 3.2.

use super::prr::Prr;
use super::{AckEvent, WindowController, WindowCore};
use crate::units::{DataSize, TimeDelta, Timestamp};

/// The initial window in segments of NewReno and CUBIC: 10 (RFC 6928).
pub(crate) const INITIAL_WINDOW_SEGMENTS: u64 = 10;
/// The initial ssthresh of NewReno and CUBIC: "arbitrarily high" (RFC 5681 section 3.1).
pub(crate) const INITIAL_SSTHRESH: DataSize = DataSize::bytes(u64::MAX / 4);

/// Constants of TCP NewReno.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NewRenoConfig {
    /// Sender maximum segment size (payload bytes per segment).
    pub smss: DataSize,
    /// Initial window in segments. Default 10 (RFC 6928, what Linux cross traffic uses);
    /// RFC 5681 section 3.1 gives 3 for an SMSS of 1095..2190 bytes.
    pub initial_window_segments: u64,
    /// Initial ssthresh ("arbitrarily high", RFC 5681 section 3.1).
    pub initial_ssthresh: DataSize,
    /// Floor of ssthresh after a loss, in segments: max(FlightSize/2, 2*SMSS)
    /// (RFC 5681 equation 4).
    pub min_ssthresh_segments: u64,
    /// Fast recovery for a SACK sender (RFC 6675 section 5): cwnd = ssthresh for the
    /// whole recovery and sending is limited by the pipe (bytes in flight, which
    /// excludes SACKed and lost segments) instead of RFC 6582's dup-ack inflation and
    /// partial-ack deflation. Default false (RFC 6582).
    pub pipe_recovery: bool,
    /// With `pipe_recovery`: cwnd during recovery by Proportional Rate Reduction (RFC
    /// 6937, PRR-SSRB), as Linux and ns-3 recover, instead of RFC 6675's cwnd =
    /// ssthresh from the start. Default false.
    pub prr: bool,
    /// A timeout during fast recovery keeps the ssthresh set when recovery began if it
    /// is lower than RFC 5681 equation 4's max(FlightSize / 2, 2*SMSS) (default true,
    /// as Linux's `tcp_enter_loss`, which recomputes ssthresh only outside recovery).
    /// FlightSize then still counts what window inflation sent past the holes, data the
    /// receiver already queues. RFC 5681 sets eq. 4 as the upper bound ("no more
    /// than"), so both are compliant; `false` applies eq. 4 as it is.
    pub rto_keeps_recovery_ssthresh: bool,
}

impl Default for NewRenoConfig {
    fn default() -> Self {
        NewRenoConfig {
            smss: DataSize::bytes(1460),
            initial_window_segments: INITIAL_WINDOW_SEGMENTS,
            initial_ssthresh: INITIAL_SSTHRESH,
            min_ssthresh_segments: 2,
            pipe_recovery: false,
            prr: false,
            rto_keeps_recovery_ssthresh: true,
        }
    }
}

/// The fast-recovery window mechanics of RFC 6582 section 3.2, shared with CUBIC.
#[derive(Debug, Clone, Default)]
pub(crate) struct TcpRecovery {
    pub point: Option<u64>,
    /// RFC 6675 pipe-based recovery (SACK) instead of RFC 6582's window inflation.
    pub pipe: bool,
    /// With `pipe`: the window by Proportional Rate Reduction (RFC 6937).
    prr_enabled: bool,
    /// The current episode's PRR state (with `prr_enabled`, while in recovery).
    prr: Option<Prr>,
}

impl TcpRecovery {
    pub fn new(pipe: bool, prr: bool) -> Self {
        TcpRecovery {
            point: None,
            pipe,
            prr_enabled: pipe && prr,
            prr: None,
        }
    }

    /// Recovery ended by a timeout (no PRR episode left).
    pub fn abandon(&mut self) {
        self.point = None;
        self.prr = None;
    }

    /// Bytes sent (new or retransmitted): PRR's prr_out.
    pub fn on_sent(&mut self, bytes: DataSize) {
        if let Some(p) = self.prr.as_mut() {
            p.on_sent(bytes);
        }
    }

    /// Step 2: cwnd = ssthresh + 3*SMSS ("inflates" for the three dup acks); RFC 6675
    /// section 5 step (4.2) for a SACK sender: cwnd = ssthresh. `ssthresh` is the
    /// controller's own (RFC 5681 eq. 4 for NewReno, RFC 9438 4.6 for CUBIC).
    pub fn enter(&mut self, core: &mut WindowCore, ssthresh: DataSize, point: u64) {
        core.ssthresh = ssthresh;
        core.cwnd = if self.prr_enabled {
            // RFC 6937 3.1: RecoverFS = the flight; the window is PRR's from the
            // first ack (here with nothing delivered yet).
            let mut prr = Prr::start(core.flight);
            let cwnd = prr.on_ack(DataSize::ZERO, core.flight, ssthresh, core.mtu);
            self.prr = Some(prr);
            cwnd
        } else if self.pipe {
            ssthresh
        } else {
            ssthresh + core.mtu * 3
        };
        self.point = Some(point);
        core.settle();
    }

    /// Step 3: each further dup ack inflates cwnd by SMSS (not with a pipe).
    pub fn dup_ack(&mut self, core: &mut WindowCore) {
        if self.point.is_some() && !self.pipe {
            core.cwnd += core.mtu;
        }
        core.settle();
    }

    /// Steps 4 and 5 for an ack that advanced the cumulative ack while in recovery.
    /// Returns false if not in recovery. Call after the flight has been reduced.
    pub fn on_ack(&mut self, core: &mut WindowCore, ack: &AckEvent) -> bool {
        let Some(point) = self.point else {
            return false;
        };
        if let Some(prr) = self.prr.as_mut() {
            // RFC 6937 3.1: on every ack during recovery, cwnd = pipe + sndcnt; at its
            // end cwnd = ssthresh.
            if ack.cum_ack_advanced && ack.cum_ack >= point {
                core.cwnd = core.ssthresh;
                self.abandon();
            } else {
                core.cwnd = prr.on_ack(ack.newly_acked, core.flight, core.ssthresh, core.mtu);
            }
            return true;
        }
        if !ack.cum_ack_advanced {
            return true;
        }
        if self.pipe {
            // RFC 6675: cwnd stays at ssthresh until the recovery point is acked.
            if ack.cum_ack >= point {
                core.cwnd = core.ssthresh;
                self.point = None;
            }
            return true;
        }
        if ack.cum_ack >= point {
            // Step 5 (full ack), option (1): cwnd = min(ssthresh, max(FlightSize, SMSS) + SMSS).
            core.cwnd = core.ssthresh.min(core.flight.max(core.mtu) + core.mtu);
            self.point = None;
        } else {
            // Step 4 (partial ack): deflate by the amount acked, add back one SMSS if at
            // least one SMSS was acked.
            core.cwnd = core.cwnd.saturating_sub(ack.newly_acked);
            if ack.newly_acked >= core.mtu {
                core.cwnd += core.mtu;
            }
        }
        true
    }
}

/// TCP NewReno congestion control.
#[derive(Debug, Clone)]
pub struct NewReno {
    config: NewRenoConfig,
    core: WindowCore,
    recovery: TcpRecovery,
    /// Bytes acked in congestion avoidance since the last increase (RFC 3465 2.1).
    bytes_acked: DataSize,
}

impl NewReno {
    pub fn new(config: NewRenoConfig) -> Self {
        let smss = config.smss.max(DataSize::bytes(1));
        let iw = smss * config.initial_window_segments.max(1);
        NewReno {
            config,
            core: WindowCore::new(smss, iw, config.initial_ssthresh),
            recovery: TcpRecovery::new(config.pipe_recovery, config.prr),
            bytes_acked: DataSize::ZERO,
        }
    }

    pub fn config(&self) -> &NewRenoConfig {
        &self.config
    }

    /// ssthresh = max(FlightSize / 2, 2*SMSS) (RFC 5681 equation 4).
    fn loss_ssthresh(&self) -> DataSize {
        (self.core.flight / 2).max(self.core.mtu * self.config.min_ssthresh_segments)
    }
}

impl WindowController for NewReno {
    fn in_recovery(&self) -> bool {
        self.recovery.point.is_some()
    }

    fn on_ack(&mut self, _now: Timestamp, ack: &AckEvent) {
        self.core.on_ack(ack);
        if !self.recovery.on_ack(&mut self.core, ack)
            && ack.cum_ack_advanced
            && ack.newly_acked > DataSize::ZERO
        {
            let smss = self.core.mtu;
            if self.core.cwnd < self.core.ssthresh {
                // RFC 5681 equation 2: cwnd += min(N, SMSS).
                self.core.cwnd += ack.newly_acked.min(smss);
            } else {
                // RFC 5681 section 3.1 / RFC 3465 2.1: cwnd += SMSS per cwnd bytes acked.
                self.bytes_acked += ack.newly_acked;
                if self.bytes_acked >= self.core.cwnd {
                    self.bytes_acked -= self.core.cwnd;
                    self.core.cwnd += smss;
                }
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

    /// RFC 6582 3.2 step 2: ssthresh = max(FlightSize/2, 2*SMSS), cwnd = ssthresh + 3*SMSS.
    /// Call before removing the lost segment from the flight.
    fn on_fast_retransmit(&mut self, _now: Timestamp, recovery_point: u64) -> bool {
        if self.recovery.point.is_some() {
            return false;
        }
        let ssthresh = self.loss_ssthresh();
        self.recovery
            .enter(&mut self.core, ssthresh, recovery_point);
        self.bytes_acked = DataSize::ZERO;
        true
    }

    /// RFC 5681 equations 4 and 5 (and section 3.1): ssthresh = max(FlightSize/2, 2*SMSS),
    /// cwnd = 1 SMSS (the loss window). Call before marking the flight lost.
    /// RFC 5681 section 3.1: ssthresh = no more than max(FlightSize / 2, 2*SMSS)
    /// (equation 4), held constant when the timer expires again for data it already
    /// retransmitted; cwnd = the loss window, 1 SMSS. In fast recovery FlightSize still
    /// counts everything sent past the holes (RFC 6582 inflation keeps sending while the
    /// receiver queues it), so the ssthresh set when recovery began is kept if lower
    /// (`rto_keeps_recovery_ssthresh`, Linux `tcp_enter_loss`; docs/ALGORITHMS.md, TCP).
    fn on_rto_timeout(&mut self, _now: Timestamp, repeated: bool) {
        if !repeated {
            let eq4 = self.loss_ssthresh();
            let keep = self.recovery.point.is_some() && self.config.rto_keeps_recovery_ssthresh;
            self.core.ssthresh = if keep {
                eq4.min(self.core.ssthresh)
            } else {
                eq4
            };
        }
        self.core.cwnd = self.core.mtu;
        self.recovery.abandon();
        self.bytes_acked = DataSize::ZERO;
        self.core.settle();
    }

    fn on_idle(&mut self, _idle: TimeDelta, _rto: TimeDelta) {}

    /// RFC 3168 section 6.1.2: on an ECN-Echo the sender halves its window as for a
    /// loss: ssthresh = max(FlightSize / 2, 2*SMSS) (RFC 5681 equation 4), cwnd =
    /// ssthresh, without fast recovery.
    fn on_congestion_mark(&mut self, _now: Timestamp) {
        self.core.ssthresh = self.loss_ssthresh();
        self.core.cwnd = self.core.ssthresh;
        self.bytes_acked = DataSize::ZERO;
        self.core.settle();
    }

    fn set_cwnd(&mut self, cwnd: DataSize, ssthresh: Option<DataSize>) {
        self.core.set_quietly(cwnd, ssthresh);
    }
}

super::state::embeds_core!(NewReno);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::window::test_util::{ack, b, S};

    fn t0() -> Timestamp {
        Timestamp::ZERO
    }
    fn reno(iw: u64, ssthresh: u64) -> NewReno {
        NewReno::new(NewRenoConfig {
            smss: b(S),
            initial_window_segments: iw,
            initial_ssthresh: b(ssthresh),
            ..Default::default()
        })
    }

    #[test]
    fn initial_window_rfc6928() {
        assert_eq!(NewReno::new(NewRenoConfig::default()).cwnd(), b(14_600));
    }

    #[test]
    fn slow_start_rfc5681_eq2() {
        let mut r = reno(2, 100_000);
        r.on_sent(t0(), b(2 * S));
        r.on_ack(t0(), &ack(2 * S, 2 * S));
        // cwnd += min(2000, 1000)
        assert_eq!(r.cwnd(), b(3 * S));
        r.on_sent(t0(), b(S));
        r.on_ack(t0(), &ack(400, 2 * S + 400));
        assert_eq!(r.cwnd(), b(3 * S + 400));
    }

    #[test]
    fn congestion_avoidance_one_smss_per_window_rfc5681_3_1() {
        let mut r = reno(4, 1000);
        r.on_sent(t0(), b(8 * S));
        for i in 1..=3 {
            r.on_ack(t0(), &ack(S, i * S));
            assert_eq!(r.cwnd(), b(4 * S));
        }
        r.on_ack(t0(), &ack(S, 4 * S));
        assert_eq!(r.cwnd(), b(5 * S));
    }

    #[test]
    fn fast_recovery_rfc6582_3_2() {
        let mut r = reno(10, u64::MAX / 4);
        r.on_sent(t0(), b(10 * S));
        // Step 2: ssthresh = 10000/2 = 5000, cwnd = 5000 + 3000.
        assert!(r.on_fast_retransmit(t0(), 10 * S));
        assert_eq!(r.ssthresh(), b(5 * S));
        assert_eq!(r.cwnd(), b(8 * S));
        // Step 3: dup ack inflates.
        r.on_dup_ack(t0());
        assert_eq!(r.cwnd(), b(9 * S));
        // Step 4: partial ack of 2000: cwnd = 9000 - 2000 + 1000.
        r.on_ack(t0(), &ack(2 * S, 2 * S));
        assert_eq!(r.cwnd(), b(8 * S));
        assert!(r.in_recovery());
        // Step 5: full ack; flight after = 10000 - 2000 - 7000 = 1000;
        // cwnd = min(5000, max(1000, 1000) + 1000) = 2000.
        r.on_ack(t0(), &ack(7 * S, 10 * S));
        assert!(!r.in_recovery());
        assert_eq!(r.cwnd(), b(2 * S));
    }

    #[test]
    fn pipe_recovery_keeps_cwnd_at_ssthresh_rfc6675_5() {
        let mut r = NewReno::new(NewRenoConfig {
            smss: b(S),
            pipe_recovery: true,
            ..Default::default()
        });
        r.on_sent(t0(), b(10 * S));
        assert!(r.on_fast_retransmit(t0(), 10 * S));
        assert_eq!(r.cwnd(), b(5 * S));
        r.on_dup_ack(t0());
        assert_eq!(r.cwnd(), b(5 * S));
        r.on_ack(t0(), &ack(2 * S, 2 * S));
        assert_eq!(r.cwnd(), b(5 * S));
        assert!(r.in_recovery());
        r.on_ack(t0(), &ack(8 * S, 10 * S));
        assert!(!r.in_recovery());
        assert_eq!(r.cwnd(), b(5 * S));
    }

    #[test]
    fn rto_sets_loss_window_rfc5681_eq4() {
        let mut r = reno(10, u64::MAX / 4);
        r.on_sent(t0(), b(3 * S));
        r.on_rto_timeout(t0(), false);
        // max(1500, 2000) = 2000.
        assert_eq!(r.ssthresh(), b(2 * S));
        assert_eq!(r.cwnd(), b(S));
    }

    #[test]
    fn repeated_rto_holds_ssthresh_rfc5681_3_1() {
        let mut r = reno(10, u64::MAX / 4);
        r.on_sent(t0(), b(10 * S));
        r.on_rto_timeout(t0(), false);
        assert_eq!(r.ssthresh(), b(5 * S));
        r.on_lost(b(10 * S));
        r.on_sent(t0(), b(S));
        r.on_rto_timeout(t0(), true);
        assert_eq!(r.ssthresh(), b(5 * S));
        assert_eq!(r.cwnd(), b(S));
    }

    #[test]
    fn rto_in_fast_recovery_keeps_the_lower_recovery_ssthresh() {
        let mut r = reno(10, u64::MAX / 4);
        r.on_sent(t0(), b(10 * S));
        assert!(r.on_fast_retransmit(t0(), 10 * S));
        assert_eq!(r.ssthresh(), b(5 * S));
        // Window inflation kept sending while the holes were repaired one per RTT: 30
        // segments are outstanding when the timer expires. Eq. 4 would give 15.
        r.on_sent(t0(), b(20 * S));
        r.on_rto_timeout(t0(), false);
        assert_eq!(r.ssthresh(), b(5 * S));
        assert!(!r.in_recovery());
        assert_eq!(r.cwnd(), b(S));
        // With the option off, eq. 4 on the inflated FlightSize: 15 segments.
        let mut r = NewReno::new(NewRenoConfig {
            smss: b(S),
            rto_keeps_recovery_ssthresh: false,
            ..Default::default()
        });
        r.on_sent(t0(), b(10 * S));
        assert!(r.on_fast_retransmit(t0(), 10 * S));
        r.on_sent(t0(), b(20 * S));
        r.on_rto_timeout(t0(), false);
        assert_eq!(r.ssthresh(), b(15 * S));
        // Outside recovery eq. 4 applies as it is.
        let mut r = reno(10, 2 * S);
        r.on_sent(t0(), b(30 * S));
        r.on_rto_timeout(t0(), false);
        assert_eq!(r.ssthresh(), b(15 * S));
    }
}
