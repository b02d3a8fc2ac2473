//! Scenario files: the TOML schema, its parsing (errors name the line and the field), and its
//! expansion into a [`Grid`] of resolved [`Scenario`]s.
//!
//! A scenario file describes one scenario, or a grid of them with `[[axis]]` tables; presets are
//! scenario files built into the binary (`harness presets --show NAME` prints one). Schema
//! (every key optional; unknown keys are errors):
//!
//! ```toml
//! name = "my-run"                 # default: the file name
//! description = "..."
//! paper = "Karak et al. 2014, Table 2"
//! seeds = 3                       # 1, 2, 3; or a list: seeds = [7, 8]
//! flows = 1                       # concurrent connections sharing the path (1 to 64)
//! flow_stagger = "0s"             # flow i starts i x flow_stagger after flow 0
//! # [[flow]]                      # or list the flows (a mixed run), one table each:
//! # start = "0s"                  #   when it starts (default: i x flow_stagger)
//! # [[flow]]
//! # controller = "cubic"          #   its own controller; without one, the run's controller
//! # start = "10s"
//! # access_delay = "30ms"         #   its own access link, one way: its RTT grows by twice
//!                                 #   this (netsim backend; default 0)
//! clock = "virtual"               # or "real" (required for runs involving quiche)
//! # packet_protection = "tls"     # or "null"; default null in virtual time, tls in real time
//! stack = "quinn"                 # the host stack of the ports and baselines: "quinn" or "noq"
//! receiver = "noq"                # the receiver's stack: "quinn", "noq" or "quiche" (`quiche`
//!                                 # feature); default: the sender's (quiche-* send from quiche)
//! backend = "netsim"              # or "ns3": ns-3's 802.11 ad hoc MANET (`ns3` feature)
//!
//! [transfer]                      # either duration (default 60 s) or bytes
//! duration = "60s"                # each flow sends for this long; goodput counts bytes by then
//! # bytes = 10000000              # each flow sends this many bytes; the run ends when all arrive
//! # timeout = "1h"                # bytes mode only: fail the run after this much (link) time
//!
//! [transport]
//! idle_timeout = "off"            # quinn's max_idle_timeout ("off" or a duration)
//! packet_threshold = 3            # quinn's and the ports' loss thresholds (kept equal)
//! time_threshold = 1.125
//! # timeout_reading = "probe_timeout"  # the ports' TCP timeout on QUIC (default: each port's)
//! # quinn_full_window = true      # ports on quinn: a window of N datagrams carries N, not N-1 (default: the port's own, on for manet)
//! # ack_delay = "200ms"           # ask the receiver to hold ACKs up to this (ACK frequency)
//!
//! [link]                          # netsim's LinkConfig
//! path = { model = "mobility", min_speed = 20.0, max_speed = 20.0 }
//! [link.both]                     # settings for both directions ...
//! rate = "2Mbps"
//! errors = [{ model = "ber", ber = 1e-6 }]
//! [link.b_to_a]                   # ... overridden field by field for one direction
//! errors = []
//! [link.mac]                      # optional 802.11 DCF airtime: per-frame cost, retries,
//! max_attempts = 7                # one channel for both directions (netsim::MacConfig)
//!
//! [ns3]                           # the ns-3 scenario (netsim_ns3::Ns3Config), backend = "ns3" only;
//! routing = "aodv"                # a mobility [link.path] carries over (nodes, area, speeds,
//! [ns3.wifi]                      # pause, range, source, sink); these keys override it
//! data_rate_mbps = 2              # with rate_control = "constant" (the default); or
//! # rate_control = "minstrel"     # "minstrel" | "ideal" | "minstrel_ht" (netsim-ns3/README.md,
//!                                 # "Rate control and fading"; propagation = { model =
//!                                 # "nakagami" } fades; standard = "802.11n-2.4GHz" or
//!                                 # "802.11n-5GHz" with minstrel_ht or an HT rate, 6.5-65)
//!
//! [controllers]
//! select = ["newreno", "karak"]   # default: every available controller
//! [controllers.karak]             # knob settings (see `harness controllers`)
//! one_dup_ack_factor = 0.2
//!
//! [[axis]]                        # a grid: the cartesian product of all axes
//! key = "link.path"               # dotted key; table values merge into the table there
//! name = "speed (m/s)"
//! values = [{ min_speed = 5.0, max_speed = 5.0 }, { min_speed = 10.0, max_speed = 10.0 }]
//! labels = ["5", "10"]
//! ```
//!
//! The pieces (files of this directory), in the order a file goes through them: `schema`'s
//! serde structs read the document; `load` applies the command line's overrides and checks
//! them; `grid` resolves the axes into points and names each run ([`run_id`]); `point` turns one
//! point's document into a [`Scenario`], one TOML section at a time; `controllers` checks the
//! grid's controllers against its points. `model` holds what comes out: [`Grid`], [`Scenario`]
//! and their parts, re-exported here. [`backend`] (netsim or ns-3), [`units`] (durations in
//! TOML) and [`tomldoc`] (dotted keys and lines in the document) serve them.

pub mod backend;
mod context;
mod controllers;
mod grid;
mod load;
mod model;
mod point;
mod schema;
pub mod tomldoc;
pub mod units;

pub use grid::{IDENTITY_SCHEME, fnv1a, identity_json, run_id, stack_version};
pub use load::{load, load_description};
pub use model::{
    DEFAULT_DURATION, DEFAULT_TIMEOUT, Grid, MAX_FLOWS, MAX_POINTS, MAX_RUNS, MAX_SEEDS, MixFlow,
    Override, QUIC_MIN_DATAGRAM, Scenario, Source, Transfer, TransportSettings,
};
