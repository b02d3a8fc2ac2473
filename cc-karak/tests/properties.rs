//! The cc-core property harness on Karak: 10,000 random callback sequences.

use cc_core::QuinnAdapter;
use cc_core::testing::check_controller_invariants;
use cc_karak::{Karak, KarakConfig};

#[test]
fn karak_invariants_hold_on_random_callback_sequences() {
    let cases = std::env::var("CC_PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000);
    check_controller_invariants(cases, |mtu| {
        let cfg = KarakConfig::default();
        QuinnAdapter::new(Karak::new(cfg.clone(), mtu), cfg.get_signal().clone())
    });
}
