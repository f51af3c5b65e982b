//! Every option of [`LedbatConfig`] as a scenario sets it: key, unit, description and
//! default in one table (RFC 6817 section 2.5), which the simulator's flow overrides and
//! `flowstate list-options` read.

use super::ledbat::LedbatConfig;
use crate::config_options::ConfigOption;

impl LedbatConfig {
    /// The LEDBAT options, in the order they are listed.
    pub const OPTIONS: &'static [ConfigOption<LedbatConfig>] = crate::config_options!(LedbatConfig {
        /// MSS: the unit of the window, the segment payload (RFC 6817 section 2.5).
        mss: Bytes => mss;
        /// GAIN: at most 1 (RFC 6817 section 2.5).
        gain: Number => gain;
        /// TARGET: the queuing delay LEDBAT aims at; at most 100 ms (RFC 6817 section 2.5).
        target_ms: Millis => target;
        /// BASE_HISTORY: base-delay minima kept (RFC 6817 section 2.5).
        base_history: Count => base_history;
        /// The period of one base-delay minimum (RFC 6817 section 2.4.2: one minute).
        base_interval_ms: Millis => base_interval;
        /// CURRENT_FILTER: recent delays FILTER() (the minimum) looks at (RFC 6817 section
        /// 2.5).
        current_filter: Count => current_filter;
        /// ALLOWED_INCREASE in MSS (RFC 6817 section 2.5).
        allowed_increase: Count => allowed_increase;
        /// INIT_CWND in MSS (RFC 6817 section 2.5).
        init_cwnd: Count => init_cwnd;
        /// MIN_CWND in MSS (RFC 6817 section 2.5).
        min_cwnd: Count => min_cwnd;
    });
}
