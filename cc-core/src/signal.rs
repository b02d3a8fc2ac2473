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
    /// The papers' retransmission timeout after `dup_acks` duplicate ACKs.
    ///
    /// Which QUIC event counts as a TCP timeout is the [`TimeoutReading`] in force (one per
    /// connection, see [`crate::SignalConfig::timeout_reading`]):
    /// - [`TimeoutReading::TimeThreshold`]: a loss the time threshold declared, `d` = 1 or 2
    ///   (with the default packet threshold of 3), and persistent congestion with `d` = 0;
    /// - [`TimeoutReading::ProbeTimeout`]: a loss declared after a probe timeout fired, `d` its
    ///   distance below the largest acknowledged packet;
    /// - [`TimeoutReading::PersistentCongestion`]: persistent congestion, `d` its largest lost
    ///   packet's distance.
    ///
    /// Under the last two, `d` saturates at the packet threshold: "at least that many".
    Timeout {
        /// Later packets acknowledged when the loss was declared (see the reading).
        dup_acks: u8,
    },
    /// An ECN congestion-experienced mark: quinn's event with `lost_bytes == 0`.
    Ecn,
}

/// Which QUIC event a port reads as the papers' TCP retransmission timeout (RTO).
///
/// TCP's RTO has no single QUIC counterpart, and the papers' responses to it differ from their
/// responses to three duplicate ACKs, so the choice moves results. Each port declares the
/// reading it uses by default ([`crate::CongestionAlgorithm::TIMEOUT_READING`]); a
/// [`crate::SignalConfig`] can override it. docs/DESIGN.md section 3 gives the measurements
/// behind each port's default.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TimeoutReading {
    /// A loss declared by QUIC's **time threshold** (RFC 9002 section 6.1.2; RACK's
    /// reordering window, RFC 8985) with `d` = 1 or 2 is a timeout after `d` duplicate ACKs,
    /// and persistent congestion a timeout after none. In TCP, RACK leads to fast recovery, not
    /// to an RTO, so this reading is harsher than TCP where a port's timeout response is.
    TimeThreshold,
    /// A loss declared after a **probe timeout** fired (RFC 9002 section 6.2, QUIC's
    /// counterpart of the RTO timer) is a timeout; `d` is the number of later packets
    /// acknowledged when it was declared (the probes' acknowledgements stand in for the
    /// duplicate ACKs). Other losses are fast retransmits. quinn 0.11 shows no PTO to a
    /// controller: the classifier infers it (see [`crate::LossClassifier`]).
    ProbeTimeout,
    /// **Persistent congestion** (RFC 9002 section 7.6), the event on which QUIC's own
    /// NewReno collapses to its minimum window as TCP does after an RTO, is a timeout; `d` is its
    /// largest lost packet's distance below the largest acknowledged one. Every other loss is a
    /// fast retransmit.
    PersistentCongestion,
}

impl TimeoutReading {
    /// Every reading, in the order `time_threshold`, `probe_timeout`, `persistent_congestion`.
    pub const ALL: [Self; 3] = [
        Self::TimeThreshold,
        Self::ProbeTimeout,
        Self::PersistentCongestion,
    ];

    /// The name in configuration files and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Self::TimeThreshold => "time_threshold",
            Self::ProbeTimeout => "probe_timeout",
            Self::PersistentCongestion => "persistent_congestion",
        }
    }
}

impl fmt::Display for TimeoutReading {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for TimeoutReading {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Self::ALL
            .into_iter()
            .find(|r| r.name() == s)
            .ok_or_else(|| {
                format!(
                    "unknown timeout reading `{s}`: expected time_threshold, probe_timeout or persistent_congestion"
                )
            })
    }
}

impl LossSignal {
    /// A timeout with no duplicate ACK: persistent congestion under
    /// [`TimeoutReading::TimeThreshold`], a tail loss under the others.
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

    /// Whether this is a timeout (any `dup_acks`): the papers' RTO, under the reading in force.
    pub fn is_timeout(self) -> bool {
        matches!(self, Self::Timeout { .. })
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
        assert!(LossSignal::PERSISTENT.is_timeout());
        assert!(!LossSignal::FastRetransmit.is_timeout());
        for r in TimeoutReading::ALL {
            assert_eq!(r.name().parse::<TimeoutReading>(), Ok(r));
        }
        assert!("rto".parse::<TimeoutReading>().is_err());
        assert_eq!(LossSignal::Timeout { dup_acks: 2 }.dup_acks(), Some(2));
        assert_eq!(LossSignal::FastRetransmit.dup_acks(), None);
    }
}
