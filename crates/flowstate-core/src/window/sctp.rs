//! SCTP congestion control, RFC 9260 section 7.2 (the WebRTC data channel), with the
//! coupling hooks the papers added to usrsctp (paper 000 sections V-A and VII-B):
//! a max-cwnd cap (FSE-NG), setting cwnd directly (FSEv2), and a report on every change.

use super::{AckEvent, WindowController, WindowCore};
use crate::units::{DataSize, TimeDelta, Timestamp};

/// Constants of SCTP congestion control. Defaults are RFC 9260 / usrsctp values.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SctpCcConfig {
    /// Path MTU (usrsctp in WebRTC: 1200 bytes).
    pub mtu: DataSize,
    /// Initial cwnd; `None` = RFC 9260 7.2.1: min(4*MTU, max(2*MTU, 4380)).
    pub initial_cwnd: Option<DataSize>,
    /// Initial ssthresh: the peer's advertised receiver window (RFC 9260 7.2.1).
    pub initial_ssthresh: DataSize,
    /// The floor of ssthresh after a loss, in MTUs: ssthresh = max(cwnd/2, 4*MTU)
    /// (RFC 9260 7.2.3 and 6.3.3 E1).
    pub min_ssthresh_mtus: u64,
    /// The floor of the idle decay, in MTUs: cwnd = max(cwnd/2, 4*MTU) per idle RTO
    /// (RFC 9260 7.2.1).
    pub idle_floor_mtus: u64,
    /// Deviation (default false): the RFC's idle rule read literally *raises* a cwnd
    /// below 4*MTU to 4*MTU; by default the decay never increases cwnd.
    pub idle_decay_can_raise: bool,
    /// RFC 9260 7.2.1/7.2.2: grow only when cwnd was fully used before the SACK
    /// (flight >= cwnd). `false` is a named deviation: grow on every SACK.
    pub require_full_cwnd: bool,
    /// Whether a cwnd set from outside ([`WindowController::set_cwnd`], FSEv2) is itself
    /// reported back. Default false: the manager that set it already knows it, and an
    /// echo would trigger another allocation round.
    pub report_external_set_cwnd: bool,
    /// Whether a cwnd set from outside ([`WindowController::set_cwnd`], FSEv2) resets
    /// partial_bytes_acked to zero, i.e. drops the congestion-avoidance progress made
    /// towards the next +1 MTU (a usrsctp set_cwnd that does not keep it; flowstate
    /// option). Default false: pba is kept, capped at the new cwnd.
    pub reset_pba_on_set_cwnd: bool,
    /// dcSCTP's margin in "fully utilized": cwnd counts as used when flight + MTU >=
    /// cwnd (`RetransmissionQueue::HandleIncreasedCumulativeTsnAck`,
    /// net/dcsctp/tx/retransmission_queue.cc: "Allow some margin ... too small packets
    /// are not sent"). Default false: flight >= cwnd (RFC 9260 7.2.1 / 7.2.2).
    pub full_use_margin_one_mtu: bool,
    /// RFC 9260 7.2.2 (B): with cwnd not fully used, partial_bytes_acked is capped at
    /// cwnd. dcSCTP does not cap it (retransmission_queue.cc); default true.
    pub cap_pba_when_not_fully_used: bool,
}

impl Default for SctpCcConfig {
    fn default() -> Self {
        SctpCcConfig {
            mtu: DataSize::bytes(1200),
            initial_cwnd: None,
            initial_ssthresh: DataSize::bytes(1 << 20),
            min_ssthresh_mtus: 4,
            idle_floor_mtus: 4,
            idle_decay_can_raise: false,
            require_full_cwnd: true,
            report_external_set_cwnd: false,
            reset_pba_on_set_cwnd: false,
            full_use_margin_one_mtu: false,
            cap_pba_when_not_fully_used: true,
        }
    }
}

/// `DcSctpOptions::kMaxSafeMTUSize` (net/dcsctp/public/dcsctp_options.h): 1191 bytes.
pub const DCSCTP_MTU: u64 = 1191;
/// `DcSctpOptions::cwnd_mtus_initial` (dcsctp_options.h).
pub const DCSCTP_CWND_MTUS_INITIAL: u64 = 10;
/// `DcSctpOptions::cwnd_mtus_min` (dcsctp_options.h): the ssthresh floor after a loss.
pub const DCSCTP_CWND_MTUS_MIN: u64 = 4;

impl SctpCcConfig {
    /// dcSCTP, Chromium's SCTP since M95 (`dcsctp` preset; WebRTC M125 sources):
    /// MTU 1191 B, initial cwnd 10 MTUs, ssthresh floor 4 MTUs on loss
    /// (`cwnd_mtus_min`; T3-rtx: max(cwnd/2, 4 MTU), cwnd = 1 MTU as RFC 9260), the
    /// one-MTU margin in "fully utilized" and no 7.2.2 (B) cap of partial_bytes_acked
    /// (net/dcsctp/tx/retransmission_queue.cc). ssthresh starts at the peer's rwnd.
    pub fn dcsctp() -> Self {
        let mtu = DataSize::bytes(DCSCTP_MTU);
        Self {
            mtu,
            initial_cwnd: Some(mtu * DCSCTP_CWND_MTUS_INITIAL),
            min_ssthresh_mtus: DCSCTP_CWND_MTUS_MIN,
            full_use_margin_one_mtu: true,
            cap_pba_when_not_fully_used: false,
            ..Self::default()
        }
    }
}

/// RFC 9260 7.2.1: initial cwnd = min(4*MTU, max(2*MTU, 4380 bytes)).
pub fn initial_cwnd(mtu: DataSize) -> DataSize {
    (mtu * 4).min((mtu * 2).max(DataSize::bytes(4380)))
}

/// SCTP congestion control for one destination address.
#[derive(Debug, Clone)]
pub struct SctpCongestionControl {
    config: SctpCcConfig,
    core: WindowCore,
    partial_bytes_acked: DataSize,
    /// Fast recovery exit point (highest TSN outstanding at entry), RFC 9260 7.2.4.
    recovery_point: Option<u64>,
}

impl SctpCongestionControl {
    pub fn new(config: SctpCcConfig) -> Self {
        let mtu = config.mtu.max(DataSize::bytes(1));
        let cwnd = config.initial_cwnd.unwrap_or_else(|| initial_cwnd(mtu));
        SctpCongestionControl {
            config,
            core: WindowCore::new(mtu, cwnd, config.initial_ssthresh),
            partial_bytes_acked: DataSize::ZERO,
            recovery_point: None,
        }
    }

    pub fn config(&self) -> &SctpCcConfig {
        &self.config
    }

    pub fn partial_bytes_acked(&self) -> DataSize {
        self.partial_bytes_acked
    }

    /// The newest RTT sample passed in with an ack.
    pub fn last_rtt(&self) -> Option<TimeDelta> {
        self.core.last_rtt
    }

    /// ssthresh = max(cwnd/2, 4*MTU) (RFC 9260 7.2.3).
    fn loss_ssthresh(&self) -> DataSize {
        (self.core.cwnd / 2).max(self.core.mtu * self.config.min_ssthresh_mtus)
    }
}

impl WindowController for SctpCongestionControl {
    fn in_recovery(&self) -> bool {
        self.recovery_point.is_some()
    }

    /// RFC 9260 7.2.1 (slow start) and 7.2.2 (congestion avoidance).
    fn on_ack(&mut self, _now: Timestamp, ack: &AckEvent) {
        let flight_before = self.core.flight;
        self.core.remove_from_flight(ack.removed_from_flight);
        if let Some(rtt) = ack.rtt {
            self.core.last_rtt = Some(rtt);
        }
        // 7.2.4: fast recovery ends when the cumulative ack reaches the exit point.
        if let Some(point) = self.recovery_point {
            if ack.cum_ack >= point {
                self.recovery_point = None;
            }
        }
        let mtu = self.core.mtu;
        let cwnd = self.core.cwnd;
        let used = if self.config.full_use_margin_one_mtu {
            flight_before + mtu >= cwnd
        } else {
            flight_before >= cwnd
        };
        let fully_used = !self.config.require_full_cwnd || used;
        let in_recovery = self.recovery_point.is_some();
        if cwnd <= self.core.ssthresh {
            // 7.2.1: "cwnd MUST be increased by at most the lesser of 1) the total size of
            // the previously outstanding DATA chunk(s) acknowledged, and 2) the
            // destination's path MTU", only if the current cwnd is fully utilized, the SACK
            // advances the Cumulative TSN Ack Point, and the sender is not in Fast Recovery.
            if ack.cum_ack_advanced && fully_used && !in_recovery {
                self.core.cwnd = cwnd + ack.newly_acked.min(mtu);
            }
        } else {
            // 7.2.2: partial_bytes_acked += all newly acked bytes.
            self.partial_bytes_acked += ack.newly_acked;
            if self.partial_bytes_acked >= cwnd {
                if !fully_used {
                    // 7.2.2 (B): flight was below cwnd: pba is capped at cwnd (not in
                    // dcSCTP, where it keeps growing).
                    if self.config.cap_pba_when_not_fully_used {
                        self.partial_bytes_acked = cwnd;
                    }
                } else {
                    // 7.2.2 (C): pba -= cwnd; cwnd += MTU if not in Fast Recovery and the
                    // SACK advanced the Cumulative TSN Ack Point.
                    self.partial_bytes_acked -= cwnd;
                    if !in_recovery && ack.cum_ack_advanced {
                        self.core.cwnd = cwnd + mtu;
                    }
                }
            }
        }
        // 7.2.2 (E): all data acknowledged: partial_bytes_acked = 0.
        if self.core.flight == DataSize::ZERO {
            self.partial_bytes_acked = DataSize::ZERO;
        }
        self.core.settle();
    }

    /// RFC 9260 7.2.4 (2): on entering Fast Recovery, ssthresh = max(cwnd/2, 4*MTU),
    /// cwnd = ssthresh, partial_bytes_acked = 0; the exit point is the highest TSN
    /// outstanding. No further reduction while in Fast Recovery.
    fn on_fast_retransmit(&mut self, _now: Timestamp, recovery_point: u64) -> bool {
        if self.recovery_point.is_some() {
            return false;
        }
        self.core.ssthresh = self.loss_ssthresh();
        self.core.cwnd = self.core.ssthresh;
        self.partial_bytes_acked = DataSize::ZERO;
        self.recovery_point = Some(recovery_point);
        self.core.settle();
        true
    }

    /// RFC 9260 6.3.3 E1 / 7.2.3: ssthresh = max(cwnd/2, 4*MTU), cwnd = 1 MTU,
    /// partial_bytes_acked = 0. Fast recovery is abandoned.
    fn on_rto_timeout(&mut self, _now: Timestamp, _repeated: bool) {
        self.core.ssthresh = self.loss_ssthresh();
        self.core.cwnd = self.core.mtu;
        self.partial_bytes_acked = DataSize::ZERO;
        self.recovery_point = None;
        self.core.settle();
    }

    /// RFC 9260 appendix A: on an ECNE the sender reduces cwnd as it would on a loss
    /// (7.2.3: ssthresh = max(cwnd/2, 4*MTU), cwnd = ssthresh, partial_bytes_acked =
    /// 0), without Fast Recovery (nothing is retransmitted).
    fn on_congestion_mark(&mut self, _now: Timestamp) {
        self.core.ssthresh = self.loss_ssthresh();
        self.core.cwnd = self.core.ssthresh;
        self.partial_bytes_acked = DataSize::ZERO;
        self.core.settle();
    }

    /// RFC 9260 7.2.1: "When the endpoint does not transmit data on a given transport
    /// address, the cwnd of the transport address SHOULD be adjusted to
    /// max(cwnd/2, 4*MTU) per RTO."
    fn on_idle(&mut self, idle: TimeDelta, rto: TimeDelta) {
        if !rto.is_positive() || idle < rto {
            return;
        }
        let periods = (idle.as_micros() / rto.as_micros()).clamp(0, 64);
        let floor = self.core.mtu * self.config.idle_floor_mtus;
        for _ in 0..periods {
            let decayed = (self.core.cwnd / 2).max(floor);
            self.core.cwnd = if self.config.idle_decay_can_raise {
                decayed
            } else {
                decayed.min(self.core.cwnd)
            };
        }
        self.core.settle();
    }

    /// FSEv2 (paper 000 VII-B2g): adopt the manager's cwnd (already rounded to whole
    /// MTUs; still floored at one MTU here) and ssthresh if given.
    fn set_cwnd(&mut self, cwnd: DataSize, ssthresh: Option<DataSize>) {
        self.core.cwnd = cwnd;
        if let Some(s) = ssthresh {
            self.core.ssthresh = s;
        }
        self.partial_bytes_acked = if self.config.reset_pba_on_set_cwnd {
            DataSize::ZERO
        } else {
            self.partial_bytes_acked.min(self.core.cwnd)
        };
        self.core.clamp();
        if self.config.report_external_set_cwnd {
            self.core.note_change();
        } else {
            self.core.mark_reported();
        }
    }
}

super::state::embeds_core!(SctpCongestionControl);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dcsctp_initial_cwnd_margin_and_loss_floor() {
        let c = SctpCcConfig::dcsctp();
        let mut cc = SctpCongestionControl::new(c);
        assert_eq!(cc.cwnd(), DataSize::bytes(11_910), "10 x 1191 B");
        // Flight one MTU short of cwnd counts as fully used in dcSCTP, not in RFC 9260.
        let t = Timestamp::ZERO;
        cc.on_sent(t, DataSize::bytes(11_910 - 1191));
        let ack = AckEvent {
            newly_acked: DataSize::bytes(1191),
            removed_from_flight: DataSize::bytes(1191),
            cum_ack: 1,
            cum_ack_advanced: true,
            rtt: None,
        };
        cc.on_ack(t, &ack);
        assert_eq!(cc.cwnd(), DataSize::bytes(11_910 + 1191), "slow start grew");
        let mut rfc = SctpCongestionControl::new(SctpCcConfig {
            full_use_margin_one_mtu: false,
            ..c
        });
        rfc.on_sent(t, DataSize::bytes(11_910 - 1191));
        rfc.on_ack(t, &ack);
        assert_eq!(rfc.cwnd(), DataSize::bytes(11_910), "RFC: not fully used");
        // A loss at 5 MTUs: ssthresh = max(cwnd/2, 4 MTUs) = 4 MTUs.
        cc.set_cwnd(DataSize::bytes(5 * 1191), None);
        cc.on_fast_retransmit(t, 10);
        assert_eq!(cc.cwnd(), DataSize::bytes(4 * 1191));
        cc.on_rto_timeout(t, false);
        assert_eq!(cc.cwnd(), DataSize::bytes(1191), "T3-rtx: 1 MTU");
    }

    const MTU: u64 = 1200;

    fn b(v: u64) -> DataSize {
        DataSize::bytes(v)
    }
    fn t0() -> Timestamp {
        Timestamp::ZERO
    }
    fn ack(newly: u64, cum: u64, advanced: bool) -> AckEvent {
        AckEvent {
            newly_acked: b(newly),
            removed_from_flight: b(newly),
            cum_ack: cum,
            cum_ack_advanced: advanced,
            rtt: None,
        }
    }

    #[test]
    fn initial_cwnd_rfc9260_7_2_1() {
        // MTU 1200: min(4800, max(2400, 4380)) = 4380.
        assert_eq!(initial_cwnd(b(1200)), b(4380));
        // MTU 1500: min(6000, max(3000, 4380)) = 4380.
        assert_eq!(initial_cwnd(b(1500)), b(4380));
        // MTU 9000: min(36000, max(18000, 4380)) = 18000.
        assert_eq!(initial_cwnd(b(9000)), b(18000));
        // MTU 1000: min(4000, max(2000, 4380)) = 4000.
        assert_eq!(initial_cwnd(b(1000)), b(4000));
        let cc = SctpCongestionControl::new(SctpCcConfig::default());
        assert_eq!(cc.cwnd(), b(4380));
    }

    #[test]
    fn slow_start_adds_min_acked_mtu_when_fully_used_rfc9260_7_2_1() {
        let mut cc = SctpCongestionControl::new(SctpCcConfig::default());
        cc.on_sent(t0(), b(4 * MTU)); // 4800 >= 4380: fully used
        cc.on_ack(t0(), &ack(2 * MTU, 2, true));
        // min(2400, 1200) = 1200 added.
        assert_eq!(cc.cwnd(), b(4380 + 1200));
        assert_eq!(cc.bytes_in_flight(), b(2 * MTU));
        // Now flight 2400 < cwnd 5580: not fully used, no growth.
        cc.on_ack(t0(), &ack(500, 3, true));
        assert_eq!(cc.cwnd(), b(5580));
    }

    #[test]
    fn slow_start_small_ack_adds_acked_bytes() {
        let mut cc = SctpCongestionControl::new(SctpCcConfig::default());
        cc.on_sent(t0(), b(5000));
        cc.on_ack(t0(), &ack(300, 1, true));
        assert_eq!(cc.cwnd(), b(4380 + 300));
    }

    #[test]
    fn slow_start_requires_cum_ack_advance() {
        let mut cc = SctpCongestionControl::new(SctpCcConfig::default());
        cc.on_sent(t0(), b(5000));
        cc.on_ack(t0(), &ack(1200, 0, false)); // gap-ack only
        assert_eq!(cc.cwnd(), b(4380));
    }

    #[test]
    fn congestion_avoidance_partial_bytes_acked_rfc9260_7_2_2() {
        let cfg = SctpCcConfig {
            initial_cwnd: Some(b(6000)),
            initial_ssthresh: b(4800),
            ..Default::default()
        };
        let mut cc = SctpCongestionControl::new(cfg);
        cc.on_sent(t0(), b(12_000));
        // pba = 3600 < 6000: no change.
        cc.on_ack(t0(), &ack(3600, 3, true));
        assert_eq!(cc.cwnd(), b(6000));
        assert_eq!(cc.partial_bytes_acked(), b(3600));
        // pba = 7200 >= 6000 and flight before (8400) >= cwnd: cwnd += MTU, pba = 1200.
        cc.on_ack(t0(), &ack(3600, 6, true));
        assert_eq!(cc.cwnd(), b(7200));
        assert_eq!(cc.partial_bytes_acked(), b(1200));
    }

    #[test]
    fn congestion_avoidance_not_fully_used_caps_pba_rfc9260_7_2_2_b() {
        let cfg = SctpCcConfig {
            initial_cwnd: Some(b(6000)),
            initial_ssthresh: b(4800),
            ..Default::default()
        };
        let mut cc = SctpCongestionControl::new(cfg);
        cc.on_sent(t0(), b(7000));
        cc.on_ack(t0(), &ack(6500, 5, true)); // flight before 7000 >= 6000: grows
        assert_eq!(cc.cwnd(), b(7200));
        cc.on_sent(t0(), b(100));
        // flight before = 600 < 7200; pba = 500+... capped, no growth.
        cc.on_ack(t0(), &ack(600, 6, true));
        assert_eq!(cc.cwnd(), b(7200));
        // All data acked: pba reset (7.2.2 E).
        assert_eq!(cc.partial_bytes_acked(), b(0));
    }

    #[test]
    fn fast_retransmit_halves_with_floor_rfc9260_7_2_3() {
        let cfg = SctpCcConfig {
            initial_cwnd: Some(b(20 * MTU)),
            ..Default::default()
        };
        let mut cc = SctpCongestionControl::new(cfg);
        cc.on_sent(t0(), b(20 * MTU));
        assert!(cc.on_fast_retransmit(t0(), 20));
        assert_eq!(cc.ssthresh(), b(10 * MTU));
        assert_eq!(cc.cwnd(), b(10 * MTU));
        assert!(cc.in_recovery());
        // No second reduction in fast recovery.
        assert!(!cc.on_fast_retransmit(t0(), 25));
        assert_eq!(cc.cwnd(), b(10 * MTU));
        // No growth in fast recovery, even with cum ack advance.
        cc.on_ack(t0(), &ack(MTU, 10, true));
        assert_eq!(cc.cwnd(), b(10 * MTU));
        assert!(cc.in_recovery());
        // Cum ack reaches the exit point: recovery ends.
        cc.on_ack(t0(), &ack(MTU, 20, true));
        assert!(!cc.in_recovery());

        // Floor: cwnd 6 MTU -> ssthresh max(3, 4) MTU.
        let cfg = SctpCcConfig {
            initial_cwnd: Some(b(6 * MTU)),
            ..Default::default()
        };
        let mut cc = SctpCongestionControl::new(cfg);
        cc.on_fast_retransmit(t0(), 1);
        assert_eq!(cc.ssthresh(), b(4 * MTU));
        assert_eq!(cc.cwnd(), b(4 * MTU));
    }

    #[test]
    fn t3_expiry_collapses_to_one_mtu_rfc9260_6_3_3() {
        let cfg = SctpCcConfig {
            initial_cwnd: Some(b(20 * MTU)),
            ..Default::default()
        };
        let mut cc = SctpCongestionControl::new(cfg);
        cc.on_rto_timeout(t0(), false);
        assert_eq!(cc.ssthresh(), b(10 * MTU));
        assert_eq!(cc.cwnd(), b(MTU));
    }

    #[test]
    fn idle_decay_per_rto_rfc9260_7_2_1() {
        let cfg = SctpCcConfig {
            initial_cwnd: Some(b(40 * MTU)),
            ..Default::default()
        };
        let mut cc = SctpCongestionControl::new(cfg);
        let rto = TimeDelta::secs(1);
        cc.on_idle(TimeDelta::millis(999), rto);
        assert_eq!(cc.cwnd(), b(40 * MTU));
        cc.on_idle(TimeDelta::millis(2500), rto); // two RTOs: 40 -> 20 -> 10 MTU
        assert_eq!(cc.cwnd(), b(10 * MTU));
        cc.on_idle(TimeDelta::secs(10), rto); // floor 4 MTU
        assert_eq!(cc.cwnd(), b(4 * MTU));
        cc.on_rto_timeout(t0(), false);
        cc.on_idle(TimeDelta::secs(1), rto); // never raises by default
        assert_eq!(cc.cwnd(), b(MTU));
    }

    #[test]
    fn max_cwnd_caps_and_floors_at_mtu() {
        let mut cc = SctpCongestionControl::new(SctpCcConfig::default());
        cc.set_max_cwnd(Some(b(2400)));
        assert_eq!(cc.cwnd(), b(2400));
        let change = cc.poll_cwnd_change().expect("cap changed cwnd");
        assert_eq!(change.cwnd, b(2400));
        assert_eq!(change.max_cwnd, Some(b(2400)));
        cc.on_sent(t0(), b(5000));
        cc.on_ack(t0(), &ack(1200, 1, true));
        assert_eq!(cc.cwnd(), b(2400));
        cc.set_max_cwnd(Some(b(10)));
        assert_eq!(cc.max_cwnd(), Some(b(MTU)));
        assert_eq!(cc.cwnd(), b(MTU));
        cc.set_max_cwnd(None);
        assert_eq!(cc.cwnd(), b(MTU));
    }

    #[test]
    fn set_cwnd_floors_and_adopts_ssthresh_without_echo() {
        let mut cc = SctpCongestionControl::new(SctpCcConfig::default());
        cc.set_cwnd(b(0), Some(b(3000)));
        assert_eq!(cc.cwnd(), b(MTU));
        assert_eq!(cc.ssthresh(), b(3000));
        assert_eq!(cc.poll_cwnd_change(), None);
        cc.set_cwnd(b(12_000), None);
        assert_eq!(cc.cwnd(), b(12_000));
        assert_eq!(cc.ssthresh(), b(3000));
    }

    #[test]
    fn report_on_every_change_carries_latest_rtt() {
        let mut cc = SctpCongestionControl::new(SctpCcConfig::default());
        assert_eq!(cc.poll_cwnd_change(), None);
        cc.on_sent(t0(), b(5000));
        let mut a = ack(1200, 1, true);
        a.rtt = Some(TimeDelta::millis(55));
        cc.on_ack(t0(), &a);
        let c = cc.poll_cwnd_change().expect("cwnd grew");
        assert_eq!(c.cwnd, b(5580));
        assert_eq!(c.rtt, Some(TimeDelta::millis(55)));
        assert_eq!(cc.poll_cwnd_change(), None);
        // An ack without growth queues nothing.
        cc.on_ack(t0(), &ack(0, 1, false));
        assert_eq!(cc.poll_cwnd_change(), None);
    }

    #[test]
    fn set_cwnd_keeps_or_resets_partial_bytes_acked() {
        let run = |reset: bool| {
            let cfg = SctpCcConfig {
                initial_cwnd: Some(b(6000)),
                initial_ssthresh: b(4800),
                reset_pba_on_set_cwnd: reset,
                ..Default::default()
            };
            let mut cc = SctpCongestionControl::new(cfg);
            cc.on_sent(t0(), b(12_000));
            cc.on_ack(t0(), &ack(3600, 3, true));
            assert_eq!(cc.partial_bytes_acked(), b(3600));
            // FSEv2 sets 5 MTU (still congestion avoidance: ssthresh 4800).
            cc.set_cwnd(b(6000), None);
            cc.partial_bytes_acked()
        };
        // Default: kept (capped at the new cwnd 6000).
        assert_eq!(run(false), b(3600));
        // Option: the progress towards the next +1 MTU is lost.
        assert_eq!(run(true), b(0));
        // Kept progress then grows the window one ack earlier.
        let cfg = SctpCcConfig {
            initial_cwnd: Some(b(6000)),
            initial_ssthresh: b(4800),
            ..Default::default()
        };
        let mut keep = SctpCongestionControl::new(cfg);
        let mut reset = SctpCongestionControl::new(SctpCcConfig {
            reset_pba_on_set_cwnd: true,
            ..cfg
        });
        for cc in [&mut keep, &mut reset] {
            cc.on_sent(t0(), b(12_000));
            cc.on_ack(t0(), &ack(3600, 3, true));
            cc.set_cwnd(b(6000), None);
            cc.on_ack(t0(), &ack(3600, 6, true));
        }
        assert_eq!(keep.cwnd(), b(7200));
        assert_eq!(reset.cwnd(), b(6000));
        assert_eq!(reset.partial_bytes_acked(), b(3600));
    }
}
