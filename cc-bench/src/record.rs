//! The recording wrapper: a `ControllerFactory` around any other that logs every callback its
//! controllers receive, with the arguments, and keeps copies of quinn's `RttEstimator`.

use crate::event::{Event, RttReading, nanos};
use cc_core::{Observed, Observer};
use quinn_proto::RttEstimator;
use quinn_proto::congestion::{Controller, ControllerFactory};
use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Instant;

/// The callbacks one controller received.
#[derive(Clone, Default)]
pub struct Trace {
    /// The `current_mtu` quinn passed to `build` (for a clone: the clone's window source's).
    pub initial_mtu: u16,
    /// Every callback, in order, times relative to `build`.
    pub events: Vec<Event>,
    /// A copy of each estimator quinn passed to `on_ack` whose readings differed from the
    /// previous one, beside its readings (in the order of the [`Event::Rtt`] events).
    ///
    /// `RttEstimator` is `Copy` but has no public constructor: copies taken here are the only
    /// real estimators a replay can pass to quinn's controllers.
    pub estimators: Vec<(RttReading, RttEstimator)>,
    /// The wrapped controller's window after each callback (one per event that is not an
    /// [`Event::Rtt`]), bytes: what a faithful replay must reproduce.
    pub windows: Vec<u64>,
}

impl fmt::Debug for Trace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Trace")
            .field("initial_mtu", &self.initial_mtu)
            .field("events", &self.events.len())
            .field("estimators", &self.estimators.len())
            .field("windows", &self.windows.len())
            .finish()
    }
}

/// What the factory's controllers received, one [`Trace`] per controller built (or cloned).
#[derive(Debug, Default, Clone)]
pub struct RecordLog {
    /// The traces, in the order the controllers were built.
    pub traces: Vec<Trace>,
}

/// Wraps factory `F`; every controller it builds records into a shared [`RecordLog`].
///
/// Install it in place of the controller under observation:
///
/// ```
/// use std::sync::Arc;
/// let recorder = Arc::new(cc_bench::RecordingFactory::new(
///     quinn::congestion::CubicConfig::default(),
/// ));
/// let mut transport = quinn::TransportConfig::default();
/// transport.congestion_controller_factory(recorder.clone());
/// // ... run a connection, then:
/// assert!(recorder.log().traces.is_empty());
/// ```
#[derive(Debug)]
pub struct RecordingFactory<F> {
    inner: Arc<F>,
    log: Arc<Mutex<RecordLog>>,
}

impl<F> RecordingFactory<F> {
    /// A recorder around `inner`.
    pub fn new(inner: F) -> Self {
        Self {
            inner: Arc::new(inner),
            log: Arc::default(),
        }
    }

    /// A copy of everything recorded so far.
    pub fn log(&self) -> RecordLog {
        lock(&self.log).clone()
    }

    /// Takes the recorded traces out, leaving the log empty.
    pub fn take(&self) -> RecordLog {
        std::mem::take(&mut *lock(&self.log))
    }
}

fn lock(log: &Mutex<RecordLog>) -> MutexGuard<'_, RecordLog> {
    log.lock().unwrap_or_else(PoisonError::into_inner)
}

impl<F: ControllerFactory + Send + Sync + 'static> ControllerFactory for RecordingFactory<F> {
    fn build(self: Arc<Self>, now: Instant, current_mtu: u16) -> Box<dyn Controller> {
        let trace = {
            let mut log = lock(&self.log);
            log.traces.push(Trace {
                initial_mtu: current_mtu,
                ..Trace::default()
            });
            log.traces.len() - 1
        };
        let inner = self.inner.clone().build(now, current_mtu);
        Box::new(Observed::new(
            inner,
            Recorder {
                origin: now,
                trace,
                last_rtt: None,
                log: self.log.clone(),
            },
        ))
    }
}

/// Records one controller's callbacks into its trace in the shared log.
struct Recorder {
    /// `now` at build: time zero of the trace.
    origin: Instant,
    /// Index of this controller's trace in the log.
    trace: usize,
    /// Readings of the last estimator recorded.
    last_rtt: Option<RttReading>,
    log: Arc<Mutex<RecordLog>>,
}

impl Clone for Recorder {
    /// A clone (quinn's `clone_box`) records into a trace of its own, starting at the clone.
    fn clone(&self) -> Self {
        let trace = {
            let mut log = lock(&self.log);
            log.traces.push(Trace::default());
            log.traces.len() - 1
        };
        Self {
            origin: self.origin,
            trace,
            last_rtt: None,
            log: self.log.clone(),
        }
    }
}

impl Recorder {
    fn offset(&self, t: Instant) -> u64 {
        nanos(t.saturating_duration_since(self.origin))
    }

    /// Logs a callback that has just been forwarded, with the window it left.
    fn push(&self, controller: &dyn Controller, event: Event) {
        let window = controller.window();
        if let Some(trace) = lock(&self.log).traces.get_mut(self.trace) {
            trace.events.push(event);
            trace.windows.push(window);
        }
    }
}

impl Observer for Recorder {
    fn sent(&mut self, controller: &dyn Controller, now: Instant, bytes: u64, last_pn: u64) {
        let at = self.offset(now);
        self.push(controller, Event::Sent { at, bytes, last_pn });
    }

    fn ack(
        &mut self,
        controller: &dyn Controller,
        now: Instant,
        sent: Instant,
        bytes: u64,
        app_limited: bool,
        rtt: &RttEstimator,
    ) {
        // The estimator the controller was handed, logged ahead of the acknowledgement (the
        // replay hands it over in that order).
        let reading = RttReading::of(rtt);
        if self.last_rtt != Some(reading) {
            self.last_rtt = Some(reading);
            if let Some(trace) = lock(&self.log).traces.get_mut(self.trace) {
                trace.events.push(Event::Rtt(reading));
                trace.estimators.push((reading, *rtt));
            }
        }
        let event = Event::Ack {
            at: self.offset(now),
            sent: self.offset(sent),
            bytes,
            app_limited,
        };
        self.push(controller, event);
    }

    fn end_acks(
        &mut self,
        controller: &dyn Controller,
        now: Instant,
        in_flight: u64,
        app_limited: bool,
        largest_acked: Option<u64>,
    ) {
        let event = Event::EndAcks {
            at: self.offset(now),
            in_flight,
            app_limited,
            largest_acked,
        };
        self.push(controller, event);
    }

    fn congestion_event(
        &mut self,
        controller: &dyn Controller,
        now: Instant,
        sent: Instant,
        persistent: bool,
        lost_bytes: u64,
    ) {
        let event = Event::Congestion {
            at: self.offset(now),
            sent: self.offset(sent),
            persistent,
            lost_bytes,
        };
        self.push(controller, event);
    }

    fn mtu_update(&mut self, controller: &dyn Controller, mtu: u16) {
        self.push(controller, Event::Mtu { mtu });
    }
}
