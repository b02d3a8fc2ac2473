//! Test support shared by every controller crate (feature `testing`).
//!
//! - [`Driver`]: plays quinn's sender (its callback order and loss detection, replicated) so a
//!   scenario test reads like a story: send, ack, lose packet k with a given `d`, persistent
//!   congestion, ECN, advance time, change MTU.
//! - [`check_controller_invariants`]: the property harness, generic over any controller.
//! - [`GroundTruth`]: a `tracing` layer that scores the classifier against quinn's own loss
//!   detection in real connections, and against noq's ([`NoqLossRecord`], feature `noq`).
//! - [`capture_events`]: the formatted `tracing` output of a closure, for tests of what a
//!   controller logs.
//! - [`RandomFrames`]: seeded pseudo-random ACK frames for the tests of per-frame RTT sampling.
//! - [`WatchFactory`]: wraps a controller factory and records what its controllers did in a
//!   real connection (end-to-end tests).

mod capture;
mod driver;
mod frames;
mod ground_truth;
#[cfg(feature = "noq")]
mod noq_record;
mod props;
mod watch;

pub use capture::capture_events;
pub use driver::{DrivenEvent, Driver};
pub use frames::{RandomAck, RandomFrame, RandomFrames};
pub use ground_truth::{Agreement, GroundTruth, PairedEvent};
#[cfg(feature = "noq")]
pub use noq_record::NoqLossRecord;
pub use props::{EXTREME_RTTS, Op, check_controller_invariants, proptest_cases};
pub use watch::{WatchFactory, WatchLog};

/// The `tracing` target of noq's loss-detection records (`NoqLossRecord`, feature `noq`), which
/// [`GroundTruth`] reads (with or without the feature).
const NOQ_RECORD_TARGET: &str = "cc_truth";
