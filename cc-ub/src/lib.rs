//! TCP-UB congestion control for QUIC.
//! A controller for quinn 0.11 (feature `quinn`, on by default) and noq 1.x, iroh's QUIC (feature
//! `noq`), from one configuration.
//!
//! Port of: Wafa Elmannai, Khaled Elleithy and Abdul Razaque, *A High Performance and Efficient
//! TCP Variant* (TCP University of Bridgeport), section "TCP-UB Algorithms" (`papers/tcp-ub.txt`).
//!
//! TCP-UB behaves as TCP Vegas in slow start, and in congestion avoidance makes Vegas' per-RTT
//! decision on the backlog `Diff = (Expected - Actual) x BaseRTT` with a third threshold, gamma
//! ("Gama"), between Vegas' alpha and beta: in the band from alpha to gamma it behaves as TCP
//! Westwood, setting ssthresh from the bandwidth estimate and capping the window at it.
//!
//! ```
//! let mut transport = quinn::TransportConfig::default();
//! // The controller, and the loss thresholds its classifier reads, in one call.
//! cc_ub::UbConfig::default().install(&mut transport);
//! ```
//!
//! # The algorithm
//!
//! Once per round trip ([`cc_core::RoundCounter`]), with `RTT` the round's smallest sample,
//! `BaseRTT` the smallest ever ([`cc_core::RttRounds`]) and `CWND` the window the round's
//! samples were sent under (the window when the round began), [`cc_core::VegasBacklog`]
//! computes `Expected = CWND / BaseRTT`, `Actual = CWND / RTT`,
//! `Diff = (Expected - Actual) x BaseRTT = CWND x (RTT - BaseRTT) / RTT` packets, and, outside
//! a recovery period:
//!
//! | phase | `Diff` | action | [`UbDecision`] |
//! |---|---|---|---|
//! | slow start | `> slow_start_gamma` (1) | `cwnd = min(cwnd, Actual x BaseRTT + 1)`, `ssthresh = cwnd - 1`, leave slow start | `SlowStartExit` |
//! | slow start | otherwise | +1 segment per acknowledged segment, every other round | `SlowStart` |
//! | avoidance | `< alpha` (2) | `cwnd + 1` packet | `Increase` |
//! | avoidance | `alpha <= Diff < gamma` (3) | `ssthresh = max(2, BWE x BaseRTT / seg)`; `cwnd = ssthresh` if above | `Westwood` |
//! | avoidance | `gamma <= Diff <= beta` (4) | hold | `Hold` |
//! | avoidance | `> beta` | `cwnd - 1` packet | `Decrease` |
//!
//! Losses ([`cc_core::LossSignal`]):
//!
//! | signal | action | [`UbDecision`] |
//! |---|---|---|
//! | `FastRetransmit` (by default every loss but persistent congestion), `Ecn` | `ssthresh = max(2, BWE x BaseRTT / seg)`, `cwnd = min(cwnd, ssthresh)`; slow start if `cwnd < ssthresh`, else congestion avoidance | `Loss` |
//! | `Timeout { .. }` (by default persistent congestion) | `cwnd = 1` (the minimum window), `ssthresh = max(2, BWE x BaseRTT / seg)`, slow start | `Timeout` |
//!
//! BWE is original TCP Westwood's bandwidth estimate (Mascolo et al. 2001),
//! [`cc_core::WestwoodEstimator`]: one sample per acknowledgement (here per ACK frame), the bytes
//! it acknowledged over the time since the previous one, low-pass filtered with weight 0.9 on
//! the previous estimate (as ns-3's `TcpWestwood` samples in its `WESTWOOD` mode, whose Tustin
//! filter, also weight 0.9, averages the last two samples). [`UbConfig::westwood_plus`] selects TCP Westwood+'s instead
//! ([`cc_core::WestwoodPlusEstimator`], Linux's `tcp_westwood.c`: bytes over at least
//! `max(RTT, 50 ms)`, filtered twice).
//!
//! # Mapping onto QUIC
//!
//! - **Rounds** are counted by packet number: a round ends when a packet sent after it began is
//!   acknowledged (Linux `tcp_vegas.c`'s `beg_snd_nxt`). RTT samples are `now - sent` of every
//!   acknowledged packet, and the round's RTT is their minimum (as Linux takes it, which filters
//!   out ACK-delay noise). They are taken once per ACK frame ([`cc_core::FrameRtt`]: a frame's
//!   smallest and last sample), which leaves the base RTT, the round's minimum and Westwood+'s
//!   latest sample as one sample per packet would, zero samples aside (a packet acknowledged
//!   at its send time, which no path produces, no longer counts as Westwood+'s latest RTT).
//! - **Losses** come from [`cc_core::LossClassifier`] (docs/DESIGN.md section 3). Only persistent
//!   congestion (RFC 9002 section 7.6) is the paper's "time out is expired"; a time-threshold
//!   loss after one or two later packets is a loss like a fast retransmit, because quinn keeps
//!   receiving ACKs around it.
//!
//! # Readings of the paper
//!
//! - **`If (Diff= δ)`.** The pseudo-code tests equality with δ, which its comment calls Gama,
//!   while the text says the window grows "until it reaches the middle threshold Gama. Since the
//!   difference is less than Gama ... CWND behaves as TCP Westwood ... That continues until it
//!   reaches the highest threshold Beta". Equality of a real-valued backlog would almost never
//!   hold, so the test is read as the band `alpha <= Diff < gamma`, and `gamma <= Diff <= beta`
//!   is the pseudo-code's "Otherwise -> CWND" ([`DiffBand`]).
//! - **The thresholds' values** are not in the paper; defaults alpha = 2, gamma = 3, beta = 4
//!   packets ([`UbConfig::set_thresholds`]).
//! - **"If (the Dup ACKs are arrived)"** opens the pseudo-code, but what follows is Vegas'
//!   per-RTT congestion avoidance; it is read as "on ACKs", once per round trip.
//! - **The timeout branch** is nested inside the Westwood branch in the pseudo-code; a timeout
//!   does not depend on the backlog, so it is applied whenever persistent congestion happens.
//! - **"Vegas slow start exactly"** is Brakmo and Peterson's (1995, section 3.3): exponential
//!   growth every other round, leaving slow start when the backlog exceeds a threshold of its
//!   own (1 packet, [`UbConfig::slow_start_gamma`]), with Linux `tcp_vegas.c`'s exit window.
//!
//! # Deviations from the paper
//!
//! - **Minimum window.** QUIC's minimum window is 2 datagrams (RFC 9002 section 7.2): the
//!   timeout's `CWND = 1` gives 2 datagrams.
//! - **Initial window.** 10 datagrams, as QUIC starts (RFC 9002 section 7.2).
//! - **Losses other than the timeout** follow TCP Westwood (the paper says only that the window
//!   behaves "as TCP Westwood"), and leave slow start.
//! - **Without a bandwidth estimate** (a loss before the second ACK frame), ssthresh is half the
//!   window (NewReno); the Westwood band then holds.
//! - **Growth** is NewReno's: none while application-limited or for packets sent before the
//!   current recovery period began; a round's `+1` is skipped when application-limited.
//! - **One reduction per round trip.** Losses of packets sent before the current recovery period
//!   began do not react again; persistent congestion always does.
//! - **No decisions inside a recovery period** (the paper does not say; Linux's Vegas runs only
//!   in the open state, and TCP runs no congestion avoidance in fast recovery): a round that
//!   ends before a packet sent after the loss is acknowledged makes no decision
//!   ([`UbDecision::InRecovery`]), and after a loss the window slow-starts if it is below the
//!   new ssthresh, as TCP Westwood does.
//! - **Vegas' `Actual` from the window the round was sent under**: the round's RTT samples
//!   come from packets sent when it began, so the backlog uses that window, not the window
//!   after the round's slow-start growth, which can be twice as large and would give up to
//!   twice the backlog and twice the exit window. The earlier readings of these two rules, and
//!   what they measured, are in docs/results/superseded-knobs.md.
//! - **The bandwidth estimate is original Westwood's, per ACK frame.** Westwood+ (the knob
//!   `westwood_plus`) counts what was delivered per round trip, so it estimates the rate the
//!   flow achieved, while one sample per ACK frame measures the bottleneck's service rate
//!   whenever a queue stands; after a random loss the first keeps ssthresh near the flow's own
//!   (just reduced) rate, which costs TCP-UB most on random-loss links
//!   (docs/results/port-readings.md).
//! - **The base RTT restarts after a timeout** (the paper keeps "the minimum of all RTTs"): on a
//!   MANET a route change to a longer path would otherwise make TCP-UB see a standing backlog
//!   until the route shortens again, Vegas' known failure after a reroute. The first sample
//!   after the timeout starts the new minimum, as Linux's Westwood+ does after a loss timeout.
//!   Other route changes are not visible to a controller and still leave the old minimum.
//!   docs/results/tcp-ub.md's figures were measured with this rule.
//! - **Whole datagrams on quinn carry one less.** Every cut is an exact multiple of the
//!   datagram size, and quinn 0.11 stops sending at `in_flight + datagram >= window`, so a
//!   window of N datagrams carries N - 1 (noq carries N). That is quinn's rule for its own
//!   controllers too, so it stays by default; `UbConfig::set_quinn_full_window` shows quinn
//!   one byte more, which TCP-UB's small windows gain most from (docs/results/on-noq.md).
//! - **Pacing** (not in the paper): [`UbConfig::pacing_gain`] reports a rate of that multiple
//!   of the estimate outside slow start (default 0: none); only noq's pacer reads it.
//!
//! The packet and time thresholds the classifier uses ([`UbConfig::signal`]) must equal the
//! transport's (`TransportConfig::packet_threshold`, `time_threshold`; defaults 3 and 9/8):
//! [`UbConfig::install`] sets both. To read a running connection's controller, pass
//! `quinn::Connection::congestion_state()` to [`UbController::from_controller`].
//!
//! **Timeout reading.** This port reads QUIC's persistent congestion as its paper's timeout, and
//! every other loss as a fast retransmit: reading `persistent_congestion` of [`cc_core::TimeoutReading`], its
//! default (`signal.timeout_reading` selects another). With the base-RTT restart above,
//! `probe_timeout` (a loss after a probe timeout) does better on netsim's MANET demo, because each
//! timeout restarts the base RTT and `probe_timeout` has many more (docs/loss-signals.md,
//! docs/results/port-readings.md).
#![deny(missing_docs)]

mod config;
mod ub;

pub use cc_core::{ConfigError, LossSignal, PortConfig, SignalConfig, SignalStats};
pub use config::UbConfig;

/// A running Ub controller as quinn holds it: the algorithm ([`Ub`]) and its loss
/// classifier ([`SignalStats`]).
pub type UbController = cc_core::PortController<Ub>;
pub use ub::{DiffBand, Ub, UbDecision, UbPhase};
