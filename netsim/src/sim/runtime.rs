//! Runtimes for the two clocks. The link code is the same for both; only the clock differs.

use std::io;

use serde::{Deserialize, Serialize};

/// Which clock a run uses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Clock {
    /// tokio's paused clock: time advances only when all tasks wait, straight to the next
    /// timer. Fast and deterministic for a seed.
    #[default]
    Virtual,
    /// The wall clock.
    Real,
}

/// A current-thread runtime for `clock`. The virtual one enables only timers (real sockets
/// would let wall-clock events into a virtual run); the real one enables timers and I/O.
pub fn build_runtime(clock: Clock) -> io::Result<tokio::runtime::Runtime> {
    let mut builder = tokio::runtime::Builder::new_current_thread();
    match clock {
        Clock::Virtual => builder.enable_time().start_paused(true),
        Clock::Real => builder.enable_all(),
    };
    builder.build()
}

/// A current-thread runtime with tokio's clock paused (quinn's `TokioRuntime` reads the same
/// clock, so quinn follows virtual time too).
pub fn virtual_runtime() -> io::Result<tokio::runtime::Runtime> {
    build_runtime(Clock::Virtual)
}

/// A current-thread runtime on the wall clock, with I/O enabled (for the UDP relay).
pub fn real_runtime() -> io::Result<tokio::runtime::Runtime> {
    build_runtime(Clock::Real)
}
