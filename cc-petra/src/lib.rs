//! TCP PETRA congestion control for QUIC.
//! A controller for quinn 0.11 (feature `quinn`, on by default) and noq 1.x, iroh's QUIC (feature
//! `noq`), from one configuration.
//!
//! Port of: *PETRA: a new TCP congestion control mechanism*, chapter four of the thesis that
//! introduces TCP PETRA (`papers/petra.txt`), sections 4.1-4.3: TCP Westwood's bandwidth
//! estimate, smoothed (eqs. 4.3-4.4), used to set the initial ssthresh (section 4.1.1, eq. 4.5),
//! to accelerate slow start (section 4.1.2.1), to set ssthresh at a retransmission before the
//! third duplicate ACK (section 4.2.2), and to keep the window through fast recovery (section
//! 4.2.3) and timeouts (section 4.3.3) unless the RTT confirms congestion.
//!
//! ```
//! let mut transport = quinn::TransportConfig::default();
//! // The controller, and the loss thresholds its classifier reads, in one call.
//! cc_petra::PetraConfig::default().install(&mut transport);
//! ```
//!
//! # The algorithm
//!
//! - **Bandwidth estimate** ([`cc_core::WestwoodEstimator`]): per ACK frame,
//!   `EBW = acked bytes / (t_k - t_(k-1))` (eq. 4.3), filtered
//!   `SEBW = 0.1 EBW_i + 0.9 SEBW_(i-1)` (eq. 4.4), reset at every loss event (section 4.1.1):
//!   every loss that starts a recovery period, and persistent congestion.
//! - **Initial ssthresh** (section 4.1.1, eq. 4.5): `ssthresh = SEBW x MinRTT`, recomputed on
//!   every ACK frame of the initial slow start, which ends at the first loss or the first
//!   congestion-avoidance ACK.
//! - **Faster start** (section 4.1.2.1), per ACK frame:
//!
//!   | condition | growth | [`PetraDecision`] |
//!   |---|---|---|
//!   | `BytesInFlight() >= ssthresh` (or `cwnd >= ssthresh`) | `cwnd += SMSS x SMSS / cwnd` (eq. 4.2) | `CongestionAvoidance` |
//!   | `EBW div BytesInFlight() > 2` | `cwnd += (EBW div BytesInFlight()) x SMSS` | `FasterStart` |
//!   | otherwise | `cwnd += SMSS` per acknowledged segment | `SlowStart` |
//!
//! - **Losses.** Every loss first sets `ssthresh = SEBW x MinRTT` as TCP Westwood does (section
//!   4.3.2; section 4.2.2 "TCPW's bandwidth estimation to calculate ssthresh for every packet
//!   lost"), then:
//!
//!   | [`cc_core::LossSignal`] | paper | condition | window | [`PetraDecision`] |
//!   |---|---|---|---|---|
//!   | `FastRetransmit` declared by the time threshold (`d` 1 or 2: before the third duplicate ACK) | 4.2.2, `count < 3` | flight > ssthresh | `cwnd = ssthresh` | `FasterRetransmitToSsthresh` |
//!   | | | otherwise | kept | `FasterRetransmitKeep` |
//!   | `FastRetransmit` declared by the packet threshold (the third duplicate ACK) | 4.2.3 | flight > ssthresh and LastRTT >= ERTT | `cwnd = ssthresh` | `RecoveryToSsthresh` |
//!   | | | otherwise | kept | `RecoveryKeep` |
//!   | `Timeout { .. }` (by default persistent congestion) | 4.3.3 | flight < EBW / 2 and LastRTT < ERTT | `cwnd += SMSS x SMSS / cwnd` | `TimeoutGrow` |
//!   | | | LastRTT < ERTT | `cwnd = ssthresh` | `TimeoutToSsthresh` |
//!   | | | otherwise (congestion) | minimum window | `TimeoutCollapse` |
//!   | `Ecn` | - | - | `min(cwnd, ssthresh)` | `Ecn` |
//!
//! # Mapping onto QUIC
//!
//! - **Which loss is which.** [`cc_core::LossClassifier`] decodes each quinn congestion event
//!   (docs/DESIGN.md section 3): under PETRA's default timeout reading, persistent congestion
//!   (RFC 9002 section 7.6) is the coarse timeout of section 4.3.3; a packet-threshold loss (the
//!   paper's third duplicate ACK) takes section 4.2.3's congestion check; a time-threshold loss
//!   after one or two later packets ([`cc_core::CongestionEvent::detected`]) is the
//!   retransmission before the third duplicate ACK of section 4.2.2 and takes its `count < 3`
//!   branch ([`PetraConfig::faster_retransmit`]).
//! - **ACKs.** quinn calls `on_ack` once per acknowledged packet and `on_end_acks` once per ACK
//!   frame; one frame is one of the paper's ACKs. `Acked x SMSS` in eq. 4.3 is the bytes the
//!   frame newly acknowledged, and growth (section 4.1.2.1) is applied per frame with quinn's
//!   bytes in flight after it, which is TCP's `BytesInFlight()` after processing the ACK.
//! - **RTTs.** LastRTT is `now - sent` of the frame's largest acknowledged packet; MinRTT the
//!   smallest such sample (both taken once per frame, [`cc_core::FrameRtt`], as the same values
//!   one sample per packet gives); ERTT RFC 6298's smoothed RTT (the estimator the paper cites) of the
//!   frames' LastRTT samples, as it was before the frame. Both therefore include the peer's
//!   ACK delay, as TCP's do; the stack's own smoothed RTT subtracts it (RFC 9002 section 5.3)
//!   and would make LastRTT read high against it.
//! - **Section 4.2.2, faster retransmission: the trigger is the transport's, the window rule the
//!   port's.** Its pseudo-code retransmits before the third duplicate ACK when
//!   `LastRTT x (4 - count) > Timeout`, i.e. when waiting for more duplicate ACKs would outlast
//!   the retransmission timer. QUIC declares a packet lost either after `packet_threshold`
//!   later packets are acknowledged or after `time_threshold x max(smoothed RTT, latest RTT)`
//!   (RFC 9002 section 6.1), whichever comes first, and the retransmission is the stack's: a
//!   loss the time threshold declares with `d` below the packet threshold is QUIC's
//!   retransmission before the third duplicate ACK, and PETRA applies section 4.2.2's window
//!   rule to it. The knobs that move the trigger are `TransportConfig::time_threshold`
//!   (default 9/8: a lower value retransmits sooner on a long-RTT path) and
//!   `TransportConfig::packet_threshold` (default 3; RFC 3042's early retransmit would be 2).
//!   If you change them, give the same values to [`PetraConfig::signal`] so the classifier reads
//!   losses as the stack declared them.
//! - **The timeout's `RTO = RTO * 2`** is quinn's PTO backoff, which the controller cannot
//!   change.
//!
//! # Readings of the paper
//!
//! - **`EBW` against bytes.** Sections 4.1.2.1 (`EBW div BytesInFlight() > 2`) and 4.3.3
//!   (`BytesInFlight() < EBW/2`) compare a rate with a byte count. They are read dimensionally:
//!   `EBW` there is the estimated bandwidth-delay product `SEBW x MinRTT` (eq. 4.5), so the
//!   ratio says how many times the data in flight would fit in the pipe. `div` is integer
//!   division, and faster start adds that many segments.
//! - **Eq. 4.4** writes `a x EBW_(i-1)`; it is read as the previous *smoothed* value (an
//!   exponentially weighted moving average, as the text says), see
//!   [`cc_core::WestwoodEstimator`].
//! - **`BytesInFlight()` at a loss** includes the lost packets, as TCP's count does at the third
//!   duplicate ACK: the stack's count at the last ACK frame plus the bytes sent since, less the
//!   bytes acknowledged since (a loss timer can fire between frames).
//! - **Missing inputs.** Without an RTT sample, `LastRTT < ERTT` is false (congestion assumed);
//!   without a bandwidth estimate, ssthresh at a loss is eq. 4.6's `max(FlightSize / 2, 2 SMSS)`
//!   and the timeout's pipe test fails.
//!
//! # Deviations from the paper
//!
//! - **Minimum window.** QUIC's minimum window is 2 datagrams (RFC 9002 section 7.2), not 1
//!   segment: `TimeoutCollapse` goes to 2 datagrams, and no rule goes below that.
//! - **Initial window.** 10 datagrams, as QUIC starts (RFC 9002 section 7.2), not eq. 4.1's
//!   2-4 segments.
//! - **Slow-start exit** also happens when `cwnd >= ssthresh`, besides the paper's
//!   `BytesInFlight() >= ssthresh`, so an application-limited or paced sender cannot slow-start
//!   past ssthresh.
//! - **Faster start never jumps past the estimated BDP** in one step (it never adds less than
//!   normal slow start). The paper's increment is bounded only by the flight, which after a
//!   large ACK frame can be far below the window.
//! - **Growth** is NewReno's: none while application-limited or for packets sent before the
//!   current recovery period began. Fast recovery's window inflation does not exist in QUIC
//!   (its ACK ranges make it unnecessary), so sections 4.2.2's and 4.2.3's checks are applied
//!   once per loss episode, at the loss.
//! - **Section 4.2.2 applies far more often than in the paper.** The paper's condition
//!   (`LastRTT x (4 - count) > Timeout`) is rare; QUIC's time threshold declares most losses
//!   on a lossy multi-hop path, and 4.2.2's branch has no RTT test, so PETRA cuts to ssthresh
//!   on random losses that 4.2.3 would have let pass, which costs it goodput there. The rule
//!   is the paper's and stays the default; [`PetraConfig::faster_retransmit`] = false gives
//!   these losses 4.2.3's RTT test. On noq the rule costs less: noq names every lost packet,
//!   and a pass whose earliest lost packet reached the packet threshold is a fast retransmit.
//!   What each costs: docs/results/port-readings.md.
//! - **The estimate is reset once per loss episode.** Section 4.1.1 resets EBW "whenever a
//!   loss event occurs"; a TCP sender retransmits the later losses of a window within the same
//!   fast recovery, and they are no new loss event, so losses of packets sent before the current
//!   recovery period began do not reset it (resetting on those too measured no different:
//!   docs/results/superseded-knobs.md).
//! - **One reduction per round trip.** Losses of packets sent before the current recovery period
//!   began do not react again (quinn's `recovery_start_time`); persistent congestion always does.
//! - **ECN** (absent from the paper) sets ssthresh from the estimate and takes the window down to
//!   it without the RTT check: the mark is explicit congestion.
//! - **Pacing.** quinn paces at about 1.25 x cwnd / smoothed RTT, so ACKs return at the sending
//!   rate, not at the bottleneck rate the paper's bursts measure; eq. 4.5 therefore tends to
//!   end the initial slow start earlier than in the paper's ns-3 runs.
//!   [`PetraConfig::estimate_initial_ssthresh`] turns section 4.1.1 off.
//! - **Faster start (section 4.1.2.1) is inert under pacing.** It needs the estimated BDP to
//!   exceed twice the bytes in flight; with ACKs returning at the paced sending rate, the
//!   estimate is about one window per RTT, so the ratio stays near 1: with
//!   `faster_start = false` almost every run is identical (docs/results/port-readings.md). The
//!   rule stays, as the paper's, for a stack or path where ACKs return faster than the sender
//!   paced.
//! - **Sharing a wired bottleneck** (not in the paper's evaluation): section 4.2.3's RTT test
//!   reads most drop-tail losses beside another flow as random and keeps the window, so PETRA
//!   takes several times a competing Cubic flow's goodput and loses several times NewReno's
//!   packets (docs/results/coexist.md). [`PetraConfig::recovery_rtt_test`] = false cuts at
//!   every such loss, as TCP Westwood does. The default stays the paper's.
//! - **A pacing rate** (not in the paper): [`PetraConfig::pacing_gain`] reports that multiple of
//!   SEBW outside slow start (default 0: none, the stack paces from the window). Only noq's
//!   pacer reads it (docs/results/on-noq.md).
//!
//! [`PetraConfig::install`] sets the port and the transport's loss thresholds together (the
//! classifier's must equal the transport's). To read a running connection's controller, pass
//! `quinn::Connection::congestion_state()` to [`PetraController::from_controller`].
//!
//! **Timeout reading.** This port reads QUIC's persistent congestion as its paper's timeout, and
//! every other loss as a fast retransmit: reading `persistent_congestion` of [`cc_core::TimeoutReading`], its
//! default (`signal.timeout_reading` selects another). Measured on netsim (docs/loss-signals.md, "Loss
//! signals"), `persistent_congestion` gives PETRA its best goodput on the demo and on PETRA's grid; `time_threshold`, which reads
//! a time-threshold loss as a timeout, the worst.
#![deny(missing_docs)]

mod config;
mod petra;

pub use cc_core::{ConfigError, LossSignal, PortConfig, SignalConfig, SignalStats};
pub use config::PetraConfig;

/// A running Petra controller as quinn holds it: the algorithm ([`Petra`]) and its loss
/// classifier ([`SignalStats`]).
pub type PetraController = cc_core::PortController<Petra>;
pub use petra::{Petra, PetraDecision};
