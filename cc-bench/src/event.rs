//! The recorded callbacks: one [`Event`] per call quinn made on a `Controller`.

use cc_core::RttSnapshot;
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// The three public readings of a stack's `RttEstimator` (quinn's and noq's alike), in
/// nanoseconds.
///
/// These are all a controller can learn from the estimator (`get()`, `conservative()`,
/// `min()`); both stacks keep the RTT variance private.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct RttReading {
    /// `RttEstimator::get()`, the smoothed RTT (quinn's initial RTT before the first sample), ns.
    pub smoothed_ns: u64,
    /// `RttEstimator::conservative()`, `max(smoothed, latest)`, ns.
    pub conservative_ns: u64,
    /// `RttEstimator::min()`, ns.
    pub min_ns: u64,
}

impl RttReading {
    /// The readings of a snapshot (`cc_core::RttSnapshot::from_quinn` / `from_noq`).
    pub fn of_snapshot(rtt: &RttSnapshot) -> Self {
        Self {
            smoothed_ns: nanos(rtt.smoothed),
            conservative_ns: nanos(rtt.conservative),
            min_ns: nanos(rtt.min),
        }
    }

    /// The same readings as cc-core's plain snapshot type.
    pub fn snapshot(&self) -> RttSnapshot {
        RttSnapshot {
            smoothed: Duration::from_nanos(self.smoothed_ns),
            conservative: Duration::from_nanos(self.conservative_ns),
            min: Duration::from_nanos(self.min_ns),
        }
    }

    /// A distance between two readings (sum of absolute differences, ns), used to pick the
    /// nearest captured estimator when no exact one exists.
    pub fn distance(&self, other: &Self) -> u64 {
        self.smoothed_ns.abs_diff(other.smoothed_ns)
            + self.conservative_ns.abs_diff(other.conservative_ns)
            + self.min_ns.abs_diff(other.min_ns)
    }
}

/// A duration in whole nanoseconds, saturating at `u64::MAX` (584 years).
pub fn nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

/// One `Controller` callback with its arguments, on either stack.
///
/// quinn 0.11's trait is a subset of noq 1.x's: a quinn recording holds only the events quinn
/// makes (`Sent`, `Rtt`, `Ack` and `Congestion` without packet numbers, `EndAcks`, `Mtu`);
/// a noq recording adds the packet numbers and noq's extra callbacks.
///
/// Times (`at`, `sent`) are nanoseconds since the controller was built (the stack's `now` at
/// `ControllerFactory::build`, the first call a controller receives), so a recording replays
/// from any base instant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Event {
    /// `on_sent(now, bytes, last_packet_number)`: one transmit pass.
    Sent {
        /// `now`, ns since build.
        at: u64,
        /// Bytes sent in the pass.
        bytes: u64,
        /// The pass's last packet number.
        last_pn: u64,
    },
    /// The stack's RTT estimator read differently from the previous `on_ack`: the following
    /// [`Event::Ack`]s carry these readings. Not a callback of its own.
    Rtt(RttReading),
    /// `on_ack(now, sent, bytes, [pn,] app_limited, rtt)`, `rtt` being the last
    /// [`Event::Rtt`].
    Ack {
        /// `now`, ns since build.
        at: u64,
        /// When the acknowledged packet was sent, ns since build.
        sent: u64,
        /// Size of the acknowledged packet, bytes.
        bytes: u64,
        /// The acknowledged packet's number (noq; quinn does not pass it).
        pn: Option<u64>,
        /// The `app_limited` argument.
        app_limited: bool,
    },
    /// `on_end_acks(now, in_flight, app_limited, largest_packet_num_acked)`.
    EndAcks {
        /// `now`, ns since build.
        at: u64,
        /// Bytes in flight after the frame.
        in_flight: u64,
        /// The `app_limited` argument.
        app_limited: bool,
        /// Largest acknowledged packet number in the space.
        largest_acked: Option<u64>,
    },
    /// `on_congestion_event(now, sent, is_persistent_congestion, [is_ecn,] lost_bytes,
    /// [largest_lost_pn])`.
    Congestion {
        /// `now`, ns since build.
        at: u64,
        /// Send time of the largest lost packet, ns since build.
        sent: u64,
        /// `is_persistent_congestion`.
        persistent: bool,
        /// `is_ecn` (noq; quinn passes ECN signals as `lost_bytes` 0).
        ecn: bool,
        /// Bytes declared lost (0: an ECN congestion-experienced signal).
        lost_bytes: u64,
        /// The largest lost packet number (noq; quinn does not pass it).
        largest_lost_pn: Option<u64>,
    },
    /// `on_mtu_update(new_mtu)`.
    Mtu {
        /// The new datagram size, bytes.
        mtu: u16,
    },
    /// noq: `on_packet_sent(now, bytes, pn)`, once per packet.
    PacketSent {
        /// `now`, ns since build.
        at: u64,
        /// The packet's size, bytes.
        bytes: u16,
        /// Its number.
        pn: u64,
    },
    /// noq: `on_packet_lost(lost_bytes, pn, now)`, once per lost packet.
    PacketLost {
        /// `now`, ns since build.
        at: u64,
        /// The packet's size, bytes.
        bytes: u16,
        /// Its number.
        pn: u64,
    },
    /// noq: `on_cwnd_limited()`.
    CwndLimited,
    /// noq: `on_spurious_congestion_event()`.
    SpuriousCongestion,
    /// noq: `on_ack_frequency_update(ack_eliciting_threshold, requested_max_ack_delay)`.
    AckFrequency {
        /// `ack_eliciting_threshold`.
        threshold: u64,
        /// `requested_max_ack_delay`, ns.
        max_ack_delay_ns: u64,
    },
    /// noq: a `metrics()` read (noq's send path reads it once per transmit attempt and once
    /// per pacing decision, so it is part of a controller's cost there).
    Metrics,
}

impl Event {
    /// Whether quinn 0.11's `Controller` trait has this call (and its arguments).
    pub fn on_quinn(&self) -> bool {
        match self {
            Self::Sent { .. } | Self::Rtt(_) | Self::EndAcks { .. } | Self::Mtu { .. } => true,
            Self::Ack { pn, .. } => pn.is_none(),
            Self::Congestion {
                ecn,
                largest_lost_pn,
                ..
            } => !ecn && largest_lost_pn.is_none(),
            Self::PacketSent { .. }
            | Self::PacketLost { .. }
            | Self::CwndLimited
            | Self::SpuriousCongestion
            | Self::AckFrequency { .. }
            | Self::Metrics => false,
        }
    }
}

/// How many of each callback a sequence holds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EventCounts {
    /// `on_sent` calls (transmit passes).
    pub sent: u64,
    /// `on_ack` calls.
    pub acks: u64,
    /// `on_end_acks` calls (ACK frames).
    pub end_acks: u64,
    /// `on_congestion_event` calls.
    pub congestion: u64,
    /// `on_mtu_update` calls.
    pub mtu: u64,
    /// Distinct consecutive RTT readings.
    pub rtt_changes: u64,
    /// noq: `on_packet_sent` calls.
    pub packet_sent: u64,
    /// noq: `on_packet_lost` calls.
    pub packet_lost: u64,
    /// noq: `metrics()` reads.
    pub metrics: u64,
    /// noq: `on_cwnd_limited`, `on_spurious_congestion_event` and `on_ack_frequency_update`
    /// calls.
    pub other: u64,
}

impl EventCounts {
    /// Counts `events`.
    pub fn of(events: &[Event]) -> Self {
        let mut c = Self::default();
        for e in events {
            match e {
                Event::Sent { .. } => c.sent += 1,
                Event::Rtt(_) => c.rtt_changes += 1,
                Event::Ack { .. } => c.acks += 1,
                Event::EndAcks { .. } => c.end_acks += 1,
                Event::Congestion { .. } => c.congestion += 1,
                Event::Mtu { .. } => c.mtu += 1,
                Event::PacketSent { .. } => c.packet_sent += 1,
                Event::PacketLost { .. } => c.packet_lost += 1,
                Event::Metrics => c.metrics += 1,
                Event::CwndLimited | Event::SpuriousCongestion | Event::AckFrequency { .. } => {
                    c.other += 1
                }
            }
        }
        c
    }

    /// Callbacks in all (RTT changes are not callbacks; `metrics()` reads are).
    pub fn callbacks(&self) -> u64 {
        self.sent
            + self.acks
            + self.end_acks
            + self.congestion
            + self.mtu
            + self.packet_sent
            + self.packet_lost
            + self.metrics
            + self.other
    }
}
