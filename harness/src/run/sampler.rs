//! A recording wrapper around any quinn controller: per-ACK RTT samples, time in slow start and
//! (on request) the congestion window over time, without changing the controller's decisions.
//! ([`ConnectionSamples`] is stack-neutral; noq's wrapper is in `host/noq.rs`.)
//!
//! Every callback is forwarded unchanged to the wrapped controller; after each one the sampler
//! reads the controller's `metrics()`. A controller without an ssthresh (quinn's BBR) has no
//! slow-start time (`None`).

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use cc_core::{Observed, Observer};
use quinn::congestion::{Controller, ControllerFactory, ControllerMetrics};
use quinn_proto::RttEstimator;

use crate::metrics::WindowPoint;

/// Minimum spacing of recorded window points, except that every decrease is recorded.
const TRACE_SPACING: Duration = Duration::from_millis(5);

/// What a sampler recorded for one connection.
#[derive(Debug, Default)]
pub struct ConnectionSamples {
    /// RTT samples in microseconds: one per ACK frame, `now - sent` of the largest newly
    /// acknowledged packet (quinn's latest RTT, before ack-delay adjustment).
    pub rtt_samples_us: Vec<u64>,
    /// Time spent with `cwnd < ssthresh`; `None` for controllers without an ssthresh.
    pub slow_start: Option<Duration>,
    /// Window trajectory (only when tracing was requested).
    pub trace: Option<Vec<WindowPoint>>,
    last_observed: Option<Instant>,
    in_slow_start: Option<bool>,
    last_cwnd: u64,
    last_point: Option<f64>,
    pending_sent: Option<Instant>,
}

impl ConnectionSamples {
    /// An empty recording; `trace` records the window trajectory.
    pub fn new(trace: bool) -> Self {
        Self {
            trace: trace.then(Vec::new),
            ..Self::default()
        }
    }

    /// A packet sent at `sent` was acknowledged (the stacks report them in ascending packet
    /// number, so the last one before [`Self::end_acks`] is the largest).
    pub fn ack(&mut self, sent: Instant) {
        self.pending_sent = Some(sent);
    }

    /// An ACK frame ended at `now`: one RTT sample, then the window.
    pub fn end_acks(&mut self, epoch: Instant, now: Instant, cwnd: u64, ssthresh: Option<u64>) {
        if let Some(sent) = self.pending_sent.take() {
            let sample = now.saturating_duration_since(sent).as_micros();
            self.rtt_samples_us
                .push(u64::try_from(sample).unwrap_or(u64::MAX));
        }
        self.observe(epoch, now, cwnd, ssthresh);
    }

    /// The controller's window and ssthresh after a callback at `now`.
    pub fn observe(&mut self, epoch: Instant, now: Instant, cwnd: u64, ssthresh: Option<u64>) {
        if let (Some(last), Some(true)) = (self.last_observed, self.in_slow_start) {
            let spent = now.saturating_duration_since(last);
            self.slow_start = Some(self.slow_start.unwrap_or_default() + spent);
        }
        self.last_observed = Some(now);
        self.in_slow_start = ssthresh.map(|s| cwnd < s);
        if self.in_slow_start.is_some() && self.slow_start.is_none() {
            self.slow_start = Some(Duration::ZERO);
        }
        if let Some(trace) = &mut self.trace {
            let t = now.saturating_duration_since(epoch).as_secs_f64();
            let due = self
                .last_point
                .is_none_or(|last| t - last >= TRACE_SPACING.as_secs_f64());
            if cwnd != self.last_cwnd && (due || cwnd < self.last_cwnd) {
                trace.push(WindowPoint {
                    t,
                    cwnd,
                    ssthresh: ssthresh.filter(|&s| s < u64::MAX / 2),
                });
                self.last_point = Some(t);
            }
        }
        self.last_cwnd = cwnd;
    }

    /// Closes the slow-start accounting at `end`.
    pub fn finish(&mut self, end: Instant) {
        if let (Some(last), Some(true)) = (self.last_observed, self.in_slow_start) {
            let spent = end.saturating_duration_since(last);
            self.slow_start = Some(self.slow_start.unwrap_or_default() + spent);
        }
        self.last_observed = Some(end);
    }
}

/// Shared handle to a connection's recording.
pub type SamplesHandle = Arc<Mutex<ConnectionSamples>>;

/// The recording behind `handle`, whatever a panicking holder left.
pub fn lock(handle: &SamplesHandle) -> MutexGuard<'_, ConnectionSamples> {
    handle.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Wraps `inner`; every controller it builds is a [`Sampler`].
pub struct MetricsFactory {
    inner: Arc<dyn ControllerFactory + Send + Sync>,
    epoch: Instant,
    trace: bool,
}

impl MetricsFactory {
    /// A probing factory around `inner`; times are measured from `epoch`; `trace` records the
    /// window trajectory.
    pub fn new(
        inner: Arc<dyn ControllerFactory + Send + Sync>,
        epoch: Instant,
        trace: bool,
    ) -> Self {
        Self {
            inner,
            epoch,
            trace,
        }
    }
}

impl ControllerFactory for MetricsFactory {
    fn build(self: Arc<Self>, now: Instant, current_mtu: u16) -> Box<dyn Controller> {
        let recording = ConnectionSamples::new(self.trace);
        let mut observer = SampleObserver {
            recording: Arc::new(Mutex::new(recording)),
            epoch: self.epoch,
        };
        let inner = self.inner.clone().build(now, current_mtu);
        observer.observe(inner.as_ref(), now);
        Box::new(Observed::new(inner, observer))
    }
}

/// The recording wrapper around one connection's controller.
pub type Sampler = Observed<SampleObserver>;

/// Records RTT samples, slow-start time and the window trajectory of the controller it watches.
#[derive(Clone)]
pub struct SampleObserver {
    recording: SamplesHandle,
    epoch: Instant,
}

impl SampleObserver {
    /// The recording (shared with every clone of this observer).
    pub fn recording(&self) -> SamplesHandle {
        self.recording.clone()
    }

    fn observe(&mut self, controller: &dyn Controller, now: Instant) {
        let ControllerMetrics {
            congestion_window,
            ssthresh,
            ..
        } = controller.metrics();
        lock(&self.recording).observe(self.epoch, now, congestion_window, ssthresh);
    }
}

impl Observer for SampleObserver {
    fn sent(&mut self, controller: &dyn Controller, now: Instant, _: u64, _: u64) {
        self.observe(controller, now);
    }

    fn ack(
        &mut self,
        _: &dyn Controller,
        _: Instant,
        sent: Instant,
        _: u64,
        _: bool,
        _: &RttEstimator,
    ) {
        lock(&self.recording).ack(sent);
    }

    fn end_acks(
        &mut self,
        controller: &dyn Controller,
        now: Instant,
        _: u64,
        _: bool,
        _: Option<u64>,
    ) {
        let ControllerMetrics {
            congestion_window,
            ssthresh,
            ..
        } = controller.metrics();
        lock(&self.recording).end_acks(self.epoch, now, congestion_window, ssthresh);
    }

    fn congestion_event(
        &mut self,
        controller: &dyn Controller,
        now: Instant,
        _: Instant,
        _: bool,
        _: u64,
    ) {
        self.observe(controller, now);
    }
}
