//! RTP Control Protocol (RTCP) Feedback for Congestion Control, RFC 8888 section 3.1
//! (RTPFB, PT=205, FMT=11): per-packet reception, arrival time and ECN, the feedback
//! NADA (RFC 8698 section 5.3) and SCReAM (RFC 8298 section 4.1.1 / rfc8298bis) use.
//!
//! ```text
//! |V=2|P| FMT=11  |   PT = 205    |          length               |
//! |                 SSRC of RTCP packet sender                    |
//! |                   SSRC of 1st RTP Stream                      |
//! |          begin_seq            |          num_reports          |
//! |R|ECN|  Arrival time offset    | ...                           .
//! .                                                               .
//! |                   SSRC of nth RTP Stream                      |
//! |          begin_seq            |          num_reports          |
//! |R|ECN|  Arrival time offset    | ...                           |
//! |                 Report Timestamp (32 bits)                    |
//! ```
//!
//! Each metric block is 16 bits: R (received), ECN (the two ECN bits of the IP header,
//! RFC 3168), ATO (arrival time offset before the Report Timestamp, 13 bits in 1/1024 s).
//! A block with an odd number of reports is padded with 16 zero bits. The Report
//! Timestamp is the middle 32 bits of an NTP timestamp (16.16 seconds).
//!
//! Parsing keeps every field as it is on the wire (also R = 0 with non-zero ECN / ATO,
//! which section 3.1 says a sender MUST set to zero), so parse/emit is exact; a report
//! block's padding is not kept (emit writes zeros).

use crate::cursor::{Reader, Writer};
use crate::WireError;

/// RFC 8888 section 3.1: RTPFB FMT for congestion control feedback.
pub const FMT_CCFB: u8 = 11;
/// RFC 8888 section 3.1: num_reports MUST NOT exceed 16384.
pub const MAX_REPORTS_PER_STREAM: usize = 16_384;
/// Largest arrival time offset value (13 bits).
pub const ATO_MAX: u16 = 0x1FFF;
/// RFC 8888 section 3.1: ATO 0x1FFF means the arrival time is unavailable.
pub const ATO_UNAVAILABLE: u16 = 0x1FFF;
/// RFC 8888 section 3.1: ATO 0x1FFE means the offset is this value or larger.
pub const ATO_OVERRANGE: u16 = 0x1FFE;
/// ATO unit: 1/1024 s, in microseconds (exactly 976.5625 us).
pub const ATO_UNIT_US: f64 = 1e6 / 1024.0;

/// ECN codepoints (RFC 3168 section 5).
pub mod ecn {
    pub const NOT_ECT: u8 = 0b00;
    pub const ECT1: u8 = 0b01;
    pub const ECT0: u8 = 0b10;
    pub const CE: u8 = 0b11;
}

/// One 16-bit metric block: `R | ECN(2) | ATO(13)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MetricBlock {
    /// R: the packet was received.
    pub received: bool,
    /// The ECN bits, 0..=3.
    pub ecn: u8,
    /// Arrival time offset, 0..=0x1FFF, in 1/1024 s before the Report Timestamp.
    pub arrival_time_offset: u16,
}

impl MetricBlock {
    /// A received packet, `offset_us` microseconds before the report timestamp
    /// (rounded to 1/1024 s; offsets of 0x1FFE units or more give 0x1FFE, negative
    /// ones 0).
    pub fn received(ecn: u8, offset_us: i64) -> Self {
        let units = (offset_us.max(0) as f64 / ATO_UNIT_US).round();
        let ato = if units >= f64::from(ATO_OVERRANGE) {
            ATO_OVERRANGE
        } else {
            units as u16
        };
        MetricBlock {
            received: true,
            ecn: ecn & 0b11,
            arrival_time_offset: ato,
        }
    }

    /// A packet not (yet) received: all fields zero.
    pub const fn lost() -> Self {
        MetricBlock {
            received: false,
            ecn: 0,
            arrival_time_offset: 0,
        }
    }

    /// The arrival time offset in microseconds before the report timestamp; `None` if
    /// not received or unavailable (0x1FFF).
    pub fn offset_us(&self) -> Option<i64> {
        if !self.received || self.arrival_time_offset >= ATO_UNAVAILABLE {
            return None;
        }
        Some((f64::from(self.arrival_time_offset) * ATO_UNIT_US).round() as i64)
    }

    /// ECN-CE.
    pub fn ce(&self) -> bool {
        self.received && self.ecn == ecn::CE
    }

    fn from_wire(v: u16) -> Self {
        MetricBlock {
            received: v & 0x8000 != 0,
            ecn: ((v >> 13) & 0b11) as u8,
            arrival_time_offset: v & ATO_MAX,
        }
    }

    fn to_wire(self) -> Result<u16, WireError> {
        if self.ecn > 3 || self.arrival_time_offset > ATO_MAX {
            return Err(WireError::Unrepresentable(
                "RFC 8888 metric block ECN > 3 or ATO > 0x1FFF",
            ));
        }
        Ok((u16::from(self.received) << 15)
            | (u16::from(self.ecn) << 13)
            | self.arrival_time_offset)
    }
}

/// The reports of one RTP stream: consecutive sequence numbers from `begin_seq`
/// (wrapping modulo 2^16).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct StreamReports {
    /// SSRC of the RTP stream.
    pub ssrc: u32,
    /// Sequence number of the first report.
    pub begin_seq: u16,
    /// One block per sequence number, at most 16384.
    pub reports: Vec<MetricBlock>,
}

impl StreamReports {
    fn wire_len(&self) -> usize {
        8 + 2 * self.reports.len() + if self.reports.len() % 2 == 1 { 2 } else { 0 }
    }

    /// (sequence number, block) pairs.
    pub fn iter(&self) -> impl Iterator<Item = (u16, &MetricBlock)> + '_ {
        self.reports
            .iter()
            .enumerate()
            .map(|(i, b)| (self.begin_seq.wrapping_add(i as u16), b))
    }
}

/// An RFC 8888 congestion control feedback packet.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CongestionControlFeedback {
    /// SSRC of the RTCP packet sender.
    pub sender_ssrc: u32,
    /// One report block per RTP stream.
    pub streams: Vec<StreamReports>,
    /// Report Timestamp: the middle 32 bits of the NTP time of the report (16.16 s).
    pub report_timestamp: u32,
}

impl CongestionControlFeedback {
    /// The report timestamp in microseconds (of the 16.16 NTP middle word, modulo
    /// 65 536 s).
    pub fn report_timestamp_us(&self) -> i64 {
        (i64::from(self.report_timestamp) * 1_000_000) >> 16
    }

    /// The 16.16 NTP middle word of a time in microseconds (modulo 65 536 s).
    pub fn ntp_middle_from_us(us: u64) -> u32 {
        (((u128::from(us)) << 16) / 1_000_000) as u32
    }

    pub(super) fn parse_body(body: &[u8]) -> Result<Self, WireError> {
        let mut r = Reader::new(body);
        let sender_ssrc = r.u32()?;
        let mut streams = Vec::new();
        while r.remaining() > 4 {
            let ssrc = r.u32()?;
            let begin_seq = r.u16()?;
            let n = usize::from(r.u16()?);
            if n > MAX_REPORTS_PER_STREAM {
                return Err(WireError::Malformed("RFC 8888 num_reports above 16384"));
            }
            // Bounded by the input: check the length before allocating.
            let bytes = 2 * n + if n % 2 == 1 { 2 } else { 0 };
            if r.remaining() < bytes + 4 {
                return Err(WireError::Truncated);
            }
            let mut reports = Vec::with_capacity(n);
            for _ in 0..n {
                reports.push(MetricBlock::from_wire(r.u16()?));
            }
            if n % 2 == 1 {
                r.skip(2)?;
            }
            streams.push(StreamReports {
                ssrc,
                begin_seq,
                reports,
            });
        }
        if r.remaining() != 4 {
            return Err(WireError::BadLength(
                "RFC 8888 feedback does not end with a 4-byte Report Timestamp",
            ));
        }
        let report_timestamp = r.u32()?;
        Ok(Self {
            sender_ssrc,
            streams,
            report_timestamp,
        })
    }

    pub(super) fn body_len(&self) -> usize {
        8 + self
            .streams
            .iter()
            .map(StreamReports::wire_len)
            .sum::<usize>()
    }

    pub(super) fn emit_body(&self, w: &mut Writer<'_>) -> Result<(), WireError> {
        w.u32(self.sender_ssrc)?;
        for s in &self.streams {
            if s.reports.len() > MAX_REPORTS_PER_STREAM {
                return Err(WireError::Unrepresentable(
                    "RFC 8888 stream with more than 16384 reports",
                ));
            }
            w.u32(s.ssrc)?;
            w.u16(s.begin_seq)?;
            w.u16(s.reports.len() as u16)?;
            for b in &s.reports {
                w.u16(b.to_wire()?)?;
            }
            if s.reports.len() % 2 == 1 {
                w.u16(0)?;
            }
        }
        w.u32(self.report_timestamp)
    }
}

#[cfg(test)]
mod tests {
    use super::super::RtcpPacket;
    use super::*;

    fn sample() -> CongestionControlFeedback {
        CongestionControlFeedback {
            sender_ssrc: 0x0102_0304,
            streams: vec![StreamReports {
                ssrc: 0x0A0B_0C0D,
                begin_seq: 65_535,
                reports: vec![
                    MetricBlock::received(ecn::ECT0, 0),
                    MetricBlock::lost(),
                    MetricBlock::received(ecn::CE, 10_000),
                ],
            }],
            report_timestamp: 0x0001_8000, // 1.5 s
        }
    }

    #[test]
    fn known_bytes() {
        let p = RtcpPacket::CongestionControlFeedback(sample());
        let v = p.to_vec().unwrap();
        #[rustfmt::skip]
        let expected = [
            0x8B, 205, 0x00, 0x06,             // V=2 FMT=11, PT=205, 7 words: length 6
            0x01, 0x02, 0x03, 0x04,            // sender SSRC
            0x0A, 0x0B, 0x0C, 0x0D,            // stream SSRC
            0xFF, 0xFF, 0x00, 0x03,            // begin_seq 65535, 3 reports
            0xC0, 0x00,                        // R=1 ECN=10 ATO=0
            0x00, 0x00,                        // not received
            0xE0, 0x0A,                        // R=1 ECN=11 ATO=10 (10 ms = 10.24 units)
            0x00, 0x00,                        // padding
            0x00, 0x01, 0x80, 0x00,            // report timestamp
        ];
        assert_eq!(v, expected);
        assert_eq!(RtcpPacket::parse(&v), Ok(p));
    }

    #[test]
    fn helpers() {
        let s = sample();
        assert_eq!(s.report_timestamp_us(), 1_500_000);
        assert_eq!(
            CongestionControlFeedback::ntp_middle_from_us(1_500_000),
            0x0001_8000
        );
        let seqs: Vec<u16> = s.streams[0].iter().map(|(q, _)| q).collect();
        assert_eq!(seqs, vec![65_535, 0, 1]);
        // 10 units of 1/1024 s = 9766 us.
        assert_eq!(s.streams[0].reports[2].offset_us(), Some(9_766));
        assert!(s.streams[0].reports[2].ce());
        assert_eq!(s.streams[0].reports[1].offset_us(), None);
        assert_eq!(
            MetricBlock::received(0, 60_000_000).arrival_time_offset,
            ATO_OVERRANGE
        );
        let unavailable = MetricBlock {
            received: true,
            ecn: 0,
            arrival_time_offset: ATO_UNAVAILABLE,
        };
        assert_eq!(unavailable.offset_us(), None);
    }

    #[test]
    fn bad_input_is_an_error() {
        let v = RtcpPacket::CongestionControlFeedback(sample())
            .to_vec()
            .unwrap();
        // num_reports claims more than the packet holds.
        let mut w = v.clone();
        w[15] = 9;
        assert_eq!(RtcpPacket::parse(&w), Err(WireError::Truncated));
        // num_reports above 16384.
        let mut w = v.clone();
        w[14] = 0x40;
        w[15] = 0x01;
        assert!(matches!(
            RtcpPacket::parse(&w),
            Err(WireError::Malformed(_))
        ));
        // No room for the report timestamp: body of only the sender SSRC.
        let short = [0x8B, 205, 0x00, 0x01, 0, 0, 0, 1];
        assert!(RtcpPacket::parse(&short).is_err());
        // Unrepresentable values on emit.
        let mut bad = sample();
        bad.streams[0].reports[0].ecn = 4;
        assert!(RtcpPacket::CongestionControlFeedback(bad).to_vec().is_err());
        let mut bad = sample();
        bad.streams[0].reports = vec![MetricBlock::lost(); MAX_REPORTS_PER_STREAM + 1];
        assert!(RtcpPacket::CongestionControlFeedback(bad).to_vec().is_err());
    }

    #[test]
    fn empty_feedback_and_zero_report_streams() {
        let p = CongestionControlFeedback {
            sender_ssrc: 1,
            streams: vec![StreamReports {
                ssrc: 2,
                begin_seq: 3,
                reports: vec![],
            }],
            report_timestamp: 4,
        };
        let p = RtcpPacket::CongestionControlFeedback(p);
        assert_eq!(RtcpPacket::parse(&p.to_vec().unwrap()), Ok(p));
        let e = RtcpPacket::CongestionControlFeedback(CongestionControlFeedback::default());
        assert_eq!(e.buffer_len(), 12);
        assert_eq!(RtcpPacket::parse(&e.to_vec().unwrap()), Ok(e));
    }
}
