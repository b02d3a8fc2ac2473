//! A recording wrapper around any quinn controller: per-ACK RTT samples, time in slow start and
//! (on request) the congestion window over time, without changing the controller's decisions.
//!
//! Every callback is forwarded unchanged to the wrapped controller; after each one the probe
//! reads the controller's `metrics()`. A controller without an ssthresh (quinn's BBR) has no
//! slow-start time (`None`).

use std::any::Any;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use quinn::congestion::{Controller, ControllerFactory, ControllerMetrics};
use quinn_proto::RttEstimator;

/// Minimum spacing of recorded window points, except that every decrease is recorded.
const TRACE_SPACING: Duration = Duration::from_millis(5);

/// One point of the window trajectory.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
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
pub struct Recording {
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

impl Recording {
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
pub type RecordingHandle = Arc<Mutex<Recording>>;

fn lock(handle: &RecordingHandle) -> MutexGuard<'_, Recording> {
    handle.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Wraps `inner`; every controller it builds is a [`Probe`].
pub struct ProbeFactory {
    inner: Arc<dyn ControllerFactory + Send + Sync>,
    epoch: Instant,
    trace: bool,
}

impl ProbeFactory {
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

impl ControllerFactory for ProbeFactory {
    fn build(self: Arc<Self>, now: Instant, current_mtu: u16) -> Box<dyn Controller> {
        let recording = Recording {
            trace: self.trace.then(Vec::new),
            ..Recording::default()
        };
        let mut probe = Probe {
            inner: self.inner.clone().build(now, current_mtu),
            recording: Arc::new(Mutex::new(recording)),
            epoch: self.epoch,
        };
        probe.observe(now);
        Box::new(probe)
    }
}

/// The recording wrapper around one connection's controller.
pub struct Probe {
    inner: Box<dyn Controller>,
    recording: RecordingHandle,
    epoch: Instant,
}

impl Probe {
    /// The recording (shared with every clone of this probe).
    pub fn recording(&self) -> RecordingHandle {
        self.recording.clone()
    }

    /// A copy of the wrapped controller (for its loss-signal statistics).
    pub fn inner(&self) -> Box<dyn Controller> {
        self.inner.clone_box()
    }

    fn observe(&mut self, now: Instant) {
        let metrics = self.inner.metrics();
        lock(&self.recording).observe(self.epoch, now, &metrics);
    }
}

impl Controller for Probe {
    fn on_sent(&mut self, now: Instant, bytes: u64, last_packet_number: u64) {
        self.inner.on_sent(now, bytes, last_packet_number);
        self.observe(now);
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
        // quinn acknowledges newly acked packets in ascending packet-number order, so the last
        // one before `on_end_acks` is the largest.
        lock(&self.recording).pending_sent = Some(sent);
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
        {
            let mut recording = lock(&self.recording);
            if let Some(sent) = recording.pending_sent.take() {
                let sample = now.saturating_duration_since(sent).as_micros();
                recording
                    .rtt_samples_us
                    .push(u64::try_from(sample).unwrap_or(u64::MAX));
            }
        }
        self.observe(now);
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
        self.observe(now);
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
        Box::new(Self {
            inner: self.inner.clone_box(),
            recording: self.recording.clone(),
            epoch: self.epoch,
        })
    }

    fn initial_window(&self) -> u64 {
        self.inner.initial_window()
    }

    fn into_any(self: Box<Self>) -> Box<dyn Any> {
        self
    }
}
