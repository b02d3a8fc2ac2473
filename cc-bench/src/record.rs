//! The recording wrapper: a controller factory around any other that logs every callback its
//! controllers receive, with the arguments, and keeps copies of the stack's `RttEstimator`.
//! Each stack's factory and observer impls are in [`crate::stack`].

use crate::event::{Event, RttReading, nanos};
use crate::stack::HostStack;
use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Instant;

/// The callbacks one controller received.
pub struct Trace<S: HostStack> {
    /// The `current_mtu` the stack passed to `build` (0 for a clone).
    pub initial_mtu: u16,
    /// Every callback, in order, times relative to `build`.
    pub events: Vec<Event>,
    /// A copy of each estimator the stack passed to `on_ack` whose readings differed from the
    /// previous one, beside its readings (in the order of the [`Event::Rtt`] events).
    ///
    /// The estimators are `Copy` but have no public constructor: copies taken here are the
    /// only real estimators a replay can pass to the stack's controllers.
    pub estimators: Vec<(RttReading, S::Estimator)>,
    /// The wrapped controller's window after each callback (one per event that is not an
    /// [`Event::Rtt`]), bytes: what a faithful replay must reproduce.
    pub windows: Vec<u64>,
}

impl<S: HostStack> Default for Trace<S> {
    fn default() -> Self {
        Self {
            initial_mtu: 0,
            events: Vec::new(),
            estimators: Vec::new(),
            windows: Vec::new(),
        }
    }
}

impl<S: HostStack> Clone for Trace<S> {
    fn clone(&self) -> Self {
        Self {
            initial_mtu: self.initial_mtu,
            events: self.events.clone(),
            estimators: self.estimators.clone(),
            windows: self.windows.clone(),
        }
    }
}

impl<S: HostStack> fmt::Debug for Trace<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Trace")
            .field("stack", &S::NAME)
            .field("initial_mtu", &self.initial_mtu)
            .field("events", &self.events.len())
            .field("estimators", &self.estimators.len())
            .field("windows", &self.windows.len())
            .finish()
    }
}

/// What the factory's controllers received, one [`Trace`] per controller built (or cloned).
pub struct RecordLog<S: HostStack> {
    /// The traces, in the order the controllers were built.
    pub traces: Vec<Trace<S>>,
}

impl<S: HostStack> Default for RecordLog<S> {
    fn default() -> Self {
        Self { traces: Vec::new() }
    }
}

impl<S: HostStack> Clone for RecordLog<S> {
    fn clone(&self) -> Self {
        Self {
            traces: self.traces.clone(),
        }
    }
}

impl<S: HostStack> fmt::Debug for RecordLog<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RecordLog")
            .field("traces", &self.traces)
            .finish()
    }
}

/// Wraps a factory of stack `S`; every controller it builds records into a shared
/// [`RecordLog`].
///
/// Install it in place of the controller under observation:
///
/// ```
/// use cc_bench::{Quinn, RecordingFactory};
/// use std::sync::Arc;
/// let recorder = Arc::new(RecordingFactory::<Quinn>::new(Arc::new(
///     quinn::congestion::CubicConfig::default(),
/// )));
/// let mut transport = quinn::TransportConfig::default();
/// transport.congestion_controller_factory(recorder.clone());
/// // ... run a connection, then:
/// assert!(recorder.log().traces.is_empty());
/// ```
///
/// On noq, `RecordingFactory::<Noq>` around a `noq::congestion` factory, the same way.
pub struct RecordingFactory<S: HostStack> {
    inner: Arc<S::Factory>,
    log: Arc<Mutex<RecordLog<S>>>,
}

impl<S: HostStack> fmt::Debug for RecordingFactory<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RecordingFactory")
            .field("stack", &S::NAME)
            .finish_non_exhaustive()
    }
}

impl<S: HostStack> RecordingFactory<S> {
    /// A recorder around `inner`.
    pub fn new(inner: Arc<S::Factory>) -> Self {
        Self {
            inner,
            log: Arc::default(),
        }
    }

    /// A copy of everything recorded so far.
    pub fn log(&self) -> RecordLog<S> {
        lock(&self.log).clone()
    }

    /// Takes the recorded traces out, leaving the log empty.
    pub fn take(&self) -> RecordLog<S> {
        std::mem::take(&mut *lock(&self.log))
    }

    pub(crate) fn inner(&self) -> &Arc<S::Factory> {
        &self.inner
    }

    pub(crate) fn log_handle(&self) -> Arc<Mutex<RecordLog<S>>> {
        self.log.clone()
    }
}

fn lock<S: HostStack>(log: &Mutex<RecordLog<S>>) -> MutexGuard<'_, RecordLog<S>> {
    log.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Records one controller's callbacks into its trace in the shared log (the observer each
/// stack's recording factory attaches).
pub struct Recorder<S: HostStack> {
    /// `now` at build: time zero of the trace.
    origin: Instant,
    /// Index of this controller's trace in the log.
    trace: usize,
    /// Readings of the last estimator recorded.
    last_rtt: Option<RttReading>,
    log: Arc<Mutex<RecordLog<S>>>,
}

impl<S: HostStack> Clone for Recorder<S> {
    /// A clone (the stack's `clone_box`) records into a trace of its own, starting at the
    /// clone.
    fn clone(&self) -> Self {
        Self {
            origin: self.origin,
            trace: new_trace(&self.log, 0),
            last_rtt: None,
            log: self.log.clone(),
        }
    }
}

fn new_trace<S: HostStack>(log: &Mutex<RecordLog<S>>, initial_mtu: u16) -> usize {
    let mut log = lock(log);
    log.traces.push(Trace {
        initial_mtu,
        ..Trace::default()
    });
    log.traces.len() - 1
}

impl<S: HostStack> Recorder<S> {
    /// A recorder for a controller built at `now` with `initial_mtu`, in a new trace.
    pub(crate) fn start(log: Arc<Mutex<RecordLog<S>>>, now: Instant, initial_mtu: u16) -> Self {
        Self {
            origin: now,
            trace: new_trace(&log, initial_mtu),
            last_rtt: None,
            log,
        }
    }

    /// `t` as nanoseconds since the controller was built.
    pub(crate) fn offset(&self, t: Instant) -> u64 {
        nanos(t.saturating_duration_since(self.origin))
    }

    /// Logs a callback that has just been forwarded, with the window it left.
    pub(crate) fn push(&self, window: u64, event: Event) {
        if let Some(trace) = lock(&self.log).traces.get_mut(self.trace) {
            trace.events.push(event);
            trace.windows.push(window);
        }
    }

    /// Logs the estimator an `on_ack` is handed, ahead of the acknowledgement (the replay
    /// hands it over in that order), if its readings changed.
    pub(crate) fn rtt(&mut self, rtt: &S::Estimator) {
        let reading = S::reading(rtt);
        if self.last_rtt != Some(reading) {
            self.last_rtt = Some(reading);
            if let Some(trace) = lock(&self.log).traces.get_mut(self.trace) {
                trace.events.push(Event::Rtt(reading));
                trace.estimators.push((reading, *rtt));
            }
        }
    }
}
