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
//!
//! The window is bounded on every ACK, as BBR bounds its startup's: bounded only at a round's
//! end, the ACKs of a window already sent double it past the bound within the round, and the
//! queue that leaves is the flow's whole delay cost. The bound is read from the rates of the
//! rounds before (BBR reads a rate on every ACK), so a round that doubles the window reaches it
//! and the next waits for its own rate: the window doubles about every other round. However the
//! startup ends, it leaves at most the pipe: what it sent beyond was queue (BBR's Drain).

use std::time::{Duration, Instant};

use super::bdp_cap::Cap;

/// The growth over the largest rate so far that shows the pipe still had room (BBR's
/// `full_bw` test: 25%).
pub const FULL_PIPE_GROWTH: f64 = 1.25;

/// Rounds in a row without that growth that show the pipe full (BBR's `full_bw_count`: 3).
pub const FULL_PIPE_ROUNDS: u8 = 3;

/// The window's gain over the pipe while the rate leads (BBR's `BBRStartupCwndGain`: 2,
/// draft-ietf-ccwg-bbr-04 section 5.3.1): the rounds that find the pipe full overshoot it by at
/// most as much again.
pub const CWND_GAIN: f64 = 2.0;

/// What `rate` bytes per second keeps in flight over `rtt`, bytes (Little's law).
fn in_flight(rate: u64, rtt: Duration) -> u64 {
    // `as` saturates; `Window::set_cwnd` clamps into its range.
    (rate as f64 * rtt.as_secs_f64()) as u64
}

/// A slow start the delivery rate leads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateStartup {
    /// The largest delivery rate so far, bytes per second (BBR's `full_bw`).
    pub full_rate: u64,
    /// The mean RTT of the round that began it: a round whose standing queue lay within its
    /// spread, so the RTT of the pipe without this flow's queue, its jitter included. BBR's
    /// pipe is `min_rtt` long; on a path whose every datagram is jittered, what the pipe holds
    /// at a rate is that rate times the mean RTT (Little's law), not times the minimum.
    /// Nanoseconds: a `Duration` would make the composite's state 16 bytes larger.
    pipe_rtt_ns: u64,
    /// Rounds in a row whose rate did not grow by [`FULL_PIPE_GROWTH`] over `full_rate`.
    pub flat_rounds: u8,
    /// Whether `bdp_cap` was armed when it began.
    pub cap: Cap,
    /// The ACKs' bunching over the largest rate (BBR's `extra_acked`).
    pub aggregation: AckAggregation,
}

/// BBR's ACK-aggregation estimate (draft-ietf-ccwg-bbr-04's `BBRUpdateACKAggregation`; Linux
/// commit 78dc70ebaa38, "tcp_bbr: adapt cwnd based on ack aggregation estimation"): how many
/// bytes the ACKs of an epoch delivered beyond what the largest rate would have in that time. A path whose every datagram is jittered acknowledges
/// in bunches; the window needs that much more than the pipe to keep sending between them.
/// The largest over the startup, where BBR keeps the largest over 10 rounds: a startup is
/// what it widens. Its counts saturate at 4 GiB (`u32`, as Linux keeps them in packets in 20
/// and 16 bits), far past any window of the paths this controller is for, so that the
/// composite's state stays within a rate trial's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct AckAggregation {
    /// When the epoch began: the last ACK frame that found the ACKs at or behind the rate.
    epoch_start: Option<Instant>,
    /// Bytes acknowledged since the epoch began.
    epoch_acked: u32,
    /// The largest excess so far, bytes.
    extra: u32,
}

impl AckAggregation {
    /// After an ACK frame at `now` that acknowledged `acked` bytes, `rate` bytes per second
    /// being the largest rate and `cwnd` the window (the excess never counts more than it).
    pub fn on_ack_frame(self, now: Instant, acked: u64, rate: u64, cwnd: u64) -> Self {
        let acked = saturating_u32(acked);
        let Some(start) = self.epoch_start else {
            return Self {
                epoch_start: Some(now),
                epoch_acked: acked,
                ..self
            };
        };
        let expected = in_flight(rate, now.saturating_duration_since(start));
        let (start, delivered, expected) = if u64::from(self.epoch_acked) <= expected {
            (now, 0, 0)
        } else {
            (start, self.epoch_acked, expected)
        };
        let epoch_acked = delivered.saturating_add(acked);
        let extra = u64::from(epoch_acked).saturating_sub(expected).min(cwnd);
        Self {
            epoch_start: Some(start),
            epoch_acked,
            extra: self.extra.max(saturating_u32(extra)),
        }
    }

    /// The largest excess so far, bytes.
    pub fn extra(self) -> u64 {
        u64::from(self.extra)
    }
}

fn saturating_u32(bytes: u64) -> u32 {
    u32::try_from(bytes).unwrap_or(u32::MAX)
}

impl RateStartup {
    /// A startup from a round that delivered `rate` bytes per second in a mean RTT of
    /// `pipe_rtt`.
    pub fn new(rate: u64, pipe_rtt: Duration, cap: Cap) -> Self {
        Self {
            full_rate: rate,
            pipe_rtt_ns: u64::try_from(pipe_rtt.as_nanos()).unwrap_or(u64::MAX),
            flat_rounds: 0,
            cap,
            aggregation: AckAggregation::default(),
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

    /// What the pipe holds at the largest rate, bytes: the window it ends at.
    pub fn pipe(self) -> u64 {
        in_flight(self.full_rate, Duration::from_nanos(self.pipe_rtt_ns))
    }

    /// The largest window while the rate leads, bytes: [`CWND_GAIN`] x [`Self::pipe`] and the
    /// ACKs' bunching (BBR's `BBRUpdateMaxInflight`).
    pub fn window_cap(self) -> u64 {
        ((CWND_GAIN * self.pipe() as f64) as u64).saturating_add(self.aggregation.extra())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_window_stays_within_twice_what_the_pipe_holds() {
        // 1 MB/s over a mean RTT of 100 ms: a 100 kB pipe, a 200 kB cap.
        let startup = RateStartup::new(1_000_000, Duration::from_millis(100), Cap::Unarmed);
        assert_eq!((startup.pipe(), startup.window_cap()), (100_000, 200_000));
        let huge = RateStartup::new(u64::MAX, Duration::from_secs(1000), Cap::Unarmed);
        assert_eq!(huge.pipe(), u64::MAX);
        assert_eq!(huge.window_cap(), u64::MAX);
    }

    #[test]
    fn three_rounds_without_a_quarter_more_fill_the_pipe() {
        let start = RateStartup::new(1_000_000, Duration::from_millis(10), Cap::Unarmed);
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

    #[test]
    fn acks_at_the_rate_bunch_nothing_and_a_burst_counts_what_it_brought_early() {
        let t0 = Instant::now();
        let ms = Duration::from_millis;
        // 1 MB/s: 1 kB per millisecond. An ACK frame of 1 kB every millisecond is the rate.
        let mut at_rate = AckAggregation::default();
        for k in 0..10 {
            at_rate = at_rate.on_ack_frame(t0 + ms(k), 1_000, 1_000_000, 100_000);
        }
        assert!(at_rate.extra() <= 1_000, "{at_rate:?}");
        // 10 ms of nothing, then 20 kB at once: the epoch restarts at the late frame, which
        // brought 20 kB in no time.
        let late = at_rate.on_ack_frame(t0 + ms(20), 20_000, 1_000_000, 100_000);
        assert_eq!(late.extra(), 20_000);
        // Never more than the window.
        let capped = at_rate.on_ack_frame(t0 + ms(20), 20_000, 1_000_000, 5_000);
        assert_eq!(capped.extra(), 5_000);
        // The largest is kept while later frames run at the rate.
        let after = late.on_ack_frame(t0 + ms(40), 1_000, 1_000_000, 100_000);
        assert_eq!(after.extra(), 20_000);
    }

    #[test]
    fn the_bunching_widens_the_cap() {
        let mut startup = RateStartup::new(1_000_000, Duration::from_millis(100), Cap::Unarmed);
        let t0 = Instant::now();
        startup.aggregation = startup
            .aggregation
            .on_ack_frame(t0, 1_000, startup.full_rate, 1_000_000)
            .on_ack_frame(
                t0 + Duration::from_millis(5),
                30_000,
                startup.full_rate,
                1_000_000,
            );
        // The first frame was behind the rate, so the epoch restarts at the second, which
        // brought 30 kB at once.
        assert_eq!(startup.aggregation.extra(), 30_000);
        assert_eq!(startup.window_cap(), 230_000);
    }
}
