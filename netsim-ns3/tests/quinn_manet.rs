//! quinn over ns-3: every byte arrives intact across a breaking 50-node MANET, with quinn's
//! own controller and with a port, and the same seed gives byte-identical results.
#![cfg(feature = "ns3")]

use std::sync::Arc;
use std::time::Duration;

use netsim_ns3::{Ns3Config, Ns3Medium, Ns3Stats, quinn_pair};
use quinn::TransportConfig;
use serde::Serialize;

/// Seed 2 of the default scenario (50 nodes, 1200 m x 1200 m, random waypoint at 20 m/s,
/// 30 s pause, AODV, source node 0, sink node 49): the route from 0 to 49 changes during the
/// transfer and the MAC drops datagrams at its retry limit.
const SEED: u64 = 2;
const BYTES: u64 = 400_000;

#[derive(Debug, Serialize)]
struct Outcome {
    intact: bool,
    bytes_received: u64,
    elapsed_ns: u128,
    lost_packets: u64,
    stats: Ns3Stats,
}

/// No idle timeout: a MANET route can stay broken for longer than quinn's default 30 s.
fn patient(mut transport: TransportConfig) -> Arc<TransportConfig> {
    transport.max_idle_timeout(None);
    Arc::new(transport)
}

fn transfer(transport: TransportConfig) -> Outcome {
    let runtime = netsim::virtual_runtime().unwrap();
    runtime.block_on(async {
        let pair = quinn_pair(&Ns3Config::default(), SEED)
            .unwrap()
            .client_transport(patient(transport))
            .server_transport(patient(TransportConfig::default()))
            .build()
            .unwrap();
        let report = tokio::time::timeout(Duration::from_secs(300), pair.transfer(BYTES))
            .await
            .expect("the transfer finishes within 300 s of simulated time")
            .unwrap();
        let stats = pair
            .link()
            .inspect_medium(|m| m.as_any().downcast_ref::<Ns3Medium>().unwrap().stats());
        Outcome {
            intact: report.intact,
            bytes_received: report.bytes_received,
            elapsed_ns: report.elapsed.as_nanos(),
            lost_packets: report.client_stats.path.lost_packets,
            stats,
        }
    })
}

#[test]
fn quinn_delivers_every_byte_across_a_breaking_manet() {
    let outcome = transfer(TransportConfig::default());
    println!("{outcome:#?}");
    assert!(outcome.intact, "corrupted or incomplete: {outcome:?}");
    assert_eq!(outcome.bytes_received, BYTES);
    let data = &outcome.stats.a_to_b;
    assert!(
        data.route_changes > 0,
        "the route should change during the transfer: {data:?}"
    );
    assert!(
        data.drops.total() > 0,
        "a breaking MANET drops datagrams: {data:?}"
    );
    assert!(outcome.lost_packets > 0, "quinn should see losses");
    assert!(data.mean_hops.unwrap() > 1.5, "a multi-hop path: {data:?}");
    assert!(outcome.stats.mac_retransmissions > 0);
}

#[test]
fn a_port_delivers_every_byte_and_the_same_seed_repeats_byte_for_byte() {
    let with_karak = || {
        let mut transport = TransportConfig::default();
        transport.congestion_controller_factory(cc_karak::KarakConfig::default().into_factory());
        serde_json::to_string(&transfer(transport)).unwrap()
    };
    let first = with_karak();
    let second = with_karak();
    assert!(first.contains("\"intact\":true"), "{first}");
    assert_eq!(first, second, "same seed, same JSON");
}
