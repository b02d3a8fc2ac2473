//! Simulated seconds per wall second on ns-3 (criterion's "elem/s" below: one element is one
//! simulated second).
//!
//! - `quic_flow`: the default scenario (50 nodes, 1200 m x 1200 m, random waypoint at 20 m/s,
//!   30 s pause, 802.11b at 2 Mb/s, AODV) carrying one quinn bulk flow from node 0 to node 1
//!   for 20 simulated seconds, in lock-step with tokio's paused clock (1 ms steps).
//! - `udp_cbr`: the same network with ns-3 alone sending 1 Mb/s of 1200-byte datagrams (the
//!   rate at which the ns-3 backend was first measured), for comparison.
//!
//! cargo bench -p netsim-ns3 --features ns3 --bench ns3_speed

use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use netsim::Side;
use netsim_ns3::{Ns3Config, Session, quinn_pair};

const SIMULATED: Duration = Duration::from_secs(20);
const SEED: u64 = 1;

/// The default scenario with the sink at node 1: with seed 1 the flow runs at about a megabit
/// per second over 2-3 hops, a busy network rather than an idle one.
fn scenario() -> Ns3Config {
    Ns3Config {
        sink: Some(1),
        ..Ns3Config::default()
    }
}

fn quic_flow() -> u64 {
    let runtime = netsim::virtual_runtime().expect("runtime");
    runtime.block_on(async {
        let pair = quinn_pair(&scenario(), SEED)
            .expect("ns-3")
            .build()
            .expect("pair");
        // A transfer that never ends on its own, stopped after exactly SIMULATED.
        let _ = tokio::time::timeout(SIMULATED, pair.transfer(u64::MAX)).await;
        pair.link().accounting().a_to_b.delivered.datagrams
    })
}

fn udp_cbr() -> u64 {
    let mut session = Session::new(&scenario(), SEED).expect("ns-3");
    let interval = Duration::from_nanos(9_600_000); // 1 Mb/s of 1200-byte datagrams
    let count = (SIMULATED.as_nanos() / interval.as_nanos()) as u32;
    session.native_cbr(Side::A, Duration::ZERO, interval, count, 1200);
    session.run_until(SIMULATED);
    session.stats().a_to_b.delivered.datagrams
}

fn speed(c: &mut Criterion) {
    // The load behind the figures: how much each scenario carried in its 20 s.
    eprintln!(
        "quic_flow delivers {} datagrams A->B in {} s; udp_cbr {}",
        quic_flow(),
        SIMULATED.as_secs(),
        udp_cbr()
    );
    let mut group = c.benchmark_group("ns3_simulated_seconds");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(30));
    group.throughput(Throughput::Elements(SIMULATED.as_secs()));
    group.bench_function("quic_flow", |b| b.iter(quic_flow));
    group.bench_function("udp_cbr", |b| b.iter(udp_cbr));
    group.finish();
}

criterion_group!(benches, speed);
criterion_main!(benches);
