//! A controller factory that wraps another and records what its controllers did in a real
//! connection: how many were built, acknowledgements and congestion events seen, and the
//! window's range. End-to-end tests install it in a `quinn::TransportConfig` in place of the
//! controller under test.

use quinn_proto::congestion::{Controller, ControllerFactory, ControllerMetrics};
use std::any::Any;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

/// What the probed controllers did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct ProbeLog {
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

/// Wraps `F`, recording into a shared [`ProbeLog`].
#[derive(Debug)]
pub struct ProbeFactory<F> {
    inner: Arc<F>,
    log: Arc<Mutex<ProbeLog>>,
}

impl<F> ProbeFactory<F> {
    /// A probe around `inner`.
    pub fn new(inner: F) -> Self {
        Self {
            inner: Arc::new(inner),
            log: Arc::new(Mutex::new(ProbeLog {
                ssthresh_always_reported: true,
                ..ProbeLog::default()
            })),
        }
    }

    /// What has been recorded so far.
    pub fn log(&self) -> ProbeLog {
        self.log
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

impl<F: ControllerFactory + Send + Sync + 'static> ControllerFactory for ProbeFactory<F> {
    fn build(self: Arc<Self>, now: Instant, current_mtu: u16) -> Box<dyn Controller> {
        self.log
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .built += 1;
        Box::new(Probe {
            inner: self.inner.clone().build(now, current_mtu),
            log: self.log.clone(),
        })
    }
}

struct Probe {
    inner: Box<dyn Controller>,
    log: Arc<Mutex<ProbeLog>>,
}

impl Probe {
    fn record(&self, congestion: bool, ack: bool) {
        let mut log = self.log.lock().unwrap_or_else(PoisonError::into_inner);
        let w = self.inner.window();
        log.min_window = Some(log.min_window.map_or(w, |m| m.min(w)));
        log.max_window = log.max_window.max(w);
        log.ssthresh_always_reported &= self.inner.metrics().ssthresh.is_some();
        log.congestion_events += u64::from(congestion);
        log.acks += u64::from(ack);
    }
}

impl Controller for Probe {
    fn on_sent(&mut self, now: Instant, bytes: u64, last_packet_number: u64) {
        self.inner.on_sent(now, bytes, last_packet_number);
    }

    fn on_ack(
        &mut self,
        now: Instant,
        sent: Instant,
        bytes: u64,
        app_limited: bool,
        rtt: &quinn_proto::RttEstimator,
    ) {
        self.inner.on_ack(now, sent, bytes, app_limited, rtt);
        self.record(false, true);
    }

    fn on_end_acks(
        &mut self,
        now: Instant,
        in_flight: u64,
        app_limited: bool,
        largest: Option<u64>,
    ) {
        self.inner.on_end_acks(now, in_flight, app_limited, largest);
        self.record(false, false);
    }

    fn on_congestion_event(&mut self, now: Instant, sent: Instant, persistent: bool, lost: u64) {
        self.inner.on_congestion_event(now, sent, persistent, lost);
        self.record(true, false);
    }

    fn on_mtu_update(&mut self, new_mtu: u16) {
        self.inner.on_mtu_update(new_mtu);
    }

    fn window(&self) -> u64 {
        self.inner.window()
    }

    fn metrics(&self) -> ControllerMetrics {
        self.inner.metrics()
    }

    fn clone_box(&self) -> Box<dyn Controller> {
        Box::new(Probe {
            inner: self.inner.clone_box(),
            log: self.log.clone(),
        })
    }

    fn initial_window(&self) -> u64 {
        self.inner.initial_window()
    }

    fn into_any(self: Box<Self>) -> Box<dyn Any> {
        self
    }
}
