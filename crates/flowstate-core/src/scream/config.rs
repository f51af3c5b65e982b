//! Every SCReAM constant (RFC 8298, SCReAM v1: section 4.1.2.1 for the network
//! congestion control, section 4.1.3 for the media rate control), each overridable.
//! Values marked (ref) are the reference implementation's of the RFC's time
//! (EricssonResearch/scream commit cf72377, October 2017) where the RFC leaves a
//! detail to the implementation; docs/ALGORITHMS.md lists them and the sources.

use crate::units::{Bitrate, DataSize, TimeDelta};

/// SCReAM v1 parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct ScreamConfig {
    // --- network congestion control (section 4.1.2) ---
    /// QDELAY_TARGET_LO: the queuing-delay target, and its floor when competing-flow
    /// compensation raises it (0.1 s).
    pub qdelay_target: TimeDelta,
    /// QDELAY_TARGET_HI: the ceiling of the adjusted target (0.4 s).
    pub qdelay_target_hi: TimeDelta,
    /// Competing-flows compensation (section 4.1.2.3 `adjust_qdelay_target`; the RFC
    /// says it MAY be turned off where no loss-based flows compete). Default true.
    pub competing_flows_compensation: bool,
    /// QDELAY_TREND_LO: fast increase resumes after qdelay_trend stayed below this for
    /// T_RESUME_FAST_INCREASE (0.2).
    pub qdelay_trend_lo: f64,
    /// QDELAY_WEIGHT: smoothing of qdelay_fraction_avg (0.1).
    pub qdelay_weight: f64,
    /// QDELAY_TREND_TH: qdelay_trend at or above which fast increase ends (0.2).
    pub qdelay_trend_th: f64,
    /// Decay of qdelay_trend_mem per history sample (0.99).
    pub qdelay_trend_mem_decay: f64,
    /// Interval of the qdelay_fraction_hist samples (50 ms, ref).
    pub qdelay_hist_interval: TimeDelta,
    /// Length of qdelay_fraction_hist (20, ref).
    pub qdelay_hist_len: usize,
    /// MIN_CWND (3000 bytes).
    pub min_cwnd: DataSize,
    /// The initial cwnd (ref: 5000 bytes; the RFC starts at MIN_CWND).
    pub initial_cwnd: DataSize,
    /// MSS (1000 bytes, ref: the RTP packet size the window update scales with).
    pub mss: DataSize,
    /// GAIN of the window update (1.0).
    pub gain: f64,
    /// A window decrease (qdelay above target) uses GAIN x this (1.0: RFC 8298 section
    /// 4.1.2.3 has one GAIN for both directions; the reference code's gain down is 2).
    pub gain_down_factor: f64,
    /// BETA_LOSS: cwnd scale on a loss event (0.8).
    pub beta_loss: f64,
    /// BETA_ECN: cwnd scale on an ECN-CE event (0.8).
    pub beta_ecn: f64,
    /// MAX_BYTES_IN_FLIGHT_HEAD_ROOM: cwnd <= this * max_bytes_in_flight (1.1).
    pub max_bytes_in_flight_head_room: f64,
    /// The window over which max_bytes_in_flight is taken (5 s).
    pub bytes_in_flight_window: TimeDelta,
    /// Fast increase grows cwnd only while bytes_in_flight * this + bytes_newly_acked
    /// > cwnd (the window is used; 1.5, ref).
    pub fast_increase_use_factor: f64,
    /// Congestion avoidance grows cwnd only while bytes_in_flight * this +
    /// bytes_newly_acked > cwnd (1.25).
    pub increase_use_factor: f64,
    /// T_RESUME_FAST_INCREASE: fast increase resumes after qdelay_trend has stayed
    /// below QDELAY_TREND_LO this long (5 s).
    pub fast_increase_resume: TimeDelta,
    /// A packet unacked while one sent this much later has been acked is lost (30 ms,
    /// ref; section 4.1.2.4).
    pub reorder_time: TimeDelta,
    /// Pacing headroom: pace_bitrate = max(RATE_PACE_MIN, cwnd * 8 / s_rtt) x this.
    /// RFC 8298 paces at exactly cwnd / s_rtt (1.0); the reference code uses more.
    pub packet_pacing_headroom: f64,
    /// RATE_PACE_MIN (50 kbit/s).
    pub rate_pace_min: Bitrate,
    /// BASE_OWD history: minima kept (10) of one interval each (60 s), as LEDBAT.
    pub base_owd_history: usize,
    pub base_owd_interval: TimeDelta,
    // --- media rate control (section 4.1.3) ---
    /// TARGET_BITRATE_MIN.
    pub min_rate: Bitrate,
    /// TARGET_BITRATE_MAX.
    pub max_rate: Bitrate,
    /// The target bitrate at start.
    pub initial_rate: Bitrate,
    /// RATE_ADJUST_INTERVAL (0.2 s).
    pub rate_adjust_interval: TimeDelta,
    /// RAMP_UP_SPEED (200 kbit/s per second).
    pub ramp_up_speed: f64,
    /// BETA_R: target bitrate scale on a loss event (0.9; an ECN event scales it by
    /// BETA_ECN).
    pub beta_r_loss: f64,
    /// PRE_CONGESTION_GUARD (0.1; the RFC gives the range 0..1, 0 removes the media
    /// rate control's dependence on qdelay_trend).
    pub pre_congestion_guard: f64,
    /// TX_QUEUE_SIZE_FACTOR (1.0; RFC range 0..2).
    pub tx_queue_size_factor: f64,
    /// The media rate control's throughput term is scaled by
    /// 1 + this x min(1, 50 kbit/s / target) (0: RFC 8298 section 4.1.3 has no such
    /// term; the reference code's 0.05 pushes the target above the throughput, most at
    /// low rates).
    pub low_rate_push: f64,
    /// The periodic media rate update (every RATE_ADJUST_INTERVAL) also runs when
    /// feedback arrives, not only before a frame enters the RTP queue (true; the
    /// reference code updates the target only when a frame arrives, so its RTP queue
    /// never holds the newest frame then; loss and ECN reactions run on feedback
    /// either way).
    pub rate_update_on_feedback: bool,
    /// RTP_QDELAY_TH: an RTP queue delay above this scales the target down (0.02 s) ...
    pub rtp_qdelay_th: TimeDelta,
    /// ... by TARGET_RATE_SCALE_RTP_QDELAY (0.95).
    pub target_rate_scale_rtp_qdelay: f64,
    /// The window of rate_media_median ("computed over more than 10 s").
    pub rate_media_median_window: TimeDelta,
    /// The RTP queue is discarded when its delay exceeds this (0.1 s, ref) ...
    pub rtp_queue_delay_max: TimeDelta,
    /// ... at most once per this interval (1 s, ref).
    pub rtp_queue_discard_interval: TimeDelta,
    /// The averaging window of the transmitted and acked rates (0.8 s; the reference code
    /// at cf72377 averages 4 x 50 ms = 0.2 s).
    pub rate_window: TimeDelta,
    // --- the reference code's departures from RFC 8298, each off by default (the
    // reference: EricssonResearch/scream cf72377, code/ScreamTx.cpp) ---
    /// No increase of the target while more than this waits in the RTP queue (zero:
    /// no such rule, RFC 8298; `Stream::updateTargetBitrate`: 12 kbit = 1,500 B).
    pub rtp_queue_increase_limit: DataSize,
    /// The TX-queue term uses an average of rtp_queue_size, avg = this x avg + (1 -
    /// this) x rtp_queue_size at every rate update (0: the size itself, RFC 8298;
    /// `Stream::updateTargetBitrate`: 0.5).
    pub rtp_queue_size_smoothing: f64,
    /// No decrease of the target while the encoder's rate is below 0.8 x or above 2 x
    /// the target (false: RFC 8298; `Stream::updateTargetBitrate`: true).
    pub coder_limited_decrease_guard: bool,
    /// The target is capped at max(current_rate, rate_media, rate_media_median) x (2 -
    /// qdelay_trend_mem) (true: RFC 8298 4.1.3; the reference code has no such cap).
    pub rate_media_cap: bool,
    /// No increase of the target while it is above this x the throughput (0: no such
    /// rule, RFC 8298; `Stream::updateTargetBitrate`: 1.5, fast increase included).
    pub increase_max_throughput_ratio: f64,
    /// The target's fast increase runs only while the RTP queue's delay is below this,
    /// otherwise the throughput-steered update runs (none: always, RFC 8298;
    /// `Stream::updateTargetBitrate`: 0.1 s).
    pub fast_increase_rtp_queue_delay_max: Option<TimeDelta>,
    /// A delay-based window reduction takes at most this fraction of cwnd (1: no cap,
    /// RFC 8298; `ScreamTx::updateCwnd`: a quarter window, 0.25).
    pub window_reduction_cap: f64,
    /// Pacing only while qdelay_fraction_avg is above this (0: always, RFC 8298
    /// 4.1.2.6; `ScreamTx::updateCwnd`: 0.05, the packets leave unpaced below it).
    pub pacing_min_qdelay_fraction: f64,
    /// The one-way delay is read from send and receive clocks of this resolution, each
    /// time truncated (none: exact, RFC 8298; `ScreamTx::addTransmitted` and
    /// `ScreamRx::receive` stamp whole milliseconds, `kTimestampRate` 1000).
    pub owd_clock_resolution: Option<TimeDelta>,
}

impl Default for ScreamConfig {
    fn default() -> Self {
        ScreamConfig {
            qdelay_target: TimeDelta::millis(100),
            qdelay_target_hi: TimeDelta::millis(400),
            competing_flows_compensation: true,
            qdelay_trend_lo: 0.2,
            qdelay_weight: 0.1,
            qdelay_trend_th: 0.2,
            qdelay_trend_mem_decay: 0.99,
            qdelay_hist_interval: TimeDelta::millis(50),
            qdelay_hist_len: 20,
            min_cwnd: DataSize::bytes(3000),
            initial_cwnd: DataSize::bytes(5000),
            mss: DataSize::bytes(1000),
            gain: 1.0,
            gain_down_factor: 1.0,
            beta_loss: 0.8,
            beta_ecn: 0.8,
            max_bytes_in_flight_head_room: 1.1,
            bytes_in_flight_window: TimeDelta::secs(5),
            fast_increase_use_factor: 1.5,
            increase_use_factor: 1.25,
            fast_increase_resume: TimeDelta::secs(5),
            reorder_time: TimeDelta::millis(30),
            packet_pacing_headroom: 1.0,
            rate_pace_min: Bitrate::kbps(50.0),
            base_owd_history: 10,
            base_owd_interval: TimeDelta::secs(60),
            min_rate: Bitrate::kbps(150.0),
            max_rate: Bitrate::kbps(1500.0),
            initial_rate: Bitrate::kbps(150.0),
            rate_adjust_interval: TimeDelta::millis(200),
            ramp_up_speed: 200_000.0,
            beta_r_loss: 0.9,
            pre_congestion_guard: 0.1,
            tx_queue_size_factor: 1.0,
            low_rate_push: 0.0,
            rate_update_on_feedback: true,
            rtp_qdelay_th: TimeDelta::millis(20),
            target_rate_scale_rtp_qdelay: 0.95,
            rate_media_median_window: TimeDelta::secs(10),
            rtp_queue_delay_max: TimeDelta::millis(100),
            rtp_queue_discard_interval: TimeDelta::secs(1),
            rate_window: TimeDelta::millis(800),
            rtp_queue_increase_limit: DataSize::ZERO,
            rtp_queue_size_smoothing: 0.0,
            coder_limited_decrease_guard: false,
            rate_media_cap: true,
            increase_max_throughput_ratio: 0.0,
            fast_increase_rtp_queue_delay_max: None,
            window_reduction_cap: 1.0,
            pacing_min_qdelay_fraction: 0.0,
            owd_clock_resolution: None,
        }
    }
}

impl ScreamConfig {
    /// Checks every field; the error names the first bad one.
    pub fn validate(&self) -> Result<(), String> {
        let frac = |name: &str, v: f64| {
            if v.is_finite() && v > 0.0 && v <= 1.0 {
                Ok(())
            } else {
                Err(format!("scream.{name} must be in (0, 1], got {v}"))
            }
        };
        let pos = |name: &str, v: f64| {
            if v.is_finite() && v > 0.0 {
                Ok(())
            } else {
                Err(format!(
                    "scream.{name} must be a positive finite number, got {v}"
                ))
            }
        };
        let dur = |name: &str, d: TimeDelta| {
            if d.is_positive() {
                Ok(())
            } else {
                Err(format!(
                    "scream.{name} must be a positive duration, got {d}"
                ))
            }
        };
        dur("qdelay_target", self.qdelay_target)?;
        frac("qdelay_weight", self.qdelay_weight)?;
        pos("qdelay_trend_th", self.qdelay_trend_th)?;
        frac("qdelay_trend_mem_decay", self.qdelay_trend_mem_decay)?;
        dur("qdelay_hist_interval", self.qdelay_hist_interval)?;
        if self.qdelay_hist_len < 2 {
            return Err("scream.qdelay_hist_len must be at least 2".into());
        }
        if self.mss == DataSize::ZERO || self.min_cwnd < self.mss {
            return Err(
                "scream.min_cwnd must be at least scream.mss, which must be positive".into(),
            );
        }
        pos("gain", self.gain)?;
        pos("gain_down_factor", self.gain_down_factor)?;
        if !(self.low_rate_push.is_finite() && (0.0..=1.0).contains(&self.low_rate_push)) {
            return Err(format!(
                "scream.low_rate_push must be in [0, 1], got {}",
                self.low_rate_push
            ));
        }
        frac("beta_loss", self.beta_loss)?;
        frac("beta_ecn", self.beta_ecn)?;
        if !(self.max_bytes_in_flight_head_room.is_finite()
            && self.max_bytes_in_flight_head_room >= 1.0)
        {
            return Err("scream.max_bytes_in_flight_head_room must be >= 1".into());
        }
        dur("bytes_in_flight_window", self.bytes_in_flight_window)?;
        pos("fast_increase_use_factor", self.fast_increase_use_factor)?;
        pos("increase_use_factor", self.increase_use_factor)?;
        dur("fast_increase_resume", self.fast_increase_resume)?;
        if self.reorder_time < TimeDelta::ZERO {
            return Err("scream.reorder_time must not be negative".into());
        }
        pos("packet_pacing_headroom", self.packet_pacing_headroom)?;
        pos("rate_pace_min", self.rate_pace_min.as_bps())?;
        if self.base_owd_history == 0 {
            return Err("scream.base_owd_history must be at least 1".into());
        }
        dur("base_owd_interval", self.base_owd_interval)?;
        pos("min_rate", self.min_rate.as_bps())?;
        if !self.max_rate.is_finite() || self.max_rate < self.min_rate {
            return Err(format!(
                "scream.max_rate ({}) must be finite and at least scream.min_rate ({})",
                self.max_rate, self.min_rate
            ));
        }
        dur("rate_adjust_interval", self.rate_adjust_interval)?;
        pos("ramp_up_speed", self.ramp_up_speed)?;
        frac("beta_r_loss", self.beta_r_loss)?;
        frac(
            "target_rate_scale_rtp_qdelay",
            self.target_rate_scale_rtp_qdelay,
        )?;
        dur("rtp_qdelay_th", self.rtp_qdelay_th)?;
        dur("rate_media_median_window", self.rate_media_median_window)?;
        if self.qdelay_target_hi < self.qdelay_target {
            return Err("scream.qdelay_target_hi must be at least scream.qdelay_target".into());
        }
        pos("qdelay_trend_lo", self.qdelay_trend_lo)?;
        if !(self.pre_congestion_guard.is_finite()
            && (0.0..=1.0).contains(&self.pre_congestion_guard))
        {
            return Err("scream.pre_congestion_guard must be in [0, 1]".into());
        }
        if !(self.tx_queue_size_factor.is_finite() && self.tx_queue_size_factor >= 0.0) {
            return Err("scream.tx_queue_size_factor must be >= 0".into());
        }
        dur("rtp_queue_delay_max", self.rtp_queue_delay_max)?;
        dur("rate_window", self.rate_window)?;
        if !(self.rtp_queue_size_smoothing.is_finite()
            && (0.0..1.0).contains(&self.rtp_queue_size_smoothing))
        {
            return Err(format!(
                "scream.rtp_queue_size_smoothing must be in [0, 1), got {}",
                self.rtp_queue_size_smoothing
            ));
        }
        if !(self.increase_max_throughput_ratio.is_finite()
            && self.increase_max_throughput_ratio >= 0.0)
        {
            return Err(format!(
                "scream.increase_max_throughput_ratio must be >= 0 (0: off), got {}",
                self.increase_max_throughput_ratio
            ));
        }
        if let Some(d) = self.owd_clock_resolution {
            dur("owd_clock_resolution", d)?;
        }
        if let Some(d) = self.fast_increase_rtp_queue_delay_max {
            dur("fast_increase_rtp_queue_delay_max", d)?;
        }
        frac("window_reduction_cap", self.window_reduction_cap)?;
        if !(self.pacing_min_qdelay_fraction.is_finite() && self.pacing_min_qdelay_fraction >= 0.0)
        {
            return Err(format!(
                "scream.pacing_min_qdelay_fraction must be >= 0 (0: always pace), got {}",
                self.pacing_min_qdelay_fraction
            ));
        }
        Ok(())
    }

    pub(crate) fn clip(&self, r: Bitrate) -> Bitrate {
        r.max(self.min_rate).min(self.max_rate.max(self.min_rate))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_valid_and_errors_named() {
        assert_eq!(ScreamConfig::default().validate(), Ok(()));
        let c = ScreamConfig {
            beta_loss: 1.5,
            ..Default::default()
        };
        assert!(c.validate().unwrap_err().contains("scream.beta_loss"));
        let c = ScreamConfig {
            min_cwnd: DataSize::bytes(10),
            ..Default::default()
        };
        assert!(c.validate().unwrap_err().contains("scream.min_cwnd"));
    }
}
