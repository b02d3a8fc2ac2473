//! The cc-core property harness on Karak: 10,000 random callback sequences.

use cc_core::PortController;
use cc_core::testing::{check_controller_invariants, proptest_cases};
use cc_karak::{Karak, KarakConfig};

#[test]
fn karak_invariants_hold_on_random_callback_sequences() {
    check_controller_invariants(proptest_cases(), |mtu| {
        let cfg = KarakConfig::default();
        PortController::new(Karak::new(cfg.clone(), mtu), cfg.signal().clone())
    });
}
