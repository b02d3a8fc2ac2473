//! A run's [`RunResult`], built in one place from what any kind of run measured (quinn or noq,
//! ns-3's TCP, a quiche end): the labels come from the spec, and the figures derived from the
//! measurements (goodput, throughput, utilization, Jain's index) are computed here alone.

use crate::metrics::{FlowMetrics, LinkSummary, RunResult, SignalCounts, bits_per_second, jain};
use crate::run::spec::RunSpec;
use crate::scenario::backend::BackendKind;
use crate::stack::Stack;

/// What a run measured.
pub(crate) struct Measured {
    /// False when the run cannot be reproduced from its seed.
    pub(crate) reproducible: bool,
    /// Virtual or real time.
    pub(crate) clock: netsim::Clock,
    /// The packet protection the run used.
    pub(crate) packet_protection: netsim::PacketProtection,
    /// The sender's and the receiver's stacks.
    pub(crate) ends: (Stack, Stack),
    /// The measurement window, seconds of link time.
    pub(crate) window_s: f64,
    /// Bytes the senders put on the path (UDP payload, or TCP's), for the throughput.
    pub(crate) bytes_sent: u64,
    /// The bytes the path could have carried in the window (0: unknown, no utilization).
    pub(crate) capacity_bytes: f64,
    /// The loss-signal classes of the run's own flows (ports only).
    pub(crate) signals: Option<SignalCounts>,
    /// The link's accounting summary.
    pub(crate) link: LinkSummary,
    /// Per-flow metrics, by flow index.
    pub(crate) flows: Vec<FlowMetrics>,
    /// What carried the datagrams.
    pub(crate) backend: BackendKind,
    /// ns-3's statistics, on that backend.
    pub(crate) ns3: Option<netsim_ns3::Ns3Stats>,
    /// Spans without a path, for the cwnd plot's shading.
    pub(crate) route_down_s: Vec<(f64, f64)>,
}

/// The result of `spec`, which measured `m`.
pub(crate) fn result(spec: &RunSpec, m: Measured) -> RunResult {
    let scenario = &spec.scenario;
    let bytes_delivered: u64 = m.flows.iter().map(|f| f.bytes_delivered).sum();
    let goodputs: Vec<f64> = m.flows.iter().map(|f| f.goodput_bps).collect();
    RunResult {
        run_id: spec.run_id().to_owned(),
        index: spec.index,
        grid: spec.grid.clone(),
        point: scenario.point.clone(),
        params: scenario.params.clone(),
        controller: spec.controller.label(),
        seed: spec.seed,
        reproducible: m.reproducible,
        clock: m.clock,
        packet_protection: m.packet_protection,
        sender: m.ends.0,
        receiver: m.ends.1,
        window_s: m.window_s,
        bytes_delivered,
        goodput_bps: bits_per_second(bytes_delivered, m.window_s),
        throughput_bps: bits_per_second(m.bytes_sent, m.window_s),
        utilization: (m.capacity_bytes > 0.0).then(|| bytes_delivered as f64 / m.capacity_bytes),
        jain: jain(&goodputs),
        signals: m.signals,
        link: m.link,
        flows: m.flows,
        backend: m.backend,
        ns3: m.ns3,
        route_down_s: m.route_down_s,
    }
}
