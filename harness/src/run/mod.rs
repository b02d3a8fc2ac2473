//! Executing one run: a scenario point, a controller and a seed, on a fresh current-thread
//! tokio runtime (virtual or real time), with every byte verified.
//!
//! A fresh runtime per run (rather than one reused by a worker thread) makes a run's result
//! independent of which runs a worker did before it: a run's output depends only on its spec.
//!
//! The pieces of a run, in the order it uses them: [`spec`] (what identifies it), [`build`]
//! (its controller's factory on the run's stack), [`host`] (quinn and noq behind one
//! interface), [`sampler`] (the recording wrapper around the controller), [`qlog`] (quinn's
//! qlog), [`flows`] (the concurrent verified transfers), then `collect` (what they measured,
//! checked, into the run's result). The runs that take another path: [`ns3_worker`] (an ns-3
//! run in a process of its own), [`ns3_tcp`] (ns-3's own TCP) and [`quiche`] (a quiche end,
//! cargo feature `quiche`).

pub mod build;
mod collect;
pub mod flows;
pub mod host;
pub mod ns3_tcp;
pub mod ns3_worker;
pub mod qlog;
pub mod quiche;
mod result;
pub mod sampler;
pub mod spec;

use std::sync::Arc;

use crate::error::{HarnessError, Result};
use crate::metrics::RunResult;
use crate::run::build::BuildOn;
use crate::run::collect::{Finished, Other, collect};
use crate::run::flows::{Amount, Flow, FlowPlan, run_pairs};
use crate::run::host::{Host, Pairing};
use crate::run::spec::{RunOptions, RunSpec};
use crate::scenario::Transfer;
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
    let info = spec.controller.info();
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
                run_async::<host::Same<host::Quinn>>(spec, options).await
            }
            (Stack::Noq, Stack::Noq) => run_async::<host::Same<host::Noq>>(spec, options).await,
            (Stack::Quinn, Stack::Noq) => run_async::<host::QuinnToNoq>(spec, options).await,
            (Stack::Noq, Stack::Quinn) => run_async::<host::NoqToQuinn>(spec, options).await,
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
async fn run_async<P: Pairing>(spec: &RunSpec, options: &RunOptions) -> Result<RunResult, String>
where
    P::Client: BuildOn,
{
    let scenario = &spec.scenario;
    let signal = scenario.transport.signal()?;
    let full_window = scenario.transport.quinn_full_window;
    let built = build::build::<P::Client>(&spec.controller, &signal, full_window)?;
    let epoch = tokio::time::Instant::now().into_std();
    let sampler = P::Client::recording_factory(built.factory.clone(), epoch, options.trace);

    let client = P::Client::client_transport(sampler, &scenario.transport)?;
    let client = P::Client::with_qlog(client, options, spec, epoch)?;
    // A mixed run's other controllers: one client transport each, shared by their flows.
    let mut others: Vec<Other<P::Client>> = Vec::new();
    for other in scenario.mix.iter().filter_map(|f| f.controller.as_ref()) {
        let name = other.name.as_str();
        if others.iter().any(|o| o.name == name) {
            continue;
        }
        let built = build::build::<P::Client>(other, &signal, full_window)?;
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
    collect::<P>(Finished {
        spec,
        info: spec.controller.info(),
        built: &built,
        others: &others,
        pairs,
        flows,
        total_flows,
        protection,
        epoch,
    })
}
