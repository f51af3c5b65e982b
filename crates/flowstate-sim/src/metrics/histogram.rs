//! A bounded-memory histogram of durations and the statistics it reports (mean, median,
//! 95th percentile).

use flowstate_core::TimeDelta;
use serde::{Deserialize, Serialize};

/// A bounded-memory histogram of non-negative durations in microseconds:
/// 0.1 ms buckets up to 100 ms, 1 ms buckets up to 1 s, 10 ms buckets up to 10 s, one
/// overflow bucket (2 801 buckets) that reports the maximum. Quantiles are the midpoint of the bucket
/// holding the nearest-rank sample, clamped to the exact observed min and max, so the
/// error is at most half a bucket (<= 0.05 ms below 100 ms, <= 1 % above).
///
/// The buckets are stored in pages of [`PAGE`] counts allocated when a sample first
/// falls in them: a flow's samples span a few pages (128 B each), so a histogram holds
/// ~1-4 kB instead of 22 kB (10 000 flows, two histograms each: tens of MB instead of
/// 450 MB).
///
/// Recording touches one cache line: the count, sum, min and max sit in the struct's
/// first 64 bytes with a buffer of the last [`PENDING`] samples' bucket numbers, which
/// go into the pages [`PENDING`] at a time. With thousands of flows a flow's pages are
/// rarely in cache when its next packet comes, so this pays the page table's and the
/// page's cache misses once per [`PENDING`] samples instead of on every sample (the
/// same counts: only when they are added changes).
#[derive(Debug, Clone)]
#[repr(C, align(64))]
pub struct Histogram {
    n: u64,
    sum_us: f64,
    min_us: u64,
    max_us: u64,
    /// Buckets of the samples not yet counted in `pages` (the first `pending_len`).
    pending: [u16; PENDING],
    pending_len: u8,
    /// `page_of[p]`: 1 + index in `pages` of bucket page `p`, 0 while it is empty
    /// (allocated with the first sample). Empty until the first flush.
    page_of: Vec<u16>,
    /// Counts per bucket: u32 (a flow would need 4.3 x 10^9 samples in one bucket,
    /// every packet of a 1 Gbit/s flow for 14 hours in one bucket, to saturate it).
    pages: Vec<[u32; PAGE]>,
}

const FINE_END: u64 = 100_000; // 100 ms
const MID_END: u64 = 1_000_000; // 1 s
const COARSE_END: u64 = 10_000_000; // 10 s
const N_BUCKETS: usize = 1000 + 900 + 900 + 1;
/// Buckets per page of a [`Histogram`].
const PAGE: usize = 32;
const N_PAGES: usize = N_BUCKETS.div_ceil(PAGE);
/// Samples a [`Histogram`] buffers before counting them into its pages (the buffer
/// and the running statistics fill one 64-byte cache line).
const PENDING: usize = 14;

impl Default for Histogram {
    fn default() -> Self {
        Self::new()
    }
}

/// Two histograms are equal when they hold the same samples' counts and statistics,
/// whatever their buffers hold.
impl PartialEq for Histogram {
    fn eq(&self, other: &Self) -> bool {
        let (a, b) = (self.settled(), other.settled());
        a.n == b.n
            && a.sum_us.to_bits() == b.sum_us.to_bits()
            && a.min_us == b.min_us
            && a.max_us == b.max_us
            && a.counts()
                .filter(|c| c.1 > 0)
                .eq(b.counts().filter(|c| c.1 > 0))
    }
}

impl Histogram {
    /// An empty histogram (allocates its pages when samples first need them).
    pub fn new() -> Self {
        Self {
            n: 0,
            sum_us: 0.0,
            min_us: u64::MAX,
            max_us: 0,
            pending: [0; PENDING],
            pending_len: 0,
            page_of: Vec::new(),
            pages: Vec::new(),
        }
    }

    fn bucket(us: u64) -> usize {
        if us < FINE_END {
            (us / 100) as usize
        } else if us < MID_END {
            1000 + ((us - FINE_END) / 1000) as usize
        } else if us < COARSE_END {
            1900 + ((us - MID_END) / 10_000) as usize
        } else {
            N_BUCKETS - 1
        }
    }

    /// `[low, high)` of bucket `i` in microseconds.
    fn bounds(i: usize) -> (u64, u64) {
        let i = i as u64;
        if i < 1000 {
            (i * 100, i * 100 + 100)
        } else if i < 1900 {
            let j = i - 1000;
            (FINE_END + j * 1000, FINE_END + j * 1000 + 1000)
        } else if i < 2800 {
            let j = i - 1900;
            (MID_END + j * 10_000, MID_END + j * 10_000 + 10_000)
        } else {
            (COARSE_END, u64::MAX)
        }
    }

    #[inline]
    pub fn record(&mut self, d: TimeDelta) {
        let us = d.as_micros().max(0) as u64;
        let mut k = usize::from(self.pending_len);
        if k >= PENDING {
            self.flush();
            k = 0;
        }
        if let Some(slot) = self.pending.get_mut(k) {
            // N_BUCKETS < 2^16.
            *slot = Self::bucket(us) as u16;
            self.pending_len = (k + 1) as u8;
        }
        self.n += 1;
        self.sum_us += us as f64;
        self.min_us = self.min_us.min(us);
        self.max_us = self.max_us.max(us);
    }

    /// Count the buffered samples into their pages.
    #[cold]
    fn flush(&mut self) {
        if self.page_of.is_empty() {
            self.page_of = vec![0; N_PAGES];
        }
        let len = usize::from(self.pending_len).min(PENDING);
        for &b in &self.pending[..len] {
            let b = usize::from(b);
            if let Some(p) = self.page_of.get_mut(b / PAGE) {
                if *p == 0 {
                    self.pages.push([0; PAGE]);
                    *p = self.pages.len() as u16;
                }
                if let Some(page) = self.pages.get_mut(usize::from(*p) - 1) {
                    page[b % PAGE] = page[b % PAGE].saturating_add(1);
                }
            }
        }
        self.pending_len = 0;
    }

    /// This histogram with every buffered sample counted (a copy only when some are
    /// buffered; the readers below run once per flow at the end of a run).
    fn settled(&self) -> std::borrow::Cow<'_, Histogram> {
        if self.pending_len == 0 {
            std::borrow::Cow::Borrowed(self)
        } else {
            let mut h = self.clone();
            h.flush();
            std::borrow::Cow::Owned(h)
        }
    }

    pub fn count(&self) -> u64 {
        self.n
    }

    /// `(bucket, count)` of every allocated bucket, in bucket order.
    fn counts(&self) -> impl Iterator<Item = (usize, u64)> + '_ {
        self.page_of
            .iter()
            .enumerate()
            .filter(|(_, &p)| p != 0)
            .flat_map(move |(k, &p)| {
                let page = self.pages.get(usize::from(p) - 1);
                (0..PAGE).filter_map(move |j| {
                    let i = k * PAGE + j;
                    (i < N_BUCKETS).then(|| (i, page.map_or(0, |pg| u64::from(pg[j]))))
                })
            })
    }

    /// Mean in milliseconds (`None` when empty).
    pub fn mean_ms(&self) -> Option<f64> {
        (self.n > 0).then(|| self.sum_us / self.n as f64 / 1000.0)
    }

    /// Quantile `q` in [0, 1] in milliseconds (nearest rank; `None` when empty).
    pub fn quantile_ms(&self, q: f64) -> Option<f64> {
        if self.n == 0 {
            return None;
        }
        let q = if q.is_nan() { 0.5 } else { q.clamp(0.0, 1.0) };
        let rank = ((q * self.n as f64).ceil() as u64).clamp(1, self.n);
        let h = self.settled();
        // Whole pages are skipped by their sum; only the page holding the rank is
        // walked bucket by bucket.
        let mut seen = 0u64;
        for (k, &p) in h.page_of.iter().enumerate() {
            let Some(page) = usize::from(p).checked_sub(1).and_then(|p| h.pages.get(p)) else {
                continue;
            };
            let total: u64 = page.iter().map(|&c| u64::from(c)).sum();
            if seen + total < rank {
                seen += total;
                continue;
            }
            for (j, &c) in page.iter().enumerate() {
                seen += u64::from(c);
                if seen >= rank {
                    let (lo, hi) = Self::bounds(k * PAGE + j);
                    // The overflow bucket reports the largest sample.
                    let mid = if hi == u64::MAX {
                        self.max_us as f64
                    } else {
                        (lo + hi) as f64 / 2.0
                    };
                    let v = mid.clamp(self.min_us as f64, self.max_us as f64);
                    return Some(v / 1000.0);
                }
            }
        }
        Some(self.max_us as f64 / 1000.0)
    }

    pub fn stats(&self) -> Stats {
        let h = self.settled();
        Stats {
            mean: h.mean_ms(),
            p50: h.quantile_ms(0.5),
            p95: h.quantile_ms(0.95),
        }
    }
}

/// Mean, median and 95th percentile in milliseconds (`null` in JSON when no samples).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Stats {
    pub mean: Option<f64>,
    pub p50: Option<f64>,
    pub p95: Option<f64>,
}

#[cfg(test)]
#[path = "histogram_tests.rs"]
mod tests;
