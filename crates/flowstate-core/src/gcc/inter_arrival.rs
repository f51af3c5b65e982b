//! Arrival groups and the delay variation between consecutive groups
//! (paper 002 eq. 4; Chromium `InterArrivalDelta`).
//!
//! libwebrtc: `modules/congestion_controller/goog_cc/inter_arrival_delta.cc` at M100
//! (branch-heads/4896); the paper presets' grouping follows paper 002 (and
//! `webrtc/modules/remote_bitrate_estimator/inter_arrival.cc` of M50).
//!
//! d(i) = (t_i - t_{i-1}) - (T_i - T_{i-1}), where t is the arrival time of a group's
//! last packet and T is the group's send time (the first packet's send time in the
//! papers, the latest send time in Chromium: [`SendTimeReference`]).

use crate::units::{TimeDelta, Timestamp};

/// Which send time stands for a group.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SendTimeReference {
    /// The first packet's send time (paper 002 eq. 4).
    First,
    /// The latest send time in the group (Chromium `InterArrivalDelta`).
    Last,
}

/// Constants of the grouping (Chromium `InterArrivalDelta` values by default).
#[derive(Debug, Clone, PartialEq)]
pub struct InterArrivalConfig {
    /// Packets sent within this time of a group's first packet join the group (5 ms).
    pub send_group_length: TimeDelta,
    /// A packet arriving within this time of the group's last arrival, with a negative
    /// propagation delta, joins the group as a burst (5 ms).
    pub burst_delta_threshold: TimeDelta,
    /// A burst group may span at most this much arrival time (100 ms).
    pub max_burst_duration: TimeDelta,
    /// Reset when the arrival-time delta exceeds the send-time delta by this much (3 s).
    pub arrival_offset_reset: TimeDelta,
    /// Reset after this many consecutive reordered groups (3).
    pub reordered_reset_threshold: u32,
    /// Which send time stands for a group.
    pub send_time_reference: SendTimeReference,
    /// Paper 002 eq. 4: a group is one video frame (packets carrying the same frame id);
    /// packets without a frame id fall back to the send-time rule. Chromium: false.
    pub group_by_frame: bool,
}

impl Default for InterArrivalConfig {
    fn default() -> Self {
        Self {
            send_group_length: TimeDelta::millis(5),
            burst_delta_threshold: TimeDelta::millis(5),
            max_burst_duration: TimeDelta::millis(100),
            arrival_offset_reset: TimeDelta::secs(3),
            reordered_reset_threshold: 3,
            send_time_reference: SendTimeReference::Last,
            group_by_frame: false,
        }
    }
}

#[derive(Debug, Clone, Copy)]
struct Group {
    first_send: Timestamp,
    last_send: Timestamp,
    first_arrival: Timestamp,
    complete_time: Timestamp,
    size: u64,
    frame: Option<u64>,
}

impl Group {
    fn new(send: Timestamp, arrival: Timestamp, size: u64, frame: Option<u64>) -> Self {
        Self {
            first_send: send,
            last_send: send,
            first_arrival: arrival,
            complete_time: arrival,
            size,
            frame,
        }
    }
    fn send_time(&self, r: SendTimeReference) -> Timestamp {
        match r {
            SendTimeReference::First => self.first_send,
            SendTimeReference::Last => self.last_send,
        }
    }
}

/// The deltas between two consecutive complete groups.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GroupDelta {
    /// T_i - T_{i-1}.
    pub send_delta: TimeDelta,
    /// t_i - t_{i-1}.
    pub arrival_delta: TimeDelta,
    /// Size of group i minus size of group i-1, bytes.
    pub size_delta: i64,
    /// Arrival time of the newest group's last packet.
    pub arrival_time: Timestamp,
}

impl GroupDelta {
    /// d(i) in milliseconds (paper 002 eq. 4).
    pub fn delay_variation_ms(&self) -> f64 {
        (self.arrival_delta - self.send_delta).as_millis_f64()
    }
}

/// Groups packets and yields a [`GroupDelta`] whenever a group completes.
#[derive(Debug, Clone)]
pub struct InterArrival {
    cfg: InterArrivalConfig,
    current: Option<Group>,
    prev: Option<Group>,
    reordered: u32,
}

impl InterArrival {
    pub fn new(cfg: InterArrivalConfig) -> Self {
        Self {
            cfg,
            current: None,
            prev: None,
            reordered: 0,
        }
    }

    /// Forget all groups (after a reset condition).
    pub fn reset(&mut self) {
        self.current = None;
        self.prev = None;
        self.reordered = 0;
    }

    fn belongs_to_burst(&self, g: &Group, send: Timestamp, arrival: Timestamp) -> bool {
        let arrival_delta = arrival - g.complete_time;
        let send_delta = send - g.last_send;
        if send_delta == TimeDelta::ZERO {
            return true;
        }
        let propagation_delta = arrival_delta - send_delta;
        propagation_delta < TimeDelta::ZERO
            && arrival_delta <= self.cfg.burst_delta_threshold
            && arrival - g.first_arrival < self.cfg.max_burst_duration
    }

    /// One packet (send time, arrival time, size in bytes, video frame id if known).
    /// Returns the deltas between the two previous groups when this packet starts a new
    /// group.
    pub fn on_packet(
        &mut self,
        send: Timestamp,
        arrival: Timestamp,
        size: u64,
        frame: Option<u64>,
    ) -> Option<GroupDelta> {
        let Some(mut cur) = self.current else {
            self.current = Some(Group::new(send, arrival, size, frame));
            return None;
        };
        let by_frame = match (self.cfg.group_by_frame, frame, cur.frame) {
            (true, Some(f), Some(c)) => Some((f, c)),
            _ => None,
        };
        let reordered = match by_frame {
            Some((f, c)) => f < c,
            None => send < cur.first_send,
        };
        if reordered {
            // Reordered packet from an older group: ignored (Chromium).
            return None;
        }
        let new_group = match by_frame {
            Some((f, c)) => f != c,
            None => {
                !self.belongs_to_burst(&cur, send, arrival)
                    && send - cur.first_send > self.cfg.send_group_length
            }
        };
        if !new_group {
            cur.last_send = cur.last_send.max(send);
            cur.first_send = cur.first_send.min(send);
            cur.size = cur.size.saturating_add(size);
            cur.complete_time = arrival;
            self.current = Some(cur);
            return None;
        }
        let mut out = None;
        if let Some(prev) = self.prev {
            let r = self.cfg.send_time_reference;
            let send_delta = cur.send_time(r) - prev.send_time(r);
            let arrival_delta = cur.complete_time - prev.complete_time;
            if arrival_delta - send_delta >= self.cfg.arrival_offset_reset {
                self.reset();
                self.current = Some(Group::new(send, arrival, size, frame));
                return None;
            }
            if arrival_delta < TimeDelta::ZERO {
                self.reordered += 1;
                if self.reordered >= self.cfg.reordered_reset_threshold {
                    self.reset();
                    self.current = Some(Group::new(send, arrival, size, frame));
                }
                // Chromium keeps the groups when not resetting; the next group is
                // compared with the current one.
                return None;
            }
            self.reordered = 0;
            out = Some(GroupDelta {
                send_delta,
                arrival_delta,
                size_delta: cur.size as i64 - prev.size as i64,
                arrival_time: cur.complete_time,
            });
        }
        self.prev = Some(cur);
        self.current = Some(Group::new(send, arrival, size, frame));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Timestamp {
        Timestamp::from_millis(v)
    }

    #[test]
    fn groups_by_send_time_and_computes_variation() {
        let mut ia = InterArrival::new(InterArrivalConfig {
            send_time_reference: SendTimeReference::First,
            ..Default::default()
        });
        // Group A: sent 0,2 ms, arrives 50,52. Group B: sent 10,12, arrives 65,67.
        assert!(ia.on_packet(ms(0), ms(50), 100, None).is_none());
        assert!(ia.on_packet(ms(2), ms(52), 100, None).is_none());
        assert!(ia.on_packet(ms(10), ms(65), 100, None).is_none()); // completes A, no prev
        assert!(ia.on_packet(ms(12), ms(67), 200, None).is_none());
        // Group C starts at 20 ms: delta between A and B.
        let d = ia.on_packet(ms(20), ms(80), 100, None).expect("delta");
        // T_B - T_A = 10 - 0 = 10 ms (first send), t_B - t_A = 67 - 52 = 15 ms.
        assert_eq!(d.send_delta, TimeDelta::millis(10));
        assert_eq!(d.arrival_delta, TimeDelta::millis(15));
        assert!((d.delay_variation_ms() - 5.0).abs() < 1e-9);
        assert_eq!(d.size_delta, 100);
    }

    #[test]
    fn last_send_reference_uses_latest_send_time() {
        let mut ia = InterArrival::new(InterArrivalConfig::default());
        ia.on_packet(ms(0), ms(50), 100, None);
        ia.on_packet(ms(3), ms(53), 100, None);
        ia.on_packet(ms(10), ms(60), 100, None);
        ia.on_packet(ms(14), ms(64), 100, None);
        let d = ia.on_packet(ms(30), ms(80), 100, None).expect("delta");
        // 14 - 3 = 11 ms send delta; 64 - 53 = 11 ms arrival delta.
        assert_eq!(d.send_delta, TimeDelta::millis(11));
        assert!(d.delay_variation_ms().abs() < 1e-9);
    }

    #[test]
    fn burst_joins_current_group() {
        let mut ia = InterArrival::new(InterArrivalConfig::default());
        ia.on_packet(ms(0), ms(100), 100, None);
        // Sent 20 ms later but arrives 1 ms after: negative propagation delta -> burst.
        assert!(ia.on_packet(ms(20), ms(101), 100, None).is_none());
        assert!(ia.on_packet(ms(40), ms(102), 100, None).is_none());
        // Not a burst (arrives 50 ms later): new group, but no prev yet.
        assert!(ia.on_packet(ms(60), ms(160), 100, None).is_none());
        let d = ia.on_packet(ms(80), ms(180), 100, None).expect("delta");
        // Group 1 = three packets (300 B), last send 40, arrival 102; group 2: 60/160.
        assert_eq!(d.send_delta, TimeDelta::millis(20));
        assert_eq!(d.arrival_delta, TimeDelta::millis(58));
        assert_eq!(d.size_delta, 100 - 300);
    }

    #[test]
    fn arrival_jump_resets() {
        let mut ia = InterArrival::new(InterArrivalConfig::default());
        ia.on_packet(ms(0), ms(10), 100, None);
        ia.on_packet(ms(10), ms(20), 100, None);
        // Group 2 arrives 4 s late relative to its send time -> reset on completion.
        ia.on_packet(ms(20), ms(4030), 100, None);
        assert!(ia.on_packet(ms(30), ms(4040), 100, None).is_none());
        // After the reset, two more groups are needed before a delta.
        assert!(ia.on_packet(ms(40), ms(4050), 100, None).is_none());
        assert!(ia.on_packet(ms(50), ms(4060), 100, None).is_some());
    }

    #[test]
    fn frame_grouping_uses_frame_ids() {
        let mut ia = InterArrival::new(InterArrivalConfig {
            group_by_frame: true,
            send_time_reference: SendTimeReference::First,
            ..Default::default()
        });
        // Frame 0 paced over 20 ms (would be several send-time groups).
        ia.on_packet(ms(0), ms(30), 100, Some(0));
        ia.on_packet(ms(10), ms(40), 100, Some(0));
        ia.on_packet(ms(20), ms(50), 100, Some(0));
        ia.on_packet(ms(33), ms(65), 100, Some(1));
        ia.on_packet(ms(43), ms(78), 100, Some(1));
        let d = ia.on_packet(ms(66), ms(96), 100, Some(2)).expect("delta");
        // T: 33 - 0; t: 78 - 50.
        assert_eq!(d.send_delta, TimeDelta::millis(33));
        assert_eq!(d.arrival_delta, TimeDelta::millis(28));
        assert_eq!(d.size_delta, -100);
        // An older frame is a reordered packet.
        assert!(ia.on_packet(ms(70), ms(97), 100, Some(1)).is_none());
    }

    #[test]
    fn reordered_packets_are_ignored() {
        let mut ia = InterArrival::new(InterArrivalConfig::default());
        ia.on_packet(ms(100), ms(150), 100, None);
        assert!(ia.on_packet(ms(50), ms(151), 100, None).is_none());
    }
}
