//! netsim: a seeded lossy-link and MANET path emulator for QUIC stacks on tokio.
//!
//! The crate has a sans-IO core and thin layers around it:
//!
//! - [`link`]: the link core. A [`Link`] takes `(direction, now, datagram length)` and returns
//!   a [`Verdict`]: deliver at a time, or drop with a reason. MTU check, error models, drop-tail
//!   queue, serialization, propagation and jitter, breakage, per-direction
//!   [`LinkAccounting`].
//! - [`loss`]: error models (PER, BER, Gilbert-Elliott, scripted drops).
//! - [`path`]: MANET breakage (always up, on/off, random-waypoint mobility, trace replay).
//! - [`sim`]: the tokio layer: an in-process endpoint pair ([`SimLink`]) with a stack-neutral
//!   datagram socket ([`SimSocket`]) and `quinn::AsyncUdpSocket` and `noq::AsyncUdpSocket`
//!   adapters, in virtual time
//!   ([`virtual_runtime`]) or real time ([`real_runtime`]).
//! - [`quinn_pair`]: a quinn client/server pair over a [`SimLink`], with transfer helpers, for
//!   tests and experiments that run quinn over the emulated path; `noq_pair` (feature `noq`):
//!   the same for noq, iroh's QUIC. Both are declared once, in [`pair`]; `interop` (feature
//!   `noq`): quinn client with noq server and the reverse.
//! - [`relay`]: a real-time UDP relay between loopback addresses through the emulated path, so
//!   any QUIC program can be run over it (also the `netsim-relay` binary).
//!
//! Every random choice comes from a ChaCha8 RNG seeded from the run seed (see [`seed`]); every
//! config is validated, and errors name the field and its allowed range.
//!
//! Features: `quinn` (default: quinn's pair and socket adapter, with rustls and rcgen), `noq`
//! (noq's beside them, and the mixed pairs), `relay-cli` (default: the `netsim-relay` command,
//! with clap). With `default-features = false` the emulator core (links, error models, paths,
//! [`SimLink`] and [`SimSocket`], the relay's library) builds with none of them.
//!
//! ```
//! use std::time::Duration;
//! use netsim::{DirectionConfig, DirectionId, ErrorModelConfig, Link, LinkConfig, Verdict};
//!
//! let config = LinkConfig::symmetric(DirectionConfig {
//!     errors: vec![ErrorModelConfig::Per { p: 0.01 }],
//!     ..DirectionConfig::default()
//! });
//! let mut link = Link::new(config, 42)?;
//! match link.offer(DirectionId::AToB, Duration::ZERO, 1200) {
//!     Verdict::Deliver(delivery) => assert!(delivery.at >= Duration::from_millis(45)),
//!     Verdict::Drop(reason) => println!("dropped: {reason}"),
//! }
//! let accounting = link.accounting(Duration::from_secs(1));
//! assert!(accounting.a_to_b.is_balanced());
//! # Ok::<(), netsim::ConfigError>(())
//! ```

#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod config_error;

/// The behaviour revision of the emulator (links, error models, paths, the 802.11 layer, the
/// endpoint pairs): raised whenever the same config and seed would deliver other datagrams at
/// other times, so that a result made by the old emulator is never taken for the new one
/// (the harness hashes it into every run id).
pub const REVISION: u32 = 1;

#[cfg(feature = "noq")]
pub mod interop;
pub mod link;
pub mod loss;
#[cfg(feature = "noq")]
pub mod noq_pair;
#[cfg(feature = "quinn")]
pub mod pair;
pub mod path;
#[cfg(feature = "quinn")]
pub mod quinn_pair;
pub mod relay;
pub mod seed;
pub mod sim;
pub mod units;

pub use config_error::ConfigError;
pub use link::{
    Delivery, DirectionAccounting, DirectionConfig, DirectionId, DropReason, DropTally, Link,
    LinkAccounting, LinkConfig, MacConfig, QueueLimit, ReorderConfig, Tally, Verdict,
};
pub use loss::ErrorModelConfig;
#[cfg(feature = "quinn")]
pub use pair::PacketProtection;
pub use path::{
    MobilityConfig, OnOffConfig, PathModelConfig, PathState, RoutePolicy, TraceConfig,
    TraceSchedule,
};
pub use sim::{
    Clock, MAX_ACCESS_DELAY, MAX_ENDPOINTS, Medium, MediumDelivery, Offered, Side, SimLink,
    SimSocket, TimelineEntry, real_runtime, virtual_runtime,
};
pub use units::Rate;
