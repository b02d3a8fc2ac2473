//! Statistical validation of the sans-IO link core against its configuration.
//!
//! Every bound is stated with its arithmetic. Runs are seeded, so a test either always passes
//! or always fails for a given build; the bounds are wide enough (4 standard deviations, a
//! two-sided false-failure probability below 1e-4 for a correct implementation with a fresh
//! seed) that a change of seed would not make a correct link fail, and narrow enough that a
//! wrong formula (say, BER applied per byte instead of per bit) would.

use std::time::Duration;

use netsim::path::{PathStats, path_segments};
use netsim::{
    DirectionConfig, DirectionId, DropReason, ErrorModelConfig, Link, LinkConfig, OnOffConfig,
    PathModelConfig, QueueLimit, Rate, ReorderConfig, Verdict,
};

const A_TO_B: DirectionId = DirectionId::AToB;

/// Offers `count` datagrams of `len` bytes, one every `gap`, and returns their verdicts with
/// offer times.
fn offer_spaced(
    link: &mut Link,
    count: u64,
    len: usize,
    gap: Duration,
) -> Vec<(Duration, Verdict)> {
    (0..count)
        .map(|i| {
            let now = gap * u32::try_from(i).unwrap();
            (now, link.offer(A_TO_B, now, len))
        })
        .collect()
}

fn link_with(direction: DirectionConfig, seed: u64) -> Link {
    Link::new(LinkConfig::symmetric(direction), seed).unwrap()
}

/// Gap that keeps the queue empty: 1500 wire bytes at 2 Mb/s take 6 ms.
const SPACED: Duration = Duration::from_millis(10);

fn loss_rate(verdicts: &[(Duration, Verdict)], reason: DropReason) -> f64 {
    let lost = verdicts
        .iter()
        .filter(|(_, v)| *v == Verdict::Drop(reason))
        .count();
    lost as f64 / verdicts.len() as f64
}

#[test]
fn packet_error_rate_matches_within_four_sigma() {
    // n = 100000, p = 0.01: sigma = sqrt(p (1 - p) / n) = 3.15e-4; 4 sigma = 1.26e-3.
    let (n, p) = (100_000u64, 0.01);
    let mut link = link_with(
        DirectionConfig {
            errors: vec![ErrorModelConfig::Per { p }],
            ..DirectionConfig::default()
        },
        1,
    );
    let verdicts = offer_spaced(&mut link, n, 1200, SPACED);
    let measured = loss_rate(&verdicts, DropReason::Error);
    let bound = 4.0 * (p * (1.0 - p) / n as f64).sqrt();
    assert!(
        (measured - p).abs() <= bound,
        "measured {measured}, configured {p}, bound {bound}"
    );
}

#[test]
fn bit_error_rate_matches_the_per_datagram_formula_within_four_sigma() {
    // 1000-byte datagrams at BER 1e-5: q = 1 - (1 - 1e-5)^8000 = 0.076884.
    // n = 50000: sigma = sqrt(q (1 - q) / n) = 1.19e-3; 4 sigma = 4.77e-3. (Applying the BER
    // per byte instead of per bit would give q = 0.00995, far outside.)
    let (n, ber, len) = (50_000u64, 1e-5, 1000usize);
    let q = 1.0 - (1.0f64 - ber).powi(8 * len as i32);
    let mut link = link_with(
        DirectionConfig {
            errors: vec![ErrorModelConfig::Ber { ber }],
            ..DirectionConfig::default()
        },
        2,
    );
    let verdicts = offer_spaced(&mut link, n, len, SPACED);
    let measured = loss_rate(&verdicts, DropReason::Error);
    let bound = 4.0 * (q * (1.0 - q) / n as f64).sqrt();
    assert!(
        (measured - q).abs() <= bound,
        "measured {measured}, expected {q}, bound {bound}"
    );
}

#[test]
fn gilbert_elliott_matches_its_stationary_rate_and_is_bursty() {
    let (p, r, loss_good, loss_bad) = (0.05, 0.3, 0.001, 0.5);
    let n = 200_000u64;
    let model = ErrorModelConfig::GilbertElliott {
        p,
        r,
        loss_good,
        loss_bad,
    };
    let mut link = link_with(
        DirectionConfig {
            errors: vec![model],
            ..DirectionConfig::default()
        },
        3,
    );
    let verdicts = offer_spaced(&mut link, n, 1200, SPACED);
    let losses: Vec<bool> = verdicts
        .iter()
        .map(|(_, v)| *v == Verdict::Drop(DropReason::Error))
        .collect();
    let measured = losses.iter().filter(|&&l| l).count() as f64 / n as f64;

    // Stationary: pi_bad = p / (p + r) = 1/7; loss = 6/7 * 0.001 + 1/7 * 0.5 = 0.072286.
    let expected = (r * loss_good + p * loss_bad) / (p + r);
    // Losses are correlated through the state (autocorrelation rho = 1 - p - r = 0.65 per
    // datagram), so the variance of the mean is
    //   [var(L) + 2 (loss_bad - loss_good)^2 pi_g pi_b rho / (1 - rho)] / n
    //   = [0.06706 + 2 * 0.2490 * 0.1224 * 1.857] / 200000 = 0.1803 / 200000,
    // sigma = 9.5e-4; 4 sigma = 3.8e-3.
    let (pi_g, pi_b, rho) = (r / (p + r), p / (p + r), 1.0 - p - r);
    let var_l = expected * (1.0 - expected);
    let var_mean =
        (var_l + 2.0 * (loss_bad - loss_good).powi(2) * pi_g * pi_b * rho / (1.0 - rho)) / n as f64;
    let bound = 4.0 * var_mean.sqrt();
    assert!(
        (measured - expected).abs() <= bound,
        "measured {measured}, expected {expected}, bound {bound}"
    );

    // Burstiness: P(loss | previous lost) = [pi_g l_g (0.95 l_g + 0.05 l_b) + pi_b l_b (0.7 l_b
    // + 0.3 l_g)] / loss = 0.02504 / 0.07229 = 0.3464, against 0.0723 unconditionally. About
    // 14500 losses give sigma ~ 0.004 (x2 for correlation); +-0.03 is over 4 sigma.
    let pairs = losses.windows(2).filter(|w| w[0]).count() as f64;
    let both = losses.windows(2).filter(|w| w[0] && w[1]).count() as f64;
    let conditional = both / pairs;
    assert!(
        (conditional - 0.3464).abs() < 0.03,
        "P(loss | loss) = {conditional}"
    );
}

#[test]
fn delivered_rate_never_exceeds_the_configured_rate() {
    // Offer 10x the link rate for 5 s into a large queue.
    let rate = Rate::from_mbps(2);
    let direction = DirectionConfig {
        rate,
        queue: QueueLimit::Packets(100_000),
        ..DirectionConfig::default()
    };
    let mut link = link_with(direction, 4);
    let serialization = rate.transmit_time(1200 + 28);
    let verdicts = offer_spaced(&mut link, 10_000, 1200, serialization / 10);
    let times: Vec<Duration> = verdicts
        .iter()
        .filter_map(|(_, v)| match v {
            Verdict::Deliver(d) => Some(d.at),
            Verdict::Drop(_) => None,
        })
        .collect();
    assert_eq!(times.len(), 10_000);
    // Every delivery is at least one serialization time after the previous one.
    assert!(times.windows(2).all(|w| w[1] - w[0] >= serialization));

    // With jitter, bursts can bunch at the receiver, but over the run the link never carries
    // more than rate x time: delivered wire bits <= rate x (last delivery - first offer -
    // propagation).
    let jittery = DirectionConfig {
        rate,
        jitter: Duration::from_millis(20),
        queue: QueueLimit::Packets(100_000),
        ..DirectionConfig::default()
    };
    let mut link = link_with(jittery, 5);
    let verdicts = offer_spaced(&mut link, 10_000, 1200, serialization / 10);
    let last = verdicts
        .iter()
        .filter_map(|(_, v)| match v {
            Verdict::Deliver(d) => Some(d.at),
            Verdict::Drop(_) => None,
        })
        .max()
        .unwrap();
    let carried_bits = 10_000.0 * (1228.0 * 8.0);
    let window = (last - Duration::from_millis(45)).as_secs_f64();
    assert!(
        carried_bits <= rate.bps() as f64 * window,
        "{carried_bits} bits in {window} s"
    );
}

#[test]
fn minimum_one_way_delay_is_propagation_plus_serialization() {
    let direction = DirectionConfig {
        jitter: Duration::from_millis(5),
        ..DirectionConfig::default()
    };
    let mut link = link_with(direction, 6);
    // 1200 + 28 bytes at 2 Mb/s = 4.912 ms, plus 45 ms propagation.
    let floor = Duration::from_millis(45) + Duration::from_micros(4912);
    let delays: Vec<Duration> = offer_spaced(&mut link, 10_000, 1200, Duration::from_millis(20))
        .into_iter()
        .map(|(sent, v)| match v {
            Verdict::Deliver(d) => d.at - sent,
            Verdict::Drop(reason) => panic!("unexpected drop: {reason}"),
        })
        .collect();
    let min = *delays.iter().min().unwrap();
    assert!(min >= floor, "min {min:?} < floor {floor:?}");
    // P(all 10000 uniform jitter draws exceed 50 us of 5 ms) = 0.99^10000 ~ 2e-44.
    assert!(min <= floor + Duration::from_micros(50), "min {min:?}");
    assert!(
        delays
            .iter()
            .all(|&d| d <= floor + Duration::from_millis(5))
    );
}

#[test]
fn jitter_keeps_fifo_order_unless_reordering_is_enabled() {
    let jittery = DirectionConfig {
        jitter: Duration::from_millis(30),
        ..DirectionConfig::default()
    };
    let mut link = link_with(jittery.clone(), 7);
    let times = |verdicts: Vec<(Duration, Verdict)>| -> Vec<Duration> {
        verdicts
            .into_iter()
            .filter_map(|(_, v)| match v {
                Verdict::Deliver(d) => Some(d.at),
                Verdict::Drop(_) => None,
            })
            .collect()
    };
    let in_order = times(offer_spaced(
        &mut link,
        5_000,
        1200,
        Duration::from_millis(7),
    ));
    assert!(in_order.windows(2).all(|w| w[0] <= w[1]));

    let reordering = DirectionConfig {
        reorder: Some(ReorderConfig {
            probability: 0.05,
            extra_delay: Duration::from_millis(40),
        }),
        ..jittery
    };
    let mut link = link_with(reordering, 7);
    let verdicts = offer_spaced(&mut link, 5_000, 1200, Duration::from_millis(7));
    let overtaken = times(verdicts).windows(2).filter(|w| w[0] > w[1]).count();
    // ~250 held back by 40 ms against 7 ms spacing: each is overtaken.
    assert!(overtaken > 150, "only {overtaken} inversions");
    let reordered = link
        .accounting(Duration::from_secs(60))
        .a_to_b
        .reordered
        .datagrams;
    // n = 5000, p = 0.05: sigma = 15.4; 4 sigma = 62.
    assert!(
        (reordered as f64 - 250.0).abs() <= 62.0,
        "reordered {reordered}"
    );
}

#[test]
fn duplication_rate_matches_within_four_sigma() {
    let mut link = link_with(
        DirectionConfig {
            duplicate: 0.02,
            ..DirectionConfig::default()
        },
        8,
    );
    let verdicts = offer_spaced(&mut link, 50_000, 500, SPACED);
    let duplicated = verdicts
        .iter()
        .filter(|(_, v)| matches!(v, Verdict::Deliver(d) if d.duplicate))
        .count();
    // n = 50000, p = 0.02: sigma = 31.3; 4 sigma = 125 around 1000.
    assert!(
        (duplicated as f64 - 1000.0).abs() <= 125.0,
        "duplicated {duplicated}"
    );
    assert_eq!(
        link.accounting(Duration::from_secs(600))
            .a_to_b
            .duplicated
            .datagrams,
        duplicated as u64
    );
}

#[test]
fn drop_tail_queue_limits_packets_and_bytes() {
    // 100 datagrams at the same instant; the queue holds 50 including the one being sent.
    let mut link = link_with(
        DirectionConfig {
            queue: QueueLimit::Packets(50),
            ..DirectionConfig::default()
        },
        9,
    );
    let verdicts: Vec<Verdict> = (0..100)
        .map(|_| link.offer(A_TO_B, Duration::ZERO, 1000))
        .collect();
    assert!(
        verdicts[..50]
            .iter()
            .all(|v| matches!(v, Verdict::Deliver(_)))
    );
    assert!(
        verdicts[50..]
            .iter()
            .all(|v| *v == Verdict::Drop(DropReason::Queue))
    );

    // 10000 wire bytes hold 9 datagrams of 1000 + 28.
    let mut link = link_with(
        DirectionConfig {
            queue: QueueLimit::Bytes(10_000),
            ..DirectionConfig::default()
        },
        9,
    );
    let accepted = (0..20)
        .filter(|_| {
            matches!(
                link.offer(A_TO_B, Duration::ZERO, 1000),
                Verdict::Deliver(_)
            )
        })
        .count();
    assert_eq!(accepted, 9);
}

#[test]
fn oversized_datagrams_are_dropped_for_mtu() {
    let mut link = link_with(
        DirectionConfig {
            mtu: 1200,
            ..DirectionConfig::default()
        },
        10,
    );
    assert!(matches!(
        link.offer(A_TO_B, Duration::ZERO, 1200),
        Verdict::Deliver(_)
    ));
    assert_eq!(
        link.offer(A_TO_B, Duration::ZERO, 1201),
        Verdict::Drop(DropReason::Mtu)
    );
    let accounting = link.accounting(Duration::from_secs(1)).a_to_b;
    assert_eq!(accounting.dropped.mtu.bytes, 1201);
    assert!(accounting.is_balanced());
}

#[test]
fn capacity_is_the_physical_limit_of_a_saturated_link() {
    // A sender that keeps the queue full of MTU-sized datagrams for 100 s over a PER 0.05 link.
    let p = 0.05;
    let direction = DirectionConfig {
        errors: vec![ErrorModelConfig::Per { p }],
        ..DirectionConfig::default()
    };
    let mut link = link_with(direction, 11);
    let serialization = Rate::from_mbps(2).transmit_time(1472 + 28);
    let verdicts = offer_spaced(&mut link, 20_000, 1472, serialization / 2);
    let end = verdicts.last().unwrap().0;
    let accounting = link.accounting(end).a_to_b;
    // Expected: 100 s x 2e6 / 8 B/s x 1472/1500 x 0.95 = 5,826,666 B.
    let expected = end.as_secs_f64() * 2e6 / 8.0 * (1472.0 / 1500.0) * (1.0 - p);
    assert!(
        (accounting.capacity_bytes - expected).abs() < 1.0,
        "{} vs {expected}",
        accounting.capacity_bytes
    );
    // Delivered within the window is at most the limit (plus the datagrams still in flight at
    // the end: 45 ms of propagation = at most 8 datagrams) and close to it: corrupted
    // datagrams cost airtime, so the link delivers (1 - p) of its rate.
    let delivered_by_end = verdicts
        .iter()
        .filter(|(_, v)| matches!(v, Verdict::Deliver(d) if d.at <= end))
        .count() as f64
        * 1472.0;
    assert!(
        delivered_by_end <= accounting.capacity_bytes * 1.01,
        "{delivered_by_end}"
    );
    assert!(
        delivered_by_end >= accounting.capacity_bytes * 0.97,
        "{delivered_by_end}"
    );
}

#[test]
fn on_off_up_fraction_matches_the_model() {
    let config = OnOffConfig {
        mean_up: Duration::from_secs(10),
        mean_down: Duration::from_secs(2),
        repair_delay: Duration::from_millis(500),
    };
    let expected = config.up_fraction(); // 10 / 12.5 = 0.8
    let segments = path_segments(
        &PathModelConfig::OnOff(config.clone()),
        12,
        Duration::from_secs(20_000),
    )
    .unwrap();
    let stats = PathStats::of(&segments);
    // About n = 1600 cycles. Delta method for f = U / (U + D): var(f) ~
    // (D^2 n var_u + U^2 n var_d) / T^4 with per-cycle means 10 and 2.5 and variances 100
    // and 4: (625 + 400) / (1600 * 24414) = 2.6e-5, sigma = 0.0051; 4 sigma = 0.0205.
    assert!(
        (stats.up_fraction() - expected).abs() <= 0.0205,
        "up fraction {}",
        stats.up_fraction()
    );
    // Mean outage = mean_down + repair = 2.5 s: breaks ~ 20000 / 12.5 = 1600.
    assert!(
        (1400..=1800).contains(&stats.breaks),
        "breaks {}",
        stats.breaks
    );

    // The link's accounting sees the same path for the same seed.
    let mut link = Link::new(
        LinkConfig::default().with_path(PathModelConfig::OnOff(config)),
        12,
    )
    .unwrap();
    let accounting = link.accounting(Duration::from_secs(20_000));
    assert!((accounting.a_to_b.up_seconds - stats.up_seconds).abs() < 1e-6);
}

#[test]
fn breakage_drops_everything_offered_while_down_and_in_flight() {
    let schedule = netsim::TraceSchedule::parse("0 up\n1 down\n2 up\n", "test").unwrap();
    let config =
        LinkConfig::default().with_path(PathModelConfig::Trace(netsim::TraceConfig::new(schedule)));
    let mut link = Link::new(config, 13).unwrap();
    let verdict_at = |link: &mut Link, ms: u64| link.offer(A_TO_B, Duration::from_millis(ms), 1000);
    assert!(matches!(verdict_at(&mut link, 500), Verdict::Deliver(_)));
    // Offered at 0.98 s, delivered ~1.03 s: in flight when the path breaks at 1 s.
    assert_eq!(
        verdict_at(&mut link, 980),
        Verdict::Drop(DropReason::Breakage)
    );
    assert_eq!(
        verdict_at(&mut link, 1500),
        Verdict::Drop(DropReason::Breakage)
    );
    assert!(matches!(verdict_at(&mut link, 2000), Verdict::Deliver(_)));
    let accounting = link.accounting(Duration::from_secs(3)).a_to_b;
    assert_eq!(accounting.dropped.breakage.datagrams, 2);
    assert!((accounting.up_seconds - 2.0).abs() < 1e-9);
}

#[test]
fn hop_count_scales_delay_errors_and_capacity() {
    // A 3-hop route: propagation 3 x 45 ms, serialization at rate / min(3, 3).
    let schedule = netsim::TraceSchedule::parse("0 up 3\n", "test").unwrap();
    let direction = DirectionConfig {
        errors: vec![ErrorModelConfig::Per { p: 0.1 }],
        ..DirectionConfig::default()
    };
    let config = LinkConfig::symmetric(direction)
        .with_path(PathModelConfig::Trace(netsim::TraceConfig::new(schedule)));
    let mut link = Link::new(config, 14).unwrap();
    let verdicts = offer_spaced(&mut link, 20_000, 1200, Duration::from_millis(30));
    let min_delay = verdicts
        .iter()
        .filter_map(|(sent, v)| match v {
            Verdict::Deliver(d) => Some(d.at - *sent),
            Verdict::Drop(_) => None,
        })
        .min()
        .unwrap();
    // 3 x 45 ms + 1228 B x 8 x 3 / 2 Mb/s = 135 ms + 14.736 ms.
    assert_eq!(
        min_delay,
        Duration::from_millis(135) + Duration::from_micros(14_736)
    );
    // Per-hop PER 0.1 over 3 hops: 1 - 0.9^3 = 0.271; n = 20000, 4 sigma = 0.0126.
    let measured = loss_rate(&verdicts, DropReason::Error);
    assert!((measured - 0.271).abs() <= 0.0126, "measured {measured}");
    // Capacity: 2 Mb/s / 3 / 8 x 1472/1500 x 0.729 per second.
    let end = Duration::from_secs(600);
    let capacity = link.accounting(end).a_to_b.capacity_bytes;
    let expected = 600.0 * 2e6 / 3.0 / 8.0 * (1472.0 / 1500.0) * 0.729;
    assert!(
        (capacity - expected).abs() < 1.0,
        "{capacity} vs {expected}"
    );
}
