//! Section 2 of the SACK-FeW paper, step by step, with the arithmetic worked out.
//!
//! Windows are in bytes with 1200-byte datagrams; "packets" below are datagrams.

use cc_core::testing::Driver;
use cc_core::{
    AckSample, CongestionAlgorithm, CongestionEvent, LossSignal, PortController, RttSnapshot,
};
use cc_sackfew::{SackFew, SackFewConfig, SackFewDecision};
use std::time::{Duration, Instant};

const MTU: u16 = 1200;
const SEG: u64 = MTU as u64;

/// A controller with `alpha` whose window is exactly `packets` datagrams (its initial window).
fn at_window(alpha: f64, packets: u64) -> SackFew {
    let mut cfg = SackFewConfig::default();
    cfg.set_alpha(alpha)
        .unwrap()
        .set_initial_window_packets(packets)
        .unwrap();
    SackFew::new(cfg, MTU)
}

fn ack_at(sent: Instant, bytes: u64) -> AckSample {
    AckSample {
        now: sent + Duration::from_millis(100),
        sent,
        bytes,
        app_limited: false,
        rtt: RttSnapshot::uniform(Duration::from_millis(100)),
    }
}

/// Acknowledges `n` datagrams of one segment each, sent at `sent`.
fn ack_segments(c: &mut SackFew, sent: Instant, n: u64) {
    for _ in 0..n {
        c.on_ack(&ack_at(sent, SEG));
    }
}

fn event(now: Instant, sent: Instant, signal: LossSignal) -> CongestionEvent {
    CongestionEvent::determined(now, sent, SEG, signal)
}

#[test]
fn few_growth_per_ack_for_each_alpha() {
    // Window 10 packets = 12000 bytes. Section 2.1: cwnd += alpha / cwnd per ACK, in packets;
    // in bytes alpha x MSS x acked / cwnd (equivalence in FewGrowth::on_ack).
    // (alpha, acks of one segment, window after in bytes, fraction of a byte owed after)
    let rows: [(f64, u64, u64, f64); 6] = [
        // 0.01 x 1200 x 1200 / 12000 = 1.2 bytes: 1 byte now, 0.2 owed.
        // (In packets: 10 + 0.01 / 10 = 10.001 packets = 12001.2 bytes.)
        (0.01, 1, 12_001, 0.2),
        // 0.5 x 1200 x 1200 / 12000 = 60 bytes (10 + 0.5 / 10 = 10.05 packets).
        (0.5, 1, 12_060, 0.0),
        // 1 x 1200 x 1200 / 12000 = 120 bytes (10 + 1 / 10 = 10.1 packets).
        (1.0, 1, 12_120, 0.0),
        // One window (10 ACKs) adds about alpha packets: 0.01 x 1200 = 12 bytes, a little less
        // (11.995) because each ACK divides by the window it has already grown.
        (0.01, 10, 12_011, 0.995),
        // 0.5 x 1200 = 600 bytes, less the same effect: 587.09.
        (0.5, 10, 12_587, 0.095),
        // 1 x 1200 = 1200 bytes, less the effect: 1150.4 (sqrt(12000^2 + 2 x 1200 x 12000)
        // = 13145 is the continuous limit; ten discrete steps give 13150).
        (1.0, 10, 13_150, 0.416),
    ];
    let t0 = Instant::now();
    for (alpha, acks, cwnd, owed) in rows {
        let mut c = at_window(alpha, 10);
        ack_segments(&mut c, t0, acks);
        assert_eq!(c.window(), cwnd, "alpha {alpha}, {acks} acks");
        assert!(
            (c.pending_growth() - owed).abs() < 0.001,
            "alpha {alpha}, {acks} acks: owed {} not {owed}",
            c.pending_growth()
        );
    }
}

#[test]
fn fractional_growth_is_not_lost_to_integer_truncation() {
    // alpha = 0.01 at 100 packets: 0.01 x 1200 x 1200 / 120000 = 0.12 bytes per ACK. Truncating
    // each increment would add 0 bytes forever; the carried fraction reaches a byte at the 9th
    // ACK (9 x 0.12 = 1.08).
    let t0 = Instant::now();
    let mut c = at_window(0.01, 100);
    ack_segments(&mut c, t0, 8);
    assert_eq!(c.window(), 120_000, "8 x 0.12 = 0.96 bytes owed");
    assert!((c.pending_growth() - 0.96).abs() < 1e-9);
    ack_segments(&mut c, t0, 1);
    assert_eq!(c.window(), 120_001, "9 x 0.12 = 1.08: one byte, 0.08 owed");
}

#[test]
fn alpha_001_adds_one_packet_per_100_round_trips_at_a_100_packet_window() {
    // One packet (1200 bytes) at 0.12 bytes per ACK takes 10,000 ACKs = 100 windows = 100 round
    // trips (10 s at a 100 ms RTT). The denominator grows as the window does, so the window
    // follows dW/dn = alpha x M x M / W: W^2 = 120000^2 + 2 x 0.01 x 1200 x 1200 x 10000
    // = 1.44e10 + 2.88e8, W = 121194.06.
    let t0 = Instant::now();
    let mut c = at_window(0.01, 100);
    ack_segments(&mut c, t0, 10_000);
    assert_eq!(c.window(), 121_194);
    // alpha = 1 does the same in one round trip (100 ACKs): 2 x 1 x 1200 x 1200 x 100 is the
    // same 2.88e8.
    let mut c = at_window(1.0, 100);
    ack_segments(&mut c, t0, 100);
    assert_eq!(c.window(), 121_194);
}

#[test]
fn alpha_zero_freezes_the_window() {
    let t0 = Instant::now();
    let mut c = at_window(0.0, 10);
    ack_segments(&mut c, t0, 10_000);
    assert_eq!(c.window(), 10 * SEG);
}

#[test]
fn same_growth_in_slow_start_and_congestion_avoidance() {
    // Section 1: the same formula whether cwnd is below or above ssthresh.
    let t0 = Instant::now();
    let ms = Duration::from_millis;
    // Slow start: 20 packets, ssthresh unbounded.
    let mut slow = at_window(0.5, 20);
    assert!(slow.window_state().in_slow_start());
    // Congestion avoidance: 40 packets, a loss -> ssthresh = cwnd = 20 packets.
    let mut avoid = at_window(0.5, 40);
    avoid.on_congestion(&event(t0 + ms(100), t0, LossSignal::FastRetransmit));
    assert_eq!(avoid.window(), 20 * SEG);
    assert!(!avoid.window_state().in_slow_start());
    // Both: 0.5 x 1200 x 1200 / 24000 = 30 bytes. (NewReno would add 1200 in slow start and
    // 1200 x 1200 / 24000 = 60 in avoidance.)
    slow.on_ack(&ack_at(t0 + ms(200), SEG));
    avoid.on_ack(&ack_at(t0 + ms(200), SEG));
    assert_eq!(slow.window(), 24_030);
    assert_eq!(avoid.window(), 24_030);
}

#[test]
fn loss_handling_from_a_window_of_64_packets() {
    // ssthresh = 64 x 1/2 = 32 packets (NewReno); section 2.2 step 4: cwnd = min(64, 32) = 32.
    // Persistent congestion (the RTO): ssthresh likewise, window to the 2-packet minimum.
    // (signal, decision, window after in packets, ssthresh after in packets)
    let rows = [
        (
            LossSignal::FastRetransmit,
            SackFewDecision::ReduceToSsthresh,
            32,
            32,
        ),
        // Every timeout is the RTO (by default: persistent congestion, d its distance).
        (
            LossSignal::Timeout { dup_acks: 1 },
            SackFewDecision::CollapseToMinimum,
            2,
            32,
        ),
        // Every timeout is the RTO (by default: persistent congestion, d its distance).
        (
            LossSignal::Timeout { dup_acks: 2 },
            SackFewDecision::CollapseToMinimum,
            2,
            32,
        ),
        (LossSignal::Ecn, SackFewDecision::ReduceToSsthresh, 32, 32),
        (
            LossSignal::PERSISTENT,
            SackFewDecision::CollapseToMinimum,
            2,
            32,
        ),
    ];
    for (signal, decision, cwnd, ssthresh) in rows {
        let mut c = at_window(0.01, 64);
        assert_eq!(c.react(signal), decision, "{signal}");
        assert_eq!(c.window(), cwnd * SEG, "{signal}: window");
        assert_eq!(c.ssthresh(), ssthresh * SEG, "{signal}: ssthresh");
    }
}

#[test]
fn step4_keeps_a_window_already_below_ssthresh() {
    // loss_reduction_factor 1: ssthresh = cwnd, so min(cwnd, ssthresh) leaves the window alone.
    let mut cfg = SackFewConfig::default();
    cfg.set_initial_window_packets(30)
        .unwrap()
        .set_loss_reduction_factor(1.0)
        .unwrap();
    let mut c = SackFew::new(cfg, MTU);
    c.react(LossSignal::FastRetransmit);
    assert_eq!((c.window(), c.ssthresh()), (30 * SEG, 30 * SEG));
    // 0.7: ssthresh = 21 packets, cwnd = min(30, 21) = 21.
    let mut cfg = SackFewConfig::default();
    cfg.set_initial_window_packets(30)
        .unwrap()
        .set_loss_reduction_factor(0.7)
        .unwrap();
    let mut c = SackFew::new(cfg, MTU);
    c.react(LossSignal::FastRetransmit);
    assert_eq!((c.window(), c.ssthresh()), (21 * SEG, 21 * SEG));
}

#[test]
fn small_windows_never_go_below_the_minimum() {
    for signal in [
        LossSignal::FastRetransmit,
        LossSignal::PERSISTENT,
        LossSignal::Ecn,
    ] {
        let mut c = at_window(1.0, 2);
        c.react(signal);
        assert_eq!(c.window(), 2 * SEG, "{signal}");
        assert_eq!(
            c.ssthresh(),
            2 * SEG,
            "{signal}: 2 x 1/2 = 1 packet, clamped to 2"
        );
    }
}

#[test]
fn one_reduction_per_round_trip_and_no_growth_in_recovery() {
    let t0 = Instant::now();
    let ms = Duration::from_millis;
    let mut c = at_window(1.0, 64);
    c.on_congestion(&event(
        t0 + ms(200),
        t0 + ms(50),
        LossSignal::FastRetransmit,
    ));
    assert_eq!(c.window(), 32 * SEG);
    // A loss of a packet sent before recovery began (t0 + 200 ms): same episode.
    c.on_congestion(&event(
        t0 + ms(210),
        t0 + ms(150),
        LossSignal::Timeout { dup_acks: 1 },
    ));
    assert_eq!(c.window(), 32 * SEG);
    // ACKs of packets sent before recovery began, or app-limited ones: no growth.
    c.on_ack(&ack_at(t0 + ms(190), SEG));
    let mut app_limited = ack_at(t0 + ms(300), SEG);
    app_limited.app_limited = true;
    c.on_ack(&app_limited);
    assert_eq!(c.window(), 32 * SEG);
    // A packet sent after: 1 x 1200 x 1200 / 38400 = 37.5 bytes.
    c.on_ack(&ack_at(t0 + ms(300), SEG));
    assert_eq!(c.window(), 32 * SEG + 37);
    assert!((c.pending_growth() - 0.5).abs() < 1e-9);
    // A loss of a packet sent after recovery began: a new episode, and the owed fraction goes.
    c.on_congestion(&event(
        t0 + ms(400),
        t0 + ms(300),
        LossSignal::FastRetransmit,
    ));
    assert_eq!(c.window(), (32 * SEG + 37) / 2);
    assert_eq!(c.pending_growth(), 0.0);
    // Persistent congestion reacts even inside the episode.
    c.on_congestion(&event(t0 + ms(410), t0 + ms(100), LossSignal::PERSISTENT));
    assert_eq!(c.window(), 2 * SEG);
}

#[test]
fn growth_follows_the_current_datagram_size() {
    let t0 = Instant::now();
    let mut c = at_window(1.0, 10);
    c.on_mtu_update(1500);
    assert_eq!(c.window(), 12_000, "the byte window is kept");
    // MSS is now 1500: 1 x 1500 x 1500 / 12000 = 187.5 bytes for a 1500-byte ACK.
    c.on_ack(&ack_at(t0, 1500));
    assert_eq!(c.window(), 12_187);
    assert!((c.pending_growth() - 0.5).abs() < 1e-9);
}

#[test]
fn invalid_alpha_is_rejected_with_its_name_and_range() {
    for bad in [
        -0.01,
        1.000_001,
        2.0,
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
    ] {
        let mut cfg = SackFewConfig::default();
        let err = cfg.set_alpha(bad).unwrap_err();
        assert_eq!(err.field, "alpha", "{bad}");
        let text = err.to_string();
        assert!(
            text.contains("`alpha`") && text.contains("[0, 1]"),
            "{text}"
        );
        assert_eq!(
            cfg,
            SackFewConfig::default(),
            "a rejected value changes nothing"
        );
    }
    for good in [0.0, 0.01, 0.5, 1.0] {
        let mut cfg = SackFewConfig::default();
        assert_eq!(cfg.set_alpha(good).unwrap().alpha(), good);
    }
    assert_eq!(
        SackFewConfig::default().alpha(),
        0.01,
        "the paper's default"
    );
}

#[test]
fn quinn_driven_fast_retransmit_halves_then_grows_by_alpha() {
    // Through the adapter and cc-core's classifier, as quinn drives it: 10 packets in flight,
    // packet 3 dropped and the 3 after it acknowledged -> d = 3, a fast retransmit.
    let cfg = SackFewConfig::default();
    let mut d = Driver::new(PortController::new(
        SackFew::new(cfg.clone(), MTU),
        cfg.signal().clone(),
    ));
    let ev = d.lose_one(10, 3, 3).expect("a congestion event");
    assert_eq!(ev.truth, LossSignal::FastRetransmit);
    assert_eq!(d.controller.signal_stats().fast_retransmit, 1);
    // Before the loss, 6 packets were acknowledged (frames {0, 1, 2, 4}, {5}, {6}), each adding
    // about 0.01 x 1200 x 1200 / 12000 = 1.2 bytes: 7.2 bytes, so cwnd = 12007 (the owed 0.2
    // goes with the reduction). Then ssthresh = 12007 / 2 = 6003 and cwnd = min(12007, 6003).
    assert_eq!(d.controller.algorithm().window(), 6003);
    assert_eq!(d.controller.algorithm().ssthresh(), 6003);
    // Packets 7 to 9 were sent before recovery began: their ACKs add nothing.
    d.advance(Duration::from_millis(10));
    d.ack_all();
    assert_eq!(d.controller.algorithm().window(), 6003);
    // Five new packets, acknowledged: 5 x 0.01 x 1200 x 1200 / 6003 = 5 x 2.4 = 11.99 bytes
    // (the window grows between ACKs), so 11 whole bytes and 0.99 owed.
    d.send(5);
    d.advance(Duration::from_millis(100));
    d.ack_all();
    assert_eq!(d.controller.algorithm().window(), 6014);
}
