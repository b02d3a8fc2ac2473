//! The optional 802.11 DCF layer (`LinkConfig::mac`) at the link core: per-frame airtime,
//! retries of corrupted attempts, one channel for both directions, determinism, and no change at
//! all without it. Bounds are stated with their arithmetic; runs are seeded.

use std::time::Duration;

use netsim::{
    DirectionConfig, DirectionId, DropReason, ErrorModelConfig, Link, LinkConfig, MacConfig,
    PathModelConfig, Rate, TraceConfig, TraceSchedule, Verdict,
};

const A_TO_B: DirectionId = DirectionId::AToB;
const B_TO_A: DirectionId = DirectionId::BToA;

/// 802.11b's airtime of one attempt of `wire` bytes at 2 Mb/s with no backoff, in us:
/// DIFS 50 + preamble 192 + (wire + 36) x 4 + SIFS 10 + ACK (192 + 112).
fn attempt_us(wire: u64) -> u64 {
    50 + 192 + (wire + 36) * 4 + 10 + 192 + 112
}

fn make_link(direction: DirectionConfig, mac: Option<MacConfig>, seed: u64) -> Link {
    let config = LinkConfig {
        mac,
        ..LinkConfig::symmetric(direction)
    };
    Link::new(config, seed).unwrap()
}

fn delivered_at(verdict: Verdict) -> Duration {
    match verdict {
        Verdict::Deliver(d) => d.at,
        Verdict::Drop(reason) => panic!("dropped: {reason}"),
    }
}

/// 802.11b's defaults without backoff, so that every time is exact.
fn no_backoff() -> MacConfig {
    MacConfig {
        cw_min: 0,
        cw_max: 0,
        ..MacConfig::default()
    }
}

/// 2 Mb/s, no propagation delay, a queue deep enough for the bursts below.
fn wire_2mbps() -> DirectionConfig {
    DirectionConfig {
        rate: Rate::from_mbps(2),
        delay: Duration::ZERO,
        queue: netsim::QueueLimit::Packets(10_000),
        ..DirectionConfig::default()
    }
}

#[test]
fn a_saturated_direction_runs_at_802_11_b_s_frame_rate() {
    // 5000 datagrams of 1472 bytes (1500 on the wire) offered at once: each takes 6700 us plus
    // a backoff uniform in [0, 31] slots (mean 310 us, sd 179 us). Over 5000 frames the mean
    // is 7010 us +- 4 x 179 / sqrt(5000) = 10 us.
    let n = 5000u32;
    let mut link = make_link(wire_2mbps(), Some(MacConfig::default()), 1);
    let last = (0..n)
        .map(|_| delivered_at(link.offer(A_TO_B, Duration::ZERO, 1472)))
        .last()
        .unwrap();
    let mean_us = last.as_secs_f64() * 1e6 / f64::from(n);
    assert!(
        (mean_us - 7010.0).abs() < 10.0,
        "mean frame time {mean_us} us"
    );
    // Without the layer: 6000 us each, exactly.
    let mut bare = link_without_mac();
    let last = (0..n)
        .map(|_| delivered_at(bare.offer(A_TO_B, Duration::ZERO, 1472)))
        .last()
        .unwrap();
    assert_eq!(last, Duration::from_micros(6000) * n);
    // The capacity estimate says the same: 1472 bytes per 7010 us.
    let mut link = link_for_capacity(Some(MacConfig::default()));
    let expected = 1472.0 / 7010e-6;
    let capacity = capacity_bytes_per_second(&mut link);
    assert!((capacity / expected - 1.0).abs() < 1e-3, "{capacity}");
}

fn link_without_mac() -> Link {
    make_link(wire_2mbps(), None, 1)
}

fn link_for_capacity(mac: Option<MacConfig>) -> Link {
    make_link(wire_2mbps(), mac, 3)
}

fn capacity_bytes_per_second(link: &mut Link) -> f64 {
    let accounting = link.accounting(Duration::from_secs(10));
    accounting.a_to_b.capacity_bytes / 10.0
}

#[test]
fn a_returning_frame_waits_for_one_frame_not_the_queue_and_delays_the_next() {
    // No backoff, so every time is exact.
    let mac = no_backoff();
    let mut link = make_link(wire_2mbps(), Some(mac), 1);
    let data = attempt_us(1500);
    // Ten data frames queue in A -> B at t = 0: the last ends at 10 frames.
    for k in 1..=10u64 {
        let at = delivered_at(link.offer(A_TO_B, Duration::ZERO, 1472));
        assert_eq!(at, Duration::from_micros(k * data));
    }
    // A 60-byte acknowledgement from B at 1 ms waits for A's frame on the air, not for the
    // nine queued behind it...
    let ack = attempt_us(60 + 28);
    let at = delivered_at(link.offer(B_TO_A, Duration::from_millis(1), 60));
    assert_eq!(at, Duration::from_micros(data + ack));
    // ... and A's eleventh frame, offered now, starts after the ten and the acknowledgement's
    // channel time: the channel carried both.
    let at = delivered_at(link.offer(A_TO_B, Duration::from_millis(1), 1472));
    assert_eq!(at, Duration::from_micros(11 * data + ack));
    // Full duplex (`half_duplex = false`): the eleventh is not delayed.
    let mac = MacConfig {
        half_duplex: false,
        ..no_backoff()
    };
    let mut link = make_link(wire_2mbps(), Some(mac), 1);
    for _ in 0..10 {
        link.offer(A_TO_B, Duration::ZERO, 1472);
    }
    link.offer(B_TO_A, Duration::from_millis(1), 60);
    let at = delivered_at(link.offer(A_TO_B, Duration::from_millis(1), 1472));
    assert_eq!(at, Duration::from_micros(11 * data));
}

#[test]
fn an_idle_direction_starts_after_the_other_s_frame_ends() {
    let mac = no_backoff();
    let mut link = make_link(wire_2mbps(), Some(mac), 1);
    let data = attempt_us(1500);
    link.offer(A_TO_B, Duration::ZERO, 1472);
    // B offers during A's frame: it waits until the channel is free.
    let at = delivered_at(link.offer(B_TO_A, Duration::from_millis(1), 1472));
    assert_eq!(at, Duration::from_micros(2 * data));
}

#[test]
fn retries_turn_a_per_attempt_error_rate_into_its_seventh_power() {
    // PER 0.3 per attempt: without the layer 30% of datagrams are lost; with it a datagram is
    // lost only if 7 attempts fail, 0.3^7 = 2.2e-4. Over 20000 datagrams at most 4.4 expected:
    // fewer than 20 lost (a wrong count of attempts, 6 or fewer, expects 14.6 or more... 0.3^6
    // x 20000 = 14.6; 0.3^5 x 20000 = 48.6).
    let direction = DirectionConfig {
        errors: vec![ErrorModelConfig::Per { p: 0.3 }],
        ..wire_2mbps()
    };
    let n = 20_000u32;
    let spaced = Duration::from_millis(100);
    let mut link = make_link(direction.clone(), Some(MacConfig::default()), 5);
    let lost = (0..n)
        .filter(|&i| link.offer(A_TO_B, spaced * i, 1000) == Verdict::Drop(DropReason::Error))
        .count();
    assert!(lost < 20, "{lost} lost");
    let accounting = link.accounting(spaced * n);
    assert_eq!(accounting.a_to_b.dropped.error.datagrams, lost as u64);
    // Each delivered datagram took 1 / 0.7 = 1.43 attempts on average: the channel time per
    // datagram shows it (a spaced datagram is delivered its channel time after its offer).
    let mut link = make_link(direction, Some(MacConfig::default()), 6);
    let mut total = Duration::ZERO;
    let mut delivered = 0u32;
    for i in 0..n {
        if let Verdict::Deliver(d) = link.offer(A_TO_B, spaced * i, 1000) {
            total += d.at - spaced * i;
            delivered += 1;
        }
    }
    let mean_attempt_us = attempt_us(1028) as f64 + 15.5 * 20.0;
    let attempts = total.as_secs_f64() * 1e6 / f64::from(delivered) / mean_attempt_us;
    // Later attempts back off longer (windows 63, 127, ...): slightly above 1.43.
    assert!((1.43..1.55).contains(&attempts), "{attempts} attempts");
}

#[test]
fn every_hop_of_a_route_is_an_exchange_of_its_own() {
    // A 2-hop route (hop sharing 2): the channel time of a clean datagram is both hops'.
    let mac = no_backoff();
    let schedule = TraceSchedule::parse("0 up 2\n", "test").unwrap();
    let path = PathModelConfig::Trace(TraceConfig::new(schedule));
    let config = LinkConfig {
        mac: Some(mac),
        ..LinkConfig::symmetric(wire_2mbps()).with_path(path)
    };
    let mut link = Link::new(config, 1).unwrap();
    let at = delivered_at(link.offer(A_TO_B, Duration::ZERO, 1472));
    assert_eq!(at, Duration::from_micros(2 * attempt_us(1500)));
}

#[test]
fn the_same_seed_gives_the_same_schedule_and_another_seed_another() {
    let run = |seed| {
        let mut link = make_link(wire_2mbps(), Some(MacConfig::default()), seed);
        (0..200u32)
            .map(|i| {
                let now = Duration::from_millis(u64::from(i) * 3);
                let direction = if i % 3 == 0 { B_TO_A } else { A_TO_B };
                link.offer(direction, now, 1200)
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(run(11), run(11));
    assert_ne!(run(11), run(12));
}

#[test]
fn without_the_layer_the_config_serializes_as_before_and_parses_back() {
    let config = LinkConfig::symmetric(DirectionConfig::default());
    let text = toml::to_string(&config).unwrap();
    assert!(!text.contains("mac"), "{text}");
    let with: LinkConfig = toml::from_str("[mac]\nmax_attempts = 4\n").unwrap();
    assert_eq!(
        with.mac,
        Some(MacConfig {
            max_attempts: 4,
            ..MacConfig::default()
        })
    );
    let err = LinkConfig::from_toml_str("[mac]\ncw_min = 5000\n", "t.toml")
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("mac.cw_min = 5000 is out of range: it must be in [0, cw_max (1023)]"),
        "{err}"
    );
    let err = LinkConfig::from_toml_str("[mac]\nslots = 5\n", "t.toml")
        .unwrap_err()
        .to_string();
    assert!(err.contains("unknown field `slots`"), "{err}");
}

#[test]
fn two_saturated_directions_share_the_channel_and_conserve_its_time() {
    // 100 frames each way offered at 0 (no backoff): B's frames interleave with A's accepted
    // ones, and A's next frame starts only after the 200 frames' channel time.
    let mac = no_backoff();
    let mut link = make_link(wire_2mbps(), Some(mac), 1);
    let frame = Duration::from_micros(attempt_us(1500));
    for _ in 0..100 {
        link.offer(A_TO_B, Duration::ZERO, 1472);
    }
    let last_b = (0..100)
        .map(|_| delivered_at(link.offer(B_TO_A, Duration::ZERO, 1472)))
        .last()
        .unwrap();
    assert_eq!(last_b, frame * 200);
    let next_a = delivered_at(link.offer(A_TO_B, Duration::ZERO, 1472));
    assert_eq!(next_a, frame * 201);
}
