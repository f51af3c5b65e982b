//! How an SCTP sender and receiver are configured: RFC 9260's rules by default, dcSCTP's
//! (Chromium's data channel since M95) with [`SctpSenderConfig::dcsctp`].

use crate::ecn::Ecn;
use crate::endpoint::data_source::SourceKind;
use crate::units::{DataSize, TimeDelta};
use crate::window::{RtoConfig, SctpCcConfig};

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
    /// The codepoint of DATA packets (RFC 9260 appendix A; ECT(1) for an L4S
    /// experiment, RFC 8311 section 4.2). Not-ECT (the default): no ECN, ECNE ignored.
    pub ecn: Ecn,
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
            ecn: Ecn::NotEct,
        }
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
