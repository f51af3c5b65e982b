//! TFRC receiver loss history (RFC 5348, section 5): detect lost packets from
//! sequence-number gaps, group them into loss events, keep the most recent loss
//! intervals and compute the loss event rate `p` from their weighted average.
//!
//! - 5.1: a packet is lost once `ndupack` (3) packets with higher sequence numbers
//!   have arrived.
//! - 5.2: a lost packet's nominal arrival time is interpolated between the arrivals of
//!   the packets around the gap; it starts a new loss event if that time is more than
//!   one RTT after the start of the current loss event, otherwise it belongs to it.
//! - 5.3: a closed loss interval is the number of packets from the start of one loss
//!   event to the start of the next; the open interval `I_0` counts the packets from
//!   the start of the most recent loss event to the highest sequence number received.
//! - 5.4: `I_mean` is the weighted average of the last `n` (8) intervals with weights
//!   1,1,1,1,0.8,0.6,0.4,0.2, taking `I_0` into account only if it raises the mean;
//!   `p = 1 / I_mean`.
//! - 5.1 / 5.2 with ECN: a packet that arrived CE-marked counts as a marked packet:
//!   it starts a new loss event at its arrival time, in sequence order with the
//!   losses, exactly as a lost one would ([`LossHistory::on_packet_ecn`]).
//! - 5.5 (history discounting) is implemented as the option
//!   [`LossHistoryConfig::history_discounting`] (off by default; the RFC says MAY).

use crate::seq_map::SeqMap;
use crate::units::{TimeDelta, Timestamp};
use smallvec::SmallVec;
use std::collections::VecDeque;

/// The closed intervals (or their discount factors) one loss event rate is computed
/// from: RFC 5348's n = 8 of them sit on the stack (no allocation per feedback).
type Intervals = SmallVec<[f64; 16]>;

/// Constants of the loss history. All values are RFC 5348's.
#[derive(Debug, Clone, PartialEq)]
pub struct LossHistoryConfig {
    /// Packets that must arrive after a missing one before it is counted lost
    /// (RFC 5348, 5.1: NDUPACK = 3).
    pub ndupack: u64,
    /// Number of closed loss intervals averaged (RFC 5348, 5.4: n = 8).
    pub n_intervals: usize,
    /// Most loss events a single sequence gap may open. A gap's lost packets are
    /// grouped into events arithmetically; this bounds the work for absurd gaps (a
    /// corrupt or hostile sequence number). Not in the RFC; has no effect for gaps of
    /// fewer than `max_events_per_gap` RTTs of packets.
    pub max_events_per_gap: usize,
    /// RFC 5348, 5.5 history discounting (a MAY): when the open interval exceeds twice
    /// the average, older intervals are discounted. Off by default.
    pub history_discounting: bool,
}

impl Default for LossHistoryConfig {
    fn default() -> Self {
        LossHistoryConfig {
            ndupack: 3,
            n_intervals: 8,
            max_events_per_gap: 64,
            history_discounting: false,
        }
    }
}

/// What one arriving packet changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LossUpdate {
    /// At least one new loss event started (RFC 5348, 6.1: send feedback now).
    pub new_loss_event: bool,
    /// The very first loss event started: the caller should seed the history with
    /// [`LossHistory::seed_first_interval`] (RFC 5348, 6.3.1).
    pub first_loss_event: bool,
    /// Packets newly counted lost.
    pub lost_packets: u64,
    /// Loss events newly started by a CE-marked packet (RFC 5348, 5.2).
    pub marked_events: u64,
}

/// RFC 5348, 5.4 weights: `w_i = 1` for `i < n/2`, else `1 - (i - (n/2 - 1)) / (n/2 + 1)`.
pub fn interval_weight(i: usize, n: usize) -> f64 {
    let half = n / 2;
    if i < half {
        1.0
    } else {
        let w = 1.0 - (i as f64 - (half as f64 - 1.0)) / (half as f64 + 1.0);
        w.max(0.0)
    }
}

/// The weighted average loss interval (RFC 5348, 5.4). `open` is `I_0`; `closed[0]` is
/// `I_1` (the most recent closed interval), up to `n` of them. Returns `None` when there
/// is no interval at all. `discount[i]` (history discounting, 5.5) multiplies the
/// weight of closed interval `i` (`I_(i+1)`); pass an empty slice for none.
pub fn average_interval(open: f64, closed: &[f64], n: usize, discount: &[f64]) -> Option<f64> {
    let k = closed.len().min(n);
    if k == 0 {
        return if open > 0.0 { Some(open) } else { None };
    }
    let df = |i: usize| -> f64 { discount.get(i).copied().unwrap_or(1.0) };
    // I_tot0 = sum_{i=0}^{k-1} I_i * w_i, I_tot1 = sum_{i=1}^{k} I_i * w_(i-1),
    // where I_0 = open and I_i = closed[i-1]. With discounting (5.5), weights for the
    // closed intervals are w_i * DF_i and I_0 keeps DF = 1 in I_tot0.
    let mut i_tot0 = open * interval_weight(0, n);
    let mut w_tot0 = interval_weight(0, n);
    for i in 1..k {
        let w = interval_weight(i, n) * df(i - 1);
        i_tot0 += closed.get(i - 1).copied().unwrap_or(0.0) * w;
        w_tot0 += w;
    }
    let mut i_tot1 = 0.0;
    let mut w_tot1 = 0.0;
    for i in 1..=k {
        let w = interval_weight(i - 1, n) * df(i - 1);
        i_tot1 += closed.get(i - 1).copied().unwrap_or(0.0) * w;
        w_tot1 += w;
    }
    let m0 = if w_tot0 > 0.0 { i_tot0 / w_tot0 } else { 0.0 };
    let m1 = if w_tot1 > 0.0 { i_tot1 / w_tot1 } else { 0.0 };
    let m = m0.max(m1);
    if m > 0.0 && m.is_finite() {
        Some(m)
    } else {
        None
    }
}

#[derive(Debug, Clone, Copy)]
struct EventStart {
    seq: u64,
    time_us: f64,
}

/// The receiver's loss history.
#[derive(Debug, Clone)]
pub struct LossHistory {
    cfg: LossHistoryConfig,
    /// Lowest sequence number not yet classified as received or lost.
    next_check: Option<u64>,
    /// The last packet classified as received (below `next_check`): `(seq, arrival)`.
    before: Option<(u64, Timestamp)>,
    /// Packets received above the first hole, not yet classified (at most `ndupack`):
    /// arrival time and whether the packet was CE-marked.
    pending: SeqMap<(Timestamp, bool)>,
    highest_seq: Option<u64>,
    current_event: Option<EventStart>,
    /// Closed intervals, most recent first (`closed[0]` = I_1).
    closed: VecDeque<f64>,
    /// History discounting factors per closed interval (5.5), same order as `closed`.
    discount: VecDeque<f64>,
    events: u64,
    lost: u64,
    marked: u64,
    seeded: bool,
}

impl LossHistory {
    pub fn new(cfg: LossHistoryConfig) -> Self {
        LossHistory {
            cfg,
            next_check: None,
            before: None,
            pending: SeqMap::new(),
            highest_seq: None,
            current_event: None,
            closed: VecDeque::new(),
            discount: VecDeque::new(),
            events: 0,
            lost: 0,
            marked: 0,
            seeded: false,
        }
    }

    pub fn config(&self) -> &LossHistoryConfig {
        &self.cfg
    }

    /// Number of loss events so far.
    pub fn loss_events(&self) -> u64 {
        self.events
    }

    /// Number of packets counted lost so far.
    pub fn lost_packets(&self) -> u64 {
        self.lost
    }

    /// Number of CE-marked packets classified so far.
    pub fn marked_packets(&self) -> u64 {
        self.marked
    }

    pub fn highest_seq(&self) -> Option<u64> {
        self.highest_seq
    }

    /// Closed loss intervals, most recent first.
    pub fn closed_intervals(&self) -> impl Iterator<Item = f64> + '_ {
        self.closed.iter().copied()
    }

    /// The open interval `I_0` (RFC 5348, 5.3), if a loss event has happened.
    pub fn open_interval(&self) -> Option<f64> {
        let ev = self.current_event?;
        let hi = self.highest_seq?;
        Some(hi.saturating_sub(ev.seq).saturating_add(1) as f64)
    }

    /// Set the interval before the first loss event (RFC 5348, 6.3.1: 1/p for the p
    /// that makes the equation give the receive rate). Ignored before the first loss
    /// event and after the first call. The value becomes the oldest interval (one long
    /// gap may open several events at once); non-finite or < 1 values are clamped to 1.
    pub fn seed_first_interval(&mut self, interval: f64) {
        if self.events >= 1 && !self.seeded {
            self.seeded = true;
            let v = if interval.is_finite() {
                interval.max(1.0)
            } else {
                1.0
            };
            if self.closed.len() < self.cfg.n_intervals.max(1) {
                self.closed.push_back(v);
                self.discount.push_back(1.0);
            }
        }
    }

    /// The loss event rate `p = 1 / I_mean` (RFC 5348, 5.4); 0 before any loss event.
    pub fn loss_event_rate(&self) -> f64 {
        let Some(open) = self.open_interval() else {
            return 0.0;
        };
        let n = self.cfg.n_intervals.max(1);
        let closed: Intervals = self.closed.iter().copied().take(n).collect();
        let discount: Intervals = if self.cfg.history_discounting {
            self.discount_factors(open, &closed, n)
        } else {
            Intervals::new()
        };
        match average_interval(open, &closed, n, &discount) {
            Some(m) if m > 0.0 => (1.0 / m).min(1.0),
            _ => 0.0,
        }
    }

    /// RFC 5348, 5.5: when I_0 > 2 * I_mean (of the closed intervals), the closed
    /// intervals are discounted by DF = max(0.5, 2 * I_mean / I_0) on top of the factors
    /// they already carry.
    fn discount_factors(&self, open: f64, closed: &[f64], n: usize) -> Intervals {
        let stored: Intervals = self.discount.iter().copied().take(closed.len()).collect();
        let mean_closed = average_interval(0.0, closed, n, &stored).unwrap_or(0.0);
        if mean_closed > 0.0 && open > 2.0 * mean_closed {
            let df = (2.0 * mean_closed / open).max(0.5);
            stored.iter().map(|d| d * df).collect()
        } else {
            stored
        }
    }

    /// A data packet `seq` arrived at `now`; `rtt` is the receiver's RTT estimate
    /// (RFC 5348, 5.2 groups losses within one RTT into one event).
    pub fn on_packet(&mut self, seq: u64, now: Timestamp, rtt: TimeDelta) -> LossUpdate {
        self.on_packet_ecn(seq, now, rtt, false)
    }

    /// [`LossHistory::on_packet`] for a packet that arrived CE-marked (`ce`) or not.
    /// RFC 5348, 5.1: "lost or marked" packets make loss events; a marked packet's time
    /// is its arrival, and it is taken in sequence order once the packets below it are
    /// classified, so a mark and a loss within one RTT are one loss event (5.2).
    pub fn on_packet_ecn(
        &mut self,
        seq: u64,
        now: Timestamp,
        rtt: TimeDelta,
        ce: bool,
    ) -> LossUpdate {
        let mut upd = LossUpdate::default();
        let next = match self.next_check {
            None => {
                self.next_check = Some(seq);
                seq
            }
            Some(n) => n,
        };
        if seq < next || self.pending.contains_key(seq) {
            return upd; // duplicate, or a late packet already counted lost
        }
        self.highest_seq = Some(self.highest_seq.map_or(seq, |h| h.max(seq)));
        if seq == next && self.pending.is_empty() {
            // The next packet with nothing held above it (the common case): classified
            // received at once, as `classify` would after a trip through `pending`.
            self.before = Some((seq, now));
            self.next_check = seq.checked_add(1);
            if ce {
                self.on_marked(seq, now, rtt, &mut upd);
            }
            return upd;
        }
        self.pending.insert(seq, (now, ce));
        self.classify(rtt, &mut upd);
        upd
    }

    fn classify(&mut self, rtt: TimeDelta, upd: &mut LossUpdate) {
        let ndupack = self.cfg.ndupack.max(1);
        // Each iteration either consumes a received packet or a whole gap, so the loop
        // runs at most `pending.len()` * 2 times.
        while let Some(next) = self.next_check {
            let Some((first_seq, &(first_time, ce))) = self.pending.first() else {
                break;
            };
            if first_seq == next {
                self.pending.pop_first();
                self.before = Some((first_seq, first_time));
                self.next_check = first_seq.checked_add(1);
                if ce {
                    self.on_marked(first_seq, first_time, rtt, upd);
                }
                continue;
            }
            // A hole [next, first_seq): lost once ndupack packets arrived above it.
            if (self.pending.len() as u64) < ndupack {
                break;
            }
            self.on_gap_lost(next, first_seq, first_time, rtt, upd);
            self.next_check = Some(first_seq);
        }
    }

    /// Packets `a..b` are lost; `b` arrived at `t_after`.
    fn on_gap_lost(
        &mut self,
        a: u64,
        b: u64,
        t_after: Timestamp,
        rtt: TimeDelta,
        upd: &mut LossUpdate,
    ) {
        let count = b.saturating_sub(a);
        self.lost = self.lost.saturating_add(count);
        upd.lost_packets = upd.lost_packets.saturating_add(count);
        let t_after_us = t_after.as_micros() as f64;
        let (s_before, t_before_us) = match self.before {
            Some((s, t)) => (s as f64, t.as_micros() as f64),
            None => (a as f64 - 1.0, t_after_us),
        };
        let span = b as f64 - s_before;
        // T_loss = T_before + (T_after - T_before) * (S_loss - S_before) / (S_after - S_before)
        let slope = if span > 0.0 {
            (t_after_us - t_before_us) / span
        } else {
            0.0
        };
        let interp = |s: u64| t_before_us + slope * (s as f64 - s_before);
        let r_us = rtt.as_micros().max(0) as f64;
        let mut s = a;
        for _ in 0..self.cfg.max_events_per_gap.max(1) {
            if s >= b {
                break;
            }
            let t = interp(s);
            let starts_new = match self.current_event {
                None => true,
                Some(ev) => t - ev.time_us > r_us,
            };
            if starts_new {
                self.start_event(s, t, upd);
            }
            // Jump to the first lost packet that could open the next event.
            let Some(ev) = self.current_event else { break };
            if slope <= 0.0 || !slope.is_finite() {
                break;
            }
            let steps = ((ev.time_us + r_us - t_before_us) / slope).floor();
            let cand = if steps.is_finite() && steps >= 0.0 {
                (s_before + steps + 1.0).min(u64::MAX as f64) as u64
            } else {
                s.saturating_add(1)
            };
            s = cand.max(s.saturating_add(1));
        }
    }

    /// A CE-marked packet `seq` that arrived at `at`: it opens a new loss event when
    /// it arrived more than one RTT after the current event's start (RFC 5348, 5.2).
    fn on_marked(&mut self, seq: u64, at: Timestamp, rtt: TimeDelta, upd: &mut LossUpdate) {
        self.marked = self.marked.saturating_add(1);
        let t = at.as_micros() as f64;
        let r_us = rtt.as_micros().max(0) as f64;
        let starts_new = self.current_event.map_or(true, |ev| t - ev.time_us > r_us);
        if starts_new {
            self.start_event(seq, t, upd);
            upd.marked_events += 1;
        }
    }

    fn start_event(&mut self, seq: u64, time_us: f64, upd: &mut LossUpdate) {
        if let Some(prev) = self.current_event {
            let len = seq.saturating_sub(prev.seq).max(1) as f64;
            self.closed.push_front(len);
            self.discount.push_front(1.0);
            let n = self.cfg.n_intervals.max(1);
            self.closed.truncate(n);
            self.discount.truncate(n);
        } else {
            upd.first_loss_event = true;
        }
        self.current_event = Some(EventStart { seq, time_us });
        self.events = self.events.saturating_add(1);
        upd.new_loss_event = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn t(ms: u64) -> Timestamp {
        Timestamp::from_millis(ms)
    }

    #[test]
    fn weights_match_rfc() {
        let w: Vec<f64> = (0..8).map(|i| interval_weight(i, 8)).collect();
        let expect = [1.0, 1.0, 1.0, 1.0, 0.8, 0.6, 0.4, 0.2];
        for (a, b) in w.iter().zip(expect.iter()) {
            assert!((a - b).abs() < 1e-12, "{w:?}");
        }
    }

    #[test]
    fn averaging_worked_example_full_history() {
        // Closed intervals I_1..I_8 = 100, 200, 100, 200, 100, 200, 100, 200; I_0 = 50.
        // W_tot = 1+1+1+1+0.8+0.6+0.4+0.2 = 6.0
        // I_tot0 = 50*1 + 100*1 + 200*1 + 100*1 + 200*0.8 + 100*0.6 + 200*0.4 + 100*0.2
        //        = 50 + 100 + 200 + 100 + 160 + 60 + 80 + 20 = 770 -> 770/6 = 128.33
        // I_tot1 = 100*1 + 200*1 + 100*1 + 200*1 + 100*0.8 + 200*0.6 + 100*0.4 + 200*0.2
        //        = 600 + 80 + 120 + 40 + 40 = 880 -> 880/6 = 146.67
        // I_mean = max = 146.67, p = 6/880 = 0.0068182
        let closed = [100.0, 200.0, 100.0, 200.0, 100.0, 200.0, 100.0, 200.0];
        let m = average_interval(50.0, &closed, 8, &[]).unwrap();
        assert!((m - 880.0 / 6.0).abs() < 1e-9, "m = {m}");
        // A long open interval (I_0 = 1000) raises the mean through I_tot0:
        // I_tot0 = 1000 + 720 (= 770 - 50) = 1720 -> 286.67 > 146.67
        let m = average_interval(1000.0, &closed, 8, &[]).unwrap();
        assert!((m - 1720.0 / 6.0).abs() < 1e-9, "m = {m}");
    }

    #[test]
    fn averaging_with_fewer_than_n_intervals() {
        // k = 2 closed intervals: I_1 = 10, I_2 = 30, I_0 = 4.
        // I_tot0 = 4*w0 + 10*w1 = 14, W_tot = 2 -> 7
        // I_tot1 = 10*w0 + 30*w1 = 40 -> 20.  I_mean = 20.
        let m = average_interval(4.0, &[10.0, 30.0], 8, &[]).unwrap();
        assert!((m - 20.0).abs() < 1e-12);
    }

    #[test]
    fn detects_loss_after_three_later_packets() {
        let mut h = LossHistory::new(LossHistoryConfig::default());
        let r = TimeDelta::millis(100);
        for s in 0..10 {
            assert!(!h.on_packet(s, t(s), r).new_loss_event);
        }
        // 10 missing.
        assert!(!h.on_packet(11, t(11), r).new_loss_event);
        assert!(!h.on_packet(12, t(12), r).new_loss_event);
        let u = h.on_packet(13, t(13), r);
        assert!(u.new_loss_event && u.first_loss_event);
        assert_eq!(u.lost_packets, 1);
        // Before seeding, I_mean = I_0 = 13 - 10 + 1 = 4.
        assert!((h.loss_event_rate() - 0.25).abs() < 1e-12);
        h.seed_first_interval(100.0);
        // I_tot0 = 4 (w_tot 1) ; I_tot1 = 100 -> p = 0.01
        assert!((h.loss_event_rate() - 0.01).abs() < 1e-12);
    }

    #[test]
    fn reordering_within_ndupack_is_not_loss() {
        let mut h = LossHistory::new(LossHistoryConfig::default());
        let r = TimeDelta::millis(100);
        for &s in &[0u64, 1, 3, 4, 2, 5, 6, 7] {
            assert!(!h.on_packet(s, t(s), r).new_loss_event);
        }
        assert_eq!(h.lost_packets(), 0);
        assert_eq!(h.loss_event_rate(), 0.0);
    }

    #[test]
    fn losses_within_one_rtt_are_one_event() {
        // One packet per ms, RTT 100 ms: losses at 10 and 50 are one event, at 200 a new one.
        let mut h = LossHistory::new(LossHistoryConfig::default());
        let r = TimeDelta::millis(100);
        for s in 0..400u64 {
            if s == 10 || s == 50 || s == 200 {
                continue;
            }
            h.on_packet(s, t(s), r);
        }
        assert_eq!(h.lost_packets(), 3);
        assert_eq!(h.loss_events(), 2);
        let closed: Vec<f64> = h.closed_intervals().collect();
        assert_eq!(closed, vec![190.0]); // 200 - 10
        assert_eq!(h.open_interval(), Some(200.0)); // 399 - 200 + 1
    }

    #[test]
    fn one_long_gap_spanning_rtts_opens_several_events() {
        // Packets 0..9 at 1 ms spacing, then 10..=309 lost, 310.. arrive at t = 310 ms.
        // Interpolated loss times are 10..309 ms; with R = 100 ms events start at seq
        // 10 (t=10), 111 (t=111 > 110), 212 (t=212 > 211).
        let mut h = LossHistory::new(LossHistoryConfig::default());
        let r = TimeDelta::millis(100);
        for s in 0..10u64 {
            h.on_packet(s, t(s), r);
        }
        for s in 310..320u64 {
            h.on_packet(s, t(s), r);
        }
        assert_eq!(h.loss_events(), 3);
        let closed: Vec<f64> = h.closed_intervals().collect();
        assert_eq!(closed, vec![101.0, 101.0]);
        // the seed becomes the oldest interval, once
        h.seed_first_interval(1000.0);
        let closed: Vec<f64> = h.closed_intervals().collect();
        assert_eq!(closed, vec![101.0, 101.0, 1000.0]);
        h.seed_first_interval(5.0);
        assert_eq!(h.closed_intervals().count(), 3);
    }

    #[test]
    fn huge_sequence_jump_is_bounded() {
        let mut h = LossHistory::new(LossHistoryConfig::default());
        let r = TimeDelta::millis(1);
        h.on_packet(0, t(0), r);
        for s in [u64::MAX - 3, u64::MAX - 2, u64::MAX - 1, u64::MAX] {
            h.on_packet(s, t(1_000_000), r);
        }
        let p = h.loss_event_rate();
        assert!(p.is_finite() && (0.0..=1.0).contains(&p));
        assert!(h.loss_events() <= 64);
    }

    #[test]
    fn discounting_lowers_p_after_long_loss_free_period() {
        let mk = |disc: bool| {
            let mut h = LossHistory::new(LossHistoryConfig {
                history_discounting: disc,
                ..LossHistoryConfig::default()
            });
            let r = TimeDelta::millis(1);
            let mut s = 0u64;
            // eight loss events 20 packets apart, then 2000 loss-free packets
            for _ in 0..9 {
                for _ in 0..19 {
                    h.on_packet(s, t(s), r);
                    s += 1;
                }
                s += 1; // lost
            }
            for _ in 0..2000 {
                h.on_packet(s, t(s), r);
                s += 1;
            }
            h.loss_event_rate()
        };
        let plain = mk(false);
        let disc = mk(true);
        assert!(plain > 0.0 && disc > 0.0);
        assert!(disc < plain, "discounted {disc} vs plain {plain}");
    }

    /// `on_packet` without its in-order fast path: every packet goes through
    /// `pending` and `classify` (the code before the fast path).
    fn on_packet_via_pending(
        h: &mut LossHistory,
        seq: u64,
        now: Timestamp,
        rtt: TimeDelta,
    ) -> LossUpdate {
        let mut upd = LossUpdate::default();
        let next = *h.next_check.get_or_insert(seq);
        if seq < next || h.pending.contains_key(seq) {
            return upd;
        }
        h.pending.insert(seq, (now, false));
        h.highest_seq = Some(h.highest_seq.map_or(seq, |x| x.max(seq)));
        h.classify(rtt, &mut upd);
        upd
    }

    proptest! {
        /// The in-order fast path changes nothing: the same updates, losses, events,
        /// intervals and loss event rate as classifying every packet through `pending`,
        /// on arrivals that are mostly in order with losses, reordering and duplicates.
        #[test]
        fn fast_path_is_the_pending_path(
            steps in proptest::collection::vec((0u8..10, 1u64..30), 0..400),
            rtt_ms in 1i64..300,
        ) {
            let mut fast = LossHistory::new(LossHistoryConfig::default());
            let mut slow = LossHistory::new(LossHistoryConfig::default());
            let (mut seq, mut now) = (0u64, 0u64);
            for (kind, gap) in steps {
                now += gap;
                let s = match kind {
                    0 => { seq += 1 + gap % 4; seq }          // a loss (or several)
                    1 => seq.saturating_sub(gap % 5),         // late or duplicate
                    _ => { seq += 1; seq }                    // in order
                };
                let (t, r) = (Timestamp::from_millis(now), TimeDelta::millis(rtt_ms));
                let a = fast.on_packet(s, t, r);
                let b = on_packet_via_pending(&mut slow, s, t, r);
                prop_assert_eq!(a, b);
                if a.first_loss_event {
                    fast.seed_first_interval(8.0);
                    slow.seed_first_interval(8.0);
                }
                prop_assert_eq!(fast.lost_packets(), slow.lost_packets());
                prop_assert_eq!(fast.loss_events(), slow.loss_events());
                prop_assert_eq!(fast.highest_seq(), slow.highest_seq());
                prop_assert_eq!(fast.loss_event_rate().to_bits(), slow.loss_event_rate().to_bits());
                prop_assert!(fast.closed_intervals().eq(slow.closed_intervals()));
            }
        }

        #[test]
        fn random_arrivals_give_valid_p(
            seqs in proptest::collection::vec(0u64..500, 0..300),
            gaps in proptest::collection::vec(0u64..50, 0..300),
            rtt_ms in 0i64..500,
            disc in any::<bool>(),
            seed in 1.0f64..1e6,
        ) {
            let mut h = LossHistory::new(LossHistoryConfig { history_discounting: disc, ..Default::default() });
            let mut now = 0u64;
            for (i, s) in seqs.iter().enumerate() {
                now += gaps.get(i).copied().unwrap_or(1);
                let u = h.on_packet(*s, Timestamp::from_millis(now), TimeDelta::millis(rtt_ms));
                if u.first_loss_event {
                    h.seed_first_interval(seed);
                }
                let p = h.loss_event_rate();
                prop_assert!(p.is_finite());
                prop_assert!((0.0..=1.0).contains(&p));
            }
        }
    }
}
