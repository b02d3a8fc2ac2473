//! Executing one run: a scenario point, a controller and a seed, on a fresh current-thread
//! tokio runtime (virtual or real time), with every byte verified.
//!
//! A fresh runtime per run (rather than one reused by a worker thread) makes a run's result
//! independent of which runs a worker did before it: a run's output depends only on its spec.

//!
//! The pieces of a run, in the order it uses them: [`spec`] (what identifies it), [`build`]
//! (its controller's factory on the run's stack), [`host`] (quinn and noq behind one interface),
//! [`sampler`] (the recording wrapper around the controller), [`qlog`] (quinn's qlog),
//! [`flows`] (the concurrent verified transfers); the runs that take another path: [`ns3_worker`]
//! (an ns-3 run in a process of its own), [`ns3_tcp`] (ns-3's own TCP) and [`quiche`] (a quiche
//! end, cargo feature `quiche`).

pub mod build;
pub mod flows;
pub mod host;
pub mod ns3_tcp;
pub mod ns3_worker;
pub mod qlog;
pub mod quiche;
pub mod sampler;
pub mod spec;

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use crate::error::{HarnessError, Result};
use crate::metrics::{
    FlowMetrics, LinkSummary, RunResult, SignalCounts, bits_per_second, jain, quantile,
};
use crate::registry;
use crate::run::build::BuildOn;
use crate::run::flows::{Amount, Flow, FlowPlan, run_pairs};
use crate::run::host::{Host, Pairing};
use crate::run::spec::{RunOptions, RunSpec};
use crate::scenario::{Scenario, Transfer};
use crate::stack::Stack;

/// Runs `spec`. A failed run (quinn error, timeout, integrity failure) is
/// [`HarnessError::RunFailed`] naming the run.
pub fn execute(spec: &RunSpec, options: &RunOptions) -> Result<RunResult> {
    if let (Some(worker), false) = (&options.ns3_worker, spec.scenario.backend.is_netsim()) {
        return crate::run::ns3_worker::execute(worker, spec, options);
    }
    execute_here(spec, options)
}

/// Runs `spec` in this process.
pub fn execute_here(spec: &RunSpec, options: &RunOptions) -> Result<RunResult> {
    let name = || {
        format!(
            "run {} ({} / {} / seed {})",
            spec.run_id(),
            spec.scenario.point,
            spec.controller.label(),
            spec.seed
        )
    };
    // The run's controller, looked up once for the whole run.
    let info = registry::lookup(&spec.controller.name)
        .map_err(|e| HarnessError::run_failed(format!("{} failed: {e}", name())))?;
    if spec.scenario.backend.ns3().is_some() && info.stacks == [Stack::Tcp] {
        return crate::run::ns3_tcp::run(spec)
            .map_err(|e| HarnessError::run_failed(format!("{} failed: {e}", name())));
    }
    let runtime = netsim::sim::build_runtime(spec.scenario.clock).map_err(|e| {
        HarnessError::run_failed(format!("{}: cannot start a runtime: {e}", name()))
    })?;
    let result = runtime.block_on(async {
        let host = spec.scenario.stack.unwrap_or_default();
        let (sender, receiver) = crate::stack::ends(info.sender(host)?, spec.scenario.receiver);
        if crate::stack::involves_quiche(sender, receiver) {
            return crate::run::quiche::run(spec, options, sender, receiver).await;
        }
        match (sender, receiver) {
            (Stack::Quinn, Stack::Quinn) => {
                run_async::<host::Same<host::Quinn>>(spec, info, options).await
            }
            (Stack::Noq, Stack::Noq) => {
                run_async::<host::Same<host::Noq>>(spec, info, options).await
            }
            (Stack::Quinn, Stack::Noq) => run_async::<host::QuinnToNoq>(spec, info, options).await,
            (Stack::Noq, Stack::Quinn) => run_async::<host::NoqToQuinn>(spec, info, options).await,
            _ => Err(format!(
                "no pairing of a {sender} sender with a {receiver} receiver"
            )),
        }
    });
    drop(runtime);
    result.map_err(|e| HarnessError::run_failed(format!("{} failed: {e}", name())))
}

/// A run with a `P::Client` sender (which runs the controller) and a `P::Server` receiver:
/// quinn or noq at either end.
async fn run_async<P: Pairing>(
    spec: &RunSpec,
    info: &'static registry::ControllerInfo,
    options: &RunOptions,
) -> Result<RunResult, String>
where
    P::Client: BuildOn,
{
    let scenario = &spec.scenario;
    let signal = scenario.transport.signal()?;
    let full_window = scenario.transport.quinn_full_window;
    let built = build::build_found::<P::Client>(info, &spec.controller, &signal, full_window)?;
    let epoch = tokio::time::Instant::now().into_std();
    let sampler = P::Client::recording_factory(built.factory.clone(), epoch, options.trace);

    let client = P::Client::client_transport(sampler, &scenario.transport)?;
    let client = P::Client::with_qlog(client, options, spec, epoch)?;
    // A mixed run's other controllers: one client transport each, shared by their flows.
    let mut others: Vec<Other<P::Client>> = Vec::new();
    for name in scenario.mix.iter().filter_map(|f| f.controller.as_deref()) {
        if others.iter().any(|o| o.name == name) {
            continue;
        }
        let other = registry::ControllerSpec {
            name: name.to_owned(),
            settings: Default::default(),
        };
        let built = build::build::<P::Client>(&other, &signal, full_window)?;
        let sampler = P::Client::recording_factory(built.factory.clone(), epoch, options.trace);
        let transport = P::Client::client_transport(sampler, &scenario.transport)?;
        others.push(Other {
            name: name.to_owned(),
            built,
            transport: Arc::new(transport),
        });
    }
    let server = P::Server::server_transport(scenario.transport.idle_timeout)?;
    // One client/server pair on netsim; on ns-3 one per source/sink pair of the network.
    let (client, server) = (Arc::new(client), Arc::new(server));
    let protection = P::packet_protection(scenario.packet_protection);
    let pairs = match scenario.backend.ns3() {
        None => vec![P::netsim_pair(
            scenario.link.clone(),
            spec.seed,
            client,
            server,
            protection,
        )?],
        Some(config) => netsim_ns3::Ns3Medium::network(config, spec.seed)
            .map_err(|e| e.to_string())?
            .into_iter()
            .map(|medium| {
                P::medium_pair(Box::new(medium), client.clone(), server.clone(), protection)
            })
            .collect::<std::result::Result<Vec<_>, _>>()?,
    };
    let total_flows = scenario.flows * pairs.len() as u32;

    let flows = tokio::sync::Mutex::new(Vec::<Flow<P::Client>>::new());
    let other = |index: u32| {
        let name = scenario.flow_controller(index)?;
        others.iter().find(|o| o.name == name)
    };
    let start = |index: u32| scenario.flow_start(index);
    let transport = |index: u32| other(index).map(|o| o.transport.clone());
    let access_delay = |index: u32| scenario.flow_access_delay(index);
    let plan = FlowPlan {
        start: &start,
        transport: &transport,
        access_delay: &access_delay,
    };
    match scenario.transfer {
        Transfer::Duration(d) => {
            let work = run_pairs::<P>(
                &pairs,
                spec.seed,
                scenario.flows,
                &plan,
                Amount::Unbounded,
                &flows,
            );
            if let Ok(Err(e)) = tokio::time::timeout(d, work).await {
                return Err(e);
            }
        }
        Transfer::Bytes { bytes, timeout } => {
            let work = run_pairs::<P>(
                &pairs,
                spec.seed,
                scenario.flows,
                &plan,
                Amount::Bytes(bytes),
                &flows,
            );
            match tokio::time::timeout(timeout, work).await {
                Err(_) => {
                    return Err(format!(
                        "the transfer did not complete within the timeout ({}); raise transfer.timeout",
                        netsim::units::format_duration(timeout)
                    ));
                }
                Ok(Err(e)) => return Err(e),
                Ok(Ok(())) => {}
            }
        }
    }
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
                &built,
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
    let bytes_delivered: u64 = flow_metrics.iter().map(|f| f.bytes_delivered).sum();
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
    let goodputs: Vec<f64> = flow_metrics.iter().map(|f| f.goodput_bps).collect();
    let per_second = |bytes: u64| bits_per_second(bytes, window_s);
    let result = RunResult {
        run_id: spec.run_id().to_owned(),
        index: spec.index,
        grid: spec.grid.clone(),
        point: scenario.point.clone(),
        params: scenario.params.clone(),
        controller: spec.controller.label(),
        seed: spec.seed,
        reproducible: info.reproducible,
        clock: scenario.clock,
        packet_protection: protection,
        sender: P::Client::STACK,
        receiver: P::Server::STACK,
        window_s,
        bytes_delivered,
        goodput_bps: per_second(bytes_delivered),
        throughput_bps: per_second(udp_bytes),
        utilization: (data.capacity_bytes > 0.0)
            .then(|| bytes_delivered as f64 / data.capacity_bytes),
        jain: jain(&goodputs),
        signals: if info.port { signals } else { None },
        link: LinkSummary::from_accounting(data),
        flows: flow_metrics,
        backend: scenario.backend.kind(),
        ns3,
        route_down_s,
    };
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
struct Other<H: Host> {
    name: String,
    built: build::BuiltController<H>,
    transport: Arc<H::Transport>,
}

fn flow_metrics_of<H: Host>(
    flow: &Flow<H>,
    built: &build::BuiltController<H>,
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
        let mut recording = crate::run::sampler::lock(&recorded.samples);
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
