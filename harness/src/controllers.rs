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
use std::sync::{Arc, LazyLock};
use std::time::Duration;

use cc_core::{
    KnobKind, KnobValue, PortConfig, PortController, PortFactory, SignalConfig, SignalStats,
};
use cc_ports::{PortVisitor, QuinnBaseline};
use quinn::congestion::{Controller, ControllerFactory, NewRenoConfig};
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

/// How a registry entry builds its quinn factory.
#[derive(Clone, Copy)]
enum Builder {
    /// One of quinn's own controllers.
    Quinn(QuinnBaseline),
    /// A port: [`build_port`] for its config type.
    Port(fn(&Settings<'_>, &SignalConfig) -> Result<BuiltController, String>),
    /// A quiche controller: no quinn factory.
    Quiche,
}

/// A registry entry.
#[derive(Clone)]
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
    pub knobs: Vec<Knob>,
    builder: Builder,
}

impl std::fmt::Debug for ControllerInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ControllerInfo")
            .field("name", &self.name)
            .field("stack", &self.stack)
            .field("knobs", &self.knobs)
            .finish_non_exhaustive()
    }
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

/// quinn's initial window knob (quinn's configs have no getters: the default is quinn's
/// documented 14720 bytes).
fn quinn_window_knob() -> Knob {
    Knob {
        name: "initial_window",
        kind: KnobKind::Integer,
        help: "initial window in bytes (default 14720; 2400 to 1073741824)".to_owned(),
    }
}

fn quinn_entry(baseline: QuinnBaseline) -> ControllerInfo {
    let mut knobs = vec![quinn_window_knob()];
    if baseline == QuinnBaseline::NewReno {
        knobs.push(Knob {
            name: "loss_reduction_factor",
            kind: KnobKind::Float,
            help: "window multiplier on a loss (default 0.5; (0, 1])".to_owned(),
        });
    }
    ControllerInfo {
        name: baseline.name(),
        description: baseline.summary(),
        stack: Stack::Quinn,
        port: false,
        reproducible: true,
        knobs,
        builder: Builder::Quinn(baseline),
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
        stack: Stack::Quinn,
        port: true,
        reproducible: true,
        knobs,
        builder: Builder::Port(build_port::<C>),
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
        stack: Stack::Quiche,
        port: false,
        reproducible: false,
        knobs: Vec::new(),
        builder: Builder::Quiche,
    })
    .collect()
}

/// quinn's controllers, then the ports (from [`cc_ports::visit_ports`]), then (with the
/// `quiche` feature) quiche's.
static REGISTRY: LazyLock<Vec<ControllerInfo>> = LazyLock::new(|| {
    struct Ports(Vec<ControllerInfo>);
    impl PortVisitor for Ports {
        fn visit<C: PortConfig>(&mut self) {
            self.0.push(port_entry::<C>());
        }
    }
    let mut entries = Ports(QuinnBaseline::ALL.into_iter().map(quinn_entry).collect());
    cc_ports::visit_ports(&mut entries);
    let mut entries = entries.0;
    if stack::QUICHE_AVAILABLE {
        entries.extend(quiche_entries());
    }
    entries
});

/// Every available controller: quinn's, then the ports, then (with the `quiche` feature)
/// quiche's.
pub fn registry() -> &'static [ControllerInfo] {
    &REGISTRY
}

/// The controllers a grid runs when it names none: quinn's and the ports (not quiche's, which
/// need real time).
pub fn names() -> Vec<&'static str> {
    registry()
        .iter()
        .filter(|c| c.stack == Stack::Quinn)
        .map(|c| c.name)
        .collect()
}

/// The entry named `name`, or an error listing the available names (and, for a quiche
/// controller in a harness built without the `quiche` feature, how to build it).
pub fn lookup(name: &str) -> Result<&'static ControllerInfo, String> {
    if let Some(info) = registry().iter().find(|c| c.name == name) {
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
    let settings = Settings::new(info, &spec.settings)?;
    match info.builder {
        Builder::Quinn(baseline) => build_quinn(baseline, &settings),
        Builder::Port(build) => build(&settings, signal),
        Builder::Quiche => Err(format!(
            "controller `{}` runs in quiche, not in quinn: it has no quinn controller factory",
            info.name
        )),
    }
}

fn build_quinn(baseline: QuinnBaseline, s: &Settings<'_>) -> Result<BuiltController, String> {
    let window = s.quinn_window()?;
    let factory: Arc<dyn ControllerFactory + Send + Sync> = match baseline {
        QuinnBaseline::NewReno => {
            let mut c = NewRenoConfig::default();
            if let Some(w) = window {
                c.initial_window(w);
            }
            if let Some(KnobValue::Float(f)) = s.value("loss_reduction_factor")? {
                if !(f > 0.0 && f <= 1.0) {
                    return Err(format!(
                        "newreno.loss_reduction_factor = {f} is out of range: it must be in (0, 1]"
                    ));
                }
                c.loss_reduction_factor(f as f32);
            }
            Arc::new(c)
        }
        other => other.factory(window),
    };
    Ok(BuiltController {
        factory,
        signal_stats: |_| None,
    })
}

/// A port's factory: its config from the defaults and the settings, each knob through its
/// declared setter, then the config's own validation.
fn build_port<C: PortConfig>(
    s: &Settings<'_>,
    signal: &SignalConfig,
) -> Result<BuiltController, String> {
    let mut config = C::default();
    for knob in C::KNOBS {
        if let Some(value) = s.value(knob.name)? {
            (knob.set)(&mut config, value).map_err(|e| s.range(e))?;
        }
    }
    config.validate().map_err(|e| s.range(e))?;
    config.set_signal(signal.clone());
    Ok(BuiltController {
        factory: Arc::new(PortFactory::new(config)),
        signal_stats: |controller| {
            PortController::<C::Algorithm>::from_controller(controller).map(|a| a.signal_stats())
        },
    })
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

    /// The value set for knob `name`, converted to the knob's kind; a value of another type
    /// is an error naming `controller.knob`, the expected type and the knob's help.
    fn value(&self, name: &str) -> Result<Option<KnobValue>, String> {
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
    fn quinn_window(&self) -> Result<Option<u64>, String> {
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
