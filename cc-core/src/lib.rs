//! What every MANET-aware QUIC congestion controller in this workspace shares.
//!
//! A port is an algorithm fed plain samples ([`CongestionAlgorithm`]) and a configuration
//! declared once ([`port_config!`]); cc-core classifies the stack's loss events for it and runs
//! it as quinn's or noq's congestion controller. A whole (toy) port, installed on quinn:
//!
//! ```
//! use std::sync::Arc;
//! use std::time::Instant;
//! use cc_core::{AckSample, CongestionAlgorithm, CongestionEvent, LossSignal, Range};
//! use cc_core::{RecoveryEpoch, RenoGrowth, TimeoutReading, Window};
//!
//! cc_core::port_config! {
//!     /// Configuration of [`Aimd`].
//!     pub struct AimdConfig for Aimd {
//!         name: "aimd",
//!         summary: "NewReno growth, a configurable decrease",
//!         revision: 1,
//!         knobs: {
//!             /// Window multiplier on a loss.
//!             decrease: f64 = 0.5, Range::UnitFactor;
//!         }
//!     }
//! }
//!
//! /// NewReno's growth; every loss (one per round trip) multiplies the window by `decrease`.
//! #[derive(Debug, Clone)]
//! pub struct Aimd {
//!     config: Arc<AimdConfig>,
//!     window: Window,
//!     growth: RenoGrowth,
//!     recovery: RecoveryEpoch,
//! }
//!
//! impl Aimd {
//!     fn new(config: Arc<AimdConfig>, mtu: u16) -> Self {
//!         Self {
//!             config,
//!             window: Window::new(10, mtu),
//!             growth: RenoGrowth::default(),
//!             recovery: RecoveryEpoch::default(),
//!         }
//!     }
//! }
//!
//! impl CongestionAlgorithm for Aimd {
//!     const NAME: &'static str = "aimd";
//!     const TIMEOUT_READING: TimeoutReading = TimeoutReading::PersistentCongestion;
//!
//!     fn on_ack(&mut self, ack: &AckSample) {
//!         self.growth.on_ack(&mut self.window, ack.bytes);
//!     }
//!
//!     fn on_congestion(&mut self, event: &CongestionEvent) {
//!         if self.recovery.admits(event) {
//!             let cwnd = cc_core::scale(self.window.cwnd(), self.config.decrease());
//!             self.window.set_ssthresh(cwnd);
//!             self.window.set_cwnd(cwnd);
//!             self.growth.reset();
//!         }
//!     }
//!
//!     fn window_state(&self) -> &Window {
//!         &self.window
//!     }
//!
//!     fn window_state_mut(&mut self) -> &mut Window {
//!         &mut self.window
//!     }
//! }
//!
//! let mut config = AimdConfig::default();
//! config.set_decrease(0.75)?; // a ConfigError names the field and its range
//!
//! // The algorithm alone, driven with plain values: 10 x 1200 bytes, x 0.75 on a loss.
//! let mut aimd = Aimd::new(Arc::new(config.clone()), 1200);
//! let now = Instant::now();
//! aimd.on_congestion(&CongestionEvent::determined(now, now, 1200, LossSignal::FastRetransmit));
//! assert_eq!(aimd.window(), 9_000);
//!
//! // As quinn's controller, with the loss thresholds its classifier reads
//! // (`quinn::TransportConfig` is this type, re-exported).
//! let mut transport = quinn_proto::TransportConfig::default();
//! config.install(&mut transport);
//! # Ok::<(), cc_core::ConfigError>(())
//! ```
//!
//! In detail:
//!
//! - The **loss-signal contract** (docs/DESIGN.md section 3): QUIC has no duplicate ACKs, but the
//!   distance `d = largest_acked - lost_pn` counts the later packets that got through, as TCP's
//!   duplicate-ACK counter does. [`LossClassifier`] replays quinn's loss detection over a
//!   bounded [`ledger`] of send batches and turns each `on_congestion_event` into a
//!   [`LossSignal`]: `FastRetransmit` (`d >= packet_threshold`), `Timeout { dup_acks: d }`
//!   (a time-threshold loss after `d` later packets, or `d = 0` for persistent congestion), or
//!   `Ecn`.
//! - **Plain-typed samples** ([`AckSample`], [`RttSnapshot`], [`CongestionEvent`]) so algorithm
//!   logic runs in unit tests without quinn's crate-private `RttEstimator` constructor.
//! - **Window arithmetic** ([`Window`], [`RenoGrowth`]): RFC 9002's 2-datagram minimum, MTU
//!   updates, overflow-safe scaling; and [`RecoveryEpoch`], one reduction per round trip.
//! - **Estimators** for the Westwood/Vegas family: a typed, saturating [`Bandwidth`]; the
//!   [`WestwoodEstimator`] (acknowledged bytes over the inter-ACK interval, low-pass filtered;
//!   PETRA eqs. 4.3-4.4); the packet-number-driven [`RoundCounter`]; [`RttRounds`] (base RTT and
//!   each round's RTT) and [`VegasBacklog`] (Vegas' expected-minus-actual backlog in packets).
//! - [`CongestionAlgorithm`], the interface each controller implements, and [`PortController`],
//!   which runs one as a QUIC stack's controller: quinn 0.11's (feature `quinn`, on by default)
//!   and noq 1.x's (feature `noq`, iroh's QUIC), where the loss signals are exact.
//! - [`port_config!`], which declares a port's configuration once (each knob's name, doc,
//!   default and [`Range`]) and derives the struct, serde, getters, validating setters and
//!   [`PortConfig`]; [`PortFactory`], the one controller factory for every port and stack; and
//!   [`install`], which sets a port and the loss thresholds it reads on a stack's
//!   `TransportConfig` ([`Transport`]).
//! - [`Observed`] (quinn; `NoqObserved` for noq): wraps any quinn controller (ours or quinn's own) so an [`Observer`] sees
//!   every callback, for recording and measurement without changing decisions.
//! - The [`trace`] vocabulary, and (feature `testing`) a scenario driver and a property-test
//!   harness generic over any controller.
//!
//! Targets: quinn-proto 0.11 and noq-proto 1.x. Only `stack/quinn.rs` and `stack/noq.rs` touch
//! a stack's `Controller` trait (and `observe.rs`, quinn's, for recording).
#![deny(missing_docs)]

mod algorithm;
mod bandwidth;
mod classifier;
mod config;
mod controller;
mod frame_rtt;
mod knob;
pub mod ledger;
#[cfg(feature = "quinn")]
mod observe;
#[cfg(feature = "noq")]
mod observe_noq;
mod port;
mod recovery;
mod rtt_rounds;
mod sample;
mod signal;
mod stack;
pub mod trace;
mod westwood;
mod westwood_plus;
mod window;

#[cfg(feature = "testing")]
pub mod testing;

pub use algorithm::CongestionAlgorithm;
pub use bandwidth::Bandwidth;
pub use classifier::{Classification, LossClassifier, SignalStats};
pub use config::{ConfigError, SignalConfig};
pub use controller::PortController;
pub use frame_rtt::FrameRtt;
pub use knob::{Knob, KnobKind, KnobType, KnobValue, Range};
#[cfg(feature = "quinn")]
pub use observe::{Observed, Observer};
#[cfg(feature = "noq")]
pub use observe_noq::{NoqObserved, NoqObserver};
pub use port::{PortConfig, PortFactory, Transport, install};
pub use recovery::RecoveryEpoch;
pub use rtt_rounds::{RoundCounter, RoundRtt, RttRounds, VegasBacklog};
pub use sample::{AckRoundEnd, AckSample, CongestionEvent, RttSnapshot};
pub use signal::{LossSignal, TimeoutReading};
pub use westwood::WestwoodEstimator;
pub use westwood_plus::WestwoodPlusEstimator;
pub use window::{
    MAX_WINDOW, MIN_WINDOW_PACKETS, RenoGrowth, Window, next_power_of_two, saturating_ns, scale,
};

#[doc(hidden)]
pub use paste;

/// quinn's clock type (`std::time::Instant` on native targets).
pub use std::time::Instant;
