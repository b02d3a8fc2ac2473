//! `backlog_bound`: TCP Vegas' bound on the data this flow keeps queued (Brakmo and Peterson,
//! IEEE JSAC 1995, sections 3.2-3.3; TCP-UB's bands). Once per round trip,
//! `Diff = cwnd x (RTT - BaseRTT) / RTT` packets: the window grows below `alpha`, holds up to
//! `beta` and loses a datagram per round above it (`alpha` 2 and `beta` 4, Linux
//! `tcp_vegas.c`). The round's RTT is read by [`super::jitter_allowance::round_rtt`].

use cc_core::Window;

use super::ManetDecision;

/// Whether and how the window may grow on the ACKs of the round under way: the bound's last
/// decision, read on every ACK in congestion avoidance.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Growth {
    /// The bound holds the window: no growth until the next round's decision.
    Held,
    /// The window may grow: CUBIC's growth where nothing bounds it, one datagram per round
    /// trip under the bound.
    Allowed,
    /// The window may grow, and the last round saw no standing queue: conservative slow start
    /// under the bound (`empty_queue_css`).
    Conservative,
}

impl Growth {
    /// The growth a round starts from: conservative slow start lasts one round.
    pub fn at_round_end(self) -> Self {
        match self {
            Self::Conservative => Self::Allowed,
            other => other,
        }
    }

    /// The growth after the bound is lifted (a timeout): allowed, conservative slow start kept
    /// for the rest of its round.
    pub fn opened(self) -> Self {
        match self {
            Self::Held => Self::Allowed,
            other => other,
        }
    }
}

/// The bound's rule for a round whose backlog is `diff` packets, with `alpha < beta`.
/// `at_cap`: one datagram more would exceed `bdp_cap`'s cap; `over_cap`: the window already
/// does. Returns [`ManetDecision::Decrease`], [`ManetDecision::Hold`] or
/// [`ManetDecision::Grow`].
pub fn rule(diff: f64, alpha: f64, beta: f64, at_cap: bool, over_cap: bool) -> ManetDecision {
    if diff > beta || over_cap {
        ManetDecision::Decrease
    } else if diff >= alpha || at_cap {
        ManetDecision::Hold
    } else {
        ManetDecision::Grow
    }
}

/// The window after a decrease: one datagram less, and ssthresh follows it down so that the
/// next growth is linear, not a slow start (Linux `tcp_vegas.c`, `tcp_vegas_ssthresh`).
pub fn decreased(window: &Window) -> Window {
    let mut window = window.clone();
    window.shrink(window.mtu());
    ssthresh_below_cwnd(&mut window);
    window
}

/// Lowers ssthresh to at most one datagram below cwnd (Linux `tcp_vegas.c`,
/// `tcp_vegas_ssthresh`): growth from here is linear.
pub fn ssthresh_below_cwnd(window: &mut Window) {
    let ssthresh = window
        .ssthresh()
        .min(window.cwnd().saturating_sub(window.mtu()));
    window.set_ssthresh(ssthresh);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grows_below_alpha_holds_to_beta_and_decreases_above() {
        assert_eq!(rule(1.9, 2.0, 4.0, false, false), ManetDecision::Grow);
        assert_eq!(rule(2.0, 2.0, 4.0, false, false), ManetDecision::Hold);
        assert_eq!(rule(4.0, 2.0, 4.0, false, false), ManetDecision::Hold);
        assert_eq!(rule(4.1, 2.0, 4.0, false, false), ManetDecision::Decrease);
    }

    #[test]
    fn the_cap_holds_and_decreases_whatever_the_backlog() {
        assert_eq!(rule(0.0, 2.0, 4.0, true, false), ManetDecision::Hold);
        assert_eq!(rule(0.0, 2.0, 4.0, true, true), ManetDecision::Decrease);
    }

    #[test]
    fn a_decrease_takes_one_datagram_and_ssthresh_follows() {
        // 10 datagrams of 1200 bytes, ssthresh unset (MAX_WINDOW): 9 datagrams, ssthresh 8.
        let window = Window::new(10, 1200);
        let after = decreased(&window);
        assert_eq!(after.cwnd(), 9 * 1200);
        assert_eq!(after.ssthresh(), 8 * 1200);
        // At the minimum window (2 datagrams) nothing goes below it.
        let mut small = Window::new(2, 1200);
        small.set_ssthresh(2 * 1200);
        let after = decreased(&small);
        assert_eq!((after.cwnd(), after.ssthresh()), (2 * 1200, 2 * 1200));
    }

    #[test]
    fn conservative_growth_lasts_one_round_and_a_timeout_opens_a_held_window() {
        assert_eq!(Growth::Conservative.at_round_end(), Growth::Allowed);
        assert_eq!(Growth::Held.at_round_end(), Growth::Held);
        assert_eq!(Growth::Held.opened(), Growth::Allowed);
        assert_eq!(Growth::Conservative.opened(), Growth::Conservative);
    }
}
