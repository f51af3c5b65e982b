//! Every option of [`ScreamConfig`] as a scenario sets it: key, unit, description and
//! default in one table (RFC 8298 sections 4.1.2.1 and 4.1.3.1), which the simulator's flow overrides and
//! `flowstate list-options` read.

use super::ScreamConfig;
use crate::config_options::ConfigOption;

impl ScreamConfig {
    /// The SCReAM v1 options, in the order they are listed.
    pub const OPTIONS: &'static [ConfigOption<ScreamConfig>] = crate::config_options!(ScreamConfig {
        /// QDELAY_TARGET_LO: the queuing-delay target (RFC 8298 section 4.1.2.1).
        qdelay_target_ms: Millis => qdelay_target;
        /// QDELAY_TARGET_HI: the ceiling of the adjusted target (RFC 8298 section 4.1.2.1).
        qdelay_target_hi_ms: Millis => qdelay_target_hi;
        /// Competing-flows compensation (RFC 8298 section 4.1.2.3, which it MAY turn off).
        competing_flows_compensation: Flag => competing_flows_compensation;
        /// QDELAY_TREND_LO (RFC 8298 section 4.1.2.1).
        qdelay_trend_lo: Number => qdelay_trend_lo;
        /// QDELAY_WEIGHT: smoothing of qdelay_fraction_avg (RFC 8298 section 4.1.2.1).
        qdelay_weight: Number => qdelay_weight;
        /// QDELAY_TREND_TH: qdelay_trend at which fast increase ends (RFC 8298 section
        /// 4.1.2.1).
        qdelay_trend_th: Number => qdelay_trend_th;
        /// Decay of qdelay_trend_mem per sample (RFC 8298 section 4.1.2.2).
        qdelay_trend_mem_decay: Number => qdelay_trend_mem_decay;
        /// Interval of the qdelay_fraction_hist samples (reference implementation).
        qdelay_hist_interval_ms: Millis => qdelay_hist_interval;
        /// Length of qdelay_fraction_hist (reference implementation).
        qdelay_hist_len: Count => qdelay_hist_len;
        /// MIN_CWND (RFC 8298 section 4.1.2.1).
        min_cwnd: Bytes => min_cwnd;
        /// The initial cwnd (reference implementation; RFC 8298 starts at MIN_CWND).
        initial_cwnd: Bytes => initial_cwnd;
        /// MSS: the packet size the window update scales with (RFC 8298 section 4.1.2.1).
        mss: Bytes => mss;
        /// GAIN of the window update (RFC 8298 section 4.1.2.1).
        gain: Number => gain;
        /// A window decrease uses GAIN x this (RFC 8298: 1; the reference code: 2).
        gain_down_factor: Number => gain_down_factor;
        /// BETA_LOSS: cwnd scale on a loss event (RFC 8298 section 4.1.2.1).
        beta_loss: Number => beta_loss;
        /// BETA_ECN: cwnd scale on an ECN-CE event (RFC 8298 section 4.1.2.1).
        beta_ecn: Number => beta_ecn;
        /// MAX_BYTES_IN_FLIGHT_HEAD_ROOM (RFC 8298 section 4.1.2.1).
        max_bytes_in_flight_head_room: Number => max_bytes_in_flight_head_room;
        /// The window over which max_bytes_in_flight is taken (RFC 8298 section 4.1.2.2).
        bytes_in_flight_window_ms: Millis => bytes_in_flight_window;
        /// Fast increase grows cwnd only while bytes_in_flight x this + bytes_newly_acked
        /// > cwnd (reference implementation).
        fast_increase_use_factor: Number => fast_increase_use_factor;
        /// Congestion avoidance grows cwnd only while bytes_in_flight x this +
        /// bytes_newly_acked > cwnd (RFC 8298 section 4.1.2.2).
        increase_use_factor: Number => increase_use_factor;
        /// T_RESUME_FAST_INCREASE (RFC 8298 section 4.1.2.1).
        fast_increase_resume_ms: Millis => fast_increase_resume;
        /// A packet unacked while one sent this much later was acked is lost (RFC 8298
        /// section 4.1.2.4; reference implementation's value).
        reorder_time_ms: Millis => reorder_time;
        /// Pacing headroom over cwnd / s_rtt (RFC 8298 section 4.1.2.6: 1.0).
        packet_pacing_headroom: Number => packet_pacing_headroom;
        /// RATE_PACE_MIN (RFC 8298 section 4.1.2.1).
        rate_pace_min: BitsPerSec => rate_pace_min;
        /// BASE_OWD history length, one minimum per interval (RFC 8298 section 4.1.2.2).
        base_owd_history: Count => base_owd_history;
        /// The interval of one BASE_OWD minimum (RFC 8298 section 4.1.2.2).
        base_owd_interval_ms: Millis => base_owd_interval;
        /// TARGET_BITRATE_MIN (RFC 8298 section 4.1.3.1).
        min_rate: BitsPerSec => min_rate;
        /// TARGET_BITRATE_MAX (RFC 8298 section 4.1.3.1).
        max_rate: BitsPerSec => max_rate;
        /// The target bitrate at start.
        initial_rate: BitsPerSec => initial_rate;
        /// RATE_ADJUST_INTERVAL (RFC 8298 section 4.1.3.1).
        rate_adjust_interval_ms: Millis => rate_adjust_interval;
        /// RAMP_UP_SPEED in bit/s per second (RFC 8298 section 4.1.3.1).
        ramp_up_speed: BitsPerSecPerSec => ramp_up_speed;
        /// BETA_R: target bitrate scale on a loss event (RFC 8298 section 4.1.3.1).
        beta_r_loss: Number => beta_r_loss;
        /// PRE_CONGESTION_GUARD (RFC 8298 section 4.1.3.1; range 0..1).
        pre_congestion_guard: Number => pre_congestion_guard;
        /// TX_QUEUE_SIZE_FACTOR (RFC 8298 section 4.1.3.1; range 0..2).
        tx_queue_size_factor: Number => tx_queue_size_factor;
        /// The media rate control's throughput term x (1 + this x min(1, 50 kbit/s /
        /// target)) (RFC 8298: 0; the reference code: 0.05).
        low_rate_push: Number => low_rate_push;
        /// The periodic media rate update also runs on feedback, not only before a frame
        /// enters the RTP queue (true; the reference code: false).
        rate_update_on_feedback: Flag => rate_update_on_feedback;
        /// RTP_QDELAY_TH: RTP queue delay above which the target is scaled down (RFC 8298
        /// section 4.1.3.1).
        rtp_qdelay_th_ms: Millis => rtp_qdelay_th;
        /// TARGET_RATE_SCALE_RTP_QDELAY (RFC 8298 section 4.1.3.1).
        target_rate_scale_rtp_qdelay: Number => target_rate_scale_rtp_qdelay;
        /// The window of rate_media_median (RFC 8298 section 4.1.3.2: more than 10 s).
        rate_media_median_window_ms: Millis => rate_media_median_window;
        /// The RTP queue is discarded when its delay exceeds this (reference
        /// implementation) ...
        rtp_queue_delay_max_ms: Millis => rtp_queue_delay_max;
        /// ... at most once per this interval (reference implementation).
        rtp_queue_discard_interval_ms: Millis => rtp_queue_discard_interval;
        /// The averaging window of the transmitted and acked rates (reference
        /// implementation).
        rate_window_ms: Millis => rate_window;
        /// No target increase while more than this waits in the RTP queue (0: off, RFC
        /// 8298; the reference code: 1500).
        rtp_queue_increase_limit: Bytes => rtp_queue_increase_limit;
        /// Weight of the previous average of rtp_queue_size in the TX-queue term (0: the
        /// size itself, RFC 8298; the reference code: 0.5).
        rtp_queue_size_smoothing: Number => rtp_queue_size_smoothing;
        /// No target decrease while the encoder's rate is below 0.8 x or above 2 x the
        /// target (false, RFC 8298; the reference code: true).
        coder_limited_decrease_guard: Flag => coder_limited_decrease_guard;
        /// The rate_media cap of the target (true, RFC 8298 section 4.1.3; the reference
        /// code: false).
        rate_media_cap: Flag => rate_media_cap;
        /// No target increase while the target is above this x the throughput (0: off,
        /// RFC 8298; the reference code: 1.5).
        increase_max_throughput_ratio: Number => increase_max_throughput_ratio;
        /// The target's fast increase only while the RTP queue's delay is below this
        /// (none: always, RFC 8298; the reference code: 100).
        fast_increase_rtp_queue_delay_max_ms: Millis => fast_increase_rtp_queue_delay_max;
        /// A delay-based window reduction takes at most this fraction of cwnd (1, RFC
        /// 8298; the reference code: 0.25).
        window_reduction_cap: Number => window_reduction_cap;
        /// Pace only while qdelay_fraction_avg is above this (0: always, RFC 8298
        /// section 4.1.2.6; the reference code: 0.05).
        pacing_min_qdelay_fraction: Number => pacing_min_qdelay_fraction;
        /// The one-way delay from send and receive clocks of this resolution (none:
        /// exact, RFC 8298; the reference code: 1).
        owd_clock_resolution_ms: Millis => owd_clock_resolution;
    });
}
