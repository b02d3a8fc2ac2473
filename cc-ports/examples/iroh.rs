//! A port as the congestion controller of an iroh endpoint: two endpoints in one process on
//! loopback, with no relay and no address lookup (the receiver is dialled at its direct
//! address). The sender sends `--bytes` on one stream; the receiver checks every byte. The
//! sender then reads its controller back through `Connection::congestion_state` and prints the
//! port's loss-signal classes.
//!
//! ```sh
//! cargo run --release -p cc-ports --features iroh --example iroh                        # manet, 8 MB
//! cargo run --release -p cc-ports --features iroh --example iroh -- --controller petra --bytes 20000000
//! ```
//!
//! The one line an iroh application needs is in [`transport`]: `install` on iroh's
//! `QuicTransportConfigBuilder` sets the controller and the loss thresholds its classifier reads
//! together. Tested with iroh 1.4.1 (noq 1.4.0) by `cc-ports/tests/iroh.rs`, which runs this
//! file's [`transfer`].

use std::time::Instant;

use cc_core::{PortConfig, PortController, SignalStats};
use cc_ports::PortVisitor;
use clap::Parser;
use iroh::endpoint::{PathId, QuicTransportConfig, presets};
use iroh::{Endpoint, EndpointAddr};

type Error = Box<dyn std::error::Error + Send + Sync>;

/// The application protocol both endpoints speak.
const ALPN: &[u8] = b"manet-quic-cc/iroh-example/0";
/// The largest `--bytes` the example sends: 1 GB keeps a loopback run to seconds.
const MAX_BYTES: u64 = 1_000_000_000;

#[derive(Parser)]
#[command(
    about = "A bulk transfer between two iroh endpoints with a port as the sender's controller"
)]
struct Args {
    /// The sender's controller: one of the ports (`harness controllers` lists them).
    #[arg(long, default_value = "manet")]
    controller: String,
    /// Bytes to send, 1 to 1,000,000,000.
    #[arg(long, default_value_t = 8_000_000, value_parser = clap::value_parser!(u64).range(1..=MAX_BYTES))]
    bytes: u64,
}

/// What one transfer measured.
#[derive(Debug)]
pub struct Transfer {
    /// Bytes the sender wrote.
    pub sent: u64,
    /// Bytes the receiver read.
    pub received: u64,
    /// Whether every byte the receiver read is the one the sender wrote there.
    pub intact: bool,
    /// From the first write to the receiver's last read, seconds.
    pub seconds: f64,
    /// The sender's controller read back as the port `C` (`None`: it runs something else).
    pub signals: Option<SignalStats>,
}

/// The sender's transport configuration: the port `config`, installed on iroh's builder. This
/// sets the controller and the transport's packet and time thresholds to the ones the port's
/// classifier reads.
pub fn transport<C: PortConfig>(config: C) -> QuicTransportConfig {
    let mut builder = QuicTransportConfig::builder();
    cc_core::install(config, &mut builder);
    builder.build()
}

/// The byte at `offset` of the stream: a pattern the receiver can check without a copy.
fn pattern(offset: u64) -> u8 {
    (offset % 251) as u8
}

/// An endpoint on 127.0.0.1 only, with no relay and no address lookup (the `Minimal` preset:
/// a crypto provider and nothing else).
async fn local_endpoint(transport: Option<QuicTransportConfig>) -> Result<Endpoint, Error> {
    let mut builder = Endpoint::builder(presets::Minimal)
        .clear_ip_transports()
        .bind_addr("127.0.0.1:0")?
        .alpns(vec![ALPN.to_vec()]);
    if let Some(transport) = transport {
        builder = builder.transport_config(transport);
    }
    Ok(builder.bind().await?)
}

/// Reads one stream to its end; returns its length and whether every byte matched the pattern.
async fn receive(endpoint: Endpoint) -> Result<(u64, bool), Error> {
    let incoming = endpoint.accept().await.ok_or("the endpoint closed")?;
    let connection = incoming.await?;
    let mut stream = connection.accept_uni().await?;
    let (mut received, mut intact) = (0u64, true);
    let mut buffer = vec![0u8; 64 * 1024];
    while let Some(n) = stream.read(&mut buffer).await? {
        for (i, byte) in buffer[..n].iter().enumerate() {
            intact &= *byte == pattern(received + i as u64);
        }
        received += n as u64;
    }
    // Keep the connection until the sender has read its controller and closed.
    connection.closed().await;
    endpoint.close().await;
    Ok((received, intact))
}

/// Sends `bytes` from an endpoint running the port `config` to one running iroh's defaults.
pub async fn transfer<C: PortConfig>(config: C, bytes: u64) -> Result<Transfer, Error> {
    let receiver = local_endpoint(None).await?;
    let address = receiver
        .bound_sockets()
        .into_iter()
        .next()
        .ok_or("the receiver bound no socket")?;
    let dial = EndpointAddr::new(receiver.id()).with_ip_addr(address);
    let receiving = tokio::spawn(receive(receiver));

    let sender = local_endpoint(Some(transport(config))).await?;
    let connection = sender.connect(dial, ALPN).await?;
    let mut stream = connection.open_uni().await?;
    let start = Instant::now();
    let mut offset = 0u64;
    let mut buffer = vec![0u8; 64 * 1024];
    while offset < bytes {
        let len = buffer.len().min((bytes - offset) as usize);
        for (i, byte) in buffer[..len].iter_mut().enumerate() {
            *byte = pattern(offset + i as u64);
        }
        stream.write_all(&buffer[..len]).await?;
        offset += len as u64;
    }
    stream.finish()?;
    stream.stopped().await?;
    let seconds = start.elapsed().as_secs_f64();
    let signals = connection
        .congestion_state(PathId::ZERO)
        .and_then(PortController::<C::Algorithm>::from_noq_controller)
        .map(|port| port.signal_stats());
    connection.close(0u32.into(), b"done");
    let (received, intact) = receiving.await??;
    sender.close().await;
    Ok(Transfer {
        sent: offset,
        received,
        intact,
        seconds,
        signals,
    })
}

/// Runs the transfer with the port named `name`, if there is one.
struct ByName {
    name: String,
    bytes: u64,
    outcome: Option<Result<Transfer, Error>>,
}

impl PortVisitor for ByName {
    fn visit<C: PortConfig>(&mut self) {
        if self.outcome.is_some() || C::NAME != self.name {
            return;
        }
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build();
        self.outcome = Some(match runtime {
            Ok(runtime) => runtime.block_on(transfer(C::default(), self.bytes)),
            Err(e) => Err(e.into()),
        });
    }
}

fn main() {
    let args = Args::parse();
    let mut run = ByName {
        name: args.controller.clone(),
        bytes: args.bytes,
        outcome: None,
    };
    cc_ports::visit_ports(&mut run);
    let transfer = match run.outcome {
        None => {
            eprintln!(
                "error: --controller: {:?} is not a port; one of {}",
                args.controller,
                cc_ports::port_names().join(", ")
            );
            std::process::exit(2);
        }
        Some(Err(e)) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
        Some(Ok(t)) => t,
    };
    println!(
        "{} on iroh: {} bytes in {:.3} s, {:.1} Mb/s; received {} bytes, {}",
        args.controller,
        transfer.sent,
        transfer.seconds,
        transfer.sent as f64 * 8.0 / transfer.seconds / 1e6,
        transfer.received,
        if transfer.intact && transfer.received == transfer.sent {
            "every byte intact"
        } else {
            "NOT intact"
        }
    );
    match &transfer.signals {
        Some(s) => println!(
            "loss signals (read back through Connection::congestion_state): fast retransmit {}, \
             timeout d=1 {}, d=2 {}, d=0 {}, ECN {}; threshold mismatches {}",
            s.fast_retransmit, s.timeout1, s.timeout2, s.timeout0, s.ecn, s.threshold_mismatches
        ),
        None => println!("the sender's controller is not {}", args.controller),
    }
    if !(transfer.intact && transfer.received == transfer.sent && transfer.signals.is_some()) {
        std::process::exit(1);
    }
}
