//! Reports: statistics over seeds per (scenario point, controller), rendered as a terminal
//! table, JSON, CSV, Markdown, SVG plots and a self-contained HTML page.

pub mod coexistence;
pub mod csv;
pub mod html;
pub mod json;
pub mod markdown;
pub mod paired;
pub mod plot;
pub mod table;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::metrics::{RunResult, Spread};
use crate::scenario::Grid;

/// What a report is about: the grid's names and orders (points and controllers as listed).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReportMeta {
    /// Grid name.
    pub name: String,
    /// Description.
    pub description: String,
    /// The paper table it follows.
    pub paper: Option<String>,
    /// Axis names.
    pub axes: Vec<String>,
    /// Point labels in grid order.
    pub points: Vec<String>,
    /// Controller labels in order.
    pub controllers: Vec<String>,
    /// Seeds.
    pub seeds: Vec<u64>,
    /// Harness version that produced the results.
    pub harness_version: String,
    /// The ns-3 scenarios of the points that ran on ns-3, described (empty on netsim).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub backends: Vec<String>,
}

impl ReportMeta {
    /// The meta of `grid`.
    pub fn of(grid: &Grid) -> Self {
        Self {
            name: grid.name.clone(),
            description: grid.description.clone(),
            paper: grid.paper.clone(),
            axes: grid.axes.clone(),
            points: grid.points.iter().map(|p| p.point.clone()).collect(),
            controllers: grid.controllers.iter().map(|c| c.label()).collect(),
            seeds: grid.seeds.clone(),
            harness_version: crate::VERSION.to_owned(),
            backends: {
                let mut described: Vec<String> = Vec::new();
                for config in grid.points.iter().filter_map(|p| p.backend.ns3()) {
                    let text = format!("ns-3: {}", config.describe());
                    if !described.contains(&text) {
                        described.push(text);
                    }
                }
                described
            },
        }
    }
}

/// Statistics over seeds for one scenario point and controller.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SummaryRow {
    /// Scenario point label.
    pub point: String,
    /// Axis name -> value label.
    pub params: BTreeMap<String, String>,
    /// Controller label.
    pub controller: String,
    /// Runs (seeds) summarised.
    pub runs: usize,
    /// Aggregate goodput, bits per second.
    pub goodput_bps: Spread,
    /// Aggregate throughput, bits per second.
    pub throughput_bps: Spread,
    /// Utilization (goodput over the physical limit).
    pub utilization: Option<Spread>,
    /// Mean goodput over NewReno's mean goodput at the same point.
    pub vs_newreno: Option<f64>,
    /// Mean goodput over Cubic's mean goodput at the same point: against the stacks' default.
    pub vs_cubic: Option<f64>,
    /// The best baseline at the point: of the stacks' own controllers in the report (NewReno,
    /// Cubic, BBR, BBRv3), the one with the highest mean goodput.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub best_baseline: Option<String>,
    /// Mean goodput over the best baseline's mean goodput at the same point.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vs_best: Option<f64>,
    /// Goodput over Cubic's seed by seed (as `vs_newreno_paired`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vs_cubic_paired: Option<paired::PairedRatio>,
    /// Goodput over the best baseline's seed by seed (as `vs_newreno_paired`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vs_best_paired: Option<paired::PairedRatio>,
    /// Goodput over NewReno's seed by seed: geometric mean and 95% interval (two or more
    /// seeds with goodput; not on NewReno's own row).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vs_newreno_paired: Option<paired::PairedRatio>,
    /// Median RTT, milliseconds: each flow's, averaged over the flows with RTT samples.
    pub rtt_p50_ms: Option<Spread>,
    /// 95th-percentile RTT, milliseconds: each flow's, averaged over the flows with samples.
    pub rtt_p95_ms: Option<Spread>,
    /// Seconds in slow start, summed over flows.
    pub slow_start_s: Option<Spread>,
    /// Packets quinn declared lost, summed over flows.
    pub packets_lost: Spread,
    /// Jain's fairness index.
    pub jain: Spread,
    /// Mean loss-signal events per run by class: fast retransmit, timeout after 1, 2 and 0
    /// dup-ACKs, undetermined (ports only).
    pub signals: Option<[f64; 5]>,
    /// False when a run of this row cannot be reproduced from its seed.
    pub reproducible: bool,
    /// The runs' clock (real-time rows are marked in the table).
    #[serde(default)]
    pub clock: netsim::Clock,
    /// The sender's QUIC stack.
    #[serde(default)]
    pub sender: crate::stack::Stack,
    /// The receiver's QUIC stack.
    #[serde(default)]
    pub receiver: crate::stack::Stack,
    /// What ns-3 did, on that backend (mean per run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ns3: Option<Ns3Row>,
    /// What the flows did to each other, for runs of several flows (mixed or not).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coexistence: Option<coexistence::Coexistence>,
}

/// ns-3's account of the data direction and the network, mean per run over a row's runs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Ns3Row {
    /// Mean hops of the delivered datagrams.
    pub hops: Option<f64>,
    /// Forwarding-path changes seen by the receiver.
    pub route_changes: f64,
    /// Share of geometric samples with an in-range path between source and sink.
    pub route_available: Option<f64>,
    /// Data datagrams dropped at the MAC retry limit.
    pub mac_retry_drops: f64,
    /// Data datagrams dropped by the interface queue.
    pub queue_drops: f64,
    /// Data datagrams dropped for want of a route.
    pub no_route_drops: f64,
    /// Data datagrams dropped from the routing protocol's buffer.
    pub routing_buffer_drops: f64,
    /// Other data-datagram drops (ARP, TTL, ...).
    pub other_drops: f64,
    /// Failed MAC data-frame attempts over all traffic.
    pub mac_retransmissions: f64,
    /// The longest time any run of the row went without a delivery in the data direction,
    /// seconds (AODV's black hole shows as tens of seconds on a static chain).
    #[serde(default)]
    pub max_gap_s: f64,
    /// The same in the ACK direction.
    #[serde(default)]
    pub ack_max_gap_s: f64,
    /// ACK-direction datagrams dropped for want of a route.
    #[serde(default)]
    pub ack_no_route_drops: f64,
}

impl Ns3Row {
    fn of(runs: &[&RunResult]) -> Option<Self> {
        let stats: Vec<&netsim_ns3::Ns3Stats> =
            runs.iter().filter_map(|r| r.ns3.as_ref()).collect();
        if stats.is_empty() {
            return None;
        }
        let n = stats.len() as f64;
        let mean =
            |f: &dyn Fn(&netsim_ns3::Ns3Stats) -> f64| stats.iter().map(|s| f(s)).sum::<f64>() / n;
        let mean_some = |f: &dyn Fn(&netsim_ns3::Ns3Stats) -> Option<f64>| {
            let values: Vec<f64> = stats.iter().filter_map(|s| f(s)).collect();
            (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
        };
        let drops = |f: &dyn Fn(&netsim_ns3::Ns3Drops) -> u64| mean(&|s| f(&s.a_to_b.drops) as f64);
        Some(Self {
            hops: mean_some(&|s| s.a_to_b.mean_hops),
            route_changes: mean(&|s| s.a_to_b.route_changes as f64),
            route_available: mean_some(&|s| s.route_available),
            mac_retry_drops: drops(&|d| d.mac_retry),
            queue_drops: drops(&|d| d.mac_queue),
            no_route_drops: drops(&|d| d.no_route),
            routing_buffer_drops: drops(&|d| d.routing_buffer),
            other_drops: drops(&|d| d.ttl + d.other),
            mac_retransmissions: mean(&|s| s.mac_retransmissions as f64),
            max_gap_s: stats.iter().map(|s| s.a_to_b.max_gap_s).fold(0.0, f64::max),
            ack_max_gap_s: stats.iter().map(|s| s.b_to_a.max_gap_s).fold(0.0, f64::max),
            ack_no_route_drops: mean(&|s| s.b_to_a.drops.no_route as f64),
        })
    }
}

/// The controller every ratio column and paired comparison is taken against.
pub const BASELINE: &str = "newreno";

/// The stacks' own controllers, among which `vs_best` takes the best at each point.
pub const BASELINES: [&str; 4] = ["newreno", "cubic", "bbr", "bbr3"];

/// Groups `results` by point and controller (in `meta`'s orders) and computes the rows.
pub fn summarize(meta: &ReportMeta, results: &[RunResult]) -> Vec<SummaryRow> {
    let mut rows = Vec::new();
    for point in &meta.points {
        let at_point: Vec<&RunResult> = results.iter().filter(|r| &r.point == point).collect();
        let mean_of = |controller: &str| {
            let goodputs: Vec<f64> = at_point
                .iter()
                .filter(|r| r.controller == controller)
                .map(|r| r.goodput_bps)
                .collect();
            Spread::of(&goodputs).map(|s| s.mean)
        };
        let newreno = mean_of(BASELINE);
        let cubic = mean_of("cubic");
        let best = BASELINES
            .iter()
            .filter_map(|&name| Some((name, mean_of(name)?)))
            .max_by(|a, b| a.1.total_cmp(&b.1));
        for controller in &meta.controllers {
            let runs: Vec<&RunResult> = at_point
                .iter()
                .copied()
                .filter(|r| &r.controller == controller)
                .collect();
            let Some(first) = runs.first() else {
                continue;
            };
            let spread = |f: &dyn Fn(&RunResult) -> Option<f64>| {
                let values: Vec<f64> = runs.iter().filter_map(|r| f(r)).collect();
                Spread::of(&values)
            };
            let Some(goodput) = spread(&|r| Some(r.goodput_bps)) else {
                continue;
            };
            let ratio = |base: Option<f64>| base.filter(|b| *b > 0.0).map(|b| goodput.mean / b);
            // Seed by seed against `baseline`; none on the baseline's own row.
            let paired_with = |baseline: &str| {
                (controller != baseline)
                    .then(|| {
                        let pairs: Vec<(f64, f64)> = runs
                            .iter()
                            .filter_map(|r| {
                                let base = at_point
                                    .iter()
                                    .find(|b| b.controller == baseline && b.seed == r.seed)?;
                                Some((r.goodput_bps, base.goodput_bps))
                            })
                            .collect();
                        paired::PairedRatio::of(&pairs)
                    })
                    .flatten()
            };
            let vs_newreno_paired = paired_with(BASELINE);
            let signals = {
                let with: Vec<_> = runs.iter().filter_map(|r| r.signals.as_ref()).collect();
                (!with.is_empty()).then(|| {
                    let n = with.len() as f64;
                    let sum = |f: &dyn Fn(&crate::metrics::SignalCounts) -> u64| {
                        with.iter().map(|s| f(s) as f64).sum::<f64>() / n
                    };
                    [
                        sum(&|s| s.fast_retransmit),
                        sum(&|s| s.timeout1),
                        sum(&|s| s.timeout2),
                        sum(&|s| s.timeout0()),
                        sum(&|s| s.undetermined),
                    ]
                })
            };
            rows.push(SummaryRow {
                point: point.clone(),
                params: first.params.clone(),
                controller: controller.clone(),
                runs: runs.len(),
                goodput_bps: goodput,
                throughput_bps: spread(&|r| Some(r.throughput_bps)).unwrap_or(goodput),
                utilization: spread(&|r| r.utilization),
                vs_newreno: ratio(newreno),
                vs_cubic: ratio(cubic),
                best_baseline: best.map(|(name, _)| name.to_owned()),
                vs_best: ratio(best.map(|(_, mean)| mean)),
                vs_cubic_paired: paired_with("cubic"),
                vs_best_paired: best.and_then(|(name, _)| paired_with(name)),
                vs_newreno_paired,
                rtt_p50_ms: spread(&|r| mean_over_flows(r, |f| f.rtt_p50_ms)),
                rtt_p95_ms: spread(&|r| mean_over_flows(r, |f| f.rtt_p95_ms)),
                slow_start_s: spread(&|r| {
                    let flows: Vec<f64> = r.flows.iter().filter_map(|f| f.slow_start_s).collect();
                    (!flows.is_empty()).then(|| flows.iter().sum())
                }),
                packets_lost: spread(&|r| {
                    Some(r.flows.iter().map(|f| f.packets_lost).sum::<u64>() as f64)
                })
                .unwrap_or(goodput),
                jain: spread(&|r| Some(r.jain)).unwrap_or(goodput),
                signals,
                reproducible: runs.iter().all(|r| r.reproducible),
                clock: first.clock,
                sender: first.sender,
                receiver: first.receiver,
                ns3: Ns3Row::of(&runs),
                coexistence: coexistence::of(&runs),
            });
        }
    }
    rows
}

/// A run's per-flow value averaged over the flows that have one (with one flow, its value):
/// with many flows (ns-3's many-source networks) flow 0 alone may never have connected.
fn mean_over_flows(
    run: &RunResult,
    value: impl Fn(&crate::metrics::FlowMetrics) -> Option<f64>,
) -> Option<f64> {
    let values: Vec<f64> = run.flows.iter().filter_map(value).collect();
    (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
}
