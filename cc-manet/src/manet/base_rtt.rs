//! `refresh_base_rtt` and `reset_base_on_timeout`: when the base RTT is forgotten.
//!
//! `refresh_base_rtt`: a base RTT with no sample at or below it for 10 s expires and is
//! re-measured in a drain round, this flow's own queue drained (BBR's `min_rtt` filter,
//! Cardwell et al., ACM Queue 2016; Copa's RTTmin window, NSDI 2018 section 2.1).
//! `reset_base_on_timeout`: a timeout (persistent congestion) forgets it (Vegas' known failure
//! after a reroute; Linux's Westwood+ also restarts its minimum RTT on a loss timeout).

use std::time::Duration;

use cc_core::Instant;

/// How long a base RTT stands without a sample at or below it (BBR's `MinRTTFilterLen`,
/// Cardwell et al., ACM Queue 2016; Copa's RTTmin window, NSDI 2018 section 2.1: 10 s).
pub const LIFETIME: Duration = Duration::from_secs(10);

/// Whether a base RTT last confirmed at `stamp` has expired at `now` (with `refresh_base_rtt`).
pub fn expired(stamp: Option<Instant>, now: Instant, refresh_base_rtt: bool) -> bool {
    let Some(stamp) = stamp else {
        return false;
    };
    refresh_base_rtt && now.saturating_duration_since(stamp) > LIFETIME
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expires_after_ten_seconds_without_a_sample_at_or_below_it() {
        let t0 = Instant::now();
        assert!(!expired(Some(t0), t0 + LIFETIME, true));
        assert!(expired(
            Some(t0),
            t0 + LIFETIME + Duration::from_nanos(1),
            true
        ));
        assert!(!expired(Some(t0), t0 + LIFETIME * 2, false));
        assert!(!expired(None, t0 + LIFETIME * 2, true));
    }
}
