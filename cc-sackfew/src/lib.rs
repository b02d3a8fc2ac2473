//! SACK-FeW (selective acknowledgement with fractional window increment) congestion control
//! for QUIC.
//! A controller for quinn 0.11 (feature `quinn`, on by default) and noq 1.x, iroh's QUIC (feature
//! `noq`), from one configuration.
//!
//! Port of: Taranvir Kaur, *Performance Analysis of Selective Acknowledgement with Fractional
//! Window Increment (SACK-FeW)*, CSE/IT, CTIEMT, CT Institutes, Shahpur, Jalandhar, India;
//! section 2 (`papers/sack-few.txt`; the text names no venue or year). The fractional window
//! increment (FeW) it applies to TCP-SACK comes from the work it lists as its references \[1\]
//! (Ahmed Helmy, C.-C. Jay Kuo, Kitae Nahm, "TCP over multihop 802.11 networks: issues and
//! performance enhancement", ACM MobiHoc 2005) and \[5\] (Xinbing Wang, Yun Han, Youyun Xu,
//! "APS-FeW: Improving TCP throughput over multihop adhoc networks", Computer Communications,
//! 2008).
//!
//! SACK-FeW keeps SACK's loss recovery and replaces both slow start and congestion avoidance
//! with one slow growth rule (section 2.1):
//!
//! ```text
//! cwnd_new = cwnd_current + alpha / cwnd_current      per ACK, cwnd in packets, 0 <= alpha <= 1
//! ```
//!
//! so the window grows by `alpha` packets per round trip, and after a loss
//! `cwnd = min(cwnd, ssthresh)` (section 2.2 step 4). It was designed for multi-hop 802.11
//! networks, where the window that keeps a chain of hops busy is a few packets and TCP's
//! usual growth overshoots it into contention losses and route breaks (section 1).
//!
//! ```
//! let mut transport = quinn::TransportConfig::default();
//! // The controller, and the loss thresholds its classifier reads, in one call.
//! cc_sackfew::SackFewConfig::default().install(&mut transport);
//! ```
//!
//! # What alpha means in seconds
//!
//! Over one round trip a window's worth of packets is acknowledged, each adding
//! `alpha / cwnd` packets: the window grows by **`alpha` packets per round trip, whatever its
//! size**.
//!
//! - **`alpha = 0.01` (the paper's default)** adds one packet every **100 round trips**. At a
//!   100-datagram window of 1200-byte datagrams, an acknowledged datagram adds
//!   `0.01 x 1200 x 1200 / 120000 = 0.12` bytes, so one more datagram takes 10,000
//!   acknowledgements, 100 windows, **10 s at a 100 ms RTT**. On a long fat path, say
//!   100 Mb/s with a 100 ms RTT (a bandwidth-delay product of 1.25 MB, about 1042 datagrams),
//!   climbing from QUIC's 10-datagram initial window to the path's capacity takes about
//!   `(1042 - 10) / 0.01 = 103,200` round trips, nearly **3 hours**; meanwhile the connection
//!   runs at about `10 x 1200 B / 100 ms = 0.96 Mb/s`, under 1% of the link. After a loss that
//!   halves a window of `W` packets, recovering it takes `50 x W` round trips. This is the
//!   intended behaviour on a few-hop 802.11 chain, where a window of a few packets is the best
//!   one and the point is to stay there; on a wired or long fat path SACK-FeW with 0.01 will
//!   leave almost all of the capacity unused.
//! - **`alpha = 1`** adds one packet per round trip: NewReno's congestion-avoidance rate,
//!   applied in slow start too, i.e. SACK/NewReno *without* exponential slow start. The same
//!   100 Mb/s, 100 ms path fills in about 1032 round trips (about 103 s) instead of the 7 round
//!   trips slow start takes.
//! - **`alpha = 0`** freezes the window at its initial size except for reductions.
//!
//! # Mapping onto QUIC
//!
//! QUIC's ACK frames carry ranges: every acknowledgement is already selective, and quinn's loss
//! detection (packet threshold and time threshold, RFC 9002 section 6.1) is the sender-side
//! SACK scoreboard. So SACK-FeW on QUIC is quinn's loss recovery plus the FeW growth rule.
//! [`cc_core::LossClassifier`] turns each quinn congestion event into a
//! [`cc_core::LossSignal`] (docs/DESIGN.md section 3):
//!
//! | signal | paper | window | ssthresh |
//! |---|---|---|---|
//! | `FastRetransmit` (by default every loss but persistent congestion) | step 3 (loss seen in the SACKs), step 4 | `min(cwnd, ssthresh)` = cwnd / 2 | cwnd / 2 |
//! | `Timeout { .. }` (by default persistent congestion) | SACK's RTO (the paper is silent) | minimum window | cwnd / 2 |
//! | `Ecn` | - | `min(cwnd, ssthresh)` = cwnd / 2 | cwnd / 2 |
//! | an acknowledgement | step 5 | `+ alpha x MSS x acked_bytes / cwnd` bytes | unchanged |
//!
//! The growth is applied in its byte-counting form (equivalence in [`FewGrowth::on_ack`]):
//! `cwnd += alpha x MSS x acked_bytes / cwnd`, with the fraction of a byte carried between
//! acknowledgements so that small increments are not lost to integer truncation.
//!
//! # Deviations from the paper
//!
//! - **Step 4 runs after a loss, not on every ACK.** Section 2.2 lists
//!   `cwnd = min(cwnd, ssthresh)` as step 4 of every SACK's processing, right after the
//!   conditional retransmission of step 3. Read literally, the window could never climb more
//!   than one increment above ssthresh after the first loss, which contradicts section 1 (the
//!   formula is used "when the congestion window is less as well as greater than the slow start
//!   threshold"). It is read as part of step 3's loss branch.
//! - **ssthresh on a loss** is set as NewReno sets it, `cwnd / 2` (RFC 5681 eq. 4); the paper
//!   does not say. The factor is [`SackFewConfig::loss_reduction_factor`].
//! - **Persistent congestion** (RFC 9002 section 7.6), QUIC's counterpart of the RTO, takes the
//!   window to the minimum as SACK's RTO takes it to one segment; the paper covers only losses
//!   seen in the SACKs.
//! - **Time-threshold losses** (`Timeout { dup_acks: 1 or 2 }` under reading `time_threshold`; fast
//!   retransmits under the default reading) are losses found from the
//!   acknowledgement ranges, as SACK's scoreboard finds them, so they take step 4 like a fast
//!   retransmit rather than TCP's RTO reset.
//! - **Byte counting.** The per-ACK formula is applied per acknowledged byte, so growth does
//!   not depend on how many packets each ACK frame covers (QUIC receivers acknowledge every
//!   second packet by default).
//! - **Minimum and initial window.** QUIC's minimum window is 2 datagrams (RFC 9002
//!   section 7.2), not 1 segment; QUIC starts at 10 datagrams, where the paper keeps SACK's
//!   initial window.
//! - **Recovery.** As RFC 9002 section 7.3.2 and quinn's NewReno: at most one reduction per
//!   round trip (losses of packets sent before the current recovery period began do not reduce
//!   again; persistent congestion always does), and no growth from acknowledgements of packets
//!   sent before recovery began or while the sender is application-limited.
//! - **ECN** (absent from the paper) is treated as a loss.
//!
//! The packet and time thresholds the classifier uses ([`SackFewConfig::signal`]) must equal the
//! transport's (`TransportConfig::packet_threshold`, `time_threshold`; defaults 3 and 9/8):
//! [`SackFewConfig::install`] sets both. To read a running connection's controller, pass
//! `quinn::Connection::congestion_state()` to [`SackFewController::from_controller`].
//! `congestion_state()` returns a copy of the controller: its `algorithm()` is the
//! [`SackFew`] state (window and ssthresh through [`cc_core::CongestionAlgorithm`]).
//!
//! **Timeout reading.** This port reads QUIC's persistent congestion as its paper's timeout, and
//! every other loss as a fast retransmit: reading `persistent_congestion` of [`cc_core::TimeoutReading`], its
//! default (`signal.timeout_reading` selects another). Measured on netsim (docs/loss-signals.md, "Loss
//! signals"), `persistent_congestion` gives SACK-FeW its best goodput on the demo and on PETRA's grid; `time_threshold`, which reads
//! a time-threshold loss as a timeout, the worst.
#![deny(missing_docs)]

mod config;
mod sackfew;

pub use cc_core::{ConfigError, LossSignal, PortConfig, SignalConfig, SignalStats};
pub use config::SackFewConfig;

/// A running SackFew controller as quinn holds it: the algorithm ([`SackFew`]) and its loss
/// classifier ([`SignalStats`]).
pub type SackFewController = cc_core::PortController<SackFew>;
pub use sackfew::{FewGrowth, SackFew, SackFewDecision};
