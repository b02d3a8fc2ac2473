//! ABRA NewReno (NewReno with the adaptive backoff response approach) congestion control for
//! QUIC.
//! A controller for quinn 0.11 (feature `quinn`, on by default) and noq 1.x, iroh's QUIC (feature
//! `noq`), from one configuration.
//!
//! Port of: Dhananjay Bisen and Sanjeev Sharma, *Improve Performance of TCP New Reno over
//! Mobile Ad-Hoc Network using ABRA*, International Journal of Wireless & Mobile Networks,
//! Vol. 3, No. 2, April 2011; sections 3 to 5 (`papers/abra-newreno.txt`).
//!
//! A route break in a MANET looks to TCP like congestion: the retransmission timer expires,
//! the window collapses and the timer backs off by doubling, so the sender may sit idle long
//! after the route is repaired (section 1). ABRA NewReno is NewReno plus the adaptive backoff
//! response approach (section 4): at a retransmission timeout it saves the congestion window,
//! the slow-start threshold and the smoothed RTT; it backs the timer off by a factor between 1
//! and 2 that grows with the smoothed RTT instead of always 2; and when the route is back it
//! returns to the saved state, with the window and the threshold divided by 2 and 4.
//!
//! ```
//! let mut transport = quinn::TransportConfig::default();
//! // The controller, and the loss thresholds its classifier reads, in one call.
//! cc_abra::AbraConfig::default().install(&mut transport);
//! ```
//!
//! # Mapping onto QUIC
//!
//! [`cc_core::LossClassifier`] turns each quinn congestion event into a
//! [`cc_core::LossSignal`] (docs/DESIGN.md section 3). QUIC's persistent congestion (RFC 9002
//! section 7.6) is its counterpart of the retransmission timeout:
//!
//! | event | paper | window | ssthresh |
//! |---|---|---|---|
//! | `FastRetransmit` (by default every loss but persistent congestion) | section 3 step 4, three duplicate ACKs | cwnd / 2 | cwnd / 2 |
//! | `Ecn` | - | cwnd / 2 | cwnd / 2 |
//! | `Timeout { .. }` (by default persistent congestion) | section 4: save cwnd, ssthresh, srtt; section 3 step 4, timeout | minimum window | cwnd / 2 |
//! | first ACK of a packet sent after persistent congestion | ABRA's restore | saved cwnd / 2 | saved ssthresh / 4 |
//! | other ACKs | section 3 steps 2-3 (NewReno growth, byte counting) | + acked (slow start), + 1 datagram per window (avoidance) | - |
//!
//! Restored values never go below the minimum window (2 datagrams). The restore rule is the
//! original ABRA's: the text of Bisen and Sharma says only that the state is saved when the
//! timer expires (section 4) and that the window and threshold "were decreased whenever an
//! acknowledgement is received" (abstract), citing ABRA as its reference \[10\], whose
//! reference list is not in our copy. The original (Tamer F. Ghanem, Wail S. Elkilani, Mohiy
//! M. Hadhoud, *Improving TCP Performance over Mobile Ad Hoc Networks Using an Adaptive
//! Backoff Response Approach*, Minufya University) states that on the acknowledgement of the
//! retransmitted packet TCP returns to its state before the timer expired, with the window and
//! the threshold divided by 2 and 4; docs/DESIGN.md section 4 and the project's issue specify the
//! same rule.
//!
//! # The backoff factor, and why quinn does not apply it
//!
//! ```text
//! Section 4, section 5 step 5 (ABRA):
//!     backoff_new = 1 + (last_srtt - min_srtt) / (max_srtt - min_srtt)      clamped to [1, 2]
//!     RTO_new     = backoff_new x RTO_current
//! ```
//!
//! `min_srtt` and `max_srtt` start at 0.1 s and 0.6 s (section 4) and widen with every smoothed
//! RTT seen; `last_srtt` is the latest one. With the starting bounds, a smoothed RTT of 0.1 s or
//! less gives 1 (retry at the same interval), 0.35 s gives 1.5, 0.6 s or more gives 2 (TCP's
//! doubling). [`Abra::backoff`] returns the factor, [`SavedState::backoff`] the one at the last
//! persistent congestion, and the `cc` tracing target carries it (`backoff`, `saved_cwnd`,
//! `saved_ssthresh`, `saved_srtt_us`, `min_srtt_us`, `max_srtt_us`) at every persistent
//! congestion.
//!
//! **quinn does not apply the backoff.** quinn-proto 0.11 computes its probe timeout as
//! `pto_base x 2^pto_count` (`Connection::pto_time_and_space`) and gives a congestion
//! controller no hook into it, so on quinn ABRA NewReno's timer still doubles; only the
//! window side of ABRA (save, collapse, restore) takes effect. quinn's `ControllerMetrics` has
//! no field for it either (window, ssthresh and pacing rate only), so it is not in quinn's
//! qlog: read it from the accessor or the tracing events.
//!
//! # Deviations from the paper
//!
//! - **The timeout is persistent congestion.** QUIC has no RTO. A time-threshold loss (fewer
//!   than 3 later packets acknowledged) halves the window as quinn's NewReno does, where the
//!   paper's NewReno would restart from its initial window on a timer expiry; persistent
//!   congestion plays the RTO and is the only event that saves state.
//! - **When the restore happens.** QUIC declares persistent congestion only on an ACK that
//!   arrives after the blackout (RFC 9002 section 7.6.2), so the route is already back when the
//!   window collapses. The restore waits for the acknowledgement of the first packet *sent
//!   after* the event, QUIC's counterpart of TCP's acknowledged retransmission (QUIC never
//!   retransmits a packet, it resends the data in new ones): about one round trip after the
//!   collapse. That acknowledgement restores the state and adds no growth of its own.
//! - **quinn may report a route break as an ordinary loss.** Persistent congestion needs the
//!   lost packets to span 3 PTOs. When the first packet across the repaired route is the
//!   *receiver's* (its own PTO packet, carrying an ACK of a packet sent before the break), quinn
//!   takes an RTT sample spanning the whole outage from it; the PTO, and the
//!   persistent-congestion period with it, inflates several-fold, the break's losses fall short
//!   of it, and quinn reports them as a time-threshold loss: ABRA halves as NewReno, saves
//!   nothing and restores nothing. In a netsim bulk transfer with a 3 s break this is what
//!   happened; persistent congestion, and ABRA's save and restore, took place once the
//!   receiver had nothing ack-eliciting in flight, so that the sender's PTO packet crossed first
//!   (`tests/e2e.rs`). This is quinn's loss detection (RFC 9002 sections 5.3 and 7.6), and it
//!   bounds how often ABRA's mechanism acts on quinn.
//! - **Repeated timeouts.** Persistent congestion again before the restore collapses again but
//!   keeps the state saved before the outage (saving the collapsed window would make the
//!   restore pointless); the restore then waits for a packet sent after the latest event.
//! - **A loss before the restore.** A window reduction on the repaired path before any packet
//!   sent after the event is acknowledged (with quinn's callback order, in practice only an ECN
//!   mark) cancels the pending restore: the saved state no longer describes the path.
//!   Counted in [`AbraStats::cancelled_restores`].
//! - **A restore after an outage that no loss preceded.** The saved ssthresh is then the
//!   initial, unbounded one, and the paper's quarter of it is unbounded too: slow start would
//!   run without a limit from half the saved window. The restore uses the saved window in its
//!   place (ssthresh = saved cwnd / 4, below the restored cwnd / 2: congestion avoidance).
//!   Before this fix the rule was applied literally; docs/results/abra.md give the effect.
//! - **The backoff is computed, not applied** (above). Before any RTT measurement it is
//!   reported as 2. A zero-width range (`max_srtt <= min_srtt`, possible only through the pure
//!   [`backoff_factor`]) gives the formula's limit: 1 if `last_srtt <= min_srtt`, else 2.
//! - **Smoothed RTT source.** Section 5 steps 1-3 describe the RFC 6298 estimator; quinn's
//!   (RFC 9002 section 5.3, the same gains 1/8 and 1/4, less the peer's ACK delay) is used, from
//!   the second ACK frame on (before quinn's first measurement it reports its configured initial
//!   RTT, which is not a sample).
//! - **Minimum and initial window.** QUIC's minimum window is 2 datagrams (RFC 9002 section
//!   7.2), not 1 segment; QUIC starts at 10 datagrams (section 3 step 1 allows up to 4 segments).
//! - **One reduction per round trip.** Losses of packets sent before the current recovery period
//!   began do not cut again (quinn's `recovery_start_time`); persistent congestion always does.
//! - **ECN** (absent from the paper) halves, as a fast retransmit.
//!
//! The packet and time thresholds the classifier uses ([`AbraConfig::signal`]) must equal the
//! transport's (`TransportConfig::packet_threshold`, `time_threshold`; defaults 3 and 9/8):
//! [`AbraConfig::install`] sets both. To read a running connection's controller, pass
//! `quinn::Connection::congestion_state()` to [`AbraController::from_controller`].
//!
//! # Reading the state of a running connection
//!
//! `quinn::Connection::congestion_state()` returns a copy of the controller; downcast it with
//! `into_any()` to `cc_core::PortController<Abra>` and call `algorithm()` for [`Abra::backoff`],
//! [`Abra::saved`] and [`Abra::stats`].
//!
//! **Timeout reading.** This port reads QUIC's persistent congestion as its paper's timeout, and
//! every other loss as a fast retransmit: reading `persistent_congestion` of [`cc_core::TimeoutReading`], its
//! default (`signal.timeout_reading` selects another). Measured on netsim (docs/loss-signals.md, "Loss
//! signals"), `persistent_congestion` gives ABRA its best goodput on the demo and on PETRA's grid; `time_threshold`, which reads
//! a time-threshold loss as a timeout, the worst.
#![deny(missing_docs)]

mod abra;
mod backoff;
mod config;

pub use abra::{Abra, AbraDecision, AbraStats, SavedState};
pub use backoff::{BINARY_BACKOFF, SrttRange, backoff_factor};
pub use cc_core::{ConfigError, LossSignal, PortConfig, SignalConfig, SignalStats};
pub use config::AbraConfig;

/// A running Abra controller as quinn holds it: the algorithm ([`Abra`]) and its loss
/// classifier ([`SignalStats`]).
pub type AbraController = cc_core::PortController<Abra>;
