//! noq over netsim: transfers complete with correct bytes over lossy, breaking paths, and a
//! virtual-time run is reproducible from its seed, as with quinn.
#![cfg(feature = "noq")]

mod common;

use common::lossy_breaking_link;

use std::sync::Arc;

use netsim::noq_pair::{NoqPair, transfer_with_controller};
use netsim::virtual_runtime;

#[test]
fn noq_transfer_over_a_lossy_breaking_path_delivers_every_byte() {
    let runtime = virtual_runtime().unwrap();
    let report = runtime
        .block_on(async {
            let pair = NoqPair::builder(lossy_breaking_link(), 11).build()?;
            pair.transfer(2_000_000).await
        })
        .unwrap();
    assert!(report.intact, "{report:?}");
    assert_eq!(report.bytes_received, 2_000_000);
    let a_to_b = report.accounting.a_to_b;
    assert!(a_to_b.dropped.error.datagrams > 0, "{a_to_b:?}");
    assert!(a_to_b.dropped.breakage.datagrams > 0, "{a_to_b:?}");
    assert!(a_to_b.is_balanced() && report.accounting.b_to_a.is_balanced());
}

#[test]
fn the_same_seed_gives_the_same_noq_run() {
    let run = |seed| {
        let factory = Arc::new(noq::congestion::NewRenoConfig::default());
        let report = transfer_with_controller(lossy_breaking_link(), seed, factory, 1_000_000)
            .expect("transfer");
        assert!(report.intact);
        (
            report.elapsed,
            report.accounting,
            report.client_stats.udp_tx.datagrams,
        )
    };
    let first = run(5);
    assert_eq!(first, run(5));
    assert_ne!(first, run(6), "the seed must matter");
}
