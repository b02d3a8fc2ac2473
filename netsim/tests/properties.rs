//! Property tests: invariants of the link core under random configurations and traffic.

use std::time::Duration;

use netsim::{
    DirectionConfig, DirectionId, ErrorModelConfig, Link, LinkConfig, MacConfig, OnOffConfig,
    PathModelConfig, QueueLimit, Rate, ReorderConfig, Verdict,
};
use proptest::prelude::*;

fn direction() -> impl Strategy<Value = DirectionConfig> {
    (
        1_000u64..50_000_000,
        0u64..200,
        0u64..30,
        1u64..100,
        0.0f64..0.3,
        0.0f64..1e-4,
        proptest::option::of((0.0f64..0.3, 0u64..50)),
        0.0f64..0.2,
    )
        .prop_map(
            |(bps, delay_ms, jitter_ms, queue, per, ber, reorder, duplicate)| DirectionConfig {
                rate: Rate::from_bps(bps),
                delay: Duration::from_millis(delay_ms),
                jitter: Duration::from_millis(jitter_ms),
                queue: QueueLimit::Packets(queue),
                errors: vec![
                    ErrorModelConfig::Per { p: per },
                    ErrorModelConfig::Ber { ber },
                ],
                reorder: reorder.map(|(probability, ms)| ReorderConfig {
                    probability,
                    extra_delay: Duration::from_millis(ms),
                }),
                duplicate,
                ..DirectionConfig::default()
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// offered = delivered + dropped at every step; nothing is delivered before propagation
    /// plus serialization; in-order datagrams never overtake each other; with or without the
    /// 802.11 layer.
    #[test]
    fn accounting_balances_and_delivery_respects_physics(
        a_to_b in direction(),
        seed in any::<u64>(),
        traffic in proptest::collection::vec((0u64..20_000, 0usize..1600, any::<bool>()), 1..400),
        mac in proptest::option::of((0u32..64, 1u32..8, any::<bool>())),
    ) {
        // The 802.11 layer only adds channel time, so the same floor holds with it.
        let mac = mac.map(|(cw_min, max_attempts, half_duplex)| MacConfig {
            cw_min,
            max_attempts,
            half_duplex,
            ..MacConfig::default()
        });
        let config = LinkConfig { a_to_b: a_to_b.clone(), b_to_a: a_to_b.clone(), path: PathModelConfig::OnOff(OnOffConfig {
            mean_up: Duration::from_secs(2),
            mean_down: Duration::from_millis(200),
            repair_delay: Duration::from_millis(50),
        }), mac };
        let mut link = Link::new(config, seed).unwrap();
        let mut now = Duration::ZERO;
        let mut last_in_order = [Duration::ZERO; 2];
        for (gap_us, len, forward) in traffic {
            now += Duration::from_micros(gap_us);
            let direction = if forward { DirectionId::AToB } else { DirectionId::BToA };
            let verdict = link.offer(direction, now, len);
            if let Verdict::Deliver(delivery) = verdict {
                let floor = now + a_to_b.delay + a_to_b.rate.transmit_time(len as u64 + 28);
                prop_assert!(delivery.at >= floor, "{:?} < {:?}", delivery.at, floor);
                if !delivery.reordered {
                    let slot = &mut last_in_order[usize::from(!forward)];
                    prop_assert!(delivery.at >= *slot);
                    *slot = delivery.at;
                }
            }
            let accounting = link.accounting(now);
            prop_assert!(accounting.a_to_b.is_balanced() && accounting.b_to_a.is_balanced());
            prop_assert!(accounting.a_to_b.up_seconds <= accounting.a_to_b.elapsed_seconds + 1e-9);
        }
    }

    /// Invalid probabilities are errors, never panics.
    #[test]
    fn any_probability_is_validated_not_panicked_on(p in proptest::num::f64::ANY) {
        let config = LinkConfig::symmetric(DirectionConfig {
            errors: vec![ErrorModelConfig::Per { p }],
            ..DirectionConfig::default()
        });
        let result = Link::new(config, 0);
        prop_assert_eq!(result.is_ok(), (0.0..=1.0).contains(&p));
    }
}
