//! The `overrides` of `nada`, `scream` and `ledbat` flows as flowstate-core
//! configurations (RFC 8698, RFC 8298, RFC 6817 defaults for every key not set), with
//! the checks a scenario gets: every number finite and >= 0, counts whole and >= 1,
//! then the controller's own bounds (`NadaConfig::validate`, ...), each as a one-line
//! error at the key (`.x_ref_ms`).

use crate::error::FieldError;
use crate::overrides::{
    LedbatOverrides, NadaOverrides, OverrideDef, ScreamOverrides, NADA_FEEDBACK_INTERVAL_MS,
    SCREAM_FEEDBACK_INTERVAL_MS,
};
use crate::units_parse::{Bps, Bytes};
use flowstate_core::nada::NadaConfig;
use flowstate_core::scream::ScreamConfig;
use flowstate_core::window::LedbatConfig;
use flowstate_core::{Bitrate, DataSize, TimeDelta};

/// The frame rates a media flow's `fps` may take (as `gcc` flows' `FPS_RANGE`).
const FPS: (f64, f64) = (1.0, 1000.0);

/// Every number set is finite and >= 0.
fn check_numbers(numbers: &[(&'static str, f64)]) -> Result<(), FieldError> {
    for &(key, v) in numbers {
        if !(v.is_finite() && v >= 0.0) {
            return Err(FieldError::new(
                format!(".{key}"),
                format!("must be a finite number >= 0, got {v}"),
            ));
        }
    }
    Ok(())
}

fn duration(key: &str, v: f64) -> Result<TimeDelta, FieldError> {
    // Durations are written in ms; at most a day.
    if v > 86_400_000.0 {
        return Err(FieldError::new(
            format!(".{key}"),
            format!("must be at most 86400000 ms (a day), got {v} ms"),
        ));
    }
    Ok(TimeDelta::from_secs_f64(v / 1e3))
}

/// An RFC 8888 report interval of at least
/// [`crate::bounds::MIN_FEEDBACK_INTERVAL_SECS`]: every report is an event per flow.
fn min_feedback_interval(interval: TimeDelta) -> Result<(), FieldError> {
    let secs = interval.as_secs_f64();
    if secs < crate::bounds::MIN_FEEDBACK_INTERVAL_SECS {
        return Err(FieldError::new(
            ".feedback_interval_ms",
            format!(
                "must be at least {} ms, got {} ms",
                crate::bounds::MIN_FEEDBACK_INTERVAL_SECS * 1e3,
                secs * 1e3
            ),
        ));
    }
    Ok(())
}

fn count(key: &str, v: f64) -> Result<u64, FieldError> {
    if v.fract() != 0.0 || !(1.0..=1e6).contains(&v) {
        return Err(FieldError::new(
            format!(".{key}"),
            format!("must be a whole number from 1 to 1000000, got {v}"),
        ));
    }
    Ok(v as u64)
}

fn rate(b: Bps) -> Bitrate {
    Bitrate::bps(b.0)
}

fn size(b: Bytes) -> DataSize {
    DataSize::bytes(b.0.round() as u64)
}

fn fps(v: f64) -> Result<f64, FieldError> {
    if !(FPS.0..=FPS.1).contains(&v) {
        return Err(FieldError::new(
            ".fps",
            format!(
                "must be between {} and {} frames per second, got {v}",
                FPS.0, FPS.1
            ),
        ));
    }
    Ok(v)
}

/// A controller's `validate()` message (`nada.x_ref must ...`) at the override key
/// that sets the field (`.x_ref_ms: x_ref_ms must ...`).
fn at_key(prefix: &str, defs: &[OverrideDef], message: &str) -> FieldError {
    let key_of = |field: &str| {
        defs.iter()
            .map(|d| d.name)
            .find(|&n| n == field || n.strip_suffix("_ms") == Some(field))
            .unwrap_or("")
    };
    let field: String = message
        .strip_prefix(prefix)
        .unwrap_or("")
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    let key = key_of(&field);
    let mut text = message.to_string();
    for d in defs {
        let f = d.name.strip_suffix("_ms").unwrap_or(d.name);
        text = text.replace(&format!("{prefix}{f} "), &format!("{} ", d.name));
        text = text.replace(&format!("{prefix}{f})"), &format!("{})", d.name));
        text = text.replace(&format!("{prefix}{f},"), &format!("{},", d.name));
    }
    let text = text.replace(prefix, "");
    if key.is_empty() {
        FieldError::new("", text)
    } else {
        FieldError::new(format!(".{key}"), text)
    }
}

/// A `nada` flow's configuration and its RFC 8888 feedback interval.
pub fn nada_config(o: &NadaOverrides) -> Result<(NadaConfig, TimeDelta), FieldError> {
    check_numbers(&o.numbers())?;
    let mut c = NadaConfig::default();
    macro_rules! set {
        ($($key:ident => $field:ident: $conv:expr),* $(,)?) => {$(
            if let Some(v) = o.$key {
                c.$field = $conv(stringify!($key), v)?;
            }
        )*};
    }
    let plain = |_: &str, v: f64| Ok::<_, FieldError>(v);
    let r = |_: &str, v: Bps| Ok::<_, FieldError>(rate(v));
    set!(
        prio => prio: plain,
        min_rate => min_rate: r,
        max_rate => max_rate: r,
        initial_rate => initial_rate: r,
        x_ref_ms => x_ref: duration,
        kappa => kappa: plain,
        eta => eta: plain,
        tau_ms => tau: duration,
        delta_ms => delta: duration,
        logwin_ms => logwin: duration,
        qeps_ms => qeps: duration,
        dfilt_ms => dfilt: duration,
        gamma_max => gamma_max: plain,
        qbound_ms => qbound: duration,
        multiloss => multiloss: plain,
        qth_ms => qth: duration,
        lambda => lambda: plain,
        plr_ref => plr_ref: plain,
        pmr_ref => pmr_ref: plain,
        d_loss_ms => d_loss: duration,
        d_mark_ms => d_mark: duration,
        fps => fps: |_: &str, v| fps(v),
        beta_s => beta_s: plain,
        beta_v => beta_v: plain,
        alpha => alpha: plain,
        max_rate_offset => max_rate_offset: plain,
        min_filter_taps => min_filter_taps: |k: &str, v| count(k, v).map(|n| n as usize),
        warp_blend_after_expiry => warp_blend_after_expiry: |_: &str, v| Ok::<_, FieldError>(v),
        x_max_ms => x_max: |k: &str, v| duration(k, v).map(Some),
    );
    c.validate()
        .map_err(|m| at_key("nada.", NadaOverrides::DEFINITIONS, &m))?;
    let interval = match o.feedback_interval_ms {
        Some(v) => duration("feedback_interval_ms", v)?,
        None if o.delta_ms.is_some() => c.delta,
        None => TimeDelta::from_secs_f64(NADA_FEEDBACK_INTERVAL_MS / 1e3),
    };
    min_feedback_interval(interval)?;
    Ok((c, interval))
}

/// A `scream` flow's configuration, its RFC 8888 feedback interval and frame rate.
pub fn scream_config(o: &ScreamOverrides) -> Result<(ScreamConfig, TimeDelta, f64), FieldError> {
    check_numbers(&o.numbers())?;
    let mut c = ScreamConfig::default();
    macro_rules! set {
        ($($key:ident => $field:ident: $conv:expr),* $(,)?) => {$(
            if let Some(v) = o.$key {
                c.$field = $conv(stringify!($key), v)?;
            }
        )*};
    }
    let plain = |_: &str, v: f64| Ok::<_, FieldError>(v);
    let r = |_: &str, v: Bps| Ok::<_, FieldError>(rate(v));
    let b = |_: &str, v: Bytes| Ok::<_, FieldError>(size(v));
    let n = |k: &str, v: f64| count(k, v).map(|n| n as usize);
    set!(
        qdelay_target_ms => qdelay_target: duration,
        qdelay_target_hi_ms => qdelay_target_hi: duration,
        competing_flows_compensation => competing_flows_compensation: |_: &str, v| Ok::<_, FieldError>(v),
        qdelay_trend_lo => qdelay_trend_lo: plain,
        qdelay_weight => qdelay_weight: plain,
        qdelay_trend_th => qdelay_trend_th: plain,
        qdelay_trend_mem_decay => qdelay_trend_mem_decay: plain,
        qdelay_hist_interval_ms => qdelay_hist_interval: duration,
        qdelay_hist_len => qdelay_hist_len: n,
        min_cwnd => min_cwnd: b,
        initial_cwnd => initial_cwnd: b,
        mss => mss: b,
        gain => gain: plain,
        beta_loss => beta_loss: plain,
        beta_ecn => beta_ecn: plain,
        max_bytes_in_flight_head_room => max_bytes_in_flight_head_room: plain,
        bytes_in_flight_window_ms => bytes_in_flight_window: duration,
        fast_increase_use_factor => fast_increase_use_factor: plain,
        increase_use_factor => increase_use_factor: plain,
        fast_increase_resume_ms => fast_increase_resume: duration,
        reorder_time_ms => reorder_time: duration,
        packet_pacing_headroom => packet_pacing_headroom: plain,
        rate_pace_min => rate_pace_min: r,
        base_owd_history => base_owd_history: n,
        base_owd_interval_ms => base_owd_interval: duration,
        min_rate => min_rate: r,
        max_rate => max_rate: r,
        initial_rate => initial_rate: r,
        rate_adjust_interval_ms => rate_adjust_interval: duration,
        ramp_up_speed => ramp_up_speed: plain,
        beta_r_loss => beta_r_loss: plain,
        pre_congestion_guard => pre_congestion_guard: plain,
        tx_queue_size_factor => tx_queue_size_factor: plain,
        rtp_qdelay_th_ms => rtp_qdelay_th: duration,
        target_rate_scale_rtp_qdelay => target_rate_scale_rtp_qdelay: plain,
        rate_media_median_window_ms => rate_media_median_window: duration,
        rtp_queue_delay_max_ms => rtp_queue_delay_max: duration,
        rtp_queue_discard_interval_ms => rtp_queue_discard_interval: duration,
        rate_window_ms => rate_window: duration,
    );
    c.validate()
        .map_err(|m| at_key("scream.", ScreamOverrides::DEFINITIONS, &m))?;
    let interval = duration(
        "feedback_interval_ms",
        o.feedback_interval_ms
            .unwrap_or(SCREAM_FEEDBACK_INTERVAL_MS),
    )?;
    min_feedback_interval(interval)?;
    let f = match o.fps {
        Some(v) => fps(v)?,
        None => flowstate_core::source::EncoderBounds::paper000().fps,
    };
    Ok((c, interval, f))
}

/// A `ledbat` flow's configuration.
pub fn ledbat_config(o: &LedbatOverrides) -> Result<LedbatConfig, FieldError> {
    check_numbers(&o.numbers())?;
    let mut c = LedbatConfig::default();
    if let Some(m) = o.mss {
        c.mss = size(m);
    }
    if let Some(g) = o.gain {
        c.gain = g;
    }
    if let Some(v) = o.target_ms {
        c.target = duration("target_ms", v)?;
    }
    if let Some(v) = o.base_history {
        c.base_history = count("base_history", v)? as usize;
    }
    if let Some(v) = o.base_interval_ms {
        c.base_interval = duration("base_interval_ms", v)?;
    }
    if let Some(v) = o.current_filter {
        c.current_filter = count("current_filter", v)? as usize;
    }
    if let Some(v) = o.allowed_increase {
        c.allowed_increase = count("allowed_increase", v)?;
    }
    if let Some(v) = o.init_cwnd {
        c.init_cwnd = count("init_cwnd", v)?;
    }
    if let Some(v) = o.min_cwnd {
        c.min_cwnd = count("min_cwnd", v)?;
    }
    if let Some(m) = o.message_size {
        if m.0 < 1.0 {
            return Err(FieldError::new(
                ".message_size",
                format!("must be at least 1 B, got {} B", m.0),
            ));
        }
    }
    c.validate()
        .map_err(|m| at_key("ledbat.", LedbatOverrides::DEFINITIONS, &m))?;
    Ok(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse<T: serde::de::DeserializeOwned>(toml: &str) -> T {
        let t: toml::Table = toml::from_str(toml).expect("toml");
        crate::overrides::parse(&t).expect("parses")
    }

    #[test]
    fn defaults_are_the_rfcs() {
        let (n, fb) = nada_config(&NadaOverrides::default()).expect("valid");
        assert_eq!(n, NadaConfig::default());
        assert_eq!(fb, TimeDelta::millis(100));
        let (s, fb, fps) = scream_config(&ScreamOverrides::default()).expect("valid");
        assert_eq!(s, ScreamConfig::default());
        assert_eq!((fb, fps), (TimeDelta::millis(20), 30.0));
        assert_eq!(
            ledbat_config(&LedbatOverrides::default()),
            Ok(LedbatConfig::default())
        );
    }

    #[test]
    fn every_override_reaches_the_config() {
        let (n, fb) = nada_config(&parse(
            "x_ref_ms = 20\nkappa = 0.25\ndelta_ms = 50\nmin_filter_taps = 5\nmax_rate = \"2Mbps\"",
        ))
        .expect("valid");
        assert_eq!(n.x_ref, TimeDelta::millis(20));
        assert_eq!(n.kappa, 0.25);
        assert_eq!(n.min_filter_taps, 5);
        assert_eq!(n.max_rate, Bitrate::mbps(2.0));
        // The feedback interval follows DELTA unless set.
        assert_eq!(fb, TimeDelta::millis(50));
        let (s, _, _) = scream_config(&parse(
            "qdelay_target_ms = 60\nmss = \"1200B\"\nmin_cwnd = \"3600B\"",
        ))
        .expect("valid");
        assert_eq!(s.qdelay_target, TimeDelta::millis(60));
        assert_eq!(s.mss, DataSize::bytes(1200));
        let l = ledbat_config(&parse("target_ms = 25\ngain = 0.5\ninit_cwnd = 4")).expect("valid");
        assert_eq!(
            (l.target, l.gain, l.init_cwnd),
            (TimeDelta::millis(25), 0.5, 4)
        );
    }

    #[test]
    fn bad_values_are_one_line_errors_at_their_key() {
        let e = nada_config(&parse("x_ref_ms = 0")).expect_err("zero");
        assert_eq!(e.field, ".x_ref_ms");
        assert!(
            e.message
                .starts_with("x_ref_ms must be a positive duration"),
            "{e}"
        );
        let e = nada_config(&parse("max_rate = \"100kbps\"")).expect_err("below RMIN");
        assert_eq!(e.field, ".max_rate");
        let e = nada_config(&parse("kappa = -1")).expect_err("negative");
        assert_eq!(
            e.to_string(),
            ".kappa: must be a finite number >= 0, got -1"
        );
        let e = nada_config(&parse("min_filter_taps = 2.5")).expect_err("fraction");
        assert_eq!(e.field, ".min_filter_taps");
        let e = scream_config(&parse("beta_loss = 1.5")).expect_err("above 1");
        assert_eq!(e.field, ".beta_loss");
        let e = scream_config(&parse("fps = 0.5")).expect_err("fps");
        assert_eq!(e.field, ".fps");
        let e = ledbat_config(&parse("target_ms = 150")).expect_err("RFC 6817 MUST");
        assert_eq!(e.field, ".target_ms");
        assert!(!e.to_string().contains('\n'));
    }
}
