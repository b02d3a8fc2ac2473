//! MANET breakage: whether the end-to-end path exists at each instant, and over how many hops.
//!
//! A path model is a generator of consecutive segments `(length, state)`. The link keeps a short
//! window of them in a `PathTimeline` (from the current time to the latest delivery time it
//! has promised) and asks two questions: is the path up when a datagram is offered, and does it
//! stay up until the datagram is delivered. A datagram offered while the path is down, or in
//! flight (queued, being serialized or propagating) when the path goes down, is lost to
//! breakage: a broken route loses what it carries.
//!
//! Both directions share one path: a route break cuts data and ACKs alike.

mod always_up;
pub mod mobility;
mod on_off;
mod timeline;
pub mod trace;

pub use mobility::{MobilityConfig, RoutePolicy};
pub use on_off::OnOffConfig;
pub(crate) use timeline::PathTimeline;
pub use trace::{TraceConfig, TraceSchedule};

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::config_error::ConfigError;

/// The state of the end-to-end path during a segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PathState {
    /// No route: everything sent or in flight is lost.
    Down,
    /// A route of `hops` hops (at least 1) exists.
    Up {
        /// Number of wireless hops from source to sink.
        hops: u32,
    },
}

impl PathState {
    /// True for [`PathState::Up`].
    pub fn is_up(self) -> bool {
        matches!(self, Self::Up { .. })
    }

    /// The hop count, or `None` while down.
    pub fn hops(self) -> Option<u32> {
        match self {
            Self::Up { hops } => Some(hops),
            Self::Down => None,
        }
    }
}

/// A generator of path segments; each model implements it.
pub(crate) trait PathSource: Send + std::fmt::Debug {
    /// The next segment: its length (`None` = it lasts forever) and its state.
    fn next_segment(&mut self) -> (Option<Duration>, PathState);
}

/// Which path model a link uses. In TOML: `path = { model = "always_up" }`,
/// `path = { model = "on_off", mean_up = "10s", mean_down = "2s", repair_delay = "500ms" }`,
/// `path = { model = "mobility", min_speed = 5.0, max_speed = 5.0 }`, or
/// `path = { model = "trace", schedule = "0 up\n10 down\n12 up\n" }`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "model", rename_all = "snake_case", deny_unknown_fields)]
pub enum PathModelConfig {
    /// A single-hop path that never breaks (the default). It has no parameters: a field beside
    /// `model = "always_up"` is an error, not silently ignored.
    AlwaysUp {},
    /// Exponential up and down periods plus a route-repair delay.
    OnOff(OnOffConfig),
    /// Random-waypoint mobility with shortest-hop routing between a source and a sink.
    Mobility(MobilityConfig),
    /// Replay of an up/down schedule.
    Trace(TraceConfig),
}

impl Default for PathModelConfig {
    /// [`Self::AlwaysUp`].
    fn default() -> Self {
        Self::AlwaysUp {}
    }
}

impl PathModelConfig {
    /// Checks the model's parameters; `field` is the path of this config, e.g. `path`.
    pub fn validate(&self, field: &str) -> Result<(), ConfigError> {
        match self {
            Self::AlwaysUp {} => Ok(()),
            Self::OnOff(config) => config.validate(field),
            Self::Mobility(config) => config.validate(field),
            Self::Trace(config) => config.validate(field),
        }
    }

    /// The hop count beyond which extra hops stop reducing capacity (see
    /// [`crate::link::LinkConfig`] for the formulas); 1 for single-hop models.
    pub fn interference_hops(&self) -> u32 {
        match self {
            Self::AlwaysUp {} | Self::OnOff(_) => 1,
            Self::Mobility(config) => config.interference_hops,
            Self::Trace(config) => config.interference_hops,
        }
    }

    /// Builds the segment generator, seeded from `seed` (the path's sub-seed).
    pub(crate) fn source(&self, seed: u64) -> Box<dyn PathSource> {
        match self {
            Self::AlwaysUp {} => Box::new(always_up::AlwaysUp),
            Self::OnOff(config) => Box::new(on_off::OnOffSource::new(config.clone(), seed)),
            Self::Mobility(config) => Box::new(mobility::MobilitySource::new(config.clone(), seed)),
            Self::Trace(config) => Box::new(trace::TraceSource::new(config.schedule.clone())),
        }
    }
}

/// Runs a path model on its own, without traffic, for `duration`: the segments it produces.
///
/// Useful for studying a model (up fraction, break frequency) and for choosing parameters; the
/// link consumes exactly the same segments for the same seed (the path sub-seed is
/// [`crate::seed::derive_seed`]`(run_seed, "path")`).
pub fn path_segments(
    config: &PathModelConfig,
    run_seed: u64,
    duration: Duration,
) -> Result<Vec<(Duration, Duration, PathState)>, ConfigError> {
    config.validate("path")?;
    let mut timeline = PathTimeline::new(config.source(crate::seed::derive_seed(run_seed, "path")));
    let mut segments = Vec::new();
    timeline.advance(duration, |start, end, state| {
        segments.push((start, end, state))
    });
    Ok(segments)
}

/// Summary statistics of a path model over a time span.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct PathStats {
    /// Seconds the path was up.
    pub up_seconds: f64,
    /// Seconds observed.
    pub total_seconds: f64,
    /// Number of up -> down transitions (breaks, including route changes that cost a
    /// route-discovery delay).
    pub breaks: u64,
    /// Time-weighted mean hop count while up (0 if never up).
    pub mean_hops: f64,
}

impl PathStats {
    /// Computes the statistics of `segments` as returned by [`path_segments`].
    pub fn of(segments: &[(Duration, Duration, PathState)]) -> Self {
        let mut stats = Self {
            up_seconds: 0.0,
            total_seconds: 0.0,
            breaks: 0,
            mean_hops: 0.0,
        };
        let mut hop_seconds = 0.0;
        let mut previous_up = false;
        for &(start, end, state) in segments {
            let seconds = end.saturating_sub(start).as_secs_f64();
            stats.total_seconds += seconds;
            if let PathState::Up { hops } = state {
                stats.up_seconds += seconds;
                hop_seconds += seconds * f64::from(hops);
            } else if previous_up {
                stats.breaks += 1;
            }
            previous_up = state.is_up();
        }
        if stats.up_seconds > 0.0 {
            stats.mean_hops = hop_seconds / stats.up_seconds;
        }
        stats
    }

    /// `up_seconds / total_seconds` (0 for an empty span).
    pub fn up_fraction(&self) -> f64 {
        if self.total_seconds > 0.0 {
            self.up_seconds / self.total_seconds
        } else {
            0.0
        }
    }
}
