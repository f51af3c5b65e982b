//! Every option of [`NadaConfig`] as a scenario sets it: key, unit, description and
//! default in one table (RFC 8698 section 4.1 (Figure 3)), which the simulator's flow overrides and
//! `flowstate list-options` read.

use super::NadaConfig;
use crate::config_options::ConfigOption;

impl NadaConfig {
    /// The NADA options, in the order they are listed.
    pub const OPTIONS: &'static [ConfigOption<NadaConfig>] = crate::config_options!(NadaConfig {
        /// PRIO: weight of priority of the flow (RFC 8698 section 4.1).
        prio: Number => prio;
        /// RMIN: minimum rate of the application (RFC 8698 section 4.1).
        min_rate: BitsPerSec => min_rate;
        /// RMAX: maximum rate of the application (RFC 8698 section 4.1).
        max_rate: BitsPerSec => max_rate;
        /// The reference rate before the first feedback (RFC 8698 section 4.3 starts at
        /// RMIN).
        initial_rate: BitsPerSec => initial_rate;
        /// XREF: reference congestion level (RFC 8698 section 4.1).
        x_ref_ms: Millis => x_ref;
        /// KAPPA: scaling parameter of the gradual rate update (RFC 8698 section 4.1).
        kappa: Number => kappa;
        /// ETA: scaling parameter of the gradual rate update (RFC 8698 section 4.1).
        eta: Number => eta;
        /// TAU: upper bound of the RTT in the gradual rate update (RFC 8698 section 4.1).
        tau_ms: Millis => tau;
        /// DELTA: target feedback interval, the interval of the RFC 8888 reports
        /// (RFC 8698 section 4.1).
        delta_ms: Millis => delta;
        /// LOGWIN: observation window in time (RFC 8698 section 4.1).
        logwin_ms: Millis => logwin;
        /// QEPS: threshold for determining queuing delay build-up (RFC 8698 section 4.1).
        qeps_ms: Millis => qeps;
        /// DFILT: bound on the filtering delay (RFC 8698 section 4.1).
        dfilt_ms: Millis => dfilt;
        /// GAMMA_MAX: upper bound on the rate increase ratio of accelerated ramp-up
        /// (RFC 8698 section 4.1).
        gamma_max: Number => gamma_max;
        /// QBOUND: upper bound on the self-inflicted queuing delay during ramp-up (RFC
        /// 8698 section 4.1).
        qbound_ms: Millis => qbound;
        /// MULTILOSS: multiplier of the average loss interval giving the expiry of the
        /// last loss (RFC 8698 section 4.1).
        multiloss: Number => multiloss;
        /// QTH: queuing-delay threshold for invoking non-linear warping (RFC 8698 section
        /// 4.1).
        qth_ms: Millis => qth;
        /// LAMBDA: exponent of the non-linear warping (RFC 8698 section 4.1).
        lambda: Number => lambda;
        /// PLRREF: reference packet loss ratio (RFC 8698 section 4.1).
        plr_ref: Number => plr_ref;
        /// PMRREF: reference packet marking ratio (RFC 8698 section 4.1).
        pmr_ref: Number => pmr_ref;
        /// DLOSS: reference delay penalty for loss at PLRREF (RFC 8698 section 4.1).
        d_loss_ms: Millis => d_loss;
        /// DMARK: reference delay penalty for ECN marking at PMRREF (RFC 8698 section
        /// 4.1).
        d_mark_ms: Millis => d_mark;
        /// FPS: frame rate of the video, also the encoder model's (RFC 8698 section 4.1).
        fps: FramesPerSec => fps;
        /// BETA_S: scaling of the sending-rate deviation from r_ref (RFC 8698 section 4.1).
        beta_s: Number => beta_s;
        /// BETA_V: scaling of the encoder-rate deviation from r_ref (RFC 8698 section 4.1).
        beta_v: Number => beta_v;
        /// ALPHA: smoothing factor of the loss and marking ratios (RFC 8698 section 4.1).
        alpha: Number => alpha;
        /// The largest offset of r_vin and r_send from r_ref as a fraction of r_ref (RFC
        /// 8698 equations (11), (12): 0.05).
        max_rate_offset: Number => max_rate_offset;
        /// Taps of the minimum filter on raw queuing-delay samples (RFC 8698 section
        /// 5.1.1: 15).
        min_filter_taps: Count => min_filter_taps;
        /// Deviation (ns3-rmcat): after the last loss expires, blend warped and raw delay
        /// over one more loss interval; `false` is RFC 8698 section 4.2.
        warp_blend_after_expiry: Flag => warp_blend_after_expiry;
        /// Deviation: the average loss interval as an EWMA (ALPHA) of the intervals after
        /// the first; `false` is TFRC's weighted average of the newest eight with the open
        /// interval (RFC 5348 section 5.4, as the reference implementation).
        loss_interval_ewma: Flag => loss_interval_ewma;
        /// Deviation (ns3-rmcat NADA_PARAM_XMAX): clip x_curr to this; unset is the RFC
        /// (no clip).
        x_max_ms: Millis => x_max;
    });
}
