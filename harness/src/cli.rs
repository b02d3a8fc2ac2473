//! The command line: `run`, `sweep`, `merge`, `calibrate`, `presets`, `controllers`.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::{Args, Parser, Subcommand, ValueEnum};
use toml::Value;

use crate::error::{HarnessError, Result};
use crate::metrics::RunResult;
use crate::report::{self, ReportMeta};
use crate::scenario::{self, Override, Source};
use crate::spec::RunOptions;
use crate::sweep::{self, Shard};
use crate::{controllers, presets, tomldoc};

const ABOUT: &str =
    "Emulation harness for MANET-aware QUIC congestion controllers (quinn 0.11 over netsim).";

const LONG_ABOUT: &str = "Emulation harness for MANET-aware QUIC congestion controllers (quinn 0.11 over netsim).

Runs bulk transfers over an emulated lossy / MANET path for the workspace's ports (karak, petra, ub, sackfew, abra) and quinn's NewReno, Cubic and BBR, seeded and in virtual time (faster than real time, reproducible), and reports goodput, throughput, losses, loss-signal classes, RTT, time in slow start, fairness and utilization (goodput over netsim's physical limit).

`harness run` with no arguments runs the demo: a MANET path (random waypoint at 20 m/s, BER 1e-6 per hop) for every controller, 5 seeds, 120 s of virtual time each.

Exit codes: 0 ok; 2 bad input (unknown controller or preset, value out of range, unreadable or malformed scenario file, output path that cannot be written); 1 a run failed (including any integrity failure) or a merge found missing or duplicated runs.

quiche (cargo feature `quiche`, off by default: `cargo run --release -p harness --features quiche -- ...`, needs cmake, a C/C++ compiler and libclang): adds the controllers quiche-reno, quiche-cubic and quiche-bbr2 (a quiche sender, to a quiche receiver by default) and `--receiver quinn|quiche` for mixed pairs (e.g. `--controllers karak --receiver quiche`: a quinn sender running Karak to a quiche receiver). quiche reads the system clock, so runs involving quiche need `--clock real`, carry one flow, and are not bit-reproducible; their rows are marked `real time`.

Logging: -v (info), -vv (debug), -vvv (trace), or RUST_LOG (e.g. RUST_LOG=cc=debug,harness=info) to stderr.";

/// The harness command line.
#[derive(Debug, Parser)]
#[command(name = "harness", version, about = ABOUT, long_about = LONG_ABOUT)]
pub struct Cli {
    /// More log output on stderr (-v info, -vv debug, -vvv trace); RUST_LOG overrides.
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    pub verbose: u8,
    /// What to do (default: `run`, the demo).
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run a scenario (or a preset's grid) for several controllers and seeds, print the table.
    Run(RunArgs),
    /// Run a grid resumably: results are appended per run to DIR/shard-<i>-of-<N>.jsonl.
    Sweep(SweepArgs),
    /// Merge shard result files (any order) into one report.
    Merge(MergeArgs),
    /// Compare a fast model's results (netsim) with a reference's (ns-3) on the same
    /// experiment: goodput ratios per point and controller, and whether the rankings agree.
    Calibrate(CalibrateArgs),
    /// List the built-in presets (paper experiments), or print one as a scenario file.
    Presets(PresetsArgs),
    /// Internal: run one ns-3 run (a JSON request on stdin, the result on stdout). The harness
    /// starts one such process per ns-3 run, because ns-3 allows one simulation per process.
    #[command(hide = true)]
    Ns3Worker,
    /// List the available controllers and their knobs.
    Controllers,
}

/// `harness run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    #[command(flatten)]
    scenario: ScenarioArgs,
    #[command(flatten)]
    output: OutputArgs,
}

/// `harness sweep`.
#[derive(Debug, Args)]
pub struct SweepArgs {
    #[command(flatten)]
    scenario: ScenarioArgs,
    /// Directory for the result files (created if missing). Re-running the same command
    /// resumes: finished runs are skipped.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Run only slice I of N of the grid (0-based: 0/4 .. 3/4); run k belongs to shard k mod N.
    #[arg(long, value_name = "I/N", default_value = "0/1")]
    shard: Shard,
    #[command(flatten)]
    output: OutputArgs,
}

/// `harness merge`.
#[derive(Debug, Args)]
pub struct MergeArgs {
    /// Result files (.jsonl) or directories holding them.
    #[arg(required = true, value_name = "INPUT")]
    inputs: Vec<PathBuf>,
    /// Report what is there even if runs are missing or duplicated (warns instead of failing).
    #[arg(long)]
    partial: bool,
    /// Also write the merged results as one result file (header with shard 0/1).
    #[arg(long, value_name = "FILE")]
    jsonl: Option<PathBuf>,
    /// Write the report as JSON to FILE.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Write one CSV row per run and flow to FILE.
    #[arg(long, value_name = "FILE")]
    csv: Option<PathBuf>,
    /// Write SVG goodput plots into DIR: per point, and against the swept parameter for a grid
    /// with one axis (result files keep no window traces, so no cwnd plots).
    #[arg(long, value_name = "DIR")]
    plot: Option<PathBuf>,
}

/// `harness calibrate`.
#[derive(Debug, Args)]
pub struct CalibrateArgs {
    /// The reference's result files (.jsonl) or directory, e.g. an ns-3 sweep's --out.
    #[arg(long, value_name = "INPUT", required = true, num_args = 1..)]
    reference: Vec<PathBuf>,
    /// The fast model's result files (.jsonl) or directory, e.g. the netsim sweep of the same
    /// experiment. Points are matched by label, controllers by name.
    #[arg(long, value_name = "INPUT", required = true, num_args = 1..)]
    fast: Vec<PathBuf>,
    /// Goodput tolerance: a ratio fast/reference within 1 ± this is a match (default 0.2).
    #[arg(long, value_name = "FRACTION", default_value_t = 0.2)]
    tolerance: f64,
    /// Write the comparison as JSON to FILE.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
}

/// `harness presets`.
#[derive(Debug, Args)]
pub struct PresetsArgs {
    /// Print this preset's scenario file.
    #[arg(long, value_name = "NAME")]
    show: Option<String>,
}

/// Which path model `--path` selects.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum PathModel {
    /// One hop, never breaks.
    AlwaysUp,
    /// Exponential up/down periods plus a repair delay (--mean-up, --mean-down, --repair-delay).
    OnOff,
    /// Random-waypoint mobility, multi-hop routing (--speed, --pause, --nodes, --area, --radio-range).
    Mobility,
}

/// The receiver's QUIC stack.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ReceiverArg {
    /// quinn 0.11.
    Quinn,
    /// cloudflare's quiche 0.30 (needs the `quiche` feature and --clock real).
    Quiche,
}

/// The simulator behind a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum BackendArg {
    /// netsim's seeded link and path models: fast.
    Netsim,
    /// ns-3's 802.11 ad hoc MANET (cargo feature `ns3`).
    Ns3,
}

/// Virtual or real time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ClockArg {
    /// tokio's paused clock: fast and reproducible.
    Virtual,
    /// The wall clock (a 60 s run takes 60 s).
    Real,
}

/// What to run. Without --scenario or --preset the demo is the base; every other option
/// overrides the base (for every grid point; a preset's axis still sets its own key).
#[derive(Debug, Args)]
pub struct ScenarioArgs {
    /// Scenario file (TOML; see harness/README.md for the schema).
    #[arg(long, value_name = "FILE", conflicts_with = "preset")]
    scenario: Option<PathBuf>,
    /// Built-in preset (see `harness presets`).
    #[arg(long, value_name = "NAME")]
    preset: Option<String>,
    /// Controllers to run, comma-separated (default: all of quinn's and the ports; see
    /// `harness controllers`; quiche-reno, quiche-cubic, quiche-bbr2 with the `quiche` feature).
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    controllers: Option<Vec<String>>,
    /// Set a controller knob: NAME.KNOB=VALUE, e.g. karak.one_dup_ack_factor=0.2 (repeatable).
    #[arg(long = "set", value_name = "NAME.KNOB=VALUE", value_parser = parse_knob)]
    set: Vec<(String, String, Value)>,
    /// Number of seeds: runs seeds 1..=N (default 3).
    #[arg(long, value_name = "N", conflicts_with = "seed")]
    seeds: Option<u32>,
    /// Explicit seeds, comma-separated, e.g. --seed 7,8,9.
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    seed: Option<Vec<u64>>,
    /// Each flow sends for this long (link time), e.g. 60s, 1.5min (default 60s).
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, conflicts_with = "bytes")]
    duration: Option<Duration>,
    /// Each flow sends this many bytes instead (k, M, G suffixes: 10M = 10,000,000).
    #[arg(long, value_name = "BYTES", value_parser = parse_bytes)]
    bytes: Option<u64>,
    /// With --bytes: fail a run that has not finished after this much link time (default 1h).
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, requires = "bytes")]
    timeout: Option<Duration>,
    /// Concurrent flows (connections) sharing the path, 1 to 64 (default 1).
    #[arg(long, value_name = "N")]
    flows: Option<u32>,
    /// Flow i starts i x this after flow 0 (default 0s).
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    flow_stagger: Option<Duration>,
    /// Virtual (default) or real time. Runs involving quiche need real time; real-time runs
    /// take their duration in wall time and are not bit-reproducible.
    #[arg(long, value_enum)]
    clock: Option<ClockArg>,
    /// The receiver's QUIC stack (default: the sender's: quinn for quinn's controllers and the
    /// ports, quiche for quiche-*). quiche needs the `quiche` feature, --clock real and one flow.
    #[arg(long, value_enum)]
    receiver: Option<ReceiverArg>,
    /// Link rate, both directions, e.g. 2Mbps, 500kbps (bits per second).
    #[arg(long, value_name = "RATE", value_parser = parse_rate)]
    rate: Option<String>,
    /// One-way propagation delay per hop, both directions, e.g. 45ms.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    delay: Option<Duration>,
    /// Maximum extra delay per datagram (uniform), e.g. 5ms.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    jitter: Option<Duration>,
    /// Drop-tail queue limit in datagrams.
    #[arg(long, value_name = "N", conflicts_with = "queue_bytes")]
    queue_packets: Option<u64>,
    /// Drop-tail queue limit in wire bytes.
    #[arg(long, value_name = "BYTES")]
    queue_bytes: Option<u64>,
    /// Largest datagram payload the link carries, bytes (default 1472).
    #[arg(long, value_name = "BYTES")]
    mtu: Option<u32>,
    /// Packet error rate per hop, in [0, 1]; with --ber/--gilbert-elliott replaces the
    /// scenario's error layers in both directions.
    #[arg(long, value_name = "P")]
    per: Option<f64>,
    /// Bit error rate per hop, in [0, 1).
    #[arg(long, value_name = "BER")]
    ber: Option<f64>,
    /// Gilbert-Elliott burst loss: P,R,LOSS_GOOD,LOSS_BAD (transition and loss probabilities).
    #[arg(long, value_name = "P,R,LG,LB", value_delimiter = ',', num_args = 4)]
    gilbert_elliott: Option<Vec<f64>>,
    /// Reordering: PROBABILITY,EXTRA_DELAY (e.g. 0.01,20ms).
    #[arg(long, value_name = "P,DELAY")]
    reorder: Option<String>,
    /// Probability of delivering a datagram twice, in [0, 1].
    #[arg(long, value_name = "P")]
    duplicate: Option<f64>,
    /// Path model (replaces the scenario's path model with its defaults).
    #[arg(long, value_enum)]
    path: Option<PathModel>,
    /// Mobility: node speed in m/s, one value or MIN-MAX (e.g. 20 or 5-30).
    #[arg(long, value_name = "M/S")]
    speed: Option<String>,
    /// Mobility: pause at each waypoint, e.g. 30s.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pause: Option<Duration>,
    /// Mobility: number of nodes (2 to 10000).
    #[arg(long, value_name = "N")]
    nodes: Option<u32>,
    /// Mobility: terrain WIDTHxHEIGHT in metres, e.g. 1200x1200.
    #[arg(long, value_name = "WxH")]
    area: Option<String>,
    /// Mobility: radio range in metres.
    #[arg(long, value_name = "METRES")]
    radio_range: Option<f64>,
    /// On/off: mean up period.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    mean_up: Option<Duration>,
    /// On/off: mean outage before repair.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    mean_down: Option<Duration>,
    /// On/off: route-repair delay added to every outage.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    repair_delay: Option<Duration>,
    /// Replay an up/down trace file (`<time> <up|down> [hops]` per line) as the path model.
    #[arg(long, value_name = "FILE")]
    trace_file: Option<PathBuf>,
    /// Set any netsim link field: KEY=VALUE under [link], e.g. a_to_b.delay=10ms or
    /// path.route_discovery_delay=200ms (VALUE is TOML; bare words are strings). Repeatable.
    #[arg(long = "link", value_name = "KEY=VALUE", value_parser = parse_key_value)]
    link: Vec<(String, Value)>,
    /// What carries the datagrams: netsim's link and path models (default) or ns-3's 802.11
    /// ad hoc MANET (cargo feature `ns3`; a mobility path's terrain and movement carry over).
    #[arg(long, value_enum)]
    backend: Option<BackendArg>,
    /// Set an ns-3 scenario field: KEY=VALUE under [ns3], e.g. routing=olsr,
    /// wifi.data_rate_mbps=11 or topology.model=chain (see netsim-ns3/README.md). Repeatable.
    #[arg(long = "ns3", value_name = "KEY=VALUE", value_parser = parse_key_value)]
    ns3: Vec<(String, Value)>,
    /// quinn's max_idle_timeout: "off" (default) or a duration.
    #[arg(long, value_name = "off|DURATION")]
    idle_timeout: Option<String>,
    /// quinn's packet threshold (also given to the ports' loss classifier; default 3).
    #[arg(long, value_name = "N")]
    packet_threshold: Option<u32>,
    /// quinn's time threshold (also given to the ports' loss classifier; default 1.125).
    #[arg(long, value_name = "X")]
    time_threshold: Option<f32>,
}

/// Where results go.
#[derive(Debug, Args)]
pub struct OutputArgs {
    /// Write the report (meta, summary, every run) as JSON to FILE. Deterministic: the same
    /// command and seeds give the same bytes.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Write one CSV row per run and flow to FILE.
    #[arg(long, value_name = "FILE")]
    csv: Option<PathBuf>,
    /// Write SVG plots (cwnd over time, goodput per controller) for every point into DIR.
    #[arg(long, value_name = "DIR")]
    plot: Option<PathBuf>,
    /// Write quinn's qlog of every client connection into DIR (quinn-proto 0.11 `qlog`
    /// feature; one .sqlog per connection).
    #[arg(long, value_name = "DIR")]
    qlog: Option<PathBuf>,
    /// Worker threads (default: the number of cores). Each run gets its own runtime.
    #[arg(long, short = 'j', value_name = "N")]
    jobs: Option<usize>,
    /// Do not print the table.
    #[arg(long, short = 'q')]
    quiet: bool,
}

fn parse_duration(text: &str) -> std::result::Result<Duration, String> {
    netsim::units::parse_duration(text)
}

fn parse_rate(text: &str) -> std::result::Result<String, String> {
    text.parse::<netsim::Rate>().map(|r| r.to_string())
}

fn parse_bytes(text: &str) -> std::result::Result<u64, String> {
    let t = text.trim();
    let (number, multiplier) = match t.chars().last() {
        Some('k' | 'K') => (&t[..t.len() - 1], 1e3),
        Some('M') => (&t[..t.len() - 1], 1e6),
        Some('G') => (&t[..t.len() - 1], 1e9),
        _ => (t, 1.0),
    };
    let value: f64 = number
        .parse()
        .map_err(|_| format!("`{text}` is not a byte count such as 10M or 500000"))?;
    let bytes = value * multiplier;
    if !(1.0..=1e12).contains(&bytes) {
        return Err(format!(
            "{text} is out of range: it must be in [1, 1e12] bytes"
        ));
    }
    Ok(bytes.round() as u64)
}

fn parse_key_value(text: &str) -> std::result::Result<(String, Value), String> {
    let (key, value) = text
        .split_once('=')
        .ok_or_else(|| format!("`{text}` is not KEY=VALUE"))?;
    if key.trim().is_empty() {
        return Err(format!("`{text}` has an empty key"));
    }
    Ok((key.trim().to_owned(), tomldoc::parse_value(value.trim())))
}

fn parse_knob(text: &str) -> std::result::Result<(String, String, Value), String> {
    let (key, value) = parse_key_value(text)?;
    let (name, knob) = key.split_once('.').ok_or_else(|| {
        format!("`{text}` is not NAME.KNOB=VALUE (e.g. karak.one_dup_ack_factor=0.2)")
    })?;
    controllers::lookup(name)?;
    Ok((name.to_owned(), knob.to_owned(), value))
}

fn set(overrides: &mut Vec<Override>, key: &str, value: Value, flag: &str) {
    overrides.push(Override {
        key: key.to_owned(),
        value: Some(value),
        flag: flag.to_owned(),
    });
}

fn remove(overrides: &mut Vec<Override>, key: &str, flag: &str) {
    overrides.push(Override {
        key: key.to_owned(),
        value: None,
        flag: flag.to_owned(),
    });
}

fn duration_value(d: Duration) -> Value {
    Value::String(netsim::units::format_duration(d))
}

impl ScenarioArgs {
    /// The scenario source: --scenario, --preset, or the demo.
    fn source(&self) -> Result<Source> {
        match (&self.scenario, &self.preset) {
            (Some(path), _) => Source::read(path),
            (None, Some(name)) => Ok(presets::lookup(name)?.source()),
            (None, None) => Ok(presets::lookup("demo")?.source()),
        }
    }

    /// The command-line options as document overrides, in order.
    fn overrides(&self) -> Result<Vec<Override>> {
        let mut o = Vec::new();
        if let Some(list) = &self.controllers {
            let names = list
                .iter()
                .map(|n| Value::String(n.trim().to_owned()))
                .collect();
            set(
                &mut o,
                "controllers.select",
                Value::Array(names),
                "--controllers",
            );
        }
        for (name, knob, value) in &self.set {
            set(
                &mut o,
                &format!("controllers.{name}.{knob}"),
                value.clone(),
                "--set",
            );
        }
        if let Some(n) = self.seeds {
            set(&mut o, "seeds", Value::Integer(i64::from(n)), "--seeds");
        }
        if let Some(list) = &self.seed {
            let seeds = list
                .iter()
                .map(|&s| i64::try_from(s).map(Value::Integer))
                .collect::<std::result::Result<Vec<_>, _>>()
                .map_err(|_| HarnessError::bad_input("--seed: seeds must be below 2^63"))?;
            set(&mut o, "seeds", Value::Array(seeds), "--seed");
        }
        if let Some(d) = self.duration {
            remove(&mut o, "transfer.bytes", "--duration");
            remove(&mut o, "transfer.timeout", "--duration");
            set(&mut o, "transfer.duration", duration_value(d), "--duration");
        }
        if let Some(b) = self.bytes {
            remove(&mut o, "transfer.duration", "--bytes");
            let b =
                i64::try_from(b).map_err(|_| HarnessError::bad_input("--bytes is too large"))?;
            set(&mut o, "transfer.bytes", Value::Integer(b), "--bytes");
        }
        if let Some(d) = self.timeout {
            set(&mut o, "transfer.timeout", duration_value(d), "--timeout");
        }
        if let Some(n) = self.flows {
            set(&mut o, "flows", Value::Integer(i64::from(n)), "--flows");
        }
        if let Some(d) = self.flow_stagger {
            set(&mut o, "flow_stagger", duration_value(d), "--flow-stagger");
        }
        if let Some(clock) = self.clock {
            let name = if clock == ClockArg::Virtual {
                "virtual"
            } else {
                "real"
            };
            set(&mut o, "clock", Value::String(name.into()), "--clock");
        }
        if let Some(receiver) = self.receiver {
            let name = match receiver {
                ReceiverArg::Quinn => "quinn",
                ReceiverArg::Quiche => "quiche",
            };
            set(&mut o, "receiver", Value::String(name.into()), "--receiver");
        }
        self.direction_overrides(&mut o)?;
        self.path_overrides(&mut o)?;
        for (key, value) in &self.link {
            set(&mut o, &format!("link.{key}"), value.clone(), "--link");
        }
        if let Some(backend) = self.backend {
            let name = match backend {
                BackendArg::Netsim => "netsim",
                BackendArg::Ns3 => "ns3",
            };
            set(&mut o, "backend", Value::String(name.into()), "--backend");
        }
        for (key, value) in &self.ns3 {
            set(&mut o, &format!("ns3.{key}"), value.clone(), "--ns3");
        }
        if let Some(idle) = &self.idle_timeout {
            let value = if idle == "off" {
                Value::String("off".into())
            } else {
                duration_value(
                    parse_duration(idle)
                        .map_err(|e| HarnessError::bad_input(format!("--idle-timeout: {e}")))?,
                )
            };
            set(&mut o, "transport.idle_timeout", value, "--idle-timeout");
        }
        if let Some(n) = self.packet_threshold {
            set(
                &mut o,
                "transport.packet_threshold",
                Value::Integer(i64::from(n)),
                "--packet-threshold",
            );
        }
        if let Some(x) = self.time_threshold {
            set(
                &mut o,
                "transport.time_threshold",
                Value::Float(f64::from(x)),
                "--time-threshold",
            );
        }
        Ok(o)
    }

    fn direction_overrides(&self, o: &mut Vec<Override>) -> Result<()> {
        let mut fields: Vec<(&str, Value, &str)> = Vec::new();
        if let Some(rate) = &self.rate {
            fields.push(("rate", Value::String(rate.clone()), "--rate"));
        }
        if let Some(d) = self.delay {
            fields.push(("delay", duration_value(d), "--delay"));
        }
        if let Some(d) = self.jitter {
            fields.push(("jitter", duration_value(d), "--jitter"));
        }
        if let Some(n) = self.queue_packets {
            let mut t = toml::Table::new();
            t.insert(
                "packets".into(),
                Value::Integer(i64::try_from(n).unwrap_or(i64::MAX)),
            );
            fields.push(("queue", Value::Table(t), "--queue-packets"));
        }
        if let Some(n) = self.queue_bytes {
            let mut t = toml::Table::new();
            t.insert(
                "bytes".into(),
                Value::Integer(i64::try_from(n).unwrap_or(i64::MAX)),
            );
            fields.push(("queue", Value::Table(t), "--queue-bytes"));
        }
        if let Some(mtu) = self.mtu {
            fields.push(("mtu", Value::Integer(i64::from(mtu)), "--mtu"));
        }
        let mut errors = Vec::new();
        let layer = |model: &str, params: &[(&str, f64)]| {
            let mut t = toml::Table::new();
            t.insert("model".into(), Value::String(model.into()));
            for (k, v) in params {
                t.insert((*k).into(), Value::Float(*v));
            }
            Value::Table(t)
        };
        if let Some(p) = self.per {
            errors.push(layer("per", &[("p", p)]));
        }
        if let Some(b) = self.ber {
            errors.push(layer("ber", &[("ber", b)]));
        }
        if let Some(ge) = &self.gilbert_elliott {
            errors.push(layer(
                "gilbert_elliott",
                &[
                    ("p", ge[0]),
                    ("r", ge[1]),
                    ("loss_good", ge[2]),
                    ("loss_bad", ge[3]),
                ],
            ));
        }
        if !errors.is_empty() {
            fields.push((
                "errors",
                Value::Array(errors),
                "--per/--ber/--gilbert-elliott",
            ));
        }
        if let Some(reorder) = &self.reorder {
            let (p, d) = reorder.split_once(',').ok_or_else(|| {
                HarnessError::bad_input(format!(
                    "--reorder `{reorder}`: expected PROBABILITY,EXTRA_DELAY"
                ))
            })?;
            let p: f64 = p.trim().parse().map_err(|_| {
                HarnessError::bad_input(format!("--reorder: `{p}` is not a probability"))
            })?;
            let d = parse_duration(d)
                .map_err(|e| HarnessError::bad_input(format!("--reorder: {e}")))?;
            let mut t = toml::Table::new();
            t.insert("probability".into(), Value::Float(p));
            t.insert("extra_delay".into(), duration_value(d));
            fields.push(("reorder", Value::Table(t), "--reorder"));
        }
        if let Some(p) = self.duplicate {
            fields.push(("duplicate", Value::Float(p), "--duplicate"));
        }
        for (field, value, flag) in fields {
            for dir in ["a_to_b", "b_to_a"] {
                let key = format!("link.{dir}.{field}");
                if matches!(value, Value::Table(_)) {
                    remove(o, &key, flag);
                }
                set(o, &key, value.clone(), flag);
            }
        }
        Ok(())
    }

    fn path_overrides(&self, o: &mut Vec<Override>) -> Result<()> {
        if let Some(model) = self.path {
            remove(o, "link.path", "--path");
            let name = match model {
                PathModel::AlwaysUp => "always_up",
                PathModel::OnOff => "on_off",
                PathModel::Mobility => "mobility",
            };
            let mut t = toml::Table::new();
            t.insert("model".into(), Value::String(name.into()));
            set(o, "link.path", Value::Table(t), "--path");
        }
        if let Some(path) = &self.trace_file {
            let text = std::fs::read_to_string(path).map_err(|e| {
                HarnessError::bad_input(format!("cannot read trace file `{}`: {e}", path.display()))
            })?;
            netsim::TraceSchedule::parse(&text, &path.display().to_string())
                .map_err(HarnessError::bad_input)?;
            remove(o, "link.path", "--trace-file");
            let mut t = toml::Table::new();
            t.insert("model".into(), Value::String("trace".into()));
            t.insert("schedule".into(), Value::String(text));
            set(o, "link.path", Value::Table(t), "--trace-file");
        }
        if let Some(speed) = &self.speed {
            let (lo, hi) = match speed.split_once('-') {
                Some((a, b)) => (a, b),
                None => (speed.as_str(), speed.as_str()),
            };
            let parse = |s: &str| {
                s.trim().parse::<f64>().map_err(|_| {
                    HarnessError::bad_input(format!(
                        "--speed `{speed}`: expected m/s such as 20 or 5-30"
                    ))
                })
            };
            set(
                o,
                "link.path.min_speed",
                Value::Float(parse(lo)?),
                "--speed",
            );
            set(
                o,
                "link.path.max_speed",
                Value::Float(parse(hi)?),
                "--speed",
            );
        }
        if let Some(d) = self.pause {
            set(o, "link.path.pause", duration_value(d), "--pause");
        }
        if let Some(n) = self.nodes {
            set(
                o,
                "link.path.nodes",
                Value::Integer(i64::from(n)),
                "--nodes",
            );
        }
        if let Some(area) = &self.area {
            let err = || {
                HarnessError::bad_input(format!(
                    "--area `{area}`: expected WIDTHxHEIGHT in metres, e.g. 1200x1200"
                ))
            };
            let (w, h) = area.split_once(['x', 'X']).ok_or_else(err)?;
            let w: f64 = w.trim().parse().map_err(|_| err())?;
            let h: f64 = h.trim().parse().map_err(|_| err())?;
            set(o, "link.path.area_width", Value::Float(w), "--area");
            set(o, "link.path.area_height", Value::Float(h), "--area");
        }
        if let Some(r) = self.radio_range {
            set(o, "link.path.radio_range", Value::Float(r), "--radio-range");
        }
        if let Some(d) = self.mean_up {
            set(o, "link.path.mean_up", duration_value(d), "--mean-up");
        }
        if let Some(d) = self.mean_down {
            set(o, "link.path.mean_down", duration_value(d), "--mean-down");
        }
        if let Some(d) = self.repair_delay {
            set(
                o,
                "link.path.repair_delay",
                duration_value(d),
                "--repair-delay",
            );
        }
        Ok(())
    }

    fn grid(&self) -> Result<scenario::Grid> {
        let source = self.source()?;
        scenario::load(&source, &self.overrides()?)
    }
}

/// Checks that `path` can be written before any run starts (creating nothing but the file).
fn check_file(path: &Path) -> Result<()> {
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map(drop)
        .map_err(|e| HarnessError::output(path, e))
}

/// Creates `dir` and checks that files can be created in it.
fn check_dir(dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| HarnessError::output(dir, e))?;
    let probe = dir.join(".harness-write-test");
    std::fs::write(&probe, b"").map_err(|e| HarnessError::output(dir, e))?;
    let _ = std::fs::remove_file(probe);
    Ok(())
}

impl OutputArgs {
    fn check(&self) -> Result<()> {
        for file in [&self.json, &self.csv].into_iter().flatten() {
            check_file(file)?;
        }
        for dir in [&self.plot, &self.qlog].into_iter().flatten() {
            check_dir(dir)?;
        }
        if self.qlog.is_some() && !crate::qlog::AVAILABLE {
            return Err(HarnessError::bad_input(
                "--qlog: this harness was built without the `qlog` feature (cargo build -p harness --features qlog)",
            ));
        }
        if self.jobs == Some(0) {
            return Err(HarnessError::bad_input(
                "--jobs 0: at least one worker is needed",
            ));
        }
        Ok(())
    }

    fn jobs(&self) -> usize {
        self.jobs
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
    }

    fn options(&self) -> RunOptions {
        RunOptions {
            trace: self.plot.is_some(),
            qlog_dir: self.qlog.clone(),
            // This binary runs each ns-3 run in a process of its own (`ns3-worker`).
            ns3_worker: std::env::current_exe().ok(),
        }
    }

    fn report(
        &self,
        meta: &ReportMeta,
        runs: &[RunResult],
        grid: Option<&scenario::Grid>,
    ) -> Result<()> {
        let rows = report::summarize(meta, runs);
        if !self.quiet {
            print_stdout(&report::table::render(meta, &rows))?;
        }
        if let Some(path) = &self.json {
            report::json::write(path, meta, &rows, runs)?;
        }
        if let Some(path) = &self.csv {
            report::csv::write(path, runs)?;
        }
        if let Some(dir) = &self.plot {
            let route_down = |point: &str, seed: u64, until: f64| {
                grid.map_or_else(Vec::new, |grid| route_down(grid, point, seed, until))
            };
            let files = report::plot::write_all(dir, meta, &rows, runs, &route_down)?;
            eprintln!("{} plots written to {}", files.len(), dir.display());
        }
        Ok(())
    }
}

/// The spans, in seconds, in which `point`'s route was down in the run seeded `seed`: netsim's
/// path model replayed from the run seed (the same segments the link used). None on ns-3,
/// whose routes are the routing protocol's, or for a path that never goes down.
fn route_down(grid: &scenario::Grid, point: &str, seed: u64, until: f64) -> Vec<(f64, f64)> {
    let Some(scenario) = grid.points.iter().find(|p| p.point == point) else {
        return Vec::new();
    };
    if !scenario.backend.is_netsim() {
        return Vec::new();
    }
    let until = Duration::from_secs_f64(until.max(0.0));
    netsim::path::path_segments(&scenario.link.path, seed, until)
        .map(|segments| {
            segments
                .into_iter()
                .filter(|(_, _, state)| !state.is_up())
                .map(|(from, to, _)| (from.as_secs_f64(), to.as_secs_f64()))
                .collect()
        })
        .unwrap_or_default()
}

fn print_stdout(text: &str) -> Result<()> {
    let mut out = std::io::stdout().lock();
    // A closed pipe (`| head`) is not an error worth reporting.
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
    Ok(())
}

fn failed(failures: Vec<HarnessError>) -> Result<()> {
    if failures.is_empty() {
        return Ok(());
    }
    let list: Vec<String> = failures.iter().map(ToString::to_string).collect();
    Err(HarnessError::run_failed(format!(
        "{} run(s) failed:\n  {}",
        failures.len(),
        list.join("\n  ")
    )))
}

fn run(args: &RunArgs) -> Result<()> {
    let grid = args.scenario.grid()?;
    args.output.check()?;
    let specs = sweep::expand(&grid);
    let mut results = Vec::with_capacity(specs.len());
    let failures = sweep::execute_all(&specs, args.output.jobs(), &args.output.options(), |r| {
        results.push(r);
        Ok(())
    })?;
    results.sort_by_key(|r| r.index);
    args.output
        .report(&ReportMeta::of(&grid), &results, Some(&grid))?;
    failed(failures)
}

fn sweep_command(args: &SweepArgs) -> Result<()> {
    let grid = args.scenario.grid()?;
    args.output.check()?;
    let (header, results, failures) = sweep::sweep(
        &grid,
        &args.out,
        args.shard,
        args.output.jobs(),
        &args.output.options(),
    )?;
    args.output.report(&header.meta, &results, Some(&grid))?;
    failed(failures)
}

fn merge_command(args: &MergeArgs) -> Result<()> {
    let files = crate::merge::collect_files(&args.inputs)?;
    for file in [&args.json, &args.csv, &args.jsonl].into_iter().flatten() {
        check_file(file)?;
    }
    if let Some(dir) = &args.plot {
        check_dir(dir)?;
    }
    let merged = crate::merge::merge(&files, args.partial)?;
    let shards: Vec<String> = merged.shards.iter().map(ToString::to_string).collect();
    eprintln!(
        "merged {} runs from {} file(s) (shards {})",
        merged.runs.len(),
        files.len(),
        shards.join(", ")
    );
    let meta = &merged.header.meta;
    let rows = report::summarize(meta, &merged.runs);
    print_stdout(&report::table::render(meta, &rows))?;
    if let Some(path) = &args.json {
        report::json::write(path, meta, &rows, &merged.runs)?;
    }
    if let Some(path) = &args.csv {
        report::csv::write(path, &merged.runs)?;
    }
    if let Some(dir) = &args.plot {
        let files = report::plot::write_all(dir, meta, &rows, &merged.runs, &|_, _, _| Vec::new())?;
        eprintln!("{} plots written to {}", files.len(), dir.display());
    }
    if let Some(path) = &args.jsonl {
        let mut text =
            serde_json::to_string(&merged.header).map_err(|e| HarnessError::output(path, e))?;
        text.push('\n');
        for run in &merged.runs {
            let line = sweep::RunLine {
                kind: "run".into(),
                result: run.clone(),
            };
            text.push_str(
                &serde_json::to_string(&line).map_err(|e| HarnessError::output(path, e))?,
            );
            text.push('\n');
        }
        std::fs::write(path, text).map_err(|e| HarnessError::output(path, e))?;
    }
    Ok(())
}

fn calibrate_command(args: &CalibrateArgs) -> Result<()> {
    if !(args.tolerance > 0.0 && args.tolerance <= 1.0) {
        return Err(HarnessError::bad_input(format!(
            "--tolerance {}: must be in (0, 1]",
            args.tolerance
        )));
    }
    if let Some(path) = &args.json {
        check_file(path)?;
    }
    let load = |inputs: &[PathBuf]| -> Result<(ReportMeta, Vec<report::SummaryRow>)> {
        let files = crate::merge::collect_files(inputs)?;
        let merged = crate::merge::merge(&files, false)?;
        let rows = report::summarize(&merged.header.meta, &merged.runs);
        Ok((merged.header.meta, rows))
    };
    let reference = load(&args.reference)?;
    let fast = load(&args.fast)?;
    let calibration = crate::calibrate::compare(
        (&reference.0, &reference.1),
        (&fast.0, &fast.1),
        args.tolerance,
    );
    if calibration.points.is_empty() {
        return Err(HarnessError::bad_input(format!(
            "no point of `{}` matches a point of `{}` by label: calibrate compares the same experiment on two backends",
            reference.0.name, fast.0.name
        )));
    }
    print_stdout(&calibration.render())?;
    if let Some(path) = &args.json {
        let mut text = serde_json::to_string_pretty(&calibration)
            .map_err(|e| HarnessError::output(path, e))?;
        text.push('\n');
        std::fs::write(path, text).map_err(|e| HarnessError::output(path, e))?;
    }
    Ok(())
}

fn presets_command(args: &PresetsArgs) -> Result<()> {
    if let Some(name) = &args.show {
        return print_stdout(presets::lookup(name)?.text);
    }
    let mut out = String::new();
    for preset in presets::all() {
        let grid = scenario::load_description(&preset.source())?;
        let runs = grid.points.len() * grid.controllers.len() * grid.seeds.len();
        out.push_str(&format!(
            "{:<16} {} point(s) x {} controllers x {} seeds = {runs} runs\n",
            preset.name,
            grid.points.len(),
            grid.controllers.len(),
            grid.seeds.len()
        ));
        if let Some(paper) = &grid.paper {
            out.push_str(&format!("                 follows: {paper}\n"));
        }
        out.push_str(&format!("                 {}\n", grid.description));
    }
    out.push_str("\n`harness presets --show NAME` prints a preset as a scenario file.\n");
    print_stdout(&out)
}

fn controllers_command() -> Result<()> {
    let mut out = String::new();
    for info in controllers::registry() {
        out.push_str(&format!("{:<12} {}\n", info.name, info.description));
        for knob in &info.knobs {
            out.push_str(&format!(
                "             {}.{}: {}\n",
                info.name, knob.name, knob.help
            ));
        }
    }
    out.push_str("\nSet a knob with --set NAME.KNOB=VALUE or a [controllers.NAME] table in a scenario file.\n");
    if crate::stack::QUICHE_AVAILABLE {
        out.push_str("quiche-* send from quiche (to a quiche receiver unless --receiver quinn); --receiver quiche sends any other controller to a quiche receiver. Runs involving quiche need --clock real and one flow.\n");
    } else {
        out.push_str(&format!(
            "Not built in: {} (quiche senders) and --receiver quiche; {}.\n",
            crate::stack::QUICHE_CONTROLLERS.join(", "),
            crate::stack::BUILD_HINT
        ));
    }
    print_stdout(&out)
}

/// Runs the parsed command line.
pub fn dispatch(cli: Cli) -> Result<()> {
    match cli.command {
        None => run(&RunArgs::parse_from(["run"])),
        Some(Command::Run(args)) => run(&args),
        Some(Command::Sweep(args)) => sweep_command(&args),
        Some(Command::Merge(args)) => merge_command(&args),
        Some(Command::Calibrate(args)) => calibrate_command(&args),
        Some(Command::Presets(args)) => presets_command(&args),
        Some(Command::Controllers) => controllers_command(),
        Some(Command::Ns3Worker) => crate::ns3_worker::serve(crate::run::execute_here),
    }
}

impl RunArgs {
    fn parse_from<const N: usize>(args: [&str; N]) -> Self {
        #[derive(Parser)]
        struct Wrapper {
            #[command(flatten)]
            run: RunArgs,
        }
        Wrapper::parse_from(args).run
    }
}
