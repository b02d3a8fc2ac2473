//! The composite's state and decisions.

use std::sync::Arc;
use std::time::Duration;

use cc_core::{
    AckRoundEnd, AckSample, CongestionAlgorithm, CongestionEvent, LossSignal, RecoveryEpoch,
    RenoGrowth, RoundCounter, RttRounds, TimeoutReading, VegasBacklog, WestwoodPlusEstimator,
    Window,
};

use crate::ManetConfig;
use crate::cubic::{BETA, CubicGrowth};

/// Round trips of queueing delay kept for Copa's "nearly empty" test (Copa: the last four).
const RECENT_ROUNDS: usize = 4;
/// The share of its queueing delay a drain probe's round must keep for the queue to count as
/// another flow's: a queue this flow built loses at least a quarter of its delay when the flow
/// sends only its backlog-free window. Chosen between 1/2 and 3/4 on ns3-chain and
/// coexist-manet (docs/results/manet.md): with 1/2, the contention delay of an
/// 802.11 chain, which a smaller window reduces by less than half, read as a competitor's queue.
const DRAIN_KEEPS: f64 = 0.75;
/// Vegas' slow-start exit backlog, packets (Linux `tcp_vegas.c`: gamma = 1); below it, the
/// pipe is not full and the next round grows as HyStart++'s conservative slow start.
const SLOW_START_EXIT_BACKLOG: f64 = 1.0;
/// HyStart++'s conservative slow start grows by the acknowledged bytes over this (RFC 9406
/// section 4.3: `CSS_GROWTH_DIVISOR` = 4).
const CSS_GROWTH_DIVISOR: u64 = 4;
/// The smallest window a drain probe sends, datagrams: two in flight, so that the probe
/// measures the path, not the peer's ACK delay (RFC 9000 section 13.2.2: a receiver
/// acknowledges every second ack-eliciting packet, a lone one only after its ACK delay). On
/// quinn that needs `quinn_full_window` (on by default): its send check carries one less.
const PROBE_FLOOR_PACKETS: u64 = 2;
/// How long a base RTT stands without a sample at or below it (BBR's `MinRTTFilterLen`,
/// Cardwell et al., ACM Queue 2016; Copa's RTTmin window, NSDI 2018 section 2.1: 10 s).
const BASE_RTT_LIFETIME: Duration = Duration::from_secs(10);
/// Veno's cut on a loss it reads as random (Fu and Liew 2003: cwnd x 4/5).
const VENO_RANDOM_LOSS_BETA: f64 = 0.8;

/// A count of round trips from the knobs (at most 1,000 x 1,000), saturating: the probe's
/// counters are `u32` so that the controller's state stays within 4 KiB on quinn (cc-bench).
fn rounds_u32(rounds: u64) -> u32 {
    u32::try_from(rounds).unwrap_or(u32::MAX)
}

/// The wait before the first drain probe, and again after the probes' backoff resets: the
/// configured rounds of standing queue (`competitive_rounds`).
fn first_probe_interval(config: &ManetConfig) -> u32 {
    rounds_u32(config.competitive_rounds())
}

/// Mechanism 1f's cap, bytes: twice the bandwidth-delay product of a round that carried `cwnd`
/// bytes in `round_rtt` over a path of `base` RTT (BBR's `cwnd_gain` of 2 over
/// `BtlBw x RTprop`, Cardwell et al., ACM Queue 2016, with the round's delivery rate
/// `cwnd / round_rtt`), plus the datagram a receiver holds for its next ACK (RFC 9000 section
/// 13.2.2: an ACK after at least two ack-eliciting packets), so that a path of a datagram's
/// BDP still carries two.
fn inflight_cap(cwnd: u64, mtu: u64, base: Duration, round_rtt: Duration) -> u64 {
    let rtt = u128::from(cc_core::saturating_ns(round_rtt).max(1));
    let bdp2 = 2 * u128::from(cwnd) * u128::from(cc_core::saturating_ns(base)) / rtt;
    u64::try_from(bdp2).unwrap_or(u64::MAX).saturating_add(mtu)
}

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
    mode: ManetMode,
    /// Whether the backlog bound lets the window grow this round.
    may_grow: bool,
    /// Whether the last round's backlog was under 1 packet, so that this round grows as
    /// conservative slow start (with `empty_queue_css`).
    queue_empty: bool,
    /// Whether the last drain probe found the round's delay to be this flow's own (its queue,
    /// or contention along an 802.11 chain), so that mechanism 1f may shrink the window for it.
    delay_owned: bool,
    /// Bytes the current ACK frame newly acknowledged.
    frame_acked: u64,
    /// The window when the current round began (Vegas' `Actual` is what was sent over it).
    round_start_cwnd: u64,
    /// The window at the end of the last round, before its decision: the largest window the
    /// packets whose samples end the next round were sent at.
    sent_cwnd: u64,
    /// The largest window a round measured with a backlog under 1 packet, lowered to the window
    /// whenever a round shows a standing queue and zero once the base RTT is forgotten:
    /// conservative slow start regains it without pausing to measure.
    clear_cwnd: u64,
    /// Whether the latest acknowledged packet was sent before the current recovery period began.
    in_recovery: bool,
    /// Consecutive rounds with a standing queue (`Diff >= alpha`).
    queued_rounds: u32,
    /// The drain probe under way, if one is.
    probe: Option<DrainProbe>,
    /// Rounds with a standing queue before the next drain probe: `competitive_rounds`, doubled
    /// after each probe that found the queue to be this flow's, up to
    /// `competitive_rounds x probe_backoff_max`.
    probe_interval: u32,
    /// The last rounds' queueing delays (round minimum minus base RTT), a ring.
    /// In nanoseconds (saturating): the state fits cc-bench's 4 KiB with the ledger at its bound.
    recent_delay: [u64; RECENT_ROUNDS],
    recent_next: u8,
    last_decision: Option<ManetDecision>,
    last_diff: Option<f64>,
    /// When the base RTT was last set (a sample at or below it).
    base_stamp: Option<cc_core::Instant>,
    /// The round RTT spread (mean minus minimum) that the last drain probe did not remove,
    /// nanoseconds: path jitter, not backlog (mechanism 1e); zero when the probe removed it or
    /// with the mechanism off.
    jitter_ns: u64,
}

/// A drain probe under way: what the round before it measured and held.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct DrainProbe {
    /// The queueing delay of the round that started the probe, nanoseconds (saturating: the
    /// state fits cc-bench's 4 KiB with the ledger at its bound).
    start_delay_ns: u64,
    /// That round's RTT spread (mean minus minimum), nanoseconds.
    start_spread_ns: u64,
    /// The window before the probe cut it (BBR's `prior_cwnd`).
    prior_cwnd: u64,
    /// Whether a round has ended since the cut. The round that ends first acknowledges packets
    /// sent before the cut, at the old window; only the next one measures the drained queue
    /// (BBR's ProbeRTT likewise waits for the in-flight data to fall to its target before it
    /// measures).
    settled: bool,
    /// Whether the probe re-measures an expired base RTT: the base restarts with the measured
    /// round, whose queue this flow has drained (BBR's ProbeRTT).
    refresh_base: bool,
}

/// Slow start or congestion avoidance.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ManetPhase {
    /// Byte-counting slow start, left at ssthresh or by Vegas' exit.
    SlowStart,
    /// CUBIC's (or Reno's) growth, gated by the backlog bound.
    CongestionAvoidance,
}

/// Copa's two modes (Arun and Balakrishnan, NSDI 2018, section 2.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ManetMode {
    /// The backlog bound gates growth: the queue is this flow's own.
    Delay,
    /// The queue did not drain as the bound shrank the window: another flow's, or an outdated
    /// base RTT. Growth is CUBIC's alone until the queue is nearly empty.
    Competitive,
}

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
    /// After `competitive_rounds` rounds with a standing queue: the window is set to the
    /// backlog-free window `cwnd - Diff` for one round, which drains a queue this flow built.
    DrainProbe,
    /// The first round after a drain probe's cut: its packets were sent at the old window, so
    /// the window stays cut and the next round is the one measured.
    ProbeSettle,
    /// The probe's queue drained (it lost at least a quarter of its delay): the queue was this
    /// flow's; the window goes back to its value before the probe, and the next probe waits
    /// twice as long.
    Drained,
    /// The probe's queue kept three quarters of its delay or more: another flow's, or an
    /// outdated base RTT; the bound is lifted.
    EnterCompetitive,
    /// In competitive mode: growth is CUBIC's.
    Competitive,
    /// The queueing delay fell to a tenth of its recent maximum: the bound applies again.
    LeaveCompetitive,
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
            Self::DrainProbe => "drain_probe",
            Self::ProbeSettle => "probe_settle",
            Self::Drained => "drained",
            Self::EnterCompetitive => "enter_competitive",
            Self::Competitive => "competitive",
            Self::LeaveCompetitive => "leave_competitive",
            Self::NoSample => "no_sample",
            Self::InRecovery => "in_recovery",
            Self::Loss => "loss",
            Self::Timeout => "timeout",
        }
    }
}

impl Manet {
    /// A controller at the start of a connection whose datagrams are `mtu` bytes.
    pub fn new(config: impl Into<Arc<ManetConfig>>, mtu: u16) -> Self {
        let config = config.into();
        let window = Window::new(config.initial_window_packets(), mtu);
        let probe_interval = first_probe_interval(&config);
        Self {
            round_start_cwnd: window.cwnd(),
            sent_cwnd: window.cwnd(),
            clear_cwnd: 0,
            config,
            window,
            bwe: WestwoodPlusEstimator::new(),
            rtt: RttRounds::default(),
            rounds: RoundCounter::default(),
            cubic: CubicGrowth::default(),
            reno: RenoGrowth::default(),
            recovery: RecoveryEpoch::default(),
            phase: ManetPhase::SlowStart,
            mode: ManetMode::Delay,
            may_grow: true,
            queue_empty: false,
            frame_acked: 0,
            in_recovery: false,
            queued_rounds: 0,
            probe: None,
            probe_interval,
            recent_delay: [0; RECENT_ROUNDS],
            recent_next: 0,
            last_decision: None,
            last_diff: None,
            base_stamp: None,
            jitter_ns: 0,
            delay_owned: false,
        }
    }

    /// The current phase.
    pub fn phase(&self) -> ManetPhase {
        self.phase
    }

    /// The current mode.
    pub fn mode(&self) -> ManetMode {
        self.mode
    }

    /// The latest decision taken.
    pub fn last_decision(&self) -> Option<ManetDecision> {
        self.last_decision
    }

    /// The latest round's backlog `Diff`, packets.
    pub fn last_diff(&self) -> Option<f64> {
        self.last_diff
    }

    /// The base RTT (the minimum sample since the start or the last timeout).
    pub fn base_rtt(&self) -> Option<Duration> {
        self.rtt.base()
    }

    /// Whether the last drain probe found the round's delay to be this flow's own, so that
    /// mechanism 1f's cap applies (`bdp_cap`).
    pub fn delay_owned(&self) -> bool {
        self.delay_owned
    }

    /// The round RTT spread the last drain probe did not remove, which the bound no longer
    /// reads as backlog (mechanism 1e; zero when the probe removed it).
    pub fn jitter_allowance(&self) -> Duration {
        Duration::from_nanos(self.jitter_ns)
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
    /// the backlog-free window where that mechanism is on, never above the window.
    pub fn loss_ssthresh(&self) -> u64 {
        let cwnd = self.window.cwnd();
        // TCP Veno (Fu and Liew, IEEE JSAC 2003, section II): a loss while the flow keeps
        // fewer than beta packets queued did not overflow its queue; it is read as random
        // and cut by a fifth.
        let random = self.config.veno_random_loss()
            && self.last_diff.is_some_and(|diff| diff < self.config.beta());
        let cubic = cc_core::scale(cwnd, if random { VENO_RANDOM_LOSS_BETA } else { BETA });
        let floor = if self.config.westwood_floor() {
            self.rtt
                .base()
                .and_then(|base| self.bwe.bdp(base))
                .unwrap_or(0)
        } else {
            0
        };
        cubic.max(floor).min(cwnd)
    }

    /// Ends a round at `now` (the ACK frame that ended it): the backlog bound's decision and
    /// Copa's mode switch.
    pub fn on_round_end(&mut self, now: cc_core::Instant) -> ManetDecision {
        let decision = self.decide_round(now);
        self.round_start_cwnd = self.window.cwnd();
        if decision != ManetDecision::NoSample {
            self.last_decision = Some(decision);
            self.trace(decision, None);
        }
        decision
    }

    fn decide_round(&mut self, now: cc_core::Instant) -> ManetDecision {
        self.queue_empty = false;
        // The samples that end a round are of the packets sent in the round before it.
        let measured_cwnd = std::mem::replace(&mut self.sent_cwnd, self.window.cwnd());
        let round = self.rtt.end_round();
        if !self.config.backlog_bound() {
            self.may_grow = true;
            return ManetDecision::NoSample;
        }
        if self.in_recovery {
            return ManetDecision::InRecovery;
        }
        let mtu = self.window.mtu();
        let (Some(round), Some(base)) = (round, self.rtt.base()) else {
            return ManetDecision::NoSample;
        };
        let c = Arc::clone(&self.config);
        let spread = round.mean.saturating_sub(round.min);
        let round_rtt = if c.mean_round_rtt() {
            // Mechanism 1e: the spread a drain probe did not remove is not this flow's backlog.
            round
                .mean
                .saturating_sub(Duration::from_nanos(self.jitter_ns))
                .max(round.min)
        } else {
            round.min
        };
        let Some(backlog) = VegasBacklog::new(self.round_start_cwnd, mtu, base, round_rtt) else {
            return ManetDecision::NoSample;
        };
        // Copa's standing queue (section 2.1: the smallest RTT over a recent window) for the
        // mode switch: the queue a competitor holds shows in every sample.
        let delay = round.min.saturating_sub(base);
        let recent_max = Duration::from_nanos(self.recent_delay.iter().copied().max().unwrap_or(0));
        self.recent_delay[usize::from(self.recent_next)] = cc_core::saturating_ns(delay);
        self.recent_next = (self.recent_next + 1) % RECENT_ROUNDS as u8;
        let diff = backlog.diff_packets;
        self.last_diff = Some(diff);
        if self.phase == ManetPhase::SlowStart {
            if c.slow_start_exit() && diff > SLOW_START_EXIT_BACKLOG {
                // Vegas slow start (Brakmo and Peterson 1995, section 3.3; Linux tcp_vegas.c):
                // cwnd = min(cwnd, target + 1 segment), ssthresh = cwnd - 1 segment.
                let cwnd = self.window.cwnd();
                self.window
                    .set_cwnd(cwnd.min(backlog.target_bytes.saturating_add(mtu)));
                let ssthresh = self.window.ssthresh();
                self.window
                    .set_ssthresh(ssthresh.min(self.window.cwnd().saturating_sub(mtu)));
                self.enter_avoidance();
                return ManetDecision::SlowStartExit;
            }
            return ManetDecision::Grow;
        }
        if let Some(probe) = self.probe.as_mut().filter(|probe| !probe.settled) {
            probe.settled = true;
            if probe.refresh_base {
                self.forget_base();
            }
            self.may_grow = false;
            return ManetDecision::ProbeSettle;
        }
        if let Some(probe) = self.probe.take() {
            return self.judge_probe(probe, delay, spread);
        }
        if self.mode == ManetMode::Competitive {
            self.may_grow = true;
            // Copa: the queue is nearly empty when its delay is under a tenth of its recent
            // maximum; then the queue can be this flow's own again. With mechanism 4d the
            // bound's mean-RTT reading must agree (it would not shrink the window), so that a
            // spread the minimum filters out does not hand the window to a bound that reads it
            // as backlog.
            let bound_agrees = !c.leave_competitive_under_beta() || diff <= c.beta();
            if delay <= recent_max / 10 && bound_agrees {
                self.leave_competitive();
                return ManetDecision::LeaveCompetitive;
            }
            return ManetDecision::Competitive;
        }
        if self.base_expired(now) {
            // BBR's min_rtt expiry (Cardwell et al. 2016; 10 s, as Copa's RTTmin window): a
            // route that changed under a MANET flow, or a path that got longer, makes the old
            // base read as a standing queue. The base is re-measured in a drain probe's
            // round, with this flow's own queue drained (BBR's ProbeRTT); a window too small
            // to drain a datagram holds no queue worth draining.
            if self.start_probe(&backlog, delay, spread, true) {
                return ManetDecision::DrainProbe;
            }
            self.forget_base();
        }
        // Mechanism 1f acts on a delay a drain probe found to be this flow's own: a
        // competitor's queue inflates the RTT as well, and a cap read from it would hold the
        // window too small for Copa's test ever to lift the bound. It leaves the window room
        // for a probe to drain a datagram, so that a competitor arriving later is still found.
        let cap = (c.bdp_cap() && self.delay_owned).then(|| {
            let floor = (PROBE_FLOOR_PACKETS + 1).saturating_mul(mtu);
            inflight_cap(self.round_start_cwnd, mtu, base, round_rtt).max(floor)
        });
        let over_cap = |bytes: u64| cap.is_some_and(|cap| bytes > cap);
        // A round has a standing queue when this flow keeps `alpha` packets queued, or when
        // the queueing delay reaches the base RTT: a bottleneck queue of a BDP or more, which a
        // flow holding under `alpha` packets there builds alone only on a path of under
        // `alpha` packets' BDP (BBR keeps its own queue under a BDP, cwnd_gain 2), or when the
        // round's RTT keeps the window at mechanism 1f's cap. Either way the drain probe tells
        // whose the queue is.
        let at_cap = over_cap(self.round_start_cwnd.saturating_add(mtu));
        if diff >= c.alpha() || delay >= base || at_cap {
            self.queued_rounds = self.queued_rounds.saturating_add(1);
        } else {
            self.queued_rounds = 0;
        }
        if c.competitive_mode()
            && self.queued_rounds >= self.probe_interval
            && self.start_probe(&backlog, delay, spread, false)
        {
            return ManetDecision::DrainProbe;
        }
        if diff > c.beta() || over_cap(self.round_start_cwnd) {
            // Linux tcp_vegas.c: one segment less, and ssthresh follows it down
            // (`tcp_vegas_ssthresh`), so that the next growth is linear, not a slow start.
            self.window.shrink(mtu);
            let ssthresh = self.window.ssthresh();
            self.window
                .set_ssthresh(ssthresh.min(self.window.cwnd().saturating_sub(mtu)));
            self.cubic.start_at(self.cwnd_packets());
            self.may_grow = false;
            self.clear_cwnd = self.clear_cwnd.min(self.window.cwnd());
            ManetDecision::Decrease
        } else if diff >= c.alpha() || at_cap {
            self.may_grow = false;
            self.clear_cwnd = self.clear_cwnd.min(self.window.cwnd());
            ManetDecision::Hold
        } else {
            self.may_grow = true;
            let clear = diff < SLOW_START_EXIT_BACKLOG;
            if clear {
                self.clear_cwnd = self.clear_cwnd.max(measured_cwnd);
            }
            // Conservative slow start regains a window a round measured clear at once, as
            // CUBIC climbs fast back to W_max (RFC 9438 section 4.2); past it, only from a
            // window this round measured: the samples that end a round are of the packets
            // sent in the round before it, so growing on them again would compound unmeasured
            // (Vegas' slow start grows every other round trip for this reason, Brakmo and
            // Peterson 1995, section 3.3).
            let cwnd = self.window.cwnd();
            self.queue_empty =
                clear && (cwnd <= measured_cwnd.saturating_add(mtu) || cwnd < self.clear_cwnd);
            ManetDecision::Grow
        }
    }

    /// Starts a drain probe: the window is cut to the backlog-free window, so that Copa's test
    /// (section 2.2: does the queue empty now and then?) has a queue that could; a Vegas window
    /// holds a steady one. Returns false, and probes nothing, where the cut would not remove a
    /// datagram.
    fn start_probe(
        &mut self,
        backlog: &VegasBacklog,
        delay: Duration,
        spread: Duration,
        refresh_base: bool,
    ) -> bool {
        let mtu = self.window.mtu();
        let cwnd = self.window.cwnd();
        // A base re-measurement drains to half the backlog-free window (BBRv2's ProbeRTT
        // cwnd gain of 0.5): the backlog-free window is computed from the old base, and a
        // queue left by its error would raise the new base, probe after probe.
        let target = if refresh_base {
            backlog.target_bytes / 2
        } else {
            backlog.target_bytes
        };
        // At least two datagrams in flight, so that the probe's RTT samples are not the
        // peer's ACK delay (RFC 9000 section 13.2.2: a receiver acknowledges every second
        // ack-eliciting packet, a lone one only after max_ack_delay).
        let drained = target.max(PROBE_FLOOR_PACKETS.saturating_mul(mtu));
        if delay.is_zero() || drained.saturating_add(mtu) > cwnd {
            return false;
        }
        self.probe = Some(DrainProbe {
            start_delay_ns: cc_core::saturating_ns(delay),
            start_spread_ns: cc_core::saturating_ns(spread),
            prior_cwnd: cwnd,
            settled: false,
            refresh_base,
        });
        self.queued_rounds = 0;
        self.window.set_cwnd(drained);
        self.cubic.start_at(self.cwnd_packets());
        self.may_grow = false;
        true
    }

    /// The probe's verdict, from the queueing delay of the first round sent at the drained
    /// window: a queue this flow built loses at least a quarter of its delay; one that keeps
    /// more is not (only) this flow's.
    fn judge_probe(
        &mut self,
        probe: DrainProbe,
        delay: Duration,
        spread: Duration,
    ) -> ManetDecision {
        let c = Arc::clone(&self.config);
        if c.jitter_allowance() {
            // Mechanism 1e, Copa's test applied to the spread: a spread this flow's queue or
            // contention made shrinks with the window; one that keeps three quarters of itself
            // at the drained window is the path's jitter, and the bound stops reading it.
            let spread_ns = cc_core::saturating_ns(spread);
            let kept = spread_ns as f64 >= probe.start_spread_ns as f64 * DRAIN_KEEPS;
            self.jitter_ns = if probe.start_spread_ns > 0 && kept {
                spread_ns.max(probe.start_spread_ns)
            } else {
                0
            };
        }
        if c.probe_restore() {
            // BBR's ProbeRTT exit (Cardwell et al., ACM Queue 2016; Linux tcp_bbr.c
            // bbr_restore_cwnd): the probe answered its question, so the window goes back to
            // what it was instead of regrowing a datagram per round.
            let cwnd = self.window.cwnd().max(probe.prior_cwnd);
            self.window.set_cwnd(cwnd);
            self.cubic.start_at(self.cwnd_packets());
        }
        if delay >= Duration::from_nanos(probe.start_delay_ns).mul_f64(DRAIN_KEEPS) {
            self.mode = ManetMode::Competitive;
            self.probe_interval = first_probe_interval(&c);
            self.may_grow = true;
            self.delay_owned = false;
            return ManetDecision::EnterCompetitive;
        }
        // Each probe that finds the queue to be this flow's doubles the wait for the next, so
        // that probing costs a bounded share of the rounds (BBR's ProbeRTT: 200 ms in 10 s)
        // while a competitor that arrives later is still found.
        let cap = c.competitive_rounds().saturating_mul(c.probe_backoff_max());
        self.probe_interval = self.probe_interval.saturating_mul(2).min(rounds_u32(cap));
        self.may_grow = false;
        self.delay_owned = true;
        ManetDecision::Drained
    }

    /// Whether the base RTT has gone [`BASE_RTT_LIFETIME`] without a sample at or below it
    /// (with `refresh_base_rtt`).
    fn base_expired(&self, now: cc_core::Instant) -> bool {
        let Some(stamp) = self.base_stamp else {
            return false;
        };
        self.config.refresh_base_rtt() && now.saturating_duration_since(stamp) > BASE_RTT_LIFETIME
    }

    /// Forgets the base RTT: the next sample starts a new one.
    fn forget_base(&mut self) {
        self.clear_cwnd = 0;
        self.rtt.reset_base();
        self.base_stamp = None;
        self.jitter_ns = 0;
    }

    fn leave_competitive(&mut self) {
        self.mode = ManetMode::Delay;
        self.delay_owned = false;
        self.queued_rounds = 0;
        self.probe_interval = first_probe_interval(&self.config);
    }

    fn enter_avoidance(&mut self) {
        self.phase = ManetPhase::CongestionAvoidance;
        self.cubic.start_at(self.cwnd_packets());
        self.reno.reset();
    }

    /// Applies the reaction to `signal`; returns the rule taken. Callers decide whether the
    /// event reduces the window at all (one reduction per round trip).
    pub fn react(&mut self, signal: LossSignal) -> ManetDecision {
        let before = self.cwnd_packets();
        let decision = if signal.is_timeout() {
            let ssthresh = self.loss_ssthresh();
            self.window.set_cwnd(0);
            self.window.set_ssthresh(ssthresh);
            self.phase = ManetPhase::SlowStart;
            self.mode = ManetMode::Delay;
            self.delay_owned = false;
            self.queued_rounds = 0;
            self.probe = None;
            self.probe_interval = first_probe_interval(&self.config);
            self.may_grow = true;
            if self.config.reset_base_on_timeout() {
                self.forget_base();
            }
            self.cubic.on_reduction(before, self.cwnd_packets());
            ManetDecision::Timeout
        } else {
            let ssthresh = self.loss_ssthresh();
            self.window.set_ssthresh(ssthresh);
            self.window.set_cwnd(ssthresh);
            self.phase = ManetPhase::CongestionAvoidance;
            self.cubic.on_reduction(before, self.cwnd_packets());
            self.reno.reset();
            ManetDecision::Loss
        };
        self.last_decision = Some(decision);
        self.trace(decision, Some(signal));
        decision
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
            diff_packets = self.last_diff,
            competitive = self.mode == ManetMode::Competitive,
            bwe_bps = self.bwe.estimate().map(|b| b.bits_per_second()),
            base_rtt_us = self.rtt.base().map(|d| d.as_micros() as u64),
            jitter_us = self.jitter_ns / 1_000,
            delay_owned = self.delay_owned,
            round = self.rounds.rounds(),
            "window decision"
        );
    }
}

impl CongestionAlgorithm for Manet {
    const NAME: &'static str = "manet";
    const TIMEOUT_READING: TimeoutReading = TimeoutReading::PersistentCongestion;

    fn on_sent(&mut self, _now: cc_core::Instant, _bytes: u64, last_packet_number: u64) {
        self.rounds.on_sent(last_packet_number);
    }

    fn on_ack(&mut self, ack: &AckSample) {
        let rtt = ack.latest_rtt();
        if !rtt.is_zero() && self.rtt.base().is_none_or(|base| rtt <= base) {
            self.base_stamp = Some(ack.now);
        }
        self.rtt.on_sample(rtt);
        self.bwe.on_rtt_sample(rtt);
        self.in_recovery = self.recovery.contains(ack.sent);
        self.frame_acked = self.frame_acked.saturating_add(ack.bytes);
        if ack.app_limited || self.in_recovery {
            return;
        }
        match self.phase {
            ManetPhase::SlowStart => {
                self.window.grow(ack.bytes);
                if !self.window.in_slow_start() {
                    self.enter_avoidance();
                }
            }
            ManetPhase::CongestionAvoidance if self.may_grow => {
                // Under the bound, Vegas' own increase: one datagram per round trip. CUBIC's
                // growth is for when nothing bounds the window (competitive mode, or the bound
                // off): its convex region adds up to half a window per round trip, which on a
                // chain overshoots the few packets the bound allows before the next round can
                // stop it.
                let bounded = self.config.backlog_bound() && self.mode == ManetMode::Delay;
                if bounded && self.queue_empty && self.config.empty_queue_css() {
                    // HyStart++'s conservative slow start (RFC 9406 section 4.3): the last
                    // round saw no standing queue, so the pipe has room; the next round's
                    // backlog stops the growth.
                    self.window.grow(ack.bytes / CSS_GROWTH_DIVISOR);
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
            ManetPhase::CongestionAvoidance => {}
        }
    }

    fn on_end_acks(&mut self, end: &AckRoundEnd) {
        let acked = std::mem::take(&mut self.frame_acked);
        if acked > 0 {
            self.bwe.on_ack(end.now, acked);
        }
        if self.rounds.on_ack_frame(end.largest_acked) {
            self.on_round_end(end.now);
        }
    }

    fn on_congestion(&mut self, event: &CongestionEvent) {
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
