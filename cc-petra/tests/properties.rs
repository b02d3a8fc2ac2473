//! The cc-core property harness on PETRA: 10,000 random callback sequences (override with
//! `CC_PROPTEST_CASES`).

use cc_core::PortController;
use cc_core::testing::{check_controller_invariants, proptest_cases};
use cc_petra::{Petra, PetraConfig};

#[test]
fn petra_invariants_hold_on_random_callback_sequences() {
    check_controller_invariants(proptest_cases(), |mtu| {
        let cfg = PetraConfig::default();
        PortController::new(Petra::new(cfg.clone(), mtu), cfg.signal().clone())
    });
}

#[test]
fn petra_invariants_hold_without_smoothing_or_faster_start() {
    check_controller_invariants(proptest_cases() / 10, |mtu| {
        let mut cfg = PetraConfig::default();
        cfg.set_ebw_gain(0.0)
            .unwrap()
            .set_faster_start(false)
            .unwrap();
        PortController::new(Petra::new(cfg.clone(), mtu), cfg.signal().clone())
    });
}
