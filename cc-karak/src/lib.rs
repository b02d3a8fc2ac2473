//! TCP Karak congestion control for QUIC.
//! A controller for quinn 0.11 (feature `quinn`, on by default) and noq 1.x, iroh's QUIC (feature
//! `noq`), from one configuration.
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
//! | `FastRetransmit` | `Dup_ACK == 3` | cwnd / 2 | cwnd / 2 |
//! | `Timeout { dup_acks: 2 }` | timeout, `Dup_ACK == 2` | cwnd / 4, rounded up to 2^k packets | old cwnd / 2 |
//! | `Timeout { dup_acks: 1 }` | timeout, `Dup_ACK == 1` | cwnd / 8, rounded up to 2^k packets | old cwnd / 2 |
//! | `Timeout { dup_acks: 0 }`, or 3 and more | timeout, "Else" (`Dup_ACK` zero) | minimum window | old cwnd / 2 |
//! | `Ecn` | - | cwnd / 2 | cwnd / 2 |
//!
//! Which QUIC event is a `Timeout` is the [`cc_core::TimeoutReading`]. Karak's default is `persistent_congestion`,
//! **persistent congestion**: QUIC's counterpart of the RTO on which quinn's NewReno collapses
//! to its minimum window, as TCP NewReno does after an RTO. Karak then cuts by the duplicate-ACK
//! count `d` of the largest lost packet (its distance below the largest acknowledged one), the
//! graded response the paper proposes in place of that collapse; every other loss halves.
//!
//! Growth is NewReno's, with byte counting: +1 segment per acknowledged segment in slow start,
//! +1 segment per window in congestion avoidance (Table 1 "New ACK arrives").
//!
//! # Deviations from the paper
//!
//! - **Minimum window.** QUIC's minimum window is 2 datagrams (RFC 9002 section 7.2), not 1
//!   segment; no rule here takes the window below it.
//! - **Initial window.** 10 datagrams, as QUIC starts (RFC 9002 section 7.2), not 1 segment.
//! - **What "timeout" means.** QUIC has no RTO; by default persistent congestion (RFC 9002
//!   section 7.6) is the timeout (above). Reading `time_threshold` (`signal.timeout_reading =
//!   time_threshold`) instead reads a time-threshold loss, `d` = 1 or 2 (RACK's reordering
//!   window, which in TCP leads to fast recovery), as "RTO after `d` duplicate ACKs": on QUIC
//!   those events are frequent and light, quinn's NewReno halves on them, and Karak's 1/8 and
//!   1/4 cuts make it *harsher* than its baseline, the reverse of the paper's premise; it
//!   measures worst of the three readings (docs/loss-signals.md,
//!   docs/results/port-readings.md).
//! - **ssthresh after a timeout** is half the window before it (RFC 5681 eq. 4); Table 1 leaves
//!   it implicit.
//! - **One reduction per round trip.** Losses of packets sent before the current recovery period
//!   began do not cut again (quinn's `recovery_start_time`); persistent congestion always does.
//! - **ECN** (absent from the paper) halves, as a fast retransmit.
//! - **`d` of a detection pass.** One QUIC detection pass can declare a packet-threshold hole
//!   and a time-threshold tail together. On noq, `d` is read off the pass's earliest lost
//!   packet, the one that saw the most duplicate ACKs (TCP counts them for the segment its RTO
//!   retransmits), so such a pass is a fast retransmit. quinn names only the pass's largest lost
//!   packet, so there it reads from the tail: under reading `time_threshold` a timeout after 1 or 2
//!   duplicate ACKs. Under the default reading `persistent_congestion` such passes change
//!   nothing: a pass without persistent congestion is a fast retransmit whatever its `d`
//!   (docs/results/port-readings.md counts them). Persistent congestion's `d` is its earliest
//!   lost packet's too; after a route break the window is at the minimum either way.
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
pub type KarakController = cc_core::PortController<Karak>;
