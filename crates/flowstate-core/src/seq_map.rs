//! A map from sequence numbers to per-packet records, for a sender's outstanding data:
//! the TCP sender's sent segments (keyed by byte sequence number), SCTP's
//! outstanding chunks (keyed by TSN), the media sender's send history (keyed by
//! transport-wide sequence number), NADA's send history, the RTX packet
//! history; and for a receiver's records of what arrived: SCTP's out-of-order chunks,
//! the RFC 8888 receiver's pending arrivals, the NACK list, the TFRC receiver's packets
//! held above a hole (`rate::loss_history`).
//!
//! A sender inserts at the highest sequence number so far and removes from the lowest
//! (the cumulative ack), so the records sit in one ring buffer ([`VecDeque`]) in key
//! order: insertion at the back and removal at the front in O(1), lookups by binary
//! search over contiguous memory, iteration without pointer chasing, and no
//! allocation once the ring has grown to the flight size. It is a drop-in for the
//! `BTreeMap<u64, V>` it replaces (the same contents and order after any sequence of
//! calls, a property test below); a key inserted out of order costs O(n) instead of
//! O(log n), which the senders never do (a receiver does it for a packet that arrives
//! out of order, a few records from the back).

use std::collections::VecDeque;
use std::ops::{Bound, RangeBounds};

/// Records in increasing key order (see the module documentation).
#[derive(Debug, Clone)]
pub(crate) struct SeqMap<V> {
    entries: VecDeque<(u64, V)>,
}

impl<V> Default for SeqMap<V> {
    fn default() -> Self {
        Self::new()
    }
}

impl<V> SeqMap<V> {
    pub(crate) fn new() -> Self {
        SeqMap {
            entries: VecDeque::new(),
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The position of the first key `>= key`.
    fn lower_bound(&self, key: u64) -> usize {
        let (Some(&(first, _)), Some(&(last, _))) = (self.entries.front(), self.entries.back())
        else {
            return 0;
        };
        // Fast paths: the ring's back (the sender's insertion point), its front (the
        // cumulative ack), and dense keys (SCTP's TSNs are consecutive: key `first + i`
        // sits at position `i`; the keys are strictly increasing, so finding it there
        // is proof).
        if last < key {
            return self.entries.len();
        }
        if key <= first {
            return 0;
        }
        let guess = key - first;
        if let Some(&(k, _)) = usize::try_from(guess)
            .ok()
            .and_then(|i| self.entries.get(i))
        {
            if k == key {
                return guess as usize;
            }
        }
        self.entries.partition_point(|&(k, _)| k < key)
    }

    fn position(&self, key: u64) -> Option<usize> {
        let i = self.lower_bound(key);
        (self.entries.get(i)?.0 == key).then_some(i)
    }

    /// Inserts or replaces (like `BTreeMap::insert`); O(1) above every key.
    pub(crate) fn insert(&mut self, key: u64, value: V) -> Option<V> {
        let i = self.lower_bound(key);
        let len = self.entries.len();
        match self.entries.get_mut(i) {
            Some(e) if e.0 == key => Some(std::mem::replace(&mut e.1, value)),
            _ if i == len => {
                self.entries.push_back((key, value));
                None
            }
            _ => {
                self.entries.insert(i, (key, value));
                None
            }
        }
    }

    pub(crate) fn get(&self, key: u64) -> Option<&V> {
        let i = self.position(key)?;
        self.entries.get(i).map(|e| &e.1)
    }

    pub(crate) fn get_mut(&mut self, key: u64) -> Option<&mut V> {
        let i = self.position(key)?;
        self.entries.get_mut(i).map(|e| &mut e.1)
    }

    /// The lowest key and its record.
    pub(crate) fn first(&self) -> Option<(u64, &V)> {
        self.entries.front().map(|(k, v)| (*k, v))
    }

    /// Removes and returns the lowest key and its record.
    pub(crate) fn pop_first(&mut self) -> Option<(u64, V)> {
        self.entries.pop_front()
    }

    /// The highest key and its record.
    pub(crate) fn last(&self) -> Option<(u64, &V)> {
        self.entries.back().map(|(k, v)| (*k, v))
    }

    pub(crate) fn contains_key(&self, key: u64) -> bool {
        self.position(key).is_some()
    }

    /// Removes `key`'s record (like `BTreeMap::remove`); O(1) at the front.
    pub(crate) fn remove(&mut self, key: u64) -> Option<V> {
        let i = self.position(key)?;
        self.entries.remove(i).map(|(_, v)| v)
    }

    /// Keeps the records for which `keep` is true, in order (like `BTreeMap::retain`).
    pub(crate) fn retain(&mut self, mut keep: impl FnMut(u64, &mut V) -> bool) {
        self.entries.retain_mut(|(k, v)| keep(*k, v));
    }

    /// Removes every record below `key` (what `map = map.split_off(&key)` keeps).
    pub(crate) fn remove_below(&mut self, key: u64) {
        let n = self.lower_bound(key);
        self.entries.drain(..n);
    }

    pub(crate) fn clear(&mut self) {
        self.entries.clear();
    }

    pub(crate) fn keys(&self) -> impl DoubleEndedIterator<Item = u64> + '_ {
        self.entries.iter().map(|(k, _)| *k)
    }

    pub(crate) fn iter(&self) -> impl DoubleEndedIterator<Item = (u64, &V)> {
        self.entries.iter().map(|(k, v)| (*k, v))
    }

    pub(crate) fn iter_mut(&mut self) -> impl DoubleEndedIterator<Item = (u64, &mut V)> {
        self.entries.iter_mut().map(|(k, v)| (*k, v))
    }

    pub(crate) fn values(&self) -> impl DoubleEndedIterator<Item = &V> {
        self.entries.iter().map(|(_, v)| v)
    }

    fn bounds(&self, range: impl RangeBounds<u64>) -> (usize, usize) {
        let lo = match range.start_bound() {
            Bound::Unbounded => 0,
            Bound::Included(&k) => self.lower_bound(k),
            Bound::Excluded(&k) => k.checked_add(1).map_or(self.len(), |k| self.lower_bound(k)),
        };
        let hi = match range.end_bound() {
            Bound::Unbounded => self.len(),
            Bound::Excluded(&k) => self.lower_bound(k),
            Bound::Included(&k) => k.checked_add(1).map_or(self.len(), |k| self.lower_bound(k)),
        };
        (lo, hi.max(lo))
    }

    /// The records with keys in `range`, in key order.
    pub(crate) fn range(
        &self,
        range: impl RangeBounds<u64>,
    ) -> impl DoubleEndedIterator<Item = (u64, &V)> {
        let (lo, hi) = self.bounds(range);
        self.entries.range(lo..hi).map(|(k, v)| (*k, v))
    }

    /// The records with keys in `range`, in key order, mutable.
    pub(crate) fn range_mut(
        &mut self,
        range: impl RangeBounds<u64>,
    ) -> impl DoubleEndedIterator<Item = (u64, &mut V)> {
        let (lo, hi) = self.bounds(range);
        self.entries.range_mut(lo..hi).map(|(k, v)| (*k, v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    fn same(m: &SeqMap<u32>, b: &BTreeMap<u64, u32>) -> bool {
        m.len() == b.len() && m.iter().eq(b.iter().map(|(k, v)| (*k, v)))
    }

    proptest! {
        /// Any sequence of the operations the senders use (mostly appends above every
        /// key and removals of the lowest, as a sender does, plus arbitrary inserts,
        /// removals and ranges) leaves the same contents as a `BTreeMap` and returns
        /// the same values.
        #[test]
        fn behaves_like_a_btreemap(ops in proptest::collection::vec((0u8..13, 0u64..50, any::<u32>()), 1..300)) {
            let mut m = SeqMap::new();
            let mut b = BTreeMap::new();
            let mut next = 0u64;
            for (op, x, v) in ops {
                match op {
                    0..=2 => {
                        next += 1 + x % 3;
                        prop_assert_eq!(m.insert(next, v), b.insert(next, v));
                    }
                    3 => prop_assert_eq!(m.insert(x, v), b.insert(x, v)),
                    4 | 7 => prop_assert_eq!(m.pop_first(), b.pop_first()),
                    5 => {
                        prop_assert_eq!(m.get(x).copied(), b.get(&x).copied());
                        prop_assert_eq!(m.get_mut(x).map(|a| *a), b.get(&x).copied());
                        if let (Some(a), Some(c)) = (m.get_mut(x), b.get_mut(&x)) {
                            *a = a.wrapping_add(v);
                            *c = c.wrapping_add(v);
                        }
                    }
                    6 => {
                        let (lo, hi) = (x, x + u64::from(v % 20));
                        for ((k, a), (kb, c)) in m.range_mut(lo..hi).zip(b.range_mut(lo..hi)) {
                            prop_assert_eq!(k, *kb);
                            *a ^= v;
                            *c ^= v;
                        }
                        let keys = |m: &mut SeqMap<u32>, r: (Bound<u64>, Bound<u64>)| m.range_mut(r).map(|(k, _)| k).collect::<Vec<_>>();
                        for r in [
                            (Bound::Included(lo), Bound::Included(hi)),
                            (Bound::Unbounded, Bound::Excluded(hi)),
                            (Bound::Excluded(lo), Bound::Unbounded),
                        ] {
                            prop_assert_eq!(keys(&mut m, r), b.range(r).map(|(k, _)| *k).collect::<Vec<_>>());
                        }
                        prop_assert!(m.range_mut(..hi).rev().map(|(k, _)| k).eq(b.range(..hi).rev().map(|(k, _)| *k)));
                        prop_assert!(m.range(lo..=hi).eq(b.range(lo..=hi).map(|(k, v)| (*k, v))));
                        prop_assert!(m.range(lo..).eq(b.range(lo..).map(|(k, v)| (*k, v))));
                    }
                    9 => prop_assert_eq!(m.remove(x), b.remove(&x)),
                    10 => {
                        m.retain(|k, a| (k + u64::from(*a)) % 3 != x % 3);
                        b.retain(|k, a| (k + u64::from(*a)) % 3 != x % 3);
                    }
                    11 => {
                        m.remove_below(x);
                        b = b.split_off(&x);
                    }
                    12 if v % 8 == 0 => {
                        m.clear();
                        b.clear();
                    }
                    _ => {
                        for (_, a) in m.iter_mut() {
                            *a = a.rotate_left(1);
                        }
                        for a in b.values_mut() {
                            *a = a.rotate_left(1);
                        }
                    }
                }
                prop_assert!(same(&m, &b));
                prop_assert_eq!(m.first(), b.first_key_value().map(|(k, v)| (*k, v)));
                prop_assert_eq!(m.last(), b.last_key_value().map(|(k, v)| (*k, v)));
                prop_assert_eq!(m.contains_key(x), b.contains_key(&x));
                prop_assert!(m.keys().eq(b.keys().copied()));
                prop_assert!(m.values().eq(b.values()));
            }
        }
    }

    #[test]
    fn extreme_keys() {
        let mut m = SeqMap::new();
        m.insert(u64::MAX, 1);
        m.insert(0, 2);
        assert_eq!(m.range_mut(..=u64::MAX).count(), 2);
        assert_eq!(
            m.range_mut((Bound::Excluded(u64::MAX), Bound::Unbounded))
                .count(),
            0
        );
        assert_eq!(m.get_mut(u64::MAX), Some(&mut 1));
        assert_eq!(m.pop_first(), Some((0, 2)));
        assert_eq!(m.first(), Some((u64::MAX, &1)));
    }
}
