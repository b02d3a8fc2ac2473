//! A bulk transfer over real UDP sockets with one of the ports (or, to compare with, the
//! stack's own NewReno, Cubic or BBR) as the sender's congestion controller, on quinn or on
//! noq (iroh's QUIC).
//!
//! ```sh
//! cargo run --release -p cc-ports --example bulk -- server                     # 127.0.0.1:4433
//! cargo run --release -p cc-ports --example bulk -- client --controller petra  # 10 MB
//! cargo run --release -p cc-ports --example bulk -- loopback --controller ub   # both, one process
//! cargo run --release -p cc-ports --features noq --example bulk -- loopback --stack noq
//! ```
//!
//! The server makes a self-signed certificate for `localhost` and writes it to `--cert`
//! (default `bulk-cert.der`; a new file, never another server's, removed on Ctrl-C), which the
//! client trusts. The client sends `--bytes` on one stream
//! and prints the goodput and, for a port, its loss signals. Client and server may run different
//! stacks (`--stack` on each): quinn and noq speak the same QUIC. Put `netsim-relay` between
//! them to watch a port on an emulated MANET path in real time (netsim/README.md).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use cc_core::{PortConfig, PortController, SignalStats};
use cc_ports::PortVisitor;
use clap::{Parser, Subcommand, ValueEnum};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};

type Error = Box<dyn std::error::Error + Send + Sync>;

#[derive(Parser)]
#[command(about = "A bulk QUIC transfer over UDP with one of the ports as the sender's controller")]
struct Args {
    /// The QUIC stack: quinn, or noq (needs the crate's `noq` feature).
    #[arg(long, value_enum, default_value_t = Stack::Quinn, global = true)]
    stack: Stack,
    #[command(subcommand)]
    role: Role,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Stack {
    Quinn,
    Noq,
}

impl Stack {
    fn name(self) -> &'static str {
        match self {
            Self::Quinn => "quinn",
            Self::Noq => "noq",
        }
    }
}

#[derive(Subcommand)]
enum Role {
    /// Accept connections and read each stream to its end.
    Server {
        /// The address to listen on (port 0: one the system picks, printed).
        #[arg(long, default_value = "127.0.0.1:4433")]
        listen: SocketAddr,
        /// Where to write the self-signed certificate for the client: a new file (an existing
        /// one, perhaps another server's, is never overwritten), removed when the server stops
        /// on Ctrl-C.
        #[arg(long, default_value = "bulk-cert.der")]
        cert: PathBuf,
    },
    /// Send `--bytes` to the server with `--controller`.
    Client {
        #[arg(long, default_value = "127.0.0.1:4433")]
        connect: SocketAddr,
        #[arg(long, default_value = "bulk-cert.der")]
        cert: PathBuf,
        #[command(flatten)]
        send: Sending,
    },
    /// A server and a client in one process, on loopback.
    Loopback {
        #[command(flatten)]
        send: Sending,
    },
}

#[derive(clap::Args)]
struct Sending {
    /// The sender's controller: a port (karak, petra, ub, sackfew, abra, manet, fixed) or the
    /// stack's own (newreno, cubic, and bbr on quinn or bbr3 on noq), to compare with.
    #[arg(long, default_value = "karak")]
    controller: String,
    /// Bytes to send (1 to 10^12).
    #[arg(long, default_value_t = 10_000_000,
          value_parser = clap::value_parser!(u64).range(1..=1_000_000_000_000))]
    bytes: u64,
    /// Stop writing after this long (e.g. 30s), then finish the stream, even if fewer than
    /// `--bytes` were written.
    #[arg(long, value_parser = parse_interval)]
    duration: Option<Duration>,
    /// The sender's send window, bytes: how far writes may run ahead of acknowledgements
    /// (default: the stack's, about 10 MB). A small one (e.g. 262144) keeps a `--duration` run
    /// from queueing minutes of data on a slow path.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1200..))]
    send_window: Option<u64>,
    /// Print the sender's progress every this long (e.g. 1s): elapsed, UDP bytes sent and their
    /// rate in the interval, the controller's window, the RTT and packets lost. Off by default.
    #[arg(long, value_parser = parse_interval)]
    every: Option<Duration>,
}

/// A positive duration like `500ms`, `1s` or `2.5s`.
fn parse_interval(text: &str) -> Result<Duration, String> {
    let (number, scale) = if let Some(ms) = text.strip_suffix("ms") {
        (ms, 1e-3)
    } else if let Some(s) = text.strip_suffix('s') {
        (s, 1.0)
    } else {
        return Err(format!(
            "`{text}`: a duration ends in ms or s, e.g. 500ms or 1s"
        ));
    };
    match number.parse::<f64>() {
        Ok(v) if v.is_finite() && v * scale >= 0.01 && v * scale <= 3600.0 => {
            Ok(Duration::from_secs_f64(v * scale))
        }
        _ => Err(format!(
            "`{text}`: the interval must be between 10ms and 3600s"
        )),
    }
}

/// What the sender prints every `--every`.
struct Progress {
    udp_bytes: u64,
    cwnd: u64,
    rtt: Duration,
    lost: u64,
}

/// Prints one progress line: `interval_bytes` of UDP payload left in the last `interval`.
fn print_progress(start: Instant, interval_bytes: u64, interval: Duration, p: &Progress) {
    println!(
        "{:7.1} s  {:>10} UDP bytes sent  {:6.2} Mb/s  cwnd {:>7} B  rtt {:>6.1} ms  lost {}",
        start.elapsed().as_secs_f64(),
        p.udp_bytes,
        interval_bytes as f64 * 8.0 / interval.as_secs_f64() / 1e6,
        p.cwnd,
        p.rtt.as_secs_f64() * 1e3,
        p.lost,
    );
}

fn main() {
    let args = Args::parse();
    // Bad input exits 2, as clap's own errors do; a failed transfer exits 1.
    if let Role::Client { send, .. } | Role::Loopback { send } = &args.role {
        let mut names = cc_ports::port_names();
        names.extend(match args.stack {
            Stack::Quinn => ["newreno", "cubic", "bbr"],
            Stack::Noq => ["newreno", "cubic", "bbr3"],
        });
        if !names.contains(&send.controller.as_str()) {
            eprintln!(
                "error: --controller {}: not a controller of {} (one of {})",
                send.controller,
                args.stack.name(),
                names.join(", ")
            );
            std::process::exit(2);
        }
    }
    if args.stack == Stack::Noq && cfg!(not(feature = "noq")) {
        eprintln!(
            "error: --stack noq: this example was built without the `noq` feature (add --features noq)"
        );
        std::process::exit(2);
    }
    if let Err(e) = run(args) {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

#[tokio::main(flavor = "current_thread")]
async fn run(args: Args) -> Result<(), Error> {
    match args.stack {
        Stack::Quinn => on_quinn::run(args.role).await,
        #[cfg(feature = "noq")]
        Stack::Noq => on_noq::run(args.role).await,
        #[cfg(not(feature = "noq"))]
        Stack::Noq => Err("built without the `noq` feature".into()),
    }
}

/// A fresh self-signed certificate for `localhost` and a TLS 1.3 server config with it.
fn server_tls() -> Result<(rustls::ServerConfig, CertificateDer<'static>), Error> {
    let cert = rcgen::generate_simple_self_signed(vec!["localhost".into()])?;
    let der = cert.cert.der().clone();
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(cert.key_pair.serialize_der()));
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let tls = rustls::ServerConfig::builder_with_provider(provider)
        .with_protocol_versions(&[&rustls::version::TLS13])?
        .with_no_client_auth()
        .with_single_cert(vec![der.clone()], key)?;
    Ok((tls, der))
}

/// Writes `bytes` to a new file at `path`: an existing file is another server's certificate, or
/// something else, and is left alone.
fn write_new(path: &std::path::Path, bytes: &[u8]) -> Result<(), Error> {
    use std::io::Write;
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::AlreadyExists => format!(
                "--cert {} exists (another server's certificate?): give another --cert, or \
                 remove it if no server uses it",
                path.display()
            ),
            _ => format!("cannot create the certificate {}: {e}", path.display()),
        })?;
    file.write_all(bytes)
        .map_err(|e| format!("cannot write the certificate {}: {e}", path.display()))?;
    Ok(())
}

/// A TLS 1.3 client config that trusts `cert` only.
fn client_tls(cert: CertificateDer<'static>) -> Result<rustls::ClientConfig, Error> {
    let mut roots = rustls::RootCertStore::empty();
    roots.add(cert)?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    Ok(rustls::ClientConfig::builder_with_provider(provider)
        .with_protocol_versions(&[&rustls::version::TLS13])?
        .with_root_certificates(roots)
        .with_no_client_auth())
}

/// Prints the sender's figures.
fn report(controller: &str, sent: u64, seconds: f64, lost: u64, events: u64) {
    println!(
        "{controller}: {sent} bytes in {seconds:.3} s, {:.1} Mb/s; {lost} packets lost, {events} congestion events",
        sent as f64 * 8.0 / seconds / 1e6,
    );
}

/// One stack's server, receiver and sender. quinn and noq have the same endpoint, connection
/// and stream API (noq is a fork of quinn), so both are declared once; what differs is passed
/// in: how to find a port's factory, how to read a running controller back, and where the
/// statistics live.
macro_rules! stack {
    (
        module: $module:ident,
        stack: $q:ident,
        factory: $factory:path,
        from_controller: $from:ident,
        congestion_state: |$cs_conn:ident| $congestion_state:expr,
        lost_and_events: |$st_conn:ident| $lost_and_events:expr,
        progress: |$pr_conn:ident| $progress:expr
    ) => {
        mod $module {
            use super::*;
            use $q::crypto::rustls::{QuicClientConfig, QuicServerConfig};
            use $q::{ClientConfig, Endpoint, ServerConfig, TransportConfig};

            pub async fn run(role: Role) -> Result<(), Error> {
                match role {
                    Role::Server { listen, cert } => {
                        let (server, der) = server(listen)?;
                        write_new(&cert, &der)?;
                        println!(
                            "listening on {}; certificate in {}",
                            server.local_addr()?,
                            cert.display()
                        );
                        loop {
                            let incoming = tokio::select! {
                                incoming = server.accept() => incoming,
                                _ = tokio::signal::ctrl_c() => None,
                            };
                            let Some(incoming) = incoming else {
                                std::fs::remove_file(&cert).map_err(|e| {
                                    format!("cannot remove {}: {e}", cert.display())
                                })?;
                                return Ok(());
                            };
                            tokio::spawn(async move {
                                match receive(incoming).await {
                                    Ok(bytes) => println!("received {bytes} bytes"),
                                    Err(e) => eprintln!("connection failed: {e}"),
                                }
                            });
                        }
                    }
                    Role::Client {
                        connect,
                        cert,
                        send: s,
                    } => {
                        let der = std::fs::read(&cert).map_err(|e| {
                            format!(
                                "cannot read the server's certificate {}: {e}",
                                cert.display()
                            )
                        })?;
                        send(connect, CertificateDer::from(der), &s).await.map(drop)
                    }
                    Role::Loopback { send: s } => {
                        let (server, der) = server("127.0.0.1:0".parse()?)?;
                        let addr = server.local_addr()?;
                        let receiver = tokio::spawn(async move {
                            let incoming = server.accept().await.ok_or("server closed")?;
                            receive(incoming).await
                        });
                        // With --duration the client may stop early: what it sent must arrive.
                        let sent = send(addr, der, &s).await?;
                        let received = receiver.await??;
                        if received != sent {
                            return Err(format!(
                                "the server read {received} of the {sent} bytes sent"
                            )
                            .into());
                        }
                        Ok(())
                    }
                }
            }

            /// A server endpoint on `listen` with a fresh self-signed certificate.
            fn server(listen: SocketAddr) -> Result<(Endpoint, CertificateDer<'static>), Error> {
                let (tls, der) = server_tls()?;
                let config = ServerConfig::with_crypto(Arc::new(QuicServerConfig::try_from(tls)?));
                Ok((Endpoint::server(config, listen)?, der))
            }

            /// Reads the connection's one stream to its end: the byte count.
            async fn receive(incoming: $q::Incoming) -> Result<u64, Error> {
                let connection = incoming.await?;
                let mut stream = connection.accept_uni().await?;
                let mut buf = vec![0u8; 64 * 1024];
                let mut total = 0u64;
                while let Some(n) = stream.read(&mut buf).await? {
                    total += n as u64;
                }
                connection.close(0u32.into(), b"done");
                Ok(total)
            }

            /// Sends `s.bytes` to `server` with the controller `s.controller` (fewer if `s.duration`
            /// ends first), then prints what happened; returns the bytes sent.
            async fn send(
                server: SocketAddr,
                cert: CertificateDer<'static>,
                s: &Sending,
            ) -> Result<u64, Error> {
                let factory = $factory(&s.controller)
                    .ok_or_else(|| format!("--controller {}: not a controller", s.controller))?;
                let mut transport = TransportConfig::default();
                transport.congestion_controller_factory(factory);
                if let Some(window) = s.send_window {
                    transport.send_window(window);
                }
                let mut config =
                    ClientConfig::new(Arc::new(QuicClientConfig::try_from(client_tls(cert)?)?));
                config.transport_config(Arc::new(transport));
                let bind: SocketAddr = if server.is_ipv6() {
                    "[::]:0"
                } else {
                    "0.0.0.0:0"
                }
                .parse()?;
                // quinn's setter takes `&mut self`, noq's `&self`.
                #[allow(unused_mut)]
                let mut client = Endpoint::client(bind)?;
                client.set_default_client_config(config);

                let start = Instant::now();
                let connection = client.connect(server, "localhost")?.await?;
                let mut stream = connection.open_uni().await?;
                let reporter = s.every.map(|every| {
                    let connection = connection.clone();
                    tokio::spawn(async move {
                        let mut last = 0u64;
                        loop {
                            tokio::time::sleep(every).await;
                            let progress = {
                                let $pr_conn = &connection;
                                $progress
                            };
                            let interval = progress.udp_bytes.saturating_sub(last);
                            print_progress(start, interval, every, &progress);
                            last = progress.udp_bytes;
                        }
                    })
                });
                let chunk = vec![0x5a; 64 * 1024];
                let mut sent = 0u64;
                let deadline = s.duration.map(|d| start + d);
                while sent < s.bytes && deadline.is_none_or(|d| Instant::now() < d) {
                    let n = chunk.len().min((s.bytes - sent) as usize);
                    // `write` is cancel-safe (it wrote its count or nothing), so a write
                    // blocked by flow control or a down route can end at the deadline.
                    let write = stream.write(&chunk[..n]);
                    let written = match deadline {
                        Some(d) => {
                            let left = d.saturating_duration_since(Instant::now());
                            match tokio::time::timeout(left, write).await {
                                Ok(done) => done?,
                                Err(_) => break,
                            }
                        }
                        None => write.await?,
                    };
                    sent += written as u64;
                }
                stream.finish()?;
                stream.stopped().await?;
                if let Some(reporter) = reporter {
                    reporter.abort();
                }
                let seconds = start.elapsed().as_secs_f64();
                let (lost, events) = {
                    let $st_conn = &connection;
                    $lost_and_events
                };
                report(&s.controller, sent, seconds, lost, events);
                let state = {
                    let $cs_conn = &connection;
                    $congestion_state
                };
                if let Some(signals) = state.and_then(signal_stats) {
                    println!("loss signals: {signals:?}");
                }
                connection.close(0u32.into(), b"done");
                client.wait_idle().await;
                Ok(sent)
            }

            /// The port's loss-signal counts, whichever port the controller runs.
            fn signal_stats(
                controller: Box<dyn $q::congestion::Controller>,
            ) -> Option<SignalStats> {
                struct Find {
                    controller: Box<dyn $q::congestion::Controller>,
                    found: Option<SignalStats>,
                }
                impl PortVisitor for Find {
                    fn visit<C: PortConfig>(&mut self) {
                        if self.found.is_none() {
                            let copy = self.controller.clone_box();
                            self.found = PortController::<C::Algorithm>::$from(copy)
                                .map(|c| c.signal_stats());
                        }
                    }
                }
                let mut find = Find {
                    controller,
                    found: None,
                };
                cc_ports::visit_ports(&mut find);
                find.found
            }
        }
    };
}

stack! {
    module: on_quinn,
    stack: quinn,
    factory: cc_ports::factory,
    from_controller: from_controller,
    congestion_state: |c| Some(c.congestion_state()),
    lost_and_events: |c| {
        let stats = c.stats();
        (stats.path.lost_packets, stats.path.congestion_events)
    },
    progress: |c| {
        let stats = c.stats();
        Progress {
            udp_bytes: stats.udp_tx.bytes,
            cwnd: stats.path.cwnd,
            rtt: stats.path.rtt,
            lost: stats.path.lost_packets,
        }
    }
}

#[cfg(feature = "noq")]
stack! {
    module: on_noq,
    stack: noq,
    factory: cc_ports::noq::factory,
    from_controller: from_noq_controller,
    congestion_state: |c| c.congestion_state(noq::PathId::ZERO),
    lost_and_events: |c| {
        let events = c
            .path_stats(noq::PathId::ZERO)
            .map_or(0, |p| p.congestion_events);
        (c.stats().lost_packets, events)
    },
    progress: |c| {
        let path = c.path_stats(noq::PathId::ZERO);
        Progress {
            udp_bytes: c.stats().udp_tx.bytes,
            cwnd: path.as_ref().map_or(0, |p| p.cwnd),
            rtt: path.as_ref().map_or(Duration::ZERO, |p| p.rtt),
            lost: c.stats().lost_packets,
        }
    }
}
