//! ABRA's tracing fields at persistent congestion and restore.
//!
//! Alone in its test binary: `tracing` caches each callsite's interest globally, and a test
//! thread without a subscriber registering the same callsites concurrently can leave this
//! test's events filtered out.

mod common;

use cc_core::testing::capture_events;
use cc_core::{CongestionAlgorithm, LossSignal};
use common::*;
use std::time::Instant;

#[test]
fn backoff_and_saved_state_are_traced_at_persistent_congestion() {
    let t0 = Instant::now();
    let ((), text) = capture_events("cc=debug", || {
        let mut a = prepared(64, Some(32), ms(350), t0);
        a.on_congestion(&event(
            t0 + ms(5_000),
            t0 + ms(1_000),
            LossSignal::PERSISTENT,
        ));
        a.on_ack(&ack(t0 + ms(5_001), ms(350)));
    });
    let backoff_line = text
        .lines()
        .find(|l| l.contains("abra backoff"))
        .unwrap_or_else(|| panic!("no backoff event in:\n{text}"));
    for field in [
        "decision=\"save_and_collapse\"",
        "saved_cwnd=76800",
        "saved_ssthresh=38400",
        "saved_srtt_us=350000",
        "backoff=1.5",
        "min_srtt_us=100000",
        "max_srtt_us=600000",
        "applied_by_quinn=false",
    ] {
        assert!(
            backoff_line.contains(field),
            "{field} missing from: {backoff_line}"
        );
    }
    let restore_line = text
        .lines()
        .find(|l| l.contains("abra restore"))
        .unwrap_or_else(|| panic!("no restore event in:\n{text}"));
    assert!(restore_line.contains("cwnd=38400") && restore_line.contains("ssthresh=9600"));
}
