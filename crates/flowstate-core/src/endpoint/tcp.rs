//! A sans-I/O TCP-like bulk transfer for cross traffic: byte sequence numbers,
//! cumulative acks, delayed acks (RFC 5681 4.2), fast retransmit and NewReno loss
//! recovery (RFC 6582), and the RFC 6298 retransmission timer, driving a NewReno or
//! CUBIC window ([`TcpCongestionControl`]). Options for Linux-like cross traffic: SACK
//! loss recovery (RFC 2018 blocks, RFC 6675 scoreboard and pipe), RTT samples from the
//! timestamps option (RFC 7323) and Linux's RTO ([`RtoConfig::linux`]).
//!
//! ECN (RFC 3168 section 6.1), when the sender is configured ECN-capable
//! ([`TcpSenderConfig::ecn`]; the SYN / SYN-ACK negotiation of section 6.1.1 is taken
//! as done): new data goes out ECT, the receiver sets ECE on every ack from a CE-marked
//! segment until a segment with CWR arrives (6.1.3), and the sender reduces its window
//! as for one loss at most once per window of data, without retransmitting, and sets
//! CWR on the next new segment (6.1.2). Retransmissions are Not-ECT (6.1.5).

use std::collections::VecDeque;

use super::data_source::{DataSource, SourceKind};
use super::window_snapshot;
use super::{Controller, Endpoint, Transmit};
use crate::coupling::{Allowance, FlowReport};
use crate::ecn::Ecn;
use crate::seq_map::SeqMap;
use crate::units::{DataSize, TimeDelta, Timestamp};
use crate::window::state::{EmbedsCore, WindowCore};
use crate::window::{
    AckEvent, Cubic, CubicConfig, CwndChange, Ledbat, LedbatConfig, NewReno, NewRenoConfig,
    RtoConfig, RttEstimator, WindowController,
};

/// IPv4 + TCP headers without options.
pub const TCP_IP_HEADER: u64 = 40;

/// A data segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Segment {
    /// Sequence number of the first payload byte (starts at 0, never wraps).
    pub seq: u64,
    pub len: u32,
    /// CWR (RFC 3168 section 6.1.2): the sender reduced its window after an ECE.
    pub cwr: bool,
}

/// SACK blocks an ack carries (RFC 2018: at most 3 with the timestamps option).
pub const MAX_SACK_BLOCKS: usize = 3;

/// A cumulative acknowledgement, with SACK blocks if the receiver sends them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TcpAck {
    /// The next byte expected.
    pub ack: u64,
    /// Receive window, bytes.
    pub rwnd: u64,
    /// SACK blocks `[start, end)` (RFC 2018), the block holding the most recently
    /// received segment first; unused entries are `None`.
    pub sack: [Option<(u64, u64)>; MAX_SACK_BLOCKS],
    /// ECE (RFC 3168 section 6.1.3): a CE-marked segment arrived and no CWR since.
    pub ece: bool,
}

/// Which congestion controller a TCP sender runs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum TcpCcKind {
    NewReno(NewRenoConfig),
    Cubic(CubicConfig),
    /// LEDBAT (RFC 6817); only [`super::ledbat::LedbatSender`] feeds it the one-way
    /// delays it needs.
    Ledbat(LedbatConfig),
}

/// NewReno or CUBIC behind one type.
#[derive(Debug, Clone)]
pub enum TcpCongestionControl {
    NewReno(NewReno),
    Cubic(Cubic),
    Ledbat(Ledbat),
}

impl TcpCongestionControl {
    pub fn new(kind: TcpCcKind) -> Self {
        match kind {
            TcpCcKind::NewReno(c) => TcpCongestionControl::NewReno(NewReno::new(c)),
            TcpCcKind::Cubic(c) => TcpCongestionControl::Cubic(Cubic::new(c)),
            TcpCcKind::Ledbat(c) => TcpCongestionControl::Ledbat(Ledbat::new(c)),
        }
    }
    /// The LEDBAT controller, if this is one.
    pub fn ledbat(&self) -> Option<&Ledbat> {
        match self {
            TcpCongestionControl::Ledbat(l) => Some(l),
            _ => None,
        }
    }
    /// The LEDBAT controller, to feed it one-way delay samples.
    pub(crate) fn ledbat_mut(&mut self) -> Option<&mut Ledbat> {
        match self {
            TcpCongestionControl::Ledbat(l) => Some(l),
            _ => None,
        }
    }
    fn inner(&self) -> &dyn WindowController {
        match self {
            TcpCongestionControl::NewReno(c) => c,
            TcpCongestionControl::Cubic(c) => c,
            TcpCongestionControl::Ledbat(c) => c,
        }
    }
    fn inner_mut(&mut self) -> &mut dyn WindowController {
        match self {
            TcpCongestionControl::NewReno(c) => c,
            TcpCongestionControl::Cubic(c) => c,
            TcpCongestionControl::Ledbat(c) => c,
        }
    }
}

impl WindowController for TcpCongestionControl {
    fn in_recovery(&self) -> bool {
        self.inner().in_recovery()
    }
    fn on_sent(&mut self, now: Timestamp, bytes: DataSize) {
        self.inner_mut().on_sent(now, bytes)
    }
    fn on_ack(&mut self, now: Timestamp, ack: &AckEvent) {
        self.inner_mut().on_ack(now, ack)
    }
    fn on_lost(&mut self, bytes: DataSize) {
        self.inner_mut().on_lost(bytes)
    }
    fn on_dup_ack(&mut self, now: Timestamp) {
        self.inner_mut().on_dup_ack(now)
    }
    fn on_fast_retransmit(&mut self, now: Timestamp, recovery_point: u64) -> bool {
        self.inner_mut().on_fast_retransmit(now, recovery_point)
    }
    fn on_rto_timeout(&mut self, now: Timestamp, repeated: bool) {
        self.inner_mut().on_rto_timeout(now, repeated)
    }
    fn on_congestion_mark(&mut self, now: Timestamp) {
        self.inner_mut().on_congestion_mark(now)
    }
    fn on_idle(&mut self, idle: TimeDelta, rto: TimeDelta) {
        self.inner_mut().on_idle(idle, rto)
    }
    fn set_max_cwnd(&mut self, max_cwnd: Option<DataSize>) {
        self.inner_mut().set_max_cwnd(max_cwnd)
    }
    fn set_cwnd(&mut self, cwnd: DataSize, ssthresh: Option<DataSize>) {
        self.inner_mut().set_cwnd(cwnd, ssthresh)
    }
    fn poll_cwnd_change(&mut self) -> Option<CwndChange> {
        self.inner_mut().poll_cwnd_change()
    }
}

/// The getters read the inner controller's `WindowCore`; every input is delegated.
impl EmbedsCore for TcpCongestionControl {
    fn core(&self) -> &WindowCore {
        match self {
            TcpCongestionControl::NewReno(c) => c.core(),
            TcpCongestionControl::Cubic(c) => c.core(),
            TcpCongestionControl::Ledbat(c) => c.core(),
        }
    }
    fn core_mut(&mut self) -> &mut WindowCore {
        match self {
            TcpCongestionControl::NewReno(c) => c.core_mut(),
            TcpCongestionControl::Cubic(c) => c.core_mut(),
            TcpCongestionControl::Ledbat(c) => c.core_mut(),
        }
    }
}

/// Sender configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct TcpSenderConfig {
    pub cc: TcpCcKind,
    /// RTO constants: RFC 6298 by default (1 s initial, 1 s min, 60 s max).
    pub rto: RtoConfig,
    pub source: SourceKind,
    /// Header bytes per segment / ack on the wire.
    pub header_bytes: u64,
    /// Duplicate acks that trigger fast retransmit (RFC 5681 3.2: 3).
    pub dupack_threshold: u32,
    /// The receive window before the first ack.
    pub initial_peer_rwnd: u64,
    /// RFC 6582 section 4, "Impatient" variant (default true): during fast recovery the
    /// retransmission timer is restarted only on the first partial ack, so that many
    /// losses in one window (repaired one per RTT without SACK) end in a timeout and
    /// go-back-N instead of a recovery lasting one RTT per hole. `false` is the
    /// "Slow-but-Steady" variant (restart on every partial ack).
    pub impatient_recovery: bool,
    /// SACK loss recovery (RFC 6675): SACKed segments leave the flight, a segment with
    /// at least `dupack_threshold` SACKed segments above it is lost and retransmitted
    /// while the pipe allows, and the timer restarts on every cumulative ack. Needs
    /// `pipe_recovery` in the window config and a SACK receiver. Default false.
    pub sack: bool,
    /// RTT samples as with the timestamps option (RFC 7323 section 4, on in Linux): every
    /// ack advancing the cumulative point gives a sample from the latest transmission of
    /// the first segment it covers, retransmissions included. Default false: Karn's
    /// algorithm (RFC 6298 section 3), no sample from an ack that covers retransmitted
    /// data.
    pub timestamps: bool,
    /// The codepoint of new data segments (RFC 3168 section 6.1.1: ECT(0); ECT(1) for
    /// an L4S experiment, RFC 8311 section 4.2). Not-ECT (the default): no ECN, and
    /// ECE is ignored.
    pub ecn: Ecn,
}

impl Default for TcpSenderConfig {
    fn default() -> Self {
        TcpSenderConfig {
            cc: TcpCcKind::Cubic(CubicConfig::default()),
            rto: RtoConfig::default(),
            source: SourceKind::Greedy {
                message_size: DataSize::kibibytes(64),
                buffer_limit: DataSize::kibibytes(256),
                total: None,
            },
            header_bytes: TCP_IP_HEADER,
            dupack_threshold: 3,
            initial_peer_rwnd: 4 << 20,
            impatient_recovery: true,
            sack: false,
            timestamps: false,
            ecn: Ecn::NotEct,
        }
    }
}

#[derive(Debug, Clone)]
struct SentSegment {
    len: u32,
    sent_at: Timestamp,
    transmissions: u32,
    in_flight: bool,
    sacked: bool,
}

/// Sender statistics.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TcpSenderStats {
    /// Wire bytes of all segments sent, retransmissions included.
    pub bytes_sent: u64,
    pub bytes_retransmitted: u64,
    /// Payload bytes cumulatively acknowledged.
    pub bytes_delivered: u64,
    pub segments_sent: u64,
    pub fast_retransmits: u64,
    pub timeouts: u64,
    /// Window reductions for an ECE (RFC 3168 section 6.1.2).
    pub ecn_responses: u64,
}

/// The sending side of a TCP-like flow.
#[derive(Debug, Clone)]
pub struct TcpSender {
    config: TcpSenderConfig,
    cc: TcpCongestionControl,
    rtt: RttEstimator,
    source: DataSource,
    buffered: u64,
    snd_una: u64,
    snd_nxt: u64,
    /// Sent and not cumulatively acknowledged, by sequence number (a ring buffer:
    /// appended at `snd_nxt`, removed from the front by the cumulative ack).
    segments: SeqMap<SentSegment>,
    /// Sequence numbers marked for retransmission, lowest first.
    rtx: SeqMap<()>,
    rtx_now: bool,
    dupacks: u32,
    partial_acks: u32,
    recover: Option<u64>,
    /// snd_nxt when the retransmission timer last expired: until the cumulative ack
    /// passes it, a further expiry is a repeated one (RFC 5681 section 3.1).
    timeout_recover: Option<u64>,
    peer_rwnd: u64,
    rto_deadline: Option<Timestamp>,
    last_now: Timestamp,
    reports: VecDeque<FlowReport>,
    stats: TcpSenderStats,
    /// snd_nxt at the last ECN reduction: an ECE on an ack at or below it belongs to
    /// the window already reduced for (RFC 3168 section 6.1.2).
    ecn_recover: Option<u64>,
    /// The next new segment carries CWR.
    cwr_pending: bool,
    /// The segment `poll_transmit` returned last was a retransmission (Not-ECT).
    last_was_retransmission: bool,
}

impl TcpSender {
    pub fn new(config: TcpSenderConfig) -> Self {
        TcpSender {
            cc: TcpCongestionControl::new(config.cc),
            rtt: RttEstimator::new(config.rto),
            source: DataSource::new(config.source.clone()),
            buffered: 0,
            snd_una: 0,
            snd_nxt: 0,
            segments: SeqMap::new(),
            rtx: SeqMap::new(),
            rtx_now: false,
            dupacks: 0,
            partial_acks: 0,
            recover: None,
            timeout_recover: None,
            peer_rwnd: config.initial_peer_rwnd,
            rto_deadline: None,
            last_now: Timestamp::ZERO,
            reports: VecDeque::new(),
            stats: TcpSenderStats::default(),
            ecn_recover: None,
            cwr_pending: false,
            last_was_retransmission: false,
            config,
        }
    }

    pub fn stats(&self) -> TcpSenderStats {
        self.stats
    }
    pub fn congestion_control(&self) -> &TcpCongestionControl {
        &self.cc
    }
    pub fn rtt_estimator(&self) -> &RttEstimator {
        &self.rtt
    }
    pub(crate) fn congestion_control_mut(&mut self) -> &mut TcpCongestionControl {
        &mut self.cc
    }
    pub fn cwnd(&self) -> DataSize {
        self.cc.cwnd()
    }
    pub fn bytes_written(&self) -> DataSize {
        self.source.written()
    }
    /// Files started (short-flow sources).
    pub fn files_started(&self) -> u64 {
        self.source.files_started()
    }
    /// Everything written has been acknowledged.
    pub fn is_idle(&self) -> bool {
        self.buffered == 0 && self.segments.is_empty()
    }
    fn collect_reports(&mut self) {
        let app_limited = self.buffered == 0;
        while let Some(c) = self.cc.poll_cwnd_change() {
            self.reports.push_back(FlowReport::Window {
                cwnd: c.cwnd,
                rtt: c.rtt,
                ssthresh: c.ssthresh,
                desired_cwnd: app_limited.then(|| self.cc.bytes_in_flight().max(self.cc.mtu())),
            });
        }
    }

    fn pull_source(&mut self, now: Timestamp) {
        let idle = self.is_idle();
        for _ in 0..1024 {
            match self
                .source
                .poll_message(now, DataSize::bytes(self.buffered), idle)
            {
                Some(size) => self.buffered += size.as_bytes(),
                None => break,
            }
        }
    }

    fn wire(&self, len: u32) -> DataSize {
        DataSize::bytes(len as u64 + self.config.header_bytes)
    }

    fn mark_lost(&mut self, seq: u64) -> DataSize {
        let mut lost = DataSize::ZERO;
        if let Some(s) = self.segments.get_mut(seq) {
            if s.in_flight {
                s.in_flight = false;
                lost = DataSize::bytes(s.len as u64);
            }
            self.rtx.insert(seq, ());
        }
        lost
    }

    fn on_ack(&mut self, now: Timestamp, ack: TcpAck) {
        if ack.ack < self.snd_una || ack.ack > self.snd_nxt {
            return;
        }
        self.peer_rwnd = ack.rwnd;
        let (sacked_newly, sacked_removed) = if self.config.sack {
            self.apply_sack(&ack)
        } else {
            (0, 0)
        };
        if ack.ack > self.snd_una {
            let was_in_recovery = self.cc.in_recovery();
            let mut newly = sacked_newly;
            let mut removed = sacked_removed;
            let mut first_sent = None;
            let mut last_original = None;
            let mut covers_retransmission = false;
            // The segments the ack covers entirely: a prefix (segments are contiguous).
            while self
                .segments
                .first()
                .is_some_and(|(seq, s)| seq + s.len as u64 <= ack.ack)
            {
                if let Some((seq, s)) = self.segments.pop_first() {
                    self.rtx.remove(seq);
                    if !s.sacked {
                        newly += s.len as u64;
                    }
                    if s.in_flight {
                        removed += s.len as u64;
                    }
                    first_sent.get_or_insert(s.sent_at);
                    if s.transmissions == 1 {
                        last_original = Some(s.sent_at);
                    } else {
                        covers_retransmission = true;
                    }
                }
            }
            let sample = if self.config.timestamps {
                // RFC 7323 4.3: TSecr echoes the segment that advanced the ack point.
                first_sent.map(|t| now - t)
            } else if covers_retransmission {
                // Karn's algorithm (RFC 6298 section 3; Linux FLAG_RETRANS_DATA_ACKED):
                // an ack that covers retransmitted data is ambiguous, no sample.
                None
            } else {
                last_original.map(|t| now - t)
            };
            self.stats.bytes_delivered += ack.ack - self.snd_una;
            self.snd_una = ack.ack;
            self.dupacks = 0;
            if let Some(r) = sample {
                self.rtt.on_sample(r);
            }
            self.cc.on_ack(
                now,
                &AckEvent {
                    newly_acked: DataSize::bytes(newly),
                    removed_from_flight: DataSize::bytes(removed),
                    cum_ack: ack.ack,
                    cum_ack_advanced: true,
                    rtt: sample,
                },
            );
            let partial = was_in_recovery && self.cc.in_recovery();
            if partial && !self.config.sack {
                // RFC 6582 3.2 step 4: a partial ack retransmits the first unacked segment.
                self.partial_acks += 1;
                if let Some((first, _)) = self.segments.first() {
                    let lost = self.mark_lost(first);
                    self.cc.on_lost(lost);
                    self.rtx_now = true;
                }
            }
            // RFC 6298 5.2 / 5.3: stop the timer when all is acked, else restart it
            // (in recovery, Impatient variant: only on the first partial ack).
            let restart = !partial
                || !self.config.impatient_recovery
                || self.config.sack
                || self.partial_acks == 1;
            if self.segments.is_empty() {
                self.rto_deadline = None;
            } else if restart {
                self.rto_deadline = Some(now + self.rtt.rto());
            }
            if self.config.sack {
                self.sack_recovery(now);
            }
        } else if !self.segments.is_empty() {
            self.dupacks += 1;
            if self.config.sack {
                // Loss detection first, so that ssthresh sees the flight before this
                // ack's SACKed bytes leave it (RFC 5681 FlightSize).
                self.sack_recovery(now);
                if sacked_removed > 0 {
                    // SACKed bytes leave the pipe (RFC 6675 SetPipe); no window growth.
                    self.cc.on_ack(
                        now,
                        &AckEvent {
                            newly_acked: DataSize::bytes(sacked_newly),
                            removed_from_flight: DataSize::bytes(sacked_removed),
                            cum_ack: self.snd_una,
                            cum_ack_advanced: false,
                            rtt: None,
                        },
                    );
                }
            } else if self.cc.in_recovery() {
                self.cc.on_dup_ack(now);
            } else if self.dupacks == self.config.dupack_threshold.max(1)
                && self.recover.map_or(true, |r| self.snd_una > r)
            {
                // RFC 6582 3.2 step 1-2 (with the "ack covers more than recover" check).
                self.recover = Some(self.snd_nxt);
                self.partial_acks = 0;
                if self.cc.on_fast_retransmit(now, self.snd_nxt) {
                    self.stats.fast_retransmits += 1;
                }
                let lost = self.mark_lost(self.snd_una);
                self.cc.on_lost(lost);
                self.rtx_now = true;
            }
        }
        if ack.ece {
            self.on_ece(now, ack.ack);
        }
        self.collect_reports();
    }

    /// RFC 3168 section 6.1.2: an ack with ECE halves the window as a loss would, "at
    /// most once per window of data" and not in fast recovery (whose loss already
    /// reduced it): an ECE counts only once the cumulative ack has passed what was
    /// outstanding at the previous reduction (a mark's or a loss's, `recover`).
    /// Nothing is retransmitted; the next new segment carries CWR.
    fn on_ece(&mut self, now: Timestamp, cum_ack: u64) {
        if !self.config.ecn.is_ecn_capable() || self.cc.in_recovery() {
            return;
        }
        let past = |point: Option<u64>| point.map_or(true, |p| cum_ack > p);
        if !(past(self.ecn_recover) && past(self.recover)) {
            return;
        }
        self.cc.on_congestion_mark(now);
        self.ecn_recover = Some(self.snd_nxt);
        self.cwr_pending = true;
        self.stats.ecn_responses += 1;
    }

    /// Mark the segments inside the ack's SACK blocks (RFC 6675 Update()). Returns
    /// (bytes newly SACKed, of those the bytes that were in flight).
    fn apply_sack(&mut self, ack: &TcpAck) -> (u64, u64) {
        let mut newly = 0;
        let mut removed = 0;
        for &(start, end) in ack.sack.iter().flatten() {
            if end <= self.snd_una || end > self.snd_nxt || start >= end {
                continue;
            }
            for (seq, s) in self.segments.range_mut(start..end) {
                if s.sacked || seq + s.len as u64 > end {
                    continue;
                }
                s.sacked = true;
                newly += s.len as u64;
                if s.in_flight {
                    s.in_flight = false;
                    removed += s.len as u64;
                }
                self.rtx.remove(seq);
            }
        }
        (newly, removed)
    }

    /// RFC 6675 section 5: a segment not SACKed with at least DupThresh SACKed segments
    /// above it is lost (IsLost, counted in segments); the first loss starts recovery.
    /// Each segment is declared lost once (its first transmission); a lost
    /// retransmission is left to the timer.
    fn sack_recovery(&mut self, now: Timestamp) {
        let thresh = self.config.dupack_threshold.max(1);
        let mut sacked_above = 0u32;
        let mut lost = Vec::new();
        for (seq, s) in self.segments.iter().rev() {
            if s.sacked {
                sacked_above += 1;
            } else if sacked_above >= thresh && s.in_flight && s.transmissions == 1 {
                lost.push(seq);
            }
        }
        if lost.is_empty() {
            return;
        }
        if !self.cc.in_recovery() && self.recover.map_or(true, |r| self.snd_una >= r) {
            self.recover = Some(self.snd_nxt);
            if self.cc.on_fast_retransmit(now, self.snd_nxt) {
                self.stats.fast_retransmits += 1;
                self.rtx_now = true;
            }
        }
        let mut bytes = DataSize::ZERO;
        for seq in lost {
            bytes += self.mark_lost(seq);
        }
        self.cc.on_lost(bytes);
    }

    fn on_rto(&mut self, now: Timestamp) {
        self.stats.timeouts += 1;
        // RFC 6298 5.4-5.6 and RFC 5681 equation 4; the window reaction first, while the
        // flight still counts the outstanding data. RFC 5681 3.1: "when a TCP sender
        // detects segment loss using the retransmission timer and the given segment has
        // already been retransmitted by way of the retransmission timer at least once,
        // the value of ssthresh is held constant".
        let repeated = self.timeout_recover.is_some_and(|r| self.snd_una < r);
        self.cc.on_rto_timeout(now, repeated);
        self.rtt.backoff();
        let seqs: Vec<u64> = self
            .segments
            .iter()
            .filter(|(_, s)| !s.sacked)
            .map(|(seq, _)| seq)
            .collect();
        let mut lost = DataSize::ZERO;
        for seq in seqs {
            lost += self.mark_lost(seq);
        }
        self.cc.on_lost(lost);
        // RFC 6582 section 3.2 step 1 note: after a timeout, recover = highest sent.
        self.recover = Some(self.snd_nxt);
        if !repeated {
            self.timeout_recover = Some(self.snd_nxt);
        }
        self.dupacks = 0;
        self.rto_deadline = None;
        self.collect_reports();
    }

    fn transmit(
        &mut self,
        now: Timestamp,
        seq: u64,
        len: u32,
        retransmission: bool,
    ) -> Transmit<Segment> {
        let wire = self.wire(len);
        self.last_was_retransmission = retransmission;
        // RFC 3168 section 6.1.2: CWR on the first new data after the reduction.
        let cwr = !retransmission && std::mem::take(&mut self.cwr_pending);
        self.cc.on_sent(now, DataSize::bytes(len as u64));
        self.stats.bytes_sent += wire.as_bytes();
        self.stats.segments_sent += 1;
        if retransmission {
            self.stats.bytes_retransmitted += wire.as_bytes();
        }
        if self.rto_deadline.is_none() {
            self.rto_deadline = Some(now + self.rtt.rto());
        }
        Transmit {
            size: wire,
            message: Segment { seq, len, cwr },
        }
    }
}

/// TCP couples as a window flow (paper 000's FSE for window-based flows).
impl Controller for TcpSender {
    /// A segment goes out on an ack, a timeout or new data from the source, whose next
    /// write is in `poll_timeout` (`DataSource::next_wakeup`).
    const INPUT_DRIVEN: bool = true;

    /// A window report, queued on every cwnd change.
    fn poll_cc_report(&mut self) -> Option<FlowReport> {
        self.reports.pop_front()
    }

    /// Apply a coupling allowance (`MaxWindow` caps, `Window` sets; `Rate` ignored).
    fn apply_allowance(&mut self, _now: Timestamp, allowance: Allowance) {
        match allowance {
            Allowance::MaxWindow(m) => self.cc.set_max_cwnd(m),
            Allowance::Window { cwnd, ssthresh } => self.cc.set_cwnd(cwnd, ssthresh),
            Allowance::Rate(_) => {}
        }
        self.collect_reports();
    }

    fn snapshot(&self) -> FlowReport {
        window_snapshot(&self.cc, self.rtt_estimator().latest())
    }

    fn latest_rtt(&self) -> Option<TimeDelta> {
        self.rtt_estimator().latest()
    }

    /// The configured codepoint on new data; retransmissions are Not-ECT (RFC 3168
    /// section 6.1.5). Read after `poll_transmit`: the segment it returned.
    fn ecn_codepoint(&self) -> Ecn {
        if self.last_was_retransmission {
            Ecn::NotEct
        } else {
            self.config.ecn
        }
    }

    fn ecn_responses(&self) -> Option<u64> {
        self.config
            .ecn
            .is_ecn_capable()
            .then_some(self.stats.ecn_responses)
    }
}

impl Endpoint for TcpSender {
    type Outgoing = Segment;
    type Incoming = TcpAck;

    fn handle_input(&mut self, now: Timestamp, message: TcpAck) {
        self.last_now = self.last_now.max(now);
        self.on_ack(now, message);
        self.pull_source(now);
    }

    fn poll_transmit(&mut self, now: Timestamp) -> Option<Transmit<Segment>> {
        self.last_now = self.last_now.max(now);
        self.pull_source(now);
        if let Some((seq, _)) = self.rtx.first() {
            if !(self.rtx_now || self.cc.can_send()) {
                return None;
            }
            self.rtx_now = false;
            self.rtx.remove(seq);
            let s = self.segments.get_mut(seq)?;
            s.in_flight = true;
            s.transmissions += 1;
            s.sent_at = now;
            let len = s.len;
            return Some(self.transmit(now, seq, len, true));
        }
        if self.buffered == 0 || !self.cc.can_send() {
            return None;
        }
        let outstanding = self.snd_nxt - self.snd_una;
        if outstanding >= self.peer_rwnd && !self.segments.is_empty() {
            return None;
        }
        let len = self
            .buffered
            .min(self.cc.mtu().as_bytes())
            .min(u32::MAX as u64) as u32;
        let seq = self.snd_nxt;
        self.snd_nxt += len as u64;
        self.buffered -= len as u64;
        self.segments.insert(
            seq,
            SentSegment {
                len,
                sent_at: now,
                transmissions: 1,
                in_flight: true,
                sacked: false,
            },
        );
        Some(self.transmit(now, seq, len, false))
    }

    fn poll_timeout(&self) -> Option<Timestamp> {
        match (self.rto_deadline, self.source.next_wakeup(self.last_now)) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    fn handle_timeout(&mut self, now: Timestamp) {
        self.last_now = self.last_now.max(now);
        if self.rto_deadline.is_some_and(|t| t <= now) {
            self.on_rto(now);
        }
        self.pull_source(now);
    }
}

/// Receiver configuration.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TcpReceiverConfig {
    pub rwnd: DataSize,
    /// Delayed acks (RFC 5681 4.2): ack at least every `ack_every` full segments, or
    /// after `ack_delay`. `ack_every = 1` disables delaying.
    pub ack_every: u32,
    /// Delayed-ack timer (RFC 5681: < 500 ms; Linux: 40 ms minimum, the default here).
    pub ack_delay: TimeDelta,
    pub header_bytes: u64,
    /// Send SACK blocks (RFC 2018). Default false.
    pub sack: bool,
}

impl Default for TcpReceiverConfig {
    fn default() -> Self {
        TcpReceiverConfig {
            rwnd: DataSize::bytes(4 << 20),
            ack_every: 2,
            ack_delay: TimeDelta::millis(40),
            header_bytes: TCP_IP_HEADER,
            sack: false,
        }
    }
}

/// Receiver statistics.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TcpReceiverStats {
    pub segments_received: u64,
    /// Bytes delivered in order to the application (each byte once).
    pub bytes_delivered: u64,
    pub duplicate_segments: u64,
    pub acks_sent: u64,
    /// Segments that arrived CE-marked.
    pub ce_marks: u64,
}

/// The receiving side of a TCP-like flow.
#[derive(Debug, Clone)]
pub struct TcpReceiver {
    config: TcpReceiverConfig,
    rcv_nxt: u64,
    /// Out-of-order segments (start, length) above `rcv_nxt`: after a loss they
    /// arrive in increasing order, so a ring in key order (appended at the back,
    /// drained from the front) instead of a B-tree.
    ooo: SeqMap<u32>,
    ooo_bytes: u64,
    unacked: u32,
    ack_deadline: Option<Timestamp>,
    ack_now: bool,
    /// Start of the most recently received out-of-order segment (RFC 2018 first block).
    last_ooo: Option<u64>,
    /// ECE on every ack until a segment with CWR arrives (RFC 3168 section 6.1.3).
    ece: bool,
    stats: TcpReceiverStats,
}

impl TcpReceiver {
    pub fn new(config: TcpReceiverConfig) -> Self {
        TcpReceiver {
            config,
            rcv_nxt: 0,
            ooo: SeqMap::new(),
            ooo_bytes: 0,
            unacked: 0,
            ack_deadline: None,
            ack_now: false,
            last_ooo: None,
            ece: false,
            stats: TcpReceiverStats::default(),
        }
    }

    /// The SACK blocks of the out-of-order data (RFC 2018 section 4): contiguous runs,
    /// the run holding the latest segment first, then the highest others.
    fn sack_blocks(&self) -> [Option<(u64, u64)>; MAX_SACK_BLOCKS] {
        let mut out = [None; MAX_SACK_BLOCKS];
        if !self.config.sack || self.ooo.is_empty() {
            return out;
        }
        let mut runs: Vec<(u64, u64)> = Vec::new();
        for (s, &l) in self.ooo.iter() {
            let e = s + l as u64;
            match runs.last_mut() {
                Some(r) if s <= r.1 => r.1 = r.1.max(e),
                _ => runs.push((s, e)),
            }
        }
        let first = self
            .last_ooo
            .and_then(|x| runs.iter().position(|r| r.0 <= x && x < r.1));
        let mut n = 0;
        if let Some(i) = first {
            out[0] = Some(runs[i]);
            n = 1;
        }
        for (i, r) in runs.iter().enumerate().rev() {
            if n >= MAX_SACK_BLOCKS {
                break;
            }
            if Some(i) != first {
                out[n] = Some(*r);
                n += 1;
            }
        }
        out
    }

    pub fn stats(&self) -> TcpReceiverStats {
        self.stats
    }
    pub fn bytes_delivered(&self) -> DataSize {
        DataSize::bytes(self.stats.bytes_delivered)
    }
}

impl Endpoint for TcpReceiver {
    type Outgoing = TcpAck;
    type Incoming = Segment;

    fn handle_input(&mut self, now: Timestamp, seg: Segment) {
        self.handle_input_ecn(now, seg, Ecn::NotEct);
    }

    /// RFC 3168 section 6.1.3: a segment with CWR ends the ECE echo, a CE-marked one
    /// (the CWR segment included) starts it. Acks stay delayed as usual.
    fn handle_input_ecn(&mut self, now: Timestamp, seg: Segment, ecn: Ecn) {
        if seg.cwr {
            self.ece = false;
        }
        if ecn.is_ce() {
            self.ece = true;
            self.stats.ce_marks += 1;
        }
        self.on_segment(now, seg);
    }

    fn poll_transmit(&mut self, _now: Timestamp) -> Option<Transmit<TcpAck>> {
        if !self.ack_now {
            return None;
        }
        self.ack_now = false;
        self.unacked = 0;
        self.ack_deadline = None;
        self.stats.acks_sent += 1;
        Some(Transmit {
            size: DataSize::bytes(self.config.header_bytes),
            message: TcpAck {
                ack: self.rcv_nxt,
                rwnd: self.config.rwnd.as_bytes().saturating_sub(self.ooo_bytes),
                sack: self.sack_blocks(),
                ece: self.ece,
            },
        })
    }

    fn poll_timeout(&self) -> Option<Timestamp> {
        self.ack_deadline
    }

    fn handle_timeout(&mut self, now: Timestamp) {
        if self.ack_deadline.is_some_and(|t| t <= now) {
            self.ack_now = true;
        }
    }
}

impl TcpReceiver {
    /// A data segment arrived (RFC 5681 4.2 acks, RFC 2018 blocks).
    fn on_segment(&mut self, now: Timestamp, seg: Segment) {
        self.stats.segments_received += 1;
        let end = seg.seq + seg.len as u64;
        if end <= self.rcv_nxt || self.ooo.get(seg.seq).is_some() {
            // RFC 5681 4.2: out-of-order (here: duplicate) data is acked at once.
            self.stats.duplicate_segments += 1;
            self.ack_now = true;
            return;
        }
        if seg.seq > self.rcv_nxt {
            if self.ooo_bytes + seg.len as u64 <= self.config.rwnd.as_bytes() {
                self.ooo.insert(seg.seq, seg.len);
                self.ooo_bytes += seg.len as u64;
                self.last_ooo = Some(seg.seq);
            }
            self.ack_now = true;
            return;
        }
        let filled_hole = !self.ooo.is_empty();
        let before = self.rcv_nxt;
        self.rcv_nxt = end;
        while let Some((s, &l)) = self.ooo.first() {
            if s > self.rcv_nxt {
                break;
            }
            self.ooo.pop_first();
            self.ooo_bytes -= l as u64;
            self.rcv_nxt = self.rcv_nxt.max(s + l as u64);
        }
        self.stats.bytes_delivered += self.rcv_nxt - before;
        self.unacked += 1;
        if filled_hole || self.unacked >= self.config.ack_every.max(1) {
            self.ack_now = true;
        } else if self.ack_deadline.is_none() {
            self.ack_deadline = Some(now + self.config.ack_delay);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(ms: u64) -> Timestamp {
        Timestamp::from_millis(ms)
    }
    fn sender() -> TcpSender {
        TcpSender::new(TcpSenderConfig {
            cc: TcpCcKind::NewReno(NewRenoConfig {
                smss: DataSize::bytes(1000),
                ..Default::default()
            }),
            source: SourceKind::Greedy {
                message_size: DataSize::bytes(100_000),
                buffer_limit: DataSize::bytes(100_000),
                total: Some(DataSize::bytes(100_000)),
            },
            ..Default::default()
        })
    }
    fn drain(s: &mut TcpSender, now: Timestamp) -> Vec<Segment> {
        std::iter::from_fn(|| s.poll_transmit(now).map(|t| t.message)).collect()
    }
    fn ack(a: u64) -> TcpAck {
        TcpAck {
            ack: a,
            rwnd: 1 << 20,
            sack: [None; MAX_SACK_BLOCKS],
            ece: false,
        }
    }

    #[test]
    fn initial_window_ten_segments_rfc6928() {
        let mut s = sender();
        let segs = drain(&mut s, t(0));
        assert_eq!(segs.len(), 10);
        assert_eq!(
            segs[3],
            Segment {
                seq: 3000,
                len: 1000,
                cwr: false
            }
        );
    }

    #[test]
    fn third_dup_ack_fast_retransmits_rfc5681_3_2() {
        let mut s = sender();
        drain(&mut s, t(0));
        s.handle_input(t(50), ack(1000));
        drain(&mut s, t(50));
        for i in 0..2 {
            s.handle_input(t(51 + i), ack(1000));
        }
        assert_eq!(s.stats().fast_retransmits, 0);
        s.handle_input(t(53), ack(1000));
        assert_eq!(s.stats().fast_retransmits, 1);
        let rtx = s.poll_transmit(t(53)).expect("retransmission").message;
        assert_eq!(rtx.seq, 1000);
        // Partial ack (RFC 6582 3.2 step 4): the next hole is retransmitted at once.
        s.handle_input(t(100), ack(3000));
        let rtx = s.poll_transmit(t(100)).expect("retransmission").message;
        assert_eq!(rtx.seq, 3000);
    }

    #[test]
    fn rto_retransmits_from_snd_una_rfc6298_5() {
        let mut s = sender();
        drain(&mut s, t(0));
        assert_eq!(s.poll_timeout(), Some(t(1000)));
        s.handle_timeout(t(1000));
        assert_eq!(s.cwnd(), DataSize::bytes(1000));
        assert_eq!(s.rtt_estimator().rto(), TimeDelta::secs(2));
        let segs = drain(&mut s, t(1000));
        assert_eq!(
            segs,
            vec![Segment {
                seq: 0,
                len: 1000,
                cwr: false
            }]
        );
    }

    #[test]
    fn repeated_timeout_holds_ssthresh_rfc5681_3_1() {
        let mut s = sender();
        drain(&mut s, t(0));
        // First expiry: FlightSize 10 segments -> ssthresh 5.
        s.handle_timeout(t(1000));
        assert_eq!(s.congestion_control().ssthresh(), DataSize::bytes(5000));
        assert_eq!(drain(&mut s, t(1000)).len(), 1);
        // The retransmission is lost too: the second expiry (backed off to 2 s) is for a
        // segment the timer already retransmitted, so ssthresh stays 5 segments (eq. 4
        // on the one-segment flight would give 2).
        s.handle_timeout(t(3000));
        assert_eq!(s.stats().timeouts, 2);
        assert_eq!(s.congestion_control().ssthresh(), DataSize::bytes(5000));
        // Once the data outstanding at the first expiry is acked, a new expiry is a new
        // loss event: eq. 4 again.
        s.handle_input(t(3100), ack(10_000));
        let sent = drain(&mut s, t(3100)).len() as u64;
        assert!(sent > 0);
        let deadline = s.poll_timeout().expect("timer running");
        s.handle_timeout(deadline);
        assert_eq!(s.stats().timeouts, 3);
        let want = (sent * 1000 / 2).max(2000);
        assert_eq!(s.congestion_control().ssthresh(), DataSize::bytes(want));
    }

    fn sack_sender() -> TcpSender {
        sack_sender_with_prr(false)
    }

    /// A SACK sender recovering by RFC 6675's pipe, with PRR (RFC 6937) if `prr`.
    fn sack_sender_with_prr(prr: bool) -> TcpSender {
        TcpSender::new(TcpSenderConfig {
            cc: TcpCcKind::NewReno(NewRenoConfig {
                smss: DataSize::bytes(1000),
                pipe_recovery: true,
                prr,
                ..Default::default()
            }),
            source: SourceKind::Greedy {
                message_size: DataSize::bytes(100_000),
                buffer_limit: DataSize::bytes(100_000),
                total: Some(DataSize::bytes(100_000)),
            },
            sack: true,
            ..Default::default()
        })
    }

    #[test]
    fn receiver_reports_sack_blocks_latest_first_rfc2018_4() {
        let mut r = TcpReceiver::new(TcpReceiverConfig {
            sack: true,
            ack_every: 1,
            ..Default::default()
        });
        r.handle_input(
            t(0),
            Segment {
                seq: 0,
                len: 1000,
                cwr: false,
            },
        );
        assert!(r.poll_transmit(t(0)).is_some());
        for seq in [2000, 3000, 5000] {
            r.handle_input(
                t(1),
                Segment {
                    seq,
                    len: 1000,
                    cwr: false,
                },
            );
        }
        let a = r.poll_transmit(t(1)).expect("dup ack").message;
        assert_eq!(a.ack, 1000);
        assert_eq!(a.sack, [Some((5000, 6000)), Some((2000, 4000)), None]);
    }

    #[test]
    fn sack_marks_a_hole_lost_after_three_sacked_segments_rfc6675() {
        let mut s = sack_sender();
        drain(&mut s, t(0));
        // Segments 1000 and 2000 lost; 3000.. SACKed one by one.
        let mut a = ack(1000);
        s.handle_input(t(50), a);
        drain(&mut s, t(50));
        for (i, end) in [4000u64, 5000, 6000].iter().enumerate() {
            a.sack = [Some((3000, *end)), None, None];
            s.handle_input(t(51 + i as u64), a);
        }
        assert_eq!(s.stats().fast_retransmits, 1);
        // Both holes below three SACKed segments are marked; the first goes out at once.
        assert_eq!(s.rtx.keys().collect::<Vec<_>>(), vec![1000, 2000]);
        let rtx = drain(&mut s, t(53));
        assert_eq!(rtx[0].seq, 1000);
        // cwnd = ssthresh (pipe recovery, no inflation by the dup acks).
        assert_eq!(s.cwnd(), s.congestion_control().ssthresh());
        assert!(s.congestion_control().in_recovery());
    }

    /// Segments sent after each of `acks` further SACKs once a loss of the first of ten
    /// segments started recovery (`prr`: RFC 6937, else RFC 6675).
    fn sent_per_ack_in_recovery(prr: bool, acks: u64) -> Vec<usize> {
        let mut s = sack_sender_with_prr(prr);
        assert_eq!(drain(&mut s, t(0)).len(), 10);
        let mut a = ack(0);
        for end in [2000u64, 3000, 4000] {
            a.sack = [Some((1000, end)), None, None];
            s.handle_input(t(50), a);
        }
        assert!(s.congestion_control().in_recovery());
        assert_eq!(drain(&mut s, t(50))[0].seq, 0, "the fast retransmission");
        (0..acks)
            .map(|i| {
                a.sack = [Some((1000, 5000 + 1000 * i)), None, None];
                s.handle_input(t(51 + i), a);
                drain(&mut s, t(51 + i)).len()
            })
            .collect()
    }

    #[test]
    fn prr_sends_during_recovery_as_data_is_delivered_rfc6937() {
        // RFC 6675: cwnd = ssthresh at once, so nothing leaves until the pipe has
        // drained below it. PRR: about ssthresh / RecoverFS segments per delivered one
        // from the first acks on, and no more in all than RFC 6675 allows.
        let rfc6675 = sent_per_ack_in_recovery(false, 6);
        let prr = sent_per_ack_in_recovery(true, 6);
        assert_eq!(rfc6675[..3], [0, 0, 0], "{rfc6675:?}");
        assert!(prr[..3].iter().sum::<usize>() >= 1, "{prr:?}");
        assert!(
            prr.iter().all(|&n| n <= 1),
            "spread, one at a time: {prr:?}"
        );
        assert!(
            prr.iter().sum::<usize>() <= rfc6675.iter().sum::<usize>() + 1,
            "{prr:?} {rfc6675:?}"
        );
    }

    #[test]
    fn karn_no_sample_from_an_ack_covering_a_retransmission_rfc6298_3() {
        let mut s = sender();
        drain(&mut s, t(0));
        s.handle_timeout(t(1000));
        drain(&mut s, t(1000));
        let rto = s.rtt_estimator().rto();
        // The ack covers the retransmitted first segment and nine originals.
        s.handle_input(t(1050), ack(10_000));
        assert_eq!(s.rtt_estimator().srtt(), None);
        assert_eq!(s.rtt_estimator().rto(), rto);
        // With timestamps (RFC 7323) the same ack is a 50 ms sample.
        let mut s = TcpSender::new(TcpSenderConfig {
            timestamps: true,
            ..sender().config.clone()
        });
        drain(&mut s, t(0));
        s.handle_timeout(t(1000));
        drain(&mut s, t(1000));
        s.handle_input(t(1050), ack(10_000));
        assert_eq!(s.rtt_estimator().srtt(), Some(TimeDelta::millis(50)));
    }

    #[test]
    fn receiver_delays_acks_and_acks_out_of_order_at_once_rfc5681_4_2() {
        let mut r = TcpReceiver::new(TcpReceiverConfig::default());
        r.handle_input(
            t(0),
            Segment {
                seq: 0,
                len: 1000,
                cwr: false,
            },
        );
        assert!(r.poll_transmit(t(0)).is_none());
        assert_eq!(r.poll_timeout(), Some(t(40)));
        r.handle_input(
            t(1),
            Segment {
                seq: 1000,
                len: 1000,
                cwr: false,
            },
        );
        assert_eq!(r.poll_transmit(t(1)).expect("every 2nd").message.ack, 2000);
        r.handle_input(
            t(2),
            Segment {
                seq: 3000,
                len: 1000,
                cwr: false,
            },
        );
        assert_eq!(r.poll_transmit(t(2)).expect("dup ack").message.ack, 2000);
        r.handle_input(
            t(3),
            Segment {
                seq: 2000,
                len: 1000,
                cwr: false,
            },
        );
        assert_eq!(
            r.poll_transmit(t(3)).expect("hole filled").message.ack,
            4000
        );
        r.handle_input(
            t(4),
            Segment {
                seq: 0,
                len: 1000,
                cwr: false,
            },
        );
        assert_eq!(r.poll_transmit(t(4)).expect("duplicate").message.ack, 4000);
        assert_eq!(r.stats().bytes_delivered, 4000);
        assert_eq!(r.stats().duplicate_segments, 1);
    }
}
