//! ns-3's own TCP in a session (`Session::install_tcp`): the same bytes as `ns3-chain-tcp`, a
//! standalone ns-3 program written without the shim, on the same chain and seed; its segments
//! counted as the QUIC datagrams are; bad flow descriptions refused by field.
#![cfg(feature = "ns3")]

use std::process::Command;
use std::time::Duration;

use netsim_ns3::{
    CHAIN_TCP_PROGRAM, Error, Nakagami, Ns3Config, Ns3Stats, Propagation, RateControl, Routing,
    Session, Standard, TcpBulk, TcpFlowReport, TcpVariant, Topology, WifiConfig,
};

const SECONDS: u64 = 15;

fn bulk(variant: TcpVariant, segment_bytes: u32, flows: u32) -> TcpBulk {
    TcpBulk {
        variant,
        segment_bytes,
        flows_per_pair: flows,
        starts: vec![Duration::ZERO; flows as usize],
        stop: Duration::from_secs(SECONDS),
        max_bytes: None,
    }
}

/// The standalone program's `rx_bytes` for this chain.
fn standalone(hops: u32, seed: u64, variant: &str, segment: u32, gratuitous: bool) -> u64 {
    standalone_rx(&[
        format!("hops={hops}"),
        format!("run={seed}"),
        format!("duration_s={SECONDS}"),
        format!("variant={variant}"),
        format!("segment={segment}"),
        format!("gratuitous={}", u8::from(gratuitous)),
    ])
}

/// The standalone program's `rx_bytes` for these `key=value` arguments.
fn standalone_rx(args: &[String]) -> u64 {
    let output = Command::new(CHAIN_TCP_PROGRAM.unwrap())
        .args(args)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .find_map(|line| line.strip_prefix("rx_bytes="))
        .unwrap()
        .parse()
        .unwrap()
}

#[test]
fn the_backend_delivers_what_a_standalone_ns3_program_delivers() {
    let cases = [
        (2, 1, TcpVariant::NewReno, "newreno", true),
        (4, 3, TcpVariant::NewReno, "newreno", false),
        (4, 1, TcpVariant::Cubic, "cubic", true),
        (3, 2, TcpVariant::WestwoodPlus, "westwoodplus", true),
        (3, 2, TcpVariant::Vegas, "vegas", true),
    ];
    for (hops, seed, variant, name, gratuitous) in cases {
        let mut config = Ns3Config::chain(hops);
        config.aodv.gratuitous_reply = gratuitous;
        let mut session = Session::new(&config, seed).unwrap();
        session.install_tcp(&bulk(variant, 1200, 1)).unwrap();
        session.run_until(Duration::from_secs(SECONDS));
        let flows = session.tcp_flows();
        let stats = session.stats();
        drop(session);
        assert_eq!(flows.len(), 1);
        let flow = &flows[0];
        assert_eq!(
            flow.rx_bytes,
            standalone(hops, seed, name, 1200, gratuitous),
            "{hops} hops, seed {seed}, {name}: the same bytes as the standalone program"
        );
        assert!(flow.rx_bytes > 100_000, "{name}: {flow:?}");
        assert!(flow.segments_sent >= flow.rx_bytes / 1200, "{flow:?}");
        assert!(!flow.rtt.is_empty());
        // Every segment the sink got came through the tagged accounting, over every hop.
        assert!(stats.a_to_b.delivered.datagrams >= flow.rx_bytes / 1200);
        assert_eq!(stats.a_to_b.mean_hops, Some(f64::from(hops)));
        assert!(stats.b_to_a.delivered.datagrams > 0, "the ACKs are counted");
        assert!(stats.a_to_b.max_gap_s > 0.0 && stats.a_to_b.max_gap_s < SECONDS as f64);
    }
}

/// Where the fading chain's nodes stand. ns-3 3.37's PHY drops a preamble received under
/// -82 dBm (`ThresholdPreambleDetectionModel::MinimumRssi`), and with ns-3's log-distance
/// defaults the mean received power falls to that 51 m away (README, "Rate control and
/// fading"). 20 m apart a neighbour's mean power is -69.7 dBm, 12 dB above it, and the node two
/// hops away, at 40 m, is 3 dB above it: fading loses frames on every link and lets some
/// through to the node beyond, and Minstrel has rates to choose between.
const FADING_SPACING_M: f64 = 20.0;

/// A chain under `rate_control` and log-distance path loss with Nakagami fading at ns-3's
/// defaults.
fn fading_chain(hops: u32, rate_control: RateControl) -> Ns3Config {
    let mut config = Ns3Config::chain(hops);
    config.topology = Topology::Chain {
        spacing: FADING_SPACING_M,
    };
    config.wifi.rate_control = rate_control;
    config.propagation = Propagation::Nakagami(Nakagami::default());
    config
}

/// The one TCP flow of a session on `config`, and the network's delivered data datagrams.
fn backend_flow(config: &Ns3Config, seed: u64, variant: TcpVariant) -> (TcpFlowReport, u64) {
    let mut session = Session::new(config, seed).unwrap();
    session.install_tcp(&bulk(variant, 1200, 1)).unwrap();
    session.run_until(Duration::from_secs(SECONDS));
    let mut flows = session.tcp_flows();
    let delivered = session.stats().a_to_b.delivered.datagrams;
    assert_eq!(flows.len(), 1);
    (flows.remove(0), delivered)
}

#[test]
fn with_rate_control_and_fading_the_backend_delivers_what_a_standalone_program_delivers() {
    let minstrel = RateControl::Minstrel;
    let cases = [
        (2, 1, TcpVariant::NewReno, "newreno", minstrel),
        (3, 3, TcpVariant::NewReno, "newreno", minstrel),
        (4, 1, TcpVariant::NewReno, "newreno", minstrel),
        (3, 1, TcpVariant::Cubic, "cubic", minstrel),
        (3, 2, TcpVariant::NewReno, "newreno", RateControl::Ideal),
    ];
    for (hops, seed, variant, name, rate_control) in cases {
        let config = fading_chain(hops, rate_control);
        let (flow, _) = backend_flow(&config, seed, variant);
        let expected = standalone_rx(&[
            format!("hops={hops}"),
            format!("run={seed}"),
            format!("duration_s={SECONDS}"),
            format!("variant={name}"),
            "segment=1200".to_owned(),
            "gratuitous=0".to_owned(),
            format!("spacing={FADING_SPACING_M}"),
            format!("rate_control={}", rate_control.as_str()),
            "propagation=nakagami".to_owned(),
        ]);
        let case = format!(
            "{hops} hops, seed {seed}, {name}, {}",
            rate_control.as_str()
        );
        println!("{case}: {} bytes", flow.rx_bytes);
        assert_eq!(
            flow.rx_bytes, expected,
            "{case}: the same bytes as the standalone program"
        );
        assert!(flow.rx_bytes > 100_000, "{name}: {flow:?}");
        // The settings act: the same chain at a constant 2 Mb/s on the unit disk is another
        // network, and delivers other bytes.
        let mut plain = config.clone();
        plain.wifi.rate_control = RateControl::Constant;
        plain.propagation = Propagation::default();
        let (constant, _) = backend_flow(&plain, seed, variant);
        assert_ne!(constant.rx_bytes, flow.rx_bytes, "{case}");
    }
}

/// `standalone_rx`'s arguments for the chain of `config` (a chain of `hops` hops) under 802.11n:
/// its standard, its rate control, the MCS of a constant rate, and its radio.
fn ht_arguments(config: &Ns3Config, hops: u32, seed: u64, name: &str) -> Vec<String> {
    let Topology::Chain { spacing } = config.topology else {
        panic!("{:?}", config.topology)
    };
    let mut args = vec![
        format!("hops={hops}"),
        format!("run={seed}"),
        format!("duration_s={SECONDS}"),
        format!("variant={name}"),
        "segment=1200".to_owned(),
        "gratuitous=0".to_owned(),
        format!("spacing={spacing}"),
        format!("standard={}", config.wifi.standard.as_str()),
        format!("rate_control={}", config.wifi.rate_control.as_str()),
    ];
    if config.wifi.rate_control.is_constant() {
        let mode = config
            .wifi
            .standard
            .mode(config.wifi.data_rate_mbps)
            .unwrap();
        args.push(format!("mcs={}", mode.strip_prefix("HtMcs").unwrap()));
    }
    match &config.propagation {
        Propagation::Range { range } => args.push(format!("range={range}")),
        Propagation::Nakagami(n) => {
            assert_eq!(
                *n,
                Nakagami::default(),
                "the program knows ns-3's defaults only"
            );
            args.push("propagation=nakagami".to_owned());
        }
        other => panic!("{other:?}"),
    }
    args
}

#[test]
fn under_802_11n_the_backend_delivers_what_a_standalone_program_delivers() {
    let constant = |standard: Standard, mbps: f64| {
        let mut config = Ns3Config::chain(1);
        config.wifi.standard = standard;
        config.wifi.data_rate_mbps = mbps;
        config
    };
    let adaptive = |standard: Standard, rate_control: RateControl| {
        let mut config = fading_chain(1, rate_control);
        config.wifi.standard = standard;
        config
    };
    let cases = [
        // HT MCS 7 (65 Mb/s) and MCS 3 (26 Mb/s) on the unit disk, 200 m apart.
        (2, 1, constant(Standard::N24GHz, 65.0)),
        (3, 2, constant(Standard::N5GHz, 26.0)),
        (1, 1, constant(Standard::N5GHz, 65.0)),
        // Minstrel-HT and the ideal manager over Nakagami fading, 20 m apart. (Most 3-hop
        // 802.11n chains this close stall, in the standalone program too; 2 hops carry
        // megabytes.)
        (2, 1, adaptive(Standard::N24GHz, RateControl::MinstrelHt)),
        (2, 3, adaptive(Standard::N5GHz, RateControl::MinstrelHt)),
        (2, 2, adaptive(Standard::N5GHz, RateControl::Ideal)),
        (2, 2, adaptive(Standard::N24GHz, RateControl::Ideal)),
    ];
    for (hops, seed, base) in cases {
        let mut config = base.clone();
        config.nodes = hops + 1;
        config.validate().unwrap();
        let (flow, _) = backend_flow(&config, seed, TcpVariant::NewReno);
        let expected = standalone_rx(&ht_arguments(&config, hops, seed, "newreno"));
        let case = format!("{hops} hops, seed {seed}: {}", config.describe());
        println!("{case}: {} bytes", flow.rx_bytes);
        assert_eq!(
            flow.rx_bytes, expected,
            "{case}: the same bytes as the standalone program"
        );
        // The standard acts: the same chain under 802.11b (2 Mb/s on the unit disk, Minstrel
        // under fading) carries less, and every 802.11b rate is below 11 Mb/s.
        let mut b = config.clone();
        b.wifi.standard = Standard::B;
        b.wifi.data_rate_mbps = 2.0;
        if b.wifi.rate_control == RateControl::MinstrelHt {
            b.wifi.rate_control = RateControl::Minstrel;
        }
        let (slower, _) = backend_flow(&b, seed, TcpVariant::NewReno);
        assert!(
            flow.rx_bytes > slower.rx_bytes + slower.rx_bytes / 2,
            "{case}: {} bytes, 802.11b {}",
            flow.rx_bytes,
            slower.rx_bytes
        );
    }
}

#[test]
fn one_802_11n_hop_at_65_mbps_carries_more_than_any_802_11b_rate() {
    let mut config = Ns3Config::chain(1);
    config.wifi.standard = Standard::N24GHz;
    config.wifi.data_rate_mbps = 65.0;
    let (flow, _) = backend_flow(&config, 1, TcpVariant::Cubic);
    let goodput_mbps = flow.rx_bytes as f64 * 8.0 / SECONDS as f64 / 1e6;
    println!("802.11n MCS 7, one hop, Cubic: {goodput_mbps:.2} Mb/s");
    // Above 802.11b's fastest rate (11 Mb/s), below the PHY rate (65 Mb/s).
    assert!(goodput_mbps > 11.0 && goodput_mbps < 65.0, "{goodput_mbps}");
}

/// Warm-up before the TCP flow of a mesh: 802.11s peering (beacons every 0.5 s after a random
/// start of up to 0.5 s, then the peer-link handshake) precedes any unicast, and ARP marks a
/// neighbour it could not resolve dead for 100 s.
const MESH_WARM_UP: Duration = Duration::from_secs(5);

/// A `hops`-hop 802.11s chain: 802.11a at `mbps`, 200 m apart on the 250 m unit disk.
fn mesh_chain(hops: u32, mbps: f64) -> Ns3Config {
    let mut config = Ns3Config::chain(hops);
    config.routing = Routing::Hwmp;
    config.wifi.standard = Standard::A;
    config.wifi.data_rate_mbps = mbps;
    config.start = MESH_WARM_UP;
    config
}

/// The one TCP flow of a session on `config`, started at its `start` and run `SECONDS` on,
/// and the network's statistics.
fn warm_flow(config: &Ns3Config, seed: u64, variant: TcpVariant) -> (TcpFlowReport, Ns3Stats) {
    let mut session = Session::new(config, seed).unwrap();
    let mut bulk = bulk(variant, 1200, 1);
    bulk.starts = vec![config.start];
    bulk.stop = config.start + Duration::from_secs(SECONDS);
    session.install_tcp(&bulk).unwrap();
    session.run_until(bulk.stop);
    let mut flows = session.tcp_flows();
    let stats = session.stats();
    assert_eq!(flows.len(), 1);
    (flows.remove(0), stats)
}

#[test]
fn over_an_802_11s_mesh_the_backend_delivers_what_a_standalone_program_delivers() {
    let cases = [
        (2, 1, TcpVariant::NewReno, "newreno", 12.0),
        (3, 2, TcpVariant::NewReno, "newreno", 6.0),
        (4, 1, TcpVariant::Cubic, "cubic", 12.0),
        (3, 3, TcpVariant::Cubic, "cubic", 24.0),
    ];
    for (hops, seed, variant, name, mbps) in cases {
        let config = mesh_chain(hops, mbps);
        config.validate().unwrap();
        let (flow, stats) = warm_flow(&config, seed, variant);
        let expected = standalone_rx(&[
            format!("hops={hops}"),
            format!("run={seed}"),
            format!("start_s={}", MESH_WARM_UP.as_secs()),
            format!("duration_s={SECONDS}"),
            format!("variant={name}"),
            "segment=1200".to_owned(),
            "standard=802.11a".to_owned(),
            format!("ofdm_mbps={mbps}"),
            "routing=hwmp".to_owned(),
        ]);
        let case = format!("{hops} hops, seed {seed}: {}", config.describe());
        println!(
            "{case}: {} bytes, mean hops {:?}",
            flow.rx_bytes, stats.a_to_b.mean_hops
        );
        assert_eq!(
            flow.rx_bytes, expected,
            "{case}: the same bytes as the standalone program"
        );
        assert!(flow.rx_bytes > 100_000, "{case}: {flow:?}");
        // HWMP forwards at layer 2: the hops are counted at the mesh interfaces' MACs.
        assert_eq!(stats.a_to_b.mean_hops, Some(f64::from(hops)), "{case}");
        assert!(
            stats.b_to_a.delivered.datagrams > 0,
            "{case}: the ACKs are counted"
        );
        // The routing acts: the same chain under AODV delivers other bytes.
        let mut aodv = config.clone();
        aodv.routing = Routing::Aodv;
        let (ip_routed, _) = warm_flow(&aodv, seed, variant);
        assert_ne!(ip_routed.rx_bytes, flow.rx_bytes, "{case}");
    }
}

/// The peer-link setting the mesh presets use (netsim-ns3's README, "The 802.11s abort") on a
/// fading 802.11s chain with Minstrel: the backend delivers what a standalone program given
/// the same setting delivers.
#[test]
fn the_peer_link_setting_reaches_ns3_and_the_standalone_program_alike() {
    let mut config = mesh_chain(3, 12.0);
    config.mesh.peer_link_max_packet_failure = 65535;
    config.wifi.rate_control = RateControl::Minstrel;
    config.wifi.data_rate_mbps = WifiConfig::default().data_rate_mbps;
    config.propagation = Propagation::Nakagami(Nakagami::default());
    config.topology = Topology::Chain { spacing: 30.0 };
    config.validate().unwrap();
    let seed = 2;
    let (flow, _) = warm_flow(&config, seed, TcpVariant::NewReno);
    let arguments = |failures: u32| {
        vec![
            "hops=3".to_owned(),
            format!("run={seed}"),
            format!("start_s={}", MESH_WARM_UP.as_secs()),
            format!("duration_s={SECONDS}"),
            "variant=newreno".to_owned(),
            "segment=1200".to_owned(),
            "standard=802.11a".to_owned(),
            "rate_control=minstrel".to_owned(),
            "propagation=nakagami".to_owned(),
            "spacing=30".to_owned(),
            "routing=hwmp".to_owned(),
            format!("max_packet_failure={failures}"),
        ]
    };
    assert_eq!(
        flow.rx_bytes,
        standalone_rx(&arguments(65535)),
        "{}: the same bytes as the standalone program",
        config.describe()
    );
    assert!(flow.rx_bytes > 100_000, "{flow:?}");
    // The setting acts: ns-3's default closes peer links on this chain, and delivers other bytes.
    assert_ne!(
        standalone_rx(&arguments(2)),
        flow.rx_bytes,
        "the setting acts"
    );
}

#[test]
fn a_mesh_grid_and_a_moving_mesh_carry_tcp() {
    // A 3 x 3 grid, 200 m apart, from one corner to the other: 4 hops at least.
    let mut grid = mesh_chain(8, 12.0);
    grid.topology = Topology::Grid {
        columns: 3,
        spacing: 200.0,
    };
    let (flow, stats) = warm_flow(&grid, 1, TcpVariant::NewReno);
    println!(
        "grid: {} bytes, {:?} hops",
        flow.rx_bytes, stats.a_to_b.mean_hops
    );
    assert!(flow.rx_bytes > 100_000, "{flow:?}");
    assert!(stats.a_to_b.mean_hops.unwrap() >= 4.0, "{stats:?}");
    // HWMP's and peering's random draws have explicit streams: the run repeats in one process
    // after another simulation.
    backend_flow(&Ns3Config::chain(2), 1, TcpVariant::NewReno);
    let (again, _) = warm_flow(&grid, 1, TcpVariant::NewReno);
    assert_eq!(
        (again.rx_bytes, again.segments_sent),
        (flow.rx_bytes, flow.segments_sent)
    );
    // 20 nodes moving by random waypoint over 600 m x 600 m at 5 m/s.
    let mut moving = mesh_chain(19, 12.0);
    moving.area_width = 600.0;
    moving.area_height = 600.0;
    moving.topology = Topology::RandomWaypoint {
        min_speed: 5.0,
        max_speed: 5.0,
        pause: Duration::from_secs(5),
        movement: Default::default(),
    };
    moving.validate().unwrap();
    let (flow, stats) = warm_flow(&moving, 1, TcpVariant::NewReno);
    println!(
        "random waypoint: {} bytes, {:?} hops, {} route changes",
        flow.rx_bytes, stats.a_to_b.mean_hops, stats.a_to_b.route_changes
    );
    assert!(flow.rx_bytes > 10_000, "{flow:?}");
}

#[test]
fn a_fading_run_repeats_in_one_process_after_another_simulation() {
    // Nakagami draws every frame's power: unless its random variables are given explicit
    // streams, ns-3 numbers them from a process-wide counter and a second run would differ.
    let config = fading_chain(3, RateControl::Minstrel);
    let first = backend_flow(&config, 3, TcpVariant::NewReno);
    backend_flow(&Ns3Config::chain(2), 1, TcpVariant::NewReno);
    let again = backend_flow(&config, 3, TcpVariant::NewReno);
    assert_eq!(first.0.rx_bytes, again.0.rx_bytes);
    assert_eq!(first.0.segments_sent, again.0.segments_sent);
    assert_eq!(first.0.retransmissions, again.0.retransmissions);
    assert_eq!(first.1, again.1);
    let other_seed = backend_flow(&config, 1, TcpVariant::NewReno);
    assert_ne!(
        first.0.rx_bytes, other_seed.0.rx_bytes,
        "the seed draws the fading"
    );
}

#[test]
fn several_flows_per_pair_each_deliver() {
    let mut session = Session::new(&Ns3Config::chain(1), 1).unwrap();
    let mut two = bulk(TcpVariant::NewReno, 1428, 2);
    two.starts[1] = Duration::from_secs(2);
    two.max_bytes = Some(300_000);
    session.install_tcp(&two).unwrap();
    session.run_until(Duration::from_secs(SECONDS));
    let flows = session.tcp_flows();
    assert_eq!(flows.len(), 2);
    for flow in &flows {
        assert_eq!(flow.rx_bytes, 300_000, "{flow:?}");
    }
    assert!(flows[1].first_rx.unwrap() > Duration::from_secs(2));
    assert!(
        session
            .install_tcp(&bulk(TcpVariant::NewReno, 1428, 1))
            .is_err(),
        "a second install is refused"
    );
}

#[test]
fn bad_flow_descriptions_are_refused_by_field() {
    let mut session = Session::new(&Ns3Config::chain(1), 1).unwrap();
    let refused = |session: &mut Session, bulk: TcpBulk, needle: &str| {
        let err = session.install_tcp(&bulk).unwrap_err();
        assert!(matches!(err, Error::Config(_) | Error::Ns3(_)), "{err}");
        assert!(err.to_string().contains(needle), "{err}");
    };
    refused(
        &mut session,
        bulk(TcpVariant::NewReno, 99, 1),
        "tcp.segment_bytes",
    );
    refused(
        &mut session,
        bulk(TcpVariant::NewReno, 1200, 0),
        "tcp.flows_per_pair",
    );
    let mut late = bulk(TcpVariant::NewReno, 1200, 1);
    late.starts[0] = Duration::from_secs(SECONDS);
    refused(&mut session, late, "tcp.stop");
    let mut short = bulk(TcpVariant::NewReno, 1200, 2);
    short.starts.pop();
    refused(&mut session, short, "one start time per flow");
}

#[test]
fn the_default_closes_the_black_hole_and_every_config_is_written_whole() {
    assert!(!Ns3Config::default().aodv.gratuitous_reply);
    // A config that leaves AODV out reads as the default, and every config is written with
    // every field (the harness hashes it into run ids: no default may hide).
    let short: Ns3Config = serde_json::from_str(r#"{"nodes": 5}"#).unwrap();
    assert!(!short.aodv.gratuitous_reply);
    let text = serde_json::to_string(&short).unwrap();
    for field in [
        "\"aodv\":{\"gratuitous_reply\":false}",
        "\"sources\":1",
        "\"arp\":",
    ] {
        assert!(text.contains(field), "{field} missing: {text}");
    }
    let stock = serde_json::to_string(&Ns3Config {
        aodv: netsim_ns3::AodvConfig::stock(),
        ..Ns3Config::default()
    })
    .unwrap();
    assert!(
        stock.contains(r#""aodv":{"gratuitous_reply":true}"#),
        "{stock}"
    );
}
