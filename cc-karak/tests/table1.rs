//! Table 1 of the Karak paper, row by row, with the arithmetic worked out.

use cc_core::{CongestionAlgorithm, CongestionEvent, LossSignal};
use cc_karak::{Karak, KarakConfig, KarakDecision};
use std::time::{Duration, Instant};

const MTU: u16 = 1200;
const SEG: u64 = MTU as u64;

/// A Karak controller whose window is exactly `packets` datagrams.
fn at_window(packets: u64) -> Karak {
    // Start at the initial window (or below it) and grow by slow start through the public path.
    let mut cfg = KarakConfig::default();
    cfg.set_initial_window_packets(packets.min(10)).unwrap();
    let mut k = Karak::new(cfg, MTU);
    let target = packets * SEG;
    let t0 = Instant::now();
    while k.window() < target {
        k.on_ack(&cc_core::AckSample {
            now: t0,
            sent: t0,
            bytes: (target - k.window()).min(SEG),
            app_limited: false,
            rtt: cc_core::RttSnapshot::uniform(Duration::from_millis(100)),
        });
    }
    assert_eq!(k.window(), packets * SEG);
    k
}

#[test]
fn table1_from_a_window_of_64_packets() {
    // (signal, decision, window after in packets, ssthresh after in packets)
    let rows = [
        // Dup_ACK == 3: cwnd = 64 / 2 = 32; fast recovery sets ssthresh = cwnd = 32.
        (
            LossSignal::FastRetransmit,
            KarakDecision::FastRetransmit,
            32,
            32,
        ),
        // Timeout, Dup_ACK == 2: 64 / 4 = 16, already a power of two; ssthresh = 64 / 2.
        (
            LossSignal::Timeout { dup_acks: 2 },
            KarakDecision::TimeoutAfterTwo,
            16,
            32,
        ),
        // Timeout, Dup_ACK == 1: 64 / 8 = 8; ssthresh = 64 / 2.
        (
            LossSignal::Timeout { dup_acks: 1 },
            KarakDecision::TimeoutAfterOne,
            8,
            32,
        ),
        // Timeout, Dup_ACK == 0: cwnd = 1 segment in TCP; QUIC's minimum is 2 datagrams.
        (
            LossSignal::PERSISTENT,
            KarakDecision::TimeoutAfterNone,
            2,
            32,
        ),
        // ECN (not in the paper): as a fast retransmit.
        (LossSignal::Ecn, KarakDecision::Ecn, 32, 32),
    ];
    for (signal, decision, cwnd, ssthresh) in rows {
        let mut k = at_window(64);
        assert_eq!(k.react(signal), decision, "{signal}");
        assert_eq!(k.window(), cwnd * SEG, "{signal}: window");
        assert_eq!(k.ssthresh(), ssthresh * SEG, "{signal}: ssthresh");
    }
}

#[test]
fn graded_cuts_round_up_to_a_power_of_two() {
    // 100 packets: /8 = 12.5 -> 13 packets -> next power of two 16.
    //              /4 = 25   -> 32.
    //              /2 = 50   (fast retransmit is not rounded).
    let mut k = at_window(100);
    k.react(LossSignal::Timeout { dup_acks: 1 });
    assert_eq!(k.window(), 16 * SEG);
    let mut k = at_window(100);
    k.react(LossSignal::Timeout { dup_acks: 2 });
    assert_eq!(k.window(), 32 * SEG);
    let mut k = at_window(100);
    k.react(LossSignal::FastRetransmit);
    assert_eq!(k.window(), 50 * SEG);
}

#[test]
fn rounding_can_be_switched_off() {
    let mut cfg = KarakConfig::default();
    cfg.set_round_to_power_of_two(false).unwrap();
    let mut k = Karak::new(cfg, MTU);
    // Initial window 10 packets: /8 = 1.25 packets = 1500 bytes, below the 2-packet minimum.
    k.react(LossSignal::Timeout { dup_acks: 1 });
    assert_eq!(k.window(), 2 * SEG);
}

#[test]
fn small_windows_never_go_below_the_minimum() {
    // 4 packets: /8 = 0.5 -> 1 packet -> power of two 1 -> clamped to the 2-packet minimum.
    for signal in [
        LossSignal::FastRetransmit,
        LossSignal::Timeout { dup_acks: 1 },
        LossSignal::Timeout { dup_acks: 2 },
        LossSignal::PERSISTENT,
    ] {
        let mut k = at_window(4);
        k.react(signal);
        assert!(k.window() >= 2 * SEG, "{signal}");
        assert!(k.ssthresh() >= 2 * SEG, "{signal}");
    }
}

#[test]
fn configured_factors_replace_the_papers() -> Result<(), cc_core::ConfigError> {
    let mut cfg = KarakConfig::default();
    cfg.set_one_dup_ack_factor(0.25)?
        .set_two_dup_ack_factor(0.5)?
        .set_fast_retransmit_factor(0.7)?;
    let mut k = Karak::new(cfg.clone(), MTU);
    let t0 = Instant::now();
    let grow = |k: &mut Karak| {
        while k.window() < 64 * SEG {
            k.on_ack(&cc_core::AckSample {
                now: t0,
                sent: t0,
                bytes: SEG,
                app_limited: false,
                rtt: cc_core::RttSnapshot::uniform(Duration::from_millis(100)),
            });
        }
    };
    grow(&mut k);
    k.react(LossSignal::Timeout { dup_acks: 1 });
    assert_eq!(k.window(), 16 * SEG, "64 x 0.25 = 16");
    let mut k = Karak::new(cfg, MTU);
    grow(&mut k);
    k.react(LossSignal::FastRetransmit);
    // 64 x 0.7 = 44.8 packets = 53760 bytes (not rounded).
    assert_eq!(k.window(), 53_760);
    Ok(())
}

#[test]
fn one_reduction_per_round_trip_but_persistent_congestion_always_cuts() {
    let mut k = at_window(64);
    let t0 = Instant::now();
    let ms = Duration::from_millis;
    let event = |now, sent, signal| CongestionEvent::determined(now, sent, SEG, signal);
    k.on_congestion(&event(
        t0 + ms(200),
        t0 + ms(50),
        LossSignal::FastRetransmit,
    ));
    assert_eq!(k.window(), 32 * SEG);
    // Another loss of a packet sent before recovery began (t0 + 200 ms): ignored.
    k.on_congestion(&event(
        t0 + ms(210),
        t0 + ms(100),
        LossSignal::Timeout { dup_acks: 1 },
    ));
    assert_eq!(k.window(), 32 * SEG);
    // Persistent congestion: always cuts.
    k.on_congestion(&event(t0 + ms(220), t0 + ms(100), LossSignal::PERSISTENT));
    assert_eq!(k.window(), 2 * SEG);
}

#[test]
fn slow_start_then_congestion_avoidance_as_newreno() {
    let mut k = at_window(16);
    k.react(LossSignal::FastRetransmit); // cwnd = ssthresh = 8 packets
    let t0 = Instant::now();
    let ack = |k: &mut Karak| {
        k.on_ack(&cc_core::AckSample {
            now: t0 + Duration::from_secs(1),
            sent: t0 + Duration::from_secs(1),
            bytes: SEG,
            app_limited: false,
            rtt: cc_core::RttSnapshot::uniform(Duration::from_millis(100)),
        })
    };
    // Congestion avoidance: 8 acks of one segment = one window -> +1 segment.
    for _ in 0..7 {
        ack(&mut k);
    }
    assert_eq!(k.window(), 8 * SEG);
    ack(&mut k);
    assert_eq!(k.window(), 9 * SEG);
}
