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

use crate::ledger::Ledger;
use crate::{LossSignal, SignalConfig};
use std::time::Duration;
use std::time::Instant;

/// quinn's timer granularity: the floor of its loss delay.
const TIMER_GRANULARITY: Duration = Duration::from_millis(1);

/// Counters of what the classifier decided.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SignalStats {
    /// Events classified `FastRetransmit`.
    pub fast_retransmit: u64,
    /// Events classified `Timeout { dup_acks: 1 }`.
    pub timeout1: u64,
    /// Events classified `Timeout { dup_acks: 2 }`.
    pub timeout2: u64,
    /// Events classified `Timeout` with another non-zero `dup_acks` (packet threshold > 3).
    pub timeout_other: u64,
    /// Persistent congestion (`Timeout { dup_acks: 0 }`).
    pub persistent: u64,
    /// ECN congestion-experienced events.
    pub ecn: u64,
    /// Events whose class the callbacks did not determine (the class is a best reading).
    pub undetermined: u64,
    /// Batches the bounded ledger forgot while they still had outstanding packets.
    pub ledger_evictions: u64,
}

impl SignalStats {
    /// All events counted.
    pub fn total(&self) -> u64 {
        self.fast_retransmit
            + self.timeout1
            + self.timeout2
            + self.timeout_other
            + self.persistent
            + self.ecn
    }

    fn count(&mut self, signal: LossSignal, determined: bool) {
        match signal {
            LossSignal::FastRetransmit => self.fast_retransmit += 1,
            LossSignal::Timeout { dup_acks: 0 } => self.persistent += 1,
            LossSignal::Timeout { dup_acks: 1 } => self.timeout1 += 1,
            LossSignal::Timeout { dup_acks: 2 } => self.timeout2 += 1,
            LossSignal::Timeout { .. } => self.timeout_other += 1,
            LossSignal::Ecn => self.ecn += 1,
        }
        if !determined {
            self.undetermined += 1;
        }
    }
}

/// Bounds on quinn's `RttEstimator::conservative()` (`max(srtt, latest)`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct ConservativeRtt {
    lo: Duration,
    hi: Duration,
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
}

/// Turns the stream of quinn callbacks into classified loss signals.
#[derive(Debug, Clone, PartialEq)]
pub struct LossClassifier {
    config: SignalConfig,
    ledger: Ledger,
    /// Largest acknowledged packet number (quinn's `largest_acked_packet`).
    largest_acked: Option<u64>,
    /// quinn's conservative RTT before the ACK frame being processed, from `on_ack`.
    frame_rtt: Option<(Duration, Duration)>,
    /// Whether quinn has taken an RTT sample yet (its smoothed RTT starts at the first one).
    have_sample: bool,
    /// Bounds on quinn's conservative RTT as of the last processed frame.
    rtt: Option<ConservativeRtt>,
    /// Whether any `on_ack` arrived in the frame being processed.
    frame_acked: bool,
    stats: SignalStats,
}

impl LossClassifier {
    /// A classifier with the given thresholds (which must match quinn's `TransportConfig`).
    pub fn new(config: SignalConfig) -> Self {
        Self {
            ledger: Ledger::new(config.ledger_packets(), config.ledger_batches()),
            config,
            largest_acked: None,
            frame_rtt: None,
            have_sample: false,
            rtt: None,
            frame_acked: false,
            stats: SignalStats::default(),
        }
    }

    /// The settings in use.
    pub fn config(&self) -> &SignalConfig {
        &self.config
    }

    /// What has been classified so far.
    pub fn stats(&self) -> SignalStats {
        SignalStats {
            ledger_evictions: self.ledger.evicted_unresolved(),
            ..self.stats.clone()
        }
    }

    /// The largest acknowledged packet number seen.
    pub fn largest_acked(&self) -> Option<u64> {
        self.largest_acked
    }

    /// The ledger (for inspection and memory accounting).
    pub fn ledger(&self) -> &Ledger {
        &self.ledger
    }

    /// quinn's `on_sent`: a transmit pass at `now` whose last packet number is `last_pn`.
    pub fn on_sent(&mut self, now: Instant, last_pn: u64) {
        self.ledger.on_sent(now, last_pn);
    }

    /// quinn's `on_ack` for a packet sent at `sent`, with quinn's RTT estimates before the frame
    /// (`smoothed` and `conservative`).
    pub fn on_ack(&mut self, sent: Instant, smoothed: Duration, conservative: Duration) {
        self.ledger.record_ack(sent);
        self.frame_acked = true;
        self.frame_rtt.get_or_insert((smoothed, conservative));
    }

    /// quinn's `on_end_acks`.
    pub fn on_end_acks(&mut self, now: Instant, largest_acked: Option<u64>) {
        let Some(largest) = largest_acked else {
            self.frame_acked = false;
            self.frame_rtt = None;
            return;
        };
        let new_largest = self.largest_acked.is_none_or(|l| largest > l);
        self.largest_acked = Some(self.largest_acked.map_or(largest, |l| l.max(largest)));
        self.ledger.assign_acks(largest, new_largest);

        // The estimates before this frame, exactly, when quinn showed them in `on_ack`.
        if let Some((smoothed, conservative)) = self.frame_rtt.take() {
            let before = ConservativeRtt {
                lo: conservative,
                hi: conservative,
            };
            self.rtt = Some(before);
            // quinn updates its estimator after on_end_acks, when the largest acknowledged
            // packet is new and the frame acknowledged an ack-eliciting packet (RFC 9002 5.3).
            if new_largest && self.frame_acked {
                let latest = self
                    .ledger
                    .time_of(largest)
                    .map(|sent| now.saturating_duration_since(sent));
                self.rtt = Some(match latest {
                    Some(latest) if !self.have_sample => ConservativeRtt {
                        lo: latest,
                        hi: latest,
                    },
                    Some(latest) => {
                        // smoothed' = 7/8 smoothed + 1/8 (latest - ack_delay), ack_delay in
                        // [0, max_ack_delay] and applied only when it keeps the sample >= min.
                        let lo_sample = latest.saturating_sub(self.config.max_ack_delay());
                        let s_lo = (smoothed * 7 + lo_sample) / 8;
                        let s_hi = (smoothed * 7 + latest) / 8;
                        ConservativeRtt {
                            lo: s_lo.max(latest),
                            hi: s_hi.max(latest),
                        }
                    }
                    // The largest packet's send time is unknown: any estimate is possible.
                    None => ConservativeRtt {
                        lo: Duration::ZERO,
                        hi: Duration::MAX,
                    },
                });
                self.have_sample = true;
            }
        }
        self.frame_acked = false;
        self.ledger
            .apply_packet_threshold(largest, self.config.packet_threshold());
    }

    /// quinn's `loss_delay` for a conservative RTT.
    fn loss_delay(&self, rtt: Duration) -> Duration {
        if rtt == Duration::MAX {
            return Duration::MAX;
        }
        rtt.mul_f32(self.config.time_threshold())
            .max(TIMER_GRANULARITY)
    }

    /// quinn's `on_congestion_event`: classifies it and updates the ledger.
    pub fn on_congestion_event(
        &mut self,
        now: Instant,
        sent: Instant,
        is_persistent_congestion: bool,
        lost_bytes: u64,
    ) -> Classification {
        let result = self.classify(now, sent, is_persistent_congestion, lost_bytes);
        self.stats.count(result.signal, result.determined);
        result
    }

    fn classify(
        &mut self,
        now: Instant,
        sent: Instant,
        persistent: bool,
        lost_bytes: u64,
    ) -> Classification {
        let largest = self.largest_acked;
        let mut result = Classification {
            signal: LossSignal::FastRetransmit,
            determined: true,
            largest_acked: largest,
            lost_pn: None,
        };
        if lost_bytes == 0 && !persistent {
            result.signal = LossSignal::Ecn;
            return result;
        }
        // Before any RTT sample quinn uses its initial RTT, which the callbacks never show.
        let (ld_lo, ld_hi) = match self.rtt {
            Some(r) => (self.loss_delay(r.lo), self.loss_delay(r.hi)),
            None => (TIMER_GRANULARITY, Duration::MAX),
        };
        let elapsed = now.saturating_duration_since(sent);
        let midpoint = ld_lo + (ld_hi.saturating_sub(ld_lo)) / 2;
        let time_eligible = |t: Instant| now.saturating_duration_since(t) >= midpoint;
        let Some(largest) = largest else {
            // quinn detects no loss before an acknowledgement; nothing here is reliable.
            result.determined = false;
            result.signal = if persistent {
                LossSignal::PERSISTENT
            } else {
                LossSignal::FastRetransmit
            };
            return result;
        };
        if persistent {
            result.signal = LossSignal::PERSISTENT;
            self.ledger.apply_time_threshold(largest, time_eligible);
            return result;
        }
        let threshold = u64::from(self.config.packet_threshold());
        if elapsed < ld_lo {
            // Too young for the time threshold: only the packet threshold declared it.
            return result;
        }
        let timing_certain = elapsed >= ld_hi;
        let batch = self.ledger.batch_index(sent);
        let Some(batch) = batch else {
            // The ledger no longer (or never) held this send batch.
            result.determined = false;
            return result;
        };
        let (first, end) = self.ledger.batch_range(batch);
        if first >= largest {
            // A lost packet lies below the largest acknowledged one; the ledger disagrees.
            result.determined = false;
            return result;
        }
        let top = (end - 1).min(largest - 1);
        if largest - top >= threshold {
            // Every packet of the batch below L is at least `threshold` below it.
            result.lost_pn = self
                .ledger
                .largest_outstanding(first, top)
                .map(|(pn, _)| pn);
            self.ledger.apply_time_threshold(largest, time_eligible);
            return result;
        }
        let found = self.ledger.largest_outstanding(first, top);
        let (lost_pn, guessed) = match found {
            Some((pn, guessed)) => (pn, guessed),
            // The ledger has nothing outstanding where quinn lost something: its placements
            // were wrong. Read the gap as just below L.
            None => (top, true),
        };
        let d = largest - lost_pn;
        result.lost_pn = Some(lost_pn);
        if d >= threshold {
            result.signal = LossSignal::FastRetransmit;
            result.determined = !guessed;
        } else if timing_certain || elapsed >= midpoint {
            result.signal = LossSignal::from_distance(d, self.config.packet_threshold());
            result.determined = timing_certain && !guessed;
        } else {
            // Timing leaves open that only the packet threshold fired; read it as a fast
            // retransmit of the largest packet at least `threshold` below L.
            result.signal = LossSignal::FastRetransmit;
            result.determined = false;
        }
        if elapsed >= midpoint {
            self.ledger.apply_time_threshold(largest, time_eligible);
        }
        result
    }
}
