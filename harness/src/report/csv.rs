//! The CSV report: one row per run and flow, with the run's aggregates repeated.

use std::fmt::Write as _;
use std::path::Path;

use crate::error::{HarnessError, Result};
use crate::metrics::RunResult;

const HEADER: &str = "run_id,grid,point,controller,seed,reproducible,window_s,goodput_bps,throughput_bps,utilization,jain,capacity_bps,up_fraction,flow,flow_bytes_delivered,flow_goodput_bps,flow_throughput_bps,datagrams_sent,packets_sent,packets_lost,bytes_lost,congestion_events,rtt_p50_ms,rtt_p95_ms,slow_start_s,fast_retransmit,timeout1,timeout2,persistent,ecn,undetermined,clock,sender,receiver,packets_retransmitted,backend,ns3_hops,ns3_route_changes,ns3_drops_mac_retry,ns3_drops_queue,ns3_drops_no_route,ns3_drops_routing_buffer,timeout0,time_threshold,probe_timeouts,after_probe_timeout,ns3_max_gap_s,ns3_ack_max_gap_s,ns3_ack_drops_no_route,tcp_timeouts,tcp_fast_recoveries";

fn quote(field: &str) -> String {
    if field.contains([',', '"', '\n']) {
        format!("\"{}\"", field.replace('"', "\"\""))
    } else {
        field.to_owned()
    }
}

fn opt_count(value: Option<u64>) -> String {
    value.map(|v| v.to_string()).unwrap_or_default()
}

fn opt(value: Option<f64>) -> String {
    value.map(|v| v.to_string()).unwrap_or_default()
}

fn clock_name(clock: netsim::Clock) -> &'static str {
    match clock {
        netsim::Clock::Virtual => "virtual",
        netsim::Clock::Real => "real",
    }
}

/// The CSV text.
pub fn render(runs: &[RunResult]) -> String {
    let mut out = String::from(HEADER);
    out.push('\n');
    for run in runs {
        for flow in &run.flows {
            let s = flow.signals.clone();
            let sig = |f: fn(&crate::metrics::SignalCounts) -> u64| {
                s.as_ref().map(|s| f(s).to_string()).unwrap_or_default()
            };
            let _ = write!(
                out,
                "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
                run.run_id,
                quote(&run.grid),
                quote(&run.point),
                quote(&run.controller),
                run.seed,
                run.reproducible,
                run.window_s,
                run.goodput_bps,
                run.throughput_bps,
                opt(run.utilization),
                run.jain,
                run.link.capacity_bps,
                run.link.up_fraction,
                flow.flow,
                flow.bytes_delivered,
                flow.goodput_bps,
                flow.throughput_bps,
                flow.datagrams_sent,
                flow.packets_sent,
                flow.packets_lost,
                flow.bytes_lost,
                opt_count(flow.congestion_events),
                opt(flow.rtt_p50_ms),
                opt(flow.rtt_p95_ms),
                opt(flow.slow_start_s),
                sig(|s| s.fast_retransmit),
                sig(|s| s.timeout1),
                sig(|s| s.timeout2),
                sig(|s| s.persistent),
                sig(|s| s.ecn),
                sig(|s| s.undetermined),
                clock_name(run.clock),
                run.sender,
                run.receiver,
                opt_count(flow.packets_retransmitted),
            );
            // ns-3's account of the run's data direction (empty on netsim).
            let data = run.ns3.as_ref().map(|s| s.a_to_b);
            let ns3 = |f: fn(&netsim_ns3::Ns3DirectionStats) -> u64| {
                data.as_ref().map(|d| f(d).to_string()).unwrap_or_default()
            };
            let _ = write!(
                out,
                ",{},{},{},{},{},{},{}",
                run.backend.as_str(),
                opt(data.as_ref().and_then(|d| d.mean_hops)),
                ns3(|d| d.route_changes),
                ns3(|d| d.drops.mac_retry),
                ns3(|d| d.drops.mac_queue),
                ns3(|d| d.drops.no_route),
                ns3(|d| d.drops.routing_buffer),
            );
            let ack = run.ns3.as_ref().map(|s| s.b_to_a);
            let tcp = flow.tcp.as_ref();
            let _ = writeln!(
                out,
                ",{},{},{},{},{},{},{},{},{}",
                sig(|s| s.timeout0()),
                sig(|s| s.time_threshold),
                sig(|s| s.probe_timeouts),
                sig(|s| s.after_probe_timeout),
                opt(data.as_ref().map(|d| d.max_gap_s)),
                opt(ack.as_ref().map(|d| d.max_gap_s)),
                opt_count(ack.as_ref().map(|d| d.drops.no_route)),
                opt_count(tcp.map(|t| t.timeouts)),
                opt_count(tcp.map(|t| t.fast_recoveries)),
            );
        }
    }
    out
}

/// Writes the CSV to `path`.
pub fn write(path: &Path, runs: &[RunResult]) -> Result<()> {
    std::fs::write(path, render(runs)).map_err(|e| HarnessError::output(path, e))
}
