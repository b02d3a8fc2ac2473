//! One port's controller as a QUIC stack runs it: the algorithm behind its loss classifier,
//! fed by plain-typed callbacks. Each stack's `Controller` trait is implemented for it in one
//! file of [`crate::stack`]; nothing here names a stack.

use crate::{
    AckRoundEnd, AckSample, Classification, CongestionAlgorithm, CongestionEvent, LossClassifier,
    RttSnapshot, SignalConfig, SignalStats, trace,
};
use std::time::Instant;

/// Runs a [`CongestionAlgorithm`] as a QUIC stack's congestion controller: quinn's
/// (feature `quinn`) and noq's (feature `noq`).
///
/// Every callback goes through the [`LossClassifier`] first, so the algorithm sees
/// [`crate::LossSignal`]s instead of the stack's raw `(sent, is_persistent_congestion,
/// lost_bytes)`. Each stack callback has a plain-typed twin here (`on_ack_sample` for `on_ack`)
/// so tests can drive exactly the code the stacks drive without building their
/// `RttEstimator`s.
///
/// To read a running controller's state, pass what the stack hands back
/// (`quinn::Connection::congestion_state()`) to `from_controller` (quinn) or
/// `from_noq_controller` (noq).
#[derive(Debug, Clone)]
pub struct PortController<A> {
    pub(crate) algorithm: A,
    pub(crate) classifier: LossClassifier,
    /// Whether quinn is shown the window plus one byte ([`Self::with_quinn_full_window`]).
    pub(crate) quinn_full_window: bool,
}

impl<A: CongestionAlgorithm> PortController<A> {
    /// Wraps `algorithm`, classifying losses with `signal` from what quinn's callbacks show
    /// (the lost packet's distance is inferred, see [`LossClassifier`]).
    pub fn new(algorithm: A, signal: SignalConfig) -> Self {
        Self {
            algorithm,
            classifier: LossClassifier::with_default_reading(signal, A::TIMEOUT_READING),
            quinn_full_window: false,
        }
    }

    /// Wraps `algorithm` for a stack that names the lost packets (noq): every loss signal is
    /// exact ([`LossClassifier::exact`]).
    pub fn exact(algorithm: A, signal: SignalConfig) -> Self {
        Self {
            algorithm,
            classifier: LossClassifier::exact(signal, A::TIMEOUT_READING),
            quinn_full_window: false,
        }
    }

    /// Shows quinn a window one byte larger than the algorithm's when `full` (default false).
    ///
    /// quinn 0.11 sends a datagram only while `bytes_in_flight + datagram < window` (its check
    /// is `>=` to stop), so a window of exactly N datagrams carries N - 1 of them; noq stops at
    /// `>` and carries N. With this set, the port's window as quinn reads it is one byte more,
    /// which makes quinn's check noq's: every window the papers state in segments carries that
    /// many segments. quinn's own controllers cannot be given the same, so a comparison with
    /// them under this setting favours the port slightly; docs/results/on-noq.md's A/B measures
    /// it. No effect on noq. A port's config carries it (`quinn_full_window`).
    pub fn with_quinn_full_window(mut self, full: bool) -> Self {
        self.quinn_full_window = full;
        self
    }

    /// Whether quinn is shown the window plus one byte.
    pub fn quinn_full_window(&self) -> bool {
        self.quinn_full_window
    }

    /// The algorithm's state.
    pub fn algorithm(&self) -> &A {
        &self.algorithm
    }

    /// The classifier's state.
    pub fn classifier(&self) -> &LossClassifier {
        &self.classifier
    }

    /// Loss signals classified so far.
    pub fn signal_stats(&self) -> SignalStats {
        self.classifier.stats()
    }

    /// `on_sent`, as the stacks call it.
    pub fn handle_sent(&mut self, now: Instant, bytes: u64, last_packet_number: u64) {
        self.classifier.on_sent(now, bytes, last_packet_number);
        self.algorithm.on_sent(now, bytes, last_packet_number);
    }

    /// `on_ack` with the stack's RTT estimator read into a [`RttSnapshot`].
    pub fn on_ack_sample(
        &mut self,
        now: Instant,
        sent: Instant,
        bytes: u64,
        app_limited: bool,
        rtt: RttSnapshot,
    ) {
        self.classifier.on_ack(sent, rtt.smoothed, rtt.conservative);
        self.algorithm.on_ack(&AckSample {
            now,
            sent,
            bytes,
            app_limited,
            rtt,
        });
    }

    /// `on_end_acks`, as the stacks call it.
    pub fn handle_end_acks(
        &mut self,
        now: Instant,
        in_flight: u64,
        app_limited: bool,
        largest_packet_num_acked: Option<u64>,
    ) {
        self.classifier
            .on_end_acks(now, in_flight, largest_packet_num_acked);
        self.algorithm.on_end_acks(&AckRoundEnd {
            now,
            in_flight,
            app_limited,
            largest_acked: largest_packet_num_acked,
        });
    }

    /// `on_congestion_event`, as quinn calls it: classify, then hand the signal on.
    pub fn handle_congestion_event(
        &mut self,
        now: Instant,
        sent: Instant,
        is_persistent_congestion: bool,
        lost_bytes: u64,
    ) {
        let c =
            self.classifier
                .on_congestion_event(now, sent, is_persistent_congestion, lost_bytes);
        self.deliver(now, sent, lost_bytes, &c);
    }

    /// noq's `on_packet_lost`: one lost packet of the detection pass whose congestion event
    /// follows.
    pub fn handle_packet_lost(&mut self, now: Instant, pn: u64) {
        self.classifier.on_packet_lost(now, pn);
    }

    /// noq's `on_congestion_event`, which names the largest lost packet: classify exactly, then
    /// hand the signal on.
    pub fn handle_exact_congestion_event(
        &mut self,
        now: Instant,
        sent: Instant,
        is_persistent_congestion: bool,
        is_ecn: bool,
        lost_bytes: u64,
        largest_lost_pn: u64,
    ) {
        let c = self.classifier.on_exact_congestion_event(
            now,
            sent,
            is_persistent_congestion,
            is_ecn,
            largest_lost_pn,
        );
        self.deliver(now, sent, lost_bytes, &c);
    }

    /// Traces a classified event and hands it to the algorithm.
    fn deliver(&mut self, now: Instant, sent: Instant, lost_bytes: u64, c: &Classification) {
        trace::loss_signal(A::NAME, c);
        self.algorithm.on_congestion(&CongestionEvent {
            now,
            sent,
            lost_bytes,
            signal: c.signal,
            detected: c.detected,
            determined: c.determined,
            persistent: c.persistent,
        });
    }
}
