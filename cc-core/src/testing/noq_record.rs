//! noq's own record of its loss detection, for [`super::GroundTruth`] (features `testing` and
//! `noq`).
//!
//! noq passes each lost packet number to `on_packet_lost` and each ACK frame's largest
//! acknowledged packet number to `on_end_acks`. [`NoqLossRecord`] wraps any noq controller
//! factory; its controllers log those arguments verbatim (target `cc_truth`, trace level) and
//! forward every call unchanged, so the ground truth is what noq said, recorded outside the
//! classifier.

use crate::{NoqObserved, NoqObserver};
use noq_proto::congestion::{Controller, ControllerFactory};
use std::sync::Arc;
use std::time::Instant;

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
        let inner = Arc::clone(&self.inner).build(now, current_mtu);
        Box::new(NoqObserved::new(inner, Record))
    }
}

/// Logs what noq passed, after the controller handled it (the order of the calls is noq's:
/// `on_end_acks`, then each `on_packet_lost`, then `on_congestion_event`).
#[derive(Debug, Clone)]
struct Record;

impl NoqObserver for Record {
    fn end_acks(
        &mut self,
        _: &dyn Controller,
        _: Instant,
        _: u64,
        _: bool,
        largest_acked: Option<u64>,
    ) {
        if let Some(largest) = largest_acked {
            tracing::trace!(target: TARGET, largest, "ack frame");
        }
    }

    fn packet_lost(&mut self, _: &dyn Controller, _: u16, pn: u64, _: Instant) {
        tracing::trace!(target: TARGET, pn, "packet lost");
    }
}
