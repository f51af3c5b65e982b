//! What a paced, rate-based sender (RAP, TFRC) keeps besides its rate controller: the
//! pacer, the next sequence number, the application's desired rate and a sent-packet
//! count. The controllers differ (RAP's AIMD step, TFRC's equation); the sending does not.

use crate::ecn::Ecn;
use crate::rate::pacer::Pacer;
use crate::units::{Bitrate, DataSize, Timestamp};

/// Paced sending at min(controller rate, desired rate), one sequence number a packet.
#[derive(Debug, Clone, Default)]
pub(crate) struct PacedSending {
    pacer: Pacer,
    next_seq: u64,
    desired_rate: Option<Bitrate>,
    packets_sent: u64,
    /// The codepoint of the data packets.
    ecn: Ecn,
}

impl PacedSending {
    pub(crate) fn ecn(&self) -> Ecn {
        self.ecn
    }
    pub(crate) fn set_ecn(&mut self, ecn: Ecn) {
        self.ecn = ecn;
    }
    /// Limit the application's sending rate (`None` = greedy).
    pub(crate) fn set_desired_rate(&mut self, rate: Option<Bitrate>) {
        self.desired_rate = rate;
    }

    /// True if the application sends less than the controller allows.
    pub(crate) fn app_limited(&self, controller_rate: Bitrate) -> bool {
        self.desired_rate.is_some_and(|d| d < controller_rate)
    }

    /// The rate packets actually go at: min(controller rate, desired rate).
    #[inline]
    pub(crate) fn sending_rate(&self, controller_rate: Bitrate) -> Bitrate {
        match self.desired_rate {
            Some(d) => controller_rate.min(d),
            None => controller_rate,
        }
    }

    pub(crate) fn packets_sent(&self) -> u64 {
        self.packets_sent
    }

    /// The sequence number of a `size`-byte packet due at `now`, counted as sent; `None`
    /// if the pacer says not yet.
    #[inline]
    pub(crate) fn send_if_due(
        &mut self,
        now: Timestamp,
        size: DataSize,
        controller_rate: Bitrate,
    ) -> Option<u64> {
        let rate = self.sending_rate(controller_rate);
        if !self.pacer.is_due(now, size, rate) {
            return None;
        }
        self.pacer.on_sent(now, size, rate);
        let seq = self.next_seq;
        self.next_seq = self.next_seq.saturating_add(1);
        self.packets_sent += 1;
        Some(seq)
    }

    /// When the next `size`-byte packet is due.
    #[inline]
    pub(crate) fn next_send(&self, size: DataSize, controller_rate: Bitrate) -> Option<Timestamp> {
        self.pacer
            .next_send(size, self.sending_rate(controller_rate))
    }

    /// The highest sequence number sent so far (0 before the first packet).
    pub(crate) fn highest_sent(&self) -> u64 {
        self.next_seq.saturating_sub(1)
    }
}

/// The methods a paced rate sender (RAP, TFRC) shares, for a sender whose fields are
/// `ctl` (its rate controller, of type `$controller`) and `sending` (its
/// [`PacedSending`]): the desired rate, the controller and its rate, the rate packets
/// actually go at, the packet count and the packet size (`ctl.config().$size`).
macro_rules! paced_rate_sender {
    ($controller:ty, size: $size:ident) => {
        /// The sender with its data packets sent with the codepoint `ecn`
        /// (docs/ALGORITHMS.md, "ECN responses"; default Not-ECT).
        pub fn with_ecn(mut self, ecn: crate::ecn::Ecn) -> Self {
            self.sending.set_ecn(ecn);
            self
        }

        /// Limit the application's sending rate (`None` = greedy).
        pub fn set_desired_rate(&mut self, rate: Option<Bitrate>) {
            self.sending.set_desired_rate(rate);
        }

        pub fn controller(&self) -> &$controller {
            &self.ctl
        }

        /// The controller's rate (RAP's rate, TFRC's allowed rate X).
        pub fn rate(&self) -> Bitrate {
            self.ctl.rate()
        }

        /// The rate packets actually go at: min(controller rate, desired rate).
        pub fn sending_rate(&self) -> Bitrate {
            self.sending.sending_rate(self.ctl.rate())
        }

        pub fn packets_sent(&self) -> u64 {
            self.sending.packets_sent()
        }

        fn size(&self) -> DataSize {
            self.ctl.config().$size
        }
    };
}
pub(crate) use paced_rate_sender;

/// The [`Controller`](super::Controller) of a paced rate sender (RAP, TFRC): coupled as
/// a rate flow. `$rtt` names the controller method giving the RTT its reports carry.
macro_rules! paced_rate_controller {
    ($sender:ty, rtt: $rtt:ident) => {
        impl crate::endpoint::Controller for $sender {
            /// A `FlowReport::Rate` if the controller's rate changed (RAP) or was
            /// recomputed (TFRC) since the last call.
            fn poll_cc_report(&mut self) -> Option<FlowReport> {
                self.ctl.take_report().then(|| FlowReport::Rate {
                    rate: self.ctl.rate(),
                    rtt: self.ctl.$rtt(),
                })
            }

            /// Adopt a coupling manager's allowance (`Allowance::Rate`; other kinds are
            /// ignored).
            fn apply_allowance(&mut self, _now: Timestamp, allowance: Allowance) {
                if let Allowance::Rate(r) = allowance {
                    self.ctl.set_rate(r);
                }
            }

            fn snapshot(&self) -> FlowReport {
                FlowReport::Rate {
                    rate: self.ctl.rate(),
                    rtt: self.ctl.$rtt(),
                }
            }

            fn latest_rtt(&self) -> Option<crate::units::TimeDelta> {
                self.ctl.$rtt()
            }

            fn set_app_rate(&mut self, rate: Option<Bitrate>) {
                self.set_desired_rate(rate);
            }

            fn ecn_codepoint(&self) -> crate::ecn::Ecn {
                self.sending.ecn()
            }

            fn ecn_responses(&self) -> Option<u64> {
                self.ecn_response_count()
            }
        }
    };
}
pub(crate) use paced_rate_controller;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::TimeDelta;

    #[test]
    fn desired_rate_caps_the_sending_rate_and_marks_app_limited() {
        let mut s = PacedSending::default();
        let ctl = Bitrate::kbps(800.0);
        assert_eq!(s.sending_rate(ctl), ctl);
        assert!(!s.app_limited(ctl));
        s.set_desired_rate(Some(Bitrate::kbps(300.0)));
        assert_eq!(s.sending_rate(ctl), Bitrate::kbps(300.0));
        assert!(s.app_limited(ctl));
        assert!(!s.app_limited(Bitrate::kbps(200.0)));
    }

    #[test]
    fn packets_are_numbered_in_order_and_spaced_by_the_rate() {
        let mut s = PacedSending::default();
        let size = DataSize::bytes(1000);
        let rate = Bitrate::kbps(800.0); // 10 ms a packet
        let t0 = Timestamp::ZERO;
        assert_eq!(s.send_if_due(t0, size, rate), Some(0));
        assert_eq!(s.send_if_due(t0, size, rate), None);
        let next = s
            .next_send(size, rate)
            .expect("a rate above zero has a next send");
        assert_eq!(next, t0 + TimeDelta::millis(10));
        assert_eq!(s.send_if_due(next, size, rate), Some(1));
        assert_eq!(s.packets_sent(), 2);
        assert_eq!(s.highest_sent(), 1);
    }
}
