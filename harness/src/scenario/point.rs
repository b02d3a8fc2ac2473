//! One point of a grid: its document (the file with the point's axis values set) read and
//! checked into a [`Scenario`].

use std::collections::BTreeMap;
use std::time::Duration;

use netsim::{Clock, LinkConfig, PacketProtection};
use toml::{Table, Value};

use crate::error::Result;
use crate::registry;
use crate::scenario::backend::{self, Backend, BackendKind};
use crate::scenario::context::Context;
use crate::scenario::grid::ResolvedAxis;
use crate::scenario::model::{
    DEFAULT_DURATION, DEFAULT_TIMEOUT, MAX_FLOWS, MixFlow, QUIC_MIN_DATAGRAM, Scenario, Transfer,
    TransportSettings,
};
use crate::scenario::schema::{
    FlowEntry, LinkSection, ScenarioFile, TransferSection, TransportSection,
};
use crate::scenario::tomldoc;
use crate::stack::{self, Stack};

impl Context<'_> {
    /// The point `combination` (one value index per axis) of the grid whose document, without
    /// its axes, is `base`: the document with the point's axis values set, read section by
    /// section.
    pub(super) fn point(
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
        // Where an error is, appended to messages about values an axis may have set.
        let at: Vec<String> = axes
            .iter()
            .zip(combination)
            .map(|(a, &i)| format!("axis `{}` = {}", a.name, a.values[i].1))
            .collect();
        let at = if at.is_empty() {
            String::new()
        } else {
            format!(" (at {})", at.join(", "))
        };
        normalize_link(&mut doc);
        let file: ScenarioFile = Value::Table(doc).try_into().map_err(|e: toml::de::Error| {
            self.field_error("axis", format!("{}{at}", e.message().trim()))
        })?;
        let link = self.link(&file.link, &at)?;
        let transfer = self.transfer(&file.transfer, &at)?;
        let (flows, flow_stagger) = self.flows(&file, &transfer)?;
        let mix = file
            .flow
            .iter()
            .enumerate()
            .map(|(i, entry)| self.flow(i, entry, &file, &transfer, flow_stagger))
            .collect::<Result<Vec<_>>>()?;
        let transport = self.transport(&file.transport)?;
        let backend = self.backend(&file, &link, &at)?;
        // A background flow that starts once the transfer is over carries nothing anyone
        // measures (both in link time).
        if let (Some(config), Transfer::Duration(d)) = (backend.ns3(), &transfer) {
            let end = *d;
            if let Some((i, flow)) = config
                .background
                .iter()
                .enumerate()
                .find(|(_, f)| f.start >= end)
            {
                return Err(self.field_error(
                    &format!("ns3.background[{i}].start"),
                    format!(
                        "ns3.background[{i}].start = {} is at or after the transfer's end ({} of \
                         link time), so the flow would not act on the run: start it earlier or \
                         drop it",
                        netsim::units::format_duration(flow.start),
                        netsim::units::format_duration(end)
                    ),
                ));
            }
        }
        self.stacks(file.stack, file.receiver)?;
        let clock = file.clock.unwrap_or_default();
        Ok(Scenario {
            point: labels.join(" "),
            params,
            link,
            transfer,
            flows,
            flow_stagger,
            mix,
            transport,
            clock,
            packet_protection: file.packet_protection.unwrap_or(match clock {
                Clock::Virtual => PacketProtection::Null,
                Clock::Real => PacketProtection::Tls,
            }),
            stack: file.stack,
            receiver: file.receiver,
            backend,
        })
    }

    /// `[link]`: netsim's link, `[link.both]` already folded into the directions.
    fn link(&self, section: &LinkSection, at: &str) -> Result<LinkConfig> {
        let link = LinkConfig {
            a_to_b: section.a_to_b.clone().unwrap_or_default(),
            b_to_a: section.b_to_a.clone().unwrap_or_default(),
            path: section.path.clone().unwrap_or_default(),
            mac: section.mac.clone(),
        };
        let netsim_error = |e: netsim::ConfigError| {
            let field = match &e {
                netsim::ConfigError::OutOfRange { field, .. }
                | netsim::ConfigError::Invalid { field, .. } => field.clone(),
                netsim::ConfigError::Parse { .. } => "link".to_owned(),
            };
            self.field_error(&field, format!("{e}{at}"))
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
                        "{name}.mtu = {} is out of range: it must be in [{QUIC_MIN_DATAGRAM}, 65535] (QUIC needs datagrams of at least {QUIC_MIN_DATAGRAM} bytes, RFC 9000 section 14){at}",
                        direction.mtu,
                    ),
                ));
            }
        }
        Ok(link)
    }

    /// `[transfer]`: a duration (the default) or a number of bytes with a timeout.
    fn transfer(&self, section: &TransferSection, at: &str) -> Result<Transfer> {
        if section.timeout.is_some() && section.bytes.is_none() {
            return Err(self.field_error(
                "transfer.timeout",
                "transfer.timeout applies only to `bytes` transfers (a duration transfer ends at its duration)",
            ));
        }
        match (section.duration, section.bytes) {
            (Some(_), Some(_)) => Err(self.field_error(
                "transfer.bytes",
                "transfer: give either `duration` or `bytes`, not both",
            )),
            (duration, None) => {
                let d = duration.unwrap_or(DEFAULT_DURATION);
                // Below a millisecond (the emulator's timer granularity) a run would not do
                // what was asked.
                if d < Duration::from_millis(1) || d > Duration::from_secs(86_400) {
                    return Err(self.field_error(
                        "transfer.duration",
                        format!(
                            "transfer.duration = {} is out of range: it must be in [1ms, 24h]{at}",
                            netsim::units::format_duration(d),
                        ),
                    ));
                }
                Ok(Transfer::Duration(d))
            }
            (None, Some(bytes)) => {
                if !(1..=1_000_000_000_000).contains(&bytes) {
                    return Err(self.field_error(
                        "transfer.bytes",
                        format!(
                            "transfer.bytes = {bytes} is out of range: it must be in [1, 1e12]{at}"
                        ),
                    ));
                }
                let timeout = section.timeout.unwrap_or(DEFAULT_TIMEOUT);
                if timeout.is_zero() || timeout > Duration::from_secs(7 * 86_400) {
                    return Err(self.field_error(
                        "transfer.timeout",
                        "transfer.timeout is out of range: it must be in (0, 7 days]",
                    ));
                }
                Ok(Transfer::Bytes {
                    bytes: bytes as u64,
                    timeout,
                })
            }
        }
    }

    /// `flows`, `flow_stagger` and the number of `[[flow]]` tables: how many flows, and how far
    /// apart they start.
    fn flows(&self, file: &ScenarioFile, transfer: &Transfer) -> Result<(u32, Duration)> {
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
        // Each [[flow]] with a `start` of its own leaves the stagger unused too.
        let staggered =
            (1..flows as usize).any(|i| file.flow.get(i).is_none_or(|f| f.start.is_none()));
        if !flow_stagger.is_zero() && !staggered {
            return Err(self.field_error(
                "flow_stagger",
                format!(
                    "flow_stagger = {} spaces the starts of a run's flows, and {}: it would not \
                     act; drop it, or give several flows (flows = N, --flows N)",
                    netsim::units::format_duration(flow_stagger),
                    if flows == 1 {
                        "this run has one flow".to_owned()
                    } else {
                        "every [[flow]] table gives its own start".to_owned()
                    }
                ),
            ));
        }
        if let Transfer::Duration(d) = *transfer
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
        Ok((flows, flow_stagger))
    }

    /// `[[flow]]` table `i`: its controller (which must share the run's quinn or noq client),
    /// its start and its own access link.
    fn flow(
        &self,
        i: usize,
        entry: &FlowEntry,
        file: &ScenarioFile,
        transfer: &Transfer,
        flow_stagger: Duration,
    ) -> Result<MixFlow> {
        let field = format!("flow[{i}]");
        let named = |e: String| {
            self.field_error(
                &format!("{field}.controller"),
                format!("{field}.controller: {e}"),
            )
        };
        // A competitor runs with the knobs its `[controllers.NAME]` table (--set) gives it.
        let controller = entry
            .controller
            .as_ref()
            .map(|name| {
                registry::resolve(&registry::ControllerSpec {
                    name: name.clone(),
                    settings: file
                        .controllers
                        .settings
                        .get(name)
                        .cloned()
                        .unwrap_or_default(),
                })
            })
            .transpose()
            .map_err(named)?;
        if let Some(resolved) = &controller {
            let (name, info) = (&resolved.name, resolved.info());
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
        if let Transfer::Duration(d) = *transfer
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
        Ok(MixFlow {
            controller,
            start,
            access_delay,
        })
    }

    /// `[transport]`: quinn's loss thresholds (checked as the ports' loss-signal settings, which
    /// take the same values), idle timeout and ACK delay.
    fn transport(&self, section: &TransportSection) -> Result<TransportSettings> {
        let mut signal = cc_core::SignalConfig::default();
        let packet_threshold = section
            .packet_threshold
            .unwrap_or(super::model::DEFAULT_PACKET_THRESHOLD);
        signal
            .set_packet_threshold(packet_threshold)
            .map_err(|e| self.field_error("transport.packet_threshold", transport_error(&e)))?;
        let time_threshold = section
            .time_threshold
            .unwrap_or(super::model::DEFAULT_TIME_THRESHOLD);
        signal
            .set_time_threshold(time_threshold)
            .map_err(|e| self.field_error("transport.time_threshold", transport_error(&e)))?;
        let ack_delay = match section.ack_delay {
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
        };
        Ok(TransportSettings {
            idle_timeout: section.idle_timeout.unwrap_or(None),
            packet_threshold,
            time_threshold,
            timeout_reading: section.timeout_reading,
            quinn_full_window: section.quinn_full_window,
            ack_delay,
        })
    }

    /// `backend` and `[ns3]`: netsim's `link`, or the ns-3 network (which inherits a mobility
    /// path from `link`).
    fn backend(&self, file: &ScenarioFile, link: &LinkConfig, at: &str) -> Result<Backend> {
        match file.backend.unwrap_or_default() {
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
                Err(self.field_error(
                    "ns3",
                    format!(
                        "[ns3] configures the ns-3 backend, and this runs on netsim: set backend = \"ns3\" (--backend ns3) or remove the [ns3] table{at}"
                    ),
                ))
            }
            BackendKind::Netsim => Ok(Backend::Netsim),
            BackendKind::Ns3 => {
                if link.mac.is_some() {
                    return Err(self.field_error(
                        "link.mac",
                        format!(
                            "link.mac is netsim's 802.11 layer; the ns-3 backend models 802.11 itself (set its MAC with `[ns3.wifi]`, e.g. --ns3 wifi.rts_cts=true){at}"
                        ),
                    ));
                }
                let mut config = backend::resolve(&backend::inherited(link), file.ns3.as_ref())
                    .map_err(|e| self.field_error("ns3", format!("ns3: {e}{at}")))?;
                // A trace named in the file is read beside the file, like any path in it; one
                // given on the command line (`--ns3 topology.path=...`) from the working
                // directory.
                let from_flag = self.overrides.iter().any(|o| {
                    o.key == "ns3" || o.key == "ns3.topology" || o.key.starts_with("ns3.topology.")
                });
                if let (netsim_ns3::Topology::Ns2Trace { path }, Some(dir), false) =
                    (&mut config.topology, &self.source.dir, from_flag)
                    && path.is_relative()
                {
                    *path = dir.join(&*path);
                }
                config.validate().map_err(|e| {
                    let field = match &e {
                        netsim::ConfigError::OutOfRange { field, .. }
                        | netsim::ConfigError::Invalid { field, .. } => field.clone(),
                        netsim::ConfigError::Parse { .. } => String::new(),
                    };
                    self.field_error(&format!("ns3.{field}"), format!("ns3.{e}{at}"))
                })?;
                if self.runnable && !netsim_ns3::AVAILABLE {
                    return Err(
                        self.field_error("backend", netsim_ns3::Error::Unavailable.to_string())
                    );
                }
                Ok(Backend::Ns3(Box::new(config)))
            }
        }
    }

    /// `stack` and `receiver`: quiche receives only in a build with it, and never hosts.
    fn stacks(&self, stack: Option<Stack>, receiver: Option<Stack>) -> Result<()> {
        if receiver == Some(Stack::Quiche) && !stack::QUICHE_AVAILABLE {
            return Err(self.field_error(
                "receiver",
                stack::unavailable("a quiche receiver (receiver = \"quiche\")"),
            ));
        }
        if stack == Some(Stack::Quiche) {
            return Err(self.field_error(
                "stack",
                "stack = \"quiche\": the host stack is \"quinn\" or \"noq\" (quiche cannot host \
                 the ports; its own controllers are quiche-reno, quiche-cubic and quiche-bbr2)",
            ));
        }
        Ok(())
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
pub(super) fn normalize_link(doc: &mut Table) {
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
