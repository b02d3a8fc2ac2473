//! [`crate::Observed`]'s counterpart for noq's `Controller` trait (feature `noq`): a forwarding
//! wrapper that hands every callback, after the wrapped controller handled it, to a
//! [`NoqObserver`]. noq's trait has more callbacks than quinn's (`on_packet_sent`,
//! `on_packet_lost`, `on_cwnd_limited`, `on_spurious_congestion_event`,
//! `on_ack_frequency_update`) and more arguments (the acknowledged and the largest lost packet
//! numbers, the ECN flag); the observer sees them all.

use noq_proto::RttEstimator;
use noq_proto::congestion::{Controller, ControllerMetrics};
use std::any::Any;
use std::time::{Duration, Instant};

/// Sees every callback a noq controller receives, right after the controller handled it.
///
/// As [`crate::Observer`]: every method has an empty default, the controller is passed in its
/// state after the callback, and `Clone` serves `clone_box`.
#[allow(unused_variables)]
pub trait NoqObserver: Clone + Send + Sync + 'static {
    /// After `on_sent`.
    fn sent(&mut self, controller: &dyn Controller, now: Instant, bytes: u64, largest_pn: u64) {}

    /// After `on_packet_sent`.
    fn packet_sent(&mut self, controller: &dyn Controller, now: Instant, bytes: u16, pn: u64) {}

    /// After `on_ack`.
    #[allow(clippy::too_many_arguments)]
    fn ack(
        &mut self,
        controller: &dyn Controller,
        now: Instant,
        sent: Instant,
        bytes: u64,
        pn: u64,
        app_limited: bool,
        rtt: &RttEstimator,
    ) {
    }

    /// After `on_end_acks`.
    fn end_acks(
        &mut self,
        controller: &dyn Controller,
        now: Instant,
        in_flight: u64,
        app_limited: bool,
        largest_acked: Option<u64>,
    ) {
    }

    /// After `on_congestion_event`.
    #[allow(clippy::too_many_arguments)]
    fn congestion_event(
        &mut self,
        controller: &dyn Controller,
        now: Instant,
        sent: Instant,
        is_persistent_congestion: bool,
        is_ecn: bool,
        lost_bytes: u64,
        largest_lost_pn: u64,
    ) {
    }

    /// After `on_packet_lost`.
    fn packet_lost(&mut self, controller: &dyn Controller, bytes: u16, pn: u64, now: Instant) {}

    /// After `on_mtu_update`.
    fn mtu_update(&mut self, controller: &dyn Controller, new_mtu: u16) {}

    /// After `on_cwnd_limited`.
    fn cwnd_limited(&mut self, controller: &dyn Controller) {}

    /// After `on_spurious_congestion_event`.
    fn spurious_congestion_event(&mut self, controller: &dyn Controller) {}

    /// After `on_ack_frequency_update`.
    fn ack_frequency_update(
        &mut self,
        controller: &dyn Controller,
        ack_eliciting_threshold: u64,
        requested_max_ack_delay: Duration,
    ) {
    }

    /// After `metrics()`, which noq reads on its send path (once per transmit attempt and
    /// once per pacing decision) and takes `&self`: an observer that records it needs
    /// interior mutability.
    fn metrics(&self, controller: &dyn Controller, metrics: &ControllerMetrics) {}
}

/// A noq controller wrapped so that `O` sees each of its callbacks.
pub struct NoqObserved<O> {
    inner: Box<dyn Controller>,
    observer: O,
}

impl<O> std::fmt::Debug for NoqObserved<O> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NoqObserved")
            .field("inner", &self.inner)
            .finish_non_exhaustive()
    }
}

impl<O: NoqObserver> NoqObserved<O> {
    /// Wraps `inner`.
    pub fn new(inner: Box<dyn Controller>, observer: O) -> Self {
        Self { inner, observer }
    }

    /// The wrapped controller.
    pub fn inner(&self) -> &dyn Controller {
        self.inner.as_ref()
    }

    /// The observer.
    pub fn observer(&self) -> &O {
        &self.observer
    }

    /// The wrapped controller, unwrapped.
    pub fn into_inner(self) -> Box<dyn Controller> {
        self.inner
    }
}

impl<O: NoqObserver> Controller for NoqObserved<O> {
    fn on_sent(&mut self, now: Instant, bytes: u64, largest_pn: u64) {
        self.inner.on_sent(now, bytes, largest_pn);
        self.observer
            .sent(self.inner.as_ref(), now, bytes, largest_pn);
    }

    fn on_packet_sent(&mut self, now: Instant, bytes: u16, pn: u64) {
        self.inner.on_packet_sent(now, bytes, pn);
        self.observer
            .packet_sent(self.inner.as_ref(), now, bytes, pn);
    }

    fn on_cwnd_limited(&mut self) {
        self.inner.on_cwnd_limited();
        self.observer.cwnd_limited(self.inner.as_ref());
    }

    fn on_ack(
        &mut self,
        now: Instant,
        sent: Instant,
        bytes: u64,
        pn: u64,
        app_limited: bool,
        rtt: &RttEstimator,
    ) {
        self.inner.on_ack(now, sent, bytes, pn, app_limited, rtt);
        self.observer
            .ack(self.inner.as_ref(), now, sent, bytes, pn, app_limited, rtt);
    }

    fn on_end_acks(
        &mut self,
        now: Instant,
        in_flight: u64,
        app_limited: bool,
        largest_packet_num_acked: Option<u64>,
    ) {
        self.inner
            .on_end_acks(now, in_flight, app_limited, largest_packet_num_acked);
        self.observer.end_acks(
            self.inner.as_ref(),
            now,
            in_flight,
            app_limited,
            largest_packet_num_acked,
        );
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
        self.inner.on_congestion_event(
            now,
            sent,
            is_persistent_congestion,
            is_ecn,
            lost_bytes,
            largest_lost_pn,
        );
        self.observer.congestion_event(
            self.inner.as_ref(),
            now,
            sent,
            is_persistent_congestion,
            is_ecn,
            lost_bytes,
            largest_lost_pn,
        );
    }

    fn on_packet_lost(&mut self, lost_bytes: u16, pn: u64, now: Instant) {
        self.inner.on_packet_lost(lost_bytes, pn, now);
        self.observer
            .packet_lost(self.inner.as_ref(), lost_bytes, pn, now);
    }

    fn on_spurious_congestion_event(&mut self) {
        self.inner.on_spurious_congestion_event();
        self.observer.spurious_congestion_event(self.inner.as_ref());
    }

    fn on_mtu_update(&mut self, new_mtu: u16) {
        self.inner.on_mtu_update(new_mtu);
        self.observer.mtu_update(self.inner.as_ref(), new_mtu);
    }

    fn on_ack_frequency_update(
        &mut self,
        ack_eliciting_threshold: u64,
        requested_max_ack_delay: Duration,
    ) {
        self.inner
            .on_ack_frequency_update(ack_eliciting_threshold, requested_max_ack_delay);
        self.observer.ack_frequency_update(
            self.inner.as_ref(),
            ack_eliciting_threshold,
            requested_max_ack_delay,
        );
    }

    fn window(&self) -> u64 {
        self.inner.window()
    }

    fn metrics(&self) -> ControllerMetrics {
        let metrics = self.inner.metrics();
        self.observer.metrics(self.inner.as_ref(), &metrics);
        metrics
    }

    fn clone_box(&self) -> Box<dyn Controller> {
        Box::new(Self {
            inner: self.inner.clone_box(),
            observer: self.observer.clone(),
        })
    }

    fn initial_window(&self) -> u64 {
        self.inner.initial_window()
    }

    fn into_any(self: Box<Self>) -> Box<dyn Any> {
        self
    }
}
