//! The decisions: which rule ran ([`ManetDecision`]), what a round measured ([`RoundInput`]) and
//! the value a pure decision function returns and [`Manet::apply`] applies ([`Decision`]).

use std::time::Duration;

use cc_core::{RoundRtt, Window};

use super::Manet;
use super::backlog_bound::Growth;
use super::drain_round::Schedule;
use super::mode::{ManetPhase, Mode};

/// Which rule ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ManetDecision {
    /// Vegas' slow-start exit: the round's backlog exceeded 1 packet; the window is cut to the
    /// backlog-free window plus one packet and growth becomes CUBIC's from there.
    SlowStartExit,
    /// `Diff < alpha`: the window may grow this round.
    Grow,
    /// `alpha <= Diff <= beta`: it holds.
    Hold,
    /// `Diff > beta`: one packet less.
    Decrease,
    /// After `competitive_rounds` rounds with a standing queue, or with an expired base RTT: the
    /// window is set to the backlog-free window `cwnd - Diff` for one round, which drains a
    /// queue this flow built.
    DrainRound,
    /// The first round after a drain round's cut: its packets were sent at the old window, so
    /// the window stays cut and the next round is the one measured.
    DrainSettle,
    /// The drain round's queue drained (it lost at least a quarter of its delay) or lay within
    /// the path's jitter (`competitive_mode_jitter`): no other flow's; the window goes back to its value before the cut (`probe_restore`), and the
    /// next drain round waits twice as long (`probe_backoff_max`).
    Drained,
    /// The drain round's queue kept three quarters of its delay or more: another flow's, or an
    /// outdated base RTT; the bound is lifted.
    EnterCompetitive,
    /// In competitive mode: growth is CUBIC's.
    Competitive,
    /// The queueing delay fell to a tenth of its recent maximum: the bound applies again.
    LeaveCompetitive,
    /// `rate_check`: after rounds the bound held or decreased, the window grows by a quarter
    /// for a trial of the rate it delivers.
    RateTrial,
    /// The first round after the trial's growth: its packets were sent at the old window.
    RateTrialSettle,
    /// The trial's rate grew with the window and its standing queue did not
    /// (`rate_check_standing_queue`): the delay the bound read was not this flow's queue; the
    /// window keeps its gain and that delay becomes an allowance.
    RateGrew,
    /// The trial's rate did not grow, or its standing queue did: the reading is confirmed, the
    /// window returns.
    RateFlat,
    /// A slow start the rate leads (`rate_check_slow_start`) found the rate flat for three
    /// rounds: the pipe is full; the window falls to what the pipe holds at the largest rate.
    FullPipe,
    /// `queue_free_loss`: a loss with no backlog of this flow's behind it keeps the window.
    QueueFreeLoss,
    /// A round without a usable RTT sample, or the bound off: no decision.
    NoSample,
    /// A round that ended inside a recovery period: no decision.
    InRecovery,
    /// A loss: `ssthresh = max(0.7 cwnd, BWE x BaseRTT)` (with the Westwood+ floor), the
    /// window cut to it.
    Loss,
    /// Persistent congestion (the timeout): the minimum window, a new base RTT.
    Timeout,
}

impl ManetDecision {
    /// A stable name for tracing.
    pub fn name(self) -> &'static str {
        match self {
            Self::SlowStartExit => "slow_start_exit",
            Self::Grow => "grow",
            Self::Hold => "hold",
            Self::Decrease => "decrease",
            Self::DrainRound => "drain_round",
            Self::DrainSettle => "drain_settle",
            Self::Drained => "drained",
            Self::EnterCompetitive => "enter_competitive",
            Self::Competitive => "competitive",
            Self::LeaveCompetitive => "leave_competitive",
            Self::RateTrial => "rate_trial",
            Self::RateTrialSettle => "rate_trial_settle",
            Self::RateGrew => "rate_grew",
            Self::RateFlat => "rate_flat",
            Self::FullPipe => "full_pipe",
            Self::QueueFreeLoss => "queue_free_loss",
            Self::NoSample => "no_sample",
            Self::InRecovery => "in_recovery",
            Self::Loss => "loss",
            Self::Timeout => "timeout",
        }
    }
}

/// What a round measured, gathered when it ends and before anything is decided.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct RoundInput {
    /// When the round ended (the ACK frame that ended it).
    pub now: cc_core::Instant,
    /// The round's RTTs, if it had samples.
    pub round: Option<RoundRtt>,
    /// The window the packets whose samples ended the round were sent at, bytes
    /// (`empty_queue_css`).
    pub measured_cwnd: u64,
    /// Bytes the round acknowledged (`rate_check`).
    pub delivered: u64,
    /// Bytes declared lost in the round (`rate_check_loss_backoff`).
    pub lost: u64,
    /// The round's delivery rate, bytes per second: `delivered` over its mean RTT, if it had
    /// both (`rate_check`).
    pub rate: Option<u64>,
}

/// The round's backlog reading, recorded by [`Manet::apply`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Reading {
    /// Vegas' `Diff`, packets.
    pub diff: f64,
    /// The queueing delay, round minimum minus base RTT.
    pub delay: Duration,
    /// The round's RTT spread, mean minus minimum (`queue_free_loss_spread`).
    pub spread: Duration,
}

/// How CUBIC's epoch restarts after a decision.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum CubicRestart {
    /// It carries on.
    Keep,
    /// From the new window, without a reduction (`CubicGrowth::start_at`).
    StartAt,
    /// After a reduction (`CubicGrowth::on_reduction`, from the window before it).
    Reduction,
}

/// A decision and everything it changes, made by a pure function ([`Manet::decide_round`],
/// [`Manet::decide_loss`]) and applied by [`Manet::apply`] alone. The state fields are the
/// values after the decision.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Decision {
    /// The rule taken.
    pub rule: ManetDecision,
    /// The round's backlog reading, to record, if it had one.
    pub reading: Option<Reading>,
    /// The window (cwnd and ssthresh) after it, if it changes.
    pub window: Option<Window>,
    /// CUBIC's epoch.
    pub cubic: CubicRestart,
    /// Whether Reno's byte counter restarts.
    pub reno_reset: bool,
    /// Whether the base RTT is forgotten (the next sample starts a new one).
    pub forget_base: bool,
    /// The phase after it.
    pub phase: ManetPhase,
    /// The mode after it.
    pub mode: Mode,
    /// The growth the next ACKs may take.
    pub growth: Growth,
    /// The drain rounds' schedule after it.
    pub schedule: Schedule,
    /// The rate checks' schedule after it (`rate_check`).
    pub rate_schedule: Schedule,
    /// `rate_check`'s allowance after it, nanoseconds.
    pub rate_allowance_ns: u64,
    /// Whether the last rate trial found room, after it.
    pub rate_room: bool,
    /// `empty_queue_css`'s clear window after it, bytes.
    pub clear_cwnd: u64,
    /// `jitter_allowance`'s allowance after it, nanoseconds.
    pub jitter_ns: u64,
}

impl Decision {
    /// `rule`, changing nothing.
    pub fn keep(manet: &Manet, rule: ManetDecision) -> Self {
        Self {
            rule,
            reading: None,
            window: None,
            cubic: CubicRestart::Keep,
            reno_reset: false,
            forget_base: false,
            phase: manet.phase,
            mode: manet.mode,
            growth: manet.growth,
            schedule: manet.schedule,
            rate_schedule: manet.rate_schedule,
            rate_allowance_ns: manet.rate_allowance_ns,
            rate_room: manet.rate_room,
            clear_cwnd: manet.clear.clear_cwnd,
            jitter_ns: manet.jitter_ns,
        }
    }

    /// Forgets the base RTT, and what was measured against it.
    pub fn forget_base(&mut self) {
        self.forget_base = true;
        self.clear_cwnd = 0;
        self.jitter_ns = 0;
        self.rate_allowance_ns = 0;
        self.rate_room = false;
    }

    /// Ends slow start at `window` by `rule`: congestion avoidance, CUBIC's epoch and Reno's
    /// count starting there.
    pub fn leave_slow_start(&mut self, window: Window, rule: ManetDecision) {
        self.window = Some(window);
        self.phase = ManetPhase::CongestionAvoidance;
        self.cubic = CubicRestart::StartAt;
        self.reno_reset = true;
        self.rule = rule;
    }

    /// Whether the round's standing queue lay within its RTT spread or the decision's jitter
    /// allowance (`queue_free_loss_spread`'s reading); false without a reading.
    pub fn queue_within_spread(&self) -> bool {
        self.reading.is_some_and(|r| {
            super::queue_free_loss::queue_within_spread_or_jitter(
                r.delay,
                r.spread,
                Duration::from_nanos(self.jitter_ns),
            )
        })
    }

    /// Sets the window to `cwnd` bytes (ssthresh as in `window`), with CUBIC's epoch starting
    /// there: a window set outright, not grown to.
    pub fn restart_window(&mut self, window: &Window, cwnd: u64) {
        let mut window = window.clone();
        window.set_cwnd(cwnd);
        self.window = Some(window);
        self.cubic = CubicRestart::StartAt;
    }

    /// The window after the decision, `before` when it does not change it.
    #[cfg(test)]
    pub fn cwnd_after(&self, before: u64) -> u64 {
        self.window.as_ref().map_or(before, Window::cwnd)
    }
}
