//! What a web application's getStats shows of a flow, what it applies to a flow, and
//! when (the `web-api` coupling mode, [`crate::web_api`]): plain data shared by the
//! engine, the flows and the coupling hooks.

use flowstate_core::{Bitrate, DataSize, TimeDelta};

/// What getStats shows of one flow at a poll.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum AppStats {
    /// A video sender: `availableOutgoingBitrate` (GCC's target), `bytesSent`,
    /// `roundTripTime` (GCC's RTT estimate once it has a sample).
    Media {
        target: Bitrate,
        bytes_sent: u64,
        rtt: Option<TimeDelta>,
    },
    /// A data channel: payload bytes that left the channel's buffer (what the
    /// application wrote less `bufferedAmount`), and its backlog
    /// (`flowstate_core::coupling::web_api::UNBOUNDED_BACKLOG` for a greedy application).
    Data { bytes_sent: u64, backlog: DataSize },
}

/// What the application applies.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum AppControl {
    /// `RTCRtpSender.setParameters`: encodings[0].maxBitrate.
    MaxBitrate(Bitrate),
    /// The data channel's token-bucket rate ([`Bitrate::INFINITY`]: unpaced).
    Pacing(Bitrate),
}

/// When the engine polls the flows and applies the decisions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StatsSchedule {
    pub interval: TimeDelta,
    pub delay: TimeDelta,
    /// Sent rates are measured over this window (at least one interval).
    pub rate_window: TimeDelta,
}

impl Default for StatsSchedule {
    fn default() -> Self {
        StatsSchedule {
            interval: TimeDelta::millis(150),
            delay: TimeDelta::millis(50),
            rate_window: TimeDelta::secs(1),
        }
    }
}
