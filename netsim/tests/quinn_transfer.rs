//! quinn over netsim: transfers complete with correct bytes over lossy, breaking paths.

mod common;

use common::lossy_breaking_link;

use std::sync::Arc;
use std::time::Duration;

use netsim::quinn_pair::QuinnPair;
use netsim::{DirectionConfig, LinkConfig, Rate, virtual_runtime};

#[test]
fn quinn_transfer_over_a_lossy_breaking_path_delivers_every_byte() {
    let runtime = virtual_runtime().unwrap();
    let report = runtime
        .block_on(async {
            let pair = QuinnPair::builder(lossy_breaking_link(), 11).build()?;
            pair.transfer(2_000_000).await
        })
        .unwrap();
    assert!(report.intact, "{report:?}");
    assert_eq!(report.bytes_received, 2_000_000);
    let a_to_b = report.accounting.a_to_b;
    // The path really was lossy and broken during the transfer, or this test proves nothing.
    assert!(a_to_b.dropped.error.datagrams > 0, "{a_to_b:?}");
    assert!(a_to_b.dropped.breakage.datagrams > 0, "{a_to_b:?}");
    assert!(a_to_b.is_balanced() && report.accounting.b_to_a.is_balanced());
    // quinn retransmitted what was lost.
    assert!(report.client_stats.path.lost_packets > 0);
}

#[test]
fn caller_transport_config_is_used() {
    // A tiny stream receive window on the server caps throughput at window / RTT; if the
    // pair ignored the caller's config the transfer would run at link rate instead.
    let runtime = virtual_runtime().unwrap();
    let elapsed = |window: u32| {
        runtime
            .block_on(async {
                let mut server = quinn::TransportConfig::default();
                server.stream_receive_window(window.into());
                let mut client = quinn::TransportConfig::default();
                client.congestion_controller_factory(Arc::new(
                    quinn::congestion::NewRenoConfig::default(),
                ));
                let pair = QuinnPair::builder(LinkConfig::symmetric(DirectionConfig::default()), 3)
                    .client_transport(Arc::new(client))
                    .server_transport(Arc::new(server))
                    .build()?;
                pair.transfer(300_000).await
            })
            .unwrap()
            .elapsed
    };
    // 2 Mb/s, 90 ms RTT: 300 kB takes ~1.3 s at link rate; with a 10 kB window, 30 round
    // trips of at least 90 ms each = 2.7 s.
    let wide = elapsed(10_000_000);
    let narrow = elapsed(10_000);
    assert!(
        narrow > wide + Duration::from_secs(1),
        "narrow {narrow:?}, wide {wide:?}"
    );
}

#[test]
fn transfer_with_controller_installs_the_clients_controller() {
    use netsim::quinn_pair::transfer_with_controller;
    // A clean 10 Mb/s, 100 ms RTT path: 1 MB takes several round trips of slow start. Starting
    // from a 2-datagram window instead of quinn's default (14720 bytes) costs about
    // log2(14720 / 2400) = 2.6 extra round trips: the controller passed in is the one that ran.
    let link = LinkConfig::symmetric(DirectionConfig {
        rate: Rate::from_mbps(10),
        delay: Duration::from_millis(50),
        ..DirectionConfig::default()
    });
    let mut small = quinn::congestion::NewRenoConfig::default();
    small.initial_window(2400);
    let big = quinn::congestion::NewRenoConfig::default();
    let slow = transfer_with_controller(link.clone(), 3, Arc::new(small), 1_000_000).unwrap();
    let fast = transfer_with_controller(link, 3, Arc::new(big), 1_000_000).unwrap();
    assert!(slow.intact && fast.intact);
    assert_eq!(slow.bytes_received, 1_000_000);
    assert!(
        slow.elapsed > fast.elapsed,
        "initial window 2 datagrams: {:?}, default: {:?}",
        slow.elapsed,
        fast.elapsed
    );
}

#[test]
fn a_connection_behind_an_access_link_sees_the_longer_round_trip() {
    let runtime = virtual_runtime().unwrap();
    let (near, far) = runtime.block_on(async {
        let link = LinkConfig::symmetric(DirectionConfig {
            rate: Rate::from_mbps(10),
            delay: Duration::from_millis(10),
            ..DirectionConfig::default()
        });
        let pair = QuinnPair::builder(link, 3).build().unwrap();
        let (near, _near_server) = pair.connect().await.unwrap();
        let (far, _far_server) = pair
            .connect_behind(Duration::from_millis(30), None)
            .await
            .unwrap();
        // A few round trips of pings settle the RTT estimates.
        tokio::time::sleep(Duration::from_secs(2)).await;
        (near.rtt(), far.rtt())
    });
    // 20 ms of path against 20 + 2 x 30 ms.
    assert!(
        near >= Duration::from_millis(20) && near < Duration::from_millis(30),
        "{near:?}"
    );
    assert!(
        far >= Duration::from_millis(80) && far < Duration::from_millis(90),
        "{far:?}"
    );
}
