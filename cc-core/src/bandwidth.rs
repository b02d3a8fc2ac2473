//! A typed, saturating data rate: a rate is never a bare `f64` or `u64` whose unit a reader
//! must guess.

use std::fmt;
use std::time::Duration;

const NANOS_PER_SEC: u128 = 1_000_000_000;
/// Bits per byte times nanoseconds per second: a rate's numerator per byte.
const BITS_PER_BYTE_NANOS: u64 = 8 * 1_000_000_000;
/// 2^63: below it an `f64` rate converts to and from `i64` exactly as to and from `u64`.
const I64_BOUND: f64 = 9_223_372_036_854_775_808.0;
/// The most bytes whose numerator `bytes x 8 x 1e9` fits in a `u64`.
const MAX_BYTES_IN_U64: u64 = u64::MAX / BITS_PER_BYTE_NANOS;

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
    #[inline]
    pub fn from_bytes_over(bytes: u64, interval: Duration) -> Option<Self> {
        let nanos = interval.as_nanos();
        if nanos == 0 {
            return None;
        }
        // The same floor division in u64 whenever both operands fit (every real sample: up to
        // 2.3 GB over up to 584 years), because a u128 division is a library call several
        // times slower and this runs once per ACK frame.
        if bytes <= MAX_BYTES_IN_U64
            && let Ok(nanos) = u64::try_from(nanos)
        {
            return Some(Self {
                bits_per_second: bytes * BITS_PER_BYTE_NANOS / nanos,
            });
        }
        // bytes x 8 x 1e9 < 2^64 x 2^3 x 2^30 = 2^97: no u128 overflow.
        let bits = u128::from(bytes) * 8 * NANOS_PER_SEC / nanos;
        Some(Self {
            bits_per_second: u64::try_from(bits).unwrap_or(u64::MAX),
        })
    }

    /// The rate of `bits` bits per second rounded to the nearest whole bit per second, halves
    /// away from zero: exactly `Self::from_bits_per_second(bits.round() as u64)`, so negative
    /// and NaN rates are zero and rates beyond [`Bandwidth::MAX`] saturate there.
    ///
    /// Without SSE4.1 (the x86-64 baseline) `f64::round` is a libm call; this is two
    /// conversions and a compare, inline. Why they agree: below 2^52 the integer part `i` is
    /// exact in both types, so the fraction `x - i` is exact and `>= 0.5` is round's half
    /// away from zero; from 2^52 every `f64` is an integer and the fraction is 0; `as` maps
    /// negative values and NaN to 0 and saturates above `u64::MAX` as round's result does.
    #[inline]
    pub fn from_bits_per_second_rounded(bits: f64) -> Self {
        // Below 2^63 (every real rate) through `i64`: on x86-64 its conversions are single
        // instructions and `u64`'s are sequences. The same values either way.
        if (0.0..I64_BOUND).contains(&bits) {
            let whole = bits as i64;
            let up = bits - whole as f64 >= 0.5;
            return Self {
                bits_per_second: whole as u64 + u64::from(up),
            };
        }
        let whole = bits as u64;
        let up = bits - whole as f64 >= 0.5;
        Self {
            bits_per_second: whole.saturating_add(u64::from(up)),
        }
    }

    /// Bits per second as an `f64`: `bits_per_second() as f64`, through `i64` where it fits
    /// (the same value; on x86-64 one instruction instead of a sequence).
    #[inline]
    pub fn bits_per_second_f64(self) -> f64 {
        match i64::try_from(self.bits_per_second) {
            Ok(bits) => bits as f64,
            Err(_) => self.bits_per_second as f64,
        }
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

    /// The u128 formula the u64 fast path must reproduce.
    fn reference_rate(bytes: u64, interval: Duration) -> Option<u64> {
        let nanos = interval.as_nanos();
        (nanos != 0).then(|| {
            u64::try_from(u128::from(bytes) * 8 * NANOS_PER_SEC / nanos).unwrap_or(u64::MAX)
        })
    }

    #[test]
    fn the_u64_division_agrees_with_the_u128_one_on_both_sides_of_its_bounds() {
        let byte_counts = [
            0,
            1,
            1200,
            65_535,
            MAX_BYTES_IN_U64 - 1,
            MAX_BYTES_IN_U64,
            MAX_BYTES_IN_U64 + 1,
            u64::MAX,
        ];
        let intervals = [
            Duration::from_nanos(1),
            Duration::from_nanos(7),
            Duration::from_micros(1_337),
            Duration::from_millis(45),
            Duration::from_secs(3),
            Duration::from_nanos(u64::MAX),
            Duration::from_nanos(u64::MAX) + Duration::from_nanos(1),
            Duration::MAX,
        ];
        // And a pseudo-random spread between them (a fixed LCG: the same cases every run).
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = || {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            x
        };
        let spread: Vec<(u64, Duration)> = (0..10_000)
            .map(|_| {
                let bytes = next() >> (next() % 64);
                let nanos = next() >> (next() % 64);
                (bytes, Duration::from_nanos(nanos.max(1)))
            })
            .collect();
        let grid = byte_counts
            .iter()
            .flat_map(|&b| intervals.iter().map(move |&i| (b, i)));
        for (bytes, interval) in grid.chain(spread) {
            assert_eq!(
                Bandwidth::from_bytes_over(bytes, interval).map(Bandwidth::bits_per_second),
                reference_rate(bytes, interval),
                "{bytes} bytes over {interval:?}"
            );
        }
    }

    #[test]
    fn rounding_inline_is_f64_round() {
        let specials = [
            0.0,
            -0.0,
            0.49999999999999994,
            0.5,
            1.5,
            2.5,
            -0.5,
            -0.7,
            -3.5,
            4_503_599_627_370_495.5, // 2^52 - 0.5: the last half an f64 can hold
            4_503_599_627_370_496.0,
            9_223_372_036_854_775_808.0,  // 2^63
            18_446_744_073_709_549_568.0, // the largest f64 below 2^64
            18_446_744_073_709_551_616.0, // 2^64
            1e30,
            f64::MAX,
            f64::MIN_POSITIVE,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
        ];
        let mut x: u64 = 1;
        let mut next = || {
            x = x
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            x
        };
        // Random bit patterns (every exponent) and random rates with a random fraction.
        let random = (0..100_000).flat_map(|_| {
            let bits = f64::from_bits(next());
            let rate = (next() >> (next() % 64)) as f64 + (next() % 1024) as f64 / 1024.0;
            [bits, rate]
        });
        for v in specials.into_iter().chain(random) {
            assert_eq!(
                Bandwidth::from_bits_per_second_rounded(v).bits_per_second(),
                v.round() as u64,
                "{v:e}"
            );
        }
    }

    #[test]
    fn the_f64_rate_is_the_u64_rate_converted() {
        let edges = [
            0,
            1,
            (1 << 53) + 1,
            i64::MAX as u64,
            (i64::MAX as u64) + 1,
            u64::MAX,
        ];
        let mut x: u64 = 7;
        let random = (0..10_000).map(|_| {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            x >> (x % 64)
        });
        for bits in edges.into_iter().chain(random) {
            let rate = Bandwidth::from_bits_per_second(bits);
            assert_eq!(
                rate.bits_per_second_f64().to_bits(),
                (bits as f64).to_bits(),
                "{bits}"
            );
        }
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
