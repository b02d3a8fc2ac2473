//! The scenario flags as overrides of a scenario file, a preset or the demo: the grid a
//! command runs.

use std::time::Duration;

use toml::Value;

use super::args::{
    BackendArg, ClockArg, PathModel, ProtectionArg, ReceiverArg, ScenarioArgs, StackArg,
};
use super::parse::parse_duration;
use crate::error::{HarnessError, Result};
use crate::scenario::{self, Override, Source};
use crate::{presets, registry};

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
    /// The files the scenario reads (flag, path): --scenario and --trace-file, for the output
    /// checks.
    /// Every file the grid reads: the scenario file, the trace file, and each point's ns-2
    /// mobility trace (as the point resolved it).
    pub(super) fn input_files(
        &self,
        grid: &scenario::Grid,
    ) -> Vec<(&'static str, std::path::PathBuf)> {
        let mut inputs: Vec<(&'static str, std::path::PathBuf)> = [
            ("--scenario", self.scenario.as_deref()),
            ("--trace-file", self.trace_file.as_deref()),
        ]
        .into_iter()
        .filter_map(|(flag, path)| path.map(|p| (flag, p.to_path_buf())))
        .collect();
        for point in &grid.points {
            if let Some(netsim_ns3::Ns3Config {
                topology: netsim_ns3::Topology::Ns2Trace { path },
                ..
            }) = point.backend.ns3()
                && !inputs.iter().any(|(_, p)| p == path)
            {
                inputs.push(("the ns-2 trace (ns3.topology.path)", path.clone()));
            }
        }
        inputs
    }

    /// The scenario source: --scenario, --preset, or the demo.
    pub(super) fn source(&self) -> Result<Source> {
        match (&self.scenario, &self.preset) {
            (Some(path), _) => Source::read(path),
            (None, Some(name)) => Ok(presets::lookup(name)?.source()),
            (None, None) => Ok(presets::lookup("demo")?.source()),
        }
    }

    /// The command-line options as document overrides, in order.
    pub(super) fn overrides(&self) -> Result<Vec<Override>> {
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
        if let Some(entries) = &self.mix {
            if entries.is_empty() || entries.len() > crate::scenario::MAX_FLOWS as usize {
                return Err(HarnessError::bad_input(format!(
                    "--mix: {} entries; a mix has 1 to {} flows",
                    entries.len(),
                    crate::scenario::MAX_FLOWS
                )));
            }
            let mut tables = Vec::new();
            for entry in entries {
                let mut table = toml::Table::new();
                let (name, access_delay) = match entry.split_once('@') {
                    Some((name, delay)) => (name, Some(delay)),
                    None => (entry.as_str(), None),
                };
                if name != "run" {
                    registry::lookup(name)
                        .map_err(|e| HarnessError::bad_input(format!("--mix: {e}")))?;
                    table.insert("controller".into(), Value::String(name.to_owned()));
                }
                if let Some(delay) = access_delay {
                    let delay = parse_duration(delay).map_err(|e| {
                        HarnessError::bad_input(format!(
                            "--mix: `{entry}`: access delay after `@`: {e}"
                        ))
                    })?;
                    table.insert("access_delay".into(), duration_value(delay));
                }
                tables.push(Value::Table(table));
            }
            remove(&mut o, "flows", "--mix");
            set(&mut o, "flow", Value::Array(tables), "--mix");
        }
        if let Some(clock) = self.clock {
            let name = if clock == ClockArg::Virtual {
                "virtual"
            } else {
                "real"
            };
            set(&mut o, "clock", Value::String(name.into()), "--clock");
        }
        if let Some(protection) = self.packet_protection {
            let name = match protection {
                ProtectionArg::Tls => "tls",
                ProtectionArg::Null => "null",
            };
            set(
                &mut o,
                "packet_protection",
                Value::String(name.into()),
                "--packet-protection",
            );
        }
        if let Some(stack) = self.stack {
            let name = match stack {
                StackArg::Quinn => "quinn",
                StackArg::Noq => "noq",
            };
            set(&mut o, "stack", Value::String(name.into()), "--stack");
        }
        if let Some(receiver) = self.receiver {
            let name = match receiver {
                ReceiverArg::Quinn => "quinn",
                ReceiverArg::Noq => "noq",
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
        if let Some(full) = self.quinn_full_window {
            set(
                &mut o,
                "transport.quinn_full_window",
                Value::Boolean(full),
                "--quinn-full-window",
            );
        }
        if let Some(delay) = &self.ack_delay {
            let value = duration_value(
                parse_duration(delay)
                    .map_err(|e| HarnessError::bad_input(format!("--ack-delay: {e}")))?,
            );
            set(&mut o, "transport.ack_delay", value, "--ack-delay");
        }
        if let Some(r) = self.timeout_reading {
            set(
                &mut o,
                "transport.timeout_reading",
                Value::String(r.name().to_owned()),
                "--timeout-reading",
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

    pub(super) fn direction_overrides(&self, o: &mut Vec<Override>) -> Result<()> {
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

    pub(super) fn path_overrides(&self, o: &mut Vec<Override>) -> Result<()> {
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
            let text = crate::input_file::read_text(path, crate::input_file::TRACE)?;
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

    pub(super) fn grid(&self) -> Result<scenario::Grid> {
        let source = self.source()?;
        scenario::load(&source, &self.overrides()?)
    }
}
