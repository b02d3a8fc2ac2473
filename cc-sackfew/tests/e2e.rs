//! SACK-FeW driving real quinn transfers over netsim's emulated link, in virtual time.
//!
//! The link: 10 Mb/s each way, 20 ms one-way delay (RTT about 41 ms with serialization), a
//! 100-packet drop-tail queue. Its bandwidth-delay product is about 51 kB, 43 datagrams.

use cc_core::testing::capture_events;
use cc_sackfew::SackFewConfig;
use netsim::quinn_pair::{QuinnPair, TransferReport};
use netsim::{DirectionConfig, ErrorModelConfig, LinkConfig, QueueLimit, Rate, virtual_runtime};
use std::sync::Arc;
use std::time::Duration;

const SEED: u64 = 5;
const BYTES: u64 = 4_000_000;

fn link(per: f64) -> LinkConfig {
    let mut data = DirectionConfig {
        rate: Rate::from_mbps(10),
        delay: Duration::from_millis(20),
        queue: QueueLimit::Packets(100),
        ..DirectionConfig::default()
    };
    let acks = data.clone();
    if per > 0.0 {
        data.errors = vec![ErrorModelConfig::Per { p: per }];
    }
    LinkConfig {
        a_to_b: data,
        b_to_a: acks,
        ..LinkConfig::default()
    }
}

/// Transfers `BYTES` client -> server with SACK-FeW (`alpha`) on the client; returns the report
/// and the controller's `cc` trace.
fn transfer(alpha: f64, per: f64) -> (TransferReport, String) {
    capture_events("cc=debug", || {
        virtual_runtime().unwrap().block_on(async {
            let mut few = SackFewConfig::default();
            few.set_alpha(alpha).unwrap();
            let mut transport = quinn::TransportConfig::default();
            few.install(&mut transport);
            QuinnPair::builder(link(per), SEED)
                .client_transport(Arc::new(transport))
                .build()
                .unwrap()
                .transfer(BYTES)
                .await
                .unwrap()
        })
    })
}

#[test]
fn papers_alpha_completes_a_4mb_transfer_at_a_few_packets_per_round_trip() {
    let (report, _) = transfer(SackFewConfig::DEFAULT_ALPHA, 0.0);
    assert!(report.intact, "bytes verified");
    assert_eq!(report.bytes_received, BYTES);
    // FeW at alpha = 0.01 stays near QUIC's 10-datagram initial window: over the ~330 round
    // trips this transfer takes it grows by only ~3.3 datagrams. With at most 14 datagrams of
    // 1200 bytes per 40 ms round trip, 4 MB take at least 4e6 / 16800 x 0.04 s = 9.5 s, where
    // the link alone would allow 3.2 s.
    let secs = report.elapsed.as_secs_f64();
    assert!(secs > 9.5, "faster than FeW growth allows: {secs:.2} s");
    assert!(secs < 20.0, "the transfer stalled: {secs:.2} s");
}

#[test]
fn alpha_one_over_a_lossy_link_completes_and_reduces_to_ssthresh() {
    let (report, trace) = transfer(1.0, 0.005);
    assert!(report.intact, "bytes verified");
    assert_eq!(report.bytes_received, BYTES);
    assert!(
        report.client_stats.path.lost_packets > 0,
        "the link lost datagrams"
    );
    // The controller saw the losses and took section 2.2 step 4.
    let reductions = trace
        .lines()
        .filter(|l| l.contains("controller=\"sackfew\"") && l.contains("reduce_to_ssthresh"))
        .count();
    assert!(reductions > 0, "no SACK-FeW reduction traced:\n{trace}");
    // alpha = 1 grows a datagram per round trip: much faster than alpha = 0.01 (above), which
    // needs more than 9.5 s for the same bytes even without losses.
    let secs = report.elapsed.as_secs_f64();
    assert!(
        secs < 9.5,
        "alpha = 1 should beat alpha = 0.01: {secs:.2} s"
    );
}
