//! `netsim-relay`: forward UDP between a client and a server on loopback through an emulated
//! path, in real time.
//!
//! ```text
//! netsim-relay --upstream 127.0.0.1:4433 --listen 127.0.0.1:4434 --config link.toml --seed 7
//! ```
//!
//! The client connects to the `--listen` address; `--config` is a netsim `LinkConfig` in TOML
//! (client -> server is `a_to_b`). On exit (Ctrl-C or `--duration`) the relay prints the link
//! accounting as TOML.
//!
//! Exit status: 0 on a clean stop; 2 on bad input (the command line, the link file, addresses
//! the relay refuses: a non-loopback address without `--allow-non-loopback`, `--listen` or
//! `--upstream-bind` equal to `--upstream`), the message naming the flag; 1 when the relay
//! fails while starting or running (a socket that cannot be bound names its flag and address).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use netsim::ConfigError;
use netsim::relay::{Relay, RelayConfig, RelayError};
use netsim::units::parse_duration;
use netsim::{LinkConfig, real_runtime};

/// Forward UDP between a client and a server on loopback through an emulated lossy / MANET path.
#[derive(Debug, Parser)]
#[command(name = "netsim-relay", version)]
struct Args {
    /// The server's address.
    #[arg(long)]
    upstream: SocketAddr,
    /// Address the client sends to.
    #[arg(long, default_value = "127.0.0.1:0")]
    listen: SocketAddr,
    /// Local address of the socket facing the server.
    #[arg(long, default_value = "127.0.0.1:0")]
    upstream_bind: SocketAddr,
    /// Link configuration (TOML); the defaults apply when omitted.
    #[arg(long)]
    config: Option<PathBuf>,
    /// Run seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Stop after this long (e.g. "60s"); runs until Ctrl-C when omitted.
    #[arg(long, value_parser = parse_duration)]
    duration: Option<Duration>,
    /// Permit non-loopback addresses.
    #[arg(long)]
    allow_non_loopback: bool,
}

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .with_writer(std::io::stderr)
        // Colour codes only for a terminal: a log redirected to a file stays plain text.
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
    let args = Args::parse();
    match run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Input(message)) => {
            // Bad input exits 2, as clap does for a malformed command line.
            eprintln!("netsim-relay: {message}");
            ExitCode::from(2)
        }
        Err(Failure::Run(message)) => {
            eprintln!("netsim-relay: {message}");
            ExitCode::FAILURE
        }
    }
}

/// Why the relay stopped: bad input (exit 2) or a failure while running (exit 1).
enum Failure {
    Input(String),
    Run(String),
}

/// The command-line flag that sets a [`RelayConfig`] field.
fn flag(field: &str) -> String {
    format!("--{}", field.replace('_', "-"))
}

/// A relay configuration error in the command line's terms: the flag, not the field.
fn flag_error(e: &ConfigError) -> String {
    match e {
        ConfigError::Invalid { field, reason } => format!(
            "{}: {}",
            flag(field),
            reason.replace("allow_non_loopback", "--allow-non-loopback")
        ),
        other => other.to_string(),
    }
}

fn run(args: Args) -> Result<(), Failure> {
    let link = match &args.config {
        Some(path) => {
            let name = path.display().to_string();
            let text = std::fs::read_to_string(path)
                .map_err(|e| Failure::Input(format!("--config {name}: cannot read: {e}")))?;
            LinkConfig::from_toml_str(&text, &name).map_err(|e| Failure::Input(e.to_string()))?
        }
        None => LinkConfig::default(),
    };
    let config = RelayConfig {
        listen: args.listen,
        upstream: args.upstream,
        upstream_bind: args.upstream_bind,
        allow_non_loopback: args.allow_non_loopback,
    };
    config
        .validate()
        .map_err(|e| Failure::Input(flag_error(&e)))?;
    let runtime =
        real_runtime().map_err(|e| Failure::Run(format!("cannot start the runtime: {e}")))?;
    runtime.block_on(async {
        let relay = Relay::start(config, link, args.seed)
            .await
            .map_err(|e| match e {
                RelayError::Config(e) => Failure::Input(e.to_string()),
                RelayError::Bind {
                    socket,
                    addr,
                    source,
                } => Failure::Run(format!(
                    "cannot bind the {socket} socket ({} {addr}): {source}",
                    flag(socket)
                )),
                other => Failure::Run(other.to_string()),
            })?;
        println!("listening on {} (seed {})", relay.listen_addr(), args.seed);
        match args.duration {
            Some(duration) => tokio::time::sleep(duration).await,
            None => {
                tokio::signal::ctrl_c()
                    .await
                    .map_err(|e| Failure::Run(format!("cannot wait for Ctrl-C: {e}")))?;
            }
        }
        let accounting = relay
            .shutdown()
            .await
            .map_err(|e| Failure::Run(e.to_string()))?;
        let report = toml::to_string(&accounting).map_err(|e| Failure::Run(e.to_string()))?;
        println!("{report}");
        Ok(())
    })
}
