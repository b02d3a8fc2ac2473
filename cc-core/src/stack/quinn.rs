//! The ports as quinn 0.11 controllers: the one place quinn's `Controller` and
//! `ControllerFactory` traits are implemented (moving to quinn 0.12 touches only this file).
//!
//! quinn reports only the send time of a congestion event's largest lost packet, so the
//! classifier infers the lost packet's distance ([`crate::LossClassifier`]).

use crate::{CongestionAlgorithm, PortConfig, PortController, PortFactory, RttSnapshot, Transport};
use quinn_proto::congestion::{Controller, ControllerFactory, ControllerMetrics};
use std::any::Any;
use std::sync::Arc;
use std::time::Instant;

impl<A: CongestionAlgorithm> PortController<A> {
    /// The port's state inside a controller quinn built, or `None` if `controller` runs
    /// another algorithm (pass `quinn::Connection::congestion_state()`).
    pub fn from_controller(controller: Box<dyn Controller>) -> Option<Box<Self>> {
        controller.into_any().downcast::<Self>().ok()
    }
}

impl<C: PortConfig> ControllerFactory for PortFactory<C> {
    fn build(self: Arc<Self>, _now: Instant, current_mtu: u16) -> Box<dyn Controller> {
        let config = self.config_arc();
        let signal = config.signal().clone();
        let full = config.quinn_full_window();
        let algorithm = C::new_algorithm(config, current_mtu);
        Box::new(PortController::new(algorithm, signal).with_quinn_full_window(full))
    }
}

impl Transport for quinn_proto::TransportConfig {
    fn install_port<C: PortConfig>(&mut self, config: C) {
        let signal = config.signal();
        self.packet_threshold(signal.packet_threshold())
            .time_threshold(signal.time_threshold());
        self.congestion_controller_factory(Arc::new(PortFactory::new(config)));
    }
}

impl RttSnapshot {
    /// Reads quinn's estimator.
    #[inline]
    pub fn from_quinn(rtt: &quinn_proto::RttEstimator) -> Self {
        Self {
            smoothed: rtt.get(),
            conservative: rtt.conservative(),
            min: rtt.min(),
        }
    }
}

impl<A: CongestionAlgorithm> Controller for PortController<A> {
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
        // quinn stops sending at `in_flight + datagram >= window`; one byte more lets a window
        // of N datagrams carry N (PortController::with_quinn_full_window).
        let full = u64::from(self.quinn_full_window);
        self.algorithm.window().saturating_add(full)
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
