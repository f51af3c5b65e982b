//! The GCC configuration a `gcc` flow runs: its preset's ([`GccPreset::config`]) with
//! the flow's `overrides` applied (the preset's own rules for switched components:
//! [`GccPreset::adaptive_threshold`], [`GccPreset::paper_loss`]). Used by the scenario's
//! checks and the flow builder.

use super::options::{GccOverrides, RuleOrigin, ThresholdMode};
use crate::error::FieldError;
use flowstate_core::gcc::delay_based::DelayFilterConfig;
use flowstate_core::gcc::kalman::{NoiseModel, SlopeState};
use flowstate_core::gcc::loss_based::LossConfig;
use flowstate_core::gcc::threshold::{StaticThresholdConfig, ThresholdConfig};
use flowstate_core::gcc::{EstimationSide, GccConfig, GccPreset};
use flowstate_core::Bitrate;

/// The preset of a flow without `preset`.
pub const DEFAULT_PRESET: GccPreset = GccPreset::Chromium;

/// A flow's `preset` (the default without one). Error: the field is `preset`.
pub fn preset(name: Option<&str>) -> Result<GccPreset, FieldError> {
    match name {
        None => Ok(DEFAULT_PRESET),
        Some(p) => GccPreset::from_name(p).ok_or_else(|| {
            FieldError::new(
                "preset",
                format!("expected one of {}, got \"{p}\"", GccPreset::names()),
            )
        }),
    }
}

/// The GCC configuration of `preset` with a flow's `overrides` applied. Error: the
/// sub-path under `overrides` and the message, e.g. `.k_up: needs threshold = "adaptive"`.
pub fn gcc_config(preset: GccPreset, o: &GccOverrides) -> Result<GccConfig, FieldError> {
    let mut gcc = preset.config();
    if o.start_rate.is_some() || o.min_rate.is_some() || o.max_rate.is_some() {
        let a = &gcc.delay.aimd;
        let start = o.start_rate.map_or(a.start_rate, |b| Bitrate::bps(b.0));
        let min = o.min_rate.map_or(a.min_rate, |b| Bitrate::bps(b.0));
        let max = o.max_rate.map_or(a.max_rate, |b| Bitrate::bps(b.0));
        if min > max {
            let key = if o.min_rate.is_some() {
                "min_rate"
            } else {
                "max_rate"
            };
            return Err(FieldError::new(
                format!(".{key}"),
                format!(
                    "min_rate ({} bit/s) must be <= max_rate ({} bit/s)",
                    min.as_bps(),
                    max.as_bps()
                ),
            ));
        }
        let start = match o.start_rate {
            // The preset's start rate follows the bounds the flow sets.
            None => start.max(min).min(max),
            // Before: a start rate outside the bounds was silently clamped.
            Some(_) if start < min || start > max => {
                return Err(FieldError::new(
                    ".start_rate",
                    format!(
                        "start_rate ({} bit/s) must be in [min_rate, max_rate] = [{}, {}] bit/s",
                        start.as_bps(),
                        min.as_bps(),
                        max.as_bps()
                    ),
                ));
            }
            Some(_) => start,
        };
        gcc = gcc.with_rates(start, min, max);
    }
    // Today's Chromium's encoder side and feedback cadence: on in chromium-m156, each
    // override switches it on or off in any preset.
    if let Some(on) = o.chromium_fec {
        gcc.fec = on.then(flowstate_core::fec::FecConfig::default);
    }
    if let Some(on) = o.chromium_adjuster {
        gcc.encoder_adjuster =
            on.then(flowstate_core::source::encoder_adjuster::EncoderAdjusterConfig::default);
    }
    if let Some(on) = o.chromium_feedback_cadence {
        if on && gcc.side != EstimationSide::Sender {
            return Err(FieldError::new(
                ".chromium_feedback_cadence",
                format!(
                    "preset {preset} sends no transport-wide feedback (use chromium or chromium-m156)"
                ),
            ));
        }
        gcc.feedback_cadence =
            on.then(flowstate_core::gcc::feedback_cadence::FeedbackCadenceConfig::default);
    }
    if let Some(on) = o.rtcp_report_random {
        gcc.randomized_report_interval = on;
    }
    if let Some(rate) = o.feedback_peer_rate {
        let Some(cadence) = gcc.feedback_cadence.as_mut() else {
            return Err(FieldError::new(
                ".feedback_peer_rate",
                "needs chromium_feedback_cadence = true (it sets that cadence's interval)",
            ));
        };
        if !(rate.0.is_finite() && rate.0 > 0.0) {
            return Err(FieldError::new(
                ".feedback_peer_rate",
                format!("must be a bit rate > 0, got {} bit/s", rate.0),
            ));
        }
        cadence.peer_rate = Bitrate::bps(rate.0);
    }
    if let Some(p) = o.pacing_factor {
        gcc.pacing_factor = p;
        if let Some(c) = gcc.m156.as_mut().and_then(|m| m.pacing.as_mut()) {
            c.pace_multiplier = p;
        }
    }
    // The chromium-m156 components, one at a time (the preset's measured ablations).
    for (key, set) in [
        ("probing", o.probing),
        ("alr_detector", o.alr_detector),
        ("chromium_pacing", o.chromium_pacing),
        ("loss_based_v2", o.loss_based_v2),
        ("robust_throughput", o.robust_throughput),
        ("congestion_window", o.congestion_window),
    ] {
        let Some(on) = set else { continue };
        let Some(m) = gcc.m156.as_mut() else {
            return Err(FieldError::new(
                format!(".{key}"),
                format!("preset {preset} has no such component (use chromium-m156)"),
            ));
        };
        match (key, on) {
            ("probing", false) => m.probing = None,
            ("alr_detector", false) => m.alr = None,
            ("loss_based_v2", false) => m.loss_v2 = None,
            ("robust_throughput", false) => m.throughput = None,
            ("congestion_window", false) => m.congestion_window = None,
            ("chromium_pacing", false) => {
                m.pacing = None;
                gcc.pacing_factor = o.pacing_factor.unwrap_or(1.1);
            }
            _ => {}
        }
    }
    // Loss-based BWE v2's defaults: M150's in chromium-m156, M125's with `false`.
    if let Some(m150) = o.loss_v2_m150 {
        use flowstate_core::gcc::loss_based_v2::LossBasedBweV2Config;
        match gcc.m156.as_mut().map(|m| &mut m.loss_v2) {
            Some(Some(l)) if m150 => *l = LossBasedBweV2Config::m150(),
            Some(Some(l)) => *l = LossBasedBweV2Config::default(),
            _ if !m150 => {}
            _ => {
                return Err(FieldError::new(
                    ".loss_v2_m150",
                    format!("preset {preset} has no loss-based BWE v2 (use chromium-m156 with loss_based_v2 on)"),
                ));
            }
        }
    }
    let err = |k: &str, m: String| Err(FieldError::new(format!(".{k}"), m));
    // Paper 002 eq. 15: the Kalman filter's state noise Q.
    if let Some(q) = o.kalman_q {
        match &mut gcc.delay.filter {
            DelayFilterConfig::Kalman(k) => k.q = q,
            DelayFilterConfig::Trendline(_) => {
                let m = format!("preset {preset} has no Kalman filter (use paper or paper-static)");
                return err("kalman_q", m);
            }
        }
    }
    // Chromium's OveruseEstimator noise model vs paper 002 eq. 16.
    if let Some(mode) = o.kalman_noise {
        match &mut gcc.delay.filter {
            DelayFilterConfig::Kalman(k) => {
                k.noise = match mode {
                    RuleOrigin::Paper => NoiseModel::Paper,
                    RuleOrigin::Chromium => NoiseModel::chromium(),
                }
            }
            DelayFilterConfig::Trendline(_) => {
                let m = format!("preset {preset} has no Kalman filter (use paper or paper-static)");
                return err("kalman_noise", m);
            }
        }
    }
    // Chromium's two-state filter (1/C and m) vs paper 002's one-state eq. 10.
    if let Some(on) = o.kalman_slope {
        match &mut gcc.delay.filter {
            DelayFilterConfig::Kalman(k) => k.slope = on.then(SlopeState::default),
            DelayFilterConfig::Trendline(_) => {
                let m = format!("preset {preset} has no Kalman filter (use paper or paper-static)");
                return err("kalman_slope", m);
            }
        }
    }
    // Threshold mode: switching keeps the other preset constants; the adaptive
    // threshold of a paper preset takes paper 002's gains, of chromium Chromium's.
    match (o.threshold, &gcc.delay.threshold) {
        (Some(ThresholdMode::Static), ThresholdConfig::Adaptive(_)) => {
            gcc.delay.threshold = ThresholdConfig::Static(StaticThresholdConfig::default());
        }
        (Some(ThresholdMode::Adaptive), ThresholdConfig::Static(_)) => {
            gcc.delay.threshold = ThresholdConfig::Adaptive(preset.adaptive_threshold());
        }
        _ => {}
    }
    match &mut gcc.delay.threshold {
        ThresholdConfig::Static(s) => {
            for (k, set) in [
                ("k_up", o.k_up.is_some()),
                ("k_down", o.k_down.is_some()),
                (
                    "threshold_ignores_spikes",
                    o.threshold_ignores_spikes.is_some(),
                ),
            ] {
                if set {
                    return err(k, "needs threshold = \"adaptive\"".into());
                }
            }
            if let Some(g) = o.gamma_bar_ms {
                s.gamma_bar_ms = g;
            }
            if let Some(h) = o.threshold_halving {
                s.halving = h;
            }
        }
        ThresholdConfig::Adaptive(a) => {
            if o.gamma_bar_ms.is_some() || o.threshold_halving.is_some() {
                let k = if o.gamma_bar_ms.is_some() {
                    "gamma_bar_ms"
                } else {
                    "threshold_halving"
                };
                return err(k, "needs threshold = \"static\"".into());
            }
            if let Some(k) = o.k_up {
                a.k_up = k;
            }
            if let Some(k) = o.k_down {
                a.k_down = k;
            }
            if o.threshold_ignores_spikes == Some(false) {
                a.max_adapt_offset = f64::INFINITY;
            }
        }
    }
    // Paper 002 eq. 3 has only eta's multiplicative increase; Chromium (and so every
    // preset by default) switches to an additive one near the link-capacity estimate.
    if let Some(on) = o.additive_increase {
        gcc.delay.aimd.additive_near_convergence = on;
    }
    // Paper 002 eq. 5 (per report) or Chromium's classic loss-based controller.
    if let Some(mode) = o.loss_controller {
        let keep = (gcc.loss.start_rate, gcc.loss.min_rate, gcc.loss.max_rate);
        gcc.loss = match mode {
            RuleOrigin::Chromium => LossConfig::chromium(),
            RuleOrigin::Paper => preset.paper_loss(),
        };
        (gcc.loss.start_rate, gcc.loss.min_rate, gcc.loss.max_rate) = keep;
    }
    // Whether an FSE allocation restarts TimeToReduceFurther's clock (Chromium
    // SetEstimate) or not (SetStartBitrate). The allocation reaches the AIMD only where
    // it runs at the sender.
    if let Some(on) = o.allocation_restarts_decrease_timer {
        if gcc.side != EstimationSide::Sender {
            let m = format!(
                "preset {preset} runs the AIMD at the receiver, where no allocation reaches it (use chromium)"
            );
            return err("allocation_restarts_decrease_timer", m);
        }
        gcc.delay.aimd.allocation_restarts_decrease_timer = on;
    }
    Ok(gcc)
}

#[cfg(test)]
mod tests {
    use super::*;
    use flowstate_core::gcc::threshold::AdaptiveThresholdConfig;

    #[test]
    fn m156_components_switch_off_one_at_a_time_and_only_there() {
        let o = GccOverrides {
            probing: Some(false),
            loss_based_v2: Some(false),
            robust_throughput: Some(false),
            congestion_window: Some(false),
            pacing_factor: Some(2.0),
            ..GccOverrides::default()
        };
        let c = gcc_config(GccPreset::ChromiumM156, &o).expect("valid");
        let m = c.m156.expect("m156 components");
        assert!(m.probing.is_none() && m.loss_v2.is_none() && m.throughput.is_none());
        assert!(m.congestion_window.is_none());
        assert!(m.alr.is_some());
        assert_eq!(m.pacing.map(|p| p.pace_multiplier), Some(2.0));
        let o = GccOverrides {
            chromium_pacing: Some(false),
            ..GccOverrides::default()
        };
        let c = gcc_config(GccPreset::ChromiumM156, &o).expect("valid");
        assert_eq!(
            (c.pacing_factor, c.m156.and_then(|m| m.pacing)),
            (1.1, None)
        );
        for p in [GccPreset::Chromium, GccPreset::Paper] {
            let o = GccOverrides {
                alr_detector: Some(false),
                ..GccOverrides::default()
            };
            let e = gcc_config(p, &o).expect_err("not an m156 preset");
            assert_eq!(e.field, ".alr_detector");
            assert!(e.message.contains("use chromium-m156"), "{}", e.message);
        }
    }

    #[test]
    fn gcc_overrides_map_onto_the_config() {
        let o = GccOverrides {
            kalman_q: Some(0.01),
            k_up: Some(0.02),
            k_down: Some(0.0005),
            ..GccOverrides::default()
        };
        let c = gcc_config(GccPreset::Paper, &o).expect("valid");
        match &c.delay.filter {
            DelayFilterConfig::Kalman(k) => assert_eq!(k.q, 0.01),
            DelayFilterConfig::Trendline(_) => panic!("paper uses the Kalman filter"),
        }
        match &c.delay.threshold {
            ThresholdConfig::Adaptive(a) => {
                assert_eq!((a.k_up, a.k_down), (0.02, 0.0005));
                assert_eq!(a.max_adapt_offset, 15.0);
            }
            ThresholdConfig::Static(_) => panic!("paper is adaptive"),
        }
        let o = GccOverrides {
            threshold_ignores_spikes: Some(false),
            ..GccOverrides::default()
        };
        match &gcc_config(GccPreset::Paper, &o)
            .expect("valid")
            .delay
            .threshold
        {
            ThresholdConfig::Adaptive(a) => assert_eq!(a.max_adapt_offset, f64::INFINITY),
            ThresholdConfig::Static(_) => panic!("paper is adaptive"),
        }
        let o = GccOverrides {
            threshold: Some(ThresholdMode::Static),
            gamma_bar_ms: Some(40.0 / 60.0),
            threshold_halving: Some(false),
            ..GccOverrides::default()
        };
        let c = gcc_config(GccPreset::Paper, &o).expect("valid");
        match &c.delay.threshold {
            ThresholdConfig::Static(s) => {
                assert!((s.gamma_bar_ms - 40.0 / 60.0).abs() < 1e-12);
                assert!(!s.halving);
            }
            ThresholdConfig::Adaptive(_) => panic!("switched to static"),
        }
        let o = GccOverrides {
            threshold: Some(ThresholdMode::Adaptive),
            ..GccOverrides::default()
        };
        let c = gcc_config(GccPreset::PaperStatic, &o).expect("valid");
        assert_eq!(
            c.delay.threshold,
            ThresholdConfig::Adaptive(AdaptiveThresholdConfig::paper())
        );
        // Without threshold overrides the preset is unchanged.
        let c = gcc_config(GccPreset::PaperStatic, &GccOverrides::default()).expect("valid");
        assert_eq!(c, GccPreset::PaperStatic.config());
    }

    #[test]
    fn increase_and_loss_controller_overrides_map_onto_the_config() {
        assert!(
            GccPreset::Paper
                .config()
                .delay
                .aimd
                .additive_near_convergence
        );
        let o = GccOverrides {
            additive_increase: Some(false),
            ..GccOverrides::default()
        };
        let c = gcc_config(GccPreset::Paper, &o).expect("valid");
        assert!(!c.delay.aimd.additive_near_convergence);
        // The loss controller is swapped; the preset's (or overridden) rates stay.
        let o = GccOverrides {
            loss_controller: Some(RuleOrigin::Chromium),
            start_rate: Some(crate::units_parse::Bps(500_000.0)),
            ..GccOverrides::default()
        };
        let c = gcc_config(GccPreset::Paper, &o).expect("valid");
        let mut want = LossConfig::chromium();
        want.start_rate = Bitrate::kbps(500.0);
        want.min_rate = GccPreset::Paper.config().loss.min_rate;
        want.max_rate = GccPreset::Paper.config().loss.max_rate;
        assert_eq!(c.loss, want);
        let o = GccOverrides {
            loss_controller: Some(RuleOrigin::Paper),
            ..GccOverrides::default()
        };
        let c = gcc_config(GccPreset::Chromium, &o).expect("valid");
        assert_eq!(c.loss.variant, LossConfig::paper002().variant);
        assert_eq!(c.loss.increase_factor, 1.05);
        let c = gcc_config(GccPreset::PaperStatic, &o).expect("valid");
        assert_eq!(c.loss, GccPreset::PaperStatic.config().loss);
    }
}
