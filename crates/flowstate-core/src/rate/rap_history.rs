//! RAP's transmission history and loss detection (Rejaie, Handley, Estrin, INFOCOM
//! 1999, section "Loss detection").
//!
//! The sender keeps a record per packet it sent. Two mechanisms declare a packet lost:
//! - *ack-based*: a packet is lost when `ndupack` (3) packets sent after it have been
//!   acknowledged while it has not (the paper: a gap in the acknowledged sequence,
//!   confirmed by later acks, the analogue of TCP's fast retransmit);
//! - *timeout-based*: a packet is lost when it is still unacknowledged `timeout` after
//!   it was sent (the paper checks the history before each transmission; we also
//!   expose the earliest deadline as a timer).
//!
//! Every ack carries the acknowledged sequence number and a 64-bit history of the
//! packets before it, so a lost ack does not make a received packet look lost.

use crate::units::{TimeDelta, Timestamp};
use std::collections::VecDeque;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TxState {
    InFlight,
    Acked,
    Lost,
}

#[derive(Debug, Clone, Copy)]
struct TxRecord {
    seq: u64,
    sent: Timestamp,
    state: TxState,
}

/// What an ack (or a timeout check) revealed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LossReport {
    /// Packets newly declared lost.
    pub newly_lost: u64,
    /// The highest sequence number among them.
    pub max_lost_seq: Option<u64>,
}

impl LossReport {
    fn add(&mut self, seq: u64) {
        self.newly_lost = self.newly_lost.saturating_add(1);
        self.max_lost_seq = Some(self.max_lost_seq.map_or(seq, |m| m.max(seq)));
    }
}

/// The outcome of one ack.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct AckOutcome {
    /// RTT sample from the packet this ack names (if it was still in flight).
    pub rtt_sample: Option<TimeDelta>,
    /// Packets newly acknowledged (this ack and its history).
    pub newly_acked: u64,
    pub loss: LossReport,
}

/// The sender's transmission history.
#[derive(Debug, Clone)]
pub struct RapTxHistory {
    ndupack: u64,
    max_records: usize,
    /// Records in sending order; sequence numbers are consecutive.
    records: VecDeque<TxRecord>,
    /// Records of `records` in state `Acked` (so that ack-based detection finds the
    /// packets it declares lost from the front, in time proportional to what it
    /// resolves, instead of walking every record on every ack).
    acked: usize,
}

impl RapTxHistory {
    /// `ndupack`: acked later packets needed to declare a gap lost; `max_records`:
    /// records kept (older unresolved ones are counted lost when evicted).
    pub fn new(ndupack: u64, max_records: usize) -> Self {
        RapTxHistory {
            ndupack: ndupack.max(1),
            max_records: max_records.max(1),
            records: VecDeque::new(),
            acked: 0,
        }
    }

    /// Packets sent and not yet acknowledged or declared lost.
    pub fn in_flight(&self) -> usize {
        self.records
            .iter()
            .filter(|r| r.state == TxState::InFlight)
            .count()
    }

    /// Record a sent packet. Sequence numbers must be consecutive; a packet that does
    /// not follow the last one restarts the history (all unresolved records counted
    /// lost).
    pub fn on_sent(&mut self, seq: u64, now: Timestamp) -> LossReport {
        let mut rep = LossReport::default();
        if let Some(last) = self.records.back() {
            if last.seq.checked_add(1) != Some(seq) {
                for r in self.records.drain(..) {
                    if r.state == TxState::InFlight {
                        rep.add(r.seq);
                    }
                }
                self.acked = 0;
            }
        }
        self.records.push_back(TxRecord {
            seq,
            sent: now,
            state: TxState::InFlight,
        });
        while self.records.len() > self.max_records {
            if let Some(r) = self.records.pop_front() {
                match r.state {
                    TxState::InFlight => rep.add(r.seq),
                    TxState::Acked => self.acked -= 1,
                    TxState::Lost => {}
                }
            }
        }
        rep
    }

    fn index_of(&self, seq: u64) -> Option<usize> {
        let first = self.records.front()?.seq;
        let idx = seq.checked_sub(first)?;
        let idx = usize::try_from(idx).ok()?;
        (idx < self.records.len()).then_some(idx)
    }

    /// Process an ack for `seq`; bit `i` of `history` set means `seq - 1 - i` was
    /// received too.
    pub fn on_ack(&mut self, now: Timestamp, seq: u64, history: u64) -> AckOutcome {
        let mut out = AckOutcome::default();
        let Some(idx) = self.index_of(seq) else {
            return out;
        };
        if let Some(r) = self.records.get_mut(idx) {
            if r.state == TxState::InFlight {
                out.rtt_sample = Some(now.saturating_since(r.sent));
            }
            if r.state != TxState::Acked {
                r.state = TxState::Acked;
                out.newly_acked += 1;
            }
        }
        // Bit `i` names `seq - 1 - i`, the record at `idx - 1 - i`: only bits below
        // `idx` name a record still kept.
        let mut bits = if idx >= 64 {
            history
        } else {
            history & ((1u64 << idx) - 1)
        };
        while bits != 0 {
            let i = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            if let Some(r) = self.records.get_mut(idx - 1 - i) {
                if r.state != TxState::Acked {
                    r.state = TxState::Acked;
                    out.newly_acked += 1;
                }
            }
        }
        self.acked += out.newly_acked as usize;
        // Ack-based detection: an in-flight packet with >= ndupack acked packets after
        // it. Those are the packets before the ndupack-th acked record counted from the
        // back, i.e. before the (acked - ndupack + 1)-th from the front; the walk there
        // ends where `trim` will cut, so each record is walked over once.
        let ndupack = usize::try_from(self.ndupack).unwrap_or(usize::MAX);
        if self.acked >= ndupack {
            let target = self.acked - ndupack + 1;
            let mut seen = 0;
            for r in self.records.iter_mut() {
                match r.state {
                    TxState::Acked => {
                        seen += 1;
                        if seen == target {
                            break;
                        }
                    }
                    TxState::InFlight => {
                        r.state = TxState::Lost;
                        out.loss.add(r.seq);
                    }
                    TxState::Lost => {}
                }
            }
        }
        self.trim();
        out
    }

    /// Timeout-based detection: declare lost every packet unacknowledged `timeout`
    /// after it was sent.
    pub fn check_timeouts(&mut self, now: Timestamp, timeout: TimeDelta) -> LossReport {
        let mut rep = LossReport::default();
        for r in self.records.iter_mut() {
            if r.sent + timeout > now {
                break; // records are in sending order
            }
            if r.state == TxState::InFlight {
                r.state = TxState::Lost;
                rep.add(r.seq);
            }
        }
        self.trim();
        rep
    }

    /// When the oldest in-flight packet times out.
    pub fn next_timeout(&self, timeout: TimeDelta) -> Option<Timestamp> {
        self.records
            .iter()
            .find(|r| r.state == TxState::InFlight)
            .map(|r| r.sent + timeout)
    }

    /// Drop resolved records from the front (keep the last one so sequence continuity
    /// can be checked).
    fn trim(&mut self) {
        while self.records.len() > 1 {
            match self.records.front() {
                Some(r) if r.state != TxState::InFlight => {
                    if r.state == TxState::Acked {
                        self.acked -= 1;
                    }
                    self.records.pop_front();
                }
                _ => break,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::ms;

    /// A history (3 dup acks, 1000 entries) with packets 0..n sent, packet s at s ms.
    fn sent(n: u64) -> RapTxHistory {
        let mut h = RapTxHistory::new(3, 1000);
        for s in 0..n {
            h.on_sent(s, ms(s));
        }
        h
    }

    /// The history as it was before the acked-record count (ack-based detection by a
    /// walk over every record on every ack): the reference the proptest compares with.
    mod reference {
        use super::super::{AckOutcome, LossReport, TxRecord, TxState};
        use crate::units::{TimeDelta, Timestamp};
        use std::collections::VecDeque;

        /// The sender's transmission history.
        #[derive(Debug, Clone)]
        pub(super) struct OldHistory {
            ndupack: u64,
            max_records: usize,
            /// Records in sending order; sequence numbers are consecutive.
            records: VecDeque<TxRecord>,
        }

        impl OldHistory {
            /// `ndupack`: acked later packets needed to declare a gap lost; `max_records`:
            /// records kept (older unresolved ones are counted lost when evicted).
            pub fn new(ndupack: u64, max_records: usize) -> Self {
                OldHistory {
                    ndupack: ndupack.max(1),
                    max_records: max_records.max(1),
                    records: VecDeque::new(),
                }
            }

            /// Packets sent and not yet acknowledged or declared lost.
            pub fn in_flight(&self) -> usize {
                self.records
                    .iter()
                    .filter(|r| r.state == TxState::InFlight)
                    .count()
            }

            /// Record a sent packet. Sequence numbers must be consecutive; a packet that does
            /// not follow the last one restarts the history (all unresolved records counted
            /// lost).
            pub fn on_sent(&mut self, seq: u64, now: Timestamp) -> LossReport {
                let mut rep = LossReport::default();
                if let Some(last) = self.records.back() {
                    if last.seq.checked_add(1) != Some(seq) {
                        for r in self.records.drain(..) {
                            if r.state == TxState::InFlight {
                                rep.add(r.seq);
                            }
                        }
                    }
                }
                self.records.push_back(TxRecord {
                    seq,
                    sent: now,
                    state: TxState::InFlight,
                });
                while self.records.len() > self.max_records {
                    if let Some(r) = self.records.pop_front() {
                        if r.state == TxState::InFlight {
                            rep.add(r.seq);
                        }
                    }
                }
                rep
            }

            fn index_of(&self, seq: u64) -> Option<usize> {
                let first = self.records.front()?.seq;
                let idx = seq.checked_sub(first)?;
                let idx = usize::try_from(idx).ok()?;
                (idx < self.records.len()).then_some(idx)
            }

            /// Process an ack for `seq`; bit `i` of `history` set means `seq - 1 - i` was
            /// received too.
            pub fn on_ack(&mut self, now: Timestamp, seq: u64, history: u64) -> AckOutcome {
                let mut out = AckOutcome::default();
                let Some(idx) = self.index_of(seq) else {
                    return out;
                };
                if let Some(r) = self.records.get_mut(idx) {
                    if r.state == TxState::InFlight {
                        out.rtt_sample = Some(now.saturating_since(r.sent));
                    }
                    if r.state != TxState::Acked {
                        r.state = TxState::Acked;
                        out.newly_acked += 1;
                    }
                }
                for i in 0..64u64 {
                    if history & (1u64 << i) == 0 {
                        continue;
                    }
                    let Some(s) = seq.checked_sub(1 + i) else {
                        break;
                    };
                    if let Some(j) = self.index_of(s) {
                        if let Some(r) = self.records.get_mut(j) {
                            if r.state != TxState::Acked {
                                r.state = TxState::Acked;
                                out.newly_acked += 1;
                            }
                        }
                    }
                }
                // Ack-based detection: an in-flight packet with >= ndupack acked packets after it.
                let mut acked_after = 0u64;
                for r in self.records.iter_mut().rev() {
                    match r.state {
                        TxState::Acked => acked_after += 1,
                        TxState::InFlight if acked_after >= self.ndupack => {
                            r.state = TxState::Lost;
                            out.loss.add(r.seq);
                        }
                        _ => {}
                    }
                }
                self.trim();
                out
            }

            /// Timeout-based detection: declare lost every packet unacknowledged `timeout`
            /// after it was sent.
            pub fn check_timeouts(&mut self, now: Timestamp, timeout: TimeDelta) -> LossReport {
                let mut rep = LossReport::default();
                for r in self.records.iter_mut() {
                    if r.sent + timeout > now {
                        break; // records are in sending order
                    }
                    if r.state == TxState::InFlight {
                        r.state = TxState::Lost;
                        rep.add(r.seq);
                    }
                }
                self.trim();
                rep
            }

            /// When the oldest in-flight packet times out.
            pub fn next_timeout(&self, timeout: TimeDelta) -> Option<Timestamp> {
                self.records
                    .iter()
                    .find(|r| r.state == TxState::InFlight)
                    .map(|r| r.sent + timeout)
            }

            /// Drop resolved records from the front (keep the last one so sequence continuity
            /// can be checked).
            fn trim(&mut self) {
                while self.records.len() > 1 {
                    match self.records.front() {
                        Some(r) if r.state != TxState::InFlight => {
                            self.records.pop_front();
                        }
                        _ => break,
                    }
                }
            }
        }
    }

    proptest::proptest! {
        /// Random sends, acks (with histories, duplicates, reordering, bogus sequence
        /// numbers), timeout checks and restarts: every outcome and every query equals
        /// the reference implementation's.
        #[test]
        fn same_as_the_walk_over_every_record(
            ndupack in 1u64..5,
            max_records in 1usize..80,
            ops in proptest::collection::vec((0u8..10, 0u64..120, proptest::prelude::any::<u64>()), 1..300),
        ) {
            let mut h = RapTxHistory::new(ndupack, max_records);
            let mut r = reference::OldHistory::new(ndupack, max_records);
            let mut next = 0u64;
            let mut now = 0u64;
            for (op, x, bits) in ops {
                now += x % 7;
                let t = ms(now);
                match op {
                    0..=3 => {
                        let seq = if op == 3 && x % 9 == 0 { next + x } else { next };
                        next = seq + 1;
                        proptest::prop_assert_eq!(h.on_sent(seq, t), r.on_sent(seq, t));
                    }
                    4..=7 => {
                        // Mostly acks near the front, with dense or sparse histories.
                        let seq = next.saturating_sub(1 + x % 70);
                        let history = if op == 7 { bits } else { bits | (bits >> 1) | (bits >> 2) };
                        proptest::prop_assert_eq!(h.on_ack(t, seq, history), r.on_ack(t, seq, history));
                    }
                    8 => {
                        let timeout = TimeDelta::millis((x % 40) as i64);
                        proptest::prop_assert_eq!(h.check_timeouts(t, timeout), r.check_timeouts(t, timeout));
                    }
                    _ => {
                        let seq = x.wrapping_mul(bits);
                        proptest::prop_assert_eq!(h.on_ack(t, seq, bits), r.on_ack(t, seq, bits));
                    }
                }
                let timeout = TimeDelta::millis(25);
                proptest::prop_assert_eq!(h.next_timeout(timeout), r.next_timeout(timeout));
                proptest::prop_assert_eq!(h.in_flight(), r.in_flight());
                proptest::prop_assert_eq!(
                    h.acked,
                    h.records.iter().filter(|r| r.state == TxState::Acked).count()
                );
            }
        }
    }

    #[test]
    fn gap_confirmed_by_three_later_acks_is_loss() {
        let mut h = sent(10);
        let o = h.on_ack(ms(100), 0, 0);
        assert_eq!(o.rtt_sample, Some(TimeDelta::millis(100)));
        // 1 lost; acks for 2, 3 do not yet declare it
        assert_eq!(h.on_ack(ms(102), 2, 0b10).loss.newly_lost, 0);
        assert_eq!(h.on_ack(ms(103), 3, 0b101).loss.newly_lost, 0);
        let o = h.on_ack(ms(104), 4, 0b1011);
        assert_eq!(o.loss.newly_lost, 1);
        assert_eq!(o.loss.max_lost_seq, Some(1));
        // never twice
        assert_eq!(h.on_ack(ms(105), 5, 0b10111).loss.newly_lost, 0);
    }

    #[test]
    fn lost_ack_is_covered_by_history() {
        let mut h = sent(6);
        // acks for 0..=4 lost, ack for 5 carries all of them
        let o = h.on_ack(ms(105), 5, 0b11111);
        assert_eq!(o.loss.newly_lost, 0);
        assert_eq!(o.newly_acked, 6);
        assert_eq!(h.in_flight(), 0);
    }

    #[test]
    fn timeout_declares_loss() {
        let mut h = RapTxHistory::new(3, 1000);
        h.on_sent(0, ms(0));
        h.on_sent(1, ms(10));
        assert_eq!(h.next_timeout(TimeDelta::millis(50)), Some(ms(50)));
        assert_eq!(
            h.check_timeouts(ms(49), TimeDelta::millis(50)).newly_lost,
            0
        );
        let r = h.check_timeouts(ms(55), TimeDelta::millis(50));
        assert_eq!((r.newly_lost, r.max_lost_seq), (1, Some(0)));
        assert_eq!(h.next_timeout(TimeDelta::millis(50)), Some(ms(60)));
    }

    #[test]
    fn bogus_acks_are_ignored() {
        let mut h = RapTxHistory::new(3, 4);
        for s in 0..10 {
            h.on_sent(s, ms(s));
        }
        assert_eq!(h.on_ack(ms(20), u64::MAX, u64::MAX), AckOutcome::default());
        assert_eq!(h.on_ack(ms(20), 0, u64::MAX), AckOutcome::default());
        assert!(h.in_flight() <= 4);
    }
}
