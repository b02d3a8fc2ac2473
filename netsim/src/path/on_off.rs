//! The on/off route model: the route alternates between exponentially distributed up and down
//! periods, and each outage is followed by a fixed route-repair delay before traffic flows again.

use std::time::Duration;

use rand::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};

use super::{PathSource, PathState};
use crate::config_error::ConfigError;
use crate::seed::SimRng;
use crate::units::serde_duration;

/// Parameters of the on/off route model.
///
/// The path starts up. Up periods are exponential with mean `mean_up`; each down period is an
/// exponential outage with mean `mean_down` plus `repair_delay` (the time routing takes to find
/// the route again). The long-run up fraction is therefore
/// `mean_up / (mean_up + mean_down + repair_delay)`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct OnOffConfig {
    /// Mean up period (default 10 s). At least 1 ms.
    #[serde(with = "serde_duration")]
    pub mean_up: Duration,
    /// Mean outage before repair starts (default 1 s). May be 0 (outages are then exactly
    /// `repair_delay` long).
    #[serde(with = "serde_duration")]
    pub mean_down: Duration,
    /// Fixed route-repair delay added to every outage (default 100 ms).
    #[serde(with = "serde_duration")]
    pub repair_delay: Duration,
}

impl Default for OnOffConfig {
    fn default() -> Self {
        Self {
            mean_up: Duration::from_secs(10),
            mean_down: Duration::from_secs(1),
            repair_delay: Duration::from_millis(100),
        }
    }
}

/// The shortest mean up period: 1 ms, about a thousand route changes per simulated second.
pub const MIN_MEAN_UP: Duration = Duration::from_millis(1);

impl OnOffConfig {
    /// Checks the parameters; `field` is the path of this config.
    pub fn validate(&self, field: &str) -> Result<(), ConfigError> {
        if self.mean_up < MIN_MEAN_UP {
            return Err(ConfigError::out_of_range(
                format!("{field}.mean_up"),
                crate::units::format_duration(self.mean_up),
                format!(
                    ">= {} (every up period is a route change: a run's work grows as 1/mean_up)",
                    crate::units::format_duration(MIN_MEAN_UP)
                ),
            ));
        }
        Ok(())
    }

    /// The long-run fraction of time the path is up.
    pub fn up_fraction(&self) -> f64 {
        let up = self.mean_up.as_secs_f64();
        up / (up + self.mean_down.as_secs_f64() + self.repair_delay.as_secs_f64())
    }
}

/// The segment generator for [`OnOffConfig`].
#[derive(Debug)]
pub(crate) struct OnOffSource {
    config: OnOffConfig,
    rng: SimRng,
    next_is_up: bool,
}

impl OnOffSource {
    pub(crate) fn new(config: OnOffConfig, seed: u64) -> Self {
        Self {
            config,
            rng: SimRng::seed_from_u64(seed),
            next_is_up: true,
        }
    }

    /// An exponential draw with the given mean, by inversion: `-mean * ln(1 - U)`.
    fn exponential(&mut self, mean: Duration) -> Duration {
        // U in [0, 1), so 1 - U in (0, 1] and the logarithm is finite.
        let u: f64 = self.rng.r#gen();
        let seconds = -mean.as_secs_f64() * (1.0 - u).ln();
        Duration::try_from_secs_f64(seconds).unwrap_or(Duration::MAX)
    }
}

impl PathSource for OnOffSource {
    fn next_segment(&mut self) -> (Option<Duration>, PathState) {
        let up = self.next_is_up;
        self.next_is_up = !up;
        if up {
            (
                Some(self.exponential(self.config.mean_up)),
                PathState::Up { hops: 1 },
            )
        } else {
            let outage = self.exponential(self.config.mean_down);
            let down = outage.saturating_add(self.config.repair_delay);
            (Some(down), PathState::Down)
        }
    }
}
