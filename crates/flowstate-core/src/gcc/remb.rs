//! When the receiver sends a REMB (paper 002 section 3.3, "REMB Processing"): every 1 s,
//! or at once when A_r drops below 0.97 of the last value sent.
//!
//! Follows paper 002; the 0.97 rule is `kSendThresholdPercent` of libwebrtc's
//! `webrtc/video/vie_remb.cc` (M50). M100's `remb_throttler.cc` is not followed.

use crate::units::{Bitrate, TimeDelta, Timestamp};

/// REMB timing constants.
#[derive(Debug, Clone, PartialEq)]
pub struct RembConfig {
    /// Periodic interval (1 s).
    pub interval: TimeDelta,
    /// Send at once when A_r < this fraction of the last sent value (0.97).
    pub drop_fraction: f64,
}

impl Default for RembConfig {
    fn default() -> Self {
        Self {
            interval: TimeDelta::secs(1),
            drop_fraction: 0.97,
        }
    }
}

/// Decides when a REMB is due.
#[derive(Debug, Clone)]
pub struct RembScheduler {
    cfg: RembConfig,
    last: Option<(Timestamp, Bitrate)>,
}

impl RembScheduler {
    pub fn new(cfg: RembConfig) -> Self {
        Self { cfg, last: None }
    }
    /// Whether a REMB carrying `estimate` should go out at `now`; records it if so.
    pub fn should_send(&mut self, now: Timestamp, estimate: Bitrate) -> bool {
        let due = match self.last {
            None => true,
            Some((t, r)) => {
                now.saturating_since(t) >= self.cfg.interval
                    || estimate < r * self.cfg.drop_fraction
            }
        };
        if due {
            self.last = Some((now, estimate));
        }
        due
    }
    /// When the next periodic REMB is due (`None` before the first).
    pub fn next_periodic(&self) -> Option<Timestamp> {
        self.last.map(|(t, _)| t + self.cfg.interval)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn periodic_and_on_drop() {
        let mut s = RembScheduler::new(RembConfig::default());
        let t = Timestamp::from_millis;
        assert!(s.should_send(t(0), Bitrate::kbps(1000.0)));
        assert!(!s.should_send(t(100), Bitrate::kbps(980.0))); // 0.98 >= 0.97
        assert!(s.should_send(t(200), Bitrate::kbps(960.0))); // < 970
        assert!(!s.should_send(t(1100), Bitrate::kbps(2000.0)));
        assert!(s.should_send(t(1200), Bitrate::kbps(2000.0)));
        assert_eq!(s.next_periodic(), Some(t(2200)));
    }
}
