//! The seam between the external rate controller's sender ([`super::ExternalSender`])
//! and the rule that sets its rate: [`RateDecider`], asked once per feedback report
//! with a [`FeedbackBatch`] (one [`PacketFeedback`] per packet the report covers), and
//! answering a [`RateDecision`].
//!
//! A decider is any code: a rule written in Rust, a Python object (flowstate-py), a
//! learned policy, or an agent outside the simulation that sets the rate between steps
//! ([`RateDecider::poll_decision`]). The sender checks every decision it is given
//! ([`RateDecision::checked`]), so a decider cannot hand it a NaN or negative rate.

use crate::units::{Bitrate, DataSize, TimeDelta, Timestamp};

/// One packet a feedback report covers: what the sender knows of it (sequence number,
/// send time, size) and what the receiver said (arrival time and ECN codepoint, or
/// lost).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PacketFeedback {
    /// The packet's sequence number (from 0, in send order).
    pub seq: u64,
    /// When the sender sent it (sender clock).
    pub sent: Timestamp,
    /// When it arrived (receiver clock); `None`: reported lost (RFC 8888 R = 0).
    pub arrival: Option<Timestamp>,
    /// Its size on the wire.
    pub size: DataSize,
    /// The two ECN bits it arrived with (RFC 3168; 0b11 = CE), 0 when lost.
    pub ecn: u8,
}

/// What a decider sees at each feedback report.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FeedbackBatch {
    /// When the report reached the sender.
    pub now: Timestamp,
    /// The report's timestamp (receiver clock, RFC 8888 section 3.1).
    pub report_time: Timestamp,
    /// One entry per packet the report covers, in sequence order.
    pub packets: Vec<PacketFeedback>,
    /// The round-trip time the report gives (RFC 8888 section 3.1's arrival time
    /// offset), if it covers a received packet the sender still remembers.
    pub rtt: Option<TimeDelta>,
    /// The target rate in force (the last decision, or the coupling's allowance).
    pub target: Bitrate,
    /// The rate a coupling manager allowed since the previous report, if it did.
    pub allowance: Option<Bitrate>,
}

/// A decider's answer: the target rate, and optionally a pacing rate (default: the
/// target).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RateDecision {
    /// The rate the sender sends at, in bit/s.
    pub target_bps: f64,
    /// The rate packets leave at, in bit/s (`None`: the target).
    pub pacing_bps: Option<f64>,
}

impl RateDecision {
    /// A decision of `target` alone.
    pub fn target(target: Bitrate) -> Self {
        Self {
            target_bps: target.as_bps(),
            pacing_bps: None,
        }
    }

    /// The decision as rates: each a finite number >= 0 bit/s. Error: a message naming
    /// the value (`target rate must be a finite number >= 0 bit/s, got NaN`).
    pub fn checked(&self) -> Result<(Bitrate, Option<Bitrate>), DecideError> {
        let rate = |what: &str, v: f64| {
            if v.is_finite() && v >= 0.0 {
                Ok(Bitrate::bps(v))
            } else {
                Err(DecideError::new(format!(
                    "{what} must be a finite number >= 0 bit/s, got {v}"
                )))
            }
        };
        let target = rate("the target rate", self.target_bps)?;
        let pacing = self
            .pacing_bps
            .map(|p| rate("the pacing rate", p))
            .transpose()?;
        Ok((target, pacing))
    }
}

/// Why a decider gave no decision: one line, for the driver to report (a driver that
/// keeps the decider's own error, a Python traceback, reports that instead).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecideError {
    pub message: String,
}

impl DecideError {
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
        }
    }
}

impl std::fmt::Display for DecideError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for DecideError {}

/// The rule that sets an external rate controller's rate.
pub trait RateDecider {
    /// A feedback report arrived: the new target (and pacing) rate, or an error that
    /// stops the sender.
    fn decide(&mut self, batch: &FeedbackBatch) -> Result<RateDecision, DecideError>;

    /// A decision made outside the feedback path since the last call (an agent that
    /// steps the simulation sets the rate between steps), asked whenever the sender is
    /// polled. Default: none.
    fn poll_decision(&mut self, _now: Timestamp) -> Option<RateDecision> {
        None
    }
}

/// A decider that keeps the rate it was given: for tests, and the rate the sender
/// starts with when no rule is attached yet.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FixedRate(pub Bitrate);

impl RateDecider for FixedRate {
    fn decide(&mut self, _batch: &FeedbackBatch) -> Result<RateDecision, DecideError> {
        Ok(RateDecision::target(self.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_decision_is_checked() {
        let d = |t: f64, p: Option<f64>| RateDecision {
            target_bps: t,
            pacing_bps: p,
        };
        assert_eq!(
            d(1e6, None).checked(),
            Ok((Bitrate::bps(1e6), None::<Bitrate>))
        );
        for bad in [f64::NAN, -1.0, f64::INFINITY] {
            let e = d(bad, None).checked().expect_err("refused");
            assert!(e.message.starts_with("the target rate must be"), "{e}");
        }
        let e = d(1e6, Some(-3.0)).checked().expect_err("refused");
        assert_eq!(
            e.message,
            "the pacing rate must be a finite number >= 0 bit/s, got -3"
        );
    }
}
