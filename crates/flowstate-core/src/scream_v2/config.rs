//! Every SCReAM v2 constant, each overridable. Defaults are libwebrtc's
//! (`modules/congestion_controller/scream/scream_v2_parameters.cc` at b1dde843, the
//! field trial `WebRTC-Bwe-ScreamV2`); where draft-ietf-ccwg-rfc8298bis-screamv2-01
//! differs, the draft's value is named next to the field and its variant of a rule is a
//! flag (off by default). docs/ALGORITHMS.md, "SCReAM v2", lists every difference.

use crate::units::{Bitrate, DataSize, TimeDelta};

/// SCReAM v2 parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct ScreamV2Config {
    // --- reference window (draft 4.2.2; libwebrtc scream_v2.cc) ---
    /// MinRefWindow: the smallest reference window (libwebrtc 1000 B; draft
    /// MIN_REF_WND 3000 B).
    pub min_ref_window: DataSize,
    /// MaxSegmentSize: the MSS the increase and the target scale with (libwebrtc
    /// 1280 B; draft MSS 1000 B).
    pub mss: DataSize,
    /// BytesInFlightHeadRoom: the window grows only while below MSS + this x the
    /// largest data in flight of this or the previous RTT (libwebrtc 1.1; draft
    /// BYTES_IN_FLIGHT_HEAD_ROOM 1.5).
    pub bytes_in_flight_head_room: f64,
    /// BetaLoss: window scale on a loss event (0.7; draft BETA_LOSS 0.7).
    pub beta_loss: f64,
    /// PostCongestionDelayRtts: RTTs after a congestion event during which the
    /// multiplicative increase is held back (100; draft POST_CONGESTION_DELAY_RTT).
    pub post_congestion_delay_rtts: f64,
    /// MultiplicativeIncreaseFactor: fraction of the window it may grow by per RTT on
    /// top of the additive increase (0.02; draft MUL_INCREASE_FACTOR).
    pub multiplicative_increase_factor: f64,
    /// VirtualRtt: the Prague-like RTT floor of the backoff and increase scaling
    /// (25 ms; draft VIRTUAL_RTT).
    pub virtual_rtt: TimeDelta,
    /// BackoffScaleFactorCloseToRefWindowI: how sharply increase and backoff slow down
    /// near the last inflection point (libwebrtc 2.0; draft 8).
    pub close_to_ref_window_i_scale: f64,
    /// NumberOfRttsBetweenResetRefWindowIOnCongestion: after this many RTTs without
    /// congestion a CE event first pulls the window down to the data in flight and
    /// sets l4s_alpha to 0.25 (100; draft 4.2.2.1 "100 RTTs").
    pub reset_after_uncongested_rtts: f64,
    /// The draft's reset on the first CE event after `reset_after_uncongested_rtts`
    /// uncongested RTTs (draft 4.2.2.1: ref_wnd = min(ref_wnd,
    /// max_bytes_in_flight_prev)). libwebrtc has the rule but tests the elapsed time
    /// after stamping the reaction time, so it never fires: false.
    pub draft_uncongested_reset: bool,
    /// EnableAlr: the window does not grow and the RTT filter slows down while the
    /// sender is application-limited (libwebrtc true; the draft has no such state).
    pub enable_alr: bool,
    /// The draft's rule that the window does not grow while the target is at
    /// TARGET_BITRATE_MAX (draft 4.2.2.2; libwebrtc has none: false).
    pub hold_increase_at_max_rate: bool,

    // --- L4S alpha (draft 4.2.1.3; libwebrtc ScreamV2::UpdateL4SAlpha) ---
    /// L4sAvgGUp: EWMA gain while the marked fraction rises (1/8; draft L4S_AVG_G_UP).
    pub l4s_avg_g_up: f64,
    /// L4sAvgGDown: decay while it falls (1/128; draft L4S_AVG_G_DOWN).
    pub l4s_avg_g_down: f64,
    /// The draft's update cadence: count marks over min(10 ms, s_rtt) before each
    /// update (draft 4.2.1.3); false: one update per feedback, libwebrtc's.
    pub draft_l4s_alpha_interval: bool,

    // --- loss (libwebrtc loss_estimator.cc; draft 4.2.2.1 and 4.5.2) ---
    /// libwebrtc's loss step filter: a loss backs off only after this many
    /// consecutive RTTs with loss (RttsWithLossBeforeBackoff 3) unless the queue
    /// delay is up. false: every loss event backs off, the draft's 4.2.2.1.
    pub loss_step_filter: bool,
    /// RttsWithLossBeforeBackoff (3).
    pub rtts_with_loss_before_backoff: f64,
    /// LosslessRttsBeforeClear (2).
    pub lossless_rtts_before_clear: f64,

    // --- delay (draft 4.2.1.4; libwebrtc delay_based_congestion_control.cc) ---
    /// QDelayTarget: virtual marking starts above half of it (60 ms; draft
    /// QDELAY_TARGET_LO 0.06 s).
    pub qdelay_target: TimeDelta,
    /// QDelayAvgG: gain of the slow-attack, fast-decay qdelay_avg (1/4; draft
    /// QDELAY_AVG_G).
    pub qdelay_avg_g: f64,
    /// DelayMinAndLatencyDiffAvgG: gain of the min-queue-delay and latency-difference
    /// averages that damp the increase (1/32; draft QDELAY_DEV_AVG_G 1/32).
    pub delay_min_and_latency_diff_avg_g: f64,
    /// QDelayMinThreshold: the averaged per-feedback minimum queue delay at which the
    /// increase is slowed to 0.1 (10 ms; draft QDELAY_DEV_THRESHOLD 0.01 s).
    pub qdelay_min_threshold: TimeDelta,
    /// LatencyDiffThreshold: the same for the spread of one-way delays within a
    /// feedback (10 ms).
    pub latency_diff_threshold: TimeDelta,
    /// BaseDelayWindowLength: base-delay history, one minimum per interval (10).
    pub base_delay_history: usize,
    /// BaseDelayHistoryUpdateInterval (60 s; RFC 6817's one minute).
    pub base_delay_interval: TimeDelta,
    /// QDelayDrainThreshold: a feedback whose minimum queue delay is above this counts
    /// toward "queue not drained" (5 ms).
    pub qdelay_drain_threshold: TimeDelta,
    /// QDelayDrainPeriod: after this long undrained the target is halved to drain it
    /// (20 s; draft 4.5.1 uses an RTT-averaged minimum instead).
    pub qdelay_drain_period: TimeDelta,
    /// QDelayDrainRtts: the halving lasts max(100 ms, this x s_rtt), then the delay
    /// estimate is reset (5; draft 4.5.1 max(5 s_rtt, 0.2 s)).
    pub qdelay_drain_rtts: f64,
    /// SmoothedRttAvgG (1/8).
    pub srtt_avg_g: f64,
    /// SmoothedRttAvgInAlrG: the RTT gain while application-limited (1/128).
    pub srtt_avg_in_alr_g: f64,
    /// FeedbackHoldTimeAvgG: gain of the average time the receiver holds an arrival
    /// before reporting it, added to the RTT in the target (1/8; 0 ignores it; the
    /// draft has no such term).
    pub feedback_hold_time_avg_g: f64,

    // --- send window (draft 4.3.1) ---
    /// RefWinMin: bytes in flight may exceed the window by at least this factor
    /// (1.5; draft REF_WND_OVERHEAD_MIN).
    pub ref_window_overhead_min: f64,
    /// RefWinMax: ... and at most this one, when the delay is steady (3.0; draft
    /// REF_WND_OVERHEAD_MAX).
    pub ref_window_overhead_max: f64,

    // --- pacing (libwebrtc ScreamV2::pacing_rate; draft 4.3.2) ---
    /// PacingFactor: pacing rate = target x this (libwebrtc 1.1).
    pub pacing_factor: f64,
    /// The draft's pacing (4.3.2): max(RATE_PACE_MIN, target) x
    /// PACKET_PACING_HEADROOM, relaxed up to MAX_RELAXED_PACING_FACTOR near the
    /// maximum rate. false: libwebrtc's.
    pub draft_pacing: bool,
    /// RATE_PACE_MIN (draft 4.3.2: 50 kbit/s).
    pub rate_pace_min: Bitrate,
    /// PACKET_PACING_HEADROOM (draft 4.3.2: 1.5).
    pub packet_pacing_headroom: f64,
    /// MAX_RELAXED_PACING_FACTOR (draft 4.3.2: 4.0).
    pub max_relaxed_pacing_factor: f64,
    /// RELAXED_PACING_LIMIT_LOW (draft 4.3.2: 0.8).
    pub relaxed_pacing_limit_low: f64,
    /// Chromium's pacer: libwebrtc's `PacingController` keeps a media debt and lets a
    /// packet go while the debt drains within the pacer's burst window (the GCC
    /// sender's `chromium_pacer`, `gcc::media_debt`), the window set by
    /// `ScreamNetworkController::MaybeCreatePacerConfig`: `pacing_window` once
    /// `large_bursts_after_congestion` has passed since the last reaction to
    /// congestion, else `pacing_window_after_congestion`. true (libwebrtc M150);
    /// false: every packet one packet time at the pacing rate after the previous one
    /// (the draft's pacer, 4.3.2).
    pub chromium_pacer: bool,
    /// The burst window away from congestion (`RtpTransportConfig::
    /// default_pacing_time_window`, `PacerConfig::kDefaultTimeInterval` 40 ms).
    pub pacing_window: TimeDelta,
    /// The burst window after a reaction to congestion (libwebrtc 10 ms).
    pub pacing_window_after_congestion: TimeDelta,
    /// AllowLargePacingBurstsAfterCongestionTime (libwebrtc 15 s).
    pub large_bursts_after_congestion: TimeDelta,

    // --- media rate (draft 4.4; libwebrtc ScreamV2::UpdateTargetRate) ---
    /// The draft's media rate control (4.4): the target is further divided by
    /// (1.2 + rate_adjust_factor + frame_size_dev) and scaled by MSS / (MSS +
    /// PACKET_OVERHEAD), the RTT without the feedback hold time. false: libwebrtc's
    /// ref_window / (s_rtt + hold time).
    pub draft_media_rate: bool,
    /// PACKET_OVERHEAD (draft 4.4: 20 B).
    pub packet_overhead: DataSize,
    /// RATE_ADJUST_GAIN (draft 4.4: 1/16).
    pub rate_adjust_gain: f64,
    /// FRAME_SIZE_DEV_ALPHA (draft 4.4: 1/64).
    pub frame_size_dev_alpha: f64,
    /// TARGET_BITRATE_MIN (flowstate's: libwebrtc takes it from the call's
    /// constraints).
    pub min_rate: Bitrate,
    /// TARGET_BITRATE_MAX (flowstate's: Chromium's measured 2.5 Mbit/s ceiling).
    pub max_rate: Bitrate,
    /// The start rate (libwebrtc ScreamNetworkController kDefaultStartRate 300 kbit/s).
    pub initial_rate: Bitrate,
}

impl Default for ScreamV2Config {
    fn default() -> Self {
        ScreamV2Config {
            min_ref_window: DataSize::bytes(1000),
            mss: DataSize::bytes(1280),
            bytes_in_flight_head_room: 1.1,
            beta_loss: 0.7,
            post_congestion_delay_rtts: 100.0,
            multiplicative_increase_factor: 0.02,
            virtual_rtt: TimeDelta::millis(25),
            close_to_ref_window_i_scale: 2.0,
            reset_after_uncongested_rtts: 100.0,
            draft_uncongested_reset: false,
            enable_alr: true,
            hold_increase_at_max_rate: false,
            l4s_avg_g_up: 1.0 / 8.0,
            l4s_avg_g_down: 1.0 / 128.0,
            draft_l4s_alpha_interval: false,
            loss_step_filter: true,
            rtts_with_loss_before_backoff: 3.0,
            lossless_rtts_before_clear: 2.0,
            qdelay_target: TimeDelta::millis(60),
            qdelay_avg_g: 1.0 / 4.0,
            delay_min_and_latency_diff_avg_g: 1.0 / 32.0,
            qdelay_min_threshold: TimeDelta::millis(10),
            latency_diff_threshold: TimeDelta::millis(10),
            base_delay_history: 10,
            base_delay_interval: TimeDelta::secs(60),
            qdelay_drain_threshold: TimeDelta::millis(5),
            qdelay_drain_period: TimeDelta::secs(20),
            qdelay_drain_rtts: 5.0,
            srtt_avg_g: 1.0 / 8.0,
            srtt_avg_in_alr_g: 1.0 / 128.0,
            feedback_hold_time_avg_g: 1.0 / 8.0,
            ref_window_overhead_min: 1.5,
            ref_window_overhead_max: 3.0,
            pacing_factor: 1.1,
            draft_pacing: false,
            rate_pace_min: Bitrate::kbps(50.0),
            packet_pacing_headroom: 1.5,
            max_relaxed_pacing_factor: 4.0,
            relaxed_pacing_limit_low: 0.8,
            chromium_pacer: true,
            pacing_window: TimeDelta::millis(40),
            pacing_window_after_congestion: TimeDelta::millis(10),
            large_bursts_after_congestion: TimeDelta::secs(15),
            draft_media_rate: false,
            packet_overhead: DataSize::bytes(20),
            rate_adjust_gain: 1.0 / 16.0,
            frame_size_dev_alpha: 1.0 / 64.0,
            min_rate: Bitrate::kbps(50.0),
            max_rate: Bitrate::mbps(2.5),
            initial_rate: Bitrate::kbps(300.0),
        }
    }
}

impl ScreamV2Config {
    /// The draft's variant of every rule and constant where libwebrtc differs
    /// (docs/ALGORITHMS.md, "SCReAM v2").
    pub fn draft() -> Self {
        ScreamV2Config {
            min_ref_window: DataSize::bytes(3000),
            mss: DataSize::bytes(1000),
            bytes_in_flight_head_room: 1.5,
            close_to_ref_window_i_scale: 8.0,
            enable_alr: false,
            hold_increase_at_max_rate: true,
            draft_uncongested_reset: true,
            draft_l4s_alpha_interval: true,
            loss_step_filter: false,
            feedback_hold_time_avg_g: 0.0,
            draft_pacing: true,
            chromium_pacer: false,
            draft_media_rate: true,
            ..ScreamV2Config::default()
        }
    }

    /// One line naming the first out-of-range value and its range.
    pub fn validate(&self) -> Result<(), String> {
        let frac = |name: &str, v: f64| {
            if v.is_finite() && v > 0.0 && v <= 1.0 {
                Ok(())
            } else {
                Err(format!("scream_v2.{name} must be in (0, 1], got {v}"))
            }
        };
        let frac0 = |name: &str, v: f64| {
            if v.is_finite() && (0.0..=1.0).contains(&v) {
                Ok(())
            } else {
                Err(format!("scream_v2.{name} must be in [0, 1], got {v}"))
            }
        };
        let pos = |name: &str, v: f64| {
            if v.is_finite() && v > 0.0 {
                Ok(())
            } else {
                Err(format!(
                    "scream_v2.{name} must be a positive finite number, got {v}"
                ))
            }
        };
        let at_least_one = |name: &str, v: f64| {
            if v.is_finite() && v >= 1.0 {
                Ok(())
            } else {
                Err(format!("scream_v2.{name} must be at least 1, got {v}"))
            }
        };
        let dur = |name: &str, d: TimeDelta| {
            if d.is_positive() {
                Ok(())
            } else {
                Err(format!(
                    "scream_v2.{name} must be a positive duration, got {d}"
                ))
            }
        };
        if self.mss == DataSize::ZERO || self.min_ref_window == DataSize::ZERO {
            return Err("scream_v2.mss and scream_v2.min_ref_window must be positive".into());
        }
        at_least_one("bytes_in_flight_head_room", self.bytes_in_flight_head_room)?;
        frac("beta_loss", self.beta_loss)?;
        pos(
            "post_congestion_delay_rtts",
            self.post_congestion_delay_rtts,
        )?;
        frac0(
            "multiplicative_increase_factor",
            self.multiplicative_increase_factor,
        )?;
        dur("virtual_rtt", self.virtual_rtt)?;
        pos(
            "close_to_ref_window_i_scale",
            self.close_to_ref_window_i_scale,
        )?;
        pos(
            "reset_after_uncongested_rtts",
            self.reset_after_uncongested_rtts,
        )?;
        frac("l4s_avg_g_up", self.l4s_avg_g_up)?;
        frac("l4s_avg_g_down", self.l4s_avg_g_down)?;
        at_least_one(
            "rtts_with_loss_before_backoff",
            self.rtts_with_loss_before_backoff,
        )?;
        at_least_one(
            "lossless_rtts_before_clear",
            self.lossless_rtts_before_clear,
        )?;
        dur("qdelay_target", self.qdelay_target)?;
        frac("qdelay_avg_g", self.qdelay_avg_g)?;
        frac(
            "delay_min_and_latency_diff_avg_g",
            self.delay_min_and_latency_diff_avg_g,
        )?;
        dur("qdelay_min_threshold", self.qdelay_min_threshold)?;
        dur("latency_diff_threshold", self.latency_diff_threshold)?;
        if self.base_delay_history == 0 {
            return Err("scream_v2.base_delay_history must be at least 1".into());
        }
        dur("base_delay_interval", self.base_delay_interval)?;
        dur("qdelay_drain_threshold", self.qdelay_drain_threshold)?;
        dur("qdelay_drain_period", self.qdelay_drain_period)?;
        pos("qdelay_drain_rtts", self.qdelay_drain_rtts)?;
        frac("srtt_avg_g", self.srtt_avg_g)?;
        frac("srtt_avg_in_alr_g", self.srtt_avg_in_alr_g)?;
        frac0("feedback_hold_time_avg_g", self.feedback_hold_time_avg_g)?;
        at_least_one("ref_window_overhead_min", self.ref_window_overhead_min)?;
        if !(self.ref_window_overhead_max.is_finite()
            && self.ref_window_overhead_max >= self.ref_window_overhead_min)
        {
            return Err(format!(
                "scream_v2.ref_window_overhead_max must be at least ref_window_overhead_min ({}), got {}",
                self.ref_window_overhead_min, self.ref_window_overhead_max
            ));
        }
        at_least_one("pacing_factor", self.pacing_factor)?;
        at_least_one("packet_pacing_headroom", self.packet_pacing_headroom)?;
        at_least_one("max_relaxed_pacing_factor", self.max_relaxed_pacing_factor)?;
        if !(self.relaxed_pacing_limit_low.is_finite()
            && self.relaxed_pacing_limit_low >= 0.0
            && self.relaxed_pacing_limit_low < 1.0)
        {
            return Err(format!(
                "scream_v2.relaxed_pacing_limit_low must be in [0, 1), got {}",
                self.relaxed_pacing_limit_low
            ));
        }
        // A zero window paces every packet (libwebrtc: a zero `send_burst_interval_`).
        for (name, d) in [
            ("pacing_window_ms", self.pacing_window),
            (
                "pacing_window_after_congestion_ms",
                self.pacing_window_after_congestion,
            ),
        ] {
            if d < TimeDelta::ZERO || d > TimeDelta::secs(1) {
                return Err(format!("scream_v2.{name} must be in [0, 1000] ms, got {d}"));
            }
        }
        dur(
            "large_bursts_after_congestion_ms",
            self.large_bursts_after_congestion,
        )?;
        frac("rate_adjust_gain", self.rate_adjust_gain)?;
        frac("frame_size_dev_alpha", self.frame_size_dev_alpha)?;
        let rate = |name: &str, r: Bitrate| {
            if r.is_finite() && r.as_bps() > 0.0 {
                Ok(())
            } else {
                Err(format!("scream_v2.{name} must be a positive rate, got {r}"))
            }
        };
        rate("min_rate", self.min_rate)?;
        rate("max_rate", self.max_rate)?;
        rate("initial_rate", self.initial_rate)?;
        rate("rate_pace_min", self.rate_pace_min)?;
        if self.min_rate > self.max_rate {
            return Err(format!(
                "scream_v2.min_rate ({}) must not exceed scream_v2.max_rate ({})",
                self.min_rate, self.max_rate
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_the_draft_variant_are_valid() {
        assert_eq!(ScreamV2Config::default().validate(), Ok(()));
        assert_eq!(ScreamV2Config::draft().validate(), Ok(()));
    }

    #[test]
    fn bad_values_name_the_key() {
        let c = ScreamV2Config {
            l4s_avg_g_up: 0.0,
            ..ScreamV2Config::default()
        };
        assert!(c.validate().unwrap_err().contains("scream_v2.l4s_avg_g_up"));
        let c = ScreamV2Config {
            min_rate: Bitrate::mbps(3.0),
            ..ScreamV2Config::default()
        };
        assert!(c.validate().unwrap_err().contains("min_rate"));
    }
}
