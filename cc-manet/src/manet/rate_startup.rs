//! `rate_check_slow_start`: a rate trial that found room returns the flow to slow start, which
//! the delivery rate then ends, not the delay: BBR's startup and its full-pipe test (Cardwell
//! et al., ACM Queue 2016; draft-ietf-ccwg-bbr-04 section 5.3.1.2), entered where HyStart++
//! would resume slow start after a spurious exit (RFC 9406 section 4.3).
//!
//! The trial has just shown that the delay which ended slow start, or held the bound, was not
//! this flow's queue (a jittered path reads a round's RTT spread as backlog from its first
//! rounds on). Growing again by a 1.25x trial every three rounds takes tens of rounds to fill a
//! pipe of hundreds of datagrams; slow start fills it in a few, and only the rate can tell when
//! it is full on a path whose delay the bound misread.
//!
//! It is entered only from a round whose standing queue (its smallest RTT over the base) lay
//! within its RTT spread or the jitter allowance, as `queue_free_loss_spread` reads a round: a
//! standing queue beyond it is some flow's, and a slow start beside it would take that flow's
//! share rather than an idle pipe's.

use super::bdp_cap::Cap;

/// The growth over the largest rate so far that shows the pipe still had room (BBR's
/// `full_bw` test: 25%).
pub const FULL_PIPE_GROWTH: f64 = 1.25;

/// Rounds in a row without that growth that show the pipe full (BBR's `full_bw_count`: 3).
pub const FULL_PIPE_ROUNDS: u8 = 3;

/// The window's gain over the largest rate times the base RTT while the rate leads (BBR's
/// `BBRStartupCwndGain`: 2, draft-ietf-ccwg-bbr-04 section 5.3.1): the rounds that find the
/// pipe full overshoot it by at most as much again.
pub const CWND_GAIN: f64 = 2.0;

/// The largest window while the rate leads, bytes: [`CWND_GAIN`] x `full_rate` (bytes per
/// second) x `base` RTT.
pub fn window_cap(full_rate: u64, base: std::time::Duration) -> u64 {
    // `as` saturates; `Window::set_cwnd` clamps into its range.
    (CWND_GAIN * full_rate as f64 * base.as_secs_f64()) as u64
}

/// A slow start the delivery rate leads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateStartup {
    /// The largest delivery rate so far, bytes per second (BBR's `full_bw`).
    pub full_rate: u64,
    /// Rounds in a row whose rate did not grow by [`FULL_PIPE_GROWTH`] over `full_rate`.
    pub flat_rounds: u8,
    /// Whether `bdp_cap` was armed when it began.
    pub cap: Cap,
}

impl RateStartup {
    /// A startup from a round that delivered `rate` bytes per second.
    pub fn new(rate: u64, cap: Cap) -> Self {
        Self {
            full_rate: rate,
            flat_rounds: 0,
            cap,
        }
    }

    /// The startup after a round that delivered `rate` bytes per second.
    pub fn after_round(self, rate: u64) -> Self {
        if rate as f64 >= self.full_rate as f64 * FULL_PIPE_GROWTH {
            Self {
                full_rate: rate,
                flat_rounds: 0,
                ..self
            }
        } else {
            Self {
                flat_rounds: self.flat_rounds.saturating_add(1),
                ..self
            }
        }
    }

    /// Whether the pipe is full: [`FULL_PIPE_ROUNDS`] rounds without growth.
    pub fn pipe_full(self) -> bool {
        self.flat_rounds >= FULL_PIPE_ROUNDS
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_window_stays_within_twice_the_rates_base_rtt_product() {
        // 1 MB/s over 100 ms: a 100 kB pipe, a 200 kB cap.
        assert_eq!(
            window_cap(1_000_000, std::time::Duration::from_millis(100)),
            200_000
        );
        assert_eq!(
            window_cap(u64::MAX, std::time::Duration::from_secs(1000)),
            u64::MAX
        );
    }

    #[test]
    fn three_rounds_without_a_quarter_more_fill_the_pipe() {
        let start = RateStartup::new(1_000_000, Cap::Unarmed);
        // 1.25x is growth, and it restarts the count.
        let grown = start.after_round(1_250_000);
        assert_eq!((grown.full_rate, grown.flat_rounds), (1_250_000, 0));
        // Under 1.25x the largest rate: flat, even above it.
        let mut flat = grown;
        for round in 1..=3 {
            assert!(!flat.pipe_full(), "round {round}");
            flat = flat.after_round(1_500_000);
            assert_eq!(flat.full_rate, 1_250_000);
        }
        assert!(flat.pipe_full());
        // A grown round in between starts the count again.
        let again = grown.after_round(1_000_000).after_round(1_600_000);
        assert_eq!(again.flat_rounds, 0);
    }
}
