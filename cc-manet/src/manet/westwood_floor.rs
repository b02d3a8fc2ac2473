//! `westwood_floor`: a Westwood+ floor under every loss cut (Grieco and Mascolo, ACM CCR 2004;
//! PETRA eq. 4.5; TCP-UB): `ssthresh = max(cut, BWE x BaseRTT)`, never above the window.

use std::time::Duration;

use cc_core::WestwoodPlusEstimator;

/// The floor, bytes: the bandwidth estimate times the base RTT, zero without either.
pub fn floor(bwe: &WestwoodPlusEstimator, base: Option<Duration>) -> u64 {
    base.and_then(|base| bwe.bdp(base)).unwrap_or(0)
}

/// The threshold after a loss: the cut `cut` raised to the floor `floor`, never above the
/// window `cwnd` (bytes).
pub fn ssthresh(cut: u64, floor: u64, cwnd: u64) -> u64 {
    cut.max(floor).min(cwnd)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_floor_raises_a_cut_but_never_above_the_window() {
        assert_eq!(ssthresh(7_000, 9_000, 10_000), 9_000);
        assert_eq!(ssthresh(7_000, 12_000, 10_000), 10_000);
        assert_eq!(ssthresh(7_000, 0, 10_000), 7_000);
    }

    #[test]
    fn no_floor_before_an_estimate_or_a_base_rtt() {
        let bwe = WestwoodPlusEstimator::new();
        assert_eq!(floor(&bwe, Some(Duration::from_millis(100))), 0);
        assert_eq!(floor(&bwe, None), 0);
    }
}
