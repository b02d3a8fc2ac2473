//! Simulated seconds per wall second on ns-3 (criterion's "elem/s" below: one element is one
//! simulated second).
//!
//! - `quic_flow`: the default scenario (50 nodes, 1200 m x 1200 m, random waypoint at 20 m/s,
//!   30 s pause, 802.11b at 2 Mb/s, AODV) carrying one quinn bulk flow from node 0 to node 1
//!   for 20 simulated seconds, in lock-step with tokio's paused clock (1 ms steps).
//! - `udp_cbr`: the same network with ns-3 alone sending 1 Mb/s of 1200-byte datagrams (the
//!   rate at which the ns-3 backend was first measured), for comparison.
//!
//! The backend's own overhead, like for like (issue 35): `quic_flow`'s datagrams, both
//! directions, recorded with their send times and sizes (a [`Medium`] wrapper that logs each
//! offer), then replayed into a fresh session of the same network and seed without QUIC:
//! - `replay_one_run`: every datagram scheduled up front, then one `run_until` to the end:
//!   ns-3 alone carrying exactly the QUIC run's traffic;
//! - `replay_lock_step`: the same datagrams handed over step by step (each 1 ms step sends
//!   that step's datagrams, advances ns-3 and collects what it delivered), as the backend's
//!   lock-step does but with no QUIC stack, no tokio and no TLS.
//!
//! `quic_flow / replay_one_run` is the whole backend's cost over ns-3 alone;
//! `replay_lock_step / replay_one_run` the lock-step's and the shim's share of it. Each replay
//! checks that ns-3 delivered as many datagrams as in the QUIC run: the same sends at the same
//! times into the same seeded network give the same simulation.
//!
//! cargo bench -p netsim-ns3 --features ns3 --bench ns3_speed

use std::any::Any;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use netsim::{DirectionId, LinkAccounting, Medium, MediumDelivery, Offered, Side};
use netsim_ns3::{Ns3Config, Ns3Medium, Session, quinn_pair};

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

/// One datagram a QUIC run offered: link time, sender, size.
type Offer = (Duration, Side, usize);

/// An [`Ns3Medium`] that logs every datagram offered to it.
#[derive(Debug)]
struct Logged {
    inner: Ns3Medium,
    log: Arc<Mutex<Vec<Offer>>>,
}

impl Medium for Logged {
    fn offer(&mut self, direction: DirectionId, now: Duration, data: &[u8]) -> Offered {
        let side = match direction {
            DirectionId::AToB => Side::A,
            DirectionId::BToA => Side::B,
        };
        self.log.lock().expect("log").push((now, side, data.len()));
        self.inner.offer(direction, now, data)
    }
    fn deliver_until(&mut self, now: Duration, out: &mut Vec<MediumDelivery>) {
        self.inner.deliver_until(now, out);
    }
    fn step(&self) -> Option<Duration> {
        self.inner.step()
    }
    fn accounting(&mut self, now: Duration) -> LinkAccounting {
        self.inner.accounting(now)
    }
    fn seed(&self) -> u64 {
        self.inner.seed()
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// `quic_flow`, logging its datagrams: the schedule and the datagrams delivered (both ways).
fn record_quic_flow() -> (Vec<Offer>, u64) {
    let log = Arc::new(Mutex::new(Vec::new()));
    let medium = Logged {
        inner: Ns3Medium::new(&scenario(), SEED).expect("ns-3"),
        log: log.clone(),
    };
    let runtime = netsim::virtual_runtime().expect("runtime");
    let delivered = runtime.block_on(async {
        let pair = netsim::quinn_pair::QuinnPair::with_medium(Box::new(medium))
            .build()
            .expect("pair");
        let _ = tokio::time::timeout(SIMULATED, pair.transfer(u64::MAX)).await;
        let accounting = pair.link().accounting();
        accounting.a_to_b.delivered.datagrams + accounting.b_to_a.delivered.datagrams
    });
    let offers = std::mem::take(&mut *log.lock().expect("log"));
    (offers, delivered)
}

/// `offers` into a fresh session of the same network, all scheduled up front, one run.
fn replay_one_run(offers: &[Offer]) -> u64 {
    let config = scenario();
    let mut session = Session::new(&config, SEED).expect("ns-3");
    session.run_until(config.start);
    let payload = vec![0u8; 1500];
    for (index, &(at, side, len)) in offers.iter().enumerate() {
        session.send(
            0,
            side,
            config.start + at,
            index as u64,
            &payload[..len.min(1500)],
        );
    }
    session.run_until(config.start + SIMULATED);
    let mut delivered = 0;
    while session.pop().is_some() {
        delivered += 1;
    }
    delivered
}

/// `offers` handed over step by step, as the backend's lock-step does.
fn replay_lock_step(offers: &[Offer]) -> u64 {
    let config = scenario();
    let mut session = Session::new(&config, SEED).expect("ns-3");
    session.run_until(config.start);
    let payload = vec![0u8; 1500];
    let mut next = 0;
    let mut delivered = 0;
    let mut now = Duration::ZERO;
    while now < SIMULATED {
        now += config.step;
        while let Some(&(at, side, len)) = offers.get(next).filter(|o| o.0 < now) {
            session.send(
                0,
                side,
                config.start + at,
                next as u64,
                &payload[..len.min(1500)],
            );
            next += 1;
        }
        session.run_until(config.start + now);
        while session.pop().is_some() {
            delivered += 1;
        }
    }
    delivered
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
    let (offers, quic_delivered) = record_quic_flow();
    let one_run = replay_one_run(&offers);
    let lock_step = replay_lock_step(&offers);
    eprintln!(
        "quic_flow offers {} datagrams (both ways) and delivers {quic_delivered}; replayed \
         without QUIC, ns-3 delivers {one_run} in one run and {lock_step} in lock-step",
        offers.len()
    );
    assert_eq!(
        (one_run, lock_step),
        (quic_delivered, quic_delivered),
        "the replays must carry the QUIC run's traffic exactly"
    );
    let mut group = c.benchmark_group("ns3_simulated_seconds");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(30));
    group.throughput(Throughput::Elements(SIMULATED.as_secs()));
    group.bench_function("quic_flow", |b| b.iter(quic_flow));
    group.bench_function("replay_one_run", |b| b.iter(|| replay_one_run(&offers)));
    group.bench_function("replay_lock_step", |b| b.iter(|| replay_lock_step(&offers)));
    group.bench_function("udp_cbr", |b| b.iter(udp_cbr));
    group.finish();
}

criterion_group!(benches, speed);
criterion_main!(benches);
