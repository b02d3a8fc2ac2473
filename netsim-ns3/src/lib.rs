//! netsim-ns3: real QUIC stacks over ns-3's 802.11 ad hoc MANET, in virtual time.
//!
//! netsim's own MANET model is a route-availability and hop-count abstraction: fast, but with
//! no 802.11 MAC (no contention between the hops of one flow and its own ACKs, no link-layer
//! retries, no routing protocol). This crate carries the datagrams of the stacks netsim drives
//! (quinn today) across an ns-3 3.37 simulation instead: nodes moving by random waypoint (or
//! an ns-2 trace, or standing in a chain or grid), 802.11b/a/g/n ad hoc with a range,
//! log-distance or fading radio, AODV, OLSR or DSDV routing, or an 802.11s mesh (HWMP),
//! background UDP traffic. The QUIC endpoints are UDP sockets on the source and sink nodes,
//! one pair or many ([`Ns3Config::sources`]);
//! every datagram crosses the simulated network byte for byte.
//!
//! - [`Ns3Config`]: the scenario, validated ([`Ns3Config::validate`] names the field and the
//!   allowed range), with serde for TOML and JSON.
//! - [`Ns3Medium`]: one source/sink pair of the simulation as a `netsim::Medium`, so a
//!   `netsim::SimLink`, a `netsim::quinn_pair::QuinnPair` ([`quinn_pair`], [`quinn_pairs`] for
//!   every pair) and the harness run over it unchanged.
//! - [`Session`]: the low-level lock-step API (send at a time, run to a time, pop deliveries).
//! - [`FixedWindow`]: a fixed-window sender, to measure the 802.11 multi-hop chain effect.
//! - [`TcpBulk`]: ns-3's own TCP (NewReno, Cubic, Vegas, Westwood, Westwood+) between the
//!   same pairs instead of the QUIC endpoints ([`Session::install_tcp`]): the papers' own
//!   protocol in the same network, a yardstick no one here wrote.
//! - [`Ns3Stats`]: what ns-3 did: deliveries, drops by reason (MAC retry limit, interface
//!   queue, no route, routing buffer), hops, route changes, MAC retransmissions, geometric
//!   route availability.
//!
//! # Time
//!
//! ns-3 runs in lock-step with tokio's (paused) clock and never ahead of it: a datagram is
//! scheduled in ns-3 at its exact send time, and every [`Ns3Config::step`] (1 ms by default)
//! ns-3 is advanced to the runtime's clock and what it delivered is handed over. A datagram
//! therefore reaches its receiver up to one step after ns-3 delivered it, never before; the
//! transparency test checks that the lock-step run delivers the same datagrams at the same ns-3
//! times as a standalone ns-3 program running the same scenario uninterrupted. The same config
//! and seed give the same run.
//!
//! # One simulation per process
//!
//! ns-3's simulator is a process-global singleton. A second [`Session`] waits until the first
//! is dropped (or is refused with [`Error::Busy`] on the thread that holds the first); run
//! parallel simulations in separate processes, as the harness does.
//!
//! # Building
//!
//! Behind the cargo feature `ns3` (off by default), which compiles a small C++ shim against
//! Debian's `libns3-dev` (3.37) found by pkg-config. Without it the config types and their
//! validation work and building a simulation is [`Error::Unavailable`], which says what to
//! install. See the crate's README for the recipe, the scenario schema and what ns-3 models.
//!
//! ```no_run
//! use netsim_ns3::{Ns3Config, quinn_pair};
//!
//! let runtime = netsim::virtual_runtime()?;
//! let report = runtime.block_on(async {
//!     let pair = quinn_pair(&Ns3Config::default(), 7)?.build()?;
//!     Ok::<_, Box<dyn std::error::Error>>(pair.transfer(200_000).await?)
//! })?;
//! assert!(report.intact);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![deny(missing_docs)]
#![deny(unsafe_code)]

mod config;
mod ffi;
mod fixed_window;
mod medium;
mod session;
mod stats;
mod tcp;
mod trace;

pub use config::{
    AodvConfig, ArpConfig, BackgroundFlow, MAX_BACKGROUND_PACKETS_PER_S, MAX_NAKAGAMI_M, MAX_NODES,
    MAX_ROUTE_CHECKS_PER_S, MAX_START, MAX_STEP, MIN_NAKAGAMI_M, MIN_STEP, MeshConfig, Movement,
    NETSIM_MOVEMENT_HORIZON, Nakagami, Ns3Config, Propagation, RateControl, Routing, Standard,
    Topology, WifiConfig,
};
pub use fixed_window::{FixedWindow, WindowReport};
pub use medium::{Ns3Medium, quinn_pair, quinn_pairs};
pub use session::{Delivered, Session};
pub use stats::{Ns3DirectionStats, Ns3Drops, Ns3Stats};
pub use tcp::{MAX_FLOWS_PER_PAIR, MAX_SEGMENT_BYTES, TcpBulk, TcpFlowReport, TcpVariant};
pub use trace::{MAX_COORDINATE_M, MAX_SPEED_MPS, MAX_TIME_S, MAX_TRACE_BYTES};

/// The behaviour revision of the backend (the C++ shim, the network it builds, the lock-step):
/// raised whenever the same config and seed would run another network, so that a result made
/// by the old backend is never taken for the new one (the harness hashes it into every ns-3
/// run's id, beside [`ns3_version`]).
pub const REVISION: u32 = 1;

/// The ns-3 release the backend is written for (Debian 12's `libns3-dev`).
pub const NS3_RELEASE: &str = "3.37";

/// The ns-3 version runs use: the one this crate was built against, or (without the `ns3`
/// feature, which runs nothing) the release it is written for, so that a build without ns-3
/// computes the same run ids as the build that ran them.
pub fn ns3_version() -> &'static str {
    NS3_VERSION.unwrap_or(NS3_RELEASE)
}

/// The environment variables ns-3 reads at start, outside a run's config and seed: a run's
/// identity holds their values.
pub const NS3_ENVIRONMENT: [&str; 2] = ["NS_ATTRIBUTE_DEFAULT", "NS_GLOBAL_VALUE"];

/// Each of [`NS3_ENVIRONMENT`] as this process holds it (`None` where unset), as ns-3 would
/// read it.
pub fn ns3_environment() -> std::collections::BTreeMap<&'static str, Option<String>> {
    NS3_ENVIRONMENT
        .into_iter()
        .map(|v| {
            let value = std::env::var_os(v).map(|s| s.to_string_lossy().into_owned());
            (v, value)
        })
        .collect()
}

/// Whether this build has ns-3 (the `ns3` feature).
pub const AVAILABLE: bool = cfg!(feature = "ns3");

/// The ns-3 version this crate was built against (pkg-config's, e.g. `3.37`), with the `ns3`
/// feature; `None` without it.
pub const NS3_VERSION: Option<&str> = option_env!("NS3_VERSION");

/// With the `ns3` feature, the path of `ns3-tcp-bulk` (`cpp/tcp_bulk.cc`, built by build.rs):
/// ns-3's own TCP NewReno carrying one bulk transfer over a point-to-point path, the yardstick
/// of the emulator's whole-process speed (cc-bench's `bench-report --vs-ns3`). Its arguments
/// are `key=value`: `rate_bps`, `delay_ms`, `per`, `queue` (packets), `duration_s`, `drain_s`,
/// `run`; it prints `rx_bytes=N` and `events=N`, and exits 2 naming a bad key or value.
/// `None` without the feature.
pub const TCP_BULK_PROGRAM: Option<&str> = option_env!("NS3_TCP_BULK_BIN");

/// With the `ns3` feature, the path of `ns3-chain-tcp` (`cpp/chain_tcp.cc`, built by build.rs):
/// ns-3's own TCP over a static 802.11b chain as [`Ns3Config::chain`] builds it, written from
/// ns-3's helpers without this crate's shim, the yardstick of [`Session::install_tcp`]: the same
/// chain and seed must deliver the same bytes. Its arguments are `key=value`: `hops`, `run`,
/// `duration_s`, `start_s`, `segment`, `queue`, `spacing`, `range`, `gratuitous` (AODV's flag,
/// 0 or 1), `variant` (`newreno`, `cubic`, `vegas`, `westwood`, `westwoodplus`),
/// `rate_control` (`constant`, `minstrel`, `ideal`, `minstrel_ht`), `propagation` (`range`, or
/// `nakagami`: log-distance and Nakagami-m fading at ns-3's attribute defaults), `standard`
/// (`802.11b`, `802.11a`, `802.11g`, `802.11n-2.4GHz`, `802.11n-5GHz`), `mcs` (the HT MCS, 0-7,
/// of 802.11n at a constant rate), `ofdm_mbps` (the 802.11a/g rate at a constant rate),
/// `routing` (`aodv`, or `hwmp`: an 802.11s mesh with static IP routing); it prints
/// `rx_bytes=N` and `events=N`, and exits 2 naming a bad key or value. `None` without the
/// feature.
pub const CHAIN_TCP_PROGRAM: Option<&str> = option_env!("NS3_CHAIN_TCP_BIN");

/// What can go wrong building or running a simulation.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The crate was built without ns-3.
    #[error(
        "the ns-3 backend is not in this build: install Debian's libns3-dev (with libgsl-dev, \
         libsqlite3-dev, pkg-config and g++) and build with the cargo feature `ns3` \
         (`--features harness/ns3` for the harness, `netsim-ns3/ns3` for the crate)"
    )]
    Unavailable,
    /// The scenario is invalid.
    #[error("invalid ns-3 scenario: {0}")]
    Config(#[from] netsim::ConfigError),
    /// This thread already holds the process's ns-3 simulation.
    #[error(
        "this thread already runs an ns-3 simulation, and ns-3 allows one per process: drop it \
         first, or run the second in another process"
    )]
    Busy,
    /// ns-3 refused the scenario.
    #[error("ns-3 refused the scenario: {0}")]
    Ns3(String),
}
