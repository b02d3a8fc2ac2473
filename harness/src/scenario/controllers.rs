//! A grid's controllers: the `[controllers]` section (which run, with which knobs), and each
//! one checked against each point (its stacks, its clock, its backend).

use netsim::{Clock, PacketProtection};

use crate::error::Result;
use crate::registry::{self, ControllerSpec, ResolvedController};
use crate::scenario::context::Context;
use crate::scenario::model::Scenario;
use crate::scenario::schema::ControllersSection;
use crate::stack::{self, Stack};

impl Context<'_> {
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
        // ns-3's TCP has no QUIC transport: a QUIC setting would not act on its runs.
        let mut quic_only = point.transport.given();
        if point.stack == Some(Stack::Noq) {
            quic_only.push("stack");
        }
        if point.packet_protection != PacketProtection::Null {
            quic_only.push("packet_protection");
        }
        if let Some(field) = quic_only.first() {
            return Err(self.field_error(
                field,
                format!(
                    "{field} is a QUIC setting, and controller `{name}` is ns-3's own TCP, \
                     which has no QUIC transport: it would not act on its runs; drop it, or run \
                     the QUIC controllers that need it in a grid of their own"
                ),
            ));
        }
        registry::tcp(spec).map_err(|e| self.field_error("controllers.select", e))?;
        Ok(())
    }

    /// Refuses settings that would act on no run: knobs for a controller that neither runs
    /// nor competes, the ports' transport settings in a grid without a port, and
    /// `quinn_full_window` on a point that runs on noq.
    pub(super) fn check_settings_act(
        &self,
        section: &ControllersSection,
        points: &[Scenario],
        specs: &[ResolvedController],
    ) -> Result<()> {
        let competitors = || {
            points
                .iter()
                .flat_map(|p| p.mix.iter().filter_map(|f| f.controller.as_ref()))
        };
        for (name, knobs) in &section.settings {
            if !specs.iter().any(|s| s.name == *name) && !competitors().any(|c| c.name == *name) {
                let running: Vec<&str> = specs.iter().map(|s| s.name.as_str()).collect();
                let knob = knobs
                    .keys()
                    .next()
                    .map_or(String::new(), |k| format!(".{k}"));
                return Err(self.field_error(
                    &format!("controllers.{name}"),
                    format!(
                        "controllers.{name}{knob}: `{name}` is not among this grid's controllers \
                         ({}) nor a competitor flow's, so its knobs would not act; add it to \
                         controllers.select (--controllers) or drop the setting",
                        running.join(", ")
                    ),
                ));
            }
        }
        let ports = specs.iter().any(|s| s.info().port) || competitors().any(|c| c.info().port);
        for point in points {
            for field in ["transport.quinn_full_window", "transport.timeout_reading"] {
                if !ports && point.transport.given().contains(&field) {
                    return Err(self.field_error(
                        field,
                        format!(
                            "{field} acts on the workspace's ports only, and no controller of \
                             this grid is one: it would not act; drop it or add a port"
                        ),
                    ));
                }
            }
            if point.transport.quinn_full_window.is_some()
                && point.stack.unwrap_or_default() == Stack::Noq
            {
                return Err(self.field_error(
                    "transport.quinn_full_window",
                    format!(
                        "transport.quinn_full_window compensates quinn 0.11's send check; noq \
                         has none, so it would not act on point `{}`, which runs on noq: drop \
                         it, or sweep the stacks in separate grids",
                        point.point
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Refuses runs with a quiche end that cannot work: virtual time (quiche reads the system
    /// clock), several flows (one connection per run), quinn's loss thresholds on a quiche
    /// sender (quiche's are fixed).
    pub(super) fn check_stacks(
        &self,
        points: &[Scenario],
        specs: &[ResolvedController],
    ) -> Result<()> {
        for point in points {
            if !point.backend.is_netsim() && point.clock == Clock::Real {
                return Err(self.field_error(
                    "clock",
                    "the ns-3 backend runs in virtual time only (ns-3 is advanced in lock-step \
                     with tokio's paused clock); use clock = \"virtual\" (--clock virtual)",
                ));
            }
            for spec in specs {
                let sender = spec
                    .info()
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
    pub(super) fn controllers(
        &self,
        section: &ControllersSection,
        stacks: &[Stack],
    ) -> Result<Vec<ResolvedController>> {
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
        let mut specs: Vec<ResolvedController> = Vec::new();
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
            let resolved = registry::resolve(&spec).map_err(|e| {
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
            specs.push(resolved);
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
}
