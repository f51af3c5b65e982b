//! Coupling without patching the browser: an FSE-style rule driven only by what the
//! WebRTC API exposes (docs/ALGORITHMS.md, "The Web-API rule").
//!
//! Paper 000's mechanisms (FSE-NG, Extended FSE-NG, FSEv2) set GCC's estimate and
//! SCTP's cwnd inside a patched Chromium. A web application can do less: once per
//! update interval it can read (getStats, W3C webrtc-stats) each video sender's GCC
//! target (`candidate-pair.availableOutgoingBitrate` / `outbound-rtp.targetBitrate`),
//! the bytes every flow sent (`outbound-rtp.bytesSent`, what it handed to a data
//! channel less `bufferedAmount`) and the RTT (`remote-inbound-rtp.roundTripTime`);
//! and it can set each video sender's `maxBitrate` (`RTCRtpSender.setParameters`) and
//! pace its own data-channel writes. This file is that rule, sans-I/O: the caller
//! measures, calls [`WebApiRule::update`] once per interval, and applies the returned
//! [`WebApiDecision`]. It is not a [`super::Mechanism`] of the manager: it has no
//! per-report update, only a periodic one, and its outputs are caps, not controller
//! state.
//!
//! The rule, per interval (symbols as in RFC 8699 section 5.2 and paper 000 Table 4):
//!
//! ```text
//! g_i   = min(T_i, M_i'), g_i' = min(T_i', M_i')   GCC-limited rate of media flow i now
//!                                          and last interval (T_i its GCC target, T_i'
//!                                          last interval's, M_i' the max bitrate in force)
//! rho   = sum g_i / sum g_i'  if < 1 - eps  over media flows present in both intervals
//!         (GCC just decreased: the aggregate follows its decrease), else 1;
//!         min(rho, beta_rtt) if RTT > rtt_guard * min RTT
//! S_CR  = sum_i T_i + rho * sum_j d_j     (d_j: data flow j's sent rate), at most
//!         S_CR' * (1 + gamma * dt); while every media flow got its whole claim last
//!         interval, at least rho * S_CR' (the hold)
//! claim = max_i (the app's own ceiling) for a media flow, h * s_i when it sends less
//!         than alpha * min(T_i, M_i') (encoder-limited), floored at min_media_rate;
//!         d_j + 8 * backlog_j / dt for a data flow
//! FSE_R = weighted water-filling of S_CR over the claims by priority ([`super::waterfill`])
//! M_i   = max(FSE_R(i), min_media_rate)   the media flow's new maxBitrate
//! R_j   = FSE_R(j)                        the data flow's pacing rate
//! ```
//!
//! With no media flow there is no GCC to lead: data flows are left unpaced
//! ([`Bitrate::INFINITY`]) and SCTP's own congestion control runs alone.
//!
//! Why the shares converge to the priority shares: with the data paced at R below
//! what its cwnd allows, SCTP never fills the bottleneck queue and GCC's delay-based
//! controller sees the data as cross traffic: it settles where T = C - R. The rule's
//! aggregate is then T + R = C, and FSE_R splits C by priority; at that fixed point
//! M = T (the cap and GCC's target meet). See docs/ALGORITHMS.md for the argument,
//! spare capacity, loss, capacity drops, the update interval and the limits.
//!
//! The same rule exists in JavaScript (js/flowstate-coupling/index.js); the
//! `web_api_vectors` example and tests/test_web_api_js.py check that both give the same
//! outputs on thousands of random input sequences.

use super::waterfill::{Claim, WaterFill};
use crate::{Bitrate, DataSize, TimeDelta};
use std::collections::BTreeMap;
use thiserror::Error;

/// Bad input to [`WebApiRule::update`] or [`WebApiConfig`]: one line naming the field.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum WebApiError {
    #[error("{what}: priority must be a finite number > 0, got {value}")]
    InvalidPriority { what: String, value: f64 },
    #[error("elapsed must be positive, got {0} us")]
    InvalidElapsed(i64),
    #[error("rtt must be positive, got {0} us")]
    InvalidRtt(i64),
    #[error("{what}: flow id {id} appears twice")]
    DuplicateId { what: &'static str, id: u64 },
    #[error("config.{field}: {message}")]
    InvalidConfig {
        field: &'static str,
        message: String,
    },
}

/// The rule's constants. Every value is a named choice (docs/ALGORITHMS.md says why).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WebApiConfig {
    /// eps: a fall of the media flows' GCC-limited rates by more than this fraction
    /// within one interval counts as a GCC decrease (0.02: above the interval-to-interval
    /// noise of a target that only moves by GCC's own steps).
    pub decrease_threshold: f64,
    /// alpha: a media flow sending less than this fraction of min(target, max bitrate)
    /// is encoder-limited (0.8: VP8 undershoots its target by 5-15 %).
    pub encoder_limited_ratio: f64,
    /// h: an encoder-limited media flow claims this multiple of what it sends (1.2: it
    /// may grow 20 % per interval, faster than GCC's 8 %/s; the rest of its priority
    /// share goes to the data, which probes with it, see docs/ALGORITHMS.md).
    pub encoder_headroom: f64,
    /// The smallest max bitrate the rule sets (a video sender below ~100 kbit/s stalls).
    pub min_media_rate: Bitrate,
    /// RTT guard: when the RTT exceeds this multiple of the smallest RTT seen, the data
    /// is scaled by `rtt_guard_factor` even if GCC has not decreased (`None`: off).
    pub rtt_guard: Option<f64>,
    /// beta_rtt (0.9).
    pub rtt_guard_factor: f64,
    /// gamma: S_CR grows by at most this fraction per second of the previous S_CR
    /// (`None`: unlimited). Bounds the probing of spare capacity and the data's answer
    /// to a jump of GCC's target (docs/ALGORITHMS.md).
    pub max_growth: Option<f64>,
}

impl Default for WebApiConfig {
    fn default() -> Self {
        WebApiConfig {
            decrease_threshold: 0.02,
            encoder_limited_ratio: 0.8,
            encoder_headroom: 1.2,
            min_media_rate: Bitrate::kbps(100.0),
            rtt_guard: None,
            rtt_guard_factor: 0.9,
            max_growth: Some(0.5),
        }
    }
}

impl WebApiConfig {
    /// Checks every constant (one-line error naming the field).
    pub fn validate(&self) -> Result<(), WebApiError> {
        let bad = |field: &'static str, message: String| {
            Err(WebApiError::InvalidConfig { field, message })
        };
        let fraction = |x: f64| x.is_finite() && x > 0.0 && x < 1.0;
        if !(self.decrease_threshold.is_finite() && (0.0..1.0).contains(&self.decrease_threshold)) {
            return bad(
                "decrease_threshold",
                format!("must be in [0, 1), got {}", self.decrease_threshold),
            );
        }
        if !fraction(self.encoder_limited_ratio) {
            return bad(
                "encoder_limited_ratio",
                format!("must be in (0, 1), got {}", self.encoder_limited_ratio),
            );
        }
        if !(self.encoder_headroom.is_finite() && self.encoder_headroom >= 1.0) {
            return bad(
                "encoder_headroom",
                format!(
                    "must be a finite number >= 1, got {}",
                    self.encoder_headroom
                ),
            );
        }
        if !self.min_media_rate.is_finite() {
            return bad("min_media_rate", "must be finite".into());
        }
        if let Some(g) = self.rtt_guard {
            if !(g.is_finite() && g > 1.0) {
                return bad("rtt_guard", format!("must be a finite number > 1, got {g}"));
            }
        }
        if let Some(g) = self.max_growth {
            if !(g.is_finite() && g > 0.0) {
                return bad(
                    "max_growth",
                    format!("must be a finite number > 0, got {g}"),
                );
            }
        }
        if !fraction(self.rtt_guard_factor) {
            return bad(
                "rtt_guard_factor",
                format!("must be in (0, 1), got {}", self.rtt_guard_factor),
            );
        }
        Ok(())
    }
}

/// What getStats shows of one video sender over the last interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MediaInput {
    /// The caller's stable id of the flow (state is kept per id).
    pub id: u64,
    pub priority: f64,
    /// T_i: GCC's target (availableOutgoingBitrate / targetBitrate).
    pub target: Bitrate,
    /// s_i: bytesSent over the interval, as a rate.
    pub sent: Bitrate,
    /// The application's own ceiling for this sender (`None`: none).
    pub max: Option<Bitrate>,
}

/// What the application knows of one data channel over the last interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DataInput {
    pub id: u64,
    pub priority: f64,
    /// d_j: bytes that left the channel's buffer over the interval, as a rate.
    pub sent: Bitrate,
    /// Bytes waiting: `bufferedAmount` plus what the application still holds.
    /// [`DataSize::MAX`] stands for an unbounded (greedy) backlog.
    pub backlog: DataSize,
}

/// One update interval's input.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WebApiInput<'a> {
    /// dt: time since the previous update (the sent rates are averages over it).
    pub elapsed: TimeDelta,
    /// The RTT if known (remote-inbound-rtp.roundTripTime or the candidate pair's).
    pub rtt: Option<TimeDelta>,
    pub media: &'a [MediaInput],
    pub data: &'a [DataInput],
}

/// The rule's answer for one interval, in the input's order.
#[derive(Debug, Clone, PartialEq)]
pub struct WebApiDecision {
    /// M_i: each media flow's new maxBitrate.
    pub media_max: Vec<Bitrate>,
    /// R_j: each data flow's pacing rate ([`Bitrate::INFINITY`]: unpaced).
    pub data_pacing: Vec<Bitrate>,
    /// S_CR of this interval.
    pub aggregate: Bitrate,
    /// rho of this interval (1: no decrease seen).
    pub decrease: f64,
}

/// The rule with its state between intervals: per media flow the max bitrate it set
/// and its GCC-limited rate, and the smallest RTT seen.
#[derive(Debug, Clone, Default)]
pub struct WebApiRule {
    config: WebApiConfig,
    /// media id -> (M_i set last interval, T_i of last interval), in bit/s.
    media: BTreeMap<u64, (f64, f64)>,
    min_rtt: Option<TimeDelta>,
    /// S_CR of the previous interval (bit/s); `None` before the first or without media.
    aggregate: Option<f64>,
    /// Whether every media flow got its whole claim (ceiling or encoder limit) last
    /// interval: then a GCC dip below it does not shrink S_CR (the hold).
    media_at_ceiling: bool,
    fill: WaterFill,
    claims: Vec<Claim>,
    shares: Vec<f64>,
}

/// An unbounded data backlog (a greedy application).
pub const UNBOUNDED_BACKLOG: DataSize = DataSize::MAX;

impl WebApiRule {
    pub fn new(config: WebApiConfig) -> Result<Self, WebApiError> {
        config.validate()?;
        Ok(WebApiRule {
            config,
            ..Default::default()
        })
    }

    pub fn config(&self) -> &WebApiConfig {
        &self.config
    }

    /// The smallest RTT seen so far.
    pub fn min_rtt(&self) -> Option<TimeDelta> {
        self.min_rtt
    }

    fn check(input: &WebApiInput<'_>) -> Result<(), WebApiError> {
        if !input.elapsed.is_positive() {
            return Err(WebApiError::InvalidElapsed(input.elapsed.as_micros()));
        }
        if let Some(r) = input.rtt {
            if !r.is_positive() {
                return Err(WebApiError::InvalidRtt(r.as_micros()));
            }
        }
        let ok = |p: f64| p.is_finite() && p > 0.0;
        for (i, m) in input.media.iter().enumerate() {
            if !ok(m.priority) {
                return Err(WebApiError::InvalidPriority {
                    what: format!("media[{i}]"),
                    value: m.priority,
                });
            }
            if input.media[..i].iter().any(|o| o.id == m.id) {
                return Err(WebApiError::DuplicateId {
                    what: "media",
                    id: m.id,
                });
            }
        }
        for (j, d) in input.data.iter().enumerate() {
            if !ok(d.priority) {
                return Err(WebApiError::InvalidPriority {
                    what: format!("data[{j}]"),
                    value: d.priority,
                });
            }
            if input.data[..j].iter().any(|o| o.id == d.id) {
                return Err(WebApiError::DuplicateId {
                    what: "data",
                    id: d.id,
                });
            }
        }
        Ok(())
    }

    /// One update interval: returns each media flow's max bitrate and each data flow's
    /// pacing rate. Media flows absent from `input` are forgotten.
    pub fn update(&mut self, input: &WebApiInput<'_>) -> Result<WebApiDecision, WebApiError> {
        Self::check(input)?;
        let cfg = self.config;
        if let Some(r) = input.rtt {
            self.min_rtt = Some(self.min_rtt.map_or(r, |m| m.min(r)));
        }

        // rho from GCC's decreases: g_i = min(T_i, M_i') against g_i' = min(T_i', M_i')
        // over flows seen last interval (the same cap on both sides, so that a cap the
        // rule lowered, or a target inflated above the cap, is not taken for a decrease).
        let (mut now_sum, mut before_sum) = (0.0, 0.0);
        let mut gs = Vec::with_capacity(input.media.len());
        for m in input.media {
            let prev = self.media.get(&m.id).copied();
            let cap = prev.map_or(f64::INFINITY, |(cap, _)| cap);
            let g = m.target.as_bps().min(cap);
            gs.push(g);
            if let Some((_, target_before)) = prev {
                now_sum += g;
                before_sum += target_before.min(cap);
            }
        }
        let mut rho = 1.0;
        if before_sum > 0.0 && now_sum < before_sum * (1.0 - cfg.decrease_threshold) {
            rho = now_sum / before_sum;
        }
        if let (Some(guard), Some(rtt), Some(min)) = (cfg.rtt_guard, input.rtt, self.min_rtt) {
            if rtt.as_secs_f64() > guard * min.as_secs_f64() {
                rho = rho.min(cfg.rtt_guard_factor);
            }
        }

        // S_CR = sum T_i + rho * sum d_j.
        let mut targets = 0.0;
        for m in input.media {
            targets += m.target.as_bps();
        }
        let mut data_sent = 0.0;
        for d in input.data {
            data_sent += d.sent.as_bps();
        }
        let measured = targets + rho * data_sent;
        // S_CR grows by at most gamma * dt (a jump of GCC's target, e.g. a probe's,
        // reaches the data only gradually). While every media flow sits at its ceiling
        // (the data probes the spare capacity), S_CR shrinks only by rho: a GCC
        // recovering below its ceiling keeps its share, the data keeps the rest.
        let dt = input.elapsed.as_secs_f64();
        let mut aggregate = measured;
        if let Some(before) = self.aggregate {
            if self.media_at_ceiling {
                aggregate = aggregate.max(rho * before);
            }
            if let Some(g) = cfg.max_growth {
                aggregate = aggregate.min(before * (1.0 + g * dt));
            }
        }

        if input.media.is_empty() {
            self.media.clear();
            self.aggregate = None;
            self.media_at_ceiling = false;
            return Ok(WebApiDecision {
                media_max: Vec::new(),
                data_pacing: vec![Bitrate::INFINITY; input.data.len()],
                aggregate: Bitrate::bps(aggregate),
                decrease: rho,
            });
        }

        self.aggregate = Some(aggregate);
        // Claims: media at its ceiling (or h * s_i when encoder-limited), data at what
        // it sent plus its backlog over one interval.
        let floor = cfg.min_media_rate.as_bps();
        self.claims.clear();
        for (m, &g) in input.media.iter().zip(&gs) {
            let ceiling = m.max.map_or(f64::INFINITY, Bitrate::as_bps);
            let sent = m.sent.as_bps();
            let cap = if sent < cfg.encoder_limited_ratio * g {
                ceiling.min((cfg.encoder_headroom * sent).max(floor))
            } else {
                ceiling
            };
            self.claims.push(Claim {
                priority: m.priority,
                cap,
            });
        }
        for d in input.data {
            let cap = if d.backlog == UNBOUNDED_BACKLOG {
                f64::INFINITY
            } else {
                d.sent.as_bps() + d.backlog.as_bits_f64() / dt
            };
            self.claims.push(Claim {
                priority: d.priority,
                cap,
            });
        }
        self.shares.clear();
        self.shares.resize(self.claims.len(), 0.0);
        self.fill
            .allocate(aggregate, &self.claims, &mut self.shares);

        let n = input.media.len();
        self.media_at_ceiling = self.claims[..n]
            .iter()
            .zip(&self.shares)
            .all(|(c, &share)| c.cap.is_finite() && share >= c.cap);
        let mut media_max = Vec::with_capacity(n);
        let mut next = BTreeMap::new();
        for (m, &share) in input.media.iter().zip(&self.shares) {
            let max = share.max(floor);
            media_max.push(Bitrate::bps(max));
            next.insert(m.id, (max, m.target.as_bps()));
        }
        self.media = next;
        let data_pacing = self.shares[n..].iter().map(|&r| Bitrate::bps(r)).collect();
        Ok(WebApiDecision {
            media_max,
            data_pacing,
            aggregate: Bitrate::bps(aggregate),
            decrease: rho,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn media(id: u64, p: f64, target: f64, sent: f64, max: Option<f64>) -> MediaInput {
        MediaInput {
            id,
            priority: p,
            target: Bitrate::mbps(target),
            sent: Bitrate::mbps(sent),
            max: max.map(Bitrate::mbps),
        }
    }
    fn data(id: u64, p: f64, sent: f64, backlog: DataSize) -> DataInput {
        DataInput {
            id,
            priority: p,
            sent: Bitrate::mbps(sent),
            backlog,
        }
    }
    fn run(rule: &mut WebApiRule, m: &[MediaInput], d: &[DataInput]) -> WebApiDecision {
        run_rtt(rule, m, d, None)
    }
    fn run_rtt(
        rule: &mut WebApiRule,
        m: &[MediaInput],
        d: &[DataInput],
        rtt: Option<TimeDelta>,
    ) -> WebApiDecision {
        rule.update(&WebApiInput {
            elapsed: TimeDelta::millis(150),
            rtt,
            media: m,
            data: d,
        })
        .unwrap()
    }
    fn close(a: Bitrate, mbps: f64) -> bool {
        (a.as_mbps() - mbps).abs() < 1e-9
    }

    // S_CR = sum T_i + sum d_j, split by priority (RFC 8699 5.2 step c).
    #[test]
    fn aggregate_is_targets_plus_data_and_split_by_priority() {
        let mut r = WebApiRule::default();
        let out = run(
            &mut r,
            &[media(1, 2.0, 1.2, 1.2, Some(2.5))],
            &[data(2, 1.0, 0.6, UNBOUNDED_BACKLOG)],
        );
        assert!(close(out.aggregate, 1.8));
        assert!(close(out.media_max[0], 1.2));
        assert!(close(out.data_pacing[0], 0.6));
        assert_eq!(out.decrease, 1.0);
    }

    // Fixed point: T = C - R gives S = C and the priority shares.
    #[test]
    fn fixed_point_is_the_priority_share() {
        let mut r = WebApiRule::default();
        let out = run(
            &mut r,
            &[media(1, 1.0, 1.0, 1.0, Some(2.5))],
            &[data(2, 1.0, 1.0, UNBOUNDED_BACKLOG)],
        );
        assert!(close(out.media_max[0], 1.0) && close(out.data_pacing[0], 1.0));
    }

    // A media flow at its ceiling leaves the rest to the data (water-filling).
    #[test]
    fn media_ceiling_leaves_the_rest_to_data() {
        let mut r = WebApiRule::default();
        let out = run(
            &mut r,
            &[media(1, 1.0, 2.25, 1.5, Some(1.5))],
            &[data(2, 1.0, 3.0, UNBOUNDED_BACKLOG)],
        );
        assert!(close(out.media_max[0], 1.5));
        assert!(close(out.data_pacing[0], 3.75));
    }

    // rho: GCC's decrease (g falls by more than eps) scales the data term.
    #[test]
    fn gcc_decrease_scales_the_data() {
        let mut r = WebApiRule::default();
        let d = [data(2, 1.0, 1.0, UNBOUNDED_BACKLOG)];
        run(&mut r, &[media(1, 1.0, 1.0, 1.0, None)], &d);
        let out = run(&mut r, &[media(1, 1.0, 0.85, 1.0, None)], &d);
        assert!((out.decrease - 0.85).abs() < 1e-12);
        assert!(close(out.aggregate, 0.85 + 0.85));
        // A fall within eps is noise: rho stays 1.
        let out = run(&mut r, &[media(1, 1.0, 0.84, 0.85, None)], &d);
        assert_eq!(out.decrease, 1.0);
    }

    // g = min(T, M'): a target above the cap that falls to the cap is no decrease.
    #[test]
    fn alr_inflated_target_counts_only_down_to_the_cap() {
        let mut r = WebApiRule::default();
        let d = [data(2, 1.0, 1.0, UNBOUNDED_BACKLOG)];
        let first = run(&mut r, &[media(1, 1.0, 1.5, 1.25, None)], &d);
        assert!(close(first.media_max[0], 1.25));
        // The target stays above the new cap, then falls to it: no decrease.
        let out = run(&mut r, &[media(1, 1.0, 1.5, 1.25, None)], &d);
        assert_eq!(out.decrease, 1.0);
        let out = run(&mut r, &[media(1, 1.0, 1.25, 1.25, None)], &d);
        assert_eq!(out.decrease, 1.0);
        // Below the cap it is one: 1.0 against min(1.25, cap 1.25).
        let cap = out.media_max[0].as_bps();
        let out = run(&mut r, &[media(1, 1.0, 1.0, 1.0, None)], &d);
        assert!((out.decrease - 1e6 / cap.min(1.25e6)).abs() < 1e-12);
    }

    // A new media flow has no history: no decrease from its first target.
    #[test]
    fn joining_flow_is_not_a_decrease() {
        let mut r = WebApiRule::default();
        let d = [data(9, 1.0, 1.0, UNBOUNDED_BACKLOG)];
        run(&mut r, &[media(1, 1.0, 1.0, 1.0, None)], &d);
        let out = run(
            &mut r,
            &[media(1, 1.0, 1.0, 1.0, None), media(2, 1.0, 0.1, 0.0, None)],
            &d,
        );
        assert_eq!(out.decrease, 1.0);
    }

    // RTT guard (off by default): RTT above 1.5 x the smallest seen scales the data by 0.9.
    #[test]
    fn rtt_guard() {
        let mut r = WebApiRule::new(WebApiConfig {
            rtt_guard: Some(1.5),
            ..Default::default()
        })
        .unwrap();
        let m = [media(1, 1.0, 1.0, 1.0, None)];
        let d = [data(2, 1.0, 1.0, UNBOUNDED_BACKLOG)];
        run_rtt(&mut r, &m, &d, Some(TimeDelta::millis(100)));
        let out = run_rtt(&mut r, &m, &d, Some(TimeDelta::millis(151)));
        assert!((out.decrease - 0.9).abs() < 1e-12);
        let out = run_rtt(&mut r, &m, &d, Some(TimeDelta::millis(150)));
        assert_eq!(out.decrease, 1.0);
        let mut off = WebApiRule::default();
        run_rtt(&mut off, &m, &d, Some(TimeDelta::millis(100)));
        let out = run_rtt(&mut off, &m, &d, Some(TimeDelta::millis(400)));
        assert_eq!(out.decrease, 1.0);
    }

    // Encoder-limited media claims h * s (floored), the data gets the rest.
    #[test]
    fn encoder_limited_media_claims_headroom() {
        let mut r = WebApiRule::default();
        let out = run(
            &mut r,
            &[media(1, 1.0, 1.0, 0.5, Some(2.5))],
            &[data(2, 1.0, 1.0, UNBOUNDED_BACKLOG)],
        );
        assert!(close(out.media_max[0], 0.6));
        assert!(close(out.data_pacing[0], 1.4));
        // Floor: a silent sender still gets min_media_rate.
        let out = run(
            &mut r,
            &[media(1, 1.0, 1.0, 0.0, Some(2.5))],
            &[data(2, 1.0, 1.0, UNBOUNDED_BACKLOG)],
        );
        assert!(close(out.media_max[0], 0.1));
        assert!(close(out.data_pacing[0], 1.9));
    }

    // A data flow claims d + 8 * backlog / dt; the media gets the rest.
    #[test]
    fn data_claim_is_sent_plus_backlog() {
        let mut r = WebApiRule::default();
        // 150 ms, 3750 bytes backlog = 0.2 Mbit/s.
        let out = run(
            &mut r,
            &[media(1, 1.0, 2.0, 2.0, None)],
            &[data(2, 1.0, 0.1, DataSize::bytes(3750))],
        );
        assert!(close(out.data_pacing[0], 0.3));
        assert!(close(out.media_max[0], 1.8));
    }

    #[test]
    fn without_media_data_is_unpaced() {
        let mut r = WebApiRule::default();
        let out = run(&mut r, &[], &[data(2, 1.0, 3.0, UNBOUNDED_BACKLOG)]);
        assert_eq!(out.data_pacing, vec![Bitrate::INFINITY]);
        assert!(out.media_max.is_empty());
    }

    // Media at its ceiling: a GCC dip shrinks S_CR only by rho (the hold), and S_CR
    // grows by at most gamma * dt while probing.
    #[test]
    fn hold_and_growth_limit_at_the_ceiling() {
        let mut r = WebApiRule::default();
        let d = [data(2, 1.0, 3.0, UNBOUNDED_BACKLOG)];
        let out = run(&mut r, &[media(1, 1.0, 2.25, 1.5, Some(1.5))], &d);
        assert!(close(out.aggregate, 5.25) && close(out.media_max[0], 1.5));
        // Growth: at most 5.25 * (1 + 0.5 * 0.15).
        let out = run(
            &mut r,
            &[media(1, 1.0, 2.25, 1.5, Some(1.5))],
            &[data(2, 1.0, 6.0, UNBOUNDED_BACKLOG)],
        );
        assert!(close(out.aggregate, 5.25 * 1.075));
        // GCC dips to 1.2 (rho = 1.2 / 1.5 = 0.8) and the data sent less: S_CR = rho * S'.
        let before = out.aggregate.as_mbps();
        let out = run(
            &mut r,
            &[media(1, 1.0, 1.2, 1.2, Some(1.5))],
            &[data(2, 1.0, 1.0, UNBOUNDED_BACKLOG)],
        );
        assert!((out.decrease - 0.8).abs() < 1e-12);
        assert!(close(out.aggregate, 0.8 * before));
        assert!(close(out.media_max[0], 1.5));
        // Below the ceiling (shares under it), no hold: S_CR = sum T + d.
        let mut r = WebApiRule::default();
        let d = [data(2, 1.0, 1.0, UNBOUNDED_BACKLOG)];
        run(&mut r, &[media(1, 1.0, 1.0, 1.0, Some(2.5))], &d);
        let out = run(
            &mut r,
            &[media(1, 1.0, 0.99, 0.99, Some(2.5))],
            &[data(2, 1.0, 0.5, UNBOUNDED_BACKLOG)],
        );
        assert!(close(out.aggregate, 1.49));
    }

    #[test]
    fn bad_input_is_an_error() {
        let mut r = WebApiRule::default();
        let m = [media(1, 0.0, 1.0, 1.0, None)];
        let e = r
            .update(&WebApiInput {
                elapsed: TimeDelta::millis(150),
                rtt: None,
                media: &m,
                data: &[],
            })
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "media[0]: priority must be a finite number > 0, got 0"
        );
        let e = r
            .update(&WebApiInput {
                elapsed: TimeDelta::ZERO,
                rtt: None,
                media: &[],
                data: &[],
            })
            .unwrap_err();
        assert_eq!(e.to_string(), "elapsed must be positive, got 0 us");
        let m = [media(1, 1.0, 1.0, 1.0, None), media(1, 1.0, 1.0, 1.0, None)];
        let e = r
            .update(&WebApiInput {
                elapsed: TimeDelta::millis(1),
                rtt: Some(TimeDelta::ZERO),
                media: &m,
                data: &[],
            })
            .unwrap_err();
        assert_eq!(e.to_string(), "rtt must be positive, got 0 us");
        let e = WebApiRule::new(WebApiConfig {
            encoder_headroom: 0.5,
            ..Default::default()
        })
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "config.encoder_headroom: must be a finite number >= 1, got 0.5"
        );
    }
}
