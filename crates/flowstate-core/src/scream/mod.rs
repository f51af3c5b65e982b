//! SCReAM, Self-Clocked Rate Adaptation for Multimedia (RFC 8298, **SCReAM v1**),
//! sans-I/O. The rfc8298bis draft (SCReAM v2) replaces the delay-based window with a
//! reference window driven mainly by L4S / ECN and a different media rate rule; see
//! docs/ALGORITHMS.md for where v2 differs. This is v1.
//!
//! One file per component:
//! [`config`] (every constant), [`queue_delay`] (qdelay, qdelay_fraction_avg,
//! qdelay_trend, section 4.1.2.2), [`network`] (the self-clocked window, section
//! 4.1.2), [`rtp_queue`] and [`rate_control`] (media rate control, section 4.1.3).
//!
//! [`Scream`] is the sender: encoded frames enter the RTP queue
//! ([`Scream::enqueue_frame`]), packets leave when the window and the pacer allow
//! ([`Scream::poll_send`]), per-packet feedback (RFC 8888: sequence number, arrival
//! time, ECN; [`Scream::on_feedback`]) acks them, detects losses (section 4.1.2.4)
//! and drives both controls. The encoder reads [`Scream::target_bitrate`].
//!
//! Coupling: SCReAM's output is a target bitrate, so it couples as a rate flow
//! ([`Scream::set_target_bitrate`]); its window stays its own.

pub mod config;
pub mod network;
mod options;
pub mod queue_delay;
pub mod rate_control;
pub mod rtp_queue;

#[cfg(test)]
mod closed_loop;
#[cfg(test)]
mod proptests;

pub use config::ScreamConfig;
pub use network::{FeedbackSummary, NetworkControl};
pub use rate_control::{MediaRateControl, RateAction, RateInputs};
pub use rtp_queue::RtpQueue;

use crate::rate_window::RateWindow;
use crate::units::{Bitrate, DataSize, TimeDelta, Timestamp};
use std::collections::VecDeque;

/// A packet the sender put on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SentPacket {
    /// Sequence number, unwrapped.
    pub seq: u64,
    pub size: DataSize,
}

/// One packet's entry in a feedback report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PacketAck {
    pub seq: u64,
    /// Arrival time at the receiver (receiver clock).
    pub arrival: Timestamp,
    /// ECN-CE.
    pub ce: bool,
}

#[derive(Debug, Clone, Copy)]
struct TxPacket {
    seq: u64,
    size: DataSize,
    sent: Timestamp,
    acked: bool,
}

/// The SCReAM sender for one media stream.
#[derive(Debug, Clone)]
pub struct Scream {
    cfg: ScreamConfig,
    net: NetworkControl,
    rate: MediaRateControl,
    queue: RtpQueue,
    tx: VecDeque<TxPacket>,
    next_seq: u64,
    next_send: Timestamp,
    rate_transmit: RateWindow,
    rate_ack: RateWindow,
    rate_media: RateWindow,
    lost_packets: u64,
    discarded_packets: u64,
    /// The highest acknowledged sequence number.
    highest_acked: Option<u64>,
    /// (time, rate_media in bit/s) every RATE_ADJUST_INTERVAL, for rate_media_median.
    media_samples: VecDeque<(Timestamp, f64)>,
}

impl Scream {
    /// Check the configuration first with [`ScreamConfig::validate`]; the sender itself
    /// only clamps.
    pub fn new(cfg: ScreamConfig) -> Self {
        Scream {
            net: NetworkControl::new(cfg.clone()),
            rate: MediaRateControl::new(cfg.clone()),
            queue: RtpQueue::new(),
            tx: VecDeque::new(),
            next_seq: 0,
            next_send: Timestamp::ZERO,
            rate_transmit: RateWindow::new(cfg.rate_window, cfg.rate_adjust_interval),
            rate_ack: RateWindow::new(cfg.rate_window, cfg.rate_adjust_interval),
            rate_media: RateWindow::new(cfg.rate_window, cfg.rate_adjust_interval),
            lost_packets: 0,
            discarded_packets: 0,
            highest_acked: None,
            media_samples: VecDeque::new(),
            cfg,
        }
    }

    pub fn config(&self) -> &ScreamConfig {
        &self.cfg
    }

    /// The encoder's target bitrate.
    pub fn target_bitrate(&self) -> Bitrate {
        self.rate.target()
    }

    /// Coupling: set the target bitrate (clipped into [min, max]).
    pub fn set_target_bitrate(&mut self, rate: Bitrate) {
        self.rate.set_target(rate);
    }

    pub fn cwnd(&self) -> DataSize {
        self.net.cwnd()
    }
    /// The smoothed RTT (section 4.1.2.2), once feedback arrived.
    pub fn srtt(&self) -> Option<TimeDelta> {
        self.net.srtt()
    }
    pub fn bytes_in_flight(&self) -> DataSize {
        self.net.bytes_in_flight()
    }
    pub fn queuing_delay(&self) -> TimeDelta {
        self.net.queue_delay().qdelay()
    }
    pub fn qdelay_trend(&self) -> f64 {
        self.net.queue_delay().trend()
    }
    pub fn in_fast_increase(&self) -> bool {
        self.net.in_fast_increase()
    }
    pub fn rtp_queue(&self) -> &RtpQueue {
        &self.queue
    }
    /// ECN-CE events the window answered with BETA_ECN so far (section 4.1.2.1,
    /// at most once per RTT).
    pub fn ecn_events(&self) -> u64 {
        self.net.ecn_events()
    }
    /// Packets detected lost so far.
    pub fn lost_packets(&self) -> u64 {
        self.lost_packets
    }
    /// Packets dropped by RTP queue discards so far.
    pub fn discarded_packets(&self) -> u64 {
        self.discarded_packets
    }

    fn inputs(&mut self, now: Timestamp, fb: FeedbackSummary) -> RateInputs {
        let media = self.rate_media.rate(now);
        // rate_media sampled every RATE_ADJUST_INTERVAL for the median.
        if let Some(m) = media {
            let due = self.media_samples.back().map_or(true, |(t, _)| {
                now.saturating_since(*t) >= self.cfg.rate_adjust_interval
            });
            if due {
                self.media_samples.push_back((now, m.as_bps()));
                while self.media_samples.front().is_some_and(|(t, _)| {
                    now.saturating_since(*t) > self.cfg.rate_media_median_window
                }) {
                    self.media_samples.pop_front();
                }
            }
        }
        let median = if self.media_samples.is_empty() {
            None
        } else {
            let mut v: Vec<f64> = self.media_samples.iter().map(|s| s.1).collect();
            v.sort_by(f64::total_cmp);
            Some(Bitrate::bps(v[v.len() / 2]))
        };
        RateInputs {
            in_fast_increase: self.net.in_fast_increase(),
            qdelay_trend: self.net.queue_delay().trend(),
            qdelay_trend_mem: self.net.queue_delay().trend_mem(),
            loss: fb.loss,
            ce: fb.ce,
            rate_transmit: self.rate_transmit.rate(now).unwrap_or(Bitrate::ZERO),
            rate_ack: self.rate_ack.rate(now).unwrap_or(Bitrate::ZERO),
            rate_media: media,
            rate_media_median: median,
            rtp_queue_size: self.queue.bytes(),
            rtp_queue_delay: self.queue.delay(now),
        }
    }

    fn rate_update(&mut self, now: Timestamp, fb: FeedbackSummary) {
        if !self.rate.due(now, fb.loss || fb.ce) {
            return;
        }
        let inputs = self.inputs(now, fb);
        if self.rate.update(now, &inputs) == RateAction::DiscardRtpQueue {
            self.discarded_packets += self.queue.clear() as u64;
        }
    }

    /// An encoded frame (its RTP packets' sizes) enters the RTP queue. The media rate
    /// control runs first, so rtp_queue_size is what the previous frames left behind
    /// (right after a push it would always hold a whole frame, ~33 ms of media at 30
    /// frames/s, above RTP_QDELAY_TH; the reference code subtracts the last frame for
    /// the same reason).
    pub fn enqueue_frame(&mut self, now: Timestamp, packets: &[DataSize]) {
        self.rate_update(now, FeedbackSummary::default());
        self.queue.push_frame(now, packets);
        for &p in packets {
            self.rate_media.add(now, p);
        }
    }

    /// When the next packet may be sent (`None` with an empty RTP queue or a full
    /// window: then the next feedback opens it).
    pub fn poll_timeout(&self) -> Option<Timestamp> {
        let head = self.queue.front()?;
        self.net.can_send(head.size).then_some(self.next_send)
    }

    /// The next packet to put on the wire at `now`, if the window and the pacer allow.
    pub fn poll_send(&mut self, now: Timestamp) -> Option<SentPacket> {
        if now < self.next_send {
            return None;
        }
        let size = self.queue.front()?.size;
        if !self.net.can_send(size) {
            return None;
        }
        self.queue.pop();
        let seq = self.next_seq;
        self.next_seq += 1;
        self.tx.push_back(TxPacket {
            seq,
            size,
            sent: now,
            acked: false,
        });
        self.net.on_sent(now, size);
        self.rate_transmit.add(now, size);
        self.next_send =
            self.next_send.max(now - TimeDelta::millis(1)) + self.net.pacing_interval(size);
        Some(SentPacket { seq, size })
    }

    /// A feedback report with the packets it acknowledges (any order; unknown and
    /// already-acked sequence numbers are ignored).
    ///
    /// Section 4.1.2.2: bytes_in_flight counts the packets above the highest
    /// acknowledged sequence number; bytes_newly_acked is the size of the packets the
    /// highest acknowledged sequence number moved past, lost ones included. Section
    /// 4.1.2.4: a packet not acked while one sent `reorder_time` later is acked is lost
    /// (a loss event, at most one window reduction per s_rtt).
    pub fn on_feedback(&mut self, now: Timestamp, acks: &[PacketAck]) {
        let mut fb = FeedbackSummary::default();
        let mut newest_sent: Option<Timestamp> = None;
        let front = self.tx.front().map_or(0, |p| p.seq);
        let old_highest = self.highest_acked;
        for a in acks {
            let Some(idx) = a
                .seq
                .checked_sub(front)
                .and_then(|i| usize::try_from(i).ok())
            else {
                continue;
            };
            let Some(p) = self.tx.get_mut(idx) else {
                continue;
            };
            if p.acked || p.seq != a.seq {
                continue;
            }
            p.acked = true;
            let (size, sent) = (p.size, p.sent);
            fb.ce |= a.ce;
            self.rate_ack.add(now, size);
            let owd = one_way_delay(sent, a.arrival, self.cfg.owd_clock_resolution);
            self.net.queue_delay_mut().on_owd(now, owd);
            newest_sent = Some(newest_sent.map_or(sent, |t: Timestamp| t.max(sent)));
            self.highest_acked = Some(self.highest_acked.map_or(a.seq, |h| h.max(a.seq)));
        }
        if let Some(h) = self.highest_acked {
            for p in self.tx.iter() {
                let above_old = old_highest.map_or(true, |o| p.seq > o);
                if above_old && p.seq <= h {
                    fb.newly_acked += p.size;
                }
            }
            self.net.remove_from_flight(fb.newly_acked);
        }
        if let Some(sent) = newest_sent {
            self.net.on_rtt(now.saturating_since(sent));
            for p in self.tx.iter_mut() {
                if !p.acked && p.sent + self.cfg.reorder_time < sent {
                    // Declared lost: it left the flight when the highest ack passed it.
                    p.acked = true;
                    fb.loss = true;
                    self.lost_packets += 1;
                }
            }
        }
        while self.tx.front().is_some_and(|p| p.acked) {
            self.tx.pop_front();
        }
        self.net.on_feedback(now, fb);
        // Loss and ECN reactions are immediate; the periodic update runs here too unless
        // `rate_update_on_feedback` is off (then only before a frame, as the reference
        // code does).
        let periodic = self.cfg.rate_update_on_feedback && fb.newly_acked > DataSize::ZERO;
        if fb.loss || fb.ce || periodic {
            self.rate_update(now, fb);
        }
    }

    /// Bytes above the highest acknowledged sequence number (for tests).
    #[cfg(test)]
    fn flight_model(&self) -> DataSize {
        self.tx
            .iter()
            .filter(|p| self.highest_acked.map_or(true, |h| p.seq > h))
            .fold(DataSize::ZERO, |a, p| a + p.size)
    }
}

/// The one-way delay of a packet sent at `sent` and received at `arrival`: exact, or
/// (`owd_clock_resolution`) the difference of the two clocks each truncated to the
/// resolution, as the reference code's millisecond timestamps give it.
fn one_way_delay(sent: Timestamp, arrival: Timestamp, resolution: Option<TimeDelta>) -> TimeDelta {
    match resolution.map(|r| r.as_micros()) {
        Some(r) if r > 0 => {
            let r = r as u64;
            let tick = |t: Timestamp| Timestamp::from_micros(t.as_micros() / r * r);
            tick(arrival) - tick(sent)
        }
        _ => arrival - sent,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_way_delay_from_truncated_clocks() {
        let (sent, arrival) = (
            Timestamp::from_micros(10_900),
            Timestamp::from_micros(61_100),
        );
        assert_eq!(
            one_way_delay(sent, arrival, None),
            TimeDelta::from_micros(50_200)
        );
        // Millisecond clocks: 61 - 10 = 51 ms.
        let ms = Some(TimeDelta::millis(1));
        assert_eq!(one_way_delay(sent, arrival, ms), TimeDelta::millis(51));
    }

    #[test]
    fn send_ack_and_detect_loss() {
        let mut s = Scream::new(ScreamConfig::default());
        let t0 = Timestamp::from_millis(0);
        s.enqueue_frame(t0, &[DataSize::bytes(1000); 4]);
        let mut sent = vec![];
        let mut now = t0;
        while sent.len() < 4 {
            if let Some(p) = s.poll_send(now) {
                sent.push((p, now));
            }
            now += TimeDelta::millis(20);
        }
        assert_eq!(s.bytes_in_flight(), DataSize::bytes(4000));
        // Packets 0, 2, 3 acked; 1 was sent 20 ms before 2 (less than 30 ms): not yet
        // lost; 3 was sent 40 ms after it: lost.
        let ack = |i: usize| PacketAck {
            seq: sent[i].0.seq,
            arrival: sent[i].1 + TimeDelta::millis(40),
            ce: false,
        };
        s.on_feedback(Timestamp::from_millis(100), &[ack(0), ack(2)]);
        assert_eq!(s.lost_packets(), 0);
        // Highest acked is 2: only packet 3 is in flight (packet 1 counts as passed).
        assert_eq!(s.bytes_in_flight(), DataSize::bytes(1000));
        s.on_feedback(Timestamp::from_millis(120), &[ack(3), ack(3)]);
        assert_eq!(s.lost_packets(), 1);
        assert_eq!(s.bytes_in_flight(), DataSize::ZERO);
        // A late or duplicate ack changes nothing.
        s.on_feedback(Timestamp::from_millis(130), &[ack(1), ack(0)]);
        assert_eq!(s.bytes_in_flight(), DataSize::ZERO);
    }

    #[test]
    fn periodic_rate_update_on_feedback_is_an_option() {
        // A frame at 0 ms starts the rate-adjust clock; feedback 300 ms later runs the
        // periodic update (here the cap near the measured media rate moves the target)
        // unless `rate_update_on_feedback` is off, as in the reference code, which
        // updates the target only when a frame arrives.
        let target_after_feedback = |on_feedback: bool| {
            let mut s = Scream::new(ScreamConfig {
                rate_update_on_feedback: on_feedback,
                min_rate: Bitrate::kbps(10.0),
                ..ScreamConfig::default()
            });
            let t0 = Timestamp::from_millis(0);
            s.enqueue_frame(t0, &[DataSize::bytes(1000)]);
            let p = s.poll_send(t0).expect("the window admits the first packet");
            let ack = PacketAck {
                seq: p.seq,
                arrival: t0 + TimeDelta::millis(40),
                ce: false,
            };
            s.on_feedback(Timestamp::from_millis(300), &[ack]);
            s.target_bitrate().as_kbps()
        };
        let on = target_after_feedback(true);
        assert!((on - 150.0).abs() > 1.0, "{on}");
        assert!((target_after_feedback(false) - 150.0).abs() < 1e-9);
    }

    #[test]
    fn coupling_sets_the_target() {
        let mut s = Scream::new(ScreamConfig::default());
        s.set_target_bitrate(Bitrate::kbps(700.0));
        assert_eq!(s.target_bitrate(), Bitrate::kbps(700.0));
        s.set_target_bitrate(Bitrate::mbps(100.0));
        assert_eq!(s.target_bitrate(), Bitrate::kbps(1500.0));
        s.set_target_bitrate(Bitrate::INFINITY);
        assert_eq!(s.target_bitrate(), Bitrate::kbps(1500.0));
    }
}
