//! `bdp_cap`: BBR's in-flight cap (Cardwell et al., ACM Queue 2016: `cwnd_gain` 2 bounds what
//! is in flight to twice `BtlBw x RTprop`). Once per round trip, with the round's delivery rate
//! `cwnd / RTT` and the base RTT, the cap is `2 x cwnd x BaseRTT / RTT` plus one datagram (the
//! one a receiver holds for its next ACK, RFC 9000 section 13.2.2), never under three
//! datagrams: above it the window loses a datagram per round trip, and it grows only while one
//! more datagram stays within it. It is armed only while a drain round has found the round's
//! delay to be this flow's: a competitor's queue inflates the RTT as well, and a cap read from
//! it would keep the window too small for Copa's test to lift the bound.

use std::time::Duration;

use super::drain_round::FLOOR_PACKETS;

/// Whether the cap applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Cap {
    /// No drain round has found the delay to be this flow's since the last timeout, competitive
    /// mode or a drain round that found a competitor's queue.
    Unarmed,
    /// The last drain round found the delay to be this flow's own (its queue, contention along
    /// an 802.11 chain, or the path's jitter with `competitive_mode_jitter`).
    Armed,
}

/// The cap, bytes: twice the bandwidth-delay product of a round that carried `cwnd` bytes in
/// `round_rtt` over a path of `base` RTT (BBR's `cwnd_gain` of 2 over `BtlBw x RTprop`, with
/// the round's delivery rate `cwnd / round_rtt`), plus the datagram a receiver holds for its
/// next ACK (RFC 9000 section 13.2.2: an ACK after at least two ack-eliciting packets), so that
/// a path of a datagram's BDP still carries two.
pub fn inflight_cap(cwnd: u64, mtu: u64, base: Duration, round_rtt: Duration) -> u64 {
    // BBR (Cardwell et al. 2016): cap = cwnd_gain x BtlBw x RTprop, BtlBw = cwnd / round_rtt.
    let rtt = u128::from(cc_core::saturating_ns(round_rtt).max(1));
    let bdp2 = 2 * u128::from(cwnd) * u128::from(cc_core::saturating_ns(base)) / rtt;
    u64::try_from(bdp2).unwrap_or(u64::MAX).saturating_add(mtu)
}

/// The cap a round applies, bytes, never under a window a drain round can still drain a
/// datagram from (the drain floor plus one datagram), so that a competitor arriving later is
/// still found.
pub fn cap(cwnd: u64, mtu: u64, base: Duration, round_rtt: Duration) -> u64 {
    let floor = (FLOOR_PACKETS + 1).saturating_mul(mtu);
    inflight_cap(cwnd, mtu, base, round_rtt).max(floor)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MTU: u64 = 1200;

    #[test]
    fn twice_the_rounds_bdp_plus_a_datagram() {
        // 10 datagrams over a 200 ms round on a 100 ms base: delivery rate 5 datagrams per
        // base RTT, cap 2 x 5 + 1 = 11 datagrams.
        let cap = inflight_cap(
            10 * MTU,
            MTU,
            Duration::from_millis(100),
            Duration::from_millis(200),
        );
        assert_eq!(cap, 11 * MTU);
    }

    #[test]
    fn never_under_three_datagrams() {
        // 4 datagrams over a round ten times the base: 0.8 datagram of BDP, cap 3 datagrams.
        let c = cap(
            4 * MTU,
            MTU,
            Duration::from_millis(10),
            Duration::from_millis(100),
        );
        assert_eq!(c, 3 * MTU);
    }

    #[test]
    fn a_zero_round_rtt_does_not_divide_by_zero() {
        let c = inflight_cap(cc_core::MAX_WINDOW, MTU, Duration::MAX, Duration::ZERO);
        assert_eq!(c, u64::MAX);
    }
}
