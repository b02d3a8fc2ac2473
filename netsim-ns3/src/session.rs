//! One ns-3 simulation, driven step by step: the low-level API under [`crate::Ns3Medium`].
//!
//! ns-3's simulator is one global object per process, so at most one [`Session`] exists at a
//! time in a process: [`Session::new`] waits while another thread's session is alive, and
//! refuses (with [`Error::Busy`]) a second session on the thread that already holds one, which
//! could never be granted. Run concurrent simulations in separate processes.

use std::ffi::CString;
use std::sync::{Condvar, Mutex, PoisonError};
use std::thread::ThreadId;
use std::time::Duration;

use bytes::Bytes;
use netsim::Side;

use crate::Error;
use crate::config::{
    Movement, NETSIM_MOVEMENT_HORIZON, Nakagami, Ns3Config, Propagation, RateControl, Routing,
    Standard, Topology,
};
use crate::ffi::{self, Live, Ns3Cbr, Ns3Pair, Ns3Scenario, ScenarioStrings};
use crate::stats::Ns3Stats;

/// The thread whose session is alive, if any.
static OWNER: Mutex<Option<ThreadId>> = Mutex::new(None);
static RELEASED: Condvar = Condvar::new();

/// The right to the process's one ns-3 simulator, released on drop.
#[derive(Debug)]
struct ProcessToken;

impl ProcessToken {
    fn acquire() -> Result<Self, Error> {
        let me = std::thread::current().id();
        let mut owner = OWNER.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            match *owner {
                None => {
                    *owner = Some(me);
                    return Ok(Self);
                }
                Some(holder) if holder == me => return Err(Error::Busy),
                Some(_) => {
                    owner = RELEASED.wait(owner).unwrap_or_else(PoisonError::into_inner);
                }
            }
        }
    }
}

impl Drop for ProcessToken {
    fn drop(&mut self) {
        *OWNER.lock().unwrap_or_else(PoisonError::into_inner) = None;
        RELEASED.notify_one();
    }
}

/// A datagram ns-3 delivered to an endpoint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Delivered {
    /// The pair ([`Ns3Config::pairs`]) of the endpoint that received it.
    pub pair: u32,
    /// The endpoint of that pair that received it.
    pub to: Side,
    /// ns-3 time of arrival.
    pub at: Duration,
    /// The index its sender gave it ([`Session::send`]).
    pub index: u64,
    /// Hops it travelled (1 + the nodes that forwarded it).
    pub hops: u32,
    /// Its payload, byte for byte as sent.
    pub data: Bytes,
}

/// The process's ns-3 simulation of one [`Ns3Config`]: for every pair of
/// [`Ns3Config::pairs`], endpoint A is a UDP socket on its source node and endpoint B one on its
/// sink node. Times are ns-3's, from 0.
#[derive(Debug)]
pub struct Session {
    pub(crate) live: Live,
    buf: Vec<u8>,
    // Declared last: released after `Drop::drop` has destroyed the simulation.
    _token: ProcessToken,
}

pub(crate) fn nanos(d: Duration) -> i64 {
    i64::try_from(d.as_nanos()).unwrap_or(i64::MAX)
}

/// The shim's endpoint number: `pair * 2 + side`.
fn endpoint(pair: u32, side: Side) -> u32 {
    pair.saturating_mul(2)
        + match side {
            Side::A => 0,
            Side::B => 1,
        }
}

/// Far beyond any run (about 31 years), for a background flow that never stops.
const NEVER_NS: i64 = 1_000_000_000_000_000_000;

impl Session {
    /// Validates `config` and builds its network in ns-3, seeded with `seed` (ns-3's run number;
    /// the same config and seed give the same events). Waits while another thread's session
    /// is alive.
    pub fn new(config: &Ns3Config, seed: u64) -> Result<Self, Error> {
        config.validate()?;
        if !crate::AVAILABLE {
            return Err(Error::Unavailable);
        }
        // ns-3 reads these from the environment, outside the config and the seed.
        for (variable, value) in crate::ns3_environment() {
            if let Some(value) = value {
                tracing::warn!(
                    target: "netsim_ns3",
                    variable,
                    value = %value,
                    "ns-3 applies this environment variable: the run depends on it, not only on its config and seed"
                );
            }
        }
        let token = ProcessToken::acquire()?;
        // netsim's movement reaches ns-3 as an ns-2 trace, which ns-3 reads while it builds
        // the network; the file is not needed after that.
        let netsim_trace = netsim_movement(config, seed)?;
        let traced;
        let config = match &netsim_trace {
            Some(file) => {
                traced = Ns3Config {
                    topology: Topology::Ns2Trace {
                        path: file.path().to_owned(),
                    },
                    ..config.clone()
                };
                &traced
            }
            None => config,
        };
        let (scenario, strings) = scenario(config, seed)?;
        let live = ffi::create(scenario, &strings).map_err(Error::Ns3)?;
        drop(netsim_trace);
        tracing::debug!(target: "netsim_ns3", seed, nodes = config.nodes, routing = config.routing.as_str(), "ns-3 scenario built");
        Ok(Self {
            live,
            buf: Vec::new(),
            _token: token,
        })
    }

    /// Schedules a datagram from endpoint `from` of `pair` to the pair's other endpoint at
    /// ns-3 time `at`. A time before [`Session::now`] is sent now (callers in lock-step never
    /// ask for the past). A pair the config does not have is ignored.
    pub fn send(&mut self, pair: u32, from: Side, at: Duration, index: u64, data: &[u8]) {
        ffi::send(&self.live, endpoint(pair, from), nanos(at), index, data);
    }

    /// Lets ns-3 itself send `count` datagrams of `len` bytes from `from` of pair 0, one every
    /// `interval` from `start` (indices 0, 1, ..; byte `k` of datagram `k` is `k mod 256`):
    /// every send an ns-3 event scheduled now, as an ns-3 application would. The reference
    /// for the lock-step transparency test.
    pub fn native_cbr(
        &mut self,
        from: Side,
        start: Duration,
        interval: Duration,
        count: u32,
        len: u32,
    ) {
        ffi::native_cbr(
            &self.live,
            endpoint(0, from),
            nanos(start),
            nanos(interval),
            count,
            len,
        );
    }

    /// Runs ns-3 up to `at` (no-op if it is already there).
    pub fn run_until(&mut self, at: Duration) {
        ffi::run_until(&self.live, nanos(at));
    }

    /// The oldest delivery not yet taken.
    pub fn pop(&mut self) -> Option<Delivered> {
        let d = ffi::pop(&self.live, &mut self.buf)?;
        Some(Delivered {
            pair: d.endpoint / 2,
            to: if d.endpoint % 2 == 0 {
                Side::A
            } else {
                Side::B
            },
            at: Duration::from_nanos(u64::try_from(d.at_ns).unwrap_or(0)),
            index: d.index,
            hops: d.hops,
            data: Bytes::copy_from_slice(&self.buf),
        })
    }

    /// What the network did so far.
    pub fn stats(&self) -> Ns3Stats {
        Ns3Stats::from_raw(&ffi::stats(&self.live))
    }

    /// The spans of ns-3 time, up to `until`, in which `pair` had no path of in-range hops,
    /// from its geometric route samples (empty with sampling off or log-distance propagation).
    /// A span starts at the first sample without a path and ends at the next with one.
    pub fn route_down(&self, pair: u32, until: Duration) -> Vec<(Duration, Duration)> {
        let at = |ns: i64| Duration::from_nanos(u64::try_from(ns).unwrap_or(0));
        let mut spans = Vec::new();
        let mut down_since = None;
        for (t, up) in ffi::route_changes(&self.live, pair) {
            match (up, down_since) {
                (false, None) => down_since = Some(at(t)),
                (true, Some(from)) => {
                    spans.push((from, at(t).min(until)));
                    down_since = None;
                }
                _ => {}
            }
        }
        if let Some(from) = down_since {
            spans.push((from, until));
        }
        spans.retain(|(from, to)| from < to);
        spans
    }

    /// ns-3's clock.
    pub fn now(&self) -> Duration {
        Duration::from_nanos(u64::try_from(ffi::now_ns(&self.live)).unwrap_or(0))
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        ffi::destroy(&self.live);
    }
}

/// For [`Movement::Netsim`], netsim's movement of the run seeded with `seed` as an ns-2 trace in
/// a temporary file; `None` for any other topology.
fn netsim_movement(
    config: &Ns3Config,
    seed: u64,
) -> Result<Option<tempfile::NamedTempFile>, Error> {
    let Topology::RandomWaypoint {
        min_speed,
        max_speed,
        pause,
        movement: Movement::Netsim,
    } = config.topology
    else {
        return Ok(None);
    };
    let mobility = netsim::MobilityConfig {
        nodes: config.nodes,
        area_width: config.area_width,
        area_height: config.area_height,
        min_speed,
        max_speed,
        pause,
        ..netsim::MobilityConfig::default()
    };
    let trace = mobility
        .ns2_trace("topology", seed, NETSIM_MOVEMENT_HORIZON)
        .map_err(Error::Config)?;
    let io = |e: std::io::Error| {
        Error::Config(netsim::ConfigError::invalid(
            "topology.movement",
            format!("cannot write netsim's movement as an ns-2 trace: {e}"),
        ))
    };
    let mut file = tempfile::Builder::new()
        .prefix("netsim-movement-")
        .suffix(".ns2")
        .tempfile()
        .map_err(io)?;
    std::io::Write::write_all(&mut file, trace.as_bytes()).map_err(io)?;
    Ok(Some(file))
}

/// The C view of a validated config.
fn scenario(config: &Ns3Config, seed: u64) -> Result<(Ns3Scenario, ScenarioStrings), Error> {
    let c_string = |field: &str, text: String| {
        CString::new(text)
            .map_err(|_| Error::Config(netsim::ConfigError::invalid(field, "contains a NUL byte")))
    };
    let (topology, speed_min, speed_max, pause, spacing, columns, trace) = match &config.topology {
        Topology::RandomWaypoint {
            min_speed,
            max_speed,
            pause,
            ..
        } => (
            0,
            *min_speed,
            *max_speed,
            pause.as_secs_f64(),
            0.0,
            1,
            String::new(),
        ),
        Topology::Chain { spacing } => (1, 0.0, 0.0, 0.0, *spacing, config.nodes, String::new()),
        Topology::Grid { columns, spacing } => {
            (2, 0.0, 0.0, 0.0, *spacing, *columns, String::new())
        }
        Topology::Ns2Trace { path } => (
            3,
            0.0,
            0.0,
            0.0,
            0.0,
            1,
            path.to_string_lossy().into_owned(),
        ),
    };
    let (propagation, range, fading) = match &config.propagation {
        Propagation::Range { range } => (0, *range, Nakagami::default()),
        Propagation::LogDistance {} => (1, 0.0, Nakagami::default()),
        Propagation::Nakagami(fading) => (2, 0.0, fading.clone()),
    };
    let rate_control = match config.wifi.rate_control {
        RateControl::Constant => 0,
        RateControl::Minstrel => 1,
        RateControl::Ideal => 2,
        RateControl::MinstrelHt => 3,
    };
    let standard = match config.wifi.standard {
        Standard::B => 0,
        Standard::A => 1,
        Standard::G => 2,
        Standard::N24GHz => 3,
        Standard::N5GHz => 4,
    };
    let routing = match config.routing {
        Routing::Aodv => 0,
        Routing::Olsr => 1,
        Routing::Dsdv => 2,
        Routing::Hwmp => 3,
        Routing::Dsr => {
            return Err(Error::Config(netsim::ConfigError::invalid(
                "routing",
                "dsr is not available",
            )));
        }
    };
    let background = config
        .background
        .iter()
        .map(|flow| Ns3Cbr {
            from: flow.from,
            to: flow.to,
            rate_bps: flow.rate.bps() as f64,
            packet_bytes: flow.packet_bytes,
            start_ns: nanos(config.start + flow.start),
            stop_ns: flow
                .stop
                .map_or(NEVER_NS, |stop| nanos(config.start + stop)),
        })
        .collect();
    let data_mode = config
        .wifi
        .standard
        .mode(config.wifi.data_rate_mbps)
        .unwrap_or_else(|| config.wifi.standard.control_mode());
    let strings = ScenarioStrings {
        trace_path: c_string("topology.path", trace)?,
        data_mode: c_string("wifi.data_rate_mbps", data_mode.to_owned())?,
        control_mode: c_string(
            "wifi.standard",
            config.wifi.standard.control_mode().to_owned(),
        )?,
        background,
        pairs: config
            .pairs()
            .into_iter()
            .map(|(source, sink)| Ns3Pair { source, sink })
            .collect(),
    };
    let scenario = Ns3Scenario {
        run: seed,
        nodes: config.nodes,
        area_x_m: config.area_width,
        area_y_m: config.area_height,
        topology,
        speed_min_mps: speed_min,
        speed_max_mps: speed_max,
        pause_s: pause,
        spacing_m: spacing,
        grid_columns: columns,
        trace_path: std::ptr::null(),
        standard,
        data_mode: std::ptr::null(),
        control_mode: std::ptr::null(),
        propagation,
        range_m: range,
        rts_cts: i32::from(config.wifi.rts_cts),
        short_retry_limit: config.wifi.short_retry_limit,
        long_retry_limit: config.wifi.long_retry_limit,
        queue_packets: config.wifi.queue_packets,
        routing,
        pair_count: 0,
        pairs: std::ptr::null(),
        sample_ns: nanos(config.route_sample),
        background_count: 0,
        background: std::ptr::null(),
        bit_error_rate: config.wifi.bit_error_rate,
        arp_dead_timeout_ns: nanos(config.arp.dead_timeout),
        arp_pending_packets: config.arp.pending_packets,
        aodv_gratuitous_reply: i32::from(config.aodv.gratuitous_reply),
        epoch_ns: nanos(config.start),
        rate_control,
        path_loss_exponent: fading.exponent,
        reference_distance_m: fading.reference_distance,
        reference_loss_db: fading.reference_loss,
        nakagami_distance1_m: fading.distance1,
        nakagami_distance2_m: fading.distance2,
        nakagami_m0: fading.m0,
        nakagami_m1: fading.m1,
        nakagami_m2: fading.m2,
        mesh_max_packet_failure: config.mesh.peer_link_max_packet_failure,
    };
    Ok((scenario, strings))
}
