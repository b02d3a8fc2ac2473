//! The cc-core property harness on TCP-UB: 10,000 random callback sequences (override with
//! `CC_PROPTEST_CASES`).

use cc_core::PortController;
use cc_core::testing::{check_controller_invariants, proptest_cases};
use cc_ub::{Ub, UbConfig};

#[test]
fn ub_invariants_hold_on_random_callback_sequences() {
    check_controller_invariants(proptest_cases(), |mtu| {
        let cfg = UbConfig::default();
        PortController::new(Ub::new(cfg.clone(), mtu), cfg.signal().clone())
    });
}

#[test]
fn ub_invariants_hold_with_other_thresholds_and_linux_slow_start() {
    check_controller_invariants(proptest_cases() / 10, |mtu| {
        let mut cfg = UbConfig::default();
        cfg.set_thresholds(0.0, 0.5, 1.0)
            .unwrap()
            .set_bwe_gain(0.0)
            .unwrap()
            .set_slow_start_every_other_rtt(false)
            .unwrap();
        PortController::new(Ub::new(cfg.clone(), mtu), cfg.signal().clone())
    });
}
