//! The controller registry: every controller the harness can run, by name, with its knobs.
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
use std::sync::Arc;
use std::time::Duration;

use cc_core::{CongestionAlgorithm, QuinnAdapter, SignalConfig, SignalStats};
use quinn::congestion::{BbrConfig, Controller, ControllerFactory, CubicConfig, NewRenoConfig};
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

/// The type of a knob's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KnobKind {
    /// A number (integers accepted).
    Float,
    /// A non-negative integer.
    Integer,
    /// `true` or `false`.
    Bool,
    /// A duration such as `"100ms"` or a number of seconds.
    Duration,
}

/// One configurable knob of a controller.
#[derive(Clone, Copy, Debug)]
pub struct Knob {
    /// Its name in `--set NAME.KNOB=VALUE`.
    pub name: &'static str,
    /// Its value type.
    pub kind: KnobKind,
    /// What it does, its default and its allowed range.
    pub help: &'static str,
}

/// A registry entry.
#[derive(Clone, Copy, Debug)]
pub struct ControllerInfo {
    /// Registry name.
    pub name: &'static str,
    /// One-line description.
    pub description: &'static str,
    /// The QUIC stack that runs it as a sender.
    pub stack: Stack,
    /// True for the workspace's ports (they report loss-signal classes); false for quinn's and
    /// quiche's own.
    pub port: bool,
    /// False when the controller draws from an unseeded RNG in a way that changes its runs.
    pub reproducible: bool,
    /// Its knobs.
    pub knobs: &'static [Knob],
}

/// A controller factory ready for `TransportConfig::congestion_controller_factory`, and how to
/// read the loss-signal statistics back out of a controller it built.
#[derive(Clone)]
pub struct BuiltController {
    /// The factory.
    pub factory: Arc<dyn ControllerFactory + Send + Sync>,
    /// Extracts cc-core's loss-signal statistics from a controller this factory built (ports
    /// only; `None` for quinn's controllers).
    pub signal_stats: fn(Box<dyn Controller>) -> Option<SignalStats>,
}

impl std::fmt::Debug for BuiltController {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("BuiltController")
    }
}

const IW: Knob = Knob {
    name: "initial_window_packets",
    kind: KnobKind::Integer,
    help: "initial window in datagrams (default 10; 2 to 1000)",
};
const QUINN_IW: Knob = Knob {
    name: "initial_window",
    kind: KnobKind::Integer,
    help: "initial window in bytes (default 14720; 2400 to 1073741824)",
};

const REGISTRY: &[ControllerInfo] = &[
    ControllerInfo {
        name: "newreno",
        description: "quinn's NewReno (RFC 9002)",
        stack: Stack::Quinn,
        port: false,
        reproducible: true,
        knobs: &[
            QUINN_IW,
            Knob {
                name: "loss_reduction_factor",
                kind: KnobKind::Float,
                help: "window multiplier on a loss (default 0.5; (0, 1])",
            },
        ],
    },
    ControllerInfo {
        name: "cubic",
        description: "quinn's CUBIC (RFC 9438), quinn's default",
        stack: Stack::Quinn,
        port: false,
        reproducible: true,
        knobs: &[QUINN_IW],
    },
    ControllerInfo {
        name: "bbr",
        description: "quinn's BBR (v1); its OS-seeded RNG only moves the reported pacing_rate",
        stack: Stack::Quinn,
        port: false,
        reproducible: true,
        knobs: &[QUINN_IW],
    },
    ControllerInfo {
        name: "karak",
        description: "TCP Karak: graded decrease by dup-ACKs before a timeout (cc-karak)",
        stack: Stack::Quinn,
        port: true,
        reproducible: true,
        knobs: &[
            IW,
            Knob {
                name: "fast_retransmit_factor",
                kind: KnobKind::Float,
                help: "window multiplier on a fast retransmit (default 0.5; (0, 1])",
            },
            Knob {
                name: "two_dup_ack_factor",
                kind: KnobKind::Float,
                help: "window multiplier on a timeout after 2 dup-ACKs (default 0.25; (0, 1])",
            },
            Knob {
                name: "one_dup_ack_factor",
                kind: KnobKind::Float,
                help: "window multiplier on a timeout after 1 dup-ACK (default 0.125; (0, 1])",
            },
            Knob {
                name: "round_to_power_of_two",
                kind: KnobKind::Bool,
                help: "round graded windows up to a power of two datagrams (default true)",
            },
        ],
    },
    ControllerInfo {
        name: "petra",
        description: "TCP PETRA: Westwood estimate in slow start, recovery and timeouts (cc-petra)",
        stack: Stack::Quinn,
        port: true,
        reproducible: true,
        knobs: &[
            IW,
            Knob {
                name: "ebw_gain",
                kind: KnobKind::Float,
                help: "weight of the previous bandwidth estimate, eq. 4.4 (default 0.9; [0, 1))",
            },
            Knob {
                name: "faster_start",
                kind: KnobKind::Bool,
                help: "section 4.1.2.1 faster start (default true)",
            },
            Knob {
                name: "estimate_initial_ssthresh",
                kind: KnobKind::Bool,
                help: "section 4.1.1 ssthresh from the estimate (default true)",
            },
        ],
    },
    ControllerInfo {
        name: "ub",
        description: "TCP-UB: Vegas backlog bands plus Westwood ssthresh (cc-ub)",
        stack: Stack::Quinn,
        port: true,
        reproducible: true,
        knobs: &[
            IW,
            Knob {
                name: "alpha",
                kind: KnobKind::Float,
                help: "lower backlog threshold, packets (default 2; alpha < gamma < beta, each in [0, 1000000])",
            },
            Knob {
                name: "gamma",
                kind: KnobKind::Float,
                help: "middle backlog threshold, packets (default 3)",
            },
            Knob {
                name: "beta",
                kind: KnobKind::Float,
                help: "upper backlog threshold, packets (default 4)",
            },
            Knob {
                name: "slow_start_gamma",
                kind: KnobKind::Float,
                help: "Vegas slow-start exit backlog, packets (default 1; [0, 1000000])",
            },
            Knob {
                name: "slow_start_every_other_rtt",
                kind: KnobKind::Bool,
                help: "grow only every other round in slow start (default true)",
            },
            Knob {
                name: "bwe_gain",
                kind: KnobKind::Float,
                help: "weight of the previous bandwidth estimate (default 0.9; [0, 1))",
            },
        ],
    },
    ControllerInfo {
        name: "sackfew",
        description: "SACK-FeW: fractional window increment (cc-sackfew)",
        stack: Stack::Quinn,
        port: true,
        reproducible: true,
        knobs: &[
            Knob {
                name: "alpha",
                kind: KnobKind::Float,
                help: "fractional increment, packets per round trip (default 0.01; [0, 1])",
            },
            IW,
            Knob {
                name: "loss_reduction_factor",
                kind: KnobKind::Float,
                help: "ssthresh multiplier on a loss (default 0.5; (0, 1])",
            },
        ],
    },
    ControllerInfo {
        name: "abra",
        description: "ABRA NewReno: state save/restore around route failures (cc-abra)",
        stack: Stack::Quinn,
        port: true,
        reproducible: true,
        knobs: &[
            IW,
            Knob {
                name: "loss_reduction_factor",
                kind: KnobKind::Float,
                help: "ssthresh multiplier on a loss (default 0.5; (0, 1])",
            },
            Knob {
                name: "restore_cwnd_factor",
                kind: KnobKind::Float,
                help: "restored window / saved window (default 0.5; (0, 1])",
            },
            Knob {
                name: "restore_ssthresh_factor",
                kind: KnobKind::Float,
                help: "restored ssthresh / saved ssthresh (default 0.25; (0, 1])",
            },
            Knob {
                name: "initial_min_srtt",
                kind: KnobKind::Duration,
                help: "starting min_srtt (default 100ms; 0 <= min < max <= 60s)",
            },
            Knob {
                name: "initial_max_srtt",
                kind: KnobKind::Duration,
                help: "starting max_srtt (default 600ms)",
            },
        ],
    },
];

/// quiche's controllers (quiche senders; registered only with the `quiche` feature). quiche has
/// no congestion-control plugin API, so the ports cannot run in it and these have no knobs.
const QUICHE_REGISTRY: &[ControllerInfo] = &[
    ControllerInfo {
        name: "quiche-reno",
        description: "quiche's Reno (RFC 9002 NewReno, HyStart++); real time only",
        stack: Stack::Quiche,
        port: false,
        reproducible: false,
        knobs: &[],
    },
    ControllerInfo {
        name: "quiche-cubic",
        description: "quiche's CUBIC (RFC 9438, HyStart++), quiche's default; real time only",
        stack: Stack::Quiche,
        port: false,
        reproducible: false,
        knobs: &[],
    },
    ControllerInfo {
        name: "quiche-bbr2",
        description: "quiche's BBRv2 (gcongestion, a port of Chromium's), paced; real time only",
        stack: Stack::Quiche,
        port: false,
        reproducible: false,
        knobs: &[],
    },
];

/// Every available controller: quinn's, then the ports, then (with the `quiche` feature)
/// quiche's.
pub fn registry() -> Vec<&'static ControllerInfo> {
    let quiche: &'static [ControllerInfo] = if stack::QUICHE_AVAILABLE {
        QUICHE_REGISTRY
    } else {
        &[]
    };
    REGISTRY.iter().chain(quiche).collect()
}

/// The controllers a grid runs when it names none: quinn's and the ports (not quiche's, which
/// need real time).
pub fn names() -> Vec<&'static str> {
    REGISTRY.iter().map(|c| c.name).collect()
}

/// The entry named `name`, or an error listing the available names (and, for a quiche
/// controller in a harness built without the `quiche` feature, how to build it).
pub fn lookup(name: &str) -> Result<&'static ControllerInfo, String> {
    if let Some(info) = registry().into_iter().find(|c| c.name == name) {
        return Ok(info);
    }
    if stack::QUICHE_CONTROLLERS.contains(&name) {
        return Err(stack::unavailable(&format!("controller `{name}`")));
    }
    let available: Vec<&str> = registry().iter().map(|c| c.name).collect();
    Err(format!(
        "unknown controller `{name}` (available: {})",
        available.join(", ")
    ))
}

/// Checks a spec without building it: the name exists, every knob exists and every value has
/// the right type and range. Errors name `controller.knob` and the allowed range.
pub fn validate(spec: &ControllerSpec) -> Result<(), String> {
    let info = lookup(&spec.name)?;
    if info.stack == Stack::Quiche {
        return Settings::new(info, &spec.settings).map(|_| ());
    }
    build(spec, &SignalConfig::default()).map(|_| ())
}

/// Builds the quinn factory for `spec`; `signal` carries the transport's loss thresholds to the
/// ports. A quiche controller has no quinn factory: that is an error naming it.
pub fn build(spec: &ControllerSpec, signal: &SignalConfig) -> Result<BuiltController, String> {
    let info = lookup(&spec.name)?;
    if info.stack == Stack::Quiche {
        return Err(format!(
            "controller `{}` runs in quiche, not in quinn: it has no quinn controller factory",
            info.name
        ));
    }
    let mut values = Settings::new(info, &spec.settings)?;
    let built = match info.name {
        "newreno" => quinn_controller(newreno(&mut values)?),
        "cubic" => {
            let mut c = CubicConfig::default();
            if let Some(w) = values.quinn_window()? {
                c.initial_window(w);
            }
            quinn_controller(Arc::new(c))
        }
        "bbr" => {
            let mut c = BbrConfig::default();
            if let Some(w) = values.quinn_window()? {
                c.initial_window(w);
            }
            quinn_controller(Arc::new(c))
        }
        "karak" => port::<cc_karak::Karak>(karak(&mut values, signal)?),
        "petra" => port::<cc_petra::Petra>(petra(&mut values, signal)?),
        "ub" => port::<cc_ub::Ub>(ub(&mut values, signal)?),
        "sackfew" => port::<cc_sackfew::SackFew>(sackfew(&mut values, signal)?),
        "abra" => port::<cc_abra::Abra>(abra(&mut values, signal)?),
        other => return Err(format!("controller `{other}` has no builder")),
    };
    Ok(built)
}

fn quinn_controller(factory: Arc<dyn ControllerFactory + Send + Sync>) -> BuiltController {
    BuiltController {
        factory,
        signal_stats: |_| None,
    }
}

fn port<A: CongestionAlgorithm + 'static>(
    factory: Arc<dyn ControllerFactory + Send + Sync>,
) -> BuiltController {
    BuiltController {
        factory,
        signal_stats: |controller| {
            controller
                .into_any()
                .downcast::<QuinnAdapter<A>>()
                .ok()
                .map(|adapter| adapter.signal_stats())
        },
    }
}

/// Typed access to a spec's settings, with errors naming `controller.knob`.
struct Settings<'a> {
    info: &'static ControllerInfo,
    values: &'a BTreeMap<String, Value>,
}

impl<'a> Settings<'a> {
    fn new(
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

    fn knob(&self, name: &str) -> Knob {
        *self
            .info
            .knobs
            .iter()
            .find(|k| k.name == name)
            .unwrap_or(&self.info.knobs[0])
    }

    fn type_error(&self, name: &str, value: &Value, expected: &str) -> String {
        format!(
            "{}.{name} = {value}: expected {expected} ({})",
            self.info.name,
            self.knob(name).help
        )
    }

    fn float(&self, name: &str) -> Result<Option<f64>, String> {
        match self.values.get(name) {
            None => Ok(None),
            Some(Value::Float(f)) => Ok(Some(*f)),
            Some(Value::Integer(i)) => Ok(Some(*i as f64)),
            Some(v) => Err(self.type_error(name, v, "a number")),
        }
    }

    fn integer(&self, name: &str) -> Result<Option<u64>, String> {
        match self.values.get(name) {
            None => Ok(None),
            Some(Value::Integer(i)) if *i >= 0 => Ok(Some(*i as u64)),
            Some(v) => Err(self.type_error(name, v, "a non-negative integer")),
        }
    }

    fn boolean(&self, name: &str) -> Result<Option<bool>, String> {
        match self.values.get(name) {
            None => Ok(None),
            Some(Value::Boolean(b)) => Ok(Some(*b)),
            Some(v) => Err(self.type_error(name, v, "true or false")),
        }
    }

    fn duration(&self, name: &str) -> Result<Option<Duration>, String> {
        match self.values.get(name) {
            None => Ok(None),
            Some(Value::String(s)) => netsim::units::parse_duration(s)
                .map(Some)
                .map_err(|e| format!("{}.{name}: {e}", self.info.name)),
            Some(Value::Float(f)) if *f >= 0.0 && f.is_finite() => {
                Ok(Some(Duration::from_secs_f64(*f)))
            }
            Some(Value::Integer(i)) if *i >= 0 => Ok(Some(Duration::from_secs(*i as u64))),
            Some(v) => Err(self.type_error(name, v, "a duration such as \"100ms\"")),
        }
    }

    /// quinn's `initial_window` in bytes, range-checked (quinn does not check it).
    fn quinn_window(&self) -> Result<Option<u64>, String> {
        match self.integer("initial_window")? {
            Some(w) if !(2400..=1 << 30).contains(&w) => Err(format!(
                "{}.initial_window = {w} is out of range: it must be in [2400, 1073741824] bytes",
                self.info.name
            )),
            other => Ok(other),
        }
    }

    /// Wraps a cc-core range error with the controller's name.
    fn range(&self, error: cc_core::ConfigError) -> String {
        format!(
            "{}.{} = {} is out of range: it must be in {}",
            self.info.name, error.field, error.value, error.allowed
        )
    }
}

type Factory = Arc<dyn ControllerFactory + Send + Sync>;

fn newreno(s: &mut Settings<'_>) -> Result<Factory, String> {
    let mut c = NewRenoConfig::default();
    if let Some(w) = s.quinn_window()? {
        c.initial_window(w);
    }
    if let Some(f) = s.float("loss_reduction_factor")? {
        if !(f > 0.0 && f <= 1.0) {
            return Err(format!(
                "newreno.loss_reduction_factor = {f} is out of range: it must be in (0, 1]"
            ));
        }
        c.loss_reduction_factor(f as f32);
    }
    Ok(Arc::new(c))
}

fn karak(s: &mut Settings<'_>, signal: &SignalConfig) -> Result<Factory, String> {
    let mut c = cc_karak::KarakConfig::default();
    if let Some(v) = s.integer("initial_window_packets")? {
        c.initial_window_packets(v).map_err(|e| s.range(e))?;
    }
    if let Some(v) = s.float("fast_retransmit_factor")? {
        c.fast_retransmit_factor(v).map_err(|e| s.range(e))?;
    }
    if let Some(v) = s.float("two_dup_ack_factor")? {
        c.two_dup_ack_factor(v).map_err(|e| s.range(e))?;
    }
    if let Some(v) = s.float("one_dup_ack_factor")? {
        c.one_dup_ack_factor(v).map_err(|e| s.range(e))?;
    }
    if let Some(v) = s.boolean("round_to_power_of_two")? {
        c.round_to_power_of_two(v);
    }
    c.signal(signal.clone());
    Ok(Arc::new(c))
}

fn petra(s: &mut Settings<'_>, signal: &SignalConfig) -> Result<Factory, String> {
    let mut c = cc_petra::PetraConfig::default();
    if let Some(v) = s.integer("initial_window_packets")? {
        c.initial_window_packets(v).map_err(|e| s.range(e))?;
    }
    if let Some(v) = s.float("ebw_gain")? {
        c.ebw_gain(v).map_err(|e| s.range(e))?;
    }
    if let Some(v) = s.boolean("faster_start")? {
        c.faster_start(v);
    }
    if let Some(v) = s.boolean("estimate_initial_ssthresh")? {
        c.estimate_initial_ssthresh(v);
    }
    c.signal(signal.clone());
    Ok(Arc::new(c))
}

fn ub(s: &mut Settings<'_>, signal: &SignalConfig) -> Result<Factory, String> {
    let mut c = cc_ub::UbConfig::default();
    if let Some(v) = s.integer("initial_window_packets")? {
        c.initial_window_packets(v).map_err(|e| s.range(e))?;
    }
    let (alpha, gamma, beta) = (s.float("alpha")?, s.float("gamma")?, s.float("beta")?);
    if alpha.is_some() || gamma.is_some() || beta.is_some() {
        let alpha = alpha.unwrap_or(c.get_alpha());
        let gamma = gamma.unwrap_or(c.get_gamma());
        let beta = beta.unwrap_or(c.get_beta());
        c.thresholds(alpha, gamma, beta).map_err(|e| s.range(e))?;
    }
    if let Some(v) = s.float("slow_start_gamma")? {
        c.slow_start_gamma(v).map_err(|e| s.range(e))?;
    }
    if let Some(v) = s.boolean("slow_start_every_other_rtt")? {
        c.slow_start_every_other_rtt(v);
    }
    if let Some(v) = s.float("bwe_gain")? {
        c.bwe_gain(v).map_err(|e| s.range(e))?;
    }
    c.signal(signal.clone());
    Ok(Arc::new(c))
}

fn sackfew(s: &mut Settings<'_>, signal: &SignalConfig) -> Result<Factory, String> {
    let mut c = cc_sackfew::SackFewConfig::default();
    if let Some(v) = s.float("alpha")? {
        c.alpha(v).map_err(|e| s.range(e))?;
    }
    if let Some(v) = s.integer("initial_window_packets")? {
        c.initial_window_packets(v).map_err(|e| s.range(e))?;
    }
    if let Some(v) = s.float("loss_reduction_factor")? {
        c.loss_reduction_factor(v).map_err(|e| s.range(e))?;
    }
    c.signal(signal.clone());
    Ok(Arc::new(c))
}

fn abra(s: &mut Settings<'_>, signal: &SignalConfig) -> Result<Factory, String> {
    let mut c = cc_abra::AbraConfig::default();
    if let Some(v) = s.integer("initial_window_packets")? {
        c.initial_window_packets(v).map_err(|e| s.range(e))?;
    }
    if let Some(v) = s.float("loss_reduction_factor")? {
        c.loss_reduction_factor(v).map_err(|e| s.range(e))?;
    }
    if let Some(v) = s.float("restore_cwnd_factor")? {
        c.restore_cwnd_factor(v).map_err(|e| s.range(e))?;
    }
    if let Some(v) = s.float("restore_ssthresh_factor")? {
        c.restore_ssthresh_factor(v).map_err(|e| s.range(e))?;
    }
    let (min, max) = (
        s.duration("initial_min_srtt")?,
        s.duration("initial_max_srtt")?,
    );
    if min.is_some() || max.is_some() {
        let min = min.unwrap_or(c.get_initial_min_srtt());
        let max = max.unwrap_or(c.get_initial_max_srtt());
        c.initial_srtt_range(min, max).map_err(|e| s.range(e))?;
    }
    c.signal(signal.clone());
    Ok(Arc::new(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(name: &str, settings: &[(&str, Value)]) -> ControllerSpec {
        ControllerSpec {
            name: name.to_owned(),
            settings: settings
                .iter()
                .map(|(k, v)| ((*k).to_owned(), v.clone()))
                .collect(),
        }
    }

    #[test]
    fn every_registered_controller_builds_with_defaults() {
        for info in registry() {
            validate(&spec(info.name, &[])).unwrap();
            if info.stack == Stack::Quinn {
                build(&spec(info.name, &[]), &SignalConfig::default()).unwrap();
            }
        }
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
