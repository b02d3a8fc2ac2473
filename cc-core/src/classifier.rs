//! Decodes quinn's congestion events into [`LossSignal`]s (docs/DESIGN.md section 3).
//!
//! quinn declares a packet lost when (RFC 9002 section 6.1) the largest acknowledged packet
//! number `L` is at least `packet_threshold` above it, or when it was sent at least
//! `loss_delay = max(time_threshold x max(srtt, latest_rtt), 1 ms)` ago. Its
//! `on_congestion_event` then reports only the send time of the largest lost packet. The
//! classifier recovers `d = L - lost_pn` from two kinds of evidence:
//!
//! 1. **Timing.** A loss declared sooner than `loss_delay` after its send can only be a
//!    packet-threshold loss: `d >= packet_threshold`, a [`LossSignal::FastRetransmit`]. The
//!    classifier rebuilds quinn's `loss_delay`: the `RttEstimator` seen in `on_ack` holds the
//!    estimates *before* the frame, and quinn updates them after `on_end_acks` with the sample
//!    `now - send time of L`; the smoothed RTT's update depends on the peer's ACK delay, which the
//!    callbacks do not show, so the classifier keeps a lower and an upper bound.
//! 2. **Packet numbers.** The [`Ledger`] replays quinn's bookkeeping per packet: the lost packet
//!    lies in the batch sent at `sent`, below `L`; its largest outstanding packet is the one
//!    quinn declared lost.
//!
//! An event is *determined* when the evidence admits one answer; otherwise the classifier
//! answers with its best reading (the gap just below the largest acknowledged packet, see
//! [`Ledger::assign_acks`]) and counts the event as undetermined.
//!
//! **Exact mode** ([`LossClassifier::exact`], used on noq): the stack passes the largest lost
//! packet number with each event, so `d` is read off, every event is determined, and the ledger
//! is not kept.

use crate::ledger::{Ledger, SendStamp};
use crate::{LossSignal, SignalConfig, TimeoutReading};
use std::time::Duration;
use std::time::Instant;

/// quinn's timer granularity: the floor of its loss delay.
const TIMER_GRANULARITY: Duration = Duration::from_millis(1);

/// Counters of what the classifier decided.
///
/// The class counters (`fast_retransmit`, `timeout0` .. `timeout_other`, `ecn`) count the
/// signals handed to the algorithm under the [`TimeoutReading`] in force; `time_threshold`,
/// `persistent` and `after_probe_timeout` count what QUIC's loss detection did, whatever the
/// reading.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SignalStats {
    /// Events classified `FastRetransmit`.
    pub fast_retransmit: u64,
    /// Events classified `Timeout { dup_acks: 0 }`.
    pub timeout0: u64,
    /// Events classified `Timeout { dup_acks: 1 }`.
    pub timeout1: u64,
    /// Events classified `Timeout { dup_acks: 2 }`.
    pub timeout2: u64,
    /// Events classified `Timeout` with `dup_acks` above 2.
    pub timeout_other: u64,
    /// ECN congestion-experienced events.
    pub ecn: u64,
    /// Loss events whose largest lost packet the time threshold declared (`d` below the packet
    /// threshold): the `time_threshold` reading's timeouts other than persistent congestion.
    pub time_threshold: u64,
    /// Persistent-congestion events (quinn's flag).
    pub persistent: u64,
    /// Probe timeouts the classifier inferred (quinn 0.11 does not report them).
    pub probe_timeouts: u64,
    /// Loss events whose largest lost packet was sent before an inferred probe timeout and
    /// declared before anything sent since was acknowledged: the `probe_timeout` reading's timeouts.
    pub after_probe_timeout: u64,
    /// Events whose class the callbacks did not determine (the class is a best reading).
    pub undetermined: u64,
    /// Batches the bounded ledger forgot while they still had outstanding packets.
    pub ledger_evictions: u64,
    /// Loss events (noq) whose largest lost packet the time threshold declared while an
    /// earlier packet of the same detection pass had reached the packet threshold: a
    /// fast-retransmit hole and a tail loss in one pass, read from the pass's earliest lost
    /// packet (the one that saw the most duplicate ACKs). quinn names only the largest lost
    /// packet, so there such a pass reads from it.
    pub mixed_passes: u64,
    /// Loss events (noq) that the configured thresholds could not have declared: a packet the
    /// packet threshold had reached at an earlier ACK frame, or one declared by the time
    /// threshold sooner than `time_threshold` x the smallest RTT seen. The transport's
    /// thresholds then differ from this [`crate::SignalConfig`]'s, and the classes misread
    /// which rule fired: install the port with `install`, which sets both. Each is sound (no
    /// event on a matching transport counts), not complete: a transport threshold above the
    /// configuration's shows only when a packet waits for it.
    pub threshold_mismatches: u64,
}

impl SignalStats {
    /// All events counted.
    pub fn total(&self) -> u64 {
        self.fast_retransmit
            + self.timeout0
            + self.timeout1
            + self.timeout2
            + self.timeout_other
            + self.ecn
    }

    fn count(&mut self, c: &Classification) {
        match c.signal {
            LossSignal::FastRetransmit => self.fast_retransmit += 1,
            LossSignal::Timeout { dup_acks: 0 } => self.timeout0 += 1,
            LossSignal::Timeout { dup_acks: 1 } => self.timeout1 += 1,
            LossSignal::Timeout { dup_acks: 2 } => self.timeout2 += 1,
            LossSignal::Timeout { .. } => self.timeout_other += 1,
            LossSignal::Ecn => self.ecn += 1,
        }
        if !c.determined {
            self.undetermined += 1;
        }
        let d = c.detected;
        self.time_threshold += u64::from(!c.persistent && d.dup_acks().is_some_and(|d| d > 0));
        self.persistent += u64::from(c.persistent);
        self.after_probe_timeout += u64::from(c.after_probe_timeout);
    }
}

/// Bounds on quinn's `RttEstimator::conservative()` (`max(srtt, latest)`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct ConservativeRtt {
    lo: Duration,
    hi: Duration,
}

/// What quinn's conservative RTT after an ACK frame is made of (see
/// [`LossClassifier::conservative_rtt`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RttInputs {
    /// The bounds themselves.
    Bounds(ConservativeRtt),
    /// quinn took a sample at the last ACK frame (`LossClassifier::last_ack_frame`): then
    /// minus the send time of the largest acknowledged packet.
    Sampled {
        /// quinn's first sample, which sets its smoothed RTT.
        first: bool,
        /// quinn's smoothed RTT before the frame.
        smoothed: Duration,
        /// The largest acknowledged packet's send time, if the ledger holds it.
        largest_sent: Option<SendStamp>,
    },
}

/// The result of classifying one event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Classification {
    /// The signal.
    pub signal: LossSignal,
    /// Whether quinn's callbacks admit only this answer.
    pub determined: bool,
    /// The largest acknowledged packet number at the event.
    pub largest_acked: Option<u64>,
    /// The lost packet number the classifier settled on, where it found one.
    pub lost_pn: Option<u64>,
    /// The class by distance, reading `time_threshold`: `FastRetransmit` when `d >= packet_threshold`,
    /// `Timeout { dup_acks: d }` for a time-threshold loss, `Timeout { dup_acks: 0 }` for
    /// persistent congestion. This is what the ground-truth tests check.
    pub detected: LossSignal,
    /// Whether quinn's callbacks admit only `detected`.
    pub detected_determined: bool,
    /// quinn flagged the event as persistent congestion.
    pub persistent: bool,
    /// The largest lost packet was sent before an inferred probe timeout (see
    /// [`LossClassifier`]).
    pub after_probe_timeout: bool,
}

/// Turns the stream of quinn callbacks into classified loss signals.
///
/// **Probe timeouts.** quinn 0.11 does not tell a controller that its probe timeout (PTO,
/// RFC 9002 section 6.2) fired, and [`TimeoutReading::ProbeTimeout`] needs to know. The
/// classifier infers it from what a PTO leaves in the callbacks: quinn sends its PTO packets on a
/// timer, not in answer to an acknowledgement, and regardless of the congestion window. A
/// transmit pass is read as a PTO's when
/// - it comes at least `smoothed RTT + max_ack_delay + 1 ms` (a lower bound of quinn's PTO)
///   after the previous one,
/// - no ACK frame and no congestion event came within 1 ms before it (a send those trigger is
///   theirs), and
/// - ack-eliciting packets were outstanding: quinn's bytes in flight at the last ACK frame were
///   not zero, or a full-size datagram (1200 bytes or more: an ACK-only packet is far smaller)
///   was sent since.
///
/// The approximation misses a PTO whose packets quinn could not send, and counts a send after an
/// idle period of that length with packets outstanding (an application write while the path
/// is silent); the ground-truth tests measure both against quinn's own `PTO fired` records.
#[derive(Debug, Clone, PartialEq)]
pub struct LossClassifier {
    config: SignalConfig,
    reading: TimeoutReading,
    /// How the lost packet's distance is found: inferred (quinn) or read off (noq).
    evidence: Evidence,
    /// The largest acknowledged packet numbers, once an ACK frame reported one.
    largest: Option<Largest>,
    /// quinn's conservative RTT before the ACK frame being processed, from `on_ack`.
    frame_rtt: Option<(Duration, Duration)>,
    /// quinn's smoothed RTT as last shown in `on_ack`.
    smoothed: Option<Duration>,
    /// Whether any `on_ack` arrived in the frame being processed.
    frame_acked: bool,
    /// The latest send time of a packet the frame being processed acknowledged.
    frame_newest_sent: Option<Instant>,
    /// When the previous transmit pass went out.
    last_send: Option<Instant>,
    /// When the last ACK frame came.
    last_ack_frame: Option<Instant>,
    /// When the last congestion event came.
    last_event: Option<Instant>,
    /// Whether quinn's bytes in flight at the last ACK frame were not zero.
    in_flight_at_ack: bool,
    /// A full-size datagram was sent after the last ACK frame.
    full_sent_since_ack: bool,
    /// When the latest inferred probe timeout fired, until something sent since is
    /// acknowledged.
    probe_timeout: Option<Instant>,
    /// Something sent at or after `probe_timeout` was acknowledged: the episode ends once this
    /// frame's congestion events have been classified.
    probe_timeout_answered: bool,
    stats: SignalStats,
}

/// The largest acknowledged packet numbers (both set by the first ACK frame that names one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Largest {
    /// Largest acknowledged packet number (quinn's `largest_acked_packet`).
    acked: u64,
    /// The largest acknowledged packet number the last ACK frame reported: the one of that
    /// frame's packet-number space, which the stack's loss detection compares against.
    frame: u64,
}

/// What a classifier keeps to find a lost packet's distance below the largest acknowledged one:
/// one stack's evidence or the other's, never both (a connection's state stays small).
#[derive(Debug, Clone, PartialEq)]
enum Evidence {
    /// quinn: the ledger replays its bookkeeping, and its loss delay is rebuilt from its RTT.
    Inferred(Inference),
    /// noq: the stack names lost packets.
    Exact(ExactEvidence),
}

/// quinn's evidence (see [`LossClassifier`]).
#[derive(Debug, Clone, PartialEq)]
struct Inference {
    ledger: Ledger,
    /// Whether quinn has taken an RTT sample yet (its smoothed RTT starts at the first one).
    have_sample: bool,
    /// What quinn's conservative RTT is as of the last processed frame.
    rtt: Option<RttInputs>,
}

/// noq's evidence, for the thresholds check and mixed passes.
#[derive(Debug, Clone, Default, PartialEq)]
struct ExactEvidence {
    /// The smallest packet number the stack reported lost (noq's `on_packet_lost`) in the
    /// detection pass at this time.
    pass_first_lost: Option<(Instant, u64)>,
    /// The largest acknowledged packet number before the last ACK frame: what the stack's
    /// packet threshold had seen before that frame's detection pass.
    largest_before_frame: Option<u64>,
    /// The smallest RTT any ACK frame measured (its newest packet's): a lower bound of every
    /// RTT the stack's time threshold multiplies.
    min_frame_rtt: Option<Duration>,
}

/// QUIC's smallest datagram carrying an ack-eliciting Initial packet (RFC 9000 section 14.1),
/// and quinn's probe size: a transmit pass at least this large is taken as ack-eliciting.
const FULL_DATAGRAM: u64 = 1200;

impl LossClassifier {
    /// A classifier with the given thresholds (which must match quinn's `TransportConfig`),
    /// reading timeouts as [`TimeoutReading::TimeThreshold`] unless `config` names a reading.
    pub fn new(config: SignalConfig) -> Self {
        Self::with_default_reading(config, TimeoutReading::TimeThreshold)
    }

    /// A classifier that reads timeouts as `config` says, or as `default` if it names none
    /// (a port passes its own [`crate::CongestionAlgorithm::TIMEOUT_READING`]).
    pub fn with_default_reading(config: SignalConfig, default: TimeoutReading) -> Self {
        Self {
            evidence: Evidence::Inferred(Inference {
                ledger: Ledger::new(config.ledger_packets(), config.ledger_batches()),
                have_sample: false,
                rtt: None,
            }),
            reading: config.timeout_reading().unwrap_or(default),
            config,
            largest: None,
            frame_rtt: None,
            smoothed: None,
            frame_acked: false,
            frame_newest_sent: None,
            last_send: None,
            last_ack_frame: None,
            last_event: None,
            in_flight_at_ack: false,
            full_sent_since_ack: false,
            probe_timeout: None,
            probe_timeout_answered: false,
            stats: SignalStats::default(),
        }
    }

    /// A classifier for a stack that passes the largest lost packet number with each congestion
    /// event (noq): classify with [`Self::on_exact_congestion_event`]. It keeps no ledger.
    pub fn exact(config: SignalConfig, default: TimeoutReading) -> Self {
        Self {
            evidence: Evidence::Exact(ExactEvidence::default()),
            ..Self::with_default_reading(config, default)
        }
    }

    /// Whether the stack passes lost packet numbers ([`Self::exact`]).
    pub fn is_exact(&self) -> bool {
        matches!(self.evidence, Evidence::Exact(_))
    }

    /// The settings in use.
    pub fn config(&self) -> &SignalConfig {
        &self.config
    }

    /// The timeout reading in force.
    pub fn reading(&self) -> TimeoutReading {
        self.reading
    }

    /// What has been classified so far.
    pub fn stats(&self) -> SignalStats {
        SignalStats {
            ledger_evictions: self.ledger().map_or(0, Ledger::evicted_unresolved),
            ..self.stats.clone()
        }
    }

    /// The largest acknowledged packet number seen.
    pub fn largest_acked(&self) -> Option<u64> {
        self.largest.map(|l| l.acked)
    }

    /// When the probe timeout of the current episode fired, if one was inferred and nothing
    /// sent since has been acknowledged.
    pub fn probe_timeout(&self) -> Option<Instant> {
        self.probe_timeout
    }

    /// The ledger (for inspection and memory accounting); `None` for a stack that names lost
    /// packets ([`Self::exact`]), which needs none.
    pub fn ledger(&self) -> Option<&Ledger> {
        match &self.evidence {
            Evidence::Inferred(i) => Some(&i.ledger),
            Evidence::Exact(_) => None,
        }
    }

    /// quinn's `on_sent`: a transmit pass of `bytes` at `now` whose last packet number is
    /// `last_pn`.
    pub fn on_sent(&mut self, now: Instant, bytes: u64, last_pn: u64) {
        self.end_answered_episode();
        if let Some(previous) = self.last_send
            && self.is_probe_timeout_send(now, previous)
        {
            self.probe_timeout = Some(now);
            self.stats.probe_timeouts += 1;
            tracing::debug!(
                target: "cc",
                silent_us = now.saturating_duration_since(previous).as_micros() as u64,
                "probe timeout inferred"
            );
        }
        self.last_send = Some(now);
        self.full_sent_since_ack |= bytes >= FULL_DATAGRAM;
        if let Evidence::Inferred(i) = &mut self.evidence {
            i.ledger.on_sent(now, last_pn);
        }
    }

    /// Whether a transmit pass at `now`, after one at `previous`, carries PTO packets (see the
    /// type's docs).
    fn is_probe_timeout_send(&self, now: Instant, previous: Instant) -> bool {
        let Some(smoothed) = self.smoothed else {
            return false;
        };
        let triggered = |at: Option<Instant>| {
            at.is_some_and(|t| now.saturating_duration_since(t) < TIMER_GRANULARITY)
        };
        let outstanding = self.in_flight_at_ack || self.full_sent_since_ack;
        let floor = smoothed
            .saturating_add(self.config.max_ack_delay())
            .saturating_add(TIMER_GRANULARITY);
        // The silence first: in a busy flow it is short, and it settles the answer with one
        // `Instant` subtraction (out of line in std) instead of three.
        outstanding
            && now.saturating_duration_since(previous) >= floor
            && !triggered(self.last_ack_frame)
            && !triggered(self.last_event)
    }

    /// Ends the probe-timeout episode once something sent after it was acknowledged and that
    /// frame's events are classified.
    fn end_answered_episode(&mut self) {
        if self.probe_timeout_answered {
            self.probe_timeout = None;
            self.probe_timeout_answered = false;
        }
    }

    /// quinn's `on_ack` for a packet sent at `sent`, with quinn's RTT estimates before the frame
    /// (`smoothed` and `conservative`).
    #[inline]
    pub fn on_ack(&mut self, sent: Instant, smoothed: Duration, conservative: Duration) {
        if !self.frame_acked {
            self.end_answered_episode();
        }
        if let Evidence::Inferred(i) = &mut self.evidence {
            i.ledger.record_ack(sent);
        }
        self.frame_acked = true;
        self.frame_newest_sent = Some(self.frame_newest_sent.map_or(sent, |t| t.max(sent)));
        self.smoothed = Some(smoothed);
        self.frame_rtt.get_or_insert((smoothed, conservative));
    }

    /// quinn's `on_end_acks`, with quinn's bytes in flight after the frame.
    pub fn on_end_acks(&mut self, now: Instant, in_flight: u64, largest_acked: Option<u64>) {
        let newest_sent = self.frame_newest_sent.take();
        let Some(largest) = largest_acked else {
            self.frame_acked = false;
            self.frame_rtt = None;
            return;
        };
        if self.frame_rtt.is_none() {
            // A frame without `on_ack` leaves the RTT as it was, but moves `last_ack_frame`,
            // which a sample is read against: settle the sample's bounds first.
            self.settle_rtt_sample();
        }
        self.last_ack_frame = Some(now);
        self.in_flight_at_ack = in_flight > 0;
        self.full_sent_since_ack = false;
        if let (Some(pto), Some(sent)) = (self.probe_timeout, newest_sent) {
            self.probe_timeout_answered |= sent >= pto;
        }
        let largest_before = self.largest_acked();
        let new_largest = largest_before.is_none_or(|l| largest > l);
        self.largest = Some(Largest {
            acked: largest_before.map_or(largest, |l| l.max(largest)),
            frame: largest,
        });
        let frame_rtt = self.frame_rtt.take();
        let frame_acked = std::mem::take(&mut self.frame_acked);
        let i = match &mut self.evidence {
            Evidence::Exact(e) => {
                // The loss delay and the ledger serve only to infer `d`.
                e.largest_before_frame = largest_before;
                if let Some(sent) = newest_sent {
                    let rtt = now.saturating_duration_since(sent);
                    e.min_frame_rtt = Some(e.min_frame_rtt.map_or(rtt, |m| m.min(rtt)));
                }
                return;
            }
            Evidence::Inferred(i) => i,
        };
        i.ledger.assign_acks(largest, new_largest);

        // The estimates before this frame, exactly, when quinn showed them in `on_ack`; quinn
        // updates its estimator after on_end_acks, when the largest acknowledged packet is new
        // and the frame acknowledged an ack-eliciting packet (RFC 9002 5.3). Only congestion
        // events read the result, so the frame keeps the inputs and `conservative_rtt` does
        // the arithmetic.
        if let Some((smoothed, conservative)) = frame_rtt {
            i.rtt = Some(if new_largest && frame_acked {
                let sampled = RttInputs::Sampled {
                    first: !i.have_sample,
                    smoothed,
                    largest_sent: i.ledger.send_stamp(largest),
                };
                i.have_sample = true;
                sampled
            } else {
                RttInputs::Bounds(ConservativeRtt {
                    lo: conservative,
                    hi: conservative,
                })
            });
        }
        i.ledger
            .apply_packet_threshold(largest, self.config.packet_threshold());
    }

    /// Bounds on quinn's conservative RTT (`max(smoothed, latest)`) as of the last processed
    /// frame. The smoothed RTT's update depends on the peer's ACK delay, which the callbacks do
    /// not show: smoothed' = 7/8 smoothed + 1/8 (latest - ack_delay), with ack_delay in
    /// [0, max_ack_delay], applied only when it keeps the sample >= min.
    fn conservative_rtt(&self) -> Option<ConservativeRtt> {
        let Evidence::Inferred(i) = &self.evidence else {
            return None;
        };
        let at = self.last_ack_frame?;
        Some(match i.rtt? {
            RttInputs::Bounds(bounds) => bounds,
            RttInputs::Sampled {
                first,
                smoothed,
                largest_sent,
            } => match largest_sent {
                Some(sent) => {
                    let latest = at.saturating_duration_since(i.ledger.stamp_time(sent));
                    if first {
                        ConservativeRtt {
                            lo: latest,
                            hi: latest,
                        }
                    } else {
                        let lo_sample = latest.saturating_sub(self.config.max_ack_delay());
                        let s_lo = smoothed_update(smoothed, lo_sample);
                        let s_hi = smoothed_update(smoothed, latest);
                        ConservativeRtt {
                            lo: s_lo.max(latest),
                            hi: s_hi.max(latest),
                        }
                    }
                }
                // The largest packet's send time is unknown: any estimate is possible.
                None => ConservativeRtt {
                    lo: Duration::ZERO,
                    hi: Duration::MAX,
                },
            },
        })
    }

    /// Replaces a pending RTT sample by its bounds (see [`RttInputs::Sampled`]).
    fn settle_rtt_sample(&mut self) {
        let bounds = self.conservative_rtt();
        if let Evidence::Inferred(i) = &mut self.evidence
            && let Some(RttInputs::Sampled { .. }) = i.rtt
        {
            i.rtt = bounds.map(RttInputs::Bounds);
        }
    }

    /// quinn's time threshold on the ledger (see [`Ledger::apply_time_threshold`]).
    fn apply_time_threshold(&mut self, largest: u64, too_old: impl FnMut(Instant) -> bool) {
        if let Evidence::Inferred(i) = &mut self.evidence {
            i.ledger.apply_time_threshold(largest, too_old);
        }
    }

    /// quinn's `loss_delay` for a conservative RTT.
    fn loss_delay(&self, rtt: Duration) -> Duration {
        if rtt == Duration::MAX {
            return Duration::MAX;
        }
        saturating_mul_f32(rtt, self.config.time_threshold()).max(TIMER_GRANULARITY)
    }

    /// quinn's `on_congestion_event`: classifies it and updates the ledger.
    pub fn on_congestion_event(
        &mut self,
        now: Instant,
        sent: Instant,
        is_persistent_congestion: bool,
        lost_bytes: u64,
    ) -> Classification {
        let mut result = self.classify(now, sent, is_persistent_congestion, lost_bytes);
        self.read(&mut result);
        self.stats.count(&result);
        self.last_event = Some(now);
        result
    }

    /// A lost packet the stack names (noq's `on_packet_lost`, once per lost packet of a
    /// detection pass, before the pass's congestion event).
    pub fn on_packet_lost(&mut self, now: Instant, pn: u64) {
        if let Evidence::Exact(e) = &mut self.evidence {
            e.pass_first_lost = match e.pass_first_lost {
                Some((at, first)) if at == now => Some((now, first.min(pn))),
                _ => Some((now, pn)),
            };
        }
    }

    /// A congestion event from a stack that names its largest lost packet (noq's
    /// `on_congestion_event`): `d` is the distance below the largest packet the last ACK frame
    /// acknowledged of the pass's earliest lost packet (reported through
    /// [`LossClassifier::on_packet_lost`] at the same time; else `largest_lost_pn`), so the
    /// class is determined. The earliest lost packet is the one that saw the most duplicate
    /// ACKs: a pass holding a packet-threshold hole and a time-threshold tail is a fast
    /// retransmit, as TCP would see it (counted in `SignalStats::mixed_passes`).
    pub fn on_exact_congestion_event(
        &mut self,
        now: Instant,
        sent: Instant,
        is_persistent_congestion: bool,
        is_ecn: bool,
        largest_lost_pn: u64,
    ) -> Classification {
        let largest = self.largest.map(|l| l.frame);
        let pass_first_lost = match &mut self.evidence {
            Evidence::Exact(e) => e.pass_first_lost.take(),
            Evidence::Inferred(_) => None,
        };
        let first_lost = match pass_first_lost {
            Some((at, first)) if at == now && first <= largest_lost_pn => first,
            _ => largest_lost_pn,
        };
        let mut result = Classification {
            signal: LossSignal::FastRetransmit,
            determined: true,
            largest_acked: largest,
            lost_pn: (!is_ecn).then_some(first_lost),
            detected: LossSignal::FastRetransmit,
            detected_determined: true,
            persistent: is_persistent_congestion,
            after_probe_timeout: !is_ecn && self.probe_timeout.is_some_and(|pto| sent < pto),
        };
        result.detected = if is_ecn {
            LossSignal::Ecn
        } else if is_persistent_congestion {
            LossSignal::PERSISTENT
        } else {
            match largest {
                Some(largest) if largest > largest_lost_pn => {
                    let threshold = self.config.packet_threshold();
                    let by_first = LossSignal::from_distance(largest - first_lost, threshold);
                    let by_largest =
                        LossSignal::from_distance(largest - largest_lost_pn, threshold);
                    if by_first != by_largest && by_first == LossSignal::FastRetransmit {
                        self.stats.mixed_passes += 1;
                    }
                    by_first
                }
                // A loss with nothing acknowledged above it: the stack's loss detection does not
                // declare one, so the callbacks are out of order.
                _ => {
                    result.detected_determined = false;
                    LossSignal::FastRetransmit
                }
            }
        };
        result.signal = result.detected;
        if !is_ecn
            && !is_persistent_congestion
            && self.thresholds_mismatched(now, sent, first_lost, result.detected)
        {
            self.stats.threshold_mismatches += 1;
            if self.stats.threshold_mismatches == 1 {
                tracing::warn!(
                    target: "cc",
                    packet_threshold = self.config.packet_threshold(),
                    time_threshold = self.config.time_threshold(),
                    lost_pn = first_lost,
                    "a loss the configured thresholds could not have declared: the transport's \
                     packet or time threshold differs from the port's SignalConfig, so loss \
                     classes are misread; install the port with `install`, which sets both"
                );
            }
        }
        self.read(&mut result);
        self.stats.count(&result);
        self.last_event = Some(now);
        result
    }

    /// Whether a loss (not ECN, not persistent congestion) shows the stack's thresholds to
    /// differ from the configuration's. Two sound tests, from what the stack's loss detection
    /// (RFC 9002 section 6.1) must have done with the configured values:
    /// - the packet threshold: `first_lost` was already `packet_threshold` below the largest
    ///   acknowledged packet before the pass that declared it (the frame before, for a pass at
    ///   an ACK frame; the last frame, for a timer's pass), so it was not declared when it
    ///   should have been;
    /// - the time threshold: a loss the time threshold declared (`detected` a timeout) less
    ///   than `time_threshold` x the smallest RTT any frame measured after its send, while the
    ///   stack waits at least `time_threshold x max(smoothed, latest)`, and `latest` is never
    ///   below that smallest RTT.
    fn thresholds_mismatched(
        &self,
        now: Instant,
        sent: Instant,
        first_lost: u64,
        detected: LossSignal,
    ) -> bool {
        let Evidence::Exact(e) = &self.evidence else {
            return false;
        };
        let before_pass = if self.last_ack_frame == Some(now) {
            e.largest_before_frame
        } else {
            self.largest_acked()
        };
        let threshold = u64::from(self.config.packet_threshold());
        let packet = before_pass.is_some_and(|l| l >= first_lost.saturating_add(threshold));
        let time = detected.is_timeout()
            && e.min_frame_rtt.is_some_and(|min| {
                now.saturating_duration_since(sent)
                    < saturating_mul_f32(min, self.config.time_threshold())
            });
        packet || time
    }

    /// Sets `signal` and `determined` from `detected` under the reading in force.
    fn read(&self, c: &mut Classification) {
        if c.detected == LossSignal::Ecn {
            return;
        }
        let is_timeout = match self.reading {
            TimeoutReading::TimeThreshold => {
                c.signal = c.detected;
                c.determined = c.detected_determined;
                return;
            }
            TimeoutReading::ProbeTimeout => c.persistent || c.after_probe_timeout,
            TimeoutReading::PersistentCongestion => c.persistent,
        };
        if !is_timeout {
            // Whatever the distance, the event is a fast retransmit.
            c.signal = LossSignal::FastRetransmit;
            c.determined = true;
            return;
        }
        // `d`, saturated at the packet threshold: a fast-retransmit distance is "at least".
        let threshold = u8::try_from(self.config.packet_threshold()).unwrap_or(u8::MAX);
        let (dup_acks, determined) = match (c.persistent, c.lost_pn, c.largest_acked) {
            (true, Some(lost), Some(largest)) => (
                u8::try_from(largest.saturating_sub(lost)).map_or(threshold, |d| d.min(threshold)),
                c.detected_determined,
            ),
            (true, _, _) => (0, false),
            (false, _, _) => match c.detected {
                LossSignal::Timeout { dup_acks } => {
                    (dup_acks.min(threshold), c.detected_determined)
                }
                _ => (threshold, c.detected_determined),
            },
        };
        c.signal = LossSignal::Timeout { dup_acks };
        c.determined = determined;
    }

    fn classify(
        &mut self,
        now: Instant,
        sent: Instant,
        persistent: bool,
        lost_bytes: u64,
    ) -> Classification {
        let largest = self.largest_acked();
        let mut result = Classification {
            signal: LossSignal::FastRetransmit,
            determined: true,
            largest_acked: largest,
            lost_pn: None,
            detected: LossSignal::FastRetransmit,
            detected_determined: true,
            persistent,
            after_probe_timeout: false,
        };
        if lost_bytes == 0 && !persistent {
            result.signal = LossSignal::Ecn;
            result.detected = LossSignal::Ecn;
            return result;
        }
        result.after_probe_timeout = self.probe_timeout.is_some_and(|pto| sent < pto);
        // Before any RTT sample quinn uses its initial RTT, which the callbacks never show.
        let (ld_lo, ld_hi) = match self.conservative_rtt() {
            Some(r) => (self.loss_delay(r.lo), self.loss_delay(r.hi)),
            None => (TIMER_GRANULARITY, Duration::MAX),
        };
        let midpoint = ld_lo + (ld_hi.saturating_sub(ld_lo)) / 2;
        let time_eligible = |t: Instant| now.saturating_duration_since(t) >= midpoint;
        let Some(largest) = largest else {
            // quinn detects no loss before an acknowledgement; nothing here is reliable.
            result.detected_determined = false;
            if persistent {
                result.detected = LossSignal::PERSISTENT;
            }
            return result;
        };
        let distance = self.distance(now, sent, largest, (ld_lo, midpoint, ld_hi));
        result.lost_pn = distance.lost_pn;
        if persistent {
            result.detected = LossSignal::PERSISTENT;
            self.apply_time_threshold(largest, time_eligible);
            // Only reading `time_threshold` ignores the distance of persistent congestion.
            result.detected_determined =
                distance.determined || self.reading == TimeoutReading::TimeThreshold;
            return result;
        }
        result.detected = distance.signal;
        result.detected_determined = distance.determined;
        if distance.time_threshold_ran {
            self.apply_time_threshold(largest, time_eligible);
        }
        result
    }

    /// Reads the class of a loss of a packet sent at `sent` by its distance below `largest`
    /// (reading `time_threshold` of a non-persistent event), from the ledger and quinn's loss delay bounds
    /// `(lo, midpoint, hi)`. Changes nothing.
    fn distance(
        &self,
        now: Instant,
        sent: Instant,
        largest: u64,
        (ld_lo, midpoint, ld_hi): (Duration, Duration, Duration),
    ) -> Distance {
        let mut result = Distance {
            signal: LossSignal::FastRetransmit,
            determined: true,
            lost_pn: None,
            time_threshold_ran: false,
        };
        let threshold = u64::from(self.config.packet_threshold());
        let elapsed = now.saturating_duration_since(sent);
        if elapsed < ld_lo {
            // Too young for the time threshold: only the packet threshold declared it.
            return result;
        }
        let timing_certain = elapsed >= ld_hi;
        let Some((ledger, batch)) = self.ledger().and_then(|l| Some((l, l.batch_index(sent)?)))
        else {
            // The ledger no longer (or never) held this send batch.
            result.determined = false;
            return result;
        };
        let (first, end) = ledger.batch_range(batch);
        if first >= largest {
            // A lost packet lies below the largest acknowledged one; the ledger disagrees.
            result.determined = false;
            return result;
        }
        let top = (end - 1).min(largest - 1);
        if largest - top >= threshold {
            // Every packet of the batch below L is at least `threshold` below it.
            result.lost_pn = ledger.largest_outstanding(first, top).map(|(pn, _)| pn);
            result.time_threshold_ran = true;
            return result;
        }
        let (lost_pn, guessed) = match ledger.largest_outstanding(first, top) {
            Some(found) => found,
            // The ledger has nothing outstanding where quinn lost something: its placements
            // were wrong. Read the gap as just below L.
            None => (top, true),
        };
        let d = largest - lost_pn;
        result.lost_pn = Some(lost_pn);
        if d >= threshold {
            result.determined = !guessed;
        } else if timing_certain || elapsed >= midpoint {
            result.signal = LossSignal::from_distance(d, self.config.packet_threshold());
            result.determined = timing_certain && !guessed;
        } else {
            // Timing leaves open that only the packet threshold fired; read it as a fast
            // retransmit of the largest packet at least `threshold` below L.
            result.determined = false;
        }
        result.time_threshold_ran = elapsed >= midpoint;
        result
    }
}

/// A loss's class by its distance below the largest acknowledged packet.
#[derive(Debug, Clone, Copy)]
struct Distance {
    signal: LossSignal,
    determined: bool,
    lost_pn: Option<u64>,
    /// The event shows quinn's time threshold ran: mark the packets it would have declared.
    time_threshold_ran: bool,
}

/// quinn's smoothed RTT update, `(7 smoothed + sample) / 8` (RFC 9002 section 5.3), saturating
/// where quinn's `Duration` arithmetic would overflow: the estimates are a caller's input.
fn smoothed_update(smoothed: Duration, sample: Duration) -> Duration {
    smoothed.saturating_mul(7).saturating_add(sample) / 8
}

/// `d.mul_f32(factor)` (the same product), `Duration::MAX` where that would overflow.
fn saturating_mul_f32(d: Duration, factor: f32) -> Duration {
    Duration::try_from_secs_f32(factor * d.as_secs_f32()).unwrap_or(Duration::MAX)
}
