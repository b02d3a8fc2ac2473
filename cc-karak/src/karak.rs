//! TCP Karak's state and decisions (Table 1 of the paper).

use crate::KarakConfig;
use cc_core::{
    AckSample, CongestionAlgorithm, CongestionEvent, LossSignal, RecoveryEpoch, RenoGrowth,
    TimeoutReading, Window, next_power_of_two, scale, trace,
};
use std::sync::Arc;

/// TCP Karak: NewReno whose multiplicative decrease after a timeout is graded by the number of
/// duplicate ACKs (here: later packets acknowledged) seen before it.
#[derive(Debug, Clone, PartialEq)]
pub struct Karak {
    config: Arc<KarakConfig>,
    /// Congestion window and slow-start threshold, bytes.
    window: Window,
    /// Congestion-avoidance byte counter.
    growth: RenoGrowth,
    /// Start of the current recovery period (one reduction per round trip).
    recovery: RecoveryEpoch,
}

/// Which row of Table 1 a loss took, for tracing and tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KarakDecision {
    /// Three duplicate ACKs: `cwnd = cwnd / 2`.
    FastRetransmit,
    /// Timeout after two duplicate ACKs: `cwnd = cwnd / 4`.
    TimeoutAfterTwo,
    /// Timeout after one duplicate ACK: `cwnd = cwnd / 8`.
    TimeoutAfterOne,
    /// Timeout with no duplicate ACK: `cwnd = 1` (here the minimum window).
    TimeoutAfterNone,
    /// ECN congestion experienced: treated as a fast retransmit (halve).
    Ecn,
}

impl KarakDecision {
    /// The decision for a loss signal.
    pub fn for_signal(signal: LossSignal) -> Self {
        match signal {
            LossSignal::FastRetransmit => Self::FastRetransmit,
            LossSignal::Ecn => Self::Ecn,
            LossSignal::Timeout { dup_acks: 1 } => Self::TimeoutAfterOne,
            LossSignal::Timeout { dup_acks: 2 } => Self::TimeoutAfterTwo,
            // Table 1's "Else" branch: no duplicate ACK, and any other count (d >= 3 reaches a
            // timeout only with a packet threshold above 3, or under the probe-timeout and
            // persistent-congestion readings): cwnd = 1 segment, here the minimum window.
            LossSignal::Timeout { .. } => Self::TimeoutAfterNone,
        }
    }

    /// A stable name for tracing.
    pub fn name(self) -> &'static str {
        match self {
            Self::FastRetransmit => "halve",
            Self::TimeoutAfterTwo => "cut_to_quarter",
            Self::TimeoutAfterOne => "cut_to_eighth",
            Self::TimeoutAfterNone => "cut_to_minimum",
            Self::Ecn => "ecn_halve",
        }
    }
}

impl Karak {
    /// A controller at the start of a connection whose datagrams are `mtu` bytes.
    pub fn new(config: impl Into<Arc<KarakConfig>>, mtu: u16) -> Self {
        let config = config.into();
        // Table 1 "Initially: cwnd = 1, ssthresh = infinite": QUIC starts from its initial
        // window instead (RFC 9002 section 7.2; see the crate's deviations).
        let window = Window::new(config.initial_window_packets(), mtu);
        Self {
            config,
            window,
            growth: RenoGrowth::default(),
            recovery: RecoveryEpoch::default(),
        }
    }

    /// Applies Table 1's reaction to `signal`; returns the row taken.
    ///
    /// Pure with respect to time and recovery: callers decide whether the event reduces the
    /// window at all (one reduction per round trip).
    pub fn react(&mut self, signal: LossSignal) -> KarakDecision {
        let decision = KarakDecision::for_signal(signal);
        let before = self.window.cwnd();
        let c = &self.config;
        let cwnd = match decision {
            // Table 1 "Dup_ACK == 3: cwnd = cwnd / 2" (fast retransmit, then NewReno's
            // fast recovery: ssthresh = cwnd = half).
            KarakDecision::FastRetransmit | KarakDecision::Ecn => {
                scale(before, c.fast_retransmit_factor())
            }
            // Table 1 "Timeout: Dup_ACK == 2: cwnd = cwnd / 4", rounded up to a power of two
            // segments (section 3: "the value of cwnd is reduced to the first power of two
            // value higher than the one eighth or one quarter points").
            KarakDecision::TimeoutAfterTwo => self.graded(before, c.two_dup_ack_factor()),
            // Table 1 "Timeout: Dup_ACK == 1: cwnd = cwnd / 8", rounded likewise.
            KarakDecision::TimeoutAfterOne => self.graded(before, c.one_dup_ack_factor()),
            // Table 1 "Timeout: else cwnd = 1": QUIC's minimum window is 2 datagrams.
            KarakDecision::TimeoutAfterNone => 0,
        };
        let ssthresh = match decision {
            KarakDecision::FastRetransmit | KarakDecision::Ecn => cwnd,
            // After a timeout, ssthresh = half the window before it (NewReno, RFC 5681 eq. 4),
            // so slow start climbs back to half the old window.
            _ => scale(before, 0.5),
        };
        self.window.set_ssthresh(ssthresh);
        self.window.set_cwnd(cwnd);
        self.growth.reset();
        trace::window_decision(
            Self::NAME,
            decision.name(),
            Some(signal),
            self.window.cwnd(),
            self.window.ssthresh(),
        );
        decision
    }

    /// `cwnd x factor`, rounded up to a power of two datagrams when configured.
    fn graded(&self, cwnd: u64, factor: f64) -> u64 {
        let target = scale(cwnd, factor);
        if !self.config.round_to_power_of_two() {
            return target;
        }
        let mtu = self.window.mtu();
        let packets = target.div_ceil(mtu);
        next_power_of_two(packets).saturating_mul(mtu)
    }
}

impl CongestionAlgorithm for Karak {
    const NAME: &'static str = "karak";
    const TIMEOUT_READING: TimeoutReading = TimeoutReading::PersistentCongestion;

    fn on_ack(&mut self, ack: &AckSample) {
        // NewReno: no growth while application-limited or for packets sent before recovery.
        if ack.app_limited || self.recovery.contains(ack.sent) {
            return;
        }
        // Table 1 "New ACK arrives": slow start +1, congestion avoidance +1/cwnd (bytes).
        self.growth.on_ack(&mut self.window, ack.bytes);
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

    fn window_state_mut(&mut self) -> &mut Window {
        &mut self.window
    }
}

#[cfg(test)]
mod decision_tests {
    use super::*;

    #[test]
    fn table_1_rows_including_its_else_branch() {
        let rows = [
            (LossSignal::FastRetransmit, KarakDecision::FastRetransmit),
            (LossSignal::Ecn, KarakDecision::Ecn),
            (LossSignal::PERSISTENT, KarakDecision::TimeoutAfterNone),
            (
                LossSignal::Timeout { dup_acks: 1 },
                KarakDecision::TimeoutAfterOne,
            ),
            (
                LossSignal::Timeout { dup_acks: 2 },
                KarakDecision::TimeoutAfterTwo,
            ),
            // "Else": any other count is the one-segment row, not the quarter.
            (
                LossSignal::Timeout { dup_acks: 3 },
                KarakDecision::TimeoutAfterNone,
            ),
            (
                LossSignal::Timeout { dup_acks: 9 },
                KarakDecision::TimeoutAfterNone,
            ),
        ];
        for (signal, decision) in rows {
            assert_eq!(KarakDecision::for_signal(signal), decision, "{signal}");
        }
    }
}
