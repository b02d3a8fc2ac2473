//! `jitter_allowance` and `mean_round_rtt`: how the bound reads a round's RTT.
//!
//! `mean_round_rtt` reads the round's RTT as the mean of its samples, as Vegas' `Actual` does
//! (Brakmo and Peterson, IEEE JSAC 1995, section 3.2), not their minimum (Linux
//! `tcp_vegas.c`). `jitter_allowance` (ours: Copa's drain test, NSDI 2018 section 2.2, applied
//! to the spread): a drain round also compares the round's RTT spread (mean minus minimum)
//! before and at the drained window; a spread that keeps three quarters of itself is the
//! path's per-packet jitter, not backlog, and the bound reads the mean less it.

use std::time::Duration;

use cc_core::RoundRtt;

use super::competitive_mode::DRAIN_KEEPS;

/// The RTT the bound reads for `round`: its mean less the jitter allowance `jitter`, never
/// under its minimum (with `mean_round_rtt`), or its minimum.
pub fn round_rtt(round: RoundRtt, jitter: Duration, mean_round_rtt: bool) -> Duration {
    if mean_round_rtt {
        round.mean.saturating_sub(jitter).max(round.min)
    } else {
        round.min
    }
}

/// The jitter allowance a drain round leaves, nanoseconds, from the spread of the round before
/// it (`start_spread_ns`) and of the drained round (`spread`): a spread this flow made, by its
/// queue or by contention along an 802.11 chain, shrinks with the window; one that keeps
/// three quarters of itself is jitter, and the allowance is the larger of the two spreads (a
/// mean-minus-minimum gap grows with the samples a round holds, so the fuller round's is the
/// closer). Zero otherwise.
pub fn judge(start_spread_ns: u64, spread: Duration) -> u64 {
    let spread_ns = cc_core::saturating_ns(spread);
    let kept = spread_ns as f64 >= start_spread_ns as f64 * DRAIN_KEEPS;
    if start_spread_ns > 0 && kept {
        spread_ns.max(start_spread_ns)
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn reads_the_mean_less_the_allowance_never_under_the_minimum() {
        let round = RoundRtt {
            min: ms(100),
            mean: ms(110),
            samples: 10,
        };
        assert_eq!(round_rtt(round, Duration::ZERO, true), ms(110));
        assert_eq!(round_rtt(round, ms(4), true), ms(106));
        assert_eq!(round_rtt(round, ms(40), true), ms(100));
        assert_eq!(round_rtt(round, Duration::ZERO, false), ms(100));
    }

    #[test]
    fn a_spread_that_keeps_three_quarters_is_jitter() {
        // 10 ms before the drain, 7.5 ms at the drained window: kept, the allowance is 10 ms.
        assert_eq!(judge(10_000_000, Duration::from_micros(7_500)), 10_000_000);
        // 12 ms at the drained window: the larger spread.
        assert_eq!(judge(10_000_000, ms(12)), 12_000_000);
        // 7 ms: the spread shrank with the window, it was this flow's.
        assert_eq!(judge(10_000_000, ms(7)), 0);
        // No spread before the drain: nothing to allow.
        assert_eq!(judge(0, ms(5)), 0);
    }
}
