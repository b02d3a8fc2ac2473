//! An app developer's view: a quinn connection configured with Karak moves several megabytes
//! intact over a lossy emulated path, and the controller in use is Karak.

use cc_core::{CongestionAlgorithm, PortController};
use cc_karak::{Karak, KarakConfig};
use netsim::quinn_pair::QuinnPair;
use netsim::{DirectionConfig, ErrorModelConfig, LinkConfig, Rate, virtual_runtime};
use std::sync::Arc;
use std::time::Duration;

#[test]
fn karak_moves_eight_megabytes_intact_over_a_lossy_path() {
    let mut transport = quinn::TransportConfig::default();
    transport.congestion_controller_factory(KarakConfig::default().into_factory());
    let link = LinkConfig::symmetric(DirectionConfig {
        rate: Rate::from_mbps(20),
        delay: Duration::from_millis(20),
        errors: vec![ErrorModelConfig::Per { p: 0.005 }],
        ..DirectionConfig::default()
    });
    let runtime = virtual_runtime().unwrap();
    let (report, controller) = runtime.block_on(async {
        let pair = QuinnPair::builder(link, 3)
            .client_transport(Arc::new(transport))
            .build()
            .unwrap();
        let (client, server) = pair.connect().await.unwrap();
        // Read the controller off the live connection, as quinn hands it out.
        let controller = client.congestion_state();
        client.close(0u32.into(), b"");
        server.close(0u32.into(), b"");
        (pair.transfer(8_000_000).await.unwrap(), controller)
    });
    assert!(report.intact, "bytes corrupted or missing");
    assert_eq!(report.bytes_received, 8_000_000);
    let karak = controller
        .into_any()
        .downcast::<PortController<Karak>>()
        .expect("the connection runs Karak");
    assert!(karak.algorithm().window_state().mtu() >= 1200);
    // Random loss, not the 20 Mb/s line, limits a Reno-style controller here. Mathis et al.:
    // rate ~ MSS / RTT x 1.22 / sqrt(p) = 1200 B x 8 / 0.040 s x 1.22 / sqrt(0.005)
    //      = 240 kb/s x 17.3 = 4.1 Mb/s.
    // A controller that collapsed on random loss would fall far below; require half of it.
    let goodput_bps = 8.0 * 8_000_000.0 / report.elapsed.as_secs_f64();
    assert!(
        goodput_bps >= 2.0e6,
        "goodput {goodput_bps:.0} b/s over {:?}",
        report.elapsed
    );
}
