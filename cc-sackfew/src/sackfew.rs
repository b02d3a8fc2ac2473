//! SACK-FeW's state and decisions (section 2 of the paper).

use crate::SackFewConfig;
use cc_core::{
    AckSample, CongestionAlgorithm, CongestionEvent, LossSignal, RecoveryEpoch, TimeoutReading,
    Window, scale, trace,
};
use std::sync::Arc;

/// 2^64, the first double `as u64` saturates at.
const TWO_POW_64: f64 = 18_446_744_073_709_551_616.0;

/// The fractional window increment of section 2.1, applied in bytes without losing the fraction
/// of a byte each acknowledgement contributes.
///
/// With `alpha = 0.01` and 1200-byte datagrams, an ACK of one datagram at a 100-datagram window
/// adds 0.12 bytes: truncating each increment to whole bytes would freeze the window forever.
/// The fraction is carried over to the next acknowledgement instead.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FewGrowth {
    /// Growth owed to the window and not yet applied, bytes; always in `[0, 1)`.
    fraction: f64,
}

impl FewGrowth {
    /// Grows `window` for `acked` newly acknowledged bytes; returns the whole bytes added.
    pub fn on_ack(&mut self, window: &mut Window, alpha: f64, acked: u64) -> u64 {
        // Section 2.1 (SACK-FeW): cwnd_new = cwnd_current + alpha / cwnd_current, per ACK, in
        // packets. In bytes, with W = cwnd in bytes and M = the datagram size (the MSS), the
        // window is W / M packets, so one ACK of one segment adds
        //     M x alpha / (W / M) = alpha x M x M / W bytes,
        // and an ACK of `acked` bytes (acked / M segments, byte counting) adds
        //     (acked / M) x alpha x M x M / W = alpha x M x acked / W bytes.
        // Over one round trip about W bytes are acknowledged: the window grows by alpha x M
        // bytes, i.e. by alpha packets per round trip whatever its size.
        //
        // Finite: alpha <= 1, M <= 65535, acked <= 2^64, W >= 2 x M >= 2.
        let cwnd = window.cwnd().max(1) as f64;
        let increment = alpha * window.mtu() as f64 * acked as f64 / cwnd;
        let total = self.fraction + increment;
        if !total.is_finite() {
            // Unreachable with a validated alpha; keep the state sane regardless.
            self.fraction = 0.0;
            return 0;
        }
        // `total` is finite and non-negative: `as` truncates it (saturating at u64::MAX) in a
        // few instructions where `f64::trunc` is a libm call on baseline x86-64 (no SSE4.1),
        // and `whole as f64` is exact (a truncated double is representable). Above 2^64 every
        // double is whole, so the fraction is 0, as `total - total.trunc()` gives.
        let whole = total as u64;
        self.fraction = if total < TWO_POW_64 {
            total - whole as f64
        } else {
            0.0
        };
        let before = window.cwnd();
        // Window clamps at MAX_WINDOW.
        window.grow(whole);
        window.cwnd().saturating_sub(before)
    }

    /// The fraction of a byte owed to the window, in `[0, 1)`.
    pub fn fraction(&self) -> f64 {
        self.fraction
    }

    /// Forgets the owed fraction (after a window reduction).
    pub fn reset(&mut self) {
        self.fraction = 0.0;
    }
}

/// SACK-FeW: QUIC's selective-acknowledgement loss recovery with the fractional window
/// increment `cwnd += alpha / cwnd` per ACK in slow start and congestion avoidance alike.
#[derive(Debug, Clone, PartialEq)]
pub struct SackFew {
    config: Arc<SackFewConfig>,
    /// Congestion window and slow-start threshold, bytes.
    window: Window,
    /// Fractional growth carried between acknowledgements, bytes.
    growth: FewGrowth,
    /// Start of the current recovery period (one reduction per round trip).
    recovery: RecoveryEpoch,
}

/// What a congestion event did to the window, for tracing and tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SackFewDecision {
    /// A loss found from the acknowledgement ranges (packet or time threshold) or an ECN mark:
    /// ssthresh as NewReno, then section 2.2 step 4, `cwnd = min(cwnd, ssthresh)`.
    ReduceToSsthresh,
    /// Persistent congestion (QUIC's counterpart of the RTO): ssthresh as NewReno, window to
    /// the minimum.
    CollapseToMinimum,
}

impl SackFewDecision {
    /// The decision for a loss signal.
    pub fn for_signal(signal: LossSignal) -> Self {
        if signal.is_timeout() {
            Self::CollapseToMinimum
        } else {
            Self::ReduceToSsthresh
        }
    }

    /// A stable name for tracing.
    pub fn name(self) -> &'static str {
        match self {
            Self::ReduceToSsthresh => "reduce_to_ssthresh",
            Self::CollapseToMinimum => "collapse_to_minimum",
        }
    }
}

impl SackFew {
    /// A controller at the start of a connection whose datagrams are `mtu` bytes.
    pub fn new(config: impl Into<Arc<SackFewConfig>>, mtu: u16) -> Self {
        let config = config.into();
        // QUIC's initial window (RFC 9002 section 7.2) and an unbounded ssthresh; the paper
        // leaves TCP's initial values as SACK has them (see the crate's deviations).
        let window = Window::new(config.initial_window_packets(), mtu);
        Self {
            config,
            window,
            growth: FewGrowth::default(),
            recovery: RecoveryEpoch::default(),
        }
    }

    /// The configuration in use.
    pub fn config(&self) -> &SackFewConfig {
        &self.config
    }

    /// The fraction of a byte of growth owed to the window, in `[0, 1)`.
    pub fn pending_growth(&self) -> f64 {
        self.growth.fraction()
    }

    /// Applies the reaction to a loss `signal`; returns the decision taken.
    ///
    /// Pure with respect to time and recovery: callers decide whether the event reduces the
    /// window at all (one reduction per round trip).
    pub fn react(&mut self, signal: LossSignal) -> SackFewDecision {
        let decision = SackFewDecision::for_signal(signal);
        let before = self.window.cwnd();
        // "ssthresh set as NewReno" (RFC 5681 eq. 4; quinn's NewReno): ssthresh = cwnd x 1/2,
        // the factor being `loss_reduction_factor`.
        self.window
            .set_ssthresh(scale(before, self.config.loss_reduction_factor()));
        let cwnd = match decision {
            // Section 2.2 step 4 (SACK-FeW): cwnd_current = minimum(cwnd_current, ssthresh).
            SackFewDecision::ReduceToSsthresh => before.min(self.window.ssthresh()),
            // The RTO: TCP restarts from one segment; QUIC's floor is 2 datagrams.
            SackFewDecision::CollapseToMinimum => 0,
        };
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
}

impl CongestionAlgorithm for SackFew {
    const NAME: &'static str = "sackfew";
    const TIMEOUT_READING: TimeoutReading = TimeoutReading::PersistentCongestion;

    fn on_ack(&mut self, ack: &AckSample) {
        // RFC 9002 sections 7.3.2 and 7.8: no growth during recovery (acknowledgements of
        // packets sent before it began) nor while application-limited.
        if ack.app_limited || self.recovery.contains(ack.sent) {
            return;
        }
        // Section 2.2 step 5 (SACK-FeW): cwnd_new = cwnd_current + alpha / cwnd_current, in
        // slow start and congestion avoidance alike (section 1).
        self.growth
            .on_ack(&mut self.window, self.config.alpha(), ack.bytes);
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
mod tests {
    use super::*;

    #[test]
    fn fraction_stays_in_unit_interval() {
        let mut w = Window::new(10, 1200);
        let mut g = FewGrowth::default();
        for acked in [0, 1, 1200, 65_535, u64::MAX, 7] {
            g.on_ack(&mut w, 1.0, acked);
            assert!((0.0..1.0).contains(&g.fraction()), "{}", g.fraction());
        }
        assert_eq!(w.cwnd(), cc_core::MAX_WINDOW);
    }

    /// The cast-based split equals `f64::trunc`'s, byte for byte, across magnitudes.
    #[test]
    fn growth_matches_trunc() {
        let mut rng = 0x9e37_79b9_7f4a_7c15_u64;
        for cwnd_packets in [2, 10, 100, 10_000, 1_000_000] {
            let mut w = Window::new(cwnd_packets, 1200);
            let mut reference_window = w.clone();
            let mut g = FewGrowth::default();
            let mut reference_fraction = 0.0_f64;
            for _ in 0..10_000 {
                rng = rng.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                let acked = (rng >> 33) % 70_000;
                let alpha = [0.01, 0.5, 1.0][(rng >> 20) as usize % 3];
                let cwnd = reference_window.cwnd().max(1) as f64;
                let total = reference_fraction
                    + alpha * reference_window.mtu() as f64 * acked as f64 / cwnd;
                let whole = total.trunc();
                reference_fraction = total - whole;
                reference_window.grow(whole as u64);
                g.on_ack(&mut w, alpha, acked);
                assert_eq!(g.fraction().to_bits(), reference_fraction.to_bits());
                assert_eq!(w.cwnd(), reference_window.cwnd());
            }
        }
        // Past 2^64 bytes of growth: saturated, no fraction left, as trunc leaves none.
        let mut w = Window::new(10, 1200);
        let mut g = FewGrowth::default();
        g.on_ack(&mut w, 1.0, u64::MAX);
        g.on_ack(&mut w, 1.0, u64::MAX);
        assert_eq!(g.fraction(), 0.0);
    }

    #[test]
    fn alpha_zero_never_grows() {
        let mut w = Window::new(10, 1200);
        let mut g = FewGrowth::default();
        for _ in 0..1000 {
            assert_eq!(g.on_ack(&mut w, 0.0, 1200), 0);
        }
        assert_eq!(w.cwnd(), 12_000);
        assert_eq!(g.fraction(), 0.0);
    }
}
