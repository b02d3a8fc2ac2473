//! Real-time comparison of quiche's Reno / CUBIC / BBR2 with quinn's NewReno / Cubic / BBR and
//! the five ports on one emulated path (default: PETRA Table 4.2 row 1), as a markdown table.
//!
//! ```text
//! cargo run -p quiche-peer --features quiche --release --bin compare -- --duration 20s
//! ```

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use clap::Parser;
use netsim::{DirectionConfig, ErrorModelConfig, LinkConfig, QueueLimit, Rate};
use quiche_peer::{Amount, PeerConfig, QuicheCc, TransferReport, TransferSpec};
use quinn::TransportConfig;

/// Every controller the runner knows, in table order: quiche's, quinn's, the ports.
fn all() -> Vec<String> {
    let quiche = QuicheCc::ALL.iter().map(|cc| cc.name().to_owned());
    let quinn = cc_ports::QuinnBaseline::ALL
        .iter()
        .map(|b| format!("quinn-{}", b.name()));
    let ports = cc_ports::port_names().into_iter().map(str::to_owned);
    quiche.chain(quinn).chain(ports).collect()
}

/// Compare quiche's controllers with quinn's and the ports over one netsim path, in real time.
///
/// The default path is PETRA Table 4.2 row 1 as the harness preset `petra-table-4.2` adapts
/// it: 2 Mb/s both ways, 45.01 ms one way, PER 0.005 on the data direction only, a 100-packet
/// drop-tail queue.
#[derive(Debug, Parser)]
#[command(name = "compare")]
struct Args {
    /// Length of each run (real time), e.g. 20s.
    #[arg(long, default_value = "20s", value_parser = parse_duration)]
    duration: Duration,
    /// Run seeds; each controller runs once per seed.
    #[arg(long, value_delimiter = ',', default_value = "1")]
    seeds: Vec<u64>,
    /// Controllers, comma-separated (default: all).
    #[arg(long, value_delimiter = ',')]
    controllers: Vec<String>,
    /// Receiver stack: `native` (quiche senders to quiche, quinn senders to quinn), `quiche`
    /// or `quinn`.
    #[arg(long, default_value = "native")]
    receiver: String,
    /// Bottleneck rate, Mb/s (both directions).
    #[arg(long, default_value_t = 2.0)]
    rate_mbps: f64,
    /// One-way propagation delay, e.g. 45010us.
    #[arg(long, default_value = "45010us", value_parser = parse_duration)]
    delay: Duration,
    /// Packet error rate on the data direction.
    #[arg(long, default_value_t = 0.005)]
    per: f64,
    /// Drop-tail queue, packets.
    #[arg(long, default_value_t = 100)]
    queue: u64,
}

fn parse_duration(text: &str) -> Result<Duration, String> {
    netsim::units::parse_duration(text)
}

fn link(args: &Args) -> Result<LinkConfig, String> {
    if !(args.rate_mbps.is_finite() && args.rate_mbps > 0.0) {
        return Err(format!("--rate-mbps {}: must be positive", args.rate_mbps));
    }
    let rate = Rate::from_bps((args.rate_mbps * 1e6).round() as u64);
    let reverse = DirectionConfig {
        rate,
        delay: args.delay,
        queue: QueueLimit::Packets(args.queue),
        ..DirectionConfig::default()
    };
    let forward = DirectionConfig {
        errors: vec![ErrorModelConfig::Per { p: args.per }],
        ..reverse.clone()
    };
    Ok(LinkConfig {
        a_to_b: forward,
        b_to_a: reverse,
        ..LinkConfig::default()
    })
}

/// The sender for `name`.
fn sender(name: &str) -> Result<PeerConfig, String> {
    if name.starts_with("quiche-") {
        return name
            .parse::<QuicheCc>()
            .map(PeerConfig::Quiche)
            .map_err(|e| e.to_string());
    }
    let factory = cc_ports::factory(name).ok_or_else(|| {
        format!(
            "unknown controller `{name}`: expected one of {}",
            all().join(", ")
        )
    })?;
    let mut transport = TransportConfig::default();
    transport.congestion_controller_factory(factory);
    Ok(PeerConfig::quinn(name, Arc::new(transport)))
}

fn receiver(choice: &str, sender: &PeerConfig) -> Result<PeerConfig, String> {
    Ok(match (choice, sender) {
        ("native", PeerConfig::Quiche(cc)) => PeerConfig::Quiche(*cc),
        ("native", PeerConfig::Quinn { .. }) | ("quinn", _) => PeerConfig::quinn_default(),
        ("quiche", _) => PeerConfig::Quiche(QuicheCc::Cubic),
        _ => {
            return Err(format!(
                "--receiver {choice}: expected native, quiche or quinn"
            ));
        }
    })
}

fn ms(d: Option<Duration>) -> String {
    d.map_or_else(
        || "-".to_owned(),
        |d| format!("{:.1}", d.as_secs_f64() * 1e3),
    )
}

fn row(report: &TransferReport) -> String {
    let s = &report.sender_stats;
    let data = &report.accounting.a_to_b;
    let capacity_bps = if data.elapsed_seconds > 0.0 {
        data.capacity_bytes * 8.0 / data.elapsed_seconds
    } else {
        0.0
    };
    let utilization = if capacity_bps > 0.0 {
        format!("{:.0}%", 100.0 * report.goodput_bps / capacity_bps)
    } else {
        "-".to_owned()
    };
    format!(
        "| {} | {} -> {} | {} | {:.3} | {:.3} | {} | {:.2} | {} | {} | {} | {} | {} | {} | {} | {} |",
        report.sender_controller,
        report.sender,
        report.receiver,
        report.seed,
        report.goodput_bps / 1e6,
        report.throughput_bps / 1e6,
        utilization,
        report.bytes_delivered as f64 / 1e6,
        s.packets_sent,
        s.packets_lost,
        s.packets_retransmitted
            .map_or_else(|| "-".to_owned(), |v| v.to_string()),
        data.dropped.error.datagrams,
        data.dropped.queue.datagrams,
        ms(s.rtt_p50),
        ms(s.rtt_p95),
        ms(s.min_rtt),
    )
}

fn run(args: &Args) -> Result<(), String> {
    let link = link(args)?;
    link.validate().map_err(|e| e.to_string())?;
    let names: Vec<String> = if args.controllers.is_empty() {
        all()
    } else {
        args.controllers.clone()
    };
    let specs = names
        .iter()
        .map(|name| {
            let sender = sender(name)?;
            let receiver = receiver(&args.receiver, &sender)?;
            Ok((name, sender, receiver))
        })
        .collect::<Result<Vec<_>, String>>()?;
    let command: Vec<String> = std::env::args().skip(1).collect();
    println!(
        "command: cargo run -p quiche-peer --features quiche --release --bin compare -- {}",
        command.join(" ")
    );
    println!(
        "path: {} Mb/s both ways, {:?} one way, PER {} a->b, {}-packet queue; {:?} per run, real time\n",
        args.rate_mbps, args.delay, args.per, args.queue, args.duration
    );
    println!(
        "| controller | stacks | seed | goodput Mb/s | throughput Mb/s | utilization | delivered MB | packets sent | packets lost | retransmitted | error drops | queue drops | sRTT p50 ms | sRTT p95 ms | min RTT ms |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    let mut failed = 0;
    for (name, sender, receiver) in &specs {
        for &seed in &args.seeds {
            let spec = TransferSpec::new(
                link.clone(),
                seed,
                sender.clone(),
                receiver.clone(),
                Amount::Duration(args.duration),
            );
            match spec.run_blocking() {
                Ok(report) => println!("{}", row(&report)),
                Err(e) => {
                    failed += 1;
                    println!("| {name} | failed: {e} |");
                }
            }
        }
    }
    println!(
        "\nutilization = goodput / the data direction's capacity after errors (netsim accounting). \
         error / queue drops: data-direction datagrams the link dropped (netsim accounting). \
         retransmitted: quiche's packets carrying retransmitted data (quinn 0.11 has no such counter). \
         sRTT: the sender's smoothed RTT sampled every 10 ms."
    );
    if failed > 0 {
        return Err(format!("{failed} run(s) failed"));
    }
    Ok(())
}

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .with_writer(std::io::stderr)
        // Colour codes only for a terminal: a log redirected to a file stays plain text.
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
    let args = Args::parse();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
