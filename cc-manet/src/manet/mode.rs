//! The composite's state machine: the phase (slow start or congestion avoidance) and, in
//! congestion avoidance, Copa's mode with the drain round between them.
//!
//! ```text
//!                  timeout (from anywhere)
//!                          |
//!                          v
//!   SlowStart ---(ssthresh, slow_start_exit, loss)---> CongestionAvoidance
//!
//!   In congestion avoidance:
//!
//!   Delay --(held `interval` rounds: rate_check)--> RateTrial: Settling -> Measuring
//!     ^  ^                                               |       |
//!     |  +------------- the rate did not grow -----------+       | the rate grew
//!     |                                                          v
//!     +--- 3 rounds without 1.25x the rate, or a loss --- RateStartup (slow start;
//!                                                         rate_check_slow_start)
//!
//!            standing queue for `interval` rounds,
//!            or an expired base RTT
//!   +-------+ ---------------------------------> +----------+
//!   | Delay |                                    | Draining | Settling -> Measuring
//!   +-------+ <--------------------------------- +----------+
//!       ^          the queue drained: own                |
//!       |                                                | the delay stayed: a competitor's
//!       |   delay under a tenth of its recent max   +-------------+
//!       +------------------------------------------ | Competitive | <--+
//!                                                   +-------------+
//! ```

use super::bdp_cap::Cap;
use super::drain_round::DrainRound;
use super::rate_check::RateTrial;
use super::rate_startup::RateStartup;

/// Slow start or congestion avoidance.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ManetPhase {
    /// Byte-counting slow start, left at ssthresh, by Vegas' exit (`slow_start_exit`) or at a
    /// loss.
    SlowStart,
    /// CUBIC's (or Reno's) growth, gated by the backlog bound.
    CongestionAvoidance,
}

/// Copa's two modes (Arun and Balakrishnan, NSDI 2018, section 2.2), as the controller reports
/// them: a drain round runs in delay mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ManetMode {
    /// The backlog bound gates growth: the queue is this flow's own.
    Delay,
    /// The queue did not drain as the bound shrank the window: another flow's, or an outdated
    /// base RTT. Growth is CUBIC's alone until the queue is nearly empty.
    Competitive,
}

/// The mode with its state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// The backlog bound gates growth, and `bdp_cap` applies where armed.
    Delay(Cap),
    /// A drain round is under way (in delay mode).
    Draining(DrainRound),
    /// A rate trial is under way (in delay mode, `rate_check`).
    RateTrial(RateTrial),
    /// Slow start, ended by the delivery rate (`rate_check_slow_start`).
    RateStartup(RateStartup),
    /// The bound is lifted (`competitive_mode`).
    Competitive,
}

impl Mode {
    /// The mode after a round or a congestion event that `lost` packets: a rate trial under
    /// way records it (`rate_check_loss_backoff`).
    pub fn with_trial_loss(self, lost: bool) -> Self {
        match self {
            Mode::RateTrial(trial) => Mode::RateTrial(trial.after_loss(lost)),
            // A cut ends slow start, and with it the rate's lead.
            Mode::RateStartup(startup) if lost => Mode::Delay(startup.cap),
            mode => mode,
        }
    }

    /// The mode as [`ManetMode`] reports it.
    pub fn public(self) -> ManetMode {
        match self {
            Self::Delay(_) | Self::Draining(_) | Self::RateTrial(_) | Self::RateStartup(_) => {
                ManetMode::Delay
            }
            Self::Competitive => ManetMode::Competitive,
        }
    }

    /// Whether `bdp_cap` is armed (during a drain round: whether it was when the round began).
    pub fn cap(self) -> Cap {
        match self {
            Self::Delay(cap) => cap,
            Self::Draining(drain) => drain.cap,
            Self::RateTrial(trial) => trial.cap,
            Self::RateStartup(startup) => startup.cap,
            Self::Competitive => Cap::Unarmed,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_loss_ends_a_startup_and_keeps_its_cap() {
        let startup = Mode::RateStartup(RateStartup::new(
            1_000_000,
            std::time::Duration::from_millis(10),
            Cap::Armed,
        ));
        assert_eq!(startup.with_trial_loss(false), startup);
        assert_eq!(startup.with_trial_loss(true), Mode::Delay(Cap::Armed));
        assert_eq!(startup.public(), ManetMode::Delay);
    }
}
