//! Sections 4 and 5 of the ABRA NewReno paper, step by step, with the arithmetic worked out.
//!
//! Windows are in bytes with 1200-byte datagrams; "packets" below are datagrams.

use cc_abra::{Abra, AbraConfig, AbraDecision, BINARY_BACKOFF, SrttRange, backoff_factor};
use cc_core::testing::Driver;
use cc_core::{CongestionAlgorithm, LossSignal, MAX_WINDOW, PortController};
use std::time::Instant;

mod common;

use common::*;

#[test]
fn backoff_factor_at_min_max_midpoint_and_outside_the_range() {
    // Section 4: backoff = 1 + (last_srtt - min_srtt) / (max_srtt - min_srtt), clamped to
    // [1, 2], with the paper's starting range min_srtt = 0.1 s, max_srtt = 0.6 s.
    // (last_srtt ms, min ms, max ms, factor)
    let rows = [
        // At min: 1 + 0 / 0.5 = 1.
        (100, 100, 600, 1.0),
        // At max: 1 + 0.5 / 0.5 = 2.
        (600, 100, 600, 2.0),
        // Midpoint: 1 + 0.25 / 0.5 = 1.5.
        (350, 100, 600, 1.5),
        // A fifth of the way: 1 + 0.1 / 0.5 = 1.2.
        (200, 100, 600, 1.2),
        // Below the range: 1 + (-0.05 / 0.5) = 0.9, clamped to 1.
        (50, 100, 600, 1.0),
        // Above the range: 1 + 1.1 / 0.5 = 3.2, clamped to 2.
        (1200, 100, 600, 2.0),
        // A widened range (min 20 ms, max 820 ms): 1 + 0.2 / 0.8 = 1.25.
        (220, 20, 820, 1.25),
        // Degenerate range max == min: the limit of the formula, no division by zero.
        (300, 300, 300, 1.0),
        (301, 300, 300, 2.0),
        (299, 300, 300, 1.0),
        (0, 0, 0, 1.0),
        // Inverted range (max < min): treated as degenerate.
        (400, 600, 100, 1.0),
        (700, 600, 100, 2.0),
    ];
    for (last, min, max, factor) in rows {
        let got = backoff_factor(ms(last), ms(min), ms(max));
        assert!(
            (got - factor).abs() < 1e-12,
            "last {last} ms, range [{min}, {max}] ms: {got} not {factor}"
        );
    }
}

#[test]
fn srtt_range_starts_at_the_papers_bounds_and_widens_with_samples() {
    let mut r = SrttRange::new(ms(100), ms(600));
    // No sample yet: the binary backoff quinn applies anyway.
    assert_eq!(r.backoff(), BINARY_BACKOFF);
    r.observe(ms(350));
    // Inside the starting range: min and max stay, 1 + 0.25 / 0.5 = 1.5.
    assert_eq!(
        (r.min(), r.max(), r.last()),
        (ms(100), ms(600), Some(ms(350)))
    );
    assert_eq!(r.backoff(), 1.5);
    r.observe(ms(50));
    // A new minimum: last == min, factor 1.
    assert_eq!((r.min(), r.backoff()), (ms(50), 1.0));
    r.observe(ms(1000));
    // A new maximum: last == max, factor 2.
    assert_eq!((r.max(), r.backoff()), (ms(1000), 2.0));
    r.observe(ms(525));
    // 1 + (0.525 - 0.05) / (1.0 - 0.05) = 1 + 0.475 / 0.95 = 1.5.
    assert!((r.backoff() - 1.5).abs() < 1e-12);
}

#[test]
fn backoff_accessor_ignores_quinns_initial_rtt_before_the_first_measurement() {
    let t0 = Instant::now();
    let mut a = at_window(10);
    // The first ACK frame's on_ack calls carry quinn's configured initial RTT (333 ms), not a
    // measurement: ignored.
    a.on_ack(&ack(t0, ms(333)));
    assert_eq!(a.srtt_range().last(), None);
    assert_eq!(a.backoff(), 2.0);
    a.on_end_acks(&end_acks(t0 + ms(333)));
    // From the next frame on, quinn's smoothed RTT: 350 ms -> 1.5.
    a.on_ack(&ack(t0 + ms(10), ms(350)));
    assert_eq!(a.srtt_range().last(), Some(ms(350)));
    assert_eq!(a.backoff(), 1.5);
}

#[test]
fn persistent_congestion_saves_then_the_first_ack_after_it_restores_half_and_quarter() {
    let t0 = Instant::now();
    // (cwnd before in packets, ssthresh before in packets (None: never reduced),
    //  restored cwnd in bytes, restored ssthresh in bytes)
    let rows = [
        // Saved 64 / 32: restore 64 / 2 = 32 packets, 32 / 4 = 8 packets.
        (64, Some(32), 32 * SEG, 8 * SEG),
        // Saved 40 / 40: 20 packets, 10 packets.
        (40, Some(40), 20 * SEG, 10 * SEG),
        // Saved 100 / unbounded (no loss before the outage): 50 packets, and the saved window
        // stands in for the unbounded ssthresh: 100 / 4 = 25 packets, congestion avoidance.
        (100, None, 50 * SEG, 25 * SEG),
        // Saved 3 / 3: 1.5 and 0.75 packets, both clamped to the 2-packet minimum.
        (3, Some(3), 2 * SEG, 2 * SEG),
    ];
    for (cwnd, ssthresh, restored_cwnd, restored_ssthresh) in rows {
        let mut a = prepared(cwnd, ssthresh, ms(350), t0);
        let before = (a.window(), a.ssthresh());
        let pc_at = t0 + ms(5_000);
        a.on_congestion(&event(pc_at, t0 + ms(1_000), LossSignal::PERSISTENT));
        // Saved: the state before the collapse and the smoothed RTT (350 ms -> backoff 1.5).
        let saved = *a.saved().expect("state saved at persistent congestion");
        assert_eq!((saved.cwnd, saved.ssthresh), before, "row {cwnd}");
        assert_eq!(saved.srtt, Some(ms(350)));
        assert_eq!(saved.backoff, 1.5);
        assert_eq!(saved.event, pc_at);
        // Collapsed as NewReno: window to the minimum, ssthresh = cwnd / 2.
        assert_eq!(a.window(), 2 * SEG, "row {cwnd}");
        assert_eq!(a.ssthresh(), (before.0 / 2).max(2 * SEG), "row {cwnd}");
        // ACKs of packets sent before or at the event: no restore, no growth.
        a.on_ack(&ack(t0 + ms(4_000), ms(350)));
        a.on_ack(&ack(pc_at, ms(350)));
        assert_eq!(a.window(), 2 * SEG, "row {cwnd}");
        assert!(a.saved().is_some());
        // The first ACK of a packet sent after it: restore.
        a.on_ack(&ack(pc_at + ms(1), ms(350)));
        assert_eq!(a.window(), restored_cwnd, "row {cwnd}: restored cwnd");
        assert_eq!(
            a.ssthresh(),
            restored_ssthresh,
            "row {cwnd}: restored ssthresh"
        );
        assert!(a.saved().is_none());
        assert_eq!(a.stats().restores, 1);
        // Later ACKs grow the restored window as NewReno: a window's worth of ACKs adds at
        // least a datagram (exactly one in congestion avoidance, one per ACK in slow start).
        let w = a.window();
        for _ in 0..w / SEG {
            a.on_ack(&ack(pc_at + ms(2), ms(350)));
        }
        assert!(a.window() > w, "row {cwnd}: growth resumes");
    }
}

#[test]
fn no_restore_when_no_persistent_congestion_happened() {
    let t0 = Instant::now();
    for signal in [LossSignal::FastRetransmit, LossSignal::Ecn] {
        let mut a = at_window(64);
        a.on_end_acks(&end_acks(t0));
        a.on_congestion(&event(t0 + ms(100), t0 + ms(10), signal));
        // NewReno: ssthresh = 64 / 2 = 32 packets, cwnd = ssthresh.
        assert_eq!((a.window(), a.ssthresh()), (32 * SEG, 32 * SEG), "{signal}");
        assert!(a.saved().is_none(), "{signal}: nothing saved");
        // An ACK of a packet sent after the event: congestion avoidance, 1200 x 1200 / 38400
        // = 37.5 bytes per packet, a whole datagram after a window (32 ACKs); no restore.
        for _ in 0..32 {
            a.on_ack(&ack(t0 + ms(200), ms(100)));
        }
        assert_eq!(a.window(), 33 * SEG, "{signal}");
        assert_eq!(a.stats().restores, 0, "{signal}");
    }
}

#[test]
fn repeated_persistent_congestion_keeps_the_state_from_before_the_outage() {
    let t0 = Instant::now();
    let mut a = prepared(64, Some(32), ms(350), t0);
    let first = t0 + ms(5_000);
    a.on_congestion(&event(first, t0 + ms(1_000), LossSignal::PERSISTENT));
    assert_eq!(a.saved().map(|s| s.event), Some(first));
    // No packet sent after the first event was acknowledged; the outage goes on.
    let second = first + ms(5_000);
    a.on_congestion(&event(second, first + ms(1), LossSignal::PERSISTENT));
    let saved = *a.saved().unwrap();
    assert_eq!(
        (saved.cwnd, saved.ssthresh),
        (64 * SEG, 32 * SEG),
        "pre-outage state kept"
    );
    assert_eq!(saved.event, second);
    assert_eq!(a.stats().persistent_congestion, 2);
    // A packet sent between the two events does not restore; one sent after the second does.
    a.on_ack(&ack(first + ms(1), ms(350)));
    assert_eq!(a.window(), 2 * SEG);
    a.on_ack(&ack(second + ms(1), ms(350)));
    assert_eq!((a.window(), a.ssthresh()), (32 * SEG, 8 * SEG));
}

#[test]
fn a_reduction_on_the_repaired_path_cancels_the_pending_restore() {
    let t0 = Instant::now();
    let mut a = prepared(64, Some(32), ms(350), t0);
    let pc_at = t0 + ms(5_000);
    a.on_congestion(&event(pc_at, t0 + ms(1_000), LossSignal::PERSISTENT));
    // A loss of a packet sent before the event: same recovery period, ignored, restore kept.
    a.on_congestion(&event(
        pc_at + ms(5),
        t0 + ms(2_000),
        LossSignal::FastRetransmit,
    ));
    assert!(a.saved().is_some());
    // An ECN mark on a packet sent after the event, before any of those is acknowledged.
    a.on_congestion(&event(pc_at + ms(400), pc_at + ms(1), LossSignal::Ecn));
    assert!(a.saved().is_none());
    assert_eq!(a.stats().cancelled_restores, 1);
    // ssthresh = 2 / 2 = 1 packet, clamped to 2; cwnd = ssthresh = 2 packets.
    assert_eq!((a.window(), a.ssthresh()), (2 * SEG, 2 * SEG));
    a.on_ack(&ack(pc_at + ms(500), ms(350)));
    assert_eq!(a.stats().restores, 0);
}

#[test]
fn quinn_driven_blackout_collapses_then_restores() {
    // Through the adapter as quinn drives it.
    let cfg = AbraConfig::default();
    let mut d = Driver::new(PortController::new(
        Abra::new(cfg.clone(), MTU),
        cfg.signal().clone(),
    ));
    // Two round trips at a 350 ms path RTT: slow start, 10 -> 20 -> 40 packets. The first
    // frame's on_ack shows quinn's 333 ms initial RTT (ignored); quinn's first sample then sets
    // its smoothed RTT to 350 ms, which the second frame shows.
    for n in [10, 20] {
        d.send(n);
        d.advance(ms(350));
        d.ack_all();
    }
    assert_eq!(d.controller.algorithm().window(), 40 * SEG);
    // The route breaks with 40 packets in flight; quinn declares persistent congestion.
    d.send(40);
    d.advance(ms(3_000));
    d.persistent_congestion();
    let abra = d.controller.algorithm();
    assert_eq!(abra.window(), 2 * SEG);
    let saved = *abra.saved().expect("saved");
    assert_eq!((saved.cwnd, saved.ssthresh), (40 * SEG, MAX_WINDOW));
    // Smoothed RTT 350 ms within the starting range [100, 600] ms: 1 + 0.25 / 0.5 = 1.5.
    assert_eq!(saved.srtt, Some(ms(350)));
    assert_eq!(saved.backoff, 1.5);
    assert_eq!(abra.backoff(), 1.5);
    assert_eq!(d.controller.signal_stats().persistent, 1);
    // The route is back: a packet sent after the event is acknowledged -> 40 / 2 = 20 packets.
    d.advance(ms(1));
    d.send(2);
    d.advance(ms(100));
    d.ack_all();
    let abra = d.controller.algorithm();
    // No loss came before the outage: the saved window stands in for the unbounded ssthresh,
    // 40 / 4 = 10 packets, so the second ACK is congestion avoidance (1200 x 1200 / 24,000 =
    // 60 bytes, below a whole datagram), not slow start.
    assert_eq!(
        abra.window(),
        20 * SEG,
        "restored on the first ACK, congestion avoidance on the next"
    );
    assert_eq!(abra.ssthresh(), 10 * SEG);
    assert_eq!(abra.stats().restores, 1);
}

#[test]
fn decisions_for_each_signal() {
    let t0 = Instant::now();
    // (signal, decision, window after in packets, ssthresh after in packets), from 64 packets.
    let rows = [
        // Section 3 step 4 (NewReno): ssthresh = 64 / 2 = 32, cwnd = ssthresh.
        (LossSignal::FastRetransmit, AbraDecision::Halve, 32, 32),
        (LossSignal::Ecn, AbraDecision::EcnHalve, 32, 32),
        // Every timeout is the RTO, whatever its duplicate-ACK count (under ABRA's default
        // reading a timeout is persistent congestion, d its largest lost packet's distance).
        (
            LossSignal::Timeout { dup_acks: 1 },
            AbraDecision::SaveAndCollapse,
            2,
            32,
        ),
        (
            LossSignal::Timeout { dup_acks: 2 },
            AbraDecision::SaveAndCollapse,
            2,
            32,
        ),
        // Timeout: ssthresh = 32, window to the 2-packet minimum, state saved.
        (LossSignal::PERSISTENT, AbraDecision::SaveAndCollapse, 2, 32),
    ];
    for (signal, decision, cwnd, ssthresh) in rows {
        let mut a = at_window(64);
        assert_eq!(a.react(signal, t0), decision, "{signal}");
        assert_eq!(
            (a.window(), a.ssthresh()),
            (cwnd * SEG, ssthresh * SEG),
            "{signal}"
        );
        assert_eq!(a.saved().is_some(), signal.is_timeout(), "{signal}");
    }
    let mut a = at_window(64);
    a.react(LossSignal::PERSISTENT, t0);
    assert_eq!(
        a.react(LossSignal::PERSISTENT, t0 + ms(1)),
        AbraDecision::CollapseAgain
    );
    assert_eq!(AbraDecision::Restore.name(), "restore");
}
