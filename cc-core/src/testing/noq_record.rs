//! noq's own record of its loss detection, for [`super::GroundTruth`] (features `testing` and
//! `noq`).
//!
//! noq passes each lost packet number to `on_packet_lost` and each ACK frame's largest
//! acknowledged packet number to `on_end_acks`. [`NoqLossRecord`] wraps any noq controller
//! factory; its controllers log those arguments verbatim (target `cc_truth`, trace level) and
//! forward every call unchanged, so the ground truth is what noq said, recorded outside the
//! classifier.

use noq_proto::RttEstimator;
use noq_proto::congestion::{Controller, ControllerFactory, ControllerMetrics};
use std::any::Any;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::NOQ_RECORD_TARGET as TARGET;

/// A noq controller factory whose controllers log noq's loss-detection arguments.
pub struct NoqLossRecord {
    inner: Arc<dyn ControllerFactory + Send + Sync>,
}

impl std::fmt::Debug for NoqLossRecord {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NoqLossRecord").finish_non_exhaustive()
    }
}

impl NoqLossRecord {
    /// Wraps `inner`.
    pub fn new(inner: Arc<dyn ControllerFactory + Send + Sync>) -> Arc<Self> {
        Arc::new(Self { inner })
    }
}

impl ControllerFactory for NoqLossRecord {
    fn build(self: Arc<Self>, now: Instant, current_mtu: u16) -> Box<dyn Controller> {
        Box::new(Recorded {
            inner: Arc::clone(&self.inner).build(now, current_mtu),
        })
    }
}

#[derive(Debug)]
struct Recorded {
    inner: Box<dyn Controller>,
}

impl Controller for Recorded {
    fn on_sent(&mut self, now: Instant, bytes: u64, largest_pn: u64) {
        self.inner.on_sent(now, bytes, largest_pn);
    }

    fn on_packet_sent(&mut self, now: Instant, bytes: u16, pn: u64) {
        self.inner.on_packet_sent(now, bytes, pn);
    }

    fn on_cwnd_limited(&mut self) {
        self.inner.on_cwnd_limited();
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
    }

    fn on_end_acks(
        &mut self,
        now: Instant,
        in_flight: u64,
        app_limited: bool,
        largest_packet_num_acked: Option<u64>,
    ) {
        if let Some(largest) = largest_packet_num_acked {
            tracing::trace!(target: TARGET, largest, "ack frame");
        }
        self.inner
            .on_end_acks(now, in_flight, app_limited, largest_packet_num_acked);
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
    }

    fn on_packet_lost(&mut self, lost_bytes: u16, pn: u64, now: Instant) {
        tracing::trace!(target: TARGET, pn, "packet lost");
        self.inner.on_packet_lost(lost_bytes, pn, now);
    }

    fn on_spurious_congestion_event(&mut self) {
        self.inner.on_spurious_congestion_event();
    }

    fn on_mtu_update(&mut self, new_mtu: u16) {
        self.inner.on_mtu_update(new_mtu);
    }

    fn on_ack_frequency_update(
        &mut self,
        ack_eliciting_threshold: u64,
        requested_max_ack_delay: Duration,
    ) {
        self.inner
            .on_ack_frequency_update(ack_eliciting_threshold, requested_max_ack_delay);
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
        })
    }

    fn initial_window(&self) -> u64 {
        self.inner.initial_window()
    }

    fn into_any(self: Box<Self>) -> Box<dyn Any> {
        self.inner.into_any()
    }
}
