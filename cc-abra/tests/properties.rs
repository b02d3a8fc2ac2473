//! The cc-core property harness on ABRA NewReno: 10,000 random callback sequences
//! (`CC_PROPTEST_CASES` overrides the count), plus ABRA's own invariants on the same kind of
//! input.

use cc_abra::{Abra, AbraConfig};
use cc_core::testing::{check_controller_invariants, proptest_cases};
use cc_core::{
    AckRoundEnd, AckSample, CongestionAlgorithm, CongestionEvent, LossSignal, PortController,
    RttSnapshot,
};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use std::time::{Duration, Instant};

#[test]
fn abra_invariants_hold_on_random_callback_sequences() {
    check_controller_invariants(proptest_cases(), |mtu| {
        let cfg = AbraConfig::default();
        PortController::new(Abra::new(cfg.clone(), mtu), cfg.signal().clone())
    });
}

/// One step of a random ABRA scenario.
#[derive(Debug, Clone)]
enum Step {
    /// Advance the clock, ms.
    Advance(u16),
    /// An ACK of a packet sent `ago` ms before now, with quinn's smoothed RTT `srtt` ms.
    Ack { ago: u16, srtt: u16 },
    /// The end of an ACK frame.
    EndAcks,
    /// A congestion event for a packet sent `ago` ms before now.
    Loss { ago: u16, signal: LossSignal },
}

fn step() -> impl Strategy<Value = Step> {
    let signal = prop_oneof![
        Just(LossSignal::FastRetransmit),
        Just(LossSignal::Timeout { dup_acks: 1 }),
        Just(LossSignal::Timeout { dup_acks: 2 }),
        Just(LossSignal::PERSISTENT),
        Just(LossSignal::Ecn),
    ];
    prop_oneof![
        3 => (0u16..2000).prop_map(Step::Advance),
        6 => (0u16..3000, 0u16..3000).prop_map(|(ago, srtt)| Step::Ack { ago, srtt }),
        2 => Just(Step::EndAcks),
        2 => (0u16..3000, signal).prop_map(|(ago, signal)| Step::Loss { ago, signal }),
    ]
}

#[test]
fn backoff_stays_in_range_and_restores_follow_the_rule() {
    // After every step: the backoff factor is in [1, 2]; min_srtt <= every smoothed RTT seen <=
    // max_srtt; and a restore sets exactly max(saved / 2, min) and max(saved / 4, min).
    let config = Config {
        cases: proptest_cases(),
        failure_persistence: None,
        ..Config::default()
    };
    let mut runner =
        TestRunner::new_with_rng(config, TestRng::deterministic_rng(RngAlgorithm::ChaCha));
    let result = runner.run(&prop::collection::vec(step(), 1..100), |steps| {
        let mut a = Abra::new(AbraConfig::default(), 1200);
        let min_window = 2400;
        let mut now = Instant::now();
        for s in &steps {
            let restores = a.stats().restores;
            let saved = a.saved().copied();
            match *s {
                Step::Advance(ms) => now += Duration::from_millis(u64::from(ms)),
                Step::Ack { ago, srtt } => {
                    let sent = now
                        .checked_sub(Duration::from_millis(u64::from(ago)))
                        .unwrap_or(now);
                    let srtt = Duration::from_millis(u64::from(srtt));
                    a.on_ack(&AckSample {
                        now,
                        sent,
                        bytes: 1200,
                        app_limited: false,
                        rtt: RttSnapshot::uniform(srtt),
                    });
                    if let Some(last) = a.srtt_range().last() {
                        prop_assert!(a.srtt_range().min() <= last && last <= a.srtt_range().max());
                    }
                }
                Step::EndAcks => a.on_end_acks(&AckRoundEnd {
                    now,
                    in_flight: 0,
                    app_limited: false,
                    largest_acked: Some(1),
                }),
                Step::Loss { ago, signal } => {
                    let sent = now
                        .checked_sub(Duration::from_millis(u64::from(ago)))
                        .unwrap_or(now);
                    a.on_congestion(&CongestionEvent::determined(now, sent, 1200, signal));
                }
            }
            let b = a.backoff();
            prop_assert!((1.0..=2.0).contains(&b), "backoff {b}");
            prop_assert!(a.window() >= min_window);
            if a.stats().restores > restores {
                let saved = saved.expect("a restore needs a saved state");
                prop_assert_eq!(a.window(), (saved.cwnd / 2).max(min_window));
                // An unbounded saved ssthresh (no loss before the outage): the saved window
                // stands in for it.
                let base = if saved.ssthresh >= cc_core::MAX_WINDOW {
                    saved.cwnd
                } else {
                    saved.ssthresh
                };
                prop_assert_eq!(a.ssthresh(), ((base as f64 * 0.25) as u64).max(min_window));
                prop_assert!(a.saved().is_none());
            }
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("ABRA invariant violated: {e}");
    }
}
