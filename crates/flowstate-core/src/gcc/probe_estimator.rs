//! The probe result: the rate a probe cluster measured (libwebrtc
//! `modules/congestion_controller/goog_cc/probe_bitrate_estimator.cc`, WebRTC M125;
//! `chromium-m156` preset).
//!
//! Per cluster: send rate = (bytes - last sent packet) / (last send - first send),
//! receive rate = (bytes - first received packet) / (last arrival - first arrival). The
//! result is min(send, receive); if the receive rate is under 0.9 x the send rate the
//! link is saturated and the result is 0.95 x the receive rate. A cluster counts once
//! 80 % of its packets and bytes have feedback; a receive/send ratio above 2 or an
//! interval outside (0, 1 s] is no result.

use crate::units::{Bitrate, DataSize, TimeDelta, Timestamp};
use std::collections::BTreeMap;

/// `kMinReceivedProbesRatio` (probe_bitrate_estimator.cc).
pub const MIN_RECEIVED_PROBES_RATIO: f64 = 0.80;
/// `kMinReceivedBytesRatio` (probe_bitrate_estimator.cc).
pub const MIN_RECEIVED_BYTES_RATIO: f64 = 0.80;
/// `kMaxValidRatio` (probe_bitrate_estimator.cc).
pub const MAX_VALID_RATIO: f64 = 2.0;
/// `kMinRatioForUnsaturatedLink` (probe_bitrate_estimator.cc).
pub const MIN_RATIO_FOR_UNSATURATED_LINK: f64 = 0.9;
/// `kTargetUtilizationFraction` (probe_bitrate_estimator.cc).
pub const TARGET_UTILIZATION_FRACTION: f64 = 0.95;
/// `kMaxClusterHistory` (probe_bitrate_estimator.cc).
pub const MAX_CLUSTER_HISTORY: TimeDelta = TimeDelta::secs(1);
/// `kMaxProbeInterval` (probe_bitrate_estimator.cc).
pub const MAX_PROBE_INTERVAL: TimeDelta = TimeDelta::secs(1);

/// What the sender tagged a probe packet with (`PacedPacketInfo`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProbeTag {
    pub cluster: u32,
    pub min_probes: u32,
    pub min_bytes: DataSize,
}

#[derive(Debug, Clone, PartialEq)]
struct Cluster {
    first_send: Timestamp,
    last_send: Timestamp,
    first_receive: Timestamp,
    last_receive: Timestamp,
    size_last_send: DataSize,
    size_first_receive: DataSize,
    size_total: DataSize,
    num_probes: u32,
}

/// `ProbeBitrateEstimator`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ProbeBitrateEstimator {
    clusters: BTreeMap<u32, Cluster>,
    estimate: Option<Bitrate>,
}

impl ProbeBitrateEstimator {
    pub fn new() -> Self {
        Self::default()
    }

    /// `HandleProbeAndEstimateBitrate`: one probe packet's feedback.
    pub fn on_probe_feedback(
        &mut self,
        tag: ProbeTag,
        send_time: Timestamp,
        arrival_time: Timestamp,
        size: DataSize,
    ) -> Option<Bitrate> {
        self.clusters
            .retain(|_, c| c.last_receive + MAX_CLUSTER_HISTORY >= arrival_time);
        let c = self.clusters.entry(tag.cluster).or_insert(Cluster {
            first_send: Timestamp::MAX,
            last_send: Timestamp::ZERO,
            first_receive: Timestamp::MAX,
            last_receive: Timestamp::ZERO,
            size_last_send: DataSize::ZERO,
            size_first_receive: DataSize::ZERO,
            size_total: DataSize::ZERO,
            num_probes: 0,
        });
        if send_time < c.first_send {
            c.first_send = send_time;
        }
        if send_time > c.last_send {
            c.last_send = send_time;
            c.size_last_send = size;
        }
        if arrival_time < c.first_receive {
            c.first_receive = arrival_time;
            c.size_first_receive = size;
        }
        if arrival_time > c.last_receive {
            c.last_receive = arrival_time;
        }
        c.size_total += size;
        c.num_probes += 1;
        let min_probes = (f64::from(tag.min_probes) * MIN_RECEIVED_PROBES_RATIO) as u32;
        let min_bytes = tag.min_bytes.as_bytes() as f64 * MIN_RECEIVED_BYTES_RATIO;
        if c.num_probes < min_probes || (c.size_total.as_bytes() as f64) < min_bytes {
            return None;
        }
        let send_interval = c.last_send - c.first_send;
        let receive_interval = c.last_receive - c.first_receive;
        let valid = |d: TimeDelta| d > TimeDelta::ZERO && d <= MAX_PROBE_INTERVAL;
        if !valid(send_interval) || !valid(receive_interval) {
            return None;
        }
        let send_rate = (c.size_total.saturating_sub(c.size_last_send)) / send_interval;
        let receive_rate = (c.size_total.saturating_sub(c.size_first_receive)) / receive_interval;
        if send_rate <= Bitrate::ZERO || receive_rate / send_rate > MAX_VALID_RATIO {
            return None;
        }
        let res = if receive_rate < send_rate * MIN_RATIO_FOR_UNSATURATED_LINK {
            receive_rate * TARGET_UTILIZATION_FRACTION
        } else {
            send_rate.min(receive_rate)
        };
        self.estimate = Some(res);
        Some(res)
    }

    /// `FetchAndResetLastEstimatedBitrate`.
    pub fn fetch_and_reset(&mut self) -> Option<Bitrate> {
        self.estimate.take()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tag(cluster: u32) -> ProbeTag {
        ProbeTag {
            cluster,
            min_probes: 5,
            min_bytes: DataSize::bytes(5000),
        }
    }
    fn us(x: u64) -> Timestamp {
        Timestamp::from_micros(x)
    }

    #[test]
    fn unsaturated_probe_gives_the_send_rate() {
        let mut e = ProbeBitrateEstimator::new();
        // 5 x 1000 B every 4 ms sent (2 Mbit/s), arriving at the same spacing.
        let mut out = None;
        for i in 0..5 {
            out = e.on_probe_feedback(
                tag(1),
                us(i * 4000),
                us(50_000 + i * 4000),
                DataSize::bytes(1000),
            );
        }
        let r = out.expect("a result after 4 of 5 packets with 4000 of 5000 bytes");
        assert!((r.as_kbps() - 2000.0).abs() < 1e-6, "{r}");
        assert_eq!(e.fetch_and_reset(), Some(r));
        assert_eq!(e.fetch_and_reset(), None);
    }

    #[test]
    fn saturated_probe_gives_95_percent_of_the_receive_rate() {
        let mut e = ProbeBitrateEstimator::new();
        // Sent at 2 Mbit/s, received at 1 Mbit/s (8 ms apart).
        let mut out = None;
        for i in 0..5 {
            out = e.on_probe_feedback(
                tag(2),
                us(i * 4000),
                us(50_000 + i * 8000),
                DataSize::bytes(1000),
            );
        }
        let r = out.unwrap();
        assert!((r.as_kbps() - 950.0).abs() < 1e-6, "{r}");
    }

    #[test]
    fn too_few_packets_or_an_implausible_ratio_give_no_result() {
        let mut e = ProbeBitrateEstimator::new();
        for i in 0..3 {
            assert_eq!(
                e.on_probe_feedback(
                    tag(3),
                    us(i * 4000),
                    us(50_000 + i * 4000),
                    DataSize::bytes(1000)
                ),
                None
            );
        }
        // Received 3x faster than sent: a ratio above 2.
        let mut e = ProbeBitrateEstimator::new();
        let mut out = None;
        for i in 0..5 {
            out = e.on_probe_feedback(
                tag(4),
                us(i * 6000),
                us(50_000 + i * 2000),
                DataSize::bytes(1000),
            );
        }
        assert_eq!(out, None);
        assert_eq!(e.fetch_and_reset(), None);
    }
}
