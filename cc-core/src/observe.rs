//! Watching any quinn controller without changing it: a forwarding wrapper that hands every
//! callback, after the controller has handled it, to an [`Observer`].
//!
//! The harness uses it to record RTT samples and the window over time, the benchmarks to record
//! callback sequences, and the end-to-end tests to check what a controller did in a real
//! connection. The wrapped controller's decisions are untouched: every callback reaches it
//! first and unchanged.

use quinn_proto::RttEstimator;
use quinn_proto::congestion::{Controller, ControllerMetrics};
use std::any::Any;
use std::time::Instant;

/// Sees every callback a controller receives, right after the controller handled it.
///
/// Every method has an empty default, so an observer implements only what it needs. The
/// controller is passed in its state *after* the callback (read `window()`, `metrics()`).
/// `Clone` serves `clone_box`: a clone of an [`Observed`] controller gets a clone of the
/// observer (share state through an `Arc` when clones must record into the same place).
#[allow(unused_variables)]
pub trait Observer: Clone + Send + Sync + 'static {
    /// After `on_sent`.
    fn sent(&mut self, controller: &dyn Controller, now: Instant, bytes: u64, last_pn: u64) {}

    /// After `on_ack`.
    fn ack(
        &mut self,
        controller: &dyn Controller,
        now: Instant,
        sent: Instant,
        bytes: u64,
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
    fn congestion_event(
        &mut self,
        controller: &dyn Controller,
        now: Instant,
        sent: Instant,
        is_persistent_congestion: bool,
        lost_bytes: u64,
    ) {
    }

    /// After `on_mtu_update`.
    fn mtu_update(&mut self, controller: &dyn Controller, new_mtu: u16) {}
}

/// A controller wrapped so that `O` sees each of its callbacks.
pub struct Observed<O> {
    inner: Box<dyn Controller>,
    observer: O,
}

impl<O: Observer> Observed<O> {
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

    /// The observer, to change.
    pub fn observer_mut(&mut self) -> &mut O {
        &mut self.observer
    }

    /// The wrapped controller, unwrapped.
    pub fn into_inner(self) -> Box<dyn Controller> {
        self.inner
    }
}

impl<O: Observer> Controller for Observed<O> {
    fn on_sent(&mut self, now: Instant, bytes: u64, last_packet_number: u64) {
        self.inner.on_sent(now, bytes, last_packet_number);
        self.observer
            .sent(self.inner.as_ref(), now, bytes, last_packet_number);
    }

    fn on_ack(
        &mut self,
        now: Instant,
        sent: Instant,
        bytes: u64,
        app_limited: bool,
        rtt: &RttEstimator,
    ) {
        self.inner.on_ack(now, sent, bytes, app_limited, rtt);
        self.observer
            .ack(self.inner.as_ref(), now, sent, bytes, app_limited, rtt);
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
        lost_bytes: u64,
    ) {
        self.inner
            .on_congestion_event(now, sent, is_persistent_congestion, lost_bytes);
        self.observer.congestion_event(
            self.inner.as_ref(),
            now,
            sent,
            is_persistent_congestion,
            lost_bytes,
        );
    }

    fn on_mtu_update(&mut self, new_mtu: u16) {
        self.inner.on_mtu_update(new_mtu);
        self.observer.mtu_update(self.inner.as_ref(), new_mtu);
    }

    fn window(&self) -> u64 {
        self.inner.window()
    }

    fn metrics(&self) -> ControllerMetrics {
        self.inner.metrics()
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
