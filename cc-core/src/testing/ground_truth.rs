//! Checks the classifier against quinn's own loss detection in real connections.
//!
//! quinn logs the packet numbers it declares lost at trace level (`packets lost: [..]`, target
//! `quinn_proto::connection`) immediately before it calls `on_congestion_event`, and cc-core
//! logs its classification (`loss signal`, target `cc`) inside that call. Both happen in one
//! synchronous call chain, so on a single-threaded runtime each `loss signal` event is paired
//! with the `packets lost` event just before it. The truth is `d = largest_acked - max(lost)`,
//! with `largest_acked` exact from `on_end_acks`. The comparison is of the class by distance
//! (`detected`, reading `time_threshold`), from which every reading's class is derived.
//!
//! On noq the record is [`super::NoqLossRecord`]'s: the packet numbers noq passed to
//! `on_packet_lost` since the last ACK frame or event, and the largest acknowledged packet number
//! noq passed to `on_end_acks` (target `cc_truth`), which replaces the classifier's own. The
//! truth there is `d = largest_acked - min(lost)`: the pass's earliest lost packet, which the
//! classifier reads on noq (`LossClassifier::on_packet_lost`). noq logs `PTO fired` as quinn
//! does.
//!
//! Probe timeouts are scored the same way: quinn logs `PTO fired` (trace level) when its probe
//! timer expires, and the classifier logs `probe timeout inferred` when it reads the probes'
//! transmit pass. Records are told apart by side through the `client` and `server` spans that
//! `netsim::quinn_pair::QuinnPair` opens; a quinn PTO is matched when the next inference on its
//! side comes before its side's next PTO.

use crate::LossSignal;
use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};
use tracing::field::{Field, Visit};
use tracing::{Event, Level, Subscriber};
use tracing_subscriber::Layer;
use tracing_subscriber::filter::{Filtered, Targets};
use tracing_subscriber::layer::Context;

/// One congestion event, as cc-core read it and as quinn declared it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PairedEvent {
    /// The signal cc-core decided.
    pub predicted: LossSignal,
    /// Whether cc-core reported it as determined.
    pub determined: bool,
    /// The signal quinn's lost packet numbers imply (persistent congestion is taken from cc-core's
    /// flag, which quinn passes directly).
    pub truth: LossSignal,
}

/// Agreement figures over a set of paired events.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Agreement {
    /// Loss events compared (persistent congestion and ECN excluded: quinn flags those directly).
    pub events: u64,
    /// Of those, the ones cc-core reported as determined.
    pub determined: u64,
    /// Determined events whose class matched quinn's.
    pub determined_agree: u64,
    /// All events whose class matched quinn's.
    pub agree: u64,
    /// Events whose truth is a time-threshold loss (`Timeout` with `d >= 1`): the hard cases.
    pub timeouts: u64,
    /// Of those, the ones classified as quinn did (class and `d`).
    pub timeouts_agree: u64,
    /// Persistent-congestion events seen (not in the figures above).
    pub persistent: u64,
    /// cc-core events with no quinn `packets lost` record before them (should be 0).
    pub unpaired: u64,
    /// quinn's probe timeouts in the application-data space.
    pub probe_timeouts: u64,
    /// Of those, the ones cc-core inferred.
    pub probe_timeouts_inferred: u64,
    /// Probe timeouts cc-core inferred where quinn had none.
    pub probe_timeouts_false: u64,
}

impl Agreement {
    /// Share of determined events classified as quinn did.
    pub fn determined_rate(&self) -> f64 {
        ratio(self.determined_agree, self.determined)
    }

    /// Share of all events classified as quinn did.
    pub fn overall_rate(&self) -> f64 {
        ratio(self.agree, self.events)
    }

    /// Share of events the callbacks left undetermined.
    pub fn undetermined_share(&self) -> f64 {
        ratio(self.events - self.determined, self.events)
    }

    /// Adds another set's counts.
    pub fn add(&mut self, other: &Agreement) {
        self.events += other.events;
        self.determined += other.determined;
        self.determined_agree += other.determined_agree;
        self.agree += other.agree;
        self.timeouts += other.timeouts;
        self.timeouts_agree += other.timeouts_agree;
        self.persistent += other.persistent;
        self.unpaired += other.unpaired;
        self.probe_timeouts += other.probe_timeouts;
        self.probe_timeouts_inferred += other.probe_timeouts_inferred;
        self.probe_timeouts_false += other.probe_timeouts_false;
    }

    /// Share of quinn's probe timeouts that cc-core inferred.
    pub fn probe_timeout_recall(&self) -> f64 {
        ratio(self.probe_timeouts_inferred, self.probe_timeouts)
    }

    /// Share of cc-core's inferred probe timeouts that quinn had.
    pub fn probe_timeout_precision(&self) -> f64 {
        ratio(
            self.probe_timeouts_inferred,
            self.probe_timeouts_inferred + self.probe_timeouts_false,
        )
    }
}

fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 { 1.0 } else { a as f64 / b as f64 }
}

impl fmt::Display for Agreement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} loss events: {:.1}% agree overall, {:.1}% of the {} determined agree, {:.1}% undetermined, {}/{} time-threshold losses read right; {} persistent; {} unpaired; probe timeouts: {}/{} inferred, {} false",
            self.events,
            100.0 * self.overall_rate(),
            100.0 * self.determined_rate(),
            self.determined,
            100.0 * self.undetermined_share(),
            self.timeouts_agree,
            self.timeouts,
            self.persistent,
            self.unpaired,
            self.probe_timeouts_inferred,
            self.probe_timeouts,
            self.probe_timeouts_false
        )
    }
}

#[derive(Debug, Default)]
struct State {
    /// Per side: the largest packet number in the stack's latest lost-packet record.
    last_lost: std::collections::BTreeMap<&'static str, u64>,
    /// Per side: the largest acknowledged packet number of noq's last ACK frame (noq's record
    /// only; a loss timer fires with no frame before it, so the sides must not mix).
    recorded_largest: std::collections::BTreeMap<&'static str, u64>,
    events: Vec<PairedEvent>,
    unpaired: u64,
    /// Per side (`client`, `server`, or none): a quinn PTO awaiting its inference.
    pto_pending: std::collections::BTreeMap<&'static str, bool>,
    probe_timeouts: u64,
    probe_timeouts_inferred: u64,
    probe_timeouts_false: u64,
}

/// A `tracing` layer that pairs quinn's lost-packet records with cc-core's classifications.
#[derive(Debug, Clone)]
pub struct GroundTruth {
    state: Arc<Mutex<State>>,
    packet_threshold: u32,
    probe_timeout_side: Option<&'static str>,
}

impl GroundTruth {
    /// A recorder for a transport whose packet threshold is `packet_threshold`.
    pub fn new(packet_threshold: u32) -> Self {
        Self {
            state: Arc::default(),
            packet_threshold,
            probe_timeout_side: None,
        }
    }

    /// Scores probe timeouts on one side only (`"client"` or `"server"`): the data sender's.
    /// quinn times its PTO from its last ack-eliciting packet, and a side that mostly
    /// acknowledges sends ACK-only packets in between, which the callbacks do not tell apart.
    pub fn with_probe_timeout_side(mut self, side: &'static str) -> Self {
        self.probe_timeout_side = Some(side);
        self
    }

    fn scores_probe_timeouts_of(&self, side: &str) -> bool {
        self.probe_timeout_side.is_none_or(|s| s == side)
    }

    /// The layer to install, filtered to the two targets it reads (quinn's trace level is
    /// costly; nothing else is enabled by it).
    pub fn layer<S>(&self) -> Filtered<Self, Targets, S>
    where
        S: Subscriber + for<'a> tracing_subscriber::registry::LookupSpan<'a>,
    {
        let targets = Targets::new()
            .with_target("quinn_proto::connection", Level::TRACE)
            .with_target("noq_proto::connection", Level::TRACE)
            .with_target(super::NOQ_RECORD_TARGET, Level::TRACE)
            .with_target("cc", Level::DEBUG)
            .with_target("netsim", Level::DEBUG);
        self.clone().with_filter(targets)
    }

    /// Every paired event so far.
    pub fn events(&self) -> Vec<PairedEvent> {
        self.lock().events.clone()
    }

    /// Agreement over every paired event so far.
    pub fn agreement(&self) -> Agreement {
        let state = self.lock();
        let mut a = Agreement {
            unpaired: state.unpaired,
            probe_timeouts: state.probe_timeouts,
            probe_timeouts_inferred: state.probe_timeouts_inferred,
            probe_timeouts_false: state.probe_timeouts_false,
            ..Agreement::default()
        };
        for e in &state.events {
            if e.truth == LossSignal::PERSISTENT {
                a.persistent += 1;
                continue;
            }
            a.events += 1;
            let agree = e.predicted == e.truth;
            a.agree += u64::from(agree);
            if matches!(e.truth, LossSignal::Timeout { .. }) {
                a.timeouts += 1;
                a.timeouts_agree += u64::from(agree);
            }
            if e.determined {
                a.determined += 1;
                a.determined_agree += u64::from(agree);
            }
        }
        a
    }

    /// Forgets everything recorded.
    pub fn clear(&self) {
        *self.lock() = State::default();
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Reads the fields of either event kind.
#[derive(Default)]
struct Fields {
    message: Option<String>,
    detected: Option<String>,
    detected_dup_acks: Option<u64>,
    detected_determined: Option<bool>,
    persistent: Option<bool>,
    largest_acked: Option<u64>,
    largest: Option<u64>,
    pn: Option<u64>,
    space: Option<String>,
}

impl Visit for Fields {
    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        match field.name() {
            "message" => self.message = Some(format!("{value:?}")),
            "space" => self.space = Some(format!("{value:?}")),
            _ => {}
        }
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        match field.name() {
            "detected" => self.detected = Some(value.to_owned()),
            "message" => self.message = Some(value.to_owned()),
            _ => {}
        }
    }
    fn record_u64(&mut self, field: &Field, value: u64) {
        match field.name() {
            "detected_dup_acks" => self.detected_dup_acks = Some(value),
            "largest_acked" => self.largest_acked = Some(value),
            "largest" => self.largest = Some(value),
            "pn" => self.pn = Some(value),
            _ => {}
        }
    }
    fn record_i64(&mut self, field: &Field, value: i64) {
        if let Ok(v) = u64::try_from(value) {
            self.record_u64(field, v);
        }
    }
    fn record_bool(&mut self, field: &Field, value: bool) {
        match field.name() {
            "detected_determined" => self.detected_determined = Some(value),
            "persistent" => self.persistent = Some(value),
            _ => {}
        }
    }
}

/// The largest number in quinn's `packets lost: [a, b, c], bytes lost: n` message.
fn largest_lost(message: &str) -> Option<u64> {
    let rest = message.split_once("packets lost: [")?.1;
    let list = rest.split_once(']')?.0;
    list.split(',').filter_map(|n| n.trim().parse().ok()).max()
}

fn signal_from(class: &str, dup_acks: Option<u64>) -> Option<LossSignal> {
    Some(match class {
        "fast_retransmit" => LossSignal::FastRetransmit,
        "ecn" => LossSignal::Ecn,
        c if c.starts_with("timeout") => LossSignal::Timeout {
            dup_acks: u8::try_from(dup_acks?).ok()?,
        },
        _ => return None,
    })
}

/// The side (`client` or `server` span) an event was recorded in, or `""`.
fn side<S>(event: &Event<'_>, ctx: &Context<'_, S>) -> &'static str
where
    S: Subscriber + for<'a> tracing_subscriber::registry::LookupSpan<'a>,
{
    ctx.event_scope(event)
        .into_iter()
        .flatten()
        .find_map(|span| match span.name() {
            "client" => Some("client"),
            "server" => Some("server"),
            _ => None,
        })
        .unwrap_or("")
}

impl<S> Layer<S> for GroundTruth
where
    S: Subscriber + for<'a> tracing_subscriber::registry::LookupSpan<'a>,
{
    fn on_event(&self, event: &Event<'_>, ctx: Context<'_, S>) {
        let mut f = Fields::default();
        event.record(&mut f);
        let target = event.metadata().target();
        let message = f.message.as_deref().unwrap_or("");
        if target == super::NOQ_RECORD_TARGET {
            let side = side(event, &ctx);
            let mut state = self.lock();
            match (message, f.pn, f.largest) {
                ("packet lost", Some(pn), _) => {
                    let lost = state.last_lost.entry(side).or_insert(pn);
                    *lost = (*lost).min(pn);
                }
                ("ack frame", _, Some(largest)) => {
                    // A new detection round: earlier lost records raised no event (ACK-only
                    // packets).
                    state.recorded_largest.insert(side, largest);
                    state.last_lost.remove(side);
                }
                _ => {}
            }
            return;
        }
        if target.starts_with("quinn_proto") || target.starts_with("noq_proto") {
            if let Some(lost) = largest_lost(message) {
                let side = side(event, &ctx);
                self.lock().last_lost.insert(side, lost);
            } else if message == "PTO fired" && f.space.as_deref() == Some("Data") {
                let side = side(event, &ctx);
                if !self.scores_probe_timeouts_of(side) {
                    return;
                }
                let mut state = self.lock();
                state.probe_timeouts += 1;
                // A PTO still pending when its side's next one fires was missed.
                state.pto_pending.insert(side, true);
            }
            return;
        }
        if message == "probe timeout inferred" {
            let side = side(event, &ctx);
            if !self.scores_probe_timeouts_of(side) {
                return;
            }
            let mut state = self.lock();
            if state.pto_pending.insert(side, false) == Some(true) {
                state.probe_timeouts_inferred += 1;
            } else {
                state.probe_timeouts_false += 1;
            }
            return;
        }
        if message != "loss signal" {
            return;
        }
        let (Some(class), Some(determined)) = (f.detected, f.detected_determined) else {
            return;
        };
        let Some(predicted) = signal_from(&class, f.detected_dup_acks) else {
            return;
        };
        let side = side(event, &ctx);
        let mut state = self.lock();
        if predicted == LossSignal::Ecn {
            return;
        }
        let lost = state.last_lost.remove(side);
        let largest = state
            .recorded_largest
            .get(side)
            .copied()
            .or(f.largest_acked);
        let truth = if f.persistent == Some(true) {
            LossSignal::PERSISTENT
        } else {
            match (lost, largest) {
                (Some(lost), Some(largest)) if largest > lost => {
                    LossSignal::from_distance(largest - lost, self.packet_threshold)
                }
                _ => {
                    state.unpaired += 1;
                    return;
                }
            }
        };
        state.events.push(PairedEvent {
            predicted,
            determined,
            truth,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_quinns_message() {
        assert_eq!(
            largest_lost("packets lost: [4, 9, 7], bytes lost: 3600"),
            Some(9)
        );
        assert_eq!(
            largest_lost("packets lost: [12], bytes lost: 1200"),
            Some(12)
        );
        assert_eq!(largest_lost("sent packet"), None);
    }

    #[test]
    fn pairs_and_scores_events() {
        #[derive(Debug)]
        enum Space {
            Data,
        }
        use tracing_subscriber::layer::SubscriberExt;
        let gt = GroundTruth::new(3);
        let subscriber = tracing_subscriber::registry().with(gt.layer());
        tracing::subscriber::with_default(subscriber, || {
            // d = 10 - 9 = 1: classified timeout1, determined -> agree.
            tracing::trace!(target: "quinn_proto::connection", "packets lost: {:?}, bytes lost: {}", [9u64], 1200);
            tracing::debug!(target: "cc", detected = "timeout1", detected_dup_acks = 1u8, detected_determined = true, persistent = false, largest_acked = 10u64, "loss signal");
            // d = 20 - 12 = 8: classified timeout2, undetermined -> disagree.
            tracing::trace!(target: "quinn_proto::connection", "packets lost: {:?}, bytes lost: {}", [11u64, 12], 2400);
            tracing::debug!(target: "cc", detected = "timeout2", detected_dup_acks = 2u8, detected_determined = false, persistent = false, largest_acked = 20u64, "loss signal");
            // Persistent congestion: counted apart.
            tracing::trace!(target: "quinn_proto::connection", "packets lost: {:?}, bytes lost: {}", [30u64], 1200);
            tracing::debug!(target: "cc", detected = "timeout0", detected_dup_acks = 0u8, detected_determined = true, persistent = true, largest_acked = 31u64, "loss signal");
            // A PTO, inferred; an inference without a PTO.
            tracing::trace!(target: "quinn_proto::connection", space = ?Space::Data, "PTO fired");
            tracing::debug!(target: "cc", "probe timeout inferred");
            tracing::debug!(target: "cc", "probe timeout inferred");
            // No quinn record before it: unpaired.
            tracing::debug!(target: "cc", detected = "fast_retransmit", detected_determined = true, persistent = false, largest_acked = 40u64, "loss signal");
        });
        let a = gt.agreement();
        assert_eq!(a.events, 2);
        assert_eq!(a.determined, 1);
        assert_eq!(a.determined_agree, 1);
        assert_eq!(a.agree, 1);
        assert_eq!(a.persistent, 1);
        assert_eq!(a.unpaired, 1);
        assert_eq!(a.overall_rate(), 0.5);
        assert_eq!(a.probe_timeouts, 1);
        assert_eq!(a.probe_timeouts_inferred, 1);
        assert_eq!(a.probe_timeouts_false, 1);
    }
}
