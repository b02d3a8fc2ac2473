//! End-to-end: a real quinn transfer over netsim's emulated lossy link, in virtual time, with
//! PETRA as the sender's controller. The bytes are verified by the receiver.

use cc_core::testing::{WatchFactory, WatchLog};
use netsim::quinn_pair::transfer_with_controller;
use netsim::{DirectionConfig, ErrorModelConfig, LinkConfig, Rate};
use std::sync::Arc;
use std::time::Duration;

/// 10 Mb/s, 20 ms one way, a 100-packet queue, and `per` packet error rate on the data path.
fn link(per: f64) -> LinkConfig {
    let mut config = LinkConfig::symmetric(DirectionConfig {
        rate: Rate::from_mbps(10),
        delay: Duration::from_millis(20),
        queue: netsim::QueueLimit::Packets(100),
        ..DirectionConfig::default()
    });
    if per > 0.0 {
        config.a_to_b.errors = vec![ErrorModelConfig::Per { p: per }];
    }
    config
}

fn transfer(per: f64, bytes: u64, seed: u64) -> (netsim::quinn_pair::TransferReport, WatchLog) {
    let factory = Arc::new(WatchFactory::new(cc_core::PortFactory::new(
        cc_petra::PetraConfig::default(),
    )));
    let report =
        transfer_with_controller(link(per), seed, factory.clone(), bytes).expect("transfer");
    let log = factory.log();
    eprintln!(
        "per {per}: elapsed {:?}, lost {}, {log:?}",
        report.elapsed, report.client_stats.path.lost_packets
    );
    (report, log)
}

#[test]
fn petra_completes_a_lossy_transfer_with_correct_bytes() {
    // 4 MB over 10 Mb/s with 1% of data packets corrupted: at least 3.2 s of virtual time.
    let bytes = 4_000_000;
    let (report, log) = transfer(0.01, bytes, 11);
    assert!(report.intact, "received bytes differ from sent: {report:?}");
    assert_eq!(report.bytes_received, bytes);
    assert!(
        log.built >= 1,
        "PETRA's factory built the client's controller"
    );
    assert!(log.acks > 1000, "{log:?}");
    assert!(
        log.congestion_events > 0,
        "a 1% error rate causes losses: {log:?}"
    );
    assert!(log.min_window.unwrap() >= 2 * 1200, "{log:?}");
    assert!(log.ssthresh_always_reported);
    // Goodput above a quarter of the link rate (10 Mb/s): 4 MB in under 12.8 s.
    assert!(
        report.elapsed < Duration::from_secs_f64(12.8),
        "took {:?}",
        report.elapsed
    );
}

#[test]
fn petra_completes_a_clean_transfer() {
    let bytes = 2_000_000;
    let (report, log) = transfer(0.0, bytes, 12);
    assert!(report.intact, "{report:?}");
    assert_eq!(report.bytes_received, bytes);
    // The window grew beyond the initial 10 datagrams.
    assert!(log.max_window > 10 * 1200 * 2, "{log:?}");
}
