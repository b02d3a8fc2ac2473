//! The composite: its state, the per-round decision and the one place that applies it.
//!
//! Each mechanism lives in its own module, named by its knob, with its state and its pure
//! rules; this module gathers a round's measurements ([`RoundInput`]), asks
//! [`Manet::decide_round`] (pure: it reads the state and returns a [`Decision`]) and hands the
//! decision to [`Manet::apply`], the only code that changes the window on a round's end or a
//! loss. Per-ACK growth ([`Manet`]'s `on_ack`) follows the growth the last decision allowed.

mod backlog_bound;
mod base_rtt;
mod bdp_cap;
mod competitive_mode;
mod cubic_growth;
mod decision;
mod drain_round;
mod empty_queue_css;
mod jitter_allowance;
mod mode;
mod queue_free_loss;
mod rate_check;
mod rate_startup;
mod slow_start_exit;
mod veno_random_loss;
mod westwood_floor;

#[cfg(test)]
mod properties;

use std::sync::Arc;
use std::time::Duration;

use cc_core::{
    AckRoundEnd, AckSample, CongestionAlgorithm, CongestionEvent, LossSignal, RecoveryEpoch,
    RenoGrowth, RoundCounter, RttRounds, TimeoutReading, VegasBacklog, WestwoodPlusEstimator,
    Window,
};

use crate::ManetConfig;
use backlog_bound::Growth;
use bdp_cap::Cap;
use competitive_mode::{RecentDelays, Verdict};
use cubic_growth::CubicGrowth;
pub use decision::ManetDecision;
use decision::{CubicRestart, Decision, Reading, RoundInput};
use drain_round::{DrainRound, Purpose, Schedule};
use empty_queue_css::ClearWindow;
use mode::Mode;
pub use mode::{ManetMode, ManetPhase};
use queue_free_loss::RoundLoss;
use rate_check::RateTrial;
use rate_startup::RateStartup;

/// The composite: CUBIC's growth, gated once per round trip by a Vegas backlog bound that Copa's
/// mode switch lifts beside buffer-filling flows, and loss cuts floored by a Westwood+ estimate.
#[derive(Debug, Clone, PartialEq)]
pub struct Manet {
    config: Arc<ManetConfig>,
    window: Window,
    bwe: WestwoodPlusEstimator,
    rtt: RttRounds,
    rounds: RoundCounter,
    cubic: CubicGrowth,
    reno: RenoGrowth,
    recovery: RecoveryEpoch,
    phase: ManetPhase,
    mode: Mode,
    /// Whether and how the window may grow on this round's ACKs (`backlog_bound`).
    growth: Growth,
    /// The windows `empty_queue_css` measures against.
    clear: ClearWindow,
    /// When the next drain round for Copa's test runs (`competitive_mode`).
    schedule: Schedule,
    /// When the next rate trial runs (`rate_check`): rounds the bound held or decreased.
    rate_schedule: Schedule,
    /// The RTT excess a rate trial found not to be this flow's queue, nanoseconds: the bound
    /// no longer reads it as backlog (`rate_check`); zero until a trial finds one, and after a
    /// new base RTT.
    rate_allowance_ns: u64,
    /// Whether the last rate trial found the pipe with room (its rate grew with the window):
    /// until a trial finds it flat, a loss is not read as this flow's overflow
    /// (`queue_free_loss`).
    rate_room: bool,
    /// Bytes acknowledged in the round under way (`rate_check`).
    round_acked: u64,
    /// Bytes declared lost in the round under way (`queue_free_loss`, `rate_check_loss_backoff`).
    round_lost: u64,
    /// Loss events (congestion events) in the round under way, saturating
    /// (`queue_free_loss_events`).
    round_loss_events: u8,
    /// Bytes the last completed round acknowledged (`queue_free_loss`).
    last_delivered: u64,
    /// The last rounds' queueing delays (`competitive_mode`).
    recent: RecentDelays,
    /// Bytes the current ACK frame newly acknowledged.
    frame_acked: u64,
    /// The window when the current round began, bytes (Vegas' `Actual` is what was sent over
    /// it).
    round_start_cwnd: u64,
    /// Whether the latest acknowledged packet was sent before the current recovery period began.
    in_recovery: bool,
    last_decision: Option<ManetDecision>,
    /// The latest round's backlog `Diff`, packets, once `has_diff` ([`Self::last_diff`]); a
    /// value and a flag, not an `Option`, whose tag would pad to 8 bytes where the flag packs
    /// with the other one-byte fields.
    last_diff: f64,
    /// Whether a round has measured `last_diff`.
    has_diff: bool,
    /// Whether the last round's standing queue lay within its RTT spread or the jitter
    /// allowance (`queue_free_loss_spread`).
    last_queue_within_spread: bool,
    /// When the base RTT was last set (a sample at or below it; `refresh_base_rtt`).
    base_stamp: Option<cc_core::Instant>,
    /// The round RTT spread (mean minus minimum) that the last drain round did not remove,
    /// nanoseconds: path jitter, not backlog (`jitter_allowance`); zero when the drain removed
    /// it or with the knob off.
    jitter_ns: u64,
}

impl Manet {
    /// A controller at the start of a connection whose datagrams are `mtu` bytes.
    pub fn new(config: impl Into<Arc<ManetConfig>>, mtu: u16) -> Self {
        let config = config.into();
        let window = Window::new(config.initial_window_packets(), mtu);
        let schedule = Schedule::first(&config);
        Self {
            round_start_cwnd: window.cwnd(),
            clear: ClearWindow {
                sent_cwnd: window.cwnd(),
                clear_cwnd: 0,
            },
            config,
            window,
            bwe: WestwoodPlusEstimator::new(),
            rtt: RttRounds::default(),
            rounds: RoundCounter::default(),
            cubic: CubicGrowth::default(),
            reno: RenoGrowth::default(),
            recovery: RecoveryEpoch::default(),
            phase: ManetPhase::SlowStart,
            mode: Mode::Delay(Cap::Unarmed),
            growth: Growth::Allowed,
            frame_acked: 0,
            in_recovery: false,
            schedule,
            rate_schedule: schedule,
            rate_allowance_ns: 0,
            rate_room: false,
            round_acked: 0,
            round_lost: 0,
            round_loss_events: 0,
            last_delivered: 0,
            recent: RecentDelays::default(),
            last_decision: None,
            last_diff: 0.0,
            has_diff: false,
            last_queue_within_spread: false,
            base_stamp: None,
            jitter_ns: 0,
        }
    }

    /// The current phase.
    pub fn phase(&self) -> ManetPhase {
        self.phase
    }

    /// The current mode (a drain round runs in delay mode).
    pub fn mode(&self) -> ManetMode {
        self.mode.public()
    }

    /// Whether a drain round is under way.
    pub fn draining(&self) -> bool {
        matches!(self.mode, Mode::Draining(_))
    }

    /// The latest decision taken.
    pub fn last_decision(&self) -> Option<ManetDecision> {
        self.last_decision
    }

    /// The latest round's backlog `Diff`, packets.
    pub fn last_diff(&self) -> Option<f64> {
        self.has_diff.then_some(self.last_diff)
    }

    /// The base RTT (the minimum sample since the start or the last timeout).
    pub fn base_rtt(&self) -> Option<Duration> {
        self.rtt.base()
    }

    /// Whether the last drain round found the round's delay to be this flow's own (or the
    /// path's jitter, `competitive_mode_jitter`), so that `bdp_cap`'s cap applies.
    pub fn delay_owned(&self) -> bool {
        self.mode.cap() == Cap::Armed
    }

    /// The round RTT spread the last drain round did not remove, which the bound no longer
    /// reads as backlog (`jitter_allowance`; zero when the drain removed it).
    pub fn jitter_allowance(&self) -> Duration {
        Duration::from_nanos(self.jitter_ns)
    }

    /// The RTT excess a rate trial found not to be this flow's queue, which the bound no
    /// longer reads as backlog (`rate_check`; zero until a trial finds one).
    pub fn rate_allowance(&self) -> Duration {
        Duration::from_nanos(self.rate_allowance_ns)
    }

    /// Whether a rate trial is under way (`rate_check`).
    pub fn rate_trial_running(&self) -> bool {
        matches!(self.mode, Mode::RateTrial(_))
    }

    /// Rounds completed.
    pub fn rounds(&self) -> u64 {
        self.rounds.rounds()
    }

    /// The window in datagrams, as CUBIC counts it.
    fn cwnd_packets(&self) -> f64 {
        self.window.cwnd() as f64 / self.window.mtu() as f64
    }

    /// The cut on a loss: CUBIC's `0.7 x cwnd` (Veno's `0.8 x cwnd` when the last round's
    /// backlog was under `beta`, with `veno_random_loss`), floored by the Westwood+ estimate of
    /// the backlog-free window with `westwood_floor`, never above the window.
    pub fn loss_ssthresh(&self) -> u64 {
        let cwnd = self.window.cwnd();
        let random = self.config.veno_random_loss()
            && veno_random_loss::is_random(self.last_diff(), self.config.beta());
        let cut = cc_core::scale(cwnd, veno_random_loss::decrease_factor(random));
        let floor = if self.config.westwood_floor() {
            westwood_floor::floor(&self.bwe, self.rtt.base())
        } else {
            0
        };
        westwood_floor::ssthresh(cut, floor, cwnd)
    }

    /// Ends a round at `now` (the ACK frame that ended it): the backlog bound's decision and
    /// Copa's mode switch.
    pub fn on_round_end(&mut self, now: cc_core::Instant) -> ManetDecision {
        let input = self.end_round(now);
        let decision = self.decide_round(&input);
        self.apply(&decision);
        self.round_start_cwnd = self.window.cwnd();
        if decision.rule != ManetDecision::NoSample {
            self.last_decision = Some(decision.rule);
            self.trace(decision.rule, None);
            if let (Some(reading), Some(round)) = (decision.reading, input.round) {
                trace_round(decision.rule, reading, round.samples);
            }
        }
        decision.rule
    }

    /// Closes the round's measurements: its RTTs, and the window its samples were sent at.
    fn end_round(&mut self, now: cc_core::Instant) -> RoundInput {
        // The samples that end a round are of the packets sent in the round before it.
        let measured_cwnd = std::mem::replace(&mut self.clear.sent_cwnd, self.window.cwnd());
        let delivered = std::mem::take(&mut self.round_acked);
        self.last_delivered = delivered;
        let lost = std::mem::take(&mut self.round_lost);
        self.round_loss_events = 0;
        let round = self.rtt.end_round();
        RoundInput {
            now,
            round,
            measured_cwnd,
            delivered,
            lost,
            rate: round.and_then(|round| rate_check::delivery_rate(delivered, round.mean)),
        }
    }

    /// The round's decision, from its measurements and the state; changes nothing.
    pub(crate) fn decide_round(&self, input: &RoundInput) -> Decision {
        let mut d = Decision::keep(self, ManetDecision::NoSample);
        d.growth = self.growth.at_round_end();
        let c = &*self.config;
        if !c.backlog_bound() {
            d.growth = Growth::Allowed;
            return d;
        }
        if self.in_recovery {
            d.rule = ManetDecision::InRecovery;
            d.mode = self.mode.with_trial_loss(input.lost > 0);
            return d;
        }
        let mtu = self.window.mtu();
        let (Some(round), Some(base)) = (input.round, self.rtt.base()) else {
            return d;
        };
        let spread = round.mean.saturating_sub(round.min);
        let round_rtt = jitter_allowance::round_rtt(
            round,
            Duration::from_nanos(self.jitter_ns.max(self.rate_allowance_ns)),
            c.mean_round_rtt(),
        );
        let Some(backlog) = VegasBacklog::new(self.round_start_cwnd, mtu, base, round_rtt) else {
            return d;
        };
        // Copa's standing queue (section 2.1: the smallest RTT over a recent window) for the
        // mode switch: the queue a competitor holds shows in every sample.
        let delay = round.min.saturating_sub(base);
        let recent_max = self.recent.max();
        let diff = backlog.diff_packets;
        d.reading = Some(Reading {
            diff,
            delay,
            spread,
        });
        if self.phase == ManetPhase::SlowStart {
            if let Mode::RateStartup(startup) = self.mode {
                return self.decide_startup(d, startup, input);
            }
            if c.slow_start_exit() && slow_start_exit::exits(diff) {
                d.leave_slow_start(
                    slow_start_exit::exit_window(&self.window, backlog.target_bytes),
                    ManetDecision::SlowStartExit,
                );
            } else {
                d.rule = ManetDecision::Grow;
            }
            return d;
        }
        let cap = match self.mode {
            Mode::Draining(drain) => return self.decide_drain(d, drain, delay, spread),
            Mode::RateTrial(trial) => return self.decide_trial(d, trial, input),
            Mode::Competitive => {
                d.growth = Growth::Allowed;
                if competitive_mode::leaves(
                    delay,
                    recent_max,
                    self.competitive_jitter(self.jitter_ns),
                    diff,
                    c.beta(),
                    c.leave_competitive_under_beta(),
                ) {
                    d.mode = Mode::Delay(Cap::Unarmed);
                    d.schedule = Schedule::first(c);
                    d.rule = ManetDecision::LeaveCompetitive;
                } else {
                    d.rule = ManetDecision::Competitive;
                }
                return d;
            }
            // Congestion avoidance ends a startup (`enter_avoidance`); its cap carries over.
            Mode::Delay(cap) | Mode::RateStartup(RateStartup { cap, .. }) => cap,
        };
        if base_rtt::expired(self.base_stamp, input.now, c.refresh_base_rtt()) {
            // The base is re-measured in a drain round, with this flow's own queue drained
            // (BBR's ProbeRTT state); a window too small to drain a datagram holds no queue
            // worth draining.
            if let Some(d) = self.start_drain(
                d.clone(),
                &backlog,
                delay,
                spread,
                Purpose::BaseRefresh,
                cap,
            ) {
                return d;
            }
            d.forget_base();
        }
        let cap_bytes = (c.bdp_cap() && cap == Cap::Armed)
            .then(|| bdp_cap::cap(self.round_start_cwnd, mtu, base, round_rtt));
        let over_cap = |bytes: u64| cap_bytes.is_some_and(|cap| bytes > cap);
        let at_cap = over_cap(self.round_start_cwnd.saturating_add(mtu));
        d.schedule.queued_rounds =
            if drain_round::standing_queue(diff, c.alpha(), delay, base, at_cap) {
                d.schedule.queued_rounds.saturating_add(1)
            } else {
                0
            };
        if c.competitive_mode()
            && d.schedule.queued_rounds >= d.schedule.interval
            && let Some(d) = self.start_drain(
                d.clone(),
                &backlog,
                delay,
                spread,
                Purpose::CompetingQueue,
                cap,
            )
        {
            return d;
        }
        d.rule = backlog_bound::rule(
            diff,
            c.alpha(),
            c.beta(),
            at_cap,
            over_cap(self.round_start_cwnd),
        );
        let held = matches!(d.rule, ManetDecision::Decrease | ManetDecision::Hold)
            && rate_check::trials_at(self.window.cwnd(), mtu, c.beta());
        d.rate_schedule.queued_rounds = if held && c.rate_check() {
            d.rate_schedule.queued_rounds.saturating_add(1)
        } else {
            0
        };
        if d.rate_schedule.queued_rounds >= d.rate_schedule.interval
            && let Some(d) = self.start_trial(d.clone(), input, round, base, cap)
        {
            return d;
        }
        match d.rule {
            ManetDecision::Decrease => {
                let window = backlog_bound::decreased(&self.window);
                d.clear_cwnd = d.clear_cwnd.min(window.cwnd());
                d.window = Some(window);
                d.cubic = CubicRestart::StartAt;
                d.growth = Growth::Held;
            }
            ManetDecision::Hold => {
                d.clear_cwnd = d.clear_cwnd.min(self.window.cwnd());
                d.growth = Growth::Held;
            }
            _ => {
                let verdict = empty_queue_css::after_growing_round(
                    diff,
                    self.window.cwnd(),
                    input.measured_cwnd,
                    mtu,
                    d.clear_cwnd,
                );
                d.clear_cwnd = verdict.clear_cwnd;
                d.growth = if verdict.conservative {
                    Growth::Conservative
                } else {
                    Growth::Allowed
                };
            }
        }
        d
    }

    /// The jitter allowance `jitter_ns` as Copa's switch reads it (`competitive_mode_jitter`;
    /// zero with the knob off).
    fn competitive_jitter(&self, jitter_ns: u64) -> Duration {
        if self.config.competitive_mode_jitter() {
            Duration::from_nanos(jitter_ns)
        } else {
            Duration::ZERO
        }
    }

    /// A drain round's start, where the cut would remove a datagram: the window is cut to the
    /// backlog-free window, so that Copa's test (section 2.2: does the queue empty now and
    /// then?) has a queue that could; a Vegas window holds a steady one.
    fn start_drain(
        &self,
        mut d: Decision,
        backlog: &VegasBacklog,
        delay: Duration,
        spread: Duration,
        purpose: Purpose,
        cap: Cap,
    ) -> Option<Decision> {
        let drained = drain_round::drained_window(
            backlog.target_bytes,
            purpose,
            delay,
            self.window.cwnd(),
            self.window.mtu(),
        )?;
        d.restart_window(&self.window, drained);
        d.mode = Mode::Draining(DrainRound {
            start_delay_ns: cc_core::saturating_ns(delay),
            start_spread_ns: cc_core::saturating_ns(spread),
            prior_cwnd: self.window.cwnd(),
            phase: drain_round::Phase::Settling,
            purpose,
            cap,
        });
        d.growth = Growth::Held;
        d.schedule.queued_rounds = 0;
        d.rule = ManetDecision::DrainRound;
        Some(d)
    }

    /// A rate trial's start (`rate_check`): the window grows by [`rate_check::TRIAL_GAIN`], and
    /// the round's delivery rate and RTT excess are kept to judge it by.
    fn start_trial(
        &self,
        mut d: Decision,
        input: &RoundInput,
        round: cc_core::RoundRtt,
        base: Duration,
        cap: Cap,
    ) -> Option<Decision> {
        let start_rate = input.rate?;
        d.restart_window(
            &self.window,
            rate_check::trial_window(self.window.cwnd(), self.window.mtu()),
        );
        d.mode = Mode::RateTrial(RateTrial {
            start_rate,
            start_excess_ns: cc_core::saturating_ns(round.mean.saturating_sub(base)),
            start_min_ns: cc_core::saturating_ns(round.min),
            start_spread_ns: cc_core::saturating_ns(round.mean.saturating_sub(round.min)),
            prior_cwnd: self.window.cwnd(),
            phase: rate_check::Phase::Settling,
            cap,
            lost: false,
        });
        d.growth = Growth::Held;
        d.rate_schedule.queued_rounds = 0;
        d.rule = ManetDecision::RateTrial;
        Some(d)
    }

    /// A round of a slow start the rate leads (`rate_check_slow_start`): ended by three
    /// rounds without a quarter more rate, at what the pipe holds at the largest rate
    /// (BBR's Drain target: the startup's own queue goes).
    fn decide_startup(
        &self,
        mut d: Decision,
        startup: RateStartup,
        input: &RoundInput,
    ) -> Decision {
        let Some(rate) = input.rate else {
            return d;
        };
        let startup = startup.after_round(rate);
        if !startup.pipe_full() {
            d.mode = Mode::RateStartup(startup);
            d.rule = ManetDecision::Grow;
            return d;
        }
        let mut window = self.window.clone();
        window.set_cwnd(self.window.cwnd().min(startup.pipe()));
        backlog_bound::ssthresh_below_cwnd(&mut window);
        d.leave_slow_start(window, ManetDecision::FullPipe);
        d.mode = Mode::Delay(startup.cap);
        d
    }

    /// A round during a rate trial: the first settles; the second is measured, and the trial
    /// judged by its delivery rate.
    fn decide_trial(&self, mut d: Decision, trial: RateTrial, input: &RoundInput) -> Decision {
        d.growth = Growth::Held;
        let trial = trial.after_loss(input.lost > 0);
        if trial.phase == rate_check::Phase::Settling {
            d.mode = Mode::RateTrial(RateTrial {
                phase: rate_check::Phase::Measuring,
                ..trial
            });
            d.rule = ManetDecision::RateTrialSettle;
            return d;
        }
        d.mode = Mode::Delay(trial.cap);
        let grew = input.round.zip(input.rate).is_some_and(|(round, rate)| {
            rate_check::grew(trial.start_rate, rate, trial.prior_cwnd, self.window.cwnd())
                && (!self.config.rate_check_standing_queue()
                    || trial.kept_standing_queue(round.min, self.window.mtu()))
        });
        if grew {
            // The pipe had room: the next round the bound holds trials again, so that the
            // window climbs by the trial's gain every few rounds while the rate follows it
            // (BBR's startup, which grows while the delivery rate does).
            d.rate_allowance_ns = d.rate_allowance_ns.max(trial.start_excess_ns);
            d.rate_room = true;
            d.rate_schedule = Schedule {
                queued_rounds: 0,
                interval: 1,
            };
            // A standing queue beyond the round's spread is some flow's, which a slow start
            // would take its share from; one within it, or none, is jitter over an idle pipe.
            if self.config.rate_check_slow_start()
                && d.queue_within_spread()
                && let (Some(rate), Some(round)) = (input.rate, input.round)
            {
                // The slow-start exit, or the bound, misread: slow start again, which the
                // rate ends.
                let mut window = self.window.clone();
                window.set_ssthresh(cc_core::MAX_WINDOW);
                d.window = Some(window);
                d.phase = ManetPhase::SlowStart;
                d.mode = Mode::RateStartup(RateStartup::new(rate, round.mean, trial.cap));
            }
            d.rule = ManetDecision::RateGrew;
        } else {
            d.restart_window(&self.window, self.window.cwnd().min(trial.prior_cwnd));
            if rate_check::backs_off(self.config.rate_check_loss_backoff(), trial.lost) {
                d.rate_schedule.interval =
                    drain_round::backed_off(d.rate_schedule.interval, &self.config);
            }
            d.rate_room = false;
            d.rule = ManetDecision::RateFlat;
        }
        d
    }

    /// A round during a drain: the first settles; the second is judged by Copa's test, from the
    /// queueing delay of the first round sent at the drained window.
    fn decide_drain(
        &self,
        mut d: Decision,
        drain: DrainRound,
        delay: Duration,
        spread: Duration,
    ) -> Decision {
        let c = &*self.config;
        if drain.phase == drain_round::Phase::Settling {
            d.mode = Mode::Draining(DrainRound {
                phase: drain_round::Phase::Measuring,
                ..drain
            });
            if drain.purpose == Purpose::BaseRefresh {
                d.forget_base();
            }
            d.growth = Growth::Held;
            d.rule = ManetDecision::DrainSettle;
            return d;
        }
        if c.jitter_allowance() {
            d.jitter_ns = jitter_allowance::judge(drain.start_spread_ns, spread);
        }
        if c.probe_restore() {
            // BBR's ProbeRTT exit (Linux tcp_bbr.c, bbr_restore_cwnd): the drain answered its
            // question, so the window goes back to what it was instead of regrowing a datagram
            // per round.
            let restored = drain_round::restored(self.window.cwnd(), drain.prior_cwnd);
            d.restart_window(&self.window, restored);
        }
        let jitter = self.competitive_jitter(d.jitter_ns);
        match competitive_mode::judge(Duration::from_nanos(drain.start_delay_ns), delay, jitter) {
            Verdict::CompetingQueue => {
                d.mode = Mode::Competitive;
                d.schedule.interval = drain_round::first_interval(c);
                d.growth = Growth::Allowed;
                d.rule = ManetDecision::EnterCompetitive;
            }
            Verdict::OwnQueue => {
                d.mode = Mode::Delay(Cap::Armed);
                d.schedule.interval = drain_round::backed_off(d.schedule.interval, c);
                d.growth = Growth::Held;
                d.rule = ManetDecision::Drained;
            }
        }
        d
    }

    /// The reaction to a loss signal; changes nothing. Callers decide whether the event reduces
    /// the window at all (one reduction per round trip).
    pub(crate) fn decide_loss(&self, signal: LossSignal) -> Decision {
        let ssthresh = self.loss_ssthresh();
        let mut window = self.window.clone();
        if signal.is_timeout() {
            let mut d = Decision::keep(self, ManetDecision::Timeout);
            window.set_cwnd(0);
            window.set_ssthresh(ssthresh);
            d.window = Some(window);
            d.phase = ManetPhase::SlowStart;
            d.mode = Mode::Delay(Cap::Unarmed);
            d.schedule = Schedule::first(&self.config);
            d.rate_schedule = Schedule::first(&self.config);
            d.rate_room = false;
            d.growth = self.growth.opened();
            if self.config.reset_base_on_timeout() {
                d.forget_base();
            }
            d.cubic = CubicRestart::Reduction;
            d
        } else {
            let mut d = Decision::keep(self, ManetDecision::Loss);
            // A cut is a loss or an ECN mark; either ends a trial's claim to room.
            d.mode = self.mode.with_trial_loss(true);
            // A cut that ends a rate-led slow start leaves at most the pipe, as its full-pipe
            // exit does (BBR's Drain): what it sent beyond the pipe was queue, not share.
            let ssthresh = match self.mode {
                Mode::RateStartup(startup) => ssthresh.min(startup.pipe()),
                _ => ssthresh,
            };
            window.set_ssthresh(ssthresh);
            window.set_cwnd(ssthresh);
            d.window = Some(window);
            d.phase = ManetPhase::CongestionAvoidance;
            d.cubic = CubicRestart::Reduction;
            d.reno_reset = true;
            d
        }
    }

    /// Applies `d`: the one place a round's or a loss's decision changes the window and the
    /// state.
    pub(crate) fn apply(&mut self, d: &Decision) {
        let before = self.cwnd_packets();
        if let Some(reading) = d.reading {
            self.last_diff = reading.diff;
            self.has_diff = true;
            self.last_queue_within_spread = d.queue_within_spread();
            self.recent.push(reading.delay);
        }
        if d.forget_base {
            self.rtt.reset_base();
            self.base_stamp = None;
        }
        if let Some(window) = &d.window {
            self.window.set_cwnd(window.cwnd());
            self.window.set_ssthresh(window.ssthresh());
        }
        match d.cubic {
            CubicRestart::Keep => {}
            CubicRestart::StartAt => self.cubic.start_at(self.cwnd_packets()),
            CubicRestart::Reduction => self.cubic.on_reduction(before, self.cwnd_packets()),
        }
        if d.reno_reset {
            self.reno.reset();
        }
        self.phase = d.phase;
        self.mode = d.mode;
        self.growth = d.growth;
        self.schedule = d.schedule;
        self.rate_schedule = d.rate_schedule;
        self.rate_allowance_ns = d.rate_allowance_ns;
        self.rate_room = d.rate_room;
        self.clear.clear_cwnd = d.clear_cwnd;
        self.jitter_ns = d.jitter_ns;
    }

    /// Counts the ACK frame that ended at `now` into the estimates and the round under way.
    pub(crate) fn count_frame(&mut self, now: cc_core::Instant) {
        let acked = std::mem::take(&mut self.frame_acked);
        if acked > 0 {
            self.bwe.on_ack(now, acked);
        }
        self.round_acked = self.round_acked.saturating_add(acked);
        if let Mode::RateStartup(startup) = &mut self.mode {
            startup.aggregation =
                startup
                    .aggregation
                    .on_ack_frame(now, acked, startup.full_rate, self.window.cwnd());
        }
    }

    /// Counts `event` into the round under way and returns what the round has lost so far.
    pub(crate) fn record_loss(&mut self, event: &CongestionEvent) -> RoundLoss {
        self.round_lost = self.round_lost.saturating_add(event.lost_bytes);
        self.round_loss_events = self.round_loss_events.saturating_add(1);
        RoundLoss {
            bytes: self.round_lost,
            events: u64::from(self.round_loss_events),
        }
    }

    /// Whether a loss event keeps the window (`queue_free_loss`): not persistent congestion nor
    /// an ECN mark, the last round's backlog under `alpha`, the last rate trial's pipe with
    /// room or the last round's standing queue within its spread (`queue_free_loss_spread`),
    /// and this round's losses (`lost`, the event's included) not congestion: at most BBRv2's
    /// threshold of what the last round delivered, or, where the backlog read under `alpha` at
    /// a window that trials, fewer events than `queue_free_loss_events`.
    pub(crate) fn keeps_window(&self, event: &CongestionEvent, lost: RoundLoss) -> bool {
        self.config.queue_free_loss()
            && !event.persistent
            && event.signal != LossSignal::Ecn
            && queue_free_loss::keeps(
                self.last_diff(),
                self.rate_room,
                self.config.queue_free_loss_spread() && self.last_queue_within_spread,
                self.config.alpha(),
                lost,
                self.last_delivered,
                queue_free_loss::min_events(
                    self.config.queue_free_loss_events(),
                    self.last_diff().is_some_and(|d| d < self.config.alpha()),
                    rate_check::trials_at(
                        self.window.cwnd(),
                        self.window.mtu(),
                        self.config.beta(),
                    ),
                ),
            )
    }

    /// Applies the reaction to `signal`; returns the rule taken. Callers decide whether the
    /// event reduces the window at all (one reduction per round trip).
    pub fn react(&mut self, signal: LossSignal) -> ManetDecision {
        let decision = self.decide_loss(signal);
        self.apply(&decision);
        self.last_decision = Some(decision.rule);
        self.trace(decision.rule, Some(signal));
        decision.rule
    }

    fn enter_avoidance(&mut self) {
        self.phase = ManetPhase::CongestionAvoidance;
        if let Mode::RateStartup(startup) = self.mode {
            self.mode = Mode::Delay(startup.cap);
        }
        self.cubic.start_at(self.cwnd_packets());
        self.reno.reset();
    }

    fn trace(&self, decision: ManetDecision, class: Option<LossSignal>) {
        tracing::debug!(
            target: "cc",
            controller = Self::NAME,
            decision = decision.name(),
            class = class.map(|c| c.name()),
            dup_acks = class.and_then(|c| c.dup_acks()),
            cwnd = self.window.cwnd(),
            ssthresh = self.window.ssthresh(),
            diff_packets = self.last_diff(),
            competitive = self.mode == Mode::Competitive,
            bwe_bps = self.bwe.estimate().map(|b| b.bits_per_second()),
            base_rtt_us = self.rtt.base().map(|d| d.as_micros() as u64),
            jitter_us = self.jitter_ns / 1_000,
            rate_allowance_us = self.rate_allowance_ns / 1_000,
            delay_owned = self.delay_owned(),
            round = self.rounds.rounds(),
            "window decision"
        );
    }
}

/// The round's readings behind a decision at its end (at `trace`, beside the decision's own
/// event): what Copa's switch and the jitter allowance judged, for reading a run's trace.
fn trace_round(decision: ManetDecision, reading: Reading, samples: u32) {
    tracing::trace!(
        target: "cc",
        controller = Manet::NAME,
        decision = decision.name(),
        queue_delay_us = reading.delay.as_micros() as u64,
        spread_us = reading.spread.as_micros() as u64,
        samples,
        "round readings"
    );
}

impl CongestionAlgorithm for Manet {
    const NAME: &'static str = "manet";
    const TIMEOUT_READING: TimeoutReading = TimeoutReading::PersistentCongestion;

    fn on_sent(&mut self, _now: cc_core::Instant, _bytes: u64, last_packet_number: u64) {
        self.rounds.on_sent(last_packet_number);
    }

    fn on_ack(&mut self, ack: &AckSample) {
        let rtt = ack.latest_rtt();
        if self.rtt.on_sample(rtt) {
            self.base_stamp = Some(ack.now);
        }
        self.bwe.on_rtt_sample(rtt);
        self.in_recovery = self.recovery.contains(ack.sent);
        self.frame_acked = self.frame_acked.saturating_add(ack.bytes);
        if ack.app_limited || self.in_recovery {
            return;
        }
        match (self.phase, self.growth) {
            (ManetPhase::SlowStart, _) => {
                self.window.grow(ack.bytes);
                // BBR bounds its startup's window on every ACK: at a round's end the ACKs of
                // the window already sent would still double it past the bound.
                if let Mode::RateStartup(startup) = self.mode {
                    let cap = startup.window_cap();
                    if self.window.cwnd() > cap {
                        self.window.set_cwnd(cap);
                    }
                }
                if !self.window.in_slow_start() {
                    self.enter_avoidance();
                }
            }
            (ManetPhase::CongestionAvoidance, Growth::Held) => {}
            (ManetPhase::CongestionAvoidance, growth) => {
                // Under the bound, Vegas' own increase: one datagram per round trip. CUBIC's
                // growth is for when nothing bounds the window (competitive mode, or the bound
                // off): its convex region adds up to half a window per round trip, which on a
                // chain overshoots the few packets the bound allows before the next round can
                // stop it.
                let bounded = self.config.backlog_bound() && self.mode != Mode::Competitive;
                if bounded && growth == Growth::Conservative && self.config.empty_queue_css() {
                    // HyStart++'s conservative slow start (RFC 9406 section 4.3): the last
                    // round saw no standing queue, so the pipe has room; the next round's
                    // backlog stops the growth.
                    self.window.grow(empty_queue_css::increase(ack.bytes));
                } else if self.config.cubic_growth() && !bounded {
                    let mtu = self.window.mtu() as f64;
                    let grown = self.cubic.grown(
                        ack.now,
                        ack.rtt.smoothed,
                        self.cwnd_packets(),
                        ack.bytes as f64 / mtu,
                    );
                    let bytes = (grown * mtu) as u64;
                    if bytes > self.window.cwnd() {
                        self.window.set_cwnd(bytes);
                    }
                } else {
                    self.reno.on_ack(&mut self.window, ack.bytes);
                }
            }
        }
    }

    fn on_end_acks(&mut self, end: &AckRoundEnd) {
        self.count_frame(end.now);
        if self.rounds.on_ack_frame(end.largest_acked) {
            self.on_round_end(end.now);
        }
    }

    fn on_congestion(&mut self, event: &CongestionEvent) {
        let lost = self.record_loss(event);
        if self.keeps_window(event, lost) {
            self.last_decision = Some(ManetDecision::QueueFreeLoss);
            self.trace(ManetDecision::QueueFreeLoss, Some(event.signal));
            return;
        }
        // One reduction per round trip; persistent congestion always reacts.
        if !self.recovery.admits(event) {
            return;
        }
        self.react(event.signal);
    }

    fn window_state(&self) -> &Window {
        &self.window
    }

    fn window_state_mut(&mut self) -> &mut Window {
        &mut self.window
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MTU: u16 = 1200;

    fn manet(configure: impl FnOnce(&mut ManetConfig)) -> Manet {
        let mut config = ManetConfig::default();
        configure(&mut config);
        Manet::new(config, MTU)
    }

    #[test]
    fn a_timeout_forgets_the_base_rtt_with_reset_base_on_timeout_only() {
        let on = manet(|_| {}).decide_loss(LossSignal::PERSISTENT);
        assert_eq!(on.rule, ManetDecision::Timeout);
        assert!(on.forget_base);
        assert_eq!((on.clear_cwnd, on.jitter_ns), (0, 0));
        let off = manet(|c| {
            c.set_reset_base_on_timeout(false).unwrap();
        })
        .decide_loss(LossSignal::PERSISTENT);
        assert!(!off.forget_base);
    }

    #[test]
    fn a_cut_that_ends_a_rate_led_slow_start_leaves_at_most_the_pipe() {
        let mut m = manet(|_| {});
        m.window.set_cwnd(200 * u64::from(MTU));
        m.window.set_ssthresh(cc_core::MAX_WINDOW);
        m.phase = ManetPhase::SlowStart;
        // 120 kB/s over a mean RTT of 100 ms: a pipe of 10 datagrams.
        let startup = RateStartup::new(120_000, Duration::from_millis(100), Cap::Unarmed);
        m.mode = Mode::RateStartup(startup);
        let d = m.decide_loss(LossSignal::FastRetransmit);
        let window = d.window.as_ref().unwrap();
        assert_eq!((window.cwnd(), window.ssthresh()), (12_000, 12_000));
        assert_eq!(d.mode, Mode::Delay(Cap::Unarmed));
        // Outside a startup the cut is the cut.
        m.mode = Mode::Delay(Cap::Unarmed);
        let d = m.decide_loss(LossSignal::FastRetransmit);
        assert!(d.window.as_ref().unwrap().cwnd() > 100 * u64::from(MTU));
    }

    #[test]
    fn a_timeout_restarts_slow_start_at_the_minimum_window_in_delay_mode() {
        // 10 datagrams, no estimate yet: ssthresh = 0.7 x 10 = 7 datagrams, the window 2.
        let m = manet(|_| {});
        let d = m.decide_loss(LossSignal::PERSISTENT);
        let window = d.window.as_ref().unwrap();
        assert_eq!(window.cwnd(), 2 * u64::from(MTU));
        assert_eq!(window.ssthresh(), 7 * u64::from(MTU));
        assert_eq!(
            (d.phase, d.mode),
            (ManetPhase::SlowStart, Mode::Delay(Cap::Unarmed))
        );
        assert_eq!(d.cubic, CubicRestart::Reduction);
        assert_eq!(d.schedule, Schedule::first(&m.config));
    }

    #[test]
    fn a_loss_cuts_to_the_loss_threshold_and_leaves_the_mode() {
        let m = manet(|_| {});
        let d = m.decide_loss(LossSignal::FastRetransmit);
        assert_eq!(d.rule, ManetDecision::Loss);
        let window = d.window.as_ref().unwrap();
        assert_eq!(
            (window.cwnd(), window.ssthresh()),
            (m.loss_ssthresh(), m.loss_ssthresh())
        );
        assert_eq!(d.phase, ManetPhase::CongestionAvoidance);
        assert_eq!((d.mode, d.growth), (m.mode, m.growth));
        assert!(d.reno_reset && !d.forget_base);
    }

    /// A rate trial under way with nothing lost yet, from a rate of 1 MB/s at 40 datagrams,
    /// from a round whose RTTs were all 100 ms.
    fn trial(phase: rate_check::Phase) -> RateTrial {
        RateTrial {
            start_rate: 1_000_000,
            start_excess_ns: 0,
            start_min_ns: 100_000_000,
            start_spread_ns: 0,
            prior_cwnd: 40 * u64::from(MTU),
            phase,
            cap: Cap::Unarmed,
            lost: false,
        }
    }

    /// A round of 100 ms that delivered at `rate` bytes per second and lost `lost` bytes.
    fn measured(m: &Manet, rate: u64, lost: u64) -> RoundInput {
        let mean = Duration::from_millis(100);
        let delivered = rate / 10;
        RoundInput {
            now: cc_core::Instant::now(),
            round: Some(cc_core::RoundRtt {
                min: mean,
                mean,
                samples: 10,
            }),
            measured_cwnd: m.window.cwnd(),
            delivered,
            lost,
            rate: rate_check::delivery_rate(delivered, mean),
        }
    }

    #[test]
    fn a_flat_trial_backs_off_only_after_a_loss_with_rate_check_loss_backoff() {
        for (loss_backoff, lost, backs_off) in
            [(true, 0, false), (true, 1200, true), (false, 0, true)]
        {
            let mut m = manet(|c| {
                c.set_rate_check_loss_backoff(loss_backoff).unwrap();
            });
            // The trial's window, a quarter over its 40 datagrams.
            m.window.set_cwnd(50 * u64::from(MTU));
            let first = m.rate_schedule.interval;
            let d = m.decide_trial(
                Decision::keep(&m, ManetDecision::NoSample),
                trial(rate_check::Phase::Measuring),
                &measured(&m, 1_000_000, lost),
            );
            assert_eq!(d.rule, ManetDecision::RateFlat);
            let expected = if backs_off {
                drain_round::backed_off(first, &m.config)
            } else {
                first
            };
            assert_eq!(
                d.rate_schedule.interval, expected,
                "loss backoff {loss_backoff}, lost {lost}"
            );
        }
    }

    #[test]
    fn a_grown_rate_is_room_only_if_the_standing_queue_stayed() {
        // 40 -> 50 datagrams, the rate 1 -> 1.2 MB/s (more than the half of the gain asked):
        // room while the round's smallest RTT stays at 100 ms, a share taken once it rose by
        // more than a datagram's time at 1 MB/s (1.2 ms), unless the knob is off.
        for (standing_queue, min_ms, grew) in [
            (true, 100.0, true),
            (true, 101.2, true),
            (true, 102.0, false),
            (false, 102.0, true),
        ] {
            let mut m = manet(|c| {
                c.set_rate_check_standing_queue(standing_queue).unwrap();
            });
            m.window.set_cwnd(50 * u64::from(MTU));
            let mut input = measured(&m, 1_200_000, 0);
            let rtt = Duration::from_secs_f64(min_ms / 1000.0);
            input.round = input.round.map(|r| cc_core::RoundRtt {
                min: rtt,
                mean: rtt,
                ..r
            });
            input.rate = rate_check::delivery_rate(input.delivered, rtt);
            let d = m.decide_trial(
                Decision::keep(&m, ManetDecision::NoSample),
                trial(rate_check::Phase::Measuring),
                &input,
            );
            let expected = if grew {
                ManetDecision::RateGrew
            } else {
                ManetDecision::RateFlat
            };
            assert_eq!(d.rule, expected, "knob {standing_queue}, min {min_ms} ms");
        }
    }

    #[test]
    fn a_trial_remembers_a_loss_declared_after_its_settling_round() {
        // The settling round's losses are of packets sent before the gain.
        let m = manet(|_| {});
        let settled = m.decide_trial(
            Decision::keep(&m, ManetDecision::NoSample),
            trial(rate_check::Phase::Settling),
            &measured(&m, 1_000_000, 1200),
        );
        assert!(matches!(settled.mode, Mode::RateTrial(t) if !t.lost));
        let mut m = manet(|_| {});
        m.mode = Mode::RateTrial(trial(rate_check::Phase::Settling));
        let early_cut = m.decide_loss(LossSignal::FastRetransmit);
        assert!(matches!(early_cut.mode, Mode::RateTrial(t) if !t.lost));
        // From the measuring phase on: a cut (a loss or an ECN mark), or a round with losses
        // inside the recovery period.
        let mut m = manet(|_| {});
        m.mode = Mode::RateTrial(trial(rate_check::Phase::Measuring));
        let cut = m.decide_loss(LossSignal::FastRetransmit);
        assert!(matches!(cut.mode, Mode::RateTrial(t) if t.lost));
        m.in_recovery = true;
        let recovery = m.decide_round(&measured(&m, 1_000_000, 1200));
        assert_eq!(recovery.rule, ManetDecision::InRecovery);
        assert!(matches!(recovery.mode, Mode::RateTrial(t) if t.lost));
        let clean = m.decide_round(&measured(&m, 1_000_000, 0));
        assert_eq!(clean.mode, m.mode, "no loss, nothing recorded");
    }

    #[test]
    fn a_round_without_samples_decides_nothing() {
        let m = manet(|_| {});
        let input = RoundInput {
            now: cc_core::Instant::now(),
            round: None,
            measured_cwnd: m.window.cwnd(),
            delivered: 0,
            lost: 0,
            rate: None,
        };
        let d = m.decide_round(&input);
        assert_eq!(d.rule, ManetDecision::NoSample);
        assert_eq!(
            d,
            Decision {
                growth: m.growth.at_round_end(),
                ..Decision::keep(&m, ManetDecision::NoSample)
            }
        );
    }
}
