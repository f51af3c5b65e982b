//! The receiver's NACK list: which media packets a video receiver asks the sender to
//! resend with Generic NACKs (RFC 4585 section 6.2.1), as libwebrtc's `NackRequester`
//! decides it (option `nack_rtx`; docs/ALGORITHMS.md "Chromium's NACK/RTX
//! retransmissions"; the sender's side is [`super::rtx`]).
//!
//! Sources: WebRTC M150, signalapp/webrtc bd635df, `modules/video_coding/
//! nack_requester.cc` (file:line below) and `nack_requester.h`.
//!
//! - A media packet newer than the newest one received puts every sequence number it
//!   skipped into the list (`AddPacketsToNack`, :233) and NACKs them at once
//!   (`OnReceivedPacket`, :158; `GetNackBatch(kSeqNumOnly)`): the packet to wait for is
//!   the missing one itself, because the reordering histogram never fills
//!   (`is_retransmitted` is hard-wired true, :164; `WaitNumberOfPackets` returns 0
//!   without values, :301), and the send delay is 0 (`kDefaultSendNackDelay`, :42).
//! - An older packet (a retransmission or a late one) leaves the list (:170-180).
//! - Every [`NACK_PROCESS_INTERVAL`] a packet still listed is NACKed again when its last
//!   NACK is at least the receiver's RTT old (`GetNackBatch(kTimeOnly)`, :260-292), and
//!   leaves the list after [`MAX_NACK_RETRIES`] NACKs.
//! - Packets more than [`MAX_PACKET_AGE`] sequence numbers older than the newest leave the
//!   list; a list that would exceed [`MAX_NACK_PACKETS`] is cleared (:233-247).
//!
//! Deviations (named; docs/ALGORITHMS.md): the receiver's RTT is the round trip of its
//! own NACKs (from a packet's first NACK to its retransmission's arrival, the newest such
//! sample), where libwebrtc's receiver takes it from RTCP (`CallStats`, `UpdateRtt`);
//! before a first sample it is [`DEFAULT_RTT`], as in libwebrtc. (The first NACK, not
//! the last: with a path RTT above the default every packet is NACKed again before its
//! retransmission can arrive, so a sample of singly-NACKed packets would never come;
//! the sender resends at most once an RTT, so the first retransmission answers the
//! first NACK.) A full list is cleared without the keyframe search
//! (`RemovePacketsUntilKeyFrame`) and no keyframe is requested (the model's encoder has
//! no PLI); `ClearUpTo` (frames decoded past a gap) is not modelled. Sequence numbers
//! are 64-bit extended ones (no wrap).

use crate::seq_map::SeqMap;
use crate::units::{DataSize, TimeDelta, Timestamp};

/// `kDefaultRtt` (nack_requester.cc:36): the RTT until the receiver has an estimate.
pub const DEFAULT_RTT: TimeDelta = TimeDelta::millis(100);
/// `kMaxNackRetries` (nack_requester.cc:39): NACKs of one packet before it is given up.
pub const MAX_NACK_RETRIES: u32 = 100;
/// `kMaxPacketAge` (nack_requester.cc:34): packets this many sequence numbers older
/// than the newest leave the list.
pub const MAX_PACKET_AGE: u64 = 10_000;
/// `kMaxNackPackets` (nack_requester.cc:35): the list's bound; beyond it it is cleared.
pub const MAX_NACK_PACKETS: usize = 1_000;
/// `NackPeriodicProcessor::kUpdateInterval` (nack_requester.h:44): how often listed
/// packets are checked for a re-NACK.
pub const NACK_PROCESS_INTERVAL: TimeDelta = TimeDelta::millis(20);

/// IPv4 (20 B) + UDP (8 B) under an RTCP packet.
const IP_UDP_HEADER: DataSize = DataSize::bytes(28);
/// RFC 4585 section 6.1: a feedback message's header, sender SSRC and media SSRC.
pub const RTCP_FEEDBACK_FIXED: DataSize = DataSize::bytes(12);
/// RFC 4585 section 6.2.1: one Generic NACK item (PID, BLP) covers a sequence number
/// and the 16 after it.
pub const NACK_ITEM: DataSize = DataSize::bytes(4);
/// The sequence numbers one Generic NACK item covers (PID and the 16 bits of BLP).
pub const NACK_ITEM_SPAN: u64 = 17;

/// The Generic NACK items for `seqs` (sorted ascending): a new item whenever a
/// sequence number is past the current item's 17 (`rtcp_packet/nack.cc` `Pack`).
pub fn nack_items(seqs: &[u64]) -> u64 {
    let mut items = 0;
    let mut pid: Option<u64> = None;
    for &s in seqs {
        if pid.map_or(true, |p| s < p || s >= p + NACK_ITEM_SPAN) {
            pid = Some(s);
            items += 1;
        }
    }
    items
}

/// A Generic NACK of `seqs` on the wire: IP/UDP + the RTCP feedback header + 4 B per
/// item (sent alone, as reduced-size RTCP, RFC 5506).
pub fn nack_wire_size(seqs: &[u64]) -> DataSize {
    IP_UDP_HEADER + RTCP_FEEDBACK_FIXED + NACK_ITEM * nack_items(seqs)
}

/// The requester's constants (libwebrtc's by default).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NackConfig {
    pub default_rtt: TimeDelta,
    pub max_retries: u32,
    pub max_packet_age: u64,
    pub max_list: usize,
    pub process_interval: TimeDelta,
}

impl Default for NackConfig {
    fn default() -> Self {
        Self {
            default_rtt: DEFAULT_RTT,
            max_retries: MAX_NACK_RETRIES,
            max_packet_age: MAX_PACKET_AGE,
            max_list: MAX_NACK_PACKETS,
            process_interval: NACK_PROCESS_INTERVAL,
        }
    }
}

/// One missing packet (`NackInfo`): when it was last NACKed and how often.
#[derive(Debug, Clone, Copy, PartialEq)]
struct NackEntry {
    sent_at: Option<Timestamp>,
    /// The first NACK's time (the RTT sample's start).
    first_sent_at: Option<Timestamp>,
    retries: u32,
}

/// Which entries a batch considers (`NackFilterOptions`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Filter {
    /// `kSeqNumOnly`: never NACKed yet (on an arrival).
    FirstOnly,
    /// `kTimeOnly`: last NACKed at least an RTT ago (the periodic check).
    TimeOnly,
}

/// The receiver's NACK list (`NackRequester`).
#[derive(Debug, Clone)]
pub struct NackRequester {
    cfg: NackConfig,
    newest: Option<u64>,
    list: SeqMap<NackEntry>,
    rtt: Option<TimeDelta>,
    /// The periodic check's next time (on a grid from the first packet).
    next_process: Timestamp,
    /// NACKs sent (sequence numbers, with repeats).
    nacks_sent: u64,
}

impl NackRequester {
    pub fn new(cfg: NackConfig) -> Self {
        Self {
            cfg,
            newest: None,
            list: SeqMap::new(),
            rtt: None,
            next_process: Timestamp::ZERO,
            nacks_sent: 0,
        }
    }

    /// The RTT re-NACKs wait for: the newest NACK round trip, else the default.
    pub fn rtt(&self) -> TimeDelta {
        self.rtt.unwrap_or(self.cfg.default_rtt)
    }
    /// Packets listed as missing.
    pub fn len(&self) -> usize {
        self.list.len()
    }
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }
    /// Whether `seq` is listed as missing.
    pub fn is_listed(&self, seq: u64) -> bool {
        self.list.contains_key(seq)
    }
    /// Sequence numbers NACKed so far (a re-NACK counts again).
    pub fn nacks_sent(&self) -> u64 {
        self.nacks_sent
    }

    /// A media-stream packet `seq` arrived at `now` (`retransmission`: it came as RTX).
    /// Returns the sequence numbers to NACK at once (`OnReceivedPacket`).
    pub fn on_received(&mut self, now: Timestamp, seq: u64, retransmission: bool) -> Vec<u64> {
        let Some(newest) = self.newest else {
            self.newest = Some(seq);
            self.next_process = now + self.cfg.process_interval;
            return Vec::new();
        };
        if seq == newest {
            return Vec::new();
        }
        if seq < newest {
            if let Some(e) = self.list.remove(seq) {
                // The NACK round trip: from the packet's first NACK to its retransmission.
                if let (true, Some(at)) = (retransmission, e.first_sent_at) {
                    self.rtt = Some(now - at);
                }
            }
            return Vec::new();
        }
        if retransmission {
            // `is_recovered` newer than the newest: nothing to NACK (cannot happen for
            // answers to NACKs, which are older).
            return Vec::new();
        }
        self.add_missing(newest + 1, seq);
        self.newest = Some(seq);
        self.batch(now, Filter::FirstOnly)
    }

    /// `AddPacketsToNack(start, end)`: `start..end` are missing.
    fn add_missing(&mut self, start: u64, end: u64) {
        let oldest_kept = end.saturating_sub(self.cfg.max_packet_age);
        self.list.remove_below(oldest_kept);
        let new = usize::try_from(end.saturating_sub(start)).unwrap_or(usize::MAX);
        if self.list.len().saturating_add(new) > self.cfg.max_list {
            self.list.clear();
            return;
        }
        for seq in start..end {
            self.list.insert(
                seq,
                NackEntry {
                    sent_at: None,
                    first_sent_at: None,
                    retries: 0,
                },
            );
        }
    }

    /// `GetNackBatch`: the entries due, marked NACKed now; those at the retry limit leave.
    fn batch(&mut self, now: Timestamp, filter: Filter) -> Vec<u64> {
        let rtt = self.rtt();
        let max_retries = self.cfg.max_retries;
        let mut out = Vec::new();
        self.list.retain(|seq, e| {
            let due = match (filter, e.sent_at) {
                (_, None) => true,
                (Filter::FirstOnly, Some(_)) => false,
                (Filter::TimeOnly, Some(at)) => now - at >= rtt,
            };
            if !due {
                return true;
            }
            out.push(seq);
            e.retries += 1;
            e.sent_at = Some(now);
            e.first_sent_at.get_or_insert(now);
            e.retries < max_retries
        });
        self.nacks_sent += out.len() as u64;
        out
    }

    /// When the periodic check next runs (`None` while nothing is listed).
    pub fn poll_timeout(&self) -> Option<Timestamp> {
        (!self.list.is_empty()).then_some(self.next_process)
    }

    /// The periodic check (`ProcessNacks`) if due at `now`: the sequence numbers to
    /// NACK again.
    pub fn handle_timeout(&mut self, now: Timestamp) -> Vec<u64> {
        if self.newest.is_none() || now < self.next_process {
            return Vec::new();
        }
        let step = self.cfg.process_interval.max(TimeDelta::from_micros(1));
        let behind = (now - self.next_process).as_micros() / step.as_micros();
        self.next_process += step * (behind + 1);
        self.batch(now, Filter::TimeOnly)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn ms(x: u64) -> Timestamp {
        Timestamp::from_millis(x)
    }

    #[test]
    fn a_nack_packs_17_sequence_numbers_an_item() {
        assert_eq!(nack_items(&[]), 0);
        assert_eq!(nack_items(&[5]), 1);
        assert_eq!(nack_items(&[5, 21]), 1);
        assert_eq!(nack_items(&[5, 22]), 2);
        assert_eq!(nack_wire_size(&[5, 6, 40]), DataSize::bytes(28 + 12 + 8));
    }

    #[test]
    fn a_gap_is_nacked_at_once() {
        let mut n = NackRequester::new(NackConfig::default());
        assert!(n.on_received(ms(0), 10, false).is_empty());
        assert!(n.on_received(ms(1), 11, false).is_empty());
        assert_eq!(n.on_received(ms(2), 15, false), vec![12, 13, 14]);
        // The next arrival NACKs nothing again (kSeqNumOnly: only never-NACKed ones).
        assert!(n.on_received(ms(3), 16, false).is_empty());
        assert_eq!(n.len(), 3);
    }

    #[test]
    fn a_packet_is_nacked_again_after_the_rtt_on_the_periodic_check() {
        let mut n = NackRequester::new(NackConfig::default());
        n.on_received(ms(0), 0, false);
        assert_eq!(n.on_received(ms(5), 2, false), vec![1]);
        // Checks every 20 ms from the first packet: 20, 40, ..., 100 (95 ms after the
        // NACK: not yet), 120 (115 ms >= 100 ms: again).
        let mut renacks = Vec::new();
        for t in (20..=200).step_by(20) {
            assert_eq!(n.poll_timeout(), Some(ms(t)));
            let b = n.handle_timeout(ms(t));
            if !b.is_empty() {
                renacks.push((t, b));
            }
        }
        assert_eq!(renacks, vec![(120, vec![1])]);
    }

    #[test]
    fn a_retransmission_leaves_the_list_and_sets_the_rtt() {
        let mut n = NackRequester::new(NackConfig::default());
        n.on_received(ms(0), 0, false);
        n.on_received(ms(10), 3, false);
        assert_eq!(n.rtt(), DEFAULT_RTT);
        n.on_received(ms(70), 1, true);
        assert!(!n.is_listed(1));
        assert!(n.is_listed(2));
        assert_eq!(n.rtt(), TimeDelta::millis(60));
        // A late original (not RTX) leaves the list without an RTT sample.
        n.on_received(ms(80), 2, false);
        assert!(n.is_empty());
        assert_eq!(n.rtt(), TimeDelta::millis(60));
        assert_eq!(n.poll_timeout(), None);
        // A packet NACKed again before its retransmission arrives: the sample runs from
        // its first NACK (NACKs at 100 and, 60 ms later, at 160; RTX at 400 ms).
        assert_eq!(n.on_received(ms(100), 5, false), vec![4]);
        assert_eq!(n.handle_timeout(ms(160)), vec![4]);
        n.on_received(ms(400), 4, true);
        assert_eq!(n.rtt(), TimeDelta::millis(300));
    }

    #[test]
    fn a_packet_is_given_up_after_the_retry_limit() {
        let cfg = NackConfig {
            max_retries: 3,
            ..NackConfig::default()
        };
        let mut n = NackRequester::new(cfg);
        n.on_received(ms(0), 0, false);
        n.on_received(ms(1), 2, false);
        let mut count = 1;
        for t in (20..=2000).step_by(20) {
            count += n.handle_timeout(ms(t)).len();
        }
        assert_eq!(count, 3);
        assert!(n.is_empty());
    }

    #[test]
    fn old_packets_leave_and_a_full_list_is_cleared() {
        let mut n = NackRequester::new(NackConfig::default());
        n.on_received(ms(0), 0, false);
        n.on_received(ms(1), 2, false);
        // 10,001 later: packet 1 is older than kMaxPacketAge.
        n.on_received(ms(2), 10_002, false);
        assert!(!n.is_listed(1));
        assert!(n.len() <= MAX_NACK_PACKETS);
        let mut n = NackRequester::new(NackConfig::default());
        n.on_received(ms(0), 0, false);
        assert_eq!(n.on_received(ms(1), 1_001, false).len(), 1_000);
        // One more missing: 1,001 > 1,000, the list is cleared.
        n.on_received(ms(2), 1_003, false);
        assert!(n.is_empty());
    }

    proptest! {
        /// Whatever arrives, the list holds at most `kMaxNackPackets` entries, none older
        /// than `kMaxPacketAge` below the newest packet, none already received, and no
        /// entry is NACKed more than `kMaxNackRetries` times.
        #[test]
        fn the_list_stays_within_its_bounds(
            steps in prop::collection::vec((0u64..3000, any::<bool>(), 1u64..60), 1..200)
        ) {
            let cfg = NackConfig { max_retries: 5, ..NackConfig::default() };
            let mut n = NackRequester::new(cfg);
            let mut now = ms(0);
            let mut seq = 0u64;
            let mut received = std::collections::BTreeSet::new();
            let mut counts: std::collections::BTreeMap<u64, u32> = std::collections::BTreeMap::new();
            for (jump, back, dt) in steps {
                now += TimeDelta::millis(dt as i64);
                for s in n.handle_timeout(now) {
                    *counts.entry(s).or_default() += 1;
                }
                let s = if back { seq.saturating_sub(jump % 50) } else { seq + jump % 1500 };
                seq = seq.max(s);
                received.insert(s);
                for x in n.on_received(now, s, back) {
                    *counts.entry(x).or_default() += 1;
                }
                prop_assert!(n.len() <= MAX_NACK_PACKETS);
                let newest = n.newest.unwrap_or(0);
                for k in n.list.keys() {
                    prop_assert!(k + MAX_PACKET_AGE >= newest && k < newest);
                    prop_assert!(!received.contains(&k));
                }
                prop_assert!(counts.values().all(|c| *c <= 5));
            }
        }
    }
}
