//! The drain round: after `competitive_rounds` round trips with a standing queue (or when
//! `refresh_base_rtt` finds the base RTT expired), one round sends only the backlog-free
//! window, which drains a queue this flow built; the round after it (the first whose packets
//! all left at the drained window) is measured, and `competitive_mode`'s test judges whose the
//! queue is. Copa's drain (Arun and Balakrishnan, NSDI 2018, section 2.2) with BBR's
//! `ProbeRTT` state as the model for the cut, the wait and the exit (Cardwell et al., ACM
//! Queue 2016).
//!
//! Two knobs shape it: `probe_restore` (BBR's `ProbeRTT` exit, Linux `tcp_bbr.c`,
//! `bbr_restore_cwnd`): a drain round that finds the queue to be this flow's returns the window
//! to its value before the cut; and `probe_backoff_max` (BBR's `ProbeRTT` budget, 200 ms in
//! 10 s): each such drain round doubles the wait before the next, up to `competitive_rounds`
//! times this. (Both knobs keep their names: they are part of run identity.)

use std::time::Duration;

use super::bdp_cap::Cap;
use crate::ManetConfig;

/// The smallest window a drain round sends, datagrams: two in flight, so that the round
/// measures the path, not the peer's ACK delay (RFC 9000 section 13.2.2: a receiver
/// acknowledges every second ack-eliciting packet, a lone one only after its ACK delay). On
/// quinn that needs `quinn_full_window` (on by default): its send check carries one less.
pub const FLOOR_PACKETS: u64 = 2;

/// Why a drain round runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Purpose {
    /// Copa's test: is the standing queue this flow's (`competitive_mode`)?
    CompetingQueue,
    /// Re-measure an expired base RTT with this flow's own queue drained (`refresh_base_rtt`):
    /// the base restarts with the measured round.
    BaseRefresh,
}

/// Where a drain round is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Phase {
    /// The first round after the cut: its packets were sent at the old window, so nothing is
    /// measured (BBR's `ProbeRTT` likewise waits for the in-flight data to fall to its target).
    Settling,
    /// The round the drain measures.
    Measuring,
}

/// A drain round under way: what the round before it measured and held.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DrainRound {
    /// The queueing delay of the round that started the drain, nanoseconds (saturating: the
    /// state fits cc-bench's 4 KiB with the ledger at its bound).
    pub start_delay_ns: u64,
    /// That round's RTT spread (mean minus minimum), nanoseconds.
    pub start_spread_ns: u64,
    /// The window before the cut, bytes (BBR's `prior_cwnd`).
    pub prior_cwnd: u64,
    /// Where the drain is.
    pub phase: Phase,
    /// Why it runs.
    pub purpose: Purpose,
    /// Whether `bdp_cap` was armed when it began (it is not read during the drain).
    pub cap: Cap,
}

/// When the next drain round for Copa's test runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Schedule {
    /// Consecutive rounds with a standing queue.
    pub queued_rounds: u32,
    /// Rounds with a standing queue before the next drain round: `competitive_rounds`, doubled
    /// after each drain round that found the queue to be this flow's, up to
    /// `competitive_rounds x probe_backoff_max`.
    pub interval: u32,
}

impl Schedule {
    /// The schedule at the start, and again after competitive mode or a timeout.
    pub fn first(config: &ManetConfig) -> Self {
        Self {
            queued_rounds: 0,
            interval: first_interval(config),
        }
    }
}

/// A count of round trips from the knobs (at most 1,000 x 1,000), saturating: the counters are
/// `u32` so that the controller's state stays within 4 KiB on quinn (cc-bench).
fn rounds_u32(rounds: u64) -> u32 {
    u32::try_from(rounds).unwrap_or(u32::MAX)
}

/// The wait before the first drain round, and again after the backoff resets: the configured
/// rounds of standing queue (`competitive_rounds`).
pub fn first_interval(config: &ManetConfig) -> u32 {
    rounds_u32(config.competitive_rounds())
}

/// The wait after a drain round that found the queue to be this flow's (`probe_backoff_max`):
/// doubled, up to `competitive_rounds x probe_backoff_max`, so that draining costs a bounded
/// share of the rounds while a competitor that arrives later is still found.
pub fn backed_off(interval: u32, config: &ManetConfig) -> u32 {
    let cap = config
        .competitive_rounds()
        .saturating_mul(config.probe_backoff_max());
    interval.saturating_mul(2).min(rounds_u32(cap))
}

/// Whether a round has a standing queue: this flow keeps `alpha` packets queued (`diff`), or
/// the queueing delay reaches the base RTT (a bottleneck queue of a BDP or more, which a flow
/// holding under `alpha` packets there builds alone only on a path of under `alpha` packets'
/// BDP; BBR keeps its own queue under a BDP, `cwnd_gain` 2), or the window is at `bdp_cap`'s
/// cap (`at_cap`). Either way the drain round tells whose the queue is.
pub fn standing_queue(
    diff: f64,
    alpha: f64,
    delay: Duration,
    base: Duration,
    at_cap: bool,
) -> bool {
    diff >= alpha || delay >= base || at_cap
}

/// The window a drain round sends, bytes, or `None` where it would not remove a datagram from
/// `cwnd` or there is no queueing delay to drain. The backlog-free window `target_bytes`
/// (halved for a base refresh, BBRv2's `ProbeRTT` cwnd gain of 0.5: the backlog-free window is
/// computed from the old base, and a queue left by its error would raise the new base, drain
/// after drain), never under [`FLOOR_PACKETS`].
pub fn drained_window(
    target_bytes: u64,
    purpose: Purpose,
    delay: Duration,
    cwnd: u64,
    mtu: u64,
) -> Option<u64> {
    let target = match purpose {
        Purpose::CompetingQueue => target_bytes,
        Purpose::BaseRefresh => target_bytes / 2,
    };
    let drained = target.max(FLOOR_PACKETS.saturating_mul(mtu));
    if delay.is_zero() || drained.saturating_add(mtu) > cwnd {
        return None;
    }
    Some(drained)
}

/// The window after a drain round that found the queue to be this flow's, with
/// `probe_restore`: back to its value before the cut, never below the window now.
pub fn restored(cwnd: u64, prior_cwnd: u64) -> u64 {
    cwnd.max(prior_cwnd)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MTU: u64 = 1200;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn drains_to_the_backlog_free_window_or_half_of_it_for_a_base_refresh() {
        let cwnd = 20 * MTU;
        let target = 12 * MTU;
        assert_eq!(
            drained_window(target, Purpose::CompetingQueue, ms(5), cwnd, MTU),
            Some(12 * MTU)
        );
        assert_eq!(
            drained_window(target, Purpose::BaseRefresh, ms(5), cwnd, MTU),
            Some(6 * MTU)
        );
    }

    #[test]
    fn no_drain_without_delay_or_a_datagram_to_remove() {
        assert_eq!(
            drained_window(
                4 * MTU,
                Purpose::CompetingQueue,
                Duration::ZERO,
                20 * MTU,
                MTU
            ),
            None
        );
        // Floor of 2 datagrams: a window of 2 has nothing to drain, one of 3 drains to 2.
        assert_eq!(
            drained_window(MTU, Purpose::CompetingQueue, ms(5), 2 * MTU, MTU),
            None
        );
        assert_eq!(
            drained_window(MTU, Purpose::CompetingQueue, ms(5), 3 * MTU, MTU),
            Some(2 * MTU)
        );
    }

    #[test]
    fn the_wait_doubles_up_to_the_backoff_cap() {
        // competitive_rounds 5, probe_backoff_max 8: 5, 10, 20, 40, 40.
        let config = ManetConfig::default();
        assert_eq!(first_interval(&config), 5);
        let waits: Vec<u32> = std::iter::successors(Some(5), |&w| Some(backed_off(w, &config)))
            .take(5)
            .collect();
        assert_eq!(waits, [5, 10, 20, 40, 40]);
    }

    #[test]
    fn a_standing_queue_is_alpha_packets_a_base_rtt_of_delay_or_the_cap() {
        assert!(!standing_queue(1.9, 2.0, ms(99), ms(100), false));
        assert!(standing_queue(2.0, 2.0, ms(0), ms(100), false));
        assert!(standing_queue(0.0, 2.0, ms(100), ms(100), false));
        assert!(standing_queue(0.0, 2.0, ms(0), ms(100), true));
    }

    #[test]
    fn the_restore_never_lowers_the_window() {
        assert_eq!(restored(6 * MTU, 20 * MTU), 20 * MTU);
        assert_eq!(restored(21 * MTU, 20 * MTU), 21 * MTU);
    }
}
