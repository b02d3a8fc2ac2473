//! Concurrent flows over one emulated path: `n` connections from the client endpoint to the
//! server endpoint of one client/server pair of the run's host stack ([`Host`]), each carrying one unidirectional stream whose every
//! byte the receiver checks against the sender's pattern; and the same over several pairs at
//! once (ns-3's many-source networks), pair `p`'s flows numbered from `p x n`.
//!
//! A pair's flows connect one after another (so the server accepts them in the client's order),
//! each no earlier than its start ([`FlowPlan`]: `i x stagger`, or the scenario's listed flows'
//! starts), and send as soon as they are connected; pairs connect independently. A flow may run
//! a transport of its own (another congestion controller: a mixed run), and may connect from a
//! client endpoint of its own behind an access link (a longer round trip). A duration transfer stops at the deadline: what arrived in order by then is
//! the flow's goodput. A byte transfer ends when every receiver has read its whole stream.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use netsim::pair::transfer::StreamPattern;
use netsim::seed::derive_seed;
use tokio::task::JoinSet;

use crate::run::host::{Host, Pairing};

/// Write and read size (at most one pattern period, so every slice is contiguous).
const CHUNK: usize = 60_000;

/// Receiver-side counters of one flow, readable at any time (also after a deadline).
#[derive(Debug, Default)]
pub struct FlowCounters {
    /// Bytes received in order and verified.
    pub delivered: AtomicU64,
    /// Bytes the sender's application wrote.
    pub written: AtomicU64,
    /// Link time (ns) when the receiver saw the end of the stream, or 0.
    pub finished_at_nanos: AtomicU64,
    /// Link time (ns) when the flow's connection was established, or 0.
    pub connected_at_nanos: AtomicU64,
    /// Set when a received byte differs from what was sent.
    pub corrupted: AtomicBool,
    /// Offset of the first corrupted byte.
    pub corrupted_at: AtomicU64,
}

/// One flow: its client connection (for the stack's statistics and controller) and counters.
pub struct Flow<H: Host> {
    /// Flow index.
    pub index: u32,
    /// The stream-content seed (derived from the run seed and the index).
    pub seed: u64,
    /// The client (sending) side, once connected.
    pub client: Option<H::Connection>,
    /// Counters.
    pub counters: Arc<FlowCounters>,
}

/// How much each flow sends.
#[derive(Clone, Copy, Debug)]
pub enum Amount {
    /// Until aborted at the deadline.
    Unbounded,
    /// Exactly this many bytes, then finish the stream.
    Bytes(u64),
}

/// When each flow starts and which client transport it runs, by flow index.
pub struct FlowPlan<'a, T> {
    /// Flow `index`'s start, link time.
    pub start: &'a (dyn Fn(u32) -> Duration + Sync),
    /// Flow `index`'s client transport; `None`: the client endpoint's (the run's controller).
    pub transport: &'a (dyn Fn(u32) -> Option<Arc<T>> + Sync),
    /// Flow `index`'s own access link, one way (zero: none; the client endpoint's).
    pub access_delay: &'a (dyn Fn(u32) -> Duration + Sync),
}

/// The content seed of flow `index` in a run seeded with `run_seed`.
pub fn flow_seed(run_seed: u64, index: u32) -> u64 {
    derive_seed(run_seed, &format!("harness/flow/{index}"))
}

/// Connects `count` flows and runs their transfers; returns when all have finished (bytes mode)
/// or never (unbounded: the caller stops it with a timeout). `flows` is filled in as flows
/// connect, so the caller can read connections and counters after a timeout.
pub async fn run_flows<P: Pairing>(
    pair: &P::Pair,
    run_seed: u64,
    first: u32,
    count: u32,
    plan: &FlowPlan<'_, <P::Client as Host>::Transport>,
    amount: Amount,
    flows: &tokio::sync::Mutex<Vec<Flow<P::Client>>>,
) -> Result<(), String> {
    let mut tasks = JoinSet::new();
    let link = P::link(pair).clone();
    for index in first..first + count {
        let start = (plan.start)(index);
        let now = link.now();
        if start > now {
            tokio::time::sleep(start - now).await;
        }
        let (client, server) =
            P::connect(pair, (plan.transport)(index), (plan.access_delay)(index))
                .await
                .map_err(|e| format!("flow {index}: {e}"))?;
        let counters = Arc::new(FlowCounters::default());
        counters
            .connected_at_nanos
            .store(nanos(link.now()).max(1), Ordering::Relaxed);
        let seed = flow_seed(run_seed, index);
        flows.lock().await.push(Flow {
            index,
            seed,
            client: Some(client.clone()),
            counters: counters.clone(),
        });
        let sender_counters = counters.clone();
        tasks.spawn(async move { send::<P::Client>(client, seed, amount, sender_counters).await });
        let link = link.clone();
        tasks.spawn(async move { receive::<P::Server>(server, seed, counters, link).await });
    }
    while let Some(done) = tasks.join_next().await {
        match done {
            Ok(Ok(())) => {}
            Ok(Err(e)) => return Err(e),
            Err(e) => return Err(format!("flow task failed: {e}")),
        }
    }
    Ok(())
}

/// [`run_flows`] on every pair at once, `count` flows each: pair `p`'s flows are numbered
/// `p x count ..`. One pair is exactly [`run_flows`].
pub async fn run_pairs<P: Pairing>(
    pairs: &[P::Pair],
    run_seed: u64,
    count: u32,
    plan: &FlowPlan<'_, <P::Client as Host>::Transport>,
    amount: Amount,
    flows: &tokio::sync::Mutex<Vec<Flow<P::Client>>>,
) -> Result<(), String> {
    if let [pair] = pairs {
        return run_flows::<P>(pair, run_seed, 0, count, plan, amount, flows).await;
    }
    let runs = pairs.iter().enumerate().map(|(p, pair)| {
        let first = u32::try_from(p).unwrap_or(u32::MAX).saturating_mul(count);
        run_flows::<P>(pair, run_seed, first, count, plan, amount, flows)
    });
    futures_util::future::try_join_all(runs).await.map(|_| ())
}

fn nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

async fn send<H: Host>(
    connection: H::Connection,
    seed: u64,
    amount: Amount,
    counters: Arc<FlowCounters>,
) -> Result<(), String> {
    let mut stream = H::open_uni(&connection)
        .await
        .map_err(|e| format!("opening a stream: {e}"))?;
    let pattern = StreamPattern::new(seed);
    let mut offset = 0u64;
    loop {
        let len = match amount {
            Amount::Unbounded => CHUNK,
            Amount::Bytes(total) => usize::try_from(total - offset).unwrap_or(CHUNK).min(CHUNK),
        };
        if len == 0 {
            break;
        }
        H::write_all(&mut stream, pattern.slice(offset, len))
            .await
            .map_err(|e| format!("writing at offset {offset}: {e}"))?;
        offset += len as u64;
        counters.written.store(offset, Ordering::Relaxed);
    }
    H::finish(&mut stream)
        .await
        .map_err(|e| format!("finishing the stream: {e}"))?;
    // The connection stays open until the receiver is done (the caller closes it).
    drop(connection);
    Ok(())
}

async fn receive<H: Host>(
    connection: H::Connection,
    seed: u64,
    counters: Arc<FlowCounters>,
    link: netsim::SimLink,
) -> Result<(), String> {
    let mut stream = H::accept_uni(&connection)
        .await
        .map_err(|e| format!("accepting the stream: {e}"))?;
    let pattern = StreamPattern::new(seed);
    let mut buf = vec![0u8; CHUNK];
    let mut offset = 0u64;
    while let Some(len) = H::read(&mut stream, &mut buf)
        .await
        .map_err(|e| format!("reading at offset {offset}: {e}"))?
    {
        if let Some(at) = pattern.first_mismatch(offset, &buf[..len]) {
            counters.corrupted_at.store(at, Ordering::Relaxed);
            counters.corrupted.store(true, Ordering::Relaxed);
            return Err(format!(
                "integrity failure: byte {at} of the stream differs from what was sent"
            ));
        }
        offset += len as u64;
        counters.delivered.store(offset, Ordering::Relaxed);
    }
    counters
        .finished_at_nanos
        .store(nanos(link.now()).max(1), Ordering::Relaxed);
    Ok(())
}
