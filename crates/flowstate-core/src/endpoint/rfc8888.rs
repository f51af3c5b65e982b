//! The receiver of RFC 8888 congestion control feedback ("CCFB", RTPFB FMT 11), which
//! NADA (RFC 8698 section 5.3) and SCReAM (RFC 8298 section 4.1.1) senders read:
//! per RTP packet whether it arrived, its arrival time and its ECN bits, one report
//! every feedback interval.
//!
//! [`CcfbReport`] is the semantic report (RFC 8888 section 3.1: one SSRC's report block
//! with begin_seq, one entry per sequence number, and the Report Timestamp);
//! flowstate-wire's `rtcp::ccfb` is its byte format (the testbed's codec converts).
//! Arrival times are kept exactly here (the wire rounds the arrival time offset to
//! 1/1024 s).
//!
//! Each report covers the sequence numbers from the one after the previous report's
//! last up to the highest received (RFC 8888 section 3.1 lets reports overlap; here
//! they do not, so a packet arriving after the report that covered it stays reported
//! as lost). At most [`MAX_REPORTS`] entries per report (RFC 8888 section 3.1: 16384).

use super::media::RtpPacket;
use super::{Endpoint, Transmit};
use crate::ecn::Ecn;
use crate::playout::{FramePlayout, PlayoutConfig};
use crate::seq_map::SeqMap;
use crate::units::{DataSize, TimeDelta, Timestamp};

/// RFC 8888 section 3.1: num_reports MUST NOT exceed 16384.
pub const MAX_REPORTS: u64 = 16_384;

/// One received packet's entry (R = 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CcfbArrival {
    /// Arrival time (receiver clock).
    pub arrival: Timestamp,
    /// The two ECN bits of the IP header (RFC 3168; 0b11 = CE).
    pub ecn: u8,
}

impl CcfbArrival {
    /// ECN Congestion Experienced.
    pub fn ce(&self) -> bool {
        self.ecn == 0b11
    }
}

/// An RFC 8888 report for one RTP stream.
#[derive(Debug, Clone, PartialEq)]
pub struct CcfbReport {
    /// SSRC of the media stream reported on.
    pub ssrc: u32,
    /// The extended sequence number of the first entry.
    pub begin_seq: u64,
    /// One entry per sequence number from `begin_seq`: `None` = not received (R = 0).
    pub packets: Vec<Option<CcfbArrival>>,
    /// The Report Timestamp (receiver clock): arrival time offsets count back from it.
    pub report_time: Timestamp,
}

impl CcfbReport {
    /// `(sequence number, entry)` for every entry.
    pub fn entries(&self) -> impl Iterator<Item = (u64, Option<CcfbArrival>)> + '_ {
        self.packets
            .iter()
            .enumerate()
            .map(|(i, p)| (self.begin_seq + i as u64, *p))
    }

    /// The size on the wire: IPv4 + UDP (28), the RTCP header and sender SSRC (8), the
    /// report block's SSRC and begin_seq / num_reports (8), 2 bytes per entry padded to
    /// 4, the Report Timestamp (4) (RFC 8888 section 3.1).
    pub fn wire_size(&self) -> DataSize {
        let n = self.packets.len() as u64;
        DataSize::bytes(28 + 8 + 8 + (2 * n).div_ceil(4) * 4 + 4)
    }

    /// The round-trip time the report gives for its newest arrival: `now - send time -
    /// (report time - arrival)` (the time the packet waited at the receiver does not
    /// count; RFC 8888 section 3.1's arrival time offset). `sent` gives a sequence
    /// number's send time (sender clock).
    pub fn rtt(
        &self,
        now: Timestamp,
        sent: impl Fn(u64) -> Option<Timestamp>,
    ) -> Option<TimeDelta> {
        let (seq, a) = self
            .entries()
            .filter_map(|(s, p)| p.map(|p| (s, p)))
            .max_by_key(|(_, p)| p.arrival)?;
        let hold = self.report_time.saturating_since(a.arrival);
        let rtt = now.saturating_since(sent(seq)?) - hold;
        (rtt >= TimeDelta::ZERO).then_some(rtt)
    }
}

/// Receiver configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct CcfbReceiverConfig {
    /// The media stream's SSRC.
    pub ssrc: u32,
    /// How often a report is sent while packets arrive.
    pub interval: TimeDelta,
    /// IPv4 + UDP + RTP + extensions of a media packet (48 B, as the GCC media flows),
    /// for the bytes-received count.
    pub rtp_overhead: DataSize,
    /// The frame playout model that observes the packets ([`crate::playout`]).
    pub playout: PlayoutConfig,
}

/// The receiving side of a NADA or SCReAM media flow: records arrivals and sends an
/// RFC 8888 report every `interval`.
#[derive(Debug, Clone)]
pub struct CcfbReceiver {
    cfg: CcfbReceiverConfig,
    /// Arrivals not yet reported, by sequence number.
    pending: SeqMap<CcfbArrival>,
    /// The first sequence number the next report covers.
    next_begin: Option<u64>,
    next_report: Option<Timestamp>,
    out: Option<Transmit<CcfbReport>>,
    bytes_received: u64,
    packets_received: u64,
    reports_sent: u64,
    ce_marks: u64,
    /// The frames as the receiving application sees them (an observer).
    playout: FramePlayout,
}

impl CcfbReceiver {
    pub fn new(cfg: CcfbReceiverConfig) -> Self {
        CcfbReceiver {
            playout: FramePlayout::new(cfg.playout),
            cfg,
            pending: SeqMap::new(),
            next_begin: None,
            next_report: None,
            out: None,
            bytes_received: 0,
            packets_received: 0,
            reports_sent: 0,
            ce_marks: 0,
        }
    }
    /// Packets that arrived CE-marked.
    pub fn ce_marks(&self) -> u64 {
        self.ce_marks
    }
    pub fn bytes_received(&self) -> u64 {
        self.bytes_received
    }
    pub fn packets_received(&self) -> u64 {
        self.packets_received
    }
    pub fn reports_sent(&self) -> u64 {
        self.reports_sent
    }
    /// The frame playout model.
    pub fn playout(&self) -> &FramePlayout {
        &self.playout
    }
    /// Time reached `now`: render the frames due (for the end of a run).
    pub fn advance_playout(&mut self, now: Timestamp) {
        self.playout.advance(now);
    }

    /// The report of everything received since the previous one, if anything was.
    fn make_report(&mut self, now: Timestamp) -> Option<CcfbReport> {
        let (end, _) = self.pending.last()?;
        let (first, _) = self.pending.first()?;
        let begin = self
            .next_begin
            .unwrap_or(first)
            .max(end.saturating_sub(MAX_REPORTS - 1));
        let packets = (begin..=end)
            .map(|s| self.pending.get(s).copied())
            .collect();
        self.pending.clear();
        self.next_begin = Some(end + 1);
        Some(CcfbReport {
            ssrc: self.cfg.ssrc,
            begin_seq: begin,
            packets,
            report_time: now,
        })
    }
}

impl Endpoint for CcfbReceiver {
    type Outgoing = CcfbReport;
    type Incoming = RtpPacket;

    fn handle_input(&mut self, now: Timestamp, p: RtpPacket) {
        self.handle_input_ecn(now, p, Ecn::NotEct);
    }

    /// RFC 8888 section 3.1: each report block entry carries the ECN bits the packet
    /// arrived with.
    fn handle_input_ecn(&mut self, now: Timestamp, p: RtpPacket, ecn: Ecn) {
        if ecn.is_ce() {
            self.ce_marks += 1;
        }
        self.bytes_received += (p.payload_size + self.cfg.rtp_overhead).as_bytes();
        self.packets_received += 1;
        self.playout.on_packet(now, &p, false);
        // A packet already covered by a report (it came after its gap was reported) is
        // not reported again.
        if self.next_begin.is_some_and(|b| p.sequence_number < b) {
            return;
        }
        self.pending.insert(
            p.sequence_number,
            CcfbArrival {
                arrival: now,
                ecn: ecn.bits(),
            },
        );
        self.next_report.get_or_insert(now + self.cfg.interval);
    }

    fn poll_transmit(&mut self, _now: Timestamp) -> Option<Transmit<CcfbReport>> {
        self.out.take()
    }

    fn poll_timeout(&self) -> Option<Timestamp> {
        self.next_report
    }

    fn handle_timeout(&mut self, now: Timestamp) {
        if self.next_report.is_some_and(|t| now >= t) {
            self.next_report = None;
            if let Some(r) = self.make_report(now) {
                self.reports_sent += 1;
                self.out = Some(Transmit {
                    size: r.wire_size(),
                    message: r,
                });
                self.next_report = Some(now + self.cfg.interval);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rtp(seq: u64) -> RtpPacket {
        RtpPacket {
            ssrc: 1,
            sequence_number: seq,
            transport_seq: seq,
            send_time: Timestamp::ZERO,
            payload_size: DataSize::bytes(952),
            frame_id: 0,
            frame_capture_time: Timestamp::ZERO,
            frame_packet_index: 0,
            frame_packet_count: 1,
            keyframe: false,
        }
    }

    fn receiver() -> CcfbReceiver {
        CcfbReceiver::new(CcfbReceiverConfig {
            ssrc: 1,
            interval: TimeDelta::millis(100),
            rtp_overhead: DataSize::bytes(48),
            playout: PlayoutConfig::default(),
        })
    }

    fn report(r: &mut CcfbReceiver, ms: u64) -> CcfbReport {
        let t = Timestamp::from_millis(ms);
        assert_eq!(r.poll_timeout(), Some(t));
        r.handle_timeout(t);
        r.poll_transmit(t).expect("a report").message
    }

    #[test]
    fn reports_cover_consecutive_ranges_with_gaps_as_lost() {
        let mut r = receiver();
        assert_eq!(r.poll_timeout(), None);
        for (seq, ms) in [(0, 10), (1, 20), (3, 30)] {
            r.handle_input(Timestamp::from_millis(ms), rtp(seq));
        }
        let a = report(&mut r, 110);
        assert_eq!(a.begin_seq, 0);
        let got: Vec<_> = a.packets.iter().map(|p| p.map(|p| p.arrival)).collect();
        assert_eq!(
            got,
            [
                Some(Timestamp::from_millis(10)),
                Some(Timestamp::from_millis(20)),
                None,
                Some(Timestamp::from_millis(30))
            ]
        );
        // 28 + 8 + 8 + 8 (four entries) + 4.
        assert_eq!(a.wire_size(), DataSize::bytes(56));
        // Seq 2 arrives late: already reported lost, not reported again.
        r.handle_input(Timestamp::from_millis(120), rtp(2));
        r.handle_input(Timestamp::from_millis(130), rtp(4));
        let b = report(&mut r, 210);
        assert_eq!(b.begin_seq, 4);
        assert_eq!(b.packets.len(), 1);
        // Nothing arrived: no report, no timer.
        r.handle_timeout(Timestamp::from_millis(310));
        assert_eq!(r.poll_transmit(Timestamp::from_millis(310)), None);
        assert_eq!(r.poll_timeout(), None);
        assert_eq!(r.packets_received(), 5);
        assert_eq!(r.bytes_received(), 5 * 1000);
    }

    #[test]
    fn rtt_excludes_the_time_held_at_the_receiver() {
        let rep = CcfbReport {
            ssrc: 1,
            begin_seq: 7,
            packets: vec![
                Some(CcfbArrival {
                    arrival: Timestamp::from_millis(40),
                    ecn: 0,
                }),
                Some(CcfbArrival {
                    arrival: Timestamp::from_millis(60),
                    ecn: 3,
                }),
            ],
            report_time: Timestamp::from_millis(100),
        };
        assert!(rep.packets[1].is_some_and(|p| p.ce()));
        // Seq 8 sent at 30 ms, arrived 60, reported at 100 (held 40), report back at 125.
        let rtt = rep.rtt(Timestamp::from_millis(125), |s| {
            (s == 8).then_some(Timestamp::from_millis(30))
        });
        assert_eq!(rtt, Some(TimeDelta::millis(55)));
    }
}
