//! SCReAM media rate control (RFC 8298 section 4.1.3): the encoder's target bitrate,
//! adjusted every RATE_ADJUST_INTERVAL from the transmitted / acked rates, the RTP
//! queue and the network control's qdelay_trend; cut immediately by BETA_R on loss and
//! ECN-CE; ramped at RAMP_UP_SPEED in fast increase, slowed near the last known
//! congested rate (target_bitrate_last_max).

use super::config::ScreamConfig;
use crate::units::{Bitrate, DataSize, TimeDelta, Timestamp};

/// Inputs of one rate update.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RateInputs {
    /// Network control in fast increase.
    pub in_fast_increase: bool,
    pub qdelay_trend: f64,
    pub loss: bool,
    pub ce: bool,
    /// max(rate_transmit, rate_ack).
    pub rate_max: Bitrate,
    /// The encoder's output rate (into the RTP queue).
    pub rate_media: Bitrate,
    pub rtp_queue_delay: TimeDelta,
    pub rtp_queue_bytes: DataSize,
    pub last_frame: DataSize,
}

/// What the update asks of the caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RateAction {
    None,
    /// The RTP queue is too old: discard it (and request a refresh from the encoder).
    DiscardRtpQueue,
}

/// The media rate controller.
#[derive(Debug, Clone)]
pub struct MediaRateControl {
    cfg: ScreamConfig,
    target: f64,
    /// target_bitrate_last_max: the target at the last congestion event.
    target_last_max: Option<f64>,
    last_adjust: Option<Timestamp>,
    last_last_max_update: Option<Timestamp>,
    last_discard: Option<Timestamp>,
    tx_bits_avg: f64,
    was_fast_increase: bool,
}

impl MediaRateControl {
    pub fn new(cfg: ScreamConfig) -> Self {
        MediaRateControl {
            target: cfg.clip(cfg.initial_rate).as_bps(),
            target_last_max: None,
            last_adjust: None,
            last_last_max_update: None,
            last_discard: None,
            tx_bits_avg: 0.0,
            was_fast_increase: false,
            cfg,
        }
    }

    pub fn target(&self) -> Bitrate {
        Bitrate::bps(self.target)
    }

    /// Coupling: set the target bitrate (clipped into [min, max]).
    pub fn set_target(&mut self, rate: Bitrate) {
        if rate.is_finite() {
            self.target = self.cfg.clip(rate).as_bps();
        }
    }

    /// The ramp-up slow-down near target_bitrate_last_max:
    /// `scl_i = clamp((4 (target - last_max) / last_max)^2, 0.2, 1)`.
    pub fn scl_i(&self) -> f64 {
        match self.target_last_max {
            Some(i) if i > 0.0 => {
                let s = 4.0 * (self.target - i) / i;
                (s * s).clamp(0.2, 1.0)
            }
            _ => 1.0,
        }
    }

    fn update_last_max(&mut self, now: Timestamp, rate_max: f64) {
        let due = self
            .last_last_max_update
            .map_or(true, |t| now.saturating_since(t) > TimeDelta::secs(2));
        if due {
            self.target_last_max = Some(rate_max.min(self.target));
            self.last_last_max_update = Some(now);
        }
    }

    /// One step (call on feedback and on each new frame). Loss and ECN-CE act at once:
    /// `target = max(TARGET_BITRATE_MIN, BETA_R * target)`; otherwise at most every
    /// RATE_ADJUST_INTERVAL:
    ///
    /// ```text
    /// ramp = min(RAMP_UP_SPEED, target / 2)
    /// RTP queue older than its limit: discard it
    /// fast increase (and RTP queue delay < its limit):
    ///     target += ramp * RATE_ADJUST_INTERVAL * scl_i   (not above 1.5 rate_media)
    /// else:
    ///     scl = PRE_CONGESTION_GUARD * qdelay_trend
    ///     increment = (1 + 0.05 min(1, 50 kbit/s / target)) * rate_max * (1 - scl)
    ///                 - TX_QUEUE_SIZE_FACTOR * rtp_queue_bits_avg - target
    ///     an increase is limited to ramp * RATE_ADJUST_INTERVAL * scl_i (none above
    ///     1.5 rate_media, none with more than 12 kbit queued); a decrease is skipped
    ///     when the encoder is off target (rate_media < 0.8 or > 2 x target)
    /// ```
    pub fn update(&mut self, now: Timestamp, inp: &RateInputs) -> RateAction {
        let cfg = self.cfg.clone();
        let mut action = RateAction::None;
        let last = *self.last_adjust.get_or_insert(now);
        let rate_max = inp.rate_max.as_bps();
        let rate_media = inp.rate_media.as_bps();
        if inp.loss || inp.ce {
            self.update_last_max(now, rate_max);
            let beta = if inp.loss {
                cfg.beta_r_loss
            } else {
                cfg.beta_r_ecn
            };
            self.target = (self.target * beta).max(cfg.min_rate.as_bps());
            self.last_adjust = Some(now);
        } else if now.saturating_since(last) >= cfg.rate_adjust_interval {
            let interval = cfg.rate_adjust_interval.as_secs_f64();
            let ramp = cfg.ramp_up_speed.min(self.target * 0.5);
            let discard_due = self.last_discard.map_or(true, |t| {
                now.saturating_since(t) > cfg.rtp_queue_discard_interval
            });
            let tx_bits = inp
                .rtp_queue_bytes
                .saturating_sub(inp.last_frame)
                .as_bits_f64();
            self.tx_bits_avg = 0.5 * self.tx_bits_avg + 0.5 * tx_bits;
            if inp.rtp_queue_delay > cfg.rtp_queue_delay_max && discard_due {
                action = RateAction::DiscardRtpQueue;
                self.last_discard = Some(now);
                self.tx_bits_avg = 0.0;
            } else if inp.in_fast_increase && inp.rtp_queue_delay < cfg.rtp_queue_delay_max {
                let mut inc = ramp * interval * self.scl_i();
                if self.target > 1.5 * rate_media {
                    inc = 0.0;
                }
                self.target += inc;
                self.was_fast_increase = true;
            } else {
                if self.was_fast_increase {
                    self.was_fast_increase = false;
                    self.update_last_max(now, rate_max);
                }
                let scl = cfg.pre_congestion_guard * inp.qdelay_trend;
                let scale = 1.0 + 0.05 * (50_000.0 / self.target.max(1.0)).min(1.0);
                let mut inc = scale * rate_max * (1.0 - scl)
                    - cfg.tx_queue_size_factor * self.tx_bits_avg
                    - self.target;
                if tx_bits > 12_000.0 && inc > 0.0 {
                    inc = 0.0;
                }
                if inc > 0.0 {
                    inc = (inc * self.scl_i()).min(ramp * interval);
                    if self.target > 1.5 * rate_media {
                        inc = 0.0;
                    }
                } else if rate_media < 0.8 * self.target || rate_media > 2.0 * self.target {
                    inc = 0.0;
                }
                self.target += inc;
            }
            self.last_adjust = Some(now);
        }
        if !self.target.is_finite() {
            self.target = cfg.min_rate.as_bps();
        }
        self.target = cfg.clip(Bitrate::bps(self.target)).as_bps();
        action
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inputs() -> RateInputs {
        RateInputs {
            in_fast_increase: true,
            qdelay_trend: 0.0,
            loss: false,
            ce: false,
            rate_max: Bitrate::kbps(300.0),
            rate_media: Bitrate::kbps(300.0),
            rtp_queue_delay: TimeDelta::ZERO,
            rtp_queue_bytes: DataSize::ZERO,
            last_frame: DataSize::ZERO,
        }
    }

    fn t(ms: u64) -> Timestamp {
        Timestamp::from_millis(ms)
    }

    #[test]
    fn fast_increase_ramps_at_ramp_up_speed() {
        let cfg = ScreamConfig {
            initial_rate: Bitrate::kbps(500.0),
            ..ScreamConfig::default()
        };
        let mut r = MediaRateControl::new(cfg);
        r.update(t(0), &inputs());
        // 200 ms later: + 200 kbit/s/s * 0.2 s = 40 kbit/s.
        let mut i = inputs();
        i.rate_media = Bitrate::kbps(500.0);
        r.update(t(200), &i);
        assert!((r.target().as_kbps() - 540.0).abs() < 1e-9);
        // Too early for the next step.
        r.update(t(300), &i);
        assert!((r.target().as_kbps() - 540.0).abs() < 1e-9);
        // The encoder lags (target > 1.5 rate_media): no increase.
        i.rate_media = Bitrate::kbps(300.0);
        r.update(t(400), &i);
        assert!((r.target().as_kbps() - 540.0).abs() < 1e-9);
    }

    #[test]
    fn loss_cuts_by_beta_r_and_sets_last_max() {
        let cfg = ScreamConfig {
            initial_rate: Bitrate::kbps(1000.0),
            ..ScreamConfig::default()
        };
        let mut r = MediaRateControl::new(cfg);
        let mut i = inputs();
        i.loss = true;
        i.rate_max = Bitrate::kbps(900.0);
        r.update(t(0), &i);
        assert!((r.target().as_kbps() - 900.0).abs() < 1e-9);
        // last max = min(900, 1000) = 900; target 900: scl_i = clamp(0, 0.2, 1) = 0.2.
        assert!((r.scl_i() - 0.2).abs() < 1e-12);
        i.loss = false;
        i.ce = true;
        r.update(t(10), &i);
        assert!((r.target().as_kbps() - 855.0).abs() < 1e-9);
    }

    #[test]
    fn congestion_avoidance_tracks_the_measured_rate() {
        let cfg = ScreamConfig {
            initial_rate: Bitrate::kbps(1000.0),
            ..ScreamConfig::default()
        };
        let mut r = MediaRateControl::new(cfg);
        let mut i = inputs();
        i.in_fast_increase = false;
        i.rate_max = Bitrate::kbps(800.0);
        i.rate_media = Bitrate::kbps(1000.0);
        r.update(t(0), &i);
        r.update(t(200), &i);
        // increment = 1.05 * ... scale = 1 + 0.05 * min(1, 50/1000) = 1.0025;
        // 1.0025 * 800 - 0 - 1000 = -198 kbit/s -> 802 kbit/s.
        assert!(
            (r.target().as_kbps() - 802.0).abs() < 1e-9,
            "{}",
            r.target()
        );
        // A discard when the RTP queue is too old.
        i.rtp_queue_delay = TimeDelta::millis(150);
        assert_eq!(r.update(t(400), &i), RateAction::DiscardRtpQueue);
        assert_eq!(r.update(t(600), &i), RateAction::None);
    }
}
