//! The pacer's side of probing: sends a probe cluster at its rate (libwebrtc
//! `modules/pacing/bitrate_prober.cc`, WebRTC M125; `chromium-m156` preset).
//!
//! A cluster is done once it has sent `rate x duration` bytes in at least `min_probes`
//! packets. Packet k of a cluster goes at `start + bytes_sent_before_k / rate`; media
//! from the pacer queue is used when there is some, padding of the recommended probe
//! size (`rate x min_probe_delta`, at least `min_packet_size`) otherwise. A cluster more
//! than `max_probe_delay` late is dropped; clusters older than 5 s, or beyond 5 pending,
//! are discarded when a new one arrives.
//!
//! Simplification: probing starts at once (libwebrtc waits for one media packet of at
//! least min(recommended size, 200 B) unless `allow_start_probing_immediately`; a video
//! sender has one within a frame interval).

use super::probe_controller::ProbeCluster;
use super::probe_estimator::ProbeTag;
use crate::units::{Bitrate, DataSize, TimeDelta, Timestamp};
use std::collections::VecDeque;

/// `kProbeClusterTimeout` (bitrate_prober.cc).
pub const PROBE_CLUSTER_TIMEOUT: TimeDelta = TimeDelta::secs(5);
/// `kMaxPendingProbeClusters` (bitrate_prober.cc).
pub const MAX_PENDING_PROBE_CLUSTERS: usize = 5;

/// `BitrateProberConfig` (bitrate_prober.cc), default field-trial values.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BitrateProberConfig {
    /// `min_probe_delta` = 2 ms: the recommended probe packet carries this much time.
    pub min_probe_delta: TimeDelta,
    /// `max_probe_delay` = 10 ms.
    pub max_probe_delay: TimeDelta,
    /// `min_packet_size` = 200 B.
    pub min_packet_size: DataSize,
}

impl Default for BitrateProberConfig {
    fn default() -> Self {
        Self {
            min_probe_delta: TimeDelta::millis(2),
            max_probe_delay: TimeDelta::millis(10),
            min_packet_size: DataSize::bytes(200),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
struct Active {
    cluster: ProbeCluster,
    min_bytes: DataSize,
    started_at: Option<Timestamp>,
    sent_bytes: DataSize,
    sent_probes: u32,
}

/// `BitrateProber`.
#[derive(Debug, Clone, PartialEq)]
pub struct BitrateProber {
    cfg: BitrateProberConfig,
    clusters: VecDeque<Active>,
    /// `None` = at once (`MinusInfinity` in libwebrtc).
    next_probe_time: Option<Timestamp>,
}

impl BitrateProber {
    pub fn new(cfg: BitrateProberConfig) -> Self {
        Self {
            cfg,
            clusters: VecDeque::new(),
            next_probe_time: None,
        }
    }

    /// `CreateProbeCluster`.
    pub fn create_cluster(&mut self, c: ProbeCluster) {
        while let Some(front) = self.clusters.front() {
            let old = c.at.saturating_since(front.cluster.at) > PROBE_CLUSTER_TIMEOUT;
            if old || self.clusters.len() > MAX_PENDING_PROBE_CLUSTERS {
                self.clusters.pop_front();
            } else {
                break;
            }
        }
        if self.clusters.is_empty() {
            self.next_probe_time = None;
        }
        self.clusters.push_back(Active {
            cluster: c,
            min_bytes: c.rate * c.duration,
            started_at: None,
            sent_bytes: DataSize::ZERO,
            sent_probes: 0,
        });
    }

    pub fn is_probing(&self) -> bool {
        !self.clusters.is_empty()
    }

    /// When the next probe packet is due (`None` when not probing; `now` if at once).
    pub fn next_probe_time(&self, now: Timestamp) -> Option<Timestamp> {
        if self.clusters.is_empty() {
            return None;
        }
        Some(self.next_probe_time.unwrap_or(now))
    }

    /// `CurrentCluster`: the cluster a packet sent at `now` belongs to, if one is due;
    /// a cluster more than `max_probe_delay` late is dropped.
    pub fn current_cluster(&mut self, now: Timestamp) -> Option<ProbeTag> {
        if let Some(t) = self.next_probe_time {
            if now.saturating_since(t) > self.cfg.max_probe_delay {
                self.clusters.pop_front();
                self.next_probe_time = None;
            }
            if now < t {
                return None;
            }
        }
        let a = self.clusters.front()?;
        Some(ProbeTag {
            cluster: a.cluster.id,
            min_probes: a.cluster.min_probes,
            min_bytes: a.min_bytes,
        })
    }

    /// `RecommendedMinProbeSize`: rate x min_probe_delta, at least `min_packet_size`.
    pub fn recommended_probe_size(&self) -> DataSize {
        match self.clusters.front() {
            Some(a) => (a.cluster.rate * self.cfg.min_probe_delta).max(self.cfg.min_packet_size),
            None => DataSize::ZERO,
        }
    }

    /// `ProbeSent`.
    pub fn probe_sent(&mut self, now: Timestamp, size: DataSize) {
        let Some(a) = self.clusters.front_mut() else {
            return;
        };
        let start = *a.started_at.get_or_insert(now);
        a.sent_bytes += size;
        a.sent_probes += 1;
        let rate: Bitrate = a.cluster.rate;
        let delta = if rate > Bitrate::ZERO {
            a.sent_bytes / rate
        } else {
            TimeDelta::ZERO
        };
        self.next_probe_time = Some(start + delta);
        if a.sent_bytes >= a.min_bytes && a.sent_probes >= a.cluster.min_probes {
            self.clusters.pop_front();
            if self.clusters.is_empty() {
                self.next_probe_time = None;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cluster(id: u32, kbps: f64, at: Timestamp) -> ProbeCluster {
        ProbeCluster {
            id,
            at,
            rate: Bitrate::kbps(kbps),
            duration: TimeDelta::millis(15),
            min_probes: 5,
        }
    }

    #[test]
    fn a_cluster_sends_min_bytes_and_packets_at_its_rate() {
        let mut p = BitrateProber::new(BitrateProberConfig::default());
        let t0 = Timestamp::from_millis(100);
        p.create_cluster(cluster(7, 1800.0, t0));
        // 1800 kbit/s x 2 ms = 450 B; the cluster needs 1800 x 15 ms = 3375 B, 5 packets.
        assert_eq!(p.recommended_probe_size(), DataSize::bytes(450));
        let mut now = t0;
        let mut sent = 0;
        while let Some(tag) = p.current_cluster(now) {
            assert_eq!(tag.cluster, 7);
            assert_eq!(tag.min_bytes, DataSize::bytes(3375));
            p.probe_sent(now, DataSize::bytes(450));
            sent += 1;
            match p.next_probe_time(now) {
                Some(t) => now = t,
                None => break,
            }
        }
        assert_eq!(sent, 8, "3375 B in 450 B packets");
        // 8 x 450 B at 1.8 Mbit/s: the 8th packet went 7 x 2 ms after the first.
        assert_eq!(now, t0 + TimeDelta::millis(14));
        assert!(!p.is_probing());
    }

    #[test]
    fn a_late_cluster_is_dropped_and_min_packet_size_applies() {
        let mut p = BitrateProber::new(BitrateProberConfig::default());
        let t0 = Timestamp::from_millis(0);
        p.create_cluster(cluster(1, 300.0, t0));
        assert_eq!(
            p.recommended_probe_size(),
            DataSize::bytes(200),
            "75 B raised to 200"
        );
        p.current_cluster(t0).unwrap();
        p.probe_sent(t0, DataSize::bytes(200)); // next at 200 B / 300 kbit/s = 5.33 ms
        assert_eq!(
            p.current_cluster(t0 + TimeDelta::millis(2)),
            None,
            "not yet due"
        );
        assert_eq!(
            p.current_cluster(t0 + TimeDelta::millis(20)),
            None,
            "late: dropped"
        );
        assert!(!p.is_probing());
    }
}
