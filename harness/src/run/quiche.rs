//! Runs with a quiche end (feature `quiche`): one verified transfer through `quiche-peer`, its
//! `TransferReport` mapped onto the harness's metrics.
//!
//! What differs from quinn-to-quinn runs (see README.md, "quiche"):
//!
//! - real time only (the scenario check refuses virtual time before anything runs), one flow;
//! - RTT p50 / p95: the sender's smoothed RTT sampled every 10 ms (quiche-peer samples both
//!   stacks that way: neither exposes per-ACK samples through its public API), not the per-ACK
//!   latest RTT the sampler records for quinn-to-quinn runs;
//! - loss-signal classes, time in slow start and the window trace: absent (quiche-peer owns
//!   the connections, so the harness's recording controller wrapper is not in the loop);
//! - `packets_retransmitted` from quiche's `Stats::retrans` (quiche senders only);
//!   `congestion_events` for quinn senders only;
//! - qlog: written for quinn senders only (quiche's own qlog is not wired in).

use crate::run::spec::{RunOptions, RunSpec};
use crate::stack::Stack;

#[cfg(feature = "quiche")]
mod imp {
    use std::sync::Arc;
    use std::time::Duration;

    use quiche_peer::{Amount, PeerConfig, QuicheCc, QuicheSettings, TransferReport, TransferSpec};
    use quinn::TransportConfig;

    use crate::metrics::{FlowMetrics, LinkSummary, RunResult};
    use crate::run::result::{Measured, result};
    use crate::run::spec::{RunOptions, RunSpec};
    use crate::scenario::{Scenario, Transfer};
    use crate::stack::Stack;

    /// quinn's idle timeout as the scenario sets it (`None`: off).
    fn quinn_idle(scenario: &Scenario) -> Result<Option<quinn::IdleTimeout>, String> {
        crate::run::host::quinn_idle_timeout(scenario.transport.idle_timeout)
    }

    /// quiche's idle timeout: the scenario's, or for "off" the run's own bound (quiche needs a
    /// non-zero value; the run ends by then anyway).
    fn quiche_idle(scenario: &Scenario) -> Duration {
        scenario
            .transport
            .idle_timeout
            .unwrap_or(match scenario.transfer {
                Transfer::Duration(d) => d,
                Transfer::Bytes { timeout, .. } => timeout,
            })
            .max(Duration::from_millis(1))
    }

    /// quiche-peer pairs quiche with quinn only.
    pub(super) const NOQ_WITH_QUICHE: &str = "quiche-peer pairs quiche with quinn, not noq: use stack = \"quinn\" for runs with a quiche end";

    fn sender_peer(spec: &RunSpec, options: &RunOptions) -> Result<PeerConfig, String> {
        let scenario = &spec.scenario;
        let info = spec.controller.info();
        if info.stacks == [Stack::Quiche] {
            let cc: QuicheCc = info.name.parse().map_err(|e| format!("{e}"))?;
            return Ok(PeerConfig::Quiche(cc));
        }
        let signal = scenario.transport.signal()?;
        let full_window = scenario.transport.quinn_full_window;
        let built = crate::run::build::build::<crate::run::host::Quinn>(
            &spec.controller,
            &signal,
            full_window,
        )?;
        let mut transport = TransportConfig::default();
        transport
            .congestion_controller_factory(built.factory)
            .max_idle_timeout(quinn_idle(scenario)?)
            .packet_threshold(scenario.transport.packet_threshold)
            .time_threshold(scenario.transport.time_threshold);
        if let Some(dir) = &options.qlog_dir {
            let epoch = tokio::time::Instant::now().into_std();
            crate::run::qlog::attach(&mut transport, dir, spec, epoch)?;
        }
        Ok(PeerConfig::quinn(
            spec.controller.label(),
            Arc::new(transport),
        ))
    }

    fn receiver_peer(
        scenario: &Scenario,
        stack: Stack,
        sender: &PeerConfig,
    ) -> Result<PeerConfig, String> {
        Ok(match stack {
            // The receiver's controller only paces its acks; a quiche receiver runs the quiche
            // sender's controller, or quiche's default (CUBIC) behind a quinn sender.
            Stack::Quiche => PeerConfig::Quiche(match sender {
                PeerConfig::Quiche(cc) => *cc,
                PeerConfig::Quinn { .. } => QuicheCc::Cubic,
            }),
            Stack::Quinn => {
                let mut transport = TransportConfig::default();
                transport.max_idle_timeout(quinn_idle(scenario)?);
                PeerConfig::quinn("quinn", Arc::new(transport))
            }
            Stack::Noq => return Err(NOQ_WITH_QUICHE.to_owned()),
            Stack::Tcp => {
                return Err(
                    "ns-3's TCP runs at both ends of its pairs, on the ns-3 backend only: \
                            it cannot face a quiche sender"
                        .to_owned(),
                );
            }
        })
    }

    /// Runs `spec` through quiche-peer on the current (real-time) runtime.
    pub(super) async fn run(
        spec: &RunSpec,
        options: &RunOptions,
        receiver: Stack,
    ) -> Result<RunResult, String> {
        let scenario = &spec.scenario;
        quiche_peer::check_clock(scenario.clock).map_err(|e| e.to_string())?;
        if scenario.flows != 1 {
            return Err(format!(
                "flows = {}: a run involving quiche carries one flow",
                scenario.flows
            ));
        }
        let sender = sender_peer(spec, options)?;
        let receiver = receiver_peer(scenario, receiver, &sender)?;
        let amount = match scenario.transfer {
            Transfer::Duration(d) => Amount::Duration(d),
            Transfer::Bytes { bytes, timeout } => Amount::Bytes { bytes, timeout },
        };
        let transfer = TransferSpec {
            link: scenario.link.clone(),
            seed: spec.seed,
            sender,
            receiver,
            amount,
            quiche: QuicheSettings {
                max_idle_timeout: quiche_idle(scenario),
                ..QuicheSettings::default()
            },
        };
        let report = transfer.run().await.map_err(|e| e.to_string())?;
        if !report.intact {
            return Err(match report.first_mismatch {
                Some(at) => {
                    format!("integrity failure in flow 0: byte {at} differs from what was sent")
                }
                None => format!(
                    "integrity failure in flow 0: {} of {} bytes delivered",
                    report.bytes_delivered,
                    report.bytes_expected.unwrap_or(report.bytes_delivered)
                ),
            });
        }
        Ok(result_of(spec, &report))
    }

    fn flow_of(scenario: &Scenario, report: &TransferReport) -> FlowMetrics {
        let stats = &report.sender_stats;
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        let mut flow = FlowMetrics::unconnected(0);
        flow.connected_s = report.connected_after.map(|d| d.as_secs_f64());
        flow.finished_s = match scenario.transfer {
            Transfer::Bytes { .. } => Some(report.elapsed.as_secs_f64()),
            Transfer::Duration(_) => None,
        };
        flow.bytes_delivered = report.bytes_delivered;
        flow.goodput_bps = report.goodput_bps;
        flow.throughput_bps = report.throughput_bps;
        flow.datagrams_sent = stats.datagrams_sent;
        flow.udp_bytes_sent = stats.udp_bytes_sent;
        flow.packets_sent = stats.packets_sent;
        flow.packets_lost = stats.packets_lost;
        flow.bytes_lost = stats.bytes_lost;
        flow.congestion_events = stats.congestion_events;
        flow.packets_retransmitted = stats.packets_retransmitted;
        flow.rtt_p50_ms = stats.rtt_p50.map(ms);
        flow.rtt_p95_ms = stats.rtt_p95.map(ms);
        flow.rtt_samples = stats.rtt_samples;
        flow
    }

    fn result_of(spec: &RunSpec, report: &TransferReport) -> RunResult {
        let scenario = &spec.scenario;
        let data = &report.accounting.a_to_b;
        let flow = flow_of(scenario, report);
        result(
            spec,
            Measured {
                reproducible: false,
                clock: report.clock,
                packet_protection: netsim::PacketProtection::Tls,
                ends: (stack_of(report.sender), stack_of(report.receiver)),
                window_s: report.elapsed.as_secs_f64(),
                bytes_sent: flow.udp_bytes_sent,
                capacity_bytes: data.capacity_bytes,
                signals: None,
                link: LinkSummary::from_accounting(data),
                flows: vec![flow],
                backend: crate::scenario::backend::BackendKind::Netsim,
                ns3: None,
                route_down_s: Vec::new(),
            },
        )
    }

    fn stack_of(stack: quiche_peer::Stack) -> Stack {
        match stack {
            quiche_peer::Stack::Quiche => Stack::Quiche,
            quiche_peer::Stack::Quinn => Stack::Quinn,
        }
    }
}

/// Runs `spec`, whose sender or receiver is quiche, on the current runtime (real time).
#[cfg(feature = "quiche")]
pub async fn run(
    spec: &RunSpec,
    options: &RunOptions,
    sender: Stack,
    receiver: Stack,
) -> Result<crate::metrics::RunResult, String> {
    if sender == Stack::Noq {
        return Err(imp::NOQ_WITH_QUICHE.to_owned());
    }
    let result = imp::run(spec, options, receiver).await?;
    tracing::info!(
        target: "harness",
        run_id = %result.run_id,
        controller = %result.controller,
        sender = %result.sender,
        receiver = %result.receiver,
        seed = result.seed,
        goodput_bps = result.goodput_bps,
        "quiche run finished (real time)"
    );
    Ok(result)
}

/// Without the `quiche` feature a run with a quiche end cannot run (the scenario check refuses
/// it before any run starts; this is the same message should a run get here).
#[cfg(not(feature = "quiche"))]
pub async fn run(
    spec: &RunSpec,
    _options: &RunOptions,
    sender: Stack,
    receiver: Stack,
) -> Result<crate::metrics::RunResult, String> {
    Err(crate::stack::unavailable(&format!(
        "controller `{}` ({sender} sender -> {receiver} receiver)",
        spec.controller.label()
    )))
}
