//! `competitive_mode`: Copa's mode switch (Arun and Balakrishnan, NSDI 2018, section 2.2) and
//! its competing-queue test. A drain round sends only the backlog-free window; if the round's
//! queueing delay keeps three quarters of its value, the queue is another flow's (a
//! buffer-filling competitor, or a longer route that outdated the base RTT), and the bound is
//! lifted until the queueing delay falls under a tenth of its maximum over the last four
//! rounds. With `leave_competitive_under_beta`, leaving also needs the bound's own reading to
//! agree: a backlog of at most `beta`.
//!
//! With `competitive_mode_jitter`, a queueing delay within the path's jitter (the allowance
//! `jitter_allowance` judged) is not a queue at all: a drain round that keeps such a delay finds
//! no competitor, and competitive mode ends when the delay falls within it. Copa filters jitter
//! by taking the smallest RTT over a recent window (section 2.1), which works where a window
//! holds many samples. With per-datagram jitter as large as the RTT, the smallest of a
//! round's samples still sits above the base by an amount that depends on how many samples the
//! round holds, and a drain round, with fewer samples, reads a larger one: its delay keeps
//! three quarters with no other flow there, and Copa's "nearly empty" (a tenth of the recent
//! maximum) is seldom reached, so the flow spends most rounds in competitive mode, cut by every
//! random loss (docs/results/manet-analysis.md, "Jittered paths and fast LAN hops with burst
//! loss").

use std::time::Duration;

/// Round trips of queueing delay kept for Copa's "nearly empty" test (Copa: the last four).
pub const RECENT_ROUNDS: usize = 4;

/// The share of its queueing delay a drain round must keep for the queue to count as another
/// flow's: a queue this flow built loses at least a quarter of its delay when the flow sends
/// only its backlog-free window. Ours (docs/results/chosen-constants.md); with 1/2 the contention delay of
/// an 802.11 chain, which a smaller window reduces by less than half, read as a competitor's
/// queue.
pub const DRAIN_KEEPS: f64 = 0.75;

/// Whose queue a drain round found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Verdict {
    /// The delay lost at least a quarter, or lies within the path's jitter
    /// (`competitive_mode_jitter`): no other flow's queue, so the delay is read as this flow's
    /// (its queue, contention along an 802.11 chain, or jitter).
    OwnQueue,
    /// The delay kept three quarters or more: another flow's queue, or an outdated base RTT.
    CompetingQueue,
}

/// Copa's test: the drain round's queueing delay `delay` against the delay of the round before
/// it, `start_delay`; a delay [`within_jitter`] of `jitter` is no competitor's queue.
pub fn judge(start_delay: Duration, delay: Duration, jitter: Duration) -> Verdict {
    if delay >= start_delay.mul_f64(DRAIN_KEEPS) && !within_jitter(delay, jitter) {
        Verdict::CompetingQueue
    } else {
        Verdict::OwnQueue
    }
}

/// Whether a queueing delay `delay` lies within the path's jitter `jitter`
/// (`competitive_mode_jitter`). A zero `jitter` is no judgement (none judged, or the knob off),
/// so nothing is within it, not even a zero delay: Copa's test alone decides then.
pub fn within_jitter(delay: Duration, jitter: Duration) -> bool {
    !jitter.is_zero() && delay <= jitter
}

/// Whether competitive mode ends this round: the queueing delay `delay` is under a tenth of its
/// maximum over the recent rounds `recent_max` (Copa: the queue is nearly empty) or
/// [`within_jitter`] of `jitter`, and, with `under_beta` (`leave_competitive_under_beta`), the
/// round's backlog `diff` is at most `beta`.
pub fn leaves(
    delay: Duration,
    recent_max: Duration,
    jitter: Duration,
    diff: f64,
    beta: f64,
    under_beta: bool,
) -> bool {
    let bound_agrees = !under_beta || diff <= beta;
    let nearly_empty = delay <= recent_max / 10 || within_jitter(delay, jitter);
    nearly_empty && bound_agrees
}

/// The queueing delays of the last [`RECENT_ROUNDS`] rounds (round minimum minus base RTT), a
/// ring, nanoseconds (saturating: the state fits cc-bench's 4 KiB with the ledger at its
/// bound).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RecentDelays {
    delays_ns: [u64; RECENT_ROUNDS],
    next: u8,
}

impl RecentDelays {
    /// The largest delay kept.
    pub fn max(&self) -> Duration {
        Duration::from_nanos(self.delays_ns.iter().copied().max().unwrap_or(0))
    }

    /// Records a round's delay, replacing the oldest.
    pub fn push(&mut self, delay: Duration) {
        self.delays_ns[usize::from(self.next)] = cc_core::saturating_ns(delay);
        self.next = (self.next + 1) % RECENT_ROUNDS as u8;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    const NONE: Duration = Duration::ZERO;

    #[test]
    fn a_delay_that_keeps_three_quarters_is_a_competitors_queue() {
        assert_eq!(judge(ms(40), ms(30), NONE), Verdict::CompetingQueue);
        assert_eq!(judge(ms(40), ms(29), NONE), Verdict::OwnQueue);
        assert_eq!(judge(NONE, NONE, NONE), Verdict::CompetingQueue);
    }

    #[test]
    fn a_delay_within_the_jitter_is_no_competitors_queue() {
        assert_eq!(judge(ms(2), ms(3), ms(3)), Verdict::OwnQueue);
        assert_eq!(judge(ms(2), ms(4), ms(3)), Verdict::CompetingQueue);
        assert!(within_jitter(ms(3), ms(3)));
        assert!(
            !within_jitter(NONE, NONE),
            "no jitter judged: nothing is within it"
        );
    }

    #[test]
    fn leaves_when_the_delay_is_a_tenth_of_its_recent_maximum() {
        assert!(leaves(ms(4), ms(40), NONE, 10.0, 4.0, false));
        assert!(!leaves(ms(5), ms(40), NONE, 0.0, 4.0, false));
        // With leave_competitive_under_beta the backlog must be at most beta.
        assert!(!leaves(ms(4), ms(40), NONE, 4.5, 4.0, true));
        assert!(leaves(ms(4), ms(40), NONE, 4.0, 4.0, true));
    }

    #[test]
    fn leaves_when_the_delay_falls_within_the_jitter() {
        assert!(leaves(ms(5), ms(40), ms(5), 0.0, 4.0, false));
        assert!(!leaves(ms(6), ms(40), ms(5), 0.0, 4.0, false));
        assert!(
            !leaves(ms(5), ms(40), ms(5), 4.5, 4.0, true),
            "the bound must still agree"
        );
    }

    #[test]
    fn the_ring_keeps_the_last_four_rounds() {
        let mut recent = RecentDelays::default();
        assert_eq!(recent.max(), Duration::ZERO);
        for d in [50, 1, 2, 3] {
            recent.push(ms(d));
        }
        assert_eq!(recent.max(), ms(50));
        recent.push(ms(4));
        assert_eq!(recent.max(), ms(4));
    }
}
