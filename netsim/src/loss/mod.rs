//! Error models: which datagrams the channel corrupts.
//!
//! A direction carries a list of [`ErrorModelConfig`] layers. Every layer draws once for every
//! datagram that reaches the error stage, from its own seeded RNG, and the datagram is corrupted
//! if any layer says so. Drawing every layer every time (rather than stopping at the first
//! corruption) keeps each layer's random stream independent of the others, so adding a layer
//! never changes which datagrams an existing layer corrupts.
//!
//! Over a multi-hop path (the mobility model) each layer's per-hop probability `q` becomes the
//! end-to-end probability `1 - (1 - q)^h` for `h` hops: the datagram must survive every hop.

mod gilbert_elliott;
mod scripted;

pub use gilbert_elliott::GilbertElliottState;
pub(crate) use scripted::ScriptedDrops;

use serde::{Deserialize, Serialize};

use crate::config_error::{ConfigError, check_probability, check_unit_interval_open};
use crate::seed::SimRng;
use rand::Rng;

/// One error-model layer. In TOML: `{ model = "per", p = 0.01 }`,
/// `{ model = "ber", ber = 1e-5 }`, or
/// `{ model = "gilbert_elliott", p = 0.05, r = 0.3, loss_good = 0.0, loss_bad = 0.5 }`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "model", rename_all = "snake_case", deny_unknown_fields)]
pub enum ErrorModelConfig {
    /// Packet error rate: every datagram is corrupted with probability `p`, independently.
    Per {
        /// Per-datagram corruption probability, in `[0, 1]`.
        p: f64,
    },
    /// Bit error rate: a datagram of `n` bytes is corrupted with probability
    /// `1 - (1 - ber)^(8 n)`, each bit flipping independently; a corrupted datagram is dropped,
    /// as a link-layer CRC would drop it.
    Ber {
        /// Per-bit error probability, in `[0, 1)`.
        ber: f64,
    },
    /// Gilbert-Elliott two-state burst loss (Gilbert 1960, Elliott 1963), one step per datagram.
    ///
    /// In the good state a datagram is lost with probability `loss_good`, in the bad state with
    /// `loss_bad`. After each datagram the channel moves good -> bad with probability `p` and
    /// bad -> good with probability `r`. It starts in the good state. The stationary loss rate
    /// is `(r * loss_good + p * loss_bad) / (p + r)` (and `loss_good` when `p = r = 0`); the
    /// mean bad-state sojourn is `1 / r` datagrams.
    GilbertElliott {
        /// Good -> bad transition probability per datagram, in `[0, 1]`.
        p: f64,
        /// Bad -> good transition probability per datagram, in `[0, 1]`.
        r: f64,
        /// Loss probability in the good state (`1 - k` in Elliott's notation), in `[0, 1]`.
        loss_good: f64,
        /// Loss probability in the bad state (`1 - h` in Elliott's notation), in `[0, 1]`.
        loss_bad: f64,
    },
}

impl ErrorModelConfig {
    /// Checks every probability; `field` is the path of this layer, e.g. `a_to_b.errors[0]`.
    pub fn validate(&self, field: &str) -> Result<(), ConfigError> {
        match *self {
            Self::Per { p } => check_probability(&format!("{field}.p"), p),
            Self::Ber { ber } => check_unit_interval_open(&format!("{field}.ber"), ber),
            Self::GilbertElliott {
                p,
                r,
                loss_good,
                loss_bad,
            } => {
                check_probability(&format!("{field}.p"), p)?;
                check_probability(&format!("{field}.r"), r)?;
                check_probability(&format!("{field}.loss_good"), loss_good)?;
                check_probability(&format!("{field}.loss_bad"), loss_bad)
            }
        }
    }

    /// The long-run per-hop probability that this layer corrupts a datagram of `len` bytes.
    pub fn stationary_loss(&self, len: usize) -> f64 {
        match *self {
            Self::Per { p } => p,
            Self::Ber { ber } => ber_loss(ber, len),
            Self::GilbertElliott {
                p,
                r,
                loss_good,
                loss_bad,
            } => {
                if p + r > 0.0 {
                    (r * loss_good + p * loss_bad) / (p + r)
                } else {
                    loss_good
                }
            }
        }
    }
}

/// `1 - (1 - ber)^(8 len)`, computed as `-expm1(8 len * ln(1 - ber))` so that tiny BERs do not
/// round to zero.
pub fn ber_loss(ber: f64, len: usize) -> f64 {
    let bits = 8.0 * len as f64;
    -(bits * (-ber).ln_1p()).exp_m1()
}

/// The end-to-end probability over `hops` hops of a per-hop probability `q`: `1 - (1 - q)^h`.
pub fn over_hops(q: f64, hops: u32) -> f64 {
    if hops <= 1 {
        q
    } else {
        1.0 - (1.0 - q).powi(hops.min(i32::MAX as u32) as i32)
    }
}

/// The mutable state of one layer: its RNG and, for Gilbert-Elliott, the channel state.
#[derive(Debug)]
struct ErrorLayer {
    config: ErrorModelConfig,
    rng: SimRng,
    gilbert: GilbertElliottState,
}

impl ErrorLayer {
    /// Draws once for a datagram of `len` bytes crossing `hops` hops; true if corrupted.
    fn corrupts(&mut self, len: usize, hops: u32) -> bool {
        let per_hop = match self.config {
            ErrorModelConfig::Per { p } => p,
            ErrorModelConfig::Ber { ber } => ber_loss(ber, len),
            ErrorModelConfig::GilbertElliott {
                p,
                r,
                loss_good,
                loss_bad,
            } => self
                .gilbert
                .loss_then_step(&mut self.rng, p, r, loss_good, loss_bad),
        };
        // `gen::<f64>()` is in [0, 1): probability 0 never corrupts, 1 always does.
        self.rng.r#gen::<f64>() < over_hops(per_hop, hops)
    }
}

/// All error layers of one direction.
#[derive(Debug)]
pub(crate) struct ErrorChain {
    layers: Vec<ErrorLayer>,
}

impl ErrorChain {
    /// Builds the chain; `rng_for(i)` supplies the seeded RNG of layer `i`.
    pub(crate) fn new(
        configs: &[ErrorModelConfig],
        mut rng_for: impl FnMut(usize) -> SimRng,
    ) -> Self {
        let layers = configs
            .iter()
            .enumerate()
            .map(|(i, config)| ErrorLayer {
                config: config.clone(),
                rng: rng_for(i),
                gilbert: GilbertElliottState::default(),
            })
            .collect();
        Self { layers }
    }

    /// Draws every layer once; true if any corrupts the datagram.
    pub(crate) fn corrupts(&mut self, len: usize, hops: u32) -> bool {
        let mut corrupted = false;
        for layer in &mut self.layers {
            corrupted |= layer.corrupts(len, hops);
        }
        corrupted
    }
}

/// The long-run probability that a datagram of `len` bytes crossing `hops` hops survives every
/// layer in `configs`.
pub fn stationary_survival(configs: &[ErrorModelConfig], len: usize, hops: u32) -> f64 {
    configs
        .iter()
        .map(|c| 1.0 - over_hops(c.stationary_loss(len), hops))
        .product()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ber_formula_matches_the_direct_power() {
        // 1000 bytes at BER 1e-5: 1 - (1 - 1e-5)^8000 = 0.076884...
        let direct = 1.0 - (1.0f64 - 1e-5).powi(8000);
        assert!((ber_loss(1e-5, 1000) - direct).abs() < 1e-12);
        assert!((ber_loss(1e-5, 1000) - 0.076_884).abs() < 1e-6);
        assert_eq!(ber_loss(0.0, 1500), 0.0);
    }

    #[test]
    fn gilbert_elliott_stationary_rate_is_the_weighted_state_loss() {
        // pi_bad = p / (p + r) = 0.05 / 0.35 = 1/7; loss = 6/7 * 0.001 + 1/7 * 0.5 = 0.072285...
        let ge = ErrorModelConfig::GilbertElliott {
            p: 0.05,
            r: 0.3,
            loss_good: 0.001,
            loss_bad: 0.5,
        };
        assert!((ge.stationary_loss(1200) - (6.0 * 0.001 + 0.5) / 7.0).abs() < 1e-12);
    }

    #[test]
    fn validation_names_the_field_and_range() {
        let err = ErrorModelConfig::Ber { ber: 1.0 }
            .validate("a_to_b.errors[1]")
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "a_to_b.errors[1].ber = 1 is out of range: it must be in [0, 1)"
        );
        let err = ErrorModelConfig::Per { p: f64::NAN }
            .validate("x")
            .unwrap_err();
        assert!(err.to_string().starts_with("x.p = NaN"));
    }

    #[test]
    fn hops_compound_the_per_hop_probability() {
        assert_eq!(over_hops(0.1, 1), 0.1);
        assert!((over_hops(0.1, 3) - (1.0 - 0.9f64.powi(3))).abs() < 1e-15);
    }
}
