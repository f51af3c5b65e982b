//! Unit types used throughout the core: time in integer microseconds, sizes in bytes,
//! rates in bits per second.
//!
//! Everything that crosses a module boundary carries its unit in its type
//! (`Bitrate::kbps(500)`, `DataSize::bytes(1200)`, `TimeDelta::millis(100)`), so a
//! rate can never be added to a size by accident. Conversions between units are the
//! physical ones: `rate * duration = size`, `size / duration = rate`,
//! `size / rate = duration`.
//!
//! Time never comes from a clock inside the core: callers pass `now: Timestamp`.

use std::fmt;
use std::ops::{Add, AddAssign, Div, Mul, Neg, Sub, SubAssign};

const MICROS_PER_SEC: i64 = 1_000_000;

/// `x.round() as i64`: rounds half away from zero, NaN to 0, saturates out of range;
/// the same result for every `f64`. `f64::round` is a call into libm on baseline
/// x86-64 (no SSE4.1 rounding instruction), and these conversions run on every paced
/// packet of the simulator (4.5 % of the catalogue's run time, docs/BENCHMARKS.md);
/// this is a truncating conversion and one compare.
#[inline]
pub fn round_to_i64(x: f64) -> i64 {
    // From 2^52 on every f64 is an integer (and `as` saturates beyond i64); also NaN.
    const EXACT: f64 = 4_503_599_627_370_496.0;
    if x.is_nan() || x.abs() >= EXACT {
        return x as i64;
    }
    let t = x as i64; // toward zero, exact below 2^52
    let frac = x - t as f64; // exact: the fractional part of x
    if frac >= 0.5 {
        t + 1
    } else if frac <= -0.5 {
        t - 1
    } else {
        t
    }
}

/// A point in time: microseconds since an arbitrary epoch chosen by the caller
/// (the simulator starts at zero; the real-network driver uses a monotonic clock).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Timestamp(u64);

impl Timestamp {
    /// The epoch.
    pub const ZERO: Timestamp = Timestamp(0);
    /// A time later than any real one; used for "never".
    pub const MAX: Timestamp = Timestamp(u64::MAX);

    pub const fn from_micros(us: u64) -> Self {
        Timestamp(us)
    }
    pub const fn from_millis(ms: u64) -> Self {
        Timestamp(ms.saturating_mul(1_000))
    }
    pub const fn from_secs(s: u64) -> Self {
        Timestamp(s.saturating_mul(1_000_000))
    }
    pub const fn as_micros(self) -> u64 {
        self.0
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / MICROS_PER_SEC as f64
    }
    /// `self - earlier`, or zero if `earlier` is later than `self`.
    pub fn saturating_since(self, earlier: Timestamp) -> TimeDelta {
        TimeDelta::from_micros(self.0.saturating_sub(earlier.0).min(i64::MAX as u64) as i64)
    }
}

impl Add<TimeDelta> for Timestamp {
    type Output = Timestamp;
    /// Saturates at [`Timestamp::ZERO`] and [`Timestamp::MAX`].
    fn add(self, rhs: TimeDelta) -> Timestamp {
        if rhs.0 >= 0 {
            Timestamp(self.0.saturating_add(rhs.0 as u64))
        } else {
            Timestamp(self.0.saturating_sub(rhs.0.unsigned_abs()))
        }
    }
}

impl AddAssign<TimeDelta> for Timestamp {
    fn add_assign(&mut self, rhs: TimeDelta) {
        *self = *self + rhs;
    }
}

impl Sub<TimeDelta> for Timestamp {
    type Output = Timestamp;
    fn sub(self, rhs: TimeDelta) -> Timestamp {
        self + (-rhs)
    }
}

impl Sub for Timestamp {
    type Output = TimeDelta;
    /// Signed difference; saturates at the bounds of `i64` microseconds.
    fn sub(self, rhs: Timestamp) -> TimeDelta {
        let diff = self.0 as i128 - rhs.0 as i128;
        TimeDelta(diff.clamp(i64::MIN as i128, i64::MAX as i128) as i64)
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.6}s", self.as_secs_f64())
    }
}

/// A signed span of time in microseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct TimeDelta(i64);

impl TimeDelta {
    pub const ZERO: TimeDelta = TimeDelta(0);
    pub const MAX: TimeDelta = TimeDelta(i64::MAX);

    pub const fn from_micros(us: i64) -> Self {
        TimeDelta(us)
    }
    pub const fn millis(ms: i64) -> Self {
        TimeDelta(ms.saturating_mul(1_000))
    }
    pub const fn secs(s: i64) -> Self {
        TimeDelta(s.saturating_mul(MICROS_PER_SEC))
    }
    /// From fractional seconds; NaN maps to zero, out-of-range values saturate.
    pub fn from_secs_f64(s: f64) -> Self {
        TimeDelta(round_to_i64(s * MICROS_PER_SEC as f64))
    }
    /// From fractional milliseconds; NaN maps to zero, out-of-range values saturate.
    pub fn from_millis_f64(ms: f64) -> Self {
        TimeDelta(round_to_i64(ms * 1_000.0))
    }
    pub const fn as_micros(self) -> i64 {
        self.0
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / MICROS_PER_SEC as f64
    }
    pub fn as_millis_f64(self) -> f64 {
        self.0 as f64 / 1_000.0
    }
    pub const fn is_positive(self) -> bool {
        self.0 > 0
    }
    pub fn abs(self) -> TimeDelta {
        TimeDelta(self.0.saturating_abs())
    }
    pub fn max(self, other: TimeDelta) -> TimeDelta {
        if self >= other {
            self
        } else {
            other
        }
    }
    pub fn min(self, other: TimeDelta) -> TimeDelta {
        if self <= other {
            self
        } else {
            other
        }
    }
}

impl Add for TimeDelta {
    type Output = TimeDelta;
    fn add(self, rhs: TimeDelta) -> TimeDelta {
        TimeDelta(self.0.saturating_add(rhs.0))
    }
}
impl AddAssign for TimeDelta {
    fn add_assign(&mut self, rhs: TimeDelta) {
        *self = *self + rhs;
    }
}
impl Sub for TimeDelta {
    type Output = TimeDelta;
    fn sub(self, rhs: TimeDelta) -> TimeDelta {
        TimeDelta(self.0.saturating_sub(rhs.0))
    }
}
impl SubAssign for TimeDelta {
    fn sub_assign(&mut self, rhs: TimeDelta) {
        *self = *self - rhs;
    }
}
impl Neg for TimeDelta {
    type Output = TimeDelta;
    fn neg(self) -> TimeDelta {
        TimeDelta(self.0.saturating_neg())
    }
}
impl Mul<i64> for TimeDelta {
    type Output = TimeDelta;
    fn mul(self, rhs: i64) -> TimeDelta {
        TimeDelta(self.0.saturating_mul(rhs))
    }
}
impl Mul<f64> for TimeDelta {
    type Output = TimeDelta;
    fn mul(self, rhs: f64) -> TimeDelta {
        TimeDelta(round_to_i64(self.0 as f64 * rhs))
    }
}
impl Div<i64> for TimeDelta {
    type Output = TimeDelta;
    fn div(self, rhs: i64) -> TimeDelta {
        TimeDelta(self.0.checked_div(rhs).unwrap_or(0))
    }
}

impl fmt::Display for TimeDelta {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.3}ms", self.as_millis_f64())
    }
}

/// An amount of data in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct DataSize(u64);

impl DataSize {
    pub const ZERO: DataSize = DataSize(0);
    pub const MAX: DataSize = DataSize(u64::MAX);

    pub const fn bytes(b: u64) -> Self {
        DataSize(b)
    }
    pub const fn kbytes(kb: u64) -> Self {
        DataSize(kb.saturating_mul(1_000))
    }
    pub const fn kibibytes(kib: u64) -> Self {
        DataSize(kib.saturating_mul(1_024))
    }
    pub const fn as_bytes(self) -> u64 {
        self.0
    }
    pub fn as_bits_f64(self) -> f64 {
        self.0 as f64 * 8.0
    }
    pub fn saturating_sub(self, rhs: DataSize) -> DataSize {
        DataSize(self.0.saturating_sub(rhs.0))
    }
    /// Rounded down to a whole multiple of `unit` (unchanged if `unit` is zero).
    pub fn round_down_to(self, unit: DataSize) -> DataSize {
        if unit.0 == 0 {
            self
        } else {
            DataSize(self.0 - self.0 % unit.0)
        }
    }
    pub fn max(self, other: DataSize) -> DataSize {
        DataSize(self.0.max(other.0))
    }
    pub fn min(self, other: DataSize) -> DataSize {
        DataSize(self.0.min(other.0))
    }
}

impl Add for DataSize {
    type Output = DataSize;
    fn add(self, rhs: DataSize) -> DataSize {
        DataSize(self.0.saturating_add(rhs.0))
    }
}
impl AddAssign for DataSize {
    fn add_assign(&mut self, rhs: DataSize) {
        *self = *self + rhs;
    }
}
impl Sub for DataSize {
    type Output = DataSize;
    /// Saturates at zero.
    fn sub(self, rhs: DataSize) -> DataSize {
        self.saturating_sub(rhs)
    }
}
impl SubAssign for DataSize {
    fn sub_assign(&mut self, rhs: DataSize) {
        *self = *self - rhs;
    }
}
impl Mul<u64> for DataSize {
    type Output = DataSize;
    fn mul(self, rhs: u64) -> DataSize {
        DataSize(self.0.saturating_mul(rhs))
    }
}
impl Div<u64> for DataSize {
    type Output = DataSize;
    fn div(self, rhs: u64) -> DataSize {
        DataSize(self.0.checked_div(rhs).unwrap_or(0))
    }
}
impl Div<TimeDelta> for DataSize {
    type Output = Bitrate;
    /// The rate that moves `self` in `rhs`; zero for a non-positive duration.
    fn div(self, rhs: TimeDelta) -> Bitrate {
        if rhs.0 <= 0 {
            Bitrate::ZERO
        } else {
            Bitrate::bps(self.as_bits_f64() / rhs.as_secs_f64())
        }
    }
}
impl Div<Bitrate> for DataSize {
    type Output = TimeDelta;
    /// The time `rhs` takes to move `self`; [`TimeDelta::MAX`] for a zero rate.
    fn div(self, rhs: Bitrate) -> TimeDelta {
        if rhs.0 <= 0.0 || rhs.0.is_nan() {
            TimeDelta::MAX
        } else {
            TimeDelta::from_secs_f64(self.as_bits_f64() / rhs.0)
        }
    }
}

impl fmt::Display for DataSize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}B", self.0)
    }
}

/// A data rate in bits per second. Finite and non-negative by construction through
/// [`Bitrate::bps`] (negative and NaN inputs become zero); [`Bitrate::INFINITY`] stands
/// for "unlimited" where an API says so.
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd, Default)]
pub struct Bitrate(f64);

impl Bitrate {
    pub const ZERO: Bitrate = Bitrate(0.0);
    /// "No limit", e.g. an unset desired rate.
    pub const INFINITY: Bitrate = Bitrate(f64::INFINITY);

    /// Bits per second; NaN and negative values are clamped to zero.
    pub fn bps(bps: f64) -> Self {
        if bps.is_nan() || bps < 0.0 {
            Bitrate(0.0)
        } else {
            Bitrate(bps)
        }
    }
    pub fn kbps(kbps: f64) -> Self {
        Self::bps(kbps * 1e3)
    }
    pub fn mbps(mbps: f64) -> Self {
        Self::bps(mbps * 1e6)
    }
    pub const fn as_bps(self) -> f64 {
        self.0
    }
    pub fn as_kbps(self) -> f64 {
        self.0 / 1e3
    }
    pub fn as_mbps(self) -> f64 {
        self.0 / 1e6
    }
    pub fn is_finite(self) -> bool {
        self.0.is_finite()
    }
    pub fn min(self, other: Bitrate) -> Bitrate {
        Bitrate(self.0.min(other.0))
    }
    pub fn max(self, other: Bitrate) -> Bitrate {
        Bitrate(self.0.max(other.0))
    }
    /// `self - rhs`, but never below zero.
    pub fn saturating_sub(self, rhs: Bitrate) -> Bitrate {
        Bitrate((self.0 - rhs.0).max(0.0))
    }
}

impl Add for Bitrate {
    type Output = Bitrate;
    fn add(self, rhs: Bitrate) -> Bitrate {
        Bitrate(self.0 + rhs.0)
    }
}
impl AddAssign for Bitrate {
    fn add_assign(&mut self, rhs: Bitrate) {
        self.0 += rhs.0;
    }
}
impl Sub for Bitrate {
    type Output = Bitrate;
    /// Saturates at zero; use [`Bitrate::as_bps`] for signed differences.
    fn sub(self, rhs: Bitrate) -> Bitrate {
        self.saturating_sub(rhs)
    }
}
impl Mul<f64> for Bitrate {
    type Output = Bitrate;
    fn mul(self, rhs: f64) -> Bitrate {
        Bitrate::bps(self.0 * rhs)
    }
}
impl Mul<TimeDelta> for Bitrate {
    type Output = DataSize;
    /// The data moved at this rate in `rhs` (rounded down to whole bytes; zero for a
    /// negative duration; saturating for an infinite rate).
    fn mul(self, rhs: TimeDelta) -> DataSize {
        // bit/s * us / (8 bit/B * 1e6 us/s): exact for integral rates, unlike a
        // detour through fractional seconds (0.2 s is not representable).
        let micros = rhs.0.max(0) as f64;
        let bytes = self.0 * micros / 8e6;
        if bytes.is_nan() {
            DataSize::ZERO
        } else {
            // `as` saturates at u64::MAX for infinite values.
            DataSize(bytes.floor() as u64)
        }
    }
}
impl Div<f64> for Bitrate {
    type Output = Bitrate;
    fn div(self, rhs: f64) -> Bitrate {
        Bitrate::bps(self.0 / rhs)
    }
}
impl Div for Bitrate {
    type Output = f64;
    /// The ratio of two rates.
    fn div(self, rhs: Bitrate) -> f64 {
        self.0 / rhs.0
    }
}

impl fmt::Display for Bitrate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_infinite() {
            write!(f, "unlimited")
        } else {
            write!(f, "{:.3}Mbit/s", self.as_mbps())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// `round_to_i64` is `f64::round` then `as i64` for every bit pattern (NaN,
        /// infinities, subnormals, huge values) and densely around the half-way points.
        #[test]
        fn round_to_i64_is_round_then_cast(bits in any::<u64>(), k in -5_000_000i64..5_000_000, eps in -3i64..=3) {
            let x = f64::from_bits(bits);
            prop_assert_eq!(round_to_i64(x), x.round() as i64);
            let half = k as f64 + 0.5;
            let near = f64::from_bits((half.to_bits() as i64 + eps) as u64);
            prop_assert_eq!(round_to_i64(near), near.round() as i64);
            let scaled = k as f64 * 0.731;
            prop_assert_eq!(round_to_i64(scaled), scaled.round() as i64);
        }
    }

    #[test]
    fn round_to_i64_edge_cases() {
        for x in [
            0.0,
            -0.0,
            0.5,
            -0.5,
            1.5,
            -1.5,
            2.5,
            -2.5,
            0.49999999999999994,
            -0.49999999999999994,
            4_503_599_627_370_495.5,
            4_503_599_627_370_496.0,
            9.3e18,
            -9.3e18,
            1e300,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::MIN_POSITIVE,
            5e-324,
        ] {
            assert_eq!(round_to_i64(x), x.round() as i64, "{x}");
        }
    }

    #[test]
    fn rate_times_duration_is_size() {
        // 1 Mbit/s for 100 ms = 100 kbit = 12_500 bytes.
        assert_eq!(
            Bitrate::mbps(1.0) * TimeDelta::millis(100),
            DataSize::bytes(12_500)
        );
    }

    #[test]
    fn size_over_duration_is_rate() {
        let r = DataSize::bytes(12_500) / TimeDelta::millis(100);
        assert!((r.as_bps() - 1e6).abs() < 1e-6);
        assert_eq!(DataSize::bytes(1) / TimeDelta::ZERO, Bitrate::ZERO);
    }

    #[test]
    fn size_over_rate_is_duration() {
        // 1200 bytes at 9.6 Mbit/s = 1 ms serialization.
        assert_eq!(
            DataSize::bytes(1200) / Bitrate::mbps(9.6),
            TimeDelta::millis(1)
        );
        assert_eq!(DataSize::bytes(1) / Bitrate::ZERO, TimeDelta::MAX);
    }

    #[test]
    fn bitrate_rejects_nan_and_negative() {
        assert_eq!(Bitrate::bps(f64::NAN), Bitrate::ZERO);
        assert_eq!(Bitrate::bps(-5.0), Bitrate::ZERO);
        assert_eq!(Bitrate::kbps(1.0) - Bitrate::kbps(2.0), Bitrate::ZERO);
    }

    #[test]
    fn rate_times_duration_is_exact_for_round_numbers() {
        // 0.5 Mbit/s * 200 ms = 12 500 B exactly (not 12 499 from 0.2 s rounding).
        assert_eq!(
            Bitrate::kbps(500.0) * TimeDelta::millis(200),
            DataSize::bytes(12_500)
        );
    }

    #[test]
    fn infinite_rate_times_duration_saturates() {
        assert_eq!(Bitrate::INFINITY * TimeDelta::millis(1), DataSize::MAX);
    }

    #[test]
    fn timestamp_arithmetic_saturates() {
        let t = Timestamp::from_millis(5);
        assert_eq!(t - TimeDelta::millis(10), Timestamp::ZERO);
        assert_eq!(Timestamp::MAX + TimeDelta::millis(1), Timestamp::MAX);
        assert_eq!(Timestamp::from_millis(3) - t, TimeDelta::millis(-2));
    }

    #[test]
    fn round_down_to_whole_units() {
        assert_eq!(
            DataSize::bytes(3599).round_down_to(DataSize::bytes(1200)),
            DataSize::bytes(2400)
        );
        assert_eq!(
            DataSize::bytes(7).round_down_to(DataSize::ZERO),
            DataSize::bytes(7)
        );
    }
}
