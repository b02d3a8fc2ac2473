//! Replays a [`Recording`] into any quinn `Controller`, through quinn's trait.
//!
//! [`Replay::new`] decodes the recording once into a `Vec` of steps holding `Instant`s and an
//! index into a table of real `RttEstimator`s; replaying walks that `Vec` and makes one call per
//! step, with no allocation, no lookup and no decoding in the loop (checked by the
//! `replay_does_not_allocate` test with a counting allocator).
//!
//! The estimators come from an [`RttPalette`]: copies of the estimators quinn passed to a live
//! controller, taken by [`crate::RecordingFactory`] in a run of the recording's own scenario.
//! A recording stores only the readings (`get`, `conservative`, `min`); each is matched to a
//! captured estimator with exactly those readings, or failing that the nearest one
//! ([`RttFidelity`] counts which).

use crate::event::{Event, EventCounts, RttReading};
use crate::format::Recording;
use crate::record::Trace;
use quinn_proto::RttEstimator;
use quinn_proto::congestion::{Controller, ControllerFactory};
use std::collections::HashMap;
use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Real quinn estimators, by their readings.
#[derive(Clone, Default)]
pub struct RttPalette {
    estimators: HashMap<RttReading, RttEstimator>,
}

impl std::fmt::Debug for RttPalette {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "RttPalette({} estimators)", self.estimators.len())
    }
}

impl RttPalette {
    /// An empty palette.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds the estimators a recorded controller saw.
    pub fn add_trace(&mut self, trace: &Trace) {
        self.estimators.extend(trace.estimators.iter().copied());
    }

    /// Estimators held.
    pub fn len(&self) -> usize {
        self.estimators.len()
    }

    /// Whether the palette holds no estimator.
    pub fn is_empty(&self) -> bool {
        self.estimators.is_empty()
    }

    /// The estimator with `reading`, or else the nearest (sum of absolute differences);
    /// `true` when exact.
    pub fn resolve(&self, reading: &RttReading) -> Option<(RttEstimator, bool)> {
        if let Some(e) = self.estimators.get(reading) {
            return Some((*e, true));
        }
        self.estimators
            .iter()
            .min_by_key(|(r, _)| r.distance(reading))
            .map(|(_, e)| (*e, false))
    }
}

/// How closely the estimators passed in a replay match the recorded readings.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RttFidelity {
    /// Distinct consecutive readings in the recording.
    pub readings: u64,
    /// Readings matched by an estimator with exactly the same `get`, `conservative`, `min`.
    pub exact: u64,
    /// Largest distance (sum of absolute differences of the three readings) of a nearest
    /// match, ns (0 when all are exact).
    pub worst_distance_ns: u64,
}

/// A recording could not be prepared for replay.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    /// No estimator to pass to `on_ack`.
    #[error("recording {0}: the RTT palette is empty, so on_ack has no estimator to pass")]
    EmptyPalette(String),
    /// An `on_ack` came before any RTT reading (not a recording made by `RecordingFactory`).
    #[error("recording {0}: on_ack before any RTT reading")]
    AckWithoutRtt(String),
}

/// One pre-decoded callback.
#[derive(Debug, Clone, Copy)]
enum Step {
    Sent {
        now: Instant,
        bytes: u64,
        last_pn: u64,
    },
    Ack {
        now: Instant,
        sent: Instant,
        bytes: u64,
        app_limited: bool,
        rtt: u32,
    },
    EndAcks {
        now: Instant,
        in_flight: u64,
        app_limited: bool,
        largest: Option<u64>,
    },
    Congestion {
        now: Instant,
        sent: Instant,
        persistent: bool,
        lost_bytes: u64,
    },
    Mtu(u16),
}

/// Which callbacks [`Replay::run_timed`] times.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Section {
    /// ACK frames: each maximal run of `on_ack` calls (and any `on_mtu_update` quinn makes
    /// among them) with the `on_end_acks` that closes it, timed as one bracket.
    AckFrames,
    /// Each `on_sent`, one bracket each.
    Sent,
    /// Each `on_congestion_event`, one bracket each.
    Congestion,
}

/// A recording decoded for replay.
#[derive(Clone)]
pub struct Replay {
    name: String,
    origin: Instant,
    initial_mtu: u16,
    steps: Vec<Step>,
    estimators: Vec<RttEstimator>,
    counts: EventCounts,
    fidelity: RttFidelity,
}

impl std::fmt::Debug for Replay {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Replay")
            .field("name", &self.name)
            .field("steps", &self.steps.len())
            .field("counts", &self.counts)
            .field("fidelity", &self.fidelity)
            .finish_non_exhaustive()
    }
}

impl Replay {
    /// Decodes `recording`, taking `on_ack`'s estimators from `palette`.
    pub fn new(recording: &Recording, palette: &RttPalette) -> Result<Self, ReplayError> {
        let name = recording.meta.name.clone();
        if palette.is_empty() {
            return Err(ReplayError::EmptyPalette(name));
        }
        let origin = Instant::now();
        let t = |ns: u64| origin + Duration::from_nanos(ns);
        let mut steps = Vec::with_capacity(recording.events.len());
        let mut estimators = Vec::new();
        let mut fidelity = RttFidelity::default();
        for event in &recording.events {
            steps.push(match *event {
                Event::Rtt(reading) => {
                    let Some((estimator, exact)) = palette.resolve(&reading) else {
                        return Err(ReplayError::EmptyPalette(name));
                    };
                    fidelity.readings += 1;
                    if exact {
                        fidelity.exact += 1;
                    } else {
                        let got = RttReading::of(&estimator);
                        fidelity.worst_distance_ns =
                            fidelity.worst_distance_ns.max(got.distance(&reading));
                    }
                    estimators.push(estimator);
                    continue;
                }
                Event::Sent { at, bytes, last_pn } => Step::Sent {
                    now: t(at),
                    bytes,
                    last_pn,
                },
                Event::Ack {
                    at,
                    sent,
                    bytes,
                    app_limited,
                } => {
                    let Some(rtt) = estimators.len().checked_sub(1) else {
                        return Err(ReplayError::AckWithoutRtt(name));
                    };
                    Step::Ack {
                        now: t(at),
                        sent: t(sent),
                        bytes,
                        app_limited,
                        rtt: u32::try_from(rtt).unwrap_or(u32::MAX),
                    }
                }
                Event::EndAcks {
                    at,
                    in_flight,
                    app_limited,
                    largest_acked,
                } => Step::EndAcks {
                    now: t(at),
                    in_flight,
                    app_limited,
                    largest: largest_acked,
                },
                Event::Congestion {
                    at,
                    sent,
                    persistent,
                    lost_bytes,
                } => Step::Congestion {
                    now: t(at),
                    sent: t(sent),
                    persistent,
                    lost_bytes,
                },
                Event::Mtu { mtu } => Step::Mtu(mtu),
            });
        }
        Ok(Self {
            name,
            origin,
            initial_mtu: recording.meta.initial_mtu,
            steps,
            estimators,
            counts: EventCounts::of(&recording.events),
            fidelity,
        })
    }

    /// The recording's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// How many of each callback the replay makes.
    pub fn counts(&self) -> EventCounts {
        self.counts
    }

    /// How exactly the estimators match the recorded readings.
    pub fn fidelity(&self) -> RttFidelity {
        self.fidelity
    }

    /// A fresh controller from `factory`, built as quinn builds one (at the recording's time
    /// zero, with its initial MTU).
    pub fn build(&self, factory: &Arc<dyn ControllerFactory + Send + Sync>) -> Box<dyn Controller> {
        factory.clone().build(self.origin, self.initial_mtu)
    }

    /// Makes every call of the recording on `controller`, untimed. Returns the final window
    /// (so the calls cannot be optimised away).
    #[inline(never)]
    pub fn run(&self, controller: &mut dyn Controller) -> u64 {
        for step in &self.steps {
            self.call(controller, step);
        }
        black_box(controller.window())
    }

    /// Makes every call of the recording on `controller`, calling `inspect` with the
    /// controller after each (for fidelity checks: compare its window with
    /// [`crate::Trace::windows`]).
    pub fn run_inspect(
        &self,
        controller: &mut dyn Controller,
        mut inspect: impl FnMut(&dyn Controller),
    ) {
        for step in &self.steps {
            self.call(controller, step);
            inspect(controller);
        }
    }

    /// Makes every call of the recording on `controller`, summing the wall time of the calls
    /// in `section` only (see [`Section`]). Each bracket is two `Instant::now()` calls; what
    /// they cost shows in the floor controller's figure.
    #[inline(never)]
    pub fn run_timed(&self, controller: &mut dyn Controller, section: Section) -> Duration {
        match section {
            Section::AckFrames => self.time_frames(controller),
            Section::Sent => self.time_each(controller, |s| matches!(s, Step::Sent { .. })),
            Section::Congestion => {
                self.time_each(controller, |s| matches!(s, Step::Congestion { .. }))
            }
        }
    }

    #[inline(always)]
    fn call(&self, c: &mut dyn Controller, step: &Step) {
        match *step {
            Step::Sent {
                now,
                bytes,
                last_pn,
            } => c.on_sent(now, bytes, last_pn),
            Step::Ack {
                now,
                sent,
                bytes,
                app_limited,
                rtt,
            } => c.on_ack(
                now,
                sent,
                bytes,
                app_limited,
                &self.estimators[rtt as usize],
            ),
            Step::EndAcks {
                now,
                in_flight,
                app_limited,
                largest,
            } => c.on_end_acks(now, in_flight, app_limited, largest),
            Step::Congestion {
                now,
                sent,
                persistent,
                lost_bytes,
            } => c.on_congestion_event(now, sent, persistent, lost_bytes),
            Step::Mtu(mtu) => c.on_mtu_update(mtu),
        }
    }

    fn time_frames(&self, c: &mut dyn Controller) -> Duration {
        let mut total = Duration::ZERO;
        let mut start: Option<Instant> = None;
        for step in &self.steps {
            match step {
                Step::Ack { .. } => {
                    if start.is_none() {
                        start = Some(Instant::now());
                    }
                    self.call(c, step);
                }
                Step::EndAcks { .. } => {
                    let s = start.take().unwrap_or_else(Instant::now);
                    self.call(c, step);
                    total += s.elapsed();
                }
                _ => self.call(c, step),
            }
        }
        total
    }

    fn time_each(&self, c: &mut dyn Controller, timed: impl Fn(&Step) -> bool) -> Duration {
        let mut total = Duration::ZERO;
        for step in &self.steps {
            if timed(step) {
                let s = Instant::now();
                self.call(c, step);
                total += s.elapsed();
            } else {
                self.call(c, step);
            }
        }
        total
    }
}
