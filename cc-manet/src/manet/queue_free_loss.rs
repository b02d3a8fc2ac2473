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

/// BBRv2's loss threshold: a round losing more than this share of what it delivers is
/// congested.
pub const LOSS_THRESHOLD: f64 = 0.02;

/// Whether a loss keeps the window: the last round's backlog `last_diff` was under `alpha`
/// packets or the last rate trial found `room`, and the bytes lost this round, `round_lost` (this loss included), are at most
/// [`LOSS_THRESHOLD`] of `last_delivered`, the bytes the last round delivered.
pub fn keeps(
    last_diff: Option<f64>,
    room: bool,
    alpha: f64,
    round_lost: u64,
    last_delivered: u64,
) -> bool {
    let queue_free = room || last_diff.is_some_and(|diff| diff < alpha);
    queue_free && round_lost as f64 <= last_delivered as f64 * LOSS_THRESHOLD
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_loss_without_a_queue_and_under_the_threshold_keeps_the_window() {
        assert!(keeps(Some(1.9), false, 2.0, 1_200, 100_000));
        assert!(keeps(Some(0.0), false, 2.0, 2_000, 100_000));
        // A trial found room: the backlog reading is not a queue.
        assert!(keeps(Some(9.0), true, 2.0, 1_200, 100_000));
    }

    #[test]
    fn a_queue_a_heavy_round_or_no_reading_is_congestion() {
        assert!(!keeps(Some(2.0), false, 2.0, 1_200, 100_000));
        assert!(!keeps(Some(0.5), false, 2.0, 2_001, 100_000));
        assert!(!keeps(Some(0.5), true, 2.0, 2_001, 100_000));
        assert!(!keeps(None, false, 2.0, 1_200, 100_000));
        assert!(!keeps(Some(0.5), false, 2.0, 1_200, 0));
    }
}
