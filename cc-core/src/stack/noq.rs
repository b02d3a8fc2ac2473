//! The ports as noq 1.x controllers (iroh's QUIC, forked from quinn): the one place noq's
//! `Controller` and `ControllerFactory` traits are implemented.
//!
//! noq passes what quinn 0.11 hides: each lost packet through `on_packet_lost` and the largest
//! one with each congestion event, so the classifier reads `d` off the pass's earliest lost
//! packet instead of inferring it ([`crate::LossClassifier::exact`]): every loss signal is
//! determined.
//!
//! What the ports do not use: `on_packet_sent` (the algorithms count transmit passes, as on
//! quinn), `on_cwnd_limited`, `on_spurious_congestion_event` (no paper undoes a reduction) and
//! `on_ack_frequency_update`. Probe timeouts are inferred as on quinn: noq does not report them
//! to a controller either.

use crate::{CongestionAlgorithm, PortConfig, PortController, PortFactory, RttSnapshot, Transport};
use noq_proto::congestion::{Controller, ControllerFactory, ControllerMetrics};
use std::any::Any;
use std::sync::Arc;
use std::time::Instant;

impl<A: CongestionAlgorithm> PortController<A> {
    /// The port's state inside a controller noq built, or `None` if `controller` runs another
    /// algorithm (pass `noq::Connection::congestion_state()`).
    pub fn from_noq_controller(controller: Box<dyn Controller>) -> Option<Box<Self>> {
        controller.into_any().downcast::<Self>().ok()
    }
}

impl<C: PortConfig> ControllerFactory for PortFactory<C> {
    fn build(self: Arc<Self>, _now: Instant, current_mtu: u16) -> Box<dyn Controller> {
        let config = self.config_arc();
        let signal = config.signal().clone();
        let algorithm = C::new_algorithm(config, current_mtu);
        Box::new(PortController::exact(algorithm, signal))
    }
}

impl Transport for noq_proto::TransportConfig {
    fn install_port<C: PortConfig>(&mut self, config: C) {
        let signal = config.signal();
        self.packet_threshold(signal.packet_threshold())
            .time_threshold(signal.time_threshold());
        self.congestion_controller_factory(Arc::new(PortFactory::new(config)));
    }
}

impl RttSnapshot {
    /// Reads noq's estimator.
    pub fn from_noq(rtt: &noq_proto::RttEstimator) -> Self {
        Self {
            smoothed: rtt.get(),
            conservative: rtt.conservative(),
            min: rtt.min(),
        }
    }
}

impl<A: CongestionAlgorithm> Controller for PortController<A> {
    fn on_sent(&mut self, now: Instant, bytes: u64, largest_pn: u64) {
        self.handle_sent(now, bytes, largest_pn);
    }

    fn on_ack(
        &mut self,
        now: Instant,
        sent: Instant,
        bytes: u64,
        _pn: u64,
        app_limited: bool,
        rtt: &noq_proto::RttEstimator,
    ) {
        self.on_ack_sample(now, sent, bytes, app_limited, RttSnapshot::from_noq(rtt));
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
        is_ecn: bool,
        lost_bytes: u64,
        largest_lost_pn: u64,
    ) {
        self.handle_exact_congestion_event(
            now,
            sent,
            is_persistent_congestion,
            is_ecn,
            lost_bytes,
            largest_lost_pn,
        );
    }

    fn on_packet_lost(&mut self, _lost_bytes: u16, pn: u64, now: Instant) {
        self.handle_packet_lost(now, pn);
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
        // noq paces with this rate (bytes per second); the ports' rates are bits per second.
        m.pacing_rate = self.algorithm.pacing_rate().map(|bits| bits / 8);
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
