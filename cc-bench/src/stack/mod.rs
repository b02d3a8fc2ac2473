//! The host stacks a recording comes from and replays into: quinn 0.11 and noq 1.x.
//!
//! Their `Controller` traits differ (noq passes packet numbers, has per-packet and extra
//! callbacks, and reads `metrics()` on its send path), so each stack says here how to build
//! its controllers, make one recorded call on them, run a scenario, and which controllers it
//! measures. Everything else in the crate (recording, the file format, replay, measurement,
//! the report) is written once over [`HostStack`].

mod noq;
mod quinn;

pub use self::noq::Noq;
pub use self::quinn::Quinn;

use crate::controllers::Contender;
use crate::event::RttReading;
use crate::record::RecordingFactory;
use crate::replay::Step;
use crate::scenarios::{RunError, Scenario};
use std::sync::Arc;
use std::time::Instant;

/// A QUIC stack whose congestion controllers cc-bench records and replays.
pub trait HostStack: Sized + Send + Sync + 'static {
    /// Its name in recordings, file names and tables (`quinn`, `noq`).
    const NAME: &'static str;
    /// Its protocol crate and version (`quinn-proto 0.11`).
    const VERSION: &'static str;
    /// The stack's controller trait object.
    type Controller: ?Sized + Send + Sync;
    /// The stack's controller-factory trait object.
    type Factory: ?Sized + Send + Sync;
    /// The stack's RTT estimator (`Copy`, without a public constructor).
    type Estimator: Copy + Send + Sync;

    /// The estimator's three public readings.
    fn reading(rtt: &Self::Estimator) -> RttReading;

    /// A fresh controller, built as the stack builds one.
    fn build(factory: &Arc<Self::Factory>, now: Instant, mtu: u16) -> Box<Self::Controller>;

    /// The controller's window, bytes.
    fn window(controller: &Self::Controller) -> u64;

    /// Makes the call `step` stands for, `on_ack` with `estimators[rtt]`. Only steps
    /// [`HostStack::delivers`] accepts reach it.
    fn call(controller: &mut Self::Controller, step: &Step, estimators: &[Self::Estimator]);

    /// Whether the stack's trait has the call `event` stands for (with its arguments).
    fn delivers(event: &crate::Event) -> bool;

    /// The stack's Cubic (its default controller), the one every recording runs.
    fn cubic() -> Arc<Self::Factory>;

    /// A recording factory as the stack's factory trait object.
    fn recorder(factory: Arc<RecordingFactory<Self>>) -> Arc<Self::Factory>;

    /// Runs `scenario`'s bulk transfer with `factory` as the client's controller, in virtual
    /// time.
    fn run(scenario: &Scenario, factory: Arc<Self::Factory>) -> Result<(), RunError>;

    /// The stack's own NewReno, Cubic and BBR (v1 on quinn, v3 on noq), then the five ports,
    /// all at default settings.
    fn contenders() -> Vec<Contender<Self>>;

    /// The no-op controller as this stack's factory: what the replay loop itself costs.
    fn floor() -> Contender<Self>;
}
