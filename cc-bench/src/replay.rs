//! Replays a [`Recording`] into any controller of the stack it was recorded on, through the
//! stack's `Controller` trait ([`HostStack::call`]).
//!
//! [`Replay::new`] decodes the recording once into a `Vec` of steps holding `Instant`s and an
//! index into a table of real `RttEstimator`s; replaying walks that `Vec` and makes one call per
//! step, with no allocation, no lookup and no decoding in the loop (checked by the
//! `replay_does_not_allocate` test with a counting allocator).
//!
//! The estimators come from an [`RttPalette`]: copies of the estimators the stack passed to a live
//! controller, taken by [`crate::RecordingFactory`] in a run of the recording's own scenario.
//! A recording stores only the readings (`get`, `conservative`, `min`); each is matched to a
//! captured estimator with exactly those readings, or failing that the nearest one
//! ([`RttFidelity`] counts which).

use crate::event::{Event, EventCounts, RttReading};
use crate::format::Recording;
use crate::record::Trace;
use crate::stack::HostStack;
use std::collections::HashMap;
use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Real estimators of stack `S`, by their readings.
pub struct RttPalette<S: HostStack> {
    estimators: HashMap<RttReading, S::Estimator>,
}

impl<S: HostStack> Default for RttPalette<S> {
    fn default() -> Self {
        Self {
            estimators: HashMap::new(),
        }
    }
}

impl<S: HostStack> Clone for RttPalette<S> {
    fn clone(&self) -> Self {
        Self {
            estimators: self.estimators.clone(),
        }
    }
}

impl<S: HostStack> std::fmt::Debug for RttPalette<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "RttPalette<{}>({} estimators)",
            S::NAME,
            self.estimators.len()
        )
    }
}

impl<S: HostStack> RttPalette<S> {
    /// An empty palette.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds the estimators a recorded controller saw.
    pub fn add_trace(&mut self, trace: &Trace<S>) {
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
    pub fn resolve(&self, reading: &RttReading) -> Option<(S::Estimator, bool)> {
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
    /// The recording was made on another stack, or holds a call this stack does not make.
    #[error(
        "recording {name}: recorded on {recorded}, which makes calls {replay}'s controllers do not have (event {index}: {event:?})"
    )]
    WrongStack {
        /// The recording.
        name: String,
        /// The stack it was recorded on.
        recorded: String,
        /// The stack asked to replay it.
        replay: &'static str,
        /// The first event the stack cannot deliver.
        index: usize,
        /// That event.
        event: Event,
    },
}

/// One pre-decoded callback: an [`Event`] with its times as `Instant`s, ready for
/// [`HostStack::call`]. Arguments one stack does not pass are zero in a recording of the other.
#[derive(Debug, Clone, Copy)]
pub enum Step {
    /// `on_sent`.
    Sent {
        /// `now`.
        now: Instant,
        /// Bytes in the transmit pass.
        bytes: u64,
        /// Its last packet number.
        last_pn: u64,
    },
    /// `on_ack`.
    Ack {
        /// `now`.
        now: Instant,
        /// When the packet was sent.
        sent: Instant,
        /// Its size.
        bytes: u64,
        /// Its number (noq).
        pn: u64,
        /// `app_limited`.
        app_limited: bool,
        /// Index of the estimator in the replay's table.
        rtt: u32,
    },
    /// `on_end_acks`.
    EndAcks {
        /// `now`.
        now: Instant,
        /// Bytes in flight.
        in_flight: u64,
        /// `app_limited`.
        app_limited: bool,
        /// Largest acknowledged packet number.
        largest: Option<u64>,
    },
    /// `on_congestion_event`.
    Congestion {
        /// `now`.
        now: Instant,
        /// Send time of the largest lost packet.
        sent: Instant,
        /// `is_persistent_congestion`.
        persistent: bool,
        /// `is_ecn` (noq).
        ecn: bool,
        /// Bytes lost.
        lost_bytes: u64,
        /// Largest lost packet number (noq).
        largest_lost_pn: u64,
    },
    /// `on_mtu_update`.
    Mtu(u16),
    /// noq's `on_packet_sent`.
    PacketSent {
        /// `now`.
        now: Instant,
        /// The packet's size.
        bytes: u16,
        /// Its number.
        pn: u64,
    },
    /// noq's `on_packet_lost`.
    PacketLost {
        /// `now`.
        now: Instant,
        /// The packet's size.
        bytes: u16,
        /// Its number.
        pn: u64,
    },
    /// noq's `on_cwnd_limited`.
    CwndLimited,
    /// noq's `on_spurious_congestion_event`.
    SpuriousCongestion,
    /// noq's `on_ack_frequency_update`.
    AckFrequency {
        /// `ack_eliciting_threshold`.
        threshold: u64,
        /// `requested_max_ack_delay`.
        max_ack_delay: Duration,
    },
    /// A `metrics()` read (noq).
    Metrics,
}

impl Step {
    /// Part of the send path: `on_sent` and (noq) `on_packet_sent`, `on_cwnd_limited` and the
    /// `metrics()` reads.
    fn is_send_path(&self) -> bool {
        matches!(
            self,
            Self::Sent { .. } | Self::PacketSent { .. } | Self::CwndLimited | Self::Metrics
        )
    }

    /// Part of a loss: `on_congestion_event` and (noq) `on_packet_lost`.
    fn is_loss(&self) -> bool {
        matches!(self, Self::Congestion { .. } | Self::PacketLost { .. })
    }
}

/// Which callbacks [`Replay::run_timed`] times.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Section {
    /// ACK frames: each maximal run of `on_ack` calls (and any `on_mtu_update` the stack makes
    /// among them) with the `on_end_acks` that closes it, timed as one bracket.
    AckFrames,
    /// The send path, one bracket per call: each `on_sent` and, on noq, each
    /// `on_packet_sent`, `on_cwnd_limited` and `metrics()` read.
    Sent,
    /// Losses, one bracket per call: each `on_congestion_event` and, on noq, each
    /// `on_packet_lost`.
    Congestion,
}

/// A recording decoded for replay into stack `S`'s controllers.
pub struct Replay<S: HostStack> {
    name: String,
    origin: Instant,
    initial_mtu: u16,
    steps: Vec<Step>,
    estimators: Vec<S::Estimator>,
    counts: EventCounts,
    fidelity: RttFidelity,
}

impl<S: HostStack> Clone for Replay<S> {
    fn clone(&self) -> Self {
        Self {
            name: self.name.clone(),
            origin: self.origin,
            initial_mtu: self.initial_mtu,
            steps: self.steps.clone(),
            estimators: self.estimators.clone(),
            counts: self.counts,
            fidelity: self.fidelity,
        }
    }
}

impl<S: HostStack> std::fmt::Debug for Replay<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Replay")
            .field("stack", &S::NAME)
            .field("name", &self.name)
            .field("steps", &self.steps.len())
            .field("counts", &self.counts)
            .field("fidelity", &self.fidelity)
            .finish_non_exhaustive()
    }
}

impl<S: HostStack> Replay<S> {
    /// Decodes `recording`, taking `on_ack`'s estimators from `palette`. Refuses a recording
    /// made on another stack.
    pub fn new(recording: &Recording, palette: &RttPalette<S>) -> Result<Self, ReplayError> {
        let name = recording.meta.name.clone();
        let wrong_stack = |index: usize, event: Event| ReplayError::WrongStack {
            name: name.clone(),
            recorded: recording.meta.stack.clone(),
            replay: S::NAME,
            index,
            event,
        };
        if recording.meta.stack != S::NAME {
            let first = recording.events.first().copied().unwrap_or(Event::Metrics);
            return Err(wrong_stack(0, first));
        }
        if palette.is_empty() {
            return Err(ReplayError::EmptyPalette(name));
        }
        let origin = Instant::now();
        let t = |ns: u64| origin + Duration::from_nanos(ns);
        let mut steps = Vec::with_capacity(recording.events.len());
        let mut estimators = Vec::new();
        let mut fidelity = RttFidelity::default();
        for (index, event) in recording.events.iter().enumerate() {
            if !S::delivers(event) {
                return Err(wrong_stack(index, *event));
            }
            steps.push(match *event {
                Event::Rtt(reading) => {
                    let Some((estimator, exact)) = palette.resolve(&reading) else {
                        return Err(ReplayError::EmptyPalette(name));
                    };
                    fidelity.readings += 1;
                    if exact {
                        fidelity.exact += 1;
                    } else {
                        let got = S::reading(&estimator);
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
                    pn,
                    app_limited,
                } => {
                    let Some(rtt) = estimators.len().checked_sub(1) else {
                        return Err(ReplayError::AckWithoutRtt(name));
                    };
                    Step::Ack {
                        now: t(at),
                        sent: t(sent),
                        bytes,
                        pn: pn.unwrap_or(0),
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
                    ecn,
                    lost_bytes,
                    largest_lost_pn,
                } => Step::Congestion {
                    now: t(at),
                    sent: t(sent),
                    persistent,
                    ecn,
                    lost_bytes,
                    largest_lost_pn: largest_lost_pn.unwrap_or(0),
                },
                Event::Mtu { mtu } => Step::Mtu(mtu),
                Event::PacketSent { at, bytes, pn } => Step::PacketSent {
                    now: t(at),
                    bytes,
                    pn,
                },
                Event::PacketLost { at, bytes, pn } => Step::PacketLost {
                    now: t(at),
                    bytes,
                    pn,
                },
                Event::CwndLimited => Step::CwndLimited,
                Event::SpuriousCongestion => Step::SpuriousCongestion,
                Event::AckFrequency {
                    threshold,
                    max_ack_delay_ns,
                } => Step::AckFrequency {
                    threshold,
                    max_ack_delay: Duration::from_nanos(max_ack_delay_ns),
                },
                Event::Metrics => Step::Metrics,
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

    /// A fresh controller from `factory`, built as the stack builds one (at the recording's time
    /// zero, with its initial MTU).
    pub fn build(&self, factory: &Arc<S::Factory>) -> Box<S::Controller> {
        S::build(factory, self.origin, self.initial_mtu)
    }

    /// Makes every call of the recording on `controller`, untimed. Returns the final window
    /// (so the calls cannot be optimised away).
    #[inline(never)]
    pub fn run(&self, controller: &mut S::Controller) -> u64 {
        for step in &self.steps {
            self.call(controller, step);
        }
        black_box(S::window(controller))
    }

    /// Makes every call of the recording on `controller`, calling `inspect` with the
    /// controller after each (for fidelity checks: compare its window with
    /// [`crate::Trace::windows`]).
    pub fn run_inspect(
        &self,
        controller: &mut S::Controller,
        mut inspect: impl FnMut(&S::Controller),
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
    pub fn run_timed(&self, controller: &mut S::Controller, section: Section) -> Duration {
        match section {
            Section::AckFrames => self.time_frames(controller),
            Section::Sent => self.time_each(controller, Step::is_send_path),
            Section::Congestion => self.time_each(controller, Step::is_loss),
        }
    }

    #[inline(always)]
    fn call(&self, c: &mut S::Controller, step: &Step) {
        S::call(c, step, &self.estimators);
    }

    fn time_frames(&self, c: &mut S::Controller) -> Duration {
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

    fn time_each(&self, c: &mut S::Controller, timed: impl Fn(&Step) -> bool) -> Duration {
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
