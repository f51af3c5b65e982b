//! The loss fraction the FEC controller is given: goog_cc's `fraction_loss`, from the
//! RTCP receiver reports. libwebrtc `call/rtp_transport_controller_send.cc`
//! (`OnReceivedRtcpReceiverReport`: per report block the packets lost and the extended
//! highest sequence number since the previous report) ->
//! `goog_cc_network_control.cc` (`OnTransportLossReport`) ->
//! `send_side_bandwidth_estimation.cc` (`UpdatePacketsLost`: reports are accumulated
//! until they cover `kLimitNumPackets` = 20 expected packets, then
//! `last_fraction_loss_` = min(lost x 256 / expected, 255)); the target update carries
//! it as `loss_rate_ratio` = fraction / 255.0f, `BitrateAllocator::
//! OnNetworkEstimateChanged` turns it back into `int(loss_rate_ratio * 255)` and hands
//! the stream `packet_loss_ratio` = that / 256.0, and `RtpVideoSender::OnBitrateUpdated`
//! gives the FEC controller `saturated_cast<uint8_t>(packet_loss_ratio * 256)`: the
//! fraction itself (in `float`, q / 255 x 255 truncates back to q for every q) (WebRTC
//! M150, signalapp/webrtc bd635df).

/// `kLimitNumPackets` (send_side_bandwidth_estimation.cc).
pub const LIMIT_NUM_PACKETS: i64 = 20;

/// `SendSideBandwidthEstimation`'s loss accumulation.
#[derive(Debug, Clone, Default)]
pub struct LossFraction {
    lost_since_update: i64,
    expected_since_update: i64,
    fraction_q8: u8,
    prev: Option<(u64, u64)>,
}

impl LossFraction {
    pub fn new() -> Self {
        Self::default()
    }

    /// A receiver report's cumulative lost count and extended highest sequence number;
    /// true when the fraction was recomputed.
    pub fn on_receiver_report(&mut self, cumulative_lost: u64, highest_seq: u64) -> bool {
        let Some((lost0, high0)) = self.prev.replace((cumulative_lost, highest_seq)) else {
            return false;
        };
        let expected = i64::try_from(highest_seq.saturating_sub(high0)).unwrap_or(i64::MAX);
        let lost = i64::try_from(cumulative_lost).unwrap_or(i64::MAX)
            - i64::try_from(lost0).unwrap_or(i64::MAX);
        self.update_packets_lost(lost, expected)
    }

    /// `UpdatePacketsLost(packets_lost, number_of_packets)`.
    pub fn update_packets_lost(&mut self, packets_lost: i64, number_of_packets: i64) -> bool {
        if number_of_packets <= 0 {
            return false;
        }
        let expected = self.expected_since_update + number_of_packets;
        if expected < LIMIT_NUM_PACKETS {
            self.expected_since_update = expected;
            self.lost_since_update += packets_lost;
            return false;
        }
        let lost_q8 = (self.lost_since_update + packets_lost).max(0) << 8;
        self.fraction_q8 = u8::try_from((lost_q8 / expected).min(255)).unwrap_or(255);
        self.lost_since_update = 0;
        self.expected_since_update = 0;
        true
    }

    /// `fraction_loss()`, Q8 of 255.
    pub fn fraction_q8(&self) -> u8 {
        self.fraction_q8
    }

    /// What `UpdateFecRates` receives: the fraction through `loss_rate_ratio` (float)
    /// and `BitrateAllocator`'s `int(ratio * 255)`; the / 256 and x 256 after it cancel.
    pub fn for_fec(&self) -> u8 {
        let ratio = f32::from(self.fraction_q8) / 255.0f32;
        (ratio * 255.0f32).clamp(0.0, 255.0) as u8
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_accumulate_to_twenty_packets() {
        let mut l = LossFraction::new();
        assert!(!l.on_receiver_report(0, 100));
        // 10 expected, 1 lost: not enough.
        assert!(!l.on_receiver_report(1, 110));
        assert_eq!(l.fraction_q8(), 0);
        // 10 more, 1 more lost: 2 of 20 -> 512 / 20 = 25.
        assert!(l.on_receiver_report(2, 120));
        assert_eq!(l.fraction_q8(), 25);
    }

    #[test]
    fn fraction_is_capped_and_never_negative() {
        let mut l = LossFraction::new();
        assert!(l.update_packets_lost(30, 20));
        assert_eq!(l.fraction_q8(), 255);
        assert!(l.update_packets_lost(-5, 20));
        assert_eq!(l.fraction_q8(), 0);
    }

    #[test]
    fn the_fec_controller_gets_the_fraction_back() {
        let mut l = LossFraction::new();
        l.update_packets_lost(5, 100); // 1280 / 100 = 12
        assert_eq!(l.fraction_q8(), 12);
        assert_eq!(l.for_fec(), 12);
        l.update_packets_lost(100, 100);
        assert_eq!(l.for_fec(), 255);
        // Every fraction survives the float round trip.
        for q in 0..=255u8 {
            let l = LossFraction {
                fraction_q8: q,
                ..LossFraction::default()
            };
            assert_eq!(l.for_fec(), q);
        }
    }
}
