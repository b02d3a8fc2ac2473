//! Plain-typed views of quinn's callbacks, so algorithm logic is testable without quinn.
//!
//! quinn-proto's `RttEstimator` cannot be constructed outside quinn-proto (its constructor is
//! crate-private), so every algorithm receives these snapshots instead.

use crate::LossSignal;
use std::time::Duration;
use std::time::Instant;

/// The RTT estimates quinn holds when it reports an acknowledgement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RttSnapshot {
    /// quinn's smoothed RTT (`RttEstimator::get`): its initial RTT before the first sample.
    pub smoothed: Duration,
    /// `max(smoothed, latest)` (`RttEstimator::conservative`), the base of quinn's loss delay.
    pub conservative: Duration,
    /// The minimum RTT quinn has seen (`RttEstimator::min`).
    pub min: Duration,
}

impl RttSnapshot {
    /// A snapshot where every estimate equals `rtt` (for tests and replays).
    pub fn uniform(rtt: Duration) -> Self {
        Self {
            smoothed: rtt,
            conservative: rtt,
            min: rtt,
        }
    }
}

/// One acknowledged ack-eliciting packet (quinn's `on_ack`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AckSample {
    /// When the acknowledgement was processed.
    pub now: Instant,
    /// When the acknowledged packet was sent.
    pub sent: Instant,
    /// Size of the acknowledged packet, bytes.
    pub bytes: u64,
    /// Whether the sender was application-limited before this acknowledgement.
    pub app_limited: bool,
    /// quinn's RTT estimates, as they were before this ACK frame updated them.
    pub rtt: RttSnapshot,
}

impl AckSample {
    /// This packet's own round-trip sample, `now - sent` (zero if the clock ran backwards).
    pub fn latest_rtt(&self) -> Duration {
        self.now.saturating_duration_since(self.sent)
    }
}

/// The end of one ACK frame's processing (quinn's `on_end_acks`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AckRoundEnd {
    /// When the frame was processed.
    pub now: Instant,
    /// Bytes still in flight after the frame, as quinn counts them.
    pub in_flight: u64,
    /// Whether the sender was application-limited.
    pub app_limited: bool,
    /// Largest packet number acknowledged so far in this packet-number space.
    pub largest_acked: Option<u64>,
}

/// A classified congestion event (quinn's `on_congestion_event`, decoded by cc-core).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CongestionEvent {
    /// When the loss (or ECN mark) was detected.
    pub now: Instant,
    /// When the largest lost packet was sent.
    pub sent: Instant,
    /// Bytes declared lost (0 for ECN).
    pub lost_bytes: u64,
    /// What the event means in the papers' terms, under the connection's timeout reading.
    pub signal: LossSignal,
    /// Which of QUIC's loss-detection rules declared the event, whatever the reading made of
    /// it (the `time_threshold` reading's class): `FastRetransmit` for the packet threshold (`d >= 3`),
    /// `Timeout { dup_acks: d }` with `d` 1 or 2 for the time threshold, `Timeout { dup_acks:
    /// 0 }` for persistent congestion, `Ecn` for a mark. A port that distinguishes a
    /// retransmission before the third duplicate ACK from one at it (PETRA's section 4.2.2)
    /// reads it here.
    pub detected: LossSignal,
    /// Whether quinn's callbacks determined `signal` exactly (false: it is cc-core's best guess).
    pub determined: bool,
    /// quinn flagged persistent congestion (RFC 9002 section 7.6), whatever the reading made
    /// of it: the window reacts even inside a recovery period.
    pub persistent: bool,
}

impl CongestionEvent {
    /// A loss event of `signal` (ECN: `lost_bytes` 0) that quinn's callbacks determined, with
    /// `persistent` and `detected` set as reading `time_threshold` would have them: persistent for
    /// `Timeout { dup_acks: 0 }`, detected as `signal`. For tests and replays.
    pub fn determined(now: Instant, sent: Instant, lost_bytes: u64, signal: LossSignal) -> Self {
        Self {
            now,
            sent,
            lost_bytes,
            signal,
            detected: signal,
            determined: true,
            persistent: signal == LossSignal::PERSISTENT,
        }
    }

    /// The same event, declared by the rule `detected` stands for (see
    /// [`CongestionEvent::detected`]): e.g. a fast retransmit under reading `persistent_congestion` that the time
    /// threshold declared with `d` = 1.
    pub fn detected_as(mut self, detected: LossSignal) -> Self {
        self.detected = detected;
        self
    }
}
