//! TCP-UB's state and decisions ("TCP-UB Algorithms" in the paper).

use crate::UbConfig;
use cc_core::{
    AckRoundEnd, AckSample, Bandwidth, CongestionAlgorithm, CongestionEvent, FrameRtt, LossSignal,
    RecoveryEpoch, RoundCounter, RttRounds, TimeoutReading, VegasBacklog, WestwoodEstimator,
    WestwoodPlusEstimator, Window,
};
use std::sync::Arc;
use std::time::Duration;

/// TCP-UB: TCP Vegas' slow start and per-RTT backlog measurement, with a band of the backlog
/// (alpha to gamma) in which TCP Westwood's bandwidth estimate sets ssthresh and caps the window.
#[derive(Debug, Clone, PartialEq)]
pub struct Ub {
    config: Arc<UbConfig>,
    /// Congestion window and slow-start threshold, bytes.
    window: Window,
    /// TCP Westwood's bandwidth estimate (BWE).
    bwe: Bwe,
    /// Base RTT (minimum of all samples) and each round's RTT (its minimum sample). Fed
    /// through `frame_rtt`, so current once that is flushed.
    rtt: RttRounds,
    /// The open ACK frame's send times: its samples reach `rtt` at the frame's end or at a
    /// loss inside it, one clock subtraction per frame, with the base, latest and round
    /// minimum that per-packet samples would give (the round's mean, which differs, is not
    /// read here).
    frame_rtt: FrameRtt,
    /// Round trips, by packet number.
    rounds: RoundCounter,
    /// Slow start or congestion avoidance.
    phase: UbPhase,
    /// Vegas slow start: whether the window grows in the current round (it grows every other
    /// round so the rounds in between measure a fixed window).
    grow_this_round: bool,
    /// Bytes the current ACK frame newly acknowledged.
    frame_acked: u64,
    /// The window when the current round began: its packets' RTTs end the next round.
    round_start_cwnd: u64,
    /// Whether the latest acknowledged packet was sent before the current recovery period
    /// began (the period has not ended).
    in_recovery: bool,
    /// Start of the current recovery period (one reduction per round trip).
    recovery: RecoveryEpoch,
    /// The latest decision, for tests and introspection.
    last_decision: Option<UbDecision>,
    /// The latest round's backlog, packets.
    last_diff: Option<f64>,
}

/// The bandwidth estimator: Westwood+'s ([`UbConfig::westwood_plus`], default) or one sample
/// per ACK frame.
#[derive(Debug, Clone, PartialEq)]
enum Bwe {
    Plus(WestwoodPlusEstimator),
    PerAckFrame(WestwoodEstimator),
}

impl Bwe {
    fn estimate(&self) -> Option<Bandwidth> {
        match self {
            Self::Plus(e) => e.estimate(),
            Self::PerAckFrame(e) => e.estimate(),
        }
    }

    fn bdp(&self, rtt: Duration) -> Option<u64> {
        match self {
            Self::Plus(e) => e.bdp(rtt),
            Self::PerAckFrame(e) => e.bdp(rtt),
        }
    }

    fn pacing_rate(&self, gain: f64, in_slow_start: bool) -> Option<u64> {
        match self {
            Self::Plus(e) => e.pacing_rate(gain, in_slow_start),
            Self::PerAckFrame(e) => e.pacing_rate(gain, in_slow_start),
        }
    }

    fn on_rtt_sample(&mut self, rtt: Duration) {
        if let Self::Plus(e) = self {
            e.on_rtt_sample(rtt);
        }
    }

    fn on_ack_frame(&mut self, now: cc_core::Instant, bytes: u64) {
        match self {
            Self::Plus(e) => e.on_ack(now, bytes),
            Self::PerAckFrame(e) => e.on_ack(now, bytes),
        };
    }
}

/// TCP-UB's phase.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UbPhase {
    /// Vegas slow start: exponential growth every other round until the backlog exceeds the
    /// slow-start threshold or the window reaches ssthresh.
    SlowStart,
    /// Congestion avoidance: one Vegas/Westwood decision per round.
    CongestionAvoidance,
}

/// Where a round's backlog `Diff` (packets) falls against `alpha < gamma < beta`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DiffBand {
    /// `Diff < alpha`: `CWND + 1`.
    BelowAlpha,
    /// `alpha <= Diff < gamma` (the pseudo-code's `Diff = δ`, read as a band): Westwood.
    AlphaToGamma,
    /// `gamma <= Diff <= beta`: "Otherwise -> CWND" (hold).
    GammaToBeta,
    /// `Diff > beta`: `CWND - 1`.
    AboveBeta,
}

impl DiffBand {
    /// The band of `diff` (packets) against the thresholds (packets, `alpha < gamma < beta`).
    pub fn of(diff: f64, alpha: f64, gamma: f64, beta: f64) -> Self {
        if diff < alpha {
            Self::BelowAlpha
        } else if diff < gamma {
            Self::AlphaToGamma
        } else if diff > beta {
            Self::AboveBeta
        } else {
            // gamma <= diff <= beta, and a NaN (which no input produces) holds too.
            Self::GammaToBeta
        }
    }
}

/// Which branch of TCP-UB's pseudo-code ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UbDecision {
    /// Vegas slow start continues (this round grows or, every other round, holds).
    SlowStart,
    /// Vegas slow-start exit: the backlog exceeded the slow-start threshold; the window is cut
    /// to the backlog-free window plus one packet.
    SlowStartExit,
    /// `Diff < alpha`: `CWND + 1` packet.
    Increase,
    /// `alpha <= Diff < gamma`: `ssthresh = BWE x BaseRTT / seg_size`; `CWND = ssthresh` if above.
    Westwood,
    /// `gamma <= Diff <= beta`: the window is held.
    Hold,
    /// `Diff > beta`: `CWND - 1` packet.
    Decrease,
    /// A round without a usable RTT sample: no decision.
    NoSample,
    /// A round that ended inside a recovery period: no decision (Linux's Vegas is off outside
    /// the open state).
    InRecovery,
    /// A loss (fast retransmit, time-threshold loss, ECN): Westwood's
    /// `ssthresh = BWE x BaseRTT / seg_size`, `CWND = min(CWND, ssthresh)`.
    Loss,
    /// The timeout (persistent congestion): `CWND = 1` (the minimum window),
    /// `ssthresh = max(2, BWE x BaseRTT / seg_size)`.
    Timeout,
}

impl UbDecision {
    /// A stable name for tracing (`branch` / `decision` field).
    pub fn name(self) -> &'static str {
        match self {
            Self::SlowStart => "slow_start",
            Self::SlowStartExit => "slow_start_exit",
            Self::Increase => "increase",
            Self::Westwood => "westwood",
            Self::Hold => "hold",
            Self::Decrease => "decrease",
            Self::NoSample => "no_sample",
            Self::InRecovery => "in_recovery",
            Self::Loss => "loss_to_estimate",
            Self::Timeout => "timeout",
        }
    }
}

impl Ub {
    /// A controller at the start of a connection whose datagrams are `mtu` bytes.
    pub fn new(config: impl Into<Arc<UbConfig>>, mtu: u16) -> Self {
        let config = config.into();
        let window = Window::new(config.initial_window_packets(), mtu);
        let bwe = if config.westwood_plus() {
            Bwe::Plus(WestwoodPlusEstimator::new())
        } else {
            Bwe::PerAckFrame(WestwoodEstimator::new(config.bwe_gain()))
        };
        Self {
            round_start_cwnd: window.cwnd(),
            in_recovery: false,
            config,
            window,
            bwe,
            rtt: RttRounds::default(),
            frame_rtt: FrameRtt::default(),
            rounds: RoundCounter::default(),
            phase: UbPhase::SlowStart,
            grow_this_round: true,
            frame_acked: 0,
            recovery: RecoveryEpoch::default(),
            last_decision: None,
            last_diff: None,
        }
    }

    /// The current phase.
    pub fn phase(&self) -> UbPhase {
        self.phase
    }

    /// The bandwidth estimate (BWE).
    pub fn bwe(&self) -> Option<Bandwidth> {
        self.bwe.estimate()
    }

    /// The base RTT (the minimum of all RTT samples), as of the last ACK frame's end or loss.
    pub fn base_rtt(&self) -> Option<Duration> {
        self.rtt.base()
    }

    /// Rounds completed.
    pub fn rounds(&self) -> u64 {
        self.rounds.rounds()
    }

    /// The latest decision taken.
    pub fn last_decision(&self) -> Option<UbDecision> {
        self.last_decision
    }

    /// The latest round's backlog `Diff`, packets.
    pub fn last_diff(&self) -> Option<f64> {
        self.last_diff
    }

    /// `ssthresh = (BWE x BaseRTT) / seg_size` packets, at least 2, in bytes; `None` without an
    /// estimate or a base RTT.
    pub fn westwood_ssthresh(&self) -> Option<u64> {
        let mss = self.window.mtu();
        let bdp = self.bwe.bdp(self.rtt.base()?)?;
        // TCP-UB pseudo-code: "ssthresh = (BWE*Base RTT)/ seg_size; If (ssthresh<2) then
        // Ssthresh=2" (whole segments).
        Some((bdp / mss).max(2).saturating_mul(mss))
    }

    /// Ends a round: slow-start check or the congestion-avoidance decision on the round's
    /// backlog. `app_limited`: the sender was application-limited (no increase then).
    pub fn on_round_end(&mut self, app_limited: bool) -> UbDecision {
        self.frame_rtt.flush(&mut self.rtt);
        let decision = self.decide_round(app_limited);
        // The next round's RTT samples come from packets sent under the window as it is now.
        self.round_start_cwnd = self.window.cwnd();
        decision
    }

    fn decide_round(&mut self, app_limited: bool) -> UbDecision {
        let round = self.rtt.end_round();
        let mtu = self.window.mtu();
        let cwnd = self.window.cwnd();
        if self.in_recovery {
            self.last_decision = Some(UbDecision::InRecovery);
            return UbDecision::InRecovery;
        }
        // Vegas' Actual is what was sent over the RTT: the window the samples' packets went
        // out under, not this round's slow-start growth (Brakmo and Peterson 1995, section 3.2).
        let sent_window = self.round_start_cwnd;
        let backlog = match (round, self.rtt.base()) {
            (Some(round), Some(base)) => VegasBacklog::new(sent_window, mtu, base, round.min),
            _ => None,
        };
        let Some(backlog) = backlog else {
            self.last_decision = Some(UbDecision::NoSample);
            return UbDecision::NoSample;
        };
        self.last_diff = Some(backlog.diff_packets);
        let c = &self.config;
        let decision = match self.phase {
            UbPhase::SlowStart if backlog.diff_packets > c.slow_start_gamma() => {
                // Vegas slow start (Brakmo and Peterson 1995, section 3.3; Linux tcp_vegas.c):
                // when Diff exceeds gamma, cwnd = min(cwnd, target + 1 segment),
                // ssthresh = min(ssthresh, cwnd - 1 segment), and linear mode begins.
                let target = backlog.target_bytes.saturating_add(mtu);
                self.window.set_cwnd(cwnd.min(target));
                let ssthresh = self.window.ssthresh();
                self.window
                    .set_ssthresh(ssthresh.min(self.window.cwnd().saturating_sub(mtu)));
                self.phase = UbPhase::CongestionAvoidance;
                UbDecision::SlowStartExit
            }
            UbPhase::SlowStart => {
                // Brakmo and Peterson, section 3.3: "Vegas allows exponential growth only every
                // other RTT. In between, the congestion window stays fixed".
                self.grow_this_round = !c.slow_start_every_other_rtt() || !self.grow_this_round;
                UbDecision::SlowStart
            }
            UbPhase::CongestionAvoidance => {
                match DiffBand::of(backlog.diff_packets, c.alpha(), c.gamma(), c.beta()) {
                    // "If (Diff < α) then CWND+1".
                    DiffBand::BelowAlpha => {
                        if !app_limited {
                            self.window.grow(mtu);
                        }
                        UbDecision::Increase
                    }
                    // "If (Diff = δ) then { Let ssthresh = (BWE*Base RTT)/seg_size;
                    //  If (CWND > ssthresh) then CWND = ssthresh }".
                    DiffBand::AlphaToGamma => {
                        if let Some(ssthresh) = self.westwood_ssthresh() {
                            self.window.set_ssthresh(ssthresh);
                            if cwnd > ssthresh {
                                self.window.set_cwnd(ssthresh);
                            }
                        }
                        UbDecision::Westwood
                    }
                    // "If (Diff > β) then CWND-1".
                    DiffBand::AboveBeta => {
                        self.window.shrink(mtu);
                        UbDecision::Decrease
                    }
                    // "Otherwise -> CWND".
                    DiffBand::GammaToBeta => UbDecision::Hold,
                }
            }
        };
        self.last_decision = Some(decision);
        self.trace(decision, None, Some(&backlog));
        decision
    }

    /// Applies TCP-UB's reaction to `signal`; returns the branch taken.
    ///
    /// Pure with respect to recovery: callers decide whether the event reduces the window at all
    /// (one reduction per round trip).
    pub fn react(&mut self, signal: LossSignal) -> UbDecision {
        // A loss inside an ACK frame reads the frame's samples so far, as per packet.
        self.frame_rtt.flush(&mut self.rtt);
        let cwnd = self.window.cwnd();
        // Without an estimate (a loss before the first two ACK frames), NewReno's halving.
        let ssthresh = self.westwood_ssthresh().unwrap_or(cwnd / 2);
        let decision = if signal.is_timeout() {
            // "If (the time out is expired) then { Let CWND=1; ssthresh = (BWE*BaseRTT)/seg_size;
            // If (ssthresh<2) then Ssthresh=2; }" (the window floor is QUIC's 2 datagrams).
            self.window.set_cwnd(0);
            self.window.set_ssthresh(ssthresh);
            self.phase = UbPhase::SlowStart;
            self.grow_this_round = true;
            // The path may have changed (on a MANET, a new route): a base RTT from the old one
            // would read the new path's longer RTT as a standing backlog (Vegas' known failure
            // after a reroute). Linux's Westwood+ resets its minimum RTT on a loss timeout too.
            self.rtt.reset_base();
            UbDecision::Timeout
        } else {
            // TCP Westwood on duplicate ACKs (Mascolo et al. 2001): ssthresh = BWE x RTTmin /
            // seg_size; if cwnd > ssthresh then cwnd = ssthresh.
            self.window.set_ssthresh(ssthresh);
            self.window.set_cwnd(cwnd.min(self.window.ssthresh()));
            // Below the new ssthresh TCP slow-starts back up to it, as TCP Westwood does.
            self.phase = if self.window.in_slow_start() {
                self.grow_this_round = true;
                UbPhase::SlowStart
            } else {
                UbPhase::CongestionAvoidance
            };
            UbDecision::Loss
        };
        self.last_decision = Some(decision);
        self.trace(decision, Some(signal), None);
        decision
    }

    fn trace(&self, decision: UbDecision, class: Option<LossSignal>, v: Option<&VegasBacklog>) {
        tracing::debug!(
            target: "cc",
            controller = Self::NAME,
            decision = decision.name(),
            branch = decision.name(),
            class = class.map(|c| c.name()),
            dup_acks = class.and_then(|c| c.dup_acks()),
            cwnd = self.window.cwnd(),
            ssthresh = self.window.ssthresh(),
            diff_packets = v.map(|v| v.diff_packets),
            expected_bps = v.map(|v| v.expected.bits_per_second()),
            actual_bps = v.map(|v| v.actual.bits_per_second()),
            ebw_bps = self.bwe.estimate().map(|b| b.bits_per_second()),
            base_rtt_us = self.rtt.base().map(|d| d.as_micros() as u64),
            round = self.rounds.rounds(),
            "window decision"
        );
    }
}

impl CongestionAlgorithm for Ub {
    const NAME: &'static str = "ub";
    const TIMEOUT_READING: TimeoutReading = TimeoutReading::PersistentCongestion;

    fn on_sent(&mut self, _now: cc_core::Instant, _bytes: u64, last_packet_number: u64) {
        self.rounds.on_sent(last_packet_number);
    }

    fn on_ack(&mut self, ack: &AckSample) {
        self.frame_rtt.on_ack(ack.now, ack.sent, &mut self.rtt);
        self.in_recovery = self.recovery.contains(ack.sent);
        self.frame_acked = self.frame_acked.saturating_add(ack.bytes);
        if self.phase != UbPhase::SlowStart
            || !self.grow_this_round
            || ack.app_limited
            || self.in_recovery
        {
            return;
        }
        // Slow start: +1 segment per acknowledged segment (byte counting).
        self.window.grow(ack.bytes);
        if !self.window.in_slow_start() {
            self.phase = UbPhase::CongestionAvoidance;
        }
    }

    fn on_end_acks(&mut self, end: &AckRoundEnd) {
        self.frame_rtt.flush(&mut self.rtt);
        if let Some(latest) = self.rtt.latest() {
            // Westwood+'s counting interval: the latest sample, read once per frame as its
            // `on_ack` below reads it.
            self.bwe.on_rtt_sample(latest);
        }
        let acked = std::mem::take(&mut self.frame_acked);
        if acked > 0 {
            // Westwood's BWE: the bytes of each ACK (here: ACK frame).
            self.bwe.on_ack_frame(end.now, acked);
        }
        if self.rounds.on_ack_frame(end.largest_acked) {
            self.on_round_end(end.app_limited);
        }
    }

    fn on_congestion(&mut self, event: &CongestionEvent) {
        // One reduction per round trip; persistent congestion (the RTO) always reacts.
        if !self.recovery.admits(event) {
            return;
        }
        self.react(event.signal);
    }

    fn window_state(&self) -> &Window {
        &self.window
    }

    fn pacing_rate(&self) -> Option<u64> {
        self.bwe
            .pacing_rate(self.config.pacing_gain(), self.window.in_slow_start())
    }

    fn window_state_mut(&mut self) -> &mut Window {
        &mut self.window
    }
}
