//! What the RMCAT media kinds (`nada`, `scream`) share: the video source and its
//! options, the RFC 8888 receiver and its report interval, and the reading of a
//! controller's option table into its configuration (flowstate-core's
//! `config_options`) with errors at the key that set the value.

use crate::error::FieldError;
use crate::flow::ReceiverHooks;
use crate::flow_spec::FlowSpec;
use crate::overrides::{ConfigOverrides, OverrideDef};
use flowstate_core::config_options::ConfigOption;
use flowstate_core::endpoint::rfc8888::{CcfbReceiver, CcfbReceiverConfig};
use flowstate_core::source::statistics::StatisticsCodecConfig;
use flowstate_core::source::{EncoderBounds, VideoSourceConfig};
use flowstate_core::{Bitrate, TimeDelta};

/// The video source of a `nada` / `scream` flow: the statistics codec (or a perfect
/// codec) between 50 kbit/s (paper 000's minimum) and the controller's maximum rate, at
/// `fps`.
pub fn rmcat_source(perfect: bool, max_rate: Bitrate, fps: f64) -> VideoSourceConfig {
    let bounds = EncoderBounds {
        max_rate,
        fps,
        ..EncoderBounds::paper000()
    };
    if perfect {
        VideoSourceConfig::Perfect(bounds)
    } else {
        VideoSourceConfig::Statistics(StatisticsCodecConfig {
            bounds,
            ..StatisticsCodecConfig::default()
        })
    }
}

/// The RFC 8888 receiver of a `nada` / `scream` / external flow, with its frame
/// playout model.
pub fn ccfb_receiver(
    index: usize,
    interval: TimeDelta,
    playout: flowstate_core::playout::PlayoutConfig,
) -> CcfbReceiver {
    CcfbReceiver::new(CcfbReceiverConfig {
        ssrc: index as u32 + 1,
        interval,
        rtp_overhead: flowstate_core::endpoint::media::WireSizes::default().rtp_overhead,
        playout,
    })
}

impl ReceiverHooks for CcfbReceiver {
    fn playout(&self) -> Option<&flowstate_core::playout::FramePlayout> {
        Some(CcfbReceiver::playout(self))
    }
    fn advance_playout(&mut self, now: flowstate_core::Timestamp) {
        CcfbReceiver::advance_playout(self, now);
    }
}

/// An RFC 8888 report interval in ms (at most a day), at least
/// [`crate::bounds::MIN_FEEDBACK_INTERVAL_SECS`].
pub fn feedback_interval(ms: f64) -> Result<TimeDelta, FieldError> {
    let field = |m: String| FieldError::new(".feedback_interval_ms", m);
    if !(ms.is_finite() && ms >= 0.0) {
        return Err(field(format!("must be a finite number >= 0, got {ms}")));
    }
    let interval = <TimeDelta as flowstate_core::config_options::OptionField>::from_input(
        flowstate_core::config_options::OptionUnit::Millis,
        flowstate_core::config_options::OptionInput::Number(ms),
    )
    .map_err(field)?;
    min_feedback_interval(interval)?;
    Ok(interval)
}

/// An RFC 8888 report interval of at least
/// [`crate::bounds::MIN_FEEDBACK_INTERVAL_SECS`]: every report is an event per flow.
pub fn min_feedback_interval(interval: TimeDelta) -> Result<(), FieldError> {
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

/// A flow's `overrides` read against the controller's option table
/// (`options`, named `prefix` in its `validate()` messages: `"nada."`) and the kind's
/// own keys `T`: the configuration, checked by `validate`, and the own keys. Error: the
/// key under `overrides`.
pub fn read_config<C, T>(
    spec: &FlowSpec,
    options: &'static [ConfigOption<C>],
    own_keys: &[OverrideDef],
    prefix: &str,
    validate: fn(&C) -> Result<(), String>,
) -> Result<(ConfigOverrides<C, T>, C), FieldError>
where
    C: Default + 'static,
    T: serde::de::DeserializeOwned + Default,
{
    let under = |e: FieldError| e.under("overrides");
    let o = ConfigOverrides::<C, T>::parse(&spec.overrides, options, own_keys).map_err(under)?;
    let c = o.apply().map_err(under)?;
    validate(&c).map_err(|m| under(at_key(prefix, options, &m)))?;
    Ok((o, c))
}

/// A controller's `validate()` message (`nada.x_ref must ...`) at the override key
/// that sets the field (`.x_ref_ms: x_ref_ms must ...`).
pub(crate) fn at_key<C>(prefix: &str, options: &[ConfigOption<C>], message: &str) -> FieldError {
    let key_of = |field: &str| {
        options
            .iter()
            .map(|o| o.key)
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
    for o in options {
        let f = o.key.strip_suffix("_ms").unwrap_or(o.key);
        text = text.replace(&format!("{prefix}{f} "), &format!("{} ", o.key));
        text = text.replace(&format!("{prefix}{f})"), &format!("{})", o.key));
        text = text.replace(&format!("{prefix}{f},"), &format!("{},", o.key));
    }
    let text = text.replace(prefix, "");
    if key.is_empty() {
        FieldError::new("", text)
    } else {
        FieldError::new(format!(".{key}"), text)
    }
}

#[cfg(test)]
mod tests {
    use crate::flow_spec::FlowSpec;
    use crate::kinds::ledbat::ledbat_config;
    use crate::kinds::nada::nada_config;
    use crate::kinds::scream::scream_config;
    use flowstate_core::nada::NadaConfig;
    use flowstate_core::scream::ScreamConfig;
    use flowstate_core::window::LedbatConfig;
    use flowstate_core::{Bitrate, DataSize, TimeDelta};

    /// A flow of `kind` with `overrides` (TOML lines).
    fn spec(kind: &str, overrides: &str) -> FlowSpec {
        let table: toml::Table = toml::from_str(overrides).expect("toml");
        let mut flow = toml::Table::new();
        flow.insert("name".into(), "f".into());
        flow.insert("kind".into(), kind.into());
        flow.insert("overrides".into(), toml::Value::Table(table));
        toml::Value::Table(flow).try_into().expect("a flow")
    }

    #[test]
    fn defaults_are_the_rfcs() {
        let (n, _, fb) = nada_config(&spec("nada", "")).expect("valid");
        assert_eq!(n, NadaConfig::default());
        assert_eq!(fb, TimeDelta::millis(100));
        let (s, _, fb, fps) = scream_config(&spec("scream", "")).expect("valid");
        assert_eq!(s, ScreamConfig::default());
        assert_eq!((fb, fps), (TimeDelta::millis(20), 30.0));
        let (l, _) = ledbat_config(&spec("ledbat", "")).expect("valid");
        assert_eq!(l, LedbatConfig::default());
    }

    #[test]
    fn every_override_reaches_the_config() {
        let (n, _, fb) = nada_config(&spec(
            "nada",
            "x_ref_ms = 20\nkappa = 0.25\ndelta_ms = 50\nmin_filter_taps = 5\nmax_rate = \"2Mbps\"",
        ))
        .expect("valid");
        assert_eq!(n.x_ref, TimeDelta::millis(20));
        assert_eq!(n.kappa, 0.25);
        assert_eq!(n.min_filter_taps, 5);
        assert_eq!(n.max_rate, Bitrate::mbps(2.0));
        // The feedback interval follows DELTA unless set.
        assert_eq!(fb, TimeDelta::millis(50));
        let (s, _, _, _) = scream_config(&spec(
            "scream",
            "qdelay_target_ms = 60\nmss = \"1200B\"\nmin_cwnd = \"3600B\"",
        ))
        .expect("valid");
        assert_eq!(s.qdelay_target, TimeDelta::millis(60));
        assert_eq!(s.mss, DataSize::bytes(1200));
        let (l, _) = ledbat_config(&spec("ledbat", "target_ms = 25\ngain = 0.5\ninit_cwnd = 4"))
            .expect("valid");
        assert_eq!(
            (l.target, l.gain, l.init_cwnd),
            (TimeDelta::millis(25), 0.5, 4)
        );
    }

    /// The error of building a `nada` flow with `overrides` `o`.
    fn nada_flow_error(o: &str) -> crate::error::FieldError {
        let spec = spec("nada", o);
        let ctx = crate::flow_spec::FlowContext::default();
        let b = crate::flow_spec::BuildInput {
            ctx: &ctx,
            index: 0,
            spec: &spec,
            seed: 1,
        };
        match super::super::nada::nada_flow(&b) {
            Ok(_) => panic!("{o} was accepted"),
            Err(e) => e,
        }
    }

    #[test]
    fn bad_values_are_one_line_errors_at_their_key() {
        let e = nada_config(&spec("nada", "x_ref_ms = 0")).expect_err("zero");
        assert_eq!(e.field, "overrides.x_ref_ms");
        assert!(
            e.message
                .starts_with("x_ref_ms must be a positive duration"),
            "{e}"
        );
        let e = nada_config(&spec("nada", "max_rate = \"100kbps\"")).expect_err("below RMIN");
        assert_eq!(e.field, "overrides.max_rate");
        let e = nada_config(&spec("nada", "kappa = -1")).expect_err("negative");
        assert_eq!(
            e.to_string(),
            "overrides.kappa: must be a finite number >= 0, got -1"
        );
        let e = nada_config(&spec("nada", "min_filter_taps = 2.5")).expect_err("fraction");
        assert_eq!(e.field, "overrides.min_filter_taps");
        let e = nada_config(&spec("nada", "no_such = 1")).expect_err("unknown");
        assert!(
            e.message
                .starts_with("unknown field `no_such`, expected one of `prio`"),
            "{e}"
        );
        assert!(
            e.message.ends_with(
                "`packet_size`, `playout`, `playout_delay_ms`, `reference_chain`, `decode_time_ms`, `spread_frames`, `send_oversleep`, `frame_interval_noise`"
            ),
            "{e}"
        );
        // The playout keys: a bad name, a delay without the fixed rule.
        let e = nada_flow_error("playout = \"smooth\"");
        assert_eq!(e.field, "overrides.playout", "{e}");
        assert!(
            e.message.contains("adaptive") && e.message.contains("fixed"),
            "{e}"
        );
        let e = nada_flow_error("playout_delay_ms = 100");
        assert_eq!(e.field, "overrides.playout_delay_ms", "{e}");
        let e = nada_config(&spec("nada", "packet_size = \"1040.5B\""))
            .and_then(|(_, media, _)| super::super::nada::nada_wire(&media))
            .expect_err("a fraction of a byte");
        assert_eq!(e.field, "overrides.packet_size");
        let e = nada_config(&spec("nada", "send_oversleep = 1.5"))
            .and_then(|(_, media, _)| super::super::nada::send_oversleep(media.send_oversleep))
            .expect_err("a whole gap or more");
        assert_eq!(e.field, "overrides.send_oversleep");
        let e = scream_config(&spec("scream", "beta_loss = 1.5")).expect_err("above 1");
        assert_eq!(e.field, "overrides.beta_loss");
        let e = scream_config(&spec("scream", "fps = 0.5")).expect_err("fps");
        assert_eq!(e.field, "overrides.fps");
        let e =
            scream_config(&spec("scream", "feedback_interval_ms = 0.01")).expect_err("too often");
        assert_eq!(e.field, "overrides.feedback_interval_ms");
        let e = ledbat_config(&spec("ledbat", "target_ms = 150")).expect_err("RFC 6817 MUST");
        assert_eq!(e.field, "overrides.target_ms");
        assert!(!e.to_string().contains('\n'));
    }
}
