//! The cc-core property harness on the composite and the fixed window: random callback
//! sequences (10,000 by default; override with `CC_PROPTEST_CASES`).

use cc_core::PortController;
use cc_core::testing::{check_controller_invariants, proptest_cases};
use cc_manet::{FixedWindow, FixedWindowConfig, Manet, ManetConfig};

#[test]
fn manet_invariants_hold_on_random_callback_sequences() {
    check_controller_invariants(proptest_cases(), |mtu| {
        let cfg = ManetConfig::default();
        PortController::new(Manet::new(cfg.clone(), mtu), cfg.signal().clone())
    });
}

#[test]
fn manet_invariants_hold_with_every_switch_off() {
    check_controller_invariants(proptest_cases() / 10, |mtu| {
        let mut cfg = ManetConfig::default();
        cfg.set_backlog_bound(false)
            .unwrap()
            .set_cubic_growth(false)
            .unwrap()
            .set_westwood_floor(false)
            .unwrap()
            .set_competitive_mode(false)
            .unwrap()
            .set_empty_queue_css(false)
            .unwrap()
            .set_mean_round_rtt(false)
            .unwrap()
            .set_refresh_base_rtt(false)
            .unwrap()
            .set_veno_random_loss(false)
            .unwrap();
        PortController::new(Manet::new(cfg.clone(), mtu), cfg.signal().clone())
    });
}

#[test]
fn fixed_window_invariants_hold() {
    check_controller_invariants(proptest_cases() / 10, |mtu| {
        let cfg = FixedWindowConfig::default();
        PortController::new(FixedWindow::new(cfg.clone(), mtu), cfg.signal().clone())
    });
}
