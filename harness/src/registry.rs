//! The controller registry: every controller the harness can run, by name, with its knobs.
//!
//! The ports' entries derive from their configs' declarations (`cc_core::port_config!`): name,
//! description, knobs with their defaults (read from `Default`) and ranges, and the builder;
//! the list of ports is `cc_ports::visit_ports`.
//!
//! Knobs are set per controller with `--set NAME.KNOB=VALUE` on the command line or a
//! `[controllers.NAME]` table in a scenario file. Every unknown name, unknown knob, wrongly typed
//! value or value outside the knob's range is an error that names it and the allowed range.
//!
//! quinn's BBR seeds a random number generator from the operating system (quinn-proto 0.11.19
//! `congestion/bbr/mod.rs`: `Pcg32::from_rng(&mut rand::rng())`) and draws the ProbeBW
//! gain-cycle offset from it. In quinn 0.11 that offset only sets `pacing_gain`, which feeds the
//! `pacing_rate` BBR reports in `metrics()` and the timing of later gain-cycle steps; the window
//! (`cwnd_gain` x BDP) does not depend on it, and quinn's pacer paces from the window and the
//! RTT, not from `pacing_rate`. So BBR runs are reproducible for a seed (the test suite checks
//! this byte for byte); only the `pacing_rate` field of BBR's qlog recovery metrics varies
//! between identical runs. `reproducible` stays in the registry so that a controller whose
//! behaviour does depend on unseeded randomness is flagged in every report.

use std::collections::BTreeMap;
use std::sync::LazyLock;
use std::time::Duration;

use cc_core::{KnobKind, KnobValue, PortConfig};
use cc_ports::noq::NoqBaseline;
use cc_ports::{PortVisitor, QuinnBaseline};
use serde::{Deserialize, Serialize};
use toml::Value;

use crate::stack::{self, Stack};

/// A controller to run: its registry name and knob settings (knob name -> value).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ControllerSpec {
    /// Registry name, e.g. `karak`.
    pub name: String,
    /// Knob settings; empty for the defaults (the paper's values for the ports).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub settings: BTreeMap<String, Value>,
}

impl ControllerSpec {
    /// The label used in tables: the name, plus the settings if any
    /// (`karak{one_dup_ack_factor=0.2}`).
    pub fn label(&self) -> String {
        if self.settings.is_empty() {
            return self.name.clone();
        }
        let settings: Vec<String> = self
            .settings
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        format!("{}{{{}}}", self.name, settings.join(","))
    }
}

/// A controller resolved once, where a grid is loaded: its registry entry, its validated spec,
/// and the identity its runs hash ([`ControllerIdentity`]). Runs build from it and never look
/// the name up again; it reads as its spec (`Deref`) and travels (to an ns-3 worker) as its
/// spec, which the receiving process resolves again with its own code.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(into = "ControllerSpec", try_from = "ControllerSpec")]
pub struct ResolvedController {
    spec: ControllerSpec,
    info: &'static ControllerInfo,
    identity: ControllerIdentity,
}

impl ResolvedController {
    /// The registry entry.
    pub fn info(&self) -> &'static ControllerInfo {
        self.info
    }

    /// The spec as written.
    pub fn spec(&self) -> &ControllerSpec {
        &self.spec
    }

    /// What a run of it hashes: its revision and effective configuration.
    pub fn identity(&self) -> &ControllerIdentity {
        &self.identity
    }
}

impl std::ops::Deref for ResolvedController {
    type Target = ControllerSpec;

    fn deref(&self) -> &ControllerSpec {
        &self.spec
    }
}

impl PartialEq for ResolvedController {
    fn eq(&self, other: &Self) -> bool {
        self.spec == other.spec && self.identity == other.identity
    }
}

impl From<ResolvedController> for ControllerSpec {
    fn from(resolved: ResolvedController) -> Self {
        resolved.spec
    }
}

impl TryFrom<ControllerSpec> for ResolvedController {
    type Error = String;

    fn try_from(spec: ControllerSpec) -> Result<Self, String> {
        resolve(&spec)
    }
}

/// Which code decides a controller's behaviour, as a run's identity records it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Revision {
    /// A port's declared behaviour revision (`port_config!`'s `revision`,
    /// [`cc_core::PortConfig::REVISION`]).
    Port(u32),
    /// The host stack's own controller (quinn's, noq's or quiche's) or ns-3's TCP: the stack's
    /// or ns-3's version decides it, and every run's identity holds those versions.
    Stack,
}

/// What a controller contributes to a run's identity: its name, its behaviour revision, and its
/// effective configuration with every default filled in, so that a changed default or decision
/// changes every id of its runs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ControllerIdentity {
    /// Registry name.
    pub name: String,
    /// The code that decides.
    pub revision: Revision,
    /// The configuration the run builds: a port's whole config (every knob, its loss-signal
    /// settings, `quinn_full_window`), a baseline's initial window and loss factor, ns-3 TCP's
    /// segment size; the scenario's transport settings, hashed beside it, adjust the first.
    pub config: serde_json::Value,
}

/// Resolves `spec` once: its entry, its settings checked, its identity. Errors name
/// `controller.knob` and the allowed range (as [`validate`]).
pub fn resolve(spec: &ControllerSpec) -> Result<ResolvedController, String> {
    let info = lookup(&spec.name)?;
    let (revision, config) = match info.builder {
        Builder::Ns3Tcp(_) => {
            let (_, segment) = tcp(spec)?;
            (
                Revision::Stack,
                serde_json::json!({ "segment_size": segment }),
            )
        }
        Builder::Quiche => {
            Settings::new(info, &spec.settings)?;
            (Revision::Stack, serde_json::json!({}))
        }
        Builder::Baseline(baseline) => {
            let settings = Settings::new(info, &spec.settings)?;
            let window = settings.quinn_window()?.unwrap_or(QUINN_INITIAL_WINDOW);
            let mut config = serde_json::json!({ "initial_window": window });
            if baseline == Baseline::NewReno {
                let factor = loss_reduction_factor(&settings)?.unwrap_or(0.5);
                config["loss_reduction_factor"] = serde_json::json!(factor);
            }
            (Revision::Stack, config)
        }
        Builder::Port { identity } => {
            let settings = Settings::new(info, &spec.settings)?;
            identity(&settings)?
        }
    };
    Ok(ResolvedController {
        spec: spec.clone(),
        info,
        identity: ControllerIdentity {
            name: info.name.to_owned(),
            revision,
            config,
        },
    })
}

/// The resolved default of the controller `name` (a mixed run's other flows run these).
pub fn resolve_name(name: &str) -> Result<ResolvedController, String> {
    resolve(&ControllerSpec {
        name: name.to_owned(),
        settings: BTreeMap::new(),
    })
}

/// Serde for a mixed run's flow controller: written as its registry name, or as its spec (name
/// and knobs) when it has knobs; resolved again when read.
pub mod by_name {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use super::{ControllerSpec, ResolvedController, resolve};

    #[derive(Serialize, Deserialize)]
    #[serde(untagged)]
    enum Written {
        Name(String),
        Spec(ControllerSpec),
    }

    /// Writes the controller's name, or its spec when it has knobs.
    pub fn serialize<S: Serializer>(
        controller: &Option<ResolvedController>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        match controller {
            Some(c) if c.settings.is_empty() => serializer.serialize_some(c.name.as_str()),
            Some(c) => serializer.serialize_some(&Written::Spec(c.spec().clone())),
            None => serializer.serialize_none(),
        }
    }

    /// Reads a name or a spec and resolves it.
    pub fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Option<ResolvedController>, D::Error> {
        Option::<Written>::deserialize(deserializer)?
            .map(|written| {
                let spec = match written {
                    Written::Name(name) => ControllerSpec {
                        name,
                        settings: Default::default(),
                    },
                    Written::Spec(spec) => spec,
                };
                resolve(&spec).map_err(serde::de::Error::custom)
            })
            .transpose()
    }
}

/// quinn's and noq's documented initial window, bytes (their configs have no getters).
const QUINN_INITIAL_WINDOW: u64 = 14720;

/// One configurable knob of a controller, as `harness controllers` lists it.
#[derive(Clone, Debug)]
pub struct Knob {
    /// Its name in `--set NAME.KNOB=VALUE`.
    pub name: &'static str,
    /// Its value type.
    pub kind: KnobKind,
    /// What it does, its default and its allowed range (for a port: from its declaration).
    pub help: String,
}

/// A host stack's own controller, by algorithm: quinn's or noq's, by the run's stack.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Baseline {
    /// NewReno (both stacks).
    NewReno,
    /// CUBIC (both stacks).
    Cubic,
    /// BBR v1 (quinn only).
    Bbr,
    /// BBRv3 (noq only).
    Bbr3,
}

/// How a registry entry builds its factory.
#[derive(Clone, Copy)]
pub(crate) enum Builder {
    /// One of the host stack's own controllers.
    Baseline(Baseline),
    /// A port: its config, checked by [`configure`] for its config type, as its revision and
    /// effective configuration (`crate::run::build` makes its factory on a host stack).
    Port {
        identity: fn(&Settings<'_>) -> Result<(Revision, serde_json::Value), String>,
    },
    /// A quiche controller: no quinn or noq factory.
    Quiche,
    /// ns-3's own TCP with this congestion control: no QUIC at all (`crate::run::ns3_tcp`).
    Ns3Tcp(netsim_ns3::TcpVariant),
}

/// A registry entry.
#[derive(Clone)]
pub struct ControllerInfo {
    /// Registry name.
    pub name: &'static str,
    /// One-line description.
    pub description: &'static str,
    /// The QUIC stacks that can run it as a sender (the run's `stack` picks one).
    pub stacks: &'static [Stack],
    /// True for the workspace's ports (they report loss-signal classes); false for quinn's and
    /// quiche's own.
    pub port: bool,
    /// False when the controller draws from an unseeded RNG in a way that changes its runs.
    pub reproducible: bool,
    /// Its knobs.
    pub knobs: Vec<Knob>,
    /// Whether a grid that names no controllers runs it ([`names`]): not the fixed-window
    /// reference, whose size a sweep sets.
    pub by_default: bool,
    builder: Builder,
}

impl std::fmt::Debug for ControllerInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ControllerInfo")
            .field("name", &self.name)
            .field("stacks", &self.stacks)
            .field("knobs", &self.knobs)
            .finish_non_exhaustive()
    }
}

impl ControllerInfo {
    /// The stack that sends with this controller in a run whose host stack is `host`: quiche
    /// for quiche's controllers, else `host`, or an error naming the stacks it runs on.
    pub fn sender(&self, host: Stack) -> Result<Stack, String> {
        // quiche's and ns-3's TCP controllers run in their own stack whatever the host is.
        if let [own @ (Stack::Quiche | Stack::Tcp)] = self.stacks {
            return Ok(*own);
        }
        if self.stacks.contains(&host) {
            return Ok(host);
        }
        let on: Vec<&str> = self.stacks.iter().map(|s| s.name()).collect();
        let hint = match self.name {
            "bbr" => " (noq ships BBRv3: `bbr3`)",
            "bbr3" => " (quinn 0.11 ships BBR v1: `bbr`)",
            _ => "",
        };
        Err(format!(
            "controller `{}` runs on {} only, not on {host}{hint}",
            self.name,
            on.join(" and ")
        ))
    }
}

/// quinn's initial window knob (quinn's configs have no getters: the default is quinn's
/// documented 14720 bytes).
fn quinn_window_knob() -> Knob {
    Knob {
        name: "initial_window",
        kind: KnobKind::Integer,
        help: format!(
            "initial window in bytes (default {QUINN_INITIAL_WINDOW}; 2400 to 1073741824)"
        ),
    }
}

fn baseline_entry(baseline: Baseline) -> ControllerInfo {
    let mut knobs = vec![quinn_window_knob()];
    if baseline == Baseline::NewReno {
        knobs.push(Knob {
            name: "loss_reduction_factor",
            kind: KnobKind::Float,
            help: "window multiplier on a loss (default 0.5; (0, 1])".to_owned(),
        });
    }
    let (name, description, stacks, reproducible): (_, _, &'static [Stack], _) = match baseline {
        Baseline::NewReno => (
            "newreno",
            "NewReno (RFC 9002), the run's stack's own: quinn's or noq's",
            &[Stack::Quinn, Stack::Noq],
            true,
        ),
        Baseline::Cubic => (
            "cubic",
            "CUBIC (RFC 9438), the run's stack's own and its default: quinn's or noq's",
            &[Stack::Quinn, Stack::Noq],
            true,
        ),
        Baseline::Bbr => (
            QuinnBaseline::Bbr.name(),
            QuinnBaseline::Bbr.summary(),
            &[Stack::Quinn],
            true,
        ),
        Baseline::Bbr3 => (
            NoqBaseline::Bbr3.name(),
            NoqBaseline::Bbr3.summary(),
            &[Stack::Noq],
            false,
        ),
    };
    ControllerInfo {
        name,
        description,
        stacks,
        port: false,
        reproducible,
        knobs,
        by_default: true,
        builder: Builder::Baseline(baseline),
    }
}

/// A port's entry, derived from its config's declaration.
fn port_entry<C: PortConfig>() -> ControllerInfo {
    let defaults = C::default();
    let knobs = C::KNOBS
        .iter()
        .map(|k| Knob {
            name: k.name,
            kind: k.kind,
            help: format!(
                "{} (default {}; {})",
                k.summary(),
                (k.get)(&defaults),
                k.range.describe()
            )
            .replace("; any)", ")"),
        })
        .collect();
    ControllerInfo {
        name: C::NAME,
        description: C::SUMMARY,
        stacks: &[Stack::Quinn, Stack::Noq],
        port: true,
        reproducible: true,
        knobs,
        by_default: C::NAME != <cc_manet::FixedWindowConfig as PortConfig>::NAME,
        builder: Builder::Port {
            identity: |s| {
                let config = configure::<C>(s)?;
                let json = serde_json::to_value(&config)
                    .map_err(|e| format!("{}: cannot encode its configuration: {e}", C::NAME))?;
                Ok((Revision::Port(C::REVISION), json))
            },
        },
    }
}

/// quiche's controllers (quiche senders; registered only with the `quiche` feature). quiche has
/// no congestion-control plugin API, so the ports cannot run in it and these have no knobs.
fn quiche_entries() -> Vec<ControllerInfo> {
    [
        (
            "quiche-reno",
            "quiche's Reno (RFC 9002 NewReno, HyStart++); real time only",
        ),
        (
            "quiche-cubic",
            "quiche's CUBIC (RFC 9438, HyStart++), quiche's default; real time only",
        ),
        (
            "quiche-bbr2",
            "quiche's BBRv2 (gcongestion, a port of Chromium's), paced; real time only",
        ),
    ]
    .into_iter()
    .map(|(name, description)| ControllerInfo {
        name,
        description,
        stacks: &[Stack::Quiche],
        port: false,
        reproducible: false,
        knobs: Vec::new(),
        by_default: false,
        builder: Builder::Quiche,
    })
    .collect()
}

/// ns-3's own TCP congestion controls (the ns-3 backend only). Their one knob is the segment
/// size: by default the IP packets on the air are as long as the QUIC runs' largest ones.
fn tcp_entries() -> Vec<ControllerInfo> {
    use netsim_ns3::TcpVariant;
    TcpVariant::ALL
        .into_iter()
        .map(|variant| {
            let (name, description) = match variant {
                TcpVariant::NewReno => (
                    "tcp-newreno",
                    "ns-3's own TCP NewReno (RFC 5681/6582), not QUIC; the ns-3 backend only",
                ),
                TcpVariant::Cubic => (
                    "tcp-cubic",
                    "ns-3's own TCP CUBIC, not QUIC; the ns-3 backend only",
                ),
                TcpVariant::Vegas => (
                    "tcp-vegas",
                    "ns-3's own TCP Vegas, not QUIC; the ns-3 backend only",
                ),
                TcpVariant::Westwood => (
                    "tcp-westwood",
                    "ns-3's own TCP Westwood, not QUIC; the ns-3 backend only; removed from ns-3 \
                     in 3.38 for a bandwidth-estimation bug (GitLab issue 579): no yardstick",
                ),
                TcpVariant::WestwoodPlus => (
                    "tcp-westwoodplus",
                    "ns-3's own TCP Westwood+, not QUIC; the ns-3 backend only; removed from \
                     ns-3 in 3.38 for a bandwidth-estimation bug (GitLab issue 579): no yardstick",
                ),
            };
            ControllerInfo {
                name,
                description,
                stacks: &[Stack::Tcp],
                port: false,
                reproducible: true,
                knobs: vec![Knob {
                    name: "segment_size",
                    kind: KnobKind::Integer,
                    help: format!(
                        "TCP segment payload in bytes (default {TCP_SEGMENT_BYTES}: with its 32 \
                         bytes of TCP header and timestamps, as long an IP packet as quinn's \
                         largest datagram, 1452 bytes plus 8 of UDP; 100 to {})",
                        netsim_ns3::MAX_SEGMENT_BYTES
                    ),
                }],
                by_default: false,
                builder: Builder::Ns3Tcp(variant),
            }
        })
        .collect()
}

/// ns-3 TCP's default segment: quinn's largest datagram payload on ns-3 (1452 bytes, the upper
/// bound of its path MTU discovery, which the 802.11 device's 2296-byte MTU lets it reach) plus
/// the 8-byte UDP header, less TCP's 20-byte header and 12 bytes of timestamp option.
pub const TCP_SEGMENT_BYTES: u32 = 1452 + 8 - 32;

/// The stacks' own controllers (quinn's and noq's), then the ports (from
/// [`cc_ports::visit_ports`]), then (with the `quiche` feature) quiche's.
static REGISTRY: LazyLock<Vec<ControllerInfo>> = LazyLock::new(|| {
    struct Ports(Vec<ControllerInfo>);
    impl PortVisitor for Ports {
        fn visit<C: PortConfig>(&mut self) {
            self.0.push(port_entry::<C>());
        }
    }
    let baselines = [
        Baseline::NewReno,
        Baseline::Cubic,
        Baseline::Bbr,
        Baseline::Bbr3,
    ];
    let mut entries = Ports(baselines.into_iter().map(baseline_entry).collect());
    cc_ports::visit_ports(&mut entries);
    let mut entries = entries.0;
    entries.extend(tcp_entries());
    if stack::QUICHE_AVAILABLE {
        entries.extend(quiche_entries());
    }
    entries
});

/// Every available controller: the stacks' own, then the ports, then (with the `quiche`
/// feature) quiche's.
pub fn all() -> &'static [ControllerInfo] {
    &REGISTRY
}

/// The controllers a grid runs when it names none: those that run on every one of `stacks`
/// (the stacks' own, the ports and the composite; not quiche's, which need real time, nor
/// ns-3's TCP, nor the fixed-window reference). On quinn: NewReno,
/// Cubic, BBR and the ports; on noq: NewReno, Cubic, BBRv3 and the ports.
pub fn names(stacks: &[Stack]) -> Vec<&'static str> {
    all()
        .iter()
        .filter(|c| c.by_default)
        .filter(|c| stacks.iter().all(|s| c.stacks.contains(s)))
        .map(|c| c.name)
        .collect()
}

/// The entry named `name`, or an error listing the available names (and, for a quiche
/// controller in a harness built without the `quiche` feature, how to build it).
pub fn lookup(name: &str) -> Result<&'static ControllerInfo, String> {
    if let Some(info) = all().iter().find(|c| c.name == name) {
        return Ok(info);
    }
    if stack::QUICHE_CONTROLLERS.contains(&name) {
        return Err(stack::unavailable(&format!("controller `{name}`")));
    }
    let available: Vec<&str> = all().iter().map(|c| c.name).collect();
    Err(format!(
        "unknown controller `{name}` (available: {})",
        available.join(", ")
    ))
}

/// Checks a spec without building it: the name exists, every knob exists and every value has
/// the right type and range. Errors name `controller.knob` and the allowed range.
pub fn validate(spec: &ControllerSpec) -> Result<(), String> {
    resolve(spec).map(drop)
}

/// How `info` is built: `crate::run::build` reads it.
pub(crate) fn builder(info: &ControllerInfo) -> Builder {
    info.builder
}

/// A port's config `C` from its defaults and the settings, each knob through its declared
/// setter, then the config's own validation.
pub(crate) fn configure<C: PortConfig>(s: &Settings<'_>) -> Result<C, String> {
    let mut config = C::default();
    for knob in C::KNOBS {
        if let Some(value) = s.value(knob.name)? {
            (knob.set)(&mut config, value).map_err(|e| s.range(e))?;
        }
    }
    config.validate().map_err(|e| s.range(e))?;
    Ok(config)
}

/// ns-3's TCP for `spec`: its congestion control and segment size, or an error naming
/// `controller.knob` and the range (or that `spec` is not one of ns-3's TCP controllers).
pub fn tcp(spec: &ControllerSpec) -> Result<(netsim_ns3::TcpVariant, u32), String> {
    let info = lookup(&spec.name)?;
    let Builder::Ns3Tcp(variant) = info.builder else {
        return Err(format!("controller `{}` is not ns-3's TCP", info.name));
    };
    let settings = Settings::new(info, &spec.settings)?;
    let segment = match settings.value("segment_size")? {
        Some(KnobValue::Integer(bytes))
            if (100..=u64::from(netsim_ns3::MAX_SEGMENT_BYTES)).contains(&bytes) =>
        {
            bytes as u32
        }
        Some(KnobValue::Integer(bytes)) => {
            return Err(format!(
                "{}.segment_size = {bytes} is out of range: it must be in [100, {}] bytes",
                info.name,
                netsim_ns3::MAX_SEGMENT_BYTES
            ));
        }
        _ => TCP_SEGMENT_BYTES,
    };
    Ok((variant, segment))
}

/// NewReno's `loss_reduction_factor` knob, range-checked (the stacks do not check it).
pub(crate) fn loss_reduction_factor(s: &Settings<'_>) -> Result<Option<f32>, String> {
    match s.value("loss_reduction_factor")? {
        Some(KnobValue::Float(f)) if !(f > 0.0 && f <= 1.0) => Err(format!(
            "newreno.loss_reduction_factor = {f} is out of range: it must be in (0, 1]"
        )),
        Some(KnobValue::Float(f)) => Ok(Some(f as f32)),
        _ => Ok(None),
    }
}

/// Typed access to a spec's settings, with errors naming `controller.knob`.
#[doc(hidden)]
pub struct Settings<'a> {
    info: &'static ControllerInfo,
    values: &'a BTreeMap<String, Value>,
}

impl<'a> Settings<'a> {
    pub(crate) fn new(
        info: &'static ControllerInfo,
        values: &'a BTreeMap<String, Value>,
    ) -> Result<Self, String> {
        for key in values.keys() {
            if !info.knobs.iter().any(|k| k.name == key) {
                if info.knobs.is_empty() {
                    return Err(format!(
                        "controller `{}` has no knob `{key}` (it has no knobs)",
                        info.name
                    ));
                }
                let knobs: Vec<&str> = info.knobs.iter().map(|k| k.name).collect();
                return Err(format!(
                    "controller `{}` has no knob `{key}` (knobs: {})",
                    info.name,
                    knobs.join(", ")
                ));
            }
        }
        Ok(Self { info, values })
    }

    /// The value set for knob `name`, converted to the knob's kind; a value of another type
    /// is an error naming `controller.knob`, the expected type and the knob's help.
    pub(crate) fn value(&self, name: &str) -> Result<Option<KnobValue>, String> {
        let (Some(value), Some(knob)) = (
            self.values.get(name),
            self.info.knobs.iter().find(|k| k.name == name),
        ) else {
            return Ok(None);
        };
        let converted = match (knob.kind, value) {
            (KnobKind::Float, Value::Float(f)) => Some(KnobValue::Float(*f)),
            (KnobKind::Float, Value::Integer(i)) => Some(KnobValue::Float(*i as f64)),
            (KnobKind::Integer, Value::Integer(i)) if *i >= 0 => {
                Some(KnobValue::Integer(*i as u64))
            }
            (KnobKind::Bool, Value::Boolean(b)) => Some(KnobValue::Bool(*b)),
            (KnobKind::Duration, Value::String(s)) => Some(KnobValue::Duration(
                netsim::units::parse_duration(s)
                    .map_err(|e| format!("{}.{name}: {e}", self.info.name))?,
            )),
            (KnobKind::Duration, Value::Float(f)) if *f >= 0.0 && f.is_finite() => {
                Some(KnobValue::Duration(Duration::from_secs_f64(*f)))
            }
            (KnobKind::Duration, Value::Integer(i)) if *i >= 0 => {
                Some(KnobValue::Duration(Duration::from_secs(*i as u64)))
            }
            _ => None,
        };
        converted.map(Some).ok_or_else(|| {
            format!(
                "{}.{name} = {value}: expected {} ({})",
                self.info.name,
                knob.kind.expected(),
                knob.help
            )
        })
    }

    /// quinn's `initial_window` in bytes, range-checked (quinn does not check it).
    pub(crate) fn quinn_window(&self) -> Result<Option<u64>, String> {
        match self.value("initial_window")? {
            Some(KnobValue::Integer(w)) if !(2400..=1 << 30).contains(&w) => Err(format!(
                "{}.initial_window = {w} is out of range: it must be in [2400, 1073741824] bytes",
                self.info.name
            )),
            Some(KnobValue::Integer(w)) => Ok(Some(w)),
            _ => Ok(None),
        }
    }

    /// Wraps a cc-core range error with the controller's name.
    fn range(&self, error: cc_core::ConfigError) -> String {
        format!(
            "{}.{} = {} is out of range (allowed: {})",
            self.info.name, error.field, error.value, error.allowed
        )
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn spec(name: &str, settings: &[(&str, Value)]) -> ControllerSpec {
        ControllerSpec {
            name: name.to_owned(),
            settings: settings
                .iter()
                .map(|(k, v)| ((*k).to_owned(), v.clone()))
                .collect(),
        }
    }

    #[test]
    fn every_registered_controller_validates_with_defaults() {
        for info in all() {
            validate(&spec(info.name, &[])).unwrap();
        }
        assert_eq!(
            names(&[Stack::Noq]),
            [
                "newreno", "cubic", "bbr3", "karak", "petra", "ub", "sackfew", "abra", "manet"
            ]
        );
        assert_eq!(
            names(&[Stack::Quinn]),
            [
                "newreno", "cubic", "bbr", "karak", "petra", "ub", "sackfew", "abra", "manet"
            ]
        );
    }

    #[test]
    fn bad_knobs_name_controller_knob_and_range() {
        let err =
            validate(&spec("karak", &[("one_dup_ack_factor", Value::Float(2.0))])).unwrap_err();
        assert!(
            err.contains("karak.one_dup_ack_factor") && err.contains("(0, 1]"),
            "{err}"
        );
        let err = validate(&spec("karak", &[("bogus", Value::Float(2.0))])).unwrap_err();
        assert!(
            err.contains("no knob `bogus`") && err.contains("one_dup_ack_factor"),
            "{err}"
        );
        let err = validate(&spec("sackfew", &[("alpha", Value::Boolean(true))])).unwrap_err();
        assert!(
            err.contains("sackfew.alpha") && err.contains("[0, 1]"),
            "{err}"
        );
        let err = validate(&spec("ub", &[("alpha", Value::Float(5.0))])).unwrap_err();
        assert!(err.contains("ub."), "{err}");
        let err =
            validate(&spec("newreno", &[("initial_window", Value::Integer(10))])).unwrap_err();
        assert!(err.contains("newreno.initial_window"), "{err}");
        let err = validate(&spec("vegas", &[])).unwrap_err();
        assert!(
            err.contains("unknown controller `vegas`") && err.contains("karak"),
            "{err}"
        );
        let err = validate(&spec("quiche-cubic", &[])).map_or_else(|e| e, |()| String::new());
        if stack::QUICHE_AVAILABLE {
            assert!(err.is_empty(), "{err}");
        } else {
            assert!(err.contains("`quiche` feature"), "{err}");
        }
        assert!(
            validate(&spec(
                "abra",
                &[("initial_max_srtt", Value::String("2s".into()))]
            ))
            .is_ok()
        );
    }
}
