//! Link configuration: immutable, validated, (de)serializable.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::mac::MacConfig;
use crate::config_error::{ConfigError, check_probability};
use crate::loss::ErrorModelConfig;
use crate::path::PathModelConfig;
use crate::units::{Rate, format_duration, serde_duration};

/// The fastest link: 100 Gb/s. A run's work grows with the datagrams the link carries (rate
/// x duration), so this, with the 24 h longest transfer, bounds it.
pub const MAX_RATE: Rate = Rate::from_bps(100_000_000_000);

/// Longest accepted delay, jitter or reordering delay. Far beyond any real path; the bound keeps
/// delivery times (and the path window the link must generate) finite and small.
const MAX_DELAY: Duration = Duration::from_secs(3600);

/// The drop-tail queue's capacity.
///
/// The queue holds every datagram accepted but not yet fully serialized, including the one
/// being serialized. Byte limits count wire bytes (payload plus
/// [`DirectionConfig::overhead`]). In TOML: `queue = { packets = 50 }` or
/// `queue = { bytes = 75000 }`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum QueueLimit {
    /// At most this many datagrams (at least 1).
    Packets(u64),
    /// At most this many wire bytes (at least one maximum-size datagram: `mtu + overhead`).
    Bytes(u64),
}

/// Holding some datagrams back so that later ones overtake them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReorderConfig {
    /// Probability that a datagram is held back, in `[0, 1]`.
    pub probability: f64,
    /// How long a held-back datagram is delayed beyond its normal delivery time (at most 1 h).
    #[serde(with = "serde_duration")]
    pub extra_delay: Duration,
}

/// One direction of the link. Every field has a default (listed per field), so a TOML table
/// only names what differs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DirectionConfig {
    /// Serialization rate (default 2 Mb/s, the 802.11 rate of the MANET papers' simulations).
    /// Must be > 0. Applies to wire bytes.
    pub rate: Rate,
    /// One-way propagation delay per hop (default 45 ms, at most 1 h). With a single-hop path
    /// model this is simply the link's propagation delay.
    #[serde(with = "serde_duration")]
    pub delay: Duration,
    /// Maximum extra delay; each datagram gets a uniform draw in `[0, jitter]` (default 0, at
    /// most 1 h).
    /// Jitter never reorders: a datagram is never delivered before one offered earlier,
    /// unless [`DirectionConfig::reorder`] selects it.
    #[serde(with = "serde_duration")]
    pub jitter: Duration,
    /// Drop-tail queue capacity (default 50 packets, the interface queue of ns-2 and
    /// GloMoSim MANET scenarios).
    pub queue: QueueLimit,
    /// Largest datagram payload the link carries, in bytes (default 1472: a 1500-byte IP MTU
    /// minus IPv4 and UDP headers). Range `[1, 65535]`. Larger datagrams are dropped.
    pub mtu: u32,
    /// Per-datagram header bytes added on the wire (default 28: IPv4 + UDP). Counted in
    /// serialization time and in byte queue limits, not in the accounting's byte counts.
    pub overhead: u32,
    /// Error-model layers, all applied (default none).
    pub errors: Vec<ErrorModelConfig>,
    /// 0-based indices of datagrams (counting every datagram offered to this direction) to
    /// drop, for tests that need one exact loss (default none).
    pub scripted_drops: Vec<u64>,
    /// Optional reordering (default none).
    pub reorder: Option<ReorderConfig>,
    /// Probability that a delivered datagram is delivered twice, in `[0, 1]` (default 0).
    pub duplicate: f64,
}

impl Default for DirectionConfig {
    fn default() -> Self {
        Self {
            rate: Rate::from_mbps(2),
            delay: Duration::from_millis(45),
            jitter: Duration::ZERO,
            queue: QueueLimit::Packets(50),
            mtu: 1472,
            overhead: 28,
            errors: Vec::new(),
            scripted_drops: Vec::new(),
            reorder: None,
            duplicate: 0.0,
        }
    }
}

impl DirectionConfig {
    /// Checks every field; `field` is this direction's name, e.g. `a_to_b`.
    pub fn validate(&self, field: &str) -> Result<(), ConfigError> {
        let f = |name: &str| format!("{field}.{name}");
        if self.rate.bps() == 0 || self.rate > MAX_RATE {
            return Err(ConfigError::out_of_range(
                f("rate"),
                self.rate,
                format!("in (0, {MAX_RATE}]"),
            ));
        }
        for (name, value) in [("delay", self.delay), ("jitter", self.jitter)]
            .into_iter()
            .chain(
                self.reorder
                    .as_ref()
                    .map(|r| ("reorder.extra_delay", r.extra_delay)),
            )
        {
            if value > MAX_DELAY {
                return Err(ConfigError::out_of_range(
                    f(name),
                    format_duration(value),
                    "at most 1h",
                ));
            }
        }
        if !(1..=65_535).contains(&self.mtu) {
            return Err(ConfigError::out_of_range(
                f("mtu"),
                self.mtu,
                "in [1, 65535]",
            ));
        }
        if self.overhead > 65_535 {
            return Err(ConfigError::out_of_range(
                f("overhead"),
                self.overhead,
                "in [0, 65535]",
            ));
        }
        let largest = u64::from(self.mtu) + u64::from(self.overhead);
        match self.queue {
            QueueLimit::Packets(0) => {
                return Err(ConfigError::out_of_range(f("queue.packets"), 0, ">= 1"));
            }
            QueueLimit::Bytes(bytes) if bytes < largest => {
                return Err(ConfigError::out_of_range(
                    f("queue.bytes"),
                    bytes,
                    format!(">= mtu + overhead ({largest})"),
                ));
            }
            _ => {}
        }
        for (i, model) in self.errors.iter().enumerate() {
            model.validate(&f(&format!("errors[{i}]")))?;
        }
        if let Some(reorder) = &self.reorder {
            check_probability(&f("reorder.probability"), reorder.probability)?;
        }
        check_probability(&f("duplicate"), self.duplicate)
    }
}

/// A link between endpoint A and endpoint B: one config per direction and one path model
/// shared by both (a broken route cuts data and ACKs alike).
///
/// # How the hop count shapes the link
///
/// Path models that report a route of `h` hops (mobility, traces with hop counts) scale each
/// direction as follows, with `k` = the model's `interference_hops` (default 3):
///
/// - one-way propagation delay: `h x delay` (jitter is added once, end to end);
/// - serialization: at the shared-medium rate `rate / min(h, k)`: on one radio channel the
///   hops of a chain take turns, and hops more than `k` apart transmit in parallel;
/// - errors: each layer's per-hop probability `q` becomes `1 - (1 - q)^h`.
///
/// So the minimum one-way delay of a datagram of `n` payload bytes is
/// `(n + overhead) x 8 x min(h, k) / rate + h x delay`.
///
/// With [`LinkConfig::mac`] set, each hop's serialization becomes an 802.11 DCF frame exchange
/// with retries, and both directions share the channel (see [`MacConfig`]).
#[derive(Clone, Debug, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LinkConfig {
    /// Settings from A to B (for quinn pairs: client to server).
    pub a_to_b: DirectionConfig,
    /// Settings from B to A.
    pub b_to_a: DirectionConfig,
    /// The path model (default: always up, one hop).
    pub path: PathModelConfig,
    /// The optional 802.11 DCF airtime layer (default none: an ideal full-duplex wire). Left
    /// out of the serialized form when absent, so configs written before it existed serialize
    /// as they did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mac: Option<MacConfig>,
}

impl LinkConfig {
    /// The same settings in both directions, path always up.
    pub fn symmetric(direction: DirectionConfig) -> Self {
        Self {
            a_to_b: direction.clone(),
            b_to_a: direction,
            path: PathModelConfig::AlwaysUp {},
            mac: None,
        }
    }

    /// This config with `path` as its path model.
    pub fn with_path(mut self, path: PathModelConfig) -> Self {
        self.path = path;
        self
    }

    /// Checks every field; errors name the field (`a_to_b.errors[0].p`) and its allowed range.
    pub fn validate(&self) -> Result<(), ConfigError> {
        self.a_to_b.validate("a_to_b")?;
        self.b_to_a.validate("b_to_a")?;
        self.path.validate("path")?;
        match &self.mac {
            Some(mac) => mac.validate("mac"),
            None => Ok(()),
        }
    }

    /// Parses and validates a TOML document; `source_name` prefixes parse errors.
    pub fn from_toml_str(text: &str, source_name: &str) -> Result<Self, ConfigError> {
        let config: Self = toml::from_str(text).map_err(|e| ConfigError::Parse {
            source_name: source_name.to_owned(),
            message: e.to_string(),
        })?;
        config.validate()?;
        Ok(config)
    }
}
