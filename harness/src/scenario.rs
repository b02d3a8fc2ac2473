//! Scenario files: the TOML schema, its parsing (errors name the line and the field), and its
//! expansion into a [`Grid`] of resolved [`Scenario`]s.
//!
//! A scenario file describes one scenario, or a grid of them with `[[axis]]` tables; presets are
//! scenario files built into the binary (`harness presets --show NAME` prints one). Schema
//! (every key optional; unknown keys are errors):
//!
//! ```toml
//! name = "my-run"                 # default: the file name
//! description = "..."
//! paper = "Karak et al. 2014, Table 2"
//! seeds = 3                       # 1, 2, 3; or a list: seeds = [7, 8]
//! flows = 1                       # concurrent connections sharing the path (1 to 64)
//! flow_stagger = "0s"             # flow i starts i x flow_stagger after flow 0
//! # [[flow]]                      # or list the flows (a mixed run), one table each:
//! # start = "0s"                  #   when it starts (default: i x flow_stagger)
//! # [[flow]]
//! # controller = "cubic"          #   its own controller; without one, the run's controller
//! # start = "10s"
//! # access_delay = "30ms"         #   its own access link, one way: its RTT grows by twice
//!                                 #   this (netsim backend; default 0)
//! clock = "virtual"               # or "real" (required for runs involving quiche)
//! # packet_protection = "tls"     # or "null"; default null in virtual time, tls in real time
//! stack = "quinn"                 # the host stack of the ports and baselines: "quinn" or "noq"
//! receiver = "noq"                # the receiver's stack: "quinn", "noq" or "quiche" (`quiche`
//!                                 # feature); default: the sender's (quiche-* send from quiche)
//! backend = "netsim"              # or "ns3": ns-3's 802.11 ad hoc MANET (`ns3` feature)
//!
//! [transfer]                      # either duration (default 60 s) or bytes
//! duration = "60s"                # each flow sends for this long; goodput counts bytes by then
//! # bytes = 10000000              # each flow sends this many bytes; the run ends when all arrive
//! # timeout = "1h"                # bytes mode only: fail the run after this much (link) time
//!
//! [transport]
//! idle_timeout = "off"            # quinn's max_idle_timeout ("off" or a duration)
//! packet_threshold = 3            # quinn's and the ports' loss thresholds (kept equal)
//! time_threshold = 1.125
//! # timeout_reading = "probe_timeout"  # the ports' TCP timeout on QUIC (default: each port's)
//! # quinn_full_window = true      # ports on quinn: a window of N datagrams carries N, not N-1
//! # ack_delay = "200ms"           # ask the receiver to hold ACKs up to this (ACK frequency)
//!
//! [link]                          # netsim's LinkConfig
//! path = { model = "mobility", min_speed = 20.0, max_speed = 20.0 }
//! [link.both]                     # settings for both directions ...
//! rate = "2Mbps"
//! errors = [{ model = "ber", ber = 1e-6 }]
//! [link.b_to_a]                   # ... overridden field by field for one direction
//! errors = []
//! [link.mac]                      # optional 802.11 DCF airtime: per-frame cost, retries,
//! max_attempts = 7                # one channel for both directions (netsim::MacConfig)
//!
//! [ns3]                           # the ns-3 scenario (netsim_ns3::Ns3Config), backend = "ns3" only;
//! routing = "aodv"                # a mobility [link.path] carries over (nodes, area, speeds,
//! [ns3.wifi]                      # pause, range, source, sink); these keys override it
//! data_rate_mbps = 2
//!
//! [controllers]
//! select = ["newreno", "karak"]   # default: every available controller
//! [controllers.karak]             # knob settings (see `harness controllers`)
//! one_dup_ack_factor = 0.2
//!
//! [[axis]]                        # a grid: the cartesian product of all axes
//! key = "link.path"               # dotted key; table values merge into the table there
//! name = "speed (m/s)"
//! values = [{ min_speed = 5.0, max_speed = 5.0 }, { min_speed = 10.0, max_speed = 10.0 }]
//! labels = ["5", "10"]
//! ```

use std::collections::BTreeMap;
use std::time::Duration;

use netsim::{Clock, DirectionConfig, LinkConfig, MacConfig, PacketProtection, PathModelConfig};
use serde::{Deserialize, Serialize};
use toml::{Table, Value};

use crate::backend::{self, Backend, BackendKind};
use crate::error::{HarnessError, Result};
use crate::registry::{self, ControllerSpec};
use crate::stack::{self, Stack};
use crate::tomldoc::{self, split_path};

/// Default transfer duration when a file gives neither `duration` nor `bytes`.
pub const DEFAULT_DURATION: Duration = Duration::from_secs(60);
/// Default run timeout in bytes mode.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(3600);
/// Most concurrent flows per run.
pub const MAX_FLOWS: u32 = 64;
/// Most seeds per grid.
pub const MAX_SEEDS: u64 = 10_000;
/// The smallest datagram payload a link may carry: QUIC's minimum (RFC 9000 section 14.1),
/// below which no connection completes its handshake.
pub const QUIC_MIN_DATAGRAM: u32 = 1200;
/// Most points a grid may have (the product of its axes' lengths): each point is a resolved
/// scenario held in memory, so an unbounded product would exhaust it before a run starts.
pub const MAX_POINTS: usize = 10_000;
/// Most runs a grid may have (points x controllers x seeds): every run's spec is expanded up
/// front (a sweep's header lists every run id). Larger studies are several grids.
pub const MAX_RUNS: usize = 100_000;
/// Top-level keys that are not scenario settings, so an axis cannot vary them.
const NOT_AXES: &[&str] = &[
    "seeds",
    "controllers",
    "flow",
    "name",
    "description",
    "paper",
    "axis",
];

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ScenarioFile {
    name: Option<String>,
    description: Option<String>,
    paper: Option<String>,
    seeds: Option<Seeds>,
    flows: Option<u32>,
    #[serde(default, with = "crate::units::opt_duration")]
    flow_stagger: Option<Duration>,
    #[serde(default)]
    flow: Vec<FlowEntry>,
    clock: Option<Clock>,
    packet_protection: Option<PacketProtection>,
    stack: Option<Stack>,
    receiver: Option<Stack>,
    backend: Option<BackendKind>,
    ns3: Option<Table>,
    #[serde(default)]
    transfer: TransferSection,
    #[serde(default)]
    transport: TransportSection,
    #[serde(default)]
    link: LinkSection,
    #[serde(default)]
    controllers: ControllersSection,
    #[serde(default)]
    axis: Vec<Axis>,
}

#[derive(Debug, Deserialize)]
#[serde(
    untagged,
    expecting = "expected a number of seeds such as 5 or a list such as [1, 2, 3]"
)]
enum Seeds {
    Count(i64),
    List(Vec<i64>),
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct TransferSection {
    #[serde(default, with = "crate::units::opt_duration")]
    duration: Option<Duration>,
    bytes: Option<i64>,
    #[serde(default, with = "crate::units::opt_duration")]
    timeout: Option<Duration>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct TransportSection {
    #[serde(
        default,
        deserialize_with = "crate::units::duration_or_off::deserialize"
    )]
    idle_timeout: Option<Option<Duration>>,
    packet_threshold: Option<u32>,
    time_threshold: Option<f32>,
    timeout_reading: Option<cc_core::TimeoutReading>,
    quinn_full_window: Option<bool>,
    #[serde(default, with = "crate::units::opt_duration")]
    ack_delay: Option<Duration>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct LinkSection {
    #[expect(
        dead_code,
        reason = "parsed for its errors (line and field); folded into the directions before use"
    )]
    both: Option<DirectionConfig>,
    a_to_b: Option<DirectionConfig>,
    b_to_a: Option<DirectionConfig>,
    path: Option<PathModelConfig>,
    mac: Option<MacConfig>,
}

#[derive(Debug, Default, Clone, Deserialize)]
struct ControllersSection {
    select: Option<Vec<String>>,
    #[serde(flatten)]
    settings: BTreeMap<String, BTreeMap<String, Value>>,
}

/// One `[[flow]]` table.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct FlowEntry {
    controller: Option<String>,
    #[serde(default, with = "crate::units::opt_duration")]
    start: Option<Duration>,
    #[serde(default, with = "crate::units::opt_duration")]
    access_delay: Option<Duration>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Axis {
    key: String,
    name: Option<String>,
    values: Vec<Value>,
    labels: Option<Vec<String>>,
}

/// How each flow's transfer is sized.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Transfer {
    /// Each flow sends for this long (link time); goodput counts what arrived in order by then.
    Duration(#[serde(with = "crate::units::duration")] Duration),
    /// Each flow sends `bytes`; the run ends when all have arrived, or fails after `timeout`.
    Bytes {
        /// Bytes per flow.
        bytes: u64,
        /// Link time after which an unfinished run fails.
        #[serde(with = "crate::units::duration")]
        timeout: Duration,
    },
}

/// quinn transport settings the harness controls.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TransportSettings {
    /// quinn's `max_idle_timeout` (`None` = off, the default: a MANET outage must not kill the
    /// connection; the run's own deadline bounds it).
    #[serde(
        serialize_with = "crate::units::duration_or_off::serialize",
        deserialize_with = "crate::units::duration_or_off::deserialize_resolved"
    )]
    pub idle_timeout: Option<Duration>,
    /// quinn's packet threshold, also given to the ports' loss classifier (default 3).
    pub packet_threshold: u32,
    /// quinn's time threshold, also given to the ports' loss classifier (default 9/8).
    pub time_threshold: f32,
    /// Which QUIC event the ports read as their papers' TCP timeout (`None`, the default: each
    /// port's own choice; cc_core::TimeoutReading).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_reading: Option<cc_core::TimeoutReading>,
    /// Ports on quinn show it a window one byte larger, so that a window of N datagrams carries
    /// N (each port config's `quinn_full_window`; default false).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub quinn_full_window: bool,
    /// The longest the receiver may hold an ACK, asked of it through QUIC's ACK frequency
    /// extension (`None`, the default: no request; the peer's own 25 ms). quinn caps what it
    /// asks at the larger of the path's RTT and 25 ms. Range `[1ms, 1s]`.
    #[serde(
        default,
        with = "crate::units::opt_duration",
        skip_serializing_if = "Option::is_none"
    )]
    pub ack_delay: Option<Duration>,
}

impl TransportSettings {
    /// The ports' loss-signal settings: the same thresholds as quinn's loss detection.
    pub fn signal(&self) -> Result<cc_core::SignalConfig, String> {
        let mut signal = cc_core::SignalConfig::default();
        signal
            .set_packet_threshold(self.packet_threshold)
            .and_then(|s| s.set_time_threshold(self.time_threshold))
            .map_err(|e| e.to_string())?;
        signal.set_timeout_reading(self.timeout_reading);
        Ok(signal)
    }
}

/// One listed flow of a mixed run (`[[flow]]`, `--mix`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MixFlow {
    /// Its controller (registry name, default settings); `None`: the run's controller.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub controller: Option<String>,
    /// When it starts, link time.
    #[serde(with = "crate::units::duration")]
    pub start: Duration,
    /// One-way delay of its own access link (zero: none): its round trip is the path's plus
    /// twice this (netsim's `SimLink::attach`).
    #[serde(
        default,
        with = "crate::units::duration",
        skip_serializing_if = "Duration::is_zero"
    )]
    pub access_delay: Duration,
}

/// One fully resolved scenario: a point of a grid.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Scenario {
    /// The point's label: `axis=value` pairs, or the grid's name for a single scenario.
    pub point: String,
    /// Axis name -> value label, for table columns.
    pub params: BTreeMap<String, String>,
    /// The emulated link.
    pub link: LinkConfig,
    /// Transfer size.
    pub transfer: Transfer,
    /// Concurrent flows sharing the link.
    pub flows: u32,
    /// Flow `i` starts `i x flow_stagger` after the first (unless `mix` lists the flows).
    #[serde(with = "crate::units::duration")]
    pub flow_stagger: Duration,
    /// The listed flows of a mixed run, `flows` of them (flow `i` of each source/sink pair is
    /// entry `i`); empty: every flow runs the run's controller, starting `i x flow_stagger`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mix: Vec<MixFlow>,
    /// quinn transport settings.
    pub transport: TransportSettings,
    /// Virtual or real time.
    pub clock: Clock,
    /// The packet protection asked for (default: null in virtual time, TLS in real time).
    /// Not part of a run's identity: both give the same run (see `netsim::PacketProtection`).
    pub packet_protection: PacketProtection,
    /// The host stack of the ports and the stacks' own controllers (`None`: quinn).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stack: Option<Stack>,
    /// The receiver's stack (`None`: the sender's stack).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub receiver: Option<Stack>,
    /// What carries the datagrams: netsim's `link` (default), or ns-3.
    #[serde(default, skip_serializing_if = "Backend::is_netsim")]
    pub backend: Backend,
}

/// A grid: scenarios x controllers x seeds.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Grid {
    /// Grid (or scenario) name.
    pub name: String,
    /// What it is.
    pub description: String,
    /// The paper table it follows, if any.
    pub paper: Option<String>,
    /// Axis names, in order (table columns).
    pub axes: Vec<String>,
    /// The scenario points, in grid order.
    pub points: Vec<Scenario>,
    /// Controllers, in order.
    pub controllers: Vec<ControllerSpec>,
    /// Seeds, in order.
    pub seeds: Vec<u64>,
}

impl Grid {
    /// Whether a point of the grid runs its controllers on `stack` (the default is quinn).
    pub fn runs_on(&self, stack: Stack) -> bool {
        self.points
            .iter()
            .any(|p| p.stack.unwrap_or_default() == stack)
    }
}

/// A scenario text and where it came from (a file path, or `preset NAME`).
#[derive(Clone, Debug)]
pub struct Source {
    /// Name used in error messages.
    pub name: String,
    /// Default grid name (file stem or preset name).
    pub default_name: String,
    /// The TOML text.
    pub text: String,
}

impl Source {
    /// Reads a scenario file; an unreadable file is bad input.
    pub fn read(path: &std::path::Path) -> Result<Self> {
        let text = crate::input_file::read_text(path, crate::input_file::SCENARIO)?;
        Ok(Self {
            name: path.display().to_string(),
            default_name: path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| "scenario".to_owned()),
            text,
        })
    }
}

/// A change to the document from the command line: set `key` to `value`; `flag` names the
/// option in messages.
#[derive(Clone, Debug)]
pub struct Override {
    /// Dotted key in the scenario document.
    pub key: String,
    /// The value; `None` removes the key.
    pub value: Option<Value>,
    /// The command-line option it came from (`--rate`).
    pub flag: String,
}

fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = text.get(..offset.min(text.len())).unwrap_or("");
    let line = before.matches('\n').count() + 1;
    let col = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
    (line, col)
}

fn parse_error(source: &Source, error: &toml::de::Error) -> HarnessError {
    let message = error.message().trim();
    match error.span() {
        Some(span) => {
            let (line, col) = line_col(&source.text, span.start);
            let field = tomldoc::key_at(&source.text, span.start)
                .map(|k| format!("field `{k}`: "))
                .unwrap_or_default();
            HarnessError::bad_input(format!(
                "{}: line {line}, column {col}: {field}{message}",
                source.name
            ))
        }
        None => HarnessError::bad_input(format!("{}: {message}", source.name)),
    }
}

/// Loads `source` with `overrides` applied and expands it into a grid that this build can run
/// (the ns-3 backend needs the `ns3` feature).
pub fn load(source: &Source, overrides: &[Override]) -> Result<Grid> {
    load_checked(source, overrides, true)
}

/// Loads `source` and expands it into a grid, whether or not this build can run it (for
/// listing presets).
pub fn load_description(source: &Source) -> Result<Grid> {
    load_checked(source, &[], false)
}

fn load_checked(source: &Source, overrides: &[Override], runnable: bool) -> Result<Grid> {
    let file: ScenarioFile = toml::from_str(&source.text).map_err(|e| parse_error(source, &e))?;
    let mut doc: Table = source
        .text
        .parse()
        .map_err(|e: toml::de::Error| parse_error(source, &e))?;
    for o in overrides {
        match &o.value {
            Some(value) => tomldoc::set_path(&mut doc, &o.key, value.clone()).map_err(|e| {
                HarnessError::bad_input(format!("{}: cannot set `{}`: {e}", o.flag, o.key))
            })?,
            None => tomldoc::remove_path(&mut doc, &o.key),
        }
    }
    let file = if overrides.is_empty() {
        file
    } else {
        Value::Table(doc.clone())
            .try_into::<ScenarioFile>()
            .map_err(|e| {
                let message = e.message().trim();
                // The option that set the field serde names, when one did (`unknown field
                // `max_speed``: `--speed`); else the first option whose setting makes the
                // document unreadable, applied one at a time; else every option given.
                let culprit = message
                    .split('`')
                    .nth(1)
                    .and_then(|field| {
                        overrides.iter().rev().find(|o| {
                            o.value.is_some()
                                && (o.key == field || o.key.ends_with(&format!(".{field}")))
                        })
                    })
                    .or_else(|| first_unreadable(&source.text, overrides))
                    .map(|o| format!("{} `{}`", o.flag, o.key));
                let flags = culprit.unwrap_or_else(|| {
                    let mut flags: Vec<&str> = Vec::new();
                    for o in overrides {
                        if !flags.contains(&o.flag.as_str()) {
                            flags.push(&o.flag);
                        }
                    }
                    flags.join(", ")
                });
                let message = message
                    .replace(
                        ", there are no fields",
                        " (this path model has no settings)",
                    )
                    .replace(
                        "wanted exactly 1 element, more than 1 element",
                        "give exactly one of its keys, not several",
                    );
                HarnessError::bad_input(format!("{flags} (on {}): {message}", source.name))
            })?
    };
    doc.remove("axis");
    let ctx = Context {
        source,
        doc: &doc,
        overrides,
        runnable,
    };
    let axes = ctx.axes(&file.axis)?;
    check_axes_reach(&doc, &file.axis)?;
    let mut points = Vec::new();
    for combination in cartesian(&axes) {
        points.push(ctx.point(&doc, &axes, &combination)?);
    }
    let name = file
        .name
        .clone()
        .unwrap_or_else(|| source.default_name.clone());
    let mut stacks: Vec<Stack> = points.iter().map(|p| p.stack.unwrap_or_default()).collect();
    stacks.dedup();
    // A mix that names every flow's controller (`--mix petra,cubic`): its first flow is the
    // run's, and the grid runs that controller alone.
    let mut section = file.controllers.clone();
    if let Some(first) = points.first()
        && !first.mix.is_empty()
        && first.mix.iter().all(|f| f.controller.is_some())
    {
        if section.select.is_some() {
            return Err(ctx.field_error(
                "controllers.select",
                "the [[flow]] tables (--mix) name every flow's controller, so there is no flow for \
                 the grid's controllers to run: mark the flow under test with no controller (in \
                 --mix: `run`, e.g. --controllers karak,petra --mix run,cubic), or drop \
                 controllers.select (--controllers)",
            ));
        }
        let name = first.mix[0].controller.clone().unwrap_or_default();
        section.select = Some(vec![name]);
        for point in &mut points {
            point.mix[0].controller = None;
        }
    }
    let controllers = ctx.controllers(&section, &stacks)?;
    ctx.check_stacks(&points, &controllers)?;
    check_backend_overrides(&points, overrides)?;
    ctx.check_backend_axes(&points, &axes)?;
    let seeds = ctx.seeds(file.seeds.as_ref())?;
    let runs = points
        .len()
        .saturating_mul(controllers.len())
        .saturating_mul(seeds.len());
    if runs > MAX_RUNS {
        return Err(HarnessError::bad_input(format!(
            "the grid has {} points x {} controllers x {} seeds = {runs} runs, more than {MAX_RUNS}: split it into several grids",
            points.len(),
            controllers.len(),
            seeds.len()
        )));
    }
    let grid = Grid {
        description: described(file.description.as_deref().unwrap_or_default(), overrides),
        paper: file.paper.clone(),
        axes: axes.iter().map(|a| a.name.clone()).collect(),
        points: points
            .into_iter()
            .map(|mut p| {
                if p.point.is_empty() {
                    p.point = name.clone();
                }
                p
            })
            .collect(),
        controllers,
        seeds,
        name,
    };
    check_labels(&grid)?;
    check_distinct_runs(&grid)?;
    Ok(grid)
}

/// The first override that, applied after the ones before it, makes `text` unreadable as a
/// scenario: the option to blame when serde's message names no field.
fn first_unreadable<'a>(text: &str, overrides: &'a [Override]) -> Option<&'a Override> {
    let mut doc: Table = text.parse().ok()?;
    for o in overrides {
        match &o.value {
            Some(value) => tomldoc::set_path(&mut doc, &o.key, value.clone()).ok()?,
            None => tomldoc::remove_path(&mut doc, &o.key),
        }
        if Value::Table(doc.clone())
            .try_into::<ScenarioFile>()
            .is_err()
        {
            return Some(o);
        }
    }
    None
}

/// Refuses an axis on `link.both.FIELD` where a direction sets FIELD itself: the direction's
/// own value wins (netsim's `[link.a_to_b]` over `[link.both]`), so the axis would never change
/// that direction, and its points would differ in one direction only, or not at all.
fn check_axes_reach(doc: &Table, axes: &[Axis]) -> Result<()> {
    for axis in axes {
        // The fields the axis sets under link.both: one (`link.both.rate`), or each value's
        // (`key = "link.both"` with tables as values).
        let fields: Vec<String> = match axis.key.strip_prefix("link.both") {
            Some("") => axis
                .values
                .iter()
                .filter_map(Value::as_table)
                .flat_map(|t| t.keys().cloned())
                .collect(),
            Some(rest) => rest
                .strip_prefix('.')
                .map(str::to_owned)
                .into_iter()
                .collect(),
            None => continue,
        };
        for (field, direction) in fields
            .iter()
            .flat_map(|f| ["a_to_b", "b_to_a"].map(|d| (f, d)))
        {
            let key = format!("link.{direction}.{field}");
            let mut parts = key.split('.');
            let set = parts
                .next()
                .and_then(|first| doc.get(first))
                .and_then(|v| parts.try_fold(v, |v, part| v.as_table()?.get(part)))
                .is_some();
            if set {
                return Err(HarnessError::bad_input(format!(
                    "axis `{}`: `{key}` is set, and a direction's own value wins over link.both, so this axis never changes that direction: put the axis on `{key}` (and the other direction's key), or remove `{key}`",
                    axis.key
                )));
            }
        }
    }
    Ok(())
}

/// The scenario's description, followed by what the command line changed of the path and the
/// workload it describes, so that a report of the demo at another rate does not describe the
/// demo's.
fn described(description: &str, overrides: &[Override]) -> String {
    let changed: Vec<String> = overrides
        .iter()
        .filter(|o| {
            // What the description describes: the path and the workload. The stacks, clock,
            // transport settings, controllers and seeds have columns of their own.
            [
                "link",
                "transfer",
                "flows",
                "flow",
                "flow_stagger",
                "ns3",
                "backend",
            ]
            .iter()
            .any(|k| o.key == *k || o.key.starts_with(&format!("{k}.")))
        })
        .filter_map(|o| {
            let value = o.value.as_ref()?.to_string();
            let value = if value.chars().count() > 60 {
                format!("{}...", value.chars().take(57).collect::<String>())
            } else {
                value
            };
            Some(format!("{} = {value} ({})", o.key, o.flag))
        })
        .collect();
    if changed.is_empty() {
        description.to_owned()
    } else {
        format!(
            "{description} [changed on the command line: {}]",
            changed.join("; ")
        )
    }
}

/// Refuses a grid name or point label with a control character: a newline would break the
/// Markdown table and an escape sequence would reach the terminal. An axis whose values hold
/// such text (a trace schedule) names its points with `labels`.
fn check_labels(grid: &Grid) -> Result<()> {
    let labels = std::iter::once(("the grid name", &grid.name))
        .chain(grid.points.iter().map(|p| ("a point label", &p.point)))
        .chain(grid.axes.iter().map(|a| ("an axis name", a)));
    for (what, label) in labels {
        if let Some(c) = label.chars().find(|c| c.is_control()) {
            return Err(HarnessError::bad_input(format!(
                "{what} holds the control character {c:?} (`{}`): labels are one line of text; give the axis `labels` (or the grid a `name`) without it",
                label.escape_debug()
            )));
        }
    }
    Ok(())
}

/// What identifies a run's physics: everything but labels.
#[derive(Serialize)]
struct Identity<'a> {
    link: &'a netsim::LinkConfig,
    transfer: &'a Transfer,
    flows: u32,
    #[serde(with = "crate::units::duration")]
    flow_stagger: Duration,
    transport: &'a TransportSettings,
    clock: netsim::Clock,
    /// The host stack (absent for quinn, so quinn run ids are unchanged).
    #[serde(skip_serializing_if = "Option::is_none")]
    stack: Option<crate::stack::Stack>,
    #[serde(skip_serializing_if = "Option::is_none")]
    receiver: Option<crate::stack::Stack>,
    controller: &'a ControllerSpec,
    seed: u64,
    /// ns-3's scenario, on that backend (absent on netsim, so netsim run ids are unchanged).
    #[serde(skip_serializing_if = "Option::is_none")]
    ns3: Option<&'a netsim_ns3::Ns3Config>,
}

/// 64-bit FNV-1a.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// The stable run id of `controller` with `seed` on the point `scenario`: a hash of the
/// scenario parameters (not its labels), the controller spec and the seed, as 16 hex digits.
/// Here rather than on [`crate::run::spec::RunSpec`] so that a grid can refuse two equal runs
/// without building its runs.
pub fn run_id(scenario: &Scenario, controller: &ControllerSpec, seed: u64) -> String {
    let s = scenario;
    let identity = Identity {
        link: &s.link,
        transfer: &s.transfer,
        flows: s.flows,
        flow_stagger: s.flow_stagger,
        transport: &s.transport,
        clock: s.clock,
        stack: s.stack.filter(|&stack| stack != crate::stack::Stack::Quinn),
        receiver: s.receiver,
        controller,
        seed,
        ns3: s.backend.ns3(),
    };
    let json = serde_json::to_string(&identity).unwrap_or_default();
    format!("{:016x}", fnv1a(json.as_bytes()))
}

/// Refuses a grid in which two runs are one run: the same parameters once parsed, controller
/// and seed (one run id), e.g. an axis listing `"2Mbps"` and `"2000kbps"`, or `"1s"` and
/// `"1000ms"`. A sweep would write that run twice under one id, which merge then refuses.
fn check_distinct_runs(grid: &Grid) -> Result<()> {
    let mut seen = std::collections::HashMap::new();
    // In grid order (point, controller, seed), as `crate::batch::sweep::expand` lists the runs.
    let runs = grid.points.iter().flat_map(|point| {
        grid.controllers.iter().flat_map(move |controller| {
            grid.seeds
                .iter()
                .map(move |&seed| (point, controller, seed))
        })
    });
    for (point, controller, seed) in runs {
        let label = || {
            format!(
                "point `{}`, controller `{}`, seed {}",
                point.point,
                controller.label(),
                seed
            )
        };
        if let Some(first) = seen.insert(run_id(point, controller, seed), label()) {
            return Err(HarnessError::bad_input(format!(
                "{first} and {} are the same run (equal values once parsed, in other spellings): \
                 list each axis value, controller and seed once",
                label()
            )));
        }
    }
    Ok(())
}

/// Refuses command-line options that would be silently ignored: `--ns3` settings when no
/// point runs on ns-3, and netsim's per-direction link settings on points that do (there the
/// 802.11 MAC and PHY take the link's place).
fn check_backend_overrides(points: &[Scenario], overrides: &[Override]) -> Result<()> {
    if points.iter().all(|p| p.backend.is_netsim()) {
        return match overrides.iter().find(|o| o.key.starts_with("ns3.")) {
            Some(o) => Err(HarnessError::bad_input(format!(
                "{}: sets the ns-3 scenario ({}), but the runs use netsim; add --backend ns3",
                o.flag, o.key
            ))),
            None => Ok(()),
        };
    }
    let direction = |key: &str| {
        ["link.a_to_b", "link.b_to_a", "link.mac"]
            .iter()
            .any(|prefix| key.starts_with(prefix))
    };
    match overrides.iter().find(|o| direction(&o.key)) {
        Some(o) => Err(HarnessError::bad_input(format!(
            "{}: sets netsim's link ({}), which the ns-3 backend does not use: there the 802.11 \
             MAC and PHY carry the datagrams (set them with --ns3, e.g. --ns3 \
             wifi.data_rate_mbps=11 or --ns3 wifi.queue_packets=100)",
            o.flag, o.key
        ))),
        None => Ok(()),
    }
}

struct ResolvedAxis {
    index: usize,
    key: String,
    name: String,
    values: Vec<(Value, String)>,
}

fn cartesian(axes: &[ResolvedAxis]) -> Vec<Vec<usize>> {
    let mut combos = vec![Vec::new()];
    for axis in axes {
        combos = combos
            .into_iter()
            .flat_map(|c| {
                (0..axis.values.len()).map(move |i| {
                    let mut next = c.clone();
                    next.push(i);
                    next
                })
            })
            .collect();
    }
    combos
}

fn value_label(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Table(t) => t
            .iter()
            .map(|(k, v)| format!("{k}={}", value_label(v)))
            .collect::<Vec<_>>()
            .join(" "),
        other => other.to_string(),
    }
}

struct Context<'a> {
    source: &'a Source,
    doc: &'a Table,
    overrides: &'a [Override],
    /// Refuse points that this build cannot run (the ns-3 backend without its feature).
    runnable: bool,
}

impl Context<'_> {
    /// A bad-input error about `field`, with the line it is written on if it is in the file.
    fn field_error(&self, field: &str, message: impl std::fmt::Display) -> HarnessError {
        let from_flag = self.overrides.iter().rev().find(|o| {
            let key = o.key.as_str();
            field == key
                || field.starts_with(&format!("{key}."))
                || field.starts_with(&format!("{key}["))
                || key.starts_with(&format!("{field}."))
        });
        if let Some(o) = from_flag {
            return HarnessError::bad_input(format!("{}: {message}", o.flag));
        }
        let mut candidates = vec![field.to_owned()];
        for dir in ["a_to_b", "b_to_a"] {
            let prefix = format!("link.{dir}.");
            if let Some(rest) = field.strip_prefix(&prefix) {
                candidates.push(format!("link.both.{rest}"));
            }
        }
        let line = candidates
            .iter()
            .find_map(|c| tomldoc::line_of(&self.source.text, &split_path(c)));
        match line {
            Some(line) => {
                HarnessError::bad_input(format!("{}: line {line}: {message}", self.source.name))
            }
            None => HarnessError::bad_input(format!("{}: {message}", self.source.name)),
        }
    }

    /// Refuses an axis over netsim's per-direction link settings when points run on ns-3:
    /// the 802.11 MAC and PHY replace them there, so every point would run the same network.
    fn check_backend_axes(&self, points: &[Scenario], axes: &[ResolvedAxis]) -> Result<()> {
        if points.iter().all(|p| p.backend.is_netsim()) {
            return Ok(());
        }
        let direction = |key: &str| {
            ["link.both", "link.a_to_b", "link.b_to_a", "link.mac"]
                .iter()
                .any(|prefix| key == *prefix || key.starts_with(&format!("{prefix}.")))
        };
        for axis in axes {
            let whole_link = axis.key == "link"
                && axis.values.iter().any(|(value, _)| {
                    value
                        .as_table()
                        .is_some_and(|t| t.keys().any(|k| k != "path"))
                });
            if direction(&axis.key) || whole_link {
                return Err(self.field_error(
                    &format!("axis[{}].key", axis.index),
                    format!(
                        "axis `{}` varies netsim's link settings ({}), which the ns-3 backend \
                         does not use (the 802.11 MAC and PHY carry the datagrams there): every \
                         point would run the same network; vary `ns3.*` keys instead",
                        axis.name, axis.key
                    ),
                ));
            }
        }
        Ok(())
    }

    fn axes(&self, axes: &[Axis]) -> Result<Vec<ResolvedAxis>> {
        let mut resolved: Vec<ResolvedAxis> = Vec::new();
        let mut points: usize = 1;
        for (index, axis) in axes.iter().enumerate() {
            let field = format!("axis[{index}]");
            let root = axis.key.split('.').next().unwrap_or_default();
            if NOT_AXES.contains(&root) {
                return Err(self.field_error(
                    &format!("{field}.key"),
                    format!(
                        "{field}.key = \"{}\": `{root}` is not a scenario setting and cannot be an axis{}",
                        axis.key,
                        if root == "seeds" {
                            " (list the seeds instead: seeds = [1, 2, 3])"
                        } else {
                            ""
                        }
                    ),
                ));
            }
            let overlaps = |a: &str, b: &str| {
                a == b || a.starts_with(&format!("{b}.")) || b.starts_with(&format!("{a}."))
            };
            if let Some(other) = resolved.iter().find(|r| overlaps(&r.key, &axis.key)) {
                return Err(self.field_error(
                    &format!("{field}.key"),
                    format!(
                        "{field}.key = \"{}\" sets what axis[{}] (`{}`) sets: two axes would give points that differ only in their labels",
                        axis.key, other.index, other.key
                    ),
                ));
            }
            points = points.saturating_mul(axis.values.len());
            if points > MAX_POINTS {
                return Err(self.field_error(
                    &format!("{field}.values"),
                    format!(
                        "the axes up to axis[{index}] make more than {MAX_POINTS} points: split the grid into several files or sweeps"
                    ),
                ));
            }
            if axis.values.is_empty() {
                return Err(self.field_error(
                    &format!("{field}.values"),
                    format!("{field}.values must not be empty"),
                ));
            }
            if let Some(labels) = &axis.labels
                && labels.len() != axis.values.len()
            {
                return Err(self.field_error(
                    &format!("{field}.labels"),
                    format!(
                        "{field}.labels has {} entries but values has {}",
                        labels.len(),
                        axis.values.len()
                    ),
                ));
            }
            let values = axis
                .values
                .iter()
                .enumerate()
                .map(|(i, v)| {
                    let label = axis
                        .labels
                        .as_ref()
                        .map_or_else(|| value_label(v), |l| l[i].clone());
                    (v.clone(), label)
                })
                .collect();
            let values: Vec<(Value, String)> = values;
            for (i, (value, label)) in values.iter().enumerate() {
                if let Some(j) = values[..i].iter().position(|(v, _)| v == value) {
                    return Err(self.field_error(
                        &format!("{field}.values"),
                        format!("{field}.values[{i}] repeats values[{j}] ({}): the runs would be the same", value_label(value)),
                    ));
                }
                if let Some(j) = values[..i].iter().position(|(_, l)| l == label) {
                    return Err(self.field_error(
                        &format!("{field}.labels"),
                        format!("{field}: values[{j}] and values[{i}] have the same label `{label}`: their points would be merged in reports"),
                    ));
                }
            }
            let name = axis.name.clone().unwrap_or_else(|| axis.key.clone());
            if let Some(other) = resolved.iter().find(|r| r.name == name) {
                return Err(self.field_error(
                    &format!("{field}.name"),
                    format!("{field}.name = \"{name}\" is axis[{}]'s name too: table columns and point labels would collide", other.index),
                ));
            }
            resolved.push(ResolvedAxis {
                index,
                key: axis.key.clone(),
                name,
                values,
            });
        }
        Ok(resolved)
    }

    fn point(
        &self,
        base: &Table,
        axes: &[ResolvedAxis],
        combination: &[usize],
    ) -> Result<Scenario> {
        let mut doc = base.clone();
        let mut params = BTreeMap::new();
        let mut labels = Vec::new();
        for (axis, &i) in axes.iter().zip(combination) {
            let (value, label) = &axis.values[i];
            tomldoc::set_path(&mut doc, &axis.key, value.clone()).map_err(|e| {
                self.field_error(
                    &format!("axis[{}].key", axis.index),
                    format!("axis `{}`: cannot set `{}`: {e}", axis.name, axis.key),
                )
            })?;
            params.insert(axis.name.clone(), label.clone());
            labels.push(format!("{}={label}", axis.name));
        }
        let at = || {
            let parts: Vec<String> = axes
                .iter()
                .zip(combination)
                .map(|(a, &i)| format!("axis `{}` = {}", a.name, a.values[i].1))
                .collect();
            if parts.is_empty() {
                String::new()
            } else {
                format!(" (at {})", parts.join(", "))
            }
        };
        normalize_link(&mut doc);
        let file: ScenarioFile = Value::Table(doc).try_into().map_err(|e: toml::de::Error| {
            self.field_error("axis", format!("{}{}", e.message().trim(), at()))
        })?;
        let link = LinkConfig {
            a_to_b: file.link.a_to_b.unwrap_or_default(),
            b_to_a: file.link.b_to_a.unwrap_or_default(),
            path: file.link.path.unwrap_or_default(),
            mac: file.link.mac,
        };
        let netsim_error = |e: netsim::ConfigError| {
            let field = match &e {
                netsim::ConfigError::OutOfRange { field, .. }
                | netsim::ConfigError::Invalid { field, .. } => field.clone(),
                netsim::ConfigError::Parse { .. } => "link".to_owned(),
            };
            self.field_error(&field, format!("{e}{}", at()))
        };
        link.a_to_b.validate("link.a_to_b").map_err(netsim_error)?;
        link.b_to_a.validate("link.b_to_a").map_err(netsim_error)?;
        link.path.validate("link.path").map_err(netsim_error)?;
        if let Some(mac) = &link.mac {
            mac.validate("link.mac").map_err(netsim_error)?;
        }
        for (name, direction) in [("link.a_to_b", &link.a_to_b), ("link.b_to_a", &link.b_to_a)] {
            if direction.mtu < QUIC_MIN_DATAGRAM {
                return Err(self.field_error(
                    &format!("{name}.mtu"),
                    format!(
                        "{name}.mtu = {} is out of range: it must be in [{QUIC_MIN_DATAGRAM}, 65535] (QUIC needs datagrams of at least {QUIC_MIN_DATAGRAM} bytes, RFC 9000 section 14){}",
                        direction.mtu,
                        at()
                    ),
                ));
            }
        }

        if file.transfer.timeout.is_some() && file.transfer.bytes.is_none() {
            return Err(self.field_error(
                "transfer.timeout",
                "transfer.timeout applies only to `bytes` transfers (a duration transfer ends at its duration)",
            ));
        }
        let transfer = match (file.transfer.duration, file.transfer.bytes) {
            (Some(_), Some(_)) => {
                return Err(self.field_error(
                    "transfer.bytes",
                    "transfer: give either `duration` or `bytes`, not both",
                ));
            }
            (duration, None) => {
                let d = duration.unwrap_or(DEFAULT_DURATION);
                // Below a millisecond (the emulator's timer granularity) a run would not do
                // what was asked.
                if d < Duration::from_millis(1) || d > Duration::from_secs(86_400) {
                    return Err(self.field_error(
                        "transfer.duration",
                        format!(
                            "transfer.duration = {} is out of range: it must be in [1ms, 24h]{}",
                            netsim::units::format_duration(d),
                            at()
                        ),
                    ));
                }
                Transfer::Duration(d)
            }
            (None, Some(bytes)) => {
                if !(1..=1_000_000_000_000).contains(&bytes) {
                    return Err(self.field_error(
                        "transfer.bytes",
                        format!(
                            "transfer.bytes = {bytes} is out of range: it must be in [1, 1e12]{}",
                            at()
                        ),
                    ));
                }
                let timeout = file.transfer.timeout.unwrap_or(DEFAULT_TIMEOUT);
                if timeout.is_zero() || timeout > Duration::from_secs(7 * 86_400) {
                    return Err(self.field_error(
                        "transfer.timeout",
                        "transfer.timeout is out of range: it must be in (0, 7 days]",
                    ));
                }
                Transfer::Bytes {
                    bytes: bytes as u64,
                    timeout,
                }
            }
        };
        let listed = u32::try_from(file.flow.len()).unwrap_or(u32::MAX);
        if !file.flow.is_empty()
            && let Some(n) = file.flows
            && n != listed
        {
            return Err(self.field_error(
                "flows",
                format!(
                    "flows = {n} but {listed} [[flow]] tables: the tables list the flows, so give \
                     flows = {listed} or leave flows out"
                ),
            ));
        }
        let flows = if file.flow.is_empty() {
            file.flows.unwrap_or(1)
        } else {
            listed
        };
        if !(1..=MAX_FLOWS).contains(&flows) {
            return Err(self.field_error(
                "flows",
                format!("flows = {flows} is out of range: it must be in [1, {MAX_FLOWS}]"),
            ));
        }
        let flow_stagger = file.flow_stagger.unwrap_or(Duration::ZERO);
        if let Transfer::Duration(d) = transfer
            && flow_stagger.saturating_mul(flows - 1) >= d
        {
            return Err(self.field_error(
                "flow_stagger",
                format!(
                    "flow_stagger x (flows - 1) must be shorter than transfer.duration ({})",
                    netsim::units::format_duration(d)
                ),
            ));
        }
        let mut mix = Vec::new();
        for (i, entry) in file.flow.iter().enumerate() {
            let field = format!("flow[{i}]");
            if let Some(name) = &entry.controller {
                let named = |e: String| {
                    self.field_error(
                        &format!("{field}.controller"),
                        format!("{field}.controller: {e}"),
                    )
                };
                let info = registry::lookup(name).map_err(named)?;
                if matches!(info.stacks, [Stack::Quiche] | [Stack::Tcp]) {
                    return Err(self.field_error(
                        &format!("{field}.controller"),
                        format!(
                            "{field}.controller = \"{name}\": a mixed run's flows share one \
                             quinn or noq client; quiche's and ns-3's TCP controllers run alone"
                        ),
                    ));
                }
                info.sender(file.stack.unwrap_or_default()).map_err(named)?;
            }
            let start = entry
                .start
                .unwrap_or_else(|| flow_stagger.saturating_mul(i as u32));
            if let Transfer::Duration(d) = transfer
                && start >= d
            {
                return Err(self.field_error(
                    &format!("{field}.start"),
                    format!(
                        "{field}.start = {} must be shorter than transfer.duration ({})",
                        netsim::units::format_duration(start),
                        netsim::units::format_duration(d)
                    ),
                ));
            }
            let access_delay = entry.access_delay.unwrap_or_default();
            if access_delay > netsim::MAX_ACCESS_DELAY {
                return Err(self.field_error(
                    &format!("{field}.access_delay"),
                    format!(
                        "{field}.access_delay = {} must be at most {}",
                        netsim::units::format_duration(access_delay),
                        netsim::units::format_duration(netsim::MAX_ACCESS_DELAY)
                    ),
                ));
            }
            if !access_delay.is_zero() && file.backend.unwrap_or_default() != BackendKind::Netsim {
                return Err(self.field_error(
                    &format!("{field}.access_delay"),
                    format!(
                        "{field}.access_delay: a flow's own access link is netsim's; on the ns-3 \
                         backend every flow crosses the simulated network (drop access_delay)"
                    ),
                ));
            }
            mix.push(MixFlow {
                controller: entry.controller.clone(),
                start,
                access_delay,
            });
        }
        let mut signal = cc_core::SignalConfig::default();
        let packet_threshold = file.transport.packet_threshold.unwrap_or(3);
        signal
            .set_packet_threshold(packet_threshold)
            .map_err(|e| self.field_error("transport.packet_threshold", transport_error(&e)))?;
        let time_threshold = file.transport.time_threshold.unwrap_or(9.0 / 8.0);
        signal
            .set_time_threshold(time_threshold)
            .map_err(|e| self.field_error("transport.time_threshold", transport_error(&e)))?;
        let backend = match file.backend.unwrap_or_default() {
            BackendKind::Netsim
                if file.ns3.is_some()
                    && !self
                        .overrides
                        .iter()
                        .any(|o| o.key == "ns3" || o.key.starts_with("ns3.")) =>
            {
                // Only the ns-3 backend reads [ns3]: on netsim its keys would be ignored,
                // misspelt ones included. (`--ns3` on netsim has its own message, naming the
                // key: `check_backend_overrides`.)
                return Err(self.field_error(
                    "ns3",
                    format!(
                        "[ns3] configures the ns-3 backend, and this runs on netsim: set backend = \"ns3\" (--backend ns3) or remove the [ns3] table{}",
                        at()
                    ),
                ));
            }
            BackendKind::Netsim => Backend::Netsim,
            BackendKind::Ns3 => {
                if link.mac.is_some() {
                    return Err(self.field_error(
                        "link.mac",
                        format!(
                            "link.mac is netsim's 802.11 layer; the ns-3 backend models 802.11 itself (set its MAC with `[ns3.wifi]`, e.g. --ns3 wifi.rts_cts=true){}",
                            at()
                        ),
                    ));
                }
                let config = backend::resolve(&backend::inherited(&link), file.ns3.as_ref())
                    .map_err(|e| self.field_error("ns3", format!("ns3: {e}{}", at())))?;
                config.validate().map_err(|e| {
                    let field = match &e {
                        netsim::ConfigError::OutOfRange { field, .. }
                        | netsim::ConfigError::Invalid { field, .. } => field.clone(),
                        netsim::ConfigError::Parse { .. } => String::new(),
                    };
                    self.field_error(&format!("ns3.{field}"), format!("ns3.{e}{}", at()))
                })?;
                if self.runnable && !netsim_ns3::AVAILABLE {
                    return Err(
                        self.field_error("backend", netsim_ns3::Error::Unavailable.to_string())
                    );
                }
                Backend::Ns3(Box::new(config))
            }
        };
        if file.receiver == Some(Stack::Quiche) && !stack::QUICHE_AVAILABLE {
            return Err(self.field_error(
                "receiver",
                stack::unavailable("a quiche receiver (receiver = \"quiche\")"),
            ));
        }
        if file.stack == Some(Stack::Quiche) {
            return Err(self.field_error(
                "stack",
                "stack = \"quiche\": the host stack is \"quinn\" or \"noq\" (quiche cannot host \
                 the ports; its own controllers are quiche-reno, quiche-cubic and quiche-bbr2)",
            ));
        }
        Ok(Scenario {
            point: labels.join(" "),
            params,
            link,
            transfer,
            flows,
            flow_stagger,
            mix,
            transport: TransportSettings {
                idle_timeout: file.transport.idle_timeout.unwrap_or(None),
                packet_threshold,
                time_threshold,
                timeout_reading: file.transport.timeout_reading,
                quinn_full_window: file.transport.quinn_full_window.unwrap_or(false),
                ack_delay: match file.transport.ack_delay {
                    Some(d) if d < Duration::from_millis(1) || d > Duration::from_secs(1) => {
                        return Err(self.field_error(
                            "transport.ack_delay",
                            format!(
                                "transport.ack_delay = {} is out of range: it must be in [1ms, 1s]",
                                netsim::units::format_duration(d)
                            ),
                        ));
                    }
                    other => other,
                },
            },
            clock: file.clock.unwrap_or_default(),
            packet_protection: file.packet_protection.unwrap_or(
                match file.clock.unwrap_or_default() {
                    Clock::Virtual => PacketProtection::Null,
                    Clock::Real => PacketProtection::Tls,
                },
            ),
            stack: file.stack,
            receiver: file.receiver,
            backend,
        })
    }

    /// Refuses runs of ns-3's own TCP that cannot work: on netsim (which carries a QUIC stack's
    /// datagrams and has no TCP), with another receiver, or beside QUIC flows.
    fn check_tcp(&self, point: &Scenario, spec: &ControllerSpec) -> Result<()> {
        let name = &spec.name;
        if point.backend.is_netsim() {
            return Err(self.field_error(
                "backend",
                format!(
                    "controller `{name}` is ns-3's own TCP, not QUIC: it runs on the ns-3 \
                     backend only (backend = \"ns3\", --backend ns3, or an ns-3 preset such as \
                     ns3-chain); netsim carries the datagrams of a QUIC stack in this process \
                     and has no TCP"
                ),
            ));
        }
        if let Some(receiver) = point.receiver {
            return Err(self.field_error(
                "receiver",
                format!(
                    "controller `{name}` runs ns-3's TCP at both ends: it cannot send to a \
                     {receiver} receiver; drop receiver (--receiver)"
                ),
            ));
        }
        if !point.mix.is_empty() {
            return Err(self.field_error(
                "flow",
                format!(
                    "controller `{name}` is ns-3's own TCP: a mixed run's flows share one QUIC \
                     client, so it runs alone (drop [[flow]] and --mix)"
                ),
            ));
        }
        registry::tcp(spec).map_err(|e| self.field_error("controllers.select", e))?;
        Ok(())
    }

    /// Refuses runs with a quiche end that cannot work: virtual time (quiche reads the system
    /// clock), several flows (one connection per run), quinn's loss thresholds on a quiche
    /// sender (quiche's are fixed).
    fn check_stacks(&self, points: &[Scenario], specs: &[ControllerSpec]) -> Result<()> {
        for point in points {
            if !point.backend.is_netsim() && point.clock == Clock::Real {
                return Err(self.field_error(
                    "clock",
                    "the ns-3 backend runs in virtual time only (ns-3 is advanced in lock-step \
                     with tokio's paused clock); use clock = \"virtual\" (--clock virtual)",
                ));
            }
            for spec in specs {
                let info = registry::lookup(&spec.name)
                    .map_err(|e| self.field_error("controllers.select", e))?;
                let sender = info
                    .sender(point.stack.unwrap_or_default())
                    .map_err(|e| self.field_error("stack", e))?;
                if sender == Stack::Tcp {
                    self.check_tcp(point, spec)?;
                    continue;
                }
                let (sender, receiver) = stack::ends(sender, point.receiver);
                if !point.backend.is_netsim() && stack::involves_quiche(sender, receiver) {
                    return Err(self.field_error(
                        "backend",
                        format!(
                            "controller `{}` involves quiche, which needs real time; the ns-3 \
                             backend runs quinn in virtual time only",
                            spec.label()
                        ),
                    ));
                }
                if !stack::involves_quiche(sender, receiver) {
                    continue;
                }
                let label = spec.label();
                if sender == Stack::Noq || receiver == Stack::Noq {
                    return Err(self.field_error(
                        "stack",
                        format!(
                            "controller `{label}`: runs with a quiche end pair quiche with quinn \
                             (quiche-peer); use stack = \"quinn\" (--stack quinn) for them"
                        ),
                    ));
                }
                if point.clock == Clock::Virtual {
                    return Err(self.field_error(
                        "clock",
                        stack::virtual_time_refused(&label, sender, receiver),
                    ));
                }
                if point.flows != 1 {
                    return Err(self.field_error(
                        "flows",
                        format!(
                            "flows = {}: a run involving quiche (controller `{label}`, {sender} \
                             sender -> {receiver} receiver) carries one flow; use flows = 1 \
                             (--flows 1)",
                            point.flows
                        ),
                    ));
                }
                let default_time = 9.0_f32 / 8.0;
                if sender == Stack::Quiche
                    && (point.transport.packet_threshold != 3
                        || (point.transport.time_threshold - default_time).abs() > f32::EPSILON)
                {
                    return Err(self.field_error(
                        "transport.packet_threshold",
                        format!(
                            "transport.packet_threshold / time_threshold: controller `{label}` \
                             sends from quiche, whose loss thresholds are fixed (3 packets, \
                             9/8 RTT); leave them at 3 and 1.125 for quiche senders"
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    /// The grid's controllers: those selected, or every one that runs on all of `stacks` (the
    /// points' host stacks).
    fn controllers(
        &self,
        section: &ControllersSection,
        stacks: &[Stack],
    ) -> Result<Vec<ControllerSpec>> {
        for name in section.settings.keys() {
            registry::lookup(name)
                .map_err(|e| self.field_error(&format!("controllers.{name}"), e))?;
        }
        let names: Vec<String> = match &section.select {
            Some(list) if list.is_empty() => {
                return Err(
                    self.field_error("controllers.select", "controllers.select must not be empty")
                );
            }
            Some(list) => list.clone(),
            None => registry::names(stacks)
                .into_iter()
                .map(str::to_owned)
                .collect(),
        };
        let mut specs: Vec<ControllerSpec> = Vec::new();
        for name in names {
            if specs.iter().any(|s| s.name == name) {
                return Err(self.field_error(
                    "controllers.select",
                    format!("controller `{name}` is listed twice"),
                ));
            }
            let spec = ControllerSpec {
                settings: section.settings.get(&name).cloned().unwrap_or_default(),
                name,
            };
            registry::validate(&spec).map_err(|e| {
                // The knob the error names, or (a rule between knobs, such as ABRA's
                // `initial_srtt_range`) the first knob set: either way the settings, not the
                // selection, are at fault.
                let knobs: Vec<String> = spec
                    .settings
                    .keys()
                    .map(|k| format!("controllers.{}.{k}", spec.name))
                    .collect();
                let field = knobs
                    .iter()
                    .find(|f| e.contains(f.trim_start_matches("controllers.")))
                    .or(knobs.first())
                    .cloned()
                    .unwrap_or_else(|| "controllers.select".to_owned());
                self.field_error(&field, e)
            })?;
            specs.push(spec);
        }
        // Settings for controllers that are not selected are still checked.
        for (name, settings) in &section.settings {
            let spec = ControllerSpec {
                name: name.clone(),
                settings: settings.clone(),
            };
            registry::validate(&spec)
                .map_err(|e| self.field_error(&format!("controllers.{name}"), e))?;
        }
        Ok(specs)
    }

    fn seeds(&self, seeds: Option<&Seeds>) -> Result<Vec<u64>> {
        let seeds = match seeds {
            None => vec![1, 2, 3],
            Some(Seeds::Count(n)) => {
                if !(1..=MAX_SEEDS as i64).contains(n) {
                    return Err(self.field_error(
                        "seeds",
                        format!("seeds = {n} is out of range: a count must be in [1, {MAX_SEEDS}] (or give a list)"),
                    ));
                }
                (1..=*n as u64).collect()
            }
            Some(Seeds::List(list)) => {
                if list.is_empty() {
                    return Err(self.field_error("seeds", "seeds must not be an empty list"));
                }
                let mut out: Vec<u64> = Vec::new();
                for &s in list {
                    let Ok(seed) = u64::try_from(s) else {
                        return Err(self.field_error(
                            "seeds",
                            format!("seed {s} is negative: seeds are in [0, 2^63)"),
                        ));
                    };
                    if out.contains(&seed) {
                        return Err(
                            self.field_error("seeds", format!("seed {seed} is listed twice"))
                        );
                    }
                    out.push(seed);
                }
                out
            }
        };
        let _ = self.doc;
        Ok(seeds)
    }
}

fn transport_error(e: &cc_core::ConfigError) -> String {
    format!(
        "transport.{} = {} is out of range: it must be in {}",
        e.field, e.value, e.allowed
    )
}

/// Folds `[link.both]` into `[link.a_to_b]` and `[link.b_to_a]`: a direction's field replaces
/// `both`'s whole (a direction's `queue = { bytes = .. }` replaces `both`'s `{ packets = .. }`
/// rather than merging into a queue with two limits).
fn normalize_link(doc: &mut Table) {
    let Some(Value::Table(link)) = doc.get_mut("link") else {
        return;
    };
    let Some(Value::Table(both)) = link.remove("both") else {
        return;
    };
    for dir in ["a_to_b", "b_to_a"] {
        let mut merged = both.clone();
        if let Some(Value::Table(own)) = link.get(dir) {
            for (field, value) in own {
                merged.insert(field.clone(), value.clone());
            }
        }
        link.insert(dir.to_owned(), Value::Table(merged));
    }
}

impl Scenario {
    /// When flow `index` starts, link time: its listed start in a mixed run (flow `i` of every
    /// source/sink pair is entry `i`), else `index x flow_stagger`.
    pub fn flow_start(&self, index: u32) -> Duration {
        match self.mix.len() {
            0 => self.flow_stagger.saturating_mul(index),
            n => self.mix[index as usize % n].start,
        }
    }

    /// Flow `index`'s own access link, one way, in a mixed run (zero: none).
    pub fn flow_access_delay(&self, index: u32) -> Duration {
        match self.mix.len() {
            0 => Duration::ZERO,
            n => self.mix[index as usize % n].access_delay,
        }
    }

    /// Flow `index`'s own controller in a mixed run; `None`: the run's controller.
    pub fn flow_controller(&self, index: u32) -> Option<&str> {
        match self.mix.len() {
            0 => None,
            n => self.mix[index as usize % n].controller.as_deref(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source(text: &str) -> Source {
        Source {
            name: "test.toml".into(),
            default_name: "test".into(),
            text: text.into(),
        }
    }

    #[test]
    fn both_is_overridden_field_by_field() {
        let grid = load(
            &source("[link.both]\nrate = \"5Mbps\"\ndelay = \"10ms\"\n[link.b_to_a]\ndelay = \"20ms\"\n"),
            &[],
        )
        .unwrap();
        let link = &grid.points[0].link;
        assert_eq!(link.a_to_b.rate, netsim::Rate::from_mbps(5));
        assert_eq!(link.b_to_a.rate, netsim::Rate::from_mbps(5));
        assert_eq!(link.a_to_b.delay, Duration::from_millis(10));
        assert_eq!(link.b_to_a.delay, Duration::from_millis(20));
        assert_eq!(grid.seeds, vec![1, 2, 3]);
        assert_eq!(
            grid.controllers.len(),
            registry::names(&[Stack::Quinn]).len()
        );
    }

    #[test]
    fn axes_expand_to_the_cartesian_product_in_order() {
        let text = "[link.path]\nmodel = \"mobility\"\n[[axis]]\nkey = \"link.path\"\nname = \"speed\"\nvalues = [{ min_speed = 5.0, max_speed = 5.0 }, { min_speed = 10.0, max_speed = 10.0 }]\nlabels = [\"5\", \"10\"]\n[[axis]]\nkey = \"flows\"\nvalues = [1, 2]\n";
        let grid = load(&source(text), &[]).unwrap();
        let labels: Vec<&str> = grid.points.iter().map(|p| p.point.as_str()).collect();
        assert_eq!(
            labels,
            [
                "speed=5 flows=1",
                "speed=5 flows=2",
                "speed=10 flows=1",
                "speed=10 flows=2"
            ]
        );
        match &grid.points[2].link.path {
            PathModelConfig::Mobility(m) => {
                assert_eq!((m.min_speed, m.max_speed, m.nodes), (10.0, 10.0, 50))
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn errors_name_line_and_field() {
        let err = load(
            &source("flows = 2\n[link.both]\nrate = 7\nmtu = \"big\"\n"),
            &[],
        )
        .unwrap_err();
        let msg = err.to_string();
        assert!(
            msg.contains("line 4") && msg.contains("link.both.mtu"),
            "{msg}"
        );
        let err = load(
            &source("\n[link.both]\nerrors = [{ model = \"ber\", ber = 1.5 }]\n"),
            &[],
        )
        .unwrap_err();
        let msg = err.to_string();
        assert!(
            msg.contains("line 3") && msg.contains("errors[0].ber") && msg.contains("[0, 1)"),
            "{msg}"
        );
    }
}
