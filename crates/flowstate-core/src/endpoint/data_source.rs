//! Application data sources for the reliable-transfer endpoints (SCTP data channel,
//! TCP cross traffic): what the application writes, and when.
//!
//! A source is polled by its sender with the sender's current buffered amount (bytes
//! written but not yet transmitted) and whether the transfer is idle (everything written
//! has been acknowledged). All randomness comes from a caller-seeded [`XorShift64`].

use super::app_pacing::AppPacing;
use crate::source::rng::{unit_f64, xorshift64star};
use crate::units::{Bitrate, DataSize, TimeDelta, Timestamp};

/// A small seeded PRNG (xorshift64*, the step of [`crate::source::rng`] with a
/// splitmix64-mixed seed), deterministic across platforms.
#[derive(Debug, Clone)]
pub struct XorShift64(u64);

impl XorShift64 {
    pub fn new(seed: u64) -> Self {
        // Zero is a fixed point of xorshift; mix the seed first (splitmix64 step).
        let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        XorShift64(if z == 0 { 1 } else { z })
    }
    pub fn next_u64(&mut self) -> u64 {
        xorshift64star(&mut self.0)
    }
    /// Uniform in [0, 1).
    pub fn next_f64(&mut self) -> f64 {
        unit_f64(self.next_u64())
    }
    /// Uniform integer in [lo, hi] (inclusive; `lo` if the range is empty).
    pub fn uniform_u64(&mut self, lo: u64, hi: u64) -> u64 {
        if hi <= lo {
            return lo;
        }
        let span = hi - lo;
        if span == u64::MAX {
            return self.next_u64();
        }
        lo + self.next_u64() % (span + 1)
    }
    /// Exponentially distributed with the given mean.
    pub fn exponential(&mut self, mean: TimeDelta) -> TimeDelta {
        let u = self.next_f64();
        // 1 - u is in (0, 1]: ln is finite.
        let x = -(1.0 - u).ln();
        TimeDelta::from_secs_f64(mean.as_secs_f64().max(0.0) * x)
    }
}

/// What the application does.
#[derive(Debug, Clone, PartialEq)]
pub enum SourceKind {
    /// Writes `message_size` messages whenever the buffered amount is below
    /// `buffer_limit`, until `total` bytes are written (`None` = forever). Paper 000's
    /// data channel: 256 KiB messages, 1.6 MiB bufferedAmount limit, 500 MB total.
    Greedy {
        message_size: DataSize,
        buffer_limit: DataSize,
        total: Option<DataSize>,
    },
    /// Application-limited: one `message_size` message every `message_size / rate`,
    /// from `start` on, until `total` bytes are written (`None` = forever).
    Rate {
        rate: Bitrate,
        message_size: DataSize,
        start: Timestamp,
        total: Option<DataSize>,
    },
    /// Messages written at given times (sorted by the constructor).
    Schedule(Vec<(Timestamp, DataSize)>),
    /// Greedy while on: on for `on` at the start of every `period` (offset by `start`).
    /// Paper 002's TCP cross traffic: on 3 s every 12 s.
    OnOff {
        on: TimeDelta,
        period: TimeDelta,
        start: Timestamp,
        message_size: DataSize,
        buffer_limit: DataSize,
    },
    /// Short flows (RFC 8867 section 5.7): a file of uniform size in
    /// [`min_file`, `max_file`] (30-50 kB), written at once; when it is fully acked, an
    /// exponential idle time of mean `mean_idle` (10 s), then the next file.
    ShortFlows {
        min_file: DataSize,
        max_file: DataSize,
        mean_idle: TimeDelta,
        start: Timestamp,
        seed: u64,
    },
}

impl SourceKind {
    /// Paper 000's greedy data channel: 256 KiB messages, 1.6 MiB buffered limit.
    pub fn paper_greedy() -> Self {
        SourceKind::Greedy {
            message_size: DataSize::kibibytes(256),
            buffer_limit: DataSize::bytes(1_677_722),
            total: None,
        }
    }
    /// RFC 8867 5.7 short flows: 30-50 kB files, exponential idle with mean 10 s.
    pub fn rfc8867_short_flows(seed: u64) -> Self {
        SourceKind::ShortFlows {
            min_file: DataSize::kbytes(30),
            max_file: DataSize::kbytes(50),
            mean_idle: TimeDelta::secs(10),
            start: Timestamp::ZERO,
            seed,
        }
    }
    /// Paper 002 on/off TCP: on 3 s every 12 s.
    pub fn paper_on_off(start: Timestamp) -> Self {
        SourceKind::OnOff {
            on: TimeDelta::secs(3),
            period: TimeDelta::secs(12),
            start,
            message_size: DataSize::kibibytes(64),
            buffer_limit: DataSize::kibibytes(256),
        }
    }
}

#[derive(Debug, Clone)]
enum ShortState {
    /// Waiting until this time to write the next file.
    IdleUntil(Timestamp),
    /// A file has been written; waiting for it to be fully acked.
    Transferring,
}

/// A running data source.
#[derive(Debug, Clone)]
pub struct DataSource {
    kind: SourceKind,
    written: DataSize,
    messages: u64,
    next_rate_time: Option<Timestamp>,
    schedule_pos: usize,
    rng: XorShift64,
    short: ShortState,
    files_started: u64,
    /// The application paces its greedy writes (Web-API coupling).
    pacing: Option<AppPacing>,
}

impl DataSource {
    pub fn new(kind: SourceKind) -> Self {
        let mut kind = kind;
        let (seed, short) = match &kind {
            SourceKind::ShortFlows { seed, start, .. } => (*seed, ShortState::IdleUntil(*start)),
            _ => (0, ShortState::Transferring),
        };
        let next_rate_time = match &kind {
            SourceKind::Rate { start, .. } => Some(*start),
            _ => None,
        };
        if let SourceKind::Schedule(s) = &mut kind {
            s.sort_by_key(|(t, _)| *t);
        }
        DataSource {
            kind,
            written: DataSize::ZERO,
            messages: 0,
            next_rate_time,
            schedule_pos: 0,
            rng: XorShift64::new(seed),
            short,
            files_started: 0,
            pacing: None,
        }
    }

    /// Pace a greedy application's writes with `pacing` (message size and buffer cap
    /// from it); `None` writes as the source kind says. Other kinds ignore it.
    pub fn set_pacing(&mut self, pacing: Option<AppPacing>) {
        self.pacing = pacing;
    }
    /// A new pacing rate from `now` on (no effect without pacing).
    pub fn set_pacing_rate(&mut self, now: Timestamp, rate: Bitrate) {
        if let Some(p) = &mut self.pacing {
            p.set_rate(now, rate);
        }
    }
    pub fn pacing(&self) -> Option<&AppPacing> {
        self.pacing.as_ref()
    }

    pub fn kind(&self) -> &SourceKind {
        &self.kind
    }
    /// Bytes written by the application so far.
    pub fn written(&self) -> DataSize {
        self.written
    }
    /// Messages written so far.
    pub fn messages(&self) -> u64 {
        self.messages
    }
    /// Short flows: files started so far.
    pub fn files_started(&self) -> u64 {
        self.files_started
    }

    /// The next message the application writes at `now`, given the sender's `buffered`
    /// amount and whether the transfer is `idle` (all written data acknowledged). Call
    /// repeatedly until `None`.
    pub fn poll_message(
        &mut self,
        now: Timestamp,
        buffered: DataSize,
        idle: bool,
    ) -> Option<DataSize> {
        let size = match &mut self.kind {
            SourceKind::Greedy {
                message_size,
                buffer_limit,
                total,
            } => {
                if let Some(p) = &mut self.pacing {
                    if total.is_some_and(|t| self.written >= t) {
                        return None;
                    }
                    let mut size = p.take(now, buffered)?;
                    if let Some(total) = total {
                        size = size.min(total.saturating_sub(self.written));
                    }
                    size
                } else {
                    if buffered >= *buffer_limit || message_size.as_bytes() == 0 {
                        return None;
                    }
                    let mut size = *message_size;
                    if let Some(total) = total {
                        size = size.min(total.saturating_sub(self.written));
                    }
                    size
                }
            }
            SourceKind::Rate {
                rate,
                message_size,
                total,
                ..
            } => {
                let next = self.next_rate_time?;
                if now < next || message_size.as_bytes() == 0 {
                    return None;
                }
                let interval = (*message_size / *rate).max(TimeDelta::from_micros(1));
                self.next_rate_time = if interval == TimeDelta::MAX {
                    None
                } else {
                    Some(next + interval)
                };
                let mut size = *message_size;
                if let Some(total) = total {
                    size = size.min(total.saturating_sub(self.written));
                }
                size
            }
            SourceKind::Schedule(list) => {
                let (t, size) = *list.get(self.schedule_pos)?;
                if t > now {
                    return None;
                }
                self.schedule_pos += 1;
                size
            }
            SourceKind::OnOff {
                on,
                period,
                start,
                message_size,
                buffer_limit,
            } => {
                if now < *start || !period.is_positive() || message_size.as_bytes() == 0 {
                    return None;
                }
                let phase = (now - *start).as_micros() % period.as_micros();
                if phase >= on.as_micros() || buffered >= *buffer_limit {
                    return None;
                }
                *message_size
            }
            SourceKind::ShortFlows {
                min_file,
                max_file,
                mean_idle,
                ..
            } => match self.short {
                ShortState::IdleUntil(t) => {
                    if now < t {
                        return None;
                    }
                    self.short = ShortState::Transferring;
                    self.files_started += 1;
                    DataSize::bytes(
                        self.rng
                            .uniform_u64(min_file.as_bytes(), max_file.as_bytes()),
                    )
                }
                ShortState::Transferring => {
                    if idle && buffered == DataSize::ZERO {
                        let gap = self.rng.exponential(*mean_idle);
                        self.short = ShortState::IdleUntil(now + gap);
                    }
                    return None;
                }
            },
        };
        if size.as_bytes() == 0 {
            return None;
        }
        self.written += size;
        self.messages += 1;
        Some(size)
    }

    /// When the source next writes without being prompted by the sender's progress.
    pub fn next_wakeup(&self, now: Timestamp) -> Option<Timestamp> {
        match &self.kind {
            SourceKind::Greedy { .. } => self.pacing.as_ref().and_then(AppPacing::next_write),
            SourceKind::Rate { total, .. } => {
                if total.is_some_and(|t| self.written >= t) {
                    None
                } else {
                    self.next_rate_time
                }
            }
            SourceKind::Schedule(list) => list.get(self.schedule_pos).map(|(t, _)| *t),
            SourceKind::OnOff {
                on, period, start, ..
            } => {
                if !period.is_positive() {
                    return None;
                }
                if now < *start {
                    return Some(*start);
                }
                let phase = (now - *start).as_micros() % period.as_micros();
                if phase < on.as_micros() {
                    None // greedy while on: driven by sender progress
                } else {
                    Some(now + TimeDelta::from_micros(period.as_micros() - phase))
                }
            }
            SourceKind::ShortFlows { .. } => match self.short {
                ShortState::IdleUntil(t) => Some(t),
                ShortState::Transferring => None,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn greedy_fills_to_limit_and_total() {
        let mut s = DataSource::new(SourceKind::Greedy {
            message_size: DataSize::bytes(100),
            buffer_limit: DataSize::bytes(250),
            total: Some(DataSize::bytes(250)),
        });
        let now = Timestamp::ZERO;
        assert_eq!(
            s.poll_message(now, DataSize::bytes(0), true),
            Some(DataSize::bytes(100))
        );
        assert_eq!(
            s.poll_message(now, DataSize::bytes(100), true),
            Some(DataSize::bytes(100))
        );
        assert_eq!(s.poll_message(now, DataSize::bytes(250), true), None);
        assert_eq!(
            s.poll_message(now, DataSize::bytes(0), true),
            Some(DataSize::bytes(50))
        );
        assert_eq!(s.poll_message(now, DataSize::bytes(0), true), None);
    }

    #[test]
    fn rate_source_emits_at_rate() {
        // 1000-byte messages at 80 kbit/s = one every 100 ms.
        let mut s = DataSource::new(SourceKind::Rate {
            rate: Bitrate::kbps(80.0),
            message_size: DataSize::bytes(1000),
            start: Timestamp::ZERO,
            total: None,
        });
        let mut count = 0;
        let mut now = Timestamp::ZERO;
        while now <= Timestamp::from_millis(1000) {
            while s.poll_message(now, DataSize::ZERO, false).is_some() {
                count += 1;
            }
            now = s.next_wakeup(now).expect("rate source always wakes");
        }
        assert_eq!(count, 11); // t = 0, 100, ..., 1000 ms
    }

    #[test]
    fn on_off_only_writes_while_on() {
        let mut s = DataSource::new(SourceKind::paper_on_off(Timestamp::ZERO));
        assert!(s
            .poll_message(Timestamp::from_millis(2999), DataSize::ZERO, true)
            .is_some());
        assert!(s
            .poll_message(Timestamp::from_millis(3000), DataSize::ZERO, true)
            .is_none());
        assert_eq!(
            s.next_wakeup(Timestamp::from_millis(3000)),
            Some(Timestamp::from_secs(12))
        );
        assert!(s
            .poll_message(Timestamp::from_secs(12), DataSize::ZERO, true)
            .is_some());
    }

    #[test]
    fn short_flows_sizes_and_idle_distribution() {
        let mut s = DataSource::new(SourceKind::rfc8867_short_flows(7));
        let mut now = Timestamp::ZERO;
        let mut gaps = Vec::new();
        for _ in 0..400 {
            let size = s
                .poll_message(now, DataSize::ZERO, false)
                .expect("file starts");
            assert!((30_000..=50_000).contains(&size.as_bytes()));
            assert!(s.poll_message(now, DataSize::ZERO, false).is_none());
            // Transfer completes: the idle timer starts.
            assert!(s.poll_message(now, DataSize::ZERO, true).is_none());
            let next = s.next_wakeup(now).expect("idle until next file");
            gaps.push((next - now).as_secs_f64());
            now = next;
        }
        let mean = gaps.iter().sum::<f64>() / gaps.len() as f64;
        // Mean 10 s; standard error 10/sqrt(400) = 0.5 s.
        assert!((8.5..11.5).contains(&mean), "mean idle {mean}");
    }

    #[test]
    fn xorshift_is_seeded() {
        let a: Vec<u64> = (0..4)
            .map({
                let mut r = XorShift64::new(1);
                move |_| r.next_u64()
            })
            .collect();
        let b: Vec<u64> = (0..4)
            .map({
                let mut r = XorShift64::new(1);
                move |_| r.next_u64()
            })
            .collect();
        let c: Vec<u64> = (0..4)
            .map({
                let mut r = XorShift64::new(2);
                move |_| r.next_u64()
            })
            .collect();
        assert_eq!(a, b);
        assert_ne!(a, c);
        let mut r = XorShift64::new(0);
        assert!(r.next_u64() != 0);
    }
}
