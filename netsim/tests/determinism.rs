//! Determinism: the same seed gives the same run, a different seed a different one.

use std::time::Duration;

use netsim::quinn_pair::QuinnPair;
use netsim::{
    DirectionConfig, ErrorModelConfig, LinkAccounting, LinkConfig, OnOffConfig, PacketProtection,
    PathModelConfig, Rate, ReorderConfig, Side, SimLink, SimSocket, TimelineEntry, virtual_runtime,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A link with every random element switched on.
fn busy_link() -> LinkConfig {
    LinkConfig::symmetric(DirectionConfig {
        rate: Rate::from_mbps(4),
        delay: Duration::from_millis(25),
        jitter: Duration::from_millis(8),
        errors: vec![
            ErrorModelConfig::Per { p: 0.01 },
            ErrorModelConfig::GilbertElliott {
                p: 0.02,
                r: 0.4,
                loss_good: 0.0,
                loss_bad: 0.3,
            },
            ErrorModelConfig::Ber { ber: 1e-6 },
        ],
        reorder: Some(ReorderConfig {
            probability: 0.02,
            extra_delay: Duration::from_millis(15),
        }),
        duplicate: 0.01,
        ..DirectionConfig::default()
    })
    .with_path(PathModelConfig::OnOff(OnOffConfig {
        mean_up: Duration::from_secs(3),
        mean_down: Duration::from_millis(400),
        repair_delay: Duration::from_millis(100),
    }))
}

/// Sends `count` datagrams with random sizes, contents and gaps (from a fixed traffic seed, so
/// only the link's seed varies between runs).
async fn send_traffic(socket: SimSocket, traffic_seed: u64, count: usize) {
    let mut rng = ChaCha8Rng::seed_from_u64(traffic_seed);
    let to = socket.peer_addr();
    for _ in 0..count {
        let gap = Duration::from_micros(rng.gen_range(100..6_000));
        tokio::time::sleep(gap).await;
        let len = rng.gen_range(50..1400);
        let payload: Vec<u8> = (0..len).map(|_| rng.r#gen()).collect();
        socket.send_to(&payload, to).await.unwrap();
    }
}

/// Receives until nothing has arrived for 5 s (virtual).
async fn drain(socket: SimSocket) -> usize {
    let mut buf = vec![0u8; 2048];
    let mut received = 0;
    while tokio::time::timeout(Duration::from_secs(5), socket.recv_from(&mut buf))
        .await
        .is_ok()
    {
        received += 1;
    }
    received
}

fn datagram_run(seed: u64) -> (LinkAccounting, Vec<TimelineEntry>) {
    let runtime = virtual_runtime().unwrap();
    runtime.block_on(async {
        let link = SimLink::builder(busy_link(), seed)
            .record_timeline(true)
            .build()
            .unwrap();
        let (a, b) = (link.socket(Side::A), link.socket(Side::B));
        let (_, _, got_b, got_a) = tokio::join!(
            send_traffic(a.clone(), 1, 8_000),
            send_traffic(b.clone(), 2, 4_000),
            drain(b),
            drain(a)
        );
        let accounting = link.accounting();
        let timeline = link.timeline();
        assert_eq!(timeline.len(), got_a + got_b);
        (accounting, timeline)
    })
}

#[test]
fn datagram_runs_with_the_same_seed_are_identical() {
    let (accounting, timeline) = datagram_run(21);
    let (again_accounting, again_timeline) = datagram_run(21);
    assert_eq!(accounting, again_accounting);
    assert_eq!(timeline, again_timeline);
    // The run exercised what it claims to: losses of each kind, duplicates and reordering.
    let a_to_b = accounting.a_to_b;
    assert!(
        a_to_b.dropped.error.datagrams > 0 && a_to_b.dropped.breakage.datagrams > 0,
        "{a_to_b:?}"
    );
    assert!(
        a_to_b.duplicated.datagrams > 0 && a_to_b.reordered.datagrams > 0,
        "{a_to_b:?}"
    );
    assert!(a_to_b.is_balanced() && accounting.b_to_a.is_balanced());
    // Every delivered datagram (and duplicate) was received: the receive side loses nothing.
    let delivered = a_to_b.delivered.datagrams + a_to_b.duplicated.datagrams;
    let received = timeline
        .iter()
        .filter(|e| e.direction == netsim::DirectionId::AToB)
        .count() as u64;
    assert_eq!(received, delivered);
}

#[test]
fn datagram_runs_with_different_seeds_differ() {
    let (accounting, timeline) = datagram_run(21);
    let (other_accounting, other_timeline) = datagram_run(22);
    assert_ne!(accounting, other_accounting);
    assert_ne!(timeline, other_timeline);
}

/// A delivered datagram without its payload digest: (direction, index, len, scheduled, received).
type QuinnDelivery = (netsim::DirectionId, u64, usize, u64, u64);

fn quinn_run(seed: u64) -> (LinkAccounting, Vec<QuinnDelivery>, u64) {
    quinn_run_with(seed, PacketProtection::Tls)
}

fn quinn_run_with(
    seed: u64,
    protection: PacketProtection,
) -> (LinkAccounting, Vec<QuinnDelivery>, u64) {
    let runtime = virtual_runtime().unwrap();
    runtime.block_on(async {
        let config = LinkConfig::symmetric(DirectionConfig {
            rate: Rate::from_mbps(8),
            delay: Duration::from_millis(15),
            errors: vec![ErrorModelConfig::Per { p: 0.01 }],
            ..DirectionConfig::default()
        })
        .with_path(PathModelConfig::OnOff(OnOffConfig {
            mean_up: Duration::from_secs(2),
            mean_down: Duration::from_millis(300),
            repair_delay: Duration::from_millis(100),
        }));
        let pair = QuinnPair::builder(config, seed)
            .record_timeline(true)
            .packet_protection(protection)
            .build()
            .unwrap();
        let report = pair.transfer(1_500_000).await.unwrap();
        assert!(report.intact);
        // Payloads are encrypted with per-run TLS secrets from the OS RNG (rustls does not
        // take a seed), so compare everything but the payload digest.
        let timeline = pair
            .link()
            .timeline()
            .into_iter()
            .map(|e| {
                (
                    e.direction,
                    e.index,
                    e.len,
                    e.scheduled_at_nanos,
                    e.received_at_nanos,
                )
            })
            .collect();
        (
            report.accounting,
            timeline,
            u64::try_from(report.elapsed.as_nanos()).unwrap(),
        )
    })
}

#[test]
fn quinn_runs_with_the_same_seed_are_identical() {
    let first = quinn_run(31);
    let second = quinn_run(31);
    assert_eq!(first.0, second.0);
    assert_eq!(first.1, second.1);
    assert_eq!(first.2, second.2);
    let third = quinn_run(32);
    assert_ne!(first.1, third.1);
}

#[test]
fn null_packet_protection_sends_the_same_datagrams_at_the_same_times() {
    // Every datagram keeps its TLS size, so the link treats the run exactly alike: the same
    // deliveries (direction, index, length, times), the same accounting and duration.
    let tls = quinn_run_with(33, PacketProtection::Tls);
    let null = quinn_run_with(33, PacketProtection::Null);
    assert_eq!(tls.0, null.0);
    assert_eq!(tls.1, null.1);
    assert_eq!(tls.2, null.2);
    // The run had losses and breaks to recover from, or this proves little.
    assert!(tls.0.a_to_b.dropped.error.datagrams > 0, "{:?}", tls.0);
}
