//! What a scenario file resolves to: a [`Grid`] of [`Scenario`] points with their controllers
//! and seeds, and where the text came from ([`Source`], [`Override`]). Plain data: reading and
//! checking a file is `load`'s, `grid`'s and `point`'s.

use std::collections::BTreeMap;
use std::time::Duration;

use netsim::{Clock, LinkConfig, PacketProtection};
use serde::{Deserialize, Serialize};
use toml::Value;

use crate::error::Result;
use crate::registry::ResolvedController;
use crate::scenario::backend::Backend;
use crate::stack::Stack;

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

/// How each flow's transfer is sized.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Transfer {
    /// Each flow sends for this long (link time); goodput counts what arrived in order by then.
    Duration(#[serde(with = "crate::scenario::units::duration")] Duration),
    /// Each flow sends `bytes`; the run ends when all have arrived, or fails after `timeout`.
    Bytes {
        /// Bytes per flow.
        bytes: u64,
        /// Link time after which an unfinished run fails.
        #[serde(with = "crate::scenario::units::duration")]
        timeout: Duration,
    },
}

/// quinn transport settings the harness controls.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TransportSettings {
    /// quinn's `max_idle_timeout` (`None` = off, the default: a MANET outage must not kill the
    /// connection; the run's own deadline bounds it).
    #[serde(
        serialize_with = "crate::scenario::units::duration_or_off::serialize",
        deserialize_with = "crate::scenario::units::duration_or_off::deserialize_resolved"
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
    /// N (`None`, the default: each port config's own `quinn_full_window`, on for manet).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quinn_full_window: Option<bool>,
    /// The longest the receiver may hold an ACK, asked of it through QUIC's ACK frequency
    /// extension (`None`, the default: no request; the peer's own 25 ms). quinn caps what it
    /// asks at the larger of the path's RTT and 25 ms. Range `[1ms, 1s]`.
    #[serde(
        default,
        with = "crate::scenario::units::opt_duration",
        skip_serializing_if = "Option::is_none"
    )]
    pub ack_delay: Option<Duration>,
}

/// quinn's and noq's default packet threshold (RFC 9002's kPacketThreshold).
pub const DEFAULT_PACKET_THRESHOLD: u32 = 3;
/// quinn's and noq's default time threshold (RFC 9002's kTimeThreshold).
pub const DEFAULT_TIME_THRESHOLD: f32 = 9.0 / 8.0;

impl Default for TransportSettings {
    fn default() -> Self {
        Self {
            idle_timeout: None,
            packet_threshold: DEFAULT_PACKET_THRESHOLD,
            time_threshold: DEFAULT_TIME_THRESHOLD,
            timeout_reading: None,
            quinn_full_window: None,
            ack_delay: None,
        }
    }
}

impl TransportSettings {
    /// The fields set to other than their defaults, as scenario keys (`transport.ack_delay`).
    pub fn given(&self) -> Vec<&'static str> {
        let default = Self::default();
        [
            (
                "transport.idle_timeout",
                self.idle_timeout != default.idle_timeout,
            ),
            (
                "transport.packet_threshold",
                self.packet_threshold != default.packet_threshold,
            ),
            (
                "transport.time_threshold",
                self.time_threshold != default.time_threshold,
            ),
            ("transport.timeout_reading", self.timeout_reading.is_some()),
            (
                "transport.quinn_full_window",
                self.quinn_full_window.is_some(),
            ),
            ("transport.ack_delay", self.ack_delay.is_some()),
        ]
        .into_iter()
        .filter_map(|(key, given)| given.then_some(key))
        .collect()
    }

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
    /// Its controller (by registry name, default settings), resolved where the scenario is
    /// read; `None`: the run's controller. Written as its name.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::registry::by_name"
    )]
    pub controller: Option<ResolvedController>,
    /// When it starts, link time.
    #[serde(with = "crate::scenario::units::duration")]
    pub start: Duration,
    /// One-way delay of its own access link (zero: none): its round trip is the path's plus
    /// twice this (netsim's `SimLink::attach`).
    #[serde(
        default,
        with = "crate::scenario::units::duration",
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
    #[serde(with = "crate::scenario::units::duration")]
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
    pub controllers: Vec<ResolvedController>,
    /// Seeds, in order.
    pub seeds: Vec<u64>,
    /// Each run's id, in grid order (point, controller, seed): computed once, when the load
    /// checks that no two runs are the same, and handed to the run's spec.
    pub(super) run_ids: Vec<String>,
}

impl Grid {
    /// The id of the run at `index` in grid order (point, controller, seed), if there is one.
    pub fn run_id(&self, index: usize) -> Option<&str> {
        self.run_ids.get(index).map(String::as_str)
    }

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
    /// The directory relative paths in the text are read from: the scenario file's (`None`
    /// for a preset or a text given whole, whose relative paths are the working directory's).
    pub dir: Option<std::path::PathBuf>,
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
            dir: path.parent().map(std::path::Path::to_path_buf),
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
            n => self.mix[index as usize % n]
                .controller
                .as_ref()
                .map(|c| c.name.as_str()),
        }
    }
}
