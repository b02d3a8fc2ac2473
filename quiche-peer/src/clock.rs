//! quiche reads the wall clock; runs with a quiche endpoint need netsim's real-time mode.

use std::time::Duration;

use netsim::Clock;

use crate::error::Error;

/// Refuses virtual time for a run that involves quiche.
///
/// quiche takes every timestamp from `std::time::Instant::now()` (its API has no clock
/// injection), so on netsim's virtual (paused tokio) clock its RTT samples, timers and pacing
/// would disagree with the link. Call this with the run's clock before building the runtime.
pub fn check_clock(clock: Clock) -> Result<(), Error> {
    match clock {
        Clock::Real => Ok(()),
        Clock::Virtual => Err(Error::VirtualTimeUnsupported),
    }
}

/// True if the current tokio runtime's clock is paused (netsim's virtual time).
///
/// A paused tokio clock only moves when the runtime is idle, never while a task runs, so the
/// check sleeps the thread for 2 ms and looks whether tokio's clock moved with the wall clock.
/// Outside a runtime tokio's clock is the wall clock, so this returns false.
pub fn runtime_clock_is_paused() -> bool {
    const PROBE: Duration = Duration::from_millis(2);
    let start = tokio::time::Instant::now();
    std::thread::sleep(PROBE);
    start.elapsed() < PROBE / 2
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn virtual_clock_is_refused_and_detected() {
        assert!(matches!(
            check_clock(Clock::Virtual),
            Err(Error::VirtualTimeUnsupported)
        ));
        assert!(check_clock(Clock::Real).is_ok());
        let paused = netsim::virtual_runtime()
            .unwrap()
            .block_on(async { runtime_clock_is_paused() });
        assert!(paused);
        let real = netsim::real_runtime()
            .unwrap()
            .block_on(async { runtime_clock_is_paused() });
        assert!(!real);
    }
}
