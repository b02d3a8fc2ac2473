//! `ManetConfig` and `FixedWindowConfig`: every knob, declared once.

use crate::{FixedWindow, Manet};
use cc_core::{ConfigError, Range};

/// Range of the backlog thresholds, packets.
const BACKLOG: Range = Range::Real {
    min: 0.0,
    max: 1e6,
    unit: "packets",
};

cc_core::port_config! {
    /// Configuration of [`Manet`]. Each mechanism is a switch, so that it can be measured alone
    /// (the ablation table in docs/results/manet.md); the numbers are their sources' own
    /// values, not fitted to any scenario: Vegas' bands of 2 and 4 packets and slow-start exit
    /// at 1 (Linux `tcp_vegas.c`), CUBIC's constants (RFC 9438), HyStart++'s growth divisor of
    /// 4 (RFC 9406), Veno's cut to 4/5 (Fu and Liew 2003), BBR's 10 s base RTT lifetime,
    /// `ProbeRTT`'s half window and `cwnd_gain` of 2 (Cardwell et al. 2016; BBRv2), Copa's five
    /// round trips (Arun and Balakrishnan, NSDI 2018, section 2.2). On quinn it shows the
    /// window plus one byte by default (`quinn_full_window`), so that a window of N datagrams
    /// carries N, as on noq (`bdp_cap` counts what is in flight).
    ///
    /// ```
    /// let mut manet = cc_manet::ManetConfig::default();
    /// manet.set_competitive_mode(false)?;
    /// let mut transport = quinn::TransportConfig::default();
    /// manet.install(&mut transport);
    /// # Ok::<(), cc_manet::ConfigError>(())
    /// ```
    pub struct ManetConfig for Manet {
        name: "manet",
        summary: "composite for multi-hop wireless: Vegas backlog bound, CUBIC growth, Westwood+ floor, Copa's mode switch (cc-manet)",
        revision: 8,
        quinn_full_window: true,
        check: check_bands,
        knobs: {
            /// Initial window in datagrams (RFC 9002 section 7.2).
            initial_window_packets: u64 = 10, Range::INITIAL_WINDOW_PACKETS;
            /// The backlog bound (TCP Vegas, Brakmo and Peterson, IEEE JSAC 1995, sections
            /// 3.2-3.3; TCP-UB's bands): once per round trip, `Diff = cwnd x (RTT - BaseRTT) /
            /// RTT` packets; the window grows only while `Diff < alpha`, holds up to `beta` and
            /// loses a packet per round above it. Keeps a multi-hop 802.11 chain near its best
            /// window (Fu et al., INFOCOM 2003: about h/4 packets).
            backlog_bound: bool = true, Range::Any;
            /// Lower backlog threshold alpha, packets (Linux `tcp_vegas.c`: 2; the original
            /// Vegas band is 1 to 3, ns-2's `v_alpha_ 1` and `v_beta_ 3`).
            alpha: f64 = 2.0, BACKLOG;
            /// Upper backlog threshold beta, packets (Linux `tcp_vegas.c`: 4).
            beta: f64 = 4.0, BACKLOG;
            /// The round's RTT as the mean of its samples, as Vegas' `Actual` (bytes over the
            /// RTT the segment took, Brakmo and Peterson 1995, section 3.2) reads it; with
            /// false, the round's minimum (Linux `tcp_vegas.c`, which filters delayed-ACK
            /// noise). On an 802.11 chain contention shows as retries and backoffs that spread
            /// the samples while the minimum stays low; the mean sees them.
            mean_round_rtt: bool = true, Range::Any;
            /// BBR's in-flight cap (Cardwell et al., ACM Queue 2016: `cwnd_gain` 2 bounds what
            /// is in flight to twice `BtlBw x RTprop`): once per round trip, with the round's
            /// delivery rate `cwnd / RTT` (the RTT as the bound reads it) and the base RTT, the
            /// cap is `2 x cwnd x BaseRTT / RTT` plus one datagram, the one a receiver holds for
            /// its next ACK (RFC 9000 section 13.2.2). Above the cap the window loses a datagram
            /// per round trip, as above `beta`; it grows only while one more datagram stays
            /// within it. Vegas' bands count packets, so on a path whose bandwidth-delay product
            /// is a packet or two (a multi-hop 802.11 chain, where the best window is about h/4
            /// packets: Fu et al., INFOCOM 2003) `alpha` alone keeps two or three times the pipe
            /// in flight and the flow's own packets contend along the chain; where the product is
            /// larger than `alpha` packets the cap does not bind. It acts only after a drain
            /// round (`competitive_mode`) found the round's delay to be this flow's, until a
            /// drain round finds a competitor's queue or a timeout: a competitor's queue inflates
            /// the RTT as well, and a cap read from it would keep the window too small for Copa's
            /// test to lift the bound. For the same reason it never goes under three datagrams,
            /// a window a drain round can still drain. It counts what is in flight, so on quinn
            /// it needs `quinn_full_window` (on by default for this controller): with quinn
            /// 0.11's one datagram less, a cap of two datagrams carries one, which the receiver
            /// acknowledges only after its ACK delay, and the inflated RTT shrinks the cap again.
            /// A link that needs a datagram more in flight than the cap allows (one fast hop) is
            /// where it costs.
            bdp_cap: bool = true, Range::Any;
            /// The jitter allowance: a drain round (`competitive_mode`) also compares the
            /// round's RTT spread (mean minus minimum) before and at the drained window. A spread
            /// this flow made, by its queue or by contention along an 802.11 chain, shrinks with
            /// the window; one that keeps three quarters of itself is the path's per-packet
            /// jitter, and from then on the bound reads the round's mean less the larger of the
            /// two spreads (a mean-minus-minimum gap grows with the samples a round holds, so the
            /// fuller round's is the closer), never under the minimum, until the next drain round
            /// or a new base RTT. Ours: Copa's drain test (NSDI 2018, section 2.2) applied to the
            /// spread, so that `mean_round_rtt` does not read jitter as backlog.
            jitter_allowance: bool = true, Range::Any;
            /// The rate check (`rate_check`): after rounds the bound held or decreased, a trial
            /// sends 1.25 times the window (BBR's `ProbeBW` gain) and measures whether the rate
            /// delivered grew with it (Vegas' `Actual`, the bytes a round acknowledged over its
            /// mean RTT). A queue delivers no more; a path with room does, and then the delay the
            /// bound read was jitter, a wireless hop's retries or another flow's queue: the window
            /// keeps its gain and that delay becomes an allowance the bound no longer reads as
            /// backlog, until a new base RTT, and the next held round trials again. Otherwise
            /// the window returns; `rate_check_loss_backoff` sets when the next check runs. Ours:
            /// BBR's full-pipe test (Cardwell et al., ACM Queue 2016) and PCC Vivace's online
            /// experiments (Dong et al., NSDI 2018) applied to the bound's reading.
            rate_check: bool = true, Range::Any;
            /// The rate check's cadence: a trial that found the rate flat doubles the wait
            /// before the next (up to `competitive_rounds x probe_backoff_max` held rounds, the
            /// drain rounds' cap) only when it saw losses: a loss, a round with losses or an ECN
            /// cut declared from its measuring round on, or in a recovery round after it. Its
            /// gain overflowed a queue (BBRv2 takes the in-flight data of a loss as its ceiling,
            /// `inflight_hi`, and probes no higher; Cardwell et al., IETF 104 ICCRG, 2019). A
            /// flat trial without loss keeps the wait it had, so once a trial found room (a wait
            /// of one held round) trials go on two rounds in three until one loses packets: on
            /// a path whose round rates jitter, a flat reading is as likely noise as a queue,
            /// and a loss is the evidence that tells them apart. Ours, after BBRv2's
            /// `PROBE_UP`, which raises its probe until a loss (BBRv2 then waits 2 to 3 s
            /// before probing again; here the wait is rounds). A new base RTT clears the
            /// allowance but not the wait: the path's room is re-read by the next trials. Not
            /// recorded: a loss declared in a recovery period that began while the trial
            /// settled (every such round is a recovery round, before the trial is measured), and
            /// an ECN mark within a recovery period (it causes no cut). With false, every flat
            /// trial backs off.
            rate_check_loss_backoff: bool = true, Range::Any;
            /// The rate check's second test: a trial's rate gain counts as room only if the
            /// round's smallest RTT, Copa's standing queue (NSDI 2018, section 2.1), rose by at
            /// most one datagram's time at the starting round's rate, or by that round's spread
            /// (mean minus smallest) if larger. At a full bottleneck shared with other flows a
            /// trial's gain is their rate: a flow with a share `s` gains `g (1 - s) / (1 + g s)`
            /// for a window gain `g` (Little's law), which passes the rate's test up to a share of
            /// 0.44 whatever the number of flows, while its extra datagrams raise the standing
            /// queue; a pipe with room for the whole gain does not (PCC Vivace's RTT gradient,
            /// Dong et al., NSDI 2018). It sees a share taken only where the gain times the
            /// share exceeds one datagram (or the spread). The spread: jitter delivered in
            /// order holds the datagrams behind a late one, so a larger window lifts the
            /// smallest RTT within it. Ours. With false, the rate alone judges a trial.
            rate_check_standing_queue: bool = true, Range::Any;
            /// A loss the flow's own queue cannot explain (the last round's backlog under
            /// `alpha`, and at most 2% of the last round's bytes lost this round, BBRv2's loss
            /// threshold) keeps the window and starts no recovery period, so growth goes on
            /// (PETRA section 4.2.3: the window is kept unless the RTT confirms congestion;
            /// TCP-UB's bands). With false such a loss takes Veno's cut. An ECN mark is always
            /// congestion.
            queue_free_loss: bool = true, Range::Any;
            /// `queue_free_loss` also reads a round whose standing queue (Copa's: its smallest
            /// RTT over the base, NSDI 2018 section 2.1) lies within its RTT spread (mean minus
            /// smallest) or the jitter allowance as free of this flow's queue: this flow's queue
            /// delays every datagram of a round and raises its smallest RTT, while per-datagram
            /// jitter raises the mean that Vegas' backlog reads. Ours, from Copa's standing
            /// queue and PETRA's reading (section 4.2.3: the window is kept unless the RTT
            /// confirms congestion). With false only the backlog and the rate check's room tell.
            queue_free_loss_spread: bool = true, Range::Any;
            /// The loss events a round must hold before `queue_free_loss`'s 2% threshold reads
            /// it as congested, where the last round's backlog read under `alpha` and the window
            /// holds more than `2 x beta` datagrams: a round of `n` datagrams that loses one
            /// shows a share of `1/n`, over 2% in every round under 50 datagrams whatever the
            /// path's loss rate. Ours, after BBR's startup, which ends on loss only when a round
            /// also held `BBRStartupFullLossCnt` = 6 discontiguous lost ranges
            /// (draft-ietf-ccwg-bbr-04, section 5.3.1.3); each congestion event counts as one.
            /// 1: the threshold alone.
            queue_free_loss_events: u64 = 6, Range::Integer { min: 1, max: 255 };
            /// Vegas' slow-start exit (Brakmo and Peterson 1995, section 3.3): slow start ends
            /// when a round's backlog exceeds 1 packet (Linux's gamma), instead of at the first
            /// loss. With the backlog bound only.
            slow_start_exit: bool = true, Range::Any;
            /// A rate trial whose delivery rate grew with its window (`rate_check`), in a round
            /// whose standing queue lay within its RTT spread or the jitter allowance (no flow's
            /// queue to take a share from), returns the flow to slow start: the delay that ended
            /// slow start or held the bound was not this flow's queue, and a pipe with room fills
            /// in a few rounds rather than by a 1.25x trial every three. The pipe is the largest
            /// delivery rate times the mean RTT of the round that began it (what the pipe holds
            /// at that rate, jitter included). On every ACK the window stays within twice the
            /// pipe plus the ACKs' bunching (BBR's startup `cwnd_gain` and `extra_acked`). Three
            /// rounds without 1.25x the largest rate (BBR's full-pipe test) end it at the pipe,
            /// and a loss the composite cuts for ends it at most there (BBR's Drain target).
            /// BBR's startup (Cardwell et al., ACM Queue 2016; draft-ietf-ccwg-bbr-04 sections
            /// 5.3.1-5.3.1.2, its Drain state and `BBRUpdateACKAggregation`; Linux commit
            /// 78dc70ebaa38), entered where HyStart++ resumes slow start after a spurious exit
            /// (RFC 9406 section 4.3).
            rate_check_slow_start: bool = true, Range::Any;
            /// Conservative slow start below the bound (HyStart++, RFC 9406 section 4.2,
            /// `CSS_GROWTH_DIVISOR` = 4): in a round that follows one whose backlog was under 1
            /// packet (Vegas' slow-start exit threshold: the pipe is not full), the window grows
            /// by a quarter of the bytes acknowledged, 1.25x per round trip (BBR's `ProbeBW` gain),
            /// instead of a datagram per round trip. After a random loss on a long path the
            /// window then refills the pipe in a few round trips instead of tens; at the few
            /// datagrams of an 802.11 chain a quarter is about one datagram, Vegas' own step. A
            /// round's samples are of the packets sent in the round before it, so a window grown
            /// this way is measured a round later: it regains at once a window a round has
            /// measured clear (as CUBIC climbs fast back to `W_max`, RFC 9438 section 4.2), and
            /// past it grows only every other round trip, from a window a round has measured
            /// (Vegas' slow start, Brakmo and Peterson 1995, section 3.3), so that two unmeasured
            /// 1.25x rounds do not overshoot a shallow queue.
            empty_queue_css: bool = true, Range::Any;
            /// CUBIC's growth (RFC 9438 section 4, with its Reno-friendly region) whenever the
            /// window may grow and nothing bounds it; with false, Reno's one datagram per round
            /// trip. The stacks' default is CUBIC: on clean and high-BDP paths its growth is what
            /// this controller must not fall behind.
            cubic_growth: bool = true, Range::Any;
            /// A Westwood+ floor on every loss cut (Grieco and Mascolo, ACM CCR 2004; PETRA eq.
            /// 4.5; TCP-UB): `ssthresh = max(beta_cubic x cwnd, BWE x BaseRTT)`, never above the
            /// window. A random loss on an uncongested path then costs almost nothing; with
            /// false, CUBIC's `0.7 x cwnd`.
            westwood_floor: bool = true, Range::Any;
            /// Veno's loss reading (Fu and Liew, IEEE JSAC 2003, section II): a loss while the
            /// last round's backlog was under `beta` packets did not overflow this flow's queue,
            /// so it is read as random and the window is cut by a fifth instead of CUBIC's 30%;
            /// the cut keeps the standing queue that keeps the bottleneck busy through it. Veno's
            /// threshold is its own beta (3); here it is the bound's.
            veno_random_loss: bool = true, Range::Any;
            /// Copa's mode switch (Arun and Balakrishnan, NSDI 2018, section 2.2): after
            /// `competitive_rounds` round trips with a standing queue (`Diff >= alpha`), a drain
            /// round sends only the backlog-free window, which drains a queue this flow built. If
            /// the queueing delay keeps three quarters of its value or more, the queue is another
            /// flow's (a buffer-filling competitor, or a longer route that outdated the base
            /// RTT), and the bound is lifted until the queueing delay falls under a tenth of its
            /// maximum over the last four rounds. Keeps a Vegas-like flow from starving beside
            /// CUBIC. The three quarters is ours: with a half, an 802.11 chain's contention
            /// delay, which a smaller window reduces by less than half, reads as a competitor's
            /// queue; every other constant is its source's.
            competitive_mode: bool = true, Range::Any;
            /// Copa's switch reads a queueing delay within the jitter allowance
            /// (`jitter_allowance`) as no queue: a drain round that keeps such a delay finds no
            /// competitor, and competitive mode ends once the delay falls within it. Copa's
            /// smallest RTT filters jitter over many samples (section 2.1); with jitter as large
            /// as the RTT a drain round, holding fewer samples, reads a larger smallest RTT, and
            /// Copa's exit (a tenth of the recent maximum) is seldom met. Ours. With false (or
            /// without `jitter_allowance`), Copa's test alone.
            competitive_mode_jitter: bool = true, Range::Any;
            /// Round trips with a standing queue before a drain round (Copa: 5).
            competitive_rounds: u64 = 5, Range::Integer { min: 1, max: 1000 };
            /// The restore after a drain round, BBR's `ProbeRTT` exit (Cardwell et al., ACM Queue
            /// 2016; Linux `tcp_bbr.c`, `bbr_restore_cwnd`): when the drain round finds the queue
            /// to be this flow's, the window returns to its value before the cut; with false, it
            /// regrows from the backlog-free window a datagram per round trip. On an 802.11 chain
            /// the backlog-free window undercounts the pipe (contention reads as queue), so every
            /// drain round without it costs several rounds at a fraction of the rate. (The knob
            /// keeps its name: it is part of run identity.)
            probe_restore: bool = true, Range::Any;
            /// Off by default: Copa's exit from competitive mode (a queueing delay under a tenth
            /// of its recent maximum, read from the round's minimum RTT) also needs the bound's
            /// own reading to agree, a backlog of at most `beta`; otherwise the bound, which
            /// reads the round's mean, shrinks the window at once for a delay the switch filtered
            /// out (jitter), round after round until the next drain round lifts the bound again.
            /// Ours: Copa's exit (section 2.2) made consistent with `mean_round_rtt`. It cannot
            /// tell jitter from an 802.11 chain's contention spread: where a drain round misreads
            /// that contention as a competitor's queue, it keeps the bound lifted longer.
            leave_competitive_under_beta: bool = false, Range::Any;
            /// The drain rounds' backoff: each drain round that finds the queue to be this flow's
            /// doubles the wait before the next, up to `competitive_rounds` times this (1: no
            /// backoff); the rate check's trials back off to the same cap. At 8, one drain round
            /// in 40 or more: a 2.5% budget, BBR's `ProbeRTT` budget's order (200 ms in 10 s; Cardwell et al., ACM Queue 2016). A competitor
            /// that arrives later is found within that many rounds. (The knob keeps its name: it
            /// is part of run identity.)
            probe_backoff_max: u64 = 8, Range::Integer { min: 1, max: 1000 };
            /// The base RTT expires after 10 s without a sample at or below it and is
            /// re-measured in a drain round, this flow's own queue drained (BBR's `min_rtt`
            /// filter and `ProbeRTT` state, Cardwell et al., ACM Queue 2016; Copa's RTTmin
            /// window, NSDI 2018 section 2.1). On a MANET a route that got longer makes an old
            /// base read as a standing queue long before any timeout.
            refresh_base_rtt: bool = true, Range::Any;
            /// A new base RTT after a timeout (persistent congestion): on a MANET the route may
            /// have changed, and the old base would read the new path's longer RTT as a standing
            /// queue (Vegas' known failure after a reroute; Linux's Westwood+ also restarts its
            /// minimum RTT on a loss timeout).
            reset_base_on_timeout: bool = true, Range::Any;
        }
    }
}

/// The bands must be ordered: `alpha < beta`.
fn check_bands(c: &ManetConfig) -> Result<(), ConfigError> {
    if c.alpha() >= c.beta() {
        return Err(ConfigError::new(
            "alpha",
            format!("{} (with beta = {})", c.alpha(), c.beta()),
            "alpha < beta",
        ));
    }
    Ok(())
}

cc_core::port_config! {
    /// Configuration of [`FixedWindow`]: a constant window, the reference a sweep over
    /// `packets` measures each path's best fixed window with (netsim-ns3's `chain_windows`;
    /// Fu et al., INFOCOM 2003).
    ///
    /// ```
    /// let mut fixed = cc_manet::FixedWindowConfig::default();
    /// fixed.set_packets(3)?;
    /// let mut transport = quinn::TransportConfig::default();
    /// fixed.install(&mut transport);
    /// # Ok::<(), cc_manet::ConfigError>(())
    /// ```
    pub struct FixedWindowConfig for FixedWindow {
        name: "fixed",
        summary: "reference: a constant window of `packets` datagrams, whatever happens (cc-manet)",
        revision: 1,
        knobs: {
            /// The window, datagrams (never changed by losses or ACKs; at least RFC 9002's
            /// minimum window of 2). quinn 0.11 carries one less (its send check), noq all.
            packets: u64 = 4, Range::Integer { min: 2, max: 100_000 };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bands_must_be_ordered_and_values_in_range() {
        let mut c = ManetConfig::default();
        assert_eq!((c.alpha(), c.beta()), (2.0, 4.0));
        let err = c.set_alpha(5.0).unwrap_err();
        assert_eq!(err.field, "alpha");
        assert!(err.to_string().contains("alpha < beta"), "{err}");
        assert_eq!(c, ManetConfig::default(), "unchanged by the failed call");
        let err = ManetConfig::default().set_beta(-1.0).unwrap_err();
        assert_eq!(err.field, "beta");
        let err = ManetConfig::default()
            .set_competitive_rounds(0)
            .unwrap_err();
        assert_eq!(err.field, "competitive_rounds");
        let err = FixedWindowConfig::default().set_packets(0).unwrap_err();
        assert_eq!(err.field, "packets");
    }

    #[test]
    fn the_composite_fills_its_window_on_quinn_and_the_fixed_window_does_not() {
        // `bdp_cap` counts what is in flight; the fixed window is measured as the papers'
        // ports run, quinn's one datagram less included (README: the best fixed window).
        assert!(ManetConfig::default().quinn_full_window());
        assert!(!FixedWindowConfig::default().quinn_full_window());
        let mut off = ManetConfig::default();
        off.set_quinn_full_window(false);
        assert!(!off.quinn_full_window());
    }
}
