//! What an SCTP sender learns from SACKs (RFC 9260 6.2.1: cumulative and gap acks,
//! the peer's window; 7.2.4: miss indications and fast retransmit) and from the T3-rtx
//! timer's expiry (6.3.3), and the window reports they cause.

use super::chunk::Sack;
use super::sender::SctpSender;
use crate::units::{DataSize, Timestamp};
use crate::window::{AckEvent, WindowController};

impl SctpSender {
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

    pub(super) fn on_sack(&mut self, now: Timestamp, sack: Sack) {
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

    pub(super) fn on_t3_expiry(&mut self, now: Timestamp) {
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
