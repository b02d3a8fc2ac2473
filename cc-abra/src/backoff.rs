//! ABRA's adaptive backoff factor (sections 4 and 5 of the paper), as plain arithmetic.

use std::time::Duration;

/// The binary exponential backoff factor (RFC 6298 section 5.5), which quinn applies to its
/// probe timeout and which [`SrttRange::backoff`] reports before any smoothed RTT was seen.
pub const BINARY_BACKOFF: f64 = 2.0;

/// ABRA's backoff factor for a smoothed RTT of `last_srtt`, given the smallest and largest
/// smoothed RTTs seen so far, clamped to `[1, 2]`.
///
/// ```text
/// // Section 4, and section 5 step 5 (ABRA):
/// //   backoff_new = 1 + (last_srtt - min_srtt) / (max_srtt - min_srtt)
/// ```
///
/// - `last_srtt <= min_srtt` gives 1 (no backoff: the path is as fast as it has been).
/// - `last_srtt >= max_srtt` gives 2 (TCP's doubling: the path is as slow as it has been).
/// - A degenerate range (`max_srtt <= min_srtt`) takes the formula's limit: 1 when
///   `last_srtt <= min_srtt`, 2 above it. No division by zero happens.
pub fn backoff_factor(last_srtt: Duration, min_srtt: Duration, max_srtt: Duration) -> f64 {
    if last_srtt <= min_srtt {
        // Numerator <= 0: the clamp's lower end (also covers last == min == max, 0/0).
        return 1.0;
    }
    if max_srtt <= min_srtt {
        // Guard: (last - min) > 0 over a zero-width range tends to infinity; clamp to 2.
        return BINARY_BACKOFF;
    }
    // Both differences are positive Durations, so both f64s are > 0 and finite.
    let above_min = (last_srtt - min_srtt).as_secs_f64();
    let range = (max_srtt - min_srtt).as_secs_f64();
    // Section 4 (ABRA): backoff_new = 1 + (last_srtt - min_srtt) / (max_srtt - min_srtt)
    (1.0 + above_min / range).clamp(1.0, BINARY_BACKOFF)
}

/// The smoothed-RTT history the backoff factor is computed from: the last smoothed RTT and the
/// smallest and largest seen so far, starting from the paper's 0.1 s and 0.6 s (section 4:
/// "We initialize min_srtt and max_srtt with the values 0.1 and 0.6 seconds respectively").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SrttRange {
    /// Smallest smoothed RTT seen, starting at the configured initial value.
    min: Duration,
    /// Largest smoothed RTT seen, starting at the configured initial value.
    max: Duration,
    /// The latest smoothed RTT seen; `None` before the first measurement.
    last: Option<Duration>,
}

impl SrttRange {
    /// A history with `min_srtt` and `max_srtt` as its starting bounds and no sample.
    pub fn new(min_srtt: Duration, max_srtt: Duration) -> Self {
        Self {
            min: min_srtt,
            max: max_srtt,
            last: None,
        }
    }

    /// Records a smoothed RTT (section 5 step 2's SRTT, here quinn's estimate).
    pub fn observe(&mut self, srtt: Duration) {
        self.last = Some(srtt);
        self.min = self.min.min(srtt);
        self.max = self.max.max(srtt);
    }

    /// The smallest smoothed RTT seen so far (`min_srtt`).
    pub fn min(&self) -> Duration {
        self.min
    }

    /// The largest smoothed RTT seen so far (`max_srtt`).
    pub fn max(&self) -> Duration {
        self.max
    }

    /// The latest smoothed RTT (`last_srtt`), if one was seen.
    pub fn last(&self) -> Option<Duration> {
        self.last
    }

    /// The backoff factor for the latest smoothed RTT, in `[1, 2]`; [`BINARY_BACKOFF`] before
    /// the first sample.
    pub fn backoff(&self) -> f64 {
        self.last.map_or(BINARY_BACKOFF, |last| {
            backoff_factor(last, self.min, self.max)
        })
    }
}
