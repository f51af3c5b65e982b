//! The discrete-event core: a time-ordered event queue, seeded per-component random
//! streams, and a stable trace hasher.
//!
//! Events are ordered by `(time, sequence number)`: two events at the same microsecond
//! run in the order they were scheduled, so a run never depends on heap internals.
//! Every random component (a link's jitter, a link's loss, a flow) draws from its own
//! [`ChaCha8Rng`] seeded from `(run seed, component id)` by [`component_rng`], so adding
//! a component never shifts another component's random numbers.

use flowstate_core::Timestamp;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// One scheduled event.
#[derive(Debug, Clone)]
struct Entry<E> {
    time: Timestamp,
    seq: u64,
    event: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        self.time == other.time && self.seq == other.seq
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<E> Ord for Entry<E> {
    /// Reversed, so that `BinaryHeap` (a max-heap) pops the earliest `(time, seq)`.
    fn cmp(&self, other: &Self) -> Ordering {
        (other.time, other.seq).cmp(&(self.time, self.seq))
    }
}

/// A queue of future events ordered by `(time, sequence number)`.
#[derive(Debug, Clone)]
pub struct EventQueue<E> {
    heap: BinaryHeap<Entry<E>>,
    next_seq: u64,
    now: Timestamp,
    processed: u64,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> EventQueue<E> {
    pub fn new() -> Self {
        Self {
            heap: BinaryHeap::new(),
            next_seq: 0,
            now: Timestamp::ZERO,
            processed: 0,
        }
    }

    /// Pre-allocate room for `n` pending events.
    pub fn with_capacity(n: usize) -> Self {
        let mut q = Self::new();
        q.heap.reserve(n);
        q
    }

    /// The time of the event popped last (the simulation clock).
    pub fn now(&self) -> Timestamp {
        self.now
    }

    /// Number of events popped so far.
    pub fn processed(&self) -> u64 {
        self.processed
    }

    /// Number of pending events.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// Schedule `event` at `time`. A time in the past is moved to `now` (events never
    /// run backwards).
    pub fn schedule(&mut self, time: Timestamp, event: E) {
        let time = time.max(self.now);
        let seq = self.next_seq;
        self.next_seq += 1;
        self.heap.push(Entry { time, seq, event });
    }

    /// The time of the next event, if any.
    pub fn peek_time(&self) -> Option<Timestamp> {
        self.heap.peek().map(|e| e.time)
    }

    /// Pop the next event, advancing the clock to its time.
    pub fn pop(&mut self) -> Option<(Timestamp, E)> {
        let entry = self.heap.pop()?;
        self.now = entry.time;
        self.processed += 1;
        Some((entry.time, entry.event))
    }
}

/// SplitMix64 step (Steele, Lea, Flood 2014): a stable, well-mixed 64-bit permutation.
pub fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Identifies a random component of a run. Stable numbering (documented in
/// docs/ALGORITHMS.md): links use [`ComponentId::link`], flows [`ComponentId::flow`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ComponentId(pub u64);

impl ComponentId {
    /// Link `link` (0 forward, 1 reverse), stream `stream` (0 jitter, 1 loss).
    pub const fn link(link: u64, stream: u64) -> Self {
        ComponentId(0x1000_0000 | (link << 8) | stream)
    }
    /// Flow number `index` (its position in the scenario's `[[flows]]`).
    pub const fn flow(index: u64) -> Self {
        ComponentId(0x2000_0000_0000 | index)
    }
    /// The `start_jitter` draw of flow number `index` (a stream of its own, so a
    /// jittered start leaves the flow's other random draws unchanged).
    pub const fn start_jitter(index: u64) -> Self {
        ComponentId(0x3000_0000_0000 | index)
    }
}

/// The random stream of one component: a ChaCha8 generator whose 32-byte seed is four
/// SplitMix64 outputs of a state built from `(run_seed, component)`. Stable across
/// platforms and crate versions (it does not use `seed_from_u64`).
pub fn component_rng(run_seed: u64, component: ComponentId) -> ChaCha8Rng {
    let mut state = run_seed ^ splitmix64(&mut component.0.clone());
    let mut seed = [0u8; 32];
    for chunk in seed.chunks_exact_mut(8) {
        chunk.copy_from_slice(&splitmix64(&mut state).to_le_bytes());
    }
    ChaCha8Rng::from_seed(seed)
}

/// FNV-1a 64-bit hasher (Fowler, Noll, Vo): stable across runs and platforms, unlike
/// std's randomly keyed `DefaultHasher`. Used to fingerprint a run's full trace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fnv64(u64);

impl Default for Fnv64 {
    fn default() -> Self {
        Self::new()
    }
}

impl Fnv64 {
    pub const OFFSET_BASIS: u64 = 0xcbf2_9ce4_8422_2325;
    pub const PRIME: u64 = 0x0000_0100_0000_01b3;

    pub const fn new() -> Self {
        Fnv64(Self::OFFSET_BASIS)
    }
    pub fn write_bytes(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 ^= u64::from(*b);
            self.0 = self.0.wrapping_mul(Self::PRIME);
        }
    }
    pub fn write_u64(&mut self, v: u64) {
        self.write_bytes(&v.to_le_bytes());
    }
    pub fn write_u32(&mut self, v: u32) {
        self.write_bytes(&v.to_le_bytes());
    }
    pub fn write_u8(&mut self, v: u8) {
        self.write_bytes(&[v]);
    }
    pub const fn finish(&self) -> u64 {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::Rng;

    #[test]
    fn pops_in_time_then_insertion_order() {
        let mut q = EventQueue::new();
        q.schedule(Timestamp::from_micros(20), 'c');
        q.schedule(Timestamp::from_micros(10), 'a');
        q.schedule(Timestamp::from_micros(20), 'd');
        q.schedule(Timestamp::from_micros(10), 'b');
        let order: Vec<char> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, vec!['a', 'b', 'c', 'd']);
        assert_eq!(q.now(), Timestamp::from_micros(20));
        assert_eq!(q.processed(), 4);
    }

    #[test]
    fn past_events_are_clamped_to_now() {
        let mut q = EventQueue::new();
        q.schedule(Timestamp::from_micros(50), 1);
        let _ = q.pop();
        q.schedule(Timestamp::from_micros(10), 2);
        assert_eq!(q.pop(), Some((Timestamp::from_micros(50), 2)));
    }

    #[test]
    fn fnv_matches_reference_vectors() {
        // Reference values of FNV-1a 64 from the FNV specification's test suite.
        let mut h = Fnv64::new();
        assert_eq!(h.finish(), 0xcbf29ce484222325);
        h.write_bytes(b"a");
        assert_eq!(h.finish(), 0xaf63dc4c8601ec8c);
        let mut h = Fnv64::new();
        h.write_bytes(b"foobar");
        assert_eq!(h.finish(), 0x85944171f73967e8);
    }

    #[test]
    fn splitmix_reference_vector() {
        // First output of SplitMix64 seeded with 1234567 (reference implementation).
        let mut s = 1234567u64;
        assert_eq!(splitmix64(&mut s), 6457827717110365317);
    }

    #[test]
    fn component_streams_are_stable_and_distinct() {
        let mut a1 = component_rng(7, ComponentId::flow(0));
        let mut a2 = component_rng(7, ComponentId::flow(0));
        let mut b = component_rng(7, ComponentId::flow(1));
        let mut c = component_rng(8, ComponentId::flow(0));
        let x1 = a1.next_u64();
        assert_eq!(x1, a2.next_u64());
        assert_ne!(x1, b.next_u64());
        assert_ne!(x1, c.next_u64());
    }
}
