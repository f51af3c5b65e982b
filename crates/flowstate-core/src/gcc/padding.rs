//! Chromium's padding while loss-based BWE v2 increases with padding (`loss_v2_padding`;
//! docs/REPRODUCTION.md "Chromium's NACK/RTX retransmissions and padding,
//! measured"). Read at signalapp/webrtc `bd635df` (WebRTC M150), file:line:
//!
//! - **The rate.** `GoogCcNetworkController::GetPacingRates`
//!   (`modules/congestion_controller/goog_cc/goog_cc_network_control.cc:671-676`): the
//!   padding rate is the streams' `max_padding_rate` (0 for one camera stream,
//!   `video/video_send_stream_impl.cc:115-180`) or, while loss-based BWE v2 is in
//!   `kIncreaseUsingPadding`, the loss-based target; capped by the pushback target.
//!   [`padding_rate`].
//! - **When.** `PacingController::PaddingToAdd` (`modules/pacing/pacing_controller.cc:
//!   577-599`): only with an empty queue and a padding debt of zero, then
//!   `kTargetPaddingDuration` (5 ms, :50) of the padding rate. Every sent packet, media or
//!   padding, adds to the padding debt, capped at `kMaxDebtInTime` (500 ms) of the padding
//!   rate (`UpdatePaddingBudgetWithSentData`, :676-679); elapsed time pays it at the
//!   padding rate (`UpdateBudgetWithElapsedTime`, :665-668). [`PaddingBudget`].
//! - **What.** `RTPSender::GeneratePadding` (`modules/rtp_rtcp/source/rtp_sender.cc:
//!   375-440`): with RTX redundant payloads (Chromium's video) the history's last packet
//!   again as RTX (its payload + the 2-byte OSN) while at least `kMinPayloadPaddingBytes`
//!   (50, :55) are left and the copy is at most `kMaxPaddingSizeFactor` (3, :59) x the
//!   request minus what is sent; the rest in padding-only packets of
//!   `kMaxPaddingLength` (255 B, `rtp_sender.h:44`). [`padding_payloads`].
//!
//! Simplifications: the model's padding goes on the media SSRC's sequence (Chromium's on
//! the RTX SSRC: the transport feedback and the detector see the same packets); the
//! pacer's keep-alive padding (one packet every 500 ms while congested,
//! `kCongestedPacketInterval`) is not modelled.

use crate::gcc::loss_based_v2::LossBasedState;
use crate::units::{Bitrate, DataSize, TimeDelta, Timestamp};

/// `PacingController::kTargetPaddingDuration` (`pacing_controller.cc:50`).
pub const TARGET_PADDING_DURATION: TimeDelta = TimeDelta::millis(5);
/// `kMaxDebtInTime` (`pacing_controller.cc`), the padding debt's cap.
pub const MAX_DEBT_IN_TIME: TimeDelta = TimeDelta::millis(500);
/// `kMinPayloadPaddingBytes` (`rtp_sender.cc:55`).
pub const MIN_PAYLOAD_PADDING: DataSize = DataSize::bytes(50);
/// `kMaxPaddingSizeFactor` (`rtp_sender.cc:59`).
pub const MAX_PADDING_SIZE_FACTOR: u64 = 3;
/// `kMaxPaddingLength` (`rtp_sender.h:44`): a padding-only packet's padding.
pub const MAX_PADDING_LENGTH: DataSize = DataSize::bytes(255);
/// `kRtxHeaderSize`: the original sequence number an RTX payload starts with (RFC 4588).
pub const RTX_HEADER: DataSize = DataSize::bytes(2);

/// `GetPacingRates`' padding rate for one camera stream: the loss-based estimate while
/// it is `IncreaseUsingPadding`, else zero; never above `target` (the pushback target).
pub fn padding_rate(loss_v2: Option<(Bitrate, LossBasedState)>, target: Bitrate) -> Bitrate {
    match loss_v2 {
        Some((rate, LossBasedState::IncreaseUsingPadding)) => rate.min(target),
        _ => Bitrate::ZERO,
    }
}

/// The pacer's padding debt (`padding_debt_`) at the padding rate.
#[derive(Debug, Clone, Default)]
pub struct PaddingBudget {
    debt: DataSize,
    rate: Bitrate,
    last: Option<Timestamp>,
}

impl PaddingBudget {
    pub fn new() -> Self {
        Self::default()
    }

    /// Pay the debt up to `now` at the current rate.
    fn pay(&mut self, now: Timestamp) {
        if let Some(last) = self.last {
            if now > last {
                self.debt = self.debt.saturating_sub(self.rate * (now - last));
            }
        }
        self.last = Some(self.last.map_or(now, |l| l.max(now)));
    }

    /// A new padding rate from `now` on (`SetPacingRates`).
    pub fn set_rate(&mut self, now: Timestamp, rate: Bitrate) {
        self.pay(now);
        self.rate = rate;
        self.debt = self.debt.min(self.rate * MAX_DEBT_IN_TIME);
    }

    pub fn rate(&self) -> Bitrate {
        self.rate
    }

    /// A packet of `size` went out at `now` (`UpdatePaddingBudgetWithSentData`).
    pub fn on_sent(&mut self, now: Timestamp, size: DataSize) {
        self.pay(now);
        self.debt = (self.debt + size).min(self.rate * MAX_DEBT_IN_TIME);
    }

    /// `PaddingToAdd` with an empty queue, not congested, not probing: 5 ms of the
    /// padding rate once the debt is paid, else nothing.
    pub fn padding_to_add(&mut self, now: Timestamp) -> DataSize {
        self.pay(now);
        if self.debt == DataSize::ZERO {
            self.rate * TARGET_PADDING_DURATION
        } else {
            DataSize::ZERO
        }
    }

    /// When the debt is paid (`NextSendTime` with an empty queue); `None` at rate zero.
    pub fn next_time(&self) -> Option<Timestamp> {
        // A rate whose 5 ms round to no byte never pads (and must not wake the sender).
        if self.rate * TARGET_PADDING_DURATION == DataSize::ZERO {
            return None;
        }
        let last = self.last?;
        if self.debt == DataSize::ZERO {
            return Some(last);
        }
        // Rounded up to a whole microsecond, so that the debt is paid at that time.
        Some(last + self.debt / self.rate + TimeDelta::from_micros(1))
    }
}

/// `GeneratePadding`'s packets for a request of `request` bytes, as RTP payload sizes:
/// copies of the last sent media packet (`last_payload` + the OSN) while they fit, then
/// padding-only packets of 255 B until the request is covered.
pub fn padding_payloads(request: DataSize, last_payload: Option<DataSize>) -> Vec<DataSize> {
    let mut out = Vec::new();
    let mut left = request;
    if let Some(p) = last_payload {
        let copy = p + RTX_HEADER;
        let overshoot = request * (MAX_PADDING_SIZE_FACTOR - 1);
        while left >= MIN_PAYLOAD_PADDING && copy <= overshoot + left {
            out.push(copy);
            left = left.saturating_sub(copy);
        }
    }
    while left > DataSize::ZERO {
        out.push(MAX_PADDING_LENGTH);
        left = left.saturating_sub(MAX_PADDING_LENGTH);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// `GeneratePadding` covers the request and overshoots it by at most
        /// `kMaxPaddingSizeFactor` x the request or one padding-only packet.
        #[test]
        fn padding_covers_the_request_within_the_overshoot(
            request in 1u64..20_000,
            last in proptest::option::of(1u64..1_500),
        ) {
            let sizes = padding_payloads(DataSize::bytes(request), last.map(DataSize::bytes));
            let sum: u64 = sizes.iter().map(|s| s.as_bytes()).sum();
            prop_assert!(sum >= request);
            prop_assert!(sum <= (MAX_PADDING_SIZE_FACTOR * request).max(request + MAX_PADDING_LENGTH.as_bytes()));
        }

        /// The padding debt never exceeds `kMaxDebtInTime` at the padding rate, and padding
        /// is asked for only with the debt paid.
        #[test]
        fn debt_is_capped_and_padding_only_when_paid(
            kbps in 10u32..5_000,
            sends in proptest::collection::vec((0u64..50_000, 1u64..3_000), 1..40),
        ) {
            let rate = Bitrate::kbps(f64::from(kbps));
            let mut b = PaddingBudget::new();
            b.set_rate(Timestamp::ZERO, rate);
            let mut now = Timestamp::ZERO;
            for (gap_us, size) in sends {
                now += TimeDelta::from_micros(gap_us as i64);
                b.on_sent(now, DataSize::bytes(size));
                prop_assert!(b.debt <= rate * MAX_DEBT_IN_TIME);
                let ask = b.padding_to_add(now);
                prop_assert!(ask == DataSize::ZERO || b.debt == DataSize::ZERO);
            }
        }
    }

    fn t(ms: i64) -> Timestamp {
        Timestamp::ZERO + TimeDelta::millis(ms)
    }

    #[test]
    fn rate_only_while_increasing_with_padding() {
        let r = Bitrate::kbps(600.0);
        assert_eq!(
            padding_rate(
                Some((r, LossBasedState::IncreaseUsingPadding)),
                Bitrate::kbps(900.0)
            ),
            r
        );
        assert_eq!(
            padding_rate(
                Some((r, LossBasedState::IncreaseUsingPadding)),
                Bitrate::kbps(400.0)
            ),
            Bitrate::kbps(400.0)
        );
        assert_eq!(
            padding_rate(Some((r, LossBasedState::Increasing)), Bitrate::kbps(900.0)),
            Bitrate::ZERO
        );
        assert_eq!(padding_rate(None, Bitrate::kbps(900.0)), Bitrate::ZERO);
    }

    #[test]
    fn five_ms_of_the_rate_once_the_debt_is_paid() {
        let mut b = PaddingBudget::new();
        b.set_rate(t(0), Bitrate::kbps(800.0));
        // 5 ms at 800 kbit/s = 500 B
        assert_eq!(b.padding_to_add(t(0)), DataSize::bytes(500));
        b.on_sent(t(0), DataSize::bytes(500));
        assert_eq!(b.padding_to_add(t(2)), DataSize::ZERO);
        assert_eq!(b.next_time(), Some(t(5) + TimeDelta::from_micros(1)));
        assert_eq!(b.padding_to_add(t(5)), DataSize::bytes(500));
    }

    #[test]
    fn media_adds_to_the_debt_capped_at_500_ms() {
        let mut b = PaddingBudget::new();
        b.set_rate(t(0), Bitrate::kbps(80.0));
        b.on_sent(t(0), DataSize::bytes(100_000)); // cap: 500 ms at 80 kbit/s = 5 kB
        assert_eq!(b.padding_to_add(t(499)), DataSize::ZERO);
        assert_eq!(b.padding_to_add(t(500)), DataSize::bytes(50));
    }

    #[test]
    fn no_padding_at_rate_zero() {
        let mut b = PaddingBudget::new();
        b.set_rate(t(0), Bitrate::ZERO);
        assert_eq!(b.padding_to_add(t(10)), DataSize::ZERO);
        assert_eq!(b.next_time(), None);
    }

    #[test]
    fn payload_padding_above_the_size_rule_padding_only_below() {
        // 5 ms at 800 kbit/s: 500 B; a 1,000 B packet + 2 <= 2 x 500 + 500: one copy
        assert_eq!(
            padding_payloads(DataSize::bytes(500), Some(DataSize::bytes(1000))),
            vec![DataSize::bytes(1002)]
        );
        // 5 ms at 300 kbit/s: 187 B; 1,002 > 3 x 187: 255 B padding-only
        assert_eq!(
            padding_payloads(DataSize::bytes(187), Some(DataSize::bytes(1000))),
            vec![DataSize::bytes(255)]
        );
        // nothing sent yet: padding-only, enough to cover the request
        assert_eq!(
            padding_payloads(DataSize::bytes(600), None),
            vec![DataSize::bytes(255); 3]
        );
        // a small packet is copied while 50 B or more are left
        assert_eq!(
            padding_payloads(DataSize::bytes(500), Some(DataSize::bytes(198))),
            vec![
                DataSize::bytes(200),
                DataSize::bytes(200),
                DataSize::bytes(200)
            ]
        );
    }
}
