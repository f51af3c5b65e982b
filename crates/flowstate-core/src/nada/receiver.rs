//! The NADA receiver (RFC 8698 section 4.2 and section 5.1): per-packet observation of
//! one-way delay, loss and ECN marking, aggregated every DELTA into the feedback the
//! sender needs: x_curr, the ramp-up mode rmode and the receiving rate r_recv.
//!
//! The same aggregator runs at the sender when the receiver only reports per-packet
//! arrival times and ECN marks (RFC 8888 feedback, RFC 8698 section 5.3): feed it the
//! reported packets instead.

use super::config::NadaConfig;
use super::congestion_signal::{aggregate, d_tilde, warp_mode, WarpMode};
use super::loss_ratio::{IntervalAverage, LossRatio};
use super::queuing_delay::QueuingDelay;
use crate::rate_window::RateWindow;
use crate::units::{Bitrate, DataSize, TimeDelta, Timestamp};

/// rmode of RFC 8698 section 4.2.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RampUpMode {
    /// rmode = 0: no loss and every queuing-delay sample of the last LOGWIN below QEPS.
    Accelerated,
    /// rmode = 1.
    Gradual,
}

/// The receiver's report to the sender (RFC 8698 section 5.3).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NadaFeedback {
    /// When the report was made (receiver clock).
    pub time: Timestamp,
    /// The aggregated congestion signal x_curr.
    pub x_curr: TimeDelta,
    /// The ramp-up mode.
    pub rmode: RampUpMode,
    /// The receiving rate over LOGWIN (section 5.1.3).
    pub r_recv: Bitrate,
    /// Diagnostics: the filtered queuing delay and how it entered x_curr.
    pub d_queue: TimeDelta,
    pub warp: WarpMode,
}

/// One received media packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReceivedPacket {
    /// Sequence number, unwrapped (monotonic across the stream).
    pub seq: u64,
    /// Send time (sender clock: RTP header extension or RFC 8888 report).
    pub sent: Timestamp,
    /// Arrival time (receiver clock).
    pub arrival: Timestamp,
    pub size: DataSize,
    /// ECN Congestion Experienced.
    pub ce_marked: bool,
}

/// Receiver-side NADA.
#[derive(Debug, Clone)]
pub struct NadaReceiver {
    cfg: NadaConfig,
    delay: QueuingDelay,
    loss: LossRatio,
    rate: RateWindow,
    highest_seq: Option<u64>,
    /// Last time a raw queuing-delay sample exceeded QEPS, or a loss was seen.
    last_congestion: Option<Timestamp>,
    next_feedback: Option<Timestamp>,
    last_arrival: Timestamp,
}

impl NadaReceiver {
    pub fn new(cfg: NadaConfig) -> Self {
        NadaReceiver {
            delay: QueuingDelay::new(cfg.min_filter_taps),
            loss: LossRatio::with_interval_average(
                cfg.alpha,
                cfg.logwin,
                if cfg.loss_interval_ewma {
                    IntervalAverage::Ewma
                } else {
                    IntervalAverage::Tfrc
                },
            ),
            rate: RateWindow::new(cfg.logwin, cfg.delta),
            highest_seq: None,
            last_congestion: None,
            next_feedback: None,
            last_arrival: Timestamp::ZERO,
            cfg,
        }
    }

    pub fn config(&self) -> &NadaConfig {
        &self.cfg
    }

    /// A media packet arrived. Gaps in the sequence count as losses (a reordered packet
    /// arriving after its gap was counted stays counted as lost).
    pub fn on_packet(&mut self, p: &ReceivedPacket) {
        let now = p.arrival.max(self.last_arrival);
        self.last_arrival = now;
        if let Some(h) = self.highest_seq {
            if p.seq > h.saturating_add(1) {
                self.loss.on_lost(now, p.seq - h - 1);
                self.last_congestion = Some(now);
            }
        }
        self.highest_seq = Some(self.highest_seq.map_or(p.seq, |h| h.max(p.seq)));
        self.loss.on_received(now, p.ce_marked);
        let raw = self.delay.on_packet(p.sent, p.arrival);
        if raw > self.cfg.qeps {
            self.last_congestion = Some(now);
        }
        self.rate.add(now, p.size);
        self.next_feedback.get_or_insert(now + self.cfg.delta);
    }

    /// Packets known lost without a later arrival (a sender-side aggregator fed by RFC
    /// 8888 reports marks unreported packets lost this way).
    pub fn on_lost(&mut self, now: Timestamp, n: u64) {
        if n > 0 {
            self.loss.on_lost(now.max(self.last_arrival), n);
            self.last_congestion = Some(now.max(self.last_arrival));
        }
    }

    /// When the next report is due (every DELTA once the first packet arrived).
    pub fn poll_timeout(&self) -> Option<Timestamp> {
        self.next_feedback
    }

    /// rmode: accelerated unless a loss or a raw queuing delay above QEPS was seen in
    /// the last LOGWIN (RFC 8698 section 4.2).
    pub fn rmode(&self, now: Timestamp) -> RampUpMode {
        match self.last_congestion {
            Some(t) if now.saturating_since(t) < self.cfg.logwin => RampUpMode::Gradual,
            _ => RampUpMode::Accelerated,
        }
    }

    /// The report due at `now`, if one is due: x_curr, rmode and r_recv.
    pub fn poll_feedback(&mut self, now: Timestamp) -> Option<NadaFeedback> {
        let due = self.next_feedback?;
        if now < due {
            return None;
        }
        self.next_feedback = Some(now + self.cfg.delta);
        Some(self.report(now))
    }

    /// Compute a report now (ignores the DELTA schedule).
    pub fn report(&mut self, now: Timestamp) -> NadaFeedback {
        self.loss.update(now);
        let d_queue = self.delay.queuing_delay();
        let warp = warp_mode(&self.loss, &self.cfg);
        let tilde = d_tilde(d_queue, warp, &self.cfg);
        let x_curr = aggregate(tilde, self.loss.p_mark(), self.loss.p_loss(), &self.cfg);
        NadaFeedback {
            time: now,
            x_curr,
            rmode: self.rmode(now),
            r_recv: self.rate.rate(now).unwrap_or(Bitrate::ZERO),
            d_queue,
            warp,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pkt(seq: u64, sent_ms: u64, owd_ms: u64) -> ReceivedPacket {
        ReceivedPacket {
            seq,
            sent: Timestamp::from_millis(sent_ms),
            arrival: Timestamp::from_millis(sent_ms + owd_ms),
            size: DataSize::bytes(1000),
            ce_marked: false,
        }
    }

    #[test]
    fn no_queue_no_loss_is_accelerated_with_zero_signal() {
        let mut r = NadaReceiver::new(NadaConfig::default());
        // 1000 B every 10 ms = 800 kbit/s, constant 40 ms one-way delay.
        for i in 0..100 {
            r.on_packet(&pkt(i, i * 10, 40));
        }
        let fb = r.report(Timestamp::from_millis(1030));
        assert_eq!(fb.x_curr, TimeDelta::ZERO);
        assert_eq!(fb.rmode, RampUpMode::Accelerated);
        assert!((fb.r_recv.as_kbps() - 800.0).abs() < 20.0, "{}", fb.r_recv);
    }

    #[test]
    fn queue_above_qeps_switches_to_gradual_and_shows_in_x_curr() {
        let mut r = NadaReceiver::new(NadaConfig::default());
        for i in 0..10 {
            r.on_packet(&pkt(i, i * 10, 40));
        }
        for i in 10..40 {
            r.on_packet(&pkt(i, i * 10, 65)); // 25 ms queue
        }
        let fb = r.report(Timestamp::from_millis(465));
        assert_eq!(fb.x_curr, TimeDelta::millis(25));
        assert_eq!(fb.rmode, RampUpMode::Gradual);
        // LOGWIN (500 ms) after the last queued sample, back to accelerated.
        assert_eq!(
            r.rmode(Timestamp::from_millis(455 + 500)),
            RampUpMode::Accelerated
        );
    }

    #[test]
    fn a_sequence_gap_is_loss_and_penalized() {
        let cfg = NadaConfig::default();
        let mut r = NadaReceiver::new(cfg.clone());
        for i in 0..9 {
            r.on_packet(&pkt(i, i * 10, 40));
        }
        r.on_packet(&pkt(10, 100, 40)); // seq 9 lost: 1 of 11 -> p_inst = 1/11
        let fb = r.report(Timestamp::from_millis(140));
        let p = 0.1 / 11.0;
        let expected = 0.010 * (p / 0.01) * (p / 0.01);
        assert!(
            (fb.x_curr.as_secs_f64() - expected).abs() < 2e-6,
            "{}",
            fb.x_curr
        );
        assert_eq!(fb.rmode, RampUpMode::Gradual);
        assert_eq!(fb.warp, WarpMode::Warped);
    }

    #[test]
    fn feedback_every_delta() {
        let mut r = NadaReceiver::new(NadaConfig::default());
        assert_eq!(r.poll_feedback(Timestamp::from_millis(1000)), None);
        r.on_packet(&pkt(0, 0, 40));
        assert_eq!(r.poll_timeout(), Some(Timestamp::from_millis(140)));
        assert!(r.poll_feedback(Timestamp::from_millis(139)).is_none());
        assert!(r.poll_feedback(Timestamp::from_millis(140)).is_some());
        assert_eq!(r.poll_timeout(), Some(Timestamp::from_millis(240)));
    }
}
