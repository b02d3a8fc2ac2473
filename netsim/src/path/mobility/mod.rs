//! The mobility model: nodes move by random waypoint, and the source-to-sink route follows them.
//!
//! Every `step` (default 100 ms) the model moves the nodes, then looks at the route:
//!
//! - Two nodes are neighbours when their distance is at most `radio_range` (a unit-disk
//!   radio).
//! - With [`RoutePolicy::KeepValid`] (the default, as AODV and DSR behave) the current route is
//!   kept while every one of its hops is still within range; when a hop breaks, the shortest
//!   hop path (breadth-first search) becomes the new route. With [`RoutePolicy::AlwaysShortest`]
//!   the shortest hop path is recomputed every step and any change of the node sequence is a
//!   new route.
//! - No path = the path is down (a break).
//! - A new route (including the first one, and one found after a break) costs
//!   `route_discovery_delay` of downtime before traffic flows on it.
//!
//! The hop count `h` of the route then shapes the link (formulas in [`crate::link::LinkConfig`]):
//! one-way propagation delay `h x delay`, per-hop error `1 - (1 - q)^h`, and the shared-medium
//! capacity `rate / min(h, interference_hops)`.
//!
//! Positions are sampled at step boundaries: a hop that breaks and heals within one step is not
//! seen, so the step should be small against `radio_range / max_speed` (250 m / 30 m/s = 8.3 s
//! at the defaults, against 0.1 s).
//!
//! Defaults follow the Karak paper's Table 2 (50 nodes, 1200 m x 1200 m, 250 m range, random
//! waypoint with a 30 s pause); the paper sweeps the speed (5 to 30 m/s) and uses 15 m/s for its
//! BER sweep, which is the default here.

mod routing;
mod waypoint;

use std::collections::VecDeque;
use std::time::Duration;

use rand::SeedableRng;
use serde::{Deserialize, Serialize};

use super::{PathSource, PathState};
use crate::config_error::{ConfigError, check_positive_at_most};
use crate::seed::SimRng;
use crate::units::serde_duration;
use waypoint::Waypoints;

/// How the route is chosen each step.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RoutePolicy {
    /// Keep the current route while all its hops are in range; re-route only when one breaks.
    #[default]
    KeepValid,
    /// Take the shortest hop path every step; any change of route costs a discovery delay.
    AlwaysShortest,
}

/// Largest node count accepted: each step costs O(nodes^2).
const MAX_NODES: u32 = 10_000;
/// Longest terrain side and radio range, metres (1000 km: far beyond any MANET).
const MAX_AREA_SIDE: f64 = 1e6;
/// Fastest node, m/s (1000 m/s: beyond any vehicle a MANET study models).
const MAX_SPEED: f64 = 1000.0;

/// Parameters of the random-waypoint mobility model. Distances in metres, speeds in m/s.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MobilityConfig {
    /// Number of nodes (default 50). Range `[2, 10000]`.
    pub nodes: u32,
    /// Width of the terrain in metres (default 1200).
    pub area_width: f64,
    /// Height of the terrain in metres (default 1200).
    pub area_height: f64,
    /// Minimum node speed in m/s (default 15). Must be > 0: a zero minimum makes random
    /// waypoint's average speed decay towards zero over time (Yoon, Liu and Noble 2003).
    pub min_speed: f64,
    /// Maximum node speed in m/s (default 15). Each leg's speed is uniform in
    /// `[min_speed, max_speed]`.
    pub max_speed: f64,
    /// Pause at each waypoint (default 30 s). Nodes also start with a pause, as ns-2's
    /// `setdest` scenarios do.
    #[serde(with = "serde_duration")]
    pub pause: Duration,
    /// Radio range in metres (default 250).
    pub radio_range: f64,
    /// Index of the source node (default 0).
    pub source: u32,
    /// Index of the sink node (default 1).
    pub sink: u32,
    /// Time between position updates and route checks (default 100 ms). Must be > 0.
    #[serde(with = "serde_duration")]
    pub step: Duration,
    /// Downtime before a new route carries traffic (default 100 ms).
    #[serde(with = "serde_duration")]
    pub route_discovery_delay: Duration,
    /// Hop count beyond which extra hops stop dividing capacity (default 3: in an 802.11 chain,
    /// a hop interferes with the hops within about two hops of it, so a long chain carries about
    /// a third of one hop's rate; Li et al., "Capacity of Ad Hoc Wireless Networks",
    /// MobiCom 2001).
    pub interference_hops: u32,
    /// How routes are chosen (default [`RoutePolicy::KeepValid`]).
    pub route_policy: RoutePolicy,
}

impl Default for MobilityConfig {
    fn default() -> Self {
        Self {
            nodes: 50,
            area_width: 1200.0,
            area_height: 1200.0,
            min_speed: 15.0,
            max_speed: 15.0,
            pause: Duration::from_secs(30),
            radio_range: 250.0,
            source: 0,
            sink: 1,
            step: Duration::from_millis(100),
            route_discovery_delay: Duration::from_millis(100),
            interference_hops: 3,
            route_policy: RoutePolicy::KeepValid,
        }
    }
}

/// The shortest mobility step: 1 ms, a thousand position updates per simulated second.
pub const MIN_STEP: Duration = Duration::from_millis(1);

impl MobilityConfig {
    /// The defaults with every node moving at exactly `speed` m/s.
    pub fn with_speed(speed: f64) -> Self {
        Self {
            min_speed: speed,
            max_speed: speed,
            ..Self::default()
        }
    }

    /// Checks the parameters; `field` is the path of this config.
    pub fn validate(&self, field: &str) -> Result<(), ConfigError> {
        let f = |name: &str| format!("{field}.{name}");
        if !(2..=MAX_NODES).contains(&self.nodes) {
            return Err(ConfigError::out_of_range(
                f("nodes"),
                self.nodes,
                format!("in [2, {MAX_NODES}]"),
            ));
        }
        check_positive_at_most(&f("area_width"), self.area_width, MAX_AREA_SIDE, "m")?;
        check_positive_at_most(&f("area_height"), self.area_height, MAX_AREA_SIDE, "m")?;
        check_positive_at_most(&f("min_speed"), self.min_speed, MAX_SPEED, "m/s")?;
        check_positive_at_most(&f("max_speed"), self.max_speed, MAX_SPEED, "m/s")?;
        if self.max_speed < self.min_speed {
            return Err(ConfigError::out_of_range(
                f("max_speed"),
                self.max_speed,
                format!(">= min_speed ({})", self.min_speed),
            ));
        }
        check_positive_at_most(&f("radio_range"), self.radio_range, MAX_AREA_SIDE, "m")?;
        if self.step < MIN_STEP {
            return Err(ConfigError::out_of_range(
                f("step"),
                crate::units::format_duration(self.step),
                format!(
                    ">= {} (each step moves every node: a run's work grows as 1/step)",
                    crate::units::format_duration(MIN_STEP)
                ),
            ));
        }
        let last = self.nodes - 1;
        if self.source > last {
            return Err(ConfigError::out_of_range(
                f("source"),
                self.source,
                format!("in [0, {last}] (nodes - 1)"),
            ));
        }
        if self.sink > last {
            return Err(ConfigError::out_of_range(
                f("sink"),
                self.sink,
                format!("in [0, {last}] (nodes - 1)"),
            ));
        }
        if self.sink == self.source {
            return Err(ConfigError::invalid(f("sink"), "must differ from source"));
        }
        if self.interference_hops == 0 {
            return Err(ConfigError::out_of_range(f("interference_hops"), 0, ">= 1"));
        }
        Ok(())
    }
}

/// Longest movement [`MobilityConfig::ns2_trace`] writes (a day of simulated time).
pub const MAX_TRACE_HORIZON: Duration = Duration::from_secs(86_400);

impl MobilityConfig {
    /// The nodes' movement in a run seeded with `run_seed`, for `horizon`, as an ns-2 mobility
    /// trace (the `setdest` format ns-3's `Ns2MobilityHelper` reads): each node's initial
    /// position (`$node_(i) set X_ ..`), then each leg (`$ns_ at t "$node_(i) setdest x y v"`).
    /// It is the movement netsim's own link follows with the same seed (the path sub-seed
    /// `derive_seed(run_seed, "path")`, stepped every `step`), so another simulator can carry
    /// a run over exactly the nodes' paths netsim routes over. After `horizon` the nodes stop
    /// at their next waypoint.
    ///
    /// Errors: the config is invalid (as [`MobilityConfig::validate`] says, under `field`), or
    /// `horizon` is above [`MAX_TRACE_HORIZON`].
    pub fn ns2_trace(
        &self,
        field: &str,
        run_seed: u64,
        horizon: Duration,
    ) -> Result<String, ConfigError> {
        use std::fmt::Write as _;
        self.validate(field)?;
        crate::config_error::check_duration_at_most("horizon", horizon, MAX_TRACE_HORIZON)?;
        let seed = crate::seed::derive_seed(run_seed, "path");
        let mut waypoints = Waypoints::new(self, SimRng::seed_from_u64(seed));
        let mut out = String::new();
        for (i, (x, y)) in waypoints.positions().iter().enumerate() {
            // Writing to a String cannot fail.
            let _ = writeln!(out, "$node_({i}) set X_ {x:.6}");
            let _ = writeln!(out, "$node_({i}) set Y_ {y:.6}");
            let _ = writeln!(out, "$node_({i}) set Z_ 0.0");
        }
        // The same steps as MobilitySource takes, so the RNG draws come in the same order.
        let mut legs = Vec::new();
        let mut now = Duration::ZERO;
        while now < horizon {
            waypoints.advance_recording(
                self.step.as_secs_f64(),
                now.as_secs_f64(),
                Some(&mut legs),
            );
            now = now.saturating_add(self.step);
        }
        for leg in legs {
            let (x, y) = leg.destination;
            let _ = writeln!(
                out,
                "$ns_ at {:.9} \"$node_({}) setdest {x:.6} {y:.6} {:.6}\"",
                leg.at, leg.node, leg.speed
            );
        }
        Ok(out)
    }
}

/// The segment generator for [`MobilityConfig`].
#[derive(Debug)]
pub(crate) struct MobilitySource {
    config: MobilityConfig,
    waypoints: Waypoints,
    /// Start of the next step to simulate.
    now: Duration,
    /// The route in use (node indices from source to sink), if any.
    route: Option<Vec<u32>>,
    /// The current route carries traffic from this time on.
    usable_from: Duration,
    /// Segments of the last simulated step not yet handed out.
    pending: VecDeque<(Duration, PathState)>,
}

impl MobilitySource {
    pub(crate) fn new(config: MobilityConfig, seed: u64) -> Self {
        let waypoints = Waypoints::new(&config, SimRng::seed_from_u64(seed));
        Self {
            config,
            waypoints,
            now: Duration::ZERO,
            route: None,
            usable_from: Duration::ZERO,
            pending: VecDeque::new(),
        }
    }

    /// Chooses the route at the current positions and queues this step's segments.
    fn simulate_step(&mut self) {
        let positions = self.waypoints.positions();
        let range = self.config.radio_range;
        let (source, sink) = (self.config.source, self.config.sink);
        let keep = self.config.route_policy == RoutePolicy::KeepValid
            && self
                .route
                .as_deref()
                .is_some_and(|route| routing::route_valid(positions, range, route));
        if !keep {
            let shortest = routing::shortest_path(positions, range, source, sink);
            if shortest != self.route {
                if shortest.is_some() {
                    self.usable_from = self.now.saturating_add(self.config.route_discovery_delay);
                }
                tracing::trace!(
                    at_s = self.now.as_secs_f64(),
                    hops = shortest.as_ref().map(|r| r.len() - 1),
                    "route changed"
                );
                self.route = shortest;
            }
        }
        let step = self.config.step;
        match &self.route {
            None => self.pending.push_back((step, PathState::Down)),
            Some(route) => {
                let hops = u32::try_from(route.len().saturating_sub(1))
                    .unwrap_or(u32::MAX)
                    .max(1);
                let waiting = self.usable_from.saturating_sub(self.now).min(step);
                if !waiting.is_zero() {
                    self.pending.push_back((waiting, PathState::Down));
                }
                if waiting < step {
                    self.pending
                        .push_back((step - waiting, PathState::Up { hops }));
                }
            }
        }
        self.waypoints.advance(step.as_secs_f64());
        self.now = self.now.saturating_add(step);
    }
}

impl PathSource for MobilitySource {
    fn next_segment(&mut self) -> (Option<Duration>, PathState) {
        if self.pending.is_empty() {
            self.simulate_step();
        }
        match self.pending.pop_front() {
            Some((length, state)) => (Some(length), state),
            // simulate_step always queues at least one segment; answer "down for a step"
            // rather than panic if that ever changes.
            None => (Some(self.config.step), PathState::Down),
        }
    }
}

#[cfg(test)]
mod trace_tests {
    use super::*;

    /// Replays an ns-2 trace as ns-2's `setdest` moves a node: straight at the leg's speed
    /// towards its destination, stopping there. Returns the positions at `t` seconds.
    fn replay(trace: &str, nodes: usize, t: f64) -> Vec<(f64, f64)> {
        let mut start = vec![(0.0, 0.0); nodes];
        let mut legs: Vec<(f64, usize, f64, f64, f64)> = Vec::new();
        for line in trace.lines() {
            let words: Vec<&str> = line
                .split(|c: char| c.is_whitespace() || "()\"$_".contains(c))
                .filter(|w| !w.is_empty())
                .collect();
            match words.as_slice() {
                ["node", i, "set", "X", x] => {
                    start[i.parse::<usize>().unwrap()].0 = x.parse().unwrap()
                }
                ["node", i, "set", "Y", y] => {
                    start[i.parse::<usize>().unwrap()].1 = y.parse().unwrap()
                }
                ["node", _, "set", "Z", _] => {}
                ["ns", "at", at, "node", i, "setdest", x, y, v] => legs.push((
                    at.parse().unwrap(),
                    i.parse().unwrap(),
                    x.parse().unwrap(),
                    y.parse().unwrap(),
                    v.parse().unwrap(),
                )),
                other => panic!("unexpected trace line {other:?}"),
            }
        }
        let mut positions = start;
        for (i, position) in positions.iter_mut().enumerate() {
            for &(at, _, x, y, v) in legs.iter().filter(|l| l.1 == i && l.0 <= t) {
                let (dx, dy) = (x - position.0, y - position.1);
                let distance = dx.hypot(dy);
                let travelled = (v * (t - at)).min(distance);
                if distance > 0.0 {
                    *position = (
                        position.0 + dx * travelled / distance,
                        position.1 + dy * travelled / distance,
                    );
                }
            }
        }
        positions
    }

    #[test]
    fn the_trace_moves_the_nodes_as_netsim_does() {
        let config = MobilityConfig {
            pause: Duration::from_secs(2),
            min_speed: 10.0,
            max_speed: 30.0,
            nodes: 20,
            ..MobilityConfig::default()
        };
        let trace = config
            .ns2_trace("link.path", 7, Duration::from_secs(120))
            .unwrap();
        let seed = crate::seed::derive_seed(7, "path");
        let mut waypoints = Waypoints::new(&config, SimRng::seed_from_u64(seed));
        let mut legs_seen = 0;
        for step in 1..=1200u32 {
            waypoints.advance(0.1);
            let t = f64::from(step) * 0.1;
            if step % 50 == 0 {
                for (i, (a, b)) in replay(&trace, 20, t)
                    .iter()
                    .zip(waypoints.positions())
                    .enumerate()
                {
                    let gap = (a.0 - b.0).hypot(a.1 - b.1);
                    assert!(gap < 1e-3, "node {i} at {t} s: trace {a:?}, netsim {b:?}");
                }
            }
            legs_seen = trace.matches("setdest").count();
        }
        // 20 nodes, legs of about 600 m at 10-30 m/s and 2 s pauses: 3 to 4 legs each in 120 s.
        assert!(legs_seen > 40, "{legs_seen}");
    }

    #[test]
    fn a_bad_config_or_horizon_is_an_error() {
        let bad = MobilityConfig {
            nodes: 1,
            ..MobilityConfig::default()
        };
        let e = bad
            .ns2_trace("link.path", 1, Duration::from_secs(10))
            .unwrap_err();
        assert!(e.to_string().contains("link.path.nodes"), "{e}");
        let e = MobilityConfig::default()
            .ns2_trace("link.path", 1, MAX_TRACE_HORIZON + Duration::from_secs(1))
            .unwrap_err();
        assert!(e.to_string().contains("horizon"), "{e}");
    }
}
