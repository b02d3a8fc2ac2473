//! The end of a run on quinn or noq: what its flows, its link and (on ns-3) its network
//! measured, read once the transfers are over and checked (every byte arrived as sent), into
//! the run's [`RunResult`].

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use crate::metrics::{
    FlowMetrics, LinkSummary, RunResult, SignalCounts, bits_per_second, quantile,
};
use crate::registry::ControllerInfo;
use crate::run::build::BuiltController;
use crate::run::flows::Flow;
use crate::run::host::{Host, Pairing};
use crate::run::result::{Measured, result};
use crate::run::sampler;
use crate::run::spec::RunSpec;
use crate::scenario::{Scenario, Transfer};

/// Everything a finished run on the pairing `P` leaves to read.
pub(super) struct Finished<'a, P: Pairing> {
    /// The run.
    pub(super) spec: &'a RunSpec,
    /// Its controller's registry entry.
    pub(super) info: &'static ControllerInfo,
    /// Its controller, built for the sender's stack.
    pub(super) built: &'a BuiltController<P::Client>,
    /// A mixed run's other controllers.
    pub(super) others: &'a [Other<P::Client>],
    /// The client/server pairs (one on netsim, one per source/sink pair on ns-3).
    pub(super) pairs: Vec<P::Pair>,
    /// The flows that connected.
    pub(super) flows: tokio::sync::Mutex<Vec<Flow<P::Client>>>,
    /// Every flow the run was to have, connected or not.
    pub(super) total_flows: u32,
    /// The packet protection the run used.
    pub(super) protection: netsim::PacketProtection,
    /// When the run started (the samplers' time origin).
    pub(super) epoch: std::time::Instant,
}

/// Reads `finished` into the run's result; an integrity failure (a byte that differs from what
/// was sent, or a bytes transfer short of its size) is the run's error.
pub(super) fn collect<P: Pairing>(finished: Finished<'_, P>) -> Result<RunResult, String> {
    let Finished {
        spec,
        info,
        built,
        others,
        pairs,
        flows,
        total_flows,
        protection,
        epoch,
    } = finished;
    let scenario = &spec.scenario;
    let other = |index: u32| {
        let name = scenario.flow_controller(index)?;
        others.iter().find(|o| o.name == name)
    };
    // On ns-3 every pair's link reports the whole network (see netsim_ns3::Ns3Medium).
    let link = P::link(
        pairs
            .first()
            .ok_or("the ns-3 network has no source/sink pair")?,
    );
    let end = link.now();
    let accounting = link.accounting();
    let (ns3, route_down_s) = link.inspect_medium(|medium| {
        medium
            .as_any()
            .downcast_ref::<netsim_ns3::Ns3Medium>()
            .map(|m| {
                let down = m.route_down(end).into_iter();
                (
                    Some(m.stats()),
                    down.map(|(from, to)| (from.as_secs_f64(), to.as_secs_f64()))
                        .collect(),
                )
            })
            .unwrap_or_default()
    });
    let mut flows = flows.into_inner();
    // Pairs connect concurrently: report flows in index order.
    flows.sort_by_key(|flow| flow.index);
    let mut flow_metrics = Vec::new();
    for flow in &flows {
        let counters = &flow.counters;
        if counters.corrupted.load(Ordering::Relaxed) {
            return Err(format!(
                "integrity failure in flow {}: byte {} differs from what was sent",
                flow.index,
                counters.corrupted_at.load(Ordering::Relaxed)
            ));
        }
        let delivered = counters.delivered.load(Ordering::Relaxed);
        if let Transfer::Bytes { bytes, .. } = scenario.transfer
            && delivered != bytes
        {
            return Err(format!(
                "integrity failure in flow {}: {delivered} of {bytes} bytes delivered at the end of the stream",
                flow.index
            ));
        }
        let (flow_built, label) = match other(flow.index) {
            Some(o) => (&o.built, Some(o.name.clone())),
            None => (
                built,
                (!scenario.mix.is_empty()).then(|| spec.controller.label()),
            ),
        };
        let mut metrics = flow_metrics_of(flow, flow_built, scenario, end, epoch);
        metrics.controller = label;
        let access_delay = scenario.flow_access_delay(flow.index);
        metrics.access_delay_ms =
            (!access_delay.is_zero()).then_some(access_delay.as_secs_f64() * 1e3);
        flow_metrics.push(metrics);
    }
    for flow in &flows {
        if let Some(client) = &flow.client {
            P::Client::close(client);
        }
    }
    for index in 0..total_flows {
        if !flows.iter().any(|flow| flow.index == index) {
            flow_metrics.push(FlowMetrics::unconnected(index));
        }
    }
    flow_metrics.sort_by_key(|flow| flow.flow);
    drop(flows);
    drop(pairs);

    let window_s = end.as_secs_f64();
    let udp_bytes: u64 = flow_metrics.iter().map(|f| f.udp_bytes_sent).sum();
    let data = &accounting.a_to_b;
    // The run's own flows' loss signals (a mixed run's other ports report theirs per flow).
    let signals = flow_metrics
        .iter()
        .filter(|f| other(f.flow).is_none())
        .filter_map(|f| f.signals.as_ref())
        .fold(None::<SignalCounts>, |acc, s| {
            Some(acc.map_or_else(|| s.clone(), |a| a.plus(s)))
        });
    let result = result(
        spec,
        Measured {
            reproducible: info.reproducible,
            clock: scenario.clock,
            packet_protection: protection,
            ends: (P::Client::STACK, P::Server::STACK),
            window_s,
            bytes_sent: udp_bytes,
            capacity_bytes: data.capacity_bytes,
            signals: if info.port { signals } else { None },
            link: LinkSummary::from_accounting(data),
            flows: flow_metrics,
            backend: scenario.backend.kind(),
            ns3,
            route_down_s,
        },
    );
    tracing::info!(
        target: "harness",
        run_id = %result.run_id,
        point = %result.point,
        controller = %result.controller,
        seed = result.seed,
        goodput_bps = result.goodput_bps,
        "run finished"
    );
    Ok(result)
}

/// One of a mixed run's other controllers, built for the run's stack.
pub(super) struct Other<H: Host> {
    pub(super) name: String,
    pub(super) built: BuiltController<H>,
    pub(super) transport: Arc<H::Transport>,
}

fn flow_metrics_of<H: Host>(
    flow: &Flow<H>,
    built: &BuiltController<H>,
    scenario: &Scenario,
    end: Duration,
    epoch: std::time::Instant,
) -> FlowMetrics {
    let counters = &flow.counters;
    let seconds = |nanos: u64| (nanos > 0).then_some(nanos as f64 * 1e-9);
    let connected_s = seconds(counters.connected_at_nanos.load(Ordering::Relaxed));
    let finished_s = seconds(counters.finished_at_nanos.load(Ordering::Relaxed));
    let start = scenario.flow_start(flow.index).as_secs_f64();
    let window = match scenario.transfer {
        Transfer::Duration(_) => end.as_secs_f64() - start,
        Transfer::Bytes { .. } => finished_s.unwrap_or(end.as_secs_f64()) - start,
    };
    let delivered = counters.delivered.load(Ordering::Relaxed);
    let mut metrics = FlowMetrics::unconnected(flow.index);
    metrics.connected_s = connected_s;
    metrics.finished_s = finished_s;
    metrics.bytes_delivered = delivered;
    let Some(client) = &flow.client else {
        return metrics;
    };
    let stats = H::sender_stats(client);
    let rate = |bytes: u64| bits_per_second(bytes, window);
    metrics.goodput_bps = rate(delivered);
    metrics.throughput_bps = rate(stats.udp_bytes);
    metrics.datagrams_sent = stats.datagrams;
    metrics.udp_bytes_sent = stats.udp_bytes;
    metrics.packets_sent = stats.packets_sent;
    metrics.packets_lost = stats.packets_lost;
    metrics.bytes_lost = stats.bytes_lost;
    metrics.congestion_events = Some(stats.congestion_events);
    if let Some(recorded) = H::recorded(client, built.signal_stats) {
        metrics.signals = recorded.signals.map(|s| SignalCounts::from_stats(&s));
        let mut recording = sampler::lock(&recorded.samples);
        recording.finish(epoch + end);
        let mut samples = recording.rtt_samples_us.clone();
        samples.sort_unstable();
        let ms = |us: u64| us as f64 / 1000.0;
        metrics.rtt_min_ms = samples.first().copied().map(ms);
        metrics.rtt_p50_ms = quantile(&samples, 0.5).map(ms);
        metrics.rtt_p95_ms = quantile(&samples, 0.95).map(ms);
        metrics.rtt_samples = samples.len() as u64;
        metrics.slow_start_s = recording.slow_start.map(|d| d.as_secs_f64());
        metrics.window_trace = recording.trace.take().unwrap_or_default();
    }
    metrics
}
