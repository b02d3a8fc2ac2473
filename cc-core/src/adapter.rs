//! The one place quinn's `Controller` trait is implemented (moving to quinn 0.12 touches only
//! this file).

use crate::{
    AckRoundEnd, AckSample, CongestionAlgorithm, CongestionEvent, LossClassifier, RttSnapshot,
    SignalConfig, SignalStats, trace,
};
use quinn_proto::congestion::{Controller, ControllerMetrics};
use std::any::Any;
use std::time::Instant;

/// Runs a [`CongestionAlgorithm`] as a quinn congestion controller.
///
/// Every callback goes through the [`LossClassifier`] first, so the algorithm sees
/// [`crate::LossSignal`]s instead of quinn's raw `(sent, is_persistent_congestion, lost_bytes)`.
/// Each quinn callback has a plain-typed twin here (`on_ack_sample` for `on_ack`) so tests can
/// drive exactly the code quinn drives without building quinn's `RttEstimator`.
///
/// To read a running controller's state, pass what quinn hands back
/// (`quinn::Connection::congestion_state()`) to [`Self::from_controller`].
#[derive(Debug, Clone)]
pub struct QuinnAdapter<A> {
    algorithm: A,
    classifier: LossClassifier,
}

impl<A: CongestionAlgorithm> QuinnAdapter<A> {
    /// Wraps `algorithm`, classifying losses with `signal`.
    pub fn new(algorithm: A, signal: SignalConfig) -> Self {
        Self {
            algorithm,
            classifier: LossClassifier::with_default_reading(signal, A::TIMEOUT_READING),
        }
    }

    /// The port's state inside a controller quinn built, or `None` if `controller` runs
    /// another algorithm (pass `quinn::Connection::congestion_state()`).
    pub fn from_controller(controller: Box<dyn Controller>) -> Option<Box<Self>> {
        controller.into_any().downcast::<Self>().ok()
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

    /// `on_sent`, as quinn calls it.
    pub fn handle_sent(&mut self, now: Instant, bytes: u64, last_packet_number: u64) {
        self.classifier.on_sent(now, bytes, last_packet_number);
        self.algorithm.on_sent(now, bytes, last_packet_number);
    }

    /// `on_ack` with quinn's RTT estimator read into a [`RttSnapshot`].
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

    /// `on_end_acks`, as quinn calls it.
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
        trace::loss_signal(A::NAME, &c);
        self.algorithm.on_congestion(&CongestionEvent {
            now,
            sent,
            lost_bytes,
            signal: c.signal,
            determined: c.determined,
            persistent: c.persistent,
        });
    }
}

impl<A: CongestionAlgorithm> Controller for QuinnAdapter<A> {
    fn on_sent(&mut self, now: Instant, bytes: u64, last_packet_number: u64) {
        self.handle_sent(now, bytes, last_packet_number);
    }

    fn on_ack(
        &mut self,
        now: Instant,
        sent: Instant,
        bytes: u64,
        app_limited: bool,
        rtt: &quinn_proto::RttEstimator,
    ) {
        self.on_ack_sample(now, sent, bytes, app_limited, RttSnapshot::from_quinn(rtt));
    }

    fn on_end_acks(
        &mut self,
        now: Instant,
        in_flight: u64,
        app_limited: bool,
        largest_packet_num_acked: Option<u64>,
    ) {
        self.handle_end_acks(now, in_flight, app_limited, largest_packet_num_acked);
    }

    fn on_congestion_event(
        &mut self,
        now: Instant,
        sent: Instant,
        is_persistent_congestion: bool,
        lost_bytes: u64,
    ) {
        self.handle_congestion_event(now, sent, is_persistent_congestion, lost_bytes);
    }

    fn on_mtu_update(&mut self, new_mtu: u16) {
        self.algorithm.on_mtu_update(new_mtu);
    }

    fn window(&self) -> u64 {
        self.algorithm.window()
    }

    fn metrics(&self) -> ControllerMetrics {
        let mut m = ControllerMetrics::default();
        m.congestion_window = self.algorithm.window();
        m.ssthresh = Some(self.algorithm.ssthresh());
        m.pacing_rate = self.algorithm.pacing_rate();
        m
    }

    fn clone_box(&self) -> Box<dyn Controller> {
        Box::new(self.clone())
    }

    fn initial_window(&self) -> u64 {
        self.algorithm.initial_window()
    }

    fn into_any(self: Box<Self>) -> Box<dyn Any> {
        self
    }
}
