//! `netsim-relay`: forward UDP between a client and a server on loopback through an emulated
//! path, in real time.
//!
//! ```text
//! netsim-relay --upstream 127.0.0.1:4433 --listen 127.0.0.1:4434 --config link.toml --seed 7
//! ```
//!
//! The client connects to the `--listen` address; `--config` is a netsim `LinkConfig` in TOML
//! (client -> server is `a_to_b`). On exit (`--duration` elapsed, Ctrl-C or SIGTERM) the relay
//! prints the link accounting and its own counters (`[relay]`) as TOML.
//!
//! The relay runs on a thread of its own; the main thread keeps the clock and the signals, so
//! the relay stops at `--duration` whatever its link does: a link model slower than real time
//! (a path model with thousands of nodes, say) gets [`STOP_GRACE`] to stop, after which the
//! relay prints its counters without the link accounting and exits 1.
//!
//! Exit status: 0 on a clean stop; 2 on bad input (the command line, the link file, addresses
//! the relay refuses), the message naming the flag or the config field and what is allowed; 1
//! when the relay fails while starting or running: a socket that cannot be bound (naming its
//! flag and address), every datagram of a direction failing to send, a link model that could
//! not stop in time.

use std::io::{Read, Write};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use netsim::relay::{
    Relay, RelayConfig, RelayError, RelayReport, RelayStats, RelayStatsHandle, loopback_like,
};
use netsim::units::parse_duration;
use netsim::{ConfigError, LinkAccounting, LinkConfig, real_runtime};
use serde::Serialize;
use tokio::sync::oneshot;
use tokio::time::Instant;

/// The largest `--config` file the relay reads: 1 MiB. A larger file (or an endless one such
/// as `/dev/zero` or a FIFO that keeps writing) is refused after reading one byte more.
const MAX_CONFIG_BYTES: u64 = 1 << 20;

/// The largest seed: the accounting is TOML, whose integers are signed 64-bit.
const MAX_SEED: u64 = i64::MAX as u64;

/// The longest `--duration`: 365 days (omit the flag to run until a signal).
const MAX_DURATION: Duration = Duration::from_secs(365 * 24 * 3600);

/// How long the relay may take to stop once `--duration` has elapsed or a signal has come.
const STOP_GRACE: Duration = Duration::from_secs(5);

const LIMITS: &str = "\
Limits:
  --seed        an integer in [0, 9223372036854775807] (i64::MAX: the accounting is TOML,
                whose integers are signed 64-bit)
  --duration    greater than 0 and at most 8760h (365 days), with a unit (ns, us, ms, s, min,
                h); counted from when the relay prints `listening on`
  --config      at most 1 MiB (1048576 bytes) of UTF-8 TOML; a larger or endless file
                (/dev/zero, a FIFO that keeps writing) is refused after reading one byte
                past the limit
  addresses     IP:PORT (no host names); --upstream needs a port in [1, 65535];
                --upstream-bind must be of --upstream's address family (IPv4 or IPv6) and
                defaults to that family's loopback address; --listen may be either family;
                all three must be loopback unless --allow-non-loopback is given

Stopping: at --duration, Ctrl-C (SIGINT) or SIGTERM, the relay prints the link accounting and
its own counters ([relay]: datagrams received, sent and failed to send each way) as TOML on
stdout. It stops at --duration whatever the link config: a link model that cannot finish
within 5 s of the stop (one slower than real time) is abandoned, and only the [relay] counters
are printed (exit 1).

Exit status: 0 on a clean stop; 2 on bad input (the message names the flag or config field and
what is allowed); 1 when the relay fails: a socket cannot be bound, every datagram to forward
in a direction failed to send (the accounting is printed first), or the link model did not
stop in time.";

/// Forward UDP between a client and a server through an emulated lossy / MANET path, in real
/// time.
#[derive(Debug, Parser)]
#[command(name = "netsim-relay", version, after_help = LIMITS)]
struct Args {
    /// The server's address, IP:PORT (e.g. 127.0.0.1:4433 or `[::1]:4433`; port 1-65535).
    #[arg(long, value_name = "ADDR", value_parser = parse_addr)]
    upstream: SocketAddr,
    /// Address the client sends to, IP:PORT (either address family; port 0 picks a free port).
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:0", value_parser = parse_addr)]
    listen: SocketAddr,
    /// Local address of the socket facing the server, IP:PORT, of --upstream's address family
    /// [default: 127.0.0.1:0 or `[::1]:0`, as --upstream].
    #[arg(long, value_name = "ADDR", value_parser = parse_addr)]
    upstream_bind: Option<SocketAddr>,
    /// Link configuration: a netsim LinkConfig in TOML, at most 1 MiB; the defaults apply when
    /// omitted.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Run seed, an integer in [0, 9223372036854775807].
    #[arg(long, default_value_t = 1, value_parser = parse_seed, allow_hyphen_values = true)]
    seed: u64,
    /// Stop after this long, in (0, 365 days] (e.g. "60s"); runs until Ctrl-C or SIGTERM when
    /// omitted.
    #[arg(long, value_name = "DURATION", value_parser = parse_run_duration, allow_hyphen_values = true)]
    duration: Option<Duration>,
    /// Permit non-loopback addresses.
    #[arg(long)]
    allow_non_loopback: bool,
}

/// Parses an `IP:PORT` socket address.
fn parse_addr(text: &str) -> Result<SocketAddr, String> {
    text.trim().parse().map_err(|_| {
        format!(
            "`{text}` is not an IP:PORT address such as 127.0.0.1:4433 or [::1]:4433 (port in [0, 65535]; host names are not resolved)"
        )
    })
}

/// Parses a seed in `[0, MAX_SEED]`.
fn parse_seed(text: &str) -> Result<u64, String> {
    match text.trim().parse::<u64>() {
        Ok(seed) if seed <= MAX_SEED => Ok(seed),
        Ok(_) => Err(format!(
            "{text} is out of range: a seed is an integer in [0, {MAX_SEED}] (the accounting is TOML, whose integers are signed 64-bit)"
        )),
        Err(_) => Err(format!(
            "`{text}` is not a seed: a seed is an integer in [0, {MAX_SEED}]"
        )),
    }
}

/// Parses a run duration in `(0, MAX_DURATION]`.
fn parse_run_duration(text: &str) -> Result<Duration, String> {
    const ALLOWED: &str = "a duration is greater than 0 and at most 8760h (365 days)";
    let duration = parse_duration(text).map_err(|e| format!("{e}; {ALLOWED}"))?;
    if duration.is_zero() {
        return Err(format!(
            "`{text}` is zero: {ALLOWED} (omit --duration to run until Ctrl-C or SIGTERM)"
        ));
    }
    if duration > MAX_DURATION {
        return Err(format!(
            "`{text}` is out of range: {ALLOWED} (omit --duration to run until Ctrl-C or SIGTERM)"
        ));
    }
    Ok(duration)
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
#[derive(Debug)]
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
        ConfigError::OutOfRange {
            field,
            value,
            allowed,
        } => format!(
            "{}: {value} is out of range: it must be {allowed}",
            flag(field)
        ),
        other => other.to_string(),
    }
}

/// Reads `path` as UTF-8 text, refusing it if it holds more than [`MAX_CONFIG_BYTES`]. Reads
/// at most one byte past the limit, whatever the file is (`/dev/zero`, a FIFO).
fn read_config(path: &Path) -> Result<String, Failure> {
    let name = path.display();
    let cannot = |e: std::io::Error| Failure::Input(format!("--config {name}: cannot read: {e}"));
    let file = std::fs::File::open(path).map_err(cannot)?;
    let mut bytes = Vec::new();
    file.take(MAX_CONFIG_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(cannot)?;
    if bytes.len() as u64 > MAX_CONFIG_BYTES {
        return Err(Failure::Input(format!(
            "--config {name}: the file is larger than {MAX_CONFIG_BYTES} bytes (1 MiB), the most the relay reads"
        )));
    }
    String::from_utf8(bytes).map_err(|e| {
        Failure::Input(format!(
            "--config {name}: not UTF-8 text (invalid byte at offset {})",
            e.utf8_error().valid_up_to()
        ))
    })
}

/// The link configuration from `--config`, or the defaults.
fn link_config(path: Option<&Path>) -> Result<LinkConfig, Failure> {
    let Some(path) = path else {
        return Ok(LinkConfig::default());
    };
    let text = read_config(path)?;
    let name = path.display().to_string();
    LinkConfig::from_toml_str(&text, &name).map_err(|e| {
        Failure::Input(clip(&match e {
            // The parser's message already starts with the file name.
            ConfigError::Parse { .. } => format!("--config {e}"),
            other => format!("--config {name}: {other}"),
        }))
    })
}

/// Longest line of a config error the relay prints (the TOML parser quotes the offending line,
/// which in a 1 MiB one-line file is 1 MiB long).
const MAX_MESSAGE_LINE: usize = 200;

/// `message` with each line cut to [`MAX_MESSAGE_LINE`] characters.
fn clip(message: &str) -> String {
    message
        .lines()
        .map(|line| match line.char_indices().nth(MAX_MESSAGE_LINE) {
            Some((cut, _)) => format!("{}...", &line[..cut]),
            None => line.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The relay configuration from the command line, checked.
fn relay_config(args: &Args) -> Result<RelayConfig, Failure> {
    let upstream_bind = match args.upstream_bind {
        Some(bind) if bind.is_ipv4() != args.upstream.is_ipv4() => {
            let family = |addr: SocketAddr| if addr.is_ipv4() { "IPv4" } else { "IPv6" };
            return Err(Failure::Input(format!(
                "--upstream-bind {bind} is an {} address and --upstream {} is {}: the socket facing the server must be of --upstream's address family (omit --upstream-bind for {})",
                family(bind),
                args.upstream,
                family(args.upstream),
                loopback_like(args.upstream),
            )));
        }
        Some(bind) => bind,
        None => loopback_like(args.upstream),
    };
    let config = RelayConfig {
        listen: args.listen,
        upstream: args.upstream,
        upstream_bind,
        allow_non_loopback: args.allow_non_loopback,
    };
    config
        .validate()
        .map_err(|e| Failure::Input(flag_error(&e)))?;
    Ok(config)
}

/// A start-up failure in the command line's terms.
fn start_failure(e: RelayError) -> Failure {
    match e {
        RelayError::Config(e) => Failure::Input(flag_error(&e)),
        RelayError::Bind {
            socket,
            addr,
            source,
        } => Failure::Run(format!(
            "cannot bind the {socket} socket ({} {addr}): {source}",
            flag(socket)
        )),
        other => Failure::Run(other.to_string()),
    }
}

fn run(args: Args) -> Result<(), Failure> {
    let link = link_config(args.config.as_deref())?;
    let config = relay_config(&args)?;
    let runtime =
        real_runtime().map_err(|e| Failure::Run(format!("cannot start the runtime: {e}")))?;
    runtime.block_on(supervise(config, link, args.seed, args.duration))
}

/// What the relay thread reports once it has started.
type Started = Result<(SocketAddr, RelayStatsHandle), RelayError>;

/// Runs the relay on a thread of its own (its own runtime) until `stop` fires, reporting its
/// start on `started` and its final report on `done`.
fn relay_thread(
    config: RelayConfig,
    link: LinkConfig,
    seed: u64,
    started: oneshot::Sender<Started>,
    stop: oneshot::Receiver<()>,
    done: oneshot::Sender<RelayReport>,
) {
    let runtime = match real_runtime() {
        Ok(runtime) => runtime,
        Err(e) => {
            let _ = started.send(Err(RelayError::Io(e)));
            return;
        }
    };
    runtime.block_on(async move {
        let relay = match Relay::start(config, link, seed).await {
            Ok(relay) => relay,
            Err(e) => {
                let _ = started.send(Err(e));
                return;
            }
        };
        let _ = started.send(Ok((relay.listen_addr(), relay.stats_handle())));
        // A dropped sender also means stop.
        let _ = stop.await;
        let _ = done.send(relay.finish().await);
    });
}

/// Starts the relay thread, waits for `--duration` or a signal, stops the relay and prints
/// its report. The relay's link work never runs on this thread, so neither the clock nor the
/// signals wait for it.
async fn supervise(
    config: RelayConfig,
    link: LinkConfig,
    seed: u64,
    duration: Option<Duration>,
) -> Result<(), Failure> {
    let mut signals =
        Signals::new().map_err(|e| Failure::Run(format!("cannot listen for signals: {e}")))?;
    // At most MAX_DURATION from now: no overflow.
    let deadline = duration.map(|duration| Instant::now() + duration);
    let (started_tx, mut started_rx) = oneshot::channel();
    let (stop_tx, stop_rx) = oneshot::channel();
    let (done_tx, done_rx) = oneshot::channel();
    std::thread::Builder::new()
        .name("netsim-relay".to_owned())
        .spawn(move || relay_thread(config, link, seed, started_tx, stop_rx, done_tx))
        .map_err(|e| Failure::Run(format!("cannot start the relay thread: {e}")))?;

    let started = {
        // Starting (binding two sockets, building the link) takes milliseconds; should it
        // take longer than the whole run, the run is over.
        let stop_requested = wait_for_stop(deadline, &mut signals);
        tokio::pin!(stop_requested);
        tokio::select! {
            started = &mut started_rx => Ok(started),
            reason = &mut stop_requested => Err(reason),
        }
    };
    let started = match started {
        Ok(started) => started,
        Err(reason) => {
            // Stopped while starting: the relay stops as soon as it has started.
            let _ = stop_tx.send(());
            return match tokio::time::timeout(STOP_GRACE, started_rx).await {
                Ok(Ok(Ok((_, stats)))) => finish(done_rx, Some(stats), reason).await,
                Ok(Ok(Err(e))) => Err(start_failure(e)),
                Ok(Err(_)) => Err(Failure::Run(
                    "the relay thread failed while starting".to_owned(),
                )),
                Err(_) => Err(Failure::Run(format!(
                    "the relay did not start within {} s of the stop ({reason})",
                    STOP_GRACE.as_secs()
                ))),
            };
        }
    };
    let stats = match started {
        Ok(Ok((listen, stats))) => {
            emit(&format!("listening on {listen} (seed {seed})\n"))?;
            stats
        }
        Ok(Err(e)) => return Err(start_failure(e)),
        Err(_) => {
            return Err(Failure::Run(
                "the relay thread failed while starting".to_owned(),
            ));
        }
    };
    // The run lasts `duration` from here, when the relay is listening.
    let deadline = duration.map(|duration| Instant::now() + duration);
    let reason = wait_for_stop(deadline, &mut signals).await;
    tracing::info!("stopping: {reason}");
    let _ = stop_tx.send(());
    finish(done_rx, Some(stats), reason).await
}

/// Waits up to [`STOP_GRACE`] for the relay's report and prints it; if it does not come,
/// prints the relay's counters (from `stats`) without the link accounting.
async fn finish(
    done: oneshot::Receiver<RelayReport>,
    stats: Option<RelayStatsHandle>,
    reason: &str,
) -> Result<(), Failure> {
    let counters_only = |why: String| -> Result<(), Failure> {
        let stats = stats.as_ref().map(RelayStatsHandle::snapshot);
        if let Some(stats) = &stats {
            print_report(None, stats)?;
        }
        Err(Failure::Run(why))
    };
    match tokio::time::timeout(STOP_GRACE, done).await {
        Ok(Ok(report)) => {
            print_report(Some(&report.accounting), &report.stats)?;
            check_report(&report)
        }
        Ok(Err(_)) => counters_only(
            "the relay thread failed while stopping: the link accounting is lost (the relay's counters are above)"
                .to_owned(),
        ),
        Err(_) => counters_only(format!(
            "the link model did not stop within {} s of the stop ({reason}): it runs slower than real time (a path model with many nodes or a short step, say), so its accounting is not available; the relay's counters are above",
            STOP_GRACE.as_secs()
        )),
    }
}

/// A run that carried nothing because every send failed is a failure; so is a failed task.
fn check_report(report: &RelayReport) -> Result<(), Failure> {
    if let Some(error) = &report.task_error {
        return Err(Failure::Run(format!(
            "the forwarding task failed: {error} (the accounting above covers the run until then)"
        )));
    }
    let stats = &report.stats;
    let first = stats.first_send_error.as_deref().unwrap_or("unknown error");
    if let Some(to) = stats.every_send_failed() {
        let failed = if to == "server" {
            stats.to_server_send_errors
        } else {
            stats.to_client_send_errors
        };
        return Err(Failure::Run(format!(
            "every datagram to forward to the {to} failed to send ({failed} of {failed}; first: {first})"
        )));
    }
    let failed = stats.to_server_send_errors + stats.to_client_send_errors;
    if failed > 0 {
        tracing::warn!(
            failed,
            first,
            "some datagrams could not be forwarded (to_server_send_errors, to_client_send_errors above)"
        );
    }
    Ok(())
}

/// The printed report: the link's accounting (when available) and the relay's counters.
#[derive(Serialize)]
struct Printed<'a> {
    #[serde(flatten)]
    accounting: Option<&'a LinkAccounting>,
    relay: &'a RelayStats,
}

/// Prints the report as TOML; should that fail, in Rust's debug format, so the accounting is
/// never lost.
fn print_report(accounting: Option<&LinkAccounting>, stats: &RelayStats) -> Result<(), Failure> {
    let printed = Printed {
        accounting,
        relay: stats,
    };
    match toml::to_string(&printed) {
        Ok(text) => emit(&format!("{text}\n")),
        Err(e) => {
            emit(&format!("{accounting:#?}\n{stats:#?}\n"))?;
            Err(Failure::Run(format!(
                "cannot write the accounting as TOML ({e}); it is printed above in debug form"
            )))
        }
    }
}

/// Writes `text` to stdout and flushes it; a closed stdout is an error, not a panic.
fn emit(text: &str) -> Result<(), Failure> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .map_err(|e| Failure::Run(format!("cannot write to stdout: {e}")))
}

/// Resolves when the run should stop: at `deadline`, or on a signal.
async fn wait_for_stop(deadline: Option<Instant>, signals: &mut Signals) -> &'static str {
    match deadline {
        Some(deadline) => tokio::select! {
            () = tokio::time::sleep_until(deadline) => "--duration elapsed",
            signal = signals.recv() => signal,
        },
        None => signals.recv().await,
    }
}

/// The signals that stop the relay: SIGINT (Ctrl-C) and SIGTERM.
#[cfg(unix)]
struct Signals {
    interrupt: tokio::signal::unix::Signal,
    terminate: tokio::signal::unix::Signal,
}

#[cfg(unix)]
impl Signals {
    fn new() -> std::io::Result<Self> {
        use tokio::signal::unix::{SignalKind, signal};
        Ok(Self {
            interrupt: signal(SignalKind::interrupt())?,
            terminate: signal(SignalKind::terminate())?,
        })
    }

    /// The next signal's name.
    async fn recv(&mut self) -> &'static str {
        // `None`: the signal stream is closed (the runtime is shutting down); wait on the other.
        let interrupt = async {
            match self.interrupt.recv().await {
                Some(()) => "SIGINT",
                None => std::future::pending().await,
            }
        };
        let terminate = async {
            match self.terminate.recv().await {
                Some(()) => "SIGTERM",
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            signal = interrupt => signal,
            signal = terminate => signal,
        }
    }
}

/// The signal that stops the relay: Ctrl-C.
#[cfg(not(unix))]
struct Signals;

#[cfg(not(unix))]
impl Signals {
    fn new() -> std::io::Result<Self> {
        Ok(Self)
    }

    /// The next signal's name.
    async fn recv(&mut self) -> &'static str {
        match tokio::signal::ctrl_c().await {
            Ok(()) => "Ctrl-C",
            Err(_) => std::future::pending().await,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_are_refused_above_i64_max_with_the_range() {
        assert_eq!(parse_seed("0"), Ok(0));
        assert_eq!(parse_seed("9223372036854775807"), Ok(MAX_SEED));
        for bad in ["9223372036854775808", "18446744073709551615", "-1", "x", ""] {
            let e = parse_seed(bad).unwrap_err();
            assert!(e.contains("[0, 9223372036854775807]"), "{bad}: {e}");
        }
    }

    #[test]
    fn run_durations_are_positive_and_bounded() {
        assert_eq!(parse_run_duration("1s"), Ok(Duration::from_secs(1)));
        assert_eq!(parse_run_duration("8760h"), Ok(MAX_DURATION));
        for bad in ["0s", "0", "-1s", "8761h", "1e30s", "5", "soon"] {
            let e = parse_run_duration(bad).unwrap_err();
            assert!(e.contains("at most 8760h"), "{bad}: {e}");
        }
    }

    #[test]
    fn the_report_is_toml_even_at_the_largest_seed() {
        let accounting = LinkAccounting {
            seed: MAX_SEED,
            ..LinkAccounting::default()
        };
        let stats = RelayStats::default();
        let text = toml::to_string(&Printed {
            accounting: Some(&accounting),
            relay: &stats,
        })
        .unwrap();
        assert!(text.contains("seed = 9223372036854775807"), "{text}");
        assert!(text.contains("[relay]"), "{text}");
        let text = toml::to_string(&Printed {
            accounting: None,
            relay: &stats,
        })
        .unwrap();
        assert!(text.starts_with("[relay]"), "{text}");
    }
}
