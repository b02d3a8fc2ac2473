//! A grid's dimensions: its axes (resolved, checked, and expanded into the cartesian product of
//! points), its seeds, the labels reports show, and each run's identity (`run_id`), which must
//! differ between any two runs of a grid.

use std::time::Duration;

use serde::Serialize;
use toml::{Table, Value};

use crate::error::{HarnessError, Result};
use crate::registry::{ControllerIdentity, ResolvedController};
use crate::scenario::context::Context;
use crate::scenario::model::{
    Grid, MAX_POINTS, MAX_SEEDS, MixFlow, Scenario, Transfer, TransportSettings,
};
use crate::scenario::schema::{Axis, Seeds};
use crate::stack::Stack;

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

/// An `[[axis]]` table checked: its position, key and name, and its values with their labels.
pub(super) struct ResolvedAxis {
    pub(super) index: usize,
    pub(super) key: String,
    pub(super) name: String,
    pub(super) values: Vec<(Value, String)>,
}

pub(super) fn cartesian(axes: &[ResolvedAxis]) -> Vec<Vec<usize>> {
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

impl Context<'_> {
    pub(super) fn axes(&self, axes: &[Axis]) -> Result<Vec<ResolvedAxis>> {
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

    /// Refuses an axis over netsim's per-direction link settings when points run on ns-3:
    /// the 802.11 MAC and PHY replace them there, so every point would run the same network.
    pub(super) fn check_backend_axes(
        &self,
        points: &[Scenario],
        axes: &[ResolvedAxis],
    ) -> Result<()> {
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

    pub(super) fn seeds(&self, seeds: Option<&Seeds>) -> Result<Vec<u64>> {
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
        Ok(seeds)
    }
}

/// Refuses an axis on `link.both.FIELD` where a direction sets FIELD itself: the direction's
/// own value wins (netsim's `[link.a_to_b]` over `[link.both]`), so the axis would never change
/// that direction, and its points would differ in one direction only, or not at all.
pub(super) fn check_axes_reach(doc: &Table, axes: &[Axis]) -> Result<()> {
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

/// Refuses a grid name or point label with a control character: a newline would break the
/// Markdown table and an escape sequence would reach the terminal. An axis whose values hold
/// such text (a trace schedule) names its points with `labels`.
pub(super) fn check_labels(grid: &Grid) -> Result<()> {
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

/// What identifies a run: everything that can change its bytes, and nothing else (not the
/// labels). Serialized as JSON and hashed into the run id; every field is written, defaults
/// included, so that no default can change without changing the id.
#[derive(Serialize)]
struct Identity<'a> {
    /// [`IDENTITY_SCHEME`]: raised when this struct changes.
    scheme: u32,
    link: &'a netsim::LinkConfig,
    transfer: &'a Transfer,
    flows: u32,
    #[serde(with = "crate::scenario::units::duration")]
    flow_stagger: Duration,
    /// A mixed run's flows, and the identity of each other controller it runs.
    mix: &'a [MixFlow],
    competitors: Vec<ControllerIdentity>,
    transport: &'a TransportSettings,
    clock: netsim::Clock,
    /// In real time only: in virtual time null protection sends the same datagrams at the same
    /// times as TLS by construction (`netsim::PacketProtection::Null`; the `runs` test
    /// `null_packet_protection_is_the_virtual_time_default_and_changes_nothing_else` holds it
    /// to that), so the two are one run; in real time the AEAD's cost moves the clock.
    packet_protection: Option<netsim::PacketProtection>,
    sender: Stack,
    receiver: Stack,
    controller: &'a ControllerIdentity,
    seed: u64,
    software: Software,
    /// ns-3's scenario, on that backend.
    ns3: Option<Ns3Identity<'a>>,
}

/// The code a run executes beside its controllers: the QUIC stacks at its two ends (their
/// crate versions) and the emulator's behaviour revision.
#[derive(Serialize)]
struct Software {
    sender: String,
    receiver: String,
    netsim: u32,
}

/// An ns-3 run's network, and what decides it beyond the config: ns-3's version, the backend's
/// revision, the contents of the files ns-3 reads and the environment it reads.
#[derive(Serialize)]
struct Ns3Identity<'a> {
    /// The config, an ns-2 trace's path left out: its contents stand for it (`trace_digest`),
    /// so one trace in two spellings, or two copies of it, is one network.
    config: std::borrow::Cow<'a, netsim_ns3::Ns3Config>,
    version: &'static str,
    backend: u32,
    /// FNV-1a of an ns-2 trace file's bytes (the config holds only its path).
    trace_digest: Option<String>,
    environment: std::collections::BTreeMap<&'static str, Option<String>>,
}

/// The version of the run identity's layout, in every id: raised whenever the hashed `Identity` changes
/// what it holds.
pub const IDENTITY_SCHEME: u32 = 2;

/// A stack's name with the version of its crate that this harness was built with.
pub fn stack_version(stack: Stack) -> String {
    let (krate, version) = stack.crate_version();
    format!("{krate} {version}")
}

/// 64-bit FNV-1a.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// The ns-3 part of a run's identity, reading the trace file it names (if any).
fn ns3_identity(config: &netsim_ns3::Ns3Config) -> Result<Ns3Identity<'_>, String> {
    let (config, trace_digest) = match &config.topology {
        netsim_ns3::Topology::Ns2Trace { path } => {
            let text = crate::input_file::read_text(path, crate::input_file::TRACE)
                .map_err(|e| format!("ns3.topology.path: {e}"))?;
            let mut unnamed = config.clone();
            unnamed.topology = netsim_ns3::Topology::Ns2Trace {
                path: std::path::PathBuf::new(),
            };
            (
                std::borrow::Cow::Owned(unnamed),
                Some(format!("{:016x}", fnv1a(text.as_bytes()))),
            )
        }
        _ => (std::borrow::Cow::Borrowed(config), None),
    };
    let environment = netsim_ns3::ns3_environment();
    Ok(Ns3Identity {
        config,
        version: netsim_ns3::ns3_version(),
        backend: netsim_ns3::REVISION,
        trace_digest,
        environment,
    })
}

/// The stable run id of `controller` with `seed` on the point `scenario`: a hash of everything
/// that can change the run's bytes (the private `Identity`), as 16 hex digits. Errors when a file the
/// scenario reads cannot be read, or a controller cannot be resolved.
/// Here rather than on [`crate::run::spec::RunSpec`] so that a grid can refuse two equal runs
/// without building its runs.
pub fn run_id(
    scenario: &Scenario,
    controller: &ResolvedController,
    seed: u64,
) -> std::result::Result<String, String> {
    let json = identity_json(scenario, controller, seed)?;
    Ok(format!("{:016x}", fnv1a(json.as_bytes())))
}

/// The JSON that [`run_id`] hashes.
pub fn identity_json(
    scenario: &Scenario,
    controller: &ResolvedController,
    seed: u64,
) -> std::result::Result<String, String> {
    let s = scenario;
    let host = s.stack.unwrap_or_default();
    let (sender, receiver) = crate::stack::ends(controller.info().sender(host)?, s.receiver);
    let mut competitors = Vec::new();
    for other in s.mix.iter().filter_map(|f| f.controller.as_ref()) {
        if !competitors.contains(other.identity()) {
            competitors.push(other.identity().clone());
        }
    }
    let identity = Identity {
        scheme: IDENTITY_SCHEME,
        link: &s.link,
        transfer: &s.transfer,
        flows: s.flows,
        flow_stagger: s.flow_stagger,
        mix: &s.mix,
        competitors,
        transport: &s.transport,
        clock: s.clock,
        packet_protection: (s.clock == netsim::Clock::Real).then_some(s.packet_protection),
        sender,
        receiver,
        controller: controller.identity(),
        seed,
        software: Software {
            sender: stack_version(sender),
            receiver: stack_version(receiver),
            netsim: netsim::REVISION,
        },
        ns3: s.backend.ns3().map(ns3_identity).transpose()?,
    };
    serde_json::to_string(&identity).map_err(|e| format!("cannot encode the run's identity: {e}"))
}

/// Refuses a grid in which two runs are one run: the same parameters once parsed, controller
/// and seed (one run id), e.g. an axis listing `"2Mbps"` and `"2000kbps"`, or `"1s"` and
/// `"1000ms"`. A sweep would write that run twice under one id, which merge then refuses.
/// Returns each run's id in grid order (point, controller, seed), for the runs' specs.
pub(super) fn identify_runs(grid: &Grid) -> Result<Vec<String>> {
    let mut seen = std::collections::HashMap::new();
    let mut ids = Vec::new();
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
        let id = run_id(point, controller, seed)
            .map_err(|e| HarnessError::bad_input(format!("{}: {e}", label())))?;
        if let Some(first) = seen.insert(id.clone(), label()) {
            return Err(HarnessError::bad_input(format!(
                "{first} and {} are the same run (equal values once parsed, in other spellings): \
                 list each axis value, controller and seed once",
                label()
            )));
        }
        ids.push(id);
    }
    Ok(ids)
}
