//! One feedback report as SCReAM v2 reads it (libwebrtc `scream_feedback.cc`,
//! `ParseScreamFeedback`): counts, sizes and delays over the report's packets. The
//! sender builds it from an RFC 8888 report and its own send records.

use crate::units::{DataSize, TimeDelta, Timestamp};

/// A feedback report, reduced to what the controller uses.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FeedbackSummary {
    /// When the report reached the sender (sender clock).
    pub now: Timestamp,
    /// Data in flight after the report's acknowledgements.
    pub data_in_flight: DataSize,
    /// Packets reported received.
    pub received: u32,
    /// Of those, CE-marked.
    pub ce_marked: u32,
    /// Packets reported missing for the first time.
    pub lost: u32,
    /// Packets reported missing earlier and received now (reordered).
    pub recovered: u32,
    /// Bytes of every packet in the report that is not CE-marked, lost ones included
    /// (libwebrtc `acked_not_marked_size`; draft 4.2.2.2 bytes_newly_acked -
    /// bytes_newly_acked_ce).
    pub acked_not_marked: DataSize,
    /// Smallest and largest one-way delay (arrival - send) of the received packets.
    pub min_one_way_delay: TimeDelta,
    pub max_one_way_delay: TimeDelta,
    /// Report time minus the first arrival it reports: how long the receiver held
    /// the feedback (libwebrtc `feedback_hold_time`).
    pub hold_time: TimeDelta,
    /// now - send time of the last arrival - the time it waited at the receiver.
    pub rtt_sample: TimeDelta,
}
