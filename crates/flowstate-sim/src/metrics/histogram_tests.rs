use super::*;

#[test]
fn histogram_quantiles_within_half_bucket() {
    let mut h = Histogram::new();
    // 1..=100 ms uniformly: p50 = 50 ms, p95 = 95 ms, mean 50.5 ms.
    for ms in 1..=100 {
        h.record(TimeDelta::millis(ms));
    }
    assert!((h.mean_ms().unwrap_or(0.0) - 50.5).abs() < 1e-9);
    let p50 = h.quantile_ms(0.5).unwrap_or(0.0);
    let p95 = h.quantile_ms(0.95).unwrap_or(0.0);
    assert!((p50 - 50.0).abs() <= 0.05 + 1e-9, "{p50}");
    assert!((p95 - 95.0).abs() <= 0.05 + 1e-9, "{p95}");
    // Mid range (1 ms buckets) and overflow.
    let mut h = Histogram::new();
    h.record(TimeDelta::millis(250));
    assert!((h.quantile_ms(0.5).unwrap_or(0.0) - 250.0).abs() <= 0.5);
    h.record(TimeDelta::secs(30));
    assert_eq!(h.quantile_ms(1.0), Some(30_000.0));
    assert_eq!(Histogram::new().quantile_ms(0.5), None);
}

proptest::proptest! {
    /// The paged buckets give the quantiles of a dense count array (every bucket
    /// present) for samples anywhere in the range, overflow included.
    #[test]
    fn paged_histogram_matches_dense_buckets(
        samples in proptest::collection::vec(0u64..12_000_000, 1..300),
        q in 0.0f64..1.0,
    ) {
        let mut h = Histogram::new();
        let mut dense = vec![0u64; N_BUCKETS];
        for &us in &samples {
            h.record(TimeDelta::from_micros(us as i64));
            dense[Histogram::bucket(us)] += 1;
        }
        let n = samples.len() as u64;
        let rank = ((q * n as f64).ceil() as u64).clamp(1, n);
        let (min, max) = (samples.iter().min().copied().unwrap_or(0), samples.iter().max().copied().unwrap_or(0));
        let mut seen = 0;
        let mut want = None;
        for (i, c) in dense.iter().enumerate() {
            seen += c;
            if seen >= rank {
                let (lo, hi) = Histogram::bounds(i);
                let mid = if hi == u64::MAX { max as f64 } else { (lo + hi) as f64 / 2.0 };
                want = Some(mid.clamp(min as f64, max as f64) / 1000.0);
                break;
            }
        }
        proptest::prop_assert_eq!(h.quantile_ms(q), want);
    }

    /// Buffering changes when a sample is counted, never the result: the samples
    /// in any split between two histograms' buffers and pages compare equal, and
    /// give the same statistics, as a histogram counting each sample at once.
    #[test]
    fn buffered_samples_count_like_immediate_ones(
        samples in proptest::collection::vec(0u64..12_000_000, 0..100),
    ) {
        let mut h = Histogram::new();
        let mut immediate = Histogram::new();
        for &us in &samples {
            h.record(TimeDelta::from_micros(us as i64));
            immediate.record(TimeDelta::from_micros(us as i64));
            immediate.flush();
        }
        proptest::prop_assert_eq!(h.stats(), immediate.stats());
        proptest::prop_assert!(h == immediate);
        proptest::prop_assert_eq!(h.count(), samples.len() as u64);
    }
}

#[test]
fn histogram_buffer_fits_one_cache_line() {
    // What every sample touches: n, sum, min, max, the buffer and its length.
    assert!(std::mem::offset_of!(Histogram, pending_len) < 64);
    assert_eq!(std::mem::align_of::<Histogram>(), 64);
    let mut h = Histogram::new();
    for _ in 0..PENDING {
        h.record(TimeDelta::millis(5));
    }
    // Nothing counted into pages until the buffer is full.
    assert!(h.pages.is_empty());
    h.record(TimeDelta::millis(5));
    assert_eq!(h.pages.len(), 1);
    assert_eq!(h.quantile_ms(0.5), Some(5.0));
}

#[test]
fn histogram_all_zero_reports_zero() {
    let mut h = Histogram::new();
    for _ in 0..10 {
        h.record(TimeDelta::ZERO);
    }
    assert_eq!(h.stats().p95, Some(0.0));
    assert_eq!(h.stats().mean, Some(0.0));
}
