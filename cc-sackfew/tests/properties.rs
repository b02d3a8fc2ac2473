//! The cc-core property harness on SACK-FeW: 10,000 random callback sequences per alpha
//! (`CC_PROPTEST_CASES` overrides the count).

use cc_core::PortController;
use cc_core::testing::{check_controller_invariants, proptest_cases};
use cc_sackfew::{SackFew, SackFewConfig};

fn check_with_alpha(alpha: f64) {
    let mut cfg = SackFewConfig::default();
    cfg.set_alpha(alpha).expect("a valid alpha");
    check_controller_invariants(proptest_cases(), |mtu| {
        PortController::new(SackFew::new(cfg.clone(), mtu), cfg.signal().clone())
    });
}

#[test]
fn sackfew_invariants_hold_with_the_papers_alpha() {
    check_with_alpha(SackFewConfig::DEFAULT_ALPHA);
}

#[test]
fn sackfew_invariants_hold_with_alpha_one() {
    // The fastest growth allowed: the most pressure on the overflow and clamping paths.
    check_with_alpha(1.0);
}
