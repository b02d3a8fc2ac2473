//! Test support shared by every controller crate (feature `testing`).
//!
//! - [`Driver`]: plays quinn's sender (its callback order and loss detection, replicated) so a
//!   scenario test reads like a story: send, ack, lose packet k with a given `d`, persistent
//!   congestion, ECN, advance time, change MTU.
//! - [`check_controller_invariants`]: the property harness, generic over any controller.

mod driver;
mod props;

pub use driver::{DrivenEvent, Driver};
pub use props::{Op, check_controller_invariants};
