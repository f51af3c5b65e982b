//! Coupling as an unmodified browser's web application does it: the
//! `web-api` coupling mode.
//!
//! Nothing inside the senders is coupled. Every `interval` (default 150 ms) the hook
//! reads what getStats would show ([`AppStats`]: each GCC flow's target, bytes sent and
//! RTT; each data channel's bytes sent and backlog), runs flowstate-core's
//! [`WebApiRule`] on it, and the decisions ([`AppControl`]) reach the senders `delay`
//! later (default 50 ms: the getStats promise and `setParameters`): a GCC flow's
//! encoder is capped at its max bitrate (`RTCRtpSender.setParameters` maxBitrate; GCC's
//! own estimate is untouched), an SCTP flow's greedy application writes 16 KiB messages
//! through a token bucket at its pacing rate and keeps at most 64 KiB in the channel
//! (`bufferedAmountLowThreshold`), as js/flowstate-coupling does.
//!
//! Sent rates are measured over the last `rate_window` (default 1 s) of polls, as
//! js/flowstate-coupling's Coupler does.
//!
//! Scenario: `[coupling] mechanism = "web-api"`, options `interval`, `delay`,
//! `rate_window` (durations)
//! and the rule's constants (`decrease_threshold`, `encoder_limited_ratio`,
//! `encoder_headroom`, `min_media_rate`, `rtt_guard` (a number, or `false` for off),
//! `rtt_guard_factor`).

pub use crate::app_stats::{AppControl, AppStats, StatsSchedule};
use crate::bounds::{self, MAX_WEB_API_RATE_BPS, MAX_WEB_API_TIME_SECS, MIN_WEB_API_INTERVAL_SECS};
use crate::coupling::{CouplingHook, FlowInfo};
use crate::error::{FieldError, SimError};
use crate::flow::FlowState;
use crate::units_parse::{parse_bps, parse_secs};
use flowstate_core::coupling::web_api::UNBOUNDED_BACKLOG;
use flowstate_core::coupling::{
    Allowance, DataInput, FlowReport, MediaInput, WebApiConfig, WebApiInput, WebApiRule,
};
use flowstate_core::endpoint::app_pacing::AppPacing;
use flowstate_core::endpoint::data_source::SourceKind;
use flowstate_core::endpoint::media::MediaSender;
use flowstate_core::endpoint::scream_v2::ScreamV2Sender;
use flowstate_core::endpoint::sctp::SctpSender;
use flowstate_core::{Bitrate, TimeDelta, Timestamp};

/// The mechanism name in scenario files.
pub const MECHANISM: &str = "web-api";

/// The kinds the rule couples: the video, whatever its congestion controller (its
/// getStats and maxBitrate: GCC, or SCReAM v2 as Chromium runs it with its field
/// trial), and the data channel (its buffered amount and the application's pacing).
pub const FLOW_KINDS: [&str; 3] = ["gcc", "scream-v2", "sctp"];

/// A GCC sender's statistics.
pub fn media_stats(sender: &MediaSender) -> AppStats {
    let rtt = sender.gcc().rtt();
    AppStats::Media {
        target: sender.target_rate(),
        bytes_sent: sender.bytes_sent(),
        rtt: (rtt != sender.gcc().config().default_rtt).then_some(rtt),
    }
}

/// A SCReAM v2 sender's statistics: its target (Chromium's availableOutgoingBitrate
/// under SCReAM v2), bytes sent and smoothed RTT.
pub fn scream_v2_stats(sender: &ScreamV2Sender) -> AppStats {
    AppStats::Media {
        target: sender.target_bitrate(),
        bytes_sent: sender.bytes_sent(),
        rtt: sender.controller().srtt(),
    }
}

/// maxBitrate on a SCReAM v2 video: the encoder's cap (the controller's target is
/// untouched, as GCC's).
pub fn apply_scream_v2(sender: &mut ScreamV2Sender, now: Timestamp, control: AppControl) {
    if let AppControl::MaxBitrate(r) = control {
        sender.set_desired_rate(now, Some(r));
    }
}

/// An SCTP sender's statistics (`None` unless its application is paced by the rule).
pub fn data_stats(sender: &SctpSender) -> Option<AppStats> {
    sender.app_pacing()?;
    let buffered = sender.buffered_amount();
    let greedy = matches!(
        sender.config().source,
        SourceKind::Greedy { total: None, .. }
    );
    Some(AppStats::Data {
        bytes_sent: sender.bytes_written().saturating_sub(buffered).as_bytes(),
        backlog: if greedy { UNBOUNDED_BACKLOG } else { buffered },
    })
}

/// The max bitrate caps the encoder (the sender's desired rate); GCC is not touched.
pub fn apply_media(sender: &mut MediaSender, now: Timestamp, control: AppControl) {
    if let AppControl::MaxBitrate(r) = control {
        sender.set_desired_rate(now, Some(r));
    }
}

/// The pacing rate of the application's token bucket.
pub fn apply_data(sender: &mut SctpSender, now: Timestamp, control: AppControl) {
    if let AppControl::Pacing(r) = control {
        sender.set_app_pacing_rate(now, r);
    }
}

/// A greedy data-channel application paced by the rule: js/flowstate-coupling's token
/// bucket, at rate zero until the rule's first decision.
pub fn pace_application(sender: &mut SctpSender) {
    if matches!(sender.config().source, SourceKind::Greedy { .. }) {
        sender.set_app_pacing(Some(AppPacing::web_defaults(
            Bitrate::ZERO,
            Timestamp::ZERO,
        )));
    }
}

/// The `web-api` options of a scenario, read: the rule's constants and the polling
/// schedule.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WebApiOptions {
    pub config: WebApiConfig,
    pub schedule: StatsSchedule,
}

/// The option names, in the order messages list them.
pub const OPTIONS: [&str; 10] = [
    "interval",
    "delay",
    "rate_window",
    "decrease_threshold",
    "encoder_limited_ratio",
    "encoder_headroom",
    "min_media_rate",
    "rtt_guard",
    "rtt_guard_factor",
    "max_growth",
];

/// One option as `flowstate list-options` lists it.
#[derive(Debug, Clone, PartialEq)]
pub struct OptionInfo {
    pub name: &'static str,
    /// The default as a scenario file writes it (`"150ms"`, `0.02`, `false`).
    pub default: String,
    /// `None`: a plain number.
    pub unit: Option<&'static str>,
    pub description: &'static str,
}

/// Every option of [`OPTIONS`] with its default (from [`WebApiConfig::default`] and
/// [`StatsSchedule::default`]), unit and meaning.
pub fn option_info() -> Vec<OptionInfo> {
    let cfg = WebApiConfig::default();
    let schedule = StatsSchedule::default();
    let ms = |t: TimeDelta| format!("\"{}ms\"", t.as_secs_f64() * 1e3);
    let or_false = |x: Option<f64>| x.map_or_else(|| "false".to_string(), |v| v.to_string());
    let info = |name, default, unit, description| OptionInfo {
        name,
        default,
        unit,
        description,
    };
    vec![
        info("interval", ms(schedule.interval), Some("time"), "how often the web application polls getStats and runs the rule"),
        info("delay", ms(schedule.delay), Some("time"), "how long after a poll its decisions reach the senders (the getStats promise, setParameters)"),
        info("rate_window", ms(schedule.rate_window), Some("time"), "the window the sent rates are measured over"),
        info("decrease_threshold", cfg.decrease_threshold.to_string(), None, "eps: a fall of the media's GCC-limited rates by more than this fraction in one interval counts as a GCC decrease"),
        info("encoder_limited_ratio", cfg.encoder_limited_ratio.to_string(), None, "alpha: a media flow sending less than this fraction of min(target, max bitrate) is encoder-limited"),
        info("encoder_headroom", cfg.encoder_headroom.to_string(), None, "h: an encoder-limited media flow claims this multiple of what it sends"),
        info("min_media_rate", format!("\"{}kbps\"", cfg.min_media_rate.as_bps() / 1e3), Some("bit rate"), "the smallest max bitrate the rule sets on a video sender"),
        info("rtt_guard", or_false(cfg.rtt_guard), None, "scale the data when the RTT exceeds this multiple of the smallest seen (false: off)"),
        info("rtt_guard_factor", cfg.rtt_guard_factor.to_string(), None, "beta_rtt: the data's scale under the RTT guard"),
        info("max_growth", or_false(cfg.max_growth), None, "gamma: the coupled share grows by at most this fraction per second (false: unlimited)"),
    ]
}

/// Read `[coupling] options` of `web-api` (one-line errors naming the option and, for
/// the times and the rate, the bounds of crate::bounds). The one reader of these
/// options: the browser's page gets them through the native module.
pub fn read_options(options: &toml::Table) -> Result<WebApiOptions, FieldError> {
    let mut cfg = WebApiConfig::default();
    let mut schedule = StatsSchedule::default();
    let bad = |k: &str, m: String| FieldError::new(format!("coupling.options.{k}"), m);
    let number = |k: &str, v: &toml::Value| match v {
        toml::Value::Float(f) => Ok(*f),
        toml::Value::Integer(i) => Ok(*i as f64),
        other => Err(bad(
            k,
            format!("expected a number, got {}", other.type_str()),
        )),
    };
    let duration = |k: &str, v: &toml::Value, min: f64| -> Result<TimeDelta, FieldError> {
        // A time needs its unit, as everywhere in a scenario (0 alone is zero).
        let s = match v {
            toml::Value::String(s) => parse_secs(s).map_err(|e| bad(k, e))?,
            other => match number(k, other)? {
                0.0 => 0.0,
                x => return Err(bad(k, crate::units_parse::bare_time_error(x))),
            },
        };
        bounds::check_secs(
            &format!("coupling.options.{k}"),
            s,
            min,
            MAX_WEB_API_TIME_SECS,
        )?;
        Ok(TimeDelta::from_secs_f64(s))
    };
    for (k, v) in options {
        match k.as_str() {
            "interval" => schedule.interval = duration(k, v, MIN_WEB_API_INTERVAL_SECS)?,
            "delay" => schedule.delay = duration(k, v, 0.0)?,
            "rate_window" => schedule.rate_window = duration(k, v, 0.0)?,
            "decrease_threshold" => cfg.decrease_threshold = number(k, v)?,
            "encoder_limited_ratio" => cfg.encoder_limited_ratio = number(k, v)?,
            "encoder_headroom" => cfg.encoder_headroom = number(k, v)?,
            "rtt_guard_factor" => cfg.rtt_guard_factor = number(k, v)?,
            "max_growth" => {
                cfg.max_growth = match v {
                    toml::Value::Boolean(false) => None,
                    other => Some(number(k, other)?),
                }
            }
            "rtt_guard" => {
                cfg.rtt_guard = match v {
                    toml::Value::Boolean(false) => None,
                    other => Some(number(k, other)?),
                }
            }
            "min_media_rate" => {
                // A rate carries its unit, as everywhere (docs/SCENARIOS.md, "Units").
                let bps = match v {
                    toml::Value::String(s) => parse_bps(s).map_err(|e| bad(k, e))?,
                    other => {
                        return Err(bad(
                            k,
                            format!(
                                "expected a bit rate with its unit such as \"50kbps\", got {other}"
                            ),
                        ))
                    }
                };
                bounds::check_bps(
                    &format!("coupling.options.{k}"),
                    bps,
                    0.0,
                    MAX_WEB_API_RATE_BPS,
                )?;
                cfg.min_media_rate = Bitrate::bps(bps);
            }
            other => {
                return Err(bad(
                    other,
                    format!("unknown option of web-api ({})", OPTIONS.join(", ")),
                ))
            }
        }
    }
    cfg.validate()
        .map_err(|e| FieldError::new("coupling.options", e.to_string()))?;
    Ok(WebApiOptions {
        config: cfg,
        schedule,
    })
}

/// The `web-api` coupling hook: polls, runs [`WebApiRule`], returns controls.
#[derive(Debug, Clone)]
pub struct WebApiHook {
    rule: WebApiRule,
    schedule: StatsSchedule,
    infos: Vec<FlowInfo>,
    /// Per flow: (poll time, bytes sent) over the last `rate_window`.
    history: Vec<std::collections::VecDeque<(Timestamp, u64)>>,
    last_poll: Option<Timestamp>,
    media: Vec<MediaInput>,
    data: Vec<DataInput>,
    media_index: Vec<usize>,
    data_index: Vec<usize>,
    errors: u64,
}

impl WebApiHook {
    pub fn new(config: WebApiConfig, schedule: StatsSchedule, flows: &[FlowInfo]) -> Self {
        WebApiHook {
            rule: WebApiRule::new(config).unwrap_or_default(),
            schedule,
            infos: flows.to_vec(),
            history: vec![std::collections::VecDeque::new(); flows.len()],
            last_poll: None,
            media: Vec::new(),
            data: Vec::new(),
            media_index: Vec::new(),
            data_index: Vec::new(),
            errors: 0,
        }
    }

    /// From the scenario's `[coupling] options` (one-line errors naming the option).
    pub fn from_options(options: &toml::Table, flows: &[FlowInfo]) -> Result<Self, SimError> {
        // One web application couples its own flows: one coupling group.
        let mut groups = flows.iter().filter_map(|f| f.group.as_deref());
        if let Some(first) = groups.next() {
            if let Some(other) = groups.find(|g| *g != first) {
                return Err(SimError::Build(FieldError::new(
                    "coupling.mechanism",
                    format!(
                        "\"{MECHANISM}\" couples one web application's flows, in one group: flows are in groups \"{first}\" and \"{other}\" (give the call's flows one group, mark the others cross_traffic)"
                    ),
                )));
            }
        }
        let read = read_options(options).map_err(SimError::Build)?;
        Ok(Self::new(read.config, read.schedule, flows))
    }

    /// Rule errors so far (none expected: the inputs come from the simulator).
    pub fn errors(&self) -> u64 {
        self.errors
    }
}

impl CouplingHook for WebApiHook {
    fn on_state(&mut self, _now: Timestamp, _flow: &FlowInfo, _state: FlowState) {}

    fn on_report(
        &mut self,
        _now: Timestamp,
        _flow: usize,
        _report: &FlowReport,
        _out: &mut Vec<(usize, Allowance)>,
    ) {
    }

    fn stats_schedule(&self) -> Option<StatsSchedule> {
        Some(self.schedule)
    }

    fn on_stats(
        &mut self,
        now: Timestamp,
        stats: &[Option<AppStats>],
        out: &mut Vec<(usize, AppControl)>,
    ) {
        let elapsed = self
            .last_poll
            .map_or(self.schedule.interval, |t| now.saturating_since(t));
        self.last_poll = Some(now);
        if !elapsed.is_positive() {
            return;
        }
        self.media.clear();
        self.data.clear();
        self.media_index.clear();
        self.data_index.clear();
        let mut rtt = None;
        let window = self.schedule.rate_window;
        for (i, s) in stats.iter().enumerate() {
            let Some(info) = self.infos.get(i) else { break };
            if info.group.is_none() {
                // Another application's flow: the web application neither reads nor
                // controls it.
                continue;
            }
            let Some(h) = self.history.get_mut(i) else {
                break;
            };
            let Some(s) = s else {
                h.clear();
                continue;
            };
            let bytes = match s {
                AppStats::Media { bytes_sent, .. } | AppStats::Data { bytes_sent, .. } => {
                    *bytes_sent
                }
            };
            // Sent rate over the last rate_window (from the newest poll at least that
            // old): one interval's byte count is too noisy (frames, 16 KiB writes).
            h.push_back((now, bytes));
            while h.len() > 2 && h[1].0 + window <= now {
                h.pop_front();
            }
            let sent = match h.front() {
                Some(&(t, b)) if t < now => Bitrate::bps(
                    bytes.saturating_sub(b) as f64 * 8.0 / now.saturating_since(t).as_secs_f64(),
                ),
                _ => Bitrate::ZERO,
            };
            match *s {
                AppStats::Media { target, rtt: r, .. } => {
                    rtt = rtt.or(r);
                    self.media.push(MediaInput {
                        id: i as u64,
                        priority: info.priority,
                        target,
                        sent,
                        max: info.desired_rate,
                    });
                    self.media_index.push(i);
                }
                AppStats::Data { backlog, .. } => {
                    self.data.push(DataInput {
                        id: i as u64,
                        priority: info.priority,
                        sent,
                        backlog,
                    });
                    self.data_index.push(i);
                }
            }
        }
        let input = WebApiInput {
            elapsed,
            rtt,
            media: &self.media,
            data: &self.data,
        };
        match self.rule.update(&input) {
            Ok(d) => {
                for (&i, &m) in self.media_index.iter().zip(&d.media_max) {
                    out.push((i, AppControl::MaxBitrate(m)));
                }
                for (&i, &r) in self.data_index.iter().zip(&d.data_pacing) {
                    out.push((i, AppControl::Pacing(r)));
                }
            }
            Err(_) => self.errors += 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flow_kind::FlowKind;

    fn infos() -> Vec<FlowInfo> {
        ["gcc", "sctp"]
            .into_iter()
            .map(|n| FlowKind::from_name(n).expect("a kind"))
            .enumerate()
            .map(|(i, kind)| FlowInfo {
                index: i,
                name: kind.name().to_string(),
                kind,
                priority: 1.0,
                desired_rate: None,
                group: Some("call".into()),
            })
            .collect()
    }

    #[test]
    fn options_are_checked() {
        let t: toml::Table = toml::from_str("interval = \"200ms\"\nrtt_guard = false").unwrap();
        let h = WebApiHook::from_options(&t, &infos()).unwrap();
        assert_eq!(h.schedule.interval, TimeDelta::millis(200));
        assert_eq!(h.rule.config().rtt_guard, None);
        for (src, msg) in [
            (
                "bogus = 1",
                "coupling.options.bogus: unknown option of web-api",
            ),
            (
                "interval = \"0s\"",
                "coupling.options.interval: must be between 10 ms and 60 s, got 0 s",
            ),
            (
                "encoder_headroom = 0.5",
                "coupling.options: config.encoder_headroom: must be a finite number >= 1, got 0.5",
            ),
            (
                "delay = true",
                "coupling.options.delay: expected a number, got boolean",
            ),
        ] {
            let t: toml::Table = toml::from_str(src).unwrap();
            let e = WebApiHook::from_options(&t, &infos())
                .unwrap_err()
                .to_string();
            assert!(e.starts_with(msg), "{src}: {e}");
        }
    }

    // Rates come from byte deltas over the poll interval; the decisions map back to
    // the flows' indices.
    #[test]
    fn polls_turn_into_controls() {
        // Without the growth limit, so that S_CR follows the measured rates at once.
        let cfg = WebApiConfig {
            max_growth: None,
            ..Default::default()
        };
        let mut h = WebApiHook::new(cfg, StatsSchedule::default(), &infos());
        let mut out = Vec::new();
        let stats = |m: u64, d: u64| {
            [
                Some(AppStats::Media {
                    target: Bitrate::mbps(1.0),
                    bytes_sent: m,
                    rtt: None,
                }),
                Some(AppStats::Data {
                    bytes_sent: d,
                    backlog: UNBOUNDED_BACKLOG,
                }),
            ]
        };
        // The first poll has no rates yet (the media claims its floor); the rates are
        // byte deltas over the polls of the last second.
        h.on_stats(Timestamp::from_millis(150), &stats(0, 0), &mut out);
        h.on_stats(
            Timestamp::from_millis(300),
            &stats(18_750, 18_750),
            &mut out,
        );
        out.clear();
        // 150 ms: 18750 B = 1 Mbit/s each; S = 1 + 1 = 2, split evenly.
        h.on_stats(
            Timestamp::from_millis(450),
            &stats(37_500, 37_500),
            &mut out,
        );
        assert_eq!(
            out,
            vec![
                (0, AppControl::MaxBitrate(Bitrate::mbps(1.0))),
                (1, AppControl::Pacing(Bitrate::mbps(1.0)))
            ]
        );
    }
}
