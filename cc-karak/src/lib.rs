//! TCP Karak congestion control for quinn.
//!
//! Port of: Wesam A. Almobaideen and Njoud O. Al-maitah, *TCP Karak: A New TCP AIMD Algorithm
//! Based on Duplicated Acknowledgements for MANET*, Scientific Research Publishing, 2014;
//! section 3 and Table 1 (`papers/karak.txt`).
//!
//! TCP Karak is NewReno whose reaction to a retransmission timeout is graded by how many
//! duplicate ACKs arrived before it: a timeout with none signals severe congestion (back to one
//! segment), one or two signal a link break or bit error behind which the path still carries
//! data (down to an eighth or a quarter of the window, rounded up to a power of two segments).
//! Three duplicate ACKs trigger the usual fast retransmit, halving the window.
//!
//! ```
//! let mut transport = quinn::TransportConfig::default();
//! // The controller, and the loss thresholds its classifier reads, in one call.
//! cc_karak::KarakConfig::default().install(&mut transport);
//! ```
//!
//! # Mapping onto QUIC
//!
//! [`cc_core::LossClassifier`] turns each quinn congestion event into a
//! [`cc_core::LossSignal`] (docs/DESIGN.md section 3), and Table 1 becomes:
//!
//! | signal | Table 1 row | window | ssthresh |
//! |---|---|---|---|
//! | `FastRetransmit` (d >= 3) | `Dup_ACK == 3` | cwnd / 2 | cwnd / 2 |
//! | `Timeout { dup_acks: 2 }` | timeout, `Dup_ACK == 2` | cwnd / 4, rounded up to 2^k packets | old cwnd / 2 |
//! | `Timeout { dup_acks: 1 }` | timeout, `Dup_ACK == 1` | cwnd / 8, rounded up to 2^k packets | old cwnd / 2 |
//! | `Timeout { dup_acks: 0 }`, or 3 and more | timeout, "Else" (`Dup_ACK` zero) | minimum window | old cwnd / 2 |
//! | `Ecn` | - | cwnd / 2 | cwnd / 2 |
//!
//! Growth is NewReno's, with byte counting: +1 segment per acknowledged segment in slow start,
//! +1 segment per window in congestion avoidance (Table 1 "New ACK arrives").
//!
//! # Deviations from the paper
//!
//! - **Minimum window.** QUIC's minimum window is 2 datagrams (RFC 9002 section 7.2), not 1
//!   segment; no rule here takes the window below it.
//! - **Initial window.** 10 datagrams, as QUIC starts (RFC 9002 section 7.2), not 1 segment.
//! - **What "timeout" means.** QUIC has no RTO. A time-threshold loss (the packet threshold did
//!   not fire, fewer than 3 later packets were acknowledged) plays the role of "RTO after
//!   `d` duplicate ACKs", and persistent congestion (RFC 9002 section 7.6) plays "RTO with no
//!   duplicate ACK". quinn's own NewReno halves on a time-threshold loss where the paper's TCP
//!   NewReno would reset to one segment: Karak's graded cuts are *deeper* than quinn's NewReno
//!   after one or two duplicate ACKs, and it is against quinn's NewReno that the harness compares.
//!   That is the default, reading (A) of [`cc_core::TimeoutReading`]; `signal.timeout_reading`
//!   selects (B), a loss after a probe timeout, or (C), persistent congestion only, where
//!   Karak's graded cut is gentler than QUIC NewReno's collapse as the paper intends. Measured
//!   on netsim (README, "Loss signals"): 0.88x NewReno on the demo under (A), 0.96x under (B),
//!   0.98x under (C); geometric mean over PETRA's grid 0.895x, 0.964x, 0.964x. (A) stays the
//!   default until the ns-3 sweeps are re-run under (C).
//! - **ssthresh after a timeout** is half the window before it (RFC 5681 eq. 4); Table 1 leaves
//!   it implicit.
//! - **One reduction per round trip.** Losses of packets sent before the current recovery period
//!   began do not cut again (quinn's `recovery_start_time`); persistent congestion always does.
//! - **ECN** (absent from the paper) halves, as a fast retransmit.
//!
//! The packet and time thresholds the classifier uses ([`KarakConfig::signal`]) must equal the
//! transport's (`TransportConfig::packet_threshold`, `time_threshold`; defaults 3 and 9/8):
//! [`KarakConfig::install`] sets both. To read a running connection's controller, pass
//! `quinn::Connection::congestion_state()` to [`KarakController::from_controller`].
#![deny(missing_docs)]

mod config;
mod karak;

pub use cc_core::{ConfigError, LossSignal, PortConfig, SignalConfig, SignalStats};
pub use config::KarakConfig;
pub use karak::{Karak, KarakDecision};

/// A running Karak controller as quinn holds it: the algorithm ([`Karak`]) and its loss
/// classifier ([`SignalStats`]).
pub type KarakController = cc_core::QuinnAdapter<Karak>;
