//! NADA, Network-Assisted Dynamic Adaptation (RFC 8698), sans-I/O.
//!
//! One file per component:
//! [`config`] (every constant of section 4.1 plus the named deviations),
//! [`queuing_delay`] (section 5.1.1), [`loss_ratio`] (section 5.1.2),
//! [`congestion_signal`] (warping and x_curr, section 4.2), [`receiver`] (the receiver
//! of section 4.2 / 5.1: x_curr, rmode, r_recv every DELTA), [`rate_update`]
//! (accelerated ramp-up and gradual update of r_ref, section 4.3), [`shaping`] (rate
//! shaping buffer, r_vin and r_send, section 4.3 equations (11)-(14) and 5.2).
//!
//! [`Nada`] is the sender: it takes the receiver's reports ([`NadaFeedback`]), keeps
//! r_ref, and derives the encoder target r_vin and the sending rate r_send from r_ref
//! and the shaping buffer. With RFC 8888 feedback the [`NadaReceiver`] aggregator runs
//! at the sender on the reported packets (RFC 8698 section 5.3 allows either).
//!
//! Coupling (paper 003 Table I): the FSE sets r_ref, and r_vin and r_send follow it
//! ([`Nada::set_reference_rate`]). Every mechanism, FSE-NG included, gets r_ref as the
//! flow's CC_R: the one rate NADA computes from its composite congestion signal (paper
//! 000 V-B3's "aggregated value"; x_curr itself is a delay, [`Nada::congestion_signal`]).
//! The endpoint is `crate::endpoint::nada`.

pub mod config;
pub mod congestion_signal;
pub mod loss_ratio;
mod options;
pub mod queuing_delay;
pub mod rate_update;
pub mod receiver;
pub mod shaping;

#[cfg(test)]
mod closed_loop;
#[cfg(test)]
mod proptests;

pub use config::NadaConfig;
pub use receiver::{NadaFeedback, NadaReceiver, RampUpMode, ReceivedPacket};
pub use shaping::ShapingBuffer;

use crate::units::{Bitrate, DataSize, TimeDelta, Timestamp};

/// The NADA sender.
#[derive(Debug, Clone)]
pub struct Nada {
    cfg: NadaConfig,
    r_ref: Bitrate,
    x_curr: TimeDelta,
    x_prev: Option<TimeDelta>,
    last_update: Option<Timestamp>,
    rtt: TimeDelta,
    mode: RampUpMode,
    buffer: ShapingBuffer,
    /// Resumed after a pause and no report since: r_vin and r_send are the start rate
    /// (cisco/ns3-rmcat `RmcatSender::PauseResume`; RFC 8698 has no pause).
    restarting: bool,
}

impl Nada {
    /// A sender at `initial_rate` (clipped into [RMIN, RMAX]). Check the configuration
    /// first with [`NadaConfig::validate`]; the sender itself only clamps.
    pub fn new(cfg: NadaConfig) -> Self {
        Nada {
            r_ref: cfg.clip(cfg.initial_rate),
            x_curr: TimeDelta::ZERO,
            x_prev: None,
            last_update: None,
            rtt: TimeDelta::ZERO,
            mode: RampUpMode::Accelerated,
            buffer: ShapingBuffer::new(),
            restarting: false,
            cfg,
        }
    }

    pub fn config(&self) -> &NadaConfig {
        &self.cfg
    }

    /// An RTT sample (negative samples are ignored).
    pub fn on_rtt(&mut self, rtt: TimeDelta) {
        if rtt >= TimeDelta::ZERO {
            self.rtt = rtt;
        }
    }

    /// A receiver report arrived at `now` (RFC 8698 section 4.3): accelerated ramp-up
    /// when rmode = 0, gradual update otherwise, r_ref clipped into [RMIN, RMAX].
    /// `delta` in the gradual update is the time since the previous report (DELTA for
    /// the first one).
    pub fn on_feedback(&mut self, now: Timestamp, fb: &NadaFeedback) {
        let delta = match self.last_update {
            Some(t) => now.saturating_since(t),
            None => self.cfg.delta,
        };
        self.last_update = Some(now.max(self.last_update.unwrap_or(now)));
        let x_prev = self.x_prev.unwrap_or(fb.x_curr);
        self.mode = fb.rmode;
        let r = match fb.rmode {
            RampUpMode::Accelerated => {
                rate_update::accelerated_ramp_up(self.r_ref, fb.r_recv, self.rtt, &self.cfg)
            }
            RampUpMode::Gradual => {
                rate_update::gradual_update(self.r_ref, fb.x_curr, x_prev, delta, &self.cfg)
            }
        };
        self.r_ref = self.cfg.clip(r);
        self.restarting = false;
        self.x_curr = fb.x_curr;
        self.x_prev = Some(fb.x_curr);
    }

    /// Coupling: set r_ref (clipped into [RMIN, RMAX]); r_vin and r_send follow from it
    /// (paper 003 Table I: NADA's reference, sending and encoding rates change together).
    pub fn set_reference_rate(&mut self, rate: Bitrate) {
        if rate.is_finite() {
            self.r_ref = self.cfg.clip(rate);
            self.restarting = false;
        }
    }

    /// r_ref.
    pub fn reference_rate(&self) -> Bitrate {
        self.r_ref
    }

    /// r_vin, the encoder target (section 4.3).
    pub fn encoder_rate(&self) -> Bitrate {
        if self.restarting {
            return self.cfg.clip(self.cfg.initial_rate);
        }
        shaping::encoder_rate(self.r_ref, self.buffer.len(), &self.cfg)
    }

    /// r_send, the rate the shaping buffer drains at (section 4.3).
    pub fn sending_rate(&self) -> Bitrate {
        if self.restarting {
            return self.cfg.clip(self.cfg.initial_rate);
        }
        shaping::sending_rate(self.r_ref, self.buffer.len(), &self.cfg)
    }

    /// The application paused: the rate shaping buffer is emptied (what was waiting
    /// is never sent), as the reference implementation does.
    pub fn pause(&mut self) {
        self.buffer = ShapingBuffer::new();
    }

    /// The application resumed: r_vin and r_send restart at the start rate (RINIT)
    /// until the next report updates r_ref, as the reference implementation does; r_ref
    /// itself is kept.
    pub fn resume(&mut self) {
        self.restarting = true;
    }

    /// The last reported x_curr (the composite congestion signal r_ref is computed from).
    pub fn congestion_signal(&self) -> TimeDelta {
        self.x_curr
    }

    /// The ramp-up mode of the last report.
    pub fn mode(&self) -> RampUpMode {
        self.mode
    }

    /// An encoded packet enters the rate shaping buffer.
    pub fn enqueue(&mut self, now: Timestamp, size: DataSize) {
        self.buffer.push(now, size);
    }

    /// The next packet to send at `now`, paced at r_send.
    pub fn poll_send(&mut self, now: Timestamp) -> Option<DataSize> {
        let r_send = self.sending_rate();
        self.buffer.pop(now, r_send)
    }

    /// When the shaping buffer next has a packet to send.
    pub fn poll_timeout(&self) -> Option<Timestamp> {
        self.buffer.next_send_time()
    }

    /// The rate shaping buffer.
    pub fn buffer(&self) -> &ShapingBuffer {
        &self.buffer
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fb(x_ms: i64, rmode: RampUpMode, r_recv_kbps: f64) -> NadaFeedback {
        NadaFeedback {
            time: Timestamp::ZERO,
            x_curr: TimeDelta::millis(x_ms),
            rmode,
            r_recv: Bitrate::kbps(r_recv_kbps),
            d_queue: TimeDelta::millis(x_ms),
            warp: congestion_signal::WarpMode::Raw,
        }
    }

    #[test]
    fn ramp_up_then_gradual_and_clip() {
        let cfg = NadaConfig::default();
        let mut n = Nada::new(cfg.clone());
        assert_eq!(n.reference_rate(), cfg.min_rate);
        n.on_rtt(TimeDelta::millis(30));
        // gamma = 0.2: r_ref = 1.2 * 400 = 480 kbit/s.
        n.on_feedback(
            Timestamp::from_millis(100),
            &fb(0, RampUpMode::Accelerated, 400.0),
        );
        assert!((n.reference_rate().as_kbps() - 480.0).abs() < 1e-9);
        // Gradual, r_ref 480 kbit/s, x = 100 ms, first gradual x_prev = 0:
        // x_offset = 100 - 10 * 1500 / 480 = 68.75 ms; x_diff = 100 ms.
        // r = 480 * (1 - 0.5 * 0.2 * 0.1375 - 0.5 * 2 * 0.2) = 480 * 0.78625 = 377.4.
        n.on_feedback(
            Timestamp::from_millis(200),
            &fb(100, RampUpMode::Gradual, 400.0),
        );
        assert!(
            (n.reference_rate().as_kbps() - 377.4).abs() < 1e-6,
            "{}",
            n.reference_rate()
        );
        assert_eq!(n.congestion_signal(), TimeDelta::millis(100));
        // A huge congestion signal clips at RMIN; a huge ramp-up at RMAX.
        n.on_feedback(
            Timestamp::from_millis(300),
            &fb(100_000, RampUpMode::Gradual, 0.0),
        );
        assert_eq!(n.reference_rate(), cfg.min_rate);
        n.on_feedback(
            Timestamp::from_millis(400),
            &fb(0, RampUpMode::Accelerated, 1e6),
        );
        assert_eq!(n.reference_rate(), cfg.max_rate);
    }

    #[test]
    fn coupling_sets_all_three_rates() {
        let mut n = Nada::new(NadaConfig::default());
        n.set_reference_rate(Bitrate::kbps(700.0));
        assert_eq!(n.reference_rate(), Bitrate::kbps(700.0));
        assert_eq!(n.encoder_rate(), Bitrate::kbps(700.0));
        assert_eq!(n.sending_rate(), Bitrate::kbps(700.0));
        n.set_reference_rate(Bitrate::INFINITY);
        assert_eq!(n.reference_rate(), Bitrate::kbps(700.0));
        n.set_reference_rate(Bitrate::mbps(100.0));
        assert_eq!(n.reference_rate(), Bitrate::kbps(1500.0));
    }
}
