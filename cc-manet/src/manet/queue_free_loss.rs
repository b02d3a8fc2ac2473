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
//! `tcp_bbr2.c`, `bbr_loss_thresh`), are congestion whatever the backlog says (in enough loss
//! events, below): a policer or a buffer shallower than `alpha` drops without building a queue.
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
//! reads the overflow as congestion, once the round holds the loss events below.
//!
//! The threshold is a share, and a round of `n` datagrams that loses one shows `1/n`: over 2%
//! in every round under 50 datagrams, whatever the path's loss rate. A random loss of 1% on a
//! pipe of a few dozen to a few hundred datagrams would then cut the window every few rounds.
//! BBR's startup ends on loss only when a round's losses exceed the same 2% and also number
//! `BBRStartupFullLossCnt` = 6 discontiguous lost ranges (draft-ietf-ccwg-bbr-04, section
//! 5.3.1.3; 3 in draft-cardwell-iccrg-bbr-congestion-control-02, 8 in Linux's BBRv2), so that a
//! few random losses do not end it. Ours, after it (`queue_free_loss_events`): a round's share
//! reads as congestion only in that many loss events, each congestion event counting as one
//! (one loss-detection pass, as mvfst's BBR counts them; a burst lost in one pass is one
//! event). Only where the last round's backlog itself read under `alpha`, the reading PETRA's
//! and TCP-UB's rule rests on, and the window holds more than `2 x beta` datagrams
//! (`rate_check::MIN_WINDOW_BETAS`): at an 802.11 chain's window of a few datagrams a loss is
//! the chain's contention (Fu et al., INFOCOM 2003), and a reading of no queue that rests on
//! the spread or a trial's room is an inference the threshold alone backs up. Where the count
//! applies, a window of a few dozen datagrams rarely holds six events in a round, so there its
//! queue-free losses are kept short of a timeout.

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

/// What a round has lost so far: bytes, and loss events (congestion events).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RoundLoss {
    /// Bytes declared lost in the round, this loss included.
    pub bytes: u64,
    /// Loss events in the round, this one included.
    pub events: u64,
}

/// The loss events a round's share needs before it reads as congestion: `knob`
/// (`queue_free_loss_events`) where the last round's backlog read under `alpha`
/// (`backlog_free`) and the window is large enough to trial (`large`), one elsewhere.
pub fn min_events(knob: u64, backlog_free: bool, large: bool) -> u64 {
    if backlog_free && large { knob } else { 1 }
}

/// Whether a round's losses read as congestion whatever the backlog says: more than
/// [`LOSS_THRESHOLD`] of `last_delivered` (the bytes the last round delivered) lost, in at
/// least `min_events` loss events (`queue_free_loss_events`).
pub fn congested(lost: RoundLoss, last_delivered: u64, min_events: u64) -> bool {
    lost.events >= min_events && lost.bytes as f64 > last_delivered as f64 * LOSS_THRESHOLD
}

/// Whether a loss keeps the window: the last round's backlog `last_diff` was under `alpha`
/// packets, or the last rate trial found `room`, or the last round's standing queue was
/// within its spread (`queue_within_spread`, [`queue_within_spread_or_jitter`]); and the
/// round's losses so far do not read as congestion ([`congested`]).
pub fn keeps(
    last_diff: Option<f64>,
    room: bool,
    queue_within_spread: bool,
    alpha: f64,
    lost: RoundLoss,
    last_delivered: u64,
    min_events: u64,
) -> bool {
    let queue_free = room || queue_within_spread || last_diff.is_some_and(|diff| diff < alpha);
    queue_free && !congested(lost, last_delivered, min_events)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lost(bytes: u64, events: u64) -> RoundLoss {
        RoundLoss { bytes, events }
    }

    /// `keeps` at `alpha` 2 and a last round of 100 kB, six events required.
    fn keeps_at(last_diff: Option<f64>, room: bool, spread: bool, lost: RoundLoss) -> bool {
        keeps(last_diff, room, spread, 2.0, lost, 100_000, 6)
    }

    #[test]
    fn a_loss_without_a_queue_and_under_the_threshold_keeps_the_window() {
        // (last backlog, a trial found room, the standing queue within the spread, lost)
        let kept = [
            (Some(1.9), false, false, lost(1_200, 6)),
            // Exactly at the threshold: 2% of the round.
            (Some(0.0), false, false, lost(2_000, 6)),
            // A trial found room: the backlog reading is not a queue.
            (Some(9.0), true, false, lost(1_200, 6)),
            // The standing queue was within the round's spread: the backlog read was jitter.
            (Some(9.0), false, true, lost(1_200, 6)),
        ];
        for (diff, room, spread, lost) in kept {
            assert!(
                keeps_at(diff, room, spread, lost),
                "{diff:?} {room} {spread} {lost:?}"
            );
        }
    }

    #[test]
    fn a_queue_a_heavy_round_or_no_reading_is_congestion() {
        let cut = [
            (Some(2.0), false, false, lost(1_200, 6)),
            (Some(0.5), false, false, lost(2_001, 6)),
            (Some(0.5), true, false, lost(2_001, 6)),
            (Some(0.5), false, true, lost(2_001, 6)),
            (None, false, false, lost(1_200, 6)),
        ];
        for (diff, room, spread, lost) in cut {
            assert!(
                !keeps_at(diff, room, spread, lost),
                "{diff:?} {room} {spread} {lost:?}"
            );
        }
        assert!(!keeps(Some(0.5), false, false, 2.0, lost(1_200, 6), 0, 6));
    }

    #[test]
    fn a_share_over_the_threshold_in_fewer_than_six_events_is_not_yet_congestion() {
        // One datagram of a round of 40 is 2.5%, over the threshold: one event is random loss.
        assert!(!congested(lost(1_200, 1), 48_000, 6));
        assert!(!congested(lost(6_000, 5), 48_000, 6));
        assert!(congested(lost(7_200, 6), 48_000, 6));
        // Six events within the share: not congestion either.
        assert!(!congested(lost(7_200, 6), 360_000, 6));
        // With one event required, the threshold alone.
        assert!(congested(lost(1_200, 1), 48_000, 1));
        // One loss over the share: the window is kept, unless one event is enough.
        let one_loss = |min_events| {
            keeps(
                Some(0.5),
                false,
                false,
                2.0,
                lost(1_200, 1),
                48_000,
                min_events,
            )
        };
        assert!(one_loss(6));
        assert!(!one_loss(1));
    }

    #[test]
    fn six_events_are_needed_only_without_a_backlog_at_a_window_that_trials() {
        assert_eq!(min_events(6, true, true), 6);
        assert_eq!(
            min_events(6, false, true),
            1,
            "no queue only by the spread or a trial"
        );
        assert_eq!(min_events(6, true, false), 1, "a chain's few datagrams");
        assert_eq!(min_events(1, true, true), 1);
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
