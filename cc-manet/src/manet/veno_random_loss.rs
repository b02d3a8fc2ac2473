//! `veno_random_loss`: Veno's loss reading (Fu and Liew, IEEE JSAC 2003, section II). A loss
//! while the last round's backlog was under `beta` packets did not overflow this flow's queue:
//! it is read as random, and the window is cut by a fifth instead of CUBIC's 30%. Veno's
//! threshold is its own beta (3); here it is the bound's.

use super::cubic_growth::BETA;

/// Veno's cut on a loss it reads as random (Fu and Liew 2003: cwnd x 4/5).
pub const RANDOM_LOSS_BETA: f64 = 0.8;

/// Whether a loss after a round with backlog `last_diff` packets is random (under `beta`).
pub fn is_random(last_diff: Option<f64>, beta: f64) -> bool {
    last_diff.is_some_and(|diff| diff < beta)
}

/// The multiplicative decrease for a loss: Veno's 0.8 where `random`, CUBIC's 0.7 otherwise.
pub fn decrease_factor(random: bool) -> f64 {
    if random { RANDOM_LOSS_BETA } else { BETA }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_loss_under_beta_is_random_and_cut_by_a_fifth() {
        assert!(is_random(Some(3.9), 4.0));
        assert_eq!(decrease_factor(is_random(Some(3.9), 4.0)), 0.8);
    }

    #[test]
    fn a_loss_at_beta_or_without_a_reading_is_congestion() {
        assert!(!is_random(Some(4.0), 4.0));
        assert!(!is_random(None, 4.0));
        assert_eq!(decrease_factor(false), 0.7);
    }
}
