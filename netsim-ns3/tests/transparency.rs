//! Lock-step transparency: datagrams injected from Rust and ns-3 advanced in steps must give
//! the same deliveries as a standalone ns-3 program that runs the same scenario uninterrupted,
//! with the sends scheduled by ns-3 itself (`cpp/reference.cc`, built by build.rs).
#![cfg(feature = "ns3")]

use std::process::Command;
use std::time::Duration;

use netsim::{DirectionId, Side, SimLink};
use netsim_ns3::{Ns3Config, Ns3Medium, Session};

/// One delivery: receiving side (0 = A, 1 = B), ns-3 time in ns, length.
type Row = (u32, u64, usize);

const SEED: u64 = 3;
const START_NS: u64 = 1_000_000_000;
const INTERVAL_NS: u64 = 10_000_000; // 0.96 Mb/s of 1200-byte datagrams; whole milliseconds
const COUNT: u32 = 1_500;
const LEN: u32 = 1200;
const END_NS: u64 = 20_000_000_000;

/// The default 50-node, 20 m/s random-waypoint MANET with AODV, sink node 49.
fn config() -> Ns3Config {
    Ns3Config::default()
}

fn reference() -> Vec<Row> {
    let output = Command::new(env!("NS3_REFERENCE_BIN"))
        .args([
            format!("run={SEED}"),
            "nodes=50".into(),
            "speed_min=20".into(),
            "speed_max=20".into(),
            "pause=30".into(),
            "sink=49".into(),
            format!("start={START_NS}"),
            format!("interval={INTERVAL_NS}"),
            format!("count={COUNT}"),
            format!("len={LEN}"),
            format!("end={END_NS}"),
            format!(
                "gratuitous={}",
                u8::from(netsim_ns3::Ns3Config::default().aodv.gratuitous_reply)
            ),
        ])
        .output()
        .expect("ns3-reference runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|line| {
            let mut fields = line.split_whitespace().map(|f| f.parse::<u64>().unwrap());
            let (side, at, len) = (
                fields.next().unwrap(),
                fields.next().unwrap(),
                fields.next().unwrap(),
            );
            (side as u32, at, len as usize)
        })
        .collect()
}

/// The crate's session, datagrams injected from Rust before ns-3 passes their send time.
fn stepped(step_ns: u64) -> Vec<Row> {
    let mut session = Session::new(&config(), SEED).unwrap();
    let mut rows = Vec::new();
    let mut next = 0u32;
    let mut t = 0u64;
    while t < END_NS {
        while next < COUNT && START_NS + u64::from(next) * INTERVAL_NS < t + step_ns {
            let at = START_NS + u64::from(next) * INTERVAL_NS;
            session.send(
                0,
                Side::A,
                Duration::from_nanos(at),
                u64::from(next),
                &vec![next as u8; LEN as usize],
            );
            next += 1;
        }
        t = (t + step_ns).min(END_NS);
        session.run_until(Duration::from_nanos(t));
        while let Some(d) = session.pop() {
            assert_eq!(
                d.data,
                vec![d.index as u8; LEN as usize],
                "payload of datagram {}",
                d.index
            );
            rows.push((
                if d.to == Side::A { 0 } else { 1 },
                d.at.as_nanos() as u64,
                d.data.len(),
            ));
        }
    }
    rows
}

#[test]
fn stepping_gives_the_standalone_program_s_deliveries_for_any_step() {
    let reference = reference();
    assert!(
        reference.len() > 100,
        "the flow should get through: {} delivered",
        reference.len()
    );
    assert!(
        reference.len() < COUNT as usize,
        "a 20 m/s MANET should lose some: all delivered"
    );
    for step_ns in [100_000, 1_000_000, 10_000_000] {
        let rows = stepped(step_ns);
        assert_eq!(
            rows.len(),
            reference.len(),
            "step {step_ns} ns: delivery count"
        );
        assert_eq!(rows, reference, "step {step_ns} ns: deliveries differ");
    }
    println!(
        "{} of {COUNT} datagrams delivered, identical for steps 0.1, 1 and 10 ms",
        reference.len()
    );
}

#[test]
fn a_simlink_over_ns3_delivers_them_within_one_step() {
    let reference = reference();
    let config = config();
    let step = config.step;
    let runtime = netsim::virtual_runtime().unwrap();
    let received = runtime.block_on(async {
        let link = SimLink::with_medium(Box::new(Ns3Medium::new(&config, SEED).unwrap()))
            .build()
            .unwrap();
        let a = link.socket(Side::A);
        let b = link.socket(Side::B);
        let to = b.local_addr();
        let epoch = tokio::time::Instant::now();
        tokio::spawn(async move {
            for k in 0..COUNT {
                let at = epoch + Duration::from_nanos(START_NS + u64::from(k) * INTERVAL_NS);
                tokio::time::sleep_until(at).await;
                a.send_to(&vec![k as u8; LEN as usize], to).await.unwrap();
            }
        });
        let mut received = Vec::new();
        let mut buf = vec![0u8; 2000];
        let deadline = epoch + Duration::from_nanos(END_NS);
        while let Ok(Ok((len, _))) = tokio::time::timeout_at(deadline, b.recv_from(&mut buf)).await
        {
            received.push((link.now(), len, buf[0]));
        }
        let accounting = link.accounting();
        assert_eq!(accounting.a_to_b.offered.datagrams, u64::from(COUNT));
        assert_eq!(
            accounting.a_to_b.delivered.datagrams as usize,
            received.len()
        );
        received
    });
    assert_eq!(received.len(), reference.len(), "delivery count");
    for ((got_at, len, _), (_, ref_at, ref_len)) in received.iter().zip(&reference) {
        let ref_at = Duration::from_nanos(*ref_at);
        assert_eq!(len, ref_len);
        assert!(
            *got_at >= ref_at && *got_at <= ref_at + step,
            "received at {got_at:?}, ns-3 delivered at {ref_at:?}: more than one step ({step:?}) apart"
        );
    }
    let _ = DirectionId::AToB;
}

#[test]
fn later_simulations_in_one_process_repeat_the_first() {
    // ns-3 numbers random streams, MAC addresses and IP addresses from process-wide counters;
    // the shim resets or pins every one, so a simulation does not depend on the ones before.
    let first = stepped(1_000_000);
    let between = {
        let mut session = Session::new(&Ns3Config::chain(3), SEED + 1).unwrap();
        session.native_cbr(
            Side::A,
            Duration::from_secs(1),
            Duration::from_millis(10),
            300,
            LEN,
        );
        session.run_until(Duration::from_secs(5));
        session.stats()
    };
    let again = stepped(1_000_000);
    assert!(between.a_to_b.delivered.datagrams > 0, "{between:?}");
    assert_eq!(
        first, again,
        "the same scenario and seed after another simulation"
    );
}

#[test]
fn a_second_session_on_the_same_thread_is_refused() {
    let _first = Session::new(&Ns3Config::chain(1), 1).unwrap();
    let second = Session::new(&Ns3Config::chain(1), 1);
    assert!(matches!(second, Err(netsim_ns3::Error::Busy)), "{second:?}");
}
