//! TCP PETRA's state and decisions (sections 4.1-4.3 of the thesis chapter).

use crate::PetraConfig;
use cc_core::{
    AckRoundEnd, AckSample, Bandwidth, CongestionAlgorithm, CongestionEvent, FrameRtt, LossSignal,
    RecoveryEpoch, RttRounds, TimeoutReading, WestwoodEstimator, Window, saturating_ns,
};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// TCP PETRA: TCP Westwood's bandwidth estimate used to set the initial ssthresh, accelerate
/// slow start, and keep the window through losses the RTT does not attribute to congestion.
#[derive(Debug, Clone, PartialEq)]
pub struct Petra {
    config: Arc<PetraConfig>,
    /// Congestion window and slow-start threshold, bytes.
    window: Window,
    /// The Westwood estimator: EBW samples and their smoothed value SEBW (eqs. 4.3-4.4).
    ebw: WestwoodEstimator,
    /// RTT samples (`now - sent` per acknowledged packet): MinRTT (eq. 4.5) and LastRTT
    /// (sections 4.2.3 and 4.3.3). Fed through `frame_rtt`, so current once that is flushed.
    rtt: RttRounds,
    /// The open ACK frame's send times: its samples reach `rtt` at the frame's end or at a loss
    /// inside it, one clock subtraction per frame, with the MinRTT and LastRTT per-packet
    /// samples would give.
    frame_rtt: FrameRtt,
    /// The paper's ERTT, "the estimated round trip time calculated by the rtt-estimator in
    /// (Paxson et al., 2011)": RFC 6298's SRTT (gain 1/8), fed one sample per ACK frame, the
    /// frame's LastRTT, so that LastRTT and ERTT measure the same thing (both include the
    /// peer's ACK delay, as TCP's do). Updated at the end of each frame, so a loss inside a
    /// frame compares the frame's LastRTT with the SRTT before it. In nanoseconds: RFC 6298's
    /// `(7 SRTT + R') / 8` in integers floors as `Duration`'s arithmetic does, so the values
    /// are the same, without its overflow checks and normalisation once per frame.
    ertt_ns: Option<u64>,
    /// The paper's `BytesInFlight()`: the stack's bytes in flight at the end of the latest ACK
    /// frame, plus the bytes sent since, less the bytes acknowledged or declared lost since.
    in_flight: u64,
    /// Bytes the current ACK frame newly acknowledged (the paper's `Acked x SMSS`, eq. 4.3).
    frame_acked: u64,
    /// Bytes of the current frame that may grow the window (not application-limited, sent after
    /// the current recovery period began).
    frame_growth: u64,
    /// Congestion-avoidance byte counter: eq. 4.2 summed over a window's worth of ACKs.
    ca_acked: u64,
    /// Whether the initial slow start of section 4.1.1 is still running (ssthresh tracks
    /// SEBW x MinRTT until the first loss or the first congestion-avoidance ACK).
    initial: bool,
    /// Start of the current recovery period (one reduction per round trip).
    recovery: RecoveryEpoch,
    /// The latest decision, for tests and introspection.
    last_decision: Option<PetraDecision>,
}

/// Which branch of PETRA's pseudo-code ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PetraDecision {
    /// Section 4.1.2.1, normal slow start: `cwnd += SMSS` per acknowledged segment.
    SlowStart,
    /// Section 4.1.2.1, faster start: `cwnd += EBW div BytesInFlight()` segments.
    FasterStart,
    /// Section 4.1.2.1 first branch / eq. 4.2: `cwnd += SMSS x SMSS / cwnd`.
    CongestionAvoidance,
    /// Section 4.2.2, a retransmission before the third duplicate ACK (`count < 3`; on QUIC a
    /// loss the time threshold declared with `d` below the packet threshold) with
    /// `BytesInFlight() > ssthresh`: `cwnd = ssthresh`, without an RTT test.
    FasterRetransmitToSsthresh,
    /// Section 4.2.2, `count < 3` with `BytesInFlight() <= ssthresh`: the window is kept.
    FasterRetransmitKeep,
    /// Section 4.2.3, congestion confirmed (flight > ssthresh and LastRTT >= ERTT):
    /// `cwnd = ssthresh`.
    RecoveryToSsthresh,
    /// Section 4.2.3, no congestion confirmed: the window is kept.
    RecoveryKeep,
    /// Section 4.3.3 first branch (flight < EBW / 2 and LastRTT < ERTT):
    /// `cwnd += SMSS x SMSS / cwnd`.
    TimeoutGrow,
    /// Section 4.3.3 second branch (LastRTT < ERTT): `cwnd = ssthresh`.
    TimeoutToSsthresh,
    /// Section 4.3.3 third branch (congestion): `cwnd = 1` segment (here the minimum window).
    TimeoutCollapse,
    /// ECN congestion experienced (not in the paper): `cwnd = min(cwnd, ssthresh)`.
    Ecn,
}

impl PetraDecision {
    /// A stable name for tracing (`branch` / `decision` field).
    pub fn name(self) -> &'static str {
        match self {
            Self::SlowStart => "slow_start",
            Self::FasterStart => "faster_start",
            Self::CongestionAvoidance => "congestion_avoidance",
            Self::FasterRetransmitToSsthresh => "faster_retransmit_to_ssthresh",
            Self::FasterRetransmitKeep => "faster_retransmit_keep",
            Self::RecoveryToSsthresh => "recovery_to_ssthresh",
            Self::RecoveryKeep => "recovery_keep",
            Self::TimeoutGrow => "timeout_grow",
            Self::TimeoutToSsthresh => "timeout_to_ssthresh",
            Self::TimeoutCollapse => "timeout_collapse",
            Self::Ecn => "ecn_to_ssthresh",
        }
    }
}

impl Petra {
    /// A controller at the start of a connection whose datagrams are `mtu` bytes.
    pub fn new(config: impl Into<Arc<PetraConfig>>, mtu: u16) -> Self {
        let config = config.into();
        // Eq. 4.1 (IW <= 4380 bytes) is TCP's; QUIC starts from its own initial window (RFC 9002
        // section 7.2; see the crate's deviations). ssthresh starts unbounded until eq. 4.5 has
        // an estimate to give.
        let window = Window::new(config.initial_window_packets(), mtu);
        let ebw = WestwoodEstimator::new(config.ebw_gain());
        let initial = config.estimate_initial_ssthresh();
        Self {
            config,
            window,
            ebw,
            rtt: RttRounds::default(),
            frame_rtt: FrameRtt::default(),
            ertt_ns: None,
            in_flight: 0,
            frame_acked: 0,
            frame_growth: 0,
            ca_acked: 0,
            initial,
            recovery: RecoveryEpoch::default(),
            last_decision: None,
        }
    }

    /// The smoothed bandwidth estimate SEBW (eq. 4.4), if one exists since the last loss.
    pub fn ebw(&self) -> Option<Bandwidth> {
        self.ebw.estimate()
    }

    /// The smallest RTT sample so far (the paper's MinRTT), as of the last ACK frame's end or
    /// loss.
    pub fn min_rtt(&self) -> Option<Duration> {
        self.rtt.base()
    }

    /// The latest RTT sample (the paper's LastRTT), as of the last ACK frame's end or loss.
    pub fn last_rtt(&self) -> Option<Duration> {
        self.rtt.latest()
    }

    /// The paper's ERTT: RFC 6298's SRTT of the LastRTT samples up to the previous ACK frame.
    pub fn ertt(&self) -> Option<Duration> {
        self.ertt_ns.map(Duration::from_nanos)
    }

    /// The paper's `BytesInFlight()` as this controller sees it.
    pub fn in_flight(&self) -> u64 {
        self.in_flight
    }

    /// Whether the initial slow start of section 4.1.1 is still running.
    pub fn in_initial_slow_start(&self) -> bool {
        self.initial
    }

    /// The latest decision taken.
    pub fn last_decision(&self) -> Option<PetraDecision> {
        self.last_decision
    }

    /// The estimated bandwidth-delay product, bytes: SEBW x MinRTT (eq. 4.5). This is how the
    /// crate reads the paper's `EBW` where it is compared with bytes in flight (sections 4.1.2.1
    /// and 4.3.3).
    pub fn estimated_bdp(&self) -> Option<u64> {
        self.ebw.bdp(self.rtt.base()?)
    }

    /// Whether the latest RTT sample shows no queue building: `LastRTT < ERTT`. Without both
    /// values, `false` (congestion is assumed, the conservative reading).
    fn rtt_below_estimate(&self) -> bool {
        matches!((self.rtt.latest(), self.ertt_ns), (Some(last), Some(ertt)) if saturating_ns(last) < ertt)
    }

    /// Applies section 4.1.2.1 to `bytes` newly acknowledged by one ACK frame, with quinn's
    /// bytes in flight after it.
    fn grow(&mut self, bytes: u64) -> PetraDecision {
        let mss = self.window.mtu();
        let cwnd = self.window.cwnd();
        let ssthresh = self.window.ssthresh();
        let flight = self.in_flight;
        // Section 4.1.2.1: "If (BytesInFlight() >= ssthresh) /* exit slow start and start
        // congestion avoidance */"; cwnd >= ssthresh is the standard test and is kept too.
        if flight >= ssthresh || cwnd >= ssthresh {
            self.initial = false;
            // Eq. 4.2, section 4.1 (PETRA): cwnd = cwnd + SMSS x SMSS / cwnd per ACK, summed with
            // byte counting: one SMSS per cwnd bytes acknowledged.
            self.ca_acked = self.ca_acked.saturating_add(bytes);
            if self.ca_acked >= cwnd {
                self.ca_acked -= cwnd;
                self.window.grow(mss);
            }
            return PetraDecision::CongestionAvoidance;
        }
        if self.config.faster_start()
            && flight > 0
            && let Some(bdp) = self.estimated_bdp()
        {
            // Section 4.1.2.1: "elseif (EBW div BytesInFlight() > 2) cwnd += EBW div
            // BytesInFlight()", with EBW read as the estimated BDP (SEBW x MinRTT, eq. 4.5) so
            // the ratio is dimensionless, and the increment counted in segments.
            let ratio = bdp / flight;
            if ratio > 2 {
                // Never past the estimated BDP in one step (crate deviation), never less than
                // normal slow start.
                let step = ratio
                    .saturating_mul(mss)
                    .min(bdp.saturating_sub(cwnd))
                    .max(bytes);
                self.window.grow(step);
                return PetraDecision::FasterStart;
            }
        }
        // Section 4.1.2.1: "else /*normal slow start increment*/ cwnd += SMSS" per segment.
        self.window.grow(bytes);
        PetraDecision::SlowStart
    }

    /// Sets ssthresh from the bandwidth estimate, as TCP Westwood does at every loss (section
    /// 4.3.2; section 4.2.2: "TCPW's bandwidth estimation to calculate ssthresh for every packet
    /// lost"): SEBW x MinRTT (eq. 4.5). Without an estimate, eq. 4.6:
    /// `max(FlightSize / 2, 2 x SMSS)`.
    fn ssthresh_from_estimate(&mut self) {
        // Eq. 4.5, section 4.1.1 (PETRA): ssthresh = SEBW x MinRTT.
        let ssthresh = self.estimated_bdp().unwrap_or(
            // Eq. 4.6, section 4.2.1 (PETRA): ssthresh = max(FlightSize / 2, 2 x SMSS); the
            // 2-segment floor is the Window's minimum.
            self.in_flight / 2,
        );
        self.window.set_ssthresh(ssthresh);
    }

    /// Applies PETRA's reaction to `signal`, declared by QUIC's packet threshold; returns the
    /// branch taken. [`Petra::react_detected`] with `detected = signal`.
    pub fn react(&mut self, signal: LossSignal) -> PetraDecision {
        self.react_detected(signal, signal)
    }

    /// Applies PETRA's reaction to `signal` of an event QUIC's loss detection declared as
    /// `detected` ([`CongestionEvent::detected`]); returns the branch taken.
    ///
    /// Pure with respect to recovery: callers decide whether the event reduces the window at all
    /// (one reduction per round trip). The bandwidth estimate is read first and reset afterwards
    /// (section 4.1.1).
    pub fn react_detected(&mut self, signal: LossSignal, detected: LossSignal) -> PetraDecision {
        // A loss inside an ACK frame reads the frame's samples so far, as per packet.
        self.frame_rtt.flush(&mut self.rtt);
        let flight = self.in_flight;
        let bdp = self.estimated_bdp();
        self.ssthresh_from_estimate();
        let ssthresh = self.window.ssthresh();
        let rtt_ok = self.rtt_below_estimate();
        // A fast-retransmit-class loss the time threshold declared before the packet threshold
        // could: the counterpart of section 4.2.2's retransmission before the third duplicate
        // ACK ("LastRTT x (4 - count) > Timeout", count < 3).
        let before_third_dup_ack =
            matches!(detected, LossSignal::Timeout { dup_acks } if dup_acks > 0);
        let decision = match signal {
            // Section 4.2.2, "else If (LastRTT *(4-count) > Timeout && !infastRecovery) If
            // (BytesInFlight() > ssthresh) cwnd = ssthresh": no RTT test.
            LossSignal::FastRetransmit
                if before_third_dup_ack && self.config.faster_retransmit() =>
            {
                if flight > ssthresh {
                    self.window.set_cwnd(ssthresh);
                    PetraDecision::FasterRetransmitToSsthresh
                } else {
                    PetraDecision::FasterRetransmitKeep
                }
            }
            // Section 4.2.3: "DiffRtt = LastRtt - ERTT; If (BytesInFlight() > ssthresh &&
            // DiffRtt >= 0) cwnd = ssthresh", for the third duplicate ACK (QUIC's packet
            // threshold).
            LossSignal::FastRetransmit => {
                let rtt_says_random = rtt_ok && self.config.recovery_rtt_test();
                if flight > ssthresh && !rtt_says_random {
                    self.window.set_cwnd(ssthresh);
                    PetraDecision::RecoveryToSsthresh
                } else {
                    PetraDecision::RecoveryKeep
                }
            }
            // Section 4.3.3, the coarse timeout (by default QUIC's persistent congestion).
            LossSignal::Timeout { .. } => {
                // "If (BytesInFlight() < EBW/2 && Last_RTT < ERTT)", EBW read as the estimated
                // BDP (SEBW x MinRTT); without an estimate the test fails.
                let pipe_not_full = bdp.is_some_and(|bdp| flight < bdp / 2);
                if pipe_not_full && rtt_ok {
                    // "cWnd = cWnd + SMSS * SMSS / cWnd" (eq. 4.2).
                    let mss = self.window.mtu();
                    let cwnd = self.window.cwnd();
                    self.window.grow(mss.saturating_mul(mss) / cwnd);
                    PetraDecision::TimeoutGrow
                } else if rtt_ok {
                    // "Else if (Last_RTT < ERTT) cWnd = ssthresh; /*Congestion Avoidance*/".
                    self.window.set_cwnd(ssthresh);
                    PetraDecision::TimeoutToSsthresh
                } else {
                    // "Else /* Congestion */ cWnd = 1; RTO = RTO * 2;" (quinn backs off its PTO).
                    self.window.set_cwnd(0);
                    PetraDecision::TimeoutCollapse
                }
            }
            // ECN (not in the paper): explicit congestion, so no RTT check; never raise cwnd.
            LossSignal::Ecn => {
                self.window.set_cwnd(self.window.cwnd().min(ssthresh));
                PetraDecision::Ecn
            }
        };
        // Section 4.1.1: "Whenever a loss event occurs (timeout occurred, or duplicate ACKs), we
        // reset the EBW value to start a new estimation".
        self.ebw.reset();
        self.ca_acked = 0;
        self.initial = false;
        self.last_decision = Some(decision);
        self.trace(decision, Some(signal), bdp, flight);
        decision
    }

    fn trace(
        &self,
        decision: PetraDecision,
        class: Option<LossSignal>,
        bdp: Option<u64>,
        in_flight: u64,
    ) {
        tracing::debug!(
            target: "cc",
            controller = Self::NAME,
            decision = decision.name(),
            branch = decision.name(),
            class = class.map(|c| c.name()),
            dup_acks = class.and_then(|c| c.dup_acks()),
            cwnd = self.window.cwnd(),
            ssthresh = self.window.ssthresh(),
            in_flight,
            ebw_bps = self.ebw.estimate().map(|b| b.bits_per_second()),
            bdp_bytes = bdp,
            min_rtt_us = self.rtt.base().map(|d| d.as_micros() as u64),
            last_rtt_us = self.rtt.latest().map(|d| d.as_micros() as u64),
            ertt_us = self.ertt_ns.map(|ns| ns / 1_000),
            "window decision"
        );
    }
}

impl CongestionAlgorithm for Petra {
    const NAME: &'static str = "petra";
    const TIMEOUT_READING: TimeoutReading = TimeoutReading::PersistentCongestion;

    fn on_sent(&mut self, _now: Instant, bytes: u64, _last_packet_number: u64) {
        // Sends between ACK frames count in `BytesInFlight()` when a loss timer fires.
        self.in_flight = self.in_flight.saturating_add(bytes);
    }

    fn on_ack(&mut self, ack: &AckSample) {
        self.frame_rtt.on_ack(ack.now, ack.sent, &mut self.rtt);
        self.in_flight = self.in_flight.saturating_sub(ack.bytes);
        self.frame_acked = self.frame_acked.saturating_add(ack.bytes);
        // NewReno: no growth while application-limited or for packets sent before recovery.
        if !ack.app_limited && !self.recovery.contains(ack.sent) {
            self.frame_growth = self.frame_growth.saturating_add(ack.bytes);
        }
    }

    fn on_end_acks(&mut self, end: &AckRoundEnd) {
        self.in_flight = end.in_flight;
        self.frame_rtt.flush(&mut self.rtt);
        if let Some(last) = self.rtt.latest() {
            // RFC 6298 section 2: SRTT = R on the first sample, then (1 - 1/8) SRTT + 1/8 R'.
            let last = saturating_ns(last);
            self.ertt_ns = Some(self.ertt_ns.map_or(last, |srtt| {
                // At most the larger of the two, so it fits in u64 again.
                ((u128::from(srtt) * 7 + u128::from(last)) / 8) as u64
            }));
        }
        let acked = std::mem::take(&mut self.frame_acked);
        let growth = std::mem::take(&mut self.frame_growth);
        if acked > 0 {
            // Eqs. 4.3-4.4: one sample per ACK (here: per ACK frame).
            self.ebw.on_ack(end.now, acked);
        }
        if self.initial
            && let Some(bdp) = self.estimated_bdp()
        {
            // Eq. 4.5, section 4.1.1 (PETRA): ssthresh = SEBW x MinRTT, for the initial slow
            // start ("the ssthresh value is not a constant number ... it varies according to the
            // connection status").
            self.window.set_ssthresh(bdp);
        }
        if growth > 0 {
            let before = self.window.cwnd();
            let decision = self.grow(growth);
            self.last_decision = Some(decision);
            if decision == PetraDecision::FasterStart {
                self.trace(decision, None, self.estimated_bdp(), self.in_flight);
            } else if self.window.cwnd() != before {
                tracing::trace!(
                    target: "cc",
                    controller = Self::NAME,
                    decision = decision.name(),
                    cwnd = self.window.cwnd(),
                    ssthresh = self.window.ssthresh(),
                    "window growth"
                );
            }
        }
    }

    fn on_congestion(&mut self, event: &CongestionEvent) {
        // One reduction per round trip; persistent congestion (the RTO) always reacts.
        if !self.recovery.admits(event) {
            // The same loss episode (section 4.1.1's "loss event"): the estimate stands.
            self.in_flight = self.in_flight.saturating_sub(event.lost_bytes);
            return;
        }
        // BytesInFlight() is read with the lost bytes still in it, as TCP counts them at the
        // third duplicate ACK or the RTO; then they leave the flight.
        self.react_detected(event.signal, event.detected);
        self.in_flight = self.in_flight.saturating_sub(event.lost_bytes);
    }

    fn window_state(&self) -> &Window {
        &self.window
    }

    fn pacing_rate(&self) -> Option<u64> {
        self.ebw
            .pacing_rate(self.config.pacing_gain(), self.window.in_slow_start())
    }

    fn window_state_mut(&mut self) -> &mut Window {
        &mut self.window
    }
}
