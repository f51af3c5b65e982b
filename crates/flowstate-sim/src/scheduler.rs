//! The discrete-event core: a time-ordered event queue, seeded per-component random
//! streams, and a stable trace hasher.
//!
//! Events are ordered by `(time, sequence number)`: two events at the same microsecond
//! run in the order they were scheduled, so a run never depends on the queue's
//! internals. Every random component (a link's jitter, a link's loss, a flow) draws from
//! its own [`ChaCha8Rng`] seeded from `(run seed, component id)` by [`component_rng`],
//! so adding a component never shifts another component's random numbers.
//!
//! # The event set: a hierarchical timing wheel
//!
//! [`EventQueue`] is a hierarchical timing wheel (Varghese and Lauck, "Hashed and
//! hierarchical timing wheels", SOSP 1987; the layout of the Linux kernel's timer
//! wheel): [`LEVELS`] levels of 64 slots, level `L` slot `i` holding the events whose
//! time agrees with the wheel's cursor (the time of the event popped last) on every bit
//! above `6 (L + 1)` and has `i` as its `L`-th 6-bit digit. An event is placed at the
//! level of the highest bit in which its time differs from the cursor, in O(1); a pop
//! takes the head of the first occupied level-0 slot (one bitmap scan per level), and
//! when level 0 is empty moves the first occupied slot of the lowest level that has one
//! down into the levels below ("cascading"; an event moves at most `LEVELS - 1` times,
//! in practice 1-3 times for the simulator's microseconds-to-seconds horizons). So the
//! cost per event does not depend on how many events are pending, unlike a binary heap
//! (O(log n) compares with cache misses deep in a large heap).
//!
//! Exact `(time, seq)` order without comparing sequence numbers: every slot is a FIFO
//! list. A level-0 slot holds events of one microsecond only; all pending events of one
//! time sit in one slot; they arrive there either by a cascade (which keeps the order
//! of the slot it empties, and finds the slots below it empty) or by a direct insertion
//! after that cascade (a later sequence number). So each slot is in sequence order, and
//! the pops are exactly those of a `(time, seq)` priority queue: the property test
//! `wheel_pops_like_a_sorted_reference` checks it against a sort.
//!
//! Each slot is a vector of `(time, seq, event)` that keeps its capacity when emptied,
//! so steady-state scheduling allocates nothing and a cascade streams through memory
//! (no pointer chasing).
//!
//! # FIFO lanes beside the wheel
//!
//! Most of a packet simulation's events are scheduled in time order by nature: a
//! link's next "serialization done" (one pending per link, later than the last), and
//! the deliveries of the packets leaving one link over one path delay (a link sends in
//! order, so exit + delay grows). Such a stream goes into a *lane*
//! ([`EventQueue::add_lane`], [`EventQueue::schedule_in`]): a FIFO queue, O(1) in and
//! out, never cascaded. A pop takes the smallest `(time, seq)` of the wheel's head and
//! the lanes' heads, so the order is exactly the one without lanes (every event
//! carries its sequence number for these comparisons). An event that would break its
//! lane's order (earlier than the lane's last) goes to the wheel instead, so lanes are
//! an optimisation only: the property test `lanes_pop_like_a_sorted_reference` checks
//! the order against a sort with events scheduled in and out of order.

use flowstate_core::Timestamp;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// Bits of the time per wheel level (64 slots a level).
const BITS: u32 = 6;
/// Slots per level.
const SLOTS: usize = 1 << BITS;
/// Levels: 11 x 6 bits cover the 64-bit microsecond clock.
pub const LEVELS: usize = 11;
/// The head key of an empty lane (after every real one).
const EMPTY_LANE: u128 = u128::MAX;

/// `(time, seq)` as one number with the same order (one comparison instead of two).
#[inline]
fn key(time: u64, seq: u64) -> u128 {
    (u128::from(time) << 64) | u128::from(seq)
}

/// A queue of future events ordered by `(time, sequence number)` (see the module
/// documentation for the structure).
#[derive(Debug, Clone)]
pub struct EventQueue<E> {
    /// Slot `i` of level `L` at `L * SLOTS + i`: its `(time, seq, event)`s in
    /// `(time, seq)` order.
    slots: Vec<Vec<(u64, u64, E)>>,
    /// Level 0: index of the next event to pop in each slot.
    head0: [usize; SLOTS],
    /// Bit `i` of `occupied[L]`: slot `i` of level `L` is not empty.
    occupied: [u64; LEVELS],
    /// The wheel's position (microseconds): `now`, or after a [`EventQueue::peek_time`]
    /// the start of the block holding the next event.
    cursor: u64,
    /// Events scheduled after a `peek_time` moved the cursor past their time (before the
    /// next pop), sorted by `(time, seq)` descending: all of them precede the wheel's.
    early: Vec<(u64, u64, E)>,
    /// FIFO lanes of events scheduled in `(time, seq)` order.
    lanes: Vec<std::collections::VecDeque<(u64, u64, E)>>,
    /// `(time, seq)` of each lane's head (`(u64::MAX, u64::MAX)` when empty), kept
    /// beside the lanes so finding the smallest is one pass over a small array.
    lane_heads: Vec<u128>,
    /// The wheel's head key as [`EventQueue::wheel_head`] found it (`None`: to find
    /// again; `Some(None)`: the wheel is empty).
    wheel_next: Option<Option<u128>>,
    /// The lane whose head is the smallest `(time, seq)` of all lanes' heads.
    lane_min: Option<usize>,
    /// The lane the last pop took its event from (`usize::MAX`: the wheel).
    popped_lane: usize,
    /// Sequence number of the next event scheduled.
    next_seq: u64,
    len: usize,
    now: Timestamp,
    processed: u64,
}

impl<E: Copy> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

/// The level an event at `time` goes to when the cursor is at `cursor` (`time >= cursor`).
#[inline]
fn level_of(time: u64, cursor: u64) -> usize {
    let diff = time ^ cursor;
    if diff == 0 {
        0
    } else {
        ((63 - diff.leading_zeros()) / BITS) as usize
    }
}

/// The slot of `time` within `level`.
#[inline]
fn slot_of(time: u64, level: usize) -> usize {
    ((time >> (BITS as usize * level)) & (SLOTS as u64 - 1)) as usize
}

/// Bits of `occupied[level]` strictly after (`level >= 1`) or from (`level 0`) the
/// cursor's digit.
#[inline]
fn ahead(occupied: u64, cursor: u64, level: usize) -> u64 {
    let digit = slot_of(cursor, level) as u32;
    let from = if level == 0 { digit } else { digit + 1 };
    if from >= 64 {
        0
    } else {
        occupied & (u64::MAX << from)
    }
}

/// How many entries ahead of its head a lane's pop asks the CPU to load (an entry of
/// the engine's events is one 64-byte line).
const LANE_PREFETCH_AHEAD: usize = 4;

impl<E: Copy> EventQueue<E> {
    pub fn new() -> Self {
        Self {
            slots: (0..LEVELS * SLOTS).map(|_| Vec::new()).collect(),
            head0: [0; SLOTS],
            occupied: [0; LEVELS],
            cursor: 0,
            early: Vec::new(),
            lanes: Vec::new(),
            lane_heads: Vec::new(),
            popped_lane: usize::MAX,
            wheel_next: None,
            lane_min: None,
            next_seq: 0,
            len: 0,
            now: Timestamp::ZERO,
            processed: 0,
        }
    }

    /// Pre-allocate room for `n` pending events (spread over the first level's slots).
    pub fn with_capacity(n: usize) -> Self {
        let mut q = Self::new();
        for slot in q.slots.iter_mut().take(SLOTS) {
            slot.reserve(n / SLOTS);
        }
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
        self.len + self.early.len() + self.lanes.iter().map(|l| l.len()).sum::<usize>()
    }

    /// A new FIFO lane (see the module documentation); returns its number.
    pub fn add_lane(&mut self) -> usize {
        self.lanes.push(std::collections::VecDeque::new());
        self.lane_heads.push(EMPTY_LANE);
        self.lanes.len() - 1
    }

    /// Schedule `event` at `time` (moved to `now` if in the past) in lane `lane`: at
    /// the lane's back when no earlier than the lane's last event, in the wheel
    /// otherwise (or when there is no such lane). Pops exactly as
    /// [`EventQueue::schedule`] would.
    #[inline]
    pub fn schedule_in(&mut self, lane: usize, time: Timestamp, event: E) {
        let time = time.max(self.now).as_micros();
        let Some(fifo) = self.lanes.get_mut(lane) else {
            return self.schedule_at(time, event);
        };
        if fifo.back().is_some_and(|b| b.0 > time) {
            return self.schedule_at(time, event);
        }
        let seq = self.next_seq;
        self.next_seq += 1;
        let was_empty = fifo.is_empty();
        fifo.push_back((time, seq, event));
        if was_empty {
            if let Some(h) = self.lane_heads.get_mut(lane) {
                *h = key(time, seq);
            }
            // The new head: earlier than the current minimum lane head?
            if self.lane_head().map_or(true, |m| key(time, seq) < m) {
                self.lane_min = Some(lane);
            }
        }
    }

    /// The lane whose head is the smallest, after a lane's head changed.
    fn update_lane_min(&mut self) {
        let mut best = EMPTY_LANE;
        let mut at = None;
        for (i, &h) in self.lane_heads.iter().enumerate() {
            if h < best {
                best = h;
                at = Some(i);
            }
        }
        self.lane_min = at;
    }

    /// `(time, seq)` of the smallest lane head.
    #[inline]
    fn lane_head(&self) -> Option<u128> {
        self.lane_heads.get(self.lane_min?).copied()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Schedule `event` at `time`. A time in the past is moved to `now` (events never
    /// run backwards).
    pub fn schedule(&mut self, time: Timestamp, event: E) {
        self.schedule_at(time.max(self.now).as_micros(), event);
    }

    /// [`EventQueue::schedule`] in the wheel, `time >= now` in microseconds.
    fn schedule_at(&mut self, time: u64, event: E) {
        let seq = self.next_seq;
        self.next_seq += 1;
        // A remembered head stays valid unless this event precedes it (or the wheel
        // was empty); then this event is the head.
        match self.wheel_next {
            Some(Some(head)) if key(time, seq) < head => {
                self.wheel_next = Some(Some(key(time, seq)));
            }
            Some(None) => self.wheel_next = Some(Some(key(time, seq))),
            _ => {}
        }
        if time < self.cursor {
            // Before every event in the wheel; after the early ones of the same time.
            let at = self.early.partition_point(|e| e.0 > time);
            self.early.insert(at, (time, seq, event));
            return;
        }
        self.len += 1;
        self.link(time, seq, event);
    }

    /// Append an event at `time >= cursor` to its slot.
    #[inline]
    fn link(&mut self, time: u64, seq: u64, event: E) {
        let level = level_of(time, self.cursor);
        let slot = slot_of(time, level);
        self.occupied[level] |= 1 << slot;
        if let Some(list) = self.slots.get_mut(level * SLOTS + slot) {
            list.push((time, seq, event));
        }
    }

    /// The lowest level above 0 with an occupied slot ahead of the cursor, and that slot.
    fn next_upper(&self) -> Option<(usize, usize)> {
        (1..LEVELS).find_map(|level| {
            let bits = ahead(self.occupied[level], self.cursor, level);
            (bits != 0).then(|| (level, bits.trailing_zeros() as usize))
        })
    }

    /// The time of the next event, if any.
    pub fn peek_time(&mut self) -> Option<Timestamp> {
        let wheel = self.wheel_head();
        let next = match (wheel, self.lane_head()) {
            (Some(w), Some(l)) => w.min(l),
            (w, l) => w.or(l)?,
        };
        Some(Timestamp::from_micros((next >> 64) as u64))
    }

    /// `(time, seq)` of the wheel's next event as a [`key`], remembered until the
    /// wheel pops.
    #[inline]
    fn wheel_head(&mut self) -> Option<u128> {
        if let Some(k) = self.wheel_next {
            return k;
        }
        let k = self.find_wheel_head();
        self.wheel_next = Some(k);
        k
    }

    /// The wheel's smallest `(time, seq)` without moving the cursor: the head of the
    /// first occupied level-0 slot ahead, else the smallest entry of the first
    /// occupied slot of the lowest level that has one (all later levels' events are
    /// in later blocks). The cursor moves only when the wheel pops (to the popped
    /// time), so it never passes `now` and nothing scheduled at or after `now` has to
    /// go to `early` (which is sorted by insertion: a cursor moved ahead by a peek
    /// while lanes pop earlier events made timers pile up there).
    fn find_wheel_head(&self) -> Option<u128> {
        if let Some(&(t, q, _)) = self.early.last() {
            return Some(key(t, q));
        }
        let bits = ahead(self.occupied[0], self.cursor, 0);
        if bits != 0 {
            let slot = bits.trailing_zeros() as usize;
            let &(t, q, _) = self.slots.get(slot)?.get(self.head0[slot])?;
            return Some(key(t, q));
        }
        let (level, slot) = self.next_upper()?;
        self.slots
            .get(level * SLOTS + slot)?
            .iter()
            .map(|&(t, q, _)| key(t, q))
            .min()
    }

    /// Level 0 is empty ahead of the cursor: move the cursor to the start of the next
    /// occupied slot above and spread that slot over the levels below (all empty).
    /// `false`: the wheel is empty.
    fn cascade(&mut self) -> bool {
        let Some((level, slot)) = self.next_upper() else {
            return false;
        };
        let shift = BITS as usize * level;
        let above = if shift + (BITS as usize) >= 64 {
            0
        } else {
            self.cursor & !((1u64 << (shift + BITS as usize)) - 1)
        };
        self.cursor = above | ((slot as u64) << shift);
        self.occupied[level] &= !(1 << slot);
        let index = level * SLOTS + slot;
        let mut list = std::mem::take(&mut self.slots[index]);
        for &(time, seq, event) in &list {
            self.link(time, seq, event);
        }
        // Keep the emptied vector's capacity for the slot's next turn.
        list.clear();
        self.slots[index] = list;
        true
    }

    /// The event the next [`EventQueue::pop`] returns, without popping it; `None` also
    /// when that event still sits in a wheel level above 0 (finding it there costs a
    /// scan of a slot: callers use this as a hint, for prefetching).
    #[inline]
    pub fn peek(&mut self) -> Option<&E> {
        let wheel = self.wheel_head();
        if let Some(l) = self.lane_head() {
            if wheel.map_or(true, |w| l < w) {
                return self.lanes.get(self.lane_min?)?.front().map(|e| &e.2);
            }
        }
        wheel?;
        if let Some(e) = self.early.last() {
            return Some(&e.2);
        }
        let bits = ahead(self.occupied[0], self.cursor, 0);
        if bits == 0 {
            return None;
        }
        let slot = bits.trailing_zeros() as usize;
        self.slots
            .get(slot)?
            .get(*self.head0.get(slot)?)
            .map(|e| &e.2)
    }

    /// The event `k` places behind the head of the lane the last pop took its event
    /// from (`None`: the wheel's, or the lane is shorter), for cache hints: a lane's
    /// order is its pops' order.
    #[inline]
    pub fn lane_ahead(&self, k: usize) -> Option<&E> {
        self.lanes.get(self.popped_lane)?.get(k).map(|e| &e.2)
    }

    /// Pop the next event if it is before `end` (the one pass of a
    /// [`EventQueue::peek_time`] and a [`EventQueue::pop`]).
    #[inline]
    pub fn pop_before(&mut self, end: Timestamp) -> Option<(Timestamp, E)> {
        self.pop_if(|t| t < end.as_micros())
    }

    /// Pop the next event, advancing the clock to its time.
    pub fn pop(&mut self) -> Option<(Timestamp, E)> {
        self.pop_if(|_| true)
    }

    #[inline]
    fn pop_if(&mut self, wanted: impl Fn(u64) -> bool) -> Option<(Timestamp, E)> {
        let wheel = self.wheel_head();
        if let Some(l) = self.lane_head() {
            if wheel.map_or(true, |w| l < w) {
                if !wanted((l >> 64) as u64) {
                    return None;
                }
                let lane = self.lane_min?;
                let fifo = self.lanes.get_mut(lane)?;
                let (time, _, event) = fifo.pop_front()?;
                let next = fifo.front().map_or(EMPTY_LANE, |&(t, q, _)| key(t, q));
                // A lane is read in order: start loading the entry a few pops ahead
                // (a cache hint; with many flows in flight a lane is megabytes long).
                if let Some(later) = fifo.get(LANE_PREFETCH_AHEAD) {
                    prefetch_index::prefetch_index(std::slice::from_ref(later), 0);
                }
                if let Some(h) = self.lane_heads.get_mut(lane) {
                    *h = next;
                }
                self.update_lane_min();
                self.popped_lane = lane;
                return Some(self.popped(time, event));
            }
        }
        if !wanted((wheel? >> 64) as u64) {
            return None;
        }
        self.wheel_next = None;
        self.popped_lane = usize::MAX;
        if let Some((t, _, event)) = self.early.pop() {
            return Some(self.popped(t, event));
        }
        let bits = loop {
            let bits = ahead(self.occupied[0], self.cursor, 0);
            if bits != 0 {
                break bits;
            }
            if !self.cascade() {
                return None;
            }
        };
        let slot = bits.trailing_zeros() as usize;
        let list = &mut self.slots[slot];
        let head = self.head0[slot];
        let (time, _, event) = list[head];
        if head + 1 == list.len() {
            list.clear();
            self.head0[slot] = 0;
            self.occupied[0] &= !(1 << slot);
        } else {
            self.head0[slot] = head + 1;
        }
        self.len -= 1;
        self.cursor = time;
        Some(self.popped(time, event))
    }

    #[inline]
    fn popped(&mut self, time: u64, event: E) -> (Timestamp, E) {
        self.now = Timestamp::from_micros(time);
        self.processed += 1;
        (self.now, event)
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
    /// The coupling rule's draws (each flow group's seed; crate::coupling_rule).
    pub const fn coupling_rule() -> Self {
        ComponentId(0x4000_0000_0000)
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

/// `PRIME_POWERS[k]` = the FNV prime to the `k`-th power (mod 2^64).
const PRIME_POWERS: [u64; 9] = {
    let mut p = [1u64; 9];
    let mut k = 1;
    while k < 9 {
        p[k] = p[k - 1].wrapping_mul(Fnv64::PRIME);
        k += 1;
    }
    p
};

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
    /// The same as `write_bytes(&v.to_le_bytes()[..WIDTH])` (`v < 2^(8 WIDTH)`), faster
    /// when `v < 2^(8 LOW)`: FNV-1a of a zero byte is a multiplication by the prime,
    /// so the `WIDTH - LOW` zero bytes above are one multiplication by a power of it.
    /// The hash is a serial chain (xor then multiply, per byte); this shortens it.
    #[inline]
    pub fn write_le<const WIDTH: usize, const LOW: usize>(&mut self, v: u64) {
        if LOW < WIDTH && v >> (8 * LOW) == 0 {
            let mut x = v;
            for _ in 0..LOW {
                self.0 ^= x & 0xff;
                self.0 = self.0.wrapping_mul(Self::PRIME);
                x >>= 8;
            }
            self.0 = self.0.wrapping_mul(PRIME_POWERS[WIDTH - LOW]);
        } else {
            self.write_bytes(&v.to_le_bytes()[..WIDTH]);
        }
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

    /// The `(time, seq)` order a binary heap gives, as a sort (the reference).
    fn reference(events: &[(u64, u32)]) -> Vec<(u64, u32)> {
        let mut v: Vec<(u64, usize, u32)> = events
            .iter()
            .enumerate()
            .map(|(i, &(t, e))| (t, i, e))
            .collect();
        v.sort();
        v.into_iter().map(|(t, _, e)| (t, e)).collect()
    }

    /// Runs `ops` on a queue with `lanes` lanes and checks every pop and peek against a
    /// sorted reference. An op is `(kind, scale, offset, lane)`: kind 0 pops (when
    /// something is pending), 1 peeks then schedules, 2 schedules in the wheel, others
    /// schedule in lane `lane` (the wheel when there is no such lane); the event's time
    /// is `now` plus a delta at the same instant, near, or far (several levels up).
    fn pops_like_a_sort(
        ops: &[(u8, u64, u32, usize)],
        lanes: usize,
    ) -> Result<(), proptest::test_runner::TestCaseError> {
        let mut q = EventQueue::new();
        let lanes: Vec<usize> = (0..lanes).map(|_| q.add_lane()).collect();
        // The reference: pending events with their sequence numbers.
        let mut pending: Vec<(u64, u64, u32)> = Vec::new();
        let mut seq = 0u64;
        for (i, &(op, scale, offset, lane)) in ops.iter().enumerate() {
            if op == 0 && !pending.is_empty() {
                pending.sort();
                let (t, _, e) = pending.remove(0);
                // `peek`, when it answers, names the event that pops next.
                if let Some(&p) = q.peek() {
                    proptest::prop_assert_eq!(p, e);
                }
                proptest::prop_assert_eq!(q.peek_time(), Some(Timestamp::from_micros(t)));
                proptest::prop_assert_eq!(q.pop(), Some((Timestamp::from_micros(t), e)));
            } else {
                if op == 1 {
                    // A peek must not change what pops next, even for events scheduled
                    // after it.
                    pending.sort();
                    let first = pending.first().map(|p| Timestamp::from_micros(p.0));
                    proptest::prop_assert_eq!(q.peek_time(), first);
                }
                let delta = match scale {
                    0 => u64::from(offset % 3),
                    1 => u64::from(offset) * 97,
                    _ => u64::from(offset) * 1_234_567 + (1 << (6 * (offset % 9))),
                };
                let t = Timestamp::from_micros(q.now().as_micros() + delta);
                // A lane takes the event when it keeps the lane's order and hands it to
                // the wheel otherwise.
                match lanes.get(lane) {
                    Some(&l) if op != 2 => q.schedule_in(l, t, i as u32),
                    _ => q.schedule(t, i as u32),
                }
                pending.push((t.as_micros(), seq, i as u32));
                seq += 1;
            }
            proptest::prop_assert_eq!(q.len(), pending.len());
        }
        pending.sort();
        for (t, _, e) in pending {
            proptest::prop_assert_eq!(q.pop(), Some((Timestamp::from_micros(t), e)));
        }
        proptest::prop_assert_eq!(q.pop(), None);
        Ok(())
    }

    proptest::proptest! {
        /// The wheel alone: interleaved schedules, peeks and pops (times from 0 to far
        /// beyond a level) pop in exactly the `(time, seq)` order of a sorted reference.
        #[test]
        fn wheel_pops_like_a_sorted_reference(
            ops in proptest::collection::vec((0u8..5, 0u64..3, 0u32..40, 0usize..1), 1..400)
        ) {
            pops_like_a_sort(&ops, 0)?;
        }

        /// Three lanes beside the wheel, events scheduled in lane order or not.
        #[test]
        fn lanes_pop_like_a_sorted_reference(
            ops in proptest::collection::vec((0u8..6, 0u64..3, 0u32..40, 0usize..4), 1..400)
        ) {
            pops_like_a_sort(&ops, 3)?;
        }
    }

    #[test]
    fn a_lane_keeps_its_order_and_hands_earlier_events_to_the_wheel() {
        let mut q = EventQueue::new();
        let lane = q.add_lane();
        q.schedule_in(lane, Timestamp::from_micros(10), 'a');
        q.schedule_in(lane, Timestamp::from_micros(30), 'b');
        // Earlier than the lane's last: goes to the wheel, still pops in time order.
        q.schedule_in(lane, Timestamp::from_micros(20), 'c');
        // Same time as a lane event, scheduled later: pops after it.
        q.schedule(Timestamp::from_micros(10), 'd');
        // An unknown lane is the wheel.
        q.schedule_in(7, Timestamp::from_micros(5), 'e');
        let order: Vec<char> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, vec!['e', 'a', 'd', 'c', 'b']);
    }

    #[test]
    fn peek_names_the_next_event_of_a_lane_or_the_wheel() {
        let mut q = EventQueue::new();
        let lane = q.add_lane();
        assert_eq!(q.peek(), None);
        q.schedule_in(lane, Timestamp::from_micros(3), 'a');
        q.schedule(Timestamp::from_micros(2), 'b');
        q.schedule(Timestamp::from_micros(3), 'c');
        // The wheel's head precedes the lane's, then the lane's (same time, earlier
        // sequence number) precedes the wheel's.
        let mut order = Vec::new();
        while let Some(&next) = q.peek() {
            let popped = q.pop().map(|e| e.1);
            assert_eq!(popped, Some(next));
            order.push(next);
        }
        assert_eq!(order, vec!['b', 'a', 'c']);
        assert_eq!(q.pop(), None);
        // An event far ahead sits in an upper level of the wheel: no answer, and the
        // pop still finds it.
        q.schedule(Timestamp::from_micros(1 << 20), 'd');
        assert_eq!(q.peek(), None);
        assert_eq!(q.pop().map(|e| e.1), Some('d'));
    }

    #[test]
    fn lane_ahead_looks_down_the_lane_just_popped() {
        let mut q = EventQueue::new();
        let lane = q.add_lane();
        for (t, e) in [(10, 1u32), (20, 2), (30, 3), (40, 4)] {
            q.schedule_in(lane, Timestamp::from_micros(t), e);
        }
        q.schedule(Timestamp::from_micros(25), 99);
        assert_eq!(q.lane_ahead(0), None); // nothing popped yet
        assert_eq!(q.pop(), Some((Timestamp::from_micros(10), 1)));
        assert_eq!(q.lane_ahead(0), Some(&2));
        assert_eq!(q.lane_ahead(2), Some(&4));
        assert_eq!(q.lane_ahead(3), None);
        q.pop();
        // The wheel's event: no lane.
        assert_eq!(q.pop(), Some((Timestamp::from_micros(25), 99)));
        assert_eq!(q.lane_ahead(0), None);
    }

    #[test]
    fn sorted_reference_agrees_on_a_fixed_case() {
        let events = [
            (5u64, 0u32),
            (1 << 40, 1),
            (5, 2),
            (70, 3),
            (4096 * 64 + 1, 4),
            (0, 5),
        ];
        let mut q = EventQueue::new();
        for &(t, e) in &events {
            q.schedule(Timestamp::from_micros(t), e);
        }
        let popped: Vec<(u64, u32)> =
            std::iter::from_fn(|| q.pop().map(|(t, e)| (t.as_micros(), e))).collect();
        assert_eq!(popped, reference(&events));
    }

    #[test]
    fn far_and_maximal_times_pop_last() {
        let mut q = EventQueue::new();
        q.schedule(Timestamp::MAX, 'z');
        q.schedule(Timestamp::from_micros(3_600_000_000), 'y');
        q.schedule(Timestamp::from_micros(1), 'x');
        assert_eq!(q.peek_time(), Some(Timestamp::from_micros(1)));
        assert_eq!(q.pop().map(|e| e.1), Some('x'));
        assert_eq!(q.peek_time(), Some(Timestamp::from_micros(3_600_000_000)));
        assert_eq!(q.pop().map(|e| e.1), Some('y'));
        assert_eq!(q.pop(), Some((Timestamp::MAX, 'z')));
        assert!(q.is_empty());
    }

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

    proptest::proptest! {
        /// `write_le` hashes exactly the bytes `write_bytes` would, for values below,
        /// at and above the `LOW`-byte bound.
        #[test]
        fn write_le_is_write_bytes(start in proptest::prelude::any::<u64>(), v in proptest::prelude::any::<u64>(), shift in 0u32..64) {
            let v = v >> shift;
            let (mut a, mut b) = (Fnv64(start), Fnv64(start));
            a.write_le::<8, 4>(v);
            b.write_bytes(&v.to_le_bytes());
            proptest::prop_assert_eq!(a, b);
            let w = (v & 0xffff_ffff) as u32;
            a.write_le::<4, 2>(u64::from(w));
            b.write_u32(w);
            proptest::prop_assert_eq!(a, b);
            a.write_le::<4, 1>(u64::from(w));
            b.write_u32(w);
            proptest::prop_assert_eq!(a, b);
        }
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
