//! What flows sharing a path do to each other (issue 16): per row (point and controller), the
//! flows grouped by controller, the run's own first, with each class's goodput, share, loss
//! rate and queueing delay, Jain's index over all flows, and the run's controller's goodput per
//! flow over its competitors'. Rows of single-flow runs have none.

use serde::{Deserialize, Serialize};

use crate::metrics::{FlowMetrics, RunResult};

/// One class of flows (one controller) in a row's runs, mean over seeds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FlowClass {
    /// The controller (the run's own is first).
    pub controller: String,
    /// Flows of it per run.
    pub flows: usize,
    /// Goodput per flow, bits per second.
    pub goodput_bps: f64,
    /// Its flows' share of the run's goodput (0-1).
    pub share: f64,
    /// Packets declared lost over packets sent, its flows together.
    pub loss_rate: f64,
    /// Median RTT over the smallest RTT sample (the base RTT), mean over its flows: 1 is no
    /// queue; 2 is a queue as long as the path's base RTT.
    pub queueing: Option<f64>,
}

/// A row's coexistence figures.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Coexistence {
    /// The classes, the run's controller first.
    pub classes: Vec<FlowClass>,
    /// Jain's fairness index over all flows, mean over seeds.
    pub jain: f64,
    /// The run's controller's goodput per flow over the other classes' (`None` when every flow
    /// runs the run's controller).
    pub vs_competitors: Option<f64>,
}

/// The class a flow of `run` belongs to: its own controller, or the run's; flows behind an
/// access link of their own are a class of their own (`cubic +30ms`: 30 ms more each way).
fn class_of(run: &RunResult, flow: &FlowMetrics) -> String {
    let controller = flow.controller.as_deref().unwrap_or(&run.controller);
    match flow.access_delay_ms {
        Some(ms) => format!("{controller} +{ms}ms"),
        None => controller.to_owned(),
    }
}

/// The coexistence figures of a row's runs; `None` when they carry one flow.
pub fn of(runs: &[&RunResult]) -> Option<Coexistence> {
    let first = runs.first()?;
    if first.flows.len() < 2 {
        return None;
    }
    // The run's own class first: that of its first flow running the run's controller.
    let own = first
        .flows
        .iter()
        .find(|flow| {
            flow.controller
                .as_deref()
                .is_none_or(|c| c == first.controller)
        })
        .map_or_else(|| first.controller.clone(), |flow| class_of(first, flow));
    let mut names: Vec<String> = vec![own];
    for run in runs {
        for flow in &run.flows {
            let name = class_of(run, flow);
            if !names.contains(&name) {
                names.push(name);
            }
        }
    }
    let n = runs.len() as f64;
    let mut classes = Vec::new();
    for name in &names {
        let (mut goodput, mut share, mut lost, mut sent) = (0.0, 0.0, 0u64, 0u64);
        let (mut flows, mut queueing) = (0usize, Vec::new());
        for run in runs {
            let total: f64 = run.flows.iter().map(|f| f.goodput_bps).sum();
            let mine: Vec<&FlowMetrics> = run
                .flows
                .iter()
                .filter(|f| class_of(run, f) == *name)
                .collect();
            flows = flows.max(mine.len());
            let sum: f64 = mine.iter().map(|f| f.goodput_bps).sum();
            goodput += sum / mine.len().max(1) as f64;
            if total > 0.0 {
                share += sum / total;
            }
            lost += mine.iter().map(|f| f.packets_lost).sum::<u64>();
            sent += mine.iter().map(|f| f.packets_sent).sum::<u64>();
            queueing.extend(
                mine.iter()
                    .filter_map(|f| match (f.rtt_p50_ms, f.rtt_min_ms) {
                        (Some(p50), Some(min)) if min > 0.0 => Some(p50 / min),
                        _ => None,
                    }),
            );
        }
        if flows == 0 {
            continue;
        }
        classes.push(FlowClass {
            controller: (*name).to_owned(),
            flows,
            goodput_bps: goodput / n,
            share: share / n,
            loss_rate: if sent > 0 {
                lost as f64 / sent as f64
            } else {
                0.0
            },
            queueing: (!queueing.is_empty())
                .then(|| queueing.iter().sum::<f64>() / queueing.len() as f64),
        });
    }
    let own = classes.first()?.goodput_bps;
    let others: Vec<&FlowClass> = classes.iter().skip(1).collect();
    let vs_competitors = (!others.is_empty()).then(|| {
        let flows: usize = others.iter().map(|c| c.flows).sum();
        let goodput: f64 = others
            .iter()
            .map(|c| c.goodput_bps * c.flows as f64)
            .sum::<f64>()
            / flows.max(1) as f64;
        if goodput > 0.0 {
            own / goodput
        } else {
            f64::INFINITY
        }
    });
    Some(Coexistence {
        jain: runs.iter().map(|r| r.jain).sum::<f64>() / n,
        classes,
        vs_competitors,
    })
}
