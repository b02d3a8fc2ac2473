//! The smallest use of a port on noq (iroh's QUIC): a client and a server on loopback, the client sending
//! 1 MB with the composite `manet` as its congestion controller, then reading it back.
//! `cargo run -p cc-ports --features noq --example first_noq` (the full tool: examples/bulk.rs).

use std::sync::Arc;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let cert = rcgen::generate_simple_self_signed(vec!["localhost".into()])?;
    let key = rustls::pki_types::PrivatePkcs8KeyDer::from(cert.key_pair.serialize_der());
    let tls = noq::ServerConfig::with_single_cert(vec![cert.cert.der().clone()], key.into())?;
    let server = noq::Endpoint::server(tls, "127.0.0.1:0".parse()?)?;
    let address = server.local_addr()?;
    let receiver = tokio::spawn(async move {
        let connection = server.accept().await.ok_or("closed")?.await?;
        let bytes = connection
            .accept_uni()
            .await?
            .read_to_end(10_000_000)
            .await?;
        Ok::<_, Box<dyn std::error::Error + Send + Sync>>(bytes.len())
    });

    // The port and the loss thresholds its classifier reads, installed in one call.
    let mut transport = noq::TransportConfig::default();
    cc_manet::ManetConfig::default().install(&mut transport);
    let mut roots = rustls::RootCertStore::empty();
    roots.add(cert.cert.der().clone())?;
    let mut config = noq::ClientConfig::with_root_certificates(Arc::new(roots))?;
    config.transport_config(Arc::new(transport));
    let client = noq::Endpoint::client("127.0.0.1:0".parse()?)?;
    client.set_default_client_config(config);
    let connection = client.connect(address, "localhost")?.await?;
    let mut stream = connection.open_uni().await?;
    stream.write_all(&[7; 1_000_000]).await?;
    stream.finish()?;
    let received = receiver.await??;
    let port = cc_manet::ManetController::from_noq_controller(
        connection
            .congestion_state(noq::PathId::ZERO)
            .ok_or("no path")?,
    )
    .ok_or("the controller is not manet")?;
    let manet = port.algorithm();
    println!(
        "received {received} bytes; manet: {} round trips, base RTT {:?}, mode {:?}",
        manet.rounds(),
        manet.base_rtt(),
        manet.mode()
    );
    Ok(())
}
