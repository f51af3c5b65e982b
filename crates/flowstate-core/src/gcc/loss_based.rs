//! The sender-side loss-based controller A_s (paper 002 eq. 5, paper 001 eq. 1; the
//! Chromium variant follows libwebrtc M100
//! `modules/congestion_controller/goog_cc/send_side_bandwidth_estimation.cc`).
//!
//! - [`LossVariant::Paper002`], paper 002 eq. 5: fl > 0.1: A_s *= 1 - 0.5 fl;
//!   fl < 0.02: A_s *= 1.05; otherwise hold.
//! - [`LossVariant::Paper001`], paper 001 eq. 1: fl > 0.1: max(X, A_s (1 - 0.5 fl)) with X
//!   the TFRC throughput equation (RFC 5348 section 3.1); fl < 0.02: 1.05 (A_s + 1 kbit/s).
//! - [`LossVariant::ChromiumClassic`] (`SendSideBandwidthEstimation`): fl < 0.02:
//!   1.08 * (min A_s over the last 1 s) + 1 kbit/s; fl > 0.1: A_s (1 - 0.5 fl) at most once
//!   per 300 ms + RTT.
//!
//! After every update A_s <- min(A_s, A_r) (paper 001 eq. 2; Chromium caps the loss-based
//! target at the delay-based limit).

use crate::units::{Bitrate, DataSize, TimeDelta, Timestamp};
use std::collections::VecDeque;

/// Which loss-based rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LossVariant {
    Paper002,
    Paper001,
    ChromiumClassic,
}

/// Constants.
#[derive(Debug, Clone, PartialEq)]
pub struct LossConfig {
    pub variant: LossVariant,
    /// Increase below this loss fraction (0.02).
    pub low_loss: f64,
    /// Decrease above this loss fraction (0.10).
    pub high_loss: f64,
    /// Multiplicative increase (paper: 1.05; Chromium: 1.08).
    pub increase_factor: f64,
    /// Additive term on increase (paper 001, Chromium: 1 kbit/s; paper 002: 0).
    pub increase_extra: Bitrate,
    /// Decrease factor applied to fl (0.5).
    pub decrease_loss_weight: f64,
    /// Chromium: the min-rate history window (1 s).
    pub min_history_window: TimeDelta,
    /// Chromium: decreases at most once per this + RTT (300 ms).
    pub decrease_interval: TimeDelta,
    /// Chromium: `UpdateEstimate` also runs on a timer (`OnProcessInterval`, 25 ms),
    /// re-applying the increase rule with the last loss fraction as long as that report
    /// is younger than `report_max_age` (1.2 x 5 s). `None`: updates on loss reports
    /// only (the papers' eq. 5 and eq. 1).
    pub process_interval: Option<TimeDelta>,
    /// Chromium: how long a loss report keeps driving the timer (1.2 x 5 s).
    pub report_max_age: TimeDelta,
    /// Packet size s of the TFRC equation (1200 B).
    pub tfrc_packet_size: DataSize,
    pub start_rate: Bitrate,
    pub min_rate: Bitrate,
    pub max_rate: Bitrate,
}

impl LossConfig {
    pub fn paper002() -> Self {
        Self {
            variant: LossVariant::Paper002,
            low_loss: 0.02,
            high_loss: 0.10,
            increase_factor: 1.05,
            increase_extra: Bitrate::ZERO,
            decrease_loss_weight: 0.5,
            min_history_window: TimeDelta::secs(1),
            decrease_interval: TimeDelta::millis(300),
            process_interval: None,
            report_max_age: TimeDelta::millis(6000),
            tfrc_packet_size: DataSize::bytes(1200),
            start_rate: Bitrate::kbps(300.0),
            min_rate: Bitrate::kbps(5.0),
            max_rate: Bitrate::mbps(10.0),
        }
    }
    pub fn paper001() -> Self {
        Self {
            variant: LossVariant::Paper001,
            increase_extra: Bitrate::kbps(1.0),
            ..Self::paper002()
        }
    }
    pub fn chromium() -> Self {
        Self {
            variant: LossVariant::ChromiumClassic,
            increase_factor: 1.08,
            increase_extra: Bitrate::kbps(1.0),
            process_interval: Some(TimeDelta::millis(25)),
            ..Self::paper002()
        }
    }
}

impl Default for LossConfig {
    fn default() -> Self {
        Self::chromium()
    }
}

/// TCP throughput equation X of TFRC (RFC 5348 section 3.1, b = 1, t_RTO = 4 R), bit/s.
/// Infinite for p = 0 (no constraint).
pub fn tfrc_rate(packet_size: DataSize, rtt: TimeDelta, p: f64) -> Bitrate {
    let r = rtt.as_secs_f64();
    if p.is_nan() || p <= 0.0 || r <= 0.0 {
        return Bitrate::INFINITY;
    }
    let p = p.min(1.0);
    let s = packet_size.as_bits_f64();
    let den = r * (2.0 * p / 3.0).sqrt()
        + 4.0 * r * (3.0 * (3.0 * p / 8.0).sqrt()) * p * (1.0 + 32.0 * p * p);
    if den > 0.0 {
        Bitrate::bps(s / den)
    } else {
        Bitrate::INFINITY
    }
}

/// The controller state.
#[derive(Debug, Clone)]
pub struct LossBasedControl {
    cfg: LossConfig,
    rate: Bitrate,
    delay_limit: Bitrate,
    min_history: VecDeque<(Timestamp, Bitrate)>,
    last_decrease: Option<Timestamp>,
    /// The newest loss report: (time, loss fraction).
    last_report: Option<(Timestamp, f64)>,
    next_process: Option<Timestamp>,
}

impl LossBasedControl {
    pub fn new(cfg: LossConfig) -> Self {
        let mut s = Self {
            rate: Bitrate::ZERO,
            delay_limit: Bitrate::INFINITY,
            min_history: VecDeque::new(),
            last_decrease: None,
            last_report: None,
            next_process: None,
            cfg,
        };
        s.rate = s.clamp(s.cfg.start_rate);
        s
    }

    fn clamp(&self, r: Bitrate) -> Bitrate {
        let lo = self.cfg.min_rate;
        r.max(lo).min(self.cfg.max_rate.max(lo))
    }

    /// A_s.
    pub fn estimate(&self) -> Bitrate {
        self.rate
    }

    /// Set A_s from outside and clear the min-rate history (FSEv2; Chromium
    /// `SetSendBitrate`).
    pub fn set_estimate(&mut self, rate: Bitrate) {
        self.rate = self.clamp(rate);
        self.min_history.clear();
    }

    /// A new A_r: A_s <- min(A_s, A_r) (paper 001 eq. 2).
    pub fn set_delay_based_limit(&mut self, now: Timestamp, limit: Bitrate) {
        self.delay_limit = limit;
        self.rate = self.clamp(self.rate.min(limit));
        self.update_min_history(now);
    }

    fn update_min_history(&mut self, now: Timestamp) {
        let w = self.cfg.min_history_window;
        while let Some(&(t, _)) = self.min_history.front() {
            if now.saturating_since(t) + TimeDelta::from_micros(1000) > w {
                self.min_history.pop_front();
            } else {
                break;
            }
        }
        while let Some(&(_, r)) = self.min_history.back() {
            if self.rate <= r {
                self.min_history.pop_back();
            } else {
                break;
            }
        }
        self.min_history.push_back((now, self.rate));
    }

    /// A receiver report with loss fraction `fl` in [0, 1] arrived (`rtt` for the TFRC
    /// floor and Chromium's decrease interval). Returns the new A_s.
    pub fn on_loss_report(&mut self, now: Timestamp, fl: f64, rtt: TimeDelta) -> Bitrate {
        let fl = if fl.is_finite() {
            fl.clamp(0.0, 1.0)
        } else {
            0.0
        };
        let c = self.cfg.clone();
        self.last_report = Some((now, fl));
        if let Some(interval) = c.process_interval {
            self.next_process = Some(now + interval);
        }
        let mut new = self.rate;
        match c.variant {
            LossVariant::Paper002 => {
                if fl > c.high_loss {
                    new = self.rate * (1.0 - c.decrease_loss_weight * fl);
                } else if fl < c.low_loss {
                    new = self.rate * c.increase_factor + c.increase_extra;
                }
            }
            LossVariant::Paper001 => {
                if fl > c.high_loss {
                    let x = tfrc_rate(c.tfrc_packet_size, rtt, fl);
                    let dec = self.rate * (1.0 - c.decrease_loss_weight * fl);
                    // max{X, A_s(1 - 0.5 fl)}; X never raises the rate above A_s here.
                    new = if x.is_finite() {
                        dec.max(x.min(self.rate))
                    } else {
                        dec
                    };
                } else if fl < c.low_loss {
                    new = (self.rate + c.increase_extra) * c.increase_factor;
                }
            }
            LossVariant::ChromiumClassic => {
                self.update_min_history(now);
                if fl < c.low_loss {
                    let base = self.min_history.front().map_or(self.rate, |&(_, r)| r);
                    new = base * c.increase_factor + c.increase_extra;
                } else if fl > c.high_loss {
                    let interval = c.decrease_interval + rtt.max(TimeDelta::ZERO);
                    let ok = self
                        .last_decrease
                        .map_or(true, |t| now.saturating_since(t) >= interval);
                    if ok {
                        self.last_decrease = Some(now);
                        new = self.rate * (1.0 - c.decrease_loss_weight * fl);
                    }
                }
            }
        }
        self.rate = self.clamp(new.min(self.delay_limit));
        if c.variant == LossVariant::ChromiumClassic {
            self.update_min_history(now);
        }
        self.rate
    }
}

impl LossBasedControl {
    /// When the process timer next fires (Chromium preset after the first loss report).
    pub fn next_process_time(&self) -> Option<Timestamp> {
        self.next_process
    }

    /// Chromium `SendSideBandwidthEstimation::UpdateEstimate` on the process timer: with
    /// a recent loss report below `low_loss`, A_s = 1.08 x (min A_s over the last 1 s) +
    /// 1 kbit/s, capped by the delay-based limit. Decreases stay tied to reports (Chromium
    /// decreases once per report). Returns whether A_s changed.
    pub fn on_process(&mut self, now: Timestamp) -> bool {
        let (Some(interval), Some(due)) = (self.cfg.process_interval, self.next_process) else {
            return false;
        };
        if now < due {
            return false;
        }
        self.next_process = Some(now + interval);
        let Some((at, fl)) = self.last_report else {
            return false;
        };
        if self.cfg.variant != LossVariant::ChromiumClassic
            || now.saturating_since(at) > self.cfg.report_max_age
            || fl >= self.cfg.low_loss
        {
            return false;
        }
        self.update_min_history(now);
        let base = self.min_history.front().map_or(self.rate, |&(_, r)| r);
        let new = self.clamp(
            (base * self.cfg.increase_factor + self.cfg.increase_extra).min(self.delay_limit),
        );
        let changed = new != self.rate;
        self.rate = new;
        self.update_min_history(now);
        changed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(ms: u64) -> Timestamp {
        Timestamp::from_millis(ms)
    }
    const RTT: TimeDelta = TimeDelta::millis(100);

    #[test]
    fn paper002_eq5() {
        let mut l = LossBasedControl::new(LossConfig {
            start_rate: Bitrate::kbps(1000.0),
            ..LossConfig::paper002()
        });
        assert!((l.on_loss_report(t(0), 0.0, RTT).as_kbps() - 1050.0).abs() < 1e-9);
        assert!((l.on_loss_report(t(1), 0.05, RTT).as_kbps() - 1050.0).abs() < 1e-9);
        // 1050 * (1 - 0.5*0.2) = 945
        assert!((l.on_loss_report(t(2), 0.2, RTT).as_kbps() - 945.0).abs() < 1e-9);
    }

    #[test]
    fn paper001_eq1_with_tfrc_floor() {
        let mut l = LossBasedControl::new(LossConfig {
            start_rate: Bitrate::kbps(1000.0),
            ..LossConfig::paper001()
        });
        // 1.05 * (1000 + 1) = 1051.05
        assert!((l.on_loss_report(t(0), 0.0, RTT).as_kbps() - 1051.05).abs() < 1e-9);
        // Heavy loss: 1051.05 * 0.5 = 525.5; X(p=1, 100 ms) is tiny -> 525.5.
        assert!((l.on_loss_report(t(1), 1.0, RTT).as_kbps() - 525.525).abs() < 1e-9);
        // Moderate loss 0.11 on a long-RTT-free path: X(p=0.11, 1 ms) is large, so the
        // floor keeps A_s unchanged.
        let before = l.estimate();
        let after = l.on_loss_report(t(2), 0.11, TimeDelta::millis(1));
        assert!((after.as_bps() - before.as_bps()).abs() < 1e-6);
    }

    #[test]
    fn tfrc_equation_hand_value() {
        // s = 1200 B, R = 0.1 s, p = 0.01:
        // den = 0.1*sqrt(0.02/3) + 0.4*3*sqrt(0.00375)*0.01*(1.0032)
        let den = 0.1 * (0.02f64 / 3.0).sqrt() + 0.4 * 3.0 * 0.00375f64.sqrt() * 0.01 * 1.0032;
        let x = tfrc_rate(DataSize::bytes(1200), TimeDelta::millis(100), 0.01);
        assert!((x.as_bps() - 9600.0 / den).abs() < 1e-6);
        assert_eq!(
            tfrc_rate(DataSize::bytes(1200), RTT, 0.0),
            Bitrate::INFINITY
        );
    }

    #[test]
    fn chromium_increase_from_min_history_and_decrease_interval() {
        let mut l = LossBasedControl::new(LossConfig {
            start_rate: Bitrate::kbps(1000.0),
            ..LossConfig::chromium()
        });
        // 1.08 * 1000 + 1 = 1081
        assert!((l.on_loss_report(t(0), 0.0, RTT).as_kbps() - 1081.0).abs() < 1e-9);
        // Min over the last second is still 1000 (at t=0): 1081 again.
        assert!((l.on_loss_report(t(500), 0.0, RTT).as_kbps() - 1081.0).abs() < 1e-9);
        // Decrease: 1081 * 0.9 = 972.9; a second within 400 ms is ignored.
        assert!((l.on_loss_report(t(600), 0.2, RTT).as_kbps() - 972.9).abs() < 1e-9);
        assert!((l.on_loss_report(t(800), 0.2, RTT).as_kbps() - 972.9).abs() < 1e-9);
        assert!((l.on_loss_report(t(1000), 0.2, RTT).as_kbps() - 875.61).abs() < 1e-9);
    }

    #[test]
    fn capped_by_delay_based_and_set_estimate_clears_history() {
        let mut l = LossBasedControl::new(LossConfig {
            start_rate: Bitrate::kbps(1000.0),
            ..LossConfig::chromium()
        });
        l.on_loss_report(t(0), 0.0, RTT);
        l.set_delay_based_limit(t(10), Bitrate::kbps(500.0));
        assert!((l.estimate().as_kbps() - 500.0).abs() < 1e-9);
        l.set_delay_based_limit(t(20), Bitrate::INFINITY);
        l.set_estimate(Bitrate::kbps(2000.0));
        // History cleared: increase from 2000, not from the old minimum.
        assert!((l.on_loss_report(t(30), 0.0, RTT).as_kbps() - 2161.0).abs() < 1e-9);
    }
}
