//! When a media receiver sends its RTCP receiver report (RFC 3550 section 6.2 as WebRTC
//! does it; docs/ALGORITHMS.md "Chromium's receiver-report interval").
//!
//! The sender learns the loss fraction only from these reports: goog_cc's loss rate
//! (`GoogCcNetworkController::OnTransportLossReport`, fed by
//! `RtpTransportControllerSend::OnReport` from each report block) and with it the FEC
//! controller's protection (`FecControllerDefault::UpdateFecRates`). So when the first
//! report after a loss burst arrives decides when Chromium's ULPFEC starts.
//!
//! - **Fixed** (the paper-era presets): a report every `interval` from the first packet.
//! - **Randomized** (`chromium-m156`, option `rtcp_report_random`): libwebrtc's
//!   `RTCPSender` (WebRTC M150, `modules/rtp_rtcp/source/rtcp_sender.cc` at
//!   signalapp/webrtc bd635df): the first report `interval / 2` after the sender is set
//!   up (the constructor's `SetNextRtcpSendEvaluationDuration(report_interval_ / 2)`,
//!   line 175), then after each report `ComputeTimeUntilNextReport` (lines 680-716): a
//!   receiver that sends no media keeps `report_interval_` and draws the next gap
//!   uniformly from the whole milliseconds in [interval / 2, 3 x interval / 2]
//!   (`random_.Rand(min_interval_int * 1 / 2, min_interval_int * 3 / 2)`, both ends
//!   included), at least 1 ms. A video receive stream's `report_interval_` is
//!   `MediaConfig::Video::rtcp_report_interval_ms` = 1000 ms
//!   (`media/base/media_config.h` line 77).
//!
//! The model sets the receiver up at its first packet; the draws come from a
//! [`XorShift64`] seeded per flow, so a run stays a function of (scenario, seed).

use crate::source::rng::XorShift64;
use crate::units::{TimeDelta, Timestamp};

/// The receiver-report schedule of one media receiver.
#[derive(Debug, Clone)]
pub struct ReportSchedule {
    interval: TimeDelta,
    /// `Some`: libwebrtc's randomized gaps.
    rng: Option<XorShift64>,
}

impl ReportSchedule {
    /// A report every `interval` (`randomized` false) or libwebrtc's randomized gaps
    /// around it drawn from a generator seeded with `seed`.
    pub fn new(interval: TimeDelta, randomized: bool, seed: u64) -> Self {
        Self {
            interval,
            rng: randomized.then(|| XorShift64::new(seed)),
        }
    }

    /// When the first report is due, for a receiver set up at `now`.
    pub fn first(&self, now: Timestamp) -> Timestamp {
        match self.rng {
            Some(_) => now + self.interval / 2,
            None => now + self.interval,
        }
    }

    /// When the next report is due after one sent at `now`.
    pub fn next(&mut self, now: Timestamp) -> Timestamp {
        let Some(rng) = self.rng.as_mut() else {
            return now + self.interval;
        };
        // `Random::Rand(low, high)`: uniform over the integers low..=high.
        let interval_ms = self.interval.as_micros() / 1000;
        let (low, high) = (interval_ms / 2, interval_ms * 3 / 2);
        let span = (high - low + 1).max(1) as u64;
        let ms = low + (rng.next_u64() % span) as i64;
        now + TimeDelta::millis(ms.max(1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gaps(randomized: bool, seed: u64, n: usize) -> Vec<i64> {
        let mut s = ReportSchedule::new(TimeDelta::secs(1), randomized, seed);
        let mut t = s.first(Timestamp::ZERO);
        let mut out = vec![t.as_micros() as i64];
        for _ in 0..n {
            let next = s.next(t);
            out.push((next - t).as_micros());
            t = next;
        }
        out
    }

    #[test]
    fn fixed_schedule_reports_every_interval_from_the_first_packet() {
        let g = gaps(false, 7, 5);
        assert_eq!(
            g[0], 1_000_000,
            "first report one interval after the first packet"
        );
        assert!(g[1..].iter().all(|&d| d == 1_000_000));
    }

    #[test]
    fn randomized_schedule_starts_at_half_the_interval() {
        let s = ReportSchedule::new(TimeDelta::secs(1), true, 3);
        assert_eq!(
            s.first(Timestamp::from_micros(250_000)).as_micros(),
            750_000
        );
    }

    #[test]
    fn randomized_gaps_are_whole_ms_in_half_to_three_halves_and_cover_the_range() {
        let g = gaps(true, 11, 4000);
        let d = &g[1..];
        assert!(d.iter().all(|&x| x % 1000 == 0), "whole milliseconds");
        assert!(d.iter().all(|&x| (500_000..=1_500_000).contains(&x)));
        let mean = d.iter().sum::<i64>() as f64 / d.len() as f64;
        assert!((mean - 1_000_000.0).abs() < 20_000.0, "mean gap {mean} us");
        // Both ends of the range are drawn (1001 values, 4000 draws: each end with
        // probability ~98 %; seed 11 draws both).
        assert!(d.iter().any(|&x| x < 520_000) && d.iter().any(|&x| x > 1_480_000));
    }

    #[test]
    fn randomized_schedule_is_a_function_of_its_seed() {
        assert_eq!(gaps(true, 5, 50), gaps(true, 5, 50));
        assert_ne!(gaps(true, 5, 50), gaps(true, 6, 50));
    }
}
