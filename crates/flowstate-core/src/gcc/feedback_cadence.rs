//! When Chromium's receiver sends transport-wide congestion-control feedback (TWCC),
//! option `chromium_feedback_cadence` (docs/ALGORITHMS.md, "Chromium's
//! transport-feedback cadence"; docs/REPRODUCTION.md, "Chromium's transport-feedback
//! cadence").
//!
//! Three rules, each cited at its code below:
//!
//! 1. **The interval** (libwebrtc, WebRTC M150 = signalapp/webrtc bd635df,
//!    `modules/remote_bitrate_estimator/transport_sequence_number_feedback_generator.cc`):
//!    TWCC may take 5 % of a bitrate, a report counted as 68 B (IPv4 20, UDP 8, SRTP 10
//!    and an average report 30), so the interval is 68 B / (0.05 x bitrate), at least 50 ms;
//!    250 ms when 0.05 x bitrate is at most 68 B / 250 ms; 100 ms before any bitrate is
//!    known. [`send_interval`].
//! 2. **Which bitrate**: the *receiving peer's own* send-side target, not the rate of the
//!    stream it acknowledges. `Call::OnTargetTransferRate` (`call/call.cc` lines
//!    1316-1321: "For controlling the rate of feedback messages") hands the target of the
//!    Call's own `RtpTransportControllerSend` to `ReceiveSideCongestionController::
//!    OnBitrateChanged` (`modules/congestion_controller/receive_side_congestion_controller.cc`
//!    lines 157-164), which calls `OnSendBandwidthEstimateChanged`. A receiver that sends
//!    no media keeps its start rate, `BitrateConstraints::kDefaultStartBitrateBps` =
//!    300 kbit/s (`api/transport/bitrate_settings.h` line 44): in the nine receivers' RTC
//!    event logs of the real runs, `SendSideBandwidthEstimation`'s target is 300,000 bit/s
//!    from start to end. 68 B / 15 kbit/s = 36 ms, so the interval is 50 ms. The simulated
//!    receiver sends no media, so its rate is a configured constant,
//!    [`FeedbackCadenceConfig::peer_rate`].
//! 3. **Chromium's metronome**: `Call` runs `ReceiveSideCongestionController::MaybeProcess`
//!    as a `RepeatingTaskHandle` with `TaskQueueBase::DelayPrecision::kLow`
//!    (`call/call.cc` lines 758-761), and Chromium's WebRTC threads
//!    (`third_party/webrtc_overrides`: `ThreadWrapper::PostDelayedTaskImpl`,
//!    `WebRtcTaskQueue::PostDelayedTaskImpl`) run every low-precision delayed task at the
//!    next tick of a 64 Hz metronome (`TimerBasedTickProvider::kDefaultPeriod =
//!    base::Hertz(64)`, `TimeSnappedToNextTick`, phase `base::TimeTicks()`).
//!    `TransportSequenceNumberFeedbackGenenerator::Process` (lines 126-141) sends when
//!    `now >= last_process_time_ + send_interval_` and otherwise asks to be called again
//!    at that time, which the metronome rounds up to a tick; `RepeatingTask`
//!    (`rtc_base/task_utils/repeating_task.cc` lines 72-92) keeps its schedule free of
//!    drift. So each report goes at the first tick at or after the previous one plus the
//!    interval: every ceil(interval / 15.625 ms) ticks, 62.5 ms for 50 ms
//!    ([`metronome_period`]; the property test checks this against the three rules
//!    stepped literally). The schedule runs whether or not packets came; a report goes
//!    only if packets arrived since the last (`SendPeriodicFeedbacks`, lines 167-194), so
//!    the gaps between reports are whole multiples of the period (measured: 62.5, 125,
//!    187.5 ms ... in every real run).

use crate::units::{Bitrate, DataSize, TimeDelta, Timestamp};

/// `kTwccReportSize` = IPv4 (20 B) + UDP (8 B) + SRTP (10 B) + an average report (30 B)
/// (`transport_sequence_number_feedback_generator.cc` line 150).
pub const TWCC_REPORT_SIZE: DataSize = DataSize::bytes(20 + 8 + 10 + 30);
/// "Let TWCC reports occupy 5% of total bandwidth." (line 154).
pub const TWCC_BANDWIDTH_FRACTION: f64 = 0.05;
/// `kMinInterval` (line 38).
pub const MIN_INTERVAL: TimeDelta = TimeDelta::millis(50);
/// `kMaxInterval` (line 39).
pub const MAX_INTERVAL: TimeDelta = TimeDelta::millis(250);
/// `kDefaultInterval` (line 40): the interval before any bitrate is known.
pub const DEFAULT_INTERVAL: TimeDelta = TimeDelta::millis(100);
/// `BitrateConstraints::kDefaultStartBitrateBps` (`api/transport/bitrate_settings.h`
/// line 44): the target of a peer that sends no media.
pub const CHROMIUM_START_BITRATE_BPS: f64 = 300_000.0;
/// Chromium's metronome tick for low-precision WebRTC tasks: `base::Hertz(64)`
/// (`third_party/webrtc_overrides/timer_based_tick_provider.h` `kDefaultPeriod`).
pub const METRONOME_TICK: TimeDelta = TimeDelta::from_micros(15_625);

/// `TransportSequenceNumberFeedbackGenenerator::OnSendBandwidthEstimateChanged`
/// (lines 143-165): the TWCC send interval for the receiving peer's send-side
/// `estimate`. 250 ms if 5 % of it is at most `kMinTwccRate` = 68 B / 250 ms (2,176
/// bit/s; also for a zero estimate), else 68 B / (0.05 x estimate), at least 50 ms.
pub fn send_interval(estimate: Bitrate) -> TimeDelta {
    let twcc_bps = TWCC_BANDWIDTH_FRACTION * estimate.as_bps();
    let report_bits = TWCC_REPORT_SIZE.as_bits_f64();
    let min_twcc_bps = report_bits / MAX_INTERVAL.as_secs_f64();
    // `Bitrate` is never NaN, so this is libwebrtc's `twcc_bitrate <= kMinTwccRate`.
    if twcc_bps <= min_twcc_bps {
        return MAX_INTERVAL;
    }
    TimeDelta::from_secs_f64(report_bits / twcc_bps).max(MIN_INTERVAL)
}

/// `TimeSnappedToNextTick`: the first tick of a metronome of period `tick` (phase zero)
/// at or after `t`; `t` itself for a non-positive `tick` (no metronome).
pub fn snap_to_next_tick(t: Timestamp, tick: TimeDelta) -> Timestamp {
    let p = tick.as_micros();
    if p <= 0 {
        return t;
    }
    let us = t.as_micros();
    let p = p as u64;
    Timestamp::from_micros(us.div_ceil(p).saturating_mul(p))
}

/// The time between reports when `interval` is run on a metronome of period `tick`:
/// the smallest whole number of ticks that is at least `interval` (rule 3 above);
/// `interval` itself without a metronome.
pub fn metronome_period(interval: TimeDelta, tick: TimeDelta) -> TimeDelta {
    let p = tick.as_micros();
    let i = interval.as_micros().max(0);
    if p <= 0 {
        return interval;
    }
    let ticks = (i + p - 1) / p;
    TimeDelta::from_micros(ticks.max(1) * p)
}

/// The option's constants.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FeedbackCadenceConfig {
    /// The receiving peer's own send-side target (rule 2): 300 kbit/s, Chromium's start
    /// bitrate, for a receiver that sends no media.
    pub peer_rate: Bitrate,
    /// The metronome's period (rule 3): 15.625 ms; zero runs libwebrtc's schedule
    /// without it (a report every interval exactly).
    pub tick: TimeDelta,
}

impl Default for FeedbackCadenceConfig {
    fn default() -> Self {
        Self {
            peer_rate: Bitrate::bps(CHROMIUM_START_BITRATE_BPS),
            tick: METRONOME_TICK,
        }
    }
}

/// The receiver's TWCC schedule: reports may go at every multiple of the period from
/// the receiver's time zero (its `Call` is created before media flows; the metronome's
/// phase against the media is arbitrary in Chromium too).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FeedbackCadence {
    period: TimeDelta,
}

impl FeedbackCadence {
    pub fn new(cfg: FeedbackCadenceConfig) -> Self {
        Self {
            period: metronome_period(send_interval(cfg.peer_rate), cfg.tick),
        }
    }
    /// The time between report opportunities.
    pub fn period(&self) -> TimeDelta {
        self.period
    }
    /// The first report opportunity strictly after `t`: when a packet that arrives at
    /// `t` is reported.
    pub fn next_after(&self, t: Timestamp) -> Timestamp {
        let p = self.period.as_micros().max(1) as u64;
        Timestamp::from_micros((t.as_micros() / p).saturating_add(1).saturating_mul(p))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn ms(x: f64) -> TimeDelta {
        TimeDelta::from_millis_f64(x)
    }

    #[test]
    fn the_interval_is_68_bytes_at_5_percent_between_50_and_250_ms() {
        // 300 kbit/s (Chromium's start rate): 544 bit / 15 kbit/s = 36.3 ms -> 50 ms.
        assert_eq!(send_interval(Bitrate::kbps(300.0)), MIN_INTERVAL);
        // 217.6 kbit/s is where 68 B / 5 % is exactly 50 ms.
        assert_eq!(send_interval(Bitrate::bps(217_600.0)), ms(50.0));
        // 100 kbit/s: 544 / 5000 = 108.8 ms.
        assert_eq!(send_interval(Bitrate::kbps(100.0)), ms(108.8));
        // 60 kbit/s: 544 / 3000 = 181.33 ms.
        assert_eq!(
            send_interval(Bitrate::kbps(60.0)),
            TimeDelta::from_micros(181_333)
        );
        // At and under kMinTwccRate / 5 % = 43.52 kbit/s: 250 ms, also for nothing.
        assert_eq!(send_interval(Bitrate::bps(43_520.0)), MAX_INTERVAL);
        assert_eq!(send_interval(Bitrate::bps(43_521.0)), ms(249.994));
        assert_eq!(send_interval(Bitrate::ZERO), MAX_INTERVAL);
        assert_eq!(send_interval(Bitrate::mbps(50.0)), MIN_INTERVAL);
        assert_eq!(TWCC_REPORT_SIZE, DataSize::bytes(68));
        assert_eq!(DEFAULT_INTERVAL, ms(100.0));
    }

    #[test]
    fn the_metronome_rounds_the_interval_up_to_whole_ticks() {
        assert_eq!(METRONOME_TICK, ms(15.625));
        // 50 ms is 3.2 ticks: 4 ticks, 62.5 ms (Chromium 156's measured cadence).
        assert_eq!(metronome_period(ms(50.0), METRONOME_TICK), ms(62.5));
        assert_eq!(metronome_period(ms(100.0), METRONOME_TICK), ms(109.375));
        assert_eq!(metronome_period(ms(250.0), METRONOME_TICK), ms(250.0));
        assert_eq!(metronome_period(ms(62.5), METRONOME_TICK), ms(62.5));
        assert_eq!(metronome_period(ms(50.0), TimeDelta::ZERO), ms(50.0));
    }

    #[test]
    fn ticks_snap_up_from_phase_zero() {
        let t = METRONOME_TICK;
        assert_eq!(snap_to_next_tick(Timestamp::ZERO, t), Timestamp::ZERO);
        assert_eq!(
            snap_to_next_tick(Timestamp::from_micros(1), t),
            Timestamp::from_micros(15_625)
        );
        assert_eq!(
            snap_to_next_tick(Timestamp::from_micros(31_250), t),
            Timestamp::from_micros(31_250)
        );
        let x = Timestamp::from_micros(12_345);
        assert_eq!(snap_to_next_tick(x, TimeDelta::ZERO), x);
    }

    #[test]
    fn the_default_cadence_is_62_5_ms_from_time_zero() {
        let c = FeedbackCadence::new(FeedbackCadenceConfig::default());
        assert_eq!(c.period(), ms(62.5));
        assert_eq!(
            c.next_after(Timestamp::ZERO),
            Timestamp::from_micros(62_500)
        );
        assert_eq!(
            c.next_after(Timestamp::from_micros(62_499)),
            Timestamp::from_micros(62_500)
        );
        assert_eq!(
            c.next_after(Timestamp::from_micros(62_500)),
            Timestamp::from_micros(125_000)
        );
        let libwebrtc_alone = FeedbackCadence::new(FeedbackCadenceConfig {
            tick: TimeDelta::ZERO,
            ..FeedbackCadenceConfig::default()
        });
        assert_eq!(libwebrtc_alone.period(), ms(50.0));
        let slow_peer = FeedbackCadence::new(FeedbackCadenceConfig {
            peer_rate: Bitrate::kbps(100.0),
            ..FeedbackCadenceConfig::default()
        });
        assert_eq!(slow_peer.period(), ms(109.375));
    }

    /// The three rules stepped literally, as Chromium runs them: `RepeatingTask`
    /// (repeating_task.cc lines 72-92) around `Process` (transport_sequence_number_
    /// feedback_generator.cc lines 126-141), every delayed task snapped to the next tick
    /// at or after its due time and run `latency_us` after that tick. Returns the times
    /// `Process` sent.
    fn stepped(interval_us: u64, start_us: u64, latency_us: u64, until_us: u64) -> Vec<u64> {
        let mut sends = Vec::new();
        let mut last_process: Option<u64> = None;
        // RepeatingTaskHandle::Start posts the first run at once.
        let mut next_run_time = start_us;
        let mut now = start_us;
        while now < until_us {
            // Process(now): send when the interval has passed, else wait for the rest.
            let delay = match last_process {
                Some(l) if now < l + interval_us => l + interval_us - now,
                _ => {
                    last_process = Some(now);
                    sends.push(now);
                    interval_us
                }
            };
            // RepeatingTask: next_run_time_ += delay; the delay posted is what is left
            // of it from now (at least zero).
            next_run_time += delay;
            let due = next_run_time.max(now);
            // ThreadWrapper::PostDelayedTaskImpl: coalesced onto the next tick.
            let tick = snap_to_next_tick(Timestamp::from_micros(due), METRONOME_TICK).as_micros();
            now = (tick + latency_us).max(now);
        }
        sends
    }

    proptest! {
        #[test]
        fn stepping_the_rules_sends_every_whole_number_of_ticks(
            interval_us in 50_000i64..=250_000,
            start_us in 0u64..1_000_000,
            latency_us in 0u64..2_000,
        ) {
            let period =
                metronome_period(TimeDelta::from_micros(interval_us), METRONOME_TICK).as_micros() as u64;
            let sends = stepped(interval_us as u64, start_us, latency_us, start_us + 5_000_000);
            prop_assert!(sends.len() > 10);
            // After the first report (at the task's start, off the grid), every report
            // follows the previous one by exactly the period.
            for w in sends[1..].windows(2) {
                prop_assert_eq!(w[1] - w[0], period, "interval {} us", interval_us);
            }
        }

        #[test]
        fn the_interval_stays_within_its_bounds_and_falls_with_the_rate(
            a in 0.0f64..5e7, b in 0.0f64..5e7,
        ) {
            let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
            let i_lo = send_interval(Bitrate::bps(lo));
            let i_hi = send_interval(Bitrate::bps(hi));
            prop_assert!(MIN_INTERVAL <= i_hi && i_hi <= i_lo && i_lo <= MAX_INTERVAL);
        }
    }
}
