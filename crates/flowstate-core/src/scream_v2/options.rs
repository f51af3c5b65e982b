//! Every option of [`ScreamV2Config`] as a scenario sets it: key, unit, description and
//! default in one table, which the simulator's flow overrides and `flowstate list-options`
//! read.

use super::ScreamV2Config;
use crate::config_options::ConfigOption;

impl ScreamV2Config {
    /// The SCReAM v2 options, in the order they are listed.
    pub const OPTIONS: &'static [ConfigOption<ScreamV2Config>] = crate::config_options!(ScreamV2Config {
        /// MinRefWindow: the smallest reference window (libwebrtc scream_v2_parameters.cc;
        /// draft 4.2.2 MIN_REF_WND 3000 B).
        min_ref_window: Bytes => min_ref_window;
        /// MaxSegmentSize (libwebrtc 1280 B; draft 4.2.2 MSS 1000 B).
        mss: Bytes => mss;
        /// BytesInFlightHeadRoom: the window grows only below MSS + this x the largest data in
        /// flight of the last two RTTs (libwebrtc 1.1; draft 4.2.2 1.5).
        bytes_in_flight_head_room: Number => bytes_in_flight_head_room;
        /// BetaLoss: window scale on a loss event (draft 4.2.2 BETA_LOSS).
        beta_loss: Number => beta_loss;
        /// PostCongestionDelayRtts: RTTs after congestion during which multiplicative increase
        /// is held back (draft 4.2.2).
        post_congestion_delay_rtts: Number => post_congestion_delay_rtts;
        /// MultiplicativeIncreaseFactor (draft 4.2.2 MUL_INCREASE_FACTOR).
        multiplicative_increase_factor: Number => multiplicative_increase_factor;
        /// VirtualRtt (draft 4.2.2 VIRTUAL_RTT).
        virtual_rtt_ms: Millis => virtual_rtt;
        /// BackoffScaleFactorCloseToRefWindowI: slow-down near the inflection point (libwebrtc
        /// 2.0; draft 4.2.2.1 8).
        close_to_ref_window_i_scale: Number => close_to_ref_window_i_scale;
        /// RTTs without congestion after which a CE event first pulls the window to the data in
        /// flight (draft 4.2.2.1; libwebrtc NumberOfRttsBetweenResetRefWindowIOnCongestion).
        reset_after_uncongested_rtts: Number => reset_after_uncongested_rtts;
        /// The draft's window reset on the first CE event after that many uncongested
        /// RTTs (draft 4.2.2.1); false: libwebrtc's, whose test never fires.
        draft_uncongested_reset: Flag => draft_uncongested_reset;
        /// EnableAlr: no window growth and a slower RTT filter while application-limited
        /// (libwebrtc; not in the draft).
        enable_alr: Flag => enable_alr;
        /// The draft's rule: no window growth while the target is at max_rate (draft 4.2.2.2;
        /// libwebrtc: none).
        hold_increase_at_max_rate: Flag => hold_increase_at_max_rate;
        /// L4sAvgGUp: l4s_alpha gain while the marked fraction rises (draft 4.2.1.3
        /// L4S_AVG_G_UP).
        l4s_avg_g_up: Number => l4s_avg_g_up;
        /// L4sAvgGDown: l4s_alpha decay while it falls (draft 4.2.1.3 L4S_AVG_G_DOWN).
        l4s_avg_g_down: Number => l4s_avg_g_down;
        /// The draft's l4s_alpha cadence: marks counted over min(10 ms, s_rtt) per update
        /// (draft 4.2.1.3); false: every feedback (libwebrtc).
        draft_l4s_alpha_interval: Flag => draft_l4s_alpha_interval;
        /// libwebrtc's loss step filter (loss_estimator.cc): back off for loss only after
        /// consecutive lossy RTTs or with queue delay; false: every loss event (draft 4.2.2.1).
        loss_step_filter: Flag => loss_step_filter;
        /// RttsWithLossBeforeBackoff (libwebrtc loss_estimator.cc).
        rtts_with_loss_before_backoff: Number => rtts_with_loss_before_backoff;
        /// LosslessRttsBeforeClear (libwebrtc loss_estimator.cc).
        lossless_rtts_before_clear: Number => lossless_rtts_before_clear;
        /// QDelayTarget: virtual CE above half of it (draft 4.2.1.4 QDELAY_TARGET_LO).
        qdelay_target_ms: Millis => qdelay_target;
        /// QDelayAvgG: gain of qdelay_avg (draft 4.2.1.4 QDELAY_AVG_G).
        qdelay_avg_g: Number => qdelay_avg_g;
        /// DelayMinAndLatencyDiffAvgG: gain of the delay-variation averages (libwebrtc; draft
        /// 4.2.1.4 QDELAY_DEV_AVG_G).
        delay_min_and_latency_diff_avg_g: Number => delay_min_and_latency_diff_avg_g;
        /// QDelayMinThreshold: averaged minimum queue delay that slows the increase to 0.1
        /// (libwebrtc; draft 4.2.1.4 QDELAY_DEV_THRESHOLD).
        qdelay_min_threshold_ms: Millis => qdelay_min_threshold;
        /// LatencyDiffThreshold: the same for the one-way-delay spread per feedback
        /// (libwebrtc).
        latency_diff_threshold_ms: Millis => latency_diff_threshold;
        /// BaseDelayWindowLength: base-delay minima kept (RFC 6817 as the draft 4.2.1.4 cites).
        base_delay_history: Count => base_delay_history;
        /// BaseDelayHistoryUpdateInterval: the interval of one base-delay minimum (libwebrtc 60
        /// s).
        base_delay_interval_ms: Millis => base_delay_interval;
        /// QDelayDrainThreshold: minimum queue delay above which the queue counts as undrained
        /// (libwebrtc).
        qdelay_drain_threshold_ms: Millis => qdelay_drain_threshold;
        /// QDelayDrainPeriod: undrained this long, the target is halved to drain (libwebrtc;
        /// draft 4.5.1).
        qdelay_drain_period_ms: Millis => qdelay_drain_period;
        /// QDelayDrainRtts: the halving lasts max(100 ms, this x s_rtt), then the delay
        /// estimate resets (libwebrtc; draft 4.5.1).
        qdelay_drain_rtts: Number => qdelay_drain_rtts;
        /// SmoothedRttAvgG (libwebrtc).
        srtt_avg_g: Number => srtt_avg_g;
        /// SmoothedRttAvgInAlrG: the RTT gain while application-limited (libwebrtc).
        srtt_avg_in_alr_g: Number => srtt_avg_in_alr_g;
        /// FeedbackHoldTimeAvgG: gain of the receiver's feedback hold time added to the RTT in
        /// the target (libwebrtc; 0 ignores it, as the draft).
        feedback_hold_time_avg_g: Number => feedback_hold_time_avg_g;
        /// RefWinMin: least factor bytes in flight may exceed the window by (draft 4.3.1
        /// REF_WND_OVERHEAD_MIN).
        ref_window_overhead_min: Number => ref_window_overhead_min;
        /// RefWinMax: the largest, with a steady delay (draft 4.3.1 REF_WND_OVERHEAD_MAX).
        ref_window_overhead_max: Number => ref_window_overhead_max;
        /// PacingFactor: pacing rate = target x this (libwebrtc ScreamV2::pacing_rate).
        pacing_factor: Number => pacing_factor;
        /// The draft's pacing with headroom and relaxed pacing near max_rate (draft 4.3.2);
        /// false: libwebrtc's.
        draft_pacing: Flag => draft_pacing;
        /// RATE_PACE_MIN (draft 4.3.2; with draft_pacing).
        rate_pace_min: BitsPerSec => rate_pace_min;
        /// PACKET_PACING_HEADROOM (draft 4.3.2; with draft_pacing).
        packet_pacing_headroom: Number => packet_pacing_headroom;
        /// MAX_RELAXED_PACING_FACTOR (draft 4.3.2; with draft_pacing).
        max_relaxed_pacing_factor: Number => max_relaxed_pacing_factor;
        /// RELAXED_PACING_LIMIT_LOW (draft 4.3.2; with draft_pacing).
        relaxed_pacing_limit_low: Number => relaxed_pacing_limit_low;
        /// Chromium's pacer: a media debt drained within a burst window (libwebrtc
        /// PacingController with ScreamNetworkController's pacer window); false: one packet
        /// time at the pacing rate between packets (the draft's pacer, 4.3.2).
        chromium_pacer: Flag => chromium_pacer;
        /// The pacer's burst window away from congestion (libwebrtc
        /// default_pacing_time_window, PacerConfig::kDefaultTimeInterval; with chromium_pacer).
        pacing_window_ms: Millis => pacing_window;
        /// The burst window within large_bursts_after_congestion_ms of a reaction to
        /// congestion (libwebrtc ScreamNetworkController 10 ms; with chromium_pacer).
        pacing_window_after_congestion_ms: Millis => pacing_window_after_congestion;
        /// AllowLargePacingBurstsAfterCongestionTime (libwebrtc; with chromium_pacer).
        large_bursts_after_congestion_ms: Millis => large_bursts_after_congestion;
        /// The draft's media rate control (draft 4.4: rate_adjust_factor, frame_size_dev,
        /// packet overhead, 1/1.2); false: libwebrtc's ref_window / (s_rtt + hold time).
        draft_media_rate: Flag => draft_media_rate;
        /// PACKET_OVERHEAD (draft 4.4; with draft_media_rate).
        packet_overhead: Bytes => packet_overhead;
        /// RATE_ADJUST_GAIN (draft 4.4; with draft_media_rate).
        rate_adjust_gain: Number => rate_adjust_gain;
        /// FRAME_SIZE_DEV_ALPHA (draft 4.4; with draft_media_rate).
        frame_size_dev_alpha: Number => frame_size_dev_alpha;
        /// TARGET_BITRATE_MIN (draft 4.4).
        min_rate: BitsPerSec => min_rate;
        /// TARGET_BITRATE_MAX (draft 4.4).
        max_rate: BitsPerSec => max_rate;
        /// The start rate (libwebrtc ScreamNetworkController kDefaultStartRate).
        initial_rate: BitsPerSec => initial_rate;
    });
}
