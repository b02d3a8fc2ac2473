//! The ports in an iroh endpoint, as the README tells an iroh user to install them: the
//! example's own transfer (examples/iroh.rs) between two endpoints on loopback.

#[path = "../examples/iroh.rs"]
#[allow(dead_code)]
mod example;

use cc_core::{PortConfig, SignalConfig};

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
}

#[test]
fn every_port_runs_as_the_iroh_senders_controller_and_every_byte_arrives() {
    struct Each(Vec<String>);
    impl cc_ports::PortVisitor for Each {
        fn visit<C: PortConfig>(&mut self) {
            let bytes = 3_000_000;
            let t = runtime()
                .block_on(example::transfer(C::default(), bytes))
                .unwrap_or_else(|e| panic!("{}: {e}", C::NAME));
            assert_eq!((t.sent, t.received), (bytes, bytes), "{}", C::NAME);
            assert!(t.intact, "{}: bytes corrupted", C::NAME);
            // Read back as the port: the controller in use is the one installed.
            let signals = t
                .signals
                .unwrap_or_else(|| panic!("{}: the sender's controller is not the port", C::NAME));
            assert_eq!(signals.threshold_mismatches, 0, "{}", C::NAME);
            self.0.push(C::NAME.to_string());
        }
    }
    let mut each = Each(Vec::new());
    cc_ports::visit_ports(&mut each);
    assert_eq!(each.0, cc_ports::port_names());
}

#[test]
fn install_sets_the_transports_thresholds_to_the_ports() {
    // Not iroh's defaults (3 and 9/8), so that only `install` can have put them there.
    let mut signal = SignalConfig::default();
    signal
        .set_packet_threshold(5)
        .unwrap()
        .set_time_threshold(1.5)
        .unwrap();
    let mut config = cc_manet::ManetConfig::default();
    config.set_signal(signal);
    let transport = format!("{:?}", example::transport(config));
    assert!(transport.contains("packet_threshold: 5,"), "{transport}");
    assert!(transport.contains("time_threshold: 1.5,"), "{transport}");
    let defaults = format!("{:?}", example::transport(cc_manet::ManetConfig::default()));
    assert!(defaults.contains("packet_threshold: 3,"), "{defaults}");
}

/// The README's iroh snippet ("In an iroh endpoint"), compiled with the test (not run: the
/// `N0` preset dials iroh's public relays).
#[allow(dead_code)]
async fn readme_snippet(
    connection: iroh::endpoint::Connection,
) -> Result<(), Box<dyn std::error::Error>> {
    use iroh::endpoint::{QuicTransportConfig, presets};

    let mut transport = QuicTransportConfig::builder();
    cc_manet::ManetConfig::default().install(&mut transport);
    let endpoint = iroh::Endpoint::builder(presets::N0)
        .transport_config(transport.build())
        .bind()
        .await?;
    // Later, the port's state on a connection's path:
    let port = connection
        .congestion_state(iroh::endpoint::PathId::ZERO)
        .and_then(cc_manet::ManetController::from_noq_controller);
    drop((endpoint, port));
    Ok(())
}
