//! The loss signal every controller matches on (docs/DESIGN.md section 3).

use std::fmt;

/// What a quinn congestion event means in the vocabulary of the TCP papers.
///
/// QUIC has no duplicate ACKs. The distance `d = largest_acked - lost_pn` between the largest
/// acknowledged packet number and the largest lost packet number counts the later packets that
/// got through, exactly what TCP's duplicate-ACK counter counts, and it is what RFC 9002's packet
/// threshold compares. [`crate::LossClassifier`] decodes each quinn event into one of these.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LossSignal {
    /// `d >= packet_threshold`: the papers' "three duplicate ACKs, fast retransmit".
    FastRetransmit,
    /// A loss the packet threshold could not explain.
    ///
    /// `dup_acks` is `d` (1 or 2 with the default threshold of 3) for a time-threshold loss, the
    /// papers' "RTO after `d` duplicate ACKs", and 0 for persistent congestion, the papers'
    /// "RTO with no duplicate ACK".
    Timeout {
        /// Later packets acknowledged before the loss was declared (0 for persistent congestion).
        dup_acks: u8,
    },
    /// An ECN congestion-experienced mark: quinn's event with `lost_bytes == 0`.
    Ecn,
}

impl LossSignal {
    /// Persistent congestion: QUIC's counterpart of a TCP retransmission timeout.
    pub const PERSISTENT: Self = Self::Timeout { dup_acks: 0 };

    /// The signal for a loss `d` packet numbers below the largest acknowledged one.
    ///
    /// `d == 0` cannot happen for a real loss (a lost packet lies below the largest acknowledged
    /// one); it is mapped to [`LossSignal::PERSISTENT`] so that the mapping is total.
    pub fn from_distance(d: u64, packet_threshold: u32) -> Self {
        if d >= u64::from(packet_threshold.max(1)) {
            Self::FastRetransmit
        } else {
            // d < packet_threshold <= u32::MAX; clamp into u8 for thresholds above 256.
            Self::Timeout {
                dup_acks: u8::try_from(d).unwrap_or(u8::MAX),
            }
        }
    }

    /// A short, stable name for tables, metrics and tracing (`fast_retransmit`, `timeout1`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Self::FastRetransmit => "fast_retransmit",
            Self::Timeout { dup_acks: 0 } => "timeout0",
            Self::Timeout { dup_acks: 1 } => "timeout1",
            Self::Timeout { dup_acks: 2 } => "timeout2",
            Self::Timeout { .. } => "timeout_n",
            Self::Ecn => "ecn",
        }
    }

    /// The duplicate-ACK equivalent carried by a timeout, if this is one.
    pub fn dup_acks(self) -> Option<u8> {
        match self {
            Self::Timeout { dup_acks } => Some(dup_acks),
            _ => None,
        }
    }

    /// Whether this is persistent congestion (`Timeout { dup_acks: 0 }`).
    pub fn is_persistent(self) -> bool {
        self == Self::PERSISTENT
    }
}

impl fmt::Display for LossSignal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distance_maps_onto_the_papers_events() {
        // Default threshold 3 (RFC 9002 kPacketThreshold).
        assert_eq!(
            LossSignal::from_distance(1, 3),
            LossSignal::Timeout { dup_acks: 1 }
        );
        assert_eq!(
            LossSignal::from_distance(2, 3),
            LossSignal::Timeout { dup_acks: 2 }
        );
        assert_eq!(LossSignal::from_distance(3, 3), LossSignal::FastRetransmit);
        assert_eq!(
            LossSignal::from_distance(900, 3),
            LossSignal::FastRetransmit
        );
        assert_eq!(LossSignal::from_distance(0, 3), LossSignal::PERSISTENT);
        // A threshold of 0 is treated as 1 so the mapping never divides the world oddly.
        assert_eq!(LossSignal::from_distance(1, 0), LossSignal::FastRetransmit);
        // Large thresholds saturate the u8 counter instead of wrapping.
        assert_eq!(
            LossSignal::from_distance(300, 1000),
            LossSignal::Timeout { dup_acks: 255 }
        );
    }

    #[test]
    fn names_are_stable() {
        assert_eq!(LossSignal::PERSISTENT.name(), "timeout0");
        assert_eq!(LossSignal::Ecn.to_string(), "ecn");
        assert!(LossSignal::PERSISTENT.is_persistent());
        assert_eq!(LossSignal::Timeout { dup_acks: 2 }.dup_acks(), Some(2));
        assert_eq!(LossSignal::FastRetransmit.dup_acks(), None);
    }
}
