//! A run of ns-3's own TCP (`tcp-newreno`, `tcp-cubic`, ...): the same ns-3 scenario and seed
//! as a QUIC run, with ns-3's BulkSend and PacketSink applications in place of the QUIC
//! endpoints, and the same result shape (goodput, drops by reason, hops, RTT).
//!
//! Nothing of QUIC takes part, so no tokio runtime either: ns-3 runs from start to end in one
//! go (or, for a transfer of a given size, in one-second steps until every flow has it).

use std::time::Duration;

use netsim_ns3::{Session, TcpBulk, TcpFlowReport};

use crate::metrics::{FlowMetrics, LinkSummary, RunResult, TcpCounters, bits_per_second, quantile};
use crate::registry;
use crate::run::result::{Measured, result};
use crate::run::spec::RunSpec;
use crate::scenario::Transfer;
use crate::stack::Stack;

/// How often a transfer of a given size checks whether every flow has its bytes.
const BYTES_CHECK: Duration = Duration::from_secs(1);

/// Runs `spec`, whose controller is one of ns-3's TCP controllers, on its ns-3 scenario.
pub fn run(spec: &RunSpec) -> Result<RunResult, String> {
    let scenario = &spec.scenario;
    let config = scenario.backend.ns3().ok_or_else(|| {
        format!(
            "controller `{}` is ns-3's own TCP: it runs on the ns-3 backend only",
            spec.controller.name
        )
    })?;
    let (variant, segment_bytes) = registry::tcp(&spec.controller)?;
    let pairs = config.pairs().len() as u32;
    let flows_per_pair = scenario.flows;
    let total = flows_per_pair.saturating_mul(pairs);
    let epoch = config.start;
    let (stop, max_bytes, deadline) = match scenario.transfer {
        Transfer::Duration(d) => (epoch + d, None, epoch + d),
        Transfer::Bytes { bytes, timeout } => (epoch + timeout, Some(bytes), epoch + timeout),
    };
    let bulk = TcpBulk {
        variant,
        segment_bytes,
        flows_per_pair,
        starts: (0..total).map(|i| epoch + scenario.flow_start(i)).collect(),
        stop,
        max_bytes,
    };
    let mut session = Session::new(config, spec.seed).map_err(|e| e.to_string())?;
    session.install_tcp(&bulk).map_err(|e| e.to_string())?;
    let end = match max_bytes {
        None => {
            session.run_until(deadline);
            deadline
        }
        Some(bytes) => {
            let mut now = epoch;
            loop {
                now = (now + BYTES_CHECK).min(deadline);
                session.run_until(now);
                let flows = session.tcp_flows();
                if flows.iter().all(|f| f.rx_bytes >= bytes) {
                    break flows.iter().filter_map(|f| f.last_rx).max().unwrap_or(now);
                }
                if now >= deadline {
                    return Err(format!(
                        "the transfer did not complete within the timeout ({}); raise \
                         transfer.timeout",
                        netsim::units::format_duration(deadline - epoch)
                    ));
                }
            }
        }
    };
    let stats = session.stats();
    let route_down_s = session
        .route_down(0, end)
        .into_iter()
        .map(|(from, to)| {
            (
                from.saturating_sub(epoch).as_secs_f64(),
                to.saturating_sub(epoch).as_secs_f64(),
            )
        })
        .collect();
    let reports = session.tcp_flows();
    drop(session);

    let window_s = end.saturating_sub(epoch).as_secs_f64();
    let flows: Vec<FlowMetrics> = reports
        .iter()
        .enumerate()
        .map(|(index, report)| {
            let index = index as u32;
            flow_metrics(
                index,
                report,
                end.saturating_sub(epoch + scenario.flow_start(index)),
                max_bytes,
                epoch,
            )
        })
        .collect();
    let bytes_sent: u64 = flows.iter().map(|f| f.udp_bytes_sent).sum();
    let data = stats
        .a_to_b
        .accounting(window_s, stats.route_available.unwrap_or(1.0));
    Ok(result(
        spec,
        Measured {
            reproducible: true,
            clock: scenario.clock,
            packet_protection: scenario.packet_protection,
            ends: (Stack::Tcp, Stack::Tcp),
            window_s,
            bytes_sent,
            // ns-3 accounts no physical limit: no utilization.
            capacity_bytes: 0.0,
            signals: None,
            link: LinkSummary::from_accounting(&data),
            flows,
            backend: scenario.backend.kind(),
            ns3: Some(stats),
            route_down_s,
        },
    ))
}

/// One flow's metrics over its window (`window`: from its start to the run's end).
fn flow_metrics(
    index: u32,
    report: &TcpFlowReport,
    window: Duration,
    max_bytes: Option<u64>,
    epoch: Duration,
) -> FlowMetrics {
    let seconds = window.as_secs_f64();
    let rate = |bytes: u64| bits_per_second(bytes, seconds);
    let mut rtt: Vec<u64> = report
        .rtt
        .iter()
        .map(|d| u64::try_from(d.as_micros()).unwrap_or(u64::MAX))
        .collect();
    rtt.sort_unstable();
    let ms = |us: u64| us as f64 / 1000.0;
    let link_time = |t: Duration| t.saturating_sub(epoch).as_secs_f64();
    let mut metrics = FlowMetrics::unconnected(index);
    // TCP has no handshake trace here: a flow counts as connected from its first delivery.
    metrics.connected_s = report.first_rx.map(link_time);
    metrics.finished_s = max_bytes
        .filter(|bytes| report.rx_bytes >= *bytes)
        .and(report.last_rx.map(link_time));
    metrics.bytes_delivered = report.rx_bytes;
    metrics.goodput_bps = rate(report.rx_bytes);
    metrics.throughput_bps = rate(report.bytes_sent);
    metrics.datagrams_sent = report.segments_sent;
    metrics.udp_bytes_sent = report.bytes_sent;
    metrics.packets_sent = report.segments_sent;
    metrics.packets_lost = report.retransmissions;
    metrics.packets_retransmitted = Some(report.retransmissions);
    metrics.congestion_events = Some(report.timeouts + report.fast_recoveries);
    metrics.tcp = Some(TcpCounters {
        timeouts: report.timeouts,
        fast_recoveries: report.fast_recoveries,
    });
    metrics.rtt_min_ms = rtt.first().copied().map(ms);
    metrics.rtt_p50_ms = quantile(&rtt, 0.5).map(ms);
    metrics.rtt_p95_ms = quantile(&rtt, 0.95).map(ms);
    metrics.rtt_samples = rtt.len() as u64;
    metrics
}
