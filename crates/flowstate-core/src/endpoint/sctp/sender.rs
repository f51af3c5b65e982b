//! The sending side of the data channel: the application's messages cut into DATA
//! chunks, sent within cwnd, the peer's receiver window and Max.Burst, and the coupling
//! reports of its window.

use super::chunk::{DataChunk, Sack, ECN_CHUNK};
use super::config::SctpSenderConfig;
use super::outstanding::{Outstanding, PendingMessage};
use super::stats::SctpSenderStats;
use crate::coupling::{Allowance, FlowReport};
use crate::ecn::Ecn;
use crate::endpoint::app_pacing::AppPacing;
use crate::endpoint::data_source::DataSource;
use crate::endpoint::window_snapshot;
use crate::endpoint::{Controller, Endpoint, Transmit};
use crate::seq_map::SeqMap;
use crate::units::{Bitrate, DataSize, TimeDelta, Timestamp};
use crate::window::{RttEstimator, SctpCongestionControl, WindowController};
use std::collections::VecDeque;

/// The sending side of the data channel. Its methods are written in three files: this one
/// (the application's data, coupling, the [`Endpoint`] calls), `transmit.rs` (new chunks and
/// retransmissions) and `ack_handling.rs` (SACKs and the T3-rtx timer), hence the fields
/// those two use visible in `sctp`.
#[derive(Debug, Clone)]
pub struct SctpSender {
    pub(super) config: SctpSenderConfig,
    pub(super) cc: SctpCongestionControl,
    pub(super) rtt: RttEstimator,
    source: DataSource,
    pub(super) queue: VecDeque<PendingMessage>,
    pub(super) buffered: u64,
    pub(super) next_tsn: u64,
    pub(super) cum_ack: u64,
    pub(super) stream_offset: u64,
    /// Sent and not cumulatively acknowledged, by TSN (a ring buffer: appended at
    /// the next TSN, removed from the front by the cumulative TSN ack).
    pub(super) outstanding: SeqMap<Outstanding>,
    /// Payload bytes of `outstanding` not gap-acked (RFC 4960 6.2.1 D iv's "bytes
    /// still outstanding"), kept as the chunks come and go instead of summed per SACK.
    pub(super) outstanding_payload: u64,
    /// Sequence numbers marked for retransmission, lowest first.
    pub(super) rtx: SeqMap<()>,
    pub(super) peer_rwnd: u64,
    pub(super) t3: Option<Timestamp>,
    pub(super) rtt_probe: Option<(u64, Timestamp)>,
    last_send: Option<Timestamp>,
    last_now: Timestamp,
    burst_left: u32,
    pub(super) fast_rtx_once: bool,
    reports: VecDeque<FlowReport>,
    pub(super) stats: SctpSenderStats,
    /// The highest TSN sent when cwnd was last reduced for an ECNE: an ECNE for a TSN
    /// up to it was sent before that reduction (RFC 9260 appendix A, once per RTT).
    last_cwr_tsn: Option<u64>,
    /// The TSN the next CWR chunk names (the highest ECNE TSN not yet answered).
    cwr_pending: Option<u64>,
}

impl SctpSender {
    pub fn new(config: SctpSenderConfig) -> Self {
        let mut cc_config = config.cc;
        cc_config.initial_ssthresh = config.initial_peer_rwnd;
        SctpSender {
            cc: SctpCongestionControl::new(cc_config),
            rtt: RttEstimator::new(config.rto),
            source: DataSource::new(config.source.clone()),
            queue: VecDeque::new(),
            buffered: 0,
            next_tsn: 1,
            cum_ack: 0,
            stream_offset: 0,
            outstanding: SeqMap::new(),
            outstanding_payload: 0,
            rtx: SeqMap::new(),
            peer_rwnd: config.initial_peer_rwnd.as_bytes(),
            t3: None,
            rtt_probe: None,
            last_send: None,
            last_now: Timestamp::ZERO,
            burst_left: config.max_burst.max(1),
            fast_rtx_once: false,
            reports: VecDeque::new(),
            stats: SctpSenderStats::default(),
            last_cwr_tsn: None,
            cwr_pending: None,
            config,
        }
    }

    pub fn config(&self) -> &SctpSenderConfig {
        &self.config
    }
    pub fn congestion_control(&self) -> &SctpCongestionControl {
        &self.cc
    }
    pub fn rtt_estimator(&self) -> &RttEstimator {
        &self.rtt
    }
    pub fn stats(&self) -> SctpSenderStats {
        self.stats
    }
    pub fn cwnd(&self) -> DataSize {
        self.cc.cwnd()
    }
    pub fn bytes_in_flight(&self) -> DataSize {
        self.cc.bytes_in_flight()
    }
    /// Bytes the application wrote that were not yet transmitted (bufferedAmount).
    pub fn buffered_amount(&self) -> DataSize {
        DataSize::bytes(self.buffered)
    }
    /// Payload bytes the application has written so far.
    pub fn bytes_written(&self) -> DataSize {
        self.source.written()
    }
    /// Pace the application's (greedy) writes with a token bucket (Web-API coupling);
    /// `None`: the source writes as configured.
    pub fn set_app_pacing(&mut self, pacing: Option<AppPacing>) {
        self.source.set_pacing(pacing);
    }
    /// A new pacing rate for the application's writes from `now` on.
    pub fn set_app_pacing_rate(&mut self, now: Timestamp, rate: Bitrate) {
        self.last_now = self.last_now.max(now);
        self.source.set_pacing_rate(now, rate);
    }
    /// The application's pacing, if any.
    pub fn app_pacing(&self) -> Option<&AppPacing> {
        self.source.pacing()
    }
    /// True when everything written has been acknowledged.
    pub fn is_idle(&self) -> bool {
        self.queue.is_empty() && self.outstanding.is_empty()
    }

    /// The cwnd the flow would need when it cannot use its window: application-limited
    /// (nothing queued) or receiver-window-limited (peer rwnd exhausted). `None` when
    /// the flow is congestion-window-limited.
    pub fn desired_cwnd(&self) -> Option<DataSize> {
        let flight = self.cc.bytes_in_flight().max(self.cc.mtu());
        let app_limited = self.queue.is_empty() && self.rtx.is_empty();
        let rwnd_limited = !self.queue.is_empty() && self.peer_rwnd == 0;
        if app_limited || rwnd_limited {
            Some(flight)
        } else {
            None
        }
    }

    pub(super) fn collect_reports(&mut self) {
        while let Some(change) = self.cc.poll_cwnd_change() {
            self.reports.push_back(FlowReport::Window {
                cwnd: change.cwnd,
                rtt: change.rtt,
                ssthresh: change.ssthresh,
                desired_cwnd: self.desired_cwnd(),
            });
        }
    }

    /// RFC 9260 appendix A: an ECNE naming `tsn` reduces cwnd as a loss would
    /// (`on_congestion_mark`: 7.2.3's ssthresh, cwnd = ssthresh) unless `tsn` was sent
    /// before the last such reduction (one reduction per round trip) or Fast Recovery
    /// already reduced it; either way the next DATA packet carries a CWR naming it, so
    /// that the receiver stops repeating the ECNE.
    fn on_ecne(&mut self, now: Timestamp, tsn: u64) {
        if !self.config.ecn.is_ecn_capable() || tsn >= self.next_tsn {
            return;
        }
        self.cwr_pending = Some(self.cwr_pending.map_or(tsn, |t| t.max(tsn)));
        let new_window = self.last_cwr_tsn.map_or(true, |last| tsn > last);
        if new_window && !self.cc.in_recovery() {
            self.cc.on_congestion_mark(now);
            self.last_cwr_tsn = Some(self.next_tsn.saturating_sub(1));
            self.stats.ecn_responses += 1;
            self.collect_reports();
        }
    }

    fn pull_source(&mut self, now: Timestamp) {
        let idle = self.is_idle();
        let mut guard = 0;
        while let Some(size) = self
            .source
            .poll_message(now, DataSize::bytes(self.buffered), idle)
        {
            self.queue.push_back(PendingMessage {
                id: self.source.messages() - 1,
                remaining: size.as_bytes(),
                started: false,
            });
            self.buffered += size.as_bytes();
            guard += 1;
            if guard >= 1024 {
                break;
            }
        }
    }
}

impl Endpoint for SctpSender {
    type Outgoing = DataChunk;
    type Incoming = Sack;

    fn handle_input(&mut self, now: Timestamp, message: Sack) {
        self.last_now = self.last_now.max(now);
        self.burst_left = self.config.max_burst.max(1);
        let ecne = message.ecne;
        self.on_sack(now, message);
        if let Some(tsn) = ecne {
            self.on_ecne(now, tsn);
        }
        self.pull_source(now);
    }

    fn poll_transmit(&mut self, now: Timestamp) -> Option<Transmit<DataChunk>> {
        if now > self.last_now {
            self.burst_left = self.config.max_burst.max(1);
        }
        self.last_now = self.last_now.max(now);
        self.pull_source(now);
        if self.burst_left == 0 {
            return None;
        }
        let has_rtx = !self.rtx.is_empty();
        if !has_rtx && self.queue.is_empty() {
            return None;
        }
        // 7.2.1: decay cwnd after an idle period of at least one RTO.
        if self.outstanding.is_empty() {
            if let Some(last) = self.last_send {
                self.cc.on_idle(now.saturating_since(last), self.rtt.rto());
                self.collect_reports();
            }
        }
        let tx = if has_rtx {
            // 6.1 C: retransmissions before new data, within cwnd (except the first fast
            // retransmission, 7.2.4 (3)).
            if !(self.fast_rtx_once || (self.cc.can_send() && self.retransmission_fits())) {
                return None;
            }
            // The fast retransmission that ignores cwnd goes without the I bit.
            let immediate_ack = !self.fast_rtx_once && self.immediate_ack();
            self.fast_rtx_once = false;
            self.send_retransmission(now, immediate_ack)
        } else {
            // 6.1 A: respect the peer's rwnd, but one chunk may always be in flight.
            let rwnd_ok = self.peer_rwnd > 0 || self.outstanding.is_empty();
            if !(self.cc.can_send() && rwnd_ok) {
                return None;
            }
            self.send_new(now)
        };
        let mut tx = tx;
        if let Some(t) = tx.as_mut() {
            self.burst_left -= 1;
            self.last_send = Some(now);
            // RFC 9260 appendix A: the CWR chunk goes ahead of the next DATA chunk
            // (control chunks first, 6.10); its 8 bytes are on the wire, not in flight.
            if let Some(tsn) = self.cwr_pending.take() {
                t.message.cwr = Some(tsn);
                t.size += DataSize::bytes(ECN_CHUNK);
                self.stats.bytes_sent += ECN_CHUNK;
            }
        }
        tx
    }

    fn poll_timeout(&self) -> Option<Timestamp> {
        let source = self.source.next_wakeup(self.last_now);
        match (self.t3, source) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    fn handle_timeout(&mut self, now: Timestamp) {
        self.last_now = self.last_now.max(now);
        self.burst_left = self.config.max_burst.max(1);
        if self.t3.is_some_and(|t| t <= now) {
            self.on_t3_expiry(now);
        }
        self.pull_source(now);
    }
}

#[cfg(test)]
#[path = "sender_tests.rs"]
mod tests;

/// SCTP couples as a window flow. Not [`Controller::INPUT_DRIVEN`]: every new instant
/// it is polled at refills its max-burst allowance (RFC 4960 6.1 D), so how often it is
/// polled is part of what it sends.
impl Controller for SctpSender {
    /// The next coupling report (queued on every cwnd change).
    fn poll_cc_report(&mut self) -> Option<FlowReport> {
        self.reports.pop_front()
    }
    /// Apply a coupling manager's answer: `MaxWindow` caps cwnd (FSE-NG), `Window` sets
    /// it (FSEv2). `Rate` is for rate flows and is ignored.
    fn apply_allowance(&mut self, now: Timestamp, allowance: Allowance) {
        self.last_now = self.last_now.max(now);
        match allowance {
            Allowance::MaxWindow(max) => self.cc.set_max_cwnd(max),
            Allowance::Window { cwnd, ssthresh } => self.cc.set_cwnd(cwnd, ssthresh),
            Allowance::Rate(_) => {}
        }
        self.collect_reports();
    }
    fn snapshot(&self) -> FlowReport {
        window_snapshot(self.congestion_control(), self.rtt_estimator().latest())
    }
    fn latest_rtt(&self) -> Option<TimeDelta> {
        self.rtt_estimator().latest()
    }
    fn ecn_codepoint(&self) -> Ecn {
        self.config.ecn
    }
    fn ecn_responses(&self) -> Option<u64> {
        self.config
            .ecn
            .is_ecn_capable()
            .then_some(self.stats.ecn_responses)
    }
}
