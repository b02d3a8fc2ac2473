//! Path models on their own: mobility break frequency, route behaviour, traces.

use std::time::Duration;

use netsim::path::{PathStats, path_segments};
use netsim::{MobilityConfig, PathModelConfig, PathState, RoutePolicy};

/// Mean breaks and up fraction over `seeds` runs of `seconds` each.
fn mobility_stats(config: &MobilityConfig, seeds: u64, seconds: u64) -> (f64, f64, f64) {
    let mut breaks = 0.0;
    let mut up = 0.0;
    let mut hops = 0.0;
    for seed in 0..seeds {
        let segments = path_segments(
            &PathModelConfig::Mobility(config.clone()),
            seed,
            Duration::from_secs(seconds),
        )
        .unwrap();
        let stats = PathStats::of(&segments);
        breaks += stats.breaks as f64;
        up += stats.up_fraction();
        hops += stats.mean_hops;
    }
    let n = seeds as f64;
    (breaks / n, up / n, hops / n)
}

#[test]
fn mobility_breaks_become_more_frequent_with_speed() {
    let mut previous = f64::MIN;
    let mut table = Vec::new();
    for speed in [1.0, 5.0, 15.0, 30.0] {
        let (breaks, up, hops) = mobility_stats(&MobilityConfig::with_speed(speed), 6, 600);
        table.push((speed, breaks, up, hops));
        assert!(
            breaks > previous,
            "breaks did not rise with speed: {table:?}"
        );
        previous = breaks;
    }
    eprintln!("speed, breaks per 600 s, up fraction, mean hops: {table:?}");
    // At 30 m/s the path breaks far more often than at walking pace.
    assert!(table[3].1 > 3.0 * table[0].1, "{table:?}");
}

#[test]
fn static_nodes_never_change_route_after_discovery() {
    // With speed ~0 (a mm per second) and the default 30 s pause, the topology is frozen for
    // a 20 s run: the route (if any) is found once and never lost.
    let config = MobilityConfig::with_speed(0.001);
    for seed in 0..10 {
        let segments = path_segments(
            &PathModelConfig::Mobility(config.clone()),
            seed,
            Duration::from_secs(20),
        )
        .unwrap();
        let stats = PathStats::of(&segments);
        assert_eq!(stats.breaks, 0, "seed {seed}: {segments:?}");
        if let Some(&(start, _, state)) = segments.iter().find(|s| s.2.is_up()) {
            // First route after the 100 ms discovery delay.
            assert_eq!(start, Duration::from_millis(100), "seed {seed}");
            assert!(state.hops().unwrap() >= 1);
        }
    }
}

#[test]
fn always_shortest_policy_changes_routes_at_least_as_often() {
    let keep = MobilityConfig::with_speed(20.0);
    let shortest = MobilityConfig {
        route_policy: RoutePolicy::AlwaysShortest,
        ..keep.clone()
    };
    let (keep_breaks, _, _) = mobility_stats(&keep, 3, 300);
    let (shortest_breaks, _, shortest_hops) = mobility_stats(&shortest, 3, 300);
    assert!(
        shortest_breaks >= keep_breaks,
        "keep {keep_breaks}, shortest {shortest_breaks}"
    );
    assert!(shortest_hops >= 1.0);
}

#[test]
fn mobility_is_deterministic_per_seed() {
    let config = PathModelConfig::Mobility(MobilityConfig::with_speed(10.0));
    let a = path_segments(&config, 5, Duration::from_secs(120)).unwrap();
    let b = path_segments(&config, 5, Duration::from_secs(120)).unwrap();
    let c = path_segments(&config, 6, Duration::from_secs(120)).unwrap();
    assert_eq!(a, b);
    assert_ne!(a, c);
    assert!(
        a.iter()
            .all(|&(start, end, state)| end > start && state != PathState::Up { hops: 0 })
    );
}
