//! quinn over ns-3: every byte arrives intact across a breaking 50-node MANET, with quinn's
//! own controller and with a port, and the same seed gives byte-identical results.
#![cfg(feature = "ns3")]

use std::sync::Arc;
use std::time::Duration;

use netsim_ns3::{
    Ns3Config, Ns3Medium, Ns3Stats, RateControl, Routing, Standard, Topology, quinn_pair,
};
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
    transfer_on(&Ns3Config::default(), SEED, transport)
}

fn transfer_on(config: &Ns3Config, seed: u64, transport: TransportConfig) -> Outcome {
    let runtime = netsim::virtual_runtime().unwrap();
    runtime.block_on(async {
        let pair = quinn_pair(config, seed)
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

#[test]
fn quinn_delivers_every_byte_over_an_802_11s_mesh_and_over_802_11n() {
    // A 3 x 3 802.11s mesh, 802.11a at 12 Mb/s, 200 m apart, corner to corner, after 5 s of
    // peering.
    let mut mesh = Ns3Config::chain(8);
    mesh.topology = Topology::Grid {
        columns: 3,
        spacing: 200.0,
    };
    mesh.routing = Routing::Hwmp;
    mesh.wifi.standard = Standard::A;
    mesh.wifi.data_rate_mbps = 12.0;
    mesh.start = Duration::from_secs(5);
    // A 3-hop 802.11n chain at 5 GHz under Minstrel-HT.
    let mut ht = Ns3Config::chain(3);
    ht.wifi.standard = Standard::N5GHz;
    ht.wifi.rate_control = RateControl::MinstrelHt;
    for (name, config) in [("mesh", mesh), ("802.11n", ht)] {
        config.validate().unwrap();
        let outcome = transfer_on(&config, 1, TransportConfig::default());
        let data = &outcome.stats.a_to_b;
        println!("{name}: {} ns, {data:?}", outcome.elapsed_ns);
        assert!(outcome.intact, "{name}: {outcome:?}");
        assert_eq!(outcome.bytes_received, BYTES, "{name}");
        assert!(
            data.mean_hops.unwrap() >= 3.0,
            "{name}: a multi-hop path: {data:?}"
        );
    }
}
