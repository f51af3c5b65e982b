//! Two properties of Chromium's send path that its delay-based detector sees
//! (docs/ALGORITHMS.md, "Chromium's send path: `send_time_ms`, `fec_delay_ms`";
//! docs/REPRODUCTION.md, "What sets GCC's target in p000-fig3").
//!
//! - **Send times in whole milliseconds** (`send_time_ms`). The send time a transport
//!   feedback is matched with is the socket layer's clock in milliseconds: WebRTC M150
//!   `rtc_base/async_udp_socket.cc` `AsyncUDPSocket::SendTo` (line 92 at signalapp/webrtc
//!   bd635df) stamps `SentPacketInfo` with `env_.clock().TimeInMilliseconds()`, and
//!   `modules/congestion_controller/rtp/transport_feedback_adapter.cc`
//!   `ProcessSentPacket` (line 167) takes `Timestamp::Millis(sent_packet.send_time_ms)`;
//!   `DelayBasedBwe::IncomingPacketFeedback` (`delay_based_bwe.cc` lines 193-201) groups
//!   and differences those times. [`sent_packet_time`].
//! - **ULPFEC behind its frame** (`fec_delay_ms`). In Chromium 156 a frame's ULPFEC
//!   packets leave 5 ms or more after the frame's last media packet (measured, the
//!   bottleneck's pcaps of p000-fig3: p25 5.1 ms, 42-50 % of them 4-8 ms after, 43-50 %
//!   more than 20 ms after, with the pacer's next burst; 82-84 % more than 5 ms), so they
//!   form inter-arrival groups of their own (`kSendTimeGroupLength` 5 ms). Which rule of
//!   the sources holds them was not found (`PacingController::ProcessPackets` re-queues
//!   `FetchFec()` at once; a candidate is `TaskQueuePacedSender`'s hold-back window,
//!   5 ms or 3 packets, `call/rtp_transport_controller_send.cc` line 107). A measured
//!   delay, as `low_rate_fps` is a measured table: [`HeldPackets`].

use std::collections::VecDeque;

use crate::units::{TimeDelta, Timestamp};

/// The send time Chromium's transport feedback adapter records for a packet sent at
/// `now`: `now` cut to whole milliseconds with `whole_ms`, else `now`.
pub fn sent_packet_time(now: Timestamp, whole_ms: bool) -> Timestamp {
    if whole_ms {
        Timestamp::from_micros(now.as_micros() / 1000 * 1000)
    } else {
        now
    }
}

/// Packets held for a fixed delay before they go on (e.g. into the pacer's queue), in
/// the order they came.
#[derive(Debug, Clone)]
pub struct HeldPackets<T> {
    delay: TimeDelta,
    held: VecDeque<(Timestamp, T)>,
}

impl<T> HeldPackets<T> {
    /// A delay line of `delay` (negative is taken as zero).
    pub fn new(delay: TimeDelta) -> Self {
        Self {
            delay: delay.max(TimeDelta::ZERO),
            held: VecDeque::new(),
        }
    }
    pub fn delay(&self) -> TimeDelta {
        self.delay
    }
    /// Hold `item`, arrived at `now`, until `now + delay`.
    pub fn push(&mut self, now: Timestamp, item: T) {
        self.held.push_back((now + self.delay, item));
    }
    /// The next held item due at or before `now`.
    pub fn pop_due(&mut self, now: Timestamp) -> Option<T> {
        if self.held.front().is_some_and(|(due, _)| *due <= now) {
            self.held.pop_front().map(|(_, item)| item)
        } else {
            None
        }
    }
    /// When the next held item is due.
    pub fn next_due(&self) -> Option<Timestamp> {
        self.held.front().map(|(due, _)| *due)
    }
    pub fn len(&self) -> usize {
        self.held.len()
    }
    pub fn is_empty(&self) -> bool {
        self.held.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn send_times_cut_to_whole_milliseconds_only_when_asked() {
        let t = Timestamp::from_micros(40_032_933);
        assert_eq!(
            sent_packet_time(t, true),
            Timestamp::from_micros(40_032_000)
        );
        assert_eq!(sent_packet_time(t, false), t);
        let whole = Timestamp::from_micros(7_000);
        assert_eq!(sent_packet_time(whole, true), whole);
    }

    #[test]
    fn held_packets_leave_in_order_after_the_delay() {
        let mut h = HeldPackets::new(TimeDelta::from_micros(5_400));
        let t0 = Timestamp::from_micros(1_000_000);
        h.push(t0, 'a');
        h.push(t0 + TimeDelta::from_micros(100), 'b');
        assert_eq!(h.next_due(), Some(t0 + TimeDelta::from_micros(5_400)));
        assert_eq!(h.pop_due(t0 + TimeDelta::from_micros(5_399)), None);
        assert_eq!(h.pop_due(t0 + TimeDelta::from_micros(5_400)), Some('a'));
        assert_eq!(h.pop_due(t0 + TimeDelta::from_micros(5_400)), None);
        assert_eq!(h.len(), 1);
        assert_eq!(h.pop_due(t0 + TimeDelta::from_micros(9_000)), Some('b'));
        assert!(h.is_empty() && h.next_due().is_none());
    }

    #[test]
    fn a_negative_delay_holds_nothing_back() {
        let mut h = HeldPackets::new(TimeDelta::from_micros(-5));
        assert_eq!(h.delay(), TimeDelta::ZERO);
        let t = Timestamp::from_micros(10);
        h.push(t, 1u8);
        assert_eq!(h.pop_due(t), Some(1));
    }
}
