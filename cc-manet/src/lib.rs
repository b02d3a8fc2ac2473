//! A composite congestion controller for QUIC on multi-hop wireless paths, and a fixed-window
//! reference. Both run on quinn 0.11 (feature `quinn`, on by default) and noq 1.x, iroh's QUIC
//! (feature `noq`), from one configuration.
//!
//! ```
//! let mut transport = quinn::TransportConfig::default();
//! // The controller, and the loss thresholds its classifier reads, in one call.
//! cc_manet::ManetConfig::default().install(&mut transport);
//! ```
//!
//! # Why a composite
//!
//! The five ports of this workspace each win somewhere and lose badly elsewhere (docs/results):
//! a window bounded by the queue it builds wins on multi-hop 802.11 chains (TCP-UB's Vegas
//! bands and SACK-FeW's slow growth, as ns-3's own TCP Vegas beats its TCP NewReno there), a
//! Westwood bandwidth estimate on loss keeps the window through random losses (PETRA and TCP-UB
//! near BBR on PETRA's grid), and CUBIC's and BBR's growth win on clean and long paths. Bounded
//! windows starve beside a CUBIC flow. [`Manet`] combines these mechanisms, each from its
//! source, each a switch of [`ManetConfig`] so that it can be measured alone
//! (docs/results/manet.md: the scorecard and the ablation):
//!
//! | knob | what it does | source | module |
//! |---|---|---|---|
//! | `backlog_bound`, `alpha` (2), `beta` (4) | per round trip, `Diff = cwnd x (RTT - BaseRTT) / RTT` packets; grow below `alpha`, hold to `beta`, one packet less above | TCP Vegas (Brakmo and Peterson, IEEE JSAC 1995, sections 3.2-3.3); TCP-UB's bands; the chain's best window of about h/4 (Fu et al., INFOCOM 2003) | `backlog_bound` |
//! | `slow_start_exit` | Vegas' slow-start exit at a backlog of 1 packet | Brakmo and Peterson 1995, section 3.3; Linux `tcp_vegas.c` | `slow_start_exit` |
//! | `empty_queue_css` | below a backlog of 1 packet (the pipe not full), growth of a quarter of the acknowledged bytes: 1.25x per round trip instead of a datagram, back to the largest window a round measured clear at once and past it every other round trip | HyStart++'s conservative slow start (RFC 9406 sections 4.2-4.3, `CSS_GROWTH_DIVISOR` = 4); CUBIC's fast climb back to `W_max` (RFC 9438 section 4.2); Vegas' slow start, which grows every other round trip so that each step is measured (Brakmo and Peterson 1995, section 3.3) | `empty_queue_css` |
//! | `mean_round_rtt` | the round's RTT as the mean of its samples, not the minimum | Vegas' `Actual` (Brakmo and Peterson 1995, section 3.2); the minimum is Linux `tcp_vegas.c`'s | `jitter_allowance` |
//! | `jitter_allowance` | the round's RTT spread (mean minus minimum) that a drain round does not shrink by a quarter is the path's jitter: the bound reads the mean less that spread | ours: Copa's drain test (NSDI 2018, section 2.2) applied to the spread | `jitter_allowance` |
//! | `bdp_cap` | once a drain round found the delay to be this flow's, the window carries at most twice the round's bandwidth-delay product (`2 x cwnd x BaseRTT / RTT`) plus one datagram, never under three: above it one datagram less per round, growth only within it | BBR's in-flight cap, `cwnd_gain` 2 (Cardwell et al., ACM Queue 2016); the datagram a receiver holds for its ACK (RFC 9000 section 13.2.2); the chain's best window of about h/4 (Fu et al., INFOCOM 2003) | `bdp_cap` |
//! | `cubic_growth` | CUBIC's growth where nothing bounds the window, with its Reno-friendly region | RFC 9438 sections 4.1-4.7 | `cubic_growth` |
//! | `westwood_floor` | loss cut floored by the bandwidth estimate: `ssthresh = max(0.7 cwnd, BWE x BaseRTT)` | TCP Westwood+ (Grieco and Mascolo, ACM CCR 2004); PETRA eq. 4.5; RFC 9438's beta | `westwood_floor` |
//! | `veno_random_loss` | a loss while the last round's backlog was under `beta` is random: cut to `0.8 cwnd` (still floored by the estimate) | TCP Veno (Fu and Liew, IEEE JSAC 2003, section II) | `veno_random_loss` |
//! | `rate_check` | after rounds the bound held or decreased (5 at first; on a window of more than `2 x beta` datagrams), a trial sends 1.25x the window and measures the delivered rate (the bytes a round acknowledged over its mean RTT): grown by half the gain or more, the delay the bound read was not this flow's queue; the window keeps its gain, that delay becomes an allowance, and the next held round tries again | ours: BBR's full-pipe test and `ProbeBW` gain 1.25 (Cardwell et al., ACM Queue 2016), PCC Vivace's online experiments (Dong et al., NSDI 2018), Vegas' `Actual` | `rate_check` |
//! | `rate_check_loss_backoff` | a trial that found the rate flat doubles the wait before the next (up to 40 held rounds) only if packets sent at its window were lost or marked; without that the wait stays, so trials that once found room go on two rounds in three until one loses packets | ours, after BBRv2's `inflight_hi`, set at a loss, and its `PROBE_UP`, which raises its probe until one (Cardwell et al., IETF 104 ICCRG, 2019) | `rate_check` |
//! | `rate_check_standing_queue` | a trial's rate gain counts only if the round's smallest RTT rose by at most one datagram's time at the starting rate, or by the starting round's spread: at a full bottleneck shared with other flows a trial's gain is their share (the rate test passes up to a share of 0.44), and its extra datagrams raise the standing queue, where a pipe with room raises nothing | ours: Copa's standing queue (Arun and Balakrishnan, NSDI 2018, section 2.1), PCC Vivace's RTT gradient (Dong et al., NSDI 2018) | `rate_check` |
//! | `rate_check_slow_start` | a trial whose rate grew, at a round whose standing queue lay within its RTT spread or the jitter allowance, returns the flow to slow start: on every ACK within twice the pipe (the largest delivery rate times the mean RTT of the round that began it) plus the ACKs' bunching, ended by 3 rounds without 1.25x that rate at the pipe, or by a loss it cuts for at most there | BBR's startup, `cwnd_gain` 2, `extra_acked`, full-pipe test and Drain target (Cardwell et al., ACM Queue 2016; draft-ietf-ccwg-bbr-04 sections 5.3.1-5.3.1.2, its Drain state and `BBRUpdateACKAggregation`; Linux commit 78dc70ebaa38); HyStart++'s return to slow start after a spurious exit (RFC 9406 section 4.3); the gate (Copa's standing queue, as `queue_free_loss_spread` reads it) and the pipe's RTT (the starting round's mean) ours | `rate_startup` |
//! | `queue_free_loss` | a loss while the last round's backlog was under `alpha` (or the last trial found room), with at most 2% of the last round's bytes lost this round (or fewer loss events than `queue_free_loss_events`), keeps the window and starts no recovery period | PETRA section 4.2.3 (the window kept unless the RTT confirms congestion); TCP-UB's bands; BBRv2's 2% loss threshold (Linux `tcp_bbr2.c`, `bbr_loss_thresh`) | `queue_free_loss` |
//! | `queue_free_loss_events` (6) | where the last round's backlog read under `alpha` and the window holds more than `2 x beta` datagrams, the 2% threshold reads a round's losses as congestion only in 6 loss events or more: one loss in a round of under 50 datagrams is over 2% whatever the path's loss rate | ours, after BBR's startup exit on loss, `BBRStartupFullLossCnt` = 6 (draft-ietf-ccwg-bbr-04, section 5.3.1.3); the chain's window of a few datagrams, where a loss is contention (Fu et al., INFOCOM 2003) | `queue_free_loss` |
//! | `queue_free_loss_spread` | `queue_free_loss` also keeps the window where the last round's standing queue (its smallest RTT over the base) lay within its RTT spread or the jitter allowance: this flow's queue delays every datagram of a round, per-datagram jitter only raises the mean Vegas reads | ours: Copa's standing queue (NSDI 2018, section 2.1); PETRA section 4.2.3 | `queue_free_loss` |
//! | `competitive_mode`, `competitive_rounds` (5) | after 5 round trips with a standing queue (`alpha` packets, or a queueing delay of a base RTT), a drain round sends the backlog-free window (at least 2 datagrams); if the queueing delay of the first round sent at it keeps three quarters of its value, the queue is not this flow's: lift the bound until the delay is under a tenth of its recent maximum | Copa (Arun and Balakrishnan, NSDI 2018, section 2.2); RFC 9000 section 13.2.2 for the floor | `competitive_mode`, `drain_round` |
//! | `competitive_mode_jitter` | Copa's switch reads a queueing delay within the jitter allowance as no queue: a drain round that keeps it finds no competitor, and competitive mode ends once the delay falls within it (a drain round, with fewer samples, reads a larger smallest RTT on a jittered path) | ours: Copa's standing queue and mode switch (NSDI 2018, sections 2.1-2.2) with the allowance of `jitter_allowance` | `competitive_mode` |
//! | `probe_restore` | after a drain round that found the queue to be this flow's, the window returns to its value before the cut | BBR's `ProbeRTT` exit (Cardwell et al., ACM Queue 2016; Linux `tcp_bbr.c`, `bbr_restore_cwnd`) | `drain_round` |
//! | `probe_backoff_max` (8) | each such drain round doubles the wait before the next, up to 8x: draining costs a bounded share of the rounds (rate trials back off to the same cap) | BBR's `ProbeRTT` budget (200 ms in 10 s) | `drain_round` |
//! | `leave_competitive_under_beta` (off) | leave competitive mode only where the bound's own reading agrees, a backlog of at most `beta`; off because it cannot tell jitter from an 802.11 chain's contention spread | ours: Copa's exit (section 2.2) made consistent with `mean_round_rtt` | `competitive_mode` |
//! | `reset_base_on_timeout` | a new base RTT after a timeout | TCP-UB's port; Linux's Westwood+ | `base_rtt` |
//! | `refresh_base_rtt` | a base RTT with no sample at or below it for 10 s is re-measured in a drain round to half the backlog-free window | BBR's `min_rtt` filter and `ProbeRTT` state (Cardwell et al., ACM Queue 2016; BBRv2's `ProbeRTT` cwnd gain 0.5); Copa's 10 s RTTmin window | `base_rtt`, `drain_round` |
//!
//! The modules are private; each holds its mechanism's state and its pure rules, and
//! [`Manet`] applies the round's decision in one place. `probe_restore` and `probe_backoff_max`
//! keep their names, which are part of run identity; in this crate "probe" means nothing else:
//! the composite's draining step is a *drain round*, QUIC's PTO is the *probe timeout*.
//!
//! Losses are read as TCP-UB reads them: persistent congestion is the timeout, any other loss
//! a fast retransmit (reading `persistent_congestion` of [`cc_core::TimeoutReading`]). One reduction per round trip
//! ([`cc_core::RecoveryEpoch`]).
//!
//! Not in it, and why: TCP-AP's rate-based pacing (ElRakabawy, Klemm and Lindemann, MobiHoc
//! 2005) needs the 4-hop propagation delay, which a QUIC sender cannot observe, and quinn 0.11
//! ignores a controller's pacing rate (on noq, pacing from the window or from the Westwood+
//! estimate did not help on ns-3's chains: docs/results/manet-analysis.md); ABRA's restore
//! rarely fires on QUIC and Karak's graded cut behaves as NewReno's (docs/results), so neither
//! is a mechanism here.
//!
//! quinn 0.11's send check carries one datagram less than the window (docs/results/on-noq.md).
//! This controller compensates it by default (`quinn_full_window`, which issue 34 allows for
//! it): `bdp_cap` counts what is in flight, and at a cap of two datagrams quinn would carry
//! one, which the receiver acknowledges only after its ACK delay. So a window of N datagrams
//! carries N on both stacks.
//!
//! [`FixedWindow`] ([`FixedWindowConfig`], registry name `fixed`) keeps a constant window: a
//! sweep over its size gives a path's best fixed window, the ceiling the composite is measured
//! against on chains.
#![deny(missing_docs)]

mod config;
mod fixed;
mod manet;

pub use cc_core::{ConfigError, LossSignal, PortConfig, SignalConfig, SignalStats};
pub use config::{FixedWindowConfig, ManetConfig};
pub use fixed::FixedWindow;
pub use manet::{Manet, ManetDecision, ManetMode, ManetPhase};

/// A running composite controller as the stack holds it: the algorithm ([`Manet`]) and its loss
/// classifier ([`SignalStats`]).
pub type ManetController = cc_core::PortController<Manet>;
