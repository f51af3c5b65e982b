//! Per-link metrics, beside the per-flow ones of crate::metrics (docs/SCENARIOS.md,
//! "Per-link metrics"). Every packet that crosses a link counts there, data and
//! feedback of every flow alike:
//!
//! - Arrivals: packets offered to the link (a flow's first link, or the next link of
//!   its route).
//! - Drops: packets the queue discarded (arrivals the full queue refused, and an
//!   active discipline's drops; crate::queue); lost: packets random loss took after
//!   their serialization.
//! - For an active queue discipline, the `queue` part of the summary: drops by reason
//!   (over the limit, AQM), CE marks by reason (AQM, delay step), counted when the
//!   marked packet starts serialization, and the sojourn time per sub-queue.
//! - Throughput: bytes whose serialization ended in the window (a randomly lost packet
//!   used the link too) x 8 / window length; utilization: those bits / the link's
//!   capacity integrated over the window (RFC 8868 section 2's "bottleneck link
//!   utilization", per link).
//! - Queuing delay: per packet, the wait in this link's queue before its own
//!   serialization started; mean, median and 95th percentile.
//! - Peak queue: the most bytes waiting behind the packet in service, seen at an
//!   arrival.
//!
//! Window statistics cover `[window_start, window_end)`; bins (the flows' bin width)
//! cover the whole run, one row per link per bin, closed lazily when a later packet or
//! the end of the run comes.

use crate::link::LinkConfig;
use crate::metrics::{Histogram, LinkSummary, MetricsConfig, QueueSummary};
use crate::queue::{Class, Discipline, DropReason, MarkReason};
use flowstate_core::{TimeDelta, Timestamp};
use serde::{Deserialize, Serialize};
use std::io::Write;

/// One row of the per-link time series: one link, one bin.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LinkSeriesRow {
    /// Start of the bin, seconds.
    pub time_s: f64,
    pub link: String,
    pub throughput_mbps: f64,
    /// Mean capacity over the bin.
    pub capacity_mbps: f64,
    pub utilization: f64,
    /// Mean queuing delay of the packets that started serialization in the bin.
    pub queuing_delay_ms: Option<f64>,
    pub max_queue_bytes: u64,
    pub arrived_packets: u64,
    pub dropped_packets: u64,
    pub lost_packets: u64,
}

#[derive(Debug, Clone, Default)]
struct BinAcc {
    bytes_out: u64,
    arrived: u64,
    dropped: u64,
    lost: u64,
    wait_sum_us: f64,
    wait_n: u64,
    max_queue: u64,
}

#[derive(Debug, Clone, Default)]
struct WindowAcc {
    bytes_out: u64,
    arrived: u64,
    dropped: u64,
    lost: u64,
    wait: Histogram,
    max_queue: u64,
    /// An active discipline's counts (`None` for drop-tail).
    aqm: Option<Box<AqmAcc>>,
}

#[derive(Debug, Clone, Default)]
struct AqmAcc {
    overlimit_drops: u64,
    aqm_drops: u64,
    aqm_marks: u64,
    step_marks: u64,
    classic: Histogram,
    l4s: Histogram,
}

impl AqmAcc {
    fn count_drop(&mut self, reason: DropReason) {
        match reason {
            DropReason::Overlimit => self.overlimit_drops += 1,
            DropReason::Aqm => self.aqm_drops += 1,
        }
    }

    fn summary(&self, discipline: &Discipline) -> QueueSummary {
        QueueSummary {
            discipline: discipline.name().to_string(),
            overlimit_drops: self.overlimit_drops,
            aqm_drops: self.aqm_drops,
            aqm_marks: self.aqm_marks,
            step_marks: self.step_marks,
            classic_sojourn_ms: self.classic.stats(),
            l4s_sojourn_ms: matches!(discipline, Discipline::DualPi2(_)).then(|| self.l4s.stats()),
        }
    }
}

#[derive(Debug, Clone)]
struct LinkAcc {
    name: String,
    config: LinkConfig,
    bin: BinAcc,
    window: WindowAcc,
}

/// The streaming per-link collector.
#[derive(Debug, Clone)]
pub struct LinkMetrics {
    bin: TimeDelta,
    window_start: Timestamp,
    window_end: Timestamp,
    links: Vec<LinkAcc>,
    bin_start: Timestamp,
    rows: Vec<LinkSeriesRow>,
    /// Keep the rows ([`MetricsConfig::series`]).
    series: bool,
}

impl LinkMetrics {
    /// `links[k]`: link `k`'s name and configuration.
    pub fn new(config: &MetricsConfig, links: Vec<(String, LinkConfig)>) -> Self {
        Self {
            bin: config.bin.max(TimeDelta::from_micros(1)),
            window_start: config.window_start,
            window_end: config.window_end,
            links: links
                .into_iter()
                .map(|(name, config)| LinkAcc {
                    name,
                    window: WindowAcc {
                        aqm: (config.discipline != Discipline::DropTail)
                            .then(Box::<AqmAcc>::default),
                        ..WindowAcc::default()
                    },
                    config,
                    bin: BinAcc::default(),
                })
                .collect(),
            bin_start: Timestamp::ZERO,
            rows: Vec::new(),
            series: config.series,
        }
    }

    #[inline]
    fn in_window(&self, t: Timestamp) -> bool {
        t >= self.window_start && t < self.window_end
    }

    /// Close every bin that ended before `now`.
    #[inline]
    fn advance(&mut self, now: Timestamp) {
        while now >= self.bin_start + self.bin {
            self.close_bin(self.bin_start + self.bin);
        }
    }

    fn close_bin(&mut self, end: Timestamp) {
        let secs = (end - self.bin_start).as_secs_f64().max(1e-9);
        for l in &mut self.links {
            let b = std::mem::take(&mut l.bin);
            if !self.series {
                continue;
            }
            let cap = l.config.capacity_bits(self.bin_start, end);
            self.rows.push(LinkSeriesRow {
                time_s: self.bin_start.as_secs_f64(),
                link: l.name.clone(),
                throughput_mbps: b.bytes_out as f64 * 8.0 / secs / 1e6,
                capacity_mbps: cap / secs / 1e6,
                utilization: if cap > 0.0 {
                    b.bytes_out as f64 * 8.0 / cap
                } else {
                    0.0
                },
                queuing_delay_ms: (b.wait_n > 0).then(|| b.wait_sum_us / b.wait_n as f64 / 1000.0),
                max_queue_bytes: b.max_queue,
                arrived_packets: b.arrived,
                dropped_packets: b.dropped,
                lost_packets: b.lost,
            });
        }
        self.bin_start = end;
    }

    /// A packet arrived at link `link`; `dropped`: the queue refused or dropped it, and
    /// why; `queued`: the bytes waiting after it was queued (or refused).
    #[inline]
    pub fn on_arrive(
        &mut self,
        now: Timestamp,
        link: usize,
        dropped: Option<DropReason>,
        queued: u64,
    ) {
        self.advance(now);
        let inw = self.in_window(now);
        if let Some(l) = self.links.get_mut(link) {
            if let (Some(reason), true, Some(a)) = (dropped, inw, l.window.aqm.as_mut()) {
                a.count_drop(reason);
            }
            let d = u64::from(dropped.is_some());
            l.bin.arrived += 1;
            l.bin.dropped += d;
            l.bin.max_queue = l.bin.max_queue.max(queued);
            if inw {
                l.window.arrived += 1;
                l.window.dropped += d;
                l.window.max_queue = l.window.max_queue.max(queued);
            }
        }
    }

    /// The discipline of `link` discarded a queued packet (not an arrival: those count
    /// in [`LinkMetrics::on_arrive`]).
    pub fn on_drop(&mut self, now: Timestamp, link: usize, reason: DropReason) {
        self.advance(now);
        let inw = self.in_window(now);
        if let Some(l) = self.links.get_mut(link) {
            l.bin.dropped += 1;
            if inw {
                l.window.dropped += 1;
                if let Some(a) = l.window.aqm.as_mut() {
                    a.count_drop(reason);
                }
            }
        }
    }

    /// A packet started serialization on `link` after waiting `waited` in its queue
    /// (sub-queue `class`), with the mark the discipline set on it, if any.
    #[inline]
    pub fn on_start(
        &mut self,
        now: Timestamp,
        link: usize,
        waited: TimeDelta,
        mark: Option<MarkReason>,
        class: Class,
    ) {
        self.advance(now);
        let inw = self.in_window(now);
        if let Some(l) = self.links.get_mut(link) {
            l.bin.wait_sum_us += waited.as_micros() as f64;
            l.bin.wait_n += 1;
            if inw {
                l.window.wait.record(waited);
                if let Some(a) = l.window.aqm.as_mut() {
                    match mark {
                        Some(MarkReason::Aqm) => a.aqm_marks += 1,
                        Some(MarkReason::Step) => a.step_marks += 1,
                        None => {}
                    }
                    match class {
                        Class::Classic => a.classic.record(waited),
                        Class::L4s => a.l4s.record(waited),
                    }
                }
            }
        }
    }

    /// A packet of `size` bytes finished serialization on `link`; `lost`: random loss
    /// took it.
    #[inline]
    pub fn on_finish(&mut self, now: Timestamp, link: usize, size: u32, lost: bool) {
        self.advance(now);
        let inw = self.in_window(now);
        if let Some(l) = self.links.get_mut(link) {
            l.bin.bytes_out += u64::from(size);
            l.bin.lost += u64::from(lost);
            if inw {
                l.window.bytes_out += u64::from(size);
                l.window.lost += u64::from(lost);
            }
        }
    }

    /// Close the run at `end` (the last bin shortened to end there) and summarize.
    pub fn finish(mut self, end: Timestamp) -> (Vec<LinkSummary>, Vec<LinkSeriesRow>) {
        while self.bin_start < end {
            let e = (self.bin_start + self.bin).min(end);
            self.close_bin(e);
        }
        let from = self.window_start.min(end);
        let to = self.window_end.min(end);
        let secs = (to - from).as_secs_f64();
        let summaries = self
            .links
            .iter()
            .map(|l| {
                let w = &l.window;
                let cap = l.config.capacity_bits(from, to);
                let bits = w.bytes_out as f64 * 8.0;
                LinkSummary {
                    name: l.name.clone(),
                    capacity_mbps: if secs > 0.0 { cap / secs / 1e6 } else { 0.0 },
                    throughput_mbps: if secs > 0.0 { bits / secs / 1e6 } else { 0.0 },
                    utilization: if cap > 0.0 { bits / cap } else { 0.0 },
                    queuing_delay_ms: w.wait.stats(),
                    max_queue_bytes: w.max_queue,
                    arrived_packets: w.arrived,
                    dropped_packets: w.dropped,
                    lost_packets: w.lost,
                    loss_ratio: if w.arrived > 0 {
                        (w.dropped + w.lost) as f64 / w.arrived as f64
                    } else {
                        0.0
                    },
                    queue: w.aqm.as_ref().map(|a| a.summary(&l.config.discipline)),
                }
            })
            .collect();
        (summaries, self.rows)
    }
}

/// Write the per-link time series as CSV (header + one line per row; empty cell = no
/// sample). Link names are validated to be free of commas and quotes.
pub fn write_link_series_csv<W: Write>(rows: &[LinkSeriesRow], mut out: W) -> std::io::Result<()> {
    writeln!(
        out,
        "time_s,link,throughput_mbps,capacity_mbps,utilization,queuing_delay_ms,max_queue_bytes,arrived_packets,dropped_packets,lost_packets"
    )?;
    for r in rows {
        writeln!(
            out,
            "{:.3},{},{:.6},{:.6},{:.6},{},{},{},{},{}",
            r.time_s,
            r.link,
            r.throughput_mbps,
            r.capacity_mbps,
            r.utilization,
            r.queuing_delay_ms
                .map(|x| format!("{x:.3}"))
                .unwrap_or_default(),
            r.max_queue_bytes,
            r.arrived_packets,
            r.dropped_packets,
            r.lost_packets
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::QueueLimit;
    use flowstate_core::Bitrate;

    fn cfg(window: (u64, u64)) -> MetricsConfig {
        MetricsConfig {
            bin: TimeDelta::secs(1),
            window_start: Timestamp::from_secs(window.0),
            window_end: Timestamp::from_secs(window.1),
            trace: false,
            series: true,
            trace_hash: true,
            ..MetricsConfig::default()
        }
    }

    #[test]
    fn utilization_drops_and_waits_by_hand() {
        let link =
            LinkConfig::constant(Bitrate::mbps(1.0), TimeDelta::ZERO, QueueLimit::Packets(5));
        let mut m = LinkMetrics::new(&cfg((1, 3)), vec![("a".into(), link)]);
        // 62 500 B finish per second = 0.5 Mbit/s on a 1 Mbit/s link, for 3 s; one
        // arrival in ten is dropped; every packet waits 2 ms; one loss in the window.
        for s in 0..3u64 {
            for k in 0..125u64 {
                let t = Timestamp::from_millis(s * 1000 + k * 8);
                m.on_arrive(
                    t,
                    0,
                    (k % 10 == 0).then_some(DropReason::Overlimit),
                    1500 + k,
                );
                m.on_start(t, 0, TimeDelta::millis(2), None, Class::Classic);
                m.on_finish(t, 0, 500, s == 1 && k == 0);
            }
        }
        let (sum, rows) = m.finish(Timestamp::from_secs(3));
        assert_eq!(rows.len(), 3);
        for r in &rows {
            assert!((r.utilization - 0.5).abs() < 1e-9, "{r:?}");
            assert_eq!(r.queuing_delay_ms, Some(2.0));
            assert_eq!(r.dropped_packets, 13);
        }
        let s = &sum[0];
        assert!((s.utilization - 0.5).abs() < 1e-9);
        assert!((s.throughput_mbps - 0.5).abs() < 1e-9);
        assert!((s.capacity_mbps - 1.0).abs() < 1e-9);
        assert_eq!(s.arrived_packets, 250);
        assert_eq!(s.dropped_packets, 26);
        assert_eq!(s.lost_packets, 1);
        assert!((s.loss_ratio - 27.0 / 250.0).abs() < 1e-12);
        assert_eq!(s.max_queue_bytes, 1500 + 124);
        assert_eq!(s.queuing_delay_ms.p50, Some(2.0));
    }

    #[test]
    fn bins_without_packets_are_rows_of_zeros_and_the_last_bin_is_shortened() {
        let link =
            LinkConfig::constant(Bitrate::mbps(2.0), TimeDelta::ZERO, QueueLimit::Packets(5));
        let mut m = LinkMetrics::new(&cfg((0, 10)), vec![("a".into(), link)]);
        m.on_finish(Timestamp::from_millis(3200), 0, 1000, false);
        let (_, rows) = m.finish(Timestamp::from_millis(4500));
        let times: Vec<f64> = rows.iter().map(|r| r.time_s).collect();
        assert_eq!(times, vec![0.0, 1.0, 2.0, 3.0, 4.0]);
        assert_eq!(rows[3].throughput_mbps, 0.008);
        assert_eq!(rows[2].throughput_mbps, 0.0);
        // The last bin is 0.5 s long: its capacity is still the rate.
        assert!((rows[4].capacity_mbps - 2.0).abs() < 1e-9);
    }
}
