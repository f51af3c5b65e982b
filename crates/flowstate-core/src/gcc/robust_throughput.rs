//! The acknowledged-throughput estimate of today's Chromium: `RobustThroughputEstimator`
//! (libwebrtc `modules/congestion_controller/goog_cc/robust_throughput_estimator.cc`,
//! settings in `acknowledged_bitrate_estimator_interface.h`, WebRTC M125; on by default
//! there: `RobustThroughputEstimatorSettings::enabled = true`). `chromium-m156` preset.
//!
//! `GoogCcNetworkController::OnTransportPacketsFeedback` feeds it every received packet
//! of a feedback report in receive-time order (`SortedByReceiveTime`, lost packets left
//! out) and hands its `bitrate()` to the delay-based estimator as the throughput the AIMD
//! decreases to (0.85 x) and caps its increase by (1.5 x + 10 kbit/s), to the probe-result
//! floor (`kProbeDropThroughputFraction`) and to loss-based BWE v2. The ~M100 model (and
//! the `chromium` preset) takes that throughput from a 500 ms receive-rate window
//! evaluated at the feedback's arrival ([`crate::rate_window`]).
//!
//! - Window (`FirstPacketOutsideWindow`): the oldest packet leaves while the window has
//!   more than `max_window_packets` (500) packets, spans more than `max_window_duration`
//!   (5 s) of receive time, or has more than `window_packets` (20) packets *and* spans
//!   more than `min_window_duration` (1 s).
//! - Rate (`bitrate()`, needs `required_packets` = 10 packets): receive rate =
//!   (bytes - the first received packet's) / (receive span - largest receive gap +
//!   second largest gap, at least 1 ms); send rate = (bytes - the last sent packet's) /
//!   (send span, at least 1 ms) over the packets not sent before a packet already
//!   discarded (reordered ones); the estimate is min(send rate, receive rate), or the
//!   receive rate alone when fewer than `required_packets` send times remain.
//! - Reordering: a packet received more than `kMaxReorderingTime` (1 s) before the newest
//!   clears the window.
//!
//! `prior_unacked_data` (audio sent without transport-wide sequence numbers, weighted by
//! `unacked_weight` = 1.0) is zero here: every packet of this crate's media senders
//! carries a transport-wide sequence number, where the header says the weight "doesn't
//! matter".

use crate::units::{Bitrate, DataSize, TimeDelta, Timestamp};
use std::collections::VecDeque;

/// `RobustThroughputEstimatorSettings::window_packets`.
pub const WINDOW_PACKETS: usize = 20;
/// `RobustThroughputEstimatorSettings::max_window_packets`.
pub const MAX_WINDOW_PACKETS: usize = 500;
/// `RobustThroughputEstimatorSettings::min_window_duration`.
pub const MIN_WINDOW_DURATION: TimeDelta = TimeDelta::secs(1);
/// `RobustThroughputEstimatorSettings::max_window_duration`.
pub const MAX_WINDOW_DURATION: TimeDelta = TimeDelta::secs(5);
/// `RobustThroughputEstimatorSettings::required_packets`.
pub const REQUIRED_PACKETS: usize = 10;
/// `kMaxReorderingTime` (robust_throughput_estimator.cc).
pub const MAX_REORDERING_TIME: TimeDelta = TimeDelta::secs(1);
/// The smallest duration either rate is divided by (`TimeDelta::Millis(1)`).
pub const MIN_DURATION: TimeDelta = TimeDelta::millis(1);

/// The estimator's settings (defaults: M125's, no field trial).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RobustThroughputConfig {
    pub window_packets: usize,
    pub max_window_packets: usize,
    pub min_window_duration: TimeDelta,
    pub max_window_duration: TimeDelta,
    pub required_packets: usize,
}

impl Default for RobustThroughputConfig {
    fn default() -> Self {
        Self {
            window_packets: WINDOW_PACKETS,
            max_window_packets: MAX_WINDOW_PACKETS,
            min_window_duration: MIN_WINDOW_DURATION,
            max_window_duration: MAX_WINDOW_DURATION,
            required_packets: REQUIRED_PACKETS,
        }
    }
}

/// One acknowledged (received) packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AckedPacket {
    pub send_time: Timestamp,
    pub receive_time: Timestamp,
    pub size: DataSize,
}

/// The estimator's state.
#[derive(Debug, Clone)]
pub struct RobustThroughputEstimator {
    cfg: RobustThroughputConfig,
    window: VecDeque<AckedPacket>,
    /// `latest_discarded_send_time_` (`None` = minus infinity).
    latest_discarded_send: Option<Timestamp>,
}

impl RobustThroughputEstimator {
    pub fn new(cfg: RobustThroughputConfig) -> Self {
        Self {
            cfg,
            window: VecDeque::new(),
            latest_discarded_send: None,
        }
    }

    pub fn config(&self) -> &RobustThroughputConfig {
        &self.cfg
    }

    /// Packets in the window.
    pub fn len(&self) -> usize {
        self.window.len()
    }
    pub fn is_empty(&self) -> bool {
        self.window.is_empty()
    }

    /// The window's packets, oldest first (property tests).
    #[cfg(test)]
    pub(crate) fn window_for_tests(&self) -> Vec<AckedPacket> {
        self.window.iter().copied().collect()
    }

    /// `FirstPacketOutsideWindow`.
    fn first_packet_outside_window(&self) -> bool {
        let (Some(front), Some(back)) = (self.window.front(), self.window.back()) else {
            return false;
        };
        if self.window.len() > self.cfg.max_window_packets {
            return true;
        }
        let span = back.receive_time - front.receive_time;
        if span > self.cfg.max_window_duration {
            return true;
        }
        self.window.len() > self.cfg.window_packets && span > self.cfg.min_window_duration
    }

    /// `IncomingPacketFeedbackVector`: one report's received packets, in receive-time
    /// order (reordered ones are swapped into place).
    pub fn on_packets<'a>(&mut self, packets: impl IntoIterator<Item = &'a AckedPacket>) {
        for p in packets {
            self.window.push_back(*p);
            let mut i = self.window.len() - 1;
            while i > 0 && self.window[i].receive_time < self.window[i - 1].receive_time {
                self.window.swap(i, i - 1);
                i -= 1;
            }
            let newest = self
                .window
                .back()
                .map_or(p.receive_time, |b| b.receive_time);
            if newest - p.receive_time > MAX_REORDERING_TIME {
                self.window.clear();
                self.latest_discarded_send = None;
            }
        }
        while self.first_packet_outside_window() {
            if let Some(f) = self.window.pop_front() {
                self.latest_discarded_send = Some(
                    self.latest_discarded_send
                        .map_or(f.send_time, |t| t.max(f.send_time)),
                );
            }
        }
    }

    /// The two largest gaps between consecutive receive times (`bitrate()`).
    fn largest_receive_gaps(&self) -> (TimeDelta, TimeDelta) {
        let mut largest = TimeDelta::ZERO;
        let mut second = TimeDelta::ZERO;
        for (a, b) in self.window.iter().zip(self.window.iter().skip(1)) {
            let gap = b.receive_time - a.receive_time;
            if gap > largest {
                second = largest;
                largest = gap;
            } else if gap > second {
                second = gap;
            }
        }
        (largest, second)
    }

    /// `bitrate()`: min(send rate, receive rate) over the window, `None` with fewer than
    /// `required_packets` packets.
    pub fn bitrate(&self) -> Option<Bitrate> {
        if self.window.is_empty() || self.window.len() < self.cfg.required_packets {
            return None;
        }
        let (largest, second) = self.largest_receive_gaps();
        let mut first_recv: Option<(Timestamp, DataSize)> = None;
        let mut last_recv = Timestamp::ZERO;
        let mut recv_size = DataSize::ZERO;
        let mut send_size = DataSize::ZERO;
        let mut first_send: Option<Timestamp> = None;
        let mut last_send: Option<(Timestamp, DataSize)> = None;
        let mut sent_in_window = 0usize;
        for p in &self.window {
            if first_recv.map_or(true, |(t, _)| p.receive_time < t) {
                first_recv = Some((p.receive_time, p.size));
            }
            last_recv = last_recv.max(p.receive_time);
            recv_size += p.size;
            // Sent before a packet already discarded: reordered, left out of the send
            // rate.
            if self.latest_discarded_send.is_some_and(|d| p.send_time < d) {
                continue;
            }
            if last_send.map_or(true, |(t, _)| p.send_time > t) {
                last_send = Some((p.send_time, p.size));
            }
            first_send = Some(first_send.map_or(p.send_time, |t| t.min(p.send_time)));
            send_size += p.size;
            sent_in_window += 1;
        }
        let (first_recv_time, first_recv_size) = first_recv?;
        // Packets of size S every T: N packets span (N - 1) T, so one packet's bytes
        // leave the sum: the first received one's (a bottleneck's spacing depends on
        // the later packet) and the last sent one's (a pacer's spacing depends on the
        // earlier packet).
        let recv_size = recv_size.saturating_sub(first_recv_size);
        // The largest gap is replaced by the second largest: a delay spike followed by
        // a burst does not lower the estimate.
        let recv_duration = ((last_recv - first_recv_time) - largest + second).max(MIN_DURATION);
        let recv_rate = recv_size / recv_duration;
        let (Some(first_send), Some((last_send_time, last_send_size))) = (first_send, last_send)
        else {
            return Some(recv_rate);
        };
        if sent_in_window < self.cfg.required_packets {
            return Some(recv_rate);
        }
        let send_size = send_size.saturating_sub(last_send_size);
        let send_duration = (last_send_time - first_send).max(MIN_DURATION);
        Some((send_size / send_duration).min(recv_rate))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pkt(send_ms: u64, recv_ms: u64, bytes: u64) -> AckedPacket {
        AckedPacket {
            send_time: Timestamp::from_millis(send_ms),
            receive_time: Timestamp::from_millis(recv_ms),
            size: DataSize::bytes(bytes),
        }
    }

    fn est() -> RobustThroughputEstimator {
        RobustThroughputEstimator::new(RobustThroughputConfig::default())
    }

    fn kbps(r: Option<Bitrate>) -> f64 {
        r.map_or(f64::NAN, |b| b.as_kbps())
    }

    #[test]
    fn no_estimate_before_required_packets() {
        let mut e = est();
        let p: Vec<_> = (0..9).map(|i| pkt(i * 10, 50 + i * 10, 1000)).collect();
        e.on_packets(&p);
        assert_eq!(e.bitrate(), None, "9 < required_packets 10");
        e.on_packets(&[pkt(90, 140, 1000)]);
        // 10 packets of 1000 B every 10 ms: (10 - 1) x 8000 bit / 90 ms = 800 kbit/s.
        assert!(
            (kbps(e.bitrate()) - 800.0).abs() < 1e-9,
            "{}",
            kbps(e.bitrate())
        );
    }

    #[test]
    fn rate_is_min_of_send_and_receive_rate() {
        // Sent every 10 ms (800 kbit/s), received every 20 ms (400 kbit/s): the
        // bottleneck's rate.
        let mut e = est();
        let p: Vec<_> = (0..20).map(|i| pkt(i * 10, 100 + i * 20, 1000)).collect();
        e.on_packets(&p);
        assert!((kbps(e.bitrate()) - 400.0).abs() < 1e-9);
        // Sent every 20 ms, received in bursts every 10 ms: the send rate bounds it.
        let mut e = est();
        let p: Vec<_> = (0..20).map(|i| pkt(i * 20, 500 + i * 10, 1000)).collect();
        e.on_packets(&p);
        assert!((kbps(e.bitrate()) - 400.0).abs() < 1e-9);
    }

    #[test]
    fn largest_receive_gap_is_replaced_by_the_second_largest() {
        // 20 packets every 10 ms, but one 200 ms pause (a delay spike) before the 11th;
        // send times evenly spaced over 190 ms.
        let mut e = est();
        let p: Vec<_> = (0..20)
            .map(|i| {
                let recv = 100 + i * 10 + if i >= 10 { 190 } else { 0 };
                pkt(i * 10, recv, 1000)
            })
            .collect();
        e.on_packets(&p);
        // Receive span 380 ms - 200 + 10 = 190 ms: 19 x 8000 bit / 190 ms = 800 kbit/s,
        // not 19 x 8000 / 380 = 400.
        assert!(
            (kbps(e.bitrate()) - 800.0).abs() < 1e-9,
            "{}",
            kbps(e.bitrate())
        );
    }

    #[test]
    fn first_received_and_last_sent_packet_sizes_leave_the_sums() {
        // Sizes 2000 then 1000 x 11: receive sum without the first (2000) = 11 000 B
        // over 110 ms = 800 kbit/s; send sum without the last (1000) = 12 000 B over
        // 110 ms = 872.7 kbit/s; min = 800.
        let mut e = est();
        let mut p = vec![pkt(0, 50, 2000)];
        p.extend((1..12).map(|i| pkt(i * 10, 50 + i * 10, 1000)));
        e.on_packets(&p);
        assert!(
            (kbps(e.bitrate()) - 800.0).abs() < 1e-9,
            "{}",
            kbps(e.bitrate())
        );
    }

    #[test]
    fn window_keeps_twenty_packets_or_one_second() {
        // Every 10 ms for 3 s: the window keeps the packets of the last 1 s (span just
        // over 1 s is cut), 101 packets.
        let mut e = est();
        let p: Vec<_> = (0..300).map(|i| pkt(i * 10, 40 + i * 10, 1000)).collect();
        e.on_packets(&p);
        assert_eq!(e.len(), 101, "span 1000 ms: 101 packets");
        // Every 100 ms for 5 s: 20 packets are kept, spanning 1.9 s.
        let mut e = est();
        let p: Vec<_> = (0..50).map(|i| pkt(i * 100, 40 + i * 100, 1000)).collect();
        e.on_packets(&p);
        assert_eq!(e.len(), 20);
        // Every 300 ms: never more than 5 s (17 packets span 4.8 s).
        let mut e = est();
        let p: Vec<_> = (0..40).map(|i| pkt(i * 300, 40 + i * 300, 1000)).collect();
        e.on_packets(&p);
        assert_eq!(e.len(), 17, "max_window_duration 5 s");
        // 600 packets in 0.6 s: at most 500.
        let mut e = est();
        let p: Vec<_> = (0..600).map(|i| pkt(i, 40 + i, 100)).collect();
        e.on_packets(&p);
        assert_eq!(e.len(), 500, "max_window_packets");
    }

    #[test]
    fn reordered_packets_are_sorted_and_older_sends_leave_the_send_rate() {
        let mut e = est();
        // Two packets in swapped receive order end up sorted.
        e.on_packets(&[pkt(0, 60, 1000), pkt(10, 50, 1000)]);
        assert_eq!(
            e.window.iter().map(|p| p.receive_time).collect::<Vec<_>>(),
            vec![Timestamp::from_millis(50), Timestamp::from_millis(60)]
        );
        // A packet received more than 1 s before the newest clears the window.
        let mut e = est();
        e.on_packets(&[pkt(0, 2000, 1000), pkt(10, 900, 1000)]);
        assert_eq!(e.len(), 0);
        // A packet sent before one already discarded counts for the receive rate only.
        let mut e = est();
        let mut p: Vec<_> = (0..150).map(|i| pkt(i * 10, 40 + i * 10, 1000)).collect();
        e.on_packets(&p);
        let before = e.bitrate();
        p.clear();
        p.push(pkt(100, 1540, 1000)); // sent at 100 ms, long after discarded packets
        e.on_packets(&p);
        let d = e.latest_discarded_send.map(|t| t.as_micros());
        assert!(d.is_some_and(|d| d > 100_000));
        // Still ~800 kbit/s: the stale send time does not stretch the send span.
        assert!((kbps(e.bitrate()) - kbps(before)).abs() < 20.0);
    }

    #[test]
    fn receive_rate_alone_when_too_few_send_times_remain() {
        let cfg = RobustThroughputConfig {
            required_packets: 3,
            ..Default::default()
        };
        let mut e = RobustThroughputEstimator::new(cfg);
        // Every send time is older than a packet already discarded (all reordered).
        e.latest_discarded_send = Some(Timestamp::from_millis(1000));
        e.on_packets(&[pkt(0, 50, 1000), pkt(10, 60, 1000), pkt(20, 70, 1000)]);
        // Receive rate only: 2 x 8000 bit / 20 ms = 800 kbit/s.
        assert!((kbps(e.bitrate()) - 800.0).abs() < 1e-9);
    }
}
