//! ns-3's own TCP in a session (`Session::install_tcp`): the same bytes as `ns3-chain-tcp`, a
//! standalone ns-3 program written without the shim, on the same chain and seed; its segments
//! counted as the QUIC datagrams are; bad flow descriptions refused by field.
#![cfg(feature = "ns3")]

use std::process::Command;
use std::time::Duration;

use netsim_ns3::{CHAIN_TCP_PROGRAM, Error, Ns3Config, Session, TcpBulk, TcpVariant};

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
