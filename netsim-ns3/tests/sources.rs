//! Several source/sink pairs in one ns-3 network (`Ns3Config::sources`): each pair's quinn
//! connection delivers its bytes intact, the pairs contend for the same channel (together
//! they get less than one pair alone would), and the same seed repeats byte for byte.
#![cfg(feature = "ns3")]

use std::sync::Arc;
use std::time::Duration;

use netsim_ns3::{Ns3Config, Ns3Medium, quinn_pair, quinn_pairs};
use quinn::TransportConfig;

const BYTES: u64 = 150_000;

/// A static 7-node chain with three pairs: 0 -> 6, 1 -> 5 and 2 -> 4, all crossing the
/// middle of the chain.
fn three_pairs() -> Ns3Config {
    Ns3Config {
        sources: 3,
        ..Ns3Config::chain(6)
    }
}

fn patient() -> Arc<TransportConfig> {
    let mut transport = TransportConfig::default();
    transport.max_idle_timeout(None);
    Arc::new(transport)
}

/// Each pair's (bytes received, intact, finish time in ns), and the network's offered and
/// delivered datagram counts in the data direction.
fn run(config: &Ns3Config) -> (Vec<(u64, bool, u128)>, u64, u64) {
    let runtime = netsim::virtual_runtime().unwrap();
    runtime.block_on(async {
        let pairs: Vec<_> = quinn_pairs(config, 1)
            .unwrap()
            .into_iter()
            .map(|builder| {
                builder
                    .client_transport(patient())
                    .server_transport(patient())
                    .build()
                    .unwrap()
            })
            .collect();
        let pairs: Vec<_> = pairs.into_iter().map(Arc::new).collect();
        let tasks: Vec<_> = pairs
            .iter()
            .map(|pair| {
                let pair = pair.clone();
                tokio::spawn(async move { pair.transfer(BYTES).await })
            })
            .collect();
        let mut outcome = Vec::new();
        for task in tasks {
            let report = tokio::time::timeout(Duration::from_secs(120), task)
                .await
                .expect("every pair finishes within 120 s of simulated time")
                .unwrap()
                .unwrap();
            outcome.push((
                report.bytes_received,
                report.intact,
                report.elapsed.as_nanos(),
            ));
        }
        let stats = pairs[0]
            .link()
            .inspect_medium(|m| m.as_any().downcast_ref::<Ns3Medium>().unwrap().stats());
        (
            outcome,
            stats.a_to_b.offered.datagrams,
            stats.a_to_b.delivered.datagrams,
        )
    })
}

#[test]
fn pairs_are_the_first_and_last_nodes_inward() {
    assert_eq!(three_pairs().pairs(), vec![(0, 6), (1, 5), (2, 4)]);
    assert_eq!(Ns3Config::default().pairs(), vec![(0, 49)]);
    let config = Ns3Config {
        sources: 25,
        ..Ns3Config::default()
    };
    assert_eq!(config.pairs().last(), Some(&(24, 25)));
    config.validate().unwrap();
}

#[test]
fn every_pair_delivers_its_bytes_and_the_pairs_share_the_channel() {
    let config = three_pairs();
    let (outcome, offered, delivered) = run(&config);
    println!("{outcome:?} offered {offered} delivered {delivered}");
    assert_eq!(outcome.len(), 3);
    for (bytes, intact, _) in &outcome {
        assert!(*intact);
        assert_eq!(*bytes, BYTES);
    }
    // The network's accounting covers every pair: at least three transfers' worth of
    // datagrams (about 1200 bytes each) arrived.
    assert!(delivered >= 3 * BYTES / 1500, "{delivered} datagrams");
    assert!(offered >= delivered);

    // One pair alone on the same chain, 0 -> 6, finishes sooner than the same pair does
    // while two others share the channel.
    let alone = Ns3Config::chain(6);
    let (alone, _, _) = run(&alone);
    let shared = outcome[0].2;
    assert!(
        alone[0].2 < shared,
        "0 -> 6 alone took {} ns, with two other pairs {shared} ns",
        alone[0].2
    );

    // Same seed, same run.
    assert_eq!(run(&config).0, outcome);
}

#[test]
fn the_first_pair_alone_is_quinn_pair() {
    // quinn_pair builds the first pair of the same network.
    let runtime = netsim::virtual_runtime().unwrap();
    let report = runtime.block_on(async {
        let pair = quinn_pair(&three_pairs(), 1)
            .unwrap()
            .client_transport(patient())
            .server_transport(patient())
            .build()
            .unwrap();
        pair.transfer(BYTES).await.unwrap()
    });
    assert!(report.intact);
}

#[test]
fn sources_out_of_range_are_refused_and_several_refuse_a_source_or_sink() {
    let too_many = Ns3Config {
        sources: 26,
        ..Ns3Config::default()
    };
    let err = too_many.validate().unwrap_err().to_string();
    assert!(err.contains("sources") && err.contains("[1, 25]"), "{err}");
    let zero = Ns3Config {
        sources: 0,
        ..Ns3Config::default()
    };
    assert!(zero.validate().unwrap_err().to_string().contains("sources"));
    // With several sources, source and sink are not used: one set besides is refused, as it
    // would not act.
    let custom = Ns3Config {
        sources: 2,
        sink: Some(10),
        ..Ns3Config::default()
    };
    let err = custom.validate().unwrap_err().to_string();
    assert!(
        err.contains("sink") && err.contains("would not act"),
        "{err}"
    );
    let pairs = Ns3Config {
        sources: 2,
        ..Ns3Config::default()
    };
    pairs.validate().unwrap();
    assert_eq!(pairs.pairs(), vec![(0, 49), (1, 48)]);
}
