//! `queue_free_loss`: a loss the flow's own queue cannot explain keeps the window.
//!
//! A loss while the last round's backlog was under `alpha` packets, or while the last rate trial
//! (`rate_check`) found the pipe with room, came from a path that held none of this flow's
//! queue: an error, not an overflow. PETRA keeps the window at such a loss
//! unless the RTT confirms congestion (section 4.2.3: `cwnd = ssthresh` only when
//! `BytesInFlight() > ssthresh` and `LastRTT >= ERTT`), and TCP-UB's bands read the backlog at a
//! loss the same way; Veno (`veno_random_loss`) still cuts by a fifth, and on a pipe of
//! hundreds of datagrams with a loss in most rounds a fifth per round, with growth stopped for
//! the recovery period after each, holds the window at a small share of the pipe. So the window
//! is kept, no recovery period starts, and growth goes on. Losses beyond BBRv2's loss threshold,
//! 2% of what the last round delivered (Cardwell et al., IETF 104 ICCRG, 2019; Linux
//! `tcp_bbr2.c`, `bbr_loss_thresh`), are congestion whatever the backlog says: a policer or a
//! buffer shallower than `alpha` drops without building a queue.
//!
//! With `queue_free_loss_spread` a round whose standing queue (Copa's: its smallest RTT over
//! the base, NSDI 2018 section 2.1) lies within its own RTT spread (mean minus smallest), or
//! within the jitter allowance a drain round judged, also held none of this flow's queue: a
//! queue this flow keeps delays every datagram of a round, so it raises the round's smallest
//! RTT; per-datagram jitter raises its mean. Vegas' backlog, read from the mean, counts jitter
//! as queue, so where the jitter is as large as the RTT it reads no loss as queue-free, and each
//! burst of random losses would cut the window (docs/results/manet-analysis.md, "Jittered paths
//! and fast LAN hops with burst loss"). A flow that holds a drop-tail buffer full through the
//! round before the overflow has its smallest RTT a buffer above the base, not within the
//! spread. A queue that builds from empty within one round (slow start's overshoot, or a buffer
//! of a few datagrams) leaves the round's smallest RTT at the base: there BBRv2's threshold
//! alone reads the overflow as congestion.

use std::time::Duration;

/// BBRv2's loss threshold: a round losing more than this share of what it delivers is
/// congested.
pub const LOSS_THRESHOLD: f64 = 0.02;

/// Whether a round's standing queue `delay` (smallest RTT minus base) lies within its RTT
/// `spread` (mean minus smallest) or the judged `jitter` allowance (`queue_free_loss_spread`).
/// A zero standing queue is within any: the round held no queue at all.
pub fn queue_within_spread_or_jitter(delay: Duration, spread: Duration, jitter: Duration) -> bool {
    delay <= spread.max(jitter)
}

/// Whether a loss keeps the window: the last round's backlog `last_diff` was under `alpha`
/// packets, or the last rate trial found `room`, or the last round's standing queue was
/// within its spread (`queue_within_spread`, [`queue_within_spread_or_jitter`]); and the bytes lost this round,
/// `round_lost` (this loss included), are at most [`LOSS_THRESHOLD`] of `last_delivered`, the
/// bytes the last round delivered.
pub fn keeps(
    last_diff: Option<f64>,
    room: bool,
    queue_within_spread: bool,
    alpha: f64,
    round_lost: u64,
    last_delivered: u64,
) -> bool {
    let queue_free = room || queue_within_spread || last_diff.is_some_and(|diff| diff < alpha);
    queue_free && round_lost as f64 <= last_delivered as f64 * LOSS_THRESHOLD
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_loss_without_a_queue_and_under_the_threshold_keeps_the_window() {
        assert!(keeps(Some(1.9), false, false, 2.0, 1_200, 100_000));
        assert!(keeps(Some(0.0), false, false, 2.0, 2_000, 100_000));
        // A trial found room: the backlog reading is not a queue.
        assert!(keeps(Some(9.0), true, false, 2.0, 1_200, 100_000));
        // The standing queue was within the round's spread: the backlog read was jitter.
        assert!(keeps(Some(9.0), false, true, 2.0, 1_200, 100_000));
    }

    #[test]
    fn a_queue_a_heavy_round_or_no_reading_is_congestion() {
        assert!(!keeps(Some(2.0), false, false, 2.0, 1_200, 100_000));
        assert!(!keeps(Some(0.5), false, false, 2.0, 2_001, 100_000));
        assert!(!keeps(Some(0.5), true, false, 2.0, 2_001, 100_000));
        assert!(!keeps(Some(0.5), false, true, 2.0, 2_001, 100_000));
        assert!(!keeps(None, false, false, 2.0, 1_200, 100_000));
        assert!(!keeps(Some(0.5), false, false, 2.0, 1_200, 0));
    }

    #[test]
    fn a_standing_queue_above_the_spread_and_the_jitter_is_this_flows() {
        let ms = Duration::from_millis;
        assert!(queue_within_spread_or_jitter(ms(1), ms(4), Duration::ZERO));
        assert!(
            queue_within_spread_or_jitter(ms(3), ms(1), ms(3)),
            "within the judged jitter"
        );
        assert!(!queue_within_spread_or_jitter(ms(5), ms(4), ms(3)));
        assert!(queue_within_spread_or_jitter(
            Duration::ZERO,
            Duration::ZERO,
            Duration::ZERO
        ));
    }
}
