//! A controller factory that wraps another and records what its controllers did in a real
//! connection: how many were built, acknowledgements and congestion events seen, and the
//! window's range. End-to-end tests install it in a `quinn::TransportConfig` in place of the
//! controller under test.

use crate::{Observed, Observer};
use quinn_proto::RttEstimator;
use quinn_proto::congestion::{Controller, ControllerFactory};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

/// What the watched controllers did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct WatchLog {
    /// Controllers the factory built.
    pub built: u32,
    /// `on_ack` calls.
    pub acks: u64,
    /// `on_congestion_event` calls.
    pub congestion_events: u64,
    /// Smallest window seen after any callback, bytes.
    pub min_window: Option<u64>,
    /// Largest window seen after any callback, bytes.
    pub max_window: u64,
    /// Whether `metrics()` reported ssthresh every time it was read.
    pub ssthresh_always_reported: bool,
}

/// Wraps `F`, recording into a shared [`WatchLog`].
#[derive(Debug)]
pub struct WatchFactory<F> {
    inner: Arc<F>,
    log: Arc<Mutex<WatchLog>>,
}

impl<F> WatchFactory<F> {
    /// A watch around `inner`.
    pub fn new(inner: F) -> Self {
        Self {
            inner: Arc::new(inner),
            log: Arc::new(Mutex::new(WatchLog {
                ssthresh_always_reported: true,
                ..WatchLog::default()
            })),
        }
    }

    /// What has been recorded so far.
    pub fn log(&self) -> WatchLog {
        self.log
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

impl<F: ControllerFactory + Send + Sync + 'static> ControllerFactory for WatchFactory<F> {
    fn build(self: Arc<Self>, now: Instant, current_mtu: u16) -> Box<dyn Controller> {
        self.log
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .built += 1;
        let inner = self.inner.clone().build(now, current_mtu);
        Box::new(Observed::new(inner, Watcher(self.log.clone())))
    }
}

/// Records into the shared log after every callback.
#[derive(Clone)]
struct Watcher(Arc<Mutex<WatchLog>>);

impl Watcher {
    fn record(&self, controller: &dyn Controller, congestion: bool, ack: bool) {
        let mut log = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let w = controller.window();
        log.min_window = Some(log.min_window.map_or(w, |m| m.min(w)));
        log.max_window = log.max_window.max(w);
        log.ssthresh_always_reported &= controller.metrics().ssthresh.is_some();
        log.congestion_events += u64::from(congestion);
        log.acks += u64::from(ack);
    }
}

impl Observer for Watcher {
    fn ack(
        &mut self,
        c: &dyn Controller,
        _: Instant,
        _: Instant,
        _: u64,
        _: bool,
        _: &RttEstimator,
    ) {
        self.record(c, false, true);
    }

    fn end_acks(&mut self, c: &dyn Controller, _: Instant, _: u64, _: bool, _: Option<u64>) {
        self.record(c, false, false);
    }

    fn congestion_event(&mut self, c: &dyn Controller, _: Instant, _: Instant, _: bool, _: u64) {
        self.record(c, true, false);
    }
}
