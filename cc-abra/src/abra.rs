//! ABRA NewReno's state and decisions (sections 3 to 5 of the paper).

use crate::AbraConfig;
use crate::backoff::SrttRange;
use cc_core::{
    AckRoundEnd, AckSample, CongestionAlgorithm, CongestionEvent, LossSignal, MAX_WINDOW,
    RecoveryEpoch, RenoGrowth, TimeoutReading, Window, scale, trace,
};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What ABRA saved at a persistent-congestion event: section 4, "saving the values of
/// congestion window, slow start threshold and smoothed round trip time, when the
/// retransmission timer expires".
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SavedState {
    /// Congestion window before the collapse, bytes.
    pub cwnd: u64,
    /// Slow-start threshold before the collapse, bytes.
    pub ssthresh: u64,
    /// Smoothed RTT when the event was declared; `None` if none had been measured.
    pub srtt: Option<Duration>,
    /// The backoff factor for `srtt` at the event, in `[1, 2]` (section 4).
    pub backoff: f64,
    /// When the latest persistent-congestion event was declared. The restore waits for the
    /// acknowledgement of a packet sent after it.
    pub event: Instant,
}

/// Counters of ABRA's timeout handling.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AbraStats {
    /// Persistent-congestion events (the paper's retransmission timeouts).
    pub persistent_congestion: u64,
    /// Restores applied (the first acknowledgement of a packet sent after the event).
    pub restores: u64,
    /// Pending restores dropped because a loss on the repaired path came first.
    pub cancelled_restores: u64,
}

/// Which branch a congestion event or acknowledgement took, for tracing and tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AbraDecision {
    /// A loss (fast retransmit or time threshold): NewReno's `ssthresh = cwnd / 2`,
    /// `cwnd = ssthresh`.
    Halve,
    /// An ECN congestion-experienced mark: as [`AbraDecision::Halve`].
    EcnHalve,
    /// Persistent congestion with no restore pending: save cwnd, ssthresh and srtt, then
    /// collapse as NewReno (`ssthresh = cwnd / 2`, window to the minimum).
    SaveAndCollapse,
    /// Persistent congestion while a restore is pending: keep the state saved before the
    /// outage, collapse again, and wait for a packet sent after this event.
    CollapseAgain,
    /// The first acknowledgement of a packet sent after persistent congestion: restore
    /// `cwnd = saved cwnd / 2`, `ssthresh = saved ssthresh / 4`.
    Restore,
}

impl AbraDecision {
    /// A stable name for tracing.
    pub fn name(self) -> &'static str {
        match self {
            Self::Halve => "halve",
            Self::EcnHalve => "ecn_halve",
            Self::SaveAndCollapse => "save_and_collapse",
            Self::CollapseAgain => "collapse_again",
            Self::Restore => "restore",
        }
    }
}

/// ABRA NewReno: NewReno that saves its state at a retransmission timeout (here: persistent
/// congestion) and returns to half of it when the route comes back, and computes the adaptive
/// backoff factor from the smoothed RTT.
#[derive(Debug, Clone, PartialEq)]
pub struct Abra {
    config: Arc<AbraConfig>,
    /// Congestion window and slow-start threshold, bytes.
    window: Window,
    /// Congestion-avoidance byte counter.
    growth: RenoGrowth,
    /// Start of the current recovery period (one reduction per round trip).
    recovery: RecoveryEpoch,
    /// Smoothed-RTT history for the backoff factor.
    srtt: SrttRange,
    /// Whether quinn's estimator holds a measurement: set by the first `on_end_acks`, after
    /// which quinn updates it; the `on_ack` calls before show quinn's configured initial RTT.
    rtt_measured: bool,
    /// State saved at persistent congestion, until it is restored.
    saved: Option<SavedState>,
    /// Timeout-handling counters.
    stats: AbraStats,
}

impl Abra {
    /// A controller at the start of a connection whose datagrams are `mtu` bytes.
    pub fn new(config: impl Into<Arc<AbraConfig>>, mtu: u16) -> Self {
        let config = config.into();
        // Section 3 step 1 (NewReno) starts from a few segments with ssthresh unbounded; QUIC
        // starts from its initial window (RFC 9002 section 7.2).
        let window = Window::new(config.initial_window_packets(), mtu);
        let srtt = SrttRange::new(config.initial_min_srtt(), config.initial_max_srtt());
        Self {
            config,
            window,
            growth: RenoGrowth::default(),
            recovery: RecoveryEpoch::default(),
            srtt,
            rtt_measured: false,
            saved: None,
            stats: AbraStats::default(),
        }
    }

    /// The configuration in use.
    pub fn config(&self) -> &AbraConfig {
        &self.config
    }

    /// ABRA's backoff factor for the latest smoothed RTT, in `[1, 2]`:
    /// `1 + (last_srtt - min_srtt) / (max_srtt - min_srtt)` (section 4; section 5 step 5
    /// recomputes it at every measurement). 2 (binary backoff) before any RTT measurement.
    ///
    /// **quinn does not apply it**: quinn-proto 0.11 fixes its probe-timeout backoff at `2^n`
    /// and gives a congestion controller no hook into it. It is computed, traced and exposed
    /// here so that experiments can report it.
    pub fn backoff(&self) -> f64 {
        self.srtt.backoff()
    }

    /// The smoothed-RTT history (`min_srtt`, `max_srtt`, `last_srtt`).
    pub fn srtt_range(&self) -> &SrttRange {
        &self.srtt
    }

    /// The state saved at persistent congestion, while its restore is pending.
    pub fn saved(&self) -> Option<&SavedState> {
        self.saved.as_ref()
    }

    /// Timeout-handling counters.
    pub fn stats(&self) -> &AbraStats {
        &self.stats
    }

    /// Applies the reaction to a loss `signal` declared at `now`; returns the decision taken.
    ///
    /// Pure with respect to recovery: callers decide whether the event reduces the window at
    /// all (one reduction per round trip).
    pub fn react(&mut self, signal: LossSignal, now: Instant) -> AbraDecision {
        let before = self.window.cwnd();
        let factor = self.config.loss_reduction_factor();
        let decision = if signal.is_timeout() {
            self.stats.persistent_congestion += 1;
            match &mut self.saved {
                // Another timeout before the route came back: the saved state is the one from
                // before the outage; only the event time moves on.
                Some(saved) => {
                    saved.event = now;
                    AbraDecision::CollapseAgain
                }
                None => {
                    // Section 4 (ABRA): save cwnd, ssthresh and srtt when the retransmission
                    // timer expires.
                    self.saved = Some(SavedState {
                        cwnd: before,
                        ssthresh: self.window.ssthresh(),
                        srtt: self.srtt.last(),
                        backoff: self.srtt.backoff(),
                        event: now,
                    });
                    AbraDecision::SaveAndCollapse
                }
            }
        } else {
            // A reduction on the repaired path: the state saved before the outage no longer
            // describes it.
            if self.saved.take().is_some() {
                self.stats.cancelled_restores += 1;
            }
            if signal == LossSignal::Ecn {
                AbraDecision::EcnHalve
            } else {
                AbraDecision::Halve
            }
        };
        // Section 3 step 4 (NewReno): SS_threshold = cwnd / 2 (`loss_reduction_factor`).
        self.window.set_ssthresh(scale(before, factor));
        let cwnd = match decision {
            // Section 3 step 4 (NewReno), three duplicate ACKs: cwnd = SS_threshold.
            AbraDecision::Halve | AbraDecision::EcnHalve => self.window.ssthresh(),
            // Section 3 step 4 (NewReno), retransmission timeout: cwnd = initial; for QUIC's
            // persistent congestion the minimum window (RFC 9002 section 7.6.2).
            _ => 0,
        };
        self.window.set_cwnd(cwnd);
        self.growth.reset();
        self.trace(decision, Some(signal));
        decision
    }

    /// Restores half the saved window and a quarter of the saved ssthresh, if a restore is
    /// pending; returns whether it did.
    fn restore(&mut self) -> bool {
        let Some(saved) = self.saved.take() else {
            return false;
        };
        // ABRA's restore (its original rule, see the crate docs): return to the state before
        // the timeout with cwnd and ssthresh divided by 2 and 4; never below the minimum
        // window (Window clamps). An outage before any loss saved an unbounded ssthresh, whose
        // quarter is unbounded too: slow start would then run without a limit from half the
        // saved window. The saved window, the most the old route carried, stands in for it.
        let ssthresh = if saved.ssthresh >= MAX_WINDOW {
            saved.cwnd
        } else {
            saved.ssthresh
        };
        self.window
            .set_cwnd(scale(saved.cwnd, self.config.restore_cwnd_factor()));
        self.window
            .set_ssthresh(scale(ssthresh, self.config.restore_ssthresh_factor()));
        self.growth.reset();
        self.stats.restores += 1;
        tracing::debug!(
            target: "cc",
            controller = Self::NAME,
            decision = AbraDecision::Restore.name(),
            saved_cwnd = saved.cwnd,
            saved_ssthresh = saved.ssthresh,
            cwnd = self.window.cwnd(),
            ssthresh = self.window.ssthresh(),
            "abra restore"
        );
        true
    }

    fn trace(&self, decision: AbraDecision, class: Option<LossSignal>) {
        trace::window_decision(
            Self::NAME,
            decision.name(),
            class,
            self.window.cwnd(),
            self.window.ssthresh(),
        );
        if let Some(saved) = &self.saved
            && matches!(
                decision,
                AbraDecision::SaveAndCollapse | AbraDecision::CollapseAgain
            )
        {
            tracing::debug!(
                target: "cc",
                controller = Self::NAME,
                decision = decision.name(),
                saved_cwnd = saved.cwnd,
                saved_ssthresh = saved.ssthresh,
                saved_srtt_us = saved.srtt.map(|d| d.as_micros() as u64),
                backoff = self.srtt.backoff(),
                min_srtt_us = self.srtt.min().as_micros() as u64,
                max_srtt_us = self.srtt.max().as_micros() as u64,
                applied_by_quinn = false,
                "abra backoff"
            );
        }
    }
}

impl CongestionAlgorithm for Abra {
    const NAME: &'static str = "abra";
    const TIMEOUT_READING: TimeoutReading = TimeoutReading::PersistentCongestion;

    fn on_ack(&mut self, ack: &AckSample) {
        // Section 5 step 2: the smoothed RTT (quinn's, RFC 9002 section 5.3), feeding min_srtt,
        // max_srtt and last_srtt (section 4).
        if self.rtt_measured {
            self.srtt.observe(ack.rtt.smoothed);
        }
        // The first acknowledgement of a packet sent after persistent congestion: the route is
        // back (the original ABRA: "an Ack for a retransmitted packet").
        if self.saved.is_some_and(|s| ack.sent > s.event) && self.restore() {
            return;
        }
        // NewReno: no growth while application-limited or for packets sent before recovery.
        if ack.app_limited || self.recovery.contains(ack.sent) {
            return;
        }
        // Section 3 steps 2-3 (NewReno): slow start +1 segment per ACK, congestion avoidance
        // +segsize x segsize / cwnd (byte counting).
        self.growth.on_ack(&mut self.window, ack.bytes);
    }

    fn on_end_acks(&mut self, end: &AckRoundEnd) {
        // quinn updates its RTT estimator right after this call when the frame acknowledged a
        // new largest packet; from the next frame on, `on_ack` shows a measured smoothed RTT.
        if end.largest_acked.is_some() {
            self.rtt_measured = true;
        }
    }

    fn on_congestion(&mut self, event: &CongestionEvent) {
        // One reduction per round trip; persistent congestion (the RTO) always reacts.
        if !self.recovery.admits(event) {
            return;
        }
        self.react(event.signal, event.now);
    }

    fn window_state(&self) -> &Window {
        &self.window
    }

    fn window_state_mut(&mut self) -> &mut Window {
        &mut self.window
    }
}
