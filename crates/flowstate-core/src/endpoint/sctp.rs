//! A sans-I/O reliable transfer modelled on SCTP (RFC 9260), as used by the WebRTC data
//! channel: one association, one ordered stream, one destination address.
//!
//! [`SctpSender`] sends DATA chunks (one per packet, no bundling) with TSNs, keeps a
//! retransmission queue, runs the T3-rtx timer (RFC 9260 6.3), counts miss indications
//! for fast retransmit (7.2.4), respects the peer's receiver window (6.2.1) and Max.Burst
//! (6.1), and drives [`SctpCongestionControl`]. [`SctpReceiver`] reassembles ordered
//! messages and sends SACKs with gap-ack blocks and duplicate TSNs, delayed (200 ms or
//! every second packet, 6.2) but immediate on gaps and duplicates (6.7) and on a chunk
//! with RFC 7053's I bit (which the sender sets as dcSCTP does, when configured).
//!
//! Coupling: [`SctpSender::poll_cc_report`] yields a [`FlowReport::Window`] on every
//! cwnd change; [`SctpSender::apply_allowance`] applies a manager's answer.

use smallvec::SmallVec;
use std::collections::VecDeque;

use super::app_pacing::AppPacing;
use super::data_source::{DataSource, SourceKind};
use super::seq_map::SeqMap;
use super::{Endpoint, Transmit};
use crate::coupling::{Allowance, FlowReport};
use crate::units::{Bitrate, DataSize, TimeDelta, Timestamp};
use crate::window::{
    AckEvent, RtoConfig, RttEstimator, SctpCcConfig, SctpCongestionControl, WindowController,
};

/// SCTP common header (RFC 9260 3.1).
pub const COMMON_HEADER: u64 = 12;
/// DATA chunk header (RFC 9260 3.3.1).
pub const DATA_CHUNK_HEADER: u64 = 16;
/// SACK chunk header without gap blocks / duplicate TSNs (RFC 9260 3.3.4).
pub const SACK_CHUNK_HEADER: u64 = 16;

/// One DATA chunk (carried alone in a packet).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DataChunk {
    /// Transmission sequence number (starts at 1; 64-bit, never wraps).
    pub tsn: u64,
    /// The message this chunk belongs to (the stream sequence number).
    pub message_id: u64,
    /// Offset of this chunk's first payload byte in the whole byte stream (for checking
    /// exactly-once in-order delivery; not an SCTP field).
    pub stream_offset: u64,
    /// User data bytes in this chunk.
    pub payload_len: u32,
    /// B bit: first chunk of a message.
    pub begin: bool,
    /// E bit: last chunk of a message.
    pub end: bool,
    /// I bit (RFC 7053): the receiver should SACK this packet at once.
    pub immediate_ack: bool,
}

/// Gap-ack blocks of a [`Sack`]: held in the SACK itself up to four, on the heap beyond
/// (a SACK after a loss reports a few gaps; building one allocates nothing then).
pub type GapBlocks = SmallVec<[(u32, u32); 4]>;
/// Duplicate TSNs of a [`Sack`], held inline like [`GapBlocks`].
pub type DupTsns = SmallVec<[u64; 4]>;

/// A SACK chunk (RFC 9260 3.3.4).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sack {
    pub cum_tsn: u64,
    /// Advertised receiver window credit, bytes.
    pub a_rwnd: u64,
    /// Gap-ack blocks as (start, end) offsets from `cum_tsn`, inclusive.
    pub gap_blocks: GapBlocks,
    pub dup_tsns: DupTsns,
}

impl Sack {
    /// Wire size of the packet carrying this SACK.
    pub fn wire_size(&self, lower_layer_overhead: DataSize) -> DataSize {
        DataSize::bytes(
            COMMON_HEADER
                + SACK_CHUNK_HEADER
                + 4 * self.gap_blocks.len() as u64
                + 4 * self.dup_tsns.len() as u64,
        ) + lower_layer_overhead
    }
}

/// Wire size of a packet with one DATA chunk of `payload` bytes (padded to 4 bytes).
pub fn data_packet_size(payload: u32, lower_layer_overhead: DataSize) -> DataSize {
    let padded = (payload as u64).div_ceil(4) * 4;
    DataSize::bytes(COMMON_HEADER + DATA_CHUNK_HEADER + padded) + lower_layer_overhead
}

/// `DcSctpOptions::immediate_sack_under_cwnd_mtus` (net/dcsctp/public/dcsctp_options.h):
/// the I bit goes on DATA chunks while cwnd is under this many MTUs.
pub const DCSCTP_IMMEDIATE_SACK_UNDER_CWND_MTUS: u64 = 10;

/// Sender configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct SctpSenderConfig {
    pub cc: SctpCcConfig,
    /// RTO constants; default [`RtoConfig::webrtc`] (a named deviation from RFC 9260's
    /// 1 s / 1 s / 60 s, which [`RtoConfig::default`] gives).
    pub rto: RtoConfig,
    pub source: SourceKind,
    /// Bytes below the SCTP packet on the wire (DTLS/UDP/IP), charged in `Transmit::size`
    /// but not counted in the MTU. Default 0: the SCTP packet is the unit.
    pub lower_layer_overhead: DataSize,
    /// Max.Burst: at most this many packets per sending opportunity (RFC 9260 6.1, 16).
    pub max_burst: u32,
    /// Miss indications that trigger fast retransmit (RFC 9260 7.2.4: 3).
    pub fast_retransmit_threshold: u32,
    /// The receiver window the peer announced at association setup (RFC 9260 6.2.1 A).
    pub initial_peer_rwnd: DataSize,
    /// With a max-cwnd cap (FSE-NG, Extended FSE-NG), report the cwnd an ack grew *before*
    /// the cap clips it, as paper 000's usrsctp patch does (ref. [28]:
    /// `sctp_enforce_cwnd_limit` calls the coupling callback with `net->cwnd` after the
    /// increase and only then applies `max_cwnd`; the clip itself is not reported).
    /// Default on; off reports only the clipped cwnd. No effect without a cap.
    pub report_cwnd_before_cap: bool,
    /// dcSCTP's loss rule for retransmissions: a retransmitted chunk's miss count
    /// starts again at zero and three new miss indications declare it lost again, take
    /// it out of the flight and queue it for another retransmission
    /// (`OutstandingData::Item::MarkAsRetransmitted` resets `nack_count_`,
    /// net/dcsctp/tx/outstanding_data.cc). A miss indication is any SACK that newly
    /// acks a higher TSN, so SACKs of chunks sent before the retransmission count too.
    /// Default false (usrsctp as the model had it): a chunk is struck only until its
    /// one fast retransmission, and a lost retransmission waits for the T3-rtx timer.
    pub renack_retransmissions: bool,
    /// dcSCTP's RFC 7053 rule: every DATA chunk sent while cwnd is under this many MTUs
    /// carries the I bit, and the receiver SACKs it at once
    /// (`DcSctpOptions::immediate_sack_under_cwnd_mtus` 10, net/dcsctp/public/
    /// dcsctp_options.h; `TransmissionControlBlock::SendBufferedPackets`; the one fast
    /// retransmission that ignores cwnd goes without it, `MaybeSendFastRetransmit`).
    /// 0 (default, usrsctp): never set.
    pub immediate_sack_under_cwnd_mtus: u64,
    /// dcSCTP's packet budget: a packet never takes the flight past cwnd. New data is
    /// cut to the room cwnd leaves (a fragment of any multiple of 4 bytes), and a
    /// retransmission waits until it fits whole (`RetransmissionQueue::GetChunksToSend`:
    /// max_bytes = cwnd - unacked bytes; `OutstandingData::ExtractChunksThatCanFit`,
    /// net/dcsctp/tx/). The one fast retransmission still ignores cwnd. Default false
    /// (RFC 9260 6.1 B, as usrsctp): a full packet goes while flight < cwnd, so the
    /// flight may pass cwnd by up to an MTU - 1.
    pub cwnd_sized_packets: bool,
}

impl SctpSenderConfig {
    /// dcSCTP as Chromium runs it since M95 (`dcsctp` preset; WebRTC M125 sources):
    /// [`SctpCcConfig::dcsctp`] (MTU 1191 B, initial cwnd 10 MTUs, loss floor 4 MTUs),
    /// [`RtoConfig::dcsctp`] (500 ms / 400 ms / 60 s, RTTVAR floor 220 ms, backoff cap
    /// 3 s) and Max.Burst 4 (net/dcsctp/public/dcsctp_options.h `max_burst`). The
    /// receiver's delayed SACK is dcSCTP's too with [`SctpReceiverConfig::default`]: a
    /// SACK every second packet, else after min(RTO/2, `delayed_ack_max_timeout` 200 ms)
    /// (net/dcsctp/socket/transmission_control_block.cc); a receive-only endpoint has
    /// no RTT sample, so its RTO stays 500 ms and the timer 200 ms. A lost
    /// retransmission is declared lost again after three new miss indications
    /// (`renack_retransmissions`, `OutstandingData::Item::MarkAsRetransmitted`), and
    /// DATA chunks carry RFC 7053's I bit while cwnd is under 10 MTUs
    /// (`immediate_sack_under_cwnd_mtus`), and no packet takes the flight past cwnd
    /// (`cwnd_sized_packets`).
    pub fn dcsctp() -> Self {
        SctpSenderConfig {
            cc: SctpCcConfig::dcsctp(),
            rto: RtoConfig::dcsctp(),
            max_burst: 4,
            renack_retransmissions: true,
            immediate_sack_under_cwnd_mtus: DCSCTP_IMMEDIATE_SACK_UNDER_CWND_MTUS,
            cwnd_sized_packets: true,
            ..Self::default()
        }
    }
}

impl Default for SctpSenderConfig {
    fn default() -> Self {
        SctpSenderConfig {
            cc: SctpCcConfig::default(),
            rto: RtoConfig::webrtc(),
            source: SourceKind::paper_greedy(),
            lower_layer_overhead: DataSize::ZERO,
            max_burst: 4,
            fast_retransmit_threshold: 3,
            initial_peer_rwnd: DataSize::bytes(1 << 20),
            report_cwnd_before_cap: true,
            renack_retransmissions: false,
            immediate_sack_under_cwnd_mtus: 0,
            cwnd_sized_packets: false,
        }
    }
}

#[derive(Debug, Clone)]
struct Outstanding {
    chunk: DataChunk,
    wire: DataSize,
    sent_at: Timestamp,
    transmissions: u32,
    gap_acked: bool,
    in_flight: bool,
    marked: bool,
    misses: u32,
    fast_retransmitted: bool,
}

#[derive(Debug, Clone)]
struct PendingMessage {
    id: u64,
    remaining: u64,
    started: bool,
}

/// Sender statistics.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SctpSenderStats {
    /// Wire bytes of all DATA packets sent (first transmissions and retransmissions).
    pub bytes_sent: u64,
    /// Wire bytes of retransmitted DATA packets.
    pub bytes_retransmitted: u64,
    /// Payload bytes cumulatively acknowledged by the peer.
    pub bytes_delivered: u64,
    pub packets_sent: u64,
    pub packets_retransmitted: u64,
    pub fast_retransmits: u64,
    pub t3_expiries: u64,
    pub sacks_received: u64,
}

/// The sending side of the data channel.
#[derive(Debug, Clone)]
pub struct SctpSender {
    config: SctpSenderConfig,
    cc: SctpCongestionControl,
    rtt: RttEstimator,
    source: DataSource,
    queue: VecDeque<PendingMessage>,
    buffered: u64,
    next_tsn: u64,
    cum_ack: u64,
    stream_offset: u64,
    /// Sent and not cumulatively acknowledged, by TSN (a ring buffer: appended at
    /// the next TSN, removed from the front by the cumulative TSN ack).
    outstanding: SeqMap<Outstanding>,
    /// Payload bytes of `outstanding` not gap-acked (RFC 4960 6.2.1 D iv's "bytes
    /// still outstanding"), kept as the chunks come and go instead of summed per SACK.
    outstanding_payload: u64,
    /// Sequence numbers marked for retransmission, lowest first.
    rtx: SeqMap<()>,
    peer_rwnd: u64,
    t3: Option<Timestamp>,
    rtt_probe: Option<(u64, Timestamp)>,
    last_send: Option<Timestamp>,
    last_now: Timestamp,
    burst_left: u32,
    fast_rtx_once: bool,
    reports: VecDeque<FlowReport>,
    stats: SctpSenderStats,
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
    /// Pace the application's (greedy) writes with a token bucket (Web-API coupling,
    /// issue 23); `None`: the source writes as configured.
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

    /// The next coupling report (queued on every cwnd change).
    pub fn poll_cc_report(&mut self) -> Option<FlowReport> {
        self.reports.pop_front()
    }

    /// Apply a coupling manager's answer: `MaxWindow` caps cwnd (FSE-NG), `Window` sets
    /// it (FSEv2). `Rate` is for rate flows and is ignored.
    pub fn apply_allowance(&mut self, now: Timestamp, allowance: Allowance) {
        self.last_now = self.last_now.max(now);
        match allowance {
            Allowance::MaxWindow(max) => self.cc.set_max_cwnd(max),
            Allowance::Window { cwnd, ssthresh } => self.cc.set_cwnd(cwnd, ssthresh),
            Allowance::Rate(_) => {}
        }
        self.collect_reports();
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

    fn collect_reports(&mut self) {
        while let Some(change) = self.cc.poll_cwnd_change() {
            self.reports.push_back(FlowReport::Window {
                cwnd: change.cwnd,
                rtt: change.rtt,
                ssthresh: change.ssthresh,
                desired_cwnd: self.desired_cwnd(),
            });
        }
    }

    fn max_payload(&self) -> u64 {
        self.cc
            .mtu()
            .as_bytes()
            .saturating_sub(COMMON_HEADER + DATA_CHUNK_HEADER)
            .max(4)
            / 4
            * 4
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

    fn outstanding_payload(&self) -> u64 {
        debug_assert_eq!(
            self.outstanding_payload,
            self.outstanding
                .values()
                .filter(|o| !o.gap_acked)
                .map(|o| o.chunk.payload_len as u64)
                .sum::<u64>()
        );
        self.outstanding_payload
    }

    fn start_t3_if_stopped(&mut self, now: Timestamp) {
        if self.t3.is_none() {
            self.t3 = Some(now + self.rtt.rto());
        }
    }

    /// RFC 7053's I bit as dcSCTP sets it: cwnd under `immediate_sack_under_cwnd_mtus`.
    fn immediate_ack(&self) -> bool {
        self.cc.cwnd() < self.cc.mtu() * self.config.immediate_sack_under_cwnd_mtus
    }

    fn send_retransmission(
        &mut self,
        now: Timestamp,
        immediate_ack: bool,
    ) -> Option<Transmit<DataChunk>> {
        let (tsn, _) = self.rtx.first()?;
        self.rtx.remove(tsn);
        let o = self.outstanding.get_mut(tsn)?;
        o.marked = false;
        o.in_flight = true;
        o.sent_at = now;
        o.transmissions += 1;
        if self.config.renack_retransmissions {
            o.misses = 0; // dcSCTP's MarkAsRetransmitted: counted again from zero
        }
        let (wire, mut chunk) = (o.wire, o.chunk);
        chunk.immediate_ack = immediate_ack;
        if self.rtt_probe.is_some_and(|(p, _)| p == tsn) {
            self.rtt_probe = None; // Karn: no sample from a retransmitted chunk (6.3.1 C4)
        }
        self.cc.on_sent(now, wire);
        self.stats.bytes_sent += wire.as_bytes();
        self.stats.bytes_retransmitted += wire.as_bytes();
        self.stats.packets_sent += 1;
        self.stats.packets_retransmitted += 1;
        self.start_t3_if_stopped(now);
        Some(Transmit {
            size: wire,
            message: chunk,
        })
    }

    /// The payload bytes a new chunk may carry: the MTU's, or with `cwnd_sized_packets`
    /// what cwnd leaves after the packet's headers (whole 4-byte units; 0: none fits).
    fn payload_budget(&self) -> u64 {
        let max_payload = self.max_payload();
        if !self.config.cwnd_sized_packets {
            return max_payload;
        }
        let room = self.cc.cwnd().saturating_sub(self.cc.bytes_in_flight());
        let headers = data_packet_size(0, self.config.lower_layer_overhead);
        (room.saturating_sub(headers).as_bytes() / 4 * 4).min(max_payload)
    }

    /// With `cwnd_sized_packets`, whether the first chunk marked for retransmission fits
    /// whole in what cwnd leaves.
    fn retransmission_fits(&self) -> bool {
        // With nothing in flight a chunk always goes (cwnd is at least an MTU, and the
        // bytes below SCTP that `lower_layer_overhead` adds must not stall it).
        if !self.config.cwnd_sized_packets || self.cc.bytes_in_flight() == DataSize::ZERO {
            return true;
        }
        let room = self.cc.cwnd().saturating_sub(self.cc.bytes_in_flight());
        self.rtx
            .first()
            .and_then(|(tsn, _)| self.outstanding.get(tsn))
            .is_some_and(|o| o.wire <= room)
    }

    fn send_new(&mut self, now: Timestamp) -> Option<Transmit<DataChunk>> {
        let max_payload = self.payload_budget();
        if max_payload == 0 {
            return None;
        }
        let msg = self.queue.front_mut()?;
        let payload = msg.remaining.min(max_payload);
        let begin = !msg.started;
        msg.started = true;
        msg.remaining -= payload;
        let end = msg.remaining == 0;
        let id = msg.id;
        if end {
            self.queue.pop_front();
        }
        self.buffered = self.buffered.saturating_sub(payload);
        let payload = payload as u32;
        let chunk = DataChunk {
            tsn: self.next_tsn,
            message_id: id,
            stream_offset: self.stream_offset,
            payload_len: payload,
            begin,
            end,
            immediate_ack: self.immediate_ack(),
        };
        self.next_tsn += 1;
        self.stream_offset += payload as u64;
        let wire = data_packet_size(payload, self.config.lower_layer_overhead);
        self.outstanding_payload += payload as u64;
        self.outstanding.insert(
            chunk.tsn,
            Outstanding {
                chunk,
                wire,
                sent_at: now,
                transmissions: 1,
                gap_acked: false,
                in_flight: true,
                marked: false,
                misses: 0,
                fast_retransmitted: false,
            },
        );
        // 6.2.1 B: rwnd is reduced by the data sent.
        self.peer_rwnd = self.peer_rwnd.saturating_sub(payload as u64);
        if self.rtt_probe.is_none() {
            self.rtt_probe = Some((chunk.tsn, now));
        }
        self.cc.on_sent(now, wire);
        self.stats.bytes_sent += wire.as_bytes();
        self.stats.packets_sent += 1;
        self.start_t3_if_stopped(now);
        Some(Transmit {
            size: wire,
            message: chunk,
        })
    }

    fn on_sack(&mut self, now: Timestamp, sack: Sack) {
        // 6.2.1 D i): a SACK whose cumulative TSN is below the ack point is stale; one
        // acking a TSN never sent is invalid.
        if sack.cum_tsn < self.cum_ack || sack.cum_tsn >= self.next_tsn {
            return;
        }
        self.stats.sacks_received += 1;
        let mut newly = DataSize::ZERO;
        let mut removed = DataSize::ZERO;
        let mut highest_newly: Option<u64> = None;
        let mut rtt_sample = None;
        if let Some((probe, sent)) = self.rtt_probe {
            if probe <= sack.cum_tsn {
                rtt_sample = Some(now - sent);
                self.rtt_probe = None;
            }
        }
        // Cumulative ack.
        let cum_advanced = sack.cum_tsn > self.cum_ack;
        while self
            .outstanding
            .first()
            .is_some_and(|(t, _)| t <= sack.cum_tsn)
        {
            if let Some((tsn, o)) = self.outstanding.pop_first() {
                self.rtx.remove(tsn);
                self.stats.bytes_delivered += o.chunk.payload_len as u64;
                if !o.gap_acked {
                    self.outstanding_payload -= o.chunk.payload_len as u64;
                    newly += o.wire;
                    highest_newly = Some(tsn);
                    if o.in_flight {
                        removed += o.wire;
                    }
                }
            }
        }
        self.cum_ack = sack.cum_tsn;
        // Gap-ack blocks.
        let mut highest_gap: Option<u64> = None;
        for &(start, end) in &sack.gap_blocks {
            if end < start || start == 0 {
                continue;
            }
            let lo = sack.cum_tsn + start as u64;
            let hi = sack.cum_tsn + end as u64;
            highest_gap = Some(highest_gap.map_or(hi, |h| h.max(hi)));
            for (tsn, o) in self.outstanding.range_mut(lo..=hi) {
                if o.gap_acked {
                    continue;
                }
                o.gap_acked = true;
                self.outstanding_payload -= o.chunk.payload_len as u64;
                newly += o.wire;
                highest_newly = Some(highest_newly.map_or(tsn, |h| h.max(tsn)));
                if o.in_flight {
                    o.in_flight = false;
                    removed += o.wire;
                }
                if o.marked {
                    o.marked = false;
                    self.rtx.remove(tsn);
                }
                if self.rtt_probe.is_some_and(|(p, _)| p == tsn) {
                    rtt_sample = self.rtt_probe.map(|(_, sent)| now - sent);
                    self.rtt_probe = None;
                }
            }
        }
        if let Some(r) = rtt_sample {
            self.rtt.on_sample(r);
        }
        // 7.2.4: miss indications. HTNA: only TSNs below the highest TSN newly acked;
        // in Fast Recovery with the cum ack advancing, all TSNs reported missing.
        let strike_below = if self.cc.in_recovery() && cum_advanced {
            highest_gap
        } else {
            highest_newly
        };
        let mut lost = DataSize::ZERO;
        let mut new_marks = false;
        if let Some(limit) = strike_below {
            let threshold = self.config.fast_retransmit_threshold.max(1);
            let renack = self.config.renack_retransmissions;
            for (tsn, o) in self.outstanding.range_mut(..limit) {
                if o.gap_acked || o.marked || (o.fast_retransmitted && !renack) {
                    continue;
                }
                o.misses += 1;
                if o.misses >= threshold {
                    o.marked = true;
                    o.fast_retransmitted = true;
                    if o.in_flight {
                        o.in_flight = false;
                        lost += o.wire;
                    }
                    self.rtx.insert(tsn, ());
                    new_marks = true;
                }
            }
        }
        let ack = AckEvent {
            newly_acked: newly,
            removed_from_flight: removed,
            cum_ack: sack.cum_tsn,
            cum_ack_advanced: cum_advanced,
            rtt: rtt_sample,
        };
        self.on_ack_reporting(now, &ack);
        if new_marks {
            let highest_outstanding = self.next_tsn.saturating_sub(1);
            if self.cc.on_fast_retransmit(now, highest_outstanding) {
                self.stats.fast_retransmits += 1;
                // 7.2.4 (3): the first retransmission goes out regardless of cwnd.
                self.fast_rtx_once = true;
            }
        }
        self.cc.on_lost(lost);
        // 6.2.1 D iv): rwnd = a_rwnd - bytes still outstanding.
        self.peer_rwnd = sack.a_rwnd.saturating_sub(self.outstanding_payload());
        // 6.3.2 R2 / R3: stop T3 when nothing is outstanding; restart it when the
        // earliest outstanding TSN is acked.
        if self.outstanding.values().all(|o| o.gap_acked) {
            self.t3 = None;
        } else if cum_advanced {
            self.t3 = Some(now + self.rtt.rto());
        }
        self.collect_reports();
    }

    /// `cc.on_ack`; with a cap and `report_cwnd_before_cap`, the grown cwnd is reported
    /// before the cap clips it (usrsctp with the paper's patch), the clip is silent.
    fn on_ack_reporting(&mut self, now: Timestamp, ack: &AckEvent) {
        let cap = self.cc.max_cwnd();
        if !(self.config.report_cwnd_before_cap && cap.is_some()) {
            self.cc.on_ack(now, ack);
            return;
        }
        self.cc.set_max_cwnd(None);
        self.cc.on_ack(now, ack);
        self.collect_reports();
        self.cc.set_max_cwnd(cap);
        // The clip back to the cap: applied, not reported.
        let _ = self.cc.poll_cwnd_change();
    }

    fn on_t3_expiry(&mut self, now: Timestamp) {
        self.stats.t3_expiries += 1;
        // 6.3.3 E1: ssthresh / cwnd; E2: back off the RTO; E3: mark everything
        // outstanding for retransmission.
        self.cc.on_rto_timeout(now, false);
        self.rtt.backoff();
        let mut lost = DataSize::ZERO;
        for (tsn, o) in self.outstanding.iter_mut() {
            if o.gap_acked {
                continue;
            }
            if o.in_flight {
                o.in_flight = false;
                lost += o.wire;
            }
            o.marked = true;
            o.misses = 0;
            self.rtx.insert(tsn, ());
        }
        self.cc.on_lost(lost);
        self.rtt_probe = None;
        self.fast_rtx_once = false;
        self.t3 = None;
        self.collect_reports();
    }
}

impl Endpoint for SctpSender {
    type Outgoing = DataChunk;
    type Incoming = Sack;

    fn handle_input(&mut self, now: Timestamp, message: Sack) {
        self.last_now = self.last_now.max(now);
        self.burst_left = self.config.max_burst.max(1);
        self.on_sack(now, message);
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
        if tx.is_some() {
            self.burst_left -= 1;
            self.last_send = Some(now);
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

/// Receiver configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct SctpReceiverConfig {
    /// Receive buffer (the a_rwnd announced when empty).
    pub rwnd: DataSize,
    /// Send a SACK for at least every this many packets (RFC 9260 6.2: 2).
    pub sack_every: u32,
    /// Delayed-SACK timer (RFC 9260 6.2: 200 ms, at most 500 ms).
    pub sack_delay: TimeDelta,
    /// Most gap-ack blocks per SACK.
    pub max_gap_blocks: usize,
    /// Most duplicate TSNs reported per SACK.
    pub max_dup_tsns: usize,
    pub lower_layer_overhead: DataSize,
    /// Keep a log of delivered messages (for tests / metrics via `poll_delivered`).
    pub keep_delivery_log: bool,
}

impl Default for SctpReceiverConfig {
    fn default() -> Self {
        SctpReceiverConfig {
            rwnd: DataSize::bytes(1 << 20),
            sack_every: 2,
            sack_delay: TimeDelta::millis(200),
            max_gap_blocks: 64,
            max_dup_tsns: 32,
            lower_layer_overhead: DataSize::ZERO,
            keep_delivery_log: false,
        }
    }
}

/// A message handed to the application, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DeliveredMessage {
    pub message_id: u64,
    pub size: u64,
    /// Stream offset of the message's first byte.
    pub first_offset: u64,
    pub at: Timestamp,
}

/// Receiver statistics.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SctpReceiverStats {
    pub packets_received: u64,
    /// Payload bytes handed to the application.
    pub bytes_delivered: u64,
    pub messages_delivered: u64,
    pub duplicate_chunks: u64,
    /// Chunks dropped for lack of receive buffer.
    pub dropped_chunks: u64,
    /// Chunks whose stream offset did not continue the stream (must stay 0).
    pub order_errors: u64,
    pub sacks_sent: u64,
}

/// The receiving side of the data channel.
#[derive(Debug, Clone)]
pub struct SctpReceiver {
    config: SctpReceiverConfig,
    cum_tsn: u64,
    /// Chunks above a gap, by TSN (a ring in TSN order: they mostly arrive in order).
    ooo: SeqMap<DataChunk>,
    ooo_bytes: u64,
    next_offset: u64,
    partial: Option<(u64, u64, u64)>,
    dups: Vec<u64>,
    unacked_packets: u32,
    sack_deadline: Option<Timestamp>,
    sack_now: bool,
    delivered: VecDeque<DeliveredMessage>,
    stats: SctpReceiverStats,
}

impl SctpReceiver {
    pub fn new(config: SctpReceiverConfig) -> Self {
        SctpReceiver {
            config,
            cum_tsn: 0,
            ooo: SeqMap::new(),
            ooo_bytes: 0,
            next_offset: 0,
            partial: None,
            dups: Vec::new(),
            unacked_packets: 0,
            sack_deadline: None,
            sack_now: false,
            delivered: VecDeque::new(),
            stats: SctpReceiverStats::default(),
        }
    }

    pub fn stats(&self) -> SctpReceiverStats {
        self.stats
    }
    pub fn bytes_delivered(&self) -> DataSize {
        DataSize::bytes(self.stats.bytes_delivered)
    }
    pub fn messages_delivered(&self) -> u64 {
        self.stats.messages_delivered
    }
    /// The next delivered message (only with `keep_delivery_log`).
    pub fn poll_delivered(&mut self) -> Option<DeliveredMessage> {
        self.delivered.pop_front()
    }

    fn buffered(&self) -> u64 {
        self.ooo_bytes + self.partial.map_or(0, |(_, _, b)| b)
    }

    fn a_rwnd(&self) -> u64 {
        self.config.rwnd.as_bytes().saturating_sub(self.buffered())
    }

    fn deliver_in_order(&mut self, now: Timestamp, chunk: DataChunk) {
        if chunk.stream_offset != self.next_offset {
            self.stats.order_errors += 1;
        }
        self.next_offset = chunk.stream_offset + chunk.payload_len as u64;
        let (id, first, bytes) = match self.partial {
            Some(p) if !chunk.begin => p,
            _ => (chunk.message_id, chunk.stream_offset, 0),
        };
        if id != chunk.message_id {
            self.stats.order_errors += 1;
        }
        let bytes = bytes + chunk.payload_len as u64;
        if chunk.end {
            self.partial = None;
            self.stats.bytes_delivered += bytes;
            self.stats.messages_delivered += 1;
            if self.config.keep_delivery_log {
                self.delivered.push_back(DeliveredMessage {
                    message_id: id,
                    size: bytes,
                    first_offset: first,
                    at: now,
                });
            }
        } else {
            self.partial = Some((id, first, bytes));
        }
    }

    fn build_sack(&mut self) -> Sack {
        let mut gap_blocks = GapBlocks::new();
        let mut run: Option<(u64, u64)> = None;
        for tsn in self.ooo.keys() {
            run = match run {
                Some((s, e)) if tsn == e + 1 => Some((s, tsn)),
                Some((s, e)) => {
                    gap_blocks.push(self.block(s, e));
                    Some((tsn, tsn))
                }
                None => Some((tsn, tsn)),
            };
            if gap_blocks.len() >= self.config.max_gap_blocks {
                run = None;
                break;
            }
        }
        if let Some((s, e)) = run {
            gap_blocks.push(self.block(s, e));
        }
        let kept = self.dups.len().min(self.config.max_dup_tsns);
        let dups = DupTsns::from_slice(&self.dups[..kept]);
        self.dups.clear();
        Sack {
            cum_tsn: self.cum_tsn,
            a_rwnd: self.a_rwnd(),
            gap_blocks,
            dup_tsns: dups,
        }
    }

    fn block(&self, start: u64, end: u64) -> (u32, u32) {
        let s = start.saturating_sub(self.cum_tsn).min(u32::MAX as u64) as u32;
        let e = end.saturating_sub(self.cum_tsn).min(u32::MAX as u64) as u32;
        (s, e)
    }
}

impl Endpoint for SctpReceiver {
    type Outgoing = Sack;
    type Incoming = DataChunk;

    fn handle_input(&mut self, now: Timestamp, chunk: DataChunk) {
        self.stats.packets_received += 1;
        let had_gap = !self.ooo.is_empty();
        if chunk.tsn <= self.cum_tsn || self.ooo.contains_key(chunk.tsn) {
            // 6.7: duplicates are reported, and a SACK goes out at once.
            self.stats.duplicate_chunks += 1;
            if self.dups.len() < self.config.max_dup_tsns {
                self.dups.push(chunk.tsn);
            }
            self.sack_now = true;
            return;
        }
        let fits = self.buffered() + chunk.payload_len as u64 <= self.config.rwnd.as_bytes();
        if chunk.tsn != self.cum_tsn + 1 && !fits {
            self.stats.dropped_chunks += 1;
            self.sack_now = true;
            return;
        }
        if chunk.tsn == self.cum_tsn + 1 {
            // In order (the common case): delivered at once, not through the map.
            self.cum_tsn += 1;
            self.deliver_in_order(now, chunk);
        } else {
            self.ooo_bytes += chunk.payload_len as u64;
            self.ooo.insert(chunk.tsn, chunk);
        }
        // Every buffered TSN is above the cumulative one, so only the lowest can be next.
        while self
            .ooo
            .first()
            .is_some_and(|(tsn, _)| tsn == self.cum_tsn + 1)
        {
            let Some((_, next)) = self.ooo.pop_first() else {
                break;
            };
            self.ooo_bytes -= next.payload_len as u64;
            self.cum_tsn += 1;
            self.deliver_in_order(now, next);
        }
        // 6.7: SACK immediately when there is a gap or a gap was (partly) filled;
        // otherwise every second packet or after the delayed-SACK timer (6.2).
        // RFC 7053 5.2: a chunk with the I bit is SACKed at once.
        self.unacked_packets += 1;
        if had_gap
            || !self.ooo.is_empty()
            || chunk.immediate_ack
            || self.unacked_packets >= self.config.sack_every
        {
            self.sack_now = true;
        } else if self.sack_deadline.is_none() {
            self.sack_deadline = Some(now + self.config.sack_delay);
        }
    }

    fn poll_transmit(&mut self, _now: Timestamp) -> Option<Transmit<Sack>> {
        if !self.sack_now {
            return None;
        }
        self.sack_now = false;
        self.sack_deadline = None;
        self.unacked_packets = 0;
        let sack = self.build_sack();
        self.stats.sacks_sent += 1;
        Some(Transmit {
            size: sack.wire_size(self.config.lower_layer_overhead),
            message: sack,
        })
    }

    fn poll_timeout(&self) -> Option<Timestamp> {
        self.sack_deadline
    }

    fn handle_timeout(&mut self, now: Timestamp) {
        if self.sack_deadline.is_some_and(|t| t <= now) {
            self.sack_now = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(ms: u64) -> Timestamp {
        Timestamp::from_millis(ms)
    }

    /// A greedy application writing `message`-byte messages, `total` bytes in all
    /// (`None`: no end), with a 1 GiB buffer.
    fn greedy(message: u64, total: Option<u64>) -> SourceKind {
        SourceKind::Greedy {
            message_size: DataSize::bytes(message),
            buffer_limit: DataSize::bytes(1 << 30),
            total: total.map(DataSize::bytes),
        }
    }

    /// SCTP congestion control starting at `cwnd` bytes.
    fn initial_cwnd(cwnd: u64) -> SctpCcConfig {
        SctpCcConfig {
            initial_cwnd: Some(DataSize::bytes(cwnd)),
            ..Default::default()
        }
    }

    fn sender(total: u64) -> SctpSender {
        SctpSender::new(SctpSenderConfig {
            source: greedy(total, Some(total)),
            ..Default::default()
        })
    }

    fn drain(s: &mut SctpSender, now: Timestamp) -> Vec<DataChunk> {
        std::iter::from_fn(|| s.poll_transmit(now).map(|t| t.message)).collect()
    }

    fn sack(cum: u64, gaps: Vec<(u32, u32)>) -> Sack {
        Sack {
            cum_tsn: cum,
            a_rwnd: 1 << 20,
            gap_blocks: gaps.into(),
            dup_tsns: DupTsns::new(),
        }
    }

    fn chunk(tsn: u64) -> DataChunk {
        DataChunk {
            tsn,
            message_id: 0,
            stream_offset: (tsn - 1) * 1172,
            payload_len: 1172,
            begin: tsn == 1,
            end: false,
            immediate_ack: false,
        }
    }

    #[test]
    fn data_packet_is_mtu_sized() {
        // 1200 - 12 - 16 = 1172 payload bytes per chunk.
        let mut s = sender(100_000);
        let first = s.poll_transmit(t(0)).expect("data");
        assert_eq!(first.size, DataSize::bytes(1200));
        assert_eq!(first.message.payload_len, 1172);
        assert!(first.message.begin && !first.message.end);
    }

    #[test]
    fn initial_window_limits_first_flight_rfc9260_7_2_1() {
        // cwnd 4380: packets go out while flight < cwnd: 0, 1200, 2400, 3600 -> 4 packets.
        let mut s = sender(100_000);
        assert_eq!(drain(&mut s, t(0)).len(), 4);
        assert_eq!(s.bytes_in_flight(), DataSize::bytes(4800));
    }

    #[test]
    fn max_burst_limits_packets_per_opportunity_rfc9260_6_1() {
        let mut s = SctpSender::new(SctpSenderConfig {
            cc: initial_cwnd(100_000),
            source: greedy(100_000, None),
            ..Default::default()
        });
        assert_eq!(drain(&mut s, t(0)).len(), 4);
        assert_eq!(drain(&mut s, t(1)).len(), 4);
    }

    #[test]
    fn fast_retransmit_after_three_miss_indications_rfc9260_7_2_4() {
        let mut s = SctpSender::new(SctpSenderConfig {
            cc: initial_cwnd(12_000),
            max_burst: 100,
            source: greedy(50_000, Some(50_000)),
            ..Default::default()
        });
        let sent = drain(&mut s, t(0));
        assert_eq!(sent.len(), 10);
        // TSN 1 lost; SACKs report 2, 2-3, 2-4 received.
        for (i, end) in [1u32, 2, 3].iter().enumerate() {
            s.handle_input(t(50 + i as u64), sack(0, vec![(2, 1 + end)]));
            if i < 2 {
                assert_eq!(s.stats().fast_retransmits, 0);
            }
        }
        assert_eq!(s.stats().fast_retransmits, 1);
        // ssthresh = max(12000/2, 4800) = 6000 = cwnd.
        assert_eq!(s.cwnd(), DataSize::bytes(6000));
        // The retransmission goes out first, regardless of cwnd.
        let next = s.poll_transmit(t(60)).expect("retransmission");
        assert_eq!(next.message.tsn, 1);
        assert_eq!(s.stats().packets_retransmitted, 1);
    }

    /// TSN 1 lost, fast-retransmitted, and its retransmission lost too: three more SACKs
    /// that newly ack higher TSNs. dcSCTP declares the retransmission lost again and
    /// sends it a third time (`renack_retransmissions`); without the rule it stays in
    /// the flight for the T3-rtx timer.
    fn lost_retransmission(renack: bool) -> (SctpSender, Option<DataChunk>) {
        let mut s = SctpSender::new(SctpSenderConfig {
            cc: initial_cwnd(12_000),
            max_burst: 100,
            source: greedy(50_000, Some(50_000)),
            renack_retransmissions: renack,
            ..Default::default()
        });
        assert_eq!(drain(&mut s, t(0)).len(), 10);
        for end in [1u32, 2, 3] {
            s.handle_input(t(50), sack(0, vec![(2, 1 + end)]));
        }
        let rtx = s.poll_transmit(t(60)).expect("fast retransmission");
        assert_eq!(rtx.message.tsn, 1);
        let flight = s.bytes_in_flight();
        for end in [4u32, 5, 6] {
            s.handle_input(t(70), sack(0, vec![(2, 1 + end)]));
        }
        // Three chunks newly acked: the flight fell by them, and by the retransmission
        // only when it was declared lost again.
        let lost_again = flight - s.bytes_in_flight() > DataSize::bytes(3 * 1200);
        assert_eq!(lost_again, renack);
        let next =
            std::iter::from_fn(|| s.poll_transmit(t(80)).map(|t| t.message)).find(|c| c.tsn == 1);
        (s, next)
    }

    #[test]
    fn lost_retransmission_is_declared_lost_again_with_dcsctp_rule() {
        assert!(
            SctpSenderConfig::dcsctp().renack_retransmissions,
            "dcsctp preset"
        );
        assert!(
            !SctpSenderConfig::default().renack_retransmissions,
            "usrsctp model"
        );
        let (s, again) = lost_retransmission(true);
        assert_eq!(again.map(|c| c.tsn), Some(1), "third transmission of TSN 1");
        assert_eq!(s.stats().packets_retransmitted, 2);
        // One fast-recovery episode: cwnd halved once.
        assert_eq!(s.stats().fast_retransmits, 1);
        assert_eq!(s.cwnd(), DataSize::bytes(6000));
    }

    #[test]
    fn lost_retransmission_waits_for_t3_without_dcsctp_rule() {
        let (s, again) = lost_retransmission(false);
        assert_eq!(again, None);
        assert_eq!(s.stats().packets_retransmitted, 1);
    }

    #[test]
    fn t3_expiry_retransmits_earliest_and_backs_off_rfc9260_6_3_3() {
        let mut s = sender(100_000);
        drain(&mut s, t(0));
        // WebRTC preset: RTO.Initial 500 ms.
        assert_eq!(s.poll_timeout(), Some(t(500)));
        s.handle_timeout(t(500));
        assert_eq!(s.cwnd(), DataSize::bytes(1200));
        assert_eq!(s.rtt_estimator().rto(), TimeDelta::millis(1000));
        let out = drain(&mut s, t(500));
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].tsn, 1);
        assert_eq!(s.poll_timeout(), Some(t(1500)));
    }

    #[test]
    fn sack_stops_timer_and_samples_rtt_rfc9260_6_3() {
        let mut s = sender(2000);
        let out = drain(&mut s, t(0));
        assert_eq!(out.len(), 2);
        s.handle_input(t(80), sack(2, vec![]));
        assert!(s.is_idle());
        assert_eq!(s.poll_timeout(), None);
        assert_eq!(s.rtt_estimator().latest(), Some(TimeDelta::millis(80)));
        assert_eq!(s.stats().bytes_delivered, 2000);
    }

    #[test]
    fn stale_and_invalid_sacks_are_ignored() {
        let mut s = sender(100_000);
        drain(&mut s, t(0));
        s.handle_input(t(10), sack(2, vec![]));
        let cwnd = s.cwnd();
        s.handle_input(t(11), sack(1, vec![(1, 100)]));
        s.handle_input(t(12), sack(1000, vec![]));
        s.handle_input(t(13), sack(2, vec![(0, 0), (5, 2), (u32::MAX, u32::MAX)]));
        assert_eq!(s.cwnd(), cwnd);
        assert_eq!(s.stats().sacks_received, 2);
    }

    #[test]
    fn reports_every_cwnd_change_with_rtt() {
        let mut s = sender(100_000);
        drain(&mut s, t(0));
        assert_eq!(s.poll_cc_report(), None);
        s.handle_input(t(100), sack(2, vec![]));
        match s.poll_cc_report() {
            Some(FlowReport::Window {
                cwnd,
                rtt,
                desired_cwnd,
                ..
            }) => {
                assert_eq!(cwnd, DataSize::bytes(4380 + 1200));
                assert_eq!(rtt, Some(TimeDelta::millis(100)));
                assert_eq!(desired_cwnd, None);
            }
            other => panic!("expected a window report, got {other:?}"),
        }
    }

    #[test]
    fn allowances_cap_and_set_cwnd() {
        let mut s = sender(100_000);
        s.apply_allowance(t(0), Allowance::MaxWindow(Some(DataSize::bytes(2400))));
        assert_eq!(s.cwnd(), DataSize::bytes(2400));
        assert_eq!(drain(&mut s, t(0)).len(), 2);
        s.apply_allowance(t(1), Allowance::MaxWindow(None));
        s.apply_allowance(
            t(1),
            Allowance::Window {
                cwnd: DataSize::ZERO,
                ssthresh: None,
            },
        );
        assert_eq!(s.cwnd(), DataSize::bytes(1200));
    }

    fn reported_cwnds(s: &mut SctpSender) -> Vec<u64> {
        std::iter::from_fn(|| s.poll_cc_report())
            .map(|r| match r {
                FlowReport::Window { cwnd, .. } => cwnd.as_bytes(),
                other => panic!("expected a window report, got {other:?}"),
            })
            .collect()
    }

    /// Two SACKs of two packets each in slow start under a 4 800 B cap.
    fn capped_growth(report_cwnd_before_cap: bool) -> (Vec<u64>, Vec<u64>, DataSize) {
        let mut s = SctpSender::new(SctpSenderConfig {
            report_cwnd_before_cap,
            ..sender(100_000).config().clone()
        });
        s.apply_allowance(t(0), Allowance::MaxWindow(Some(DataSize::bytes(4800))));
        reported_cwnds(&mut s);
        assert_eq!(drain(&mut s, t(0)).len(), 4);
        s.handle_input(t(100), sack(2, vec![]));
        let first = reported_cwnds(&mut s);
        assert_eq!(drain(&mut s, t(100)).len(), 2);
        s.handle_input(t(200), sack(4, vec![]));
        let second = reported_cwnds(&mut s);
        (first, second, s.cwnd())
    }

    #[test]
    fn reports_the_grown_cwnd_before_the_cap_clips_it() {
        // usrsctp with paper 000's patch: cwnd += min(acked, MTU), the callback sees it,
        // then max_cwnd clips it. 4 380 + 1 200 = 5 580; then 4 800 + 1 200 = 6 000.
        let (first, second, cwnd) = capped_growth(true);
        assert_eq!(first, vec![5580]);
        assert_eq!(second, vec![6000]);
        assert_eq!(cwnd, DataSize::bytes(4800), "the cap still binds");
        // Off: only the clipped value, and nothing once cwnd sits at the cap.
        let (first, second, cwnd) = capped_growth(false);
        assert_eq!(first, vec![4800]);
        assert_eq!(second, Vec::<u64>::new());
        assert_eq!(cwnd, DataSize::bytes(4800));
    }

    #[test]
    fn app_limited_sender_reports_desired_cwnd() {
        // Exactly 4 full chunks: the first flight (4800 >= cwnd 4380) sends everything.
        let mut s = sender(4 * 1172);
        assert_eq!(drain(&mut s, t(0)).len(), 4);
        s.handle_input(t(50), sack(2, vec![]));
        match s.poll_cc_report() {
            Some(FlowReport::Window {
                cwnd, desired_cwnd, ..
            }) => {
                assert_eq!(cwnd, DataSize::bytes(5580));
                // Nothing left to send: desired = the flight in use, 2 packets.
                assert_eq!(desired_cwnd, Some(DataSize::bytes(2400)));
            }
            other => panic!("expected a window report, got {other:?}"),
        }
    }

    /// dcSCTP never lets a packet take the flight past cwnd: the last new chunk is cut to
    /// the room left, and a retransmission that does not fit whole waits; RFC 9260 6.1 B
    /// (the default) sends a full packet while flight < cwnd.
    #[test]
    fn cwnd_sized_packets_never_pass_cwnd() {
        let send = |sized: bool| {
            let mut s = SctpSender::new(SctpSenderConfig {
                cc: initial_cwnd(5000),
                max_burst: 100,
                source: greedy(100_000, None),
                cwnd_sized_packets: sized,
                ..Default::default()
            });
            let sizes: Vec<u32> = drain(&mut s, t(0)).iter().map(|c| c.payload_len).collect();
            (sizes, s.bytes_in_flight())
        };
        // 1200-byte packets (1172 payload): 4 full ones are 4800, 200 bytes are left:
        // a 172-byte chunk (200 - 28 bytes of headers) fills cwnd exactly.
        assert_eq!(
            send(true),
            (vec![1172, 1172, 1172, 1172, 172], DataSize::bytes(5000))
        );
        // RFC 9260 6.1 B: a fifth full packet while flight (4800) < cwnd (5000).
        assert_eq!(send(false), (vec![1172; 5], DataSize::bytes(6000)));

        // A retransmission waits for room: cwnd 12600, eleven packets out, TSNs 1 and 2
        // lost; TSN 1 goes at once (fast retransmission), cwnd halves to 6300; once less
        // than a packet is left under cwnd, TSN 2 (1200 bytes) waits with the rule.
        let second_rtx = |sized: bool| {
            let mut s = SctpSender::new(SctpSenderConfig {
                cc: initial_cwnd(12_600),
                max_burst: 100,
                source: greedy(100_000, None),
                cwnd_sized_packets: sized,
                ..Default::default()
            });
            assert_eq!(drain(&mut s, t(0)).len(), 11);
            for end in [3u32, 4, 5] {
                s.handle_input(t(50), sack(0, vec![(3, end)]));
            }
            assert_eq!(s.poll_transmit(t(60)).map(|x| x.message.tsn), Some(1));
            for end in [6u32, 7] {
                s.handle_input(t(70), sack(0, vec![(3, end)]));
            }
            // Room under cwnd, but less than a whole packet (6300 - 6000, or 6300 - 5400
            // with the rule: its eleventh packet was a 600-byte one).
            let room = s.cwnd().as_bytes() as i64 - s.bytes_in_flight().as_bytes() as i64;
            assert!(room > 0 && room < 1200, "{room}");
            s.poll_transmit(t(80)).map(|x| x.message.tsn)
        };
        assert_eq!(second_rtx(true), None);
        assert_eq!(second_rtx(false), Some(2));
    }

    #[test]
    fn receiver_sacks_a_chunk_with_the_i_bit_at_once_rfc7053_5_2() {
        let mut r = SctpReceiver::new(SctpReceiverConfig::default());
        r.handle_input(
            t(0),
            DataChunk {
                immediate_ack: true,
                ..chunk(1)
            },
        );
        let s = r.poll_transmit(t(0)).expect("immediate sack").message;
        assert_eq!(s.cum_tsn, 1);
        // Without the bit the next single packet waits for the delayed-SACK timer.
        r.handle_input(t(1), chunk(2));
        assert!(r.poll_transmit(t(1)).is_none());
    }

    /// dcSCTP sets the I bit while cwnd < 10 MTUs: not at its initial 10 MTUs, yes
    /// after a T3-rtx expiry (1 MTU); never with the rule off; the one fast
    /// retransmission that ignores cwnd goes without it.
    #[test]
    fn dcsctp_sets_the_i_bit_under_ten_mtus() {
        let run = |under: u64| {
            let mut s = SctpSender::new(SctpSenderConfig {
                source: greedy(100_000, None),
                immediate_sack_under_cwnd_mtus: under,
                ..SctpSenderConfig::dcsctp()
            });
            let first = drain(&mut s, t(0));
            let before = first.iter().any(|c| c.immediate_ack);
            let rto = s.poll_timeout().expect("T3 armed");
            s.handle_timeout(rto);
            let after: Vec<bool> = drain(&mut s, rto).iter().map(|c| c.immediate_ack).collect();
            (before, after)
        };
        // After the expiry cwnd is 1 MTU (a chunk may still go while flight < cwnd).
        let (before, after) = run(10);
        assert!(
            !before && !after.is_empty() && after.iter().all(|&i| i),
            "{after:?}"
        );
        let (before, after) = run(0);
        assert!(
            !before && !after.is_empty() && after.iter().all(|&i| !i),
            "{after:?}"
        );
        let mut s = SctpSender::new(SctpSenderConfig {
            cc: initial_cwnd(12_000),
            max_burst: 100,
            source: greedy(50_000, Some(50_000)),
            immediate_sack_under_cwnd_mtus: 100,
            ..Default::default()
        });
        assert!(drain(&mut s, t(0)).iter().all(|c| c.immediate_ack));
        for end in [1u32, 2, 3] {
            s.handle_input(t(50), sack(0, vec![(2, 1 + end)]));
        }
        let rtx = s.poll_transmit(t(60)).expect("fast retransmission").message;
        assert_eq!((rtx.tsn, rtx.immediate_ack), (1, false));
    }

    #[test]
    fn receiver_sacks_every_second_packet_rfc9260_6_2() {
        let mut r = SctpReceiver::new(SctpReceiverConfig::default());
        r.handle_input(t(0), chunk(1));
        assert!(r.poll_transmit(t(0)).is_none());
        assert_eq!(r.poll_timeout(), Some(t(200)));
        r.handle_input(t(1), chunk(2));
        let s = r.poll_transmit(t(1)).expect("sack").message;
        assert_eq!(s.cum_tsn, 2);
        assert_eq!(r.poll_timeout(), None);
    }

    #[test]
    fn receiver_delayed_sack_after_200ms_rfc9260_6_2() {
        let mut r = SctpReceiver::new(SctpReceiverConfig::default());
        r.handle_input(t(0), chunk(1));
        r.handle_timeout(t(199));
        assert!(r.poll_transmit(t(199)).is_none());
        r.handle_timeout(t(200));
        assert_eq!(r.poll_transmit(t(200)).expect("sack").message.cum_tsn, 1);
    }

    #[test]
    fn receiver_reports_gaps_and_duplicates_immediately_rfc9260_6_7() {
        let mut r = SctpReceiver::new(SctpReceiverConfig::default());
        r.handle_input(t(0), chunk(1));
        r.handle_input(t(0), chunk(3));
        let s = r.poll_transmit(t(0)).expect("sack on gap").message;
        assert_eq!(s.cum_tsn, 1);
        assert_eq!(s.gap_blocks.as_slice(), [(2, 2)]);
        r.handle_input(t(1), chunk(5));
        r.handle_input(t(1), chunk(6));
        let s = r.poll_transmit(t(1)).expect("sack").message;
        assert_eq!(s.gap_blocks.as_slice(), [(2, 2), (4, 5)]);
        // A few gaps stay inside the SACK: building it allocated nothing.
        assert!(!s.gap_blocks.spilled());
        // a_rwnd = 1 MiB - 4 buffered chunks: 3 out of order, and TSN 1, which starts a
        // message not yet complete (held until its last chunk arrives).
        assert_eq!(s.a_rwnd, (1 << 20) - 4 * 1172);
        r.handle_input(t(2), chunk(1));
        let s = r.poll_transmit(t(2)).expect("sack on duplicate").message;
        assert_eq!(s.dup_tsns.as_slice(), [1]);
        let sz = s.wire_size(DataSize::ZERO);
        assert_eq!(sz, DataSize::bytes(12 + 16 + 8 + 4));
    }

    #[test]
    fn receiver_reports_more_gaps_than_a_sack_holds_inline() {
        // Six gaps (TSNs 3, 5, ..., 13 above cum 1): beyond the four held inline, all
        // reported, in order, and counted in the wire size.
        let mut r = SctpReceiver::new(SctpReceiverConfig::default());
        r.handle_input(t(0), chunk(1));
        for tsn in (3..=13).step_by(2) {
            r.handle_input(t(0), chunk(tsn));
        }
        let s = r.poll_transmit(t(0)).expect("sack on gaps").message;
        assert_eq!(
            s.gap_blocks.as_slice(),
            [(2, 2), (4, 4), (6, 6), (8, 8), (10, 10), (12, 12)]
        );
        assert!(s.gap_blocks.spilled());
        assert_eq!(
            s.wire_size(DataSize::ZERO),
            DataSize::bytes(12 + 16 + 6 * 4)
        );
    }
}
