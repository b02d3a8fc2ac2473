//! The sans-IO link core: a [`Link`] takes `(now, datagram length)` for one direction and
//! returns a [`Verdict`] (deliver at a time, or drop with a reason). It does no I/O and reads no
//! clock; the tokio layer ([`crate::sim`]) and any other driver supply the time.
//!
//! # Pipeline (per direction, in order)
//!
//! 1. **MTU check**: a datagram larger than `mtu` is dropped ([`DropReason::Mtu`]).
//! 2. **Path check**: offered while the path is down -> [`DropReason::Breakage`].
//! 3. **Error models**: the scripted model and every error layer are drawn. A selected
//!    datagram is still queued and serialized (the channel corrupts it on the air, the
//!    receiver's CRC discards it), then dropped ([`DropReason::Scripted`],
//!    [`DropReason::Error`]).
//! 4. **Drop-tail queue** (packets or bytes): full -> [`DropReason::Queue`].
//! 5. **Serialization** at `rate` (per hop count, see [`LinkConfig`]), after everything queued
//!    before it; with the optional 802.11 layer ([`MacConfig`]), a DCF frame exchange per hop
//!    with retries of corrupted attempts, on a channel both directions share.
//! 6. **Propagation** `delay` (per hop) plus a uniform jitter draw in `[0, jitter]`; in-order
//!    datagrams are delivered in FIFO order; reordering, if enabled, holds selected datagrams
//!    back by `extra_delay`.
//! 7. **In-flight breakage**: if the path goes down at any time between the offer and the
//!    delivery, the datagram is lost ([`DropReason::Breakage`]).
//! 8. **Delivery**, possibly duplicated.
//!
//! Every drop is counted by reason in the [`LinkAccounting`] and traced at debug level with the
//! fields `direction`, `index`, `len`, `reason` and `at_s`.
//!
//! Time is a [`Duration`] since the link was created. Callers must offer datagrams in
//! non-decreasing time; an earlier time is treated as the latest time seen.

mod accounting;
mod config;
mod direction;
mod mac;
mod queue;

pub use accounting::{DirectionAccounting, DropTally, LinkAccounting, Tally};
pub use config::{DirectionConfig, LinkConfig, QueueLimit, ReorderConfig};
pub use mac::MacConfig;

use std::collections::BTreeMap;
use std::fmt;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::config_error::ConfigError;
use crate::path::{PathState, PathTimeline};
use crate::seed::derive_seed;
use direction::DirectionState;

/// Which way a datagram travels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DirectionId {
    /// From endpoint A to endpoint B (for quinn pairs: client to server).
    AToB,
    /// From endpoint B to endpoint A.
    BToA,
}

impl DirectionId {
    /// `"a_to_b"` or `"b_to_a"`, as in configs and traces.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::AToB => "a_to_b",
            Self::BToA => "b_to_a",
        }
    }
}

impl fmt::Display for DirectionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a datagram was dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DropReason {
    /// Larger than the link MTU.
    Mtu,
    /// The path was down when it was offered or went down while it was in flight.
    Breakage,
    /// Corrupted by an error model.
    Error,
    /// Listed in the direction's scripted drops.
    Scripted,
    /// The drop-tail queue was full.
    Queue,
}

impl DropReason {
    /// The reason's name as used in accounting and traces.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Mtu => "mtu",
            Self::Breakage => "breakage",
            Self::Error => "error",
            Self::Scripted => "scripted",
            Self::Queue => "queue",
        }
    }
}

impl fmt::Display for DropReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// When and how a datagram is delivered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Delivery {
    /// Delivery time (since the link's creation).
    pub at: Duration,
    /// A second copy is delivered at the same time.
    pub duplicate: bool,
    /// The reordering model held this datagram back.
    pub reordered: bool,
}

/// What the link does with one datagram.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Deliver it.
    Deliver(Delivery),
    /// Drop it.
    Drop(DropReason),
}

/// A two-direction link with a shared path model: config (immutable) plus state.
#[derive(Debug)]
pub struct Link {
    config: LinkConfig,
    seed: u64,
    interference_hops: u32,
    path: PathTimeline,
    directions: [DirectionState; 2],
    /// Latest time seen.
    now: Duration,
    /// Nanoseconds the path was up, by hop count, up to `now`. Kept exact (integers, not float
    /// sums) so the accounting does not depend on how often it is read.
    up_nanos_by_hops: BTreeMap<u32, u128>,
}

impl Link {
    /// Validates `config` and builds the link; every random stream derives from `seed`.
    pub fn new(config: LinkConfig, seed: u64) -> Result<Self, ConfigError> {
        config.validate()?;
        let path = PathTimeline::new(config.path.source(derive_seed(seed, "path")));
        let directions = [
            DirectionState::new(
                config.a_to_b.clone(),
                config.mac.clone(),
                seed,
                DirectionId::AToB.as_str(),
            ),
            DirectionState::new(
                config.b_to_a.clone(),
                config.mac.clone(),
                seed,
                DirectionId::BToA.as_str(),
            ),
        ];
        tracing::debug!(seed, "netsim link created");
        Ok(Self {
            interference_hops: config.path.interference_hops(),
            config,
            seed,
            path,
            directions,
            now: Duration::ZERO,
            up_nanos_by_hops: BTreeMap::new(),
        })
    }

    /// The configuration the link was built with.
    pub fn config(&self) -> &LinkConfig {
        &self.config
    }

    /// The run seed.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Moves the link's clock to `now` (never backwards), accounting path time.
    fn advance(&mut self, now: Duration) -> Duration {
        let now = now.max(self.now);
        let up = &mut self.up_nanos_by_hops;
        self.path.advance(now, |start, end, state| {
            if let PathState::Up { hops } = state {
                *up.entry(hops).or_default() += (end - start).as_nanos();
            }
        });
        self.now = now;
        now
    }

    /// Runs a datagram of `len` bytes, offered at `now` in `direction`, through the pipeline.
    pub fn offer(&mut self, direction: DirectionId, now: Duration, len: usize) -> Verdict {
        self.offer_indexed(direction, now, len).1
    }

    /// Like [`Link::offer`], also returning the datagram's 0-based index in its direction.
    pub fn offer_indexed(
        &mut self,
        direction: DirectionId,
        now: Duration,
        len: usize,
    ) -> (u64, Verdict) {
        let now = self.advance(now);
        let interference_hops = self.interference_hops;
        let [a_to_b, b_to_a] = &mut self.directions;
        let (state, other) = match direction {
            DirectionId::AToB => (a_to_b, b_to_a),
            DirectionId::BToA => (b_to_a, a_to_b),
        };
        let half_duplex = self.config.mac.as_ref().is_some_and(|mac| mac.half_duplex);
        let (index, verdict) = state.offer(
            now,
            len,
            &mut self.path,
            interference_hops,
            half_duplex.then_some(other),
        );
        match verdict {
            Verdict::Drop(reason) => tracing::debug!(
                direction = direction.as_str(),
                index,
                len,
                reason = reason.as_str(),
                at_s = now.as_secs_f64(),
                "datagram dropped"
            ),
            Verdict::Deliver(delivery) => tracing::trace!(
                direction = direction.as_str(),
                index,
                len,
                at_s = now.as_secs_f64(),
                deliver_at_s = delivery.at.as_secs_f64(),
                "datagram accepted"
            ),
        }
        (index, verdict)
    }

    /// The path state at `now` (advancing the link's clock to it).
    pub fn path_state(&mut self, now: Duration) -> PathState {
        let now = self.advance(now);
        self.path.state_at(now)
    }

    /// The accounting from the link's creation up to `now` (advancing the clock to it).
    pub fn accounting(&mut self, now: Duration) -> LinkAccounting {
        let now = self.advance(now);
        let up_seconds = self.up_nanos_by_hops.values().sum::<u128>() as f64 * 1e-9;
        let direction = |state: &DirectionState| {
            let mut accounting = state.accounting();
            accounting.elapsed_seconds = now.as_secs_f64();
            accounting.up_seconds = up_seconds;
            accounting.capacity_bytes = self
                .up_nanos_by_hops
                .iter()
                .map(|(&hops, &nanos)| {
                    nanos as f64 * 1e-9 * state.capacity_per_second(hops, self.interference_hops)
                })
                .sum();
            accounting
        };
        LinkAccounting {
            seed: self.seed,
            a_to_b: direction(&self.directions[0]),
            b_to_a: direction(&self.directions[1]),
        }
    }
}
