//! The commands and their arguments (clap).

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, ValueEnum};
use toml::Value;

use super::parse::{
    parse_bytes, parse_duration, parse_gilbert_elliott, parse_key_value, parse_knob, parse_rate,
};
use crate::batch::shard::Shard;

/// `harness run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    #[command(flatten)]
    pub(super) scenario: ScenarioArgs,
    #[command(flatten)]
    pub(super) output: OutputArgs,
}

/// `harness sweep`.
#[derive(Debug, Args)]
pub struct SweepArgs {
    #[command(flatten)]
    pub(super) scenario: ScenarioArgs,
    /// Directory for the result files (created if missing). Re-running the same command
    /// resumes: finished runs are skipped.
    #[arg(long, value_name = "DIR")]
    pub(super) out: PathBuf,
    /// Run only slice I of N of the grid (0-based: 0/4 .. 3/4); run k belongs to shard k mod N.
    #[arg(long, value_name = "I/N", default_value = "0/1")]
    pub(super) shard: Shard,
    /// Take the runs of this grid found in these result files (.jsonl) or directories instead
    /// of running them: e.g. the --out of the same preset swept with fewer seeds or
    /// controllers. A run is the same run in any grid (its id is its identity); adopted runs
    /// are written to this shard's file with this grid's index and labels. Repeatable.
    #[arg(long, value_name = "INPUT")]
    pub(super) adopt: Vec<PathBuf>,
    /// Instead of running the grid, give the runs of this directory's shard file (written by
    /// an older build under an older run identity) this build's ids, in --out: only after
    /// --verify of its runs, rerun now, are identical to the file. The grid must be the one
    /// that made the directory (its points, controllers and seeds).
    #[arg(long, value_name = "DIR", conflicts_with = "adopt")]
    pub(super) reidentify: Option<PathBuf>,
    /// With --reidentify: how many reproducible runs of each controller to rerun and compare
    /// field by field (picked by a hash of their ids; 0 to 1000). A controller whose sample
    /// differs is left out of --out, for a resumed sweep to rerun.
    #[arg(long, value_name = "N", default_value_t = 1, requires = "reidentify",
          value_parser = clap::value_parser!(u16).range(0..=1000))]
    pub(super) verify: u16,
    #[command(flatten)]
    pub(super) output: OutputArgs,
}

/// `harness check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Result files (.jsonl) or directories, searched recursively.
    #[arg(required = true, value_name = "INPUT")]
    pub(super) inputs: Vec<PathBuf>,
}

/// `harness merge`.
#[derive(Debug, Args)]
pub struct MergeArgs {
    /// Result files (.jsonl, at most 1 GiB each) or directories holding them. Each line is
    /// checked against its header and its own figures; an edited file is refused.
    #[arg(required = true, value_name = "INPUT")]
    pub(super) inputs: Vec<PathBuf>,
    /// Report what is there even if runs are missing or duplicated (warns instead of failing).
    #[arg(long)]
    pub(super) partial: bool,
    /// Also write the merged results as one result file (header with shard 0/1).
    #[arg(long, value_name = "FILE")]
    pub(super) jsonl: Option<PathBuf>,
    /// Write the report as JSON to FILE.
    #[arg(long, value_name = "FILE")]
    pub(super) json: Option<PathBuf>,
    /// Write one CSV row per run and flow to FILE.
    #[arg(long, value_name = "FILE")]
    pub(super) csv: Option<PathBuf>,
    /// Write the summary as a Markdown table to FILE: one row per point, each controller's
    /// goodput or its paired ratio to NewReno [95% interval], and the p95 RTTs.
    #[arg(long, value_name = "FILE")]
    pub(super) markdown: Option<PathBuf>,
    /// Write SVG goodput plots into DIR: per point, and against the swept parameter for a grid
    /// with one axis (result files keep no window traces, so no cwnd plots).
    #[arg(long, value_name = "DIR")]
    pub(super) plot: Option<PathBuf>,
    /// Write a self-contained HTML report to FILE: the scenario, the table, the goodput plots,
    /// the command line and the versions.
    #[arg(long, value_name = "FILE")]
    pub(super) html: Option<PathBuf>,
}

/// `harness calibrate`.
#[derive(Debug, Args)]
pub struct CalibrateArgs {
    /// The reference's result files (.jsonl) or directory, e.g. an ns-3 sweep's --out.
    #[arg(long, value_name = "INPUT", required = true, num_args = 1..)]
    pub(super) reference: Vec<PathBuf>,
    /// The fast model's result files (.jsonl) or directory, e.g. the netsim sweep of the same
    /// experiment. Points are matched by label, controllers by name.
    #[arg(long, value_name = "INPUT", required = true, num_args = 1..)]
    pub(super) fast: Vec<PathBuf>,
    /// Goodput tolerance: a ratio fast/reference within 1 ± this is a match (default 0.2).
    #[arg(long, value_name = "FRACTION", default_value_t = 0.2)]
    pub(super) tolerance: f64,
    /// Write the comparison as JSON to FILE.
    #[arg(long, value_name = "FILE")]
    pub(super) json: Option<PathBuf>,
}

/// `harness presets`.
#[derive(Debug, Args)]
pub struct PresetsArgs {
    /// Print this preset's scenario file.
    #[arg(long, value_name = "NAME")]
    pub(super) show: Option<String>,
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

/// The host stack of the ports and the stacks' own controllers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum StackArg {
    /// quinn 0.11 (default): the ports, quinn's NewReno, Cubic and BBR.
    Quinn,
    /// noq 1.x (iroh's QUIC): the ports with exact loss signals, noq's NewReno, Cubic and BBRv3.
    Noq,
}

/// The receiver's QUIC stack.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ReceiverArg {
    /// quinn 0.11.
    Quinn,
    /// noq 1.x (a quinn sender to a noq receiver, or noq to noq).
    Noq,
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

/// How QUIC packets are protected.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ProtectionArg {
    /// TLS 1.3's AEAD and header protection (the default in real time).
    Tls,
    /// No encryption, the same packet sizes (the default in virtual time; the same runs).
    Null,
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
    /// Scenario file (TOML, at most 1 MiB; see harness/README.md for the schema).
    #[arg(long, value_name = "FILE", conflicts_with = "preset")]
    pub(super) scenario: Option<PathBuf>,
    /// Built-in preset (see `harness presets`).
    #[arg(long, value_name = "NAME")]
    pub(super) preset: Option<String>,
    /// Controllers to run, comma-separated (default: all of the host stack's own, the ports and
    /// the composite: newreno, cubic, bbr (bbr3 on noq), karak, petra, ub, sackfew, abra, manet;
    /// see `harness controllers`; the fixed-window reference `fixed` only when named; quiche-reno, quiche-cubic, quiche-bbr2 with the `quiche` feature; ns-3's
    /// own TCP on the ns-3 backend: tcp-newreno, tcp-cubic, tcp-vegas, tcp-westwood,
    /// tcp-westwoodplus).
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub(super) controllers: Option<Vec<String>>,
    /// Set a controller knob: NAME.KNOB=VALUE, e.g. karak.one_dup_ack_factor=0.2 (repeatable;
    /// NAME must be among the run's controllers; a duration knob needs its unit, e.g. 500ms).
    #[arg(long = "set", value_name = "NAME.KNOB=VALUE", value_parser = parse_knob)]
    pub(super) set: Vec<(String, String, Value)>,
    /// Number of seeds: runs seeds 1..=N (default 3; at most 10000).
    #[arg(long, value_name = "N", conflicts_with = "seed", value_parser = clap::value_parser!(u32).range(1..=crate::scenario::MAX_SEEDS as i64), allow_hyphen_values = true)]
    pub(super) seeds: Option<u32>,
    /// Explicit seeds, comma-separated, e.g. --seed 7,8,9.
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub(super) seed: Option<Vec<u64>>,
    /// Each flow sends for this long (link time), e.g. 60s, 1.5min (default 60s; 1ms to 24h).
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, conflicts_with = "bytes", allow_hyphen_values = true)]
    pub(super) duration: Option<Duration>,
    /// Each flow sends this many bytes instead (k, M, G suffixes: 10M = 10,000,000).
    #[arg(long, value_name = "BYTES", value_parser = parse_bytes, allow_hyphen_values = true)]
    pub(super) bytes: Option<u64>,
    /// With --bytes: fail a run that has not finished after this much link time (default 1h).
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, requires = "bytes", allow_hyphen_values = true)]
    pub(super) timeout: Option<Duration>,
    /// Concurrent flows (connections) sharing the path, 1 to 64 (default 1).
    #[arg(long, value_name = "N", allow_hyphen_values = true, value_parser = clap::value_parser!(u32).range(1..=crate::scenario::MAX_FLOWS as i64))]
    pub(super) flows: Option<u32>,
    /// Flow i starts i x this after flow 0 (default 0s).
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, allow_hyphen_values = true)]
    pub(super) flow_stagger: Option<Duration>,
    /// A mixed run: one flow per entry, each a controller name or `run` (the run's controller,
    /// from --controllers), e.g. `--controllers karak,petra --mix run,cubic` (each port against
    /// Cubic) or `--mix petra,cubic` (the first entry is then the run's controller). `@DELAY`
    /// gives a flow an access link of its own, one way (its RTT grows by twice it): `--mix
    /// run,run@30ms`. Starts follow --flow-stagger; a scenario file's [[flow]] tables also set
    /// starts.
    #[arg(long, value_name = "LIST", value_delimiter = ',', num_args = 1.., conflicts_with = "flows")]
    pub(super) mix: Option<Vec<String>>,
    /// Virtual (default) or real time. Runs involving quiche need real time; real-time runs
    /// take their duration in wall time and are not bit-reproducible.
    #[arg(long, value_enum)]
    pub(super) clock: Option<ClockArg>,
    /// QUIC packet protection: `null` (no encryption, a tag of the AEAD's length that checks
    /// the key and packet number: every datagram keeps its size, so a virtual-time run sends
    /// the same datagrams at the same times, faster) or `tls`. Default: null in virtual time,
    /// tls in real time; the handshake is real TLS 1.3 either way; quinn-noq and quiche pairs
    /// always use tls. A column (`packet_protection`) in the JSON results.
    #[arg(long, value_enum)]
    pub(super) packet_protection: Option<ProtectionArg>,
    /// The host stack of the ports and of newreno/cubic (default quinn; on noq, bbr3 replaces
    /// bbr). A column (`sender`) in the JSON and CSV results.
    #[arg(long, value_enum)]
    pub(super) stack: Option<StackArg>,
    /// The receiver's QUIC stack (default: the sender's: the host stack for its controllers and
    /// the ports, quiche for quiche-*). quinn and noq pair either way (`--stack noq --receiver
    /// quinn`); quiche needs the `quiche` feature, --clock real and one flow.
    #[arg(long, value_enum)]
    pub(super) receiver: Option<ReceiverArg>,
    /// Link rate, both directions, with its unit: bits per second as 2Mbps, 500kbps, 9600bps,
    /// or bytes per second with a capital B as 250kBps (a bare number is refused).
    #[arg(long, value_name = "RATE", value_parser = parse_rate, allow_hyphen_values = true)]
    pub(super) rate: Option<String>,
    /// One-way propagation delay per hop, both directions, e.g. 45ms.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, allow_hyphen_values = true)]
    pub(super) delay: Option<Duration>,
    /// Maximum extra delay per datagram (uniform), e.g. 5ms.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, allow_hyphen_values = true)]
    pub(super) jitter: Option<Duration>,
    /// Drop-tail queue limit in datagrams.
    #[arg(
        long,
        value_name = "N",
        conflicts_with = "queue_bytes",
        allow_hyphen_values = true
    )]
    pub(super) queue_packets: Option<u64>,
    /// Drop-tail queue limit in wire bytes.
    #[arg(long, value_name = "BYTES", allow_hyphen_values = true)]
    pub(super) queue_bytes: Option<u64>,
    /// Largest datagram payload the link carries, bytes (default 1472; QUIC needs at least
    /// 1200).
    #[arg(long, value_name = "BYTES", allow_hyphen_values = true, value_parser = clap::value_parser!(u32).range(crate::scenario::QUIC_MIN_DATAGRAM as i64..=65_535))]
    pub(super) mtu: Option<u32>,
    /// Packet error rate per hop, in [0, 1]; with --ber/--gilbert-elliott replaces the
    /// scenario's error layers in both directions.
    #[arg(long, value_name = "P", allow_hyphen_values = true)]
    pub(super) per: Option<f64>,
    /// Bit error rate per hop, in [0, 1).
    #[arg(long, value_name = "BER", allow_hyphen_values = true)]
    pub(super) ber: Option<f64>,
    /// Gilbert-Elliott burst loss: P,R,LOSS_GOOD,LOSS_BAD (good-to-bad and bad-to-good
    /// transition probabilities, loss probability in each state; each in [0, 1]), e.g.
    /// 0.01,0.1,0,0.5.
    #[arg(long, value_name = "P,R,LG,LB", value_parser = parse_gilbert_elliott, allow_hyphen_values = true)]
    pub(super) gilbert_elliott: Option<[f64; 4]>,
    /// Reordering: PROBABILITY,EXTRA_DELAY (e.g. 0.01,20ms).
    #[arg(long, value_name = "P,DELAY", allow_hyphen_values = true)]
    pub(super) reorder: Option<String>,
    /// Probability of delivering a datagram twice, in [0, 1].
    #[arg(long, value_name = "P", allow_hyphen_values = true)]
    pub(super) duplicate: Option<f64>,
    /// Path model (replaces the scenario's path model with its defaults).
    #[arg(long, value_enum)]
    pub(super) path: Option<PathModel>,
    /// Mobility: node speed in m/s, one value or MIN-MAX (e.g. 20 or 5-30).
    #[arg(long, value_name = "M/S", allow_hyphen_values = true)]
    pub(super) speed: Option<String>,
    /// Mobility: pause at each waypoint, e.g. 30s.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, allow_hyphen_values = true)]
    pub(super) pause: Option<Duration>,
    /// Mobility: number of nodes (2 to 10000).
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    pub(super) nodes: Option<u32>,
    /// Mobility: terrain WIDTHxHEIGHT in metres, e.g. 1200x1200.
    #[arg(long, value_name = "WxH", allow_hyphen_values = true)]
    pub(super) area: Option<String>,
    /// Mobility: radio range in metres.
    #[arg(long, value_name = "METRES", allow_hyphen_values = true)]
    pub(super) radio_range: Option<f64>,
    /// On/off: mean up period (at least 1ms).
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, allow_hyphen_values = true)]
    pub(super) mean_up: Option<Duration>,
    /// On/off: mean outage before repair.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, allow_hyphen_values = true)]
    pub(super) mean_down: Option<Duration>,
    /// On/off: route-repair delay added to every outage.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, allow_hyphen_values = true)]
    pub(super) repair_delay: Option<Duration>,
    /// Replay an up/down trace file (`<time> <up|down> [hops]` per line, hops 1 to 255, at
    /// most 64 MiB) as the path model.
    #[arg(long, value_name = "FILE", conflicts_with = "path")]
    pub(super) trace_file: Option<PathBuf>,
    /// Set any netsim link field: KEY=VALUE under [link], e.g. a_to_b.delay=10ms or
    /// path.route_discovery_delay=200ms (VALUE is TOML; bare words are strings). Repeatable.
    /// Bounds that keep a run's work bounded: path.step and path.mean_up at least 1ms, a
    /// trace's hops at most 255, path.nodes at most the mobility model's maximum.
    #[arg(long = "link", value_name = "KEY=VALUE", value_parser = parse_key_value)]
    pub(super) link: Vec<(String, Value)>,
    /// What carries the datagrams: netsim's link and path models (default) or ns-3's 802.11
    /// ad hoc MANET (cargo feature `ns3`; a mobility path's terrain and movement carry over).
    #[arg(long, value_enum)]
    pub(super) backend: Option<BackendArg>,
    /// Set an ns-3 scenario field: KEY=VALUE under [ns3], e.g. routing=olsr,
    /// wifi.data_rate_mbps=11 or topology.model=chain (see netsim-ns3/README.md). Repeatable.
    #[arg(long = "ns3", value_name = "KEY=VALUE", value_parser = parse_key_value)]
    pub(super) ns3: Vec<(String, Value)>,
    /// quinn's max_idle_timeout: "off" (default) or a duration.
    #[arg(long, value_name = "off|DURATION", allow_hyphen_values = true)]
    pub(super) idle_timeout: Option<String>,
    /// quinn's packet threshold (also given to the ports' loss classifier; default 3).
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    pub(super) packet_threshold: Option<u32>,
    /// quinn's time threshold (also given to the ports' loss classifier; default 1.125).
    #[arg(long, value_name = "X", allow_hyphen_values = true)]
    pub(super) time_threshold: Option<f32>,
    /// Which QUIC event the ports read as their papers' TCP timeout: time_threshold,
    /// probe_timeout or persistent_congestion; default: each port's own (docs/loss-signals.md, "Loss
    /// signals").
    #[arg(long, value_name = "READING")]
    pub(super) timeout_reading: Option<cc_core::TimeoutReading>,
    /// Ports on quinn: show quinn a window one byte larger, so that a window of N datagrams
    /// carries N (quinn's send check carries N-1; noq's carries N). Default: each port's own
    /// (on for manet, off for the papers' ports); `--quinn-full-window=false` turns it off.
    #[arg(long, value_name = "BOOL", num_args = 0..=1, require_equals = true, default_missing_value = "true")]
    pub(super) quinn_full_window: Option<bool>,
    /// Ask the QUIC receiver to hold an ACK up to this long (QUIC's ACK frequency extension;
    /// capped at the larger of the path's RTT and 25 ms; default: no request, the peer's
    /// 25 ms). In [1ms, 1s].
    #[arg(long, value_name = "DURATION", allow_hyphen_values = true)]
    pub(super) ack_delay: Option<String>,
}

/// Where results go.
#[derive(Debug, Args)]
pub struct OutputArgs {
    /// Write the report (meta, summary, every run) as JSON to FILE. Deterministic: the same
    /// command and seeds give the same bytes.
    #[arg(long, value_name = "FILE")]
    pub(super) json: Option<PathBuf>,
    /// Write one CSV row per run and flow to FILE.
    #[arg(long, value_name = "FILE")]
    pub(super) csv: Option<PathBuf>,
    /// Write the summary as a Markdown table to FILE: one row per point, each controller's
    /// goodput or its paired ratio to NewReno [95% interval], and the p95 RTTs.
    #[arg(long, value_name = "FILE")]
    pub(super) markdown: Option<PathBuf>,
    /// Write SVG plots (cwnd over time, goodput per controller) for every point into DIR.
    #[arg(long, value_name = "DIR")]
    pub(super) plot: Option<PathBuf>,
    /// Write a self-contained HTML report to FILE: the scenario, the table, every plot of
    /// --plot (inline), the command line and the versions. Opens offline; loads nothing.
    #[arg(long, value_name = "FILE")]
    pub(super) html: Option<PathBuf>,
    /// Write quinn's qlog of every client connection into DIR (quinn-proto 0.11 `qlog`
    /// feature; one .sqlog per connection).
    #[arg(long, value_name = "DIR")]
    pub(super) qlog: Option<PathBuf>,
    /// Worker threads (default: the number of cores). Each run gets its own runtime.
    #[arg(long, short = 'j', value_name = "N")]
    pub(super) jobs: Option<usize>,
    /// Do not print the table.
    #[arg(long, short = 'q')]
    pub(super) quiet: bool,
    /// Check the command as a run would (the grid, every setting, every output path, and for
    /// `sweep` the result file --out already holds), print what it would run, and stop:
    /// nothing runs and nothing is written.
    #[arg(long)]
    pub(super) dry_run: bool,
}
