//! A recording wrapper around any quinn controller: per-ACK RTT samples, time in slow start and
//! (on request) the congestion window over time, without changing the controller's decisions.
//!
//! Every callback is forwarded unchanged to the wrapped controller; after each one the probe
//! reads the controller's `metrics()`. A controller without an ssthresh (quinn's BBR) has no
//! slow-start time (`None`).

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use cc_core::{Observed, Observer};
use quinn::congestion::{Controller, ControllerFactory, ControllerMetrics};
use quinn_proto::RttEstimator;

/// Minimum spacing of recorded window points, except that every decrease is recorded.
const TRACE_SPACING: Duration = Duration::from_millis(5);

/// One point of the window trajectory.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct WindowPoint {
    /// Seconds since the run's start (link time).
    pub t: f64,
    /// Congestion window, bytes.
    pub cwnd: u64,
    /// Slow-start threshold, bytes (`None` when the controller has none or it is unbounded).
    pub ssthresh: Option<u64>,
}

/// What a probe recorded for one connection.
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
    fn observe(&mut self, epoch: Instant, now: Instant, metrics: &ControllerMetrics) {
        if let (Some(last), Some(true)) = (self.last_observed, self.in_slow_start) {
            let spent = now.saturating_duration_since(last);
            self.slow_start = Some(self.slow_start.unwrap_or_default() + spent);
        }
        self.last_observed = Some(now);
        self.in_slow_start = metrics.ssthresh.map(|s| metrics.congestion_window < s);
        if self.in_slow_start.is_some() && self.slow_start.is_none() {
            self.slow_start = Some(Duration::ZERO);
        }
        let cwnd = metrics.congestion_window;
        if let Some(trace) = &mut self.trace {
            let t = now.saturating_duration_since(epoch).as_secs_f64();
            let due = self
                .last_point
                .is_none_or(|last| t - last >= TRACE_SPACING.as_secs_f64());
            if cwnd != self.last_cwnd && (due || cwnd < self.last_cwnd) {
                trace.push(WindowPoint {
                    t,
                    cwnd,
                    ssthresh: metrics.ssthresh.filter(|&s| s < u64::MAX / 2),
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

fn lock(handle: &SamplesHandle) -> MutexGuard<'_, ConnectionSamples> {
    handle.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Wraps `inner`; every controller it builds is a [`Probe`].
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
        let recording = ConnectionSamples {
            trace: self.trace.then(Vec::new),
            ..ConnectionSamples::default()
        };
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
pub type Probe = Observed<SampleObserver>;

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
        let metrics = controller.metrics();
        lock(&self.recording).observe(self.epoch, now, &metrics);
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
        // quinn acknowledges newly acked packets in ascending packet-number order, so the last
        // one before `on_end_acks` is the largest.
        lock(&self.recording).pending_sent = Some(sent);
    }

    fn end_acks(
        &mut self,
        controller: &dyn Controller,
        now: Instant,
        _: u64,
        _: bool,
        _: Option<u64>,
    ) {
        {
            let mut recording = lock(&self.recording);
            if let Some(sent) = recording.pending_sent.take() {
                let sample = now.saturating_duration_since(sent).as_micros();
                recording
                    .rtt_samples_us
                    .push(u64::try_from(sample).unwrap_or(u64::MAX));
            }
        }
        self.observe(controller, now);
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
