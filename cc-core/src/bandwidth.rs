//! A typed, saturating data rate: a rate is never a bare `f64` or `u64` whose unit a reader
//! must guess.

use std::fmt;
use std::time::Duration;

const NANOS_PER_SEC: u128 = 1_000_000_000;

/// A data rate, held in bits per second.
///
/// Every operation saturates instead of overflowing or panicking: a rate computed from
/// `u64::MAX` bytes over one nanosecond is [`Bandwidth::MAX`], and the bytes carried by
/// `Bandwidth::MAX` over a year are `u64::MAX`. A zero interval has no rate, so
/// [`Bandwidth::from_bytes_over`] returns `None` for it rather than dividing by zero.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Bandwidth {
    /// Bits per second.
    bits_per_second: u64,
}

impl Bandwidth {
    /// No data at all.
    pub const ZERO: Self = Self { bits_per_second: 0 };
    /// The largest representable rate (about 18.4 exabit/s), where saturating operations stop.
    pub const MAX: Self = Self {
        bits_per_second: u64::MAX,
    };

    /// A rate of `bits` bits per second.
    pub const fn from_bits_per_second(bits: u64) -> Self {
        Self {
            bits_per_second: bits,
        }
    }

    /// A rate of `bytes` bytes per second (saturating at [`Bandwidth::MAX`]).
    pub const fn from_bytes_per_second(bytes: u64) -> Self {
        Self {
            bits_per_second: bytes.saturating_mul(8),
        }
    }

    /// The rate at which `bytes` were carried over `interval`; `None` for a zero interval.
    ///
    /// Rounded down to a whole bit per second, saturating at [`Bandwidth::MAX`].
    pub fn from_bytes_over(bytes: u64, interval: Duration) -> Option<Self> {
        let nanos = interval.as_nanos();
        if nanos == 0 {
            return None;
        }
        // bytes x 8 x 1e9 < 2^64 x 2^3 x 2^30 = 2^97: no u128 overflow.
        let bits = u128::from(bytes) * 8 * NANOS_PER_SEC / nanos;
        Some(Self {
            bits_per_second: u64::try_from(bits).unwrap_or(u64::MAX),
        })
    }

    /// Bits per second.
    pub const fn bits_per_second(self) -> u64 {
        self.bits_per_second
    }

    /// Bytes per second (rounded down).
    pub const fn bytes_per_second(self) -> u64 {
        self.bits_per_second / 8
    }

    /// Whether the rate is zero.
    pub const fn is_zero(self) -> bool {
        self.bits_per_second == 0
    }

    /// Bytes carried at this rate over `interval` (rounded down, saturating at `u64::MAX`).
    ///
    /// With `interval` a round-trip time this is the bandwidth-delay product, the papers'
    /// `BWE x RTTmin` (Westwood) and `SEBW x MinRTT` (PETRA eq. 4.5).
    pub fn bytes_over(self, interval: Duration) -> u64 {
        // bits (< 2^64) x nanos (< 2^94) may exceed u128: saturate the product first.
        let bits = u128::from(self.bits_per_second).saturating_mul(interval.as_nanos());
        u64::try_from(bits / (8 * NANOS_PER_SEC)).unwrap_or(u64::MAX)
    }

    /// `self x factor` for a non-negative factor, saturating; NaN and negative factors give
    /// zero.
    pub fn mul_f64(self, factor: f64) -> Self {
        if factor.is_nan() || factor <= 0.0 {
            return Self::ZERO;
        }
        // `as` saturates at u64::MAX for values above it and maps infinity there too.
        Self {
            bits_per_second: (self.bits_per_second as f64 * factor) as u64,
        }
    }

    /// Sum of two rates, saturating.
    pub const fn saturating_add(self, other: Self) -> Self {
        Self {
            bits_per_second: self.bits_per_second.saturating_add(other.bits_per_second),
        }
    }
}

impl fmt::Display for Bandwidth {
    /// `812 b/s`, `12.50 kb/s`, `9.60 Mb/s`, `1.00 Gb/s` (decimal prefixes).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = self.bits_per_second as f64;
        match self.bits_per_second {
            0..1_000 => write!(f, "{} b/s", self.bits_per_second),
            1_000..1_000_000 => write!(f, "{:.2} kb/s", b / 1e3),
            1_000_000..1_000_000_000 => write!(f, "{:.2} Mb/s", b / 1e6),
            _ => write!(f, "{:.2} Gb/s", b / 1e9),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rate_from_bytes_over_an_interval() {
        // 1200 bytes in 1 ms = 1.2 MB/s = 9.6 Mb/s.
        let bw = Bandwidth::from_bytes_over(1200, Duration::from_millis(1)).unwrap();
        assert_eq!(bw.bits_per_second(), 9_600_000);
        assert_eq!(bw.bytes_per_second(), 1_200_000);
        assert_eq!(bw.to_string(), "9.60 Mb/s");
        // 1 byte in 3 s = 2.67 b/s, rounded down.
        let slow = Bandwidth::from_bytes_over(1, Duration::from_secs(3)).unwrap();
        assert_eq!(slow.bits_per_second(), 2);
        assert_eq!(slow.to_string(), "2 b/s");
    }

    #[test]
    fn zero_interval_has_no_rate() {
        assert_eq!(Bandwidth::from_bytes_over(1200, Duration::ZERO), None);
        assert_eq!(Bandwidth::from_bytes_over(0, Duration::ZERO), None);
        assert_eq!(
            Bandwidth::from_bytes_over(0, Duration::from_millis(5)),
            Some(Bandwidth::ZERO)
        );
    }

    #[test]
    fn saturates_at_the_overflow_edges() {
        // u64::MAX bytes in 1 ns: 2^64 x 8 x 1e9 bit/s does not fit in u64.
        let huge = Bandwidth::from_bytes_over(u64::MAX, Duration::from_nanos(1)).unwrap();
        assert_eq!(huge, Bandwidth::MAX);
        // The largest interval quinn could hand us.
        let tiny = Bandwidth::from_bytes_over(u64::MAX, Duration::MAX).unwrap();
        assert!(tiny < Bandwidth::from_bits_per_second(10));
        assert_eq!(Bandwidth::from_bytes_per_second(u64::MAX), Bandwidth::MAX);
        assert_eq!(Bandwidth::MAX.bytes_over(Duration::MAX), u64::MAX);
        assert_eq!(
            Bandwidth::MAX.bytes_over(Duration::from_secs(1)),
            u64::MAX / 8
        );
        assert_eq!(Bandwidth::ZERO.bytes_over(Duration::MAX), 0);
        assert_eq!(
            Bandwidth::MAX.saturating_add(Bandwidth::MAX),
            Bandwidth::MAX
        );
        assert_eq!(Bandwidth::MAX.mul_f64(2.0), Bandwidth::MAX);
        assert_eq!(Bandwidth::MAX.mul_f64(f64::INFINITY), Bandwidth::MAX);
        assert_eq!(Bandwidth::MAX.mul_f64(f64::NAN), Bandwidth::ZERO);
        assert_eq!(Bandwidth::MAX.mul_f64(-1.0), Bandwidth::ZERO);
        assert_eq!(Bandwidth::MAX.to_string(), "18446744073.71 Gb/s");
    }

    #[test]
    fn bandwidth_delay_product() {
        // 10 Mb/s x 100 ms = 1 Mbit = 125,000 bytes.
        let bw = Bandwidth::from_bits_per_second(10_000_000);
        assert_eq!(bw.bytes_over(Duration::from_millis(100)), 125_000);
        // 2 Mb/s x 90.02 ms (PETRA table 4.1: 2 x 45 ms + 2 x 0.01 ms) = 22,505 bytes.
        let bw = Bandwidth::from_bits_per_second(2_000_000);
        assert_eq!(bw.bytes_over(Duration::from_micros(90_020)), 22_505);
        assert_eq!(bw.bytes_over(Duration::ZERO), 0);
    }

    #[test]
    fn ordering_and_scaling() {
        let a = Bandwidth::from_bytes_per_second(1000);
        let b = Bandwidth::from_bytes_per_second(2000);
        assert!(a < b);
        assert_eq!(a.mul_f64(2.0), b);
        assert_eq!(b.mul_f64(0.5), a);
        assert!(Bandwidth::ZERO.is_zero());
        assert_eq!(a.saturating_add(a), b);
    }
}
